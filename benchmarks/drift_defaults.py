"""Drift adaptation's defaults: each booster with several settings against itself without.

Every booster of the drift suite (the binary ones on the five binary streams, AdaBoost.OLM and
OnlineMBBM on the four multiclass ones; 10 learners, γ = 0.1 where a booster takes one, the
bench's streams at their full 50,000 examples, prequential accuracy) runs once without drift
adaptation and once per *variant*: keyword arguments of the booster, written
``name:key=value;key=value`` (values are Python expressions; ``drift`` is ``river.drift``).
The summary is each variant's gain in points over the booster without adaptation, the mean
over the seeds, and how many booster x stream pairs it loses.

    python benchmarks/drift_defaults.py --out sweep.jsonl --seeds 42,43,44 \\
        'm2000:drift_detector=drift.ADWIN();memory=2000' \\
        'm10000:drift_detector=drift.ADWIN();memory=10000'

Runs are appended to ``--out`` (JSON lines) and skipped when already there, so a sweep can be
extended with more variants or seeds; ``--summary`` only prints the table of a file.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import statistics
import time
from multiprocessing import Pool

BINARY = ["OnlineBBM", "AdaBoostOL", "OSBoost", "NHBoostDT", "SquintBoost"]
MULTICLASS = ["AdaBoostOLM", "OnlineMBBM"]
TAKE_GAMMA = {"OnlineBBM", "OSBoost", "OnlineMBBM"}  # the suite runs them at γ = 0.1
BASE = "none"


def parse_variant(spec: str) -> tuple[str, str]:
    """``name:key=value;...`` -> (name, the keyword arguments' text)."""
    name, _, kwargs = spec.partition(":")
    if not name or name == BASE:
        raise argparse.ArgumentTypeError(f"a variant needs a name other than {BASE!r}: {spec!r}")
    return name, kwargs


def parse_kwargs(text: str) -> dict:
    """The keyword arguments of a variant (values are Python expressions; ``drift`` is
    ``river.drift``)."""
    from river import drift

    out = {}
    for item in filter(None, text.split(";")):
        key, _, value = item.partition("=")
        out[key.strip()] = eval(value, {"drift": drift})  # noqa: S307 (the user's own command)
    return out


def run(job) -> dict:
    """One booster on one stream: prequential accuracy, replacements, CPU seconds."""
    booster, stream, variant, kwargs, seed = job
    from river import metrics

    import river_boost
    from river_boost import bench

    params = parse_kwargs(kwargs)
    if booster in TAKE_GAMMA:
        params["gamma"] = 0.1
    factory, length = bench.DRIFT_STREAMS[stream][:2]
    model = getattr(river_boost, booster)(n_models=10, seed=seed, **params)
    accuracy = metrics.Accuracy()
    start = time.process_time()
    for x, y in itertools.islice(factory(), length):
        accuracy.update(y, model.predict_one(x))
        model.learn_one(x, y)
    replacements = getattr(model, "replacements", None) or []
    return {
        "booster": booster,
        "stream": stream,
        "variant": variant,
        "seed": seed,
        "accuracy": 100 * accuracy.get(),
        "replacements": sum(replacements),
        "seconds": time.process_time() - start,
    }


def summary(rows: list) -> str:
    """Markdown: per pair, the mean accuracy without adaptation and each variant's mean gain
    (mean replacements per run); then per variant the mean gain and the pairs it loses."""
    acc = collections.defaultdict(dict)
    rep = collections.defaultdict(dict)
    for r in rows:
        key = (r["booster"], r["stream"], r["variant"])
        acc[key][r["seed"]] = r["accuracy"]
        rep[key][r["seed"]] = r["replacements"]
    variants = sorted({r["variant"] for r in rows} - {BASE})
    pairs = sorted({(r["booster"], r["stream"]) for r in rows})
    lines = [
        "| booster | stream | without | " + " | ".join(variants) + " |",
        "| --- | --- | --- | " + " | ".join("---" for _ in variants) + " |",
    ]
    gains = collections.defaultdict(list)
    for booster, stream in pairs:
        base = acc.get((booster, stream, BASE))
        if not base:
            continue
        cells = []
        for v in variants:
            got = acc.get((booster, stream, v), {})
            seeds = sorted(set(got) & set(base))
            if not seeds:
                cells.append("-")
                continue
            gain = statistics.mean(got[s] - base[s] for s in seeds)
            gains[v].append(gain)
            replaced = statistics.mean(rep[(booster, stream, v)][s] for s in seeds)
            cells.append(f"{gain:+.2f} ({replaced:.0f}; {len(seeds)} seeds)")
        lines.append(
            f"| {booster} | {stream} | {statistics.mean(base.values()):.2f} | "
            + " | ".join(cells)
            + " |"
        )
    lines.append("")
    for v in variants:
        if gains[v]:
            lost = sum(g <= 0 for g in gains[v])
            lines.append(
                f"- {v}: mean gain {statistics.mean(gains[v]):+.2f}, smallest "
                f"{min(gains[v]):+.2f}, no gain on {lost} of {len(gains[v])} pairs"
            )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variants", nargs="*", type=parse_variant, help="name:key=value;...")
    parser.add_argument("--out", required=True, help="JSON lines file (appended to)")
    parser.add_argument("--seeds", default="42", help="model seeds (default: 42)")
    parser.add_argument("--boosters", default=",".join(BINARY + MULTICLASS))
    parser.add_argument("--streams", default=None, help="default: the nine drift streams")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default: 2)")
    parser.add_argument("--summary", action="store_true", help="only print --out's table")
    args = parser.parse_args(argv)

    from river_boost import bench

    if not args.summary:
        streams = args.streams.split(",") if args.streams else list(bench.DRIFT_STREAMS)
        done = set()
        if os.path.exists(args.out):
            with open(args.out) as f:
                for line in f:
                    r = json.loads(line)
                    done.add((r["booster"], r["stream"], r["variant"], r["seed"]))
        jobs = [
            (booster, stream, name, kwargs, seed)
            for name, kwargs in [(BASE, ""), *args.variants]
            for booster in args.boosters.split(",")
            for stream in streams
            if (booster in MULTICLASS) == (bench.DRIFT_STREAMS[stream][2] == "multiclass")
            for seed in map(int, args.seeds.split(","))
            if (booster, stream, name, seed) not in done
        ]
        print(f"{len(jobs)} runs", flush=True)
        with Pool(args.jobs, maxtasksperchild=1) as pool, open(args.out, "a") as f:
            for r in pool.imap_unordered(run, jobs):
                f.write(json.dumps(r) + "\n")
                f.flush()
                print(
                    f"{r['booster']} {r['stream']} {r['variant']} seed {r['seed']}: "
                    f"{r['accuracy']:.2f}",
                    flush=True,
                )
    with open(args.out) as f:
        print(summary([json.loads(line) for line in f]))


if __name__ == "__main__":
    main()
