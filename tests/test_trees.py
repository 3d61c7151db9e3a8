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
from river_boost.trees import FastGaussianSplitter, FastHoeffdingTreeClassifier


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
    assert pickle.loads(pickle.dumps(model)).predict_one({"a": 1.0}) == model.predict_one(
        {"a": 1.0}
    )


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


# ---------------------------------------------------------------- FastHoeffdingTreeClassifier


def _mixed_stream(n, seed=0):
    """Numeric, integer and nominal (string) features, three classes, some features missing."""
    rng = random.Random(seed)
    for _ in range(n):
        y = rng.randrange(3)
        x = {
            "a": rng.gauss(0.5 * y, 1.0),
            "b": round(rng.gauss(y, 2.0)),  # integer-valued: ties, zero variances early on
            "colour": rng.choice(["red", "green", "blue"][: y + 1]),
            "c": rng.uniform(-1, 1),
        }
        yield {k: v for k, v in x.items() if rng.random() > 0.1}, y


def _trace(model, stream, weights):
    rng = random.Random(1)
    out = []
    for x, y in stream:
        out.append((model.predict_proba_one(x), model.n_inactive_leaves))
        model.learn_one(
            x, y, w=rng.choice([1.0, 0.3, 57.0, rng.uniform(0.01, 20)]) if weights else 1.0
        )
    return out


@pytest.mark.parametrize("leaf_prediction", ["nba", "nb", "mc"])
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"grace_period": 5, "delta": 0.5, "tau": 0.5},
        # a memory limit this small makes River deactivate and reactivate leaves
        {"grace_period": 5, "delta": 0.5, "max_size": 0.02, "memory_estimate_period": 100},
    ],
)
def test_fast_tree_predicts_as_rivers_to_the_last_bit(leaf_prediction, params):
    streams = {
        "segments": lambda: datasets.ImageSegments().take(800),
        "mixed": lambda: _mixed_stream(1500),
    }
    inactive = 0
    for name, stream in streams.items():
        for weights in (False, True):
            kwargs = {"leaf_prediction": leaf_prediction, **params}
            river = tree.HoeffdingTreeClassifier(**kwargs)
            fast = FastHoeffdingTreeClassifier(splitter=FastGaussianSplitter(), **kwargs)
            expected = _trace(river, stream(), weights)
            assert _trace(fast, stream(), weights) == expected, name
            assert fast.n_nodes == river.n_nodes
            inactive = max(inactive, max(n for _, n in expected))
    if "max_size" in params:
        assert inactive > 0  # River's memory manager did deactivate leaves


def test_fast_tree_clones_pickles_and_is_the_default():
    model = default_model()
    assert type(model) is FastHoeffdingTreeClassifier
    assert type(model.splitter) is FastGaussianSplitter
    clone = model.clone({"grace_period": 7})
    assert type(clone) is FastHoeffdingTreeClassifier and clone.grace_period == 7
    stream = list(_mixed_stream(600, seed=4))
    for x, y in stream[:400]:
        model.learn_one(x, y)
    restored = pickle.loads(pickle.dumps(model))
    for x, y in stream[400:]:
        assert restored.predict_proba_one(x) == model.predict_proba_one(x)
        restored.learn_one(x, y)
        model.learn_one(x, y)


def test_fast_tree_caches_at_most_one_entry_per_class_and_leaf():
    model = FastHoeffdingTreeClassifier(grace_period=20, delta=0.1)
    for x, y in _mixed_stream(3000, seed=5):
        model.predict_proba_one(x)
        model.learn_one(x, y)
    leaves = [leaf for leaf in model._root.iter_leaves()]
    assert len(leaves) > 1
    for leaf in leaves:
        assert set(leaf._nb_terms) <= set(leaf.stats)
        assert all(len(terms) <= len(leaf.splitters) for terms in leaf._nb_terms.values())


def test_fast_tree_passes_rivers_checks():
    from river.checks import check_estimator

    check_estimator(FastHoeffdingTreeClassifier())


def test_rivers_memory_manager_measures_the_fast_tree_as_rivers():
    # River deactivates leaves by their measured size; the cache must not change that size
    from river.tree.utils import calculate_object_size

    river = tree.HoeffdingTreeClassifier(grace_period=20, delta=0.1)
    fast = FastHoeffdingTreeClassifier(grace_period=20, delta=0.1)
    for x, y in _mixed_stream(2000, seed=6):
        for model in (river, fast):
            model.predict_proba_one(x)
            model.learn_one(x, y)
    assert fast.n_leaves == river.n_leaves > 1
    assert calculate_object_size(fast) == calculate_object_size(river)
