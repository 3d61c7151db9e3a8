"""Multiclass online boosters: AdaBoost.OLM and OnlineMBBM (Jung, Goetz & Tewari 2017).

Both share :class:`MulticlassBooster`: the label space (classes join when first seen, without
a restart), the weak-learner pool, cost-sensitive weak predictions and River plumbing. For an
example, the booster walks along the learners keeping the vote vector ``s`` over the classes;
learner ``i`` is shown a cost matrix ``C^i`` computed from ``s^{i-1}`` and predicts the label
with the least expected cost under its own ``predict_proba_one``.

Ties (between labels of equal cost or equal votes) are broken deterministically by a fixed
label order: the largest label wins when labels can be sorted (so ``True`` beats ``False``, as
in the binary boosters' ``sign(0) = +1``), else the label seen first. Predictions are pure
functions of the booster's state.

"""

from __future__ import annotations

import math

import numpy as np
from river import base

from .base import Adaptive, Booster
from .core import check_sample_weight, clean_features
from .potentials import MulticlassZeroOnePotential

__all__ = ["MulticlassBooster", "AdaBoostOLM", "OnlineMBBM"]

WEAK_PREDICTIONS = ("cost", "argmax")
# Potentials are exact up to float rounding (~1e-16); a weight below this is an exact zero.
ZERO_WEIGHT = 1e-12


def _sigmoid_neg(d):
    """``1 / (1 + exp(d))`` elementwise, without overflow."""
    return 0.5 * (1.0 - np.tanh(0.5 * np.asarray(d, dtype=float)))


class MulticlassBooster(Booster, base.Classifier):
    """Shared machinery of the multiclass boosters (not meant to be used directly).

    Labels may be any hashable values; a label seen for the first time joins the label space
    of the booster (and of every probability it returns) immediately, without a restart. The
    label space may also be given up front with ``classes``. Until two classes are known there
    is nothing to boost: every learner learns every example with weight 1.
    Sample weights scale every update (``w=0`` is a no-op; negative, NaN or infinite weights
    raise ``ValueError``); NaN and infinite features are treated as missing; ``None`` is not
    accepted as a label.

    """

    def __init__(
        self,
        model,
        n_models,
        classes,
        weighting,
        weak_prediction,
        diversify,
        feature_fraction,
        min_weight,
        seed,
    ):
        if weak_prediction not in WEAK_PREDICTIONS:
            raise ValueError(
                f"weak_prediction must be one of {WEAK_PREDICTIONS}, got {weak_prediction!r}"
            )
        self._init_booster(
            model, n_models, weighting, diversify, feature_fraction, min_weight, seed
        )
        self.classes = classes
        self.weak_prediction = weak_prediction
        self._classes: list = []  # in order of first appearance
        self._index: dict = {}
        self._rank: list = []  # tie-break rank of each class index (0 wins)
        self._memo_key = None
        self._memo_walk = None
        for c in classes or ():
            self._add_class(c)

    # ------------------------------------------------------------------ River API

    @classmethod
    def _unit_test_params(cls):
        yield {"n_models": 3, "seed": 1}
        yield {"n_models": 2, "weighting": "sampling", "weak_prediction": "argmax", "seed": 2}

    @property
    def _multiclass(self):
        return True

    @property
    def known_classes(self) -> list:
        """The labels known so far (given ``classes``, then new ones in order of arrival)."""
        return list(self._classes)

    def _add_class(self, y) -> int:
        try:
            idx = self._index.get(y)
        except TypeError:
            raise ValueError(f"labels must be hashable, got {y!r}") from None
        if idx is not None:
            return idx
        if y is None:
            raise ValueError("None is not a valid label")
        self._index[y] = idx = len(self._classes)
        self._classes.append(y)
        try:
            order = sorted(range(len(self._classes)), key=lambda j: self._classes[j], reverse=True)
        except TypeError:
            order = list(range(len(self._classes)))
        self._rank = [0] * len(order)
        for position, j in enumerate(order):
            self._rank[j] = position
        self._memo_key = None
        return idx

    def _argbest(self, values, maximize=True) -> int:
        """Index of the best value; ties go to the best-ranked label."""
        best, best_j = None, 0
        for j, v in enumerate(values):
            if best is None or (v > best if maximize else v < best) or (
                v == best and self._rank[j] < self._rank[best_j]
            ):
                best, best_j = v, j
        return best_j

    def _distributions(self, dists) -> list:
        """Each learner's ``predict_proba_one`` as a vector over the known classes."""
        k = len(self._classes)
        out = []
        for proba in dists:
            vec = np.array([proba.get(c, 0.0) for c in self._classes], dtype=float)
            total = vec.sum()
            out.append(vec / total if total > 0 else np.full(k, 1.0 / k))
        return out

    def _walk(self, x):
        """``(clean x, per-learner label index, per-expert vote vectors)`` for ``x``.

        The walk only depends on ``x`` and the booster's state, so the one made for a
        prediction is reused by the ``learn_one`` that follows on the same ``x``.
        """
        clean, dists = self._pool.predict(x)
        if self._memo_key is dists:
            return self._memo_walk
        walk = (clean,) + self._votes(self._distributions(dists))
        self._memo_key, self._memo_walk = dists, walk
        return walk

    def learn_one(self, x, y, w=1.0, **kwargs):
        w = check_sample_weight(w)
        if w == 0.0:
            return
        yi = self._add_class(y)
        self._n_seen += 1
        if len(self._classes) < 2:
            clean = clean_features(x)
            for i in range(self.n_models):
                self._pool.offer(i, clean, y, 1.0, w)
        else:
            clean, labels, scores = self._walk(x)
            self._learn(clean, yi, labels, scores, w)
        self._memo_key = None  # the walk depends on alpha / Hedge state, which just changed

    def predict_proba_one(self, x, **kwargs):
        k = len(self._classes)
        if k == 0:
            return {}
        if k == 1:
            return {self._classes[0]: 1.0}
        _, labels, scores = self._walk(x)
        proba = self._proba(labels, scores)
        return {c: float(p) for c, p in zip(self._classes, proba)}

    def predict_one(self, x, **kwargs):
        proba = self.predict_proba_one(x)
        if not proba:
            return None
        return self._classes[self._argbest([proba[c] for c in self._classes])]

    # ------------------------------------------------------------------ for subclasses

    def _votes(self, vectors):
        raise NotImplementedError

    def _learn(self, x, yi, labels, scores, w):
        raise NotImplementedError

    def _proba(self, labels, scores):
        raise NotImplementedError

    def _weak_label(self, vec, cost_matrix) -> int:
        """The weak learner's label: least expected cost under its own distribution."""
        if self.weak_prediction == "argmax" or cost_matrix is None:
            return self._argbest(vec.tolist())
        return self._argbest((vec @ cost_matrix).tolist(), maximize=False)


class AdaBoostOLM(Adaptive, MulticlassBooster):
    """AdaBoost.OLM: adaptive online multiclass boosting with the logistic loss.

    Algorithm 2 of Jung, Goetz & Tewari (2017). Along the learners the booster keeps the
    weighted vote vector ``s^i = s^{i-1} + alpha_i e_{l_i}``. Learner ``i`` is shown the cost
    matrix (9), the gradient of the multiclass logistic loss
    ``L^r(s) = sum_{l != r} ln(1 + exp(s[l] - s[r]))`` at ``s^{i-1}``, predicts the label ``l_i``
    of least expected cost (or its own argmax, ``weak_prediction="argmax"``), and learns the
    example with weight ``w = -C[y, y] / (k - 1)`` in ``[0, 1]``. ``alpha_i`` follows projected
    online gradient descent on ``L^y(s^{i-1} + alpha e_{l_i})`` (gradient (10)) with rate
    ``learning_rate / ((k - 1) sqrt(t))`` on ``[-2, 2]``; experts (``argmax s^i``) are weighted
    by Hedge, ``v_i <- v_i exp(-1[mistake])``.

    **Prediction** as in :class:`river_boost.AdaBoostOL`: ``"hedge"`` (default) returns the
    Hedge mixture of the experts' softmax probabilities ``softmax(s^i)`` (for two classes,
    exactly AdaBoost.OL's mixture of ``sigmoid(F_i)``); ``"vote"`` the Hedge-weighted vote of
    the experts; ``"random"`` draws an expert, as in the paper.

    **Edges** are the paper's ``gamma_i = sum_t C[y, l_i] / sum_t C[y, y]`` in ``[-1, 1]``.

    **Two classes.** With ``classes=(False, True)``, ``learning_rate=4`` and
    ``weak_prediction="argmax"`` this is AdaBoost.OL step for step: same weights, same
    ``alpha`` updates, same predictions. (With ``"cost"`` the weak prediction depends on
    ``s``: a learner must be more confident to vote with the current majority.)

    Parameters
    ----------
    model
        The weak learner to clone (default: :func:`~river_boost.core.default_model`).
    n_models
        Number of weak learners.
    classes
        Labels known in advance (optional); others join when first seen.
    weighting
        ``"importance"`` or ``"sampling"`` (see :class:`river_boost.OnlineBBM`).
    weak_prediction
        ``"cost"`` (the paper: least expected cost under the learner's probabilities) or
        ``"argmax"`` (the learner's most probable label).
    prediction
        ``"hedge"``, ``"vote"`` or ``"random"``.
    learning_rate
        ``c`` in the OGD rate ``c / ((k - 1) sqrt(t))``; the paper's choice is ``2 sqrt(2)``.
    diversify
        ``True`` (default): draw the trees' ``delta``, ``tau`` and ``grace_period`` at
        random, all but the first learner's (see ``WeakLearnerPool``); ``"paper"``: the
        papers' code (grace period 1-10, per-learner weight scale 10-200); ``False``: clones
        of ``model`` as given.
    feature_fraction
        Fraction of the features each learner sees.
    min_weight
        Unbiased thinning of near-zero importance weights (see ``WeakLearnerPool``).
    seed
        Random seed.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics
    >>> import river_boost

    >>> model = river_boost.AdaBoostOLM(n_models=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
    Accuracy: 82.76%

    References
    ----------
    [^1]: Jung, Y.H., Goetz, J. and Tewari, A., 2017. Online multiclass boosting. In Advances
    in Neural Information Processing Systems (pp. 919-928).

    """

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        classes: tuple | None = None,
        weighting: str = "importance",
        weak_prediction: str = "cost",
        prediction: str = "hedge",
        learning_rate: float = 2 * math.sqrt(2),
        diversify: bool | str = True,
        feature_fraction: float = 1.0,
        min_weight: float = 0.3,
        seed: int | None = None,
    ):
        super().__init__(
            model, n_models, classes, weighting, weak_prediction, diversify, feature_fraction,
            min_weight, seed,
        )  # fmt: skip
        self._init_adaptive(prediction, learning_rate)

    @staticmethod
    def _cost_matrix(s):
        """(9): ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))`` off the diagonal, rows sum to 0."""
        C = _sigmoid_neg(s[:, None] - s[None, :])
        np.fill_diagonal(C, 0.0)
        np.fill_diagonal(C, -C.sum(axis=1))
        return C

    def _votes(self, vectors):
        k = len(self._classes)
        s = np.zeros(k)
        labels, scores = [], []
        cost = self.weak_prediction == "cost"
        for alpha, vec in zip(self._ogd.values, vectors):
            lab = self._weak_label(vec, self._cost_matrix(s) if cost else None)
            s[lab] += alpha
            labels.append(lab)
            scores.append(s.copy())
        return labels, scores

    def _learn(self, x, yi, labels, scores, w):
        k = len(self._classes)
        rate = self._ogd.tick() / (k - 1)  # learning_rate / ((k - 1) sqrt(t))
        s_prev = np.zeros(k)
        mistakes = []
        for i, (lab, s_i) in enumerate(zip(labels, scores)):
            # -C[y, j] for j != y: the logistic weights of the wrong labels
            sig = _sigmoid_neg(s_prev[yi] - s_prev)
            sig[yi] = 0.0
            total = float(sig.sum())
            c_yl = float(sig[lab]) if lab != yi else -total
            self._pool.record_edge(i, w * c_yl, -w * total)
            self._pool.offer(i, x, self._classes[yi], total / (k - 1), w)
            alpha = self._ogd.values[i]
            if lab == yi:  # f'(alpha) of L^y(s + alpha e_y)
                others = np.delete(s_prev, yi)
                grad = -float(_sigmoid_neg(s_prev[yi] + alpha - others).sum())
            else:
                grad = float(_sigmoid_neg(s_prev[yi] - s_prev[lab] - alpha))
            self._ogd.step(i, w * grad, rate)
            mistakes.append(0.0 if self._argbest(s_i.tolist()) == yi else 1.0)
            s_prev = s_i
        self._hedge.update(mistakes, scale=w)

    def _proba(self, labels, scores):
        v = self._hedge._weights
        k = len(self._classes)
        out = np.zeros(k)
        if self.prediction == "hedge":
            for vi, s in zip(v, scores):
                if vi:
                    e = np.exp(s - s.max())
                    out += vi * e / e.sum()
        else:
            for vi, s in zip(v, scores):
                out[self._argbest(s.tolist())] += vi
        return out / out.sum()

    def predict_one(self, x, **kwargs):
        if self.prediction != "random" or len(self._classes) < 2:
            return super().predict_one(x)
        i = self._hedge.draw(self._rng)
        return self._classes[self._argbest(self._walk(x)[2][i].tolist())]



class OnlineMBBM(MulticlassBooster):
    """Online multiclass boost-by-majority (OnlineMBBM) with exact potentials.

    Algorithm 1 of Jung, Goetz & Tewari (2017) with the multiclass 0-1 loss. Learner ``i`` is
    shown the normalised cost matrix (5) built from the potentials
    ``phi_{N-i}^r(s^{i-1} + e_l)`` (the chance that the remaining ``N - i`` votes, drawn from
    ``u_gamma^r``, leave a wrong label tied with or ahead of ``r``), predicts the label of
    least expected cost, and learns the example with probability / importance
    ``p = w / w*`` where ``w = sum_l [phi(s + e_l) - phi(s + e_y)]``.

    **Exact potentials, no Monte Carlo** (the paper simulated them):
    :class:`river_boost.potentials.MulticlassZeroOnePotential` conditions on the votes of the
    right label and counts the capped multinomial of the others exactly, and caches results
    under ``(votes left, sorted gaps)``. Labels with equal scores are interchangeable, so a
    cost matrix costs ``G^2 + G`` potentials for ``G`` distinct scores.

    **Weight bound** ``w* = (k - 1) min(1, k M_n)`` with ``M_n`` the largest point
    probability of the gap between the right label's and one wrong label's remaining votes
    (a coupling argument, see ``MulticlassZeroOnePotential.max_weight``; tested to hold over
    all reachable states for small ``N, k``). With importance weighting only relative weights
    matter (they are rescaled to unit mean); the bound matters for ``weighting="sampling"``.

    **Two classes.** With ``k = 2`` the weights are exactly twice Online BBM's (formula (5),
    ties counted as mistakes in both): ``w_MBBM = 2 w_BBM``. With importance weighting only
    relative weights reach the learners, so ``OnlineMBBM(classes=(False, True),
    weak_prediction="argmax")`` makes the same predictions as ``OnlineBBM``.

    **Prediction** is the unweighted majority vote; ``predict_proba_one`` returns the
    smoothed vote shares ``(votes_l + 1/k) / (N + 1)``.

    **Edges**: ``gamma_i = 1 - k sum_t w_t D_t[y_t, l_t] / sum_t w_t`` from the weak learning
    condition (1): 0 for random guessing, 1 for a learner that is always right.

    Parameters
    ----------
    model
        The weak learner to clone (default: :func:`~river_boost.core.default_model`).
    n_models
        Number of weak learners ``N``.
    gamma
        Assumed edge, in ``(0, 1)``.
    classes
        Labels known in advance (optional); others join when first seen.
    weighting
        ``"importance"`` or ``"sampling"``.
    weak_prediction
        ``"cost"`` (the paper) or ``"argmax"``.
    diversify
        ``True`` (default): draw the trees' ``delta``, ``tau`` and ``grace_period`` at
        random, all but the first learner's (see ``WeakLearnerPool``); ``"paper"``: the
        papers' code (grace period 1-10, per-learner weight scale 10-200); ``False``: clones
        of ``model`` as given.
    feature_fraction
        Fraction of the features each learner sees.
    min_weight
        Unbiased thinning of near-zero importance weights.
    seed
        Random seed.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics
    >>> import river_boost

    >>> model = river_boost.OnlineMBBM(n_models=5, gamma=0.3, seed=42)
    >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
    Accuracy: 79.04%

    >>> model.learner_updates  # the last learners only see undecided examples
    [2310, 2310, 2310, 68, 28]

    References
    ----------
    [^1]: Jung, Y.H., Goetz, J. and Tewari, A., 2017. Online multiclass boosting. In Advances
    in Neural Information Processing Systems (pp. 919-928).

    """

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        gamma: float = 0.1,
        classes: tuple | None = None,
        weighting: str = "importance",
        weak_prediction: str = "cost",
        diversify: bool | str = True,
        feature_fraction: float = 1.0,
        min_weight: float = 0.3,
        seed: int | None = None,
    ):
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"gamma must lie in (0, 1), got {gamma}")
        self.gamma = gamma
        self._potential_ = None
        self._walk_costs: list = []
        super().__init__(
            model, n_models, classes, weighting, weak_prediction, diversify, feature_fraction,
            min_weight, seed,
        )  # fmt: skip

    @property
    def _potential(self) -> MulticlassZeroOnePotential:
        """The exact 0-1 potential for the current number of classes (rebuilt when it grows)."""
        k = len(self._classes)
        if self._potential_ is None or self._potential_.n_classes != k:
            self._potential_ = MulticlassZeroOnePotential(k, self.gamma)
        return self._potential_

    def _votes(self, vectors):
        k = len(self._classes)
        s = np.zeros(k, dtype=int)
        labels, scores = [], []
        self._walk_costs = []  # each learner's cost matrix, reused by the learn_one that follows
        for i, vec in enumerate(vectors, start=1):
            cost = None
            if self.weak_prediction == "cost":
                C = self._potential.cost_matrix(self.n_models - i, s)
                self._walk_costs.append(C)
                D = C - np.diag(C)[:, None]
                w = D.sum(axis=1, keepdims=True)
                cost = np.divide(D, w, out=np.zeros_like(D), where=w > 0)
            lab = self._weak_label(vec, cost)
            s[lab] += 1
            labels.append(lab)
            scores.append(s.copy())
        return labels, scores

    def _learn(self, x, yi, labels, scores, w):
        k = len(self._classes)
        pot = self._potential
        s_prev = np.zeros(k, dtype=int)
        y = self._classes[yi]
        costs = self._walk_costs if self.weak_prediction == "cost" else None
        for i, (lab, s_i) in enumerate(zip(labels, scores)):
            n = self.n_models - (i + 1)
            row = costs[i][yi].tolist() if costs else pot.cost_row(n, s_prev, yi)
            weight = math.fsum(c - row[yi] for c in row)
            if weight < ZERO_WEIGHT:  # an exact 0 (decided example) seen through float noise
                weight = 0.0
            else:
                d_yl = (row[lab] - row[yi]) / weight
                self._pool.record_edge(i, w * weight * (1.0 - k * d_yl), w * weight)
            self._pool.offer(i, x, y, min(1.0, weight / pot.max_weight(n)), w)
            s_prev = s_i

    def _proba(self, labels, scores):
        k = len(self._classes)
        votes = scores[-1].astype(float)
        return (votes + 1.0 / k) / (self.n_models + 1.0)

