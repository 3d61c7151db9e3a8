"""Online boosting for River: Online BBM, AdaBoost.OL and friends."""

from __future__ import annotations

from . import booster, core, metrics, potentials, tasks
from .binary import AdaBoostOL, NHBoostDT, OnlineBBM, OSBoost, PotentialBooster, SquintBoost
from .martingale import MartingaleBooster
from .multiclass import AdaBoostOLM, OnlineMBBM
from .multilabel import AdaOLMR, OnlineBMR

__version__ = "0.1.0"

__all__ = [
    "AdaBoostOL",
    "AdaBoostOLM",
    "AdaOLMR",
    "MartingaleBooster",
    "NHBoostDT",
    "OnlineBBM",
    "OnlineBMR",
    "OnlineMBBM",
    "OSBoost",
    "PotentialBooster",
    "SquintBoost",
    "booster",
    "core",
    "metrics",
    "potentials",
    "tasks",
    "__version__",
]
