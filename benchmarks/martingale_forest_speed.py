"""The martingale booster with its nodes' trees in the compiled forest, against Python nodes.

Runs the bench's own prequential protocol (:func:`river_boost.bench.run_one`: predict, score,
learn; the streams the bench loads, the model the bench builds) for ``MartingaleBooster`` on
each stream twice, alternating: with the compiled forest (``forest.ENABLED`` on) and with
River's trees in Python nodes (off). Every metric the bench records must be identical between
the two (accuracy, the learning curve, the program's size, the update share): the script
fails otherwise. Reported: median throughput of each over ``--repeats`` runs, and the ratio.

The bench's timing proxy (``bench.runner._instrument``) times the weak learners by wrapping the
booster's forest in a ``_Timed`` forwarder (with Python nodes: its template). Here the booster
is not wrapped, in either arm (no weak-learner time is reported).

    python benchmarks/martingale_forest_speed.py --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys

from river_boost import bench, forest, martingale
from river_boost.bench import runner

STREAMS = ["phishing", "bananas", "agrawal", "sea", "hyperplane"]


def _untimed(model, clock):
    if isinstance(model, martingale.MartingaleBooster):
        return model, False
    return _instrument(model, clock)


_instrument = runner._instrument


def run(stream: str, enabled: bool, seed: int):
    forest.ENABLED = enabled
    try:
        return bench.run_one(stream, bench.ModelSpec("MartingaleBooster"), seed=seed)
    finally:
        forest.ENABLED = True


def metrics(r) -> tuple:
    return (r.accuracy, r.curve, r.nodes, r.update_share, r.n_samples)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", default=",".join(STREAMS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    runner._instrument = _untimed
    print(f"{'stream':<12}{'forest ex/s':>14}{'python ex/s':>14}{'speed-up':>10}  metrics")
    ratios = []
    for stream in args.streams.split(","):
        speed = {True: [], False: []}
        seen = {}
        for k in range(args.repeats):
            for enabled in (True, False) if k % 2 == 0 else (False, True):
                r = run(stream, enabled, args.seed)
                speed[enabled].append(r.throughput)
                seen.setdefault(enabled, metrics(r))
                assert metrics(r) == seen[enabled], "a run is not reproducible"
        identical = seen[True] == seen[False]
        on, off = statistics.median(speed[True]), statistics.median(speed[False])
        ratios.append(on / off)
        print(
            f"{stream:<12}{on:>14,.0f}{off:>14,.0f}{on / off:>9.2f}x  "
            f"{'identical' if identical else 'DIFFERENT'} (accuracy {seen[True][0]:.4f}, "
            f"{seen[True][2]} nodes)"
        )
        if not identical:
            return 1
    print(f"geometric mean speed-up: {statistics.geometric_mean(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
