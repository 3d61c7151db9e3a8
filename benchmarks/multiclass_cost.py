"""OnlineMBBM's cost relative to AdaBoost.OLM, side by side in one process.

The multiclass paper estimated OnlineMBBM's potentials by Monte Carlo and reports it up to 27x
slower than AdaBoost.OLM. With exact potentials the ratio should stay small. Both boosters run
prequentially on the same stream, one after the other in the same process, ``--repeats`` times;
reported: accuracy, seconds (median) and the ratio of medians.

    python benchmarks/multiclass_cost.py --data-dir ../shared/data --n-models 20

letter needs ../shared/data/letter (skipped with a notice when absent).
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import statistics
import sys
import time

from river import datasets, metrics

import river_boost as rb


def letter(data_dir: pathlib.Path):
    path = data_dir / "letter" / "letter-recognition.data"
    with open(path) as f:
        for row in csv.reader(f):
            if row:
                yield {f"x{j}": float(v) for j, v in enumerate(row[1:])}, row[0]


def run(model, examples):
    metric = metrics.Accuracy()
    start = time.perf_counter()
    for x, y in examples:
        metric.update(y, model.predict_one(x))
        model.learn_one(x, y)
    return metric.get(), time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, default=pathlib.Path("../shared/data"))
    parser.add_argument("--n-models", type=int, default=20)
    parser.add_argument("--gamma", type=float, default=0.3)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--n-rows", type=int, default=None)
    args = parser.parse_args(argv)
    streams = {"imagesegments": list(datasets.ImageSegments())}
    if (args.data_dir / "letter").exists():
        streams["letter"] = list(letter(args.data_dir))
    else:
        print("letter not found: skipped", file=sys.stderr)
    print(f"n_models={args.n_models}, OnlineMBBM gamma={args.gamma}, repeats={args.repeats}")
    print("| stream | k | rows | AdaBoost.OLM acc | OnlineMBBM acc | OLM s | MBBM s | MBBM ÷ OLM |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, rows in streams.items():
        rows = rows[: args.n_rows]
        times = {"olm": [], "mbbm": []}
        for rep in range(args.repeats):
            acc_olm, t = run(rb.AdaBoostOLM(n_models=args.n_models, seed=rep), rows)
            times["olm"].append(t)
            acc_mb, t = run(rb.OnlineMBBM(n_models=args.n_models, gamma=args.gamma, seed=rep), rows)
            times["mbbm"].append(t)
        t_olm, t_mb = statistics.median(times["olm"]), statistics.median(times["mbbm"])
        k = len({y for _, y in rows})
        print(
            f"| {name} | {k} | {len(rows)} | {acc_olm:.4f} | {acc_mb:.4f} | {t_olm:.0f} | "
            f"{t_mb:.0f} | {t_mb / t_olm:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
