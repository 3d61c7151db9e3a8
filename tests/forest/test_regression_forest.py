"""Differential tests of the compiled regression forest against River's own
``HoeffdingTreeRegressor``: on every call of several streams and configurations, the forest's
prediction equals River's bit for bit (``==`` on floats, and the same sign of zero), and so do
the trees' sizes; pickling mid-stream continues identically; bad input changes nothing; the
bounded tree's limit binds."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import random

import pytest
from river import datasets, linear_model, tree
from river.datasets import synth
from river.tree.splitter import EBSTSplitter, TEBSTSplitter

from river_boost.forest import BoundedHoeffdingTreeRegressor, HoeffdingRegressionForest


def same(a: float, b: float) -> bool:
    return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)


def friedman(n, seed=1):
    return list(synth.Friedman(seed=seed).take(n))


def with_weights(stream, seed=3):
    rng = random.Random(seed)
    return [(x, y, rng.choice([1.0, 0.5, 0.25, 2.0, 1.7, 0.013])) for x, y in stream]


def with_missing(stream, seed=4, p=0.2):
    rng = random.Random(seed)
    return [({k: v for k, v in x.items() if rng.random() > p}, y) for x, y in stream]


def nominal_stream(n, seed=5):
    rng = random.Random(seed)
    out = []
    for t in range(n):
        c = rng.choice("abcde")
        d = rng.choice(["u", "v", "w"]) if t > n // 3 else None  # a feature from mid-stream
        x = {"num": rng.random(), "cat": c, "k": rng.randint(0, 3)}
        if d is not None:
            x["late"] = d
        y = {"a": 1.0, "b": 5.0, "c": -2.0, "d": 0.5, "e": 3.0}[c] + x["num"] + rng.gauss(0, 0.3)
        out.append((x, y))
    return out


def run(models, stream, *, check_every=1):
    """Feed the forest and River's trees the same stream, comparing every prediction."""
    forest = HoeffdingRegressionForest(models)
    trees = [m.clone() for m in models]
    for n, item in enumerate(stream):
        x, y = item[0], item[1]
        w = item[2] if len(item) > 2 else 1.0
        for i, t in enumerate(trees):
            if n % check_every == 0:
                a, b = forest.predict_one(i, x), t.predict_one(x)
                assert same(a, b), (n, i, a, b)
            try:
                t.learn_one(x, y, w=w)
            except ZeroDivisionError:
                with pytest.raises(ZeroDivisionError):
                    forest.learn_one(i, x, y, w)
                return forest, trees
            forest.learn_one(i, x, y, w)
    for i, t in enumerate(trees):
        assert forest.summary(i) == t.summary, i
    return forest, trees


def test_default_configuration_friedman():
    models = [tree.HoeffdingTreeRegressor(grace_period=g) for g in (50, 200)]
    forest, trees = run(models, friedman(2500))
    assert all(t.n_nodes > 3 for t in trees)


@pytest.mark.parametrize("leaf", ["mean", "model", "adaptive"])
def test_leaf_predictions_with_weights_and_missing(leaf):
    stream = with_weights(with_missing(friedman(1500, seed=7)))
    models = [
        tree.HoeffdingTreeRegressor(grace_period=50, leaf_prediction=leaf, delta=1e-3),
        tree.HoeffdingTreeRegressor(grace_period=80, leaf_prediction=leaf, tau=0.2),
    ]
    run(models, stream)


def test_drift_and_options():
    stream = list(synth.FriedmanDrift(drift_type="gra", position=(400, 900), seed=3).take(1500))
    models = [
        tree.HoeffdingTreeRegressor(grace_period=40, max_depth=3),
        tree.HoeffdingTreeRegressor(grace_period=40, max_depth=4, stop_mem_management=True),
        tree.HoeffdingTreeRegressor(grace_period=40, min_samples_split=30, merit_preprune=False),
        tree.HoeffdingTreeRegressor(grace_period=40, splitter=TEBSTSplitter(digits=2)),
        tree.HoeffdingTreeRegressor(grace_period=60, splitter=EBSTSplitter(), delta=1e-2),
        tree.HoeffdingTreeRegressor(grace_period=40, remove_poor_attrs=True, delta=0.05),
        tree.HoeffdingTreeRegressor(grace_period=30, model_selector_decay=0.5, tau=0.5),
    ]
    run(models, stream)


def test_real_datasets():
    run([tree.HoeffdingTreeRegressor(grace_period=50, delta=1e-3)], list(datasets.TrumpApproval()))
    chicks = list(datasets.ChickWeights())  # int features and targets
    run(
        [
            tree.HoeffdingTreeRegressor(grace_period=30, delta=1e-2),
            tree.HoeffdingTreeRegressor(grace_period=30, delta=1e-2, nominal_attributes=["diet"]),
            tree.HoeffdingTreeRegressor(
                grace_period=30, delta=1e-2, nominal_attributes=["diet", "chick"], tau=0.3
            ),
            tree.HoeffdingTreeRegressor(
                grace_period=30, leaf_prediction="mean", nominal_attributes=["diet", "chick"]
            ),
        ],
        chicks,
    )
    flags = [({**x, "flag": x["time"] > 10}, y) for x, y in chicks]  # a bool feature
    run([tree.HoeffdingTreeRegressor(grace_period=30, delta=1e-2)], flags)


def nominal_models(binary, **kw):
    """Mean-leaf trees for nominal_stream (kw: e.g. a splitter for the numeric features)."""
    return [
        tree.HoeffdingTreeRegressor(
            grace_period=40, leaf_prediction="mean", binary_split=binary, delta=1e-2, **kw
        ),
        tree.HoeffdingTreeRegressor(
            grace_period=40,
            leaf_prediction="mean",
            binary_split=binary,
            nominal_attributes=["k"],
            delta=1e-2,
            remove_poor_attrs=True,
            **kw,
        ),
    ]


@pytest.mark.parametrize("binary", [False, True])
def test_nominal_features(binary):
    run(nominal_models(binary), with_weights(with_missing(nominal_stream(1500), p=0.1)))


def test_model_leaves_reject_nominal_values_before_learning():
    forest = HoeffdingRegressionForest([tree.HoeffdingTreeRegressor()])
    forest.learn_one(0, {"a": 1.0}, 2.0)
    before = pickle.dumps(forest)
    with pytest.raises(TypeError):
        forest.learn_one(0, {"a": 1.0, "b": "s"}, 2.0)
    assert pickle.dumps(forest) == before


@pytest.mark.parametrize(
    "y, w", [(math.nan, 1.0), (math.inf, 1.0), (1.0, 0.0), (1.0, -1.0), (1.0, math.nan)]
)
def test_bad_targets_and_weights_change_nothing(y, w):
    forest = HoeffdingRegressionForest([tree.HoeffdingTreeRegressor(grace_period=10)])
    for x, yy in friedman(50):
        forest.learn_one(0, x, yy)
    before = pickle.dumps(forest)
    with pytest.raises(ValueError):
        forest.learn_one(0, {"x_0": 0.5}, y, w)
    forest.load({"x_0": 0.5})
    with pytest.raises(ValueError):
        forest.learn_loaded(0, y, w)
    with pytest.raises(ValueError):
        forest.learn_one(0, {"x_0": None}, 1.0)
    assert pickle.dumps(forest) == before


def test_pickle_and_deepcopy_mid_stream_continue_identically():
    stream = with_weights(nominal_stream(900, seed=9))
    models = [
        tree.HoeffdingTreeRegressor(grace_period=30, leaf_prediction="mean", delta=1e-2),
        BoundedHoeffdingTreeRegressor(grace_period=30, leaf_prediction="mean", max_size=0.01),
    ]
    numeric = friedman(900, seed=11)
    mforest = HoeffdingRegressionForest([tree.HoeffdingTreeRegressor(grace_period=30)])
    forest = HoeffdingRegressionForest(models)
    for x, y, w in stream[:450]:
        for i in range(2):
            forest.learn_one(i, x, y, w)
    for x, y in numeric[:450]:
        mforest.learn_one(0, x, y)
    for f, data in ((forest, stream[450:]), (mforest, [(x, y, 1.0) for x, y in numeric[450:]])):
        clones = [pickle.loads(pickle.dumps(f)), copy.deepcopy(f)]
        for x, y, w in data:
            for i in range(f.n_models):
                p = f.predict_one(i, x)
                assert all(same(c.predict_one(i, x), p) for c in clones)
                for g in [f, *clones]:
                    g.learn_one(i, x, y, w)
        assert all(pickle.dumps(c) == pickle.dumps(f) for c in clones)


def test_loaded_and_cdef_paths_match_learn_one():
    stream = friedman(600, seed=2)
    models = [tree.HoeffdingTreeRegressor(grace_period=g) for g in (30, 60, 90)]
    a, b = HoeffdingRegressionForest(models), HoeffdingRegressionForest(models)
    for x, y in stream:
        b.load(x)
        for i in range(3):
            assert same(a.predict_one(i, x), b.predict_loaded(i))
            a.learn_one(i, x, y, 0.5)
            b.learn_loaded(i, y, 0.5)
    assert pickle.dumps(a) == pickle.dumps(b)


def test_trees_that_come_and_go():
    stream = friedman(800, seed=6)
    m = tree.HoeffdingTreeRegressor(grace_period=40)
    forest = HoeffdingRegressionForest([m, m])
    ref = [m.clone(), m.clone()]
    for n, (x, y) in enumerate(stream):
        if n == 300:
            assert forest.add(m) == 2
            ref.append(m.clone())
        if n == 400:
            forest.copy_tree(1, 0)  # src, dst
            ref[0] = copy.deepcopy(ref[1])
        if n == 500:
            forest.remove(1)
            del ref[1]
        if n == 600:
            forest.reset(0)
            ref[0] = m.clone()
        for i, t in enumerate(ref):
            assert same(forest.predict_one(i, x), t.predict_one(x))
            forest.learn_one(i, x, y)
            t.learn_one(x, y)
    assert forest.n_models == 2


def test_supports():
    assert HoeffdingRegressionForest.supports(tree.HoeffdingTreeRegressor())
    assert HoeffdingRegressionForest.supports(BoundedHoeffdingTreeRegressor())
    assert not HoeffdingRegressionForest.supports(tree.HoeffdingTreeClassifier())
    assert not HoeffdingRegressionForest.supports(
        tree.HoeffdingTreeRegressor(leaf_model=linear_model.LinearRegression(l2=0.1))
    )
    assert HoeffdingRegressionForest.supports(
        tree.HoeffdingTreeRegressor(
            leaf_prediction="mean", leaf_model=linear_model.LinearRegression(l2=0.1)
        )
    )
    with pytest.raises(ValueError):
        HoeffdingRegressionForest([tree.HoeffdingTreeClassifier()])


def test_bounded_tree_binds_under_fractional_weights_and_matches_river():
    # River's own BoundedHoeffdingTreeRegressor measures Python objects: compare the policy
    # with a limit that never binds, then check that the forest's limit binds
    stream = friedman(3000, seed=8)
    weights = itertools.cycle([0.3, 0.7, 0.11])
    data = [(x, y, next(weights)) for x, y in stream]
    run([BoundedHoeffdingTreeRegressor(grace_period=20, max_size=100.0)], data, check_every=7)
    forest = HoeffdingRegressionForest(
        [BoundedHoeffdingTreeRegressor(grace_period=20, max_size=0.02, memory_estimate_period=50)]
    )
    sizes = []
    for k, (x, y, w) in enumerate(itertools.islice(itertools.cycle(data), 12000)):
        forest.learn_one(0, x, y, w)
        if k % 1000 == 999:
            sizes.append(forest.__sizeof__())
    assert forest.summary(0)["n_inactive_leaves"] > 0
    assert max(sizes[-4:]) < 3 * 0.02 * 2**20


@pytest.mark.parametrize("leaf", ["mean", "adaptive"])
def test_to_river_continues_identically(leaf):
    numeric = with_weights(with_missing(friedman(1200, seed=12)))
    nominal = with_weights(nominal_stream(1200, seed=13))
    for data, lp in ((numeric, leaf), (nominal, "mean")):
        models = [
            tree.HoeffdingTreeRegressor(grace_period=40, leaf_prediction=lp, delta=1e-2),
            tree.HoeffdingTreeRegressor(
                grace_period=40, leaf_prediction=lp, binary_split=True, max_depth=4
            ),
        ]
        forest = HoeffdingRegressionForest(models)
        for x, y, w in data[:600]:
            for i in range(2):
                forest.learn_one(i, x, y, w)
        rivers = forest.models
        assert [t.summary for t in rivers] == [forest.summary(i) for i in range(2)]
        for x, y, w in data[600:]:
            for i, t in enumerate(rivers):
                assert same(forest.predict_one(i, x), t.predict_one(x))
                forest.learn_one(i, x, y, w)
                t.learn_one(x, y, w=w)


def test_feature_filter_gives_each_tree_its_view():
    class Filter:
        def keeps(self, i, feature):
            return hash((i, feature)) % 3 != 0 or feature == "x_0"

    stream = with_weights(friedman(900, seed=14))
    models = [tree.HoeffdingTreeRegressor(grace_period=30, delta=1e-2) for _ in range(3)]
    forest = HoeffdingRegressionForest(models, Filter())
    trees = [m.clone() for m in models]
    for x, y, w in stream:
        for i, t in enumerate(trees):
            view = {k: v for k, v in x.items() if Filter().keeps(i, k)}
            assert same(forest.predict_one(i, x), t.predict_one(view))
            forest.learn_one(i, x, y, w)
            t.learn_one(view, y, w=w)
    assert [forest.summary(i) for i in range(3)] == [t.summary for t in trees]


def test_rounding_is_cpythons_round():
    # TEBSTSplitter rounds each value: a fast path (fma) with the C library's printf/strtod
    # for ties and near-ties, against CPython's round on random, near-tie and tie values
    from river_boost.forest._regtrees import _round

    rng = random.Random(0)
    for _ in range(60000):
        d = rng.choice([0, 1, 1, 2, 3, 7, 15, 20])
        k = rng.random()
        if k < 0.4:
            x = rng.uniform(-1, 1) * 10 ** rng.randint(-5, 8)
        elif k < 0.8:
            x = (rng.randint(-(10**6), 10**6) + 0.5) / 10**d
            x = rng.choice([x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)])
        else:
            x = rng.randint(-(10**4), 10**4) / 2 ** rng.randint(0, 12)
        assert same(_round(x, d), round(x, d)), (x, d)
    for x in (0.0, -0.0, -0.04, 2.675, 1e300, -1e-300, 5e-324, 2.0**52 + 0.5, math.inf):
        for d in range(21):
            assert same(_round(x, d), round(x, d)), (x, d)
