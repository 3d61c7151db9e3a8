"""The one walk every booster shares.

For each labelled example a booster walks along its ``N`` weak learners. The *task*
(:mod:`river_boost.tasks`: binary, multiclass or multi-label ranking) reads each learner's
prediction as a vote and keeps the experts' scores; the *rule*
(:class:`river_boost.potentials.Potential`) says, from the state the earlier learners left,
how much the example weighs for learner ``i`` and how the state moves; the weak-learner
*pool* (:class:`river_boost.core.WeakLearnerPool`) holds the learners and their counters.
Surrogate rules (the adaptive boosters) also learn the learners' vote weights ``alpha`` by
online gradient descent and weight the experts by Hedge (:class:`river_boost.core.Experts`).
The walk itself is compiled (:mod:`river_boost.engine`): the methods below call it.

Every public booster is this walk with a task and a rule: a new booster is one rule class.

"""

from __future__ import annotations

import copy
import math
import random
from array import array

from river import base, drift

from . import engine as _engine
from .adaptation import DriftAdaptation, check_drift_params
from .core import (
    AUTO_SUBSET_TASKS,
    Experts,
    Watched,
    WeakLearnerPool,
    check_sample_weight,
    check_scale,
    default_model,
)
from .tasks import BinaryTask, MulticlassTask, RankingTask

__all__ = [
    "Booster",
    "BinaryBooster",
    "DeepChain",
    "DeepChainBooster",
    "MulticlassBooster",
    "RankingBooster",
]

#: Hedge's learning rate over the two chains' mistakes (:class:`DeepChain`)
DEEP_CHAIN_ETA = 0.1


def _from_pool(name: str) -> property:
    """The pool's diagnostic ``name`` as a property of the booster (with its doc)."""
    return property(
        lambda self: getattr(self._pool, name), doc=getattr(WeakLearnerPool, name).__doc__
    )


class Booster(Watched, base.Estimator):
    """A task, a rule and a pool of weak learners, and the walk that ties them.

    Not used directly: the public boosters (``OnlineBBM``, ``AdaBoostOL``, ...) are presets
    that choose the task and the rule, and each lists its parameters River-style, the ten
    every preset shares among them (``model``, ``n_models``, ``weighting``, ``diversify``,
    ``feature_fraction``, ``min_weight``, ``seed``, ``drift_detector``, ``warning_detector``,
    ``memory``). The properties below are the diagnostics every preset has.

    """

    def _build(self, task, rule, params: dict):
        """Store the preset's parameters under their own names (River's convention: ``clone()``
        and the repr read them back) and build the pool, and for surrogate rules the experts.

        ``params`` are the preset's ``__init__`` arguments (its ``locals()``). A surrogate rule
        also needs ``prediction`` and ``learning_rate`` (default ``"hedge"`` and 4).
        """
        if task.kind not in rule.tasks:
            raise ValueError(
                f"{type(rule).__name__} has no {task.kind} form (it runs in: "
                f"{', '.join(rule.tasks)})"
            )
        for name, value in params.items():
            if name != "self" and not isinstance(getattr(type(self), name, None), property):
                setattr(self, name, value)
        memory = check_drift_params(
            params.get("drift_detector"), params.get("warning_detector"), params.get("memory")
        )
        if self.model is None:
            self.model = default_model()
        self._task = task
        self._rule = rule
        self._rng = random.Random(self.seed)
        self._pool = WeakLearnerPool(
            model=self.model,
            n_models=self.n_models,
            weighting=self.weighting,
            diversify=self.diversify,
            feature_fraction=self.feature_fraction,
            min_weight=self.min_weight,
            seed=self._rng.getrandbits(64) if self.seed is not None else None,
            wide_subsets=task.kind in AUTO_SUBSET_TASKS,
            multiclass=task.multiclass,
            weight_scale=params.get("weight_scale", 1.0),
        )
        self._experts = None
        if rule.surrogate:
            self._experts = Experts(
                self.n_models,
                params.get("learning_rate", 4.0),
                params.get("prediction", "hedge"),
                task.predictions,
                rule,
            )
        # a typed counter, counted in place (by the compiled walk too: no int object and no
        # write into the booster's __dict__ per example); an int in pickles from before
        self._n_seen = array("q", [0])
        self._drift = None
        if memory is not None:  # drift adaptation is on (river_boost.adaptation)
            # The vote weights' rate floor holds from the first example (it binds only after
            # ``memory`` examples; off until the arming, the booster recovered from a first
            # change ten points slower for 5,000 examples on LED); the edges' and Hedge's
            # forgetting starts when the adaptation is armed (_start_forgetting)
            self._drift = DriftAdaptation(
                self.drift_detector, self.warning_detector, self.n_models, memory
            )
            if self._experts is not None:
                self._experts.ogd.memory = memory

    # Drift adaptation is off unless a preset takes a detector (class defaults: presets and
    # pickles from before it have none).
    drift_detector = None
    warning_detector = None
    memory = None
    _drift = None

    #: the parameters River's checks try (``_unit_test_params``); presets add theirs
    _test_params: tuple = (
        {"n_models": 3, "seed": 1},
        {"n_models": 2, "weighting": "sampling", "diversify": True, "seed": 2},
        {
            "n_models": 3,
            "drift_detector": drift.ADWIN(delta=0.1, clock=4, grace_period=10),
            "warning_detector": drift.ADWIN(delta=0.5, clock=4, grace_period=10),
            "memory": 50,
            "seed": 3,
        },
    )

    @classmethod
    def _unit_test_params(cls):
        for params in cls._test_params:  # fresh estimators for every check
            yield {k: v.clone() if isinstance(v, base.Base) else v for k, v in params.items()}

    @property
    def _multiclass(self):
        return self._task.multiclass

    def __setstate__(self, state):
        self.__dict__.update(state)
        if not isinstance(self._n_seen, array):  # an int, pickled before the typed counter
            self._n_seen = array("q", [self._n_seen])

    def __getstate__(self):
        # The compiled walk's engine is a cache: a copy rebuilds it, and a pickle is the same
        # whether or not it was made (a rejected event leaves none).
        state = dict(self.__dict__)
        state.pop("_compiled_walk", None)
        return state

    # ------------------------------------------------------------------ the walk

    def learn_one(self, x, y, w=1.0, **kwargs):
        """Learn from the example ``x`` with label ``y`` and sample weight ``w``.

        The whole event is validated before anything changes: a rejected one (``ValueError``
        or ``TypeError``) leaves the booster as it was."""
        _engine.learn_one(self, x, y, w)

    def _act(self, adapt: DriftAdaptation, warned, drifted) -> None:
        """Start background learners for the learners that ``warned``, replace those that
        ``drifted`` (as :meth:`DriftAdaptation.observe` selected them); once the adaptation
        is armed, the statistics start to forget."""
        if adapt.armed and not adapt.forgets:
            self._start_forgetting(adapt)
        pool = self._pool
        for i in warned:
            if i not in drifted:
                pool.start_background(i)
        for i in drifted:
            promoted = pool.replace(i)
            if self._experts is not None:
                self._experts.ogd.restart(i)
                self._experts.hedge.restart(i)
            adapt.replaced(i, self.n_seen, promoted)

    def _start_forgetting(self, adapt: DriftAdaptation) -> None:
        """``memory``'s forgetting, from the example that armed the adaptation on: the edges
        fade and Hedge shares (the vote weights' rate floor holds from the first example)."""
        memory = adapt.memory
        self._pool._edge_decay = 1.0 - 1.0 / memory
        adapt.share = 1.0 / memory  # (DriftAdaptation.forgets from now on)

    def predict_proba_one(self, x, **kwargs):
        """The probability of each label for ``x``."""
        return _engine.predict_proba_one(self, x)

    def predict_one(self, x, **kwargs):
        """The predicted label for ``x``."""
        return _engine.predict_one(self, x)

    # ------------------------------------------------------------------ diagnostics

    @property
    def models(self) -> list:
        """The weak learners, in boosting order."""
        return list(self._pool.models)

    @property
    def potential(self):
        """The rule that weighs the examples (a :class:`~river_boost.potentials.Potential`)."""
        return self._rule

    @property
    def pool(self) -> WeakLearnerPool:
        """The weak-learner pool, with its per-learner diagnostics (``offered``, ...)."""
        return self._pool

    edges = _from_pool("edges")
    feature_subsets = _from_pool("feature_subsets")
    learner_updates = _from_pool("learner_updates")
    zero_weights = _from_pool("zero_weights")

    @property
    def replacements(self) -> list:
        """How many times each learner position was replaced after a drift (all 0 without
        a ``drift_detector``)."""
        if self._drift is None:
            return [0] * self.n_models
        return list(self._drift.replacements)

    @property
    def replacement_times(self) -> list:
        """``(stream time, position)`` of each replacement, in order, the stream time being
        :attr:`n_seen` when it happened (the last
        :data:`~river_boost.adaptation.LOG_SIZE` replacements)."""
        return [] if self._drift is None else list(self._drift.log)

    @property
    def drift_warnings(self) -> list:
        """How many warnings each learner position's ``warning_detector`` gave."""
        if self._drift is None or self._drift.warning_detectors is None:
            return [0] * self.n_models
        return list(self._drift.warnings)

    @property
    def background(self) -> list:
        """The learner positions with a background learner in training."""
        return self._pool.background

    @property
    def n_seen(self) -> int:
        """Number of examples learned (with non-zero weight)."""
        return self._n_seen[0]

    @property
    def alphas(self) -> list:
        """Vote weight of each learner (all 1 for unweighted majority votes)."""
        if self._experts is None:
            return [1.0] * self.n_models
        return list(self._experts.ogd.values)

    @property
    def expert_weights(self) -> list:
        """Weight of each expert (prefix of learners) in the final prediction: Hedge's
        normalised weights, or the last expert alone for majority votes and for the full
        weighted vote (``prediction="final"``, OSBoost.OCP)."""
        if self._experts is None or self._experts.prediction == "final":
            return [0.0] * (self.n_models - 1) + [1.0]
        return list(self._experts.hedge.weights)


class DeepChain:
    """A second chain of learners whose trees grow deeper, and Hedge between the two chains.

    A Hoeffding tree counts *weight* before it may split, so a booster's trees, taught with
    weights of mean 1, stay shallow: what wins on noisy, linear concepts, where shallow trees
    with naive-Bayes leaves do best, and loses on narrow, non-linear ones, where deeper trees
    do. ``deep_scale`` runs both: the booster's own chain of ``N`` learners, and beside it a
    chain of ``ceil(N / 2)`` more, the same booster (same rule, learners and parameters,
    another seed) whose weights are multiplied by ``deep_scale`` throughout, so that its trees
    split sooner and grow deeper (and, counting weight, check their size at the same pace per
    example: a tree's ``memory_estimate_period`` is scaled too; its ``max_size`` is halved, so
    that the deep chain holds at most a quarter of the booster's trees' memory). The booster
    predicts with Hedge over the two chains, each label's probability being

    ``P(y) = (1 - v) P_shallow(y) + v P_deep(y)``, with
    ``v = exp(-eta M_deep) / (exp(-eta M_shallow) + exp(-eta M_deep))``,

    ``M`` being each chain's weighted prequential mistakes (the label its probabilities
    predict, counted before it learns, against the example's, weighted by the sample weight)
    and ``eta`` = :data:`DEEP_CHAIN_ETA`. A predicted label is the task's ``best`` of the
    probabilities: binary ``P(True) >= 1/2``; multiclass the most probable, ties going to the
    task's label order. With drift adaptation, once it is armed the mistakes fade like the
    learners' edges, by ``1 - 1/memory`` per example, so that the choice can turn after a
    change.

    Each chain learns every example. A deep tree splits more often than a shallow one, so the
    deep chain, half as long, costs about as much time as the booster's own chain. The
    booster's diagnostics (``models``, ``alphas``, ``edges``, ...) describe its own, shallow
    chain; ``deep_chain`` is the deep one.

    """

    def __init__(self, chain, eta: float = DEEP_CHAIN_ETA):
        self.chain = chain
        self.eta = eta
        self.mistakes = [0.0, 0.0]  # the shallow chain's, the deep chain's

    def deep_weight(self) -> float:
        """Hedge's weight ``v`` of the deep chain."""
        z = self.eta * (self.mistakes[1] - self.mistakes[0])
        if z > 0:  # the deep chain erred more: exp(-z) cannot overflow
            e = math.exp(-z)
            return e / (1.0 + e)
        return 1.0 / (1.0 + math.exp(z))

    def combine(self, shallow: dict, deep: dict) -> dict:
        v = self.deep_weight()
        labels = [*shallow, *(c for c in deep if c not in shallow)]
        return {c: (1.0 - v) * shallow.get(c, 0.0) + v * deep.get(c, 0.0) for c in labels}

    def record(self, missed: tuple, w: float, decay: float) -> None:
        """Whether each chain missed an example it then learned, of sample weight ``w``."""
        m = self.mistakes
        for k in (0, 1):
            m[k] = decay * m[k] + (w if missed[k] else 0.0)


class DeepChainBooster(Booster):
    """The methods of a preset that takes ``deep_scale``: a :class:`DeepChain` beside its own
    (``OSBoostOCP``, ``AdaBoostOLM``). It comes first among the preset's bases, before the
    task's (``BinaryBooster``, ``MulticlassBooster``)."""

    #: the deep chain (a class default: boosters built or pickled without one have none)
    _deep: DeepChain | None = None

    def _build(self, rule, params):
        """The booster's own build (its task's), then the deep chain if ``deep_scale`` is
        not 1."""
        scale = params.get("deep_scale", 1.0)
        check_scale("deep_scale", scale)
        super()._build(rule, params)
        self._deep = None if scale == 1.0 else self._deep_chain(rule, params, scale)

    def _deep_chain(self, rule, params, scale: float) -> DeepChain:
        """The same booster at weights scaled by ``scale``, ``ceil(N / 2)`` learners long."""
        # the same booster at scaled weights; its seed drawn after the pool's, so that the
        # booster's own chain is the booster without a deep chain
        chain = object.__new__(type(self))
        seed = self._rng.getrandbits(64) if self.seed is not None else None
        model = self.model
        tree_params = model._get_params()
        # A tree counts weight to its next size check too: at the same pace per example.
        # Deep trees fill their size limit first: half of it each keeps the deep chain's
        # share of memory at a quarter of the booster's.
        limits = {}
        if "memory_estimate_period" in tree_params:
            limits["memory_estimate_period"] = tree_params["memory_estimate_period"] * scale
        if "max_size" in tree_params:
            limits["max_size"] = tree_params["max_size"] / 2
        if limits:
            model = model.clone(limits)
        chain_params = {
            **params,
            "n_models": (self.n_models + 1) // 2,
            "model": model,
            "deep_scale": 1.0,
            "weight_scale": scale * params.get("weight_scale", 1.0),
            "seed": seed,
        }
        chain_params.pop("self", None)
        type(self)._build(chain, copy.deepcopy(rule), chain_params)
        return DeepChain(chain)

    def learn_one(self, x, y, w=1.0, **kwargs):
        """Learn from the example ``x`` with label ``y`` and sample weight ``w`` (both chains,
        then Hedge's mistakes).

        The whole event is validated before anything changes: a rejected one (``ValueError``
        or ``TypeError``) leaves the booster as it was."""
        deep = self._deep
        if deep is None:
            return super().learn_one(x, y, w)
        label = self._task.check_label(y)  # the event is checked before anything changes
        weight = check_sample_weight(w)
        missed = tuple(
            chain._task.best(_engine.predict_proba_one(chain, x)) != label
            for chain in (self, deep.chain)
        )
        _engine.learn_one(self, x, y, w)
        _engine.learn_one(deep.chain, x, y, w)
        adapt = self._drift
        decay = 1.0 - 1.0 / adapt.memory if adapt is not None and adapt.forgets else 1.0
        deep.record(missed, weight, decay)

    def predict_proba_one(self, x, **kwargs):
        """The probability of each label for ``x``."""
        deep = self._deep
        if deep is None:
            return super().predict_proba_one(x)
        return deep.combine(
            _engine.predict_proba_one(self, x), _engine.predict_proba_one(deep.chain, x)
        )

    def predict_one(self, x, **kwargs):
        """The predicted label for ``x``."""
        if self._deep is None:
            return super().predict_one(x)
        return self._task.best(self.predict_proba_one(x))

    @property
    def deep_chain(self):
        """The deep chain (a booster of the same kind), or ``None`` without ``deep_scale``."""
        return None if self._deep is None else self._deep.chain

    @property
    def deep_chain_weight(self) -> float:
        """Hedge's weight of the deep chain in the prediction (0 without one)."""
        return 0.0 if self._deep is None else self._deep.deep_weight()


class BinaryBooster(Booster, base.Classifier):
    """A booster over the labels ``True``/``False``."""

    def _build(self, rule, params):
        super()._build(BinaryTask(), rule, params)


class MulticlassBooster(Booster, base.Classifier):
    """A booster over any hashable labels, which may join mid-stream."""

    def _build(self, rule, params):
        task = MulticlassTask(params["classes"], params["weak_prediction"])
        super()._build(task, rule, params)

    @property
    def known_classes(self) -> list:
        """The labels known so far (given ``classes``, then new ones in order of arrival)."""
        return list(self._task.classes)


class RankingBooster(Booster, base.MultiLabelClassifier):
    """A booster that ranks the labels of multi-label examples ``{label: bool}``."""

    def _build(self, rule, params):
        super()._build(RankingTask(), rule, params)

    def score_one(self, x) -> dict:
        """The booster's label scores (higher ranks first): its ranking of the labels."""
        return _engine.score_one(self, x)

    def predict_proba_one(self, x, **kwargs):
        """Each label's probability of being relevant to ``x``: ``{label: {False: p, True:
        q}}``, from the label's score and the learned label count."""
        return _engine.rank_proba_one(self, x, False)

    def predict_one(self, x, **kwargs):
        """The labels predicted relevant to ``x``: ``{label: bool}``."""
        return _engine.rank_proba_one(self, x, True)

    @property
    def labels(self) -> list:
        """The label space so far, in order of first appearance."""
        return list(self._task.labels)

    @property
    def n_skipped(self) -> int:
        """Labelled examples with an empty or full label set (nothing to rank, not learned)."""
        return self._task.n_skipped
