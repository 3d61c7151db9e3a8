"""The reproducers of the bad-input findings: each is a clear error or a documented behaviour.

Each test starts from a booster that has learned a few hundred rows where the finding said so,
and checks that a rejected event leaves it exactly as it was (its pickle unchanged) and that
nothing it accepts breaks a later call. `test_fuzz.py` covers the same ground at random.
"""

from __future__ import annotations

import decimal
import itertools
import pickle

import numpy as np
import pytest
from river import datasets, metrics, tree

import river_boost as rb

PHISHING = list(itertools.islice(datasets.Phishing(), 400))
IMAGES = list(datasets.ImageSegments())
YEAST = list(itertools.islice(datasets.Yeast(), 100))
X = PHISHING[0][0]


def trained(make, stream, n=300):
    model = make()
    for x, y in stream[:n]:
        model.learn_one(x, y)
    return model


def rejected(model, call, error=(ValueError, TypeError)):
    """``call(model)`` raises ``error`` and leaves the model exactly as it was."""
    before = pickle.dumps(model)
    with pytest.raises(error):
        call(model)
    assert pickle.dumps(model) == before


def test_a_label_of_another_kind_is_refused_and_does_not_poison():
    model = rb.AdaBoostOLM(n_models=3, seed=1)
    model.learn_one({"a": 1.0}, "cat")
    model.learn_one({"a": 2.0}, "dog")
    rejected(model, lambda m: m.learn_one({"a": 1.0}, 2))
    rejected(model, lambda m: m.learn_one({"a": 1.0}, float("nan")))  # each NaN was a new class
    assert model.known_classes == ["cat", "dog"]
    assert model.predict_one({"a": 1.0}) in ("cat", "dog")
    ranker = trained(lambda: rb.OnlineBMR(n_models=3, seed=1), YEAST, 50)
    rejected(ranker, lambda m: m.learn_one(YEAST[0][0], {**YEAST[0][1], 7: True}))
    rejected(ranker, lambda m: m.learn_one(YEAST[0][0], {"Class1": True, "Class99": "yes"}))
    assert "Class99" not in ranker.labels
    ranker.predict_one(YEAST[60][0])


@pytest.mark.parametrize("w", [1e200, 1e308, float("inf"), -1.0, float("nan"), "2", None, True])
def test_out_of_range_weights_are_refused_before_any_change(w):
    for make, stream in [
        (lambda: rb.MartingaleBooster(n_levels=3, seed=1), PHISHING),
        (lambda: rb.AdaBoostOL(n_models=3, seed=1), PHISHING[:20]),
        (lambda: rb.AdaOLMR(n_models=3, seed=1), YEAST),
        (lambda: rb.OnlineBMR(n_models=3, seed=1), YEAST),
    ]:
        model = trained(make, stream, len(stream) // 2)
        rejected(model, lambda m, x=stream[-1][0], y=stream[-1][1]: m.learn_one(x, y, w=w))


def test_tiny_weights_count_as_zero_and_break_nothing():
    model = rb.MartingaleBooster(n_levels=4, grace_period=100, seed=0)
    control = rb.MartingaleBooster(n_levels=4, grace_period=100, seed=0)
    for t, (x, y) in enumerate(PHISHING):
        tiny = t % 3 == 0
        model.learn_one(x, y, w=1e-300 if tiny else 1.0)
        if not tiny:
            control.learn_one(x, y)
        assert model.predict_proba_one(x) == control.predict_proba_one(x)


def test_rejected_events_are_not_half_learnt():
    booster = trained(lambda: rb.AdaBoostOL(n_models=3, seed=1), PHISHING)
    rejected(booster, lambda m: m.learn_one({**X, "new": [1, 2]}, True))
    mbbm = trained(lambda: rb.OnlineMBBM(n_models=3, seed=1), IMAGES)
    rejected(mbbm, lambda m: m.learn_one(None, "z"))
    assert "z" not in mbbm.known_classes


@pytest.mark.parametrize("value", [1.3e154, 1e300, 10**400, -(10**400), 1e100])
def test_huge_feature_values_are_missing_features(value):
    model = trained(lambda: rb.AdaBoostOLM(n_models=3, seed=1), IMAGES)
    x, y = IMAGES[301]
    assert model.predict_proba_one({**x, "hue-mean": value}) == model.predict_proba_one(
        {k: v for k, v in x.items() if k != "hue-mean"}
    )
    model.learn_one({**x, "hue-mean": value}, y)


def test_values_of_odd_types():
    model = trained(lambda: rb.OnlineBBM(n_models=3, seed=1), PHISHING)
    rejected(model, lambda m: m.learn_one({**X, "z": 1j}, True))  # complex: no order, no NaN test
    rejected(model, lambda m: m.predict_one({**X, "z": 1j}))
    missing = {k: v for k, v in X.items() if k != "long_url"}
    for odd in (decimal.Decimal("NaN"), np.float32("nan"), None, float("inf")):
        assert model.predict_proba_one({**X, "long_url": odd}) == model.predict_proba_one(missing)
    # a feature keeps the kind of its first learned value: a string later is missing
    assert model.predict_proba_one({**X, "long_url": "long"}) == model.predict_proba_one(missing)
    model.learn_one({**X, "long_url": "long"}, True)


@pytest.mark.parametrize("x", [None, [1.0, 2.0], "x", 3])
def test_not_a_dict_is_a_type_error(x):
    model = trained(lambda: rb.AdaBoostOL(n_models=3, seed=1), PHISHING)
    rejected(model, lambda m: m.learn_one(x, True), TypeError)
    rejected(model, lambda m: m.predict_one(x), TypeError)
    rejected(model, lambda m: m.predict_proba_one(x), TypeError)


FRESH = [
    lambda: rb.OnlineBBM(n_models=3, seed=1),
    lambda: rb.AdaBoostOLM(n_models=3, seed=1),
    lambda: rb.OnlineMBBM(n_models=3, gamma=0.2, seed=1),
    lambda: rb.AdaOLMR(n_models=3, seed=1),
    lambda: rb.MartingaleBooster(n_levels=3, seed=1),
]


@pytest.mark.parametrize("make", FRESH)
@pytest.mark.parametrize("x", [None, {"z": 1j}, {"a": 1.0, "b": [1, 2]}])
def test_a_fresh_booster_validates_what_it_predicts(make, x):
    """Before it knows any label a booster has nothing to predict, but bad input is still an
    error (a multiclass booster returned None for anything)."""
    model = make()
    calls = [lambda m: m.predict_one(x), lambda m: m.predict_proba_one(x)]
    if hasattr(model, "score_one"):
        calls.append(lambda m: m.score_one(x))
    for call in calls:
        rejected(model, call, TypeError)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol(protocol):
    from river_boost import forest

    for compiled in (False, True):  # River's trees, forest
        forest.ENABLED, saved = compiled, forest.ENABLED
        try:
            model = trained(lambda: rb.OnlineBBM(n_models=3, seed=1), PHISHING)
        finally:
            forest.ENABLED = saved
        restored = pickle.loads(pickle.dumps(model, protocol=protocol))
        for x, y in PHISHING[300:]:
            assert restored.predict_proba_one(x) == model.predict_proba_one(x)
            restored.learn_one(x, y)
            model.learn_one(x, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda: rb.AdaBoostOLM(n_models=5, seed=42),
        lambda: rb.OnlineMBBM(n_models=5, gamma=0.3, seed=42),
        lambda: tree.HoeffdingTreeClassifier(),  # River's tree alone does not recover
    ],
    ids=["AdaBoostOLM", "OnlineMBBM", "River's tree"],
)
def test_one_example_of_a_new_class_does_not_take_over(make):
    """River's naive-Bayes leaves favour a class seen once (its Gaussians are degenerate and
    skipped); the boosters read a class only once it has support (``tasks.MIN_SUPPORT``)."""

    def accuracy(inject):
        model, acc = make(), metrics.Accuracy()
        for t, (x, y) in enumerate(IMAGES):
            if inject and t == 1000:
                model.learn_one(x, "a class seen once")
            if t > 1000:
                acc.update(y, model.predict_one(x))
            model.learn_one(x, y)
        return acc.get()

    clean, injected = accuracy(False), accuracy(True)
    if isinstance(make(), tree.HoeffdingTreeClassifier):
        assert injected < clean - 0.3  # the weakness the boosters guard against
    else:
        assert injected > clean - 0.02


def test_infinite_learning_rate_is_refused():
    with pytest.raises(ValueError, match="learning_rate"):
        rb.AdaBoostOL(learning_rate=float("inf"))
