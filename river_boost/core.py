"""The names 0.2.0's pickles (format 1) hold in ``river_boost.core``.

The parts that were here live by role: the weak-learner pool in :mod:`river_boost.pool`, the
feature subsets in :mod:`river_boost.subsets`, the learners' adapters in
:mod:`river_boost.learners`, the input contract and the cleaning with the engine
(``river_boost/engine/_contract.py``, ``_clean.pyx``).
"""

from __future__ import annotations

# format 1 pickled the pool, its feature subsets and the martingale booster's cleaner as
# objects of these names
from .engine._clean import Cleaner as FeatureCleaner  # noqa: F401
from .pool import WeakLearnerPool  # noqa: F401
from .subsets import FeatureSubsets  # noqa: F401

__all__: list = []


class BoundedCache(dict):
    """0.2.0's cache of a potential's values, which its pickles held as ``BoundedCache(size)``
    (its bound, not its entries): it loads empty, on a potential whose values the compiled
    rules compute (and cache) on their own."""

    def __init__(self, size: int):
        super().__init__()
