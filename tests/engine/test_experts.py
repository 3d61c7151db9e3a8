"""The compiled experts (river_boost.engine._experts) against readable definitions.

The vote weights follow projected online gradient descent (on a box, or on the simplex for
OSBoost.OCP) and the experts Hedge, fixed share and restarts included (Beygelzimer, Kale & Luo
2015, Alg. 2; Chen, Lin & Lu 2012, Alg. 1; Herbster & Warmuth 1998): the
oracles below are those definitions written plainly in Python; the compiled classes, which
both walks use, must give the same numbers within 1e-12 relative (log-weights within 1e-13
absolute).
"""

from __future__ import annotations

import itertools
import math
import pickle
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river_boost.engine._experts import ChainHedge, Hedge, ProjectedOGD, SimplexOGD


class OracleHedge:
    def __init__(self, n):
        self.log_weights = [0.0] * n
        self.weights = [1.0 / n] * n

    def set_log_weights(self, lw):
        self.log_weights = list(lw)
        raw = [math.exp(w) for w in lw]
        total = math.fsum(raw)
        self.weights = [r / total for r in raw]

    def update(self, losses, scale=1.0, share=0.0):
        if not any(losses):
            return
        lw = [w - scale * loss for w, loss in zip(self.log_weights, losses)]
        top = max(lw)
        self.set_log_weights([w - top for w in lw])
        if share > 0.0:
            mixed = [(1.0 - share) * v + share / len(lw) for v in self.weights]
            top = max(mixed)
            self.set_log_weights([math.log(v / top) for v in mixed])

    def restart(self, i):
        if i > 0:
            lw = list(self.log_weights)
            lw[i] = lw[i - 1]
            top = max(lw)
            self.set_log_weights([w - top for w in lw])


class OracleOGD:
    def __init__(self, n, lr, bound=2.0):
        self.values, self.lr, self.bound, self.t = [0.0] * n, lr, bound, 0
        self.starts, self.memory = [0] * n, None

    def step_all(self, gradients, divisor=1.0, per_learner=False):
        self.t += 1
        for i, g in enumerate(gradients):
            t = self.t
            if per_learner:
                t -= self.starts[i]
                if self.memory is not None:
                    t = min(t, self.memory)
            rate = self.lr / math.sqrt(max(t, 1)) / divisor
            self.values[i] = min(self.bound, max(-self.bound, self.values[i] - rate * g))

    def restart(self, i):
        self.starts[i] = self.t
        self.values[i] = 0.0


def _close(got, want, abs=1e-300):
    assert list(got) == pytest.approx(list(want), rel=1e-12, abs=abs)


@pytest.mark.parametrize("share", [0.0, 0.01, 0.2])
def test_hedge_follows_exponential_weights_with_fixed_share_and_restarts(share):
    rng = random.Random(int(share * 1000) + 1)
    n = 7
    hedge, oracle = Hedge(n), OracleHedge(n)
    for step in range(3000):
        losses = [float(rng.random() < 0.3) for _ in range(n)]
        scale = rng.choice([0.1, 1.0, 3.5])
        hedge.update(losses, scale, share)
        oracle.update(losses, scale, share)
        if step % 97 == 0:
            i = rng.randrange(n)
            hedge.restart(i)
            oracle.restart(i)
        _close(hedge.weights, oracle.weights)
        # log-weights near 0 (the log of a ratio near 1) are compared absolutely: the
        # normalisation's rounding (any summation order) moves them by ulps of 1
        _close(hedge.log_weights, oracle.log_weights, abs=1e-13)
    assert max(hedge.log_weights) == 0.0  # re-centred: bounded on long streams
    copy = pickle.loads(pickle.dumps(hedge))
    assert list(copy.weights) == list(hedge.weights)


@pytest.mark.parametrize("per_learner, memory", [(False, None), (True, None), (True, 50)])
def test_ogd_steps_project_and_restart_at_the_documented_rates(per_learner, memory):
    rng = random.Random(7)
    n = 5
    ogd, oracle = ProjectedOGD(n, lr=4.0), OracleOGD(n, lr=4.0)
    ogd.memory = oracle.memory = memory
    for step in range(2000):
        gradients = [rng.gauss(0.0, 2.0) for _ in range(n)]
        divisor = rng.choice([1.0, 2.0, 6.0])
        ogd.step_all(gradients, divisor, per_learner)
        oracle.step_all(gradients, divisor, per_learner)
        if step % 131 == 0:
            i = rng.randrange(n)
            ogd.restart(i)
            oracle.restart(i)
        _close(ogd.values, oracle.values)
    assert ogd.t == oracle.t == 2000
    assert max(abs(v) for v in ogd.values) <= 2.0
    copy = pickle.loads(pickle.dumps(ogd))
    assert list(copy.values) == list(ogd.values) and copy.t == ogd.t
    assert copy.starts == ogd.starts and copy.memory == memory


def test_a_wrong_number_of_losses_or_gradients_is_an_error_before_anything_changes():
    hedge, ogd = Hedge(3), ProjectedOGD(3, lr=1.0)
    with pytest.raises(ValueError, match="losses"):
        hedge.update([1.0, 0.0])
    with pytest.raises(ValueError, match="gradients"):
        ogd.step_all([1.0, 2.0, 3.0, 4.0])
    assert list(hedge.weights) == [1 / 3] * 3 and ogd.t == 0 and list(ogd.values) == [0.0] * 3


# ----------------------------------------------------------------------------- two chains


def test_chain_hedge_weighs_real_losses_and_reads_a_mistake_as_0_or_1():
    """ChainHedge's losses are real numbers in [0, 1] (a ranking chain's rank loss); a mistake
    recorded as a bool is the loss 1.0 or 0.0, to the bit, so that the binary and multiclass
    chains' weights are as they were. v = exp(-eta M_deep) / (exp(-eta M_shallow) + ...)."""
    rng = random.Random(0)
    as_bools, as_floats, real = ChainHedge(0.1), ChainHedge(0.1), ChainHedge(0.3)
    m = [0.0, 0.0]
    for _ in range(500):
        missed = (rng.random() < 0.3, rng.random() < 0.6)
        w, decay = rng.choice([0.0, 0.5, 1.0, 3.0]), rng.choice([1.0, 0.99])
        as_bools.record(missed[0], missed[1], w, decay)
        as_floats.record(float(missed[0]), float(missed[1]), w, decay)
        assert as_bools.mistakes == as_floats.mistakes  # bit for bit
        losses = (rng.random(), rng.choice([0.0, 0.25, 0.5, 1.0, rng.random()]))
        real.record(losses[0], losses[1], w, decay)
        m = [decay * mi + w * loss for mi, loss in zip(m, losses)]
        assert real.mistakes == pytest.approx(m, rel=1e-12)
        terms = [math.exp(-0.3 * mi) for mi in m]
        assert real.deep_weight() == pytest.approx(terms[1] / sum(terms), rel=1e-9)
    copy = pickle.loads(pickle.dumps(real))
    assert copy.mistakes == real.mistakes and copy.eta == real.eta


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, math.inf])
def test_chain_hedge_refuses_a_loss_outside_the_unit_interval_before_anything_changes(bad):
    hedge = ChainHedge(0.1)
    hedge.record(0.5, 0.25, 2.0, 1.0)
    for losses in ((bad, 0.0), (0.0, bad)):
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            hedge.record(*losses, 1.0, 0.5)
    assert hedge.mistakes == [1.0, 0.5]


# ----------------------------------------------------------------------------- the simplex


def brute_simplex_projection(v):
    """The Euclidean projection of ``v`` on the simplex by exhaustion, in exact fractions: for
    every non-empty support ``S``, the closest point of the simplex's face ``S`` is ``v_S``
    shifted by ``(sum(v_S) - 1) / |S|`` (when that keeps it >= 0); the nearest of those."""
    v = [Fraction(x) for x in v]
    best, best_d = None, None
    for size in range(1, len(v) + 1):
        for support in itertools.combinations(range(len(v)), size):
            shift = (sum(v[i] for i in support) - 1) / size
            w = [v[i] - shift if i in support else Fraction(0) for i in range(len(v))]
            if min(w) < 0:
                continue
            d = sum((a - b) ** 2 for a, b in zip(w, v))
            if best_d is None or d < best_d:
                best, best_d = w, d
    return best


def _project(values):
    ogd = SimplexOGD(len(values), lr=1.0)
    for i, v in enumerate(values):
        ogd.values[i] = v
    ogd.project()
    return list(ogd.values)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-5.0, 5.0, allow_nan=False), min_size=1, max_size=6))
def test_the_simplex_projection_is_the_nearest_point_of_the_simplex(values):
    got = _project(values)
    want = brute_simplex_projection(values)
    assert got == pytest.approx([float(w) for w in want], abs=1e-12)
    assert min(got) >= 0.0 and math.fsum(got) == pytest.approx(1.0, abs=1e-12)


def test_the_simplex_projection_on_small_cases_worked_by_hand():
    assert _project([0.5, 0.5]) == [0.5, 0.5]  # on the simplex: unchanged
    assert _project([2.0, 0.0]) == [1.0, 0.0]  # a vertex
    assert _project([0.0, 0.0, 0.0, 0.0]) == [0.25] * 4  # the centre
    assert _project([1.0, 0.5, -1.0]) == [0.75, 0.25, 0.0]  # shift by 1/4, one clipped
    # a clipped coordinate changes the shift: a wrong support would give [1.1, 0.1, -0.2]
    assert _project([1.2, 0.2, -0.1]) == pytest.approx([1.0, 0.0, 0.0])


@pytest.mark.parametrize("per_learner, memory", [(False, None), (True, None), (True, 50)])
def test_simplex_ogd_steps_project_and_restart_as_the_oracle(per_learner, memory):
    rng = random.Random(11)
    n = 4
    ogd = SimplexOGD(n, lr=1.0)
    assert list(ogd.values) == [0.25] * 4 and ogd.t == 0
    ogd.memory = memory
    values, t, starts = [0.25] * 4, 0, [0] * n
    for step in range(600):
        # the hinge's gradients: -w z_i on examples inside the margin, else none
        w = rng.choice([1.0, 0.5, 3.0])
        active = rng.random() < 0.6
        gradients = [-w * rng.choice([-1, 1]) if active else 0.0 for _ in range(n)]
        ogd.step_all(gradients, 1.0, per_learner)
        t += 1
        raw = []
        for i, g in enumerate(gradients):
            ti = t - starts[i] if per_learner else t
            if memory is not None:
                ti = min(ti, memory)
            raw.append(values[i] - 1.0 / math.sqrt(max(ti, 1)) * g)
        if active:
            values = [float(x) for x in brute_simplex_projection(raw)]
        if step % 97 == 5:  # drift adaptation replaced learner i: 1/n again, projected
            i = rng.randrange(n)
            ogd.restart(i)
            starts[i] = t
            raw = list(values)
            raw[i] = 1.0 / n
            values = [float(x) for x in brute_simplex_projection(raw)]
        assert list(ogd.values) == pytest.approx(values, abs=1e-12)
    assert ogd.t == 600 and min(ogd.values) >= 0.0
    assert math.fsum(ogd.values) == pytest.approx(1.0, abs=1e-12)
    copy = pickle.loads(pickle.dumps(ogd))
    assert type(copy) is SimplexOGD and copy.t == ogd.t and copy.starts == ogd.starts
    assert list(copy.values) == list(ogd.values) and copy.memory == memory
    gradients = [1.0, -1.0, 0.5, 0.0]
    copy.step_all(gradients, 1.0, per_learner)
    ogd.step_all(gradients, 1.0, per_learner)
    assert list(copy.values) == list(ogd.values)


def test_a_restarted_learner_gets_its_share_back_from_the_others():
    ogd = SimplexOGD(4, lr=1.0)
    for i, v in enumerate([0.7, 0.3, 0.0, 0.0]):
        ogd.values[i] = v
    ogd.restart(1)  # 0.3 -> 0.25: the 0.05 it frees goes to the four evenly
    assert list(ogd.values) == pytest.approx([0.7125, 0.2625, 0.0125, 0.0125], abs=1e-15)
    # 0.0125 -> 0.25: the 0.2375 too much is taken evenly from the three that can pay it
    # (0.075 each, the restarted one included); the fourth, at 0.0125, drops to 0
    ogd.restart(3)
    assert list(ogd.values) == pytest.approx([0.6375, 0.1875, 0.0, 0.175], abs=1e-15)
    assert ogd.starts == [0, 0, 0, 0]  # restarted at t = 0
    with pytest.raises(IndexError):
        ogd.restart(4)
