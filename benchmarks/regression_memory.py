"""Memory of a boosting regressor on a long drifting stream: does it stay bounded?

The regressor (by default ``SGBTRegressor`` at its defaults) learns River's ``FriedmanDrift``
(``--drift lea``: local expanding abrupt drifts; ``gra``, ``gsg`` as River defines them) with
its three changes spread over the run, predicting before it learns, and the process's
resident memory (RSS, from ``/proc/self/statm``) is recorded every ``--every`` examples with
the steps' replacements, the trees' nodes and C memory, the windowed MAE and the time.

    python benchmarks/regression_memory.py --n 1000000
    python benchmarks/regression_memory.py --n 1000000 --drift gra \
        --model OnlineGradientBoostRegressor

Prints one line per checkpoint and, at the end, the RSS growth from the first checkpoint at or
after 100,000 examples to the last.
"""

from __future__ import annotations

import argparse
import collections
import gc
import sys
import time

from drift_memory import rss_mib
from river.datasets import synth

import river_boost


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--every", type=int, default=100_000)
    ap.add_argument("--drift", choices=("lea", "gra", "gsg"), default="lea")
    ap.add_argument("--model", default="SGBTRegressor")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args(argv)

    n = args.n
    if args.drift == "lea":
        position = (n // 4, n // 2, 3 * n // 4)
    else:
        position = (n // 3, 2 * n // 3)
    stream = synth.FriedmanDrift(drift_type=args.drift, position=position, seed=args.seed)
    cls = getattr(river_boost, args.model)
    model = cls(seed=args.seed) if "seed" in cls.__init__.__code__.co_varnames else cls()
    window = collections.deque(maxlen=10_000)
    start = time.process_time()
    first = None
    for t, (x, y) in enumerate(stream.take(n), start=1):
        window.append(abs(y - model.predict_one(x)))
        model.learn_one(x, y)
        if t % args.every == 0:
            gc.collect()
            rss = rss_mib()
            if first is None and t >= 100_000:
                first = (t, rss)
            learners = model._engine.learners
            nodes = sum(getattr(learners, "n_nodes", None) or [0])
            print(
                f"{t:>9,} examples  RSS {rss:7.1f} MiB  trees' C memory "
                f"{sys.getsizeof(learners) / 2**20:6.2f} MiB  nodes {nodes:,}  "
                f"replacements {sum(getattr(model, 'replacements', None) or [0])}  "
                f"MAE (last 10,000) {sum(window) / len(window):.3f}  "
                f"{time.process_time() - start:7.1f} s",
                flush=True,
            )
            last = (t, rss)
    if first is not None and last[0] > first[0]:
        print(
            f"RSS growth from {first[0]:,} to {last[0]:,} examples: {last[1] - first[1]:+.1f} MiB"
        )


if __name__ == "__main__":
    main()
