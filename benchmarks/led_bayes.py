"""How much is there to learn on ``synth.LED(seed=42, noise_percentage=0.1)``?

River's LED flips each of the 7 segments independently when ``0.01 + U <= noise``, so with
``noise_percentage=0.1`` a segment is flipped with probability 0.09 (not 0.1), and the classes
are uniform. The Bayes-optimal rule is therefore exact: the digit whose segment pattern is
nearest in Hamming distance (ties to the smallest digit). This script prints

- the exact Bayes rate (a sum over the 128 possible displays),
- the Bayes rule's accuracy on the first ``--n`` examples of the stream the bench uses,
- and, prequentially on the same examples, a lookup table of class counts per display, River's
  Bernoulli naive Bayes (the true model is naive Bayes) and a default Hoeffding tree.

    python benchmarks/led_bayes.py --n 10000
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter, defaultdict

from river import evaluate, metrics, naive_bayes, tree
from river.datasets import synth

FLIP = 0.09  # P(0.01 + U <= 0.1)


def likelihood(display, digit):
    pattern = synth.LED._ORIGINAL_INSTANCES[digit]
    out = 1.0
    for seen, true in zip(display, pattern):
        out *= FLIP if seen != true else 1.0 - FLIP
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    args = parser.parse_args(argv)
    displays = list(itertools.product((0, 1), repeat=7))
    rule = {d: max(range(10), key=lambda k: likelihood(d, k)) for d in displays}
    exact = sum(likelihood(d, rule[d]) for d in displays) / 10

    def stream():
        return synth.LED(seed=42, noise_percentage=0.1).take(args.n)

    bayes_hits, table_hits, table = 0, 0, defaultdict(Counter)
    for x, y in stream():
        display = tuple(x[i] for i in range(7))
        bayes_hits += rule[display] == y
        counts = table[display]
        table_hits += (max(range(10), key=lambda k: counts[k]) if counts else 0) == y
        counts[y] += 1
    print(f"exact Bayes rate: {100 * exact:.2f}%")
    print(f"Bayes rule on the first {args.n} examples: {100 * bayes_hits / args.n:.2f}%")
    print(f"prequential lookup table: {100 * table_hits / args.n:.2f}%")
    for name, model in (
        ("Bernoulli naive Bayes", naive_bayes.BernoulliNB()),
        ("Hoeffding tree", tree.HoeffdingTreeClassifier()),
    ):
        acc = evaluate.progressive_val_score(stream(), model, metrics.Accuracy()).get()
        print(f"prequential {name}: {100 * acc:.2f}%")


if __name__ == "__main__":
    main()
