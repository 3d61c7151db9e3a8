"""The gradient regressors cannot blow up (issue 56): they walk from a base score at the
targets' mean, their detectors see errors in units of the targets' deviation (so ``a y + b``
gives ``a p + b``), each step's prediction stays within the range of its targets, OGB's
within the targets' range;
on a wide stream of rare one-hot columns where River's linear models diverge they stay ahead
of one Hoeffding tree. And a regressor pickled by 0.2.0 (no bounds) walks as it did."""

from __future__ import annotations

import functools
import importlib.util
import itertools
import math
import pathlib
import pickle

import pytest
from river import datasets, drift, linear_model, metrics, preprocessing, tree

import river_boost as rb
from river_boost import _pickles

FRIEDMAN = list(itertools.islice(datasets.synth.Friedman(seed=5), 300))
DRIFTING = list(
    itertools.islice(
        datasets.synth.FriedmanDrift(drift_type="gra", position=(150, 300), seed=3), 450
    )
)
_SPEC = importlib.util.spec_from_file_location(
    "regression_wide",
    pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "regression_wide.py",
)
_WIDE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_WIDE)
WIDE = list(_WIDE.wide_stream(seed=42, n=1200))

AFFINE = [(1e3, 1e4), (-2.5, 7.0), (1e-3, -5.0), (-40.0, -3e3)]
MAKERS = {
    "sgbt": lambda a: rb.SGBTRegressor(n_models=5, seed=1),
    "sgbt-huber": lambda a: rb.SGBTRegressor(n_models=5, loss="huber", delta=2.0 * abs(a), seed=1),
    # (the steps' detectors see errors in the learners' unit: the same changes at any scale)
    "sgbt-drift": lambda a: rb.SGBTRegressor(
        n_models=4, drift_detector=drift.ADWIN(delta=0.9, clock=4), seed=2
    ),
    "sgbt-linear": lambda a: rb.SGBTRegressor(
        model=linear_model.LinearRegression(), n_models=5, seed=1
    ),
    "ogb": lambda a: rb.OnlineGradientBoostRegressor(n_models=5),
    "ogb-linear": lambda a: rb.OnlineGradientBoostRegressor(
        model=linear_model.LinearRegression(), n_models=5
    ),
}


def _predictions(model, stream, a=1.0, b=0.0) -> list:
    out = []
    for x, y in stream:
        out.append(model.predict_one(x))
        model.learn_one(x, a * y + b)
    return out


@pytest.mark.parametrize("a, b", AFFINE)
@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_an_affine_change_of_the_target_changes_the_predictions_alike(make, a, b):
    """``y`` and ``a y + b`` give ``p`` and ``a p + b`` within 1e-9 (relative to the targets'
    size), after the first example (before it both predict 0); Huber's ``delta`` is in the
    target's units, so it scales with ``|a|``."""
    stream = DRIFTING
    reference, model = make(1.0), make(a)
    ref = _predictions(reference, stream)
    got = _predictions(model, stream, a, b)
    if isinstance(model, rb.SGBTRegressor):
        assert model.replacements == reference.replacements
    size = max(abs(a * y + b) for _, y in stream)
    for t in range(1, len(stream)):
        assert math.isclose(got[t], a * ref[t] + b, rel_tol=0, abs_tol=1e-9 * size), t


def test_the_quantile_loss_follows_a_positive_scale():
    stream = FRIEDMAN[:200]
    ref = _predictions(rb.SGBTRegressor(n_models=4, loss="quantile", alpha=0.8, seed=2), stream)
    got = _predictions(
        rb.SGBTRegressor(n_models=4, loss="quantile", alpha=0.8, seed=2), stream, 300.0, -1e4
    )
    for t in range(1, len(stream)):
        assert math.isclose(got[t], 300.0 * ref[t] - 1e4, rel_tol=0, abs_tol=1e-9 * 1e4), t


def _rmse(model, stream, check=None) -> float:
    rmse, low, high = metrics.RMSE(), math.inf, -math.inf
    for x, y in stream:
        p = model.predict_one(x)
        if check is not None and low <= high:
            check(p, low, high)
        rmse.update(y, p)
        model.learn_one(x, y)
        low, high = min(low, y), max(high, y)
    return rmse.get()


@functools.cache
def _tree_rmse() -> float:
    return _rmse(preprocessing.StandardScaler() | tree.HoeffdingTreeRegressor(), WIDE)


def _within(p, low, high):
    assert low <= p <= high


def test_the_wide_stream_makes_river_linear_regression_diverge():
    """The stream of the tests below is one where the linear parts blow up unbounded."""
    scaled = preprocessing.StandardScaler() | linear_model.LinearRegression()
    assert _rmse(scaled, WIDE) > 1e6


@pytest.mark.parametrize(
    "make",
    [
        lambda: rb.SGBTRegressor(seed=42),
        rb.OnlineGradientBoostRegressor,
        lambda: rb.SGBTRegressor(model=linear_model.LinearRegression(), n_models=3, seed=42),
        lambda: rb.OnlineGradientBoostRegressor(model=linear_model.LinearRegression(), n_models=3),
    ],
    ids=["sgbt", "ogb", "sgbt-linear", "ogb-linear"],
)
def test_on_wide_rare_one_hot_data_the_regressors_stay_bounded(make):
    """Target of mean 1e4; 403 standardized columns. The defaults score no worse than one
    Hoeffding tree (behind the same scaler); with River's diverging linear model as weak
    learner, OGB's predictions stay within the targets' range and SGBT's within a few of
    the targets' deviations of it."""
    ys = [y for _, y in WIDE]
    model = preprocessing.StandardScaler() | make()
    booster = model.steps[list(model.steps)[-1]]
    check = _within if isinstance(booster, rb.OnlineGradientBoostRegressor) else None
    rmse = _rmse(model, WIDE, check)
    spread = max(ys) - min(ys)
    if booster.model is None:  # the defaults
        assert rmse <= _tree_rmse()
    else:
        assert rmse < spread


def test_a_regressor_pickled_by_0_2_0_walks_as_it_did():
    """A 0.2.0 state (15 engine fields, no bounds) is read as the walk it learned with:
    predictions unclipped, OGB's score from 0 (and detectors fed errors in the target's
    units)."""
    for make in (
        lambda: rb.SGBTRegressor(model=linear_model.LinearRegression(), n_models=3, seed=1),
        lambda: rb.OnlineGradientBoostRegressor(model=linear_model.LinearRegression(), n_models=3),
    ):
        model = make()
        for x, y in FRIEDMAN[:100]:
            model.learn_one(x, y)
        _, (cls, params, state, stamp) = model.__reduce__()
        old = _pickles.restore(cls, params, (state[0], state[1][:15]), stamp)
        engine = old._engine
        assert not engine.scale_free and engine.unit == 1.0
        # (far from the data: the linear learners extrapolate beyond their targets' range)
        x = {k: 100.0 * v for k, v in FRIEDMAN[150][0].items()}
        preds = [m.predict_one(x) for m in old.models]
        if isinstance(old, rb.SGBTRegressor):
            expected = old.base_score
            for p in preds:
                expected += old.learning_rate * p
        else:
            assert old.base_score == 0.0
            expected = 0.0
            for p, sigma in zip(preds, old.sigmas):
                expected = (1 - sigma * old.learning_rate) * expected + old.learning_rate * p
        assert old.predict_one(x) == pytest.approx(expected, rel=1e-12)
        assert old.predict_one(x) != pytest.approx(model.predict_one(x), rel=1e-6)
        for x, y in FRIEDMAN[100:130]:  # and it learns on, pickling in the current form
            old.learn_one(x, y)
        assert pickle.loads(pickle.dumps(old)).predict_one(x) == old.predict_one(x)
