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
