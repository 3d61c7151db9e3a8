"""The compiled experts (river_boost._experts) against readable definitions.

The vote weights follow projected online gradient descent and the experts Hedge, fixed share
and restarts included (Beygelzimer, Kale & Luo 2015, Alg. 2; Herbster & Warmuth 1998): the
oracles below are those definitions written plainly in Python; the compiled classes, which
both walks use, must give the same numbers within 1e-12 relative (log-weights within 1e-13
absolute).
"""

from __future__ import annotations

import math
import pickle
import random

import pytest
from river_boost._experts import Hedge, ProjectedOGD


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
