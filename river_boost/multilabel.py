"""Multi-label ranking boosters (Jung & Tewari 2018): Ada.OLMR.

A multi-label example is ``(x, y)`` with ``y`` a dict ``{label: bool}``. The boosters keep a
score per label (cumulative weighted votes of multiclass weak learners, each voting with its
``predict_proba_one`` distribution over the labels); the scores rank the labels. Labels join
the label space the first time they appear as a key of ``y``; a known label missing from a
later ``y`` counts as irrelevant.

"""

from __future__ import annotations

import math

import numpy as np
from river import base, tree

from .base import Adaptive, Booster
from .core import as_binary_label, check_sample_weight
from .potentials import RankingPairPotential, sigmoid

__all__ = [
    "AdaOLMR",
    "OnlineBMR",
    "RankingBooster",
    "logistic_rank_gradient",
    "rank_loss",
]


def _pairs(scores: np.ndarray, relevant: np.ndarray):
    """Score differences ``s[r] - s[l]`` for every (relevant l, irrelevant r) pair."""
    return scores[~relevant][None, :] - scores[relevant][:, None]


def rank_loss(scores, relevant) -> float:
    """The paper's rank loss: the share of (relevant, irrelevant) pairs ranked the wrong way
    round, ties counting 1/2. ``nan`` when ``relevant`` is empty or full (no pairs).

    >>> rank_loss([3.0, 1.0, 2.0], [True, True, False])
    0.5

    """
    scores, relevant = np.asarray(scores, dtype=float), np.asarray(relevant, dtype=bool)
    n_rel = int(relevant.sum())
    if n_rel == 0 or n_rel == len(relevant):
        return math.nan
    d = _pairs(scores, relevant)
    return float(((d > 0).sum() + 0.5 * (d == 0).sum()) / d.size)


def logistic_rank_gradient(scores, relevant) -> np.ndarray:
    """Gradient of the logistic rank surrogate
    ``L(s) = w_Y sum_{l in Y} sum_{r not in Y} log(1 + exp(s[r] - s[l]))``, ``w_Y = 1/(|Y||Y^c|)``.

    Relevant labels get negative entries, irrelevant ones positive, summing to 0; ``||c||_1 / 2``
    is the paper's weight (9).

    >>> [float(c) for c in logistic_rank_gradient([0.0, 0.0, 0.0], [True, False, False])]
    [-0.5, 0.25, 0.25]

    """
    scores, relevant = np.asarray(scores, dtype=float), np.asarray(relevant, dtype=bool)
    d = _pairs(scores, relevant)
    sig = 0.5 * (1.0 + np.tanh(0.5 * d))  # sigmoid(s[r] - s[l]) without overflow
    w = 1.0 / d.size
    grad = np.empty(len(scores))
    grad[relevant] = -w * sig.sum(axis=1)
    grad[~relevant] = w * sig.sum(axis=0)
    return grad


class RankingBooster(Booster, base.MultiLabelClassifier):
    """What the multi-label ranking boosters share (not meant to be used directly): the label
    space, reading weak learners as distributions over it, the label-count rule, and turning
    scores into ``predict_proba_one`` / ``predict_one``. Subclasses give ``_learn_ranked`` and
    ``score_one``.

    **From scores to a label set.** The booster keeps the running mean of ``|Y|`` (weighted
    by the sample weights) and predicts the ``round(mean)`` best-scored labels (ties
    included). ``predict_proba_one`` gives each label ``P(True) = sigmoid(score - c)`` with
    ``c`` halfway between the last predicted and the first unpredicted score, so the True
    probabilities order the labels exactly as the scores do and ``predict_one`` is
    ``{label: P(True) >= 1/2}``. Rows whose label set is empty or full have no (relevant,
    irrelevant) pair: they teach the learners nothing (they still update the label count);
    ``n_skipped`` counts them.
    """

    def _init_ranking(self):
        self._labels: list = []
        self._label_index: dict = {}
        self._count_sum = 0.0  # running sum of |Y| (weighted) for the label-count rule
        self._count_weight = 0.0
        self._n_skipped = 0

    # ------------------------------------------------------------------ labels

    def _register(self, y: dict) -> None:
        if not isinstance(y, dict):
            raise ValueError(f"a multi-label target is a dict {{label: bool}}, got {type(y).__name__}")
        for label in sorted(y, key=lambda v: (type(v).__name__, v)):
            if label not in self._label_index:
                self._label_index[label] = len(self._labels)
                self._labels.append(label)

    @property
    def labels(self) -> list:
        """The label space so far, in order of first appearance."""
        return list(self._labels)

    def _weak_matrix(self, dists) -> np.ndarray:
        """``H[i]``: learner ``i``'s distribution over the known labels (uniform if none)."""
        k = len(self._labels)
        H = np.full((len(dists), k), 1.0 / k if k else 0.0)
        for i, proba in enumerate(dists):
            row = np.zeros(k)
            for label, p in proba.items():
                j = self._label_index.get(label)
                if j is not None and p > 0:
                    row[j] = p
            total = row.sum()
            if total > 0:
                H[i] = row / total
        return H

    # ------------------------------------------------------------------ learning

    def learn_one(self, x, y, w=1.0, **kwargs):
        w = check_sample_weight(w)
        self._register(y)
        if w == 0.0:
            return
        relevant = np.array([as_binary_label(y.get(label, False)) for label in self._labels])
        self._count_sum += w * relevant.sum()
        self._count_weight += w
        n_rel = int(relevant.sum())
        if n_rel == 0 or n_rel == len(relevant):
            self._n_skipped += 1
            return
        x, dists = self._pool.predict(x)
        self._n_seen += 1
        self._learn_ranked(x, relevant, self._weak_matrix(dists), w)

    def _learn_ranked(self, x, relevant, H, w):
        raise NotImplementedError

    def _teach_relevant(self, i, x, relevant, cost, bound, w):
        """Teach learner ``i`` each relevant label ``l`` with weight ``(max c - c[l]) / bound``."""
        top = cost.max()
        for j in np.flatnonzero(relevant):
            self._pool.offer(i, x, self._labels[j], min(1.0, (top - cost[j]) / bound), w)

    # ------------------------------------------------------------------ prediction

    def score_one(self, x) -> dict:
        """The booster's label scores (higher ranks first): its ranking of the labels."""
        raise NotImplementedError

    def _label_count(self) -> int:
        if not self._count_weight:
            return 0
        return int(math.floor(self._count_sum / self._count_weight + 0.5))

    def predict_proba_one(self, x, **kwargs):
        scores = self.score_one(x)
        if not scores:
            return {}
        ordered = sorted(scores.values(), reverse=True)
        n = self._label_count()
        if n <= 0:
            cut = ordered[0] + 1.0
        elif n >= len(ordered):
            cut = ordered[-1] - 1.0
        else:
            cut = 0.5 * (ordered[n - 1] + ordered[n])
        out = {}
        for label, v in scores.items():
            p = sigmoid(v - cut)
            out[label] = {False: 1.0 - p, True: p}
        return out

    def predict_one(self, x, **kwargs):
        return {label: proba[True] >= 0.5 for label, proba in self.predict_proba_one(x).items()}

    @property
    def n_skipped(self) -> int:
        """Labelled examples with an empty or full label set (nothing to rank, not learned)."""
        return self._n_skipped


class AdaOLMR(Adaptive, RankingBooster):
    """Ada.OLMR: adaptive online boosting for multi-label ranking (Jung & Tewari 2018, Alg. 3).

    Weak learner ``i`` is a multiclass River classifier over the labels; its prediction ``h^i``
    is its ``predict_proba_one`` read as a distribution over the known labels (uniform while it
    has no opinion). Expert ``i`` scores the labels with ``s^i = sum_{j<=i} alpha_j h^j``.

    On each labelled example, along the learners:

    - the cost vector is the gradient (8) of the logistic rank surrogate at ``s^{i-1}``
      (:func:`logistic_rank_gradient`); learner ``i`` is taught every relevant label ``l``
      with importance weight ``max(c) - c[l]`` (what the paper's experiments did), divided by
      its bound 2 to lie in ``[0, 1]`` and handed to the pool's importance / sampling modes;
    - ``alpha_i`` takes a projected online-gradient step on ``[-2, 2]`` with rate
      ``1 / sqrt(t)`` and gradient ``c^{i+1} . h^i``;
    - Hedge multiplies expert ``i``'s weight by ``exp(-rank loss of s^i)``.

    **Scores and predictions.** ``score_one(x)`` returns the label scores: with
    ``prediction="hedge"`` (default, deterministic) the Hedge mixture ``sum_i v_i s^i``; with
    ``"random"`` (the paper) the scores of one expert drawn from Hedge (seeded). Label sets
    and probabilities follow from the scores as in :class:`RankingBooster` (a learned label
    count; True probabilities in score order).

    Parameters
    ----------
    model
        The multiclass weak learner to clone (default: :func:`~river_boost.core.default_model`). Its
        leaves should give ``x``-dependent probabilities before the tree splits (River's
        default adaptive naive-Bayes leaves do): with majority-class leaves, trees that have
        not split yet vote the same distribution for every ``x``. On the paper's emotions set
        (593 rows) no such tree split, and the rank loss was 0.43 instead of 0.23. With trees
        that split every few examples (``diversify="paper"``) it is the other way round:
        majority-class leaves (VFDT's, the paper's learner) took Ada.OLMR's test rank loss on
        emotions from 0.1695 to 0.1591 on the same four seeds (0.1616 over twelve;
        ``benchmarks/RESULTS.md``).
    n_models
        Number of weak learners ``N``.
    prediction
        ``"hedge"`` or ``"random"``, see above.
    learning_rate
        ``c`` in the OGD step ``c / sqrt(t)`` on ``alpha``; the paper's is 1.
    weighting, diversify, feature_fraction, min_weight, seed
        As in the other boosters (``feature_fraction`` gives each learner a random subset of
        the features, as the paper's 20 covariates per learner did).

    Examples
    --------

    >>> from river import datasets
    >>> import river_boost
    >>> from river_boost.metrics import RankLoss, evaluate_ranking

    >>> model = river_boost.AdaOLMR(n_models=3, seed=42)
    >>> evaluate_ranking(datasets.Yeast().take(200), model, RankLoss())
    RankLoss: 0.2570

    References
    ----------
    [^1]: Jung, Y.H. and Tewari, A., 2018. Online boosting algorithms for multi-label ranking.
    In International Conference on Artificial Intelligence and Statistics (pp. 279-287).

    """

    PREDICTIONS = ("hedge", "random")

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        prediction: str = "hedge",
        learning_rate: float = 1.0,
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float = 1.0,
        min_weight: float = 0.3,
        seed: int | None = None,
    ):
        self._init_booster(
            model, n_models, weighting, diversify, feature_fraction, min_weight, seed
        )
        self._init_adaptive(prediction, learning_rate)
        self._init_ranking()

    @classmethod
    def _unit_test_params(cls):
        # majority-class leaves keep River's checks (500 rows of a 14-label set) quick
        fast = tree.HoeffdingTreeClassifier(leaf_prediction="mc", grace_period=50)
        yield {"model": fast, "n_models": 3, "seed": 1}
        yield {"n_models": 2, "prediction": "random", "weighting": "sampling", "seed": 2}

    # ------------------------------------------------------------------ learning

    def _learn_ranked(self, x, relevant, H, w):
        rate = self._ogd.tick()
        alphas, pool = self._ogd.values, self._pool
        s = np.zeros(len(self._labels))
        cost = logistic_rank_gradient(s, relevant)
        losses = []
        for i, h in enumerate(H):
            # the paper's empirical edge (10): -c.h over ||c||_1 / 2
            pool.record_edge(i, -w * float(cost @ h), w * 0.5 * float(np.abs(cost).sum()))
            # max c - c[l] <= 1/|Y^c| + 1/|Y| <= 2
            self._teach_relevant(i, x, relevant, cost, 2.0, w)
            s = s + alphas[i] * h
            losses.append(rank_loss(s, relevant))
            cost = logistic_rank_gradient(s, relevant)  # f_i'(alpha_i) = c^{i+1} . h^i
            self._ogd.step(i, w * float(cost @ h), rate)
        self._hedge.update(losses, scale=w)

    # ------------------------------------------------------------------ prediction

    def _expert_scores(self, x) -> np.ndarray:
        _, dists = self._pool.predict(x)
        H = self._weak_matrix(dists)
        return np.cumsum(np.asarray(self._ogd.values)[:, None] * H, axis=0)

    def score_one(self, x) -> dict:
        if not self._labels:
            return {}
        experts = self._expert_scores(x)
        if self.prediction == "random":
            scores = experts[self._hedge.draw(self._rng)]
        else:
            scores = np.asarray(self._hedge.weights) @ experts
        return {label: float(v) for label, v in zip(self._labels, scores)}


class OnlineBMR(RankingBooster):
    """OnlineBMR: optimal online boosting for multi-label ranking (Jung & Tewari 2018, Alg. 2).

    Every learner has weight 1 and the booster follows the last expert: the label scores are
    the summed weak predictions ``s^N = sum_i h^i`` (each ``h^i`` the learner's
    ``predict_proba_one`` over the labels). On each labelled example, learner ``i`` gets the
    cost vector ``c[l] = phi^{N-i}(s^{i-1} + e_l)`` (2), the expected final loss if it voted
    ``l`` and the remaining ``N - i`` learners were the ``gamma``-edge baseline. The potentials
    are **exact** (:class:`river_boost.potentials.RankingPairPotential`: pair terms of a
    trinomial difference, no Monte Carlo) for the hinge loss (default; the paper's choice
    for distribution-valued predictions) or the rank loss (for single-label learners).

    As in the paper's experiments, learner ``i`` is taught every relevant label ``l`` with
    importance weight ``max(c) - c[l]``, divided by a bound on ``max(c) - min(c)``: 2 for the
    hinge loss (the paper's appendix) and 1 for the rank loss (its potentials lie in
    ``[0, 1]``), so that it lies in ``[0, 1]`` for the pool's importance / sampling modes.
    The edge reported for learner ``i`` is its cost-weighted advantage over a uniform vote,
    ``sum (mean(c) - c . h) / sum (max(c) - min(c))``. Label sets and probabilities follow
    from the scores as in :class:`RankingBooster`.

    Parameters
    ----------
    model
        The multiclass weak learner to clone (default: :func:`~river_boost.core.default_model`; see
        :class:`AdaOLMR`).
    n_models
        Number of weak learners ``N``.
    gamma
        Edge of the baseline learner; the paper tried {.2, .1, .01, .001} for few labels and
        {.05, .01, .005, .001} for many.
    loss
        ``"hinge"`` or ``"rank"``.
    weighting, diversify, feature_fraction, min_weight, seed
        As in :class:`AdaOLMR`.

    Examples
    --------

    >>> from river import datasets
    >>> import river_boost
    >>> from river_boost.metrics import RankLoss, evaluate_ranking

    >>> model = river_boost.OnlineBMR(n_models=3, gamma=0.1, seed=42)
    >>> evaluate_ranking(datasets.Yeast().take(200), model, RankLoss())
    RankLoss: 0.2521

    References
    ----------
    [^1]: Jung, Y.H. and Tewari, A., 2018. Online boosting algorithms for multi-label ranking.
    In International Conference on Artificial Intelligence and Statistics (pp. 279-287).

    """

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        gamma: float = 0.1,
        loss: str = "hinge",
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float = 1.0,
        min_weight: float = 0.3,
        seed: int | None = None,
    ):
        self.gamma = gamma
        self.loss = loss
        self._potential = RankingPairPotential(gamma, loss)
        self._init_booster(
            model, n_models, weighting, diversify, feature_fraction, min_weight, seed
        )
        self._init_ranking()

    @classmethod
    def _unit_test_params(cls):
        fast = tree.HoeffdingTreeClassifier(leaf_prediction="mc", grace_period=50)
        yield {"model": fast, "n_models": 3, "gamma": 0.1, "seed": 1}
        yield {"n_models": 2, "gamma": 0.2, "loss": "rank", "weighting": "sampling", "seed": 2}

    @property
    def potential(self) -> RankingPairPotential:
        return self._potential

    def _learn_ranked(self, x, relevant, H, w):
        bound = 2.0 if self.loss == "hinge" else 1.0
        s = np.zeros(len(self._labels))
        N = self.n_models
        for i, h in enumerate(H):
            cost = self._potential.cost_vector(s, relevant, N - i - 1)
            spread = float(cost.max() - cost.min())
            self._pool.record_edge(i, w * float(cost.mean() - cost @ h), w * spread)
            self._teach_relevant(i, x, relevant, cost, bound, w)
            s = s + h

    def score_one(self, x) -> dict:
        if not self._labels:
            return {}
        _, dists = self._pool.predict(x)
        scores = self._weak_matrix(dists).sum(axis=0)
        return {label: float(v) for label, v in zip(self._labels, scores)}
