"""Prequential comparisons of the boosters against River's own ensembles.

A *run* is one (stream, model, seed): the model predicts each example, is scored, then learns
it, exactly as :func:`river.evaluate.progressive_val_score`; a :class:`Protocol` can shuffle
the rows, learn a prefix without scoring it (a train split), flip training labels, or score
the prefix and the rest separately (the papers' protocols). Each run records the final
accuracy (``1 - rank loss`` on multi-label streams), an accuracy curve, the wall time, and
the time spent inside the weak learners, from which the booster's own overhead share follows.

Every model the bench knows is one :class:`Entry` of :data:`REGISTRY`: a factory, the tasks
it runs on, the grid parameters it takes, and whether it is an outside anchor or an ablation.
Runs are independent, so they are fanned out over processes. Every number that is not a
timing depends only on (stream, model, seed, protocol): serial and parallel runs agree.

"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import math
import os
import pathlib
import pickle
import random
import statistics
import time
from collections.abc import Callable, Iterable

from river import drift, ensemble, forest, metrics, multioutput, tree
from river.datasets import Bananas, ImageSegments, Phishing, Yeast, synth

from .. import binary, core, engine, martingale, multiclass, multilabel
from ..booster import Booster
from ..metrics import AveragePrecision, OneError, RankLoss
from . import anchors, loaders

__all__ = [
    "STREAMS",
    "REGISTRY",
    "Entry",
    "ModelSpec",
    "Protocol",
    "RunResult",
    "run_one",
    "run_grid",
    "summarize",
    "format_table",
    "mean_ranks",
    "drift_gains",
    "DRIFT_STREAMS",
    "DRIFT_MODELS",
]


# ----------------------------------------------------------------------------- streams

# name -> (factory returning an iterable of (x, y), default number of examples, task)
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

# ----------------------------------------------------------------------------- drifting streams

DRIFT_LENGTH = 50_000
# Abrupt and gradual streams change concept at these examples (a sigmoid ``ABRUPT_WIDTH`` or
# ``GRADUAL_WIDTH`` wide, River's ConceptDriftStream, whose sigmoid overflows below a width of
# about 4 × 12,500 / 709); RandomRBF and Hyperplane drift all along.
DRIFT_POSITIONS = (12_500, 25_000, 37_500)
ABRUPT_WIDTH = 100
GRADUAL_WIDTH = 2_500


def _chain(concepts, width: int, seed: int):
    """River's ``ConceptDriftStream`` nested: concept ``j`` takes over at
    ``DRIFT_POSITIONS[j - 1]`` (each nested stream counts its own examples)."""
    stream = concepts[-1]
    gaps = [b - a for a, b in zip((0, *DRIFT_POSITIONS), DRIFT_POSITIONS)]
    for j in range(len(concepts) - 2, -1, -1):
        stream = synth.ConceptDriftStream(
            concepts[j], stream, position=gaps[j], width=width, seed=seed + j
        )
    return stream


def _agrawal(width):  # classification functions 1, 3, 5, 7 (River's 0, 2, 4, 6)
    return lambda: _chain(
        [synth.Agrawal(classification_function=f, seed=42 + f) for f in (0, 2, 4, 6)], width, 7
    )


def _sea(width):  # SEA's four thresholds in turn, 10% label noise
    return lambda: _chain(
        [synth.SEA(variant=v, noise=0.1, seed=42 + v) for v in (0, 1, 2, 3)], width, 11
    )


def _led(width):  # 24 attributes (17 irrelevant), a different set of swapped ones per concept
    return lambda: _chain(
        [
            synth.LEDDrift(
                seed=42 + d, noise_percentage=0.1, irrelevant_features=True, n_drift_features=d
            )
            for d in (1, 3, 5, 7)
        ],
        width,
        13,
    )


def _rbf(speed):  # 5 classes, 10 features, 50 centroids all moving at ``speed``
    return lambda: synth.RandomRBFDrift(
        seed_model=42, seed_sample=42, n_classes=5, n_features=10, change_speed=speed
    )


DRIFT_STREAMS: dict[str, tuple[Callable[[], Iterable], int, str]] = {
    "agrawal_abrupt": (_agrawal(ABRUPT_WIDTH), DRIFT_LENGTH, "binary"),
    "agrawal_gradual": (_agrawal(GRADUAL_WIDTH), DRIFT_LENGTH, "binary"),
    "sea_abrupt": (_sea(ABRUPT_WIDTH), DRIFT_LENGTH, "binary"),
    "sea_gradual": (_sea(GRADUAL_WIDTH), DRIFT_LENGTH, "binary"),
    "hyperplane_rotating": (
        lambda: synth.Hyperplane(seed=42, n_features=10, n_drift_features=5, mag_change=0.001),
        DRIFT_LENGTH,
        "binary",
    ),
    "rbf_moderate": (_rbf(0.0001), DRIFT_LENGTH, "multiclass"),
    "rbf_fast": (_rbf(0.001), DRIFT_LENGTH, "multiclass"),
    "led_abrupt": (_led(ABRUPT_WIDTH), DRIFT_LENGTH, "multiclass"),
    "led_gradual": (_led(GRADUAL_WIDTH), DRIFT_LENGTH, "multiclass"),
}
STREAMS.update(DRIFT_STREAMS)


def drift_points(stream: str) -> tuple:
    """Where a drift suite stream changes concept (empty for the streams that drift all
    along, and for the stationary streams)."""
    if stream in DRIFT_STREAMS and stream.endswith(("_abrupt", "_gradual")):
        return DRIFT_POSITIONS
    return ()


def task_of(stream: str) -> str:
    if stream in STREAMS:
        return STREAMS[stream][2]
    return loaders.PAPER_SETS[stream].task


def stream_examples(name: str, n_samples: int | None = None, data_dir=None):
    """``(examples, n)``: River's bundled / synthetic streams by name, or one of the papers'
    sets (``loaders.PAPER_SETS``) read from ``data_dir``; the first ``n_samples`` examples
    (default: the stream's default length; a data set may end sooner)."""
    if name in STREAMS:
        factory, length, _ = STREAMS[name]
    elif data_dir is not None:
        length = loaders.PAPER_SETS[name].rows
        factory = functools.partial(loaders.paper_set, name, data_dir)
    else:
        raise ValueError(f"stream {name!r} is one of the papers' sets: give --data-dir")
    n = length if n_samples is None else n_samples
    return itertools.islice(factory(), n), n


# ----------------------------------------------------------------------------- models


@dataclasses.dataclass(frozen=True)
class Entry:
    """A model the bench can run.

    ``factory(n_models, seed, **grid)`` builds it, ``grid`` holding the values of the grid
    parameters it ``takes`` (``"gamma"``, ``"learning_rate"``); ``gammas`` is its own edge grid
    when it should not follow the run's (OSBoost and OSBoost.OCP, the papers' baselines, run
    at one edge);
    ``kind`` is ``"baseline"`` (River), ``"booster"``, ``"anchor"`` (outside libraries,
    skipped unless ``library`` is installed), ``"ablation"`` (a variant behind a documented
    default, run only when asked for), ``"drift"`` (a booster with drift adaptation) or
    ``"drift-anchor"`` (River's drift-adaptive ensembles): the last two run in the drift
    suite (:data:`DRIFT_MODELS`) or when asked for.
    """

    factory: Callable
    tasks: frozenset
    takes: tuple = ()
    kind: str = "booster"
    gammas: tuple | None = None
    library: str | None = None

    @property
    def in_default_run(self) -> bool:
        if self.kind in ("ablation", "drift", "drift-anchor"):
            return False
        return self.library is None or anchors.available(self.library)


BINARY, MULTICLASS, MULTILABEL = (frozenset({t}) for t in ("binary", "multiclass", "multilabel"))
CLASSIFICATION = BINARY | MULTICLASS
GAMMA, LEARNING_RATE = ("gamma",), ("learning_rate",)
OSBOOST_GAMMA = 0.1  # the baselines are run at one edge unless --osboost-gammas is given
OSBOOST_FAMILIES = ("OSBoost", "OSBoost.OCP")  # the papers' baselines (--osboost-gammas)


def _ht():
    return tree.HoeffdingTreeClassifier()


def _mc_ht():
    # the boosters' default weak learner (its bounded size included), majority-class leaves
    return core.default_model().clone({"leaf_prediction": "mc"})


def _make(cls, **fixed):
    """A factory ``(n_models, seed, **grid)`` of ``cls`` (``n_models`` None: the class's own
    default); ``fixed`` parameters that are callables are called for every model (fresh
    weak-learner templates)."""

    def build(n, seed, **grid):
        params = {k: v() if callable(v) else v for k, v in fixed.items()}
        if n is not None:
            params["n_models"] = n
        return cls(seed=seed, **params, **grid)

    return build


def _martingale(n, seed, **params):  # n_models is the number of levels (one node per level)
    if n is not None:
        params["n_levels"] = n
    return martingale.MartingaleBooster(seed=seed, **params)


#: the entries that are river_boost's boosters: with ``n_models=None`` (``river-boost bench
#: --n-models default``) each runs at its own default number of learners, and every other
#: model (River's ensembles, the outside anchors) at :data:`OTHER_N_MODELS`
OWN_KINDS = ("booster", "ablation", "drift")
OTHER_N_MODELS = 10


def learners_of(family: str, n_models: int | None) -> int | None:
    """How many learners a run of ``family`` is built with: ``n_models``; for ``None``, the
    booster's own default (``None``) or, for any other model, :data:`OTHER_N_MODELS`."""
    if n_models is not None:
        return n_models
    entry = REGISTRY.get(family)
    return None if entry is not None and entry.kind in OWN_KINDS else OTHER_N_MODELS


REGISTRY: dict[str, Entry] = {
    # River's baselines
    "HoeffdingTree": Entry(lambda n, seed: _ht(), CLASSIFICATION, kind="baseline"),
    "River.AdaBoost": Entry(
        _make(ensemble.AdaBoostClassifier, model=_ht), CLASSIFICATION, kind="baseline"
    ),
    "River.BOLE": Entry(_make(ensemble.BOLEClassifier, model=_ht), CLASSIFICATION, kind="baseline"),
    "River.ARF": Entry(_make(forest.ARFClassifier), CLASSIFICATION, kind="baseline"),
    # River's drift-adaptive ensembles (the drift suite's anchors; SRP over Hoeffding trees)
    "River.ADWINBoosting": Entry(
        _make(ensemble.ADWINBoostingClassifier, model=_ht), CLASSIFICATION, kind="drift-anchor"
    ),
    "River.SRP": Entry(
        _make(ensemble.SRPClassifier, model=_ht), CLASSIFICATION, kind="drift-anchor"
    ),
    # river_boost
    "OnlineBBM": Entry(_make(binary.OnlineBBM), BINARY, GAMMA),
    "AdaBoost.OL": Entry(_make(binary.AdaBoostOL), BINARY, LEARNING_RATE),
    "AdaBoost.OL.S": Entry(_make(binary.AdaBoostOL, weighting="sampling"), BINARY, LEARNING_RATE),
    "OSBoost": Entry(_make(binary.OSBoost), BINARY, GAMMA, gammas=(OSBOOST_GAMMA,)),
    "OSBoost.OCP": Entry(
        _make(binary.OSBoostOCP), BINARY, GAMMA + LEARNING_RATE, gammas=(OSBOOST_GAMMA,)
    ),
    "NHBoostDT": Entry(_make(binary.NHBoostDT), BINARY),
    "SquintBoost": Entry(_make(binary.SquintBoost), BINARY),
    "MartingaleBooster": Entry(_martingale, BINARY),
    "AdaBoost.OLM": Entry(_make(multiclass.AdaBoostOLM), MULTICLASS, LEARNING_RATE),
    "River.ClassifierChain": Entry(
        lambda n, seed: multioutput.ClassifierChain(_ht()), MULTILABEL, kind="baseline"
    ),
    # Multi-label boosters with majority-class-leaf trees (diversified as usual): one update
    # per relevant label makes River's NB-adaptive leaves 4-5x slower on Yeast for the same
    # rank loss (multilabel.AdaOLMR's docstring has the caveat for undiversified trees).
    "AdaOLMR": Entry(_make(multilabel.AdaOLMR, model=_mc_ht), MULTILABEL),
    "OnlineBMR": Entry(_make(multilabel.OnlineBMR, model=_mc_ht), MULTILABEL, GAMMA),
    "OnlineMBBM": Entry(_make(multiclass.OnlineMBBM), MULTICLASS, GAMMA),
    # outside anchors (Vowpal Wabbit, MOA via capymoa), run only where their library is installed
    **{
        name: Entry(factory, BINARY, kind="anchor", library=library)
        for name, (library, factory) in anchors.ANCHORS.items()
    },
    # drift adaptation on (the drift suite, river_boost.adaptation; not in the default run)
    **{
        f"{name}+drift": Entry(
            _make(cls, drift_detector=drift.ADWIN, **fixed),
            tasks,
            takes,
            "drift",
            gammas=(OSBOOST_GAMMA,) if "gamma" in takes else None,
        )
        for name, cls, tasks, takes, fixed in (
            ("OnlineBBM", binary.OnlineBBM, BINARY, GAMMA, {}),
            ("AdaBoost.OL", binary.AdaBoostOL, BINARY, (), {}),
            ("OSBoost", binary.OSBoost, BINARY, GAMMA, {}),
            ("OSBoost.OCP", binary.OSBoostOCP, BINARY, GAMMA, {}),
            ("NHBoostDT", binary.NHBoostDT, BINARY, (), {}),
            ("SquintBoost", binary.SquintBoost, BINARY, (), {}),
            ("AdaBoost.OLM", multiclass.AdaBoostOLM, MULTICLASS, (), {}),
            ("OnlineMBBM", multiclass.OnlineMBBM, MULTICLASS, GAMMA, {}),
            ("AdaOLMR", multilabel.AdaOLMR, MULTILABEL, (), {"model": _mc_ht}),
            ("OnlineBMR", multilabel.OnlineBMR, MULTILABEL, GAMMA, {"model": _mc_ht}),
        )
    },
    # variants behind the documented defaults (not run unless asked for with --models)
    "AdaBoost.OL[vote]": Entry(
        _make(binary.AdaBoostOL, prediction="vote"), BINARY, kind="ablation"
    ),
    "AdaBoost.OL[random]": Entry(
        _make(binary.AdaBoostOL, prediction="random"), BINARY, kind="ablation"
    ),
    "AdaBoost.OL[no-diversify]": Entry(
        _make(binary.AdaBoostOL, diversify=False), BINARY, kind="ablation"
    ),
    "AdaBoost.OL[min_weight=0]": Entry(
        _make(binary.AdaBoostOL, min_weight=0.0), BINARY, kind="ablation"
    ),
    "OnlineBBM[no-diversify]": Entry(
        _make(binary.OnlineBBM, diversify=False), BINARY, GAMMA, "ablation"
    ),
    "OnlineBBM[min_weight=0]": Entry(
        _make(binary.OnlineBBM, min_weight=0.0), BINARY, GAMMA, "ablation"
    ),
    # OSBoostOCP's own chain alone, without the deep chain of its default (deep_scale=12),
    # without and with drift adaptation
    "OSBoost.OCP[deep_scale=1]": Entry(
        _make(binary.OSBoostOCP, deep_scale=1.0),
        BINARY,
        GAMMA,
        "ablation",
        gammas=(OSBOOST_GAMMA,),
    ),
    "OSBoost.OCP+drift[deep_scale=1]": Entry(
        _make(binary.OSBoostOCP, deep_scale=1.0, drift_detector=drift.ADWIN),
        BINARY,
        GAMMA,
        "ablation",
        gammas=(OSBOOST_GAMMA,),
    ),
    # AdaBoostOLM with a deep chain (an option there: it halves the throughput)
    "AdaBoost.OLM[deep_scale=12]": Entry(
        _make(multiclass.AdaBoostOLM, deep_scale=12.0), MULTICLASS, kind="ablation"
    ),
    "AdaBoost.OLM+drift[deep_scale=12]": Entry(
        _make(multiclass.AdaBoostOLM, deep_scale=12.0, drift_detector=drift.ADWIN),
        MULTICLASS,
        kind="ablation",
    ),
}
DEFAULT_MODELS = [
    name
    for name, entry in REGISTRY.items()
    if entry.kind not in ("ablation", "drift", "drift-anchor")
]
ABLATIONS = [name for name, entry in REGISTRY.items() if entry.kind == "ablation"]
# The drift suite (``river-boost bench --suite drift``): the boosters with and without drift
# adaptation, and the drift-adaptive ensembles of River (and MOA's, when capymoa is installed).
DRIFT_MODELS = [
    *(
        f"{name}{suffix}"
        for name in (
            "OnlineBBM",
            "AdaBoost.OL",
            "OSBoost",
            "OSBoost.OCP",
            "NHBoostDT",
            "SquintBoost",
            "AdaBoost.OLM",
            "OnlineMBBM",
        )
        for suffix in ("", "+drift")
    ),
    "River.ARF",
    "River.ADWINBoosting",
    "River.BOLE",
    "River.SRP",
    *(name for name in anchors.DRIFT_ANCHORS),
]
DRIFT_GAMMAS = (OSBOOST_GAMMA,)
DEFAULT_GAMMAS = (0.05, 0.1, 0.2, 0.3)


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """How to build a model: ``family`` names a :data:`REGISTRY` entry, ``gamma`` and
    ``learning_rate`` its grid values (None: the entry's default), ``params`` other
    constructor parameters as ``((name, value), ...)`` (applied with ``clone``), and
    ``factory`` builds a model the registry does not know (``factory(n_models, seed)``)."""

    family: str
    gamma: float | None = None
    learning_rate: float | None = None
    params: tuple = ()
    factory: Callable | None = dataclasses.field(default=None, compare=False)

    @property
    def label(self) -> str:
        params = []
        if self.gamma is not None:
            params.append(f"γ={self.gamma:g}")
        if self.learning_rate is not None:
            params.append(f"lr={self.learning_rate:g}")
        params += [f"{k}={v!r}" for k, v in self.params]
        return f"{self.family}({', '.join(params)})" if params else self.family


def build(spec: ModelSpec, n_models: int, seed: int):
    if spec.factory is not None:
        model = spec.factory(n_models, seed)
    else:
        grid = {}
        if spec.gamma is not None:
            grid["gamma"] = spec.gamma
        if spec.learning_rate is not None:
            grid["learning_rate"] = spec.learning_rate
        model = REGISTRY[spec.family].factory(n_models, seed, **grid)
    return model.clone(dict(spec.params)) if spec.params else model


def runs_on(family: str, stream: str) -> bool:
    entry = REGISTRY.get(family)
    return entry is None or task_of(stream) in entry.tasks


def missing_library(name: str) -> str | None:
    """The library model ``name`` needs and that is not installed, or None."""
    library = REGISTRY[name].library
    if library is None or anchors.available(library):
        return None
    return library


def usable_models(models):
    """``models`` without the anchors whose library is missing, and a notice for each."""
    keep, notices = [], []
    for name in models:
        if missing_library(name) is not None:
            notices.append(anchors.missing_notice(name))
        else:
            keep.append(name)
    return keep, notices


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
    accuracy: float
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
    ranking = task_of(stream) == "multilabel"
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
        stream=stream,
        model=spec.label,
        family=spec.family,
        gamma=spec.gamma,
        seed=seed,
        n_models=n_models if n_models is not None else _n_learners(model),
        n_samples=n,
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


def _n_learners(model) -> int:
    """The number of learners a booster built at its own default has (the martingale
    booster's: its levels)."""
    if isinstance(model, martingale.MartingaleBooster):
        return model.n_levels
    return model.n_models


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


class ResultCache:
    """Results of River's own models (the ``baseline`` entries: a single Hoeffding tree,
    River's AdaBoost, BOLE, ARF and ClassifierChain), kept on disk between invocations.

    Those runs are deterministic (seeded) and do not depend on this library's boosters, but
    they are most of the default bench's time (River's AdaBoost, BOLE and ARF: about 60% of
    its CPU seconds). A run is read back only for the same stream, model, seed, number of
    models, protocol and data folder, under the same versions of river_boost, River, NumPy
    and Python and the same ``bench.py``; anything else, or ``--no-cache``, runs it again.
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
        # what every key also depends on: the versions and this file's code
        code = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()
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


# ----------------------------------------------------------------------------- summaries


def mean_std(values) -> tuple:
    """Mean and sample standard deviation (0 for a single value)."""
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
        acc_mean, acc_std = mean_std(r.accuracy for r in rs)
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
            if len(cands) > 1:
                best = max(cands, key=lambda r: r["accuracy_mean"])
                rows[f"{family}(best γ)", stream] = {**best, "model": f"{family}(best γ)"}
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
    if value == "replacements":
        n = row["replacements"]
        return "-" if n is None else f"{n:g}"
    if value == "gain":
        return f"{100 * row['gain']:+.2f}"
    if value == "updates":
        share = row["update_share"]
        return "-" if share is None else f"{100 * share:.1f}%"
    raise ValueError(f"unknown table value {value!r}")


def mean_ranks(rows, streams) -> dict:
    """Each model's mean accuracy rank over the streams it ran on (1 = best on a stream; ties
    share the mean of their ranks), with the number of streams: ``{model: (rank, n)}``.
    The best-γ rows are left out (they repeat a model)."""
    ranks = {}
    for stream in streams:
        cands = [r for (m, s), r in rows.items() if s == stream and "best" not in m]
        accs = sorted((r["accuracy_mean"] for r in cands), reverse=True)
        for r in cands:
            first = accs.index(r["accuracy_mean"])
            tied = accs.count(r["accuracy_mean"])
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


def format_table(rows, streams, value="accuracy"):
    """A plain-text table, one row per model, one column per stream.

    ``value``: ``"accuracy"`` (mean ± std over seeds, in %), ``"throughput"`` (examples/s),
    ``"speed"`` (throughput ÷ River's AdaBoost on the same stream), ``"overhead"`` (share of
    time spent outside the weak learners), ``"gain"`` (:func:`drift_gains`, in points) or
    ``"updates"`` (share of example-learner pairs
    that updated a weak learner; the rest were skipped: weight 0, thinned or not sampled).
    """
    models = list(dict.fromkeys(m for m, _ in rows))
    if not models:
        return "(no rows)"
    width = max(len(m) for m in models) + 2
    header = f"{'model':<{width}}" + "".join(f"{s:>16}" for s in streams)
    lines = [header, "-" * len(header)]
    for m in models:
        cells = [_cell(rows[m, s], value) if (m, s) in rows else "-" for s in streams]
        lines.append(f"{m:<{width}}" + "".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)
