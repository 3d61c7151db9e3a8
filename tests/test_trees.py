"""FastGaussianSplitter: River's GaussianSplitter with a faster split search, same results."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from river import datasets, evaluate, metrics, tree
from river.tree.split_criterion import GiniSplitCriterion, InfoGainSplitCriterion
from river.tree.splitter import GaussianSplitter

from river_boost.core import default_model
from river_boost.trees import FastGaussianSplitter


def _suggestion(s):
    return s.merit, s.feature, s.split_info, s.children_stats


def test_split_suggestions_equal_rivers_to_the_last_bit():
    rng = random.Random(0)
    for _ in range(2000):
        river, fast = GaussianSplitter(), FastGaussianSplitter()
        n_classes, pre = rng.randint(1, 7), {}
        for _ in range(rng.randint(1, 40)):
            c = rng.randrange(n_classes)
            # rounded values give ties and zero variances; weights below 1 give sigma = 0
            # with distinct values; numpy weights are what the boosters pass
            x = round(rng.gauss(0.3 * c, 1.0), rng.choice([0, 1, 6]))
            w = rng.choice([1.0, 0.3, 57.3, rng.uniform(0.01, 200), np.float64(rng.uniform(0, 9))])
            river.update(x, c, w)
            fast.update(x, c, w)
            pre[c] = pre.get(c, 0.0) + w
        criterion = InfoGainSplitCriterion(min_branch_fraction=rng.choice([0.01, 0.1, 0.4]))
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = river.best_evaluated_split_suggestion(criterion, pre, "f", True)
            got = fast.best_evaluated_split_suggestion(criterion, pre, "f", True)
        assert _suggestion(got) == _suggestion(expected)


def test_other_criteria_use_rivers_search():
    river, fast = GaussianSplitter(), FastGaussianSplitter()
    for i in range(30):
        river.update(float(i), i % 3, 1.0)
        fast.update(float(i), i % 3, 1.0)
    pre = {0: 10.0, 1: 10.0, 2: 10.0}
    criterion = GiniSplitCriterion(min_branch_fraction=0.01)
    assert _suggestion(fast.best_evaluated_split_suggestion(criterion, pre, "f", True)) == (
        _suggestion(river.best_evaluated_split_suggestion(criterion, pre, "f", True))
    )


def test_trees_grow_identically_and_clone_and_pickle():
    for kwargs in ({}, {"grace_period": 5, "delta": 0.5, "tau": 0.5}):
        accuracies, sizes = [], []
        for splitter in (None, FastGaussianSplitter()):
            model = tree.HoeffdingTreeClassifier(splitter=splitter, **kwargs)
            accuracy = evaluate.progressive_val_score(
                datasets.ImageSegments().take(1000), model, metrics.Accuracy()
            )
            accuracies.append(accuracy.get())
            sizes.append(model.n_nodes)
        assert accuracies[0] == accuracies[1] and sizes[0] == sizes[1]
    assert sizes[0] > 50  # the fast-splitting trees did split
    splitter = FastGaussianSplitter(n_splits=7)
    assert type(splitter.clone()) is FastGaussianSplitter and splitter.clone().n_splits == 7
    assert splitter.clone({"n_splits": 3}).n_splits == 3
    assert pickle.loads(pickle.dumps(model)).predict_one({"a": 1.0}) == model.predict_one({"a": 1.0})


def test_the_default_weak_learner_uses_it():
    model = default_model()
    assert isinstance(model, tree.HoeffdingTreeClassifier)
    assert type(model.splitter) is FastGaussianSplitter
    assert type(model.clone().splitter) is FastGaussianSplitter


@pytest.mark.parametrize("n_splits", [1, 10])
def test_a_single_value_has_no_split(n_splits):
    fast = FastGaussianSplitter(n_splits=n_splits)
    for _ in range(5):
        fast.update(1.0, 0, 1.0)
        fast.update(1.0, 1, 1.0)
    suggestion = fast.best_evaluated_split_suggestion(
        InfoGainSplitCriterion(0.01), {0: 5.0, 1: 5.0}, "f", True
    )
    assert suggestion.merit == -np.inf and suggestion.split_info is None
