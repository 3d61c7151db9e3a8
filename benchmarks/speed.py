"""Speed against MOA and River, side by side, in one command.

Modes (any combination of these; the first three by default):

``--throughput``
    Ten learners, prequential (``predict_one`` — ``score_one`` on Yeast, as the bench scores
    it — then ``learn_one`` on every example, the examples read into memory first), the
    bench's streams and lengths (``river_boost.bench``):

    - AdaBoost.OL and Online BBM on Phishing, Bananas, Agrawal, SEA and Hyperplane (10,000
      each), AdaBoost.OLM and OnlineMBBM on ImageSegments and RandomRBF (10,000): against
      MOA's OzaBoost with ten Hoeffding trees through capymoa (the bench's ``anchors`` extra,
      Java needed), measured three ways: driven from Python example by example (``py
      loop``: what the bench's MOA anchor does, and what the issue measured), MOA's own
      prequential loop inside Java on the same rows (``java``: an ARFF file in a temporary
      folder, capymoa's ``prequential_evaluation``), and that minus the same Java loop with
      MOA's ``MajorityClass`` (``learner``: the trees and the boosting alone, no reading or
      scoring: the fairest to MOA);
    - Ada.OLMR and OnlineBMR on River's Yeast (the bench's 800 rows; its models: majority-class
      leaves) against River's ``ClassifierChain`` of Hoeffding trees.

    ``--models`` times other boosters instead (bench names, e.g. ``OSBoost,OSBoost.OCP``), each
    on the streams of its task.

    ``outside``: the share of a run's time spent outside the weak learners (the walk's own
    work), from one more run with the walk timing its calls into the forest
    (``river_boost.engine.set_timing``, as ``river-boost bench --details`` reports it).

    Time is the CPU time of the benchmark's thread (``time.thread_time``; the machine may be
    shared) and, for MOA, also of the whole process (the JVM compiles and collects garbage on
    its own threads: ``java proc``); medians over ``--repeats`` runs. Runs of one stream are
    interleaved (ours, MOA's, ours...) so that the ratios compare like with like. The garbage
    collector is paused during each timed run.

``--sgbt``
    ``SGBTClassifier()`` at its defaults (25 steps at rate 0.2; ``seed=42``) against MOA's SGBT
    at MOA's defaults (capymoa's ``StreamingGradientBoostedTrees``: 100 steps at rate 0.0125,
    FIMTDD trees, 75% of the features) on the bench's classification streams (``--streams``;
    the same first ``--n`` examples for both, default the bench's lengths): ours prequential
    as River's ``progressive_val_score`` runs it (``predict_one`` then ``learn_one``, the
    garbage collector on), MOA's SGBT in MOA's prequential loop inside Java (``java``, thread
    and process CPU time, as ``--throughput`` times OzaBoost) and driven from Python row by row
    (``py loop``, the collector on too), with each run's accuracy (that both learned); medians
    over ``--repeats``, runs interleaved.

``--custom-rule``
    The custom rule of ``docs/new-booster.md`` (its Python methods called by the compiled
    walk) against OnlineBBM on the same compiled forest: ten learners, SEA, runs alternated,
    median examples/s.

``--baseline PYTHON``
    This build against another installed build (``PYTHON``: its interpreter, e.g. a venv
    with an earlier commit installed), side by side: the README rows' throughput in
    ``--rounds`` alternated rounds of worker processes, medians, and the ratio.

``--time-bench``
    Times the default ``river-boost bench`` (in a subprocess, ``--no-plot`` not given: the
    command as a user types it) and lists the CPU seconds by model.

    python benchmarks/speed.py                     # the default three (about 15 minutes)
    python benchmarks/speed.py --throughput --streams agrawal --repeats 5
    python benchmarks/speed.py --throughput --no-moa --models OSBoost,OSBoost.OCP --streams sea
    python benchmarks/speed.py --custom-rule --repeats 5
    python benchmarks/speed.py --sgbt --n 5000 --repeats 3
    python benchmarks/speed.py --baseline /path/to/old-venv/bin/python --rounds 3
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import math
import os
import pathlib
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from river import multioutput, tree

import river_boost as rb
from river_boost import bench, potentials
from river_boost import engine as _walk
from river_boost.bench import anchors, runner

N_MODELS = 10
SEED = 42
STREAMS = ["phishing", "bananas", "agrawal", "sea", "hyperplane", "imagesegments", "rbf", "yeast"]
MODELS = {
    "binary": ["AdaBoost.OL", "OnlineBBM"],
    "multiclass": ["AdaBoost.OLM", "OnlineMBBM"],
    "multilabel": ["AdaOLMR", "OnlineBMR"],
}


def build(name: str):
    return bench.REGISTRY[name].factory(N_MODELS, SEED)


def _clock(process) -> float:
    if process == "wall":
        return time.perf_counter()
    return time.process_time() if process else time.thread_time()


def run(model, data, ranking: bool, process=False, collector=False):
    """``(CPU seconds, outputs)`` of one prequential run (``process="wall"``: wall-clock
    seconds; ``collector``: the garbage collector left on, as River's evaluation runs)."""
    out = []
    gc.collect()
    if not collector:
        gc.disable()
    try:
        start = _clock(process)
        if ranking:
            for x, y in data:
                out.append(runner._label_scores(model, x))
                model.learn_one(x, y)
        else:
            for x, y in data:
                out.append(model.predict_one(x))
                model.learn_one(x, y)
        seconds = _clock(process) - start
    finally:
        gc.enable()
    return seconds, out


def outside_share(name: str, data, ranking: bool) -> float:
    """The share of a run's time outside the weak learners: one run with the walk timing its
    calls into the forest (wall-clock time, both; the run's own clock starts after its
    garbage collection, which with MOA's JVM loaded takes longer than a short run)."""
    model = build(name)
    _walk.set_timing(True)
    try:
        total, _ = run(model, data, ranking, process="wall")
        return 1.0 - _walk.forest_seconds() / total
    finally:
        _walk.set_timing(False)


# ----------------------------------------------------------------------------- MOA


class MOA:
    """MOA's OzaBoost (ten Hoeffding trees, MOA's defaults) on one stream, through capymoa
    (``"SGBT"``: MOA's SGBT at MOA's defaults; another capymoa classifier's name: it at its
    defaults). ``accuracy``: that of the last ``java`` run."""

    def __init__(self, data, folder: pathlib.Path, name: str):
        self.data = data
        self.features = sorted({k for x, _ in data for k in x}, key=str)
        self.classes = sorted({str(y) for _, y in data})
        self.arff = folder / f"{name}.arff"
        with open(self.arff, "w") as f:
            f.write("@relation speed\n")
            for i in range(len(self.features)):
                f.write(f"@attribute f{i} numeric\n")
            labels = ",".join(f"'{c}'" for c in self.classes)
            f.write(f"@attribute class {{{labels}}}\n@data\n")
            for x, y in data:
                values = [_arff_number(x.get(k)) for k in self.features]
                f.write(",".join([*values, f"'{y}'"]) + "\n")

    def _learner(self, schema, cls="OzaBoost"):
        import capymoa.classifier as cl

        if cls == "OzaBoost":
            return cl.OzaBoost(schema=schema, random_seed=SEED, boosting_iterations=N_MODELS)
        if cls == "SGBT":  # capymoa's defaults are MOA's (100 steps, rate 0.0125, FIMTDD)
            return cl.StreamingGradientBoostedTrees(schema=schema, random_seed=SEED)
        return getattr(cl, cls)(schema=schema)

    def java(self, cls="OzaBoost") -> tuple[float, float]:
        """(thread, process) CPU seconds of MOA's prequential loop inside Java."""
        from capymoa.evaluation import prequential_evaluation
        from capymoa.stream import ARFFStream

        stream = ARFFStream(str(self.arff))
        learner = self._learner(stream.get_schema(), cls)
        gc.collect()
        t0, p0 = time.thread_time(), time.process_time()
        result = prequential_evaluation(stream, learner, optimise=True)
        t1, p1 = time.thread_time(), time.process_time()
        assert result.cumulative.instances() == len(self.data)
        self.accuracy = result.cumulative.accuracy() / 100
        return t1 - t0, p1 - p0

    def python_loop(self, cls="OzaBoost", collector=False) -> tuple[float, float, float]:
        """(thread, process) CPU seconds and accuracy, MOA driven from Python row by row (as the
        bench's anchor: an instance built per row, then predict and train; ``collector``: the
        garbage collector left on)."""
        import numpy as np
        from capymoa.core import LabeledInstance
        from capymoa.stream import ARFFStream

        schema = ARFFStream(str(self.arff)).get_schema()
        learner = self._learner(schema, cls)
        index = {c: i for i, c in enumerate(self.classes)}
        rows = [
            (np.array([_float(x.get(k)) for k in self.features]), index[str(y)])
            for x, y in self.data
        ]
        correct = 0
        gc.collect()
        if not collector:
            gc.disable()
        try:
            t0, p0 = time.thread_time(), time.process_time()
            for values, yi in rows:
                instance = LabeledInstance.from_array(schema, values, yi)
                correct += learner.predict(instance) == yi
                learner.train(instance)
            t1, p1 = time.thread_time(), time.process_time()
        finally:
            gc.enable()
        return t1 - t0, p1 - p0, correct / len(rows)


def _float(v) -> float:
    return math.nan if v is None else float(v)


def _arff_number(v) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "?"
    if isinstance(v, str):
        raise ValueError("the MOA comparison takes numeric features only")
    return repr(float(v))


# ----------------------------------------------------------------------------- throughput


@dataclasses.dataclass
class Row:
    stream: str
    model: str
    n: int
    compiled: float  # examples per CPU second, median
    outside: float  # share of the time outside the weak learners
    baseline: dict  # name -> examples per CPU second, median


def throughput(streams, repeats, moa: bool, models=None) -> list[Row]:
    rows = []
    folder = pathlib.Path(tempfile.mkdtemp(prefix="river-boost-speed-"))
    try:
        for stream in streams:
            task = bench.task_of(stream)
            ranking = task == "multilabel"
            data = list(bench.stream_examples(stream)[0])
            n = len(data)
            names = MODELS[task]
            if models:  # --models: the bench names given, those of this stream's task
                names = [m for m in models if task in bench.REGISTRY[m].tasks]
            times = {name: [] for name in names}
            base = {}
            reference = None
            if ranking:
                base = {"River.ClassifierChain": []}
            elif moa:
                reference = MOA(data, folder, stream)
                reference.java()  # the JVM's classes loaded and compiled once before timing
                base = {k: [] for k in ("py loop", "java", "java proc", "learner")}
            for _ in range(repeats):
                for name in names:
                    seconds, _ = run(build(name), data, ranking)
                    times[name].append(seconds)
                if ranking:
                    chain = multioutput.ClassifierChain(tree.HoeffdingTreeClassifier())
                    base["River.ClassifierChain"].append(run(chain, data, True)[0])
                elif reference is not None:
                    base["py loop"].append(reference.python_loop()[0])
                    t, p = reference.java()
                    base["java"].append(t)
                    base["java proc"].append(p)
                    base["learner"].append(t - reference.java("MajorityClass")[0])
            for name in names:
                rows.append(
                    Row(
                        stream,
                        name,
                        n,
                        n / statistics.median(times[name]),
                        outside_share(name, data, ranking),
                        {k: n / statistics.median(v) for k, v in base.items() if v},
                    )
                )
                print(_format_row(rows[-1]), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def _format_row(r: Row) -> str:
    b = r.baseline
    if "River.ClassifierChain" in b:
        ref = b["River.ClassifierChain"]
        cols = f"{'':>9}{ref:>9,.0f}{'':>9}{'':>9}{'':>7}{r.compiled / ref:>7.2f}"
    elif b:
        cols = (
            f"{b['py loop']:>9,.0f}{b['java']:>9,.0f}{b['java proc']:>9,.0f}{b['learner']:>9,.0f}"
            f"{r.compiled / b['py loop']:>7.2f}{r.compiled / b['java']:>7.2f}"
            f"{r.compiled / b['learner']:>7.2f}"
        )
    else:
        cols = ""
    return f"{r.stream:<16}{r.model:<20}{r.compiled:>9,.0f}{r.outside:>8.0%}{cols}"


HEADER = (
    f"{'stream':<16}{'model':<20}{'ex/s':>9}{'outside':>8}"
    f"{'MOA py':>9}{'java':>9}{'j proc':>9}{'learner':>9}"
    f"{'÷py':>7}{'÷java':>7}{'÷lrn':>7}"
)


def verdict(rows: list[Row]) -> list[str]:
    lines = []
    for r in rows:
        b = r.baseline
        if "River.ClassifierChain" in b:
            ratios = {"÷ River.ClassifierChain": r.compiled / b["River.ClassifierChain"]}
        elif b:
            ratios = {
                "÷ MOA py loop": r.compiled / b["py loop"],
                "÷ MOA java": r.compiled / b["java"],
                "÷ MOA learner": r.compiled / b["learner"],
            }
        else:
            ratios = {}
        checks = [f"{k} {v:.2f} {'ok' if v >= 1.0 else 'FAIL'}" for k, v in ratios.items()]
        if checks:
            lines.append(f"{r.stream:<16}{r.model:<20}" + "; ".join(checks))
    return lines


# ----------------------------------------------------------------------------- SGBT

# the bench's default classification streams (``river-boost bench``'s, less multi-label Yeast)
SGBT_STREAMS = [s for s in bench.DEFAULT_STREAMS if bench.task_of(s) in ("binary", "multiclass")]
SGBT_HEADER = (
    f"{'stream':<15}{'n':>7}{'ours':>9}{'acc':>7}{'MOA java':>10}{'j proc':>9}{'acc':>7}"
    f"{'MOA py':>9}{'acc':>7}{'÷java':>7}{'÷jproc':>7}{'÷py':>7}"
)


def sgbt(streams, repeats: int, n: int | None) -> list[tuple[str, float]]:
    """``SGBTClassifier()`` (its defaults) against MOA's SGBT (MOA's defaults) on each stream:
    examples per CPU second (thread; ``j proc``: the JVM's whole process) and accuracy, the
    medians over ``repeats`` interleaved runs; returns ``(stream, ours ÷ MOA java)``."""
    ratios = []
    folder = pathlib.Path(tempfile.mkdtemp(prefix="river-boost-speed-"))
    try:
        for stream in streams:
            data = list(bench.stream_examples(stream, n)[0])
            size = len(data)
            reference = MOA(data, folder, stream)
            reference.java("SGBT")  # the JVM's classes loaded and compiled once before timing
            ours, java, proc, py = [], [], [], []
            for _ in range(repeats):
                seconds, out = run(rb.SGBTClassifier(seed=SEED), data, False, collector=True)
                ours.append(seconds)
                ours_acc = sum(p == y for p, (_, y) in zip(out, data)) / size
                t, _, py_acc = reference.python_loop("SGBT", collector=True)
                py.append(t)
                t, p = reference.java("SGBT")
                java.append(t)
                proc.append(p)
            rate = {
                k: size / statistics.median(v)
                for k, v in (("ours", ours), ("java", java), ("proc", proc), ("py", py))
            }
            ratios.append((stream, rate["ours"] / rate["java"]))
            print(
                f"{stream:<15}{size:>7,}{rate['ours']:>9,.0f}{ours_acc:>7.1%}"
                f"{rate['java']:>10,.0f}{rate['proc']:>9,.0f}{reference.accuracy:>7.1%}"
                f"{rate['py']:>9,.0f}{py_acc:>7.1%}{rate['ours'] / rate['java']:>7.2f}"
                f"{rate['ours'] / rate['proc']:>7.2f}{rate['ours'] / rate['py']:>7.2f}",
                flush=True,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return ratios


# ----------------------------------------------------------------------------- the bench


def time_bench() -> None:
    script = pathlib.Path(sys.executable).with_name("river-boost")
    with tempfile.TemporaryDirectory(prefix="river-boost-bench-") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [str(script), "bench", "--out", out], capture_output=True, text=True, check=True
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs = json.load(open(os.path.join(out, "results.json")))["runs"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"river-boost bench: {wall:,.0f} s wall, {cpu:,.0f} CPU s (all its processes)")
    by_model: dict = {}
    for r in runs:
        by_model[r["model"].split("[")[0]] = (
            by_model.get(r["model"].split("[")[0], 0.0) + r["seconds"]
        )
    total = sum(by_model.values())
    print(f"{'model':<24}{'run s':>8}{'share':>8}")
    for model, seconds in sorted(by_model.items(), key=lambda kv: -kv[1]):
        print(f"{model:<24}{seconds:>8.1f}{seconds / total:>8.0%}")
    print(f"{'all runs':<24}{total:>8.1f}")
    last = [line for line in done.stdout.splitlines() if re.match(r"^wrote ", line)]
    if last:
        print("(" + last[0][:60] + "...)")


class ExponentialPotential(potentials.Potential):
    """docs/new-booster.md's rule: a rule of the user's own (its Python methods called by the
    walk)."""

    needs_edges = False

    def __init__(self, eta: float = 0.5):
        self.eta = eta

    def log_weight(self, i, s):
        return -self.eta * s

    def log_max_weight(self, i, worst):
        return -self.eta * worst


def custom_rule(repeats: int) -> None:
    """docs/new-booster.md's custom rule against OnlineBBM on the same forest: ten learners,
    SEA (10,000 examples), prequential, runs alternated, median examples/s by thread CPU time."""
    from river.datasets import synth

    data = list(synth.SEA(seed=42).take(10_000))
    makers = {
        "PotentialBooster(ExponentialPotential())": lambda: rb.PotentialBooster(
            ExponentialPotential(), n_models=10, seed=42
        ),
        "OnlineBBM": lambda: rb.OnlineBBM(n_models=10, seed=42),
    }
    times = {name: [] for name in makers}
    for _ in range(repeats):
        for name, make in makers.items():
            model = make()
            gc.disable()
            start = time.thread_time()
            for x, y in data:
                model.predict_one(x)
                model.learn_one(x, y)
            times[name].append(time.thread_time() - start)
            gc.enable()
    rates = {name: len(data) / statistics.median(t) for name, t in times.items()}
    for name, rate in rates.items():
        print(f"{name:<44}{rate:>10,.0f} examples/s")
    custom, bbm = rates.values()
    print(f"{'ratio (custom / OnlineBBM)':<44}{custom / bbm:>10.3f}")


# The --baseline worker: the README rows' boosters, prequential, examples/s by thread CPU
# time (median of its repeats), with nothing but the boosters' public API and River's
# streams, so that any build of river_boost (an earlier one, installed elsewhere) runs it.
BASELINE_WORKER = """
import gc, json, statistics, sys, time
import river_boost as rb
from river import datasets
from river.datasets import synth

repeats = int(sys.argv[1])
streams = {
    "phishing": lambda: datasets.Phishing(),
    "bananas": lambda: datasets.Bananas(),
    "agrawal": lambda: synth.Agrawal(seed=42),
    "sea": lambda: synth.SEA(seed=42),
    "hyperplane": lambda: synth.Hyperplane(seed=42),
    "imagesegments": lambda: datasets.ImageSegments(),
    "rbf": lambda: synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5, n_features=10),
    "yeast": lambda: datasets.Yeast(),
}
boosters = {"yeast": ("AdaOLMR", "OnlineBMR"), "imagesegments": ("AdaBoostOLM", "OnlineMBBM"),
            "rbf": ("AdaBoostOLM", "OnlineMBBM")}
out = {}
for name, make in streams.items():
    data = list(make().take(800 if name == "yeast" else 10_000))
    for cls in boosters.get(name, ("AdaBoostOL", "OnlineBBM")):
        times = []
        for _ in range(repeats):
            model = getattr(rb, cls)(n_models=10, seed=42)
            predict = model.score_one if name == "yeast" else model.predict_one
            gc.collect()
            gc.disable()
            start = time.thread_time()
            for x, y in data:
                predict(x)
                model.learn_one(x, y)
            times.append(time.thread_time() - start)
            gc.enable()
        out[f"{name} {cls}"] = len(data) / statistics.median(times)
print(json.dumps(out))
"""


def baseline(python: str, rounds: int, repeats: int) -> None:
    """This build against another installed build (``python``: its interpreter), side by
    side: the README rows' throughput in alternated rounds of worker processes (run from an
    empty folder, so that each interpreter imports its own river_boost), the median over the
    rounds, and the ratio."""
    import json

    runs = {"this": [], "baseline": []}
    with tempfile.TemporaryDirectory() as empty:
        for _ in range(rounds):
            for side, exe in (("baseline", python), ("this", sys.executable)):
                done = subprocess.run(
                    [exe, "-c", BASELINE_WORKER, str(repeats)],
                    cwd=empty,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'stream and booster':<30}{'baseline':>12}{'this':>12}{'ratio':>8}")
    for key in runs["this"][0]:
        base = statistics.median(r[key] for r in runs["baseline"])
        this = statistics.median(r[key] for r in runs["this"])
        print(f"{key:<30}{base:>12,.0f}{this:>12,.0f}{this / base:>8.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--throughput", action="store_true")
    parser.add_argument("--time-bench", action="store_true")
    parser.add_argument("--custom-rule", action="store_true")
    parser.add_argument(
        "--sgbt", action="store_true", help="SGBTClassifier() against MOA's SGBT (its defaults)"
    )
    parser.add_argument(
        "--n", type=int, help="--sgbt: examples per stream (default: the bench's lengths)"
    )
    parser.add_argument(
        "--baseline", metavar="PYTHON", help="another build's interpreter, to compare with"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--streams",
        nargs="+",
        choices=list(bench.STREAMS),
        help=f"default: {' '.join(STREAMS)}; --sgbt: {' '.join(SGBT_STREAMS)}",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--moa", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--models",
        type=lambda text: text.split(","),
        help="--throughput: the bench names to time, comma-separated (default: "
        + "; ".join(f"{task}: {','.join(names)}" for task, names in MODELS.items())
        + ")",
    )
    args = parser.parse_args(argv)
    unknown = [m for m in args.models or () if m not in bench.REGISTRY]
    if unknown:
        parser.error(f"unknown --models {unknown}: bench names ({', '.join(bench.REGISTRY)})")
    if args.repeats < 1:
        parser.error("--repeats needs at least 1")
    if args.baseline:
        baseline(args.baseline, args.rounds, args.repeats)
        return 0
    if not (args.throughput or args.time_bench or args.custom_rule or args.sgbt):
        args.throughput = args.time_bench = args.custom_rule = True
    print("python " + " ".join(["benchmarks/speed.py", *(argv or sys.argv[1:])]), flush=True)
    status = 0
    if args.sgbt:
        if not anchors.available("capymoa"):
            parser.error("--sgbt needs capymoa (with Java): the anchors extra")
        streams = args.streams or SGBT_STREAMS
        others = [s for s in streams if bench.task_of(s) not in ("binary", "multiclass")]
        if others:
            parser.error(f"--sgbt takes binary and multiclass streams, not {others}")
        print("ours: SGBTClassifier(seed=42), the collector on; MOA: SGBT at MOA's defaults")
        print("ex/s by thread CPU time (j proc: the JVM's process); ÷: ours over MOA's")
        print(SGBT_HEADER)
        print("-" * len(SGBT_HEADER), flush=True)
        ratios = sgbt(streams, args.repeats, args.n)
        slower = [f"{s} {r:.2f}" for s, r in ratios if r < 1.0]
        print("ours ÷ MOA java >= 1 on every stream" if not slower else f"slower: {slower}")
    if args.throughput:
        moa = args.moa and anchors.available("capymoa")
        if args.moa and not moa:
            print("capymoa (with Java) is not installed: no MOA columns", file=sys.stderr)
        header = HEADER if moa else HEADER[: 16 + 20 + 9 + 8]  # (no MOA columns)
        print(header)
        print("-" * len(header), flush=True)
        rows = throughput(args.streams or STREAMS, args.repeats, moa, args.models)
        lines = verdict(rows)
        if lines:
            print("\ntargets (÷: our throughput over the baseline's, both by thread CPU time)")
            print("\n".join(lines), flush=True)
    if args.time_bench:
        time_bench()
    if args.custom_rule:
        custom_rule(args.repeats)
    return status


if __name__ == "__main__":
    sys.exit(main())
