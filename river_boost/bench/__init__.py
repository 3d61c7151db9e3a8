"""Prequential comparisons of the boosters against River's own ensembles.

A *run* is one (stream, model, seed): the model predicts each example, is scored, then learns
it, exactly as :func:`river.evaluate.progressive_val_score`; a :class:`Protocol` can shuffle
the rows, learn a prefix without scoring it (a train split), flip training labels, or score
the prefix and the rest separately (the papers' protocols). Each run records the final
accuracy (``1 - rank loss`` on multi-label streams), an accuracy curve, the wall time, and
the time spent inside the weak learners, from which the booster's own overhead share follows.
On regression streams (``river-boost bench --task regression``) a run records the prequential
MAE, RMSE and R² instead, and the curve of the running RMSE.

Every model the bench knows is one :class:`Entry` of :data:`REGISTRY`: a factory, the tasks
it runs on, the grid parameters it takes, and whether it is an outside anchor or an ablation.
Runs are independent, so they are fanned out over processes. Every number that is not a
timing depends only on (stream, model, seed, protocol): serial and parallel runs agree.

"""

from __future__ import annotations

from .registry import (  # noqa: F401
    ABLATIONS,
    CLASSIFICATION,
    DEFAULT_GAMMAS,
    DEFAULT_MODELS,
    DRIFT_GAMMAS,
    DRIFT_MODELS,
    OSBOOST_FAMILIES,
    OSBOOST_GAMMA,
    OTHER_N_MODELS,
    OWN_KINDS,
    REGISTRY,
    REGRESSION_MODELS,
    Entry,
    ModelSpec,
    build,
    learners_of,
    missing_library,
    runs_on,
    usable_models,
)
from .runner import (  # noqa: F401
    BACKENDS,
    EXTRA_METRICS,
    Protocol,
    ResultCache,
    RunResult,
    check_dask,
    grid,
    pick_tuned,
    run_grid,
    run_one,
    tuning_grid,
)
from .streams import (  # noqa: F401
    ABRUPT_WIDTH,
    DEFAULT_REGRESSION_STREAMS,
    DEFAULT_STREAMS,
    DRIFT_LENGTH,
    DRIFT_POSITIONS,
    DRIFT_STREAMS,
    GRADUAL_WIDTH,
    REGRESSION_STREAMS,
    STREAMS,
    drift_points,
    stream_examples,
    task_of,
)
from .summaries import (  # noqa: F401
    ERRORS,
    drift_gains,
    format_ranks,
    format_table,
    mean_ranks,
    mean_std,
    summarize,
)

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
