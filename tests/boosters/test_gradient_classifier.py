"""SGBTClassifier: the compiled walk against the oracle (binary log loss, softmax with
classes arriving mid-stream), River's checks, labels, copies and pickles."""

from __future__ import annotations

import copy
import itertools
import math
import pickle

import pytest
from river import checks, datasets, drift, tree
from river_boost.engine._losses import MIN_HESSIAN, LogLoss

import river_boost as rb
from river_boost import _pickles

from ..oracles.gradient import SGBTOracle

PHISHING = list(itertools.islice(datasets.Phishing(), 300))
IMAGES = list(itertools.islice(datasets.ImageSegments(), 300))
SMALL_TREE = tree.HoeffdingTreeRegressor(grace_period=20, leaf_prediction="mean")


def compare(model, oracle, stream):
    for t, (x, y) in enumerate(stream):
        got, want = model.predict_proba_one(x), oracle.predict_one(x) if t else {}
        if t:
            assert set(got) == set(want), f"classes differ at example {t}"
            for c in want:
                assert math.isclose(got[c], want[c], rel_tol=1e-9, abs_tol=1e-12), (t, c)
        model.learn_one(x, y)
        oracle.learn(x, y)


def sgbt_pair(outputs, model=SMALL_TREE, n=3, lr=0.3, **params):
    """An SGBTClassifier and its oracle, built from the same parameters (the detector cloned;
    none unless given)."""
    params = {"drift_detector": None, "feature_fraction": 0.75, **params}
    booster = rb.SGBTClassifier(model=model, n_models=n, learning_rate=lr, **params)
    if params["drift_detector"] is not None:
        params["drift_detector"] = params["drift_detector"].clone()
    return booster, SGBTOracle(model, n, lr, outputs=outputs, **params)


def test_binary_walk_equals_the_oracle():
    model, oracle = sgbt_pair("binary", n=4, feature_fraction=0.5, seed=3)
    compare(model, oracle, PHISHING)


def test_softmax_walk_equals_the_oracle_with_classes_arriving():
    # the classes arrive one by one: sorted by label, the first 40 rows hold two of them
    stream = sorted(IMAGES[:120], key=lambda xy: xy[1])[::3] + IMAGES[120:200]
    model, oracle = sgbt_pair("softmax", drift_detector=drift.ADWIN(delta=0.5), seed=1)
    compare(model, oracle, stream)
    assert len(model.known_classes) == 7
    assert len(model.models) == 3 * 7


def test_softmax_feature_subsets_equal_the_oracle():
    # trees that split early, so that which features each sees shows in the probabilities
    # (each tree sees exactly 9 of ImageSegments' 18 features: the oracle's rule written out)
    splitty = tree.HoeffdingTreeRegressor(grace_period=10, delta=0.1, leaf_prediction="mean")
    model, oracle = sgbt_pair("softmax", splitty, feature_fraction=0.5, seed=6)
    compare(model, oracle, IMAGES)
    assert model._engine.subsets.size == 9
    assert max(model._engine.learners.n_nodes) > 1  # (some tree split)


def test_the_comparison_can_fail():
    model = rb.SGBTClassifier(
        model=SMALL_TREE, n_models=3, learning_rate=0.3, drift_detector=None, seed=1
    )
    oracle = SGBTOracle(SMALL_TREE, 3, 0.3 + 1e-7, seed=1, outputs="binary")
    with pytest.raises(AssertionError):
        compare(model, oracle, PHISHING[:100])


@pytest.mark.parametrize("params", list(rb.SGBTClassifier._unit_test_params()))
def test_river_check_estimator(params):
    checks.check_estimator(rb.SGBTClassifier(**params))


def test_labels_and_probabilities():
    model = rb.SGBTClassifier(n_models=3, seed=1)
    assert model.predict_proba_one(IMAGES[0][0]) == {}
    assert model.predict_one(IMAGES[0][0]) is None
    seen = []
    for x, y in IMAGES[:100]:
        model.learn_one(x, y)
        if y not in seen:
            seen.append(y)
        proba = model.predict_proba_one(x)
        assert list(proba) == seen == model.known_classes
        assert math.isclose(sum(proba.values()), 1.0)
    binary = rb.SGBTClassifier(n_models=3, seed=1)
    for x, y in PHISHING[:100]:
        binary.learn_one(x, y)
    assert set(binary.predict_proba_one(PHISHING[0][0])) == {False, True}
    before = pickle.dumps(binary)
    for bad in ("cat", None, 2):
        with pytest.raises(ValueError):
            binary.learn_one(PHISHING[0][0], bad)
    with pytest.raises(ValueError):
        binary.learn_one(PHISHING[0][0], True, w=-1.0)
    with pytest.raises(ValueError):
        model.learn_one(IMAGES[0][0], ["unhashable"])
    assert pickle.dumps(binary) == before


def test_one_engine_whatever_labels_come():
    # the first label sets the loss of the engine built with the booster, in place: the log
    # loss for bools, the softmax for any other label; later classes join that engine
    for stream, loss in ((PHISHING, "LogLoss"), (IMAGES, "SoftmaxLoss")):
        model = rb.SGBTClassifier(n_models=2, seed=1)
        engine = model._engine
        for x, y in stream[:60]:
            model.learn_one(x, y)
        assert model._engine is engine and type(engine.loss).__name__ == loss
        with pytest.raises(ValueError):  # (an engine that learned keeps its loss)
            engine.set_loss(LogLoss())
    # a state learned before any label is not one the booster wrote
    _, (cls, params, state, stamp) = model.__reduce__()
    with pytest.raises(rb.PickleFormatError):
        _pickles.restore(cls, params, (*state[:2], None, []), stamp)


def test_it_learns():
    model = rb.SGBTClassifier(seed=1)
    hits = 0
    for t, (x, y) in enumerate(PHISHING):
        hits += t >= 100 and model.predict_one(x) == y
        model.learn_one(x, y)
    assert hits / 200 > 0.8


def test_copies_and_pickles_continue_as_the_original():
    model = rb.SGBTClassifier(n_models=2, feature_fraction=0.6, seed=4)
    for x, y in IMAGES[:100]:
        model.learn_one(x, y)
    snapshot = pickle.dumps(model)
    loaded, clone, deep = (
        pickle.loads(snapshot),
        model.clone(include_attributes=True),
        copy.deepcopy(model),
    )
    for x, y in IMAGES[100:140]:
        expected = model.predict_proba_one(x)
        assert loaded.predict_proba_one(x) == expected == deep.predict_proba_one(x)
        for m in (model, loaded, deep):
            m.learn_one(x, y)
    assert pickle.dumps(clone) == snapshot


def test_a_class_joining_mid_stream_keeps_the_raw_scores_bounded():
    # LED's digits arrive one by one. With the Hessian floored at 1e-6, a class joining at the
    # tenth example moved a raw score to 6.4e5 (its target 1 / p, p tiny); floored at 0.01 a
    # target is at most |g| / 0.01 <= 100, and mean leaves lie within the targets, so no raw
    # score leaves n_models * rate * 100
    model = rb.SGBTClassifier(seed=42)
    bound = model.n_models * model.learning_rate / MIN_HESSIAN
    stream = datasets.synth.LED(seed=1, noise_percentage=0.1)
    largest = 0.0
    for x, y in itertools.islice(stream, 300):
        model.learn_one(x, y)
        raw = model._engine.raw_one(model._engine.clean(x))
        largest = max(largest, *(abs(v) for v in raw))
        assert largest <= bound * (1 + 1e-12)  # (the sum of 25 steps rounds)
    assert len(model.known_classes) == 10
    assert largest > bound / 4  # (the bound is near what the stream reaches: not vacuous)
