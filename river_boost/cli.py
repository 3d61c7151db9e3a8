"""``river-boost``: command-line entry point.

``river-boost bench`` compares the boosters with a single Hoeffding tree and River's own
ensembles on streams bundled with River (nothing is downloaded), prints tables, and writes
``results.csv``, ``results.json`` and PNG plots to ``--out``. ``river-boost tune`` picks each
booster's γ / number of learners / learning rate on a prefix of the stream and reports its
accuracy on the rest.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pathlib
import sys

from . import __version__, bench
from .loaders import PAPER_SETS, paper_set

ALL_STREAMS = list(bench.STREAMS) + list(PAPER_SETS)


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
    values = _numbers(text)
    if not values or not all(0 < v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"edges must lie in (0, 1): {text!r}")
    return values


def _numbers(text):
    try:
        return [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None


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


def _positive_int_list(text):
    values = _int_list(text)
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def _positive_float_list(text):
    values = _numbers(text)
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"expected positive numbers, got {text!r}")
    return values


def _fraction(text):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
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
        type=_csv_list("stream", ALL_STREAMS),
        default=bench.DEFAULT_STREAMS,
        help=f"comma-separated streams (default: {', '.join(bench.DEFAULT_STREAMS)}; "
        f"all bundled: {', '.join(bench.STREAMS)}; with --data-dir: {', '.join(PAPER_SETS)})",
    )
    b.add_argument(
        "--data-dir",
        type=pathlib.Path,
        default=None,
        help="folder holding the papers' data sets (the layout of shared/data), to stream them",
    )
    b.add_argument(
        "--models",
        type=_csv_list("model", list(bench.MODELS)),
        default=bench.DEFAULT_MODELS,
        help=f"comma-separated models (default: {', '.join(bench.DEFAULT_MODELS)}; "
        f"ablations: {', '.join(bench.ABLATIONS)}; outside anchors, when installed: "
        f"{', '.join(bench.anchors.ANCHORS)})",
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
        help="parallel processes, or local Dask workers (default: 2)",
    )
    b.add_argument(
        "--backend",
        choices=bench.BACKENDS,
        default="joblib",
        help="where runs execute: local joblib processes or a Dask cluster (default: joblib)",
    )
    b.add_argument(
        "--scheduler",
        default=None,
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: a local cluster)",
    )
    b.add_argument(
        "--out", type=pathlib.Path, default=pathlib.Path("river-boost-results"), help="output folder"
    )
    b.add_argument("--no-plot", action="store_true", help="skip the PNG plots")

    t = sub.add_parser(
        "tune",
        help="tune γ / n_models / learning rate on a prefix, report on the rest",
        description="The papers' protocol: every configuration runs prequentially over the "
        "stream; the one with the best accuracy on the first --split share is chosen (per "
        "seed) and its accuracy on the rest of the stream, where it keeps learning, is "
        "reported.",
    )
    t.add_argument(
        "--streams",
        type=_csv_list("stream", ALL_STREAMS),
        default=["phishing", "bananas"],
        help=f"comma-separated streams (default: phishing,bananas; all bundled: "
        f"{', '.join(bench.STREAMS)}; with --data-dir: {', '.join(PAPER_SETS)})",
    )
    t.add_argument(
        "--data-dir", type=pathlib.Path, default=None,
        help="folder holding the papers' data sets (the layout of shared/data)",
    )  # fmt: skip
    t.add_argument(
        "--models",
        type=_csv_list("model", list(bench.MODELS)),
        default=["OnlineBBM", "AdaBoost.OL"],
        help="comma-separated models (default: OnlineBBM,AdaBoost.OL)",
    )
    t.add_argument(
        "--gammas", type=_float_list, default=list(bench.DEFAULT_GAMMAS),
        help="edges to try for the models that take one (default: 0.05,0.1,0.2,0.3)",
    )  # fmt: skip
    t.add_argument(
        "--n-models", type=_positive_int_list, default=[5, 10, 20],
        help="numbers of weak learners to try (default: 5,10,20)",
    )  # fmt: skip
    t.add_argument(
        "--learning-rates", type=_positive_float_list, default=None,
        help="learning-rate constants to try for AdaBoost.OL/OLM (default: their own)",
    )  # fmt: skip
    t.add_argument(
        "--split", type=_fraction, default=0.8, help="share of the stream to tune on (default: 0.8)"
    )
    t.add_argument("--seeds", type=_int_list, default=[42], help="model seeds (default: 42)")
    t.add_argument(
        "--n-samples", type=_positive_int, default=None, help="cap on examples per stream"
    )
    t.add_argument(
        "--jobs", type=_positive_int, default=min(2, os.cpu_count() or 1),
        help="parallel processes, or local Dask workers (default: 2)",
    )  # fmt: skip
    t.add_argument("--backend", choices=bench.BACKENDS, default="joblib")
    t.add_argument("--scheduler", default=None, help="Dask scheduler address")
    t.add_argument(
        "--out", type=pathlib.Path, default=pathlib.Path("river-boost-tune"), help="output folder"
    )
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


def _check_streams(streams, data_dir) -> None:
    """Fail before any run if a data set is requested without --data-dir or cannot be read."""
    for name in streams:
        if name in bench.STREAMS:
            continue
        if data_dir is None:
            raise ValueError(f"stream {name!r} is one of the papers' data sets: give --data-dir")
        try:
            next(iter(paper_set(name, data_dir)))
        except StopIteration:
            raise ValueError(f"data set {name!r} under {data_dir} is empty") from None


def _check_writable(out: pathlib.Path) -> None:
    """Fail before minutes of runs, not after, if results cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".river-boost-write-test"
    probe.write_text("")
    probe.unlink()


def cmd_bench(args):
    from tqdm.auto import tqdm

    _check_streams(args.streams, args.data_dir)
    _check_writable(args.out)
    if args.backend == "dask":
        bench.check_dask(args.scheduler)
    args.models, notices = bench.usable_models(args.models)
    for notice in notices:
        print(f"river-boost: {notice}", file=sys.stderr)
    runs = bench.grid(args.streams, args.models, args.gammas, args.seeds, args.osboost_gammas)
    with tqdm(total=len(runs), desc="bench", unit="run", dynamic_ncols=True) as bar:

        def progress(r):
            bar.set_postfix_str(f"{r.stream} · {r.model} · {100 * r.accuracy:.2f}%")
            bar.update()

        results = bench.run_grid(
            runs, args.n_models, args.n_samples, args.jobs, progress, args.backend,
            args.scheduler, args.data_dir,
        )  # fmt: skip
    rows = bench.summarize(results)
    streams = args.streams
    print(f"\nPrequential accuracy (%; on multi-label streams 100 × (1 − rank loss)), "
          f"{args.n_models} weak learners, seeds {args.seeds}")  # fmt: skip
    print(bench.format_table(rows, streams, "accuracy"))
    print("\nThroughput (examples/s, median over seeds)")
    print(bench.format_table(rows, streams, "throughput"))
    if any(r["speed_vs_reference"] is not None for r in rows.values()):
        print("\nThroughput ÷ River.AdaBoost's on the same stream, same invocation")
        print(bench.format_table(rows, streams, "speed"))
    print("\nBooster overhead: share of time outside the weak learners' learn/predict")
    print(bench.format_table(rows, streams, "overhead"))
    print("\nWeak-learner updates per (example, learner) pair (multi-label: one per relevant label)")
    print(bench.format_table(rows, streams, "updates"))
    _write_outputs(results, rows, args.out)
    written = [args.out / "results.csv", args.out / "results.json"]
    if not args.no_plot:
        written += _plot(results, rows, streams, args.out)
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


def cmd_tune(args):
    from tqdm.auto import tqdm

    _check_streams(args.streams, args.data_dir)
    _check_writable(args.out)
    if args.backend == "dask":
        bench.check_dask(args.scheduler)
    runs = bench.tuning_grid(
        args.streams, args.models, args.gammas, args.n_models, args.learning_rates, args.seeds,
        args.split,
    )  # fmt: skip
    with tqdm(total=len(runs), desc="tune", unit="run", dynamic_ncols=True) as bar:
        results = bench.run_grid(
            runs, n_samples=args.n_samples, jobs=args.jobs, progress=lambda r: bar.update(),
            backend=args.backend, scheduler=args.scheduler, data_dir=args.data_dir,
        )  # fmt: skip
    chosen = bench.pick_tuned(results)
    share = f"{100 * args.split:g}%"
    print(f"\nTuned on the first {share} of each stream (prequential accuracy), reported on "
          f"the rest; seeds {args.seeds}")  # fmt: skip
    print("| model | stream | chosen (per seed) | tuning accuracy | held-out accuracy |")
    print("| --- | --- | --- | --- | --- |")
    summary = []
    for (family, stream), rs in chosen.items():
        configs = ", ".join(
            r.model if family == "HoeffdingTree" else f"{r.model} N={r.n_models}" for r in rs
        )
        tune_acc = sum(r.split_accuracy[0] for r in rs) / len(rs)
        held = [r.split_accuracy[1] for r in rs]
        mean = sum(held) / len(held)
        std = (sum((h - mean) ** 2 for h in held) / (len(held) - 1)) ** 0.5 if len(held) > 1 else 0
        print(f"| {family} | {stream} | {configs} | {100 * tune_acc:.2f} | "
              f"{100 * mean:.2f} ± {100 * std:.2f} |")  # fmt: skip
        summary.append({
            "family": family, "stream": stream, "chosen": [(r.model, r.n_models) for r in rs],
            "tuning_accuracy": tune_acc, "held_out_accuracy": held,
        })  # fmt: skip
    with open(args.out / "tune.json", "w") as f:
        json.dump({
            "chosen": summary,
            "runs": [{"stream": r.stream, "model": r.model, "n_models": r.n_models,
                      "seed": r.seed, "split_accuracy": r.split_accuracy} for r in results],
        }, f, indent=1)  # fmt: skip
    print(f"\nwrote {args.out / 'tune.json'}")
    return 0


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        if args.command == "bench":
            return cmd_bench(args)
        if args.command == "tune":
            return cmd_tune(args)
    except KeyboardInterrupt:
        print("river-boost: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError, RuntimeError) as e:
        print(f"river-boost: error: {e}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
