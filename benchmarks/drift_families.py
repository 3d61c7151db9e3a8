"""Drift adaptation on held-out families of streams: tune on some, report on others.

The drift suite (``river_boost.bench.DRIFT_STREAMS``) is nine fixed streams; defaults tuned on
them may not carry over. Here streams are *drawn*: River's generators with their functions,
variants, noise, positions and widths of the changes drawn from a ``random.Random`` seeded by
the stream's split and index, so a stream is a pure function of ``(split, index)``. The
``tune`` split (seeds 1000 + i) is for choosing defaults, the ``report`` split (seeds
2000 + i) for reporting them.

In each split even indices are binary streams (Agrawal, SEA, Sine, STAGGER, Mixed,
Hyperplane), odd ones multiclass (LED, RandomRBF, Waveform); indices 1 and 2 modulo 8 (a
quarter of them) are stationary, one concept from start to end, where adaptation must not
lose either (their generator drawn at random). The drifting streams of a task take its
generators in turn, in an order shuffled per split; they change concept 1 to 3 times
(River's ``ConceptDriftStream`` nested; at least 2,000 examples in and before the end, at
least 1,000 apart, widths log-uniform in 1..5,000, capped at the distance from the previous
change and raised to where River's sigmoid does not overflow) or drift all along
(Hyperplane's rotation, RandomRBFDrift's moving centroids). Lengths are 15,000 to 30,000.

Each booster (``--boosters``: binary ones on the binary streams, AdaBoost.OLM and OnlineMBBM
on the multiclass ones; each with its own default number of learners unless ``--n-models``)
runs once without drift adaptation and once per *variant*: keyword arguments of the booster,
written ``name:key=value;key=value`` (values are Python expressions; ``drift`` is
``river.drift``). ``--arf`` adds River's ARF with its defaults as a reference (slow, about
1,000 examples a second). Prequential accuracy (predict, then learn), replacements, CPU
seconds.

    python benchmarks/drift_families.py --list
    python benchmarks/drift_families.py --out families.jsonl --seeds 42,43,44 \\
        'adwin:drift_detector=drift.ADWIN()'
    python benchmarks/drift_families.py --out families.jsonl --seeds 42,43,44 \\
        --splits report --arf 'adwin:drift_detector=drift.ADWIN()'

Runs are appended to ``--out`` (JSON lines, each with its stream's spec) and skipped when
already there, so a sweep can be extended with more variants, seeds, streams or ARF;
``--summary`` only prints the tables of a file: per split, per stream the accuracy without
adaptation, each variant's mean gain over the seeds (replacements) and ARF's accuracy; per
variant the mean and worst gain, the streams where it loses more than 0.3 points and the
streams where it is ahead of ARF.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import math
import os
import random
import statistics
import time
from multiprocessing import Pool

from drift_defaults import BASE, parse_kwargs, parse_variant  # (this folder; variants alike)

MULTICLASS = {"AdaBoostOLM", "OnlineMBBM"}
ARF = "River.ARF"
SPLITS = {"tune": 1000, "report": 2000}  # a stream's random.Random seed is this + its index
LOSS = 0.3  # points: a variant "loses" a stream when its mean gain is below -LOSS

# generator -> how many concepts it has (functions, variants; None: drawn seeds)
BINARY_CONCEPTS = {"agrawal": 10, "sea": 4, "sine": 4, "stagger": 3, "mixed": 2}
MULTICLASS_CONCEPTS = {"led": 8, "rbf": None}
CONTINUOUS = {"binary": "hyperplane", "multiclass": "rbfdrift"}  # drift all along
MIN_START, MIN_GAP, MIN_TAIL = 2_000, 1_000, 2_000
MAX_WIDTH = 5_000
# River's ConceptDriftStream computes exp(4 (position - t) / width) from t = 1: it overflows
# when 4 × position / width exceeds about 709.8
EXP_LIMIT = 700


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def _positions(rng: random.Random, k: int, length: int) -> list[int]:
    """``k`` change points in ``[MIN_START, length - MIN_TAIL]``, ``MIN_GAP`` apart."""
    while True:
        points = sorted(rng.randint(MIN_START, length - MIN_TAIL) for _ in range(k))
        if all(b - a >= MIN_GAP for a, b in zip(points, points[1:])):
            return points


def _widths(rng: random.Random, positions: list[int]) -> list[int]:
    """Log-uniform widths, capped at the distance from the previous change (so each concept is
    nearly pure where its stretch begins: the sigmoid is 1.8% there) and raised to where
    River's sigmoid does not overflow (each nested stream counts its own examples, so the
    position it sees is that distance)."""
    widths = []
    for before, at in zip([0, *positions], positions):
        gap = at - before
        width = min(round(_log_uniform(rng, 1, MAX_WIDTH)), gap)
        widths.append(max(width, math.ceil(4 * gap / EXP_LIMIT)))
    return widths


def _drifting(index: int) -> bool:
    return index % 8 not in (1, 2)  # a quarter stationary, binary and multiclass alike


def make_spec(split: str, index: int) -> dict:
    """The stream ``index`` of ``split``: a small printable dict that :func:`build` turns into
    a River stream."""
    rng = random.Random(SPLITS[split] + index)
    task = "binary" if index % 2 == 0 else "multiclass"
    stationary = not _drifting(index)
    spec = {
        "split": split,
        "index": index,
        "task": task,
        "length": rng.randint(15_000, 30_000),
        "seed": rng.randrange(1_000_000),
    }
    concepts = BINARY_CONCEPTS if task == "binary" else MULTICLASS_CONCEPTS
    if stationary:
        # RandomRBFDrift without speed is RandomRBF; Waveform's seed only changes the sample,
        # so it is stationary only
        families = [*concepts, "hyperplane"] if task == "binary" else [*concepts, "waveform"]
        family = rng.choice(families)
    else:  # the drifting streams of a task take the generators in turn, in a shuffled order
        families = [*concepts, CONTINUOUS[task]]
        random.Random(f"{split}-{task}").shuffle(families)
        turn = sum(_drifting(i) and i % 2 == index % 2 for i in range(index))
        family = families[turn % len(families)]
    spec["generator"] = family

    params = {}
    if family == "agrawal":
        params = {"perturbation": round(rng.uniform(0, 0.1), 3)}
    elif family == "sea":
        params = {"noise": round(rng.uniform(0, 0.2), 3)}
    elif family == "sine":
        params = {"has_noise": rng.random() < 0.5}
    elif family in ("stagger", "mixed"):
        params = {"balance_classes": rng.random() < 0.5}
    elif family == "hyperplane":
        n_features = rng.randint(5, 20)
        params = {
            "n_features": n_features,
            "n_drift_features": rng.randint(1, n_features),
            "mag_change": 0.0 if stationary else float(f"{_log_uniform(rng, 1e-4, 1e-2):.2g}"),
            "noise_percentage": round(rng.uniform(0, 0.1), 3),
        }
    elif family == "led":
        # LEDDrift swaps relevant attributes with irrelevant ones: without them it never drifts
        params = {
            "noise_percentage": round(rng.uniform(0, 0.2), 3),
            "irrelevant_features": True if not stationary else rng.random() < 0.5,
        }
    elif family in ("rbf", "rbfdrift"):
        n_centroids = rng.randint(10, 100)
        params = {
            "n_classes": rng.randint(3, 8),
            "n_features": rng.randint(5, 20),
            "n_centroids": n_centroids,
        }
        if family == "rbfdrift":
            speed = 0.0 if stationary else float(f"{_log_uniform(rng, 3e-5, 3e-3):.2g}")
            params["change_speed"] = speed
            params["n_drift_centroids"] = rng.randint(1, n_centroids)
    elif family == "waveform":
        params = {"has_noise": rng.random() < 0.5}
    spec["params"] = params

    if family in concepts:
        n = concepts[family]
        k = 0 if stationary else rng.randint(1, min(3, n - 1) if n else 3)
        if family == "rbf":  # a concept is a draw of centroids
            spec["concepts"] = [rng.randrange(1_000_000) for _ in range(k + 1)]
        else:  # functions, variants, numbers of swapped LED attributes
            spec["concepts"] = rng.sample(range(n), k + 1)
        spec["positions"] = _positions(rng, k, spec["length"])
        spec["widths"] = _widths(rng, spec["positions"])
        spec["drift"] = f"{k} change{'s' * (k > 1)}" if k else "stationary"
    else:
        spec["drift"] = "stationary" if stationary else "continuous"
    return spec


def specs(splits, n_streams: int) -> list[dict]:
    return [make_spec(split, i) for split in splits for i in range(n_streams)]


def short_name(spec: dict) -> str:
    return f"{spec['split'][0]}{spec['index']:02d}-{spec['generator']}"


def _concept(spec: dict, j: int):
    from river.datasets import synth

    family, params, seed = spec["generator"], spec["params"], spec["seed"] + j
    c = spec["concepts"][j]
    if family == "agrawal":
        return synth.Agrawal(classification_function=c, seed=seed, **params)
    if family == "sea":
        return synth.SEA(variant=c, seed=seed, **params)
    if family == "sine":
        return synth.Sine(classification_function=c, seed=seed, **params)
    if family == "stagger":
        return synth.STAGGER(classification_function=c, seed=seed, **params)
    if family == "mixed":
        return synth.Mixed(classification_function=c, seed=seed, **params)
    if family == "led":
        return synth.LEDDrift(seed=seed, n_drift_features=c, **params)
    if family == "rbf":
        return synth.RandomRBF(seed_model=c, seed_sample=seed, **params)
    raise ValueError(f"{family!r} has no concepts")


def build(spec: dict):
    """The River stream of a spec (infinite; take ``spec["length"]`` examples)."""
    from river.datasets import synth

    family, params, seed = spec["generator"], spec["params"], spec["seed"]
    if family == "hyperplane":
        return synth.Hyperplane(seed=seed, **params)
    if family == "rbfdrift":
        return synth.RandomRBFDrift(seed_model=seed, seed_sample=seed + 1, **params)
    if family == "waveform":
        return synth.Waveform(seed=seed, **params)
    concepts = [_concept(spec, j) for j in range(len(spec["concepts"]))]
    # nested: concept j + 1 takes over position[j] - position[j - 1] examples after the
    # stream holding it starts (each nested stream counts its own examples)
    stream = concepts[-1]
    gaps = [b - a for a, b in zip([0, *spec["positions"]], spec["positions"])]
    for j in range(len(concepts) - 2, -1, -1):
        stream = synth.ConceptDriftStream(
            concepts[j],
            stream,
            position=gaps[j],
            width=spec["widths"][j],
            seed=seed + 100 + j,
        )
    return stream


def run(job) -> dict:
    """One model on one stream: prequential accuracy, replacements, CPU seconds."""
    booster, spec, variant, kwargs, seed, n_models = job
    from river import forest, metrics

    import river_boost

    if booster == ARF:
        model = forest.ARFClassifier(seed=seed)
    else:
        params = parse_kwargs(kwargs)
        if n_models is not None:
            params["n_models"] = n_models
        model = getattr(river_boost, booster)(seed=seed, **params)
    accuracy = metrics.Accuracy()
    start = time.process_time()
    for x, y in itertools.islice(build(spec), spec["length"]):
        accuracy.update(y, model.predict_one(x))
        model.learn_one(x, y)
    replacements = getattr(model, "replacements", None) or []
    return {
        "booster": booster,
        "stream": short_name(spec),
        "spec": spec,
        "variant": variant,
        "kwargs": kwargs,
        "seed": seed,
        "n_models": n_models,
        "accuracy": 100 * accuracy.get(),
        "replacements": sum(replacements) if booster != ARF else None,
        "seconds": time.process_time() - start,
    }


def _key(r: dict) -> tuple:
    return (r["booster"], json.dumps(r["spec"], sort_keys=True), r["n_models"])


def summary(rows: list) -> str:
    """Markdown, one part per split: per booster x stream the mean accuracy without adaptation,
    each variant's mean gain (mean replacements per run), ARF's mean accuracy; then per variant
    the mean and worst gain, the streams it loses more than ``LOSS`` points on, and the streams
    where it is ahead of ARF (over the seeds both ran)."""
    acc = collections.defaultdict(dict)
    rep = collections.defaultdict(dict)
    arf = collections.defaultdict(dict)
    for r in rows:
        if r["booster"] == ARF:
            arf[json.dumps(r["spec"], sort_keys=True)][r["seed"]] = r["accuracy"]
            continue
        acc[(*_key(r), r["variant"])][r["seed"]] = r["accuracy"]
        rep[(*_key(r), r["variant"])][r["seed"]] = r["replacements"]
    variants = sorted({r["variant"] for r in rows if r["booster"] != ARF} - {BASE})
    out = []
    for split in SPLITS:
        pairs = sorted(
            {_key(r) for r in rows if r["booster"] != ARF and r["spec"]["split"] == split},
            key=lambda k: (json.loads(k[1])["index"], k[0], str(k[2])),
        )
        if not pairs:
            continue
        out += [
            f"### {split}",
            "",
            "| booster | stream | drift | without | " + " | ".join(variants) + " | ARF |",
            "| --- | --- | --- | --- | " + " | ".join("---" for _ in variants) + " | --- |",
        ]
        gains = collections.defaultdict(list)
        ahead = collections.Counter()
        compared = collections.Counter()
        for booster, spec_json, n_models in pairs:
            spec = json.loads(spec_json)
            base = acc.get((booster, spec_json, n_models, BASE))
            if not base:
                continue
            ref = arf.get(spec_json, {})
            cells = []
            for v in [BASE, *variants]:
                got = acc.get((booster, spec_json, n_models, v), {})
                common = sorted(set(got) & set(ref))
                if common:
                    compared[v] += 1
                    ahead[v] += statistics.mean(got[s] for s in common) > statistics.mean(
                        ref[s] for s in common
                    )
                if v == BASE:
                    continue
                seeds = sorted(set(got) & set(base))
                if not seeds:
                    cells.append("-")
                    continue
                gain = statistics.mean(got[s] - base[s] for s in seeds)
                gains[v].append(gain)
                replaced = statistics.mean(rep[(booster, spec_json, n_models, v)][s] for s in seeds)
                cells.append(f"{gain:+.2f} ({replaced:.0f}; {len(seeds)} seeds)")
            name = booster if n_models is None else f"{booster} ({n_models})"
            arf_cell = f"{statistics.mean(ref.values()):.2f}" if ref else "-"
            out.append(
                f"| {name} | {short_name(spec)} | {spec['drift']} | "
                f"{statistics.mean(base.values()):.2f} | " + " | ".join(cells) + f" | {arf_cell} |"
            )
        out.append("")
        if compared[BASE]:
            out.append(f"- {BASE}: ahead of ARF on {ahead[BASE]} of {compared[BASE]} streams")
        for v in variants:
            if gains[v]:
                lost = sum(g < -LOSS for g in gains[v])
                line = (
                    f"- {v}: mean gain {statistics.mean(gains[v]):+.2f}, worst "
                    f"{min(gains[v]):+.2f}, loses more than {LOSS} points on {lost} of "
                    f"{len(gains[v])} streams"
                )
                if compared[v]:
                    line += f", ahead of ARF on {ahead[v]} of {compared[v]}"
                out.append(line)
        out.append("")
    return "\n".join(out)


def _list(spec: dict) -> str:
    text = f"{short_name(spec):16} {spec['task']:10} {spec['length']:6} {spec['drift']:11}"
    text += " " + json.dumps(spec["params"])
    if "concepts" in spec:
        text += f" concepts={spec['concepts']}"
        if spec["positions"]:
            text += f" at={spec['positions']} widths={spec['widths']}"
    return text


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variants", nargs="*", type=parse_variant, help="name:key=value;...")
    parser.add_argument("--out", help="JSON lines file (appended to)")
    parser.add_argument("--splits", default="tune,report", help="default: tune,report")
    parser.add_argument("--n-streams", type=int, default=12, help="per split (default: 12)")
    parser.add_argument("--seeds", default="42,43,44", help="model seeds (default: 42,43,44)")
    parser.add_argument("--boosters", default="OSBoostOCP,AdaBoostOLM")
    parser.add_argument("--n-models", type=int, default=None, help="default: each booster's")
    parser.add_argument("--arf", action="store_true", help="also River's ARF (slow)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default: 2)")
    parser.add_argument("--list", action="store_true", help="only print the streams")
    parser.add_argument("--summary", action="store_true", help="only print --out's tables")
    args = parser.parse_args(argv)

    splits = args.splits.split(",")
    if not set(splits) <= set(SPLITS) or not 0 < args.n_streams <= 1000:
        parser.error(f"splits are {', '.join(SPLITS)}; 1 to 1,000 streams each")
    streams = specs(splits, args.n_streams)
    if args.list:
        print("\n".join(map(_list, streams)))
        return
    if not args.out:
        parser.error("--out is required unless --list")

    if not args.summary:
        done = set()
        if os.path.exists(args.out):
            with open(args.out) as f:
                for line in f:
                    r = json.loads(line)
                    done.add((*_key(r), r["variant"], r["seed"]))
        seeds = list(map(int, args.seeds.split(",")))
        jobs = [
            (booster, spec, name, kwargs, seed, args.n_models)
            for name, kwargs in [(BASE, ""), *args.variants]
            for booster in args.boosters.split(",")
            for spec in streams
            if (booster in MULTICLASS) == (spec["task"] == "multiclass")
            for seed in seeds
        ]
        if args.arf:
            jobs += [(ARF, spec, BASE, "", seed, None) for spec in streams for seed in seeds]
        jobs = [
            (booster, spec, name, kwargs, seed, n_models)
            for booster, spec, name, kwargs, seed, n_models in jobs
            if (booster, json.dumps(spec, sort_keys=True), n_models, name, seed) not in done
        ]
        print(f"{len(jobs)} runs", flush=True)
        with Pool(args.jobs, maxtasksperchild=1) as pool, open(args.out, "a") as f:
            for r in pool.imap_unordered(run, jobs):
                f.write(json.dumps(r) + "\n")
                f.flush()
                print(
                    f"{r['booster']} {r['stream']} {r['variant']} seed {r['seed']}: "
                    f"{r['accuracy']:.2f} ({r['seconds']:.0f} s)",
                    flush=True,
                )
    with open(args.out) as f:
        print(summary([json.loads(line) for line in f]))


if __name__ == "__main__":
    main()
