"""The learners' weight scale: accuracy, time and tree size of the boosters for a grid of
``weight_scale`` values.

Every weight a booster teaches its learners with is multiplied by ``weight_scale``; Hoeffding
trees count summed weight in their grace period and split bound, so a scale above 1 grows
deeper trees. Prequential accuracy (the bench's protocol, ``river_boost.bench.run_one``: the
bench's stream lengths, 10 learners), for each booster and stream given, over the seeds.

    python benchmarks/weight_scale.py                      # the multiclass boosters
    python benchmarks/weight_scale.py --streams rbf_moderate,rbf_fast,led_abrupt,led_gradual \
        --drift                                            # the drift suite's setting
    python benchmarks/weight_scale.py --streams phishing,bananas,sea,hyperplane \
        --boosters AdaBoostOL,OnlineBBM --scales 1,2,4

Prints one row per (stream, booster): the mean accuracy at each scale (and its difference
from scale 1), then the mean difference, the worst, and the time and leaves per tree
relative to scale 1 over all rows.
"""

from __future__ import annotations

import argparse
import statistics

from river import drift

import river_boost
from river_boost import bench

STREAMS = "imagesegments,led,rbf,waveform"
BOOSTERS = "AdaBoostOLM,OnlineMBBM"
SCALES = "1,2,3,4"


def _factory(cls, scale: float, built: list, adapt: bool = False):
    """A bench factory for ``cls`` at ``scale`` (``adapt``: with the drift suite's
    ``drift_detector=drift.ADWIN()``); each booster built is kept in ``built`` (to read its
    trees' size after the run)."""

    def build(n_models: int, seed: int):
        extra = {"drift_detector": drift.ADWIN()} if adapt else {}
        built.append(cls(n_models=n_models, seed=seed, weight_scale=scale, **extra))
        return built[-1]

    return build


def _leaves(model) -> float:
    """Mean leaves per tree of the booster's compiled forest (NaN for other learners)."""
    forest = model.pool.learners
    if not hasattr(forest, "summary"):
        return float("nan")
    return statistics.fmean(forest.summary(i)["n_leaves"] for i in range(forest.n_models))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", default=STREAMS)
    parser.add_argument("--boosters", default=BOOSTERS, help="class names")
    parser.add_argument("--scales", default=SCALES)
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--n-models", type=int, default=10)
    parser.add_argument(
        "--drift", action="store_true", help="drift adaptation on, as the drift suite runs it"
    )
    args = parser.parse_args(argv)
    scales = [float(c) for c in args.scales.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    print(
        "| stream | booster | "
        + " | ".join(f"scale {c:g}" for c in scales)
        + " |\n| --- | --- |"
        + " --- |" * len(scales)
    )
    deltas = {c: [] for c in scales}
    time_ratio = {c: [] for c in scales}
    leaf_ratio = {c: [] for c in scales}
    for stream in args.streams.split(","):
        for name in args.boosters.split(","):
            cls = getattr(river_boost, name)
            acc, seconds, leaves = {}, {}, {}
            for c in scales:
                runs = []
                for seed in seeds:
                    built = []
                    spec = bench.ModelSpec(name, factory=_factory(cls, c, built, args.drift))
                    r = bench.run_one(stream, spec, seed, args.n_models)
                    runs.append((100 * r.accuracy, r.seconds, _leaves(built[-1])))
                acc[c] = statistics.fmean(a for a, _, _ in runs)
                seconds[c] = statistics.fmean(t for _, t, _ in runs)
                leaves[c] = statistics.fmean(lv for _, _, lv in runs)
            base = scales[0]
            cells = []
            for c in scales:
                cells.append(f"{acc[c]:.2f} ({acc[c] - acc[base]:+.2f})")
                deltas[c].append(acc[c] - acc[base])
                time_ratio[c].append(seconds[c] / seconds[base])
                leaf_ratio[c].append(leaves[c] / leaves[base])
            print(f"| {stream} | {name} | " + " | ".join(cells) + " |", flush=True)
    print()
    for c in scales:
        print(
            f"scale {c:g}: mean {statistics.fmean(deltas[c]):+.2f} points, worst "
            f"{min(deltas[c]):+.2f}, time x{statistics.fmean(time_ratio[c]):.2f}, leaves per "
            f"tree x{statistics.fmean(leaf_ratio[c]):.2f}"
        )


if __name__ == "__main__":
    main()
