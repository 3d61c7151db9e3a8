"""What every booster has, whatever its task: parameters, the weak-learner pool, diagnostics."""

from __future__ import annotations

import random

from river import base

from .core import Hedge, ProjectedOGD, WeakLearnerPool, default_model

__all__ = ["Booster", "Adaptive"]


class Booster(base.Estimator):
    """Stores the shared constructor parameters under their own names (so ``clone()`` works),
    builds the :class:`~river_boost.core.WeakLearnerPool` and exposes the diagnostics.

    Task classes mix this with ``base.Classifier`` (or ``base.MultiLabelClassifier``) and
    implement learning and prediction.
    """

    def _init_booster(
        self, model, n_models, weighting, diversify, feature_fraction, min_weight, seed
    ):
        self.model = model
        self.n_models = n_models
        self.weighting = weighting
        self.diversify = diversify
        self.feature_fraction = feature_fraction
        self.min_weight = min_weight
        self.seed = seed
        self._rng = random.Random(seed)
        self._pool = WeakLearnerPool(
            model=model if model is not None else default_model(),
            n_models=n_models,
            weighting=weighting,
            diversify=diversify,
            feature_fraction=feature_fraction,
            min_weight=min_weight,
            seed=self._rng.getrandbits(64) if seed is not None else None,
        )
        self._n_seen = 0

    @property
    def models(self) -> list:
        """The weak learners, in boosting order."""
        return list(self._pool.models)

    @property
    def edges(self) -> list:
        """Empirical edge of each learner, as the booster's paper defines it (class docs)."""
        return self._pool.edges

    @property
    def learner_updates(self) -> list:
        """How many times each learner's ``learn_one`` was called."""
        return list(self._pool._n_updates)

    @property
    def zero_weights(self) -> list:
        """How many examples each learner was offered with weight exactly 0 (no update)."""
        return list(self._pool._n_zero)

    @property
    def n_seen(self) -> int:
        """Number of examples learned (with non-zero weight)."""
        return self._n_seen

    @property
    def alphas(self) -> list:
        """Vote weight of each learner (all 1 for unweighted majority votes)."""
        return [1.0] * self.n_models

    @property
    def expert_weights(self) -> list:
        """Weight of each expert (prefix of learners) in the final prediction.

        Majority-vote boosters follow the last expert only.
        """
        return [0.0] * (self.n_models - 1) + [1.0]


class Adaptive:
    """The adaptive boosters' extra state (AdaBoost.OL, AdaBoost.OLM): learner weights
    ``alpha`` by projected online gradient descent on ``[-2, 2]``, Hedge over the experts,
    and the choice of final prediction. Mixed in before the task's booster class.
    """

    PREDICTIONS = ("hedge", "vote", "random")

    def _init_adaptive(self, prediction: str, learning_rate: float) -> None:
        if prediction not in self.PREDICTIONS:
            raise ValueError(f"prediction must be one of {self.PREDICTIONS}, got {prediction!r}")
        if not learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, got {learning_rate}")
        self.prediction = prediction
        self.learning_rate = learning_rate
        self._ogd = ProjectedOGD(self.n_models, lr=learning_rate, bound=2.0)
        self._hedge = Hedge(self.n_models)

    @classmethod
    def _unit_test_params(cls):
        yield from super()._unit_test_params()
        yield {"n_models": 3, "prediction": "random", "seed": 3}

    @property
    def alphas(self) -> list:
        """The learners' vote weights ``alpha_i``."""
        return list(self._ogd.values)

    @property
    def expert_weights(self) -> list:
        """Hedge's normalised weights of the experts."""
        return self._hedge.weights
