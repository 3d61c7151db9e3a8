"""The one walk every booster shares.

For each labelled example a booster walks along its ``N`` weak learners. The *task*
(:mod:`river_boost.tasks`: binary, multiclass or multi-label ranking) reads each learner's
prediction as a vote and keeps the experts' scores; the *rule*
(:class:`river_boost.potentials.Potential`) says, from the state the earlier learners left,
how much the example weighs for learner ``i`` and how the state moves; the weak-learner
*pool* (:class:`river_boost.pool.WeakLearnerPool`) holds the learners. Surrogate rules (the
adaptive boosters) also learn the learners' vote weights ``alpha`` by online gradient descent
and weight the experts by Hedge. The walk is compiled (:mod:`river_boost.engine`): the
booster's engine, built once, owns everything the walk changes, and the methods below call
it.

Every public booster is this walk with a task and a rule: a new booster is one rule class.

"""

from __future__ import annotations

import math
import random

from river import base, drift

from . import _params_doc
from . import engine as _engine
from ._params import check_choice, check_scale
from ._params import clone as _clone
from ._params import fresh as _fresh
from ._params import names_of as _names
from ._params import param_names as _param_names
from ._pickles import Stateful, seed_or_entropy
from .adaptation import DriftAdaptation, check_drift_params
from .engine._contract import check_sample_weight
from .engine._experts import ChainHedge, Hedge, ProjectedOGD, SimplexOGD
from .pool import WeakLearnerPool, default_model
from .potentials import rank_loss
from .subsets import AUTO_SUBSET_TASKS
from .tasks import BinaryTask, MulticlassTask, RankingTask

__all__ = [
    "Booster",
    "BinaryBooster",
    "DeepChain",
    "MulticlassBooster",
    "RankingBooster",
]

#: Hedge's learning rate over the two chains' mistakes (:class:`DeepChain`)
DEEP_CHAIN_ETA = 0.1


class Booster(Stateful, base.Estimator):
    """A task, a rule and a pool of weak learners, and the walk that ties them.

    Not used directly: the public boosters (``OnlineBBM``, ``AdaBoostOL``, ...) are presets
    that choose the task and the rule, and each lists its parameters River-style, the ten
    every preset shares among them (``model``, ``n_models``, ``weighting``, ``diversify``,
    ``feature_fraction``, ``min_weight``, ``seed``, ``drift_detector``, ``warning_detector``,
    ``memory``) written once, in :mod:`river_boost._params_doc`, and shown on every preset.
    The properties below are the diagnostics every preset has.

    """

    #: ``feature_fraction="auto"`` takes random subsets on wide streams
    #: (:func:`~river_boost.subsets.auto_feature_count`) for this preset, although its task is
    #: not one of ``AUTO_SUBSET_TASKS``
    _wide_subsets = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:  # the shared parameters' entries, written out (river_boost/_params_doc.py)
            cls.__doc__ = _params_doc.expand(cls.__doc__)

    def _build(self, task, rule, params: dict):
        """Store the preset's parameters under their own names (River's convention: ``clone()``
        and the repr read them back) and build the booster's engine (:mod:`river_boost.engine`)
        from the task, the rule, the pool of weak learners, for surrogate rules the experts,
        and drift adaptation: the one object that the walk changes, held as ``_engine``.

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
        seed, self._entropy = seed_or_entropy(self.seed)
        rng = random.Random(seed)
        pool = WeakLearnerPool(
            model=self.model,
            n_models=self.n_models,
            weighting=self.weighting,
            diversify=self.diversify,
            feature_fraction=self.feature_fraction,
            min_weight=self.min_weight,
            seed=rng.getrandbits(64),
            wide_subsets=task.kind in AUTO_SUBSET_TASKS or self._wide_subsets,
            multiclass=task.multiclass,
            weight_scale=params.get("weight_scale", 1.0),
        )
        ogd = hedge = prediction = None
        if rule.surrogate:  # the vote weights and Hedge over the experts
            ogd, hedge, prediction = self._experts(task, rule, params, memory)
        adapt = None
        if memory is not None:  # drift adaptation is on (river_boost.adaptation)
            adapt = DriftAdaptation(
                self.drift_detector, self.warning_detector, self.n_models, memory
            )
        self._engine = _engine.ENGINES[task.kind](
            task, rule, pool, ogd, hedge, prediction, adapt, rng
        )
        scale = params.get("deep_scale", 1.0)
        check_scale("deep_scale", scale)
        self._deep = None if scale == 1.0 else self._deep_chain(scale)

    def _deep_chain(self, scale: float) -> DeepChain:
        """The same preset, built by its own constructor, ``ceil(N / 2)`` learners long, its
        learners' weights multiplied by ``scale`` (see :class:`DeepChain`)."""
        # its seed drawn after the pool's, so that the booster's own chain is the booster
        # without a deep chain
        seed = self._engine.draw_rng.getrandbits(64)
        model = self.model
        names = _names(model)
        # A tree counts weight to its next size check too: at the same pace per example.
        # Deep trees fill their size limit first: half of it each keeps the deep chain's
        # share of memory at a quarter of the booster's.
        limits = {}
        if "memory_estimate_period" in names:
            limits["memory_estimate_period"] = model.memory_estimate_period * scale
        if "max_size" in names:
            limits["max_size"] = model.max_size / 2
        model = _clone(model, limits or None)  # (the chain's own)
        new = {"n_models": (self.n_models + 1) // 2, "model": model, "deep_scale": 1.0}
        signature = _param_names(type(self))
        potential = self.potential
        if "potential" in signature and "n_models" in _names(potential):
            # a potential of your own built for the booster's length: the chain's length
            new["potential"] = _clone(potential, {"n_models": new["n_models"]})
        # the deep chain's weights scaled: through the preset's weight_scale if it has one,
        # else each learner's scale multiplied (1 times the paper's per-learner draw)
        own = "weight_scale" in signature
        if own:
            new["weight_scale"] = scale * self.weight_scale
        # (as River's clone: by the constructor; the new parameters are fresh objects)
        chain = _fresh(self, {**new, "seed": seed}, given=True)
        if not own:
            scales = chain._engine.pool._weight_scales
            for i in range(len(scales)):
                scales[i] = scale * scales[i]
            chain._rescaled = True  # (its parameters alone no longer give it)
        return DeepChain(chain)

    def _experts(self, task, rule, params, memory) -> tuple:
        """The vote weights ``alpha`` (projected online gradient descent on ``[-2, 2]``, rate
        ``learning_rate / sqrt(t)`` scaled by the rule; on the probability simplex for a rule
        whose vote weights live there, ``rule.simplex``: OSBoost.OCP, ``alpha`` starting
        uniform), Hedge over the ``N`` experts (expert ``i`` predicts with the first ``i``
        learners weighted by ``alpha``) and how the experts become one prediction:
        ``prediction`` (``"hedge"``: the Hedge mixture, ``"vote"``: Hedge-weighted vote,
        ``"random"``: draw an expert, as the papers do), or ``"final"`` for a simplex rule (the
        full weighted vote ``F_N = sum_i alpha_i h_i``; ``prediction`` is then not read).

        With drift adaptation the vote weights' rate floor holds from the first example (it
        binds only after ``memory`` examples; off until the arming, the booster recovered from
        a first change ten points slower for 5,000 examples on LED); the edges' and Hedge's
        forgetting starts when the adaptation is armed (the engine's ``act``)."""
        learning_rate = params.get("learning_rate", 4.0)
        prediction = params.get("prediction", "hedge")
        simplex = bool(getattr(rule, "simplex", False))
        if simplex:
            prediction = "final"
        else:
            check_choice("prediction", prediction, task.predictions)
        if not (learning_rate > 0 and math.isfinite(learning_rate)):
            raise ValueError(f"learning_rate must be finite and > 0, got {learning_rate}")
        if simplex:
            ogd = SimplexOGD(self.n_models, lr=learning_rate)
        else:
            ogd = ProjectedOGD(self.n_models, lr=learning_rate, bound=2.0)
        if memory is not None:
            ogd.memory = memory
        return ogd, Hedge(self.n_models), prediction

    # A deep chain whose weights were scaled after it was built (a preset without
    # weight_scale): it pickles its state even before it learns
    _rescaled = False

    # Drift adaptation is off unless a preset takes a detector (class defaults: presets
    # without the parameters have none).
    drift_detector = None
    warning_detector = None
    memory = None

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

    # ------------------------------------------------------------------ state (pickling)

    def _get_state(self) -> tuple:
        """``(entropy, engine, deep chain)``: the engine's state and the deep chain's, both
        None while the booster has neither learned nor predicted (it is then its parameters)."""
        engine, deep = self._engine, self._deep
        if not (engine.changed or self._rescaled) and (
            deep is None or not deep.chain._engine.changed
        ):
            return (self._entropy, None, None)
        return (self._entropy, engine._export(), None if deep is None else deep._export())

    def _take_state(self, state: tuple) -> None:
        _, engine, deep = state
        if engine is None:
            if deep is not None:
                raise ValueError("a deep chain's state without the booster's")
            return
        if (deep is None) != (self._deep is None):
            raise ValueError("a deep chain where the booster has none, or none where it has")
        self._engine._take(engine)
        if deep is not None:
            self._deep._take(deep)

    @property
    def _multiclass(self):
        return self._engine.task.multiclass

    @property
    def _task(self):
        """The task (its label space), as the engine holds it."""
        return self._engine.task

    # ------------------------------------------------------------------ the walk

    def learn_one(self, x, y, w=1.0, **kwargs):
        """Learn from the example ``x`` with label ``y`` and sample weight ``w``.

        The whole event is validated before anything changes: a rejected one (``ValueError``
        or ``TypeError``) leaves the booster as it was."""
        deep = self._deep
        if deep is None:
            self._engine.learn_one(x, y, w)
            return
        engines = (self._engine, deep.chain._engine)
        label = engines[0].task.check_label(y)  # the event is checked before anything changes
        weight = check_sample_weight(w)
        losses = self._chain_losses(engines, x, label)
        for e in engines:
            e.learn_one(x, y, w)
        if losses is None:  # nothing to weigh the chains by
            return
        adapt = self._engine.adapt
        decay = 1.0 - 1.0 / adapt.memory if adapt is not None and adapt.forgets else 1.0
        deep.record(losses, weight, decay)

    def _chain_losses(self, engines, x, label) -> tuple | None:
        """Each chain's loss in ``[0, 1]`` on ``x`` of the checked ``label``, before either
        learns it (:class:`DeepChain`), or ``None`` when the example has none: here whether
        the label each chain's probabilities predict is wrong."""
        return tuple(e.task.best(e.predict_proba_one(x)) != label for e in engines)

    def predict_proba_one(self, x, **kwargs):
        """The probability of each label for ``x``."""
        deep = self._deep
        if deep is None:
            return self._engine.predict_proba_one(x)
        return deep.combine(
            self._engine.predict_proba_one(x), deep.chain._engine.predict_proba_one(x)
        )

    def predict_one(self, x, **kwargs):
        """The predicted label for ``x``."""
        if self._deep is None:
            return self._engine.predict_one(x)
        return self._engine.task.best(self.predict_proba_one(x))

    # ------------------------------------------------------------------ diagnostics

    @property
    def models(self) -> list:
        """The weak learners, in boosting order."""
        return list(self._engine.pool.models)

    @property
    def potential(self):
        """The rule that weighs the examples (a :class:`~river_boost.potentials.Potential`)."""
        return self._engine.rule

    @property
    def pool(self) -> WeakLearnerPool:
        """The weak-learner pool: the learners, their feature subsets and weight scales."""
        return self._engine.pool

    @property
    def feature_subsets(self):
        """Which features each learner sees (the pool's
        :attr:`~river_boost.pool.WeakLearnerPool.feature_subsets`)."""
        return self._engine.pool.feature_subsets

    # the per-learner counters are the engine's, which the walk changes

    @property
    def edges(self) -> list:
        """Each learner's empirical edge, as the booster's paper defines it (see the booster);
        0 while nothing has been recorded."""
        e = self._engine
        return [n / d if d else 0.0 for n, d in zip(e.edge_num, e.edge_den)]

    @property
    def offered(self) -> list:
        """Sum of the ``p`` offered to each learner."""
        return list(self._engine.offered)

    @property
    def mean_offered(self) -> list:
        """Running mean of the ``p`` offered to each learner (0 before any offer)."""
        e = self._engine
        return [s / n if n else 0.0 for s, n in zip(e.offered, e.n_offered)]

    @property
    def learner_updates(self) -> list:
        """How many times each learner's ``learn_one`` was called."""
        return list(self._engine.n_updates)

    @property
    def zero_weights(self) -> list:
        """How many examples each learner was offered with weight exactly 0 (no update)."""
        return list(self._engine.n_zero)

    @property
    def replacements(self) -> list:
        """How many times each learner position was replaced after a drift (all 0 without
        a ``drift_detector``)."""
        adapt = self._engine.adapt
        return [0] * self.n_models if adapt is None else list(adapt.replacements)

    @property
    def replacement_times(self) -> list:
        """``(stream time, position)`` of each replacement, in order, the stream time being
        :attr:`n_seen` when it happened (the last
        :data:`~river_boost.adaptation.LOG_SIZE` replacements)."""
        adapt = self._engine.adapt
        return [] if adapt is None else list(adapt.log)

    @property
    def drift_warnings(self) -> list:
        """How many warnings each learner position's ``warning_detector`` gave."""
        adapt = self._engine.adapt
        if adapt is None or adapt.warning_detectors is None:
            return [0] * self.n_models
        return list(adapt.warnings)

    @property
    def background(self) -> list:
        """The learner positions with a background learner in training."""
        return sorted(self._engine.background)

    @property
    def deep_chain(self):
        """The deep chain (a booster of the same kind, with all its diagnostics), or ``None``
        without ``deep_scale``."""
        return None if self._deep is None else self._deep.chain

    @property
    def deep_chain_weight(self) -> float:
        """Hedge's weight of the deep chain in the prediction (0 without one)."""
        return 0.0 if self._deep is None else self._deep.deep_weight()

    @property
    def n_seen(self) -> int:
        """Number of examples learned (with non-zero weight)."""
        return self._engine.n_seen

    @property
    def alphas(self) -> list:
        """Vote weight of each learner (all 1 for unweighted majority votes)."""
        ogd = self._engine.ogd
        return [1.0] * self.n_models if ogd is None else list(ogd.values)

    @property
    def expert_weights(self) -> list:
        """Weight of each expert (prefix of learners) in the final prediction: Hedge's
        normalised weights, or the last expert alone for majority votes and for the full
        weighted vote (``prediction="final"``, OSBoost.OCP)."""
        engine = self._engine
        if engine.hedge is None or engine.prediction == "final":
            return [0.0] * (self.n_models - 1) + [1.0]
        return list(engine.hedge.weights)


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

    A multi-label ranking booster (:class:`RankingBooster`) mixes each label's probability of
    being relevant the same way, label by label, the two chains' ``predict_proba_one``: their
    raw scores are on different scales (the chains' lengths differ, and AdaOLMR's scores are
    weighted by ``alpha``), their probabilities are not. Its ``M`` are the chains' weighted
    rank losses (:func:`~river_boost.potentials.rank_loss` of each chain's probabilities, in
    ``[0, 1]``, before it learns the example) instead of mistakes; a label set without a
    (relevant, irrelevant) pair teaches Hedge nothing. Its ``score_one`` is then the mixed
    probability of relevance, and ``predict_one`` the labels whose mixed probability is at
    least 1/2.

    Each chain learns every example. A deep tree splits more often than a shallow one, so the
    deep chain, half as long, costs about as much time as the booster's own chain. The
    booster's diagnostics (``models``, ``alphas``, ``edges``, ...) describe its own, shallow
    chain; ``deep_chain`` is the deep one.

    """

    def __init__(self, chain, eta: float = DEEP_CHAIN_ETA):
        self.chain = chain
        self.hedge = ChainHedge(eta)  # compiled (river_boost.engine._experts)

    @property
    def eta(self) -> float:
        return self.hedge.eta

    @property
    def mistakes(self) -> list:
        """The shallow chain's and the deep chain's weighted mistakes (a ranking booster's:
        weighted rank losses)."""
        return self.hedge.mistakes

    @mistakes.setter
    def mistakes(self, values) -> None:
        self.hedge.mistakes = values

    def deep_weight(self) -> float:
        """Hedge's weight ``v`` of the deep chain."""
        return self.hedge.deep_weight()

    def _export(self) -> tuple:
        """The deep chain's state: its engine's, and Hedge's mistakes."""
        return (self.chain._engine._export(), self.hedge.mistakes)

    def _take(self, state: tuple) -> None:
        engine, (shallow, deep) = state
        self.chain._engine._take(engine)
        self.hedge.__setstate__((float(shallow), float(deep)))

    def combine(self, shallow: dict, deep: dict) -> dict:
        """The two chains' probabilities ``{label: p}`` mixed with Hedge's weights."""
        return _mix(shallow, deep, self.hedge.deep_weight())

    def combine_labels(self, shallow: dict, deep: dict) -> dict:
        """The two ranking chains' ``{label: {False: p, True: q}}`` mixed label by label with
        Hedge's weights (:class:`RankingBooster`)."""
        v = self.hedge.deep_weight()
        labels = [*shallow, *(c for c in deep if c not in shallow)]
        return {c: _mix(shallow.get(c, {}), deep.get(c, {}), v) for c in labels}

    def record(self, losses: tuple, w: float, decay: float) -> None:
        """Each chain's loss in ``[0, 1]`` on an example it then learned, of sample weight
        ``w``: whether it missed it (binary, multiclass), its rank loss (ranking)."""
        self.hedge.record(losses[0], losses[1], w, decay)


def _mix(shallow: dict, deep: dict, v: float) -> dict:
    labels = [*shallow, *(c for c in deep if c not in shallow)]
    return {c: (1.0 - v) * shallow.get(c, 0.0) + v * deep.get(c, 0.0) for c in labels}


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
        """The booster's label scores (higher ranks first): its ranking of the labels.

        With a deep chain (``deep_scale``) the two chains' scores are on different scales
        (their lengths differ, and so may their vote weights): a label's score is then its
        combined probability of being relevant, ``predict_proba_one(x)[label][True]``, Hedge's
        mixture of the two chains' (:class:`DeepChain`)."""
        if self._deep is None:
            return self._engine.score_one(x)
        return {label: p[True] for label, p in self._deep_proba(x).items()}

    def predict_proba_one(self, x, **kwargs):
        """Each label's probability of being relevant to ``x``: ``{label: {False: p, True:
        q}}``, from the label's score and the learned label count; with a deep chain, Hedge's
        mixture of the two chains' probabilities (:class:`DeepChain`)."""
        if self._deep is None:
            return self._engine.rank_proba_one(x, False)
        return self._deep_proba(x)

    def predict_one(self, x, **kwargs):
        """The labels predicted relevant to ``x``: ``{label: bool}``, those whose probability
        of being relevant (:meth:`predict_proba_one`) is at least 1/2."""
        if self._deep is None:
            return self._engine.rank_proba_one(x, True)
        return {label: p[True] >= 0.5 for label, p in self._deep_proba(x).items()}

    def _deep_proba(self, x) -> dict:
        return self._deep.combine_labels(
            self._engine.rank_proba_one(x, False), self._deep.chain._engine.rank_proba_one(x, False)
        )

    def _chain_losses(self, engines, x, label) -> tuple | None:
        """Each chain's rank loss on ``x`` (:func:`~river_boost.potentials.rank_loss` of the
        True probabilities of its ``predict_proba_one``, ties counting 1/2; labels it does not
        know yet score lowest), or ``None`` for a label set without a (relevant, irrelevant)
        pair, which teaches Hedge nothing."""
        losses = []
        for e in engines:
            proba = e.rank_proba_one(x, False)
            labels = [*proba, *(c for c in label if c not in proba)]
            scores = [proba[c][True] if c in proba else -math.inf for c in labels]
            loss = rank_loss(scores, [label.get(c, False) for c in labels])
            if math.isnan(loss):
                return None
            losses.append(loss)
        return tuple(losses)

    @property
    def labels(self) -> list:
        """The label space so far, in order of first appearance."""
        return list(self._task.labels)

    @property
    def n_skipped(self) -> int:
        """Labelled examples with an empty or full label set (nothing to rank, not learned)."""
        return self._task.n_skipped
