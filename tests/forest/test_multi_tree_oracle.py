"""The multi-output Hoeffding tree oracle (tests/oracles/multi_tree.py) and its softmax walk
(tests/oracles/multi_sgbt.py): at one output the tree is River's Hoeffding regression tree
with the quantization observer, split for split; more outputs, and outputs that join, behave
as the oracle's module says."""

from __future__ import annotations

import random

import pytest
from river import datasets, drift, tree
from river.tree.nodes.branch import DTBranch

from river_boost import SGBTClassifier

from ..oracles.gradient import SGBTOracle
from ..oracles.multi_sgbt import MultiSGBTOracle, QOTree
from ..oracles.multi_tree import MultiOutputHoeffdingTree


def river_qo_tree(**params):
    return tree.HoeffdingTreeRegressor(
        splitter=tree.splitter.QOSplitter(), leaf_prediction="mean", **params
    )


def river_splits(t):
    """River's branches as the oracle's ``splits()`` lists them."""
    out, stack = [], [t._root]
    while stack:
        node = stack.pop()
        if isinstance(node, DTBranch):
            test = getattr(node, "threshold", getattr(node, "value", None))
            if test is None:  # (a multiway branch)
                test = sorted(node._mapping, key=str)
            out.append((node.depth, node.feature, test))
            stack.extend(reversed(node.children))
    return out


def friedman(n, seed, nominal=False):
    """Friedman's stream with varied sample weights; with ``nominal``, a string feature of four
    categories and a fifth of the examples missing one feature."""
    rng = random.Random(seed)
    for x, y in datasets.synth.Friedman(seed=seed).take(n):
        if nominal:
            x = dict(x, c=rng.choice("abcd"))
            if rng.random() < 0.2:
                del x[rng.choice(list(x))]
        yield x, y, rng.choice([1.0, 0.5, 2.0, 0.03])


@pytest.mark.parametrize("nominal", [False, True])
@pytest.mark.parametrize("grace_period", [50, 200])
def test_one_output_is_rivers_tree(nominal, grace_period):
    ref = river_qo_tree(grace_period=grace_period)
    oracle = MultiOutputHoeffdingTree(grace_period=grace_period)
    for x, y, w in friedman(3000, 3, nominal):
        assert oracle.predict(x)[0] == pytest.approx(ref.predict_one(x), abs=1e-12, rel=0)
        ref.learn_one(x, y, w=w)
        oracle.learn(x, [y], [w])
    assert len(river_splits(ref)) >= 5
    assert oracle.splits() == river_splits(ref)


@pytest.mark.parametrize("criterion", ["variance", "newton"])
def test_a_repeated_output_splits_as_one(criterion):
    # two equal outputs: each merit doubles exactly, so the ratio test and the splits are the
    # one-output tree's, and each output predicts its mean
    one = MultiOutputHoeffdingTree(1, grace_period=50, criterion=criterion)
    two = MultiOutputHoeffdingTree(2, grace_period=50, criterion=criterion)
    for x, y, w in friedman(2000, 4):
        p = one.predict(x)[0]
        assert two.predict(x) == [p, p]
        one.learn(x, [y], [w])
        two.learn(x, [y, y], [w, w])
    assert len(one.splits()) >= 3 and two.splits() == one.splits()


def test_outputs_weigh_and_split_together():
    # the second output's target depends on x_1 only, with weight on it: a split on x_1 must
    # come, which the first output (x_3 signal, little weight) would not choose first
    t = MultiOutputHoeffdingTree(2, grace_period=50)
    rng = random.Random(5)
    for _ in range(400):
        x = {i: rng.random() for i in range(5)}
        t.learn(x, [10 * (x[3] > 0.5), 10 * (x[1] > 0.5)], [0.1, 1.9])
    assert t.splits()[0][1] == 1


def test_an_output_that_joins_predicts_zero_until_it_learns():
    one = MultiOutputHoeffdingTree(1, grace_period=50)
    t = MultiOutputHoeffdingTree(1, grace_period=50)
    stream = list(friedman(1200, 6))
    for x, y, w in stream[:600]:
        one.learn(x, [y], [w])
        t.learn(x, [y], [w])
    t.add_output()
    assert t.K == 2 and all(len(leaf.stats) == 2 for leaf in t.leaves())
    for x, _, _ in stream[600:650]:
        assert t.predict(x) == [one.predict(x)[0], 0.0]
    for x, y, w in stream[600:]:
        t.learn(x, [y, -y], [w, w])
    assert all(p < 0 for x, _, _ in stream[-20:] for p in t.predict(x)[1:])
    assert len(t.splits()) > len(one.splits())


def late_classes(n, seed):
    """ImageSegments' first ``n`` examples, its fourth class held back until half-way."""
    rows = list(datasets.ImageSegments().take(n))
    random.Random(seed).shuffle(rows)
    late = [r for r in rows if r[1] == rows[0][1]][1:]
    rest = [r for r in rows if r not in late]
    return rest[: n // 2] + late + rest[n // 2 :]


def test_one_tree_per_step_before_splitting_is_k_trees():
    # with a grace period never reached each tree is one leaf: an output's leaf then holds what
    # the output's own tree would, so the two walks give the same probabilities (the
    # classes joining mid-stream included)
    params = dict(n_models=4, learning_rate=0.3, seed=2)
    multi = MultiSGBTOracle(grace_period=10**9, **params)
    k_trees = SGBTOracle(QOTree(grace_period=10**9), outputs="softmax", **params)
    for i, (x, y) in enumerate(late_classes(300, 1)):
        if i:
            p, q = multi.predict_one(x), k_trees.predict_one(x)
            assert list(p) == list(q)
            assert list(p.values()) == pytest.approx(list(q.values()), abs=1e-12)
        multi.learn(x, y)
        k_trees.learn(x, y)
    assert multi.K == 7 and len(multi.learners) == 4 and len(k_trees.learners) == 28


def test_one_tree_per_step_learns():
    # the walk with splitting trees, feature subsets and a detector: its trees split, and it
    # beats the majority class on Waveform (3 balanced classes) by far. (The tie threshold is
    # raised: at River's 0.05 the summed merit's ratio test rarely splits so early.)
    model = MultiSGBTOracle(4, 0.3, 0.75, drift.ADWIN(), seed=3, grace_period=50, tau=0.2)
    correct = 0
    for i, (x, y) in enumerate(datasets.synth.Waveform(seed=3).take(800)):
        if i:
            correct += max(p := model.predict_one(x), key=p.get) == y
        model.learn(x, y)
    assert all(len(t.splits()) >= 3 for t in model.learners)
    assert correct / 799 > 0.55


@pytest.mark.slow
def test_k_trees_walk_is_sgbt_classifier_with_rivers_qo_tree():
    # SGBTOracle with the oracle tree per output is SGBTClassifier given River's tree with the
    # quantization observer (River's Python tree behind the engine): the measurement's K-trees
    # variant is the package's
    model = SGBTClassifier(model=river_qo_tree(grace_period=50), n_models=3, seed=1)
    oracle = SGBTOracle(
        QOTree(grace_period=50),
        3,
        0.2,
        feature_fraction=0.75,
        drift_detector=drift.ADWIN(),
        seed=1,
        outputs="softmax",
    )
    for i, (x, y) in enumerate(datasets.ImageSegments().take(400)):
        if i:
            p, q = model.predict_proba_one(x), oracle.predict_one(x)
            assert list(p.values()) == pytest.approx(list(q.values()), abs=1e-9)
        model.learn_one(x, y)
        oracle.learn(x, y)
    assert sum(len(t.tree.splits()) for t in oracle.learners) >= 3
