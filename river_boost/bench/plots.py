"""Figures of the bench (matplotlib, from the ``bench`` extra).

Both figures are a grid of panels, one per stream (at most three per row), with one legend
for the whole figure: models are told apart by colour, line style (River's models and the
single tree dashed) and, in the throughput figure, marker, so no label is written next to a
point where it could collide with another or be clipped. Each panel's axis names its metric:
accuracy on binary and multiclass streams, ``1 − rank loss`` on multi-label ones, RMSE on
regression ones.
"""

from __future__ import annotations

import math
import pathlib

__all__ = ["plot_bench", "plot_drift", "metric_name"]

MAX_COLUMNS = 3
MARKERS = "osD^vP*Xph<>8"
PANEL = (4.6, 3.4)  # inches per panel


def _task(stream: str) -> str | None:
    from . import task_of

    try:
        return task_of(stream)
    except (KeyError, ValueError):
        return None


def metric_name(stream: str) -> str:
    """The metric the bench reports on ``stream``, as an axis label."""
    task = _task(stream)
    if task == "regression":
        return "RMSE (lower is better)"
    return "1 − rank loss (%)" if task == "multilabel" else "accuracy (%)"


def _metric(stream: str) -> tuple:
    """``(scale of a curve's values, summary row's key)`` of the metric on ``stream``."""
    return (1.0, "rmse_mean") if _task(stream) == "regression" else (100.0, "accuracy_mean")


def _short(value: float, _pos=None) -> str:
    """A tick label for a throughput: 50, 200, 1k, 2.5k, 20k, 1M."""
    if value >= 1e6:
        text, unit = value / 1e6, "M"
    elif value >= 1e3:
        text, unit = value / 1e3, "k"
    else:
        text, unit = value, ""
    return f"{text:.3g}{unit}"


def _grid(plt, n: int, panel=PANEL, extra_height: float = 0.0):
    ncols = min(MAX_COLUMNS, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel[0] * ncols, panel[1] * nrows + extra_height),
        squeeze=False,
    )
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat[:n], flat[n:]


def _legend(fig, handles: dict, empty: list, ncol: int) -> float:
    """One legend for the whole figure: in the grid's empty cells when there are some (their
    width in columns), else under the panels. Returns the fraction of the figure's height to
    keep free at the bottom."""
    labels, artists = list(handles), list(handles.values())
    if empty:
        ncol = max(1, min(len(labels), 2 * len(empty)))
        legend = empty[0].legend(
            artists, labels, loc="upper left", ncol=ncol, fontsize=8, frameon=False
        )
        legend.set_in_layout(False)  # the cell is free: tight_layout need not make room
        return 0.0
    rows = math.ceil(len(labels) / ncol)
    fig.legend(artists, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    return min(0.5, (0.24 * rows + 0.2) / fig.get_figheight())


def plot_bench(results, rows, streams, out: pathlib.Path) -> list:
    """The bench's figures: the metric over each stream, and the metric against throughput.

    ``results`` are the bench's runs, ``rows`` its summary keyed by ``(model, stream)``;
    writes ``accuracy_over_stream.png`` and ``accuracy_vs_throughput.png`` into ``out`` (on
    regression streams, the running RMSE: ``rmse_over_stream.png``, ``rmse_vs_throughput.png``)
    and returns their paths.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    paths = []
    prefix = "rmse" if streams and _task(streams[0]) == "regression" else "accuracy"
    models = list(dict.fromkeys(r.model for r in results))
    palette = plt.get_cmap("tab20")
    style = {
        m: {
            "color": palette(i % 20),
            "ls": "--" if m.startswith(("River.", "HoeffdingTree")) else "-",
        }
        for i, m in enumerate(models)
    }
    marker = {m: MARKERS[i % len(MARKERS)] for i, m in enumerate(models)}
    # legend columns of about 2.3 inches, as many as the figure is wide
    ncol_legend = max(1, min(len(models), int(PANEL[0] * min(MAX_COLUMNS, len(streams)) / 2.3)))
    empty_cells = -len(streams) % min(MAX_COLUMNS, len(streams))
    rows_of_legend = math.ceil(len(models) / ncol_legend)
    legend_height = 0.0 if empty_cells else 0.24 * rows_of_legend + 0.3

    # the metric over each stream (first seed)
    fig, axes, empty = _grid(plt, len(streams), extra_height=legend_height)
    handles = {}
    for ax, stream in zip(axes, streams):
        for r in results:
            if r.stream == stream and r.seed == results[0].seed:
                xs, ys = zip(*r.curve)
                scale = _metric(stream)[0]
                (line,) = ax.plot(xs, [scale * y for y in ys], lw=1.2, **style[r.model])
                handles.setdefault(r.model, line)
        ax.set_title(stream)
        ax.set_xlabel("examples")
        ax.set_ylabel(metric_name(stream))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(_short))
        ax.grid(alpha=0.3)
    bottom = _legend(fig, handles, empty, ncol_legend)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    paths.append(out / f"{prefix}_over_stream.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    # the metric against throughput (mean over seeds; median throughput)
    fig, axes, empty = _grid(plt, len(streams), extra_height=legend_height)
    handles = {}
    for ax, stream in zip(axes, streams):
        xs = []
        for (model, s), row in rows.items():
            if s != stream or "best" in model or not row.get("throughput"):
                continue
            color = style[model]["color"] if model in style else None
            scale, key = _metric(stream)
            point = ax.scatter(
                row["throughput"],
                scale * row[key],
                s=36,
                color=color,
                marker=marker.get(model, "o"),
                edgecolors="black",
                linewidths=0.4,
                zorder=3,
            )
            handles.setdefault(model, point)
            xs.append(row["throughput"])
        ax.set_xscale("log")
        if xs:
            # a margin of a fifth of a decade each side, so no point sits on the frame
            lo, hi = min(xs), max(xs)
            ax.set_xlim(lo / 10**0.2, hi * 10**0.2)
        ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(_short))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.margins(y=0.12)
        ax.set_title(stream)
        ax.set_xlabel("examples / s (log scale)")
        ax.set_ylabel(metric_name(stream))
        ax.grid(alpha=0.3, which="both")
    bottom = _legend(fig, handles, empty, ncol_legend)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    paths.append(out / f"{prefix}_vs_throughput.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def plot_drift(results, streams, out: pathlib.Path) -> list:
    """The drift suite's figure: accuracy over consecutive windows of 1% of each stream,
    with the streams' concept changes marked (dotted), one panel per stream."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import drift_points

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
