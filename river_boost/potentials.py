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
from .engine import _costs, _dp, _ranking, _rules

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


def binomial_log_pmf(n: int, k: int, q: float) -> float:
    """Natural log of ``P(Binomial(n, q) = k)``; ``-inf`` outside ``0 <= k <= n``.

    Computed with ``lgamma`` so it stays finite for ``n`` in the thousands and ``q`` close to
    1/2, where the probability itself may underflow (compiled: Online BBM's tables' own).

    Examples
    --------

    >>> round(math.exp(binomial_log_pmf(4, 2, 0.5)), 6)
    0.375

    """
    return _rules.binomial_log_pmf(n, k, q)


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

    These are the hooks: the walk (``river_boost.engine._rules``) runs the papers' steps in C
    around them. Each of the library's potentials names its compiled rule (:attr:`rule`),
    which computes the same math without calling back; a potential of your own, or a subclass
    of ours, runs its hooks on the same walk. A surrogate loss (:class:`LogisticLoss`,
    ``surrogate = True``), whose gradient also moves the learners' vote weights ``alpha``, is
    its compiled rule. A new potential is one class (``docs/new-booster.md``).

    """

    #: the tasks this rule runs in (``"binary"``, ``"multiclass"``, ``"ranking"``)
    tasks: tuple = ("binary",)
    #: whether the learners' vote weights ``alpha`` follow this loss's gradient (adaptive)
    surrogate = False
    #: binary form: whether :meth:`advance` reads the learners' running edges
    needs_edges = True
    #: the compiled rule (``river_boost.engine._rules``) of exactly this class, which runs
    #: without calling the hooks; elsewhere (None, or a subclass: it may change any hook) the
    #: walk calls the hooks
    rule = None

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
        return [float(c) for c in self.cost_matrix(n, s)[r]]

    def max_weight(self, n: int) -> float:
        """Multiclass: a bound on ``sum_l (C[y, l] - C[y, y])`` with ``n`` votes left."""
        raise NotImplementedError

    def cost_vector(self, s, relevant, n: int):
        """Ranking: ``c[l] = phi^n(s + e_l)`` for every label."""
        raise NotImplementedError

    #: ranking: a bound on ``max(c) - min(c)``
    cost_bound = 1.0


_LOG2 = math.log(2.0)


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
    rule = _rules.BinomialRule

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

    rule = _rules.NormalHedgeRule

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

    rule = _rules.SquintRule

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
    rule = _rules.OSBoostRule

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
    vote weights run :class:`~river_boost.engine._experts.SimplexOGD`, starting from ``1/N``
    each) and follow projected online gradient descent (Zinkevich 2003) on the hinge loss of
    the weighted vote at the margin ``theta = gamma / (2 + gamma)``,

        ``l(alpha) = max(0, theta - y sum_i alpha_i h_i)``,   ``y, h_i`` in ``{-1, +1}``,

    with the votes ``h_i`` the learners gave before learning the example: while the margin
    ``y F`` of the full vote ``F = sum_i alpha_i h_i`` is below ``theta``, ``alpha_i``'s
    gradient is ``-w z_i`` (``z_i = y h_i``, ``w`` the sample weight), else 0 (no step).
    The booster predicts ``sign(F)`` (``P(True) = (1 + F) / 2``, the ``alpha``-weighted share
    of True votes).

    Examples
    --------

    The weights are OSBoost's; the vote weights learn in the compiled rule:

    >>> pot = OSBoostOCPPotential(gamma=0.1)
    >>> pot.sampling_probability(2, 2.0) == OSBoostPotential(gamma=0.1).sampling_probability(2, 2.0)
    True
    >>> pot.surrogate, pot.simplex, pot.rule.__name__
    (True, True, 'OSBoostOCPRule')

    """

    surrogate = True
    #: the vote weights live on the probability simplex
    #: (:class:`~river_boost.engine._experts.SimplexOGD`)
    simplex = True
    rule = _rules.OSBoostOCPRule


class LogisticLoss(Potential):
    """The logistic loss as a surrogate potential: the rule of the adaptive boosters.

    In every task, learner ``i`` is weighted by the gradient of the logistic loss at the
    state the earlier learners left, and the learners' vote weights ``alpha_i`` follow
    projected online gradient descent on that loss (``surrogate = True``), with Hedge over the
    ``N`` experts (:class:`~river_boost.engine._experts.ProjectedOGD`,
    :class:`~river_boost.engine._experts.Hedge`):

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
    rule = _rules.LogisticRule

    @staticmethod
    def cost_matrix_of(s):
        """(9): ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))`` off the diagonal, rows sum to 0."""
        return np.array(_costs.LogisticCosts().logistic_cost_matrix([float(v) for v in s]))


class MulticlassZeroOnePotential(Potential):
    """Exact potentials of the multiclass 0-1 loss (Jung, Goetz & Tewari 2017, (2)-(3)).

    ``phi_n^r(s)`` is the probability that, after ``n`` more votes drawn from ``u_gamma^r``
    (label ``r`` with probability ``(1 - gamma)/k + gamma``, every other label with
    ``(1 - gamma)/k``), some wrong label ties or beats ``r``: the expected final 0-1 loss of a
    majority vote that currently stands at ``s``.

    **Exact computation, no Monte Carlo**: a dynamic program up to ``TENSOR_MAX_N`` (40)
    votes left, a banded one above (``river_boost.engine._costs.MBBMCosts.value``, where the
    method is described); at ``n = 999`` one potential takes about 0.05-0.3 s.

    Potentials depend on ``s`` only through ``n`` and the sorted gaps ``s[r] - s[l]``. The
    computation is the engine's cost object's (``river_boost.engine._costs.MBBMCosts``), which
    keeps a booster's potentials under that key in a bounded cache (``cache_size`` entries,
    oldest dropped first; not pickled: they are recomputed, exactly, on demand), with the gap
    laws and bounds below; called here, the potential computes afresh.

    Parameters
    ----------
    n_classes
        ``k >= 2``.
    gamma
        Edge, in ``(0, 1)``.
    cache_size
        Maximum number of potentials a booster keeps.

    Examples
    --------

    >>> pot = MulticlassZeroOnePotential(n_classes=3, gamma=0.1)
    >>> round(pot.value(0, [1, 0, 0], r=0), 6)  # no votes left: r already wins
    0.0
    >>> round(pot.value(4, [0, 0, 0], r=0), 6)
    0.648

    """

    tasks = ("multiclass",)
    rule = _rules.MBBMRule

    def __init__(self, n_classes: int, gamma: float, cache_size: int = 100_000):
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        self.n_classes = n_classes
        self.gamma = check_open_unit("gamma", gamma)
        self.cache_size = cache_size
        self.p_right = (1.0 - gamma) / n_classes + gamma

    def for_classes(self, n_classes: int) -> MulticlassZeroOnePotential:
        """The same potential for ``n_classes`` labels (classes may join mid-stream)."""
        if n_classes == self.n_classes:
            return self
        return type(self)(n_classes, self.gamma, self.cache_size)

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
        return _costs.MBBMCosts(self, 1).value(self, n, tuple(sorted(gaps)))

    def cost_matrix(self, n: int, s):
        """``C[r, l] = phi_n^r(s + e_l)`` for all labels (a read-only ``k x k`` numpy array).

        Labels with equal scores are interchangeable, so a matrix needs only ``G^2 + G``
        potentials for ``G`` distinct scores instead of ``k^2``: the compiled engine's
        assembly (``river_boost.engine._costs.MBBMCosts``). (The engines keep the matrices and
        potentials they meet in their own tables.)
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
        ``r`` and one wrong label are a trinomial pair: ``MBBMCosts.max_gap_pmf``) and is
        ``O(1 / sqrt(n))``.
        """
        return _costs.MBBMCosts(self, 1).bound(self, n)


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
    ``(n, |Y|, k)``. That law is computed exactly (``n`` convolutions) with its suffix sums, and
    kept by the engine's cost object (``river_boost.engine._costs.PairCosts``: bounded, oldest
    dropped first), so every pair term is O(1):

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
        Maximum number of difference laws a booster keeps.

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
    rule = _rules.PairRule

    def __init__(self, gamma: float, loss: str = "hinge", cache_size: int = 10_000):
        check_choice("loss", loss, self.LOSSES)
        self.gamma = check_open_unit("gamma", gamma)
        self.loss = loss
        self.cache_size = cache_size

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
        p_l, p_r = self.baseline(n_relevant, n_labels)  # d = -1, +1
        return _dp.difference_law(n, p_l, p_r)

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
    Scores are compared, not subtracted: labels scored -inf (missing from a prediction) tie
    (compiled, the ranking walk's own).

    Examples
    --------

    >>> rank_loss([3.0, 1.0, 2.0], [True, True, False])
    0.5

    """
    return _ranking.rank_loss(scores, relevant, tie)


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
    return _costs.logistic_rank_gradient(scores, relevant)
