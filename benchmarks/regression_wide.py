"""The regressors on wide data with rare categories: why linear parts blow up, and the check.

:func:`wide_stream` builds a stream like real tabular regression data (issue 56): ``n_cats``
categorical features of ``levels`` categories each, one-hot encoded as dense 0/1 columns (every
column in every row, as a data frame's dummies are), the categories' frequencies spread from
about 1e-3 to 3e-2; ``n_num`` numeric features; a target of mean about 1e4 and standard
deviation about 900 that depends on the categories (an effect of deviation 300 per category)
and on the numbers (non-linearly, with an interaction), plus a noise of deviation 100.

Behind River's ``StandardScaler`` (as the regression guide says), a rare category's column
becomes ``(1 - p) / sqrt(p (1 - p))``, about ``1 / sqrt(p)``, where it is set: 10 to 30 on a
stationary stream, up to ``sqrt(t)`` when a category is first seen at example ``t``. An SGD
step of River's ``LinearRegression`` (rate 0.01) moves its prediction by ``0.02 (||x||^2 + 1)``
times the residual, and a standardized ``x`` has ``||x||^2`` about the number of its columns
(each has variance 1): SGD on the squared loss diverges once that factor exceeds 2. On 5,000
examples of the default stream (403 columns) ``--diagnose`` finds a median factor of 6.5 (max
51; largest standardized value 46): River's ``LinearRegression`` diverges whatever the
target's scale (the factor does not depend on it), and so do linear leaves.

    python benchmarks/regression_wide.py --seeds 42,43,44 --n 5000            # the comparison
    python benchmarks/regression_wide.py --diagnose --n 5000                  # the step factor

The comparison is prequential RMSE (predict, then learn), each model behind a
``StandardScaler``, the mean over the seeds (the stream's seed and the models').
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from river import forest, linear_model, metrics, preprocessing, tree

import river_boost as rb


def wide_stream(seed: int, n: int = 5000, n_cats: int = 4, levels: int = 100, n_num: int = 3):
    """``n`` examples ``(x, y)`` of the wide stream described in the module."""
    rng = random.Random(seed)
    cats = []
    for _ in range(n_cats):
        raw = [math.exp(rng.uniform(math.log(1e-3), math.log(3e-2))) for _ in range(levels)]
        total = sum(raw)
        probs = [r / total for r in raw]
        effects = [rng.gauss(0.0, 300.0) for _ in range(levels)]
        cats.append((probs, effects))
    for _ in range(n):
        x, y = {}, 1e4
        nums = [rng.gauss(0.0, 1.0) for _ in range(n_num)]
        for j, v in enumerate(nums):
            x[f"num_{j}"] = v
        y += (
            800.0 * math.tanh(nums[0])
            + 500.0 * math.sin(2.0 * nums[1])
            + 300.0 * nums[0] * nums[-1]
        )
        for c, (probs, effects) in enumerate(cats):
            level = rng.choices(range(levels), weights=probs)[0]
            for k in range(levels):
                x[f"cat{c}_{k}"] = 1.0 if k == level else 0.0
            y += effects[level]
        yield x, y + rng.gauss(0.0, 100.0)


def models(seed: int) -> dict:
    def scaled(model):
        return lambda: preprocessing.StandardScaler() | model()

    return {
        "SGBT": scaled(lambda: rb.SGBTRegressor(seed=seed)),
        "SGBT mean leaves": scaled(
            lambda: rb.SGBTRegressor(model=rb.gradient.default_regressor("mean"), seed=seed)
        ),
        "OGB": scaled(rb.OnlineGradientBoostRegressor),
        "LinearRegression": scaled(linear_model.LinearRegression),
        "HTR": scaled(tree.HoeffdingTreeRegressor),
        "ARF": scaled(lambda: forest.ARFRegressor(n_models=10, seed=seed)),
    }


def score(make, data) -> tuple:
    model, rmse = make(), metrics.RMSE()
    start = time.perf_counter()
    for x, y in data:
        rmse.update(y, model.predict_one(x))
        model.learn_one(x, y)
    return rmse.get(), time.perf_counter() - start


def diagnose(seed: int, n: int) -> None:
    """The SGD step factor ``0.01 * 2 * (||x||^2 + 1)`` of River's LinearRegression on the
    standardized stream, and the largest standardized value."""
    scaler = preprocessing.StandardScaler()
    factors, largest = [], 0.0
    for x, _ in wide_stream(seed, n):
        scaler.learn_one(x)
        z = scaler.transform_one(x)
        norm2 = sum(v * v for v in z.values())
        factors.append(0.02 * (norm2 + 1.0))
        largest = max(largest, max(abs(v) for v in z.values()))
    late = factors[n // 2 :]
    print(f"columns {len(z)}; largest |standardized value| {largest:.1f}")
    print(
        f"step factor 0.02 (||x||^2 + 1): median {statistics.median(late):.2f}, "
        f"max {max(factors):.1f} (SGD on the squared loss diverges above 2)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--models", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--diagnose", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.diagnose:
        diagnose(seeds[0], args.n)
        return
    names = None if args.models is None else args.models.split(",")
    rows = {}
    for seed in seeds:
        for name, make in models(seed).items():
            if names is None or name in names:
                rows.setdefault(name, []).append(score(make, wide_stream(seed, args.n)))
    print(f"| model | RMSE (mean of {len(seeds)} seeds) | per seed | seconds |")
    print("|---|---|---|---|")
    for name, runs in rows.items():
        per_seed = ", ".join(f"{r:.4g}" for r, _ in runs)
        rmse = statistics.mean(r for r, _ in runs)
        seconds = statistics.mean(t for _, t in runs)
        print(f"| {name} | {rmse:.4g} | {per_seed} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
