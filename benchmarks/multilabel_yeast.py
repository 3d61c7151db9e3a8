"""Multi-label ranking on River's bundled Yeast stream, prequentially.

Ada.OLMR and OnlineBMR (several γ) beside River's ``multioutput.ClassifierChain`` and
``multioutput.PerOutputClassifier`` (one Hoeffding tree per label), all built from Hoeffding
trees. Ranking metrics take each model's label scores (the boosters' ``score_one``; for River's
models the True probabilities); label-set metrics (exact match, micro-F1) take ``predict_one``.
Runs are ``river_boost.bench`` runs with extra metrics.

    python benchmarks/multilabel_yeast.py --n-models 10 --seeds 1,2 --jobs 2
"""

from __future__ import annotations

import argparse
import statistics
import sys

from river import datasets, multioutput, tree

import river_boost as rb
from river_boost import bench

LABELS = list(next(iter(datasets.Yeast()))[1])
ROWS = 2417
METRICS = ("rank_loss", "one_error", "average_precision", "exact_match", "micro_f1")


def per_output(n, seed):
    return multioutput.PerOutputClassifier(tree.HoeffdingTreeClassifier())


def chain(n, seed):
    return multioutput.ClassifierChain(tree.HoeffdingTreeClassifier(), order=LABELS)


def ada_olmr(n, seed):
    return rb.AdaOLMR(n_models=n, seed=seed)


def online_bmr(gamma):
    def build(n, seed):
        return rb.OnlineBMR(n_models=n, gamma=gamma, seed=seed)

    return build


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument("--gammas", default="0.01,0.1,0.2")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    gammas = [float(g) for g in args.gammas.split(",")]
    specs = [
        bench.ModelSpec("River.PerOutputClassifier(HT)", factory=per_output),
        bench.ModelSpec("River.ClassifierChain(HT)", factory=chain),
        bench.ModelSpec("AdaOLMR", factory=ada_olmr),
    ] + [bench.ModelSpec("OnlineBMR", g, factory=online_bmr(g)) for g in gammas]
    protocol = bench.Protocol(n_samples=ROWS, extra_metrics=METRICS)
    runs = [("yeast", spec, seed, args.n_models, protocol) for spec in specs for seed in seeds]
    results = bench.run_grid(runs, jobs=args.jobs)
    print(
        f"Yeast (River's bundled copy, {ROWS:,} rows), prequential; {args.n_models} weak "
        f"learners; seeds {seeds}"
    )
    print(
        "| model | rank loss | one-error | average precision | exact match | micro-F1 | seconds |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label in dict.fromkeys(r.model for r in results):
        rs = [r for r in results if r.model == label]
        cells = [statistics.fmean(r.extra[m] for r in rs) for m in METRICS]
        seconds = statistics.median(r.seconds for r in rs)
        print(f"| {label} | " + " | ".join(f"{c:.4f}" for c in cells) + f" | {seconds:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
