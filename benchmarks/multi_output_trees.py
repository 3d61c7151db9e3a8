"""One multi-output tree per boosting step against K trees per step, for SGBTClassifier's softmax.

Both variants run the plain-Python oracles (``tests/oracles/multi_sgbt.py``) with the same
observer, River's quantization observer (``HoeffdingTreeRegressor(splitter=QOSplitter(),
leaf_prediction="mean", grace_period=50)``: the oracle tree at one output is that tree, and the
K-trees walk is ``SGBTClassifier(model=<that tree>)``, both checked in
``tests/forest/test_multi_tree_oracle.py``), the same steps, rate, feature fraction (per tree,
or per step for one tree) and detector (SGBTClassifier's defaults: 25 steps, 0.2, 0.75, ADWIN).
The features pass River's ``StandardScaler`` first (the observer's radius is in standard
deviations). Progressive validation (predict, then learn), accuracy in percent, and the work
each variant does per example (the oracle trees' counts: node visits, observer bins updated,
per-output target statistics updated, per-output merit terms of the split attempts).

    python benchmarks/multi_output_trees.py --letter PATH/letter-recognition.data \
        --mice PATH/Data_Cortex_Nuclear.derived.csv --rows 2000 --seeds 1 2 --out results.jsonl

``--variants`` picks among ``K`` (K trees per step), ``one`` (one tree per step, summed variance
reduction) and ``one-newton`` (one tree per step, summed Newton gain); ``--tau`` sets the trees'
tie threshold (River's 0.05 by default; several values run each), ``--steps`` the number of
steps (25); ``--table results.jsonl`` prints the table of a results file (appended to by each
run). The oracles are slow (pure Python, K = 26 on letter): size ``--rows`` to minutes.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import random
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from river import datasets, drift, preprocessing

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.oracles.gradient import SGBTOracle  # noqa: E402
from tests.oracles.multi_sgbt import MultiSGBTOracle, QOTree  # noqa: E402

STEPS, RATE, FRACTION, GRACE = 25, 0.2, 0.75, 50


def letter(path, rows, seed):
    with open(path) as f:
        data = [(dict(enumerate(map(float, r[1:]))), r[0]) for r in csv.reader(f) if r]
    return data[:rows]


def mice(path, rows, seed):
    with open(path) as f:
        reader = csv.DictReader(f)
        skip = {"MouseID", "Genotype", "Treatment", "Behavior", "class"}
        data = [
            (
                {k: float(v) for k, v in r.items() if k not in skip and v not in ("", "NA")},
                r["class"],
            )
            for r in reader
        ]
    random.Random(seed).shuffle(data)  # (the file is sorted by class)
    return data[:rows]


def stream(name, rows, seed, paths):
    if name == "letter":
        return letter(paths["letter"], rows, seed)
    if name == "mice":
        return mice(paths["mice"], rows, seed)
    if name == "imagesegments":
        data = list(datasets.ImageSegments())
        random.Random(seed).shuffle(data)
        return data[:rows]
    gen = {
        "rbf": lambda: datasets.synth.RandomRBF(
            seed_model=seed, seed_sample=seed, n_classes=5, n_features=10
        ),
        "led": lambda: datasets.synth.LED(seed=seed, noise_percentage=0.1),
        "waveform": lambda: datasets.synth.Waveform(seed=seed),
    }[name]()
    return list(gen.take(rows))


def model(variant, seed, tau, steps=STEPS):
    common = dict(feature_fraction=FRACTION, drift_detector=drift.ADWIN(), seed=seed)
    if variant == "K":
        tree = QOTree(grace_period=GRACE, tau=tau)
        return SGBTOracle(tree, steps, RATE, outputs="softmax", **common)
    criterion = "newton" if variant == "one-newton" else "variance"
    return MultiSGBTOracle(steps, RATE, grace_period=GRACE, tau=tau, criterion=criterion, **common)


def run(task):
    name, seed, variant, tau, steps, rows, paths = task
    data = stream(name, rows, seed, paths)
    scaler, m = preprocessing.StandardScaler(), model(variant, seed, tau, steps)
    correct, start = 0, time.process_time()
    for i, (x, y) in enumerate(data):
        if i:
            p = m.predict_one(scaler.transform_one(x))
            correct += max(p, key=p.get) == y
        scaler.learn_one(x)
        m.learn(scaler.transform_one(x), y)
    trees = [t if hasattr(t, "counts") else t.tree for t in m.learners]
    counts = sum((t.counts for t in trees), Counter())
    n = len(data)
    return dict(
        stream=name,
        seed=seed,
        variant=variant,
        tau=tau,
        steps=steps,
        rows=n,
        classes=m.K,
        accuracy=100 * correct / (n - 1),
        seconds=time.process_time() - start,
        per_example={k: v / n for k, v in counts.items()},
        branches=sum(len(t.splits()) for t in trees),
        replacements=sum(m.replacements),
    )


def tau_of(r):
    return r.get("tau", 0.05)


def table(path):
    rows = [json.loads(line) for line in open(path)]
    by = {(r["stream"], r["seed"], tau_of(r), r["variant"]): r for r in rows}
    variants = sorted({r["variant"] for r in rows}, key=["K", "one", "one-newton"].index)
    keys = ["node_visits", "bin_updates", "target_updates", "merit_terms"]
    print(
        "| stream | seed | tau | K | "
        + " | ".join(f"{v} acc" for v in variants)
        + " | "
        + " | ".join(
            f"{v} {k}/ex" for v in variants for k in ("visits", "bins", "targets", "merits")
        )
        + " | branches | time ratio K/one |"
    )
    print("|" + " --- |" * (4 + len(variants) * 5 + 1))
    for s, seed, tau in sorted({(r["stream"], r["seed"], tau_of(r)) for r in rows}):
        got = [by.get((s, seed, tau, v)) for v in variants]
        if None in got:
            continue
        acc = " | ".join(f"{r['accuracy']:.2f}" for r in got)
        work = " | ".join(f"{r['per_example'].get(k, 0):.0f}" for r in got for k in keys)
        branches = "/".join(str(r["branches"]) for r in got)
        ratio = got[0]["seconds"] / got[1]["seconds"] if len(got) > 1 else math.nan
        print(
            f"| {s} | {seed} | {tau} | {got[0]['classes']} | {acc} | {work} | {branches} "
            f"| {ratio:.1f} |"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--streams",
        nargs="+",
        default=["imagesegments", "rbf", "led", "waveform", "letter", "mice"],
    )
    ap.add_argument("--variants", nargs="+", default=["K", "one", "one-newton"])
    ap.add_argument("--letter")
    ap.add_argument("--mice")
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--tau", type=float, nargs="+", default=[0.05])
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="multi_output_trees.jsonl")
    ap.add_argument("--table")
    args = ap.parse_args()
    if args.table:
        return table(args.table)
    paths = {"letter": args.letter, "mice": args.mice}
    streams = [s for s in args.streams if s not in paths or paths[s]]
    tasks = [
        (s, seed, v, tau, args.steps, args.rows, paths)
        for s, seed, tau, v in itertools.product(streams, args.seeds, args.tau, args.variants)
    ]
    with Pool(args.jobs) as pool, open(args.out, "a") as out:
        for r in pool.imap_unordered(run, tasks):
            out.write(json.dumps(r) + "\n")
            out.flush()
            print(
                r["stream"],
                r["seed"],
                r["variant"],
                tau_of(r),
                f"{r['accuracy']:.2f}",
                f"{r['seconds']:.0f}s",
                flush=True,
            )
    table(args.out)


if __name__ == "__main__":
    main()
