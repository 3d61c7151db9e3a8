"""Online boosting for River: Online BBM, AdaBoost.OL and friends, and gradient boosting."""

from __future__ import annotations

try:  # the compiled forest and walk, built at install time (wheels ship them)
    from .engine import _engine  # noqa: F401
    from .forest import _forest  # noqa: F401
except ImportError as _e:
    raise ImportError(
        f"river_boost's compiled extensions cannot be imported ({_e}). river-boost needs "
        "them, as River and scikit-learn need theirs: install a wheel (pip install "
        "river-boost), or install from source with a C compiler (pip builds them with Cython "
        "and NumPy); from a clone, pip install -e . builds them next to the sources."
    ) from _e

from . import booster, core, metrics, potentials, tasks
from ._pickles import PickleFormatError
from .binary import (
    AdaBoostOL,
    NHBoostDT,
    OnlineBBM,
    OSBoost,
    OSBoostOCP,
    PotentialBooster,
    SquintBoost,
)
from .engine._format import __version__
from .gradient import OnlineGradientBoostRegressor, SGBTClassifier, SGBTRegressor
from .martingale import MartingaleBooster
from .multiclass import AdaBoostOLM, OnlineMBBM
from .multilabel import AdaOLMR, OnlineBMR

__all__ = [
    "AdaBoostOL",
    "AdaBoostOLM",
    "AdaOLMR",
    "MartingaleBooster",
    "NHBoostDT",
    "OnlineBBM",
    "OnlineBMR",
    "OnlineGradientBoostRegressor",
    "OnlineMBBM",
    "OSBoost",
    "OSBoostOCP",
    "PotentialBooster",
    "SGBTClassifier",
    "SGBTRegressor",
    "SquintBoost",
    "booster",
    "core",
    "metrics",
    "potentials",
    "tasks",
    "__version__",
    "PickleFormatError",
]
