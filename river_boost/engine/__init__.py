"""The boosters' engines: one ``learn_one`` or prediction is one call into C.

For each example a booster walks along its ``N`` weak learners (:mod:`river_boost.booster`):
it reads their probabilities as votes and the experts' scores, asks the rule how much the
example weighs for each learner, updates the vote weights and the experts, and teaches the
learners. A booster holds one engine (compiled from Cython at install time, like the forest:
``_engine`` the walk every task shares, ``_binary``, ``_multiclass`` and ``_ranking`` the
tasks' parts), which does all of it and owns the state it changes: the
per-learner counters and edge sums, the vote weights and Hedge, the example count, the kinds
of the features learned, drift adaptation's background learners. The boosters' methods
(:meth:`river_boost.booster.Booster.learn_one` and the predictions) call it.

There is one walk, and it runs every booster: binary, multiclass and ranking tasks; the
library's rules (compiled, :mod:`river_boost.engine._rules`) and any other
:class:`~river_boost.potentials.Potential` (a rule of your own, or a subclass of ours, called
through its Python methods); the compiled forest (through its C entry points,
``river_boost/forest/_forest.pxd``), or River classifiers as weak learners (called through
theirs, :class:`~river_boost.learners.ClassifierLearners`); both weightings, feature subsets, sample
weights and drift adaptation (the detectors are called through
:meth:`~river_boost.adaptation.DriftAdaptation.observe`). The exact potentials' dynamic
programs (OnlineMBBM's, OnlineBMR's difference laws) exist once, in
``river_boost.engine._dp``: the potentials call them too.

The walk computes the documented math (the tasks' and rules' docstrings) in its own order of
floating-point operations: deterministic for a seed on a build, and equal within 1e-9
relative to the plain-Python references kept with the tests (``tests/oracles/``).
"""

from __future__ import annotations

from ._binary import BinaryEngine
from ._engine import Engine, forest_seconds, set_timing
from ._multiclass import MulticlassEngine
from ._ranking import RankingEngine

__all__ = [
    "ENGINES",
    "Engine",
    "BinaryEngine",
    "MulticlassEngine",
    "RankingEngine",
    "set_timing",
    "forest_seconds",
]

#: The engine of each task: ``Booster._build`` builds ``ENGINES[task.kind](task, rule, pool,
#: ...)`` and holds it as the booster's ``_engine``.
ENGINES = {"binary": BinaryEngine, "multiclass": MulticlassEngine, "ranking": RankingEngine}
