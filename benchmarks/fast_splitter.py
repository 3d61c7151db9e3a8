"""River's Hoeffding trees against the library's faster parts, side by side in one process.

The same booster is run on the same stream with three weak learners, alternating,
``--repeats`` times:

- ``river``: River's ``tree.HoeffdingTreeClassifier`` as it ships;
- ``splitter``: the same tree with :class:`~river_boost.trees.FastGaussianSplitter`;
- ``default``: :func:`river_boost.core.default_model`, i.e. that splitter in a
  :class:`~river_boost.trees.FastHoeffdingTreeClassifier` (cached naive-Bayes leaves).

The metric must be identical in all three (the trees grow and predict the same way; the
script fails otherwise). Reported: the metric, the median seconds of each and the ratios
River ÷ each. Runs are ``river_boost.bench`` runs.

    python benchmarks/fast_splitter.py --repeats 3

Streams ship with River (no download). The papers' weak learners (``diversify="paper"``:
trees that attempt a split every few examples) are where the split search dominates; the
library's default trees (``diversify=True``) spend their time in the naive-Bayes leaves.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from river import tree

import river_boost as rb
from river_boost import bench
from river_boost.core import default_model
from river_boost.trees import FastGaussianSplitter

TREES = {
    "river": lambda: tree.HoeffdingTreeClassifier(),
    "splitter": lambda: tree.HoeffdingTreeClassifier(splitter=FastGaussianSplitter()),
    "default": default_model,
}


# case -> (booster class, stream, rows, extra parameters, diversify); the metric is the
# bench's: prequential accuracy, or 1 - rank loss on Yeast
CASES = {
    "AdaBoost.OLM, ImageSegments, papers' trees": (
        rb.AdaBoostOLM,
        "imagesegments",
        None,
        {},
        "paper",
    ),
    "Ada.OLMR, Yeast (600 rows), papers' trees": (
        rb.AdaOLMR,
        "yeast",
        600,
        {"feature_fraction": 20 / 103},
        "paper",
    ),
    "AdaBoost.OLM, ImageSegments, library's trees": (
        rb.AdaBoostOLM,
        "imagesegments",
        None,
        {},
        True,
    ),
    "Ada.OLMR, Yeast (600 rows), library's trees": (
        rb.AdaOLMR,
        "yeast",
        600,
        {"feature_fraction": 20 / 103},
        True,
    ),
    "AdaBoost.OL, Phishing, library's trees": (rb.AdaBoostOL, "phishing", None, {}, True),
}


def _run(case, make_tree, n_models):
    cls, stream, rows, extra, diversify = case

    def build(n, seed):
        return cls(model=make_tree(), n_models=n, diversify=diversify, seed=seed, **extra)

    spec = bench.ModelSpec(cls.__name__, factory=build)
    return bench.run_one(stream, spec, 1, n_models, bench.Protocol(n_samples=rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-models", type=int, default=20)
    parser.add_argument("--cases", default=None, help="comma-separated case numbers (1-based)")
    args = parser.parse_args(argv)
    cases = list(CASES.items())
    if args.cases:
        cases = [cases[int(i) - 1] for i in args.cases.split(",")]
    print(f"{args.n_models} learners, median of {args.repeats} runs")
    print(
        "| case | metric | River s | splitter s | default s | River ÷ splitter | River ÷ default |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, case in cases:
        seconds = {key: [] for key in TREES}
        values = {}
        for _ in range(args.repeats):
            for key, make_tree in TREES.items():
                r = _run(case, make_tree, args.n_models)
                values[key] = r.accuracy
                seconds[key].append(r.seconds)
        if len(set(values.values())) != 1:
            print(f"{name}: results differ {values}", file=sys.stderr)
            return 1
        med = {key: statistics.median(s) for key, s in seconds.items()}
        print(
            f"| {name} | {values['river']:.4f} | {med['river']:.1f} | {med['splitter']:.1f} "
            f"| {med['default']:.1f} | {med['river'] / med['splitter']:.2f} "
            f"| {med['river'] / med['default']:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
