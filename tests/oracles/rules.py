"""The library's rules written plainly, step by step, for the Python walk (``python_walk.py``).

The package's potentials run their compiled rules (``river_boost.engine._rules``); these are
the same steps as the papers state them, in Python floats and NumPy, so that the walk the
tests step through does not share the package's code for the math. :func:`readable` gives the
readable rule of one of the library's potentials (matched by exact type, as the compiled walk
matches them), and for any other potential the papers' steps on its hooks (:class:`Hooks`).

A step returns ``(teach, edge, next state, alpha gradient)``: what learner ``i`` is taught (a
probability, or for ranking the cost vector and its bound), its share ``(numerator,
denominator)`` of the learner's edge or None, and the gradient of the loss in ``alpha_i``
(None unless a surrogate). ``ex`` is the example as ``python_walk.Example`` holds it.
"""

from __future__ import annotations

import math

import numpy as np

from river_boost import potentials as P

from .walk_oracle import squint_weight

ZERO_WEIGHT = 1e-12  # an exact 0 seen through float noise (the package's MBBM threshold)


def logistic_weight(s: float) -> float:
    """``1 / (1 + exp(s))`` without overflow."""
    if s >= 0:
        e = math.exp(-s)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(s))


def sigmoid_array(z):
    """``1 / (1 + exp(-z))`` elementwise, without overflow."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=float)))


def osboost_weight(s: float, gamma: float) -> float:
    """Chen, Lin & Lu (2012): 1 if ``s <= 0``, else ``(1 - gamma)^(s/2)``."""
    return 1.0 if s <= 0 else (1.0 - gamma) ** (s / 2.0)


def binary_edge(w: float, p: float, z: int) -> tuple:
    """One example's share ``(w p z, 2 w p)`` of the binary papers' edge."""
    return w * p * z, 2.0 * w * p


def logistic_rank_gradient(scores, relevant) -> np.ndarray:
    """Gradient (8) of ``w_Y sum_{l in Y, r not in Y} log(1 + exp(s[r] - s[l]))``."""
    scores, relevant = np.asarray(scores, dtype=float), np.asarray(relevant, dtype=bool)
    d = scores[~relevant][None, :] - scores[relevant][:, None]
    sig = sigmoid_array(d)
    w = 1.0 / d.size
    grad = np.empty(len(scores))
    grad[relevant] = -w * sig.sum(axis=1)
    grad[~relevant] = w * sig.sum(axis=0)
    return grad


def logistic_cost_matrix(s) -> np.ndarray:
    """AdaBoost.OLM's (9): ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))``, rows summing to 0."""
    s = np.asarray(s, dtype=float)
    C = sigmoid_array(s[None, :] - s[:, None])
    np.fill_diagonal(C, 0.0)
    np.fill_diagonal(C, -C.sum(axis=1))
    return C


def pair_terms(pot, gaps, n: int, n_relevant: int, n_labels: int) -> np.ndarray:
    """OnlineBMR's pair terms ``E f(g + D)`` from the potential's difference law."""
    P_, SP, SD = pot.difference_law(n, n_relevant, n_labels)
    g = np.asarray(gaps, dtype=float)
    if pot.loss == "hinge":  # f(g) = (1 + g)_+: d > -(1 + g)
        i0 = np.clip(np.floor(-(1.0 + g)) + 1 + n, 0, 2 * n + 1).astype(np.int64)
        return (1.0 + g) * SP[i0] + SD[i0]
    i0 = np.clip(np.floor(-g) + 1 + n, 0, 2 * n + 1).astype(np.int64)  # rank loss
    out = SP[i0].copy()
    tie = (g == np.round(g)) & (np.abs(g) <= n)
    out[tie] += 0.5 * P_[(-g[tie]).astype(np.int64) + n]
    return out


def pair_cost_vector(pot, s, relevant, n: int) -> np.ndarray:
    """OnlineBMR's (2): ``c[j] = phi^n(s + e_j)``, by the pair terms."""
    s, relevant = np.asarray(s, dtype=float), np.asarray(relevant, dtype=bool)
    G = s[~relevant][None, :] - s[relevant][:, None]
    args = (n, int(relevant.sum()), len(relevant))
    F = pair_terms(pot, G, *args)
    c = np.empty(len(relevant))
    c[relevant] = F.sum() - F.sum(axis=1) + pair_terms(pot, G - 1.0, *args).sum(axis=1)
    c[~relevant] = F.sum() - F.sum(axis=0) + pair_terms(pot, G + 1.0, *args).sum(axis=0)
    return c / G.size


class Readable:
    """A rule's steps: the binary papers' generic step, with this rule's weights."""

    def __init__(self, pot):
        self.pot = pot
        self.needs_edges = pot.needs_edges
        self.surrogate = pot.surrogate

    def multiclass_vote_costs(self, n, s, k) -> tuple:
        """``(C, D)``: the cost matrix with ``n`` votes left and its normalised form (5),
        ``D[r] = (C[r] - C[r, r]) / sum_l (C[r, l] - C[r, r])``, for cost-sensitive votes."""
        C = np.asarray(self.pot.for_classes(k).cost_matrix(n, s), dtype=float)
        D = C - np.diag(C)[:, None]
        w = D.sum(axis=1, keepdims=True)
        return C, np.divide(D, w, out=np.zeros_like(D), where=w > 0)

    def binary_start(self, ex):
        return 0.0, 0.0  # (margin, the all-wrong margin)

    def binary_step(self, i, state, ex):
        s, worst = state
        z = ex.sign * ex.votes[i]
        p = self.probability(i + 1, s, worst, ex.edges[i])
        edge = ex.edges[i]
        state = (self.advance(s, z, edge), self.advance(worst, -1, edge))
        return p, binary_edge(ex.w, p, z), state, None


class Binomial(Readable):
    """Online BBM: ``P(Binomial(n, q) = k) / max`` with ``k = floor((n - s + 1) / 2)``."""

    def probability(self, i, s, worst, edge):
        N, q = self.pot.n_models, (1.0 + self.pot.gamma) / 2.0
        n = N - i
        k = math.floor((n - s + 1) / 2)
        if not 0 <= k <= n:
            return 0.0

        def log_pmf(j):
            return (
                math.lgamma(n + 1)
                - math.lgamma(j + 1)
                - math.lgamma(n - j + 1)
                + j * math.log(q)
                + (n - j) * math.log(1.0 - q)
            )

        reach = range(max(0, (N - 2 * i + 2) // 2), min(n, N // 2) + 1)  # alpha = 1 margins
        return min(1.0, math.exp(log_pmf(k) - max(log_pmf(j) for j in reach)))

    def advance(self, s, z, edge):
        return s + z


class NormalHedge(Readable):
    """NH-Boost.DT: ``(Phi(s - 1) - Phi(s + 1)) / 2``, ``Phi_i(s) = exp([s]_-^2 / (3 i))``."""

    @staticmethod
    def log_weight(i, s):
        lo, hi = min(0.0, s - 1.0) ** 2 / (3.0 * i), min(0.0, s + 1.0) ** 2 / (3.0 * i)
        if hi >= lo:
            return -math.inf
        return lo + math.log(-math.expm1(hi - lo)) - math.log(2.0)

    def probability(self, i, s, worst, edge):
        lw = self.log_weight(i, s)
        return 0.0 if lw == -math.inf else min(1.0, math.exp(lw - self.log_weight(i, worst)))

    def advance(self, s, z, edge):
        return s + 0.5 * z - edge


class Squint(Readable):
    """SquintBoost: the Squint integral at the regret and variance ``(R, V)``."""

    def binary_start(self, ex):
        return (0.0, 0.0), (0.0, 0.0)

    def probability(self, i, s, worst, edge):
        return min(1.0, squint_weight(*s, self.pot.prior) / squint_weight(*worst, self.pot.prior))

    def advance(self, state, z, edge):
        r = edge - 0.5 * z
        return state[0] + r, state[1] + r * r


class OSBoost(Readable):
    """Online smooth boosting: the weight is the probability; the state moves by ``z - theta``."""

    def probability(self, i, s, worst, edge):
        return osboost_weight(s, self.pot.gamma)

    def advance(self, s, z, edge):
        return s + (z - self.pot.gamma / (2.0 + self.pot.gamma))


class OSBoostOCP(OSBoost):
    """OSBoost.OCP: OSBoost's weights; ``alpha_i``'s hinge gradient ``-w z_i`` while the full
    vote's margin is below ``theta``."""

    def binary_start(self, ex):
        theta = self.pot.gamma / (2.0 + self.pot.gamma)
        return 0.0, ex.sign * ex.scores[-1] < theta

    def binary_step(self, i, state, ex):
        s, active = state
        z = ex.sign * ex.votes[i]
        p = self.probability(i + 1, s, None, None)
        gradient = -ex.w * z if active else 0.0
        return p, binary_edge(ex.w, p, z), (self.advance(s, z, None), active), gradient


class Logistic(Readable):
    """AdaBoost.OL, AdaBoost.OLM and Ada.OLMR: the logistic loss's gradients."""

    def binary_start(self, ex):
        return 0.0, 0.5  # (s^0, 1 / (1 + exp(s^0)))

    def binary_step(self, i, state, ex):
        s, p = state
        z = ex.sign * ex.votes[i]
        s += ex.alphas[i] * z
        q = logistic_weight(s)
        return p, binary_edge(ex.w, p, z), (s, q), -ex.w * z * q

    def multiclass_vote_costs(self, n, s, k):
        C = logistic_cost_matrix(s)
        return C, C

    def multiclass_start(self, ex):
        return np.zeros(ex.k)

    def multiclass_step(self, i, s, ex):
        yi, lab, w = ex.yi, ex.votes[i], ex.w
        sig = sigmoid_array(s - s[yi])  # -C[y, j] for j != y
        sig[yi] = 0.0
        total = float(sig.sum())
        c_yl = float(sig[lab]) if lab != yi else -total
        alpha = ex.alphas[i]
        if lab == yi:  # f'(alpha) of L^y(s + alpha e_y)
            grad = -float(sigmoid_array(np.delete(s, yi) - (s[yi] + alpha)).sum())
        else:
            grad = float(sigmoid_array(s[lab] - s[yi] + alpha))
        return total / (ex.k - 1), (w * c_yl, -w * total), ex.scores[i], w * grad

    def ranking_start(self, ex):
        s = np.zeros(ex.k)
        return s, logistic_rank_gradient(s, ex.relevant)

    def ranking_step(self, i, state, ex):
        _, cost = state
        h, w = ex.rows[i], ex.w
        edge = (-w * float(cost @ h), w * 0.5 * float(np.abs(cost).sum()))
        s = ex.scores[i]
        nxt = logistic_rank_gradient(s, ex.relevant)
        return (cost, 2.0), edge, (s, nxt), w * float(nxt @ h)


class MBBM(Readable):
    """OnlineMBBM's Algorithm 1 on the potential's cost rows and bounds (their values are
    checked against the dynamic programs of ``dp_oracle.py``): ``sum_l (C[y, l] - C[y, y])``
    over its bound; the edge ``1 - k D[y, l_i]`` weighted by it (condition (1))."""

    def multiclass_start(self, ex):
        return np.zeros(ex.k, dtype=int)

    def multiclass_step(self, i, s, ex):
        pot = self.pot.for_classes(ex.k)
        n = ex.n_models - (i + 1)
        yi, k = ex.yi, ex.k
        row = ex.costs[i][yi].tolist() if ex.costs is not None else pot.cost_row(n, s, yi)
        weight = math.fsum(c - row[yi] for c in row)
        if weight < ZERO_WEIGHT:
            weight, edge = 0.0, None
        else:
            d_yl = (row[ex.votes[i]] - row[yi]) / weight
            edge = (ex.w * weight * (1.0 - k * d_yl), ex.w * weight)
        return min(1.0, weight / pot.max_weight(n)), edge, ex.scores[i], None


class Pair(Readable):
    """OnlineBMR's Algorithm 2: the cost vector by the pair terms; the edge
    ``(mean(c) - c . h) / (max(c) - min(c))``."""

    def ranking_start(self, ex):
        return np.zeros(ex.k)

    def cost_vector(self, s, relevant, n):
        return pair_cost_vector(self.pot, s, relevant, n)

    def ranking_step(self, i, s, ex):
        cost = self.cost_vector(s, ex.relevant, ex.n_models - i - 1)
        h = ex.rows[i]
        edge = (ex.w * float(cost.mean() - cost @ h), ex.w * float(cost.max() - cost.min()))
        return (cost, self.pot.cost_bound), edge, s + h, None


class Hooks(MBBM, Pair):
    """A potential of your own (or a subclass of ours): the papers' steps on its hooks, as the
    compiled walk runs it (``PythonRule``): binary with its ``start``, ``advance`` and
    ``sampling_probability``, Algorithm 1 with its ``cost_row`` and ``max_weight``, Algorithm
    2 with its ``cost_vector`` and ``cost_bound``."""

    def binary_start(self, ex):
        s = self.pot.start()
        return s, s

    def probability(self, i, s, worst, edge):
        return self.pot.sampling_probability(i, s, worst)

    def advance(self, s, z, edge):
        return self.pot.advance(s, z, edge)

    def cost_vector(self, s, relevant, n):
        return np.asarray(self.pot.cost_vector(s, relevant, n), dtype=float)


READABLE = {
    P.BinomialPotential: Binomial,
    P.NormalHedgePotential: NormalHedge,
    P.SquintPotential: Squint,
    P.OSBoostPotential: OSBoost,
    P.OSBoostOCPPotential: OSBoostOCP,
    P.LogisticLoss: Logistic,
    P.MulticlassZeroOnePotential: MBBM,
    P.RankingPairPotential: Pair,
}


def readable(pot):
    """The readable rule of one of the library's potentials; the papers' steps on the hooks
    of any other potential."""
    return READABLE.get(type(pot), Hooks)(pot)
