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
import functools
import itertools
import math
import statistics
import time
from collections.abc import Callable, Iterable

from river import ensemble, forest, metrics, multioutput, tree
from river.datasets import Bananas, ImageSegments, Phishing, Yeast, synth

from . import anchors, binary, loaders, martingale, multiclass, multilabel
from .booster import Booster
from .metrics import RankLoss

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
    # multi-label (14 labels); the first 800 of 2,417 rows keep the default run short
    "yeast": (Yeast, 800, "multilabel"),
}
DEFAULT_STREAMS = ["phishing", "bananas", "agrawal", "sea", "hyperplane", "imagesegments", "yeast"]


def task_of(stream: str) -> str:
    if stream in STREAMS:
        return STREAMS[stream][2]
    return loaders.PAPER_SETS[stream][0]


def stream_examples(name: str, n_samples: int | None = None, data_dir=None):
    """``(examples, n)``: River's bundled / synthetic streams by name, or one of the papers'
    sets (``loaders.PAPER_SETS``) read from ``data_dir``."""
    if name in STREAMS:
        factory, length, _ = STREAMS[name]
    elif data_dir is not None:
        length = loaders.PAPER_SETS[name][2]
        factory = functools.partial(loaders.paper_set, name, data_dir)
    else:
        raise ValueError(f"stream {name!r} is one of the papers' sets: give --data-dir")
    n = length if n_samples is None else min(n_samples, length)
    return itertools.islice(factory(), n), n


# ----------------------------------------------------------------------------- models


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """How to build a model: ``family`` names the algorithm, ``gamma`` its edge if any,
    ``learning_rate`` its learning-rate constant if not the family's default."""

    family: str
    gamma: float | None = None
    learning_rate: float | None = None

    @property
    def label(self) -> str:
        params = []
        if self.gamma is not None:
            params.append(f"γ={self.gamma:g}")
        if self.learning_rate is not None:
            params.append(f"lr={self.learning_rate:g}")
        return f"{self.family}({', '.join(params)})" if params else self.family


def _ht():
    return tree.HoeffdingTreeClassifier()


def _mc_ht():
    return tree.HoeffdingTreeClassifier(leaf_prediction="mc")


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
    "River.ClassifierChain": lambda n, seed, gamma: multioutput.ClassifierChain(_ht()),
    # Multi-label boosters with majority-class-leaf trees (diversified as usual): one update
    # per relevant label makes River's NB-adaptive leaves 4-5x slower on Yeast for the same
    # rank loss (multilabel.AdaOLMR's docstring has the caveat for undiversified trees).
    "AdaOLMR": lambda n, seed, gamma: multilabel.AdaOLMR(model=_mc_ht(), n_models=n, seed=seed),
    "OnlineBMR": lambda n, seed, gamma: multilabel.OnlineBMR(
        model=_mc_ht(), n_models=n, gamma=gamma, seed=seed
    ),
    "OnlineMBBM": lambda n, seed, gamma: multiclass.OnlineMBBM(
        n_models=n, gamma=gamma, seed=seed
    ),
}
DEFAULT_MODELS = list(MODELS)
# Outside anchors (Vowpal Wabbit, MOA via capymoa), run only where their library is installed.
MODELS.update({name: factory for name, (_, factory) in anchors.ANCHORS.items()})
DEFAULT_MODELS += [name for name, (lib, _) in anchors.ANCHORS.items() if anchors.available(lib)]
# Which tasks each model family runs on (River's ensembles and the tree do both).
TASKS = {
    "OnlineBBM": {"binary"},
    "AdaBoost.OL": {"binary"},
    "AdaBoost.OL.S": {"binary"},
    "OSBoost": {"binary"},
    "NHBoostDT": {"binary"},
    "SquintBoost": {"binary"},
    "MartingaleBooster": {"binary"},
    **{name: {"binary"} for name in anchors.ANCHORS},
    "AdaBoost.OLM": {"multiclass"},
    "River.ClassifierChain": {"multilabel"},
    "AdaOLMR": {"multilabel"},
    "OnlineBMR": {"multilabel"},
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
    "OnlineBBM", "OSBoost", "OnlineMBBM", "OnlineBMR", "OnlineBBM[no-diversify]",
    "OnlineBBM[min_weight=0]",
}  # fmt: skip


def usable_models(models):
    """``models`` without the anchors whose library is missing, and a notice for each."""
    keep, notices = [], []
    for name in models:
        if name in anchors.ANCHORS and not anchors.available(anchors.ANCHORS[name][0]):
            notices.append(anchors.missing_notice(name))
        else:
            keep.append(name)
    return keep, notices


def runs_on(family: str, stream: str) -> bool:
    return task_of(stream) in TASKS.get(family, {"binary", "multiclass"})
DEFAULT_GAMMAS = (0.05, 0.1, 0.2, 0.3)
OSBOOST_GAMMA = 0.1  # the baseline is run at one edge unless --gammas-osboost is given


TAKES_LEARNING_RATE = {"AdaBoost.OL", "AdaBoost.OL.S", "AdaBoost.OLM"}


def build(spec: ModelSpec, n_models: int, seed: int):
    model = MODELS[spec.family](n_models, seed, spec.gamma)
    if spec.learning_rate is not None:
        model = model.clone({"learning_rate": spec.learning_rate})
    return model


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
    if isinstance(model, Booster):
        members = model.pool.learners.models
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
    # accuracy on the prefix and on the rest of the stream (run_one's ``split``), or None
    split_accuracy: tuple | None = None

    @property
    def throughput(self) -> float:
        return self.n_samples / self.seconds if self.seconds > 0 else math.inf

    @property
    def overhead_share(self) -> float | None:
        """Share of the run's time spent outside the weak learners (booster overhead)."""
        if self.weak_seconds is None or self.seconds <= 0:
            return None
        return max(0.0, 1.0 - self.weak_seconds / self.seconds)


class _RankAccuracy(RankLoss):
    """``1 - rank loss``: what the bench reports on multi-label streams (higher is better,
    like accuracy on the others)."""

    def get(self):
        return 1.0 - super().get()


def _label_scores(model, x) -> dict:
    """A multi-label model's ranking: ``score_one`` if it has one, else True probabilities."""
    if hasattr(model, "score_one"):
        return model.score_one(x)
    return {label: p.get(True, 0.0) for label, p in model.predict_proba_one(x).items()}


def run_one(
    stream: str,
    spec: ModelSpec,
    seed: int,
    n_models: int = 10,
    n_samples=None,
    split=None,
    data_dir=None,
):
    """Prequential (test-then-train) run of one model on one stream.

    With ``split`` in (0, 1), also the accuracy on the first ``split`` share of the stream and
    on the rest, separately (the papers' tune-on-the-prefix protocol).
    """
    examples, n = stream_examples(stream, n_samples, data_dir)
    examples = list(examples)  # generate the stream before the clock starts
    n = len(examples)
    model = build(spec, n_models, seed)
    clock = [0.0]
    measured = _instrument(model, clock)
    ranking = task_of(stream) == "multilabel"
    metric = _RankAccuracy() if ranking else metrics.Accuracy()
    every = max(1, n // 50)
    curve = []
    seen = 0
    cut = int(split * n) if split else None
    parts = (_RankAccuracy(), _RankAccuracy()) if ranking else (metrics.Accuracy(), metrics.Accuracy())
    start = time.perf_counter()
    for x, y in examples:
        y_pred = _label_scores(model, x) if ranking else model.predict_one(x)
        metric.update(y, y_pred)
        if cut is not None:
            parts[seen >= cut].update(y, y_pred)
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
    elif isinstance(model, Booster) and seen:
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
        split_accuracy=(parts[0].get(), parts[1].get()) if cut is not None else None,
    )


def grid(streams, models, gammas, seeds, osboost_gammas=(OSBOOST_GAMMA,)):
    """All (stream, spec, seed) runs, γ-grid expanded for the boosters that take one."""
    specs = []
    for family in models:
        if family.startswith(("OnlineBBM", "OnlineMBBM", "OnlineBMR")):
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


def tuning_grid(streams, models, gammas, n_models_list, learning_rates, seeds, split=0.8):
    """Every configuration to try: (stream, spec, seed, n_models, split) runs."""
    runs = []
    for family in models:
        ns = n_models_list[:1] if family == "HoeffdingTree" else n_models_list
        gs = gammas if family in TAKES_GAMMA else [None]
        lrs = learning_rates if (learning_rates and family in TAKES_LEARNING_RATE) else [None]
        for s in streams:
            if not runs_on(family, s):
                continue
            for g in gs:
                for lr in lrs:
                    for n in ns:
                        runs += [(s, ModelSpec(family, g, lr), seed, n, split) for seed in seeds]
    return runs


def pick_tuned(results):
    """Per (family, stream, seed): the configuration with the best prefix accuracy, and its
    accuracy on the rest of the stream. Returns {(family, stream): [chosen RunResult, ...]}."""
    best = {}
    for r in results:
        key = (r.family, r.stream, r.seed)
        if key not in best or r.split_accuracy[0] > best[key].split_accuracy[0]:
            best[key] = r
    chosen = {}
    for (family, stream, _), r in best.items():
        chosen.setdefault((family, stream), []).append(r)
    return chosen


BACKENDS = ("joblib", "dask")


def run_grid(
    runs,
    n_models=10,
    n_samples=None,
    jobs=1,
    progress=None,
    backend="joblib",
    scheduler=None,
    data_dir=None,
):
    """Run every (stream, spec, seed) in ``runs``; ``progress(result)`` after each one.

    Runs are independent and seeded, so the backend only changes where they run, never their
    results (returned in the order of ``runs``):

    - ``"joblib"``: in this process if ``jobs <= 1``, else in ``jobs`` local worker processes;
    - ``"dask"``: on a ``dask.distributed`` cluster: ``scheduler`` is its address (or a
      ``Client``/cluster object); ``None`` starts a local cluster of ``jobs`` workers.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    # a run may carry its own number of learners and prefix split: (stream, spec, seed, n, split)
    calls = [
        (
            *run[:3],
            run[3] if len(run) > 3 else n_models,
            n_samples,
            run[4] if len(run) > 4 else None,
            None if data_dir is None else str(data_dir),
        )
        for run in runs
    ]
    if backend == "dask":
        finished = _run_dask(calls, jobs, scheduler)
    elif jobs <= 1:
        finished = (run_one(*call) for call in calls)
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
        finished = parallel(delayed(run_one)(*call) for call in calls)
    results = []
    for r in finished:
        results.append(r)
        if progress:
            progress(r)
    order = {(c[0], c[1].label, c[2], c[3]): i for i, c in enumerate(calls)}
    results.sort(key=lambda r: order[(r.stream, r.model, r.seed, r.n_models)])
    return results


def check_dask(scheduler=None) -> None:
    """Fail fast (``RuntimeError``, one line) if the dask backend cannot run: the extra is
    missing or the scheduler at ``scheduler`` does not answer."""
    try:
        from distributed import Client
    except ImportError as exc:
        raise RuntimeError(
            "the dask backend needs dask.distributed: pip install 'river-boost[dask]'"
        ) from exc
    if isinstance(scheduler, str):
        try:
            Client(scheduler, timeout="5s").close()
        except OSError as exc:
            raise RuntimeError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc


def _run_dask(calls, jobs, scheduler):
    """Yield results as a Dask cluster finishes them (``pip install river-boost[dask]``)."""
    check_dask()
    from distributed import Client, LocalCluster, as_completed

    own_cluster = None
    if scheduler is None:
        own_cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True)
        client = Client(own_cluster)
    elif isinstance(scheduler, Client):
        client = scheduler
    elif isinstance(scheduler, str):
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise RuntimeError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    else:  # a cluster object
        client = Client(scheduler)
    try:
        # pure=False: identical calls are still separate runs (their results are equal anyway)
        futures = [client.submit(run_one, *call, pure=False) for call in calls]
        for future in as_completed(futures):
            yield future.result()
    finally:
        if client is not scheduler:
            client.close()
        if own_cluster is not None:
            own_cluster.close()


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
