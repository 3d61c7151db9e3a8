"""The compiled QOSplitter (River's quantization observer) against the default E-BST observer.

Two parts, each side by side in one process:

``--part forest``: ten regression trees in one
:class:`~river_boost.forest.HoeffdingRegressionForest` (parameters diversified per tree as in
``benchmarks/forest_speed.py``; adaptive leaves), each example loaded once, predicted and
learned by every tree with a booster-like weight, on Friedman, raw (features in [0, 1]) and
standardized (unit variance: the scale QO's radius is meant for). Splitters:
``TEBSTSplitter(digits=1)`` (River's default) against ``QOSplitter(radius)`` and
``MidpointQOSplitter(radius)``. Reported: the fastest of ``--rounds`` alternated rounds of
each, and the throughput ratio to TEBST's.

``--part sgbt``: the ``--configs`` among ``arf`` (River's ``ARFClassifier()``), ``default``
(today's ``SGBTClassifier()``), ``qo`` and ``mid`` (``SGBTClassifier`` with
``model=BoundedHoeffdingTreeRegressor(grace_period=50, leaf_prediction="mean",
splitter=QOSplitter(radius))``, or ``MidpointQOSplitter``, for each ``--radii``), ``sqo`` and
``smid`` (the same behind River's ``preprocessing.StandardScaler()``, the scale QO's radius
assumes), on multiclass streams: ImageSegments, RandomRBF (5 classes, 10 features), LED,
Waveform (``--n`` rows each) and, given ``--letter PATH`` (UCI letter-recognition.data: the
class first, 16 integer features), letter. Progressive validation accuracy (predict, then
learn), the model seeds ``--seeds`` (SGBT's seed draws the feature subsets; ARF runs with the
first seed), and each model's throughput as a multiple of ARF's on the same stream in the
same run (ARF's seconds / the model's seconds).

    python benchmarks/qo_observer.py --part forest --n 5000 --rounds 5 --radii 0.25,0.1,0.5
    python benchmarks/qo_observer.py --part sgbt --n 10000 --seeds 42,43 --letter letter.data \\
        --configs arf,default,qo --radii 0.25,0.1,0.5
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time

from river import datasets, forest, preprocessing, tree
from river.datasets import synth
from river.tree.splitter import QOSplitter, TEBSTSplitter

import river_boost as rb
from river_boost.forest import (
    BoundedHoeffdingTreeRegressor,
    HoeffdingRegressionForest,
    MidpointQOSplitter,
)

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from forest_speed import tree_params  # noqa: E402

# ----------------------------------------------------------------------------- the forest


def friedman(n: int, scaled: bool) -> list:
    data = list(synth.Friedman(seed=42).take(n))
    if scaled:  # uniform on [0, 1]: mean 0.5, standard deviation 1 / sqrt(12)
        s = math.sqrt(12.0)
        data = [({k: (v - 0.5) * s for k, v in x.items()}, y) for x, y in data]
    return data


def forest_round(splitter, data, weights, params) -> tuple[float, int]:
    models = [tree.HoeffdingTreeRegressor(splitter=splitter.clone(), **p) for p in params]
    f = HoeffdingRegressionForest(models)
    start = time.perf_counter()
    for (x, y), ws in zip(data, weights):
        f.load(x)
        for i in range(f.n_models):
            f.predict_loaded(i)
        for i in range(f.n_models):
            f.learn_loaded(i, y, ws[i])
    return time.perf_counter() - start, sum(f.summary(i)["n_nodes"] for i in range(f.n_models))


def part_forest(args) -> None:
    params = tree_params(args.trees, 7)
    rng = random.Random(3)
    weights = [[math.exp(rng.gauss(0.0, 0.5)) for _ in params] for _ in range(args.n)]
    print(f"{args.trees} trees: Friedman, {args.n} examples, fastest of {args.rounds} rounds")
    print(f"{'features':<13}{'splitter':<32}{'ex/s':>9}{'vs TEBST':>10}  nodes")
    for scaled in (False, True):
        data = friedman(args.n, scaled)
        splitters = [("TEBSTSplitter(digits=1)", TEBSTSplitter(digits=1))] + [
            (f"{qo.__name__}(radius={r})", qo(radius=r))
            for r in args.radii
            for qo in (QOSplitter, MidpointQOSplitter)
        ]
        best = {name: math.inf for name, _ in splitters}
        nodes = {}
        for _ in range(args.rounds):
            for name, sp in splitters:
                secs, nodes[name] = forest_round(sp, data, weights, params)
                best[name] = min(best[name], secs)
        base = best[splitters[0][0]]
        for name, _ in splitters:
            print(
                f"{'standardized' if scaled else 'raw [0, 1]':<13}{name:<32}"
                f"{args.n / best[name]:>9.0f}{base / best[name]:>9.2f}x  {nodes[name]}"
            )


# ----------------------------------------------------------------------------- SGBT, multiclass


def letter(path: str):
    with open(path) as fh:
        for line in fh:
            if not line.strip():
                continue
            cls, *feats = line.strip().split(",")
            yield {f"f{k}": float(v) for k, v in enumerate(feats)}, cls


def streams(args) -> dict:
    out = {
        "imagesegments": lambda: datasets.ImageSegments(),
        "rbf5": lambda: synth.RandomRBF(
            seed_model=1, seed_sample=1, n_classes=5, n_features=10
        ).take(args.n),
        "led": lambda: synth.LED(seed=1, noise_percentage=0.1).take(args.n),
        "waveform": lambda: synth.Waveform(seed=1).take(args.n),
    }
    if args.letter:
        out["letter"] = lambda: letter(args.letter)
    if args.streams:
        out = {k: v for k, v in out.items() if k in args.streams}
    return out


def models(args, seed: int, with_arf: bool) -> dict:
    out = {}
    if with_arf:
        out["ARFClassifier()"] = forest.ARFClassifier(seed=seed)
    if "default" in args.configs:
        out["SGBTClassifier()"] = rb.SGBTClassifier(seed=seed)
    for name, qo in (("qo", QOSplitter), ("mid", MidpointQOSplitter)):
        for scaled in (False, True):
            if ("s" if scaled else "") + name not in args.configs:
                continue
            for r in args.radii:
                weak = BoundedHoeffdingTreeRegressor(
                    grace_period=50, leaf_prediction="mean", splitter=qo(radius=r)
                )
                model = rb.SGBTClassifier(model=weak, seed=seed)
                if scaled:
                    model = preprocessing.StandardScaler() | model
                out[f"{'scaled ' if scaled else ''}{name} r={r}"] = model
    return out


def prequential(model, stream) -> tuple[float, float, int]:
    hits = n = 0
    start = time.perf_counter()
    for x, y in stream:
        hits += model.predict_one(x) == y
        model.learn_one(x, y)
        n += 1
    return hits / n, time.perf_counter() - start, n


def part_sgbt(args) -> None:
    rows = []
    for name, make in streams(args).items():
        arf_secs = None
        for k, seed in enumerate(args.seeds):
            for label, model in models(args, seed, k == 0 and "arf" in args.configs).items():
                acc, secs, n = prequential(model, make())
                if label.startswith("ARF"):
                    arf_secs = secs
                row = {"stream": name, "model": label, "seed": seed, "accuracy": acc}
                row.update(seconds=secs, n=n, vs_arf=arf_secs / secs if arf_secs else None)
                rows.append(row)
                print(json.dumps(row), flush=True)
                if args.out:
                    with open(args.out, "a") as fh:
                        fh.write(json.dumps(row) + "\n")
    report(rows)


def report(rows: list) -> None:
    labels = list(dict.fromkeys(r["model"] for r in rows))
    names = list(dict.fromkeys(r["stream"] for r in rows))
    print("\naccuracy % (mean over seeds) / throughput as a multiple of ARF's")
    print(f"{'model':<20}" + "".join(f"{s:>18}" for s in names) + f"{'mean acc':>10}")
    for label in labels:
        cells, accs = [], []
        for s in names:
            sel = [r for r in rows if r["stream"] == s and r["model"] == label]
            acc = 100 * sum(r["accuracy"] for r in sel) / len(sel)
            ratio = sum(r["vs_arf"] or math.nan for r in sel) / len(sel)
            accs.append(acc)
            cells.append(f"{acc:>10.2f} /{ratio:>5.1f}x")
        print(f"{label:<20}" + "".join(cells) + f"{sum(accs) / len(accs):>10.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["forest", "sgbt"], required=True)
    ap.add_argument("--n", type=int, default=10000, help="examples per stream")
    ap.add_argument("--trees", type=int, default=10, help="forest part: trees")
    ap.add_argument("--rounds", type=int, default=5, help="forest part: alternated rounds")
    ap.add_argument("--radii", type=lambda s: [float(r) for r in s.split(",")], default=[0.25])
    ap.add_argument("--seeds", type=lambda s: [int(v) for v in s.split(",")], default=[42, 43])
    ap.add_argument("--configs", type=lambda s: s.split(","), default=["arf", "default", "qo"])
    ap.add_argument("--streams", type=lambda s: s.split(","), help="a subset of the streams")
    ap.add_argument("--letter", help="sgbt part: path of letter-recognition.data")
    ap.add_argument("--out", help="sgbt part: append each run as a JSON line")
    args = ap.parse_args(argv)
    (part_forest if args.part == "forest" else part_sgbt)(args)


if __name__ == "__main__":
    main()
