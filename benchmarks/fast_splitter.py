"""FastGaussianSplitter against River's GaussianSplitter, side by side in one process.

The same booster is run twice on the same stream, once with River's Hoeffding trees as they
ship and once with ``FastGaussianSplitter``, alternating, ``--repeats`` times. The metric must
be identical (the trees grow the same way); reported: the metric, the median seconds of each
and the ratio River ÷ fast.

    python benchmarks/fast_splitter.py --repeats 3

Streams ship with River (no download). The papers' weak learners (``diversify="paper"``:
trees that attempt a split every few examples) are where the split search dominates.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time

from river import datasets, metrics, tree

import river_boost as rb
from river_boost.metrics import RankLoss, evaluate_ranking
from river_boost.trees import FastGaussianSplitter


def multiclass(splitter, n_models):
    model = rb.AdaBoostOLM(
        model=tree.HoeffdingTreeClassifier(splitter=splitter), n_models=n_models,
        diversify="paper", seed=1,
    )  # fmt: skip
    metric = metrics.Accuracy()
    for x, y in datasets.ImageSegments():
        metric.update(y, model.predict_one(x))
        model.learn_one(x, y)
    return metric.get()


def multilabel(splitter, n_models):
    model = rb.AdaOLMR(
        model=tree.HoeffdingTreeClassifier(splitter=splitter), n_models=n_models,
        diversify="paper", feature_fraction=20 / 103, seed=1,
    )  # fmt: skip
    return evaluate_ranking(itertools.islice(datasets.Yeast(), 600), model, RankLoss()).get()


CASES = {"AdaBoost.OLM, ImageSegments": multiclass, "Ada.OLMR, Yeast (600 rows)": multilabel}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-models", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"{args.n_models} learners (diversify='paper'), median of {args.repeats} runs")
    print("| case | metric (River / fast) | River s | fast s | River ÷ fast |")
    print("| --- | --- | --- | --- | --- |")
    for name, case in CASES.items():
        seconds = {"river": [], "fast": []}
        values = {}
        for _ in range(args.repeats):
            for key, splitter in (("river", None), ("fast", FastGaussianSplitter())):
                start = time.perf_counter()
                values[key] = case(splitter, args.n_models)
                seconds[key].append(time.perf_counter() - start)
        if values["river"] != values["fast"]:
            print(f"{name}: results differ {values}", file=sys.stderr)
            return 1
        river_s, fast_s = (statistics.median(seconds[k]) for k in ("river", "fast"))
        print(
            f"| {name} | {values['river']:.4f} / {values['fast']:.4f} | {river_s:.1f} "
            f"| {fast_s:.1f} | {river_s / fast_s:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
