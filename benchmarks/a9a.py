"""a9a with the protocol of Beygelzimer, Kale & Luo (2015), section 5.

Pool the LIBSVM train and test files (48,842 rows), split 80/20 at random (one split per
seed), tune each booster's parameters by progressive-validation accuracy on the 80%, then
report the 0-1 loss on the 20% (predict, score, then still learn: the models stay online).
Sparse binary features are made dense (absent = 0) so trees can split on them.

    python benchmarks/a9a.py --data-dir ../shared/data --seeds 1 --jobs 2

Needs the data set (see ../shared/data/MANIFEST.md); exits with a message if it is absent.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from river import metrics

from river_boost import bench, loaders

GRID = {  # family -> candidate parameter values (γ), as tuned by the paper
    "HoeffdingTree": [None],
    "River.AdaBoost": [None],
    "OnlineBBM": [0.05, 0.1, 0.2, 0.3],
    "AdaBoost.OL": [None],
    "AdaBoost.OL.S": [None],
    "OSBoost": [0.05, 0.1, 0.2, 0.3],
    "NHBoostDT": [None],
    "SquintBoost": [None],
}


N_FEATURES = 123


def load(data_dir: pathlib.Path):
    return [
        (x, y > 0)
        for name in ("a9a", "a9a.t")
        for x, y in loaders.iter_svmlight(data_dir / "a9a" / name, dense_features=N_FEATURES)
    ]


def split(rows, seed):
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    cut = int(0.8 * len(rows))
    return [rows[i] for i in order[:cut]], [rows[i] for i in order[cut:]]


_ROWS: list = []


def _init_worker(data_dir, n_rows):
    _ROWS[:] = load(data_dir)[:n_rows]


def run(args):
    family, gamma, seed, n_models = args
    train, test = split(_ROWS, seed)
    model = bench.build(bench.ModelSpec(family, gamma), n_models, seed)
    start = time.perf_counter()
    train_acc, test_acc = metrics.Accuracy(), metrics.Accuracy()
    for metric, part in ((train_acc, train), (test_acc, test)):
        for x, y in part:
            metric.update(y, model.predict_one(x))
            model.learn_one(x, y)
    seconds = time.perf_counter() - start
    updates = getattr(model, "learner_updates", None)
    share = sum(updates) / (len(_ROWS) * n_models) if updates else None
    return family, gamma, seed, train_acc.get(), 1 - test_acc.get(), seconds, share


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, default=pathlib.Path("../shared/data"))
    parser.add_argument("--seeds", type=lambda s: [int(v) for v in s.split(",")], default=[1])
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--n-rows", type=int, default=None, help="use only the first rows")
    parser.add_argument("--models", default=",".join(GRID), help="comma-separated families")
    args = parser.parse_args(argv)
    if not (args.data_dir / "a9a" / "a9a").exists():
        print(f"a9a not found under {args.data_dir}; see shared/data/MANIFEST.md", file=sys.stderr)
        return 1
    n_rows = len(load(args.data_dir)[: args.n_rows])
    families = args.models.split(",")
    unknown = [f for f in families if f not in GRID]
    if unknown:
        print(f"unknown models {unknown}; choose from {list(GRID)}", file=sys.stderr)
        return 2
    tasks = [(fam, g, seed, args.n_models) for fam in families for g in GRID[fam] for seed in args.seeds]
    with ProcessPoolExecutor(
        args.jobs, initializer=_init_worker, initargs=(args.data_dir, args.n_rows)
    ) as pool:
        results = list(pool.map(run, tasks))
    print(f"a9a, {n_rows} rows, 80/20 split, {args.n_models} learners, seeds {args.seeds}")
    print("| model | tuned γ (per seed) | progressive acc. on 80% | test error on 20% | seconds | learner updates |")
    print("| --- | --- | --- | --- | --- | --- |")
    for fam in families:
        chosen = []
        for seed in args.seeds:
            cands = [r for r in results if r[0] == fam and r[2] == seed]
            chosen.append(max(cands, key=lambda r: r[3]))  # tuned on the training part only
        gammas = ",".join("-" if r[1] is None else f"{r[1]:g}" for r in chosen)
        tr = statistics.fmean(r[3] for r in chosen)
        te = [r[4] for r in chosen]
        te_s = f"{statistics.fmean(te):.4f}" + (f" ± {statistics.stdev(te):.4f}" if len(te) > 1 else "")
        secs = statistics.median(r[5] for r in chosen)
        shares = [r[6] for r in chosen if r[6] is not None]
        upd = f"{100 * statistics.fmean(shares):.1f}%" if shares else "-"
        print(f"| {fam} | {gammas} | {tr:.4f} | {te_s} | {secs:.0f} | {upd} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
