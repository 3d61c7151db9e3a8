"""The large-``n`` algorithm of ``MulticlassZeroOnePotential`` (the banded DP) against
the dense DP (used up to ``TENSOR_MAX_N``), and the potential's bounds, recursion and
monotonicity at ``n`` in the hundreds. Against brute force: in ``test_multiclass.py``, for
both algorithms; both DPs against their NumPy oracles: in ``test_dp.py``."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from river_boost import potentials
from river_boost.engine import _costs, _dp, laws
from river_boost.potentials import MulticlassZeroOnePotential


def gaps_of(s, r):
    return tuple(sorted(s[r] - v for j, v in enumerate(s) if j != r))


def dense(pot, n: int, gaps: tuple) -> float:
    """The potential by the dense DP (the engine's up to ``TENSOR_MAX_N``), uncached."""
    return _dp.potential(n, pot.n_classes, pot.p_right, gaps)


def banded(pot, n: int, gaps: tuple) -> float:
    """The potential by the banded DP (the engine's above ``TENSOR_MAX_N``), uncached."""
    tail = _costs.MBBMCosts(pot, 1).gap_tail(pot, n)
    return laws.banded_potential(n, pot.n_classes, pot.p_right, gaps, tail)


@pytest.mark.parametrize("k", [2, 3, 5, 7, 10, 30])
def test_poisson_dp_equals_dense_dp_for_moderate_n(k):
    rng = random.Random(k)
    pot = MulticlassZeroOnePotential(k, rng.choice([0.05, 0.1, 0.3]))
    for n in (1, 5, 17, 41, 50, 60):
        for _ in range(8):
            spread = rng.choice([2, 6, 15])
            gaps = tuple(sorted(rng.randint(-spread, spread) for _ in range(k - 1)))
            assert banded(pot, n, gaps) == pytest.approx(dense(pot, n, gaps), abs=1e-12)


def test_small_n_keeps_the_dense_dp_bit_for_bit():
    pot = MulticlassZeroOnePotential(7, 0.1)
    for n in range(potentials.TENSOR_MAX_N + 1):
        gaps = (-1, 0, 0, 1, 2, 2)
        assert pot.value_from_gaps(n, gaps) == dense(pot, n, gaps)


def test_max_gap_pmf_above_the_threshold_equals_the_trinomial_sum():
    for k in (2, 7, 30):
        pot = MulticlassZeroOnePotential(k, 0.1)
        new = [_costs.MBBMCosts(pot, 1).max_gap_pmf(pot, n) for n in range(41, 90)]
        old = [_dp.max_gap_pmf(k, 0.1, pot.p_right, n) for n in range(41, 90)]  # the O(n^2) loop
        assert new == pytest.approx(old, rel=1e-12)


@pytest.mark.parametrize("k, n", [(3, 150), (7, 300), (30, 250)])
def test_large_n_bounds_monotonicity_and_recursion(k, n):
    gamma = 0.1
    pot = MulticlassZeroOnePotential(k, gamma)
    p = [(1 - gamma) / k + gamma] + [(1 - gamma) / k] * (k - 1)
    rng = random.Random(n)
    for _ in range(3):
        s = [rng.randint(0, 12) for _ in range(k)]
        v = pot.value(n, s, 0)
        assert 0.0 <= v <= 1.0
        # one label beating r is at most the union over labels, at least the closest one
        _, lower = _costs.MBBMCosts(pot, 1).gap_tail(pot, n)  # P(X_r - X_l <= d) at d + n
        singles = [lower[n - g] for g in gaps_of(s, 0)]
        assert max(singles) - 1e-13 <= v <= math.fsum(singles) + 1e-13
        # a vote for r lowers the potential, a vote for a wrong label raises it
        up = [s[0] + 1] + s[1:]
        assert pot.value(n, up, 0) <= v + 1e-13
        down = [s[0], s[1] + 1] + s[2:]
        assert pot.value(n, down, 0) >= v - 1e-13
        # phi_{n+1}(s) = sum_l u(l) phi_n(s + e_l)
        nxt = math.fsum(
            p[lab] * pot.value(n, [x + (j == lab) for j, x in enumerate(s)], 0) for lab in range(k)
        )
        assert pot.value(n + 1, s, 0) == pytest.approx(nxt, abs=1e-12)


@pytest.mark.parametrize("k", [7, 30])
def test_first_cost_matrices_of_a_thousand_learners_take_seconds(k):
    pot = MulticlassZeroOnePotential(k, 0.1)
    s = np.zeros(k, dtype=int)
    start = time.perf_counter()
    for i, lab in enumerate([0, 0, 1, 0, 2]):  # the walk's first five matrices
        C = pot.cost_matrix(999 - i, s)
        assert np.all((C >= 0) & (C <= 1))
        assert np.all(np.diag(C) <= C.min(axis=1) + 1e-15)  # a vote for r costs least
        s[lab] += 1
    assert time.perf_counter() - start < 60  # was minutes per matrix before


def test_decided_potentials_are_exactly_zero_or_one():
    pot = MulticlassZeroOnePotential(7, 0.1)
    assert banded(pot, 100, (-200,) + (0,) * 5) == 1.0  # r far behind
    assert banded(pot, 100, (150,) * 6) == 0.0  # r out of reach
    # the dense DP gives the same up to its rounding (lgamma: ~1e-13 at n = 100)
    assert dense(pot, 100, (-200,) + (0,) * 5) == 1.0
    assert dense(pot, 100, (150,) * 6) == pytest.approx(0.0, abs=1e-13)


def test_the_cached_laws_are_the_computed_ones_read_only_and_bounded():
    """The large-n DP reads its binomial and Poisson laws through a cache bounded in bytes:
    the very arrays the functions compute, read-only, the oldest dropped first."""
    cache = laws.LawCache(max_bytes=8 * (101 + 51))
    built = []

    def build(n):
        def make():
            built.append(n)
            return laws.poisson_pmf(2.5, np.arange(n + 1))

        return make

    first = cache.get(("p", 100), build(100))
    assert first.tobytes() == laws.poisson_pmf(2.5, np.arange(101)).tobytes()
    assert not first.flags.writeable
    assert cache.get(("p", 100), build(100)) is first and built == [100]
    cache.get(("p", 50), build(50))
    cache.get(("p", 60), build(60))  # over the budget: the oldest (n = 100) goes
    assert cache.nbytes <= cache.max_bytes and built == [100, 50, 60]
    cache.get(("p", 100), build(100))
    assert built == [100, 50, 60, 100]
    # the module's functions: cached arrays equal to fresh computations
    for n, q in ((50, 0.3), (999, 0.14)):
        assert (
            laws.binomial_pmf_vector(n, q).tobytes()
            == laws.binom_dist.pmf(np.arange(n + 1), n, q).tobytes()
        )
    x = np.arange(40, 7, -1)
    expected = laws.poisson_pmf(31.0, x).tobytes()
    assert laws.poisson_pmf_at(31.0, x).tobytes() == expected
    assert laws.poisson_pmf_at(31.0, x) is laws.poisson_pmf_at(31.0, x.copy())
    assert laws.poisson_pmf_range(3.5, 20).tobytes() == (
        laws.poisson_pmf(3.5, np.arange(21)).tobytes()
    )
