"""The boosters' walk, compiled: one ``learn_one`` or prediction in a few calls into C.

When a booster's weak learners are the compiled forest
(:class:`~river_boost.forest.HoeffdingForest`), its per-example work outside the trees is
bookkeeping over ``N`` learners: reading their probabilities, votes and expert scores, the
rule's weights, the experts' update, the pool's importance weights and counters.
``river_boost._walk`` (compiled from Cython at install time, like the forest) does it in C,
with the trees called through the forest's C entry points. The boosters' methods
(:meth:`river_boost.booster.Booster.learn_one` and the predictions) call it through
:func:`plan_for`.

The Python walk (the task and rule classes) is the reference and runs what the compiled
walk does not cover; a booster can switch walks at any example (``ENABLED``). The compiled
walk calls the same functions where the Python walk calls NumPy (NumPy's own float64
loops), draws from the same ``random.Random`` objects and keeps its state in the same Python
objects; ``tests/test_compiled_walk.py`` checks both walks on every prediction of many
streams. The exact potentials' dynamic programs (OnlineMBBM's, OnlineBMR's difference laws)
exist once, in ``river_boost._dp``: the potentials call them, and so both walks take the same
floats from the same code.

Covered (anything else takes the Python walk):

- binary boosters with any rule: the library's potentials run their compiled rule
  (:mod:`river_boost._rules`), any other :class:`~river_boost.potentials.Potential` (a rule of
  your own, or a subclass of ours) runs there through its Python methods
  (``river_boost._rules.PythonRule``);
- multiclass boosters with :class:`~river_boost.potentials.MulticlassZeroOnePotential`
  (OnlineMBBM) and :class:`~river_boost.potentials.LogisticLoss` (AdaBoost.OLM), both weak
  predictions (``"cost"``, ``"argmax"``), when NumPy's float64 functions are found
  (:data:`NUMPY_EXACT`);
- multi-label ranking boosters with :class:`~river_boost.potentials.RankingPairPotential`
  (OnlineBMR, hinge and rank losses) and :class:`~river_boost.potentials.LogisticLoss`
  (Ada.OLMR);
- both weightings, ``diversify="paper"`` weight scales, feature subsets, sample weights;
- drift adaptation (:mod:`river_boost.adaptation`): the detectors are called through
  :meth:`~river_boost.adaptation.DriftAdaptation.observe`, replacements through
  ``Booster._act``.
"""

from __future__ import annotations

import numpy as np

from . import _walk as _c
from . import adaptation, core, potentials, tasks
from ._forest import forest_api as _forest_api  # the forest's C entry points, for _walk
from .core import Experts, FeatureCleaner, WeakLearnerPool
from .forest import HoeffdingForest
from .potentials import (
    BinomialPotential,
    LogisticLoss,
    MulticlassZeroOnePotential,
    NormalHedgePotential,
    OSBoostPotential,
    RankingPairPotential,
    SquintPotential,
)
from .tasks import BinaryTask, MulticlassTask, RankingTask

__all__ = ["ENABLED", "NUMPY_EXACT", "plan_for"]

#: Whether boosters on the compiled forest use the compiled walk. Set it to False to run the
#: Python walk, the reference: the same results.
ENABLED = True

#: The boosters' methods' entries (``Booster.learn_one`` and the predictions call them): each
#: runs the booster's compiled walk, or answers ``NO_PLAN`` (``learn_one``: False) when the
#: booster has none (the Python walk then).
NO_PLAN = _c.NO_PLAN
learn_one = _c.learn_one
predict_proba_one = _c.predict_proba_one
predict_one = _c.predict_one
score_one = _c.score_one
rank_proba_one = _c.rank_proba_one


def _numpy_kernels() -> bool:
    """Hand the compiled walk NumPy's own float64 functions, which it calls where the Python
    walk calls NumPy (the loops of ``tanh``, ``exp`` and ``matmul``); False if one is missing
    (the multiclass and ranking boosters then take the Python walk)."""
    return bool(_c._setup_numpy(np.tanh, np.exp, np.matmul))


#: Whether the multiclass and ranking walks run compiled: NumPy's float64 functions were found
#: (:func:`_numpy_kernels`).
NUMPY_EXACT = _numpy_kernels()

_c._setup(
    {
        "walk": __import__(__name__, fromlist=["ENABLED"]),
        "core": core,
        "BinaryTask": BinaryTask,
        "MulticlassTask": MulticlassTask,
        "RankingTask": RankingTask,
        "WeakLearnerPool": WeakLearnerPool,
        "FeatureCleaner": FeatureCleaner,
        "Experts": Experts,
        "HoeffdingForest": HoeffdingForest,
        "BinomialPotential": BinomialPotential,
        "NormalHedgePotential": NormalHedgePotential,
        "SquintPotential": SquintPotential,
        "OSBoostPotential": OSBoostPotential,
        "LogisticLoss": LogisticLoss,
        "MulticlassZeroOnePotential": MulticlassZeroOnePotential,
        "RankingPairPotential": RankingPairPotential,
        "ZERO_WEIGHT": potentials.ZERO_WEIGHT,
        "numpy_exact": NUMPY_EXACT,
        "MAX_ABS_FEATURE": core.MAX_ABS_FEATURE,
        "MAX_SAMPLE_WEIGHT": core.MAX_SAMPLE_WEIGHT,
        "MIN_SAMPLE_WEIGHT": core.MIN_SAMPLE_WEIGHT,
        "MIN_SUPPORT": tasks.MIN_SUPPORT,
        "DriftAdaptation": adaptation.DriftAdaptation,
        "CHANGES": core.CHANGES,
    },
    _forest_api(),
)
plan_for = _c.plan_for
