"""One stray example of a new class, and the support a class needs before the boosters read it.

River's naive-Bayes leaves give a class seen once every advantage: its Gaussians are
degenerate and skipped, so it pays no likelihood and wins wherever it was seen. The multiclass
and multi-label boosters therefore read a label from the weak learners only once it has
``tasks.MIN_SUPPORT`` learned examples (as soon as two labels have them). This script
measures, for ``MIN_SUPPORT`` in 1 (off), 2 and 3: the prequential accuracy on ImageSegments
and 10,000 RandomRBF examples as they are, and on ImageSegments with one example of a new
class injected after 1,000 rows (accuracy over the rows after it). Runs are
``river_boost.bench`` runs on the streams below.

    python benchmarks/new_class.py --seeds 1,2,3
"""

from __future__ import annotations

import argparse
import statistics

from river import datasets
from river.datasets import synth

from river_boost import bench, tasks


def _injected():
    """ImageSegments with one example of a class never seen again, after 1,000 rows."""
    for t, (x, y) in enumerate(datasets.ImageSegments()):
        if t == 1000:
            yield x, "a class seen once"
        yield x, y


def _rbf():
    return synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5, n_features=10)


STREAMS = {
    "imagesegments": (datasets.ImageSegments, 2310),
    "rbf": (_rbf, 10_000),
    "imagesegments+1": (_injected, 2311),
}
MODELS = [bench.ModelSpec("AdaBoost.OLM"), bench.ModelSpec("OnlineMBBM", 0.3)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--n-models", type=int, default=10)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    for name, (factory, n) in STREAMS.items():
        bench.STREAMS[name] = (factory, n, "multiclass")
    print(f"{args.n_models} learners, seeds {seeds}: accuracy (%; after the stray row for +1)")
    print("| MIN_SUPPORT | model | " + " | ".join(STREAMS) + " |")
    print("|" + " --- |" * (len(STREAMS) + 2))
    for support in (1, 2, 3):
        tasks.MIN_SUPPORT = support
        for spec in MODELS:
            cells = []
            for name in STREAMS:
                # after the stray row: score from row 1,001 on (the tuning-split protocol)
                split = 1001 / 2311 if name.endswith("+1") else None
                accs = []
                for seed in seeds:
                    r = bench.run_one(name, spec, seed, args.n_models, bench.Protocol(split=split))
                    accs.append(r.split_accuracy[1] if split else r.accuracy)
                cells.append(f"{100 * statistics.fmean(accs):.2f}")
            print(f"| {support} | {spec.label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
