"""The bench's tables: means over seeds, ranks, drift gains, formatted."""

from __future__ import annotations

import statistics

from .registry import REGISTRY

# ----------------------------------------------------------------------------- summaries


def mean_std(values) -> tuple:
    """Mean and sample standard deviation (0 for a single value)."""
    values = list(values)
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, std


ERRORS = ("mae", "rmse", "r2")  # the regression bench's metrics (RunResult.errors)


def summarize(results, reference="River.AdaBoost"):
    """Per (model, stream): accuracy mean/std over seeds (on regression streams: MAE, RMSE and
    R², ``rmse_mean`` etc.), throughput, overhead, speed ratio.

    ``speed_vs_reference`` is the model's throughput divided by the reference model's on the
    same stream, from runs of the same invocation (median over seeds).
    """
    by_key = {}
    for r in results:
        by_key.setdefault((r.model, r.stream), []).append(r)
    rows = {}
    for (model, stream), rs in by_key.items():
        regression = rs[0].errors is not None
        acc_mean, acc_std = (None, None) if regression else mean_std(r.accuracy for r in rs)
        overheads = [r.overhead_share for r in rs if r.overhead_share is not None]
        rows[model, stream] = {
            "model": model,
            "family": rs[0].family,
            "gamma": rs[0].gamma,
            "stream": stream,
            "seeds": len(rs),
            "accuracy_mean": acc_mean,
            "accuracy_std": acc_std,
            # regression streams: MAE, RMSE and R² (mean and std over seeds)
            **{
                f"{name}_{stat}": value
                for name in ERRORS
                if regression
                for stat, value in zip(("mean", "std"), mean_std(r.errors[name] for r in rs))
            },
            "throughput": statistics.median(r.throughput for r in rs),
            "overhead_share": statistics.median(overheads) if overheads else None,
            "update_share": (
                statistics.fmean(r.update_share for r in rs)
                if rs[0].update_share is not None
                else None
            ),
            "replacements": (
                statistics.fmean(r.replacements for r in rs)
                if rs[0].replacements is not None
                else None
            ),
        }
    for (_, stream), row in rows.items():
        ref = rows.get((reference, stream))
        row["speed_vs_reference"] = row["throughput"] / ref["throughput"] if ref else None
    # best-γ rows for the γ-tuned families
    for family, entry in REGISTRY.items():
        if "gamma" not in entry.takes:
            continue
        for stream in {s for _, s in rows}:
            cands = [r for r in rows.values() if r["family"] == family and r["stream"] == stream]
            if len(cands) > 1 and cands[0]["accuracy_mean"] is not None:
                best = max(cands, key=lambda r: r["accuracy_mean"])
                rows[f"{family}(best γ)", stream] = {**best, "model": f"{family}(best γ)"}
    return rows


def _cell(row, value):
    if value == "accuracy":
        cell = f"{100 * row['accuracy_mean']:.2f}"
        if row["seeds"] > 1:
            cell += f" ± {100 * row['accuracy_std']:.2f}"
        return cell
    if value in ("mae", "rmse"):
        cell = f"{row[value + '_mean']:.4g}"
        if row["seeds"] > 1:
            cell += f" ± {row[value + '_std']:.2g}"
        return cell
    if value == "r2":
        cell = f"{row['r2_mean']:.3f}"
        if row["seeds"] > 1:
            cell += f" ± {row['r2_std']:.3f}"
        return cell
    if value == "throughput":
        return f"{row['throughput']:,.0f}"
    if value == "speed":
        ratio = row["speed_vs_reference"]
        return "-" if ratio is None else f"×{ratio:.2f}"
    if value == "overhead":
        share = row["overhead_share"]
        return "-" if share is None else f"{100 * share:.1f}%"
    if value == "replacements":
        n = row["replacements"]
        return "-" if n is None else f"{n:g}"
    if value == "gain":
        return f"{100 * row['gain']:+.2f}"
    if value == "updates":
        share = row["update_share"]
        return "-" if share is None else f"{100 * share:.1f}%"
    raise ValueError(f"unknown table value {value!r}")


def mean_ranks(rows, streams, value="accuracy_mean", lower_is_better=False) -> dict:
    """Each model's mean rank on ``value`` (accuracy; ``"rmse_mean"``, with
    ``lower_is_better``, on regression streams) over the streams it ran on (1 = best on a
    stream; ties share the mean of their ranks), with the number of streams:
    ``{model: (rank, n)}``. The best-γ rows are left out (they repeat a model)."""
    ranks = {}
    for stream in streams:
        cands = [r for (m, s), r in rows.items() if s == stream and "best" not in m]
        accs = sorted((r[value] for r in cands), reverse=not lower_is_better)
        for r in cands:
            first = accs.index(r[value])
            tied = accs.count(r[value])
            ranks.setdefault(r["model"], []).append(first + (tied + 1) / 2)
    return {m: (statistics.fmean(v), len(v)) for m, v in ranks.items()}


def format_ranks(ranks: dict) -> str:
    """``mean_ranks`` as a table, best first."""
    if not ranks:
        return "(no rows)"
    width = max(len(m) for m in ranks) + 2
    lines = [f"{'model':<{width}}{'mean rank':>10}{'streams':>9}", "-" * (width + 19)]
    for m, (rank, n) in sorted(ranks.items(), key=lambda kv: kv[1][0]):
        lines.append(f"{m:<{width}}{rank:>10.2f}{n:>9}")
    return "\n".join(lines)


def drift_gains(rows) -> dict:
    """Rows ``(booster, stream)`` whose ``gain`` is ``booster+drift``'s mean accuracy minus
    the booster's without drift adaptation (same γ)."""
    out = {}
    for (model, stream), row in rows.items():
        if "+drift" not in model or "best" in model:
            continue
        plain = rows.get((model.replace("+drift", ""), stream))
        if plain is not None:
            name = model.replace("+drift", "")
            out[name, stream] = {**row, "gain": row["accuracy_mean"] - plain["accuracy_mean"]}
    return out


def format_table(rows, streams, value="accuracy", ranks=None):
    """A plain-text table, one row per model, one column per stream (and a last column of
    ``ranks``, :func:`mean_ranks`, when given).

    ``value``: ``"accuracy"`` (mean ± std over seeds, in %), ``"throughput"`` (examples/s),
    ``"mae"``, ``"rmse"``, ``"r2"`` (regression streams: mean ± std over seeds),
    ``"speed"`` (throughput ÷ the reference model's on the same stream), ``"overhead"`` (share of
    time spent outside the weak learners), ``"gain"`` (:func:`drift_gains`, in points) or
    ``"updates"`` (share of example-learner pairs
    that updated a weak learner; the rest were skipped: weight 0, thinned or not sampled).
    """
    models = list(dict.fromkeys(m for m, _ in rows))
    if not models:
        return "(no rows)"
    width = max(len(m) for m in models) + 2
    header = f"{'model':<{width}}" + "".join(f"{s:>16}" for s in streams)
    if ranks is not None:
        header += f"{'mean rank':>11}"
    lines = [header, "-" * len(header)]
    for m in models:
        cells = [_cell(rows[m, s], value) if (m, s) in rows else "-" for s in streams]
        if ranks is not None:
            cells.append(f"{ranks[m][0]:>11.2f}" if m in ranks else f"{'-':>11}")
        lines.append(f"{m:<{width}}" + "".join(f"{c:>16}" for c in cells[: len(streams)]))
        lines[-1] += "".join(cells[len(streams) :])
    return "\n".join(lines)
