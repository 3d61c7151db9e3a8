"""Table 1 of Jung, Goetz & Tewari (2017): accuracy on the final 20% of each stream.

Prequential runs (predict, score, learn) over the whole data set; only the last 20% of
predictions count (``bench.Protocol(split=0.8)``, the rest's accuracy). The rows are
shuffled first (``--order shuffled``, seeded by ``--seed``; the default): the UCI files of
car, nursery and mice_protein are sorted by attribute values or by class, so in file order
the final 20% is a block unlike the rest of the stream (``--order file`` keeps it).
AdaBoost.OLM and OnlineMBBM at five edges ("best MBBM" is the best of the five), with the
paper's weak learners (VFDT with randomly drawn split confidence, tie threshold and grace
period 1-10: ``diversify="paper"``) and with default Hoeffding trees (``diversify=False``).
Run time in seconds per run.

    python benchmarks/multiclass_table1.py --data-dir DIR --n-models 100 --jobs 2

``DIR`` holds the papers' sets, one folder per set (the README says where each comes from).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from river_boost import bench

PAPER = {  # Table 1: (AdaBoost.OLM, best MBBM)
    "balance_scale": (0.754, 0.821),
    "mice_protein": (0.561, 0.695),
    "car": (0.930, 0.914),
    "mushroom": (1.000, 1.000),
    "nursery": (0.966, 0.969),
}
GAMMAS = (0.01, 0.05, 0.1, 0.2, 0.3)
SETUPS = {"paper": "paper", "default": False}  # setup -> the boosters' diversify


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, required=True)
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
    protocol = bench.Protocol(split=0.8, shuffle=args.seed if args.order == "shuffled" else None)
    runs = [
        (
            name,
            bench.ModelSpec(fam, g, params=(("diversify", SETUPS[setup]),)),
            args.seed,
            args.n_models,
            protocol,
        )
        for name in sets
        for setup in setups
        for fam, gs in (("AdaBoost.OLM", [None]), ("OnlineMBBM", GAMMAS))
        for g in gs
    ]
    results = bench.run_grid(runs, jobs=args.jobs, data_dir=args.data_dir)
    print(
        f"{args.n_models} weak learners, seed {args.seed}, rows {args.order}; accuracy on the "
        "final 20%"
    )
    print(
        "| data set | weak learners | AdaBoost.OLM | best MBBM (γ) | paper OLM / MBBM | OLM s "
        "| MBBM s (median) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in sets:
        for setup in setups:
            diversify = (("diversify", SETUPS[setup]),)
            rs = [
                r
                for r, run in zip(results, runs)
                if r.stream == name and run[1].params == diversify
            ]
            olm = next(r for r in rs if r.family == "AdaBoost.OLM")
            mbbm = sorted((r for r in rs if r.family == "OnlineMBBM"), key=lambda r: r.seconds)
            best = max(mbbm, key=lambda r: r.split_accuracy[1])
            paper = PAPER.get(name, (float("nan"),) * 2)
            print(
                f"| {name} | {setup} | {olm.split_accuracy[1]:.3f} | "
                f"{best.split_accuracy[1]:.3f} ({best.gamma:g}) | "
                f"{paper[0]:.3f} / {paper[1]:.3f} | {olm.seconds:.0f} | "
                f"{mbbm[len(mbbm) // 2].seconds:.0f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
