"""OnlineMBBM's cost relative to AdaBoost.OLM, side by side in one process.

The multiclass paper estimated OnlineMBBM's potentials by Monte Carlo and reports it up to 27x
slower than AdaBoost.OLM. With exact potentials the ratio should stay small. Both boosters run
prequentially on the same stream (``river_boost.bench`` runs), one after the other in the
same process, ``--repeats`` times; reported: accuracy, seconds (median) and the ratio of
medians.

    python benchmarks/multiclass_cost.py --data-dir DIR --n-models 20

``DIR`` holds the papers' sets (the README says where each comes from); letter is skipped
with a notice when it is absent.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

from river_boost import bench


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, default=None)
    parser.add_argument("--n-models", type=int, default=20)
    parser.add_argument("--gamma", type=float, default=0.3)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--n-rows", type=int, default=None)
    args = parser.parse_args(argv)
    streams = ["imagesegments"]
    if args.data_dir is not None and (args.data_dir / "letter").exists():
        streams.append("letter")
    else:
        print("letter not found (give --data-dir): skipped", file=sys.stderr)
    protocol = bench.Protocol(n_samples=args.n_rows or 20_000)
    specs = {
        "olm": bench.ModelSpec("AdaBoost.OLM"),
        "mbbm": bench.ModelSpec("OnlineMBBM", args.gamma),
    }
    print(f"n_models={args.n_models}, OnlineMBBM gamma={args.gamma}, repeats={args.repeats}")
    print("| stream | k | rows | AdaBoost.OLM acc | OnlineMBBM acc | OLM s | MBBM s | MBBM ÷ OLM |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in streams:
        runs = {key: [] for key in specs}
        for rep in range(args.repeats):
            for key, spec in specs.items():
                runs[key].append(
                    bench.run_one(name, spec, rep, args.n_models, protocol, args.data_dir)
                )
        t_olm, t_mb = (statistics.median(r.seconds for r in runs[key]) for key in specs)
        examples, _ = bench.stream_examples(name, protocol.n_samples, args.data_dir)
        labels = [y for _, y in examples]
        print(
            f"| {name} | {len(set(labels))} | {len(labels)} | {runs['olm'][-1].accuracy:.4f} | "
            f"{runs['mbbm'][-1].accuracy:.4f} | {t_olm:.0f} | {t_mb:.0f} | {t_mb / t_olm:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
