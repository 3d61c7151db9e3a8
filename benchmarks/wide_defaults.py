"""How many features each weak learner should see: `feature_fraction` rules, wide and narrow.

Every booster with its own defaults (``n_models`` as given, diversified trees, the default
weak learner), only ``feature_fraction`` changing. A rule names how many of the ``d`` features
each learner sees; it becomes ``feature_fraction = min(1, k / d)``:

- ``all``: every feature (``feature_fraction=1.0``);
- an integer ``k``: ``k`` features (``20``: the multi-label paper's 20 covariates);
- ``sqrt``, ``2sqrt``, ...: ``c * sqrt(d)`` features (ARF's choice is ``sqrt``);
- ``auto``: the boosters' ``feature_fraction="auto"`` itself.

Protocols: the multi-label sets (emotions, scene, yeast, mediamill_reduced) as Table 3 of Jung
& Tewari (2018) (learn the train split, then predict, score and still learn the test split;
mean rank loss on the test split, as ``benchmarks/multilabel_table3.py``); every other stream
prequentially (accuracy; the first ``--n-samples`` rows of a paper's set, all of it if 0,
shuffled once with seed 0; River's bundled and synthetic streams at the bench's default
lengths, in order).

    python benchmarks/wide_defaults.py --data-dir DIR --sets emotions,scene,yeast \\
        --rules all,sqrt,2sqrt,20 --seeds 1,2 --n-models 10

``DIR`` holds the papers' sets, one folder per set (needed only for them).
"""

from __future__ import annotations

import argparse
import functools
import math
import pathlib
import statistics
import sys

from river_boost import bench
from river_boost.bench import loaders

LOADER_NAMES = {"yeast": "mulan_yeast"}  # the MULAN split; the bench's `yeast` is River's
MULTILABEL_FAMILIES = ("AdaOLMR", "OnlineBMR")
DEFAULT_MODELS = {
    "binary": "AdaBoost.OL,OnlineBBM",
    "multiclass": "AdaBoost.OLM",
    "multilabel": "AdaOLMR,OnlineBMR",
}


def n_features(stream: str, data_dir) -> int:
    """``d``: the number of features of the stream's first row."""
    examples, _ = bench.stream_examples(stream, 1, data_dir)
    return len(next(iter(examples))[0])


def fraction(rule: str, d: int):
    """The ``feature_fraction`` a rule gives for ``d`` features."""
    if rule == "auto":
        return "auto"
    if rule == "all":
        return 1.0
    if rule.endswith("sqrt"):
        k = float(rule[: -len("sqrt")] or 1) * math.sqrt(d)
    else:
        k = float(rule)
    return min(1.0, k / d)


def _multilabel(cls_name, n, seed, **params):
    from river_boost import multilabel

    # the booster's own defaults, with its own default weak learner (the bench's registry
    # gives the multi-label boosters majority-class leaves to keep its default run short)
    return getattr(multilabel, cls_name)(n_models=n, seed=seed, **params)


def spec_for(family: str, rule: str, d: int) -> bench.ModelSpec:
    params = (("feature_fraction", fraction(rule, d)),)
    if family in MULTILABEL_FAMILIES:
        factory = functools.partial(_multilabel, family, **dict(params))
        return bench.ModelSpec(family, factory=factory)
    return bench.ModelSpec(family, params=params)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=pathlib.Path, default=None)
    parser.add_argument("--sets", default="emotions,scene,yeast")
    parser.add_argument("--rules", default="all,sqrt,2sqrt,20")
    parser.add_argument(
        "--models",
        default=None,
        help="booster families (bench names); default per task: "
        + "; ".join(f"{t}: {m}" for t, m in DEFAULT_MODELS.items()),
    )
    parser.add_argument("--n-models", type=int, default=10, help="the boosters' default: 10")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument(
        "--n-samples", type=int, default=10_000, help="rows of a non-multi-label paper set; 0: all"
    )
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    rules = args.rules.split(",")
    runs, meta, dims = [], [], {}
    for name in args.sets.split(","):
        stream = LOADER_NAMES.get(name, name)
        task = bench.task_of(stream)
        d = dims[stream] = n_features(stream, args.data_dir)
        if task == "multilabel" and stream not in bench.STREAMS:
            protocol = bench.Protocol(
                warmup=loaders.PAPER_SETS[stream].train_rows, extra_metrics=("rank_loss",)
            )
        elif stream in bench.STREAMS:
            protocol = bench.Protocol()
        else:
            # the UCI files are often sorted by class: shuffled once (seed 0), the same for all
            protocol = bench.Protocol(n_samples=args.n_samples or None, shuffle=0)
        families = (args.models or DEFAULT_MODELS[task]).split(",")
        for family in families:
            if not (bench.runs_on(family, stream) or family in MULTILABEL_FAMILIES):
                continue
            for rule in rules:
                for seed in seeds:
                    runs.append((stream, spec_for(family, rule, d), seed, args.n_models, protocol))
                    meta.append((stream, family, rule))

    def progress(r):  # one line per finished run, on stderr
        print(
            f"{r.stream} {r.model} seed {r.seed}: {_score(r):.4f} ({r.seconds:.0f} s)",
            file=sys.stderr,
            flush=True,
        )

    results = bench.run_grid(runs, jobs=args.jobs, data_dir=args.data_dir, progress=progress)
    print(f"{args.n_models} weak learners, seeds {seeds}; mean over seeds (per seed)")
    print(
        "multi-label: test rank loss (Table 3 protocol; lower is better); "
        "others: prequential accuracy (higher is better)"
    )
    print("| stream (d) | booster | " + " | ".join(rules) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in rules) + " |")
    streams = list(dict.fromkeys(run[0] for run in runs))
    for stream in streams:
        families = list(dict.fromkeys(r.family for r in results if r.stream == stream))
        d = dims[stream]
        for family in families:
            cells = []
            for rule in rules:
                rs = [r for m, r in zip(meta, results) if m == (stream, family, rule)]
                values = [_score(r) for r in rs]
                k = fraction(rule, d)
                k = "auto" if k == "auto" else f"{min(d, round(k * d))}"
                cells.append(
                    f"{statistics.fmean(values):.4f} ({' / '.join(f'{v:.4f}' for v in values)};"
                    f" k={k}; {statistics.median(r.seconds for r in rs):.0f} s)"
                )
            print(f"| {stream} ({d}) | {family} | " + " | ".join(cells) + " |")
    return 0


def _score(r) -> float:
    return r.extra["rank_loss"] if "rank_loss" in r.extra else r.accuracy


if __name__ == "__main__":
    sys.exit(main())
