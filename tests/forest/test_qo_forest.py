"""Differential tests of the compiled regression forest with River's ``QOSplitter`` (the
quantization observer) against River's own ``HoeffdingTreeRegressor``: every prediction bit
for bit, the trees' sizes, several radii, the three leaf predictions, weights, missing,
nominal and late features; pickling and ``to_river`` mid-stream continue identically; a value
River cannot quantize changes nothing."""

from __future__ import annotations

import copy
import math
import pickle
import random

import pytest
from river import datasets, tree
from river.datasets import synth
from river.tree.splitter import QOSplitter

import river_boost as rb
from river_boost.forest import (
    BoundedHoeffdingTreeRegressor,
    HoeffdingRegressionForest,
    MidpointQOSplitter,
)

from .test_regression_forest import (
    friedman,
    nominal_models,
    nominal_stream,
    run,
    same,
    with_missing,
    with_weights,
)

#: River's observer, and ours whose split sends the slots below the threshold left
SPLITTERS = pytest.mark.parametrize("qo", [QOSplitter, MidpointQOSplitter])


def qo_tree(radius=0.25, cls=tree.HoeffdingTreeRegressor, qo=QOSplitter, **kw):
    return cls(splitter=qo(radius=radius), **kw)


def late_and_negative(n, seed=21):
    """Friedman with centred features (negative values, slots on both sides of 0) whose last
    three features appear only after the first third."""
    out = []
    for t, (x, y) in enumerate(synth.Friedman(seed=seed).take(n)):
        x = {k: 4.0 * (v - 0.5) for k, v in x.items()}
        if t < n // 3:
            for k in (7, 8, 9):
                del x[k]
        out.append((x, y))
    return out


@SPLITTERS
@pytest.mark.parametrize("leaf", ["mean", "model", "adaptive"])
@pytest.mark.parametrize("radius", [0.02, 0.1, 0.25])
def test_leaf_predictions_radii_weights_missing(leaf, radius, qo):
    stream = with_weights(with_missing(friedman(1500, seed=7)))
    models = [
        qo_tree(radius, grace_period=50, leaf_prediction=leaf, delta=1e-3, qo=qo),
        qo_tree(radius, grace_period=80, leaf_prediction=leaf, tau=0.2, qo=qo),
    ]
    forest, trees = run(models, stream)
    assert trees[0].n_nodes > 3


@SPLITTERS
@pytest.mark.parametrize("radius", [0.5, 1, 1.5])
def test_negative_values_and_late_features(radius, qo):
    stream = with_weights(late_and_negative(2000))
    models = [
        qo_tree(radius, grace_period=40, leaf_prediction="mean", delta=1e-2, qo=qo),
        qo_tree(radius, grace_period=40, delta=1e-2, remove_poor_attrs=True, qo=qo),
        qo_tree(radius, grace_period=40, binary_split=True, min_samples_split=20, qo=qo),
    ]
    forest, trees = run(models, stream)
    assert trees[0].n_nodes > 3


def test_options_and_drift():
    stream = list(synth.FriedmanDrift(drift_type="gra", position=(400, 900), seed=3).take(1500))
    models = [
        qo_tree(0.1, grace_period=40, max_depth=3),
        qo_tree(0.1, grace_period=40, max_depth=4, stop_mem_management=True),
        qo_tree(0.05, grace_period=40, min_samples_split=30, merit_preprune=False),
        qo_tree(0.1, grace_period=30, model_selector_decay=0.5, tau=0.5),
        tree.HoeffdingTreeRegressor(
            grace_period=40,
            binary_split=True,  # River then never evaluates a multiway split
            splitter=QOSplitter(radius=0.1, allow_multiway_splits=True),
        ),
        qo_tree(0.1, BoundedHoeffdingTreeRegressor, grace_period=40, max_size=100.0),
    ]
    run(models, stream)


@SPLITTERS
@pytest.mark.parametrize("binary", [False, True])
def test_nominal_features_alongside(binary, qo):
    models = nominal_models(binary, splitter=qo(radius=0.1))
    run(models, with_weights(with_missing(nominal_stream(1500), p=0.1)))


def test_real_datasets():
    run([qo_tree(2.0, grace_period=50, delta=1e-3)], list(datasets.TrumpApproval()))
    chicks = list(datasets.ChickWeights())  # int features and targets
    run(
        [
            qo_tree(1, grace_period=30, delta=1e-2),
            qo_tree(3, grace_period=30, delta=1e-2, nominal_attributes=["diet"]),
        ],
        chicks,
    )


@SPLITTERS
def test_pickle_deepcopy_copy_tree_and_to_river_continue_identically(qo):
    data = with_weights(with_missing(late_and_negative(1600, seed=5)))
    models = [
        qo_tree(0.3, grace_period=30, leaf_prediction="mean", delta=1e-2, qo=qo),
        qo_tree(0.3, grace_period=30, delta=1e-2, qo=qo),
        qo_tree(0.3, BoundedHoeffdingTreeRegressor, grace_period=30, max_size=0.01, qo=qo),
    ]
    forest = HoeffdingRegressionForest(models)
    for x, y, w in data[:800]:
        for i in range(3):
            forest.learn_one(i, x, y, w)
    clones = [pickle.loads(pickle.dumps(forest)), copy.deepcopy(forest)]
    rivers = forest.models[:2]  # (River's bounded tree measures Python objects)
    assert [t.summary for t in rivers] == [forest.summary(i) for i in range(2)]
    assert forest.add(models[0]) == 3
    forest.copy_tree(0, 3)
    rivers.append(copy.deepcopy(rivers[0]))
    for x, y, w in data[800:]:
        for i in range(3):
            p = forest.predict_one(i, x)
            assert all(same(c.predict_one(i, x), p) for c in clones)
            if i < 2:
                assert same(rivers[i].predict_one(x), p)
                rivers[i].learn_one(x, y, w=w)
            for g in [forest, *clones]:
                g.learn_one(i, x, y, w)
        assert same(forest.predict_one(3, x), rivers[2].predict_one(x))
        forest.learn_one(3, x, y, w)
        rivers[2].learn_one(x, y, w=w)
    # (the nodes: the bounded tree's size estimates count capacities, which pickling trims)
    nodes = [t[2] for t in forest._get_state()["trees"][:3]]
    assert all([t[2] for t in c._get_state()["trees"]] == nodes for c in clones)


@pytest.mark.parametrize(
    "x", [{"a": math.nan}, {"a": math.inf}, {"a": -math.inf}, {"a": 1e308, "b": 1.0}]
)
def test_values_river_cannot_quantize_change_nothing(x):
    model = qo_tree(1e-10, grace_period=10, leaf_prediction="mean", nominal_attributes=["n"])
    forest = HoeffdingRegressionForest([model])
    for k in range(30):
        forest.learn_one(0, {"a": k * 1e-9, "b": 0.5, "n": math.nan}, float(k))
    before = pickle.dumps(forest)
    with pytest.raises((ValueError, OverflowError)):  # River: math.floor fails
        model.clone().learn_one(x, 1.0)
    with pytest.raises(ValueError, match="cannot be quantized"):
        forest.learn_one(0, x, 1.0)
    with pytest.raises(ValueError, match="cannot be quantized"):
        forest.learn_one(0, {**x, "new": math.nan}, 1.0)  # a feature never seen
    assert pickle.dumps(forest) == before
    forest.learn_one(0, {"a": 0.5, "n": math.inf}, 1.0)  # a nominal attribute is not quantized


def test_supports():
    supports = HoeffdingRegressionForest.supports
    assert supports(qo_tree())
    assert supports(qo_tree(2, BoundedHoeffdingTreeRegressor))
    assert supports(
        tree.HoeffdingTreeRegressor(
            binary_split=True, splitter=QOSplitter(allow_multiway_splits=True)
        )
    )
    assert not supports(
        tree.HoeffdingTreeRegressor(splitter=QOSplitter(allow_multiway_splits=True))
    )
    learned = QOSplitter()
    learned.update(1.0, 2.0, 1.0)
    assert not supports(tree.HoeffdingTreeRegressor(splitter=learned))
    for bad in (math.inf, math.nan, True, "0.5", 2**60):
        sp = QOSplitter()
        sp.radius = bad
        assert not supports(tree.HoeffdingTreeRegressor(splitter=sp)), bad


def test_state_keeps_the_radius_of_each_tree():
    models = [
        qo_tree(0.05, grace_period=1000),
        qo_tree(0.5, grace_period=1000, qo=MidpointQOSplitter),
    ]
    forest = HoeffdingRegressionForest(models)
    rng = random.Random(1)
    for _ in range(200):
        x = {"a": rng.uniform(-2, 2)}
        for i in range(2):
            forest.learn_one(i, x, x["a"] ** 2)
    trees = forest._get_state()["trees"]
    slots = [t[2][-1][8][0][2] for t in trees]  # the root leaf's splitter: (radius, below, slots)
    assert [(r, below) for r, below, _ in slots] == [(0.05, 0), (0.5, 1)]
    assert len(slots[0][2]) > 5 * len(slots[1][2])


def test_midpoint_splits_two_slot_features_river_never_splits():
    # a 0/1 feature: River's QOSplitter scores its only threshold with both slots on the
    # left (merit -inf), ours with slot 0 on the left
    rng = random.Random(2)
    data = [
        ({"a": b, "c": rng.random()}, 3.0 * b + rng.gauss(0, 0.1))
        for b in [rng.randint(0, 1) for _ in range(800)]
    ]
    for qo, splits in ((QOSplitter, False), (MidpointQOSplitter, True)):
        forest, trees = run([qo_tree(0.25, grace_period=50, leaf_prediction="mean", qo=qo)], data)
        rows = forest._get_state()["trees"][0][2]
        assert (rows[0][0] == 1 and forest._get_state()["features"][rows[0][3]] == "a") is splits


@SPLITTERS
def test_a_booster_pickled_mid_stream_predicts_as_the_original(qo):
    weak = BoundedHoeffdingTreeRegressor(grace_period=20, leaf_prediction="mean", splitter=qo())
    model = rb.SGBTClassifier(model=weak, n_models=5, seed=1)
    data = list(synth.Waveform(seed=3).take(900))
    for x, y in data[:500]:
        model.learn_one(x, y)
    clone = pickle.loads(pickle.dumps(model))
    for x, y in data[500:]:
        assert clone.predict_proba_one(x) == model.predict_proba_one(x)
        model.learn_one(x, y)
        clone.learn_one(x, y)
