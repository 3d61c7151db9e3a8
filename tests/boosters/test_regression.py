"""The gradient-boosting regressors (SGBTRegressor, OnlineGradientBoostRegressor): the
compiled walk against the plain-Python oracle (tests/oracles/gradient.py), River's checks,
input checks, copies, pickles and seeds."""

from __future__ import annotations

import array
import copy
import itertools
import math
import pickle
import random

import pytest
from river import checks, datasets, drift, linear_model, tree

import river_boost as rb
from river_boost import PickleFormatError
from river_boost.gradient import default_regressor

from ..oracles.gradient import OGBOracle, SGBTOracle

FRIEDMAN = list(itertools.islice(datasets.synth.Friedman(seed=7), 400))
DRIFTING = list(
    itertools.islice(
        datasets.synth.FriedmanDrift(drift_type="gra", position=(150, 300), seed=3), 450
    )
)
TRUMP = list(itertools.islice(datasets.TrumpApproval(), 300))
SMALL_TREE = tree.HoeffdingTreeRegressor(grace_period=30, leaf_prediction="mean")


def assert_close(a: float, b: float, what: str) -> None:
    assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), f"{what}: {a!r} != {b!r}"


def compare(model, oracle, stream, weights=None) -> None:
    """The estimator and the oracle predict the same (1e-9 relative) all along ``stream``."""
    for t, (x, y) in enumerate(stream):
        assert_close(model.predict_one(x), oracle.predict_one(x), f"example {t}")
        w = 1.0 if weights is None else weights(t)
        model.learn_one(x, y, w=w)
        oracle.learn(x, y, w)


SGBT_CASES = {
    "squared": (FRIEDMAN, {"loss": "squared"}),
    "huber": (FRIEDMAN, {"loss": "huber", "delta": 2.0}),
    "quantile": (FRIEDMAN, {"loss": "quantile", "alpha": 0.9}),
    "subsets": (FRIEDMAN, {"feature_fraction": 0.5, "seed": 5}),
    "drift": (
        DRIFTING,
        {"drift_detector": drift.ADWIN(delta=0.9, clock=4), "feature_fraction": 0.6, "seed": 2},
    ),
    "trump": (TRUMP, {"loss": "huber", "delta": 1.0}),
}


def sgbt_pair(params, n=4, lr=0.3):
    params = {"seed": 0, "drift_detector": None, **params}  # (the same subsets for both)
    model = rb.SGBTRegressor(model=SMALL_TREE, n_models=n, learning_rate=lr, **params)
    oracle_params = {k: v for k, v in params.items()}
    if oracle_params["drift_detector"] is not None:
        oracle_params["drift_detector"] = oracle_params["drift_detector"].clone()
    oracle_params.setdefault("feature_fraction", model.feature_fraction)
    return model, SGBTOracle(SMALL_TREE, n, lr, **oracle_params)


@pytest.mark.parametrize("case", SGBT_CASES)
def test_sgbt_walk_equals_the_oracle(case):
    stream, params = SGBT_CASES[case]
    model, oracle = sgbt_pair(params)
    compare(model, oracle, stream, weights=(lambda t: 0.5 + (t % 3)) if case == "trump" else None)
    if case == "drift":  # the drift case replaced steps: the comparison covers replacements
        assert sum(model.replacements) > 0
        assert model.replacements == oracle.replacements


@pytest.mark.parametrize(
    "learner", [linear_model.LinearRegression(), SMALL_TREE], ids=["linear", "tree"]
)
@pytest.mark.parametrize("loss", ["squared", "huber", "quantile"])
def test_ogb_walk_equals_the_oracle(learner, loss):
    params = {"loss": loss, "delta": 3.0, "alpha": 0.7}
    model = rb.OnlineGradientBoostRegressor(model=learner, n_models=4, learning_rate=0.5, **params)
    oracle = OGBOracle(learner, 4, 0.5, **params)
    # targets around 0: the steps overshoot them, and the shrinkage moves
    compare(model, oracle, [(x, y - 14.0) for x, y in FRIEDMAN[:250]])
    for a, b in zip(model.sigmas, oracle.sigma):
        assert_close(a, b, "sigma")
    if loss == "squared":  # the shrinkage moved: the comparison covers it
        assert any(0 < s for s in model.sigmas)


def test_the_comparison_can_fail():
    """A perturbed oracle (its learning rate off by 1e-6) is caught."""
    model, _ = sgbt_pair({"loss": "squared"})
    oracle = SGBTOracle(SMALL_TREE, 4, 0.3 * (1 + 1e-6))
    with pytest.raises(AssertionError):
        compare(model, oracle, FRIEDMAN[:100])
    ogb = rb.OnlineGradientBoostRegressor(model=linear_model.LinearRegression(), n_models=3)
    bad = OGBOracle(linear_model.LinearRegression(), 3, 0.5)
    bad.G = 1e3  # a wrong step-size bound
    with pytest.raises(AssertionError):
        compare(ogb, bad, [(x, y - 14.0) for x, y in FRIEDMAN[:100]])


# ----------------------------------------------------------------------------- River's checks

REGRESSORS = [rb.SGBTRegressor, rb.OnlineGradientBoostRegressor]


@pytest.mark.parametrize(
    "cls, params",
    [(cls, p) for cls in REGRESSORS for p in cls._unit_test_params()],
    ids=lambda v: v.__name__ if isinstance(v, type) else "",
)
def test_river_check_estimator(cls, params):
    checks.check_estimator(cls(**params))


# ----------------------------------------------------------------------------- bad input


def trained(make, n=150):
    model = make()
    for x, y in FRIEDMAN[:n]:
        model.learn_one(x, y)
    return model


MAKERS = {
    "sgbt": lambda: rb.SGBTRegressor(n_models=3, seed=1),
    "ogb": lambda: rb.OnlineGradientBoostRegressor(n_models=3),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize(
    "y", [float("nan"), float("inf"), -float("inf"), "1.0", None, True, [1.0], 1e400 * 0]
)
def test_a_bad_target_is_refused_before_any_change(make, y):
    model = trained(make)
    before = pickle.dumps(model)
    with pytest.raises(ValueError):
        model.learn_one(FRIEDMAN[0][0], y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("w", [-1.0, float("nan"), float("inf"), 1e308, "2", None, True])
def test_a_bad_weight_is_refused_before_any_change(make, w):
    model = trained(make)
    before = pickle.dumps(model)
    with pytest.raises(ValueError):
        model.learn_one(FRIEDMAN[0][0], 1.0, w=w)
    assert pickle.dumps(model) == before


def test_a_bad_x_is_refused_and_weight_zero_changes_nothing():
    model = trained(MAKERS["sgbt"])
    before = pickle.dumps(model)
    with pytest.raises(TypeError):
        model.learn_one([1.0, 2.0], 1.0)
    with pytest.raises(TypeError):
        model.learn_one({"a": object()}, 1.0)
    model.learn_one(FRIEDMAN[0][0], 3.0, w=0.0)
    assert pickle.dumps(model) == before
    import numpy as np

    model.learn_one(FRIEDMAN[0][0], np.float32(2.5))  # numpy numbers are targets
    assert model.n_seen == 151


def test_bad_parameters_are_refused():
    for params in (
        {"loss": "absolute"},
        {"n_models": 0},
        {"learning_rate": 0.0},
        {"feature_fraction": 1.5},
        {"loss": "quantile", "alpha": 1.0},
        {"loss": "huber", "delta": -1.0},
        {"model": tree.HoeffdingTreeClassifier()},
    ):
        with pytest.raises(ValueError):
            rb.SGBTRegressor(**params)
    with pytest.raises(ValueError):
        rb.OnlineGradientBoostRegressor(learning_rate=1.5)


# ----------------------------------------------------------------------------- state


@pytest.mark.parametrize(
    "make",
    [
        lambda: rb.SGBTRegressor(
            n_models=3, feature_fraction=0.6, drift_detector=drift.ADWIN(delta=0.5), seed=4
        ),
        lambda: rb.OnlineGradientBoostRegressor(n_models=3, model=SMALL_TREE),
    ],
    ids=["sgbt", "ogb"],
)
def test_copies_and_pickles_continue_as_the_original(make):
    model = make()
    for x, y in DRIFTING[:200]:
        model.learn_one(x, y)
    snapshot = pickle.dumps(model)
    loaded = pickle.loads(snapshot)
    clone = model.clone(include_attributes=True)
    idle = model.clone(include_attributes=True)  # learns nothing more
    idle_snapshot = pickle.dumps(idle)
    deep = copy.deepcopy(model)
    fresh = model.clone()
    assert fresh.n_seen == 0
    for x, y in DRIFTING[200:320]:
        expected = model.predict_one(x)
        for other in (loaded, clone, deep):
            assert other.predict_one(x) == expected
        for m in (model, loaded, clone, deep):
            m.learn_one(x, y)
    # the others' learning left the idle copy as it was: no shared state
    assert pickle.dumps(idle) == idle_snapshot
    assert idle.n_seen == 200


def test_seeds_make_runs_reproducible():
    def run(seed):
        model = rb.SGBTRegressor(n_models=3, feature_fraction=0.5, seed=seed)
        out = []
        for x, y in FRIEDMAN[:200]:
            out.append(model.predict_one(x))
            model.learn_one(x, y)
        return out

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_the_pickle_carries_the_stamp_and_a_changed_state_is_refused():
    model = trained(MAKERS["sgbt"], 20)
    loader, (cls, params, state, stamp) = model.__reduce__()
    with pytest.raises(PickleFormatError):
        loader(cls, params, state, (99, "0.0.0"))
    engine = list(state[1])
    bad_fields = ((0, 0), (6, array.array("d", [0.0])), (9, [1]), (13, None), (14, "trees"))
    # (15: the regressors' bounds, steps' ranges missing or of another length)
    bad_bounds = ((15, (0.0, 0.0, None, None)), (15, (0.0, 0.0, array.array("d", [0.0]) * 2)))
    for k, bad in bad_fields + bad_bounds:
        changed = list(engine)
        changed[k] = bad
        with pytest.raises(PickleFormatError):
            loader(cls, params, (state[0], tuple(changed)), stamp)
    loaded = loader(cls, params, state, stamp)
    x = {k: 0.5 for k in range(10)}
    assert loaded.predict_one(x) == model.predict_one(x)


def test_the_default_learner_is_a_bounded_hoeffding_regression_tree():
    model = rb.SGBTRegressor()
    assert model.model is None
    learner = model.models[0]
    assert isinstance(learner, tree.HoeffdingTreeRegressor)
    assert learner.max_size == default_regressor().max_size == 2.0
    assert len(model.models) == model.n_models


def test_adwin_has_the_measured_delta_and_replaces_a_step_on_a_real_change():
    # SGBTRegressor's ADWIN is more cautious than River's default (the classifier keeps
    # River's): on a stationary stream it replaces nothing, after a jump of the target it does
    assert rb.SGBTRegressor()._engine.detector.delta == 1e-7
    assert rb.SGBTClassifier()._engine.detector.delta == drift.ADWIN().delta
    model = rb.SGBTRegressor(n_models=3, seed=1)
    rng = random.Random(0)
    for t in range(3000):
        x = {"a": rng.random()}
        model.learn_one(x, 2 * x["a"] + (0.0 if t < 1500 else 50.0) + rng.gauss(0, 0.1))
        if t == 1499:
            assert sum(model.replacements) == 0
    assert sum(model.replacements) > 0


def test_quantiles_bracket_the_targets():
    """On a stationary stream the 0.1 and 0.9 quantile models leave about 10% of the
    targets below and above them."""
    stream = list(itertools.islice(datasets.synth.Friedman(seed=11), 2000))
    low = rb.SGBTRegressor(loss="quantile", alpha=0.1, n_models=3, learning_rate=0.4, seed=1)
    high = rb.SGBTRegressor(loss="quantile", alpha=0.9, n_models=3, learning_rate=0.4, seed=1)
    below = above = 0
    for t, (x, y) in enumerate(stream):
        if t >= 1000:  # (after a burn-in)
            below += y < low.predict_one(x)
            above += y > high.predict_one(x)
        low.learn_one(x, y)
        high.learn_one(x, y)
    assert 0.03 < below / 1000 < 0.2
    assert 0.03 < above / 1000 < 0.2


def test_the_base_score_takes_the_target_before_the_steps_learn():
    """The steps learn residuals against the base score the next prediction starts from: after
    one example, SGBT predicts its target (the steps learned residuals of 0). Before, they
    learned residuals against the old base (0): on TrumpApproval the second prediction was 153
    for targets about 44."""
    model = rb.SGBTRegressor(seed=1, n_models=5)
    model.learn_one({"a": 1.0}, 43.8)
    assert model.predict_one({"a": 1.0}) == pytest.approx(43.8, rel=1e-12)
    model.learn_one({"a": 2.0}, 43.7)
    assert 43.6 < model.predict_one({"a": 1.5}) < 43.9


@pytest.mark.parametrize(
    "model",
    [linear_model.LinearRegression(), tree.HoeffdingTreeRegressor(leaf_prediction="adaptive")],
    ids=["linear", "adaptive-tree"],
)
def test_strings_that_would_fail_the_weak_learner_are_refused_before_any_step_learns(model):
    booster = rb.OnlineGradientBoostRegressor(model=model, n_models=3)
    for x, y in itertools.islice(datasets.TrumpApproval(), 30):
        booster.learn_one(x, y)
    before = pickle.dumps(booster)
    x = {**x, "party": "R"}
    with pytest.raises(TypeError, match="numbers only"):
        booster.learn_one(x, 40.0)
    with pytest.raises(TypeError, match="numbers only"):
        booster.predict_one(x)
    assert pickle.dumps(booster) == before
    # SGBT's default trees (adaptive leaves) refuse them too; trees with mean leaves take them
    with pytest.raises(TypeError, match="numbers only"):
        rb.SGBTRegressor(n_models=3, seed=1).learn_one(x, 40.0)
    sgbt = rb.SGBTRegressor(model=default_regressor("mean"), n_models=3, seed=1)
    sgbt.learn_one(x, 40.0)
    assert math.isfinite(sgbt.predict_one(x))


def test_targets_beyond_the_bound_are_refused():
    booster = rb.SGBTRegressor(n_models=3, seed=1)
    booster.learn_one({"a": 1.0}, 1e100)  # the bound itself is learned
    before = pickle.dumps(booster)
    with pytest.raises(ValueError, match="magnitude"):
        booster.learn_one({"a": 1.0}, -1e101, w=2.0)
    assert pickle.dumps(booster) == before
