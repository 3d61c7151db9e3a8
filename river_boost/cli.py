"""``river-boost``: command-line entry point.

``river-boost bench`` compares the boosters with a single Hoeffding tree and River's own
ensembles on streams bundled with River (nothing is downloaded), prints tables, and writes
``results.csv``, ``results.json`` and PNG plots to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pathlib
import sys

from . import __version__, bench


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"river-boost: error: {message} (see --help)\n")


def _csv_list(kind, choices=None):
    def parse(text):
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"empty {kind} list")
        if choices is not None:
            unknown = [t for t in items if t not in choices]
            if unknown:
                raise argparse.ArgumentTypeError(
                    f"unknown {kind} {', '.join(unknown)}; choose from {', '.join(choices)}"
                )
        return items

    return parse


def _float_list(text):
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not values or not all(0 < v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"edges must lie in (0, 1): {text!r}")
    return values


def _int_list(text):
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def make_parser():
    parser = _OneLineParser(prog="river-boost", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"river-boost {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    b = sub.add_parser(
        "bench",
        help="prequential comparison of the boosters and River's ensembles",
        description="Progressive validation (predict, score, learn) of every booster beside a "
        "single Hoeffding tree and River's AdaBoost, BOLE and ARF, on River's bundled streams.",
    )
    b.add_argument(
        "--streams",
        type=_csv_list("stream", list(bench.STREAMS)),
        default=bench.DEFAULT_STREAMS,
        help=f"comma-separated streams (default: {', '.join(bench.DEFAULT_STREAMS)}; "
        f"all: {', '.join(bench.STREAMS)})",
    )
    b.add_argument(
        "--models",
        type=_csv_list("model", list(bench.MODELS)),
        default=bench.DEFAULT_MODELS,
        help=f"comma-separated models (default: {', '.join(bench.DEFAULT_MODELS)}; "
        f"ablations: {', '.join(bench.ABLATIONS)})",
    )
    b.add_argument("--n-models", type=_positive_int, default=10, help="weak learners per ensemble")
    b.add_argument(
        "--gammas",
        type=_float_list,
        default=list(bench.DEFAULT_GAMMAS),
        help="edge grid for OnlineBBM and OnlineMBBM (default: 0.05,0.1,0.2,0.3)",
    )
    b.add_argument(
        "--osboost-gammas", type=_float_list, default=[bench.OSBOOST_GAMMA], help="edges for OSBoost"
    )
    b.add_argument("--seeds", type=_int_list, default=[42], help="model seeds (default: 42)")
    b.add_argument(
        "--n-samples", type=_positive_int, default=None, help="cap on examples per stream"
    )
    b.add_argument(
        "--jobs",
        type=_positive_int,
        default=min(2, os.cpu_count() or 1),
        help="parallel processes (default: 2)",
    )
    b.add_argument(
        "--out", type=pathlib.Path, default=pathlib.Path("river-boost-results"), help="output folder"
    )
    b.add_argument("--no-plot", action="store_true", help="skip the PNG plots")
    return parser


def _write_outputs(results, rows, out: pathlib.Path):
    out.mkdir(parents=True, exist_ok=True)
    fields = [
        "stream", "model", "family", "gamma", "seed", "n_models", "n_samples",
        "accuracy", "seconds", "weak_seconds", "throughput", "overhead_share", "update_share",
    ]  # fmt: skip
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for r in results:
            writer.writerow([getattr(r, k) for k in fields])
    with open(out / "results.json", "w") as f:
        json.dump(
            {
                "runs": [
                    {**{k: getattr(r, k) for k in fields}, "curve": r.curve} for r in results
                ],
                "summary": list(rows.values()),
            },
            f,
            indent=1,
        )


def _plot(results, rows, streams, out: pathlib.Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    labels = list(dict.fromkeys(r.model for r in results))
    palette = plt.get_cmap("tab20")
    style = {
        m: {
            "color": palette(i % 20),
            "ls": "--" if m.startswith(("River.", "HoeffdingTree")) else "-",
        }
        for i, m in enumerate(labels)
    }
    width = max(12.0, 4.2 * len(streams))
    ncol = max(2, min(len(labels), int(width / 2.0)))
    rows_of_legend = -(-len(labels) // ncol)
    height = 3.6 + 0.25 * rows_of_legend
    fig, axes = plt.subplots(1, len(streams), figsize=(width, height), squeeze=False)
    for ax, stream in zip(axes[0], streams):
        for r in results:
            if r.stream == stream and r.seed == results[0].seed:
                xs, ys = zip(*r.curve)
                ax.plot(xs, [100 * y for y in ys], label=r.model, lw=1.2, **style[r.model])
        ax.set_title(stream)
        ax.set_xlabel("examples")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("prequential accuracy (%)")
    handles = {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, fontsize=8)
    fig.tight_layout(rect=(0, (0.25 * rows_of_legend + 0.15) / height, 1, 1))
    paths.append(out / "accuracy_over_stream.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(streams), figsize=(4.2 * len(streams), 3.6), squeeze=False)
    for ax, stream in zip(axes[0], streams):
        for (model, s), row in rows.items():
            if s == stream and "best" not in model:
                color = style[model]["color"] if model in style else None
                ax.scatter(row["throughput"], 100 * row["accuracy_mean"], s=18, color=color)
                ax.annotate(model, (row["throughput"], 100 * row["accuracy_mean"]), fontsize=6)
        ax.set_xscale("log")
        ax.set_title(stream)
        ax.set_xlabel("examples / s (log)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("accuracy (%)")
    fig.tight_layout()
    paths.append(out / "accuracy_vs_throughput.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def _check_writable(out: pathlib.Path) -> None:
    """Fail before minutes of runs, not after, if results cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".river-boost-write-test"
    probe.write_text("")
    probe.unlink()


def cmd_bench(args):
    from tqdm.auto import tqdm

    _check_writable(args.out)
    runs = bench.grid(args.streams, args.models, args.gammas, args.seeds, args.osboost_gammas)
    with tqdm(total=len(runs), desc="bench", unit="run", dynamic_ncols=True) as bar:

        def progress(r):
            bar.set_postfix_str(f"{r.stream} · {r.model} · {100 * r.accuracy:.2f}%")
            bar.update()

        results = bench.run_grid(runs, args.n_models, args.n_samples, args.jobs, progress)
    rows = bench.summarize(results)
    streams = args.streams
    print(f"\nPrequential accuracy (%), {args.n_models} weak learners, seeds {args.seeds}")
    print(bench.format_table(rows, streams, "accuracy"))
    print("\nThroughput (examples/s, median over seeds)")
    print(bench.format_table(rows, streams, "throughput"))
    if any(r["speed_vs_reference"] is not None for r in rows.values()):
        print("\nThroughput ÷ River.AdaBoost's on the same stream, same invocation")
        print(bench.format_table(rows, streams, "speed"))
    print("\nBooster overhead: share of time outside the weak learners' learn/predict")
    print(bench.format_table(rows, streams, "overhead"))
    print("\nWeak-learner updates: share of (example, learner) pairs that updated a learner")
    print(bench.format_table(rows, streams, "updates"))
    _write_outputs(results, rows, args.out)
    written = [args.out / "results.csv", args.out / "results.json"]
    if not args.no_plot:
        written += _plot(results, rows, streams, args.out)
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        if args.command == "bench":
            return cmd_bench(args)
    except KeyboardInterrupt:
        print("river-boost: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError) as e:
        print(f"river-boost: error: {e}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
