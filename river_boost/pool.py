"""The weak-learner pool every booster shares (:class:`WeakLearnerPool`): ``n_models`` clones of
a River classifier, optionally diversified (random Hoeffding-tree parameters, random feature
subsets), and how the booster's weights reach them. The boosters' engine
(:mod:`river_boost.engine`) holds the pool, cleans the raw feature dict once, reads the
learners' predictions for it and teaches learner ``i`` with a weight ``p`` in ``[0, 1]`` (an
importance weight or a rejection-sampling probability), as the pool's docstring says.
"""

from __future__ import annotations

import math
import random
from array import array

from river import base

from . import forest
from ._params import check_choice, check_scale
from ._params import names_of as _names_of
from .engine._format import rng_state, set_rng_state
from .learners import ClassifierLearners, accepts_sample_weight, make_learners
from .subsets import FeatureSubsets, check_feature_fraction

__all__ = ["WeakLearnerPool", "default_model", "WEIGHTINGS"]

WEIGHTINGS = ("importance", "sampling")

# Ranges for diversified Hoeffding trees. Split confidence and tie threshold: log-uniform over
# the ranges the multiclass / multi-label papers' authors drew VFDT parameters from.
DIVERSIFY_RANGES = {
    "delta": (1e-5, 0.9),  # log-uniform
    "tau": (1e-3, 1.0),  # log-uniform
    # The papers drew 1..10; trees that attempt a split every few examples were 2-3x slower
    # for no accuracy gain in our measurements, so the upper end is River's default instead.
    "grace_period": (20, 200),  # uniform integer
}
# The papers' own ranges (their experiment code): trees that try to split every few examples.
PAPER_DIVERSIFY_RANGES = {**DIVERSIFY_RANGES, "grace_period": (1, 10)}
# The papers' code also multiplied every weight it gave learner i by a constant drawn once per
# learner, uniform in this range. Hoeffding trees count weight, so this is what made their trees
# split every few examples: weight 10-200 per example reaches a grace period of 1-10 at once and
# shrinks the Hoeffding bound as if 10-200 times as many examples had been seen.
PAPER_WEIGHT_SCALE = (10.0, 200.0)
DIVERSIFY_MODES = (False, True, "paper")


def default_model() -> base.Classifier:
    """The boosters' weak learner: :class:`~river_boost.forest.BoundedHoeffdingTree`, River's
    :class:`~river.tree.HoeffdingTreeClassifier` with its defaults and a size limit that
    binds under boosting's fractional weights (2 MiB per tree), so that memory stays bounded
    on an endless stream. The pool runs such trees on the compiled forest
    (:mod:`river_boost.forest`), River's own code being the reference and the fallback. For
    River's tree exactly, pass ``model=tree.HoeffdingTreeClassifier()``."""
    return forest.BoundedHoeffdingTree()


def serves_multiclass(model) -> bool:
    """Whether ``model`` can learn more than two classes: River's ``_multiclass`` property
    (False for binary-only classifiers such as ``LogisticRegression``; a pipeline answers for
    its last step). A learner that does not say is trusted."""
    return bool(getattr(model, "_multiclass", True))


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class WeakLearnerPool:
    """``n_models`` weak learners that vote on ``x`` and learn with a weight in ``[0, 1]``.

    The pool holds the learners behind :attr:`learners` (the compiled forest, or
    :class:`~river_boost.learners.ClassifierLearners`), which features each sees and how the
    booster's weights reach them. The booster's engine (:mod:`river_boost.engine`) holds the
    pool and the per-learner bookkeeping (weights offered, updates, edges: the booster's
    diagnostics); it cleans each raw feature dict once, reads the learners' predictions and
    teaches them, as below.

    The parameters are the boosters' (:class:`~river_boost.booster.Booster`); how they act:

    - ``multiclass``: the learners will be taught other labels than ``True``/``False``
      (multiclass and multi-label ranking boosters): a binary-only learner (River's
      ``_multiclass`` False, e.g. ``LogisticRegression``) is refused with a ``ValueError``.
    - ``weighting="importance"``: learner ``i`` is called with ``w = sample_weight * p /
      mean_p_i``, ``mean_p_i`` the running mean of the ``p`` it was offered. Importance
      weighting is invariant to a common scale in theory, but Hoeffding trees count *weight*
      in their grace period and Hoeffding bound: unscaled weights in ``[0, 1]`` would keep
      trees from growing, while weights summing to the number of examples offered let a tree
      grow at its usual pace. ``p = 0`` skips the call (River's trees may divide by ``w``).
      A rescaled ``w < min_weight`` is passed as ``min_weight`` with probability
      ``w / min_weight`` and skipped otherwise: the same expected weight, without the many
      near-zero updates on easy examples that cost a full tree update each.
    - ``weighting="sampling"``: the learner gets the example, with the stream's sample
      weight, with probability ``p`` (rejection sampling). A learner whose ``learn_one`` takes
      no ``w`` can only be used so; a sample weight ``w`` is then honoured by learning the
      example :func:`~river_boost.learners.replicas` times.
    - ``diversify``: the first learner stays ``model`` as given, so the first expert is the
      plain model (with every learner diversified, a bad draw for learner 1 hurts every
      expert of the adaptive boosters); the others draw the parameters the model has.
    - ``feature_fraction``: :class:`FeatureSubsets`; ``"auto"`` is decided from the number of
      features of the first non-empty ``x`` the pool sees (:func:`auto_feature_fraction`),
      or is 1.0 from the start with ``wide_subsets=False``.
    - ``weight_scale``: every learner's weights are multiplied by it (and by the per-learner
      draw of ``diversify="paper"``): :attr:`weight_scales`.

    """

    def __init__(
        self,
        model: base.Classifier,
        n_models: int,
        weighting: str = "importance",
        diversify: bool | str = False,
        feature_fraction: float | str = 1.0,
        min_weight: float = 0.0,
        seed: int | None = None,
        wide_subsets: bool = True,
        multiclass: bool = False,
        weight_scale: float = 1.0,
    ):
        if n_models < 1:
            raise ValueError(f"n_models must be >= 1, got {n_models}")
        if multiclass and not serves_multiclass(model):
            # refused here, not on the first multiclass label deep inside River
            name = type(model).__name__
            raise ValueError(
                f"{name} is a binary classifier, and this booster teaches its weak learners "
                f"more than two classes (multiclass and multi-label ranking boosters): give "
                f"a multiclass learner, such as a Hoeffding tree (the default) or "
                f"river.multiclass.OneVsRestClassifier({name}()); a classifier of your own "
                "that learns any label says so with River's `_multiclass = True`"
            )
        check_choice("weighting", weighting, WEIGHTINGS)
        check_choice("diversify", diversify, DIVERSIFY_MODES)
        check_feature_fraction(feature_fraction)
        if not 0.0 <= min_weight <= 1.0:
            raise ValueError(f"min_weight must lie in [0, 1], got {min_weight}")
        check_scale("weight_scale", weight_scale)
        self.n_models = n_models
        self.weighting = weighting
        self.min_weight = min_weight
        self._accepts_w = accepts_sample_weight(model)
        if weighting == "importance" and not self._accepts_w:
            raise ValueError(
                f"{type(model).__name__}.learn_one takes no sample weight `w`, so it cannot be "
                "given importance weights; use weighting='sampling'"
            )
        self._rng = random.Random(seed)
        # The first learner is always `model` as given: expert 1 (the first learner alone) is
        # then the plain model, which Hedge-based boosters can always fall back to.
        names = _names_of(model) if diversify else ()
        overrides = [None] + [self._draw(names, diversify) for _ in range(1, n_models)]
        # Salts for the feature-subset hash; drawn even when unused so that toggling
        # feature_fraction does not change the sampling stream.
        salts = [self._rng.getrandbits(64) for _ in range(n_models)]
        self._subsets = FeatureSubsets(feature_fraction, salts, wide_subsets)
        self.learners = make_learners(model, n_models, self._subsets, overrides, self._rng)
        # each learner's weight scale: constants the engine reads (a typed array)
        self._weight_scales = array("d", [float(weight_scale)]) * n_models
        if diversify == "paper" and self._accepts_w:
            for i in range(1, n_models):
                self._weight_scales[i] *= self._rng.uniform(*PAPER_WEIGHT_SCALE)

    def _state(self) -> tuple:
        """What the stream changed (the booster's pickle holds it): the generator, the
        feature subsets, the weight scales and the learners."""
        return (
            rng_state(self._rng),
            self._subsets._state(),
            self._weight_scales,
            self.learners._state(),
        )

    def _take_state(self, state: tuple) -> None:
        """:meth:`_state`'s state, into a pool just built with the same parameters."""
        rng, subsets, scales, learners = state
        if type(scales) is not array or scales.typecode != "d" or len(scales) != self.n_models:
            raise ValueError("weight scales of the wrong size")
        set_rng_state(self._rng, rng)
        self._subsets._take_state(subsets)
        self._weight_scales[:] = scales
        # the learners of the pickle's kind: the compiled forest, or River models (the
        # booster was built while river_boost.forest.ENABLED was off)
        if type(learners) is list:
            if not isinstance(self.learners, ClassifierLearners):
                self.learners = ClassifierLearners([], self._subsets, self._rng)
        elif not isinstance(self.learners, forest.HoeffdingForest):
            every = self._subsets.fraction is not None and self._subsets.fraction >= 1.0
            self.learners = forest.HoeffdingForest._empty(None if every else self._subsets)
        self.learners._take_state(learners)

    def _draw(self, names, diversify) -> dict | None:
        """A diversified learner's parameters (those of ``delta``, ``tau`` and
        ``grace_period`` that the model has, ``names``), drawn in that order."""
        if not diversify:
            return None
        ranges = PAPER_DIVERSIFY_RANGES if diversify == "paper" else DIVERSIFY_RANGES
        new = {}
        if "delta" in names:
            new["delta"] = _log_uniform(self._rng, *ranges["delta"])
        if "tau" in names:
            new["tau"] = _log_uniform(self._rng, *ranges["tau"])
        if "grace_period" in names:
            new["grace_period"] = self._rng.randint(*ranges["grace_period"])
        return new

    # ------------------------------------------------------------------ what it holds

    @property
    def feature_subsets(self) -> FeatureSubsets:
        """Which features each learner sees: its repr gives the rule, the ``d`` that
        ``"auto"`` was decided on and the fraction in use (``undecided`` before any ``x``)."""
        return self._subsets

    @property
    def models(self) -> list:
        """The weak learners, in boosting order."""
        return self.learners.models[: self.n_models]

    @property
    def weight_scales(self) -> list:
        """The constant each learner's weights are multiplied by (``weight_scale``, times the
        ``diversify="paper"`` per-learner draw)."""
        return list(self._weight_scales)
