"""The multi-label rankers with a deep chain (``deep_scale``) on the bench's multi-label streams.

OnlineBMR and AdaOLMR as ``river-boost bench`` runs them (its registry entries: majority-class
leaves; OnlineBMR at ``--gamma``), each with ``deep_scale`` in ``--deep-scales`` (1: a single
chain, the default), prequential rank loss of ``score_one`` (lower is better) per seed, and
the throughput relative to ``deep_scale=1`` (its seconds over theirs, median over the seeds).
Streams are River's bundled ones (``yeast``: 800 rows in the bench; ``--n-samples 2417``
for the whole set); nothing is downloaded.

    python benchmarks/ranking_deep.py --deep-scales 1,4,12 --seeds 42,43,44 --jobs 1
"""

from __future__ import annotations

import argparse
import statistics
import sys

from river_boost import bench

RANKERS = ("OnlineBMR", "AdaOLMR")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", default="yeast", help="multi-label streams, comma-separated")
    parser.add_argument("--deep-scales", default="1,4,12")
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument("--gamma", type=float, default=0.1, help="OnlineBMR's edge")
    parser.add_argument("--n-samples", type=int, default=None, help="default: the bench's")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    streams = args.streams.split(",")
    scales = [float(s) for s in args.deep_scales.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    for stream in streams:
        if bench.task_of(stream) != "multilabel":
            parser.error(f"{stream} is not a multi-label stream")
    specs = {
        (name, scale): bench.ModelSpec(
            name,
            gamma=args.gamma if name == "OnlineBMR" else None,
            params=(("deep_scale", scale),),
        )
        for name in RANKERS
        for scale in scales
    }
    protocol = bench.Protocol(n_samples=args.n_samples, extra_metrics=("rank_loss",))
    runs = [
        (stream, spec, seed, args.n_models, protocol)
        for stream in streams
        for spec in specs.values()
        for seed in seeds
    ]
    results = bench.run_grid(runs, jobs=args.jobs)
    print(f"{args.n_models} weak learners; OnlineBMR γ={args.gamma:g}; seeds {seeds}")
    print("| stream | booster | deep_scale | rank loss (mean) | per seed | seconds | throughput |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for stream in streams:
        for name in RANKERS:
            base = None
            for scale in scales:
                rs = [
                    r for r in results if r.stream == stream and r.model == specs[name, scale].label
                ]
                losses = [r.extra["rank_loss"] for r in rs]
                seconds = statistics.median(r.seconds for r in rs)
                base = seconds if base is None else base
                print(
                    f"| {stream} ({rs[0].n_samples}) | {name} | {scale:g} | "
                    f"{statistics.fmean(losses):.4f} | "
                    + ", ".join(f"{v:.4f}" for v in losses)
                    + f" | {seconds:.2f} | {base / seconds:.2f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
