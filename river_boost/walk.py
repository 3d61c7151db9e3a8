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
walk does not cover; a booster can switch walks at any example (``ENABLED``). Both walks
compute the same math (within rounding: the compiled walk sums in its own order), draw from
the same ``random.Random`` objects and keep their state in the same Python objects;
``tests/test_compiled_walk.py`` checks both walks on every prediction of many streams. The
exact potentials' dynamic programs (OnlineMBBM's, OnlineBMR's difference laws) exist once, in
``river_boost._dp``: the potentials call them.

Every booster runs on it: binary, multiclass and ranking tasks; the library's rules
(compiled, :mod:`river_boost._rules` and this module) and any other
:class:`~river_boost.potentials.Potential` (a rule of your own, or a subclass of ours, called
through its Python methods); the compiled forest, or River classifiers as weak learners
(called through theirs, :class:`~river_boost.core.ModelLearners`); both weightings, feature
subsets, sample weights and drift adaptation (the detectors are called through
:meth:`~river_boost.adaptation.DriftAdaptation.observe`, replacements through
``Booster._act``).
"""

from __future__ import annotations

from . import _walk as _c
from . import adaptation, core, tasks
from ._forest import forest_api as _forest_api  # the forest's C entry points, for _walk
from .core import Experts, FeatureCleaner, WeakLearnerPool
from .forest import HoeffdingForest
from .tasks import BinaryTask, MulticlassTask, RankingTask

__all__ = ["ENABLED", "plan_for"]

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
        "MAX_ABS_FEATURE": core.MAX_ABS_FEATURE,
        "MAX_SAMPLE_WEIGHT": core.MAX_SAMPLE_WEIGHT,
        "MIN_SAMPLE_WEIGHT": core.MIN_SAMPLE_WEIGHT,
        "MIN_SUPPORT": tasks.MIN_SUPPORT,
        "COST_TIE": tasks.COST_TIE,
        "DriftAdaptation": adaptation.DriftAdaptation,
        "CHANGES": core.CHANGES,
    },
    _forest_api(),
)
plan_for = _c.plan_for
