"""The boosters' walk: one ``learn_one`` or prediction in a few calls into C.

For each example a booster walks along its ``N`` weak learners (:mod:`river_boost.booster`):
it reads their probabilities as votes and the experts' scores, asks the rule how much the
example weighs for each learner, updates the vote weights and the experts, and teaches the
learners. ``river_boost.engine._walk`` (compiled from Cython at install time, like the forest) does
all of it, with the trees called through the forest's C entry points. The boosters' methods
(:meth:`river_boost.booster.Booster.learn_one` and the predictions) call its entries below.

There is one walk, and it runs every booster: binary, multiclass and ranking tasks; the
library's rules (compiled, :mod:`river_boost.engine._rules`) and any other
:class:`~river_boost.potentials.Potential` (a rule of your own, or a subclass of ours, called
through its Python methods); the compiled forest, or River classifiers as weak learners
(called through theirs, :class:`~river_boost.core.ModelLearners`); both weightings, feature
subsets, sample weights and drift adaptation (the detectors are called through
:meth:`~river_boost.adaptation.DriftAdaptation.observe`, replacements through
``Booster._act``). The exact potentials' dynamic programs (OnlineMBBM's, OnlineBMR's
difference laws) exist once, in ``river_boost.engine._dp``: the potentials call them too.

The walk computes the documented math (the tasks' and rules' docstrings) in its own order of
floating-point operations: deterministic for a seed on a build, and equal within 1e-9
relative to a plain-Python reference of the papers kept with the tests.
"""

from __future__ import annotations

from .. import core, tasks
from ..core import Experts, FeatureCleaner, WeakLearnerPool
from ..forest import HoeffdingForest
from ..forest._forest import forest_api as _forest_api  # the forest's C entry points, for _walk
from ..tasks import BinaryTask, MulticlassTask, RankingTask
from . import _walk as _c

__all__ = ["engine_for"]

#: The boosters' methods' entries (``Booster.learn_one`` and the predictions call them).
learn_one = _c.learn_one
predict_proba_one = _c.predict_proba_one
predict_one = _c.predict_one
score_one = _c.score_one
rank_proba_one = _c.rank_proba_one


_c._setup(
    {
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
        "CHANGES": core.CHANGES,
    },
    _forest_api(),
)
engine_for = _c.engine_for
