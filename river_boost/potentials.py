"""Pure math behind the boosters: potentials, their weights and the logistic surrogate.

Everything here is a plain function or a small immutable object without learning state, so it
can be tested against brute force on its own.

Notation follows Beygelzimer, Kale & Luo (2015): there are ``N`` weak learners; for an
example, ``s`` is its running (unnormalised) margin after the first ``i - 1`` learners, i.e.
``s = s^{i-1} = sum_{j<i} alpha_j * z_j`` with ``z_j = y * h_j(x)`` in ``{-1, +1}``.

A *potential* is a sequence of non-increasing functions ``Phi_0, ..., Phi_N`` with
``Phi_N(s) >= 1{s <= 0}`` and ``Phi_{i-1}(s) >= (1-gamma)/2 Phi_i(s-1) + (1+gamma)/2 Phi_i(s+1)``
(the paper's condition (4)). Any such sequence gives an online booster whose learner ``i``
receives the example with weight ``w = (Phi_i(s-1) - Phi_i(s+1)) / 2`` (section 3.1); dividing
by a bound on ``max_t w_t^i`` turns it into a probability. :class:`Potential` is that interface;
:class:`BinomialPotential` is boost-by-majority, the optimal instance.

"""

from __future__ import annotations

import abc
import math

__all__ = [
    "Potential",
    "BinomialPotential",
    "binomial_log_pmf",
    "logistic_weight",
    "logistic_loss",
    "osboost_weight",
]


def binomial_log_pmf(n: int, k: int, q: float) -> float:
    """Natural log of ``P(Binomial(n, q) = k)``; ``-inf`` outside ``0 <= k <= n``.

    Computed with ``lgamma`` so it stays finite for ``n`` in the thousands and ``q`` close to
    1/2, where the probability itself may underflow.

    >>> round(math.exp(binomial_log_pmf(4, 2, 0.5)), 6)
    0.375

    """
    if k < 0 or k > n:
        return -math.inf
    log_choose = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    # q is strictly inside (0, 1) for every caller; guard the edges anyway (0 * log 0 = 0).
    log_q = k * math.log(q) if k else 0.0
    log_1q = (n - k) * math.log1p(-q) if n - k else 0.0
    return log_choose + log_q + log_1q


class Potential(abc.ABC):
    """A drifting-game potential for ``n_models`` weak learners (learners are 1-indexed).

    Subclasses implement :meth:`value` (``Phi_i(s)``), and may override :meth:`weight` with a
    closed form and must give :meth:`max_weight`, a bound on the weight of learner ``i`` over
    every margin ``s`` it can meet. The booster only calls :meth:`sampling_probability`.

    """

    def __init__(self, n_models: int):
        if n_models < 1:
            raise ValueError(f"n_models must be >= 1, got {n_models}")
        self.n_models = n_models

    @abc.abstractmethod
    def value(self, i: int, s: float) -> float:
        """``Phi_i(s)``: the potential after ``i`` learners at margin ``s``."""

    def weight(self, i: int, s: float) -> float:
        """Weight of learner ``i`` for an example at margin ``s = s^{i-1}``."""
        return 0.5 * (self.value(i, s - 1) - self.value(i, s + 1))

    @abc.abstractmethod
    def max_weight(self, i: int) -> float:
        """An upper bound on :meth:`weight` ``(i, s)`` over all reachable margins ``s``."""

    def sampling_probability(self, i: int, s: float) -> float:
        """``weight(i, s) / max_weight(i)``, in ``[0, 1]``."""
        return self.weight(i, s) / self.max_weight(i)


class BinomialPotential(Potential):
    """Boost-by-majority potential (Beygelzimer et al. 2015, section 3.1, formula (5)).

    With ``n = N - i`` learners left after learner ``i`` and ``q = (1 + gamma) / 2``,
    ``Phi_i(s) = P(Binomial(n, q) <= floor((n - s) / 2))``: the chance that a majority vote
    started at margin ``s`` ends non-positive when every remaining learner is right with
    probability ``q``. Then ``w = (Phi_i(s-1) - Phi_i(s+1)) / 2 = P(Binomial(n, q) = k) / 2``
    with ``k = floor((n - s + 1) / 2)``.

    **Exact maximum.** With ``alpha = 1`` the margin before learner ``i`` is one of
    ``-(i-1), -(i-1)+2, ..., i-1``, so ``k`` runs over the contiguous range
    ``[floor((N - 2i + 2) / 2), floor(N / 2)]`` intersected with ``[0, n]``. The binomial pmf
    is unimodal with mode ``floor((n + 1) q)``, so the maximum over reachable margins is the pmf
    at that mode clamped into the range: no search, no guess, and it is attained.

    Sampling probabilities are ratios of pmfs, computed in log space from a table of
    ``log k!``, so ``n_models=1000, gamma=0.001`` is as exact as ``n_models=10``.

    Parameters
    ----------
    n_models
        Number of weak learners ``N``.
    gamma
        Assumed edge of the weak learners, in ``(0, 1)``.

    Examples
    --------

    >>> potential = BinomialPotential(n_models=5, gamma=0.1)
    >>> round(potential.weight(1, 0), 6)
    0.183769
    >>> potential.sampling_probability(1, 0) <= 1.0
    True

    """

    def __init__(self, n_models: int, gamma: float):
        super().__init__(n_models)
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"gamma must lie in (0, 1), got {gamma}")
        self.gamma = gamma
        q = (1.0 + gamma) / 2.0
        self._log_q = math.log(q)
        self._log_1q = math.log1p(-q)
        self._log_fact = [math.lgamma(m + 1) for m in range(n_models + 1)]
        # k at which each learner's weight peaks over reachable margins, and that peak's log.
        self._argmax_k = []
        self._log_max = []
        for i in range(1, n_models + 1):
            n = n_models - i
            lo = max(0, (n_models - 2 * i + 2) // 2)
            hi = min(n, n_models // 2)
            k = min(max(math.floor((n + 1) * q), lo), hi)
            self._argmax_k.append(k)
            self._log_max.append(self._log_pmf(n, k))

    def _log_pmf(self, n: int, k: int) -> float:
        if k < 0 or k > n:
            return -math.inf
        lf = self._log_fact
        return lf[n] - lf[k] - lf[n - k] + k * self._log_q + (n - k) * self._log_1q

    def _k(self, i: int, s: float) -> int:
        return math.floor((self.n_models - i - s + 1) / 2)

    def value(self, i: int, s: float) -> float:
        n = self.n_models - i
        top = math.floor((n - s) / 2)
        if top < 0:
            return 0.0
        return math.fsum(math.exp(self._log_pmf(n, k)) for k in range(0, min(top, n) + 1))

    def weight(self, i: int, s: float) -> float:
        return 0.5 * math.exp(self._log_pmf(self.n_models - i, self._k(i, s)))

    def max_weight(self, i: int) -> float:
        return 0.5 * math.exp(self._log_max[i - 1])

    def argmax_margin(self, i: int) -> int:
        """A reachable margin ``s^{i-1}`` at which learner ``i``'s weight is maximal."""
        k = self._argmax_k[i - 1]
        # k = floor((N - i - s + 1) / 2) and s has the parity of i - 1.
        s = self.n_models - i + 1 - 2 * k
        if (s - (i - 1)) % 2:
            s -= 1
        return s

    def sampling_probability(self, i: int, s: float) -> float:
        log_w = self._log_pmf(self.n_models - i, self._k(i, s))
        if log_w == -math.inf:
            return 0.0
        # Margins unreachable with alpha = 1 (none in OnlineBBM) could exceed the peak: clip.
        return min(1.0, math.exp(log_w - self._log_max[i - 1]))


def logistic_weight(s: float) -> float:
    """``1 / (1 + exp(s))``: minus the derivative of the logistic loss, without overflow."""
    if s >= 0:
        e = math.exp(-s)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(s))


def logistic_loss(s: float) -> float:
    """``ln(1 + exp(-s))``, stable for large ``|s|``."""
    if s >= 0:
        return math.log1p(math.exp(-s))
    return -s + math.log1p(math.exp(s))


def osboost_weight(s: float, gamma: float) -> float:
    """Online smooth boosting weight (Chen, Lin & Lu 2012): 1 if ``s <= 0`` else ``(1-gamma)^(s/2)``."""
    if s <= 0:
        return 1.0
    return (1.0 - gamma) ** (s / 2.0)


class MulticlassZeroOnePotential:
    """Exact potentials of the multiclass 0-1 loss (Jung, Goetz & Tewari 2017, (2)-(3)).

    ``phi_n^r(s)`` is the probability that, after ``n`` more votes drawn from ``u_gamma^r``
    (label ``r`` with probability ``(1 - gamma)/k + gamma``, every other label with
    ``(1 - gamma)/k``), some wrong label ties or beats ``r``: the expected final 0-1 loss of a
    majority vote that currently stands at ``s``.

    **Exact computation, no Monte Carlo.** Condition on the number ``m`` of votes ``r``
    receives (``Binomial(n, p_r)``); the other ``n - m`` votes are uniform over the ``k - 1``
    wrong labels and ``r`` wins iff every wrong label ``l`` gets at most
    ``cap_l = m + s[r] - s[l] - 1`` of them. That capped multinomial probability is computed
    label by label (the votes of one label given the votes left are binomial), a dynamic
    program over "votes left" in probability space, vectorised over ``m`` with numpy; labels
    whose cap cannot bind drop out. Everything is a sum of non-negative terms in ``[0, 1]``, so
    it is stable for ``n`` in the thousands (cost grows as ``n**3`` per binding label).

    Potentials depend on ``s`` only through ``n`` and the sorted gaps ``s[r] - s[l]``; results
    are cached under that key in a bounded cache (``cache_size`` entries, oldest dropped
    first; not pickled: they are recomputed, exactly, on demand).

    Parameters
    ----------
    n_classes
        ``k >= 2``.
    gamma
        Edge, in ``(0, 1)``.
    cache_size
        Maximum number of cached potentials.

    Examples
    --------

    >>> pot = MulticlassZeroOnePotential(n_classes=3, gamma=0.1)
    >>> round(pot.value(0, [1, 0, 0], r=0), 6)  # no votes left: r already wins
    0.0
    >>> round(pot.value(4, [0, 0, 0], r=0), 6)
    0.648

    """

    def __init__(self, n_classes: int, gamma: float, cache_size: int = 100_000):
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"gamma must lie in (0, 1), got {gamma}")
        self.n_classes = n_classes
        self.gamma = gamma
        self.cache_size = cache_size
        self.p_right = (1.0 - gamma) / n_classes + gamma
        self._cache: dict = {}
        self._matrices: dict = {}

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"] = {}
        state["_matrices"] = {}
        return state

    # -------------------------------------------------------------- public

    def value(self, n: int, s, r) -> float:
        """``phi_n^r(s)`` for a score vector ``s`` (sequence or dict) and right label ``r``."""
        if isinstance(s, dict):
            right = s.get(r, 0)
            gaps = [right - v for lab, v in s.items() if lab != r]
            gaps += [right] * (self.n_classes - 1 - len(gaps))  # labels absent from s score 0
        else:
            right = s[r]
            gaps = [right - v for j, v in enumerate(s) if j != r]
        return self.value_from_gaps(n, gaps)

    def value_from_gaps(self, n: int, gaps) -> float:
        """``phi_n`` given the ``k - 1`` gaps ``s[r] - s[l]`` of the wrong labels."""
        if len(gaps) != self.n_classes - 1:
            raise ValueError(f"expected {self.n_classes - 1} gaps, got {len(gaps)}")
        key = (n, tuple(sorted(gaps)))
        cache = self._cache
        out = cache.get(key)
        if out is None:
            out = self._compute(n, key[1])
            if len(cache) >= self.cache_size:
                cache.pop(next(iter(cache)))  # drop the oldest entry (insertion order)
            cache[key] = out
        return out

    def _class_row(self, n: int, uniq, counts, a: int):
        """For a right label with score ``uniq[a]``: ``phi(s + e_l)`` for an ``l`` of each
        score class (None where no such ``l != r`` exists), and ``phi(s + e_r)``.

        Labels with equal scores are interchangeable, so a cost matrix needs only
        ``G^2 + G`` potentials for ``G`` distinct scores instead of ``k^2``.
        """
        right = uniq[a]
        base = []
        for c, (u, cnt) in enumerate(zip(uniq, counts)):
            base += [right - u] * (cnt - (c == a))
        off = []
        for b, (u, cnt) in enumerate(zip(uniq, counts)):
            if cnt - (b == a) < 1:
                off.append(None)
                continue
            gaps = list(base)
            gaps[gaps.index(right - u)] -= 1  # that label got the extra vote
            off.append(self.value_from_gaps(n, gaps))
        diag = self.value_from_gaps(n, [g + 1 for g in base])
        return off, diag

    def cost_matrix(self, n: int, s):
        """``C[r, l] = phi_n^r(s + e_l)`` for all labels (a read-only ``k x k`` numpy array).

        Matrices are cached per ``(n, s)`` (bounded like the potentials): a booster meets the
        same few vote vectors over and over.
        """
        key = (n, tuple(s))
        cache = self._matrices
        C = cache.get(key)
        if C is None:
            C = self._cost_matrix(n, s)
            C.flags.writeable = False
            if len(cache) >= max(1, self.cache_size // 10):
                cache.pop(next(iter(cache)))
            cache[key] = C
        return C

    def _cost_matrix(self, n: int, s):
        import numpy as np

        uniq, inv, counts = np.unique(np.asarray(s), return_inverse=True, return_counts=True)
        uniq, counts = uniq.tolist(), counts.tolist()
        G = len(uniq)
        table = np.zeros((G, G))
        diag = np.zeros(G)
        for a in range(G):
            off, diag[a] = self._class_row(n, uniq, counts, a)
            table[a] = [0.0 if v is None else v for v in off]
        C = table[inv[:, None], inv[None, :]]
        C[np.arange(len(inv)), np.arange(len(inv))] = diag[inv]
        return C

    def cost_row(self, n: int, s, r: int) -> list:
        """Row ``r`` of :meth:`cost_matrix`: ``phi_n^r(s + e_l)`` for every label ``l``."""
        import numpy as np

        uniq, inv, counts = np.unique(np.asarray(s), return_inverse=True, return_counts=True)
        off, diag = self._class_row(n, uniq.tolist(), counts.tolist(), int(inv[r]))
        row = [off[c] for c in inv.tolist()]
        row[r] = diag
        return row

    def weight(self, n: int, s, r) -> float:
        """``w = sum_l [phi_n^r(s + e_l) - phi_n^r(s + e_r)]``: Algorithm 1's weight."""
        row = self.cost_row(n, s, r)
        return math.fsum(c - row[r] for c in row)

    def max_weight(self, n: int) -> float:
        """A bound on :meth:`weight` over every state, with ``n`` votes left.

        Couple the futures of ``s + e_r`` and ``s + e_l``: they can only differ in outcome if
        the final gap ``D_l = (s[r] + X_r) - (s[l] + X_l)`` is 0 or 1, or some other gap
        ``D_j`` is 0. Each such event has probability at most ``M_n = max_c P(X_r - X_j =
        c)``, so each of the ``k - 1`` terms of the weight is at most ``min(1, k M_n)``:
        ``||w||_inf <= (k - 1) min(1, k M_n)``. ``M_n`` is computed exactly (the votes of
        ``r`` and one wrong label are a trinomial pair) and is ``O(1 / sqrt(n))``.
        """
        bounds = self.__dict__.setdefault("_max_weights", {})
        if n not in bounds:
            bounds[n] = (self.n_classes - 1) * min(1.0, self.n_classes * self._max_gap_pmf(n))
        return bounds[n]

    def _max_gap_pmf(self, n: int) -> float:
        """``max_c P(X_r - X_l = c)`` after ``n`` votes, for a wrong label ``l``."""
        import numpy as np

        if n == 0:
            return 1.0
        p_other = (1.0 - self.gamma) / self.n_classes
        both = self.p_right + p_other  # a vote lands on r or on l
        rho = self.p_right / both
        pmf = np.zeros(2 * n + 1)  # index c + n
        for t in range(n + 1):  # t votes on {r, l}, of which a on r: D = 2a - t
            p_t = math.exp(binomial_log_pmf(n, t, both)) if both < 1 else float(t == n)
            if p_t == 0.0:
                continue
            a = np.arange(t + 1)
            p_a = np.exp([binomial_log_pmf(t, int(j), rho) for j in a])
            np.add.at(pmf, 2 * a - t + n, p_t * p_a)
        return float(pmf.max())

    # -------------------------------------------------------------- exact computation

    def _compute(self, n: int, gaps: tuple) -> float:
        import numpy as np

        k = self.n_classes
        if n == 0:
            return 1.0 if min(gaps) <= 0 else 0.0
        m = np.arange(n + 1)
        # P(r receives m of the n votes)
        log_pm = np.array([binomial_log_pmf(n, int(j), self.p_right) for j in m])
        p_m = np.exp(log_pm)
        # V[m, a]: probability mass with `a` wrong-label votes still to place, given m.
        V = np.zeros((n + 1, n + 1))
        V[m, n - m] = 1.0
        remaining = k - 1
        x = _vote_differences(n)  # x[a, b] = a - b: votes given to one label, a -> b left
        for g in sorted(gaps):  # tightest caps first
            caps = m + g - 1  # per m
            if np.all(caps >= n - m):  # cannot bind for any m: neither can later (looser) ones
                break
            T = _transition(n, remaining)  # T[a, b] = P(Bin(a, 1/remaining) = a - b)
            allowed = x[None, :, :] <= caps[:, None, None]  # the label stays within its cap
            V = np.einsum("ma,mab->mb", V, T[None, :, :] * allowed)
            remaining -= 1
        win = float(np.dot(p_m, V.sum(axis=1)))
        return min(1.0, max(0.0, 1.0 - win))


_TABLES: dict = {}


def _cached_table(key, build):
    """Module-level cache of pure, read-only tables (bounded)."""
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) > 512:
            _TABLES.clear()
        table = _TABLES[key] = build()
        table.flags.writeable = False
    return table


def _vote_differences(n: int):
    import numpy as np

    def build():
        a = np.arange(n + 1)
        return a[:, None] - a[None, :]

    return _cached_table(("diff", n), build)


def _transition(n: int, labels: int):
    """``T[a, b] = P(Binomial(a, 1/labels) = a - b)`` for ``b <= a <= n``, else 0: one label
    takes ``a - b`` of the ``a`` votes left, uniformly spread over ``labels`` labels."""
    import numpy as np

    def build():
        q = 1.0 / labels
        T = np.zeros((n + 1, n + 1))
        for a in range(n + 1):
            for b in range(a + 1):
                x = a - b
                T[a, b] = math.exp(binomial_log_pmf(a, x, q)) if q < 1 else float(x == a)
        return T

    return _cached_table(("transition", n, labels), build)
