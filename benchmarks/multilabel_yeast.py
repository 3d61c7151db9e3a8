"""Multi-label ranking on River's bundled Yeast stream, prequentially.

Ada.OLMR and OnlineBMR (several γ) beside River's ``multioutput.ClassifierChain`` and
``multioutput.PerOutputClassifier`` (one Hoeffding tree per label), all built from Hoeffding
trees. Ranking metrics take each model's label scores (the boosters' ``score_one``; for River's
models the True probabilities); label-set metrics (exact match, micro-F1) take ``predict_one``.

    python benchmarks/multilabel_yeast.py --n-models 10 --seeds 1,2 --jobs 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from river import datasets, metrics, multioutput, tree

import river_boost as rb
from river_boost.metrics import AveragePrecision, OneError, RankLoss


LABELS = list(next(iter(datasets.Yeast()))[1])
MODELS = {
    "River.PerOutputClassifier(HT)": lambda n, seed, g: multioutput.PerOutputClassifier(
        tree.HoeffdingTreeClassifier()
    ),
    "River.ClassifierChain(HT)": lambda n, seed, g: multioutput.ClassifierChain(
        tree.HoeffdingTreeClassifier(), order=LABELS
    ),
    "AdaOLMR": lambda n, seed, g: rb.AdaOLMR(n_models=n, seed=seed),
    "OnlineBMR": lambda n, seed, g: rb.OnlineBMR(n_models=n, gamma=g, seed=seed),
}


def run(task):
    name, gamma, seed, n_models = task
    model = MODELS[name](n_models, seed, gamma)
    ranking = [RankLoss(), OneError(), AveragePrecision()]
    exact, micro = metrics.multioutput.ExactMatch(), metrics.multioutput.MicroAverage(metrics.F1())
    start = time.perf_counter()
    for x, y in datasets.Yeast():
        scores = model.score_one(x) if hasattr(model, "score_one") else {
            label: p.get(True, 0.0) for label, p in model.predict_proba_one(x).items()
        }  # fmt: skip
        y_pred = model.predict_one(x)
        for m in ranking:
            m.update(y, scores)
        if y_pred:
            full = {label: bool(y_pred.get(label, False)) for label in y}
            exact.update(y, full)
            micro.update(y, full)
        model.learn_one(x, y)
    seconds = time.perf_counter() - start
    return (name, gamma, seed, *(m.get() for m in ranking), exact.get(), micro.get(), seconds)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument("--gammas", default="0.01,0.1,0.2")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    gammas = [float(g) for g in args.gammas.split(",")]
    tasks = [
        (name, g, seed, args.n_models)
        for name in MODELS
        for g in (gammas if name == "OnlineBMR" else [None])
        for seed in seeds
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, tasks))
    print(f"Yeast (River's bundled copy, 2,417 rows), prequential; {args.n_models} weak learners; seeds {seeds}")
    print("| model | rank loss | one-error | average precision | exact match | micro-F1 | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    keys = list(dict.fromkeys((r[0], r[1]) for r in results))
    for name, g in keys:
        rs = [r for r in results if r[0] == name and r[1] == g]
        label = name if g is None else f"{name}(γ={g:g})"
        cells = [statistics.fmean(r[i] for r in rs) for i in range(3, 8)]
        secs = statistics.median(r[8] for r in rs)
        print(f"| {label} | " + " | ".join(f"{c:.4f}" for c in cells) + f" | {secs:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
