"""Memory on a long drifting stream: does it stay bounded?

A booster learns a drifting stream (``--stream sea``: SEA, its four concepts in turn, 10%
label noise; ``--stream led``: 10-class LED with 1, 3, 5 and 7 swapped attributes in turn;
one change every ``--period`` examples), with drift adaptation (learners that drift are
replaced) or without (``--no-adaptation``), and the process's resident memory (RSS, from
``/proc/self/statm``) is recorded at checkpoints, with the replacements, the trees' nodes,
leaves, active leaves and C memory, the windowed accuracy and the time.

    python benchmarks/drift_memory.py --n 1000000 --out drift-memory
    python benchmarks/drift_memory.py --n 1000000 --no-adaptation   # the same booster without
    python benchmarks/drift_memory.py --n 1000000 --tree river      # River's own tree
    python benchmarks/drift_memory.py --n 1000000 --tree river --max-depth 8
    python benchmarks/drift_memory.py --n 1000000 --model AdaBoostOLM --stream led

Each booster runs with its own number of learners (``--n-models`` sets another).

``--tree`` picks the weak learner: the boosters' default
(:func:`river_boost.pool.default_model`), River's ``HoeffdingTreeClassifier`` or
``river_boost.forest.BoundedHoeffdingTree``, each with its own defaults; ``--max-size``,
``--memory-period`` and ``--max-depth`` set its ``max_size`` (MiB per tree),
``memory_estimate_period`` and ``max_depth``. River's tree measures itself only when the
weight it has learned is an exact multiple of ``memory_estimate_period`` (a float modulo),
which a booster's fractional weights practically never hit: its ``max_size`` does not bind
there (the compiled forest does as River does). ``BoundedHoeffdingTree`` measures itself
whenever that weight crosses a multiple, so its ``max_size`` binds; ``max_depth`` bounds
either tree.

Writes ``drift_memory.json`` to ``--out`` and prints one line per checkpoint.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import time

from river import drift, tree
from river.datasets import synth

import river_boost
from river_boost.forest import BoundedHoeffdingTree


def rss_mib() -> float:
    """Resident memory of this process, MiB (Linux)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def drifting_sea(period: int, seed: int = 7):
    """SEA's concepts 0, 1, 2, 3, 0, ... each ``period`` examples, 10% label noise."""
    streams = [iter(synth.SEA(variant=v, noise=0.1, seed=seed + v)) for v in range(4)]
    t = 0
    while True:
        yield next(streams[(t // period) % 4])
        t += 1


def drifting_led(period: int, seed: int = 7):
    """LED with 17 irrelevant attributes, 10% noise, 1, 3, 5 and 7 swapped attributes in
    turn (the bench's ``led_abrupt`` concepts), each ``period`` examples: 10 classes."""
    streams = [
        iter(
            synth.LEDDrift(
                seed=seed + d, noise_percentage=0.1, irrelevant_features=True, n_drift_features=d
            )
        )
        for d in (1, 3, 5, 7)
    ]
    t = 0
    while True:
        yield next(streams[(t // period) % 4])
        t += 1


STREAMS = {"sea": drifting_sea, "led": drifting_led}


def chains(model) -> list:
    """The booster and, if it runs one, its deep chain."""
    deep = getattr(model, "deep_chain", None)
    return [model] if deep is None else [model, deep]


def tree_counts(model) -> dict:
    """Nodes, leaves, active leaves and C bytes of the trees, the deep chain's included
    (the compiled forest's own measures; River's trees: nodes and leaves only)."""
    pools = [chain.pool.learners for chain in chains(model)]
    if all(hasattr(learners, "n_nodes") for learners in pools):
        nodes = sum(n or 0 for learners in pools for n in learners.n_nodes)
        leaves = sum(n or 0 for learners in pools for n in learners.n_leaves)
        active = sum(sum(learners.n_active_leaves) for learners in pools)
        mib = sum(learners._allocated_bytes() for learners in pools) / 2**20
        return {
            "nodes": nodes,
            "leaves": leaves,
            "active_leaves": active,
            "tree_mib": round(mib, 1),
            "bytes_per_leaf": round(mib * 2**20 / max(leaves, 1)),
        }
    models = [m for learners in pools for m in learners.models]
    return {
        "nodes": sum(m.n_nodes for m in models),
        "leaves": sum(m.n_leaves for m in models),
        "active_leaves": sum(m.n_active_leaves for m in models),
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000, help="examples")
    p.add_argument("--period", type=int, default=25_000, help="examples per concept")
    p.add_argument("--checkpoints", type=int, default=20)
    p.add_argument("--model", default="AdaBoostOL", help="river_boost class name")
    p.add_argument(
        "--n-models", type=int, default=None, help="learners (default: the booster's own)"
    )
    p.add_argument(
        "--stream",
        choices=sorted(STREAMS),
        default="sea",
        help="sea: 2 classes; led: 10 classes, 24 attributes",
    )
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("drift-memory"))
    p.add_argument("--no-adaptation", action="store_true", help="no drift detectors")
    p.add_argument(
        "--tree",
        choices=("default", "river", "bounded"),
        default="default",
        help="the weak learner: the boosters' default (river_boost.pool.default_model), "
        "River's HoeffdingTreeClassifier or river_boost.forest.BoundedHoeffdingTree, with "
        "their own defaults and the parameters below",
    )
    p.add_argument("--max-size", type=float, default=None, help="MiB per tree (max_size)")
    p.add_argument(
        "--memory-period", type=float, default=None, help="the trees' memory_estimate_period"
    )
    p.add_argument("--max-depth", type=int, default=None, help="the trees' max_depth")
    args = p.parse_args(argv)

    tree_params = {
        "max_size": args.max_size,
        "max_depth": args.max_depth,
        "memory_estimate_period": args.memory_period,
    }
    tree_params = {k: v for k, v in tree_params.items() if v is not None}
    weak = {
        "default": river_boost.pool.default_model(),
        "river": tree.HoeffdingTreeClassifier(),
        "bounded": BoundedHoeffdingTree(),
    }[args.tree]
    params = {"model": weak.clone(tree_params)} if tree_params or args.tree != "default" else {}
    if not args.no_adaptation:
        params.update(drift_detector=drift.ADWIN(), warning_detector=drift.ADWIN(delta=0.01))
    if args.n_models is not None:
        params["n_models"] = args.n_models
    model = getattr(river_boost, args.model)(seed=42, **params)
    every = max(1, args.n // args.checkpoints)
    rows, hits, start, cpu = [], 0, time.perf_counter(), time.process_time()
    for t, (x, y) in enumerate(STREAMS[args.stream](args.period), start=1):
        hits += model.predict_one(x) == y
        model.learn_one(x, y)
        if t % every == 0:
            gc.collect()
            row = {
                "examples": t,
                "rss_mib": round(rss_mib(), 1),
                **tree_counts(model),
                # both chains replace learners, each after its own detectors
                "replacements": sum(sum(chain.replacements) for chain in chains(model)),
                "accuracy": hits / every,
                "seconds": round(time.perf_counter() - start, 1),
                # this process's CPU time: steadier than the wall clock on a shared machine
                "cpu_seconds": round(time.process_time() - cpu, 1),
            }
            rows.append(row)
            hits = 0
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        if t >= args.n:
            break
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "drift_memory.json", "w") as f:
        json.dump({"args": {k: str(v) for k, v in vars(args).items()}, "rows": rows}, f, indent=1)
    print(f"wrote {args.out / 'drift_memory.json'}")


if __name__ == "__main__":
    main()
