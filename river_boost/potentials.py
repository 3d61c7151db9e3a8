"""The rules behind the boosters (:class:`Potential`): potentials, surrogate losses, exact math.

Everything here is a plain function or a small object without learning state, so it can be
tested against brute force on its own. Notation follows Beygelzimer, Kale & Luo (2015):
``N`` weak learners; for an example, ``s = s^{i-1} = sum_{j<i} alpha_j * z_j`` is its running
margin after the first ``i - 1`` learners, with ``z_j = y * h_j(x)`` in ``{-1, +1}``.

"""

from __future__ import annotations

import math

import numpy as np
from river import base

from ._params import check_choice, check_open_unit
from .core import BoundedCache
from .engine import _costs, _dp, _rules
from .engine import laws as _laws

__all__ = [
    "Potential",
    "BinomialPotential",
    "NormalHedgePotential",
    "SquintPotential",
    "OSBoostPotential",
    "OSBoostOCPPotential",
    "LogisticLoss",
    "MulticlassZeroOnePotential",
    "RankingPairPotential",
    "squint_log_integral",
    "binomial_log_pmf",
    "logistic_weight",
    "sigmoid",
    "logistic_loss",
    "osboost_weight",
    "rank_loss",
    "logistic_rank_gradient",
]

# Potentials are exact up to float rounding (~1e-16); a weight below this is an exact zero.
ZERO_WEIGHT = 1e-12


def binomial_log_pmf(n: int, k: int, q: float) -> float:
    """Natural log of ``P(Binomial(n, q) = k)``; ``-inf`` outside ``0 <= k <= n``.

    Computed with ``lgamma`` so it stays finite for ``n`` in the thousands and ``q`` close to
    1/2, where the probability itself may underflow.

    Examples
    --------

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


def logistic_weight(s: float) -> float:
    """``1 / (1 + exp(s))``: minus the derivative of the logistic loss, without overflow
    (``exp(-s) / (1 + exp(-s))`` for ``s >= 0``; compiled, the walk's own).

    Examples
    --------

    >>> logistic_weight(0.0), logistic_weight(1000.0)
    (0.5, 0.0)

    """
    return _rules.logistic_weight(s)


def sigmoid(z: float) -> float:
    """``1 / (1 + exp(-z))`` without overflow (``logistic_weight(-z)``): the probability the
    boosters read off a score.

    Examples
    --------

    >>> sigmoid(0.0), sigmoid(1000.0), sigmoid(-1000.0)
    (0.5, 1.0, 0.0)

    """
    return logistic_weight(-z)


def logistic_loss(s: float) -> float:
    """``ln(1 + exp(-s))``, stable for large ``|s|``."""
    if s >= 0:
        return math.log1p(math.exp(-s))
    return -s + math.log1p(math.exp(s))


def osboost_weight(s: float, gamma: float) -> float:
    """Online smooth boosting weight (Chen, Lin & Lu 2012): 1 if ``s <= 0``, else
    ``(1 - gamma)^(s/2)`` (compiled, the walk's own).

    Examples
    --------

    >>> osboost_weight(-1.0, 0.19), round(osboost_weight(2.0, 0.19), 2)
    (1.0, 0.81)

    """
    return _rules.osboost_weight(s, gamma)


# ----------------------------------------------------------------------------- the interface


class Potential(base.Base):
    """A boosting rule: how much a labelled example weighs for each learner, from its state.

    A booster (:class:`river_boost.booster.Booster`) walks along the learners ``i = 1..N``
    (1-indexed below) with each labelled example and asks its rule, learner by learner, what
    learner ``i`` is taught and how the example's state moves. A rule states its math once
    for each task it makes sense for (``tasks``):

    - **binary** (margins). A potential is a sequence of non-increasing ``Phi_0, ..., Phi_N``
      with ``Phi_N(s) >= 1{s <= 0}`` and ``Phi_{i-1}(s) >= (1-gamma)/2 Phi_i(s-1) +
      (1+gamma)/2 Phi_i(s+1)`` (condition (4) of Beygelzimer et al.); learner ``i`` then gets
      weight ``w = (Phi_i(s-1) - Phi_i(s+1)) / 2`` (their section 3.1;
      :meth:`weight_from_values` is that formula in log space). The state starts at
      :meth:`start` and, after learner ``i`` votes ``z`` (``+1`` right, ``-1`` wrong), moves to
      :meth:`advance` ``(state, z, edge)``, ``edge`` being learner ``i``'s running empirical
      edge. Learner ``i`` receives the example with probability ``exp(log_weight(i, state) -
      log_max_weight(i, worst))``, clipped to ``[0, 1]``; ``worst`` is the state of an example
      every earlier learner got wrong. Logarithms keep exponentially large potentials
      (NormalHedge, Squint) from overflowing; ``-inf`` is weight exactly 0 (no update). For a
      weight that grows the worse the example has done (NormalHedge, Squint), the bound is the
      weight at ``worst``; boost-by-majority is not monotone and uses its exact mode.
    - **multiclass** (vote vectors ``s``): :meth:`cost_matrix` ``(n, s)`` gives
      ``C[r, l] = phi_n^r(s + e_l)`` with ``n`` votes left, :meth:`cost_row` one row of it and
      :meth:`max_weight` ``(n)`` a bound on the weight ``sum_l (C[y, l] - C[y, y])`` (Jung,
      Goetz & Tewari 2017, Algorithm 1; :class:`MulticlassZeroOnePotential`).
    - **ranking** (score vectors ``s``, relevant labels ``Y``): :meth:`cost_vector`
      ``(s, relevant, n)`` gives ``c[l] = phi^n(s + e_l)`` and :attr:`cost_bound` bounds
      ``max(c) - min(c)``; learner ``i`` is taught every relevant ``l`` with weight
      ``(max(c) - c[l]) / cost_bound`` (Jung & Tewari 2018, Algorithm 2;
      :class:`RankingPairPotential`).

    The ``*_step`` methods turn these into what the walk needs, in the papers' terms; a
    surrogate loss (:class:`LogisticLoss`) overrides them, since the adaptive algorithms also
    learn the learners' vote weights ``alpha`` from its gradient (``surrogate = True``). A new
    potential is one class (``docs/new-booster.md``). The library's potentials compute with the
    walk's compiled rules (``engine._rules``), a subclass's ``super()`` calls included.

    """

    #: the tasks this rule runs in (``"binary"``, ``"multiclass"``, ``"ranking"``)
    tasks: tuple = ("binary",)
    #: whether the learners' vote weights ``alpha`` follow this loss's gradient (adaptive)
    surrogate = False
    #: binary form: whether :meth:`advance` reads the learners' running edges
    needs_edges = True

    # -------------------------------------------------------------- binary form

    def start(self):
        """The state of an example before any learner has voted."""
        return 0.0

    def advance(self, state, z: int, edge: float):
        """The state after a learner with empirical edge ``edge`` voted ``z`` (+1/-1)."""
        return state + z

    def log_weight(self, i: int, state) -> float:
        """Log of learner ``i``'s (unnormalised) weight for an example in ``state``."""
        raise NotImplementedError

    def log_max_weight(self, i: int, worst) -> float:
        """Log of a bound on :meth:`log_weight` ``(i, .)`` over the states learner ``i`` can
        meet; ``worst`` is the all-wrong state (see the class docstring)."""
        raise NotImplementedError

    def sampling_probability(self, i: int, state, worst=None) -> float:
        """``weight / max_weight``, clipped to ``[0, 1]``; exactly 0 for a zero weight."""
        log_w = self.log_weight(i, state)
        if log_w == -math.inf:
            return 0.0
        return min(1.0, math.exp(log_w - self.log_max_weight(i, worst)))

    @staticmethod
    def weight_from_values(log_phi_minus: float, log_phi_plus: float) -> float:
        """``log((Phi(s - 1) - Phi(s + 1)) / 2)`` from the two log potentials, without overflow.

        ``-inf`` when the two are equal (the potential is flat there: weight 0). Computed
        as ``log(Phi(s - 1)) + log(1 - exp(log(Phi(s + 1)) - log(Phi(s - 1)))) - log 2``
        (compiled, ``river_boost.engine._rules``).
        """
        return _rules.weight_from_values(log_phi_minus, log_phi_plus)

    # -------------------------------------------------------------- label-vector forms

    def for_classes(self, n_classes: int) -> Potential:
        """This rule for ``n_classes`` labels (itself, unless it depends on their number)."""
        return self

    def cost_matrix(self, n: int, s):
        """Multiclass: ``C[r, l] = phi_n^r(s + e_l)`` for every pair of labels."""
        raise NotImplementedError

    def cost_row(self, n: int, s, r: int) -> list:
        """Multiclass: row ``r`` of :meth:`cost_matrix`."""
        raise NotImplementedError

    def max_weight(self, n: int) -> float:
        """Multiclass: a bound on ``sum_l (C[y, l] - C[y, y])`` with ``n`` votes left."""
        raise NotImplementedError

    def cost_vector(self, s, relevant, n: int):
        """Ranking: ``c[l] = phi^n(s + e_l)`` for every label."""
        raise NotImplementedError

    #: ranking: a bound on ``max(c) - min(c)``
    cost_bound = 1.0

    # -------------------------------------------------------------- what the walk asks
    #
    # ``ex`` is the walk's view of one labelled example (river_boost.tasks.Example): its
    # label, sample weight ``w``, the learners' votes and the experts' scores. A step returns
    # ``(teach, edge, next state, alpha gradient)``: what learner i is taught (a probability,
    # or for ranking the costs and their bound), its contribution to the learner's edge
    # ``(numerator, denominator)`` or None, and the gradient of the loss in alpha_i (None
    # unless ``surrogate``).

    def binary_start(self, ex):
        s = self.start()
        return s, s  # (state, the all-wrong state)

    def binary_step(self, i: int, state, ex):
        state, worst = state
        z = ex.sign * ex.votes[i]
        p = self.sampling_probability(i + 1, state, worst)
        edge = ex.edges[i]
        return (
            p,
            binary_edge(ex.w, p, z),
            (self.advance(state, z, edge), self.advance(worst, -1, edge)),
            None,
        )

    def multiclass_start(self, ex):
        return np.zeros(ex.k, dtype=int)

    def multiclass_vote_costs(self, n: int, s, k: int) -> tuple:
        """``(C, D)``: the cost matrix with ``n`` votes left and its normalised form (5),
        ``D[r] = (C[r] - C[r, r]) / sum_l (C[r, l] - C[r, r])``, for cost-sensitive votes."""
        C = self.for_classes(k).cost_matrix(n, s)
        D = C - np.diag(C)[:, None]
        w = D.sum(axis=1, keepdims=True)
        return C, np.divide(D, w, out=np.zeros_like(D), where=w > 0)

    def multiclass_step(self, i: int, s, ex):
        """Algorithm 1 of Jung, Goetz & Tewari (2017): weight ``sum_l (C[y, l] - C[y, y])``
        over its bound; edge ``1 - k D[y, l_i]`` weighted by it (condition (1))."""
        pot = self.for_classes(ex.k)
        n = ex.n_models - (i + 1)
        yi, k = ex.yi, ex.k
        row = ex.costs[i][yi].tolist() if ex.costs is not None else pot.cost_row(n, s, yi)
        weight = math.fsum(c - row[yi] for c in row)
        if weight < ZERO_WEIGHT:  # an exact 0 (decided example) seen through float noise
            weight, edge = 0.0, None
        else:
            d_yl = (row[ex.votes[i]] - row[yi]) / weight
            edge = (ex.w * weight * (1.0 - k * d_yl), ex.w * weight)
        return min(1.0, weight / pot.max_weight(n)), edge, ex.scores[i], None

    def ranking_start(self, ex):
        return np.zeros(ex.k)

    def ranking_step(self, i: int, s, ex):
        """Algorithm 2 of Jung & Tewari (2018); the edge is the learner's cost-weighted
        advantage over a uniform vote, ``(mean(c) - c . h) / (max(c) - min(c))``."""
        cost = self.cost_vector(s, ex.relevant, ex.n_models - i - 1)
        spread = float(cost.max() - cost.min())
        h = ex.rows[i]
        edge = (ex.w * float(cost.mean() - cost @ h), ex.w * spread)
        return (cost, self.cost_bound), edge, s + h, None


_LOG2 = math.log(2.0)


def _compiled_steps(cls, potential, ex) -> list:
    """The steps of the example ``ex`` by the compiled rule of the library's class ``cls``
    (``river_boost.engine._rules``), run with ``potential``'s parameters: the state the
    Python ``*_step`` methods of ``cls`` pass along (one code for the math: the walk's)."""
    return _rules.compiled_rule(cls, potential, ex.n_models).steps(ex)


def _replay(i: int, steps: list) -> tuple:
    """Learner ``i``'s step from :func:`_compiled_steps`, as a ``*_step`` method returns it."""
    teach, edge, gradient = steps[i]
    return teach, edge, steps, gradient


def binary_edge(w: float, p: float, z: int) -> tuple:
    """The binary papers' edge ``gamma_i = (w^i . z^i) / (2 ||w^i||_1)``: one example's share
    ``(w p z, 2 w p)``, ``z = +1/-1`` for a right/wrong vote before learning."""
    wp = w * p
    return wp * z, 2.0 * wp


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

    needs_edges = False

    def __init__(self, n_models: int, gamma: float):
        if n_models < 1:
            raise ValueError(f"n_models must be >= 1, got {n_models}")
        self.n_models = n_models
        self.gamma = check_open_unit("gamma", gamma)

    def _tables(self):
        """The compiled tables of ``log k!`` and each learner's peak weight (built once per
        ``(n_models, gamma)``; the walk reads the same)."""
        return _rules.binomial_tables(self.n_models, self.gamma)

    def value(self, i: int, s: float) -> float:
        n = self.n_models - i
        top = math.floor((n - s) / 2)
        if top < 0:
            return 0.0
        log_pmf = self._tables().log_pmf
        return math.fsum(math.exp(log_pmf(n, k)) for k in range(0, min(top, n) + 1))

    def weight(self, i: int, s: float) -> float:
        return 0.5 * math.exp(self.log_weight(i, s) + _LOG2)

    def max_weight(self, i: int) -> float:
        return 0.5 * math.exp(self._tables().peak(i)[1])

    def argmax_margin(self, i: int) -> int:
        """A reachable margin ``s^{i-1}`` at which learner ``i``'s weight is maximal."""
        k = self._tables().peak(i)[0]
        # k = floor((N - i - s + 1) / 2) and s has the parity of i - 1.
        s = self.n_models - i + 1 - 2 * k
        if (s - (i - 1)) % 2:
            s -= 1
        return s

    def log_weight(self, i: int, s) -> float:
        tables = self._tables()
        return tables.log_pmf(self.n_models - i, tables.k_at(i, s)) - _LOG2

    def log_max_weight(self, i: int, worst=None) -> float:
        # The exact maximum over every reachable margin, whatever ``worst`` is.
        return self._tables().peak(i)[1] - _LOG2

    def sampling_probability(self, i: int, s, worst=None) -> float:
        # Margins unreachable with alpha = 1 (none in OnlineBBM) could exceed the peak: clip.
        log_ratio = self._tables().log_weight_ratio(i, s)
        return 0.0 if log_ratio == -math.inf else min(1.0, math.exp(log_ratio))


class NormalHedgePotential(Potential):
    """NormalHedge.DT's potential, online (Luo & Schapire 2014; Otten 2016, Algorithm 3).

    The state is the example's drift-adjusted margin
    ``s^i = s^{i-1} + z_i / 2 - edge_i``: ``z_i / 2 + 1/2`` is NormalHedge's "loss"
    ``1{h_i(x) = y}`` and ``edge_i + 1/2`` the learner's weighted accuracy, so ``-s`` is the
    example's regret as an expert. With ``Phi_i(s) = exp([s]_-^2 / (3 i))`` and
    ``[s]_- = min(0, s)``, learner ``i``'s weight is
    ``(Phi_i(s - 1) - Phi_i(s + 1)) / 2``: exactly 0 once ``s >= 1`` (the example is
    well classified by more than its share), and growing like ``exp(s^2 / (3 i))`` for badly
    classified examples, so it is kept as a logarithm (no overflow for ``s = -1e6``).

    **Bound.** The weight is non-increasing in ``s`` and ``z_i / 2 - edge_i`` is smallest when
    ``z_i = -1``, so the largest weight learner ``i`` can give is the weight at ``worst``, the
    margin of an example every earlier learner got wrong (with the current edge estimates).
    The sampling probability reaches 1 exactly there.

    Examples
    --------

    >>> pot = NormalHedgePotential()
    >>> s = pot.advance(pot.start(), z=+1, edge=0.1)   # right, learner edge 0.1
    >>> round(s, 2)
    0.4
    >>> pot.sampling_probability(2, 1.5, worst=-0.6)   # well classified: weight exactly 0
    0.0
    >>> round(pot.sampling_probability(2, s, worst=-0.6), 4)
    0.1162

    """

    def advance(self, s, z, edge):
        return _rules.nh_advance(s, z, edge)

    def log_value(self, i: int, s: float) -> float:
        """``log Phi_i(s) = [s]_-^2 / (3 i)``."""
        return _rules.nh_log_value(i, s)

    def log_weight(self, i, s):
        return _rules.nh_log_weight(i, s)

    def log_max_weight(self, i, worst):
        return self.log_weight(i, worst)


def squint_log_integral(R: float, V: float, prior: str = "improper") -> float:
    """``log`` of Squint's weight ``int_0^{1/2} g(eta) exp(eta R - eta^2 V) d eta``, exactly.

    ``g`` is the prior density on the learning rate ``eta`` (Koolen & van Erven 2015):
    ``"improper"`` (``g(eta) ∝ 1/eta`` times the ``eta`` of the weight, i.e. ``g = 1``: the
    formula of Otten's SquintBoost) or ``"uniform"`` (``g(eta) = 2 eta``, uniform prior times
    the weight's ``eta``).

    Closed forms with ``a = R / (2 sqrt V)``, ``c = sqrt(V) / 2`` and the peak of the exponent
    at ``eta* = R / (2V)``: ``I = sqrt(pi) / (2 sqrt V) * exp(a^2) (erf(a) - erf(a - c))``,
    rewritten with scipy's scaled ``erfcx`` on the side where the two ``erf`` would cancel
    (``eta* >= 1/2``: both tails on the right; ``eta* <= 0``: both on the left), and
    ``int_0^{1/2} eta exp(...) = (R I + 1 - exp(R/2 - V/4)) / (2V)``. Near ``R = V = 0`` those
    forms lose digits (``V -> 0`` is a 0/0 limit) while the integrand is an entire function of
    modest size, so a Gauss-Legendre rule is exact to rounding there: 12 points on
    ``|R| <= 2, V <= 1`` for the improper prior (outside, the two terms of each closed form
    differ by a factor ``e`` or more), 32 points on ``|R| <= 10, V <= 4`` for the uniform one
    (whose ``1 / V`` needs the wider margin; the states a walk of ``n`` learners reaches have
    ``R^2 <= n V``). Everything is returned as a logarithm: ``R = 1e6`` does not overflow.

    Examples
    --------

    >>> round(math.exp(squint_log_integral(0.0, 0.0)), 12)   # int_0^{1/2} 1 d eta
    0.5
    >>> round(math.exp(squint_log_integral(0.0, 0.0, prior="uniform")), 12)   # int 2 eta
    0.25

    """
    if prior not in ("improper", "uniform"):
        raise ValueError(f"prior must be 'improper' or 'uniform', got {prior!r}")
    return _rules.squint_log_integral(R, V, prior == "uniform")  # compiled: the one code


class SquintPotential(Potential):
    """Squint's potential, online (Koolen & van Erven 2015; Otten 2016, Algorithm 4).

    The state is ``(R, V)``: the example's regret ``R = sum_j r_j`` and its variance
    ``V = sum_j r_j^2`` along the learners so far, with ``r_j = edge_j - z_j / 2`` (the
    learner's weighted accuracy minus the example's "loss" ``1{h_j(x) = y}``, as in
    :class:`NormalHedgePotential`, whose margin is ``-R``). Learner ``i``'s weight is
    ``int_0^{1/2} g(eta) exp(eta R - eta^2 V) d eta`` (:func:`squint_log_integral`), never
    exactly 0 but tiny for well-classified examples (``R`` very negative).

    **Bound.** For each ``eta <= 1/2`` the summand ``eta r - eta^2 r^2`` increases with ``r``
    on ``r <= 1``, and ``r_j`` is largest when ``z_j = -1``; so the integrand, hence the
    weight, is largest on the all-wrong path: the bound is the weight at ``worst``.

    Parameters
    ----------
    prior
        Prior on Squint's learning rate: ``"improper"`` (the thesis's SquintBoost) or
        ``"uniform"``.

    Examples
    --------

    >>> pot = SquintPotential()
    >>> state = pot.advance(pot.start(), z=-1, edge=0.1)   # wrong: regret 0.6
    >>> state
    (0.6, 0.36)
    >>> pot.sampling_probability(2, state, worst=state)
    1.0

    """

    def __init__(self, prior: str = "improper"):
        squint_log_integral(0.0, 0.0, prior)  # validates
        self.prior = prior

    def start(self):
        return (0.0, 0.0)

    def advance(self, state, z, edge):
        r = _rules.squint_regret(z, edge)
        return (state[0] + r, state[1] + r * r)

    def log_weight(self, i, state):
        return squint_log_integral(state[0], state[1], self.prior)

    def log_max_weight(self, i, worst):
        return self.log_weight(i, worst)


class OSBoostPotential(Potential):
    """Online smooth boosting's weight as a potential (Chen, Lin & Lu 2012).

    The state moves by ``s <- s + (z_i - theta)`` with ``theta = gamma / (2 + gamma)``, and
    learner ``i + 1`` gets the example with weight ``1`` if ``s <= 0`` and ``(1 - gamma)^(s/2)``
    otherwise (:func:`osboost_weight`): a smooth distribution, no example weighs more than 1,
    so the weight is already a probability.

    Examples
    --------

    >>> pot = OSBoostPotential(gamma=0.2)
    >>> pot.sampling_probability(1, pot.start()), round(pot.sampling_probability(2, 2.0), 2)
    (1.0, 0.8)

    """

    needs_edges = False

    def __init__(self, gamma: float):
        self.gamma = check_open_unit("gamma", gamma)
        self._theta = gamma / (2.0 + gamma)

    def advance(self, state, z, edge):
        return _rules.osboost_advance(state, z, self._theta)

    def log_weight(self, i, state):
        return 0.0 if state <= 0 else (state / 2.0) * math.log1p(-self.gamma)

    def log_max_weight(self, i, worst=None):
        return 0.0

    def sampling_probability(self, i, state, worst=None):
        return _rules.osboost_weight(state, self.gamma)


class OSBoostOCPPotential(OSBoostPotential):
    """OSBoost.OCP: online smooth boosting's weights, and vote weights learned by online
    convex programming (Chen, Lin & Lu 2012, Algorithm 1).

    The examples weigh for the learners exactly as in :class:`OSBoostPotential`. The learners'
    vote weights ``alpha`` live on the probability simplex (``simplex = True``: the booster's
    vote weights run :class:`~river_boost.core.SimplexOGD`, starting from ``1/N`` each) and
    follow projected online gradient descent (Zinkevich 2003) on the hinge loss of the
    weighted vote at the margin ``theta = gamma / (2 + gamma)``,

        ``l(alpha) = max(0, theta - y sum_i alpha_i h_i)``,   ``y, h_i`` in ``{-1, +1}``,

    with the votes ``h_i`` the learners gave before learning the example: while the margin
    ``y F`` of the full vote ``F = sum_i alpha_i h_i`` is below ``theta``, ``alpha_i``'s
    gradient is ``-w z_i`` (``z_i = y h_i``, ``w`` the sample weight), else 0 (no step).
    The booster predicts ``sign(F)`` (``P(True) = (1 + F) / 2``, the ``alpha``-weighted share
    of True votes).

    Examples
    --------

    Two learners, vote weights ``(0.5, 0.5)``, a positive example the first gets right and the
    second wrong: the margin ``F = 0`` is below ``theta = 1/21``, so ``alpha_1`` gets
    gradient ``-1`` and ``alpha_2`` ``+1``; the weights are OSBoost's.

    >>> from river_boost.tasks import Example, Walk
    >>> pot = OSBoostOCPPotential(gamma=0.1)
    >>> walk = Walk([0.9, 0.2], [1, -1], [0.5, 0.0])  # P(True), votes, the experts' margins
    >>> ex = Example(walk, 1.0, 2, [0.5, 0.5], [0.0, 0.0], y=True, sign=1)
    >>> state = pot.binary_start(ex)
    >>> p1, _, state, g1 = pot.binary_step(0, state, ex)
    >>> p2, _, state, g2 = pot.binary_step(1, state, ex)
    >>> (p1, round(p2, 4)), (g1, g2)
    ((1.0, 0.9511), (-1.0, 1.0))

    """

    surrogate = True
    #: the vote weights live on the probability simplex (:class:`~river_boost.core.SimplexOGD`)
    simplex = True

    def binary_start(self, ex):
        return _compiled_steps(OSBoostOCPPotential, self, ex)

    def binary_step(self, i, state, ex):
        return _replay(i, state)


class LogisticLoss(Potential):
    """The logistic loss as a surrogate potential: the rule of the adaptive boosters.

    In every task, learner ``i`` is weighted by the gradient of the logistic loss at the
    state the earlier learners left, and the learners' vote weights ``alpha_i`` follow
    projected online gradient descent on that loss (``surrogate = True``), with Hedge over the
    ``N`` experts (:class:`~river_boost.core.ProjectedOGD`, :class:`~river_boost.core.Hedge`):

    - **binary** (AdaBoost.OL, Beygelzimer, Kale & Luo 2015, Algorithm 2): along the learners
      the weighted margin ``s^i = s^{i-1} + alpha_i z_i``; learner ``i`` gets the example with
      probability ``1 / (1 + exp(s^{i-1}))`` (minus the derivative of ``ln(1 + exp(-s))``), and
      ``alpha_i``'s gradient is ``-z_i / (1 + exp(s^i))``.
    - **multiclass** (AdaBoost.OLM, Jung, Goetz & Tewari 2017, Algorithm 2): the cost matrix
      (9), the gradient of ``L^r(s) = sum_{l != r} ln(1 + exp(s[l] - s[r]))`` at ``s^{i-1}``,
      ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))`` off the diagonal, rows summing to 0; the weight
      is ``-C[y, y] / (k - 1)`` in ``[0, 1]``, the edge ``sum C[y, l_i] / sum C[y, y]``, and
      ``alpha_i``'s gradient is (10).
    - **ranking** (Ada.OLMR, Jung & Tewari 2018, Algorithm 3): the cost vector is the gradient
      (8) of the logistic rank surrogate (:func:`logistic_rank_gradient`); every relevant label
      ``l`` is taught with weight ``max(c) - c[l]`` over its bound 2, the edge is (10),
      ``-c . h / (||c||_1 / 2)``, and ``alpha_i``'s gradient is ``c^{i+1} . h^i``.

    Examples
    --------

    >>> LogisticLoss().tasks
    ('binary', 'multiclass', 'ranking')

    """

    tasks = ("binary", "multiclass", "ranking")
    surrogate = True
    needs_edges = False

    def binary_start(self, ex):
        return _compiled_steps(LogisticLoss, self, ex)

    def binary_step(self, i, state, ex):
        return _replay(i, state)

    @staticmethod
    def cost_matrix_of(s):
        """(9): ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))`` off the diagonal, rows sum to 0."""
        return np.array(_costs.LogisticCosts().logistic_cost_matrix([float(v) for v in s]))

    def multiclass_start(self, ex):
        return _compiled_steps(LogisticLoss, self, ex)

    def multiclass_vote_costs(self, n, s, k):
        C = self.cost_matrix_of(s)
        return C, C

    def multiclass_step(self, i, s, ex):
        return _replay(i, s)

    def ranking_start(self, ex):
        return _compiled_steps(LogisticLoss, self, ex)

    def ranking_step(self, i, state, ex):
        return _replay(i, state)


class MulticlassZeroOnePotential(Potential):
    """Exact potentials of the multiclass 0-1 loss (Jung, Goetz & Tewari 2017, (2)-(3)).

    ``phi_n^r(s)`` is the probability that, after ``n`` more votes drawn from ``u_gamma^r``
    (label ``r`` with probability ``(1 - gamma)/k + gamma``, every other label with
    ``(1 - gamma)/k``), some wrong label ties or beats ``r``: the expected final 0-1 loss of a
    majority vote that currently stands at ``s``.

    **Exact computation, no Monte Carlo.** Condition on the number ``m`` of votes ``r``
    receives (``Binomial(n, p_r)``); the other ``n - m`` votes are uniform over the ``k - 1``
    wrong labels and ``r`` wins iff every wrong label ``l`` gets at most
    ``cap_l = m + s[r] - s[l] - 1`` of them. Up to ``n = TENSOR_MAX_N`` (40) that capped
    multinomial probability is the original dynamic program over "votes left", label by label,
    for every ``m`` at once: ``O(n^3)`` per binding label. Above, the wrong
    labels' votes are seen as independent Poisson counts conditioned on their sum (exact), so
    one truncated Poisson kernel serves every ``m`` and a binding label costs ``O(rows x
    band x width)``, about ``O(n^2)`` (``_compute_poisson``); terms below ``1e-30`` are left
    out, far below the float64 rounding of ``1 - P(win)``. A potential that is decided to
    within ``2^-60`` (one wrong label's gap law, a union bound) is exactly 1 or 0 without a DP.
    Everything is a sum of non-negative terms, with exact binomial coefficients up to
    ``TENSOR_MAX_N`` and Loader's accurate binomial and Poisson pmfs above (``exp(lgamma
    ...)`` loses ~1e-13 at ``n = 1000``). Both DPs are compiled (``river_boost.engine._dp``, the
    one code every walk calls; NumPy oracles in the tests). At ``n = 999`` one potential
    takes about 0.05-0.3 s (7 or 30 classes) instead of tens of seconds.

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

    tasks = ("multiclass",)

    def __init__(self, n_classes: int, gamma: float, cache_size: int = 100_000):
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        self.n_classes = n_classes
        self.gamma = check_open_unit("gamma", gamma)
        self.cache_size = cache_size
        self.p_right = (1.0 - gamma) / n_classes + gamma
        self._cache = BoundedCache(cache_size)
        self._max_weights: dict = {}  # one per number of votes left: at most N
        self._gap_peaks: dict = {}  # _max_gap_pmf above TENSOR_MAX_N (_gap_pass)
        self._gap_tails = BoundedCache(100_000)  # laws of one gap (_gap_tail, _gap_pass)
        self._resized = None

    def for_classes(self, n_classes: int) -> MulticlassZeroOnePotential:
        """The same potential for ``n_classes`` labels (classes may join mid-stream)."""
        if n_classes == self.n_classes:
            return self
        if self._resized is None or self._resized.n_classes != n_classes:
            self._resized = type(self)(n_classes, self.gamma, self.cache_size)
        return self._resized

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
        out = self._cache.get(key)
        if out is None:
            out = self._cache.put(key, self._compute(n, key[1]))
        return out

    def cost_matrix(self, n: int, s):
        """``C[r, l] = phi_n^r(s + e_l)`` for all labels (a read-only ``k x k`` numpy array).

        Labels with equal scores are interchangeable, so a matrix needs only ``G^2 + G``
        potentials for ``G`` distinct scores instead of ``k^2``: the compiled engine's
        assembly (``river_boost.engine._costs.MBBMCosts``), each potential read from this
        potential's cache. (The engines keep the matrices they meet in their own table.)
        """
        scores = [int(v) for v in s]
        if len(scores) != self.n_classes:
            raise ValueError(f"expected {self.n_classes} scores, got {len(scores)}")
        C = np.array(_costs.MBBMCosts(self, 1).cost_matrix(self, n, scores))
        C.flags.writeable = False
        return C

    def cost_row(self, n: int, s, r: int) -> list:
        """Row ``r`` of :meth:`cost_matrix`: ``phi_n^r(s + e_l)`` for every label ``l``."""
        return self.cost_matrix(n, s)[r].tolist()

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
        bounds = self._max_weights
        if n not in bounds:
            bounds[n] = (self.n_classes - 1) * min(1.0, self.n_classes * self._max_gap_pmf(n))
        return bounds[n]

    def _max_gap_pmf(self, n: int) -> float:
        """``max_c P(X_r - X_l = c)`` after ``n`` votes, for a wrong label ``l``.

        Up to ``TENSOR_MAX_N`` the trinomial sum (``O(n^2)``, compiled:
        ``river_boost.engine._dp.max_gap_pmf``); above, the law of the gap is built by ``n``
        convolutions with ``(q, 1 - p - q, p)`` and its maximum recorded for every ``n' <= n``
        at once (the booster asks ``N - 1`` first).
        """
        if n == 0:
            return 1.0
        if n > TENSOR_MAX_N:
            if n not in self._gap_peaks:
                self._gap_pass(n)
            return self._gap_peaks[n]
        return _dp.max_gap_pmf(self.n_classes, self.gamma, self.p_right, n)

    def _gap_tail(self, n: int):
        """``(P(D >= d), P(D <= d))`` for ``d = -n..n`` at index ``d + n`` (the first with one
        extra 0 at the end), ``D`` the gap ``X_r - X_l`` to one wrong label after ``n`` votes."""
        if n not in self._gap_tails:
            self._gap_pass(n)
        return self._gap_tails[n]

    def _gap_pass(self, n: int) -> None:
        """The laws of ``D`` for every ``n' <= n`` come out of one pass of ``n`` convolutions
        with ``(q, 1 - p - q, p)``: keep their upper tails (``_gap_tail``, a bounded cache that
        pickles empty) and peaks (``_max_gap_pmf``) for every ``n' > TENSOR_MAX_N``."""
        for j, law in _laws.gap_laws(n, self.n_classes, self.gamma, self.p_right):
            if j > TENSOR_MAX_N or j == n:
                self._gap_peaks[j] = float(law.max())
                self._gap_tails.put(j, _laws.tails(law))

    # -------------------------------------------------------------- exact computation

    def _compute(self, n: int, gaps: tuple) -> float:
        """The potential for sorted ``gaps`` (uncached): the dense DP up to ``TENSOR_MAX_N``
        votes left, the banded one above."""
        if n <= TENSOR_MAX_N:
            return self._compute_tensor(n, gaps)
        return self._compute_poisson(n, gaps)

    def _compute_tensor(self, n: int, gaps: tuple) -> float:
        """The dense DP, ``O(n^3)`` per binding label (``river_boost.engine._dp.potential``): given
        ``m`` votes for ``r``, the other ``n - m`` votes are placed label by label, each
        wrong label ``l`` taking at most ``m + g_l - 1`` of them (a binomial share of the
        votes left), tightest first; ``1 - sum_m P(m) P(all within caps | m)``."""
        return _dp.potential(n, self.n_classes, self.p_right, gaps)

    def _compute_poisson(self, n: int, gaps: tuple) -> float:
        """The banded DP over the binding labels, ``O(n^2)`` per binding label
        (:func:`river_boost.engine.laws.banded_potential`, where the method is described)."""
        return _laws.banded_potential(n, self.n_classes, self.p_right, gaps, self._gap_tail(n))


#: ``n`` up to which :class:`MulticlassZeroOnePotential` runs its dense DP (the banded one
#: above)
TENSOR_MAX_N = _dp.TENSOR_MAX_N


class RankingPairPotential(Potential):
    """Exact potentials of OnlineBMR (Jung & Tewari 2018, (1)-(3)) for the rank or hinge loss.

    ``phi^n(s) = E L^Y(s + X)`` where ``X`` counts ``n`` draws from ``u_gamma^Y`` (each relevant
    label with probability ``a + gamma``, each irrelevant one with ``a = (1 - |Y| gamma) / k``).
    Both losses are sums over (relevant ``l``, irrelevant ``r``) pairs of a function of
    ``s[r] - s[l]``, so by linearity ``phi^n`` is ``w_Y`` times a sum of pair terms
    ``E f(s[r] - s[l] + D)`` with ``D = X_r - X_l``: a trinomial difference (each draw adds
    ``+1`` with probability ``a``, ``-1`` with ``a + gamma``, else 0) whose law depends only on
    ``(n, |Y|, k)``. That law is computed exactly (``n`` convolutions) and cached (bounded,
    oldest dropped first) with its suffix sums, so every pair term is O(1):

    - rank loss, ``f(g) = 1[g > 0] + 1/2 1[g = 0]``: ``P(D > -g) + 1/2 P(D = -g)``;
    - hinge loss, ``f(g) = (1 + g)_+``: ``(1 + g) P(D >= d0) + E[D; D >= d0]`` with ``d0`` the
      smallest ``d > -(1 + g)``.

    The cost vector (2), ``c[j] = phi^n(s + e_j)``, changes one row (relevant ``j``) or one
    column (irrelevant ``j``) of the pair matrix, so it costs three vectorised evaluations of
    the pair terms. If ``|Y| gamma > 1`` the edge is capped at ``1 / |Y|`` (all the baseline's
    mass on the relevant labels), so that ``u`` stays a distribution.

    Parameters
    ----------
    gamma
        Edge of the baseline learner, in ``(0, 1)``.
    loss
        ``"hinge"`` (for distribution-valued weak predictions, the paper's choice with VFDT) or
        ``"rank"`` (single-label weak predictions).
    cache_size
        Maximum number of cached difference laws.

    Examples
    --------

    >>> pot = RankingPairPotential(gamma=0.1, loss="rank")
    >>> round(pot.value([0.0, 0.0, 0.0], [True, False, False], n=0), 6)   # a tie: 1/2
    0.5
    >>> [float(c) for c in pot.cost_vector([0.0, 0.0, 0.0], [True, False, False], n=0)]
    [0.0, 0.75, 0.75]

    """

    LOSSES = ("hinge", "rank")
    tasks = ("ranking",)

    def __init__(self, gamma: float, loss: str = "hinge", cache_size: int = 10_000):
        check_choice("loss", loss, self.LOSSES)
        self.gamma = check_open_unit("gamma", gamma)
        self.loss = loss
        self.cache_size = cache_size
        self._cache = BoundedCache(cache_size)  # recomputed exactly on demand, not pickled

    @property
    def cost_bound(self) -> float:
        """A bound on ``max(c) - min(c)``: 2 for the hinge loss (the paper's appendix), 1 for
        the rank loss (its potentials lie in ``[0, 1]``)."""
        return 2.0 if self.loss == "hinge" else 1.0

    def baseline(self, n_relevant: int, n_labels: int) -> tuple:
        """``(a + gamma, a)``: the baseline's probability of each relevant / irrelevant label."""
        gamma = min(self.gamma, 1.0 / n_relevant)
        a = (1.0 - n_relevant * gamma) / n_labels
        return a + gamma, a

    def difference_law(self, n: int, n_relevant: int, n_labels: int) -> tuple:
        """``(P, SP, SD)`` of ``D = X_r - X_l`` on ``d = -n..n``: its probabilities and their
        suffix sums of ``P`` and of ``d P`` (one extra 0 at the end)."""
        key = (n, n_relevant, n_labels)
        law = self._cache.get(key)
        if law is None:
            p_l, p_r = self.baseline(n_relevant, n_labels)  # d = -1, +1
            law = self._cache.put(key, _dp.difference_law(n, p_l, p_r))
        return law

    def pair_terms(self, gaps, n: int, n_relevant: int, n_labels: int) -> np.ndarray:
        """``E f(g + D)`` for every gap ``g = s[r] - s[l]`` in ``gaps`` (any shape)."""
        return _costs.PairCosts(self, n + 1).pair_terms(gaps, n, n_relevant, n_labels)

    def value(self, s, relevant, n: int) -> float:
        """``phi^n(s)`` (1): the expected final loss with ``n`` baseline votes to come."""
        s, relevant = np.asarray(s, dtype=float), np.asarray(relevant, dtype=bool)
        G = s[~relevant][None, :] - s[relevant][:, None]
        terms = self.pair_terms(G, n, int(relevant.sum()), len(relevant))
        return float(terms.sum() / G.size)

    def cost_vector(self, s, relevant, n: int) -> np.ndarray:
        """``c[j] = phi^n(s + e_j)`` for every label ``j`` (2): a vote for a relevant label
        lowers its row of gaps by 1, a vote for an irrelevant one raises its column (the
        walk's own computation)."""
        return _costs.PairCosts(self, n + 1).cost_vector_of(s, relevant, n)


def rank_loss(scores, relevant, tie: float = 0.5) -> float:
    """The paper's rank loss: the share of (relevant, irrelevant) pairs ranked the wrong way
    round, ties counting ``tie`` (1/2). ``nan`` when ``relevant`` is empty or full (no pairs).

    Examples
    --------

    >>> rank_loss([3.0, 1.0, 2.0], [True, True, False])
    0.5

    """
    scores, relevant = np.asarray(scores, dtype=float), np.asarray(relevant, dtype=bool)
    n_rel = int(relevant.sum())
    if n_rel == 0 or n_rel == len(relevant):
        return math.nan
    # compared, not subtracted: labels scored -inf (missing from a prediction) tie
    rel, irr = scores[relevant][:, None], scores[~relevant][None, :]
    above = irr > rel
    return float((above.sum() + tie * (irr == rel).sum()) / above.size)


def logistic_rank_gradient(scores, relevant) -> np.ndarray:
    """Gradient of the logistic rank surrogate
    ``L(s) = w_Y sum_{l in Y} sum_{r not in Y} log(1 + exp(s[r] - s[l]))``, ``w_Y = 1/(|Y||Y^c|)``.

    Relevant labels get negative entries, irrelevant ones positive, summing to 0; ``||c||_1 / 2``
    is the paper's weight (9).

    Examples
    --------

    >>> [float(c) for c in logistic_rank_gradient([0.0, 0.0, 0.0], [True, False, False])]
    [-0.5, 0.25, 0.25]

    """
    return _rules.logistic_rank_gradient(scores, relevant)
