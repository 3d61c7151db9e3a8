"""The documentation's code runs, and the potential it writes is right (brute force)."""

from __future__ import annotations

import math
import pathlib
import random
import re
from fractions import Fraction

import pytest

import river_boost as rb

from ..helpers import pool_of_voters

GAMMA = Fraction(1, 5)  # any edge: the weights' ratios do not depend on it
DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def run_page(name: str) -> dict:
    """Execute every ```python block of a docs page, in order, in one namespace."""
    namespace: dict = {"__name__": f"docs_{name}"}
    for block in re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), re.S):
        exec(compile(block, str(DOCS / name), "exec"), namespace)
    return namespace


def exact_phi(n_left: int, s: int, eta: Fraction, gamma: Fraction) -> Fraction:
    """The exponential potential by its recursion, in exact arithmetic: Phi at the last
    learner is exp(-eta s) (a rational stand-in base b = 1 + eta keeps it exact), and each
    step back takes the expectation over a (1 + gamma)/2-biased vote."""
    b = 1 + eta
    if n_left == 0:
        return b ** (-s)
    right, wrong = (1 + gamma) / 2, (1 - gamma) / 2
    return right * exact_phi(n_left - 1, s + 1, eta, gamma) + wrong * exact_phi(
        n_left - 1, s - 1, eta, gamma
    )


def test_the_new_booster_page_runs_and_its_weights_are_the_potentials():
    ExponentialPotential = run_page("new-booster.md")["ExponentialPotential"]
    # the page's potential with log(1 + eta) in place of eta, so that exact rationals apply
    eta = Fraction(1, 2)
    potential = ExponentialPotential(eta=math.log(1 + float(eta)))
    features = ["a", "b", "c", "d"]
    n = len(features)
    booster = pool_of_voters(rb.PotentialBooster, features, potential=potential, min_weight=0.0)
    rng = random.Random(2)
    offered = [Fraction(0)] * n
    for _ in range(40):
        x = {f: rng.random() - 0.4 for f in features}
        y = rng.random() < 0.5
        booster.learn_one(x, y)
        s = 0
        for i, f in enumerate(features, start=1):
            # (Phi_i(s - 1) - Phi_i(s + 1)) / 2 over its largest value on reachable margins
            def w(m, i=i):
                return (
                    exact_phi(n - i, m - 1, eta, GAMMA) - exact_phi(n - i, m + 1, eta, GAMMA)
                ) / 2

            offered[i - 1] += w(s) / max(w(m) for m in range(-(i - 1), i, 2))
            s += 1 if (x[f] > 0) == y else -1
    assert booster.offered == pytest.approx([float(o) for o in offered], rel=1e-12)
