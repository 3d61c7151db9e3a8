"""The potential interface and the boosters built on it: NH-Boost.DT, SquintBoost, Online BBM."""

from __future__ import annotations

import itertools
import math
import random

import pytest

import river_boost as rb
from river_boost.potentials import (
    BinomialPotential,
    NormalHedgePotential,
    Potential,
    SquintPotential,
    squint_log_integral,
)

from ..helpers import phishing, pool_of_voters

# ----------------------------------------------------------------------------- Squint's integral


def _quadrature(R, V, prior):
    """The integral by adaptive quadrature, scaled by the integrand's peak (relative accuracy)."""
    integrate = pytest.importorskip("scipy.integrate")
    peak_eta = min(max(R / (2 * V), 0.0), 0.5) if V > 0 else (0.5 if R > 0 else 0.0)
    peak = peak_eta * R - peak_eta**2 * V
    g = (lambda e: 2 * e) if prior == "uniform" else (lambda e: 1.0)
    value, _ = integrate.quad(
        lambda e: g(e) * math.exp(e * R - e * e * V - peak),
        0.0,
        0.5,
        epsabs=0.0,
        epsrel=1e-13,
        limit=500,
        points=[peak_eta],
    )
    return value, peak


def _reachable_grid():
    """(R, V) over a grid with extreme values, kept to states n <= 10^4 learners can reach
    (|R| <= n and R^2 <= n V, by Cauchy-Schwarz)."""
    # the switches between closed forms and Gauss-Legendre are at |R| = 2, 10 and V = 1, 4
    rs = [
        -1e4,
        -2e3,
        -300,
        -50,
        -10.5,
        -10,
        -3,
        -2.01,
        -2,
        -0.5,
        0,
        1e-9,
        0.3,
        2,
        2.01,
        9.9,
        10.1,
        20,
        80,
        500,
        1e4,
    ]
    vs = [0.0, 1e-12, 1e-3, 0.5, 1.0, 1.01, 3.9, 4.0, 4.1, 10, 100, 1e3, 1e4, 1e5]
    rng = random.Random(0)
    grid = [(r, v) for r in rs for v in vs if r * r <= 1e4 * v or r == 0]
    for _ in range(200):  # random states of random walks
        n = rng.choice([3, 30, 300, 3000])
        rs_ = [rng.uniform(-0.5, 0.5) - 0.5 * rng.choice([-1, 1]) for _ in range(n)]
        grid.append((sum(rs_), sum(r * r for r in rs_)))
    return grid


@pytest.mark.parametrize("prior", ["improper", "uniform"])
def test_squint_closed_form_equals_quadrature(prior):
    for R, V in _reachable_grid():
        value, peak = _quadrature(R, V, prior)
        assert math.exp(squint_log_integral(R, V, prior) - peak) == pytest.approx(
            value, rel=1e-9
        ), (R, V)


def test_squint_weights_never_overflow():
    for R, V in [(1e6, 1e6), (-1e6, 1e6), (1e8, 1e9)]:
        assert math.isfinite(squint_log_integral(R, V))
        assert math.isfinite(squint_log_integral(R, V, "uniform"))
    # R = 1e6: the log weight is the exponent at eta = 1/2 up to a log factor
    assert squint_log_integral(1e6, 1e6) == pytest.approx(1e6 / 2 - 1e6 / 4, rel=1e-4)


def test_squint_bad_input():
    with pytest.raises(ValueError, match="prior"):
        squint_log_integral(0.0, 0.0, "jeffreys")
    with pytest.raises(ValueError):
        squint_log_integral(0.0, -1.0)
    with pytest.raises(ValueError, match="prior"):
        rb.SquintBoost(prior="flat")


# ----------------------------------------------------------------------------- NormalHedge


def test_normal_hedge_weight_is_the_formula():
    pot = NormalHedgePotential()
    for i in (1, 2, 5, 40):
        for s in (-7.3, -2.0, -1.0, -0.2, 0.0, 0.5, 0.999, 1.0, 3.0):
            expected = 0.5 * (
                math.exp(min(0, s - 1) ** 2 / (3 * i)) - math.exp(min(0, s + 1) ** 2 / (3 * i))
            )
            got = pot.log_weight(i, s)
            if expected == 0:
                assert got == -math.inf
            else:
                assert math.exp(got) == pytest.approx(expected, rel=1e-12)


def test_normal_hedge_weight_is_exactly_zero_for_well_classified_examples():
    pot = NormalHedgePotential()
    assert pot.sampling_probability(3, 1.0, worst=-2.0) == 0.0
    assert pot.sampling_probability(3, 25.0, worst=-2.0) == 0.0
    assert pot.sampling_probability(3, 0.999, worst=-2.0) > 0.0


def test_normal_hedge_weights_never_overflow():
    pot = NormalHedgePotential()
    assert math.isfinite(pot.log_weight(10, -1e6))
    assert pot.sampling_probability(10, -1e6, worst=-1e6) == 1.0
    assert pot.sampling_probability(10, -10.0, worst=-1e6) == 0.0  # underflows to 0, no error
    assert pot.sampling_probability(1, -1e6, worst=-2e6) == 0.0


@pytest.mark.parametrize(
    "potential", [NormalHedgePotential(), SquintPotential(), SquintPotential("uniform")]
)
def test_the_bound_is_attained_on_the_all_wrong_path_and_never_exceeded(potential):
    """Enumerate every vote sequence of up to 7 learners, with random edges in [-1/2, 1/2]."""
    rng = random.Random(1)
    for n in range(1, 8):
        edges = [rng.uniform(-0.5, 0.5) for _ in range(n)]
        worst = potential.start()
        for i in range(1, n + 1):
            log_max = potential.log_max_weight(i, worst)
            best = -math.inf
            for zs in itertools.product((-1, 1), repeat=i - 1):
                state = potential.start()
                for z, e in zip(zs, edges):
                    state = potential.advance(state, z, e)
                log_w = potential.log_weight(i, state)
                assert log_w <= log_max + 1e-12
                best = max(best, log_w)
            assert best == pytest.approx(log_max, abs=1e-12)
            worst = potential.advance(worst, -1, edges[i - 1])


def test_a_new_potential_is_a_few_lines():
    """The interface in use: a potential that gives every example weight 1 is plain bagging-
    free replication (every learner learns every example)."""

    class Uniform(Potential):
        def log_weight(self, i, state):
            return 0.0

        def log_max_weight(self, i, worst):
            return 0.0

    booster = rb.PotentialBooster(Uniform(), n_models=3, seed=0)
    for x, y in phishing(50):
        booster.learn_one(x, y)
    assert booster.learner_updates == [50, 50, 50]
    with pytest.raises(TypeError, match="Potential"):
        rb.PotentialBooster(potential=lambda i, s: 1.0)


# ----------------------------------------------------------------------------- the boosters


def test_plugging_bbm_potential_into_the_interface_reproduces_online_bbm():
    for params in ({"seed": 1}, {"seed": 2, "weighting": "sampling"}):
        bbm = rb.OnlineBBM(n_models=6, gamma=0.2, **params)
        generic = rb.PotentialBooster(BinomialPotential(6, 0.2), n_models=6, **params)
        for x, y in phishing(600):
            assert generic.predict_proba_one(x) == bbm.predict_proba_one(x)
            bbm.learn_one(x, y)
            generic.learn_one(x, y)
        assert generic.edges == bbm.edges
        assert generic.learner_updates == bbm.learner_updates
        assert generic.offered == bbm.offered


@pytest.mark.parametrize("cls", [rb.NHBoostDT, rb.SquintBoost])
def test_weights_follow_the_drifting_walk(cls):
    """Replay the walk by hand with learners whose votes are known: the state moves by
    z / 2 - edge with each learner's edge from before the example."""
    features = ["a", "b", "c", "d"]
    booster = pool_of_voters(cls, features, min_weight=0.0)
    potential = booster.potential
    rng = random.Random(3)
    stream = [({f: rng.random() - 0.3 for f in features}, rng.random() < 0.5) for _ in range(60)]
    offered = [0.0] * 4
    for x, y in stream:
        edges = list(booster.edges)
        booster.learn_one(x, y)
        state = worst = potential.start()
        for i, f in enumerate(features):
            z = 1 if (x[f] > 0) == y else -1
            log_w, log_max = (
                potential.log_weight(i + 1, state),
                potential.log_max_weight(i + 1, worst),
            )
            offered[i] += 0.0 if log_w == -math.inf else min(1.0, math.exp(log_w - log_max))
            state = potential.advance(state, z, edges[i])
            worst = potential.advance(worst, -1, edges[i])
        assert booster.offered == pytest.approx(offered, rel=1e-12)
    assert booster.offered[0] == len(stream)  # learner 1 always gets weight 1


def test_nh_boost_skips_updates_exactly_when_the_weight_is_zero():
    booster = rb.NHBoostDT(n_models=5, min_weight=0.0, seed=0)  # no thinning: p > 0 -> update
    for x, y in phishing(800):
        booster.learn_one(x, y)
    zeros, updates = booster.zero_weights, booster.learner_updates
    assert zeros[0] == 0 and sum(zeros) > 100
    assert [u + z for u, z in zip(updates, zeros)] == [800] * 5


def test_nh_and_squint_learn_a_synthetic_stream():
    from river import evaluate, metrics
    from river.datasets import synth

    for cls in (rb.NHBoostDT, rb.SquintBoost):
        stream = synth.SEA(seed=42).take(3000)
        acc = evaluate.progressive_val_score(stream, cls(n_models=5, seed=1), metrics.Accuracy())
        assert acc.get() > 0.95
