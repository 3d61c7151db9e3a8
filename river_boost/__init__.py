"""Online boosting for River: Online BBM, AdaBoost.OL and friends."""

from __future__ import annotations

from . import core, potentials
from .binary import AdaBoostOL, OnlineBBM, OSBoost
from .multiclass import AdaBoostOLM, OnlineMBBM

__version__ = "0.1.0"

__all__ = [
    "AdaBoostOL",
    "AdaBoostOLM",
    "OnlineBBM",
    "OnlineMBBM",
    "OSBoost",
    "core",
    "potentials",
    "__version__",
]
