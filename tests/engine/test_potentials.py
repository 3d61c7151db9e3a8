"""The potentials' math against brute force (exact fractions, full enumeration)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from river_boost.potentials import (
    BinomialPotential,
    OSBoostOCPPotential,
    binomial_log_pmf,
    logistic_loss,
    logistic_weight,
    osboost_weight,
)


def brute_phi(n_models, i, s, gamma):
    """Phi_i(s) by summing binomial terms in exact rational arithmetic."""
    q = (1 + Fraction(gamma)) / 2
    n = n_models - i
    top = math.floor(Fraction(n - s, 2))
    return sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(0, min(top, n) + 1))


def reachable_margins(i):
    """Margins s^{i-1} that i - 1 votes of +/-1 can produce."""
    return range(-(i - 1), i, 2)


@pytest.mark.parametrize("n, q", [(0, 0.3), (1, 0.55), (7, 0.5), (20, 0.9), (13, 0.05)])
def test_binomial_log_pmf_matches_comb(n, q):
    for k in range(-1, n + 2):
        expected = math.comb(n, k) * q**k * (1 - q) ** (n - k) if 0 <= k <= n else 0.0
        assert math.exp(binomial_log_pmf(n, k, q)) == pytest.approx(expected, rel=1e-12, abs=0)


@pytest.mark.parametrize("n_models", [1, 2, 3, 6, 11])
@pytest.mark.parametrize("gamma", ["0.05", "0.1", "0.3"])
def test_bbm_potential_and_weights_against_brute_force(n_models, gamma):
    g = Fraction(gamma)
    pot = BinomialPotential(n_models, float(g))
    for i in range(1, n_models + 1):
        for s in range(-n_models - 2, n_models + 3):
            phi = brute_phi(n_models, i, s, g)
            assert pot.value(i, s) == pytest.approx(float(phi), abs=1e-13)
            w = (brute_phi(n_models, i, s - 1, g) - brute_phi(n_models, i, s + 1, g)) / 2
            assert pot.weight(i, s) == pytest.approx(float(w), abs=1e-13)


@pytest.mark.parametrize("n_models", [1, 2, 5, 10])
def test_bbm_recursion_holds_with_equality(n_models):
    """Condition (4) with equality: Phi_{i-1}(s) = (1-g)/2 Phi_i(s-1) + (1+g)/2 Phi_i(s+1)."""
    g = Fraction(1, 10)
    for i in range(1, n_models + 1):
        for s in range(-n_models, n_models + 1):
            lhs = brute_phi(n_models, i - 1, s, g)
            rhs = (1 - g) / 2 * brute_phi(n_models, i, s - 1, g) + (1 + g) / 2 * brute_phi(
                n_models, i, s + 1, g
            )
            assert lhs == rhs
    # and the last potential is the 0-1 loss of the final margin (a tie counts as a mistake)
    pot = BinomialPotential(n_models, 0.1)
    assert [pot.value(n_models, s) for s in (-2, -1, 0, 1, 2)] == [1, 1, 1, 0, 0]


@pytest.mark.parametrize("n_models", [1, 2, 3, 4, 9, 10, 25, 60])
@pytest.mark.parametrize("gamma", [0.001, 0.1, 0.3, 0.8])
def test_bbm_max_weight_is_attained_and_never_exceeded(n_models, gamma):
    pot = BinomialPotential(n_models, gamma)
    for i in range(1, n_models + 1):
        weights = [pot.weight(i, s) for s in reachable_margins(i)]
        assert max(weights) == pytest.approx(pot.max_weight(i), rel=1e-12)
        assert pot.argmax_margin(i) in reachable_margins(i)
        assert pot.weight(i, pot.argmax_margin(i)) == pytest.approx(pot.max_weight(i), rel=1e-12)
        probs = [pot.sampling_probability(i, s) for s in reachable_margins(i)]
        assert all(0.0 <= p <= 1.0 for p in probs)
        assert max(probs) == pytest.approx(1.0, rel=1e-12)


def test_bbm_is_stable_for_many_learners_and_tiny_edge():
    pot = BinomialPotential(1000, 0.001)
    for i in (1, 2, 500, 999, 1000):
        probs = [pot.sampling_probability(i, s) for s in reachable_margins(i)]
        assert all(math.isfinite(p) and 0.0 <= p <= 1.0 for p in probs)
        assert max(probs) == pytest.approx(1.0)
    # weights far from the boundary underflow to 0 in float, never to NaN
    assert pot.sampling_probability(1000, 999) == 0.0
    # a pmf near the mode for n = 999 is about 1/sqrt(n): check against the normal approximation
    assert pot.max_weight(1) == pytest.approx(0.5 / math.sqrt(2 * math.pi * 999 / 4), rel=1e-2)


def test_bbm_rejects_bad_parameters():
    with pytest.raises(ValueError):
        BinomialPotential(0, 0.1)
    for gamma in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ValueError):
            BinomialPotential(5, gamma)


def test_logistic_weight_and_loss_are_stable():
    assert logistic_weight(0.0) == 0.5
    assert logistic_weight(1e6) == 0.0
    assert logistic_weight(-1e6) == 1.0
    for s in (-30.0, -2.0, 0.3, 5.0, 40.0):
        assert logistic_weight(s) == pytest.approx(1 / (1 + math.exp(s)), rel=1e-12)
        assert logistic_loss(s) == pytest.approx(math.log(1 + math.exp(-s)), rel=1e-12)
    assert logistic_loss(-1e6) == pytest.approx(1e6)
    assert logistic_loss(1e6) == 0.0


def test_osboost_weight():
    assert osboost_weight(-3.0, 0.1) == 1.0
    assert osboost_weight(0.0, 0.1) == 1.0
    assert osboost_weight(4.0, 0.1) == pytest.approx(0.9**2)


@pytest.mark.parametrize("gamma", [0.1, 0.3])
@pytest.mark.parametrize("alphas", [(0.5, 0.25, 0.25), (0.125, 0.375, 0.5), (0.0, 0.0, 1.0)])
def test_osboost_ocp_weights_and_hinge_gradients_against_exact_arithmetic(gamma, alphas):
    """Chen, Lin & Lu's Algorithm 1 for one example, every vote pattern and label: learner
    i's weight from s = sum_{j<i} (z_j - theta), 1 if s <= 0 else (1 - gamma)^(s/2); the
    gradient of max(0, theta - y sum_i alpha_i h_i) in alpha_i, -w z_i inside the margin
    and 0 outside, all from exact fractions of the same inputs."""
    from ..oracles.python_walk import Example, Walk

    pot = OSBoostOCPPotential(gamma)
    rule = pot.rule(pot, len(alphas))  # the compiled rule's steps, as the walk takes them
    assert pot.surrogate and pot.simplex
    g = Fraction(gamma)
    theta = g / (2 + g)
    n = len(alphas)
    for votes in itertools.product([1, -1], repeat=n):
        for y, w in ((True, 1.0), (False, 2.5)):
            sign = 1 if y else -1
            scores = list(itertools.accumulate(a * v for a, v in zip(alphas, votes)))
            ex = Example(
                Walk([0.5] * n, list(votes), scores), w, n, list(alphas), [0.0] * n, y=y, sign=sign
            )
            margin = sign * sum(Fraction(a) * v for a, v in zip(alphas, votes))
            s = Fraction(0)
            for i, (p, edge, gradient) in enumerate(rule.steps(ex)):
                z = sign * votes[i]
                want_p = 1.0 if s <= 0 else float(1 - g) ** float(s / 2)
                assert p == pytest.approx(want_p, rel=1e-12, abs=0.0)
                assert edge == pytest.approx((w * want_p * z, 2 * w * want_p), rel=1e-12)
                assert gradient == (-w * z if margin < theta else 0.0)
                s += z - theta
