"""Figures of the bench (matplotlib, from the ``bench`` extra)."""

from __future__ import annotations

import pathlib

__all__ = ["plot_bench", "plot_drift"]


def plot_bench(results, rows, streams, out: pathlib.Path) -> list:
    """The bench's figures: accuracy over each stream, and accuracy against throughput."""
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


def plot_drift(results, streams, out: pathlib.Path) -> list:
    """The drift suite's figure: accuracy over consecutive windows of 1% of each stream,
    with the streams' concept changes marked (dotted), one panel per stream."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .bench import drift_points

    labels = list(dict.fromkeys(r.model for r in results if r.windows))
    palette = plt.get_cmap("tab20")
    style = {
        m: {
            "color": palette(i % 20),
            "ls": "--" if m.startswith(("River.", "MOA.", "HoeffdingTree")) else "-",
        }
        for i, m in enumerate(labels)
    }
    ncols = min(3, len(streams))
    nrows = -(-len(streams) // ncols)
    ncol = max(2, min(len(labels), 6))
    legend_rows = -(-len(labels) // ncol)
    height = 3.2 * nrows + 0.3 * legend_rows + 0.4
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, height), squeeze=False)
    for ax, stream in zip(axes.flat, streams):
        for r in results:
            if r.stream == stream and r.seed == results[0].seed and r.windows:
                xs, ys = zip(*r.windows)
                ax.plot(xs, [100 * y for y in ys], label=r.model, lw=1.0, **style[r.model])
        seen = max((r.n_samples for r in results if r.stream == stream), default=0)
        for position in drift_points(stream):
            if position <= seen:  # a run cut short (--n-samples) shows the changes it saw
                ax.axvline(position, color="black", ls=":", lw=1.0)
        ax.set_title(stream)
        ax.set_xlabel("examples")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(streams) :]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("accuracy per 1% window (%)")
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, fontsize=8)
    fig.tight_layout(rect=(0, (0.3 * legend_rows + 0.2) / height, 1, 1))
    path = out / "drift_accuracy.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]
