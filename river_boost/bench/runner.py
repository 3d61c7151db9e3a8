"""Runs: one (stream, model, seed) prequentially, timed, and grids of them, cached and
fanned out over processes (joblib or Dask)."""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import pathlib
import pickle
import random
import time

from river import ensemble, metrics, tree

from .. import engine, martingale
from ..booster import Booster
from ..metrics import AveragePrecision, OneError, RankLoss
from .registry import OSBOOST_FAMILIES, REGISTRY, ModelSpec, build, learners_of, runs_on
from .streams import stream_examples, task_of

# ----------------------------------------------------------------------------- timing


class _Timed:
    """Forwards to ``inner`` (a River classifier, or a pool's learners), adding the time spent
    in its hot methods to ``clock``; its clones and copies share the clock (for boosters that
    create learners on the fly, such as the martingale booster's nodes)."""

    def __init__(self, inner, clock: list):
        self._inner = inner
        self._clock = clock

    def _time(self, method, *args, **kwargs):
        t = time.perf_counter()
        out = getattr(self._inner, method)(*args, **kwargs)
        self._clock[0] += time.perf_counter() - t
        return out

    def clone(self, *args, **kwargs):
        return _Timed(self._inner.clone(*args, **kwargs), self._clock)

    def __deepcopy__(self, memo):  # River's clone deep-copies parameters: keep the clock
        return _Timed(copy.deepcopy(self._inner, memo), self._clock)

    def __getattr__(self, name):
        if name in ("_inner", "_clock") or name.startswith("__"):
            raise AttributeError(name)  # not set yet (copying, unpickling): no recursion
        return getattr(self._inner, name)


def _timed_method(name: str):
    def method(self, *args, **kwargs):
        return self._time(name, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


# the hot methods: a River classifier's, a pool's, and the compiled forest's convert-once calls
# as the martingale booster makes them
for _name in (
    "learn_one",
    "predict_proba_one",
    "predict_proba_all",
    "load",
    "predict_loaded_row",
    "learn_loaded",
):
    setattr(_Timed, _name, _timed_method(_name))
del _name


def _instrument(model, clock: list):
    """``(model, measured)``: the model with its weak learners timed, where they can be
    (``measured == "walk"``: by the compiled walk, read with ``walk.forest_seconds()``)."""
    if isinstance(model, Booster):  # the walk times its calls into the learners itself
        return model, "walk"
    if isinstance(model, martingale.MartingaleBooster):
        if model._forest is not None:
            # the nodes' trees are in one compiled forest (created with the nodes): time its
            # calls; wrapping the template would hide the tree's type and keep Python nodes
            model._forest = _Timed(model._forest, clock)
        else:
            template = model.model if model.model is not None else martingale.node_model()
            model = model.clone({"model": _Timed(template, clock)})
    elif isinstance(model, ensemble.AdaBoostClassifier):  # BOLE is a subclass
        model.data[:] = [_Timed(m, clock) for m in model.data]
    elif isinstance(model, tree.HoeffdingTreeClassifier):
        return model, True  # a single tree is all weak learner: timed as a whole
    else:  # ARF (members created lazily), anchors
        return model, False
    return model, True


# ----------------------------------------------------------------------------- runs


@dataclasses.dataclass(frozen=True)
class Protocol:
    """How a run feeds the stream to the model.

    ``n_samples`` caps the rows; ``shuffle`` shuffles them first with that seed; the first
    ``warmup`` rows are learned without being scored (a train split); with ``split`` in
    (0, 1), the scored rows' first ``split`` share and the rest are also scored separately
    (tune on the prefix, report the rest); ``label_noise`` flips each binary training label
    with that probability (seeded by stream, noise and ``noise_seed``, the run's seed by
    default), while predictions are scored against the clean label; ``extra_metrics`` names
    metrics of :data:`EXTRA_METRICS` to compute besides the main one.
    """

    n_samples: int | None = None
    split: float | None = None
    shuffle: int | None = None
    warmup: int = 0
    label_noise: float = 0.0
    noise_seed: int | None = None
    extra_metrics: tuple = ()


@dataclasses.dataclass
class RunResult:
    stream: str
    model: str
    family: str
    gamma: float | None
    seed: int
    n_models: int
    n_samples: int
    accuracy: float | None  # None on regression streams (see ``errors``)
    seconds: float
    weak_seconds: float | None  # time inside the weak learners, None if not measured
    curve: list  # (examples seen, running accuracy) at ~50 checkpoints
    # share of (example, learner) pairs that updated a weak learner; None outside river_boost
    update_share: float | None = None
    # accuracy on the prefix and on the rest of the stream (the protocol's ``split``), or None
    split_accuracy: tuple | None = None
    skipped: int = 0  # scored rows the metric has no value for (multi-label: no pair)
    extra: dict = dataclasses.field(default_factory=dict)
    nodes: int | None = None  # the martingale booster's branching-program size
    # accuracy over consecutive windows of ~1% of the stream: (examples seen, window accuracy)
    # (None on multi-label streams)
    windows: list | None = None
    replacements: int | None = None  # river_boost boosters' learner replacements (drift)
    cached: bool = False  # read from a ResultCache (its seconds are from the run that made it)
    # regression streams: prequential {"mae", "rmse", "r2"} (``accuracy`` is None there, and
    # ``curve`` the running RMSE)
    errors: dict | None = None

    @property
    def score(self) -> float:
        """The run's main number: accuracy (``1 - rank loss`` on multi-label streams), or
        RMSE on regression streams (lower is better)."""
        return self.accuracy if self.errors is None else self.errors["rmse"]

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


class _LabelSetMetric:
    """A River multi-output metric of ``predict_one``'s label set, completed with False."""

    def __init__(self, metric):
        self.metric = metric

    def update(self, y, y_pred):
        if y_pred:
            self.metric.update(y, {label: bool(y_pred.get(label, False)) for label in y})

    def get(self):
        return self.metric.get()


# name -> (metric factory, what it scores: "scores" (the ranking) or "labels" (predict_one))
EXTRA_METRICS = {
    "rank_loss": (RankLoss, "scores"),
    "one_error": (OneError, "scores"),
    "average_precision": (AveragePrecision, "scores"),
    "exact_match": (lambda: _LabelSetMetric(metrics.multioutput.ExactMatch()), "labels"),
    "micro_f1": (
        lambda: _LabelSetMetric(metrics.multioutput.MicroAverage(metrics.F1())),
        "labels",
    ),
}


def _label_scores(model, x) -> dict:
    """A multi-label model's ranking: ``score_one`` if it has one, else True probabilities."""
    if hasattr(model, "score_one"):
        return model.score_one(x)
    return {label: p.get(True, 0.0) for label, p in model.predict_proba_one(x).items()}


def run_one(
    stream: str,
    spec: ModelSpec,
    seed: int,
    n_models: int | None = 10,
    protocol: Protocol = Protocol(),
    data_dir=None,
) -> RunResult:
    """Prequential (test-then-train) run of one model on one stream, under ``protocol``
    (``n_models`` None: as :func:`learners_of` says)."""
    n_models = learners_of(spec.family, n_models)
    examples, _ = stream_examples(stream, protocol.n_samples, data_dir)
    examples = list(examples)  # generate the stream before the clock starts
    if protocol.shuffle is not None:
        random.Random(protocol.shuffle).shuffle(examples)
    warmup, scored = examples[: protocol.warmup], examples[protocol.warmup :]
    n = len(scored)
    clock = [0.0]
    model, measured = _instrument(build(spec, n_models, seed), clock)
    task = task_of(stream)
    if task == "regression":
        if protocol.split or protocol.label_noise or protocol.extra_metrics:
            raise ValueError("split, label noise and extra metrics are for classification")
        return _run_regression(stream, spec, seed, n_models, model, warmup, scored)
    ranking = task == "multilabel"
    metric = _RankAccuracy() if ranking else metrics.Accuracy()
    extra = {name: EXTRA_METRICS[name][0]() for name in protocol.extra_metrics}
    every = max(1, n // 50)
    curve = []
    window = max(1, n // 100)
    windows, hits = ([], 0) if not ranking else (None, 0)
    cut = int(protocol.split * n) if protocol.split else None
    parts = (
        (_RankAccuracy(), _RankAccuracy()) if ranking else (metrics.Accuracy(), metrics.Accuracy())
    )
    flips = None
    if protocol.label_noise:
        noise_seed = seed if protocol.noise_seed is None else protocol.noise_seed
        flips = random.Random(f"{stream}-{protocol.label_noise}-{noise_seed}")
    if measured == "walk":
        engine.set_timing(True)
    start = time.perf_counter()
    for x, y in warmup:
        model.learn_one(x, y)
    for seen, (x, y) in enumerate(scored, start=1):
        y_pred = _label_scores(model, x) if ranking else model.predict_one(x)
        metric.update(y, y_pred)
        if windows is not None:
            hits += y_pred == y
            if seen % window == 0:
                windows.append((seen, hits / window))
                hits = 0
        if cut is not None:
            parts[seen > cut].update(y, y_pred)
        if extra:
            labels = model.predict_one(x) if ranking else y_pred
            for name, m in extra.items():
                m.update(y, y_pred if EXTRA_METRICS[name][1] == "scores" else labels)
        if flips is not None and flips.random() < protocol.label_noise:
            y = not y
        model.learn_one(x, y)
        if seen % every == 0:
            curve.append((seen, metric.get()))
    seconds = time.perf_counter() - start
    if measured == "walk":
        clock[0] = engine.forest_seconds()
        engine.set_timing(False)
    if not curve or curve[-1][0] != n:
        curve.append((n, metric.get()))
    if isinstance(model, tree.HoeffdingTreeClassifier):
        clock[0] = seconds
    return RunResult(
        **_run_of(stream, spec, seed, n_models, model, n),
        accuracy=metric.get(),
        seconds=seconds,
        weak_seconds=clock[0] if measured else None,
        curve=curve,
        update_share=_update_share(model, len(examples)),
        split_accuracy=(parts[0].get(), parts[1].get()) if cut is not None else None,
        skipped=getattr(metric, "n_skipped", 0),
        extra={name: m.get() for name, m in extra.items()},
        nodes=sum(model.n_nodes) if isinstance(model, martingale.MartingaleBooster) else None,
        windows=windows,
        replacements=sum(model.replacements) if isinstance(model, Booster) else None,
    )


def _run_of(stream, spec, seed, n_models, model, n) -> dict:
    """The fields of a :class:`RunResult` that say which run it is."""
    return dict(
        stream=stream,
        model=spec.label,
        family=spec.family,
        gamma=spec.gamma,
        seed=seed,
        n_models=n_models if n_models is not None else _n_learners(model),
        n_samples=n,
    )


def _run_regression(stream, spec, seed, n_models, model, warmup, scored) -> RunResult:
    """:func:`run_one` on a regression stream: prequential MAE, RMSE and R², the curve of the
    running RMSE. A prediction of None (AMF before it learns) is not scored, as River's
    ``progressive_val_score`` does, and counted in ``skipped``."""
    n = len(scored)
    skipped = 0
    errors = {"mae": metrics.MAE(), "rmse": metrics.RMSE(), "r2": metrics.R2()}
    every = max(1, n // 50)
    curve = []
    start = time.perf_counter()
    for x, y in warmup:
        model.learn_one(x, y)
    for seen, (x, y) in enumerate(scored, start=1):
        y_pred = model.predict_one(x)
        if y_pred is None:
            skipped += 1
        else:
            for m in errors.values():
                m.update(y, y_pred)
        model.learn_one(x, y)
        if seen % every == 0:
            curve.append((seen, float(errors["rmse"].get())))
    seconds = time.perf_counter() - start
    if not curve or curve[-1][0] != n:
        curve.append((n, float(errors["rmse"].get())))
    return RunResult(
        **_run_of(stream, spec, seed, n_models, model, n),
        accuracy=None,
        seconds=seconds,
        weak_seconds=None,
        curve=curve,
        update_share=_update_share(model, len(warmup) + n),
        replacements=sum(model.replacements) if isinstance(model, Booster) else None,
        skipped=skipped,
        errors={name: float(m.get()) for name, m in errors.items()},
    )


def _n_learners(model) -> int:
    """The number of learners a booster built at its own default has (the martingale
    booster's: its levels)."""
    if isinstance(model, martingale.MartingaleBooster):
        return model.n_levels
    return getattr(model, "n_models", 1)  # a single model (a regressor entry's, say): 1


def _update_share(model, seen: int) -> float | None:
    """Share of (example, learner) pairs that updated a weak learner."""
    if not seen:
        return None
    if isinstance(model, martingale.MartingaleBooster):
        return sum(model.level_visits) / (seen * model.n_levels)
    if isinstance(model, Booster):
        return sum(model.learner_updates) / (seen * model.n_models)
    return None


def grid(streams, models, gammas, seeds, osboost_gammas=None):
    """All (stream, spec, seed) runs, the γ grid expanded for the models that take one."""
    specs = []
    for family in models:
        entry = REGISTRY[family]
        if "gamma" in entry.takes:
            own = osboost_gammas if (family in OSBOOST_FAMILIES and osboost_gammas) else None
            own = own or entry.gammas
            specs += [ModelSpec(family, g) for g in (own or gammas)]
        else:
            specs.append(ModelSpec(family))
    return [
        (s, spec, seed)
        for s in streams
        for spec in specs
        if runs_on(spec.family, s)
        for seed in seeds
    ]


def tuning_grid(
    streams, models, gammas, n_models_list, learning_rates, seeds, split=0.8, n_samples=None
):
    """Every configuration to try: (stream, spec, seed, n_models, protocol) runs, on the
    first ``n_samples`` examples of each stream (None: the stream's length)."""
    protocol = Protocol(n_samples=n_samples, split=split)
    runs = []
    for family in models:
        takes = REGISTRY[family].takes
        ns = n_models_list[:1] if REGISTRY[family].kind == "baseline" else n_models_list
        gs = gammas if "gamma" in takes else [None]
        lrs = learning_rates if (learning_rates and "learning_rate" in takes) else [None]
        for s in streams:
            if not runs_on(family, s):
                continue
            for g in gs:
                for lr in lrs:
                    for n in ns:
                        runs += [(s, ModelSpec(family, g, lr), seed, n, protocol) for seed in seeds]
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


#: the bench's modules a cached run depends on (the streams, the models, the runs)
_RUN_CODE = ("streams.py", "registry.py", "runner.py")


class ResultCache:
    """Results of River's own models (the ``baseline`` entries: a single Hoeffding tree,
    River's AdaBoost, BOLE, ARF and ClassifierChain), kept on disk between invocations.

    Those runs are deterministic (seeded) and do not depend on this library's boosters, but
    they are most of the default bench's time (River's AdaBoost, BOLE and ARF: about 60% of
    its CPU seconds). A run is read back only for the same stream, model, seed, number of
    models, protocol and data folder, under the same versions of river_boost, River, NumPy
    and Python and the same code of the bench's streams, models and runs (``streams.py``,
    ``registry.py``, this module); anything else, or ``--no-cache``, runs it again.
    Results read back keep their original ``seconds`` and say so (``RunResult.cached``).
    """

    def __init__(self, folder):
        import hashlib
        import platform

        import numpy
        import river

        from .. import __version__

        self.folder = pathlib.Path(folder)
        self.hits = 0
        # what every key also depends on: the versions and the code that makes a run
        here = pathlib.Path(__file__).parent
        code = hashlib.sha256(
            b"".join((here / name).read_bytes() for name in _RUN_CODE)
        ).hexdigest()
        versions = (__version__, river.__version__, numpy.__version__, platform.python_version())
        self._salt = repr((versions, code))

    @staticmethod
    def default_folder() -> pathlib.Path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return pathlib.Path(base) / "river-boost" / "bench"

    @staticmethod
    def cacheable(call) -> bool:
        return REGISTRY[call[1].family].kind == "baseline"

    def _path(self, call) -> pathlib.Path:
        import hashlib

        key = repr((call, self._salt)).encode()
        return self.folder / (hashlib.sha256(key).hexdigest()[:32] + ".pkl")

    def get(self, call) -> RunResult | None:
        try:
            with open(self._path(call), "rb") as f:
                result = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None  # absent, unreadable or from another layout: run it again
        if not isinstance(result, RunResult):
            return None
        self.hits += 1
        result.cached = True
        return result

    def put(self, call, result: RunResult) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self._path(call)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                pickle.dump(result, f)
            os.replace(tmp, path)  # atomic: a parallel run never reads half a file
        except OSError:
            pass  # a read-only or full disk only costs the next run its time


def run_grid(
    runs,
    n_models=10,
    protocol: Protocol = Protocol(),
    jobs=1,
    progress=None,
    backend="joblib",
    scheduler=None,
    data_dir=None,
    cache: ResultCache | None = None,
):
    """Run every (stream, spec, seed[, n_models[, protocol]]) in ``runs``; ``progress(result)``
    after each one. With a ``cache`` (:class:`ResultCache`), River's own models are read from
    it when they ran before under the same conditions, and stored after they run.

    Runs are independent and seeded, so the backend only changes where they run, never their
    results (returned in the order of ``runs``):

    - ``"joblib"``: in this process if ``jobs <= 1``, else in ``jobs`` local worker processes;
    - ``"dask"``: on a ``dask.distributed`` cluster: ``scheduler`` is its address (or a
      ``Client``/cluster object); ``None`` starts a local cluster of ``jobs`` workers.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    calls = [
        (
            *run[:3],
            learners_of(run[1].family, run[3] if len(run) > 3 else n_models),
            run[4] if len(run) > 4 else protocol,
            None if data_dir is None else str(data_dir),
        )
        for run in runs
    ]
    results = [None] * len(calls)
    todo = list(range(len(calls)))
    if cache is not None:
        todo = []
        for i, call in enumerate(calls):
            found = cache.get(call) if cache.cacheable(call) else None
            if found is None:
                todo.append(i)
            else:
                results[i] = found
                if progress:
                    progress(found)
    pending = [calls[i] for i in todo]
    if backend == "dask":
        finished = _run_dask(pending, jobs, scheduler)
    elif jobs <= 1:
        finished = (run_one(*call) for call in pending)
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
        finished = parallel(delayed(_run_indexed)(i, call) for i, call in enumerate(pending))
    for j, r in enumerate(finished):
        if isinstance(r, tuple):
            j, r = r
        i = todo[j]
        results[i] = r
        if cache is not None and cache.cacheable(calls[i]):
            cache.put(calls[i], r)
        if progress:
            progress(r)
    return results


def _run_indexed(i, call):
    return i, run_one(*call)


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
    """Yield ``(index, result)`` as a Dask cluster finishes runs (the ``dask`` extra)."""
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
        futures = [client.submit(_run_indexed, i, call, pure=False) for i, call in enumerate(calls)]
        for future in as_completed(futures):
            yield future.result()
    finally:
        if client is not scheduler:
            client.close()
        if own_cluster is not None:
            own_cluster.close()
