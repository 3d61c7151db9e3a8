"""River's Hoeffding tree and the compiled forest, side by side.

Ten trees with the booster's diversified parameters (``delta``, ``tau``, ``grace_period`` drawn
per tree as :class:`river_boost.pool.WeakLearnerPool` draws them) run the same call sequence
in one process, two ways:

- ``river``: ten ``river.tree.HoeffdingTreeClassifier``;
- ``forest``: one :class:`river_boost.forest.HoeffdingForest` holding the ten trees.

Per example: every tree predicts (``predict_proba_one`` / ``predict_proba_all``), then every
tree learns it with a booster-like weight (log-normal, non-integer; drawn from a fixed seed, so
the two see the same weights). Every prediction of the two must be identical (same dicts,
same float bits): the script fails otherwise. Reported: median seconds over ``--repeats`` runs
and the ratio river / forest. The garbage collector is paused during each timed run (and
run before it), the same for both.

    python benchmarks/forest_speed.py --n 2000 --repeats 5
    python benchmarks/forest_speed.py --n 1000 --repeats 5 --paper
"""

from __future__ import annotations

import argparse
import gc
import itertools
import math
import random
import statistics
import sys
import time

from river import datasets, tree
from river.datasets import synth

from river_boost.forest import HoeffdingForest

# The pool's diversification ranges (river_boost.pool.DIVERSIFY_RANGES at the time of writing):
# delta and tau log-uniform, grace_period uniform.
DIVERSIFY_RANGES = {"delta": (1e-5, 0.9), "tau": (1e-3, 1.0), "grace_period": (20, 200)}

STREAMS = {
    "Agrawal": (
        lambda: synth.Agrawal(classification_function=2, seed=1),
        ["elevel", "car", "zipcode"],
    ),
    "Hyperplane": (lambda: synth.Hyperplane(seed=1, n_features=10), None),
    "ImageSegments": (lambda: datasets.ImageSegments(), None),
    "RandomRBF": (
        lambda: synth.RandomRBF(seed_model=1, seed_sample=1, n_classes=4, n_features=10),
        None,
    ),
}


def tree_params(n_trees: int, seed: int, paper: bool = False) -> list[dict]:
    """The pool's diversification: tree 0 plain, the others drawn like WeakLearnerPool
    (``paper``: the papers' grace periods, 1 to 10)."""
    rng = random.Random(seed)
    grace = (1, 10) if paper else DIVERSIFY_RANGES["grace_period"]

    def log_uniform(lo, hi):
        return math.exp(rng.uniform(math.log(lo), math.log(hi)))

    params = [{}]
    for _ in range(1, n_trees):
        params.append(
            {
                "delta": log_uniform(*DIVERSIFY_RANGES["delta"]),
                "tau": log_uniform(*DIVERSIFY_RANGES["tau"]),
                "grace_period": rng.randint(*grace),
            }
        )
    return params


def run_trees(models, data, weights):
    preds = []
    for (x, y), ws in zip(data, weights):
        preds.append([m.predict_proba_one(x) for m in models])
        for m, w in zip(models, ws):
            m.learn_one(x, y, w=w)
    return preds


def run_forest(forest, data, weights):
    preds = []
    n = forest.n_models
    for (x, y), ws in zip(data, weights):
        preds.append(forest.predict_proba_all(x))
        for i in range(n):
            forest.learn_one(i, x, y, ws[i])
    return preds


def bits(preds):
    return [[[(k, v.hex()) for k, v in d.items()] for d in row] for row in preds]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="examples per stream")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--trees", type=int, default=10)
    parser.add_argument("--streams", nargs="*", default=list(STREAMS))
    parser.add_argument(
        "--paper",
        action="store_true",
        help="the papers' weak learners: grace periods 1-10 and every weight tree i gets "
        "scaled by a constant drawn in [10, 200] (split attempts every few examples)",
    )
    args = parser.parse_args(argv)
    mode = "papers' trees" if args.paper else "library's trees"
    print(
        f"{args.trees} trees ({mode}), {args.n} examples per stream, median of {args.repeats} runs"
    )
    print(f"{'stream':<14} {'river s':>8} {'forest s':>9} {'river/forest':>13}")
    for name in args.streams:
        make, nominal = STREAMS[name]
        data = list(itertools.islice(make(), args.n))
        rng = random.Random(7)
        params = tree_params(args.trees, seed=3, paper=args.paper)
        scales = [1.0] + [rng.uniform(10.0, 200.0) if args.paper else 1.0 for _ in params[1:]]
        weights = [[s * rng.lognormvariate(0.0, 0.5) for s in scales] for _ in data]
        river = [tree.HoeffdingTreeClassifier(nominal_attributes=nominal, **p) for p in params]
        builders = {
            "river": lambda models=river: [m.clone() for m in models],
            "forest": lambda models=river: HoeffdingForest(models),
        }
        times = {k: [] for k in builders}
        reference = None
        for _ in range(args.repeats):
            for kind, build in builders.items():  # alternate, so load drifts hit both
                models = build()
                # The cyclic GC would otherwise charge whoever allocates for walking the
                # predictions kept from earlier runs; collect before, pause during the run.
                gc.collect()
                gc.disable()
                start = time.perf_counter()
                if kind == "forest":
                    preds = run_forest(models, data, weights)
                else:
                    preds = run_trees(models, data, weights)
                times[kind].append(time.perf_counter() - start)
                gc.enable()
                b = bits(preds)
                if reference is None:
                    reference = b
                elif b != reference:
                    sys.exit(f"{name}: {kind} predicted differently from river")
        med = {k: statistics.median(v) for k, v in times.items()}
        ratio = med["river"] / med["forest"]
        print(f"{name:<14} {med['river']:8.2f} {med['forest']:9.3f} {ratio:12.1f}x")
    print("predictions identical (dicts, float bits) between river and forest: yes")


if __name__ == "__main__":
    main()
