"""OSBoost.OCP's learning rate: the vote weights' step ``c / sqrt(t)`` for a grid of ``c``.

Prequential accuracy of ``OSBoostOCP`` (ten default Hoeffding trees, gamma = 0.1) on the
streams given, for each ``c``, with OSBoost (the uniform vote) beside it. The default ``c``
was chosen on Phishing and Bananas (the ``--streams`` default); the code behind Beygelzimer
et al.'s experiments steps ``1 / sqrt(N t)``, ``c = 1 / sqrt(10)`` for ten learners.

    python benchmarks/ocp_learning_rate.py --seeds 1,2,3

Prints one row per ``c``: the mean accuracy (and standard deviation over the seeds) on each
stream.
"""

from __future__ import annotations

import argparse
import statistics

from river_boost import bench

RATES = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", default="phishing,bananas")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--rates", default=",".join(f"{c:g}" for c in RATES))
    args = parser.parse_args(argv)
    streams = args.streams.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    specs = [bench.ModelSpec("OSBoost", 0.1)] + [
        bench.ModelSpec("OSBoost.OCP", 0.1, float(c)) for c in args.rates.split(",")
    ]
    print("| model | " + " | ".join(streams) + " | mean |")
    print("| --- |" + " --- |" * (len(streams) + 1))
    for spec in specs:
        cells, means = [], []
        for stream in streams:
            accs = [100 * bench.run_one(stream, spec, seed).accuracy for seed in seeds]
            sd = statistics.stdev(accs) if len(accs) > 1 else 0.0
            cells.append(f"{statistics.fmean(accs):.2f} ± {sd:.2f}")
            means.append(statistics.fmean(accs))
        print(f"| {spec.label} | " + " | ".join(cells) + f" | {statistics.fmean(means):.2f} |")


if __name__ == "__main__":
    main()
