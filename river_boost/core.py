"""The small core every booster shares.

- :class:`WeakLearnerPool`: ``n_models`` clones of a River classifier, optionally diversified
  (random Hoeffding-tree parameters, random feature subsets), that vote and learn with a weight
  ``p`` in ``[0, 1]`` either as an importance weight or by rejection sampling.
- :class:`Hedge`: exponential weights over the boosters' ``N`` experts.
- :class:`ProjectedOGD`: online gradient descent on the learner weights ``alpha``, projected on
  an interval.
- input checks shared by all boosters (labels, sample weights, feature values).

"""

from __future__ import annotations

import hashlib
import inspect
import math
import numbers
import random

import numpy as np
from river import base

from .trees import FastGaussianSplitter, FastHoeffdingTreeClassifier

__all__ = [
    "WeakLearnerPool",
    "Hedge",
    "ProjectedOGD",
    "as_binary_label",
    "check_sample_weight",
    "clean_features",
    "WEIGHTINGS",
]

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
    """River's Hoeffding tree, faster: :class:`~river_boost.trees.FastHoeffdingTreeClassifier`
    (cached naive-Bayes leaves) with :class:`~river_boost.trees.FastGaussianSplitter` (fused
    split search). The same tree, grown and predicting the same way to the last bit."""
    return FastHoeffdingTreeClassifier(splitter=FastGaussianSplitter())


def as_binary_label(y) -> bool:
    """Map a binary label (bool, numpy bool, 0/1 integer or float) to a Python bool.

    Raises ``ValueError`` for anything else, so that a multiclass stream fed to a binary
    booster fails loudly on the first offending label instead of being silently binarised.
    """
    if isinstance(y, (bool, np.bool_, numbers.Number)):
        if y == 1:
            return True
        if y == 0:
            return False
    raise ValueError(
        f"binary boosters take labels True/False (or 1/0), got {y!r}; "
        "use a multiclass booster for other label sets"
    )


def check_sample_weight(w) -> float:
    """Return ``w`` as a float, or raise ``ValueError`` if it is negative, NaN or infinite."""
    try:
        w = float(w)
    except (TypeError, ValueError):
        raise ValueError(f"sample weight must be a number, got {w!r}") from None
    if not math.isfinite(w) or w < 0:
        raise ValueError(f"sample weight must be finite and >= 0, got {w!r}")
    return w


def _feature_order(name):
    return (type(name).__name__, name)


def clean_features(x: dict) -> dict:
    """The features as the weak learners see them: finite values, in a canonical order.

    - A NaN or infinite value is treated as a *missing* feature (River's learners handle
      missing features; they would absorb a NaN silently into their statistics).
    - Keys are sorted, so the boosters do not depend on the order of the features in ``x``:
      Hoeffding trees break near-ties between split candidates by iteration order.

    ``x`` itself is never modified.
    """
    items = [
        (k, v) for k, v in x.items() if not (isinstance(v, float) and not math.isfinite(v))
    ]
    try:
        items.sort(key=lambda kv: kv[0])
    except TypeError:  # keys of mixed types
        items.sort(key=lambda kv: _feature_order(kv[0]))
    return dict(items)


def accepts_sample_weight(model) -> bool:
    """Whether ``model.learn_one`` takes a ``w`` keyword (or any keyword)."""
    try:
        params = inspect.signature(model.learn_one).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "w" or p.kind is p.VAR_KEYWORD for p in params)


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class WeakLearnerPool:
    """``n_models`` weak learners that vote on ``x`` and learn with a weight in ``[0, 1]``.

    Parameters
    ----------
    model
        The River classifier to clone.
    n_models
        Number of clones.
    weighting
        ``"importance"``: learner ``i`` is called with ``w = sample_weight * p / mean_p_i``
        where ``mean_p_i`` is the running mean of the ``p`` it has been offered. Importance
        weighting is invariant to a common scale in theory, but Hoeffding trees count *weight*
        in their grace period and Hoeffding bound, so unscaled weights in ``[0, 1]`` would keep
        trees from growing; dividing by the mean makes the weights sum to the number of
        examples offered, so a tree grows at its usual pace while keeping the booster's
        relative weighting. ``p = 0`` skips the call (River's trees may divide by the weight).
        ``"sampling"``: the learner gets the example, with the stream's sample weight, with
        probability ``p`` (rejection sampling; AdaBoost.OL.S). A learner whose ``learn_one``
        takes no ``w`` can only be used with sampling; a sample weight is then honoured by
        learning the example ``floor(w)`` times, plus once with probability ``frac(w)``.
    diversify
        Draw the ``delta``, ``tau`` and ``grace_period`` of every clone but the first at
        random, as the papers' experiments did (log-uniform in ``[1e-5, 0.9]``, log-uniform in
        ``[1e-3, 1]``, uniform in ``[20, 200]``); ``"paper"`` is the papers' code: grace period
        in ``[1, 10]``, and every weight learner ``i`` receives multiplied by a constant drawn
        once per learner, uniform in ``[10, 200]`` (when the model takes weights). Only
        parameters the model has are drawn.
        The first learner stays ``model`` as given, so the first expert is the plain model:
        with all learners diversified, AdaBoost.OL's accuracy varied by ±1.9 points across
        seeds on Hyperplane (a bad draw for learner 1 hurts every expert); keeping learner 1
        plain brought that to ±0.1 and made it at least as accurate as a single tree on every
        benchmark stream (``benchmarks/RESULTS.md``).
    feature_fraction
        Each learner sees a random subset of about this fraction of the features. Membership
        of a feature is a deterministic hash of (seed, learner, feature name), so features
        that appear mid-stream are assigned consistently and no feature list must be known in
        advance. ``1.0`` (default) gives every learner every feature.
    min_weight
        Importance mode only: a rescaled weight ``w < min_weight`` is passed as ``min_weight``
        with probability ``w / min_weight`` and skipped otherwise. The expected weight is
        unchanged, but the many near-zero updates a booster makes on easy examples (which
        cost a full tree update each and barely move it) mostly disappear. ``0`` gives pure
        importance weighting.
    seed
        Seeds the diversification, the feature subsets and the sampling.

    """

    def __init__(
        self,
        model: base.Classifier,
        n_models: int,
        weighting: str = "importance",
        diversify: bool = False,
        feature_fraction: float = 1.0,
        min_weight: float = 0.0,
        seed: int | None = None,
    ):
        if n_models < 1:
            raise ValueError(f"n_models must be >= 1, got {n_models}")
        if weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
        if diversify not in DIVERSIFY_MODES:
            raise ValueError(f"diversify must be one of {DIVERSIFY_MODES}, got {diversify!r}")
        if not 0.0 < feature_fraction <= 1.0:
            raise ValueError(f"feature_fraction must lie in (0, 1], got {feature_fraction}")
        self.n_models = n_models
        self.weighting = weighting
        if not 0.0 <= min_weight <= 1.0:
            raise ValueError(f"min_weight must lie in [0, 1], got {min_weight}")
        self._accepts_w = accepts_sample_weight(model)
        if weighting == "importance" and not self._accepts_w:
            raise ValueError(
                f"{type(model).__name__}.learn_one takes no sample weight `w`, so it cannot be "
                "given importance weights; use weighting='sampling'"
            )
        self.feature_fraction = feature_fraction
        self.min_weight = min_weight
        self._rng = random.Random(seed)
        # The first learner is always `model` as given: expert 1 (the first learner alone) is
        # then the plain model, which Hedge-based boosters can always fall back to.
        self.models = [
            self._make_clone(model, diversify if i > 0 else False) for i in range(n_models)
        ]
        # Salts for the feature-subset hash; drawn even when unused so that toggling
        # feature_fraction does not change the sampling stream.
        self._salts = [self._rng.getrandbits(64) for _ in range(n_models)]
        self._weight_scales = [1.0] * n_models
        if diversify == "paper" and self._accepts_w:
            for i in range(1, n_models):
                self._weight_scales[i] = self._rng.uniform(*PAPER_WEIGHT_SCALE)
        self._feature_masks: list[dict] = [{} for _ in range(n_models)]
        self._offered = [0.0] * n_models  # sum of p offered to each learner
        self._n_offered = [0] * n_models
        self._n_updates = [0] * n_models  # learn_one calls per learner
        self._n_zero = [0] * n_models  # offers with weight exactly 0
        # numerator and denominator of each learner's empirical edge (see record_edge)
        self._edge_num = [0.0] * n_models
        self._edge_den = [0.0] * n_models
        self._memo_x: dict | None = None
        self._memo_votes: tuple | None = None

    def _make_clone(self, model: base.Classifier, diversify) -> base.Classifier:
        if not diversify:
            return model.clone()
        ranges = PAPER_DIVERSIFY_RANGES if diversify == "paper" else DIVERSIFY_RANGES
        params = model._get_params()
        new = {}
        if "delta" in params:
            new["delta"] = _log_uniform(self._rng, *ranges["delta"])
        if "tau" in params:
            new["tau"] = _log_uniform(self._rng, *ranges["tau"])
        if "grace_period" in params:
            new["grace_period"] = self._rng.randint(*ranges["grace_period"])
        return model.clone(new)

    # ------------------------------------------------------------------ features

    def _view(self, i: int, x: dict) -> dict:
        """The features learner ``i`` sees."""
        if self.feature_fraction >= 1.0:
            return x
        mask = self._feature_masks[i]
        out = {}
        for f, v in x.items():
            keep = mask.get(f)
            if keep is None:
                digest = hashlib.blake2b(
                    repr(f).encode(), digest_size=8, key=self._salts[i].to_bytes(8, "little")
                ).digest()
                keep = mask[f] = int.from_bytes(digest, "little") < self.feature_fraction * 2**64
            if keep:
                out[f] = v
        return out

    # ------------------------------------------------------------------ voting

    def predict(self, x: dict) -> tuple:
        """``(clean x, each learner's predict_proba_one)`` for a raw feature dict ``x``.

        ``x`` goes through :func:`clean_features` first. The result is memoised for the last
        ``x`` (compared by value) until the next update, because River's progressive
        validation asks for a prediction and then learns the same ``x``.
        """
        if self._memo_votes is not None and x == self._memo_x:
            return self._memo_votes
        clean = clean_features(x)
        result = (
            clean,
            tuple(m.predict_proba_one(self._view(i, clean)) for i, m in enumerate(self.models)),
        )
        self._memo_x = dict(x)
        self._memo_votes = result
        return result

    def probas(self, x: dict) -> tuple:
        """``(clean x, each learner's probability of True)``; 0.5 for a learner with no opinion."""
        clean, dists = self.predict(x)
        out = []
        for proba in dists:
            p_true = proba.get(True, 0.0)
            total = p_true + proba.get(False, 0.0)
            out.append(p_true / total if total > 0 else 0.5)
        return clean, tuple(out)

    @staticmethod
    def to_votes(probas) -> list:
        """Hard votes in ``{-1, +1}``; a learner at exactly 0.5 votes +1 (``sign(0) = 1``)."""
        return [1 if p >= 0.5 else -1 for p in probas]

    # ------------------------------------------------------------------ learning

    def record_edge(self, i: int, numerator: float, denominator: float) -> None:
        """Add to learner ``i``'s empirical edge ``sum(numerator) / sum(denominator)``.

        Each booster family defines its edge (papers differ); the pool only accumulates.
        """
        self._edge_num[i] += numerator
        self._edge_den[i] += denominator

    def offer(self, i: int, x: dict, y, p: float, sample_weight: float = 1.0) -> float:
        """Offer ``(x, y)`` to learner ``i`` with probability / importance ``p`` in [0, 1].

        Returns the weight passed to the learner (0 if it was not called).
        """
        self._offered[i] += p
        self._n_offered[i] += 1
        if p <= 0.0:
            self._n_zero[i] += 1
            return 0.0
        if self.weighting == "importance":
            w = p * self._n_offered[i] / self._offered[i]
            if w < self.min_weight:
                # Unbiased thinning of negligible updates: same expected weight, far fewer calls.
                if self._rng.random() * self.min_weight >= w:
                    return 0.0
                w = self.min_weight
            w *= sample_weight * self._weight_scales[i]
        elif self._rng.random() < p:
            w = sample_weight * self._weight_scales[i]
        else:
            return 0.0
        self._memo_votes = None  # a learner changes: the memoised predictions are stale
        self._n_updates[i] += 1
        if self._accepts_w:
            self.models[i].learn_one(self._view(i, x), y, w=w)
        else:
            # Sampling mode with a learner that takes no weight: learn the example floor(w)
            # times plus once more with probability frac(w), which is w in expectation.
            copies = int(w) + (self._rng.random() < w - int(w))
            for _ in range(copies):
                self.models[i].learn_one(self._view(i, x), y)
        return w

    @property
    def edges(self) -> list:
        """Each learner's recorded edge (0 while nothing has been recorded)."""
        return [n / d if d else 0.0 for n, d in zip(self._edge_num, self._edge_den)]



class Hedge:
    """Exponential weights over ``n`` experts, kept in log space so they never underflow.

    ``update(losses, scale)`` multiplies expert ``i``'s weight by ``exp(-scale * losses[i])``.
    """

    def __init__(self, n: int):
        self.log_weights = [0.0] * n
        self._weights = [1.0 / n] * n

    def update(self, losses, scale: float = 1.0) -> None:
        if not any(losses):
            return
        lw = [w - scale * loss for w, loss in zip(self.log_weights, losses)]
        top = max(lw)
        # Re-centre so the best expert has log-weight 0: bounded state on long streams.
        self.set_log_weights([w - top for w in lw])

    def set_log_weights(self, log_weights) -> None:
        self.log_weights = list(log_weights)
        exp = math.exp
        raw = [exp(w) for w in self.log_weights]
        total = sum(raw)
        self._weights = [r / total for r in raw]  # read on every prediction: cache it

    @property
    def weights(self) -> list:
        """Normalised expert weights (a probability vector)."""
        return list(self._weights)

    def draw(self, rng: random.Random) -> int:
        """Index of an expert drawn with probability proportional to its weight."""
        return rng.choices(range(len(self.log_weights)), weights=self.weights)[0]


class ProjectedOGD:
    """Online gradient descent on a vector, projected coordinate-wise on ``[-bound, bound]``.

    The learning rate at step ``t`` (1-based, one step per example) is ``lr / sqrt(t)``.
    """

    def __init__(self, n: int, lr: float, bound: float = 2.0):
        self.values = [0.0] * n
        self.lr = lr
        self.bound = bound
        self.t = 0

    def tick(self) -> float:
        """Advance to the next example and return its learning rate."""
        self.t += 1
        return self.lr / math.sqrt(self.t)

    def step(self, i: int, gradient: float, rate: float) -> None:
        v = self.values[i] - rate * gradient
        self.values[i] = min(self.bound, max(-self.bound, v))
