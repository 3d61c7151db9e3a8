"""The compiled forest against River's own ``HoeffdingTreeClassifier``, call by call.

Every test feeds the same stream to a :class:`~river_boost.forest.HoeffdingForest` and to River's
reference trees (``river.tree.HoeffdingTreeClassifier``) and checks,
for *every* call, that ``predict_proba_all`` returns River's dicts exactly: same keys in the same
order and the same float bits. At checkpoints and at the end, every tree's complete state is
compared with River's (structure, split features and thresholds, leaf statistics, every
splitter's statistics, counters): the forest's tree is exported with ``to_river`` and both are
dumped with the float bits.

The whole file runs in well under a minute (stream prefixes); longer runs are marked ``slow``.
"""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import random

import pytest
from river import datasets, tree
from river.datasets import synth
from river.tree.nodes.branch import NominalBinaryBranch, NumericBinaryBranch
from river.tree.nodes.leaf import HTLeaf
from river.tree.splitter import GaussianSplitter
from river.tree.splitter.nominal_splitter_classif import NominalSplitterClassif

from river_boost import forest as forest_mod

HoeffdingForest = forest_mod.HoeffdingForest
TOTALS = {
    "predict_proba_one calls compared": 0,
    "learn_one calls": 0,
    "River raised": 0,
    "tree states compared": 0,
}

# ----------------------------------------------------------------------------- helpers


def _bits(v):
    """A float's exact bits (ints as floats: River keeps e.g. ``0`` for an empty leaf's weight)."""
    return float(v).hex()


def _proba_bits(proba: dict) -> list:
    return [(k, _bits(v)) for k, v in proba.items()]


def _splitter_state(s):
    if isinstance(s, NominalSplitterClassif):
        return (
            "nominal",
            _bits(s._total_weight_observed),
            _bits(s._missing_weight_observed),
            list(s._att_values),  # CPython's set order, as River iterates it
            [(c, [(v, _bits(w)) for v, w in d.items()]) for c, d in s._att_dist_per_class.items()],
        )
    return (
        "gaussian",
        [
            (
                c,
                _bits(g._var.mean.n),
                _bits(g._var.mean._mean),
                _bits(g._var._S),
                _bits(s._min_per_class[c]),
                _bits(s._max_per_class[c]),
            )
            for c, g in s._att_dist_per_class.items()
        ],
    )


def _node_state(n):
    if isinstance(n, HTLeaf):
        return (
            "leaf",
            n.depth,
            [(c, _bits(w)) for c, w in n.stats.items()],
            None
            if n.splitters is None
            else [(f, _splitter_state(s)) for f, s in n.splitters.items()],
            sorted(map(repr, n._disabled_attrs)),
            _bits(n.last_split_attempt_at),
            (_bits(n._mc_correct_weight), _bits(n._nb_correct_weight))
            if hasattr(n, "_mc_correct_weight")
            else None,
        )
    if isinstance(n, NumericBinaryBranch):
        info = _bits(n.threshold)
    elif isinstance(n, NominalBinaryBranch):
        info = n.value
    else:
        info = list(n._mapping.items())
    return (
        type(n).__name__,
        n.feature,
        info,
        n.depth,
        [(c, _bits(w)) for c, w in n.stats.items()],
        [_node_state(c) for c in n.children],
    )


def tree_state(t) -> tuple:
    """Everything a River tree's future depends on (except River's memory estimates)."""
    return (
        None if t._root is None else _node_state(t._root),
        t._n_active_leaves,
        t._n_inactive_leaves,
        t._growth_allowed,
        _bits(t._train_weight_seen_by_model),
        sorted(t.classes, key=repr),
    )


class HashFilter:
    """A feature filter like the pool's: keep a feature with probability ``frac``, by hash."""

    def __init__(self, frac: float, seed: int):
        self.frac = frac
        self.seed = seed
        self.calls = []

    def keeps(self, i, feature) -> bool:
        self.calls.append((i, feature))
        return random.Random(f"{self.seed}/{i}/{feature!r}").random() < self.frac


class Checker:
    """Runs a forest and River's reference trees side by side and compares every call."""

    def __init__(self, configs, feature_filter=None, cls=tree.HoeffdingTreeClassifier):
        self.configs = configs
        models = [cls(**c) for c in configs]
        self.forest = HoeffdingForest(models, feature_filter)
        self.river = [cls(**c) for c in configs]
        self.filter = feature_filter
        self.masks = [{} for _ in configs]
        self.n_compared = 0
        self.n_raised = 0  # learn_one calls where River raised (and the forest raised alike)

    def view(self, i, x):
        if self.filter is None:
            return x
        mask = self.masks[i]
        out = {}
        for f, v in x.items():
            if f not in mask:
                mask[f] = random.Random(f"{self.filter.seed}/{i}/{f!r}").random() < self.filter.frac
            if mask[f]:
                out[f] = v
        return out

    def predict(self, x):
        got = self.forest.predict_proba_all(x)
        want = [t.predict_proba_one(self.view(i, x)) for i, t in enumerate(self.river)]
        for i, (g, w) in enumerate(zip(got, want)):
            assert _proba_bits(g) == _proba_bits(w), (i, self.configs[i], g, w)
        self.n_compared += len(want)
        TOTALS["predict_proba_one calls compared"] += len(want)
        return got

    def learn(self, i, x, y, w=1.0):
        """Both learn; where River raises (extreme weights can make its variance negative,
        hence a complex sigma), the forest must raise the same error on the same call, after
        the same partial update (the states are compared later)."""
        TOTALS["learn_one calls"] += 1
        try:
            self.river[i].learn_one(self.view(i, x), y, w=w)
        except (ArithmeticError, ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                self.forest.learn_one(i, x, y, w)
            self.n_raised += 1
            TOTALS["River raised"] += 1
            return
        self.forest.learn_one(i, x, y, w)

    def check_state(self):
        for i, t in enumerate(self.river):
            assert tree_state(self.forest.to_river(i)) == tree_state(t), (i, self.configs[i])
            TOTALS["tree states compared"] += 1
        assert self.forest.n_nodes == [t.n_nodes for t in self.river]
        assert self.forest.n_leaves == [t.n_leaves for t in self.river]
        assert self.forest.height == [t.height for t in self.river]
        assert self.forest.n_active_leaves == [t.n_active_leaves for t in self.river]
        for i in range(len(self.river)):  # the counts _enforce_size_limit keeps
            kept, walked = self.forest._leaf_counts(i)
            assert kept == walked, (i, kept, walked)


def run(
    checker, stream, n, *, weights=None, drop=0.0, learn_prob=1.0, seed=0, every=None, mutate=None
):
    """Feed ``n`` examples: predict (compared), then each tree learns with probability
    ``learn_prob`` (as a booster's trees do) with weight ``weights(rng)``."""
    rng = random.Random(seed)
    for k, (x, y) in enumerate(itertools.islice(stream, n)):
        if mutate is not None:
            x, y = mutate(k, x, y, rng)
        if drop:
            x = {f: v for f, v in x.items() if rng.random() >= drop}
        checker.predict(x)
        for i in range(len(checker.river)):
            if rng.random() < learn_prob:
                w = weights(rng) if weights is not None else 1.0
                checker.learn(i, x, y, w)
        if every and k % every == every - 1:
            checker.check_state()
    checker.predict(x)
    checker.check_state()
    return checker


def float_weights(rng):
    """Non-integer weights as a booster gives them, and a negligible 1e-300 now and then."""
    if rng.random() < 0.02:
        return 1e-300
    return rng.lognormvariate(0.0, 1.0)


def mixed_extreme_weights(rng):
    """1e-300 and 1e300 among ordinary weights. A 1e300 arriving at a leaf that has seen
    ordinary weights can make River's running variance negative (rounding), so that River
    raises TypeError (complex sigma) at that leaf's split attempts: the forest must raise
    the same error on the same call, after the same partial update."""
    u = rng.random()
    if u < 0.02:
        return 1e-300
    if u < 0.04:
        return 1e300
    return rng.lognormvariate(0.0, 1.0)


def huge_weights(rng):
    return 1e300 * rng.lognormvariate(0.0, 1.0)


def tiny_weights(rng):
    return 1e-300 * rng.lognormvariate(0.0, 1.0)


def splits(t) -> int:
    return t.n_nodes - t.n_leaves


# ----------------------------------------------------------------------------- streams


def mushroom_like(seed=0):
    """String features (Mushroom-like); new categories appear as the stream goes on."""
    rng = random.Random(seed)
    k = 0
    while True:
        n_cats = 3 + k // 150  # more categories later: unseen values at multiway splits
        x = {f"c{j}": "abcdefghij"[rng.randrange(min(n_cats, 10))] for j in range(6)}
        x["n"] = rng.gauss(0, 1)
        p = 0.15 + 0.7 * (x["c0"] in "ac") + 0.1 * (x["c1"] == "b")
        yield x, ("edible" if rng.random() < min(p, 0.95) else "poisonous")
        k += 1


def led_nominal(seed=0):
    yield from synth.LED(seed=seed, noise_percentage=0.1)


# ----------------------------------------------------------------------------- tests


def test_default_tree_on_phishing_with_missing_features():
    c = run(Checker([{}]), datasets.Phishing(), 1250, drop=0.1)
    assert splits(c.river[0]) >= 1


def test_river_errors_reproduced_with_mixed_extreme_weights():
    cfgs = [
        {"grace_period": 5, "tau": 0.1, "leaf_prediction": "mc"},
        {"grace_period": 20, "delta": 0.5, "nb_threshold": 30, "split_criterion": "gini"},
    ]
    c = run(
        Checker(cfgs), datasets.Bananas(), 500, weights=mixed_extreme_weights, seed=1, every=100
    )
    assert c.n_raised > 0


@pytest.mark.parametrize("weights", [huge_weights, tiny_weights])
def test_extreme_weight_scales(weights):
    cfgs = [
        {"grace_period": 5, "tau": 0.3},
        {"grace_period": 5, "leaf_prediction": "mc"},
        {"grace_period": 5, "leaf_prediction": "nb", "split_criterion": "gini"},
    ]
    c = run(Checker(cfgs), datasets.Phishing(), 300, weights=weights, seed=21)
    assert c.n_raised == 0


@pytest.mark.parametrize("leaf", ["mc", "nb", "nba"])
@pytest.mark.parametrize("criterion", ["info_gain", "gini", "hellinger"])
def test_criteria_and_leaves_on_bananas(leaf, criterion):
    cfgs = [
        {"grace_period": 5, "leaf_prediction": leaf, "split_criterion": criterion, "tau": 0.1},
        {
            "grace_period": 20,
            "leaf_prediction": leaf,
            "split_criterion": criterion,
            "delta": 0.5,
            "nb_threshold": 30,
        },
    ]
    c = run(Checker(cfgs), datasets.Bananas(), 500, weights=float_weights, seed=1)
    assert max(splits(t) for t in c.river) >= 2


def test_imagesegments_seven_classes_nb_leaves():
    cfgs = [
        {"grace_period": 5, "tau": 0.5, "leaf_prediction": "nba"},
        {"grace_period": 1, "delta": 0.5, "leaf_prediction": "nb", "max_depth": 2},
        {"grace_period": 50, "tau": 0.5, "split_criterion": "gini", "leaf_prediction": "mc"},
    ]
    c = run(Checker(cfgs), datasets.ImageSegments(), 450, weights=float_weights, drop=0.05, seed=2)
    assert splits(c.river[0]) >= 3
    assert c.river[1].height == 3  # max_depth=2 reached and enforced


def test_agrawal_nominal_multiway_and_binary():
    nominal = ["elevel", "car", "zipcode"]
    cfgs = [
        {"grace_period": 20, "nominal_attributes": nominal, "tau": 0.1},
        {"grace_period": 20, "nominal_attributes": nominal, "binary_split": True, "tau": 0.1},
        {
            "grace_period": 5,
            "nominal_attributes": nominal,
            "leaf_prediction": "mc",
            "remove_poor_attrs": True,
            "delta": 0.5,
        },
    ]
    c = run(
        Checker(cfgs),
        synth.Agrawal(classification_function=2, seed=3),
        900,
        weights=float_weights,
        drop=0.05,
        seed=3,
    )
    kinds = set()
    for t in c.river:
        for node in t._root.iter_dfs():
            kinds.add(type(node).__name__)
    assert {"NominalMultiwayBranch", "NominalBinaryBranch", "NumericBinaryBranch"} <= kinds
    # remove_poor_attrs disabled something in a majority-class leaf
    assert any(leaf._disabled_attrs for leaf in c.river[2]._root.iter_leaves())


def test_led_binary_features_as_nominal():
    nominal = [f"{i:02d}" for i in range(24)]
    cfgs = [
        {"grace_period": 10, "nominal_attributes": nominal, "tau": 0.5, "delta": 0.01},
        {
            "grace_period": 10,
            "nominal_attributes": nominal,
            "binary_split": True,
            "leaf_prediction": "nb",
            "tau": 0.5,
            "delta": 0.01,
        },
    ]
    c = run(Checker(cfgs), led_nominal(seed=4), 600, seed=4)
    assert all(splits(t) >= 2 for t in c.river)


def sparse_discrete(seed=0):
    """a9a-like: numeric features that are mostly 0.0, else 1.0 (or -0.0, 2.0), three classes:
    naive Bayes asks each class's Gaussian again and again at the same few values."""
    rng = random.Random(seed)
    while True:
        y = rng.randrange(3)
        x = {f"f{j}": float(rng.random() < 0.1 + 0.2 * (j % 3 == y)) for j in range(12)}
        x["f0"] = rng.choice([-0.0, 0.0, 2.0])
        yield x, y


@pytest.mark.parametrize("leaf", ["nb", "nba"])
def test_naive_bayes_on_sparse_discrete_features(leaf):
    # the Gaussians' naive-Bayes memo (the last x and its log-pdf) must answer as River
    # recomputes: per value, and forgotten when the class learns
    cfgs = [
        {"grace_period": 30, "leaf_prediction": leaf, "delta": 0.01},
        {"grace_period": 200, "leaf_prediction": leaf, "nb_threshold": 10},
    ]
    c = run(Checker(cfgs), sparse_discrete(seed=5), 800, weights=float_weights, learn_prob=0.5)
    assert splits(c.river[0]) >= 1


def test_mushroom_like_strings_with_new_categories_at_multiway_splits():
    cfgs = [
        {"grace_period": 10, "tau": 0.2},
        {"grace_period": 10, "tau": 0.2, "binary_split": True, "split_criterion": "gini"},
        {"grace_period": 5, "merit_preprune": False, "leaf_prediction": "mc"},
        # string labels: River's Hellinger criterion finds no class 0/1 and scores 0
        {"grace_period": 10, "split_criterion": "hellinger", "tau": 0.5},
    ]
    c = run(Checker(cfgs), mushroom_like(5), 800, weights=float_weights, drop=0.1, seed=5)
    # a multiway branch got branches for values first seen after it was made
    grown = [
        node
        for node in c.river[0]._root.iter_dfs()
        if type(node).__name__ == "NominalMultiwayBranch" and len(node.children) > 3
    ]
    assert grown


@pytest.mark.parametrize("gen", ["sea", "hyperplane", "rbf"])
def test_synthetic_streams_diverse_trees(gen):
    stream = {
        "sea": synth.SEA(seed=6),
        "hyperplane": synth.Hyperplane(seed=6, n_features=6),
        "rbf": synth.RandomRBF(seed_model=6, seed_sample=6, n_classes=4, n_features=6),
    }[gen]
    cfgs = [
        {"grace_period": 200},
        {"grace_period": 5, "delta": 0.5, "tau": 0.01, "leaf_prediction": "nba"},
        {
            "grace_period": 1,
            "delta": 1e-7,
            "tau": 0.2,
            "leaf_prediction": "mc",
            "merit_preprune": False,
            "split_criterion": "gini",
        },
        {"grace_period": 5, "max_depth": 2, "split_criterion": "hellinger", "tau": 0.3},
        {
            "grace_period": 10,
            "remove_poor_attrs": True,
            "max_share_to_split": 0.9,
            "tau": 0.1,
            "min_branch_fraction": 0.1,
        },
        {
            "grace_period": 10,
            "remove_poor_attrs": True,
            "leaf_prediction": "mc",
            "delta": 0.01,
            "splitter": GaussianSplitter(n_splits=3),
        },
    ]
    c = run(Checker(cfgs), stream, 600, weights=float_weights, learn_prob=0.7, seed=6)
    assert max(splits(t) for t in c.river) >= 3


def test_class_and_feature_first_appearing_mid_stream():
    def mutate(k, x, y, rng):
        x = dict(x)
        if k >= 150:
            x["late"] = rng.gauss(1.0 if y else -1.0, 1.0)  # a new, informative feature
        if k >= 250 and rng.random() < 0.3:
            y = 2  # sortable with Phishing's bools, as River's predict_proba_one needs
        if k >= 300 and rng.random() < 0.2:
            x["late_nominal"] = rng.choice(["u", "v"])
        return x, y

    cfgs = [{"grace_period": 10, "tau": 0.1}, {"grace_period": 10, "leaf_prediction": "mc"}]
    c = run(Checker(cfgs), datasets.Phishing(), 600, mutate=mutate, seed=7, every=200)
    assert all(2 in t.classes for t in c.river)
    assert any("late" in (leaf.splitters or {}) for leaf in c.river[0]._root.iter_leaves())


def test_feature_filter_views():
    filt = HashFilter(0.5, seed=9)
    cfgs = [{"grace_period": 10, "tau": 0.5}] * 4
    c = run(Checker(cfgs, feature_filter=filt), datasets.ImageSegments(), 400, drop=0.05, seed=9)
    # asked once per (tree, feature)
    n_features = len(next(iter(datasets.ImageSegments()))[0])
    assert len(filt.calls) == len(set(filt.calls)) == 4 * n_features
    assert len({t.n_nodes for t in c.river}) > 1  # the views differ


def test_memory_management_that_does_not_bind_is_exact():
    cfgs = [
        # stop_mem_management stops growth at the first split after a leaf became inactive
        {"grace_period": 5, "stop_mem_management": True, "max_depth": 2, "tau": 0.5},
        # estimates every 50 units of weight (fractional weights hit it too)
        {"grace_period": 5, "memory_estimate_period": 50, "tau": 0.2},
        {"grace_period": 5, "memory_estimate_period": 25, "stop_mem_management": True},
    ]

    def halves(rng):
        return rng.choice([0.5, 1.0, 1.5])

    c = run(Checker(cfgs), synth.Hyperplane(seed=10, n_features=5), 600, weights=halves, seed=10)
    assert c.river[0]._growth_allowed is False


def test_memory_limit_that_binds_deactivates_leaves_consistently():
    """When ``max_size`` binds, River's policy runs on the forest's own measurements: leaves
    are deactivated (so the trees may differ from River's there); the counters stay sound."""
    model = tree.HoeffdingTreeClassifier(
        grace_period=5, tau=0.3, max_size=0.002, memory_estimate_period=50
    )
    f = HoeffdingForest([model])
    for x, y in itertools.islice(synth.Hyperplane(seed=11, n_features=8), 1500):
        f.learn_one(0, x, y)
    t = f.to_river(0)
    leaves = list(t._root.iter_leaves())
    active = sum(leaf.is_active() for leaf in leaves)
    assert f.n_inactive_leaves[0] > 0
    assert (active, len(leaves) - active) == (f.n_active_leaves[0], f.n_inactive_leaves[0])
    kept, walked = f._leaf_counts(0)
    assert kept == walked and kept[0] == len(leaves)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_mid_stream_continues_identically(protocol):
    nominal = ["elevel", "car", "zipcode"]
    cfgs = [
        {"grace_period": 10, "nominal_attributes": nominal, "tau": 0.2},
        {
            "grace_period": 10,
            "nominal_attributes": nominal,
            "binary_split": True,
            "leaf_prediction": "mc",
        },
    ]
    c = Checker(cfgs, feature_filter=HashFilter(0.8, seed=12))
    stream = iter(synth.Agrawal(seed=12))
    run(c, stream, 250, weights=float_weights, drop=0.05, seed=12)
    c.forest = pickle.loads(pickle.dumps(c.forest, protocol=protocol))
    c.check_state()
    run(c, stream, 250, weights=float_weights, drop=0.05, seed=13)


def test_a_very_deep_tree_pickles_and_copies():
    """A tree hundreds of levels deep (grace_period=1 on a sorted stream: a chain) pickles and
    deep-copies within Python's recursion limit (the nested node state once exceeded it;
    River's own tree cannot even compute its height here) and goes on identically."""
    model = tree.HoeffdingTreeClassifier(grace_period=1, tau=0.8, leaf_prediction="mc")
    f = HoeffdingForest([model, model.clone()])
    stream = [({"f": float(t)}, "ab"[(t // 5) % 2]) for t in range(3000)]
    for x, y in stream[:2000]:
        f.learn_one(0, x, y)
        f.learn_one(1, x, y, 0.5)
    assert f.summary(0)["height"] > 300
    copies = [pickle.loads(pickle.dumps(f, protocol=p)) for p in (2, pickle.HIGHEST_PROTOCOL)]
    copies.append(copy.deepcopy(f))
    for x, y in stream[2000:]:
        for g in [f, *copies]:
            g.learn_one(0, x, y)
            g.learn_one(1, x, y, 0.5)
        expected = f.predict_proba_all({"f": x["f"] + 0.5})
        assert all(g.predict_proba_all({"f": x["f"] + 0.5}) == expected for g in copies)
    assert all(g.summary(0) == f.summary(0) for g in copies)


def test_deepcopy_mid_stream_is_independent():
    cfgs = [{"grace_period": 5, "tau": 0.3}, {"grace_period": 5, "leaf_prediction": "mc"}]
    c = Checker(cfgs)
    stream = iter(datasets.ImageSegments())
    run(c, stream, 200, seed=14)
    clone = copy.deepcopy(c.forest)
    before = [tree_state(clone.to_river(i)) for i in range(2)]
    run(c, stream, 200, seed=15)  # the original goes on (and stays River's)
    assert [tree_state(clone.to_river(i)) for i in range(2)] == before
    c.forest = clone
    c.river = [copy.deepcopy(t) for t in c.river]  # River's at the same point? rebuild below
    # replay: a fresh River pair from the copied point must match the copy as it continues
    c2 = Checker(cfgs)
    c2.forest = copy.deepcopy(clone)
    c2.river = [clone.to_river(i) for i in range(2)]
    run(c2, iter(datasets.ImageSegments()), 150, seed=16)


def test_exported_river_tree_continues_as_river():
    """``to_river`` gives a genuine River tree: it goes on learning exactly as the forest."""
    cfgs = [{"grace_period": 10, "nominal_attributes": ["car"], "tau": 0.2}]
    c = Checker(cfgs)
    stream = iter(synth.Agrawal(seed=17))
    run(c, stream, 300, seed=17)
    c.river = [c.forest.to_river(0)]
    run(c, stream, 300, seed=18)


def test_nan_merits_are_sorted_like_river(monkeypatch):
    """Weights near 1e305 overflow River's entropies (inf - inf): its nominal splitters then
    suggest NaN merits, which River's stable sort orders in its own way (NaN compares false);
    the forest sorts those exactly as River does."""
    from river.tree.nodes.htc_nodes import LeafMajorityClass

    seen = {"nan": 0}
    original = LeafMajorityClass.best_split_suggestions

    def spy(self, criterion, tree_):
        out = original(self, criterion, tree_)
        seen["nan"] += any(math.isnan(s.merit) for s in out)
        return out

    monkeypatch.setattr(LeafMajorityClass, "best_split_suggestions", spy)
    nominal = ["elevel", "car", "zipcode"]
    cfgs = [
        {"grace_period": 2, "tau": 0.5, "nominal_attributes": nominal},
        {
            "grace_period": 2,
            "leaf_prediction": "mc",
            "merit_preprune": False,
            "nominal_attributes": nominal,
            "remove_poor_attrs": True,
        },
    ]
    run(
        Checker(cfgs),
        synth.Agrawal(seed=5),
        400,
        seed=3,
        every=50,
        weights=lambda rng: 1e305 * rng.lognormvariate(0, 1),
    )
    assert seen["nan"] > 0


def test_zero_weight_raises_like_river():
    f = HoeffdingForest([tree.HoeffdingTreeClassifier()])
    r = tree.HoeffdingTreeClassifier()
    with pytest.raises(ZeroDivisionError):
        r.learn_one({"a": 1.0}, True, w=0.0)
    with pytest.raises(ZeroDivisionError):
        f.learn_one(0, {"a": 1.0}, True, 0.0)
    # and the partial update is River's: the class and its weight were recorded
    assert tree_state(f.to_river(0)) == tree_state(r)


def test_supports_and_errors():
    assert HoeffdingForest.supports(tree.HoeffdingTreeClassifier())
    assert not HoeffdingForest.supports(tree.HoeffdingAdaptiveTreeClassifier())
    assert not HoeffdingForest.supports(
        tree.HoeffdingTreeClassifier(splitter=tree.splitter.HistogramSplitter())
    )
    trained = tree.HoeffdingTreeClassifier()
    trained.learn_one({"a": 1.0}, True)
    assert not HoeffdingForest.supports(trained)
    with pytest.raises(ValueError, match="model 1"):
        HoeffdingForest([tree.HoeffdingTreeClassifier(), trained])
    f = HoeffdingForest([tree.HoeffdingTreeClassifier()])
    with pytest.raises(ValueError, match="None"):
        f.learn_one(0, {"a": None}, True)
    f.learn_one(0, {"a": 1.0}, True)
    with pytest.raises(TypeError, match="mixes"):
        f.learn_one(0, {"a": "x"}, True)


def test_predict_proba_matrix_matches_dicts():
    cfgs = [
        {"grace_period": 5, "tau": 0.3},
        {"grace_period": 5, "leaf_prediction": "mc"},
        {"grace_period": 50},
    ]
    f = HoeffdingForest([tree.HoeffdingTreeClassifier(**c) for c in cfgs])
    labels = ["path", "grass", "unknown", "sky"]
    for k, (x, y) in enumerate(itertools.islice(datasets.ImageSegments(), 300)):
        if k % 3 == 0:
            m = f.predict_proba_matrix(x, labels)
            dicts = f.predict_proba_all(x)
            want = [[d.get(lab, 0.0) for lab in labels] for d in dicts]
            assert [[_bits(v) for v in row] for row in m.tolist()] == [
                [_bits(v) for v in row] for row in want
            ]
        for i in range(3):
            f.learn_one(i, x, y)
    assert f.predict_proba_matrix({}, []).shape == (3, 0)


@pytest.mark.slow
def test_long_streams():
    nominal = ["elevel", "car", "zipcode"]
    cfgs = [
        {},
        {"grace_period": 50, "nominal_attributes": nominal, "tau": 0.1},
        {
            "grace_period": 10,
            "nominal_attributes": nominal,
            "binary_split": True,
            "leaf_prediction": "nb",
            "split_criterion": "gini",
        },
    ]
    run(
        Checker(cfgs),
        synth.Agrawal(classification_function=4, seed=19),
        6000,
        weights=float_weights,
        drop=0.02,
        seed=19,
        every=2000,
    )
    run(
        Checker([{"grace_period": 20, "tau": 0.2}]),
        datasets.ImageSegments(),
        2310,
        weights=float_weights,
        seed=20,
    )


def test_checker_can_fail():
    """The comparison is not vacuous: a different parameter is caught on the first split."""
    c = Checker([{"grace_period": 10}])
    c.river = [tree.HoeffdingTreeClassifier(grace_period=11)]
    with pytest.raises(AssertionError):
        run(c, datasets.Phishing(), 300)
    assert math.isfinite(c.n_compared)


def test_zz_totals():
    """Prints how much was compared (run with -s); runs last in file order."""
    print()
    for k, v in TOTALS.items():
        print(f"{k}: {v}")


def test_predicting_unlearned_features_and_values_is_rivers_and_registers_nothing():
    """A prediction of an x with features and nominal values no tree learned answers as
    River's trees do (which ignore them) and registers nothing: the features a tree never
    learned leave the forest's state as it was, and the tables of features and values stay
    those of a forest that was never asked (so what it learns gets the same ids)."""
    cfgs = [
        {"grace_period": 10, "tau": 0.2},
        {"grace_period": 5, "leaf_prediction": "mc", "binary_split": True},
        {"grace_period": 10, "leaf_prediction": "nb"},
    ]
    c = Checker(cfgs)
    twin = Checker(cfgs)  # never asked about what it did not learn
    rng = random.Random(7)
    for k, (x, y) in enumerate(itertools.islice(mushroom_like(5), 700)):
        for checker in (c, twin):
            checker.predict(x)
        state = c.forest._get_state()
        c.predict({**x, f"unseen_{k}": rng.random(), f"unseen_nominal_{k}": "mauve"})
        assert c.forest._get_state() == state
        # an unseen value of a learned nominal feature: River's answer (River's trees may
        # note the class at the leaf they reach, as they do for any value: check_state)
        c.predict({**x, f"c{rng.randrange(6)}": f"never_{k}"})
        for checker in (c, twin):
            for i in range(len(cfgs)):
                checker.learn(i, x, y, 1.0)
    c.check_state()
    assert c.forest._features == twin.forest._features
    assert c.forest._values == twin.forest._values
    assert c.n_compared > 6000
