"""River's Hoeffding regression tree and the compiled regression forest, side by side.

Ten trees with diversified parameters (``delta``, ``tau``, ``grace_period`` drawn per tree as
in ``benchmarks/forest_speed.py``; River's defaults otherwise: adaptive leaves, TEBST splitter)
run the same call sequence in one process, two ways:

- ``river``: ten ``river.tree.HoeffdingTreeRegressor``;
- ``forest``: one :class:`river_boost.forest.HoeffdingRegressionForest` holding the ten trees,
  ``x`` loaded once per example (``load``, then ``predict_loaded`` / ``learn_loaded``).

Per example every tree predicts, then learns it with a booster-like weight (log-normal,
non-integer, from a fixed seed). Every prediction of the two must be identical (same float
bits): the script fails otherwise. Reported: the median seconds over ``--repeats`` runs of
each, and the ratio river / forest, with the garbage collector on (as in a real run).

    python benchmarks/forest_regression_speed.py --n 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

from river import tree
from river.datasets import synth

from river_boost.forest import HoeffdingRegressionForest

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from forest_speed import tree_params  # noqa: E402


def run_trees(models, data, weights):
    preds = []
    for (x, y), ws in zip(data, weights):
        preds.append([m.predict_one(x) for m in models])
        for m, w in zip(models, ws):
            m.learn_one(x, y, w=w)
    return preds


def run_forest(forest, data, weights):
    preds = []
    n = forest.n_models
    for (x, y), ws in zip(data, weights):
        forest.load(x)
        preds.append([forest.predict_loaded(i) for i in range(n)])
        for i in range(n):
            forest.learn_loaded(i, y, ws[i])
    return preds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="examples per run")
    ap.add_argument("--trees", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    data = list(synth.Friedman(seed=args.seed).take(args.n))
    rng = random.Random(args.seed)
    weights = [[math.exp(rng.gauss(0, 0.5)) for _ in range(args.trees)] for _ in data]
    models = [tree.HoeffdingTreeRegressor(**p) for p in tree_params(args.trees, args.seed)]
    times = {"river": [], "forest": []}
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        ref = run_trees([m.clone() for m in models], data, weights)
        times["river"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        got = run_forest(HoeffdingRegressionForest(models), data, weights)
        times["forest"].append(time.perf_counter() - t0)
        if got != ref:
            raise SystemExit("the forest's predictions differ from River's")
    river, forest = statistics.median(times["river"]), statistics.median(times["forest"])
    print(f"Friedman, {args.trees} trees, {args.n} examples, median of {args.repeats}, GC on")
    print(f"river  {river:8.3f} s")
    print(f"forest {forest:8.3f} s")
    print(f"ratio  {river / forest:8.1f}x")


if __name__ == "__main__":
    main()
