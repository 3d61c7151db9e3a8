"""The boosters' compiled walk against their Python walk, side by side in one process.

Every booster of ``river_boost.bench``'s registry (ten default trees, the bench's models: the
multi-label boosters with majority-class leaves) runs the bench's streams prequentially
(``predict_one`` then ``learn_one`` on every example) in up to four ways:

- ``compiled``: the compiled forest and the compiled walk (``river_boost.walk``, the default);
- ``python``: the compiled forest and the Python walk (``walk.ENABLED = False``);
- ``old``: River's trees in Python and the Python walk (``forest.ENABLED = False`` too), the
  library before the compiled forest (``--old``, one run);
- River's ``ensemble.AdaBoostClassifier`` of ten River Hoeffding trees (``--river``, one run),
  and on Yeast River's ``multioutput.ClassifierChain`` of Hoeffding trees.

Reported: the median throughput (examples per CPU second of the benchmark's thread,
``time.thread_time``: the machine may be shared, and wall-clock time then measures the
neighbours) over ``--repeats`` runs, the compiled walk's speed-up over the Python walk and
over ``old``, and the share of the time spent outside the trees ("overhead"). The time in the
trees is measured by replay: one untimed run records every call the booster makes to the
forest (``predict_proba_matrix`` / ``predict_proba_all`` and ``learn_one``, with their
arguments), and a fresh forest then replays them alone, timed; overhead = 1 - replay / run.
Both walks of a pair make the same predictions (checked on every run). The examples are read
into memory before the clock starts and the garbage collector is paused during each timed run
(collected before it), the same for every model. MOA's OzaBoost speeds (ten Hoeffding trees,
measured with capymoa elsewhere) are printed for reference.

    python benchmarks/walk_speed.py --repeats 3
    python benchmarks/walk_speed.py --streams hyperplane --models AdaBoost.OL --repeats 5
    python benchmarks/walk_speed.py --streams agrawal_gradual rbf_fast --n 10000 --no-old

On the drift suite's streams (``bench.DRIFT_STREAMS``) the boosters with drift adaptation
(``AdaBoost.OL+drift``, ...) run too: their replacements (the forest's ``reset``, ``add``,
``copy_tree`` and ``remove``) are recorded and replayed with the other forest calls.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from river import ensemble, multioutput, tree

from river_boost import bench, forest, walk

# MOA's OzaBoost with ten Hoeffding trees (capymoa), examples per second, measured elsewhere
MOA_OZABOOST = {
    "phishing": 1500,
    "bananas": 3300,
    "agrawal": 2300,
    "sea": 7400,
    "hyperplane": 8800,
    "imagesegments": 6000,
    "rbf": 7900,
}
STREAMS = ["phishing", "bananas", "agrawal", "sea", "hyperplane", "imagesegments", "rbf", "yeast"]
N_MODELS = 10
SEED = 42


def boosters_for(task: str, drifting: bool = False) -> list[str]:
    """The registry's boosters for ``task`` (on a drifting stream, also with drift adaptation)."""
    kinds = ("booster", "drift") if drifting else ("booster",)
    return [
        name
        for name, entry in bench.REGISTRY.items()
        if entry.kind in kinds and task in entry.tasks and name != "MartingaleBooster"
    ]


def run(model, data):
    """``(CPU seconds, predictions)`` of one prequential run."""
    predictions = []
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        for x, y in data:
            predictions.append(model.predict_one(x))
            model.learn_one(x, y)
        seconds = time.thread_time() - start
    finally:
        gc.enable()
    return seconds, predictions


# the forest's methods the boosters call (the compiled walk: load once, then learn_loaded)
# the forest's methods a booster calls (drift adaptation also resets, adds, copies and removes
# trees: replayed too, so that the fresh forest has the same trees)
METHODS = (
    "predict_proba_matrix",
    "predict_proba_all",
    "predict_loaded_matrix",
    "learn_one",
    "load",
    "learn_loaded",
    "reset",
    "add",
    "copy_tree",
    "remove",
)


def record(model, data) -> list:
    """The calls ``model`` makes to its forest on ``data`` (an untimed run): the forest's
    methods are shadowed on the instance by recorders (the booster still sees its forest)."""
    learners = model.pool.learners
    calls = []
    for method in METHODS:
        original = getattr(learners, method)

        def recorder(*args, _method=method, _original=original):
            # copies of the label lists: the booster's own grow as labels join
            calls.append((_method, tuple(list(a) if type(a) is list else a for a in args)))
            return _original(*args)

        setattr(learners, method, recorder)
    try:
        for x, y in data:
            model.predict_one(x)
            model.learn_one(x, y)
    finally:
        for method in METHODS:
            delattr(learners, method)
    return calls


def prepared(model, data):
    """``model`` with ``feature_fraction="auto"`` decided by the stream's first non-empty ``x``
    (as its first prediction would), so that a fresh forest replays the recorded calls and
    the compiled walk runs from the first example."""
    model.pool._prepared(next((x for x, _ in data if x), {}))
    return model


def replay(learners, calls) -> float:
    """CPU seconds of the recorded forest calls alone, on a fresh forest, made as the compiled
    walk makes them (``river_boost._walk.replay``: in C, without a Python call per tree)."""
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        walk._c.replay(learners, calls)
        return time.thread_time() - start
    finally:
        gc.enable()


def build(name: str, compiled_trees: bool):
    """The registry's booster, on the compiled forest or on River's trees."""
    forest.ENABLED = compiled_trees
    try:
        return bench.REGISTRY[name].factory(N_MODELS, SEED)
    finally:
        forest.ENABLED = True


def measure(name, data, repeats, old):
    """Median throughputs and overhead shares of one booster on one stream."""
    n = len(data)
    calls = {}
    for compiled in (True, False):  # the forest calls of each walk (the same trees learn)
        walk.ENABLED = compiled
        calls[compiled] = record(build(name, True), data)
    rows = {"compiled": [], "python": []}
    shares = {"compiled": [], "python": []}
    try:
        for _ in range(repeats):
            walk.ENABLED = True
            model = prepared(build(name, True), data)
            assert type(walk.plan_for(model)).__name__ == "Plan", f"{name}: not compiled"
            sec_c, pred_c = run(model, data)
            trees_c = replay(prepared(build(name, True), data).pool.learners, calls[True])
            walk.ENABLED = False
            sec_p, pred_p = run(build(name, True), data)
            trees_p = replay(prepared(build(name, True), data).pool.learners, calls[False])
            if pred_c != pred_p:
                raise AssertionError(f"{name}: the compiled and the Python walk differ")
            rows["compiled"].append(n / sec_c)
            rows["python"].append(n / sec_p)
            shares["compiled"].append(1.0 - trees_c / sec_c)
            shares["python"].append(1.0 - trees_p / sec_p)
        out = {k: statistics.median(v) for k, v in rows.items()}
        out.update({f"{k} overhead": statistics.median(v) for k, v in shares.items()})
        if old:
            walk.ENABLED = False
            model = build(name, False)
            assert type(model.pool.learners) is not forest.HoeffdingForest
            sec_o, pred_o = run(model, data)
            if pred_o != pred_c:
                raise AssertionError(f"{name}: River's trees and the forest predict differently")
            out["old"] = n / sec_o
    finally:
        walk.ENABLED = True
    return out


def river_baseline(stream: str, data) -> tuple[str, float]:
    if bench.task_of(stream) == "multilabel":
        model = multioutput.ClassifierChain(tree.HoeffdingTreeClassifier())
        label = "River.ClassifierChain"
    else:
        model = ensemble.AdaBoostClassifier(
            tree.HoeffdingTreeClassifier(), n_models=N_MODELS, seed=SEED
        )
        label = "River.AdaBoost"
    seconds, _ = run(model, data)
    return label, len(data) / seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--streams", nargs="+", default=STREAMS, choices=STREAMS + list(bench.DRIFT_STREAMS)
    )
    parser.add_argument("--models", nargs="+", default=None, help="registry names (default all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=None, help="examples per stream (default: all)")
    parser.add_argument("--old", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--river", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)
    print("python " + " ".join(["benchmarks/walk_speed.py", *(argv or sys.argv[1:])]))
    header = (
        f"{'stream':<14}{'model':<15}{'compiled':>9}{'python':>8}{'x':>6}{'old':>7}{'x old':>7}"
        f"{'ovh c':>7}{'ovh py':>8}  baseline"
    )
    print(header)
    print("-" * len(header))
    for stream in args.streams:
        examples, _ = bench.stream_examples(stream, args.n)
        data = list(examples)
        task = bench.task_of(stream)
        drifting = stream in bench.DRIFT_STREAMS
        names = [m for m in boosters_for(task, drifting) if args.models is None or m in args.models]
        baseline = ""
        if args.river:
            label, speed = river_baseline(stream, data)
            baseline = f"{label} {speed:,.0f}"
        if stream in MOA_OZABOOST:
            baseline += f"; MOA.OzaBoost {MOA_OZABOOST[stream]:,}"
        for name in names:
            r = measure(name, data, args.repeats, args.old)
            old = f"{r['old']:>7,.0f}{r['compiled'] / r['old']:>7.1f}" if "old" in r else " " * 14
            print(
                f"{stream:<14}{name:<15}{r['compiled']:>9,.0f}{r['python']:>8,.0f}"
                f"{r['compiled'] / r['python']:>6.1f}{old}"
                f"{r['compiled overhead']:>7.0%}{r['python overhead']:>8.0%}  {baseline}",
                flush=True,
            )
            baseline = ""
    return 0


if __name__ == "__main__":
    sys.exit(main())
