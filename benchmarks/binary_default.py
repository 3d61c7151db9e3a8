"""Which binary booster works best with its defaults on streams no default was picked on.

The bench's binary streams (Phishing, Bananas, Agrawal, SEA, Hyperplane) are where the
boosters' defaults were chosen; this compares them, defaults only, on held-out binary streams:
eight from River's generators with other functions, sizes and noise than the bench's (10,000
examples each, the data fixed across models and seeds), and with ``--data-dir`` three of the
papers' data sets (a9a, 20,000 rows shuffled; letter, A-M against N-Z; mushroom). Prequential
accuracy (predict, then learn), 10 learners, the mean over the model seeds; with ``--arf``
River's ARF (10 trees) on the same rows.

    python benchmarks/binary_default.py --seeds 42,43,44 --arf --data-dir DIR
    python benchmarks/binary_default.py --boosters OSBoostOCP --n-models 10,20,40 \
        --seeds 42,43,44,45,46,47,48,49,50,51        # how many learners
    python benchmarks/binary_default.py --boosters OSBoostOCP --n-models 20 --deep-scales 1

Prints the accuracy table, and for each booster its wins and losses against AdaBoost.OL
(stream means), the mean difference and the worst stream; with several ``--n-models``, each
booster at each size (``name@n``) and the same against its first size.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import statistics

from river import forest
from river.datasets import synth

import river_boost
from river_boost.bench import loaders

BOOSTERS = "AdaBoostOL,OSBoostOCP,SquintBoost,OnlineBBM,OSBoost"
DATA_SEED = 7
N = 10_000


def _flipped(stream, rate: float, seed: int):
    rng = random.Random(seed)
    for x, y in stream:
        yield x, (not y) if rng.random() < rate else y


def random_tree(n_classes: int, seed: int = DATA_SEED):
    """River's RandomTree with 5 numeric and 5 nominal features (5 values each), depth 6."""
    return synth.RandomTree(
        seed_tree=seed,
        seed_sample=seed,
        n_classes=n_classes,
        n_num_features=5,
        n_cat_features=5,
        n_categories_per_feature=5,
        max_tree_depth=6,
        first_leaf_level=3,
        fraction_leaves_per_level=0.15,
    )


SYNTHETIC = {
    "sea_v2_n10": lambda: synth.SEA(variant=2, noise=0.1, seed=DATA_SEED),
    "agrawal_f4_p05": lambda: synth.Agrawal(4, perturbation=0.05, seed=DATA_SEED),
    "agrawal_f8": lambda: synth.Agrawal(8, seed=DATA_SEED),
    "hyperplane20_n10": lambda: synth.Hyperplane(
        seed=DATA_SEED, n_features=20, n_drift_features=0, noise_percentage=0.1
    ),
    "sine_f1_noise": lambda: synth.Sine(1, seed=DATA_SEED, balance_classes=True, has_noise=True),
    "mixed_f1": lambda: synth.Mixed(1, seed=DATA_SEED),
    "randomtree": lambda: random_tree(2),
    "stagger_f2_n10": lambda: _flipped(
        synth.STAGGER(classification_function=2, seed=DATA_SEED), 0.1, DATA_SEED
    ),
}


def _papers(data_dir) -> dict:
    """The papers' binary sets as lists of (x, bool)."""
    a9a = list(loaders.paper_set("a9a", data_dir))
    random.Random(DATA_SEED).shuffle(a9a)
    mushroom = list(loaders.paper_set("mushroom", data_dir))
    poisonous = sorted({y for _, y in mushroom})[-1]
    return {
        "a9a_20k": a9a[:20_000],
        "letter_AM": [(x, y <= "M") for x, y in loaders.paper_set("letter", data_dir)],
        "mushroom": [(x, y == poisonous) for x, y in mushroom],
    }


def accuracy(model, rows) -> float:
    hits = 0
    for x, y in rows:
        hits += model.predict_one(x) == y
        model.learn_one(x, y)
    return 100.0 * hits / len(rows)


def run_and_report(streams: dict, models: dict, seeds: list, reference: str) -> dict:
    """Run every model (label -> (class, n_models)) on every stream (name -> rows) for the
    seeds; print the mean accuracy table and each model's wins and losses against
    ``reference`` (stream means), the mean difference and the worst stream. Returns the
    table, ``{(stream, label): mean accuracy}``."""
    table = {}
    for stream, rows in streams.items():
        for label, (cls, n) in models.items():
            runs = [accuracy(cls(n_models=n, seed=seed), rows) for seed in seeds]
            table[stream, label] = statistics.fmean(runs)
            print(f"{stream:<20}{label:<18}{table[stream, label]:7.2f}", flush=True)
    labels = list(models)
    print("\n| stream | " + " | ".join(labels) + " |")
    print("| --- " * (len(labels) + 1) + "|")
    for stream in streams:
        print(f"| {stream} | " + " | ".join(f"{table[stream, m]:.2f}" for m in labels) + " |")
    means = [statistics.fmean(table[s, m] for s in streams) for m in labels]
    print("| **mean** | " + " | ".join(f"{m:.2f}" for m in means) + " |")
    print(f"\nagainst {reference} (stream means): wins/losses, mean difference, worst")
    for label in labels:
        diff = {s: table[s, label] - table[s, reference] for s in streams}
        worst = min(diff, key=diff.get)
        wins = sum(d > 0 for d in diff.values())
        losses = sum(d < 0 for d in diff.values())
        print(
            f"  {label:<18}{wins}/{losses}  {statistics.fmean(diff.values()):+.2f}  "
            f"{diff[worst]:+.2f} ({worst})"
        )
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boosters", default=BOOSTERS, help="class names, comma-separated")
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--arf", action="store_true", help="River's ARF too (slow)")
    parser.add_argument("--data-dir", default=None, help="the papers' data sets, if present")
    parser.add_argument("--streams", default=None, help="only these streams, comma-separated")
    parser.add_argument("--n-models", default="10", help="learners per ensemble, comma-separated")
    parser.add_argument(
        "--deep-scales",
        default=None,
        help="OSBoostOCP's deep_scale values to compare with its default, comma-separated "
        "(label name[deep=s]; 1: its own chain alone)",
    )
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    sizes = [int(n) for n in args.n_models.split(",")]
    models = {}
    for name in args.boosters.split(","):
        for n in sizes:
            label = name if len(sizes) == 1 else f"{name}@{n}"
            models[label] = (getattr(river_boost, name), n)
            for scale in args.deep_scales.split(",") if args.deep_scales else ():
                models[f"{label}[deep={scale}]"] = (
                    functools.partial(getattr(river_boost, name), deep_scale=float(scale)),
                    n,
                )
    if args.arf:
        models["River.ARF"] = (forest.ARFClassifier, 10)
    streams = {
        k: [(x, bool(y)) for x, y in itertools.islice(make(), N)] for k, make in SYNTHETIC.items()
    }
    if args.data_dir:
        streams.update(_papers(args.data_dir))
    if args.streams:
        streams = {k: streams[k] for k in args.streams.split(",")}
    reference = "AdaBoostOL" if "AdaBoostOL" in models else next(iter(models))
    run_and_report(streams, models, seeds, reference)


if __name__ == "__main__":
    main()
