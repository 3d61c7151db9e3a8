"""How much is there to learn on ``synth.LED(seed=42, noise_percentage=0.1)``?

River's LED flips each of the 7 segments independently when ``0.01 + U <= noise``, so with
``noise_percentage=0.1`` a segment is flipped with probability 0.09 (not 0.1), and the classes
are uniform. The Bayes-optimal rule is therefore exact: the digit whose segment pattern is
nearest in Hamming distance (ties to the smallest digit). This script prints

- the exact Bayes rate (a sum over the 128 possible displays),
- and, prequentially on the first ``--n`` examples of the stream the bench uses (``led``):
  the Bayes rule, a lookup table of class counts per display, River's Bernoulli naive Bayes
  (the true model is naive Bayes) and a default Hoeffding tree.

    python benchmarks/led_bayes.py --n 10000
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter, defaultdict

from river import base, naive_bayes, tree
from river.datasets import synth

from river_boost import bench

FLIP = 0.09  # P(0.01 + U <= 0.1)
DISPLAYS = list(itertools.product((0, 1), repeat=7))


def likelihood(display, digit):
    pattern = synth.LED._ORIGINAL_INSTANCES[digit]
    out = 1.0
    for seen, true in zip(display, pattern):
        out *= FLIP if seen != true else 1.0 - FLIP
    return out


RULE = {d: max(range(10), key=lambda k: likelihood(d, k)) for d in DISPLAYS}


def _display(x) -> tuple:
    return tuple(x[i] for i in range(7))


class BayesRule(base.Classifier):
    """The exact Bayes-optimal rule (learns nothing)."""

    def learn_one(self, x, y):
        pass

    def predict_proba_one(self, x):
        return {RULE[_display(x)]: 1.0}


class LookupTable(base.Classifier):
    """Class counts per display; predicts the most frequent class (0 for a new display)."""

    def __init__(self):
        self.table = defaultdict(Counter)

    def learn_one(self, x, y):
        self.table[_display(x)][y] += 1

    def predict_one(self, x):
        counts = self.table[_display(x)]
        return max(range(10), key=lambda k: counts[k]) if counts else 0

    def predict_proba_one(self, x):
        return {self.predict_one(x): 1.0}


MODELS = {
    "Bayes rule": lambda n, seed: BayesRule(),
    "lookup table": lambda n, seed: LookupTable(),
    "Bernoulli naive Bayes": lambda n, seed: naive_bayes.BernoulliNB(),
    "Hoeffding tree": lambda n, seed: tree.HoeffdingTreeClassifier(),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    args = parser.parse_args(argv)
    exact = sum(likelihood(d, RULE[d]) for d in DISPLAYS) / 10
    print(f"exact Bayes rate: {100 * exact:.2f}%")
    protocol = bench.Protocol(n_samples=args.n)
    for name, factory in MODELS.items():
        r = bench.run_one("led", bench.ModelSpec(name, factory=factory), 1, protocol=protocol)
        print(f"prequential {name} on the first {args.n} examples: {100 * r.accuracy:.2f}%")


if __name__ == "__main__":
    main()
