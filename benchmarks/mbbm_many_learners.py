"""OnlineMBBM with many learners: CPU seconds per example (predict_one + learn_one).

The exact multiclass potentials (``MulticlassZeroOnePotential``) used to cost ``O(n^3)`` per
binding label, so ``n_models=1000`` did not finish a single cost matrix in a minute. The first
table times the first cost matrices of a 1000-learner walk on their own (cold caches). Then
OnlineMBBM runs prequentially on ImageSegments (7 classes) and on River's
``synth.RandomRBF(n_classes=30)`` for each ``N``: the first example learns no cost matrix (no
class known yet); reported are the second (the first with cost matrices, cold caches), the
mean and maximum of the following ones, the potentials computed per example and the share of
the time spent in them (``_compute``). A run stops after ``--max-seconds``, cutting off the
example under way. Times are this process's CPU seconds (``time.process_time``), not wall
time, so that the load of a shared machine does not inflate them.

    nice python benchmarks/mbbm_many_learners.py --sizes 10 100 1000 --examples 20
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from functools import partial

import numpy as np
from river import datasets
from river.datasets import synth

from river_boost import OnlineMBBM
from river_boost.potentials import MulticlassZeroOnePotential


def streams():
    return {
        "ImageSegments (k=7)": lambda: iter(datasets.ImageSegments()),
        "RandomRBF (k=30)": lambda: iter(
            synth.RandomRBF(seed_model=7, seed_sample=7, n_classes=30, n_features=10)
        ),
    }


class OverBudget(Exception):
    """Raised from inside the potential when a run has used up its CPU seconds."""


class Timer:
    """CPU time spent inside ``MulticlassZeroOnePotential._compute``."""

    def __init__(self, deadline: float = float("inf")):
        self.seconds, self.calls = 0.0, 0
        self._orig = MulticlassZeroOnePotential._compute
        timer = self

        def timed(pot, n, gaps, *compiled):  # compiled: the walk's DP kernels
            t = time.process_time()
            if t > deadline:
                raise OverBudget
            try:
                return timer._orig(pot, n, gaps, *compiled)
            finally:
                timer.seconds += time.process_time() - t
                timer.calls += 1

        MulticlassZeroOnePotential._compute = timed

    def restore(self):
        MulticlassZeroOnePotential._compute = self._orig


def first_matrices(k: int, n_models: int = 1000, steps: int = 5):
    """Seconds for each of the walk's first ``steps`` cost matrices (votes 0, 0, 1, 0, ...),
    as the compiled walk computes them."""
    pot = MulticlassZeroOnePotential(k, 0.1)
    engine = OnlineMBBM(n_models=3, seed=1)._engine
    cost_matrix = partial(engine.mbbm_cost_matrix, pot)
    s = np.zeros(k, dtype=int)
    out = []
    for i in range(steps):
        t = time.process_time()
        cost_matrix(n_models - 1 - i, s.tolist())
        out.append(time.process_time() - t)
        s[[0, 0, 1, 0, 2][i % 5]] += 1
    return out


def run(make_stream, n_models: int, n_examples: int, seed: int, budget: float):
    model = OnlineMBBM(n_models=n_models, seed=seed)
    timer = Timer(deadline=time.process_time() + budget)
    times, pot_times, calls = [], [], []
    correct = 0
    unfinished = None  # (CPU seconds, potentials) of an example cut off by the budget
    try:
        for x, y in itertools.islice(make_stream(), n_examples):
            t0, p0, c0 = time.process_time(), timer.seconds, timer.calls
            try:
                correct += model.predict_one(x) == y
                model.learn_one(x, y)
            except OverBudget:
                unfinished = (time.process_time() - t0, timer.calls - c0)
                break
            times.append(time.process_time() - t0)
            pot_times.append(timer.seconds - p0)
            calls.append(timer.calls - c0)
    finally:
        timer.restore()
    return times, pot_times, calls, correct, unfinished


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--examples", type=int, default=20, help="examples per run")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--max-seconds", type=float, default=600.0, help="per run")
    args = parser.parse_args(argv)
    print("| k | first cost matrices of N = 1000, s each (cold) |")
    print("| --- | --- |")
    for k in (7, 30):
        print(f"| {k} | {', '.join(f'{t:.2f}' for t in first_matrices(k))} |", flush=True)
    print()
    print(
        f"examples per run: up to {args.examples}; the first learns no cost matrix (no class "
        "known yet), the second is the first with cost matrices (cold caches)"
    )
    print(
        "| stream | N | first example s | later s/example (mean) | later max s "
        "| potentials computed (later, mean) | share in potentials (later) | accuracy |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, make in streams().items():
        for n_models in args.sizes:
            times, pot, calls, correct, unfinished = run(
                make, n_models, args.examples, args.seed, args.max_seconds
            )
            if unfinished is not None:
                print(
                    f"| {name} | {n_models} | example {len(times) + 1} cut off after "
                    f"{unfinished[0]:.0f} s, {unfinished[1]} potentials computed | | | | | |"
                )
            first = times[1] if len(times) > 1 else float("nan")
            warm, warm_pot, warm_calls = times[2:], pot[2:], calls[2:]
            mean = sum(warm) / len(warm) if warm else float("nan")
            share = sum(warm_pot) / sum(warm) if warm and sum(warm) else float("nan")
            print(
                f"| {name} | {n_models} | {first:.2f} | {mean:.3f} | "
                f"{max(warm, default=float('nan')):.2f} | "
                f"{sum(warm_calls) / max(1, len(warm_calls)):.0f} | {share:.0%} | "
                f"{correct}/{len(times)} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
