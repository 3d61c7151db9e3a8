"""a9a with the protocol of Beygelzimer, Kale & Luo (2015), section 5.

Pool the LIBSVM train and test files (48,842 rows), split 80/20 at random (one split per
seed), tune each booster's parameters by progressive-validation accuracy on the 80%, then
report the 0-1 loss on the 20% (predict, score, then still learn: the models stay online).
Sparse binary features are made dense (absent = 0) so trees can split on them. Runs are
``river_boost.bench`` runs (``Protocol(shuffle=seed, split=0.8)``).

    python benchmarks/a9a.py --data-dir DIR --seeds 1 --jobs 2

``DIR`` holds the papers' sets, one folder per set (the README says where each comes from);
the script exits with a message if a9a is absent.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

from river_boost import bench
from river_boost.bench import loaders

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, required=True)
    parser.add_argument("--seeds", type=lambda s: [int(v) for v in s.split(",")], default=[1])
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--n-rows", type=int, default=None, help="use only the first rows")
    parser.add_argument("--models", default=",".join(GRID), help="comma-separated families")
    args = parser.parse_args(argv)
    if not (args.data_dir / "a9a" / "a9a").exists():
        print(f"a9a not found under {args.data_dir}", file=sys.stderr)
        return 1
    families = args.models.split(",")
    unknown = [f for f in families if f not in GRID]
    if unknown:
        print(f"unknown models {unknown}; choose from {list(GRID)}", file=sys.stderr)
        return 2
    n_rows = min(args.n_rows or loaders.PAPER_SETS["a9a"].rows, loaders.PAPER_SETS["a9a"].rows)
    runs = [
        (
            "a9a",
            bench.ModelSpec(fam, g),
            seed,
            args.n_models,
            bench.Protocol(n_samples=n_rows, shuffle=seed, split=0.8),
        )
        for fam in families
        for g in GRID[fam]
        for seed in args.seeds
    ]
    results = bench.run_grid(runs, jobs=args.jobs, data_dir=args.data_dir)
    print(f"a9a, {n_rows} rows, 80/20 split, {args.n_models} learners, seeds {args.seeds}")
    print(
        "| model | tuned γ (per seed) | progressive acc. on 80% | test error on 20% | seconds "
        "| learner updates |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for fam in families:
        # tuned on the training part only
        chosen = [
            max(
                (r for r in results if r.family == fam and r.seed == seed),
                key=lambda r: r.split_accuracy[0],
            )
            for seed in args.seeds
        ]
        gammas = ",".join("-" if r.gamma is None else f"{r.gamma:g}" for r in chosen)
        train = statistics.fmean(r.split_accuracy[0] for r in chosen)
        error, std = bench.mean_std(1 - r.split_accuracy[1] for r in chosen)
        error_s = f"{error:.4f}" + (f" ± {std:.4f}" if len(chosen) > 1 else "")
        seconds = statistics.median(r.seconds for r in chosen)
        shares = [r.update_share for r in chosen if r.update_share is not None]
        updates = f"{100 * statistics.fmean(shares):.1f}%" if shares else "-"
        print(f"| {fam} | {gammas} | {train:.4f} | {error_s} | {seconds:.0f} | {updates} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
