"""The gradient boosters' losses (river_boost.engine._losses): value, gradient, Hessian and
Newton step of each, exactly, at chosen points (the kinks included), and against finite
differences of the value."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from river_boost.engine._losses import (
    MIN_HESSIAN,
    HuberLoss,
    LogLoss,
    QuantileLoss,
    SoftmaxLoss,
    SquaredLoss,
    make_loss,
)


def test_squared():
    loss = SquaredLoss()
    assert loss.value(3.0, 1.0) == 2.0
    assert loss.gradient(3.0, 1.0) == -2.0
    assert loss.hessian(3.0, 1.0) == 1.0
    assert loss.newton(3.0, 1.0) == (2.0, 1.0)


def test_huber_inside_beyond_and_at_delta():
    loss = HuberLoss(2.0)
    assert loss.value(1.0, 0.0) == 0.5  # inside: r^2 / 2
    assert loss.value(5.0, 0.0) == 2.0 * (5.0 - 1.0)  # beyond: delta (|r| - delta / 2)
    assert loss.value(-5.0, 0.0) == 8.0
    assert loss.value(2.0, 0.0) == 2.0  # at delta both forms agree
    assert loss.gradient(1.0, 0.0) == -1.0 and loss.hessian(1.0, 0.0) == 1.0
    assert loss.gradient(5.0, 0.0) == -2.0 and loss.hessian(5.0, 0.0) == 0.0
    assert loss.gradient(-5.0, 0.0) == 2.0
    assert loss.newton(5.0, 0.0) == (2.0, 1.0)  # the clipped residual
    assert loss.newton(-5.0, 0.0) == (-2.0, 1.0)
    assert loss.newton(1.5, 0.0) == (1.5, 1.0)


def test_quantile():
    loss = QuantileLoss(0.9)
    assert loss.value(3.0, 1.0) == 0.9 * 2.0
    assert loss.value(1.0, 3.0) == (0.9 - 1.0) * -2.0
    assert loss.gradient(3.0, 1.0) == -0.9
    assert loss.gradient(1.0, 3.0) == 1.0 - 0.9
    assert loss.gradient(1.0, 1.0) == 1.0 - 0.9  # at the kink: the left derivative
    assert loss.hessian(3.0, 1.0) == 0.0
    density = NormalDist().pdf(NormalDist().inv_cdf(0.9))
    assert loss.density == density
    target, weight = loss.newton(3.0, 1.0, scale=2.0)
    assert target == 0.9 * 2.0 / density and weight == 1.0
    target, weight = loss.newton(1.0, 3.0, scale=2.0)
    assert target == -(1.0 - 0.9) * 2.0 / density


def test_log_loss():
    loss = LogLoss()
    p = 1 / (1 + math.exp(-0.3))
    assert math.isclose(loss.value(1.0, 0.3), -math.log(p), rel_tol=1e-15)
    assert math.isclose(loss.value(0.0, 0.3), -math.log(1 - p), rel_tol=1e-15)
    assert loss.value(1.0, 800.0) == 0.0 and loss.value(0.0, 800.0) == 800.0  # no overflow
    assert math.isclose(loss.gradient(1.0, 0.3), p - 1, rel_tol=1e-15)
    assert math.isclose(loss.hessian(1.0, 0.3), p * (1 - p), rel_tol=1e-15)
    target, weight = loss.newton(1.0, 0.3)
    assert math.isclose(target, (1 - p) / (p * (1 - p)), rel_tol=1e-14)
    assert math.isclose(weight, p * (1 - p), rel_tol=1e-15)
    assert loss.newton(0.0, 50.0)[1] == MIN_HESSIAN  # a saturated Hessian is floored


def test_the_floored_hessian_bounds_the_target_and_keeps_the_gradient():
    # y = 1 at p = sigmoid(-10): h = 4.5e-5 is floored at 0.01, so the target is
    # (1 - p) / 0.01 (not 1 / p = 22,027), and target * weight is still -g
    assert MIN_HESSIAN == 0.01
    loss = LogLoss()
    p = 1 / (1 + math.exp(10.0))
    target, weight = loss.newton(1.0, -10.0)
    assert weight == MIN_HESSIAN
    assert math.isclose(target, (1 - p) / MIN_HESSIAN, rel_tol=1e-14)
    assert math.isclose(target * weight, -loss.gradient(1.0, -10.0), rel_tol=1e-14)
    # above the floor, the plain Newton step
    target, weight = loss.newton(1.0, -1.5)
    assert math.isclose(target, 1 + math.exp(1.5), rel_tol=1e-14) and weight > MIN_HESSIAN
    # the softmax, y = 0 at scores that make class 0 unlikely (p_0 = 8e-5): its target 1 / p_0
    # is floored to (1 - p_0) / 0.01; classes 1 and 2 (p = 0.62, 0.38) take the plain step
    f = [0.0, 9.0, 8.5]
    targets, weights = SoftmaxLoss().newton(0, f)
    e = [math.exp(v - 9.0) for v in f]
    p = [v / sum(e) for v in e]
    assert p[0] < 1e-4 and 0.3 < p[2] < p[1] < 0.7
    assert weights[0] == MIN_HESSIAN
    assert math.isclose(targets[0], (1 - p[0]) / MIN_HESSIAN, rel_tol=1e-13)
    for j in (1, 2):
        assert math.isclose(targets[j], -1 / (1 - p[j]), rel_tol=1e-13)
        assert math.isclose(weights[j], p[j] * (1 - p[j]), rel_tol=1e-13)
    assert all(abs(t) <= 1 / MIN_HESSIAN for t in targets)


def test_softmax():
    loss = SoftmaxLoss()
    f = [0.5, -1.0, 2.0]
    e = [math.exp(v) for v in f]
    p = [v / sum(e) for v in e]
    assert math.isclose(loss.value(2, f), -math.log(p[2]), rel_tol=1e-14)
    for got, want in zip(loss.gradient(1, f), [p[0], p[1] - 1, p[2]]):
        assert math.isclose(got, want, rel_tol=1e-14)
    for got, want in zip(loss.hessian(1, f), [q * (1 - q) for q in p]):
        assert math.isclose(got, want, rel_tol=1e-14)
    assert math.isclose(loss.value(0, [1000.0, 0.0]), math.log1p(math.exp(-1000.0)), abs_tol=1e-300)


@pytest.mark.parametrize(
    "loss, y, f",
    [
        (SquaredLoss(), 2.0, 0.7),
        (HuberLoss(1.5), 2.0, 0.7),
        (HuberLoss(1.5), 5.0, 0.7),
        (QuantileLoss(0.2), 5.0, 0.7),
        (QuantileLoss(0.2), -5.0, 0.7),
        (LogLoss(), 1.0, -0.4),
        (LogLoss(), 0.0, 1.3),
    ],
)
def test_gradients_are_the_values_derivatives(loss, y, f):
    eps = 1e-6
    numeric = (loss.value(y, f + eps) - loss.value(y, f - eps)) / (2 * eps)
    assert math.isclose(loss.gradient(y, f), numeric, rel_tol=1e-6, abs_tol=1e-8)
    numeric_h = (loss.gradient(y, f + eps) - loss.gradient(y, f - eps)) / (2 * eps)
    assert math.isclose(loss.hessian(y, f), numeric_h, rel_tol=1e-5, abs_tol=1e-6)


def test_make_loss():
    assert isinstance(make_loss("huber", delta=3.0), HuberLoss)
    assert make_loss("huber", delta=3.0).delta == 3.0
    assert make_loss("quantile", alpha=0.3).alpha == 0.3
    with pytest.raises(ValueError):
        make_loss("hinge")
    with pytest.raises(ValueError):
        QuantileLoss(0.0)
    with pytest.raises(ValueError):
        HuberLoss(0.0)
