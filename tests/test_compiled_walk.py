"""The compiled walk (river_boost.walk) gives exactly what the Python walk gives.

Every booster runs twice on the same stream, once on the compiled walk and once on the
Python walk (the reference, ``walk.ENABLED = False``), both on the compiled forest; every
prediction (``predict_proba_one``, ``predict_one``, ``score_one``) must be the same object
value, float for float, and so must every diagnostic at the end. The streams mix the hard
cases: sample weights, missing and nominal features, label noise, a feature and a class (or a
label) that first appear mid-stream, numpy scalars and unusual keys (the cleaning's Python
fallbacks), and for ranking empty and full label sets.
"""

from __future__ import annotations

import itertools
import math
import pickle
import random

import numpy as np
import pytest
from river import datasets, tree
from river.datasets import synth

import river_boost as rb
from river_boost import forest, potentials, walk

pytestmark = pytest.mark.skipif(
    not (walk.AVAILABLE and forest.AVAILABLE),
    reason=walk.UNAVAILABLE_REASON or forest.UNAVAILABLE_REASON,
)


# ----------------------------------------------------------------------------- streams


def _binary_stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(synth.Agrawal(seed=seed).take(n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}  # missing features
        x["colour"] = rng.choice(["red", "green", "blue"])  # a nominal feature
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)  # a feature that appears mid-stream
        if t % 17 == 0:
            x["gap"] = None if t % 2 else math.nan  # missing values
        if t % 23 == 0:
            x["np"] = np.float32(rng.random())  # numpy scalars: the Python cleaning
        y = bool(y) if rng.random() > 0.1 else not y  # label noise
        out.append((x, int(y) if t % 5 == 0 else y, _weight(rng)))
    return out


def _multiclass_stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(itertools.islice(datasets.ImageSegments(), n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}
        x["colour"] = rng.choice(["red", "green", "blue"])
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)
            if t % 7 == 0:
                y = "late class"  # a class that appears mid-stream
        if rng.random() < 0.05:
            y = rng.choice(["sky", "cement", "window"])  # label noise
        out.append((x, y, _weight(rng)))
    return out


def _int_key_stream(n, seed):
    """Integer feature names (the cleaning's other compiled case), multiclass labels 0..2."""
    rng = random.Random(seed)
    gen = synth.RandomRBF(seed_model=seed, seed_sample=seed, n_classes=3, n_features=6)
    out = []
    for t, (x, y) in enumerate(gen.take(n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.05}
        if t % 31 == 0:
            x[(1, "tuple key")] = 1.0  # keys of mixed kinds: Python's fallback sort
        out.append((x, y, _weight(rng)))
    return out


def _ranking_stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(itertools.islice(datasets.Yeast(), n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}
        x["colour"] = rng.choice(["red", "green", "blue"])
        y = dict(y)
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)
            y["late label"] = t % 3 == 0  # a label that appears mid-stream
        if t % 41 == 0:
            y = dict.fromkeys(y, t % 2 == 0)  # empty or full label sets: not learned
        out.append((x, y, _weight(rng)))
    return out


def _weight(rng):
    return rng.choice([1.0, 1.0, 0.5, 3.0, 0.0, rng.uniform(0.01, 5)])


STREAMS = {
    "binary": _binary_stream,
    "multiclass": _multiclass_stream,
    "int keys": _int_key_stream,
    "ranking": _ranking_stream,
}


def _mc_tree():
    return tree.HoeffdingTreeClassifier(leaf_prediction="mc")


# (booster, parameters, stream): every rule the library ships, every prediction, both
# weightings, the papers' weight scales, feature subsets, both priors and both weak predictions
CASES = [
    (rb.OnlineBBM, {"gamma": 0.2}, "binary"),
    (rb.OnlineBBM, {"weighting": "sampling", "diversify": "paper"}, "binary"),
    (rb.PotentialBooster, {"potential": potentials.BinomialPotential(4, 0.1)}, "binary"),
    (rb.NHBoostDT, {}, "binary"),
    (rb.NHBoostDT, {"weighting": "sampling", "feature_fraction": 0.6}, "binary"),
    (rb.SquintBoost, {"diversify": "paper"}, "binary"),
    (rb.SquintBoost, {"prior": "uniform", "min_weight": 0.0}, "binary"),
    (rb.OSBoost, {"gamma": 0.1}, "binary"),
    (rb.OSBoost, {"weighting": "sampling"}, "binary"),
    (rb.AdaBoostOL, {}, "binary"),
    (rb.AdaBoostOL, {"prediction": "vote", "feature_fraction": 0.6}, "binary"),
    (rb.AdaBoostOL, {"prediction": "random", "weighting": "sampling"}, "binary"),
    (rb.AdaBoostOL, {"diversify": "paper", "learning_rate": 1.0}, "binary"),
    (rb.AdaBoostOLM, {}, "multiclass"),
    (rb.AdaBoostOLM, {"weak_prediction": "argmax", "prediction": "vote"}, "multiclass"),
    (rb.AdaBoostOLM, {"prediction": "random", "weighting": "sampling"}, "multiclass"),
    (rb.AdaBoostOLM, {"diversify": "paper", "feature_fraction": 0.6}, "int keys"),
    (rb.OnlineMBBM, {}, "multiclass"),
    (rb.OnlineMBBM, {"weak_prediction": "argmax", "diversify": "paper"}, "multiclass"),
    (rb.OnlineMBBM, {"weighting": "sampling", "classes": (0, 1, 2)}, "int keys"),
    (rb.AdaOLMR, {"model": _mc_tree()}, "ranking"),
    (rb.AdaOLMR, {"prediction": "random", "weighting": "sampling"}, "ranking"),
    (rb.OnlineBMR, {"model": _mc_tree(), "diversify": "paper"}, "ranking"),
    (rb.OnlineBMR, {"loss": "rank", "feature_fraction": 0.6, "gamma": 0.2}, "ranking"),
]


def _ids(case):
    cls, params, stream = case
    return f"{cls.__name__}-{stream}-" + ",".join(sorted(params)) if params else cls.__name__


def _build(cls, params, enabled, monkeypatch):
    monkeypatch.setattr(walk, "ENABLED", enabled)
    fresh = {k: v.clone() if hasattr(v, "clone") else v for k, v in params.items()}
    return cls(n_models=4, seed=5, **fresh)


def _outputs(model, x, enabled, monkeypatch):
    """Everything the booster predicts for x, on the chosen walk."""
    monkeypatch.setattr(walk, "ENABLED", enabled)
    out = [model.predict_proba_one(x), model.predict_one(x)]
    if hasattr(model, "score_one"):
        out.append(model.score_one(x))
    return out


def _learn(model, x, y, w, enabled, monkeypatch):
    monkeypatch.setattr(walk, "ENABLED", enabled)
    model.learn_one(x, y, w=w)


def _diagnostics(model):
    out = {
        "edges": model.edges,
        "alphas": model.alphas,
        "expert_weights": model.expert_weights,
        "learner_updates": model.learner_updates,
        "zero_weights": model.zero_weights,
        "offered": model.pool.offered,
        "n_seen": model.n_seen,
        "n_nodes": [m.n_nodes for m in model.models],
    }
    if model._experts is not None:
        out["log_weights"] = list(model._experts.hedge.log_weights)
        out["t"] = model._experts.ogd.t
    if hasattr(model, "n_skipped"):
        out["n_skipped"] = model.n_skipped
    return out


def _same(a, b) -> bool:
    """Equal, with NaN equal to itself (bit for bit, not approximately)."""
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def _compare(compiled, python, stream, monkeypatch, switch_at=None) -> int:
    """Feed ``stream`` to both (predict, then learn each example): the number of examples
    whose predictions differ, and the two boosters. ``switch_at``: both are pickled there and
    go on on the other walk (the compiled booster on the Python walk and vice versa)."""
    on = (True, False)
    differ = 0
    for t, (x, y, w) in enumerate(stream):
        if t == switch_at:
            compiled = pickle.loads(pickle.dumps(compiled))
            python = pickle.loads(pickle.dumps(python))
            on = (False, True)
        a = _outputs(compiled, x, on[0], monkeypatch)
        b = _outputs(python, x, on[1], monkeypatch)
        differ += not _same(a, b)
        _learn(compiled, x, y, w, on[0], monkeypatch)
        _learn(python, x, y, w, on[1], monkeypatch)
    return differ, compiled, python


# ----------------------------------------------------------------------------- the walks agree


def test_the_numpy_kernels_and_the_cleaning_are_the_ones_checked():
    """The multiclass and ranking walks need NumPy's own kernels, and the compiled cleaning
    copies core's: if core's input checks change, review river_boost/_walk.pyx and update
    walk.CLEANING_FINGERPRINT (until then the Python cleaning runs, correctly but slower)."""
    assert walk.NUMPY_EXACT, walk.NUMPY_REASON
    assert walk.cleaning_fingerprint() == walk.CLEANING_FINGERPRINT


@pytest.mark.parametrize("cls, params, stream", CASES, ids=[_ids(c) for c in CASES])
def test_compiled_and_python_walks_agree_exactly(cls, params, stream, monkeypatch):
    data = STREAMS[stream](250 if stream == "ranking" else 400, seed=3)
    compiled = _build(cls, params, True, monkeypatch)
    python = _build(cls, params, False, monkeypatch)
    monkeypatch.setattr(walk, "ENABLED", True)
    assert type(walk.plan_for(compiled)).__name__ == "Plan"  # the compiled walk runs
    monkeypatch.setattr(walk, "ENABLED", False)
    assert walk.plan_for(python) is None
    differ, compiled, python = _compare(compiled, python, data, monkeypatch)
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))


@pytest.mark.parametrize(
    "cls, params, stream",
    [CASES[0], CASES[6], CASES[9], CASES[13], CASES[17], CASES[20], CASES[22]],
    ids=lambda c: getattr(c, "__name__", None),
)
def test_a_booster_pickled_mid_stream_goes_on_identically_on_the_other_walk(
    cls, params, stream, monkeypatch
):
    data = STREAMS[stream](300 if stream == "ranking" else 400, seed=4)
    compiled = _build(cls, params, True, monkeypatch)
    python = _build(cls, params, False, monkeypatch)
    differ, compiled, python = _compare(compiled, python, data, monkeypatch, switch_at=150)
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    # the pickles do not need the compiled walk: no object of river_boost._walk inside
    assert b"river_boost._walk" not in pickle.dumps(compiled)


def test_switching_walks_between_a_prediction_and_its_learning(monkeypatch):
    """The prediction's walk is remembered for the learning on the same x; switching walks in
    between (walk.ENABLED) recomputes it on the other side, with the same result."""
    data = _multiclass_stream(200, seed=6)
    a = _build(rb.AdaBoostOLM, {}, True, monkeypatch)
    b = _build(rb.AdaBoostOLM, {}, False, monkeypatch)
    for t, (x, y, w) in enumerate(data):
        first = t % 2 == 0
        assert _same(_outputs(a, x, first, monkeypatch), _outputs(b, x, False, monkeypatch))
        _learn(a, x, y, w, not first, monkeypatch)
        _learn(b, x, y, w, False, monkeypatch)
    assert _same(_diagnostics(a), _diagnostics(b))


def test_a_perturbed_rule_is_detected(monkeypatch):
    """The comparison can fail: one ulp more on AdaBoost.OL's weights in the Python reference
    changes what the two boosters do."""
    data = _binary_stream(300, seed=3)
    compiled = _build(rb.AdaBoostOL, {}, True, monkeypatch)
    python = _build(rb.AdaBoostOL, {}, False, monkeypatch)
    weight = potentials.logistic_weight
    monkeypatch.setattr(
        potentials, "logistic_weight", lambda s: math.nextafter(weight(s), math.inf)
    )
    differ, compiled, python = _compare(compiled, python, data, monkeypatch)
    assert differ > 0 or not _same(_diagnostics(compiled), _diagnostics(python))


def test_other_rules_and_learners_take_the_python_walk(monkeypatch):
    class Custom(potentials.NormalHedgePotential):  # a custom rule: its own methods run
        def advance(self, s, z, edge):
            return s + z - edge

    assert walk.plan_for(rb.PotentialBooster(Custom(), n_models=3, seed=1)) is None
    monkeypatch.setattr(forest, "ENABLED", False)  # River's trees, not the compiled forest
    assert walk.plan_for(rb.AdaBoostOL(n_models=3, seed=1)) is None
    monkeypatch.setattr(forest, "ENABLED", True)
    booster = rb.AdaBoostOL(n_models=3, seed=1)
    assert walk.plan_for(booster) is not None
    monkeypatch.setattr(walk, "ENABLED", False)
    assert walk.plan_for(booster) is None


@pytest.mark.parametrize(
    "x, y, w, error",
    [
        ({"a": 1.0}, 2, 1.0, ValueError),  # not a binary label
        ({"a": 1.0}, True, -1.0, ValueError),  # negative weight
        ({"a": 1.0}, True, math.nan, ValueError),
        ({"a": 1.0}, True, "1", ValueError),
        ([("a", 1.0)], True, 1.0, TypeError),  # not a dict
        ({"a": [1.0]}, True, 1.0, TypeError),  # not a number or a string
    ],
)
def test_bad_input_raises_the_same_and_leaves_no_trace(x, y, w, error, monkeypatch):
    boosters = [_build(rb.AdaBoostOL, {}, enabled, monkeypatch) for enabled in (True, False)]
    data = _binary_stream(50, seed=1)
    for enabled, booster in zip((True, False), boosters):
        for xx, yy, ww in data:
            _learn(booster, xx, yy, ww, enabled, monkeypatch)
        monkeypatch.setattr(walk, "ENABLED", enabled)
        with pytest.raises(error):
            booster.learn_one(x, y, w=w)
    assert _same(_diagnostics(boosters[0]), _diagnostics(boosters[1]))
    x0 = data[0][0]
    assert _same(
        _outputs(boosters[0], x0, True, monkeypatch), _outputs(boosters[1], x0, False, monkeypatch)
    )


def test_timing_counts_the_forest_calls():
    from river_boost import _walk

    booster = rb.AdaBoostOL(n_models=3, seed=1)
    _walk.set_timing(True)
    try:
        for x, y, w in _binary_stream(100, seed=2):
            booster.predict_one(x)
            booster.learn_one(x, y, w=w)
        assert _walk.forest_seconds() > 0.0
    finally:
        _walk.set_timing(False)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_label_joining_after_a_prediction_of_the_same_x(enabled, monkeypatch):
    """The walk a prediction made is not reused once a new label has joined (both walks)."""
    monkeypatch.setattr(walk, "ENABLED", enabled)
    booster = rb.AdaOLMR(n_models=3, seed=1)
    booster.learn_one({"a": 1.0}, {"x": True, "y": False})
    booster.score_one({"a": 2.0})
    booster.learn_one({"a": 2.0}, {"x": True, "y": False, "z": True})
    assert list(booster.score_one({"a": 2.0})) == ["x", "y", "z"]
