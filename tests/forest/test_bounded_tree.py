"""``forest.BoundedHoeffdingTree``: River's tree whose size limit binds under fractional
weights, in River's Python code and in the compiled forest alike."""

from __future__ import annotations

import copy
import itertools
import pickle
import random

import pytest
from river import checks, tree
from river.datasets import synth

import river_boost as rb
from river_boost.forest import (
    BoundedHoeffdingTree,
    BoundedHoeffdingTreeRegressor,
    HoeffdingForest,
    HoeffdingRegressionForest,
)

from .test_forest import Checker, float_weights, run


def boosting_weights(rng):
    """Fractional weights in (0, 1], as a booster's learners get them."""
    return rng.uniform(1e-3, 1.0)


def _learn(forest, models, stream, n, seed):
    """Every tree of ``forest`` and every River model in ``models`` learn the same ``n``
    examples, each with its own boosting weight."""
    rng = random.Random(seed)
    for x, y in itertools.islice(stream, n):
        for i in range(forest.n_models if forest is not None else 0):
            forest.learn_one(i, x, y, boosting_weights(rng))
        for m in models:
            m.learn_one(x, y, w=boosting_weights(rng))


@pytest.mark.parametrize("cls", [tree.HoeffdingTreeClassifier, BoundedHoeffdingTree])
def test_only_the_bounded_tree_measures_itself_under_fractional_weights(cls):
    """River measures a tree only when the weight it learned is an exact multiple of
    ``memory_estimate_period``: fractional weights step over every multiple, and its size
    estimates stay unset. The bounded tree measures at every multiple crossed, in River's
    code as in the forest."""
    model = cls(grace_period=20, memory_estimate_period=50)
    forest, python_tree = HoeffdingForest([model]), model.clone()
    _learn(forest, [python_tree], synth.SEA(seed=1), 2000, seed=1)
    measured = [
        forest._tree_scalars(0)["active_leaf_size_estimate"] > 0,
        python_tree._active_leaf_size_estimate > 0,
    ]
    assert measured == [cls is BoundedHoeffdingTree] * 2


@pytest.mark.parametrize("cls", [tree.HoeffdingTreeClassifier, BoundedHoeffdingTree])
def test_the_size_limit_binds_under_fractional_weights(cls):
    """A limit the trees outgrow: the bounded tree deactivates leaves (and its memory
    stops growing), River's tree never measures itself and grows on."""
    model = cls(grace_period=20, tau=0.2, max_size=0.05, memory_estimate_period=100)
    forest, python_tree = HoeffdingForest([model]), model.clone()
    stream = iter(synth.SEA(seed=2, noise=0.1))
    _learn(forest, [python_tree], stream, 15_000, seed=2)
    early = forest._allocated_bytes()
    _learn(forest, [], stream, 30_000, seed=3)
    late = forest._allocated_bytes()
    if cls is BoundedHoeffdingTree:
        assert forest.n_inactive_leaves[0] > 0 and python_tree.n_inactive_leaves > 0
        assert forest.n_active_leaves[0] < forest.n_leaves[0]
        # the inactive leaves keep only class counts: 10% more at most, for three times the
        # examples
        assert late < 1.1 * early
    else:
        assert forest.n_inactive_leaves[0] == python_tree.n_inactive_leaves == 0
        assert late > 1.5 * early


def test_the_forest_is_the_python_tree_while_the_limit_does_not_bind():
    """Measuring at every crossing changes nothing while the limit does not bind: the forest
    equals the Python BoundedHoeffdingTree call by call (predictions and states)."""
    cfgs = [
        {"grace_period": 10, "memory_estimate_period": 7, "tau": 0.2},
        {"grace_period": 10, "memory_estimate_period": 3.5, "leaf_prediction": "mc"},
        {"grace_period": 5, "memory_estimate_period": 20, "stop_mem_management": True},
    ]
    c = Checker(cfgs, cls=BoundedHoeffdingTree)
    run(c, synth.Hyperplane(seed=4, n_features=5), 800, weights=float_weights, seed=4, every=200)
    assert all(t._active_leaf_size_estimate > 0 for t in c.river)
    assert all(c.forest._tree_scalars(i)["active_leaf_size_estimate"] > 0 for i in range(3))
    assert type(c.forest.to_river(0)) is BoundedHoeffdingTree


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_bound_tree_pickles_mid_stream_and_continues_identically(how):
    model = BoundedHoeffdingTree(grace_period=20, tau=0.2, max_size=0.02, memory_estimate_period=60)
    forest = HoeffdingForest([model, tree.HoeffdingTreeClassifier(grace_period=20)])
    stream = iter(synth.SEA(seed=5, noise=0.1))
    _learn(forest, [], stream, 12_000, seed=5)
    assert forest.n_inactive_leaves[0] > 0
    if how == "pickle":
        twin = pickle.loads(pickle.dumps(forest))
    else:
        twin = copy.deepcopy(forest)
    rng, twin_rng = random.Random(6), random.Random(6)
    for x, y in itertools.islice(stream, 8000):
        assert twin.predict_proba_all(x) == forest.predict_proba_all(x)
        for i in range(2):
            forest.learn_one(i, x, y, boosting_weights(rng))
            twin.learn_one(i, x, y, boosting_weights(twin_rng))
    assert twin.n_inactive_leaves == forest.n_inactive_leaves
    # the same trees, statistics, counters and size estimates (the allocated capacities may
    # differ: a pickle does not keep them)
    assert twin._get_state() == forest._get_state()


def test_clone_keeps_the_class_and_its_defaults():
    model = BoundedHoeffdingTree(grace_period=50)
    clone = model.clone({"delta": 0.01})
    assert type(clone) is BoundedHoeffdingTree
    assert (clone.grace_period, clone.delta) == (50, 0.01)
    assert clone.max_size == BoundedHoeffdingTree().max_size
    assert clone.memory_estimate_period == BoundedHoeffdingTree().memory_estimate_period
    assert HoeffdingForest.supports(clone)


@pytest.mark.parametrize(
    "params", [{}, {"max_size": 0.01, "memory_estimate_period": 10, "grace_period": 10}]
)
def test_river_check_estimator(params):
    checks.check_estimator(BoundedHoeffdingTree(**params))


def test_a_booster_of_bounded_trees_pickles_mid_stream_and_predicts_identically():
    model = BoundedHoeffdingTree(grace_period=20, max_size=0.02, memory_estimate_period=100)
    booster = rb.AdaBoostOL(n_models=4, seed=7, model=model)
    stream = iter(synth.SEA(seed=8, noise=0.1))
    for x, y in itertools.islice(stream, 15_000):
        booster.learn_one(x, y)
    assert sum(booster.pool.learners.n_inactive_leaves) > 0  # the limit bound
    twin = pickle.loads(pickle.dumps(booster))
    for x, y in itertools.islice(stream, 5000):
        assert twin.predict_proba_one(x) == booster.predict_proba_one(x)
        booster.learn_one(x, y)
        twin.learn_one(x, y)


def _sizes(forest):
    """Each tree's summary and size counters (estimates, overhead)."""
    return [(forest.summary(i), forest._tree_scalars(i)) for i in range(forest.n_models)]


def _twin(obj, how):
    if how == "pickle":
        return pickle.loads(pickle.dumps(obj))
    if how == "deepcopy":
        return copy.deepcopy(obj)
    return obj.clone(include_attributes=True)


def _nominal(stream):
    """Friedman's features, one of them also as a category ("c", a nominal attribute:
    nominal splitters and multiway branches)."""
    for x, y in stream:
        yield {**x, "c": int(x[0] * 6)}, y


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_a_tree_pickled_before_its_limit_binds_measures_and_decides_as_the_original(kind, how):
    """The size policy measures the trees' C structures; a tree read back measures what the
    original measures (a regression tree: the capacities its arrays grew to, which a pickle
    carries), so once the limit binds both deactivate the same leaves at the same time."""
    if kind == "regressor":
        models = [
            BoundedHoeffdingTreeRegressor(
                grace_period=20, max_size=0.01, memory_estimate_period=30, nominal_attributes=["c"]
            ),
            BoundedHoeffdingTreeRegressor(
                grace_period=20,
                max_size=0.02,
                memory_estimate_period=7.5,
                leaf_prediction="mean",
                nominal_attributes=["c"],
            ),
        ]
        forest, stream = HoeffdingRegressionForest(models), _nominal(synth.Friedman(seed=1))
        predict = "predict_all"
    else:
        model = BoundedHoeffdingTree(
            grace_period=20, tau=0.2, max_size=0.01, memory_estimate_period=60
        )
        forest, stream = HoeffdingForest([model, model.clone()]), iter(synth.SEA(seed=5, noise=0.1))
        predict = "predict_proba_all"
    _learn(forest, [], stream, 300, seed=1)
    assert sum(s["n_inactive_leaves"] for s, _ in _sizes(forest)) == 0  # not bound yet
    twin = _twin(forest, how)
    rng, twin_rng = random.Random(2), random.Random(2)
    for x, y in itertools.islice(stream, 4000):
        assert getattr(twin, predict)(x) == getattr(forest, predict)(x)
        for i in range(forest.n_models):
            forest.learn_one(i, x, y, boosting_weights(rng))
            twin.learn_one(i, x, y, boosting_weights(twin_rng))
        assert _sizes(twin) == _sizes(forest)
    assert all(s["n_inactive_leaves"] > 0 for s, _ in _sizes(forest))  # bound since


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "clone"])
@pytest.mark.parametrize("booster", ["SGBTRegressor", "SGBTClassifier"])
def test_a_gradient_booster_of_bounded_trees_pickles_mid_stream_and_predicts_identically(
    booster, how
):
    """Through the boosters users run: pickled (deep-copied, cloned with its attributes)
    before the limit binds, the twin predicts as the original at every step after it."""
    model = BoundedHoeffdingTreeRegressor(
        grace_period=20, max_size=0.04, memory_estimate_period=10, nominal_attributes=["c"]
    )
    original = getattr(rb, booster)(model=model, n_models=3, seed=3)
    if booster == "SGBTRegressor":
        stream, predict = _nominal(synth.Friedman(seed=4)), "predict_one"
    else:
        stream, predict = iter(synth.SEA(seed=4, noise=0.1)), "predict_proba_one"
    for x, y in itertools.islice(stream, 200):
        original.learn_one(x, y)
    forest = original._engine.learners
    assert sum(s["n_inactive_leaves"] for s, _ in _sizes(forest)) == 0
    twin = _twin(original, how)
    for x, y in itertools.islice(stream, 3000):
        assert getattr(twin, predict)(x) == getattr(original, predict)(x)
        original.learn_one(x, y)
        twin.learn_one(x, y)
    assert _sizes(twin._engine.learners) == _sizes(original._engine.learners)
    assert sum(s["n_inactive_leaves"] for s, _ in _sizes(original._engine.learners)) > 0
