"""Readable oracles of the boosters' walk: the papers' pseudocode, plain and slow.

What the boosters' compiled walk must equal: the papers' math with the project's documented
conventions (docstrings of ``river_boost/tasks.py``, ``potentials.py``, ``pool.py``), without
the package's walk code; OnlineMBBM's exact potential comes from ``tests/oracles/dp_oracle.py``.
Covered: weighting ``"importance"`` or ``"sampling"``, no diversification, every feature, no
drift detector, numeric features.

Papers: [BKL15] Beygelzimer, Kale & Luo 2015 (Online BBM: Alg. 1, AdaBoost.OL: Alg. 2);
[JGT17] Jung, Goetz & Tewari 2017 (OnlineMBBM: Alg. 1, AdaBoost.OLM: Alg. 2); [JT18] Jung &
Tewari 2018 (OnlineBMR: Alg. 2, Ada.OLMR: Alg. 3); [O16] Otten 2016 (NH-Boost.DT: Alg. 3,
SquintBoost: Alg. 4); [CLL12] Chen, Lin & Lu 2012 (OSBoost).

Learner indices are 0-based in the code; comments use the papers' 1-based ``i``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random

import numpy as np
from scipy import integrate

from . import dp_oracle

MIN_SAMPLE_WEIGHT = 1e-12  # a smaller sample weight is 0: the example is not learned
MIN_SUPPORT = 2  # learned examples a label needs before the learners' votes count it
OLM_RATE = 2 * math.sqrt(2)  # AdaBoost.OLM's c in its rate c / ((k - 1) sqrt(t))
ZERO_WEIGHT = 1e-12  # OnlineMBBM: a weight below is a decided example's 0 seen through rounding


def clean(x: dict) -> dict:
    """The features the learners see: missing values (None, NaN, infinite, beyond 1e12) left
    out, keys sorted (Hoeffding trees break ties between splits by feature order)."""
    return {k: v for k, v in sorted(x.items()) if v is not None and abs(v) <= 1e12}


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


class Pool:
    """The weak learners and how an offer ``(i, y, p)``, ``p`` in ``[0, 1]``, reaches them.

    ``"importance"``: learner ``i`` learns with weight ``p / mean_i(p)`` (the running mean of
    the ``p`` offered to it) times the sample weight; below ``min_weight``, ``min_weight``
    with probability ``w / min_weight``, else nothing (unbiased thinning). ``"sampling"``: the
    sample weight with probability ``p``. ``p = 0`` teaches nothing. The draws come from the
    pool's generator, seeded by the booster's, after one feature-subset salt per learner.
    """

    def __init__(self, learners, weighting="importance", min_weight=0.3, seed=None):
        self.learners = learners
        self.weighting, self.min_weight = weighting, min_weight
        self.booster_rng = random.Random(seed)  # draws the experts for "random" predictions
        self.rng = random.Random(self.booster_rng.getrandbits(64) if seed is not None else None)
        for _ in learners:
            self.rng.getrandbits(64)  # the feature subsets' salts
        n = len(learners)
        self.offered, self.n_offered = [0.0] * n, [0] * n
        self.updates, self.zeros = [0] * n, [0] * n
        self.edge_sums = [[0.0, 0.0] for _ in range(n)]

    def predict(self, x: dict) -> list:
        return [m.predict_proba_one(x) for m in self.learners]

    def teach(self, x: dict, offers, sample_weight: float) -> None:
        for i, y, p in offers:
            p = float(p)  # as the booster: a NumPy float would make River divide by 0 unchecked
            self.offered[i] += p
            self.n_offered[i] += 1
            if p <= 0.0:
                self.zeros[i] += 1
                continue
            if self.weighting == "importance":
                w = p * self.n_offered[i] / self.offered[i]
                if w < self.min_weight:
                    if self.rng.random() * self.min_weight >= w:
                        continue
                    w = self.min_weight
                w *= sample_weight
            elif self.rng.random() < p:
                w = sample_weight
            else:
                continue
            self.updates[i] += 1
            self.learners[i].learn_one(x, y, w=w)

    def record_edge(self, i: int, numerator: float, denominator: float) -> None:
        self.edge_sums[i][0] += float(numerator)
        self.edge_sums[i][1] += float(denominator)

    @property
    def edges(self) -> list:
        """Each learner's empirical edge ``sum(numerators) / sum(denominators)`` (0 before)."""
        return [n / d if d else 0.0 for n, d in self.edge_sums]


class Experts:
    """The adaptive boosters' vote weights and Hedge ([BKL15] Alg. 2 lines 13 and 15, [JGT17]
    Alg. 2 lines 13 and 15, [JT18] Alg. 3 lines 9 and 13): ``alpha_i`` by online gradient
    descent with rate ``c / (divisor sqrt(t))`` (``t``: examples walked), projected on
    ``[-2, 2]``; expert ``i`` (the first ``i`` learners) has Hedge weight
    ``v_i <- v_i exp(-w loss_i)``, ``w`` the sample weight."""

    def __init__(self, n: int, learning_rate: float):
        self.alphas, self.log_v = [0.0] * n, [0.0] * n
        self.learning_rate, self.t = learning_rate, 0

    @property
    def weights(self) -> list:
        top = max(self.log_v)
        v = [math.exp(lv - top) for lv in self.log_v]
        return [u / sum(v) for u in v]

    def update(self, gradients, losses, divisor: float, w: float) -> None:
        self.t += 1
        eta = self.learning_rate / math.sqrt(self.t) / divisor
        self.alphas = [min(2.0, max(-2.0, a - eta * g)) for a, g in zip(self.alphas, gradients)]
        self.log_v = [lv - w * loss for lv, loss in zip(self.log_v, losses)]


class Oracle:
    """What the three tasks share: the pool, the experts (adaptive rules) and the seed."""

    def __init__(self, learners, adaptive, learning_rate, prediction="hedge",
                 weighting="importance", min_weight=0.3, seed=None):  # fmt: skip
        self.n = len(learners)
        self.pool = Pool(learners, weighting, min_weight, seed)
        self.experts = Experts(self.n, learning_rate) if adaptive else None
        self.prediction = prediction

    def readings(self, x: dict, labels: list, support: list) -> list:
        """Each learner's ``predict_proba_one`` as a distribution over the labels with
        ``MIN_SUPPORT`` learned examples (relevant rows, for ranking; all labels when every
        label or fewer than two have it); uniform over them without an opinion."""
        ok = [n >= MIN_SUPPORT for n in support]
        if all(ok) or sum(ok) < 2:
            ok = [True] * len(ok)
        out = []
        for proba in self.pool.predict(x):
            v = np.array([proba.get(c, 0.0) if o else 0.0 for c, o in zip(labels, ok)])
            out.append(v / v.sum() if v.sum() > 0 else np.array(ok) / sum(ok))
        return out

    def draw(self) -> int:
        """The paper's prediction: an expert drawn with probability proportional to ``v``."""
        return self.pool.booster_rng.choices(range(self.n), weights=self.experts.weights)[0]

    @property
    def alphas(self) -> list:
        return [1.0] * self.n if self.experts is None else list(self.experts.alphas)

    @property
    def expert_weights(self) -> list:
        if self.experts is None:  # the majority vote: the last expert alone
            return [0.0] * (self.n - 1) + [1.0]
        return self.experts.weights


# ----------------------------------------------------------------------------- binary


def bbm_weight(N: int, gamma: float, i: int, s: int) -> float:
    """(5) of [BKL15]: ``w = (Phi_i(s - 1) - Phi_i(s + 1)) / 2`` with ``Phi_i(s) = P(at most
    (N - i - s) / 2 heads in N - i tosses of a (1 + gamma) / 2 coin)``: half the probability
    of exactly ``k = floor((N - i - s + 1) / 2)`` heads."""
    n, q = N - i, (1.0 + gamma) / 2.0
    k = math.floor((n - s + 1) / 2)
    if not 0 <= k <= n:
        return 0.0
    return 0.5 * math.comb(n, k) * q**k * (1.0 - q) ** (n - k)


def nh_weight(i: int, s: float) -> float:
    """[O16] Alg. 3 line 4: ``(Phi(s - 1) - Phi(s + 1)) / 2``, ``Phi(s) = exp([s]_-^2 / 3i)``,
    written ``exp(b) (exp(a - b) - 1) / 2`` so that a small difference keeps its digits."""
    a, b = min(0.0, s - 1.0) ** 2 / (3 * i), min(0.0, s + 1.0) ** 2 / (3 * i)
    return 0.5 * math.exp(b) * math.expm1(a - b)


def squint_weight(R: float, V: float, prior: str) -> float:
    """[O16] Alg. 4 line 3: ``int_0^{1/2} g(eta) exp(eta R - eta^2 V) d eta``, ``g = 1``
    (improper prior, the thesis) or ``2 eta`` (uniform prior), by quadrature."""
    g = (lambda eta: 1.0) if prior == "improper" else (lambda eta: 2.0 * eta)
    f = lambda eta: g(eta) * math.exp(eta * R - eta * eta * V)  # noqa: E731
    return integrate.quad(f, 0.0, 0.5, epsabs=0.0, epsrel=1e-13, limit=200)[0]


class BinaryOracle(Oracle):
    """Labels ``True``/``False``; learner ``i`` votes ``h_i = +1`` iff its ``P(True) >= 1/2``
    (``sign(0) = +1``; no opinion is ``1/2``), ``z_i = y h_i``.

    ``rule``: ``"bbm"`` (OnlineBBM, ``gamma``), ``"nh"`` (NHBoostDT), ``"squint"``
    (SquintBoost, ``prior``), ``"osboost"`` (``gamma``) or ``"ol"`` (AdaBoost.OL:
    ``learning_rate``, ``prediction`` ``"hedge"``, ``"vote"`` or ``"random"``; with
    ``weighting="sampling"`` AdaBoost.OL.S).
    """

    def __init__(self, rule, learners, gamma=0.1, prior="improper", learning_rate=4.0, **pool):
        super().__init__(learners, rule == "ol", learning_rate, **pool)
        self.rule, self.gamma, self.prior = rule, gamma, prior

    def votes(self, x: dict) -> list:
        out = []
        for proba in self.pool.predict(x):
            t, f = proba.get(True, 0.0), proba.get(False, 0.0)
            out.append(1 if (t / (t + f) if t + f > 0 else 0.5) >= 0.5 else -1)
        return out

    def scores(self, h: list) -> list:
        """``F_i = sum_{j <= i} alpha_j h_j``, expert ``i``'s score ([BKL15] Alg. 2 line 5)."""
        return list(itertools.accumulate(alpha * v for alpha, v in zip(self.experts.alphas, h)))

    def sampling_probabilities(self, z: list, edges: list) -> list:
        """Learner ``i`` gets ``p_i = w_i(s^{i-1}) / max w_i`` ([BKL15] Alg. 1 line 9). The
        state moves with the vote ``z_i`` and the learner's running edge ``gamma_i``."""
        N, p = self.n, []
        if self.rule == "bbm":  # margin s^i = s^{i-1} + z_i (Alg. 1 line 6)
            s = 0
            for i in range(1, N + 1):
                # ||w^i||_inf: the largest weight over the margins reachable with i - 1 votes
                top = max(bbm_weight(N, self.gamma, i, m) for m in range(-(i - 1), i, 2))
                p.append(min(1.0, bbm_weight(N, self.gamma, i, s) / top))
                s += z[i - 1]
        elif self.rule == "osboost":  # s <- s + z_i - theta; weight 1 if s <= 0 ([CLL12])
            s, theta = 0.0, self.gamma / (2.0 + self.gamma)
            for i in range(N):
                p.append(1.0 if s <= 0 else (1.0 - self.gamma) ** (s / 2.0))
                s += z[i] - theta
        elif self.rule == "nh":  # s^i = s^{i-1} + z_i / 2 - gamma_i ([O16] Alg. 3 line 6)
            s = worst = 0.0  # worst: an example every earlier learner got wrong (max weight)
            for i in range(1, N + 1):
                p.append(min(1.0, nh_weight(i, s) / nh_weight(i, worst)))
                s = s + 0.5 * z[i - 1] - edges[i - 1]
                worst = worst - 0.5 - edges[i - 1]
        else:  # squint: regret R and variance V of r_j = gamma_j - z_j / 2 ([O16] Alg. 4)
            state = worst = (0.0, 0.0)
            for i in range(N):
                w = squint_weight(*state, self.prior)
                p.append(min(1.0, w / squint_weight(*worst, self.prior)))
                r, r_worst = edges[i] - 0.5 * z[i], edges[i] + 0.5
                state = (state[0] + r, state[1] + r * r)
                worst = (worst[0] + r_worst, worst[1] + r_worst * r_worst)
        return p

    def learn_one(self, x, y, w=1.0) -> None:
        if w < MIN_SAMPLE_WEIGHT:
            return
        x, y = clean(x), bool(y)
        h = self.votes(x)
        z = [v if y else -v for v in h]
        if self.rule == "ol":  # [BKL15] Alg. 2 lines 9-14
            s, p, gradients = 0.0, [], []
            for alpha, zi in zip(self.experts.alphas, z):
                p.append(1.0 / (1.0 + math.exp(s)))  # line 14: -d/ds ln(1 + e^{-s}) at s^{i-1}
                s += alpha * zi  # line 12
                # line 13: d/d alpha of ln(1 + exp(-(s^{i-1} + alpha z_i))), times w
                gradients.append(-w * zi / (1.0 + math.exp(s)))
            losses = [float((f >= 0) != y) for f in self.scores(h)]  # line 15, sign(0) = +1
            self.experts.update(gradients, losses, 1.0, w)
        else:
            p = self.sampling_probabilities(z, self.pool.edges)
        for i in range(self.n):  # gamma_i = (w^i . z^i) / (2 ||w^i||_1), before learning
            self.pool.record_edge(i, w * p[i] * z[i], 2.0 * w * p[i])
        self.pool.teach(x, [(i, y, p[i]) for i in range(self.n)], w)

    def predict_proba_one(self, x) -> dict:
        h = self.votes(clean(x))
        if self.experts is None:  # majority vote, smoothed: (#True + 1/2) / (N + 1)
            p = (h.count(1) + 0.5) / (self.n + 1.0)
        elif self.prediction == "hedge":  # sum_i v_i sigmoid(F_i) = 1/2 + sum v_i tanh(F_i/2)/2
            lean = math.fsum(
                v * math.tanh(f / 2) for v, f in zip(self.experts.weights, self.scores(h))
            )
            p = min(1.0, max(0.0, 0.5 + 0.5 * lean))
        else:  # "vote", "random": the probability that a drawn expert says True
            p = min(1.0, sum(v for v, f in zip(self.experts.weights, self.scores(h)) if f >= 0))
        return {False: 1.0 - p, True: p}

    def predict_one(self, x):
        if self.experts is not None and self.prediction == "random":
            return self.scores(self.votes(clean(x)))[self.draw()] >= 0
        return self.predict_proba_one(x)[True] >= 0.5


# ----------------------------------------------------------------------------- multiclass


@functools.cache
def mbbm_potential(n: int, k: int, gamma: float, gaps: tuple) -> float:
    """``phi_n^r(s)`` ([JGT17] (2)-(3)): the probability that after ``n`` votes drawn from
    ``u_gamma^r`` a wrong label ties or beats ``r``; ``gaps`` are the sorted ``s[r] - s[l]``."""
    return dp_oracle.dense_potential(n, k, (1.0 - gamma) / k + gamma, gaps)


@functools.cache
def mbbm_max_weight(n: int, k: int, gamma: float) -> float:
    """``w*``, a bound on the weight with ``n`` votes left: ``(k - 1) min(1, k M_n)``, ``M_n``
    the largest point probability of the gap between the votes of the right label and of
    one wrong label (a coupling argument, ``MulticlassZeroOnePotential.max_weight``)."""
    M = dp_oracle.max_gap_pmf(k, gamma, (1.0 - gamma) / k + gamma, n)
    return (k - 1) * min(1.0, k * M)


class MulticlassOracle(Oracle):
    """Any labels; a new label joins when first learned. Ties between labels go to the largest
    label (``True`` before ``False``), or the first seen when labels cannot be sorted.

    ``rule``: ``"mbbm"`` (OnlineMBBM, ``gamma``) or ``"olm"`` (AdaBoost.OLM, ``learning_rate``,
    ``prediction``); ``weak_prediction``: ``"cost"`` (least expected cost under the learner's
    distribution, the papers) or ``"argmax"``.
    """

    def __init__(self, rule, learners, gamma=0.1, weak_prediction="cost", learning_rate=OLM_RATE,
                 **pool):  # fmt: skip
        super().__init__(learners, rule == "olm", learning_rate, **pool)
        self.rule, self.gamma, self.weak_prediction = rule, gamma, weak_prediction
        self.classes, self.support = [], []

    def best(self, values, lowest=False) -> int:
        """The label of the largest (``lowest``: smallest) value, ties to the first in order."""
        try:
            order = sorted(range(len(values)), key=self.classes.__getitem__, reverse=True)
        except TypeError:
            order = range(len(values))
        return (min if lowest else max)(order, key=values.__getitem__)

    def least_cost(self, costs, scale: float) -> int:
        """The label of least expected cost; costs within 1e-9 of ``scale`` (the largest cost)
        of the least are ties, to the first in order (the booster's documented rule: a tie
        of the math must not go to whichever label a sum's last bits favour)."""
        least = min(costs)
        tied = [j for j in range(len(costs)) if costs[j] <= least + 1e-9 * scale]
        return self.best([0.0 if j in tied else 1.0 for j in range(len(costs))], lowest=True)

    def cost_matrix(self, i: int, s) -> np.ndarray:
        """``C^i`` at ``s = s^{i-1}``. OnlineMBBM, (4): ``C[r, l] = phi_{N-i}^r(s + e_l)``.
        AdaBoost.OLM, (9): ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))``, ``C[r, r] = -sum_l``."""
        k = len(s)
        C = np.zeros((k, k))
        for r in range(k):
            for l in range(k):
                if self.rule == "mbbm":
                    t = s.copy()
                    t[l] += 1
                    gaps = tuple(sorted(int(t[r] - t[j]) for j in range(k) if j != r))
                    C[r, l] = mbbm_potential(self.n - i, k, self.gamma, gaps)
                elif l != r:
                    C[r, l] = sigmoid(s[l] - s[r])
            if self.rule == "olm":
                C[r, r] = -sum(C[r])
        return C

    def walk(self, vectors) -> tuple:
        """[JGT17] Alg. 1 lines 4-6 / Alg. 2 lines 4-8: learner ``i`` is shown ``C^i``, votes
        ``l_i`` and ``s^i = s^{i-1} + alpha_i e_{l_i}``. Returns the votes, the ``s^{i-1}``
        and ``s^i``, and the cost matrices (None with ``"argmax"``)."""
        s = np.zeros(len(self.classes), dtype=float if self.experts else int)
        labels, before, after, costs = [], [], [], []
        for i, vec in enumerate(vectors, start=1):
            C = None
            if self.weak_prediction == "cost":
                C = self.cost_matrix(i, s)
                D = C
                if self.rule == "mbbm":  # (5): rows minus their diagonal, over their sum
                    D = C - np.diag(C)[:, None]
                    w = D.sum(axis=1, keepdims=True)
                    D = np.divide(D, w, out=np.zeros_like(D), where=w > 0)
                label = self.least_cost((vec @ D).tolist(), float(np.abs(D).max()))
            else:
                label = self.best(vec.tolist())
            before.append(s.copy())
            s[label] += self.experts.alphas[i - 1] if self.experts else 1
            labels.append(label)
            after.append(s.copy())
            costs.append(C)
        return labels, before, after, costs

    def learn_one(self, x, y, w=1.0) -> None:
        if w < MIN_SAMPLE_WEIGHT:
            return
        x = clean(x)
        if y not in self.classes:
            self.classes.append(y)
            self.support.append(0)
        yi, k = self.classes.index(y), len(self.classes)
        self.support[yi] += 1
        if k < 2:  # nothing to boost yet: every learner learns
            self.pool.teach(x, [(i, y, 1.0) for i in range(self.n)], w)
            return
        labels, before, after, costs = self.walk(self.readings(x, self.classes, self.support))
        p, gradients = [], []
        for i in range(1, self.n + 1):
            l, s = labels[i - 1], before[i - 1]
            C = costs[i - 1] if costs[i - 1] is not None else self.cost_matrix(i, s)
            if self.rule == "mbbm":  # Alg. 1 line 9: w^i = sum_l (C[y, l] - C[y, y])
                weight = math.fsum(c - C[yi, yi] for c in C[yi])
                if weight < ZERO_WEIGHT:
                    weight = 0.0
                else:  # edge from the weak learning condition (1): 1 - k D[y, l_i]
                    d = (C[yi, l] - C[yi, yi]) / weight
                    self.pool.record_edge(i - 1, w * weight * (1.0 - k * d), w * weight)
                p.append(min(1.0, weight / mbbm_max_weight(self.n - i, k, self.gamma)))
            else:  # Alg. 2 line 14: w^i = -C[y, y] / (k - 1); edge sum C[y, l_i] / sum C[y, y]
                p.append(-C[yi, yi] / (k - 1))
                self.pool.record_edge(i - 1, w * C[yi, l], w * C[yi, yi])
                a = self.experts.alphas[i - 1]
                if l == yi:  # (10): f'(alpha) of L^y(s + alpha e_l), L^y the logistic loss
                    g = -sum(sigmoid(s[j] - s[yi] - a) for j in range(k) if j != yi)
                else:
                    g = sigmoid(s[l] - s[yi] + a)
                gradients.append(w * g)
        if self.experts:  # rate c / ((k - 1) sqrt t); Hedge on the experts' 0-1 losses
            losses = [float(self.best(s.tolist()) != yi) for s in after]
            self.experts.update(gradients, losses, k - 1.0, w)
        self.pool.teach(x, [(i, y, p[i]) for i in range(self.n)], w)

    def predict_proba_one(self, x) -> dict:
        if len(self.classes) < 2:
            return {self.classes[0]: 1.0} if self.classes else {}
        k = len(self.classes)
        _, _, after, _ = self.walk(self.readings(clean(x), self.classes, self.support))
        if self.experts is None:  # majority vote, smoothed: (votes_l + 1/k) / (N + 1)
            out = (after[-1] + 1.0 / k) / (self.n + 1.0)
        elif self.prediction == "hedge":  # sum_i v_i softmax(s^i)
            out = np.zeros(k)
            for v, s in zip(self.experts.weights, after):
                e = np.exp(s - s.max())
                out += v * e / e.sum()
        else:  # "vote", "random": the probability that a drawn expert says l
            out = np.zeros(k)
            for v, s in zip(self.experts.weights, after):
                out[self.best(s.tolist())] += v
        out = out / out.sum()
        return {c: float(q) for c, q in zip(self.classes, out)}

    def predict_one(self, x):
        if len(self.classes) >= 2 and self.experts and self.prediction == "random":
            after = self.walk(self.readings(clean(x), self.classes, self.support))[2]
            return self.classes[self.best(after[self.draw()].tolist())]
        proba = self.predict_proba_one(x)
        return self.classes[self.best(list(proba.values()))] if proba else None


# ----------------------------------------------------------------------------- ranking


@functools.cache
def difference_law(n: int, p_up: float, p_down: float) -> tuple:
    """``((d, P(D = d)), ...)`` for ``D`` a sum of ``n`` steps ``+1`` (probability ``p_up``),
    ``-1`` (``p_down``) or 0: trinomial counts of ``u`` ups and ``v`` downs."""
    p_zero = max(0.0, 1.0 - p_up - p_down)
    law = {}
    for u in range(n + 1):
        for v in range(n + 1 - u):
            q = math.comb(n, u) * math.comb(n - u, v) * p_up**u * p_down**v * p_zero ** (n - u - v)
            law[u - v] = law.get(u - v, 0.0) + q
    return tuple(sorted(law.items()))


def pairs(relevant) -> list:
    """The (relevant ``l``, irrelevant ``r``) pairs of label indices."""
    k = len(relevant)
    return [(l, r) for l in range(k) if relevant[l] for r in range(k) if not relevant[r]]


def ranking_costs(s, relevant, n: int, gamma: float, loss: str) -> list:
    """[JT18] (1)-(2): ``c[j] = phi^n(s + e_j)``, ``phi^n(s) = E L^Y(s + X)`` with ``X`` the
    counts of ``n`` votes from ``u_gamma^Y`` (a relevant label ``a + gamma``, an irrelevant
    one ``a = (1 - |Y| gamma) / k``; ``gamma`` at most ``1 / |Y|``). ``L^Y`` averages over the
    pairs ``(1 + s[r] - s[l])_+`` (hinge) or ``1[s[r] > s[l]] + 1[s[r] = s[l]] / 2`` (rank),
    so ``phi^n`` averages ``E f(s[r] - s[l] + X_r - X_l)``: each vote moves ``X_r - X_l`` by
    ``+1`` (probability ``a``) or ``-1`` (``a + gamma``)."""
    P, n_relevant = pairs(relevant), sum(relevant)
    g = min(gamma, 1.0 / n_relevant)
    a = (1.0 - n_relevant * g) / len(s)
    law = difference_law(n, a, a + g)
    if loss == "hinge":
        f = lambda u: max(0.0, 1.0 + u)  # noqa: E731
    else:
        f = lambda u: 1.0 if u > 0 else 0.5 if u == 0 else 0.0  # noqa: E731
    costs = []
    for j in range(len(s)):  # a vote for j raises s[j]: the pairs' gaps move by one
        total = 0.0
        for l, r in P:
            gap = (s[r] - s[l]) + (1.0 if j == r else -1.0 if j == l else 0.0)
            total += sum(q * f(gap + d) for d, q in law)
        costs.append(total / len(P))
    return costs


def rank_loss(s, relevant) -> float:
    P = pairs(relevant)
    return sum(1.0 if s[r] > s[l] else 0.5 if s[r] == s[l] else 0.0 for l, r in P) / len(P)


def logistic_rank_gradient(s, relevant) -> np.ndarray:
    """[JT18] (8): the gradient of ``w_Y sum_{l in Y, r not in Y} ln(1 + exp(s[r] - s[l]))``,
    ``w_Y`` one over the number of pairs."""
    P, c = pairs(relevant), np.zeros(len(s))
    for l, r in P:
        c[l] -= sigmoid(s[r] - s[l]) / len(P)
        c[r] += sigmoid(s[r] - s[l]) / len(P)
    return c


class RankingOracle(Oracle):
    """Multi-label ranking, labels ``{label: bool}``; labels join when first seen (new ones of
    one row in sorted order), a known label missing from a row is irrelevant. A learner votes
    its distribution ``h^i`` over the labels with ``MIN_SUPPORT`` relevant rows (all of them
    when every label or fewer than two have it), uniform without opinion.

    ``rule``: ``"bmr"`` (OnlineBMR, ``gamma``, ``loss`` ``"hinge"`` or ``"rank"``) or
    ``"olmr"`` (Ada.OLMR, ``learning_rate``, ``prediction`` ``"hedge"`` or ``"random"``).
    """

    def __init__(self, rule, learners, gamma=0.1, loss="hinge", learning_rate=1.0, **pool):
        super().__init__(learners, rule == "olmr", learning_rate, **pool)
        self.rule, self.gamma, self.loss = rule, gamma, loss
        self.labels, self.support = [], []
        self.count_sum = self.count_weight = 0.0  # for the label count: mean |Y|, weighted
        self.n_skipped = 0

    def expert_scores(self, H) -> list:
        """``s^i = sum_{j <= i} alpha_j h^j`` (``alpha = 1``: OnlineBMR)."""
        return list(np.cumsum(np.array(self.alphas)[:, None] * H, axis=0))

    def learn_one(self, x, y: dict, w=1.0) -> None:
        if w < MIN_SAMPLE_WEIGHT:
            return
        x = clean(x)
        for label in sorted(y, key=lambda v: (type(v).__name__, v)):
            if label not in self.labels:
                self.labels.append(label)
                self.support.append(0)
        relevant = [bool(y.get(label, False)) for label in self.labels]
        self.count_sum += w * sum(relevant)
        self.count_weight += w
        if not 0 < sum(relevant) < len(relevant):  # no (relevant, irrelevant) pair
            self.n_skipped += 1
            return
        for j, rel in enumerate(relevant):
            self.support[j] += rel
        H = np.array(self.readings(x, self.labels, self.support))
        scores = self.expert_scores(H)
        bound = 2.0 if self.rule == "olmr" or self.loss == "hinge" else 1.0  # max c - min c
        offers, gradients, s = [], [], np.zeros(len(relevant))
        for i in range(self.n):
            if self.rule == "bmr":  # Alg. 2 line 10, c^i[l] = phi^{N-i}(s^{i-1} + e_l)
                c = ranking_costs(s, relevant, self.n - i - 1, self.gamma, self.loss)
                # edge: the cost-weighted advantage over a uniform vote
                edge = (w * (np.mean(c) - np.dot(c, H[i])), w * (max(c) - min(c)))
            else:  # Alg. 3 line 10, c^i = grad L_log(s^{i-1}); edge (10)
                c = logistic_rank_gradient(s, relevant)
                edge = (-w * np.dot(c, H[i]), w * 0.5 * np.abs(c).sum())
                # line 9: f'(alpha_i) = c^{i+1} . h^i, the gradient at s^i
                gradients.append(w * np.dot(logistic_rank_gradient(scores[i], relevant), H[i]))
            self.pool.record_edge(i, *edge)
            # every relevant label l is taught with weight (max c - c[l]) / bound
            offers += [(i, self.labels[j], min(1.0, (max(c) - c[j]) / bound))
                       for j in range(len(c)) if relevant[j]]  # fmt: skip
            s = scores[i]
        if self.experts:  # Alg. 3 line 13: Hedge on each expert's rank loss
            self.experts.update(gradients, [rank_loss(t, relevant) for t in scores], 1.0, w)
        self.pool.teach(x, offers, w)

    def score_one(self, x) -> dict:
        if not self.labels:
            return {}
        scores = self.expert_scores(np.array(self.readings(clean(x), self.labels, self.support)))
        if self.experts is None:  # OnlineBMR follows the last expert
            out = scores[-1]
        elif self.prediction == "random":
            out = scores[self.draw()]
        else:  # the Hedge mixture of the experts' scores
            out = sum(v * t for v, t in zip(self.experts.weights, scores))
        return {label: float(v) for label, v in zip(self.labels, out)}

    def predict_proba_one(self, x) -> dict:
        """``P(True) = sigmoid(score - cut)``, the cut halfway between the ``round(mean |Y|)``-th
        and the next best score."""
        scores = self.score_one(x)
        if not scores:
            return {}
        n = math.floor(self.count_sum / self.count_weight + 0.5) if self.count_weight else 0
        top = sorted(scores.values(), reverse=True)  # the cut: 1 above or below if n is 0 or k
        cut = top[0] + 1 if n <= 0 else top[-1] - 1 if n >= len(top) else (top[n - 1] + top[n]) / 2
        p = {label: sigmoid(v - cut) for label, v in scores.items()}
        return {label: {False: 1.0 - q, True: q} for label, q in p.items()}
