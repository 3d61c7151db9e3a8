"""Do ARF's per-leaf random feature subspaces help the boosters as their weak learner?

River's ARF draws, whenever a leaf of one of its trees starts learning, ``max_features`` of the
features at random and keeps split statistics (and naive Bayes counts) for those only
(``river.forest.adaptive_random_forest.BaseTreeClassifier`` and its ``RandomLeaf*`` nodes).
This runs each booster with ``model=`` River's ``tree.HoeffdingTreeClassifier()`` (the
reference) and with ``BaseTreeClassifier(max_features=k)`` for each ``--max-features`` rule;
both run on River's Python code (the reference through a subclass the compiled forest does
not take), so accuracies and throughputs compare like with like. The booster's
``diversify`` default still redraws delta, tau and grace_period for learners 2..n; every
learner's tree gets its own random generator, seeded from the booster seed.

Streams: the bench's binary streams (Phishing and Bananas whole, Agrawal, SEA and Hyperplane
10,000 examples) and multiclass ones (ImageSegments whole, LED, RandomRBF, Waveform 10,000),
as ``river_boost.bench`` builds them, and the held-out binary streams of
``binary_default.py``. Binary boosters run on the binary streams, multiclass boosters on the
multiclass ones. Prequential accuracy (predict, then learn), the mean over the seeds.

    python benchmarks/leaf_subspaces.py --seeds 42,43,44 --max-features sqrt,half
    python benchmarks/leaf_subspaces.py --boosters OSBoostOCP@20 --streams bananas,phishing,sea
    python benchmarks/leaf_subspaces.py --max-features all --streams phishing   # sanity: ~ref

``--boosters`` takes ``Name`` or ``Name@n_models`` (default: the booster's own). Rules for
``--max-features``: ``sqrt`` (ARF's, ``round(sqrt(d))``, at least 1), ``half``
(``ceil(d / 2)``), ``d-1``, ``all`` (``d``: the reference up to feature order), or a number;
``split:RULE`` is not ARF's tree but a variant: every leaf keeps all features' statistics
and predicts (naive Bayes) with all of them, the random subset restricting its split
candidates only.
Prints a line per run, then per booster a table of the stream means with, per rule, the
difference to the reference, wins/losses, the worst stream and the throughput ratio.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time

from binary_default import SYNTHETIC, N  # the held-out binary streams
from river import tree
from river.forest.adaptive_random_forest import BaseTreeClassifier
from river.tree.nodes import htc_nodes

import river_boost
from river_boost import bench

BOOSTERS = "OSBoostOCP@20,OSBoostOCP@10,AdaBoostOL@10,SquintBoost@10,AdaBoostOLM@10"
BENCH_BINARY = ["phishing", "bananas", "agrawal", "sea", "hyperplane"]
BENCH_MULTICLASS = ["imagesegments", "led", "rbf", "waveform"]
MULTICLASS_BOOSTERS = {"AdaBoostOLM", "OnlineBBMMulticlass", "OSBoostMulticlass"}


class PythonHoeffdingTree(tree.HoeffdingTreeClassifier):
    """River's Hoeffding tree, unchanged; being a subclass, the compiled forest leaves it to
    River's Python code, the path the subspace trees take too."""


class SeededSubspaceTree(BaseTreeClassifier):
    """ARF's tree, whose clones each get their own generator.

    River's ``clone`` deep-copies ``rng``: every learner would draw the same features in the
    same order. Here a clone draws its generator's seed from the template's ``rng`` (advancing
    it), so the learners differ and a run is fixed by the template's seed. The booster's
    ``clone(new_params)`` (its delta / tau / grace_period draws) goes through here too.
    """

    def clone(self, new_params=None, include_attributes=False):
        params = dict(new_params or {})
        params.setdefault("rng", random.Random(self.rng.getrandbits(64)))
        return super().clone(params, include_attributes)


class _SplitSubset:
    """A leaf that keeps statistics (and naive Bayes counts) for every feature but proposes
    splits on ``max_features`` of them only, drawn at its first split attempt."""

    def best_split_suggestions(self, criterion, tree):
        every = self.splitters
        if not getattr(self, "split_features", None):
            keys = sorted(every)
            self.split_features = tree.rng.sample(keys, min(len(keys), tree.max_features))
        # in the splitters' own order: ties between split candidates go as in River's tree
        self.splitters = {f: s for f, s in every.items() if f in self.split_features}
        try:
            return super().best_split_suggestions(criterion, tree)
        finally:
            self.splitters = every


_SPLIT_LEAVES = {
    kind: type(f"SplitSubset{leaf.__name__}", (_SplitSubset, leaf), {})
    for kind, leaf in (
        ("mc", htc_nodes.LeafMajorityClass),
        ("nb", htc_nodes.LeafNaiveBayes),
        ("nba", htc_nodes.LeafNaiveBayesAdaptive),
    )
}


class SplitSubspaceTree(SeededSubspaceTree):
    """Not ARF's tree: the random subset restricts the split candidates only, the leaves'
    predictions (naive Bayes) use every feature (no memory or time saved in River's code)."""

    def _new_leaf(self, initial_stats=None, parent=None):
        depth = 0 if parent is None else parent.depth + 1
        leaf = _SPLIT_LEAVES[self._leaf_prediction]
        return leaf({} if initial_stats is None else initial_stats, depth, self.splitter)


def n_features(rule: str, d: int) -> int:
    rule = rule.removeprefix("split:")
    if rule == "sqrt":  # ARF's rule (river.forest.ARFClassifier, max_features="sqrt")
        k = round(math.sqrt(d))
    elif rule == "half":
        k = math.ceil(d / 2)
    elif rule == "d-1":
        k = d - 1
    elif rule == "all":
        k = d
    else:
        k = int(rule)
    return min(d, max(1, k))


def load_streams(names) -> dict:
    """name -> (rows, task); binary labels as bools."""
    streams = {}
    for name in names:
        if name in SYNTHETIC:
            rows = [(x, bool(y)) for x, y in itertools.islice(SYNTHETIC[name](), N)]
            task = "binary"
        else:
            rows = list(bench.stream_examples(name)[0])
            task = bench.task_of(name)
            if task == "binary":
                rows = [(x, bool(y)) for x, y in rows]
        streams[name] = rows, task
    return streams


def run(booster: str, n_models: int, template, rows, seed: int) -> tuple:
    """(accuracy in %, seconds) of one prequential run."""
    kwargs = {} if n_models is None else {"n_models": n_models}
    model = getattr(river_boost, booster)(model=template, seed=seed, **kwargs)
    hits = 0
    start = time.perf_counter()
    for x, y in rows:
        hits += model.predict_one(x) == y
        model.learn_one(x, y)
    return 100.0 * hits / len(rows), time.perf_counter() - start


def template_for(variant: str, d: int, seed: int):
    if variant == "ref":
        return PythonHoeffdingTree()
    # the trees' generators hang off the booster seed (and the rule, so rules differ)
    rng = random.Random(f"leaf-subspaces-{variant}-{seed}")
    if variant.startswith("split:"):
        k = n_features(variant.removeprefix("split:"), d)
        return SplitSubspaceTree(max_features=k, rng=rng)
    return SeededSubspaceTree(max_features=n_features(variant, d), rng=rng)


def report(label: str, streams, variants, table, seconds, dims) -> None:
    print(f"\n### {label}\n")
    head = ["ref"] + [f"{v} (k)" for v in variants[1:]]
    print("| stream | d | " + " | ".join(head) + " |")
    print("| --- " * (len(head) + 2) + "|")
    for s in streams:
        cells = [f"{table[s, 'ref']:.2f}"]
        for v in variants[1:]:
            diff = table[s, v] - table[s, "ref"]
            cells.append(f"{table[s, v]:.2f} ({n_features(v, dims[s])}, {diff:+.2f})")
        print(f"| {s} | {dims[s]} | " + " | ".join(cells) + " |")
    means = [statistics.fmean(table[s, v] for s in streams) for v in variants]
    print("| **mean** | | " + " | ".join(f"{m:.2f}" for m in means) + " |")
    for v in variants[1:]:
        diff = {s: table[s, v] - table[s, "ref"] for s in streams}
        worst = min(diff, key=diff.get)
        wins = sum(x > 0 for x in diff.values())
        losses = sum(x < 0 for x in diff.values())
        speed = sum(seconds[s, "ref"] for s in streams) / sum(seconds[s, v] for s in streams)
        print(
            f"  {v:<6} vs ref: {wins}/{losses} wins/losses, "
            f"mean {statistics.fmean(diff.values()):+.2f},"
            f" worst {diff[worst]:+.2f} ({worst}), throughput x{speed:.2f}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boosters", default=BOOSTERS, help="Name or Name@n, comma-separated")
    parser.add_argument("--streams", default=None, help="stream names, comma-separated")
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--max-features", default="sqrt,half", help="rules, comma-separated")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    variants = ["ref"] + args.max_features.split(",")
    names = (
        args.streams.split(",")
        if args.streams
        else BENCH_BINARY + list(SYNTHETIC) + BENCH_MULTICLASS
    )
    streams = load_streams(names)
    dims = {s: len(rows[0][0]) for s, (rows, _) in streams.items()}
    for spec in args.boosters.split(","):
        booster, _, n = spec.partition("@")
        task = "multiclass" if booster in MULTICLASS_BOOSTERS else "binary"
        mine = [s for s, (_, t) in streams.items() if t == task]
        if not mine:
            continue
        table, seconds = {}, {}
        for s in mine:
            rows = streams[s][0]
            for v in variants:
                runs = [
                    run(booster, int(n) if n else None, template_for(v, dims[s], seed), rows, seed)
                    for seed in seeds
                ]
                table[s, v] = statistics.fmean(a for a, _ in runs)
                seconds[s, v] = sum(t for _, t in runs)
                accs = " ".join(f"{a:.2f}" for a, _ in runs)
                print(
                    f"{spec:<16}{s:<18}{v:<6}{table[s, v]:7.2f}  [{accs}]  {seconds[s, v]:6.1f}s",
                    flush=True,
                )
        report(spec, mine, variants, table, seconds, dims)


if __name__ == "__main__":
    main()
