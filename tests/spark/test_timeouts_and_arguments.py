"""Timeouts in event time (held features expire, idle keys are dropped) and the arguments
prequential_by_key refuses before any query starts."""

from __future__ import annotations

import datetime

import pytest
from river import linear_model, metrics, preprocessing

import river_boost

from .helpers import FEATURES, run_query, skip_without_spark, write_batches

skip_without_spark()
pd = pytest.importorskip("pandas")

SCHEMA = "key long, id long, t timestamp, x1 double, x2 double, x3 double, y boolean"
T0 = pd.Timestamp("2026-03-01 12:00:00")


def event(key, event_id, seconds, x=(1.0, 2.0, 3.0), y=None):
    return (key, event_id, T0 + pd.Timedelta(seconds=seconds), *x, y)


def test_event_time_expires_held_features_and_idle_keys(spark, tmp_path):
    """Key 0: features of events 0-9 at seconds 0-9 wait 5 s for their label; the labels of
    0-4 come at second 100, when the watermark (the first micro-batch's latest moment less
    1 s: second 8) has already passed the deadlines of 0-3 (seconds 5-8). Key 1 is idle after
    second 9 and is dropped once the watermark passes second 39; its next event starts a
    fresh model."""
    no = (None, None, None)
    first = [event(0, i, i) for i in range(10)] + [
        event(1, 100 + i, i, x=(float(i), 1.0, 0.0), y=i % 2 == 0) for i in range(10)
    ]
    second = [event(0, i, 100, x=no, y=True) for i in range(5)] + [event(0, 50, 100, y=True)]
    third = [event(1, 200, 300, y=True)]
    columns = ["key", "id", "t", *FEATURES, "y"]
    write_batches(
        tmp_path / "in", [pd.DataFrame(rows, columns=columns) for rows in (first, second, third)]
    )

    out, _ = run_query(
        spark,
        tmp_path / "in",
        SCHEMA,
        tmp_path,
        river_boost.AdaBoostOL(seed=1),
        transform=lambda events: events.withWatermark("t", "1 second"),
        moment="t",
        label_timeout=5,
        key_timeout=datetime.timedelta(seconds=30),
    )
    zero = out[out.key == 0]
    assert sorted(zero[zero.kind == "expired"].id) == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert sorted(zero[zero.kind == "unknown_label"].id) == [0, 1, 2, 3]
    assert sorted(zero[zero.kind == "learned"].id) == [4, 50]
    one = out[out.key == 1]
    assert (one.kind == "key_expired").sum() == 1
    # the key came back: a fresh model, its counters from zero
    last = one[one.kind == "summary"].iloc[-1]
    assert last.n_learned == 1
    fresh = river_boost.AdaBoostOL(seed=1)
    back = one[(one.kind == "learned") & (one.id == 200)].prediction.tolist()
    assert back == [fresh.predict_one(dict(zip(FEATURES, (1.0, 2.0, 3.0))))]


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory):
    folder = tmp_path_factory.mktemp("empty")
    return spark.readStream.schema(SCHEMA).parquet(str(folder))


def call(events, model=None, **kwargs):
    from river_boost.spark import prequential_by_key

    arguments = dict(by="key", features=FEATURES, target="y", event_id="id")
    arguments.update(kwargs)
    return prequential_by_key(events, model or river_boost.AdaBoostOL(), **arguments)


def test_good_arguments_make_a_streaming_frame(events):
    out = call(
        events, preprocessing.StandardScaler() | river_boost.AdaBoostOL(), metric=metrics.Accuracy()
    )
    assert out.isStreaming
    assert out.columns[:6] == ["key", "id", "y", "prediction", "kind", "error"]
    assert "metric" in out.columns


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"by": "user"}, ValueError, "no column 'user'"),
        ({"features": ["x1", "x9"]}, ValueError, "no column 'x9'"),
        ({"features": []}, ValueError, "features names no column"),
        ({"features": ["x1", "x1"]}, ValueError, "named twice"),
        ({"features": ["x1", "y"]}, ValueError, "named twice"),
        ({"features": ["t"]}, TypeError, "feature 't' is timestamp"),
        ({"event_id": "nothing"}, ValueError, "no column 'nothing'"),
        ({"model": linear_model.LinearRegression()}, TypeError, "a regressor's target"),
        ({"model": preprocessing.StandardScaler()}, TypeError, "classifier or regressor"),
        ({"model": "AdaBoostOL"}, TypeError, "River estimator"),
        ({"label_timeout": 0}, ValueError, "label_timeout must be positive"),
        ({"key_timeout": "1 hour"}, TypeError, "key_timeout must be seconds"),
        ({"moment": "t"}, ValueError, "has no watermark"),
        ({"moment": "x1"}, TypeError, "must be a timestamp"),
        ({"metric": metrics.MAE()}, ValueError, "does not work with"),
        ({"metric": "accuracy"}, TypeError, "River metric"),
        ({"key_buckets": 0}, ValueError, "key_buckets must be an integer >= 1"),
        ({"key_buckets": 2.5}, ValueError, "key_buckets must be an integer >= 1"),
    ],
)
def test_bad_arguments_are_refused_before_the_query_starts(events, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(events, **kwargs)


def test_a_batch_frame_is_refused(spark):
    frame = spark.createDataFrame(
        [(1, 1, 0.0, 0.0, 0.0, True)],
        "key long, id long, x1 double, x2 double, x3 double, y boolean",
    )
    with pytest.raises(ValueError, match="streaming DataFrame"):
        call(frame)


def test_a_restart_with_another_number_of_buckets_is_refused(spark, tmp_path):
    """The state is by bucket: restarted on its checkpoint with another ``key_buckets``, the
    query fails at its first micro-batch and says why (a key would otherwise land in another
    bucket beside its old state); with the checkpoint's number it continues."""
    columns = ["key", "id", "t", *FEATURES, "y"]
    frames = [
        pd.DataFrame([event(key, 10 * b + key, b, y=True) for key in range(4)], columns=columns)
        for b in range(3)
    ]
    write_batches(tmp_path / "in", frames[:1])
    model = river_boost.AdaBoostOL(seed=1)
    run_query(spark, tmp_path / "in", SCHEMA, tmp_path, model, key_buckets=2)
    write_batches(tmp_path / "in", frames[1:2])
    with pytest.raises(Exception, match="written with key_buckets=2 and the query has key_bu"):
        run_query(spark, tmp_path / "in", SCHEMA, tmp_path, model, key_buckets=3)
    out, _ = run_query(spark, tmp_path / "in", SCHEMA, tmp_path, model, key_buckets=2)
    learned = out[out.kind == "learned"]
    assert sorted(learned.id) == [0, 1, 2, 3, 10, 11, 12, 13]
