"""The gradient boosters' regression defaults against River's regressors, and their tuning.

Prequential MAE and RMSE (predict, then learn) of ``SGBTRegressor`` (its defaults), of
``OnlineGradientBoostRegressor`` (its defaults behind a ``StandardScaler``), of River's
``ARFRegressor`` (10 trees, the seed) and ``HoeffdingTreeRegressor`` (River's defaults), the
mean over the seeds, on River's streams: Friedman and FriedmanDrift (generated from the seed,
``--n`` examples; the drift gradual at a third and two thirds), TrumpApproval, ChickWeights and
WaterFlow (whole; WaterFlow's datetime feature dropped). River's trees predict with linear
models in their leaves (``"adaptive"``): on TrumpApproval's unscaled features those diverge.
The seed is the models' seed and the synthetic streams'.

    python benchmarks/regression_default.py --seeds 42,43,44 --n 3000
    python benchmarks/regression_default.py --streams Friedman,TrumpApproval --grid  # tuning
    python benchmarks/regression_default.py --coverage --n 5000    # the 90% interval
    python benchmarks/regression_default.py --detectors --n 20000  # the steps' detector

``--grid`` runs SGBTRegressor over a grid of its parameters and its default tree's instead of
the comparison. ``--coverage`` measures how often a 90% interval, the 0.05 and 0.95 quantile
models, covers the target on the stationary synthetic streams (Friedman, Mv, Planes2D, or
``--streams``; after the first ``n / 5`` examples). ``--detectors`` runs SGBTRegressor (behind a
scaler) with each step detector of ``DETECTORS`` on Friedman and FriedmanDrift's three drifts
(``FriedmanDrift:lea``, ``:gra``, ``:gsg``).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from river import datasets, drift, forest, metrics, preprocessing, tree

import river_boost as rb
from river_boost.bench.registry import _prepared

STREAMS = ("Friedman", "FriedmanDrift", "TrumpApproval", "ChickWeights", "WaterFlow")
# the stationary synthetic streams, where a 90% interval should cover 90% of the targets
STATIONARY = ("Friedman", "Mv", "Planes2D")


def stream(name: str, seed: int, n: int):
    if name == "Friedman":
        return itertools.islice(datasets.synth.Friedman(seed=seed), n)
    if name == "FriedmanDrift":
        name = "FriedmanDrift:gra"
    if name.startswith("FriedmanDrift:"):  # FriedmanDrift:lea, :gra or :gsg
        kind = name.split(":")[1]
        position = (n // 4, n // 2, 3 * n // 4) if kind == "lea" else (n // 3, 2 * n // 3)
        window = {"transition_window": n // 20} if kind == "gsg" else {}
        data = datasets.synth.FriedmanDrift(drift_type=kind, position=position, seed=seed, **window)
        return itertools.islice(data, n)
    if name in ("Mv", "Planes2D"):
        return itertools.islice(getattr(datasets.synth, name)(seed=seed), n)
    # (WaterFlow's Time, a datetime, is dropped for every model: the boosters take numbers
    # and strings only)
    return (
        ({k: v for k, v in x.items() if isinstance(v, (int, float, str))}, y)
        for x, y in getattr(datasets, name)()
    )


def models(seed: int) -> dict:
    return {
        "SGBT": lambda: rb.SGBTRegressor(seed=seed),
        "OGB": lambda: preprocessing.StandardScaler() | rb.OnlineGradientBoostRegressor(),
        "ARF": lambda: forest.ARFRegressor(n_models=10, seed=seed),
        "HTR": lambda: tree.HoeffdingTreeRegressor(),
    }


def score(make, data) -> tuple:
    model, mae, rmse = make(), metrics.MAE(), metrics.RMSE()
    start = time.perf_counter()
    for x, y in data:
        p = model.predict_one(x)
        mae.update(y, p)
        rmse.update(y, p)
        model.learn_one(x, y)
    return mae.get(), rmse.get(), time.perf_counter() - start


def compare(args) -> None:
    names = list(models(0))
    print(f"| stream | {' | '.join(f'{m} MAE | {m} RMSE' for m in names)} |")
    print(f"| --- | {' | '.join('---: | ---:' for _ in names)} |")
    seconds = {m: 0.0 for m in names}
    for name in args.streams:
        cells = []
        for m in names:
            runs = [score(models(s)[m], stream(name, s, args.n)) for s in args.seeds]
            seconds[m] += sum(r[2] for r in runs)
            cells.append(f"{statistics.mean(r[0] for r in runs):.3f}")
            cells.append(f"{statistics.mean(r[1] for r in runs):.3f}")
        print(f"| {name} | {' | '.join(cells)} |", flush=True)
    print("seconds:", {m: round(s, 1) for m, s in seconds.items()})


GRID = {
    "n_models": (10, 25),
    "learning_rate": (0.1, 0.3),
    "feature_fraction": (0.75, 1.0),
    "grace_period": (50, 200),
    "leaf_prediction": ("mean", "adaptive"),
}


def grid(args) -> None:
    rows = []
    for values in itertools.product(*GRID.values()):
        p = dict(zip(GRID, values))
        learner = tree.HoeffdingTreeRegressor(
            grace_period=p.pop("grace_period"),
            leaf_prediction=p.pop("leaf_prediction"),
            max_size=2.0,
        )
        maes = {}
        for name in args.streams:
            maes[name] = statistics.mean(
                score(
                    lambda s=s, m=learner, p=p: rb.SGBTRegressor(model=m, seed=s, **p),
                    stream(name, s, args.n),
                )[0]
                for s in args.seeds
            )
        rows.append((values, maes))
        print(values, {k: round(v, 3) for k, v in maes.items()}, flush=True)
    # rank: the mean over the streams of each MAE relative to the stream's best
    best = {name: min(r[1][name] for r in rows) for name in args.streams}
    ranked = sorted(rows, key=lambda r: statistics.mean(r[1][n] / best[n] for n in best))
    print("best first (", ", ".join(GRID), "):")
    for values, maes in ranked[:8]:
        rel = statistics.mean(maes[n] / best[n] for n in best)
        print(f"  {values} relative MAE {rel:.3f}")


def coverage(args) -> None:
    streams = args.streams if args.streams != list(STREAMS) else list(STATIONARY)
    for name in streams:
        for seed in args.seeds:
            # (the bench's preparation: numbers scaled, Mv's strings one-hot encoded)
            low, high = (
                _prepared(
                    rb.SGBTRegressor(loss="quantile", alpha=alpha, seed=seed),
                    preprocessing.StandardScaler(),
                )
                for alpha in (0.05, 0.95)
            )
            covered = counted = 0
            for t, (x, y) in enumerate(stream(name, seed, args.n)):
                if t >= args.n // 5:
                    counted += 1
                    covered += low.predict_one(x) <= y <= high.predict_one(x)
                low.learn_one(x, y)
                high.learn_one(x, y)
            print(f"{name}, seed {seed}: 90% interval covers {covered / counted:.1%} of {counted}")


DETECTORS = {
    "ADWIN(0.002)": lambda: drift.ADWIN(),  # River's default
    "ADWIN(1e-5)": lambda: drift.ADWIN(delta=1e-5),
    "ADWIN(1e-7)": lambda: drift.ADWIN(delta=1e-7),
    "None": lambda: None,
}
DRIFTING = ("Friedman", "FriedmanDrift:lea", "FriedmanDrift:gra", "FriedmanDrift:gsg")


def detectors(args) -> None:
    """SGBTRegressor's step detector: RMSE and steps replaced per detector and stream."""
    streams = args.streams if args.streams != list(STREAMS) else list(DRIFTING)
    print(f"{'detector':<14}" + "".join(f"{s:>24}" for s in streams))
    for label, make in DETECTORS.items():
        cells = []
        for name in streams:
            rmses, replaced = [], []
            for seed in args.seeds:
                model = rb.SGBTRegressor(drift_detector=make(), seed=seed)
                pipeline = preprocessing.StandardScaler() | model
                rmse = metrics.RMSE()
                for x, y in stream(name, seed, args.n):
                    rmse.update(y, pipeline.predict_one(x))
                    pipeline.learn_one(x, y)
                rmses.append(rmse.get())
                replaced.append(sum(model.replacements) if model.drift_detector else 0)
            cells.append(f"{statistics.mean(rmses):.3f} ({statistics.mean(replaced):.0f} repl.)")
        print(f"{label:<14}" + "".join(f"{c:>24}" for c in cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--streams", default=",".join(STREAMS))
    parser.add_argument("--n", type=int, default=3000, help="examples of the synthetic streams")
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--coverage", action="store_true")
    parser.add_argument("--detectors", action="store_true")
    args = parser.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.streams = args.streams.split(",")
    if args.grid:
        grid(args)
    elif args.coverage:
        coverage(args)
    elif args.detectors:
        detectors(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
