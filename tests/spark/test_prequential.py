"""river_boost.spark.prequential_by_key on local Spark: its predictions and models are those of
a standalone per-key run, with delayed labels, across a failure and a restart, and with bad
events among the good ones."""

from __future__ import annotations

import itertools
import pickle

import pytest
from river import metrics, tree
from river.datasets import synth

import river_boost

from .helpers import (
    FEATURES,
    FaultOnce,
    probes,
    read_output,
    run_query,
    same_models,
    skip_without_spark,
    standalone,
    state_models,
    write_batches,
)

skip_without_spark()
pd = pytest.importorskip("pandas")

SCHEMA = "key long, id long, x1 double, x2 double, x3 double, y boolean"
REGRESSION_SCHEMA = "key long, id long, x1 double, x2 double, x3 double, y double"
N_KEYS = 3


def sea(n: int, seed: int = 1):
    return [
        (i % N_KEYS, i, dict(zip(FEATURES, x.values())), y)
        for i, (x, y) in enumerate(synth.SEA(seed=seed).take(n))
    ]


def friedman(n: int, seed: int = 1):
    # three of Friedman's ten features: the tests' streams share one schema
    return [
        (i % N_KEYS, i, {name: x[j] for j, name in enumerate(FEATURES)}, y)
        for i, (x, y) in enumerate(synth.Friedman(seed=seed).take(n))
    ]


def frame(events) -> pd.DataFrame:
    return pd.DataFrame(
        [(key, event, *x.values(), y) for key, event, x, y in events],
        columns=["key", "id", *FEATURES, "y"],
    )


def batches(events, *sizes):
    """The events cut into consecutive frames of these sizes (the rest in a last one)."""
    cuts = list(itertools.accumulate(sizes))
    return [frame(events[a:b]) for a, b in zip([0, *cuts], [*cuts, len(events)])]


MODELS = {
    "AdaBoostOL": (lambda: river_boost.AdaBoostOL(seed=1), sea, SCHEMA),
    "SGBTRegressor": (
        lambda: river_boost.SGBTRegressor(seed=1, n_models=5),
        friedman,
        REGRESSION_SCHEMA,
    ),
    "HoeffdingTree": (lambda: tree.HoeffdingTreeClassifier(grace_period=50), sea, SCHEMA),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_every_prediction_is_the_standalone_runs(spark, tmp_path, name):
    make, stream, schema = MODELS[name]
    events = stream(2400)
    write_batches(tmp_path / "in", batches(events, 1000, 700))
    out, query = run_query(spark, tmp_path / "in", schema, tmp_path, make(), with_models=True)
    assert len(query.recentProgress) >= 3  # three micro-batches with data
    expected, models = standalone(events, make())

    learned = out[out.kind == "learned"].set_index("id")
    assert len(learned) == len(events) and set(out.kind) == {"learned", "summary"}
    for event, prediction in expected.items():
        got = learned.prediction[event]
        assert (got is None and prediction is None) or got == prediction, (event, got, prediction)
    # the final models: those the state store holds, and the last ones the query emitted
    in_state = state_models(spark, tmp_path / "run")
    summaries = out[out.kind == "summary"].sort_values("n_learned").groupby("key").last()
    points = probes() if name != "SGBTRegressor" else [x for _, _, x, _ in friedman(200, seed=9)]
    for key, model in models.items():
        assert summaries.n_learned[key] == len([e for e in events if e[0] == key])
        assert in_state[key] == summaries.model[key]
        assert same_models(pickle.loads(in_state[key]), model, points)


def test_delayed_labels_learn_as_a_replay_with_the_same_delays(spark, tmp_path):
    """Labels arrive 0, 3 or 40 events after their features (some in a later micro-batch),
    some never; the query's predictions and per-key accuracy are a standalone replay's."""
    events = sea(1500)
    delays = [(0, 3, 40, None)[i % 7 % 4] for i in range(len(events))]
    arrivals = []  # (arrival, kind, event index)
    for i, delay in enumerate(delays):
        if delay == 0:
            arrivals.append((i, "both", i))
        else:
            arrivals.append((i, "features", i))
            if delay is not None:
                arrivals.append((i + delay + 0.5, "label", i))
    arrivals.sort()
    rows = []
    for seq, (_, kind, i) in enumerate(arrivals):
        key, event, x, y = events[i]
        values = list(x.values()) if kind != "label" else [None] * 3
        rows.append((key, event, seq, *values, None if kind == "features" else y))
    rows.append((0, 10**6, len(rows), None, None, None, True))  # a label never announced
    data = pd.DataFrame(rows, columns=["key", "id", "seq", *FEATURES, "y"])
    write_batches(tmp_path / "in", [data.iloc[:800], data.iloc[800:1700], data.iloc[1700:]])
    schema = "key long, id long, seq long, x1 double, x2 double, x3 double, y boolean"
    template = river_boost.AdaBoostOL(seed=1)
    out, _ = run_query(
        spark,
        tmp_path / "in",
        schema,
        tmp_path,
        template,
        order_by="seq",
        metric=metrics.Accuracy(),
    )

    # the replay: arrivals in order, each key its own model, held features and metric
    models, held, predicted, learned, accuracy = {}, {}, {}, {}, {}
    for _, kind, i in arrivals:
        key, event, x, y = events[i]
        model = models.setdefault(key, template.clone())
        metric = accuracy.setdefault(key, metrics.Accuracy())
        if kind != "label":
            prediction = model.predict_one(x)
        if kind == "features":
            held[event] = (x, prediction)
            predicted[event] = prediction
            continue
        if kind == "label":
            x, prediction = held.pop(event)
        model.learn_one(x, y)
        learned[event] = prediction
        if prediction is not None:
            metric.update(y, prediction)

    def by_id(kind):
        return out[out.kind == kind].set_index("id").prediction.to_dict()

    assert by_id("predicted") == predicted
    assert by_id("learned") == learned
    unknown = out[out.kind == "unknown_label"]
    assert unknown.id.tolist() == [10**6] and unknown.error.notna().all()
    last = out[out.kind == "summary"].sort_values("n_learned").groupby("key").last()
    for key, metric in accuracy.items():
        assert last.metric[key] == metric.get()
        assert last.n_held[key] == sum(1 for e in held if e % N_KEYS == key)
    assert last.n_unknown_labels.sum() == 1


def test_a_failed_micro_batch_reruns_from_the_checkpoint_and_a_restart_continues(spark, tmp_path):
    """A fault half-way through the second micro-batch fails the query; restarted from its
    checkpoint, it gives the outputs and models of a run without the fault (no event learned
    twice, none lost). Stopped, then restarted on new files, it continues exactly."""
    events = sea(1800)
    frames = batches(events, 600, 600)
    marked = events[900][2]["x1"]  # an event in the middle of the second micro-batch
    marker = tmp_path / "fault"

    def model():
        return FaultOnce(river_boost.AdaBoostOL(seed=1), str(marker), "x1", marked)

    # the reference: the three files in one run, no fault
    write_batches(tmp_path / "all", frames)
    clean, _ = run_query(spark, tmp_path / "all", SCHEMA, tmp_path, model(), name="clean")
    clean_models = state_models(spark, tmp_path / "clean")

    # two files; the second micro-batch fails once
    write_batches(tmp_path / "in", frames[:2])
    marker.touch()
    with pytest.raises(Exception, match="injected fault"):
        run_query(spark, tmp_path / "in", SCHEMA, tmp_path, model(), name="faulty")
    assert not marker.exists()
    after_fault = read_output(spark, tmp_path / "faulty")
    assert set(after_fault.id.dropna()) == set(range(600))  # the first micro-batch only
    run_query(spark, tmp_path / "in", SCHEMA, tmp_path, model(), name="faulty")
    # stopped; a new file comes; the query restarts from its checkpoint
    write_batches(tmp_path / "in", frames[2:])
    resumed, _ = run_query(spark, tmp_path / "in", SCHEMA, tmp_path, model(), name="faulty")

    columns = ["key", "id", "kind", "prediction", "n_learned"]

    def rows(out):
        return out[columns].sort_values(columns[:3] + ["n_learned"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(resumed), rows(clean))
    assert (resumed.kind == "learned").sum() == len(events)
    assert state_models(spark, tmp_path / "faulty") == clean_models
    expected, models = standalone(events, model())
    learned = resumed[resumed.kind == "learned"].set_index("id").prediction
    assert all(learned[event] == prediction for event, prediction in expected.items())
    for key, data in clean_models.items():
        assert same_models(pickle.loads(data).model, models[key].model, probes())


def test_bad_events_are_reported_and_change_no_model(spark, tmp_path):
    """Malformed events among good ones: each is reported with its reason, and every
    prediction and model is that of a run without them. x1 is a string column here (numbers
    as text, as a JSON payload may bring them)."""
    events = sea(1200)
    good = frame(events)
    good["x1"] = good["x1"].map(repr)
    good["seq"] = good["id"] * 10
    # delayed: features of 5000 in the first micro-batch, its label in the second
    held = pd.DataFrame(
        [(1, 5000, 4000, "0.5", 0.5, 0.5, None), (1, 5000, 9000, None, None, None, True)],
        columns=["key", "id", "seq", *FEATURES, "y"],
    )
    inf = float("inf")
    bad = pd.DataFrame(
        [
            (0, 7000, 15, "1.0", inf, 1.0, True),  # a feature not finite
            (1, 7001, 25, "1.0", None, 1.0, False),  # a feature missing
            (2, 7002, 35, "one", 2.0, 1.0, True),  # a feature not a number
            (0, 7003, 45, None, None, None, None),  # neither features nor label
            (1, 31, 315, "9.0", 9.0, 9.0, True),  # a duplicate in its micro-batch
            (1, 5000, 6000, "0.7", 0.1, 0.1, None),  # a duplicate of held features
        ],
        columns=["key", "id", "seq", *FEATURES, "y"],
    )
    schema = "key long, id long, seq long, x1 string, x2 double, x3 double, y boolean"
    template = river_boost.AdaBoostOL(seed=1)
    batch_1, batch_2 = slice(0, 600), slice(600, None)
    with_bad = [
        pd.concat([good.iloc[batch_1], held.iloc[:1], bad.iloc[:5]]),
        pd.concat([good.iloc[batch_2], held.iloc[1:], bad.iloc[5:]]),
    ]
    without = [
        pd.concat([good.iloc[batch_1], held.iloc[:1]]),
        pd.concat([good.iloc[batch_2], held.iloc[1:]]),
    ]
    write_batches(tmp_path / "bad", with_bad)
    write_batches(tmp_path / "good", without)
    out, _ = run_query(
        spark, tmp_path / "bad", schema, tmp_path, template, name="bad", order_by="seq"
    )
    ref, _ = run_query(
        spark, tmp_path / "good", schema, tmp_path, template, name="good", order_by="seq"
    )

    errors = out[out.kind == "error"].set_index("id").error
    assert errors.to_dict() == {
        7000: "feature 'x2' is not finite: inf",
        7001: "missing feature values (null or NaN): ['x2']",
        7002: "feature 'x1' is not a number: 'one'",
        7003: "the event has neither features nor a label",
        31: "duplicate event id 31: its features came before",
        5000: "duplicate event id 5000: its features came before",
    }
    columns = ["key", "id", "kind", "prediction"]
    kept = out[out.kind.isin(["learned", "predicted"])][columns]
    expected = ref[ref.kind.isin(["learned", "predicted"])][columns]
    pd.testing.assert_frame_equal(
        kept.sort_values(columns[:3]).reset_index(drop=True),
        expected.sort_values(columns[:3]).reset_index(drop=True),
    )
    assert state_models(spark, tmp_path / "bad") == state_models(spark, tmp_path / "good")
    last = out[out.kind == "summary"].sort_values("n_learned").groupby("key").last()
    assert last.n_errors.to_dict() == {0: 2, 1: 3, 2: 1}
    # and the good events were learned as a standalone run learns them
    _, models = standalone(events + [(1, 5000, {"x1": 0.5, "x2": 0.5, "x3": 0.5}, True)], template)
    for key, data in state_models(spark, tmp_path / "bad").items():
        assert same_models(pickle.loads(data), models[key], probes())
