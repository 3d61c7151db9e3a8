"""The names 0.2.0's pickles (format 1) hold in ``river_boost.core``, and :class:`BoundedCache`.

The parts that were here live by role: the weak-learner pool in :mod:`river_boost.pool`, the
feature subsets in :mod:`river_boost.subsets`, the learners' adapters in
:mod:`river_boost.learners`, the input contract and the cleaning with the engine
(``river_boost/engine/_contract.py``, ``_clean.pyx``).
"""

from __future__ import annotations

from collections import OrderedDict

# format 1 pickled the pool, its feature subsets and the martingale booster's cleaner as
# objects of these names
from .engine._clean import Cleaner as FeatureCleaner  # noqa: F401
from .pool import WeakLearnerPool  # noqa: F401
from .subsets import FeatureSubsets  # noqa: F401

__all__ = ["BoundedCache"]


class BoundedCache(OrderedDict):
    """A dict that drops its oldest entry beyond ``size`` entries and pickles empty.

    For exact, recomputable results (potentials, cost matrices): a copy recomputes them on
    demand, so caches never make a pickle or a long stream grow without bound.

    An ``OrderedDict``: it drops the oldest entry in constant time. A plain dict finds its
    first entry by skipping the slots its deleted entries left, until it next resizes: a
    full cache of 100,000 potentials spent about 70 µs per insertion on that.
    """

    def __init__(self, size: int):
        super().__init__()
        self.size = max(1, size)

    def put(self, key, value):
        if len(self) >= self.size:
            self.popitem(last=False)  # the oldest entry (insertion order)
        self[key] = value
        return value

    def __reduce__(self):
        return (type(self), (self.size,))
