"""Figures of the bench (matplotlib, from the ``bench`` extra)."""

from __future__ import annotations

import pathlib

__all__ = ["plot_bench"]


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
