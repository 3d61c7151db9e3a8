"""Processing-time timeouts, on the per-key function itself with a stand-in for Spark's
GroupState (a query with processing-time timeouts does not stop under availableNow, and its
clock is the wall's): held features expire at the first visit past their deadline, an idle
key is dropped."""

from __future__ import annotations

import pickle

import pytest

import river_boost

from .helpers import FEATURES, skip_without_spark

skip_without_spark()
pd = pytest.importorskip("pandas")


class GroupState:
    """What the function uses of pyspark's GroupState, with a clock the test sets."""

    def __init__(self):
        self.value = None
        self.now_ms = 0
        self.timeout_ms = None

    @property
    def exists(self):
        return self.value is not None

    @property
    def get(self):
        return self.value

    def update(self, value):
        self.value = value

    def remove(self):
        self.value = None

    def getCurrentProcessingTimeMs(self):
        return self.now_ms

    def setTimeoutDuration(self, duration_ms):
        assert duration_ms > 0
        self.timeout_ms = self.now_ms + duration_ms


def key_function(**settings):
    from river_boost.spark import _KeyFunction

    columns = ["key", "id", "y", "prediction", "kind", "error", "n_learned", "n_held"]
    columns += ["n_expired", "n_unknown_labels", "n_errors"]
    defaults = dict(
        model=river_boost.AdaBoostOL(seed=1),
        by=["key"],
        features=FEATURES,
        target="y",
        event_id="id",
        order_by="id",
        moment=None,
        string_features=[],
        integral_target=False,
        is_classifier=True,
        label_timeout_ms=1000,
        key_timeout_ms=60_000,
        metric=None,
        with_models=False,
        with_timing=False,
        key_buckets=1,
        columns=columns,
    )
    defaults.update(settings)
    return _KeyFunction(**defaults)


def visit(function, state, rows=None):
    """One call of the function on a bucket (its events ``rows``, or none: a timeout)."""
    frames = [] if rows is None else [pd.DataFrame(rows, columns=["key", "id", "y", *FEATURES])]
    out = list(function((0,), iter(frames), state))
    return pd.concat(out) if out else pd.DataFrame(columns=function.columns)


def test_held_features_expire_and_an_idle_key_is_dropped():
    function, state = key_function(), GroupState()
    out = visit(function, state, [(0, 1, None, 1.0, 2.0, 3.0), (0, 2, True, 1.0, 2.0, 3.0)])
    assert out.kind.tolist() == ["predicted", "learned", "summary"]
    assert state.timeout_ms == 1000  # the held event's deadline
    state.now_ms = 999
    out = visit(function, state)  # before the deadline: nothing expires
    assert "expired" not in out.kind.tolist()
    state.now_ms = 1000
    out = visit(function, state, [(0, 1, True, None, None, None)])  # too late
    assert out.kind.tolist() == ["expired", "unknown_label", "summary"]
    assert out.n_expired.iloc[-1] == 1 and out.n_unknown_labels.iloc[-1] == 1
    assert state.timeout_ms == 61_000  # the key's idle deadline
    state.now_ms = 61_000
    out = visit(function, state)
    assert out.kind.tolist() == ["key_expired"] and not state.exists


def test_a_visit_its_deadline_brought_keeps_the_model_and_metric():
    """Held features expiring change no model: after such a visit the key's model and metric
    are the bytes they were, and its summary still gives the metric."""
    from river import metrics

    columns = [*key_function().columns, "metric"]
    function, state = key_function(metric=metrics.Accuracy(), columns=columns), GroupState()
    visit(function, state, [(0, 1, True, 1.0, 2.0, 3.0), (0, 2, None, 1.0, 2.0, 3.0)])
    before = pickle.loads(state.value[0])[(0,)]
    state.now_ms = 1000
    out = visit(function, state)  # event 2's label did not come in time
    assert out.kind.tolist() == ["expired", "summary"]
    after = pickle.loads(state.value[0])[(0,)]
    assert after[0] == before[0] and after[2] == before[2]
    assert out.metric.iloc[-1] == pickle.loads(before[2]).get()
