"""The gradient boosters' weak learners (river_boost.learners): the interface the compiled
walk calls, on River regressors, and the one place that picks an implementation."""

from __future__ import annotations

import itertools
import pickle

import pytest
from river import datasets, linear_model, naive_bayes, tree

from river_boost import learners
from river_boost.forest import HoeffdingRegressionForest
from river_boost.subsets import FeatureSubsets

DATA = list(itertools.islice(datasets.synth.Friedman(seed=1), 120))


@pytest.mark.parametrize("impl", learners.IMPLEMENTATIONS)
def test_each_learner_is_its_models_clone_and_sees_its_subset(impl):
    """Both implementations: River's trees in Python, and the compiled ones (bit for bit)."""
    subsets = FeatureSubsets(0.5, [11, 22, 33])
    model = tree.HoeffdingTreeRegressor(grace_period=20)
    group = impl([model.clone() for _ in range(3)], subsets)
    assert group.n_models == 3
    twins = [model.clone() for _ in range(3)]
    for x, y in DATA:
        direct = [group.predict_one(i, x) for i in range(3)]  # (the forest: unloads)
        group.load(x)
        for i in range(3):
            view = {f: v for f, v in x.items() if subsets.keeps(i, f)}
            assert group.predict_loaded(i) == (twins[i].predict_one(view) or 0.0) == direct[i]
            group.learn_loaded(i, y, 0.5)
            twins[i].learn_one(view, y, w=0.5)
    # (the learners' subsets differ: the check above compared each with its own)
    assert len({frozenset(f for f in DATA[0][0] if subsets.keeps(i, f)) for i in range(3)}) > 1


def test_add_reset_copy_remove():
    group = learners.RegressorLearners([linear_model.LinearRegression() for _ in range(2)])
    for x, y in DATA[:30]:
        group.learn_one(0, x, y, 1.0)
    x = DATA[40][0]
    trained = group.predict_one(0, x)
    assert trained != 0.0 and group.predict_one(1, x) == 0.0
    assert group.add(linear_model.LinearRegression()) == 2 and group.n_models == 3
    group.copy_tree(0, 2)
    assert group.predict_one(2, x) == trained
    group.learn_one(2, x, 100.0, 1.0)  # a copy, not a reference
    assert group.predict_one(0, x) == trained
    group.reset(0)
    assert group.predict_one(0, x) == 0.0
    group.remove(1)
    assert group.n_models == 2 and group.predict_one(1, x) != trained
    # the loaded x is not pickled
    group.load(x)
    assert pickle.loads(pickle.dumps(group))._x is None


def test_the_choice_of_implementation_is_one_place():
    # River's Hoeffding regression trees run compiled; any other regressor in Python
    compiled = learners.make_learners(tree.HoeffdingTreeRegressor(), 3)
    assert type(compiled) is HoeffdingRegressionForest and compiled.n_models == 3
    python = learners.make_learners(linear_model.LinearRegression(), 2)
    assert type(python) is learners.RegressorLearners and python.n_models == 2
    assert learners.RegressorLearners.supports(tree.HoeffdingTreeRegressor())
    assert not learners.RegressorLearners.supports(naive_bayes.GaussianNB())
    with pytest.raises(ValueError, match="River regressors"):
        learners.make_learners(naive_bayes.GaussianNB(), 2)

    class Linear(learners.RegressorLearners):  # another implementation of some models
        @staticmethod
        def supports(model):
            return isinstance(model, linear_model.LinearRegression)

    saved = learners.IMPLEMENTATIONS
    learners.IMPLEMENTATIONS = (Linear, *saved)
    try:
        assert type(learners.make_learners(linear_model.LinearRegression(), 2)) is Linear
        assert type(learners.make_learners(tree.HoeffdingTreeRegressor(), 2)) is not Linear
    finally:
        learners.IMPLEMENTATIONS = saved


def test_a_trees_size_limit_binds_under_fractional_weights():
    """River's tree measures itself only at exact multiples of its period: the learners
    measure it whenever its weight crosses one, so that max_size binds."""
    data = list(itertools.islice(datasets.synth.Friedman(seed=2), 1500))

    def grown(group):
        for x, y in data:
            group.learn_one(0, x, y, 0.37)
        return group.models[0]

    small = tree.HoeffdingTreeRegressor(grace_period=20, max_size=0.02, memory_estimate_period=50)
    assert grown(learners.RegressorLearners([small.clone()])).n_inactive_leaves > 0
    river_alone = small.clone()
    for x, y in data:
        river_alone.learn_one(x, y, w=0.37)
    assert river_alone.n_inactive_leaves == 0  # (why the learners measure)
