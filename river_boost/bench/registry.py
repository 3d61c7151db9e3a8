"""The models the bench knows: one Entry of REGISTRY each, and how a run builds one."""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable

from river import compose, drift, ensemble, forest, multioutput, preprocessing, tree

from .. import binary, gradient, martingale, multiclass, multilabel, pool
from . import anchors
from .streams import task_of

# ----------------------------------------------------------------------------- models


@dataclasses.dataclass(frozen=True)
class Entry:
    """A model the bench can run.

    ``factory(n_models, seed, **grid)`` builds it, ``grid`` holding the values of the grid
    parameters it ``takes`` (``"gamma"``, ``"learning_rate"``); ``gammas`` is its own edge grid
    when it should not follow the run's (OSBoost and OSBoost.OCP, the papers' baselines, run
    at one edge); ``tasks`` are the streams' tasks it runs on (``"binary"``, ``"multiclass"``,
    ``"multilabel"``, ``"regression"``: the last for ``river-boost bench --task regression``);
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
    def on_request(self) -> bool:
        """Whether it runs only when asked for (an ablation) or in the drift suite."""
        return self.kind in ("ablation", "drift", "drift-anchor")


BINARY, MULTICLASS, MULTILABEL, REGRESSION = (
    frozenset({t}) for t in ("binary", "multiclass", "multilabel", "regression")
)
CLASSIFICATION = BINARY | MULTICLASS
GAMMA, LEARNING_RATE = ("gamma",), ("learning_rate",)
OSBOOST_GAMMA = 0.1  # the baselines are run at one edge unless --osboost-gammas is given
OSBOOST_FAMILIES = ("OSBoost", "OSBoost.OCP")  # the papers' baselines (--osboost-gammas)


def _ht():
    return tree.HoeffdingTreeClassifier()


def _mc_ht():
    # the boosters' default weak learner (its bounded size included), majority-class leaves
    return pool.default_model().clone({"leaf_prediction": "mc"})


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


def _prepared(model, scaler=None):
    """``model`` behind River's usual preparation of mixed features: the numbers (scaled by
    ``scaler`` when given) and the strings one-hot encoded (River's scalers, AMF, SRP's and
    ARF's linear leaves need numbers; synth.Mv has nominal features). On all-numeric streams
    the encoder produces nothing and the numbers pass as they are. Feature names become
    strings first (AMF sorts them, and the encoder's are strings)."""
    numeric = compose.SelectType(numbers.Number)
    if scaler is not None:
        numeric |= scaler
    union = numeric + (compose.SelectType(str) | preprocessing.OneHotEncoder())
    return compose.FuncTransformer(_names_as_str) | union | model


def _names_as_str(x: dict) -> dict:
    return {str(name): value for name, value in x.items()}


def _river_regressor(cls, scaler=None, size="n_models", **fixed):
    """A factory of River's regressor ``cls`` at its defaults (``size``: its ensemble-size
    parameter, whose River default is 10, the bench's default ``--n-models``; None for a
    single tree), behind :func:`_prepared` with ``scaler`` (a class, or None); ``fixed``
    parameters that are callables are called for every model (fresh member templates)."""

    def build(n, seed, **grid):
        params = {k: v() if callable(v) else v for k, v in fixed.items()}
        params.update(grid)
        if size is not None and n is not None:
            params[size] = n
        if _takes_seed(cls):  # the single trees take none
            params["seed"] = seed
        return _prepared(cls(**params), scaler() if scaler is not None else None)

    return build


def _ogb(n, seed, **grid):
    """OnlineGradientBoostRegressor (which draws nothing: no seed) behind River's preparation
    with standard scaling, which its linear weak learners need."""
    params = {**grid, **({} if n is None else {"n_models": n})}
    return _prepared(
        gradient.OnlineGradientBoostRegressor(**params), preprocessing.StandardScaler()
    )


def _takes_seed(cls) -> bool:
    import inspect

    return "seed" in inspect.signature(cls).parameters


def _anchor_tasks(name: str) -> frozenset:
    if name in anchors.REGRESSION_ANCHORS:
        return REGRESSION
    return CLASSIFICATION if name in anchors.MULTICLASS_ANCHORS else BINARY


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
        name: Entry(factory, _anchor_tasks(name), kind="anchor", library=library)
        for name, (library, factory) in anchors.ANCHORS.items()
    },
    # River's regressors (``--task regression``), at River's defaults with the run's seed.
    # Scaling as River's docs show these models: StandardScaler before the Hoeffding tree
    # regressor and ARF (their docstrings' examples; their leaves' linear models need it), so
    # also before bagging over Hoeffding trees and SRP (whose members are Hoeffding tree
    # regressors); MinMaxScaler before AMF (its docs: features assumed in [0, 1]); none before
    # SGT (its docs' example: quantized features). Nominal features are one-hot encoded
    # (``_prepared``).
    "HoeffdingTreeRegressor": Entry(
        _river_regressor(tree.HoeffdingTreeRegressor, preprocessing.StandardScaler, size=None),
        REGRESSION,
        kind="baseline",
    ),
    "River.ARFRegressor": Entry(
        _river_regressor(forest.ARFRegressor, preprocessing.StandardScaler),
        REGRESSION,
        kind="baseline",
    ),
    "River.SRPRegressor": Entry(
        _river_regressor(ensemble.SRPRegressor, preprocessing.StandardScaler),
        REGRESSION,
        kind="baseline",
    ),
    "River.BaggingRegressor": Entry(
        _river_regressor(
            ensemble.BaggingRegressor,
            preprocessing.StandardScaler,
            model=tree.HoeffdingTreeRegressor,
        ),
        REGRESSION,
        kind="baseline",
    ),
    "River.AMFRegressor": Entry(
        _river_regressor(forest.AMFRegressor, preprocessing.MinMaxScaler, size="n_estimators"),
        REGRESSION,
        kind="baseline",
    ),
    "River.SGTRegressor": Entry(
        _river_regressor(tree.SGTRegressor, size=None), REGRESSION, kind="baseline"
    ),
    # river_boost's regressors (see REGRESSION_MODELS), behind River's usual preparation with
    # a standard scaler, as River's trees are: SGBT's adaptive leaves and OGB's linear
    # learners fit linear models
    "SGBTRegressor": Entry(
        lambda n, seed, **grid: _prepared(
            _make(gradient.SGBTRegressor)(n, seed, **grid), preprocessing.StandardScaler()
        ),
        REGRESSION,
    ),
    "OnlineGradientBoostRegressor": Entry(_ogb, REGRESSION),
    # ... and SGBT for classification, beside the classifiers
    "SGBTClassifier": Entry(_make(gradient.SGBTClassifier), CLASSIFICATION),
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
    if not entry.on_request and "regression" not in entry.tasks
]
# ``river-boost bench --task regression``: every entry of the "regression" task (River's
# regressors, MOA's when capymoa is installed, and river_boost's regressors, which need one
# entry each above: ``"Name": Entry(_make(Class), REGRESSION)``, kind "booster" by default)
REGRESSION_MODELS = sorted(
    (
        name
        for name, entry in REGISTRY.items()
        if not entry.on_request and "regression" in entry.tasks
    ),
    key=lambda name: REGISTRY[name].kind == "anchor",  # River's, ours, then the outside ones
)
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
