"""Online boosting for River: Online BBM, AdaBoost.OL and friends."""

from __future__ import annotations

from . import core, potentials
from .binary import AdaBoostOL, NHBoostDT, OnlineBBM, OSBoost, PotentialBooster, SquintBoost
from .martingale import MartingaleBooster
from .multiclass import AdaBoostOLM, OnlineMBBM

__version__ = "0.1.0"

__all__ = [
    "AdaBoostOL",
    "AdaBoostOLM",
    "MartingaleBooster",
    "NHBoostDT",
    "OnlineBBM",
    "OnlineMBBM",
    "OSBoost",
    "PotentialBooster",
    "SquintBoost",
    "core",
    "potentials",
    "__version__",
]
