"""The multiclass boosters' defaults on multiclass streams no default was picked on.

The multiclass defaults were chosen on the bench's ImageSegments, RandomRBF, Waveform and LED;
this runs the boosters on five streams from River's generators with other settings (10,000
examples each, data seed 7, the data fixed across models and seeds): RandomRBF with 3 classes
and 20 features, and with 10 classes; Waveform with its noise features; a 4-class RandomTree
with numeric and nominal features; LED with irrelevant features and 5% noise. Prequential
accuracy (predict, then learn), the mean over the model seeds, at each ``--n-models``.

    python benchmarks/multiclass_default.py --boosters AdaBoostOLM --n-models 10,20,40 \\
        --seeds 42,43,44,45,46,47,48,49,50,51
    python benchmarks/multiclass_default.py --boosters AdaBoostOLM --n-models 20 --deep-scales 12

Prints the accuracy table and, for each booster and size, its wins and losses against the
first booster at the first size (stream means), the mean difference and the worst stream.
"""

from __future__ import annotations

import argparse
import functools
import itertools

from binary_default import DATA_SEED, random_tree, run_and_report  # the same runs, tables
from river.datasets import synth

import river_boost

N = 10_000

STREAMS = {
    "rbf_c3_f20": lambda: synth.RandomRBF(
        seed_model=DATA_SEED, seed_sample=DATA_SEED, n_classes=3, n_features=20, n_centroids=50
    ),
    "rbf_c10": lambda: synth.RandomRBF(
        seed_model=DATA_SEED, seed_sample=DATA_SEED, n_classes=10, n_features=10, n_centroids=50
    ),
    "waveform_noise": lambda: synth.Waveform(seed=DATA_SEED, has_noise=True),
    "randomtree_c4": lambda: random_tree(4),
    "led_irrelevant_n05": lambda: synth.LED(
        seed=DATA_SEED, noise_percentage=0.05, irrelevant_features=True
    ),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boosters", default="AdaBoostOLM,OnlineMBBM", help="class names")
    parser.add_argument("--n-models", default="10", help="learners per ensemble, comma-separated")
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--streams", default=None, help="only these streams, comma-separated")
    parser.add_argument(
        "--deep-scales",
        default=None,
        help="deep_scale values to compare with each booster's default, comma-separated "
        "(label name@n[deep=s]; boosters that take deep_scale: AdaBoostOLM)",
    )
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    sizes = [int(n) for n in args.n_models.split(",")]
    names = args.streams.split(",") if args.streams else list(STREAMS)
    streams = {k: list(itertools.islice(STREAMS[k](), N)) for k in names}
    models = {}
    for name in args.boosters.split(","):
        for n in sizes:
            models[f"{name}@{n}"] = (getattr(river_boost, name), n)
            for scale in args.deep_scales.split(",") if args.deep_scales else ():
                models[f"{name}@{n}[deep={scale}]"] = (
                    functools.partial(getattr(river_boost, name), deep_scale=float(scale)),
                    n,
                )
    run_and_report(streams, models, seeds, next(iter(models)))


if __name__ == "__main__":
    main()
