"""Table 1 of Jung, Goetz & Tewari (2017): accuracy on the final 20% of each stream.

Prequential runs (predict, score, learn) over the whole data set; only the last 20% of
predictions are scored. The rows are shuffled first (``--order shuffled``, seeded by
``--seed``; the default): the UCI files of car, nursery and mice_protein are sorted by
attribute values or by class, so in file order the final 20% is a block unlike the rest of the
stream (``--order file`` keeps it). AdaBoost.OLM and OnlineMBBM at five edges ("best MBBM"
is the best of the five), with the paper's weak learners (VFDT with randomly drawn split
confidence, tie threshold and grace period 1-10: ``diversify="paper"``) and with default
Hoeffding trees (``diversify=False``). Run time in seconds per run.

    python benchmarks/multiclass_table1.py --data-dir ../shared/data --n-models 100 --jobs 2

Needs ../shared/data (see its MANIFEST.md).
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from river import metrics

import river_boost as rb
from river_boost import loaders

PAPER = {  # Table 1: (AdaBoost.OLM, best MBBM)
    "balance_scale": (0.754, 0.821),
    "mice_protein": (0.561, 0.695),
    "car": (0.930, 0.914),
    "mushroom": (1.000, 1.000),
    "nursery": (0.966, 0.969),
}
GAMMAS = (0.01, 0.05, 0.1, 0.2, 0.3)


def load(name: str, data_dir: pathlib.Path):
    folder = data_dir / name
    if name == "mice_protein":
        path = next(folder.glob("*.csv"))
        drop = ("MouseID", "Genotype", "Treatment", "Behavior")  # they encode the class
        return list(loaders.iter_csv(path, target="class", drop=drop))
    return list(loaders.iter_arff(next(folder.glob("*.arff"))))


def run(task):
    name, data_dir, family, gamma, setup, n_models, seed, order = task
    rows = load(name, data_dir)
    if order == "shuffled":
        random.Random(seed).shuffle(rows)
    diversify = "paper" if setup == "paper" else False
    if family == "AdaBoost.OLM":
        model = rb.AdaBoostOLM(n_models=n_models, diversify=diversify, seed=seed)
    else:
        model = rb.OnlineMBBM(n_models=n_models, gamma=gamma, diversify=diversify, seed=seed)
    start_scoring = int(0.8 * len(rows))
    metric = metrics.Accuracy()
    t = time.perf_counter()
    for i, (x, y) in enumerate(rows):
        y_pred = model.predict_one(x)
        if i >= start_scoring:
            metric.update(y, y_pred)
        model.learn_one(x, y)
    return name, family, gamma, setup, metric.get(), time.perf_counter() - t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, default=pathlib.Path("../shared/data"))
    parser.add_argument("--sets", default=",".join(PAPER))
    parser.add_argument("--setups", default="paper,default")
    parser.add_argument("--n-models", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--order", choices=("shuffled", "file"), default="shuffled")
    args = parser.parse_args(argv)
    if not args.data_dir.exists():
        print(f"{args.data_dir} not found", file=sys.stderr)
        return 1
    sets, setups = args.sets.split(","), args.setups.split(",")
    tasks = [
        (name, args.data_dir, fam, g, setup, args.n_models, args.seed, args.order)
        for name in sets
        for setup in setups
        for fam, gs in (("AdaBoost.OLM", [None]), ("OnlineMBBM", GAMMAS))
        for g in gs
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, tasks))
    print(f"{args.n_models} weak learners, seed {args.seed}, rows {args.order}; accuracy on the final 20%")
    print("| data set | weak learners | AdaBoost.OLM | best MBBM (γ) | paper OLM / MBBM | OLM s | MBBM s (median) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in sets:
        for setup in setups:
            rs = [r for r in results if r[0] == name and r[3] == setup]
            olm = next(r for r in rs if r[1] == "AdaBoost.OLM")
            mbbm = sorted((r for r in rs if r[1] == "OnlineMBBM"), key=lambda r: r[5])
            best = max(mbbm, key=lambda r: r[4])
            paper = PAPER.get(name, (float("nan"),) * 2)
            print(
                f"| {name} | {setup} | {olm[4]:.3f} | {best[4]:.3f} ({best[2]:g}) | "
                f"{paper[0]:.3f} / {paper[1]:.3f} | {olm[5]:.0f} | {mbbm[len(mbbm) // 2][5]:.0f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
