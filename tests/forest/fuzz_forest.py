"""Random differential runs of the compiled forest against River's trees (not collected by
pytest: run it by hand after touching ``river_boost/forest/_forest.pyx``).

Each run draws a stream (River datasets and generators, a Mushroom-like string stream, LED
with nominal 0/1 features), 1-3 trees with random parameters (every supported knob: grace
period, delta, tau, leaves, nb_threshold, criteria, binary splits, max_depth, merit
pre-pruning, remove_poor_attrs, min_branch_fraction, max_share_to_split, memory management,
n_splits, nominal attributes), random weights (1, booster-like, or scaled by 1e-300 .. 1e300),
missing features, a feature filter, and checks every prediction and the trees' full states
with :class:`tests.test_forest.Checker`.

    python tests/forest/fuzz_forest.py 300 1     # seconds, seed
"""

from __future__ import annotations

import os
import random
import sys
import time


def main(budget: float, seed: int) -> int:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from river import datasets
    from river.datasets import synth
    from river.tree.splitter import GaussianSplitter
    from test_forest import TOTALS, Checker, HashFilter, float_weights, mushroom_like, run

    nominal_agrawal = ["elevel", "car", "zipcode"]

    def streams(r):
        return [
            ("phishing", datasets.Phishing, None),
            ("bananas", datasets.Bananas, None),
            ("imagesegments", datasets.ImageSegments, None),
            (
                "agrawal",
                lambda: synth.Agrawal(
                    classification_function=r.randrange(10), seed=r.randrange(99)
                ),
                nominal_agrawal,
            ),
            ("sea", lambda: synth.SEA(seed=r.randrange(99)), None),
            (
                "hyperplane",
                lambda: synth.Hyperplane(seed=r.randrange(99), n_features=r.randrange(2, 12)),
                None,
            ),
            (
                "rbf",
                lambda: synth.RandomRBF(
                    seed_model=r.randrange(99),
                    seed_sample=r.randrange(99),
                    n_classes=r.randrange(2, 6),
                    n_features=r.randrange(2, 10),
                ),
                None,
            ),
            (
                "led",
                lambda: synth.LED(seed=r.randrange(99), noise_percentage=0.1),
                [f"{i:02d}" for i in range(24)],
            ),
            ("mushroom", lambda: mushroom_like(r.randrange(99)), None),
        ]

    def random_config(r, nominal):
        c = {}
        if r.random() < 0.8:
            c["grace_period"] = r.choice([1, 2, 5, 10, 20, 50, 200])
        if r.random() < 0.5:
            c["delta"] = r.choice([1e-7, 1e-3, 0.1, 0.5, 0.9])
        if r.random() < 0.5:
            c["tau"] = r.choice([0.01, 0.05, 0.2, 0.5, 1.0])
        c["leaf_prediction"] = r.choice(["mc", "nb", "nba"])
        if r.random() < 0.3:
            c["nb_threshold"] = r.choice([0, 5, 50])
        c["split_criterion"] = r.choice(["info_gain", "gini", "hellinger"])
        if r.random() < 0.3:
            c["binary_split"] = True
        if r.random() < 0.3:
            c["max_depth"] = r.choice([1, 2, 4])
        if r.random() < 0.3:
            c["merit_preprune"] = False
        if r.random() < 0.3:
            c["remove_poor_attrs"] = True
        if r.random() < 0.2:
            c["min_branch_fraction"] = r.choice([0.0, 0.05, 0.2])
        if r.random() < 0.2:
            c["max_share_to_split"] = r.choice([0.6, 0.9])
        if r.random() < 0.2:
            c["stop_mem_management"] = True
        if r.random() < 0.2:
            c["memory_estimate_period"] = r.choice([17, 100])
        if r.random() < 0.2:
            c["splitter"] = GaussianSplitter(n_splits=r.choice([0, 1, 3, 25]))
        if nominal and r.random() < 0.8:
            c["nominal_attributes"] = nominal
        return c

    start, k, failures = time.time(), 0, 0
    while time.time() - start < budget:
        r = random.Random(seed * 100_000 + k)
        name, make, nominal = r.choice(streams(r))
        configs = [random_config(r, nominal) for _ in range(r.randrange(1, 4))]
        kind = r.choice(["one", "float", "scaled"])
        scale = r.choice([1e-300, 1e-5, 1e5, 1e300])
        weights = {
            "one": None,
            "float": float_weights,
            "scaled": lambda g, s=scale: s * g.lognormvariate(0.0, 1.0),
        }[kind]
        feature_filter = (
            HashFilter(r.choice([0.5, 0.8]), r.randrange(99)) if r.random() < 0.3 else None
        )
        n = r.choice([100, 300, 800])
        try:
            run(
                Checker(configs, feature_filter=feature_filter),
                make(),
                n,
                weights=weights,
                drop=r.choice([0, 0, 0.05, 0.2]),
                learn_prob=r.choice([1.0, 0.7]),
                seed=k,
                every=n // 2,
            )
        except Exception as e:  # a mismatch (AssertionError) or an error only one side raised
            failures += 1
            print("FAILED", k, name, configs, kind, scale, n, repr(e)[:500], flush=True)
        k += 1
    print(f"runs: {k}, failures: {failures}", TOTALS, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(
        main(
            float(sys.argv[1]) if len(sys.argv) > 1 else 60.0,
            int(sys.argv[2]) if len(sys.argv) > 2 else 0,
        )
    )
