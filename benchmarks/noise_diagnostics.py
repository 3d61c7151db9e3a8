"""Where the martingale booster loses under label noise: variants at eta = 0 and 0.3.

Same protocol and flips as ``benchmarks/noise.py`` (training labels flipped with probability
``eta``, seeded per stream; accuracy against the clean labels: ``bench.Protocol(label_noise=
eta, noise_seed=...)``), model seed 1. Each variant is the class with one parameter changed;
``HT`` is River's default Hoeffding tree alone.

    python benchmarks/noise_diagnostics.py --variants HT,L1,L3,L6,default,sign --streams agrawal
    python benchmarks/noise_diagnostics.py --variants default,ht_default,ht_d1e-4 \
        --streams agrawal,sea,bananas
    python benchmarks/noise_diagnostics.py --variants best_of,depth2,g20_tau05,best_of_g20_tau05 \
        --streams agrawal,sea,bananas
    python benchmarks/noise_diagnostics.py --variants default,g20_tau05,best_of_g20_tau05_w300 \
        --streams agrawal --seeds 1,2,3
    python benchmarks/noise_diagnostics.py --variants node_tree,HT --streams agrawal \
        --seeds 1,2,3,4,5
    python benchmarks/noise_diagnostics.py --variants default,unweighted,mc_leaves,nb_leaves \
        --streams agrawal,sea,bananas --seeds 1,2,3
    python benchmarks/noise_diagnostics.py --variants default,g20_tau05 \
        --streams phishing,hyperplane --seeds 1,2,3
    python benchmarks/noise_diagnostics.py --variants best_of_g20_tau05_w300,unweighted \
        --streams phishing,hyperplane --seeds 1,2,3
"""

from __future__ import annotations

import argparse
import statistics

from river import base, tree

from river_boost import bench
from river_boost.martingale import MartingaleBooster, node_model


class BestOfNodeLearner(base.Classifier):
    """A node learner tried (and not kept): several trees learn every example; the one with
    the largest prequential weighted edge ``sum w * h(x) * (+1 / -1)`` answers (with
    ``window``, an exponentially weighted sum over about that many recent examples). Under
    random classification noise the noisy edge is ``(1 - 2 eta)`` times the clean one, so the
    choice of tree is the one clean labels would make."""

    def __init__(self, models, window: int | None = None):
        self.models = models
        self.window = window  # None: cumulative edge; else an exponential window (forgets)
        self._scores = [0.0] * len(models)

    def learn_one(self, x, y, w=1.0):
        sign = 1.0 if y else -1.0
        keep = 1.0 - 1.0 / self.window if self.window else 1.0
        for i, m in enumerate(self.models):
            proba = m.predict_proba_one(x)
            h = proba.get(True, 0.0) - proba.get(False, 0.0)
            self._scores[i] = keep * self._scores[i] + w * h * sign
            m.learn_one(x, y, w=w)

    def predict_proba_one(self, x):
        best = max(range(len(self.models)), key=lambda i: self._scores[i])
        return self.models[best].predict_proba_one(x)


def _fast_tree() -> base.Classifier:
    """A node tree that splits fast: tries every 20 examples, splits ties early."""
    return tree.HoeffdingTreeClassifier(grace_period=20, delta=0.01, tau=0.5)


VARIANTS = {
    "HT": lambda: tree.HoeffdingTreeClassifier(),
    "node_tree": node_model,  # the martingale booster's default node tree, alone on the stream
    "default": lambda: MartingaleBooster(seed=1),
    "L1": lambda: MartingaleBooster(n_levels=1, seed=1),
    "L3": lambda: MartingaleBooster(n_levels=3, seed=1),
    "L6": lambda: MartingaleBooster(n_levels=6, seed=1),
    "sign": lambda: MartingaleBooster(prediction="sign", seed=1),
    "ht_default": lambda: MartingaleBooster(model=tree.HoeffdingTreeClassifier(), seed=1),
    "ht_d1e-4": lambda: MartingaleBooster(
        model=tree.HoeffdingTreeClassifier(grace_period=100, delta=1e-4), seed=1
    ),
    "best_of": lambda: MartingaleBooster(
        model=BestOfNodeLearner([node_model(), tree.HoeffdingTreeClassifier()]), seed=1
    ),
    "g20_tau05": lambda: MartingaleBooster(model=_fast_tree(), seed=1),
    "best_of_g20_tau05": lambda: MartingaleBooster(
        model=BestOfNodeLearner([_fast_tree(), tree.HoeffdingTreeClassifier()]), seed=1
    ),
    "best_of_g20_tau05_w300": lambda: MartingaleBooster(
        model=BestOfNodeLearner([_fast_tree(), tree.HoeffdingTreeClassifier()], window=300),
        seed=1,
    ),
    "unweighted": lambda: MartingaleBooster(train_balanced=False, seed=1),
    "mc_leaves": lambda: MartingaleBooster(
        model=node_model().clone({"leaf_prediction": "mc"}), seed=1
    ),
    "nb_leaves": lambda: MartingaleBooster(
        model=node_model().clone({"leaf_prediction": "nb"}), seed=1
    ),
    "depth2": lambda: MartingaleBooster(
        model=tree.HoeffdingTreeClassifier(grace_period=50, delta=0.01, max_depth=2), seed=1
    ),
}


def _factory(variant):
    def build(n_models, seed):  # each variant fixes its own parameters and seed
        return VARIANTS[variant]()

    return build


def accuracy(stream: str, variant: str, eta: float, seed: int = 1) -> float:
    """Clean-label accuracy with the flips of ``benchmarks/noise.py`` for flip seed ``seed``."""
    spec = bench.ModelSpec(variant, factory=_factory(variant))
    protocol = bench.Protocol(label_noise=eta, noise_seed=seed)
    return bench.run_one(stream, spec, seed=1, protocol=protocol).accuracy


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="default,L1,sign,ht_default")
    parser.add_argument("--streams", default="agrawal")
    parser.add_argument(
        "--seeds",
        default="1",
        help="flip seeds at eta = 0.3 (the noisy accuracy is their mean; one tree's accuracy "
        "under noise varies by several points between flip seeds)",
    )
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    print("| stream | variant | eta = 0 | eta = 0.3 (per seed) | drop |")
    print("| --- | --- | --- | --- | --- |")
    for stream in args.streams.split(","):
        for variant in args.variants.split(","):
            clean = 100 * accuracy(stream, variant, 0.0)
            noisy = [100 * accuracy(stream, variant, 0.3, seed) for seed in seeds]
            mean = statistics.fmean(noisy)
            per_seed = " / ".join(f"{v:.2f}" for v in noisy)
            row = f"| {stream} | {variant} | {clean:.2f} | {mean:.2f} ({per_seed}) "
            print(row + f"| {clean - mean:.2f} |", flush=True)


if __name__ == "__main__":
    main()
