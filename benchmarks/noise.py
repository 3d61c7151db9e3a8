"""Random classification noise: how much accuracy each booster loses when training labels flip.

Protocol: each binary stream of the foundation benchmark is run prequentially; with
probability ``eta`` the label a model *learns* is flipped (independently per example, seeded),
while predictions are always scored against the *clean* label
(``bench.Protocol(label_noise=eta)``). Every model sees the same flips for a given (stream,
eta, seed). Reported: accuracy at each eta, the drop from eta = 0, throughput, and the
martingale booster's node count next to the other boosters' tree count.

    python benchmarks/noise.py --seeds 1,2 --jobs 2 --out noise-results

Writes ``noise.json`` and ``accuracy_vs_noise.png`` (accuracy vs eta, one panel per stream)
to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys

from river_boost import bench

STREAMS = ["phishing", "bananas", "sea", "agrawal", "hyperplane"]
MODELS = [
    bench.ModelSpec("HoeffdingTree"),
    bench.ModelSpec("River.AdaBoost"),
    bench.ModelSpec("River.ARF"),
    bench.ModelSpec("AdaBoost.OL"),
    bench.ModelSpec("OnlineBBM", 0.1),
    bench.ModelSpec("OnlineBBM", 0.3),
    bench.ModelSpec("OSBoost", 0.1),
    bench.ModelSpec("OSBoost.OCP", 0.1),
    bench.ModelSpec("MartingaleBooster"),
    bench.ModelSpec("MartingaleBooster", params=(("train_balanced", False),)),
]
ETAS = (0.0, 0.1, 0.2, 0.3)


def record(r, eta) -> dict:
    return {
        "stream": r.stream,
        "model": r.model,
        "eta": eta,
        "seed": r.seed,
        "accuracy": r.accuracy,
        "throughput": r.throughput,
        "nodes": r.nodes,
    }


def summarize(results, streams, etas):
    """{(model, stream): {eta: mean accuracy}} and throughput / node medians."""
    table, speed, nodes = {}, {}, {}
    for r in results:
        key = (r["model"], r["stream"])
        table.setdefault(key, {}).setdefault(r["eta"], []).append(r["accuracy"])
        speed.setdefault(key, []).append(r["throughput"])
        if r["nodes"] is not None:
            nodes.setdefault(key, []).append(r["nodes"])
    acc = {k: {eta: statistics.fmean(v) for eta, v in d.items()} for k, d in table.items()}
    return (
        acc,
        {k: statistics.median(v) for k, v in speed.items()},
        {k: statistics.median(v) for k, v in nodes.items()},
    )


def print_tables(acc, speed, nodes, streams, etas, n_models):
    models = list(dict.fromkeys(m for m, _ in acc))
    print("Accuracy (%) on clean labels at each training-label noise rate eta")
    print("| model | " + " | ".join(f"{s} η={e:g}" for s in streams for e in etas) + " |")
    print("|" + " --- |" * (1 + len(streams) * len(etas)))
    for m in models:
        cells = [f"{100 * acc[m, s][e]:.2f}" for s in streams for e in etas]
        print(f"| {m} | " + " | ".join(cells) + " |")
    print("\nDrop from η = 0 (points), mean over streams")
    print("| model | " + " | ".join(f"η={e:g}" for e in etas[1:]) + " | η = 0 accuracy |")
    print("|" + " --- |" * (len(etas) + 1))
    for m in models:
        drops = [
            statistics.fmean(100 * (acc[m, s][etas[0]] - acc[m, s][e]) for s in streams)
            for e in etas[1:]
        ]
        clean = statistics.fmean(100 * acc[m, s][etas[0]] for s in streams)
        print(f"| {m} | " + " | ".join(f"{d:.2f}" for d in drops) + f" | {clean:.2f} |")
    print(f"\nThroughput (examples/s, median) and size ({n_models} trees per ensemble)")
    print("| model | " + " | ".join(streams) + " | nodes (martingale) |")
    print("|" + " --- |" * (len(streams) + 2))
    for m in models:
        size = [f"{nodes[m, s]:.0f}" for s in streams if (m, s) in nodes]
        print(
            f"| {m} | "
            + " | ".join(f"{speed[m, s]:,.0f}" for s in streams)
            + f" | {'/'.join(size) if size else '-'} |"
        )


def plot(acc, streams, etas, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(streams), figsize=(4 * len(streams), 3.6), squeeze=False)
    axes = axes[0]
    for ax, s in zip(axes, streams):
        for m in dict.fromkeys(m for m, _ in acc):
            ax.plot(etas, [100 * acc[m, s][e] for e in etas], marker="o", label=m)
        ax.set_title(s)
        ax.set_xlabel("training-label noise η")
    axes[0].set_ylabel("accuracy on clean labels (%)")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", default=",".join(STREAMS))
    parser.add_argument("--etas", default=",".join(map(str, ETAS)))
    parser.add_argument("--seeds", default="1")
    parser.add_argument(
        "--models",
        default=None,
        help="comma-separated labels to run (e.g. 'AdaBoost.OL,OnlineBBM(γ=0.3)'); default all",
    )
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("noise-results"))
    args = parser.parse_args(argv)
    streams = args.streams.split(",")
    etas = [float(e) for e in args.etas.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    wanted = None if args.models is None else set(args.models.split(","))
    known = {spec.label for spec in MODELS}
    if wanted is not None and wanted - known:
        parser.error(f"unknown models {sorted(wanted - known)}")
    runs = [
        (s, spec, seed, args.n_models, bench.Protocol(label_noise=eta))
        for s in streams
        for spec in MODELS
        if wanted is None or spec.label in wanted
        for eta in etas
        for seed in seeds
    ]
    results = [
        record(r, run[4].label_noise) for r, run in zip(bench.run_grid(runs, jobs=args.jobs), runs)
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "noise.json").write_text(json.dumps(results, indent=1))
    acc, speed, nodes = summarize(results, streams, etas)
    print(f"{len(seeds)} seed(s) {seeds}, {args.n_models} weak learners\n")
    print_tables(acc, speed, nodes, streams, etas, args.n_models)
    plot(acc, streams, etas, args.out / "accuracy_vs_noise.png")
    print(f"\nwrote {args.out / 'noise.json'}, {args.out / 'accuracy_vs_noise.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
