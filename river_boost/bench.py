"""Prequential comparisons of the boosters against River's own ensembles.

A *run* is one (stream, model, seed): the model predicts each example, is scored, then learns
it, exactly as :func:`river.evaluate.progressive_val_score`. Each run records the final
accuracy, an accuracy curve, the wall time, and the time spent inside the weak learners'
``learn_one`` / ``predict_proba_one`` / ``predict_one`` (measured by wrapping each weak
learner in a timing proxy), from which the booster's own overhead share follows.

Runs are independent, so they are fanned out over processes. Every number that is not a
timing depends only on (stream, model, seed): serial and parallel runs agree.

"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed

from river import ensemble, forest, metrics, tree
from river.datasets import Bananas, ImageSegments, Phishing, synth

from . import binary, martingale, multiclass

__all__ = [
    "STREAMS",
    "MODELS",
    "RunResult",
    "run_one",
    "run_grid",
    "summarize",
    "format_table",
]


# ----------------------------------------------------------------------------- streams

# name -> (factory returning an iterable of (x, y), number of examples, task)
STREAMS: dict[str, tuple[Callable[[], Iterable], int, str]] = {
    "phishing": (Phishing, 1250, "binary"),
    "bananas": (Bananas, 5300, "binary"),
    "agrawal": (lambda: synth.Agrawal(seed=42), 10_000, "binary"),
    "sea": (lambda: synth.SEA(seed=42), 10_000, "binary"),
    "hyperplane": (lambda: synth.Hyperplane(seed=42, n_features=10), 10_000, "binary"),
    "imagesegments": (ImageSegments, 2310, "multiclass"),
    "led": (lambda: synth.LED(seed=42, noise_percentage=0.1), 10_000, "multiclass"),
    "rbf": (
        lambda: synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5, n_features=10),
        10_000,
        "multiclass",
    ),
    "waveform": (lambda: synth.Waveform(seed=42), 10_000, "multiclass"),
}
DEFAULT_STREAMS = ["phishing", "bananas", "agrawal", "sea", "hyperplane", "imagesegments"]


def task_of(stream: str) -> str:
    return STREAMS[stream][2]


def stream_examples(name: str, n_samples: int | None = None):
    factory, length, _ = STREAMS[name]
    n = length if n_samples is None else min(n_samples, length)
    return itertools.islice(factory(), n), n


# ----------------------------------------------------------------------------- models


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """How to build a model: ``family`` names the algorithm, ``gamma`` its edge if any."""

    family: str
    gamma: float | None = None

    @property
    def label(self) -> str:
        return f"{self.family}(γ={self.gamma:g})" if self.gamma is not None else self.family


def _ht():
    return tree.HoeffdingTreeClassifier()


MODELS: dict[str, Callable] = {
    # River's baselines
    "HoeffdingTree": lambda n, seed, gamma: _ht(),
    "River.AdaBoost": lambda n, seed, gamma: ensemble.AdaBoostClassifier(_ht(), n, seed=seed),
    "River.BOLE": lambda n, seed, gamma: ensemble.BOLEClassifier(_ht(), n, seed=seed),
    "River.ARF": lambda n, seed, gamma: forest.ARFClassifier(n_models=n, seed=seed),
    # river_boost
    "OnlineBBM": lambda n, seed, gamma: binary.OnlineBBM(n_models=n, gamma=gamma, seed=seed),
    "AdaBoost.OL": lambda n, seed, gamma: binary.AdaBoostOL(n_models=n, seed=seed),
    "AdaBoost.OL.S": lambda n, seed, gamma: binary.AdaBoostOL(
        n_models=n, weighting="sampling", seed=seed
    ),
    "OSBoost": lambda n, seed, gamma: binary.OSBoost(n_models=n, gamma=gamma, seed=seed),
    "NHBoostDT": lambda n, seed, gamma: binary.NHBoostDT(n_models=n, seed=seed),
    "SquintBoost": lambda n, seed, gamma: binary.SquintBoost(n_models=n, seed=seed),
    # n_models is the number of levels (each example trains one node per level)
    "MartingaleBooster": lambda n, seed, gamma: martingale.MartingaleBooster(
        n_levels=n, seed=seed
    ),
    "AdaBoost.OLM": lambda n, seed, gamma: multiclass.AdaBoostOLM(n_models=n, seed=seed),
    "OnlineMBBM": lambda n, seed, gamma: multiclass.OnlineMBBM(
        n_models=n, gamma=gamma, seed=seed
    ),
}
DEFAULT_MODELS = list(MODELS)
# Which tasks each model family runs on (River's ensembles and the tree do both).
TASKS = {
    "OnlineBBM": {"binary"},
    "AdaBoost.OL": {"binary"},
    "AdaBoost.OL.S": {"binary"},
    "OSBoost": {"binary"},
    "NHBoostDT": {"binary"},
    "SquintBoost": {"binary"},
    "MartingaleBooster": {"binary"},
    "AdaBoost.OLM": {"multiclass"},
    "OnlineMBBM": {"multiclass"},
}
# Variants behind the documented defaults (not run unless asked for with --models).
ABLATIONS: dict[str, Callable] = {
    "AdaBoost.OL[vote]": lambda n, seed, gamma: binary.AdaBoostOL(
        n_models=n, prediction="vote", seed=seed
    ),
    "AdaBoost.OL[random]": lambda n, seed, gamma: binary.AdaBoostOL(
        n_models=n, prediction="random", seed=seed
    ),
    "AdaBoost.OL[no-diversify]": lambda n, seed, gamma: binary.AdaBoostOL(
        n_models=n, diversify=False, seed=seed
    ),
    "AdaBoost.OL[min_weight=0]": lambda n, seed, gamma: binary.AdaBoostOL(
        n_models=n, min_weight=0.0, seed=seed
    ),
    "OnlineBBM[no-diversify]": lambda n, seed, gamma: binary.OnlineBBM(
        n_models=n, gamma=gamma, diversify=False, seed=seed
    ),
    "OnlineBBM[min_weight=0]": lambda n, seed, gamma: binary.OnlineBBM(
        n_models=n, gamma=gamma, min_weight=0.0, seed=seed
    ),
}
MODELS.update(ABLATIONS)
TASKS.update({name: TASKS[name.split("[")[0]] for name in ABLATIONS})
TAKES_GAMMA = {
    "OnlineBBM", "OSBoost", "OnlineMBBM", "OnlineBBM[no-diversify]", "OnlineBBM[min_weight=0]"
}  # fmt: skip


def runs_on(family: str, stream: str) -> bool:
    return task_of(stream) in TASKS.get(family, {"binary", "multiclass"})
DEFAULT_GAMMAS = (0.05, 0.1, 0.2, 0.3)
OSBOOST_GAMMA = 0.1  # the baseline is run at one edge unless --gammas-osboost is given


def build(spec: ModelSpec, n_models: int, seed: int):
    return MODELS[spec.family](n_models, seed, spec.gamma)


# ----------------------------------------------------------------------------- timing


class _Timed:
    """Forwards to a weak learner and adds the time spent in its hot methods to a counter."""

    def __init__(self, inner, clock: list):
        self._inner = inner
        self._clock = clock

    def learn_one(self, x, y, **kwargs):
        t = time.perf_counter()
        out = self._inner.learn_one(x, y, **kwargs)
        self._clock[0] += time.perf_counter() - t
        return out

    def predict_proba_one(self, x, **kwargs):
        t = time.perf_counter()
        out = self._inner.predict_proba_one(x, **kwargs)
        self._clock[0] += time.perf_counter() - t
        return out

    def predict_one(self, x, **kwargs):
        t = time.perf_counter()
        out = self._inner.predict_one(x, **kwargs)
        self._clock[0] += time.perf_counter() - t
        return out

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _TimedTemplate:
    """A template whose clones are timed (for boosters that create learners on the fly)."""

    def __init__(self, inner, clock: list):
        self._inner = inner
        self._clock = clock

    def clone(self):
        return _Timed(self._inner.clone(), self._clock)


def _instrument(model, clock: list) -> bool:
    """Wrap the weak learners of ``model`` in timing proxies; False if they are not reachable."""
    if isinstance(model, (binary.BinaryBooster, multiclass.MulticlassBooster)):
        members = model._pool.models
    elif isinstance(model, ensemble.AdaBoostClassifier):  # BOLE is a subclass
        members = model.data
    elif isinstance(model, martingale.MartingaleBooster):  # nodes are cloned as they appear
        for level in model._levels:
            for node in level.values():
                if node.model is not None:
                    node.model = _Timed(node.model, clock)
        model._template = _TimedTemplate(model._template, clock)
        return True
    else:  # a single tree (timed as a whole by run_one) or ARF (members created lazily)
        return False
    members[:] = [_Timed(m, clock) for m in members]
    return True


# ----------------------------------------------------------------------------- runs


@dataclasses.dataclass
class RunResult:
    stream: str
    model: str
    family: str
    gamma: float | None
    seed: int
    n_models: int
    n_samples: int
    accuracy: float
    seconds: float
    weak_seconds: float | None  # time inside the weak learners, None if not measured
    curve: list  # (examples seen, running accuracy) at ~50 checkpoints
    # share of (example, learner) pairs that updated a weak learner; None outside river_boost
    update_share: float | None = None

    @property
    def throughput(self) -> float:
        return self.n_samples / self.seconds if self.seconds > 0 else math.inf

    @property
    def overhead_share(self) -> float | None:
        """Share of the run's time spent outside the weak learners (booster overhead)."""
        if self.weak_seconds is None or self.seconds <= 0:
            return None
        return max(0.0, 1.0 - self.weak_seconds / self.seconds)


def run_one(stream: str, spec: ModelSpec, seed: int, n_models: int = 10, n_samples=None):
    """Prequential (test-then-train) run of one model on one stream."""
    examples, n = stream_examples(stream, n_samples)
    examples = list(examples)  # generate the stream before the clock starts
    model = build(spec, n_models, seed)
    clock = [0.0]
    measured = _instrument(model, clock)
    metric = metrics.Accuracy()
    every = max(1, n // 50)
    curve = []
    seen = 0
    start = time.perf_counter()
    for x, y in examples:
        y_pred = model.predict_one(x)
        metric.update(y, y_pred)
        model.learn_one(x, y)
        seen += 1
        if seen % every == 0:
            curve.append((seen, metric.get()))
    seconds = time.perf_counter() - start
    if not curve or curve[-1][0] != seen:
        curve.append((seen, metric.get()))
    if isinstance(model, tree.HoeffdingTreeClassifier):
        clock[0], measured = seconds, True  # a single tree is all weak learner
    update_share = None
    if isinstance(model, martingale.MartingaleBooster) and seen:
        update_share = sum(model._level_seen) / (seen * model.n_levels)
    elif isinstance(model, (binary.BinaryBooster, multiclass.MulticlassBooster)) and seen:
        update_share = sum(model.learner_updates) / (seen * model.n_models)
    return RunResult(
        stream=stream,
        model=spec.label,
        family=spec.family,
        gamma=spec.gamma,
        seed=seed,
        n_models=n_models,
        n_samples=seen,
        accuracy=metric.get(),
        seconds=seconds,
        weak_seconds=clock[0] if measured else None,
        curve=curve,
        update_share=update_share,
    )


def grid(streams, models, gammas, seeds, osboost_gammas=(OSBOOST_GAMMA,)):
    """All (stream, spec, seed) runs, γ-grid expanded for the boosters that take one."""
    specs = []
    for family in models:
        if family.startswith(("OnlineBBM", "OnlineMBBM")):
            specs += [ModelSpec(family, g) for g in gammas]
        elif family == "OSBoost":
            specs += [ModelSpec(family, g) for g in osboost_gammas]
        else:
            specs.append(ModelSpec(family))
    return [
        (s, spec, seed)
        for s in streams
        for spec in specs
        if runs_on(spec.family, s)
        for seed in seeds
    ]


def run_grid(runs, n_models=10, n_samples=None, jobs=1, progress=None):
    """Run every (stream, spec, seed) in ``runs``; ``progress(result)`` after each one."""
    results = []
    if jobs <= 1:
        for stream, spec, seed in runs:
            r = run_one(stream, spec, seed, n_models, n_samples)
            results.append(r)
            if progress:
                progress(r)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(run_one, stream, spec, seed, n_models, n_samples)
            for stream, spec, seed in runs
        ]
        for future in as_completed(futures):
            r = future.result()
            results.append(r)
            if progress:
                progress(r)
    order = {(s, spec.label, seed): i for i, (s, spec, seed) in enumerate(runs)}
    results.sort(key=lambda r: order[(r.stream, r.model, r.seed)])
    return results


# ----------------------------------------------------------------------------- summaries


def _mean_std(values):
    values = list(values)
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, std


def summarize(results, reference="River.AdaBoost"):
    """Per (model, stream): accuracy mean/std over seeds, throughput, overhead, speed ratio.

    ``speed_vs_reference`` is the model's throughput divided by the reference model's on the
    same stream, from runs of the same invocation (median over seeds).
    """
    by_key = {}
    for r in results:
        by_key.setdefault((r.model, r.stream), []).append(r)
    rows = {}
    for (model, stream), rs in by_key.items():
        acc_mean, acc_std = _mean_std(r.accuracy for r in rs)
        overheads = [r.overhead_share for r in rs if r.overhead_share is not None]
        rows[model, stream] = {
            "model": model,
            "family": rs[0].family,
            "gamma": rs[0].gamma,
            "stream": stream,
            "seeds": len(rs),
            "accuracy_mean": acc_mean,
            "accuracy_std": acc_std,
            "throughput": statistics.median(r.throughput for r in rs),
            "overhead_share": statistics.median(overheads) if overheads else None,
            "update_share": (
                statistics.fmean(r.update_share for r in rs)
                if rs[0].update_share is not None
                else None
            ),
        }
    for (model, stream), row in rows.items():
        ref = rows.get((reference, stream))
        row["speed_vs_reference"] = row["throughput"] / ref["throughput"] if ref else None
    # best-γ rows for the γ-tuned families
    for family in TAKES_GAMMA:
        for stream in {s for _, s in rows}:
            cands = [r for r in rows.values() if r["family"] == family and r["stream"] == stream]
            if len(cands) > 1:
                best = max(cands, key=lambda r: r["accuracy_mean"])
                rows[f"{family}(best γ)", stream] = {
                    **best,
                    "model": f"{family}(best γ)",
                }
    return rows


def _cell(row, value):
    if value == "accuracy":
        cell = f"{100 * row['accuracy_mean']:.2f}"
        if row["seeds"] > 1:
            cell += f" ± {100 * row['accuracy_std']:.2f}"
        return cell
    if value == "throughput":
        return f"{row['throughput']:,.0f}"
    if value == "speed":
        ratio = row["speed_vs_reference"]
        return "-" if ratio is None else f"×{ratio:.2f}"
    if value == "overhead":
        share = row["overhead_share"]
        return "-" if share is None else f"{100 * share:.1f}%"
    if value == "updates":
        share = row["update_share"]
        return "-" if share is None else f"{100 * share:.1f}%"
    raise ValueError(f"unknown table value {value!r}")


def format_table(rows, streams, value="accuracy"):
    """A plain-text table, one row per model, one column per stream.

    ``value``: ``"accuracy"`` (mean ± std over seeds, in %), ``"throughput"`` (examples/s),
    ``"speed"`` (throughput ÷ River's AdaBoost on the same stream), ``"overhead"`` (share of
    time spent outside the weak learners) or ``"updates"`` (share of example-learner pairs
    that updated a weak learner; the rest were skipped: weight 0, thinned or not sampled).
    """
    models = list(dict.fromkeys(m for m, _ in rows))
    width = max(len(m) for m in models) + 2
    header = f"{'model':<{width}}" + "".join(f"{s:>16}" for s in streams)
    lines = [header, "-" * len(header)]
    for m in models:
        cells = [_cell(rows[m, s], value) if (m, s) in rows else "-" for s in streams]
        lines.append(f"{m:<{width}}" + "".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)
