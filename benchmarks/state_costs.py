"""What a model per key costs to keep: building, cloning, pickling and unpickling each default
estimator, beside River's ensembles, and beside another build of river_boost.

    python benchmarks/state_costs.py                       # this interpreter's build
    python benchmarks/state_costs.py --against BASE_PYTHON # and another build, row by row

A stream processor that keeps one model per key builds one for each new key (or clones a
template) and, in Spark's state store, loads and dumps each key's model once per micro-batch:
these are the costs of deployment. For each estimator at its defaults (``seed=42``), after
``--n`` examples of a stream of its task (SEA for binary, RandomRBF for multiclass, Yeast for
multi-label ranking, Friedman for regression), the rows give: milliseconds to build one
(``construct``) and to ``clone()`` one, the bytes of a fresh one's pickle and of the trained
one's, and milliseconds to ``pickle.dumps`` and ``pickle.loads`` the trained one (protocol 5).
Each time is the fastest of ``--repeats`` calls, the garbage collector on, as users run it.

With ``--against``, each row is measured in a process of each interpreter, the two back to
back in alternating order, ``--rounds`` times, and the table gives this build's figures and
the ratios ``other / this`` (above 1: this build is faster or smaller), the fastest round of
each: these machines' speed drifts over minutes, and rows measured side by side pair best.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pickle
import subprocess
import sys
import time

ROWS = {
    # name: (factory expression, stream)
    "AdaBoostOL": ("rb.AdaBoostOL(seed=42)", "sea"),
    "OnlineBBM": ("rb.OnlineBBM(seed=42)", "sea"),
    "OSBoost": ("rb.OSBoost(seed=42)", "sea"),
    "OSBoostOCP": ("rb.OSBoostOCP(seed=42)", "sea"),
    "SquintBoost": ("rb.SquintBoost(seed=42)", "sea"),
    "NHBoostDT": ("rb.NHBoostDT(seed=42)", "sea"),
    "MartingaleBooster": ("rb.MartingaleBooster(seed=42)", "sea"),
    "AdaBoostOLM": ("rb.AdaBoostOLM(seed=42)", "rbf"),
    "OnlineMBBM": ("rb.OnlineMBBM(seed=42)", "rbf"),
    "AdaOLMR": ("rb.AdaOLMR(seed=42)", "yeast"),
    "OnlineBMR": ("rb.OnlineBMR(seed=42)", "yeast"),
    "SGBTClassifier": ("rb.SGBTClassifier(seed=42)", "sea"),
    "SGBTClassifier multiclass": ("rb.SGBTClassifier(seed=42)", "rbf"),
    "SGBTRegressor": ("rb.SGBTRegressor(seed=42)", "friedman"),
    "OnlineGradientBoostRegressor": ("rb.OnlineGradientBoostRegressor()", "friedman"),
    "River ARFClassifier": ("forest.ARFClassifier(seed=42)", "sea"),
    "River HoeffdingTreeClassifier": ("tree.HoeffdingTreeClassifier()", "sea"),
    "River ARFRegressor": ("forest.ARFRegressor(seed=42)", "friedman"),
}
FIELDS = ("construct", "clone", "fresh", "trained", "dump", "load")
UNITS = {"construct": "ms", "clone": "ms", "fresh": "B", "trained": "B", "dump": "ms", "load": "ms"}


def stream(name: str, n: int) -> list:
    from river import datasets
    from river.datasets import synth

    if name == "sea":
        return list(synth.SEA(seed=42).take(n))
    if name == "rbf":
        return list(synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5).take(n))
    if name == "yeast":
        return list(itertools.islice(datasets.Yeast(), min(n, 1500)))
    return list(synth.Friedman(seed=42).take(n))


def fastest(f, repeats: int) -> float:
    """The fastest of ``repeats`` calls of ``f``, in milliseconds (garbage collector on)."""
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def measure(name: str, n: int, repeats: int) -> dict:
    """One row, in this interpreter."""
    from river import forest, tree

    import river_boost as rb

    expr, kind = ROWS[name]
    names = {"rb": rb, "forest": forest, "tree": tree}

    def make():
        return eval(expr, names)

    make()  # (first-call costs: imports, caches)
    out = {"construct": fastest(make, max(repeats, 20))}
    model = make()
    out["fresh"] = len(pickle.dumps(model, protocol=5))
    for x, y in stream(kind, n):
        model.learn_one(x, y)
    out["clone"] = fastest(model.clone, max(repeats, 20))
    data = pickle.dumps(model, protocol=5)
    out["trained"] = len(data)
    out["dump"] = fastest(lambda: pickle.dumps(model, protocol=5), repeats)
    out["load"] = fastest(lambda: pickle.loads(data), repeats)
    return out


def worker(args) -> None:
    print(json.dumps(measure(args.row, args.n, args.repeats)))


def run(python: str, row: str, args) -> dict:
    cmd = [python, __file__, "--worker", "--row", row, "--n", str(args.n)]
    cmd += ["--repeats", str(args.repeats)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="examples learned (default 10,000)")
    ap.add_argument("--repeats", type=int, default=5, help="calls per time (the fastest)")
    ap.add_argument("--against", metavar="PYTHON", help="an interpreter with another build")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per row with --against")
    ap.add_argument("--rows", default="", help="comma-separated rows (default: all)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--row", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    rows = [r for r in args.rows.split(",") if r] or list(ROWS)
    head = " | ".join(f"{f} ({UNITS[f]})" for f in FIELDS)
    if not args.against:
        print(f"| estimator | {head} |\n|{' --- |' * (len(FIELDS) + 1)}")
        for row in rows:
            r = run(sys.executable, row, args)
            print(f"| {row} | " + " | ".join(_fmt(f, r[f]) for f in FIELDS) + " |", flush=True)
        return
    print(f"| estimator | {head} |\n|{' --- |' * (len(FIELDS) + 1)}")
    for row in rows:
        best = {"this": {}, "other": {}}
        for k in range(args.rounds):
            order = [("this", sys.executable), ("other", args.against)]
            if k % 2:
                order.reverse()
            for who, python in order:
                r = run(python, row, args)
                for f in FIELDS:
                    best[who][f] = min(best[who].get(f, math.inf), r[f])
        cells = []
        for f in FIELDS:
            this, other = best["this"][f], best["other"][f]
            cells.append(f"{_fmt(f, this)} (×{other / this:.1f})" if this else _fmt(f, this))
        print(f"| {row} | " + " | ".join(cells) + " |", flush=True)


def _fmt(field: str, value: float) -> str:
    return f"{value:,.0f}" if UNITS[field] == "B" else f"{value:.3f}"


if __name__ == "__main__":
    main()
