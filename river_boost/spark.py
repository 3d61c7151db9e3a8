"""One River model per key on Spark Structured Streaming (the ``spark`` extra).

:func:`prequential_by_key` turns a streaming DataFrame of events into a streaming DataFrame of
predictions: every key gets its own clone of a River estimator, which predicts each event of
its key and then learns it (prequential), in the key's order, with labels that may arrive
later than their features.

``pip install "river-boost[spark]"`` brings PySpark, pandas and PyArrow; Spark also needs a
Java runtime (17 or 21). This module imports none of them until :func:`prequential_by_key` is
called, so ``import river_boost.spark`` works without them.

Why ``applyInPandasWithState``
------------------------------
Spark has two Python operators that keep state per key. ``applyInPandasWithState`` (Spark
3.4+) hands the function each key's state as a row in the same Arrow stream as its events, and
takes the new state back with the output. ``transformWithStateInPandas`` (Spark 4) has state
variables, time-to-live and timers, but every read and write of a state variable is a call from
the Python worker to the JVM over a socket, per key. Measured on 2 cores (``local[2]``, 100,000
SEA events, 1,000 keys, two micro-batches, one pickled ``AdaBoostOL`` per key, a parquet sink):
the second micro-batch took 3.9-9.5 s with ``applyInPandasWithState`` against 6.1-9.4 s with
``transformWithStateInPandas`` (the first, which creates the models: 9.4-13.3 s against
15.5-23.5 s). It also runs with Spark's default state store (RocksDB is optional, not
required), and one timeout per key is all this needs: the key's earliest deadline.

State per bucket of keys
------------------------
Spark's per-group operator costs a few milliseconds per group and micro-batch whatever the
group holds (its Arrow batches, their conversion to pandas, the output frame): measured here,
a trivial model of 135 bytes ran at the same 2,800 events/s as ``AdaBoostOL`` with one group
per key (20,000 keys, ten events per key per micro-batch). So the keys are hashed into
``key_buckets`` groups: each call processes the events of a bucket's keys (each key's in its
order), and a bucket's state is one row, a dict of its keys' states: the model
(``pickle.dumps(model, protocol=5)``), the held events (features waiting for their label,
pickled: id, feature values, prediction, deadline), the metric (pickled), counters and the
key's next deadline. A key's model is unpickled and pickled again only when the key has
events or its deadline has come; the other keys' states are carried as bytes.
"""

from __future__ import annotations

import datetime
import math
import numbers
import pickle
import time

__all__ = ["prequential_by_key"]

# what each output row says about its event (the ``kind`` column)
PREDICTED = "predicted"  # features without a label: predicted, held until the label comes
LEARNED = "learned"  # learned: the label came with the features, or met features held
ERROR = "error"  # malformed: reported in ``error``, no model changed
UNKNOWN_LABEL = "unknown_label"  # a label whose features are not held (expired, never seen)
EXPIRED = "expired"  # held features whose label did not come within ``label_timeout``
SUMMARY = "summary"  # one per key per micro-batch: counters, the metric, the model
KEY_EXPIRED = "key_expired"  # the key had no event for ``key_timeout``: its state is dropped

# the event time in milliseconds (Spark computes it: pandas sees timestamps in local time)
_MOMENT_MS = "__river_boost_moment_ms"
# the bucket a key hashes to (the operator's groups)
_BUCKET = "__river_boost_bucket"

KINDS = (PREDICTED, LEARNED, ERROR, UNKNOWN_LABEL, EXPIRED, SUMMARY, KEY_EXPIRED)
COUNTERS = ("n_learned", "n_held", "n_expired", "n_unknown_labels", "n_errors")
TIMINGS = (
    "seconds_total",
    "seconds_input",
    "seconds_loads",
    "seconds_events",
    "seconds_learn",
    "seconds_dumps",
)

_NUMERIC = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType")
_INTEGRAL = ("ByteType", "ShortType", "IntegerType", "LongType")


def prequential_by_key(
    events,
    model,
    *,
    by,
    features,
    target: str,
    event_id: str,
    order_by: str | None = None,
    moment: str | None = None,
    label_timeout: float | datetime.timedelta | None = None,
    key_timeout: float | datetime.timedelta | None = None,
    metric=None,
    key_buckets: int = 256,
    with_models: bool = False,
    with_timing: bool = False,
):
    """Predict, then learn, each event with its key's own clone of a River model.

    Every key (the value of the ``by`` columns) gets ``model.clone()`` when its first event
    comes. Within a micro-batch, a key's events are sorted by ``order_by`` (Spark gives the
    rows of a group in no order); the model predicts each event and then learns it, as
    ``evaluate.progressive_val_score`` does, so each prediction is made before the model has
    seen the event's label. The models live in Spark's state store between micro-batches (see
    the checkpoint location of the query that writes the result): a query restarted from its
    checkpoint continues with the same models, and a micro-batch that failed half-way is run
    again from the models as they were before it.

    **Delayed labels.** An event may bring its features without its label (the label is null):
    its key's model predicts it, and the features and the prediction are held in the key's state
    under the event id. A later event with the same id, the label set and every feature null
    brings the label: the model then learns the held features with it. An event with both is
    predicted and learned at once. Held features whose label has not come within
    ``label_timeout`` are dropped and reported (``expired``); a label whose features are not
    held (expired, never seen, already learned) is reported (``unknown_label``).

    **Malformed events** are reported (``error``) and change neither the model nor the held
    features: a missing (null) or non-finite feature value, a string that is not a number, a
    non-finite label of a regressor, an event with neither features nor label, an event whose
    id is already held (a duplicate). Everything is checked before the model sees the event,
    since River models may change part of their state before raising on bad input. Duplicates
    are found among the held events and within a micro-batch only (the state keeps no ids of
    learned events): deduplicate upstream with ``dropDuplicatesWithinWatermark`` if the source
    can repeat events.

    **Clocks.** Without ``moment``, timeouts are in processing time: a held event expires at the
    first micro-batch that starts ``label_timeout`` seconds after the micro-batch that brought
    it (Spark's processing-time timeouts: a key with no new events is visited when its deadline
    has passed, at the next micro-batch; Spark then runs micro-batches without data, so a
    query with ``trigger(availableNow=True)`` does not stop by itself: give it a
    processing-time trigger). With ``moment`` (a timestamp column, on which
    ``events`` has a watermark: ``events.withWatermark(moment, "10 minutes")``), timeouts are in
    event time: a held event expires once the watermark passes its moment plus
    ``label_timeout``, and a key once the watermark passes its latest moment plus
    ``key_timeout``.

    Parameters
    ----------
    events
        A streaming ``pyspark.sql.DataFrame`` of events.
    model
        A River classifier or regressor (a pipeline too): the template each key clones.
    by
        The key: a column name, or a list of column names.
    features
        The feature columns (numeric, boolean, or strings holding numbers), in the order the
        model sees them.
    target
        The label column: a classifier's label (boolean, integer or string), a regressor's
        number. Null where the event has no label (yet).
    event_id
        The column that identifies an event within its key: it joins a delayed label to its
        features.
    order_by
        The column that orders a key's events within a micro-batch; ``event_id`` by default.
        With delayed labels, give the order in which events arrived (an arrival timestamp, a
        source offset) so that a label is learned after the events that came before it. Ties
        put features before labels, then follow ``event_id``.
    moment
        A timestamp column with a watermark: timeouts are then in event time (see above).
    label_timeout
        How long held features wait for their label: seconds or a ``datetime.timedelta``;
        ``None`` (default): forever (the state then grows without bound if labels can be
        lost: set it in production).
    key_timeout
        Drop a key's state (model, held features, metric) when the key has had no event for
        this long (seconds or a ``datetime.timedelta``); ``None`` (default): keep every key.
        The key's next event starts a fresh clone.
    metric
        A River metric (e.g. ``metrics.Accuracy()``): each key updates its own clone when a
        label meets its prediction (predictions made before the model knew any label, None,
        are skipped, as in ``evaluate.progressive_val_score``), and reports it in the
        ``metric`` column of its ``summary`` row every micro-batch.
    key_buckets
        How many buckets the keys are hashed into (see the module: Spark's per-group cost is
        shared by a bucket's keys, whose states are one row). More keys per bucket save
        Spark's work when most keys have events in a micro-batch; but a bucket's row is
        written again whole when any of its keys has an event, so with many idle keys a
        bucket should hold few: about the number of keys over 100 (the default, 256, suits up
        to some 25,000 keys). Fixed for the life of a checkpoint (the state is by bucket): a
        query restarted with another number fails at its first micro-batch with a
        ``ValueError`` that says so.
    with_models
        Add a ``model`` column: the key's pickled model on its ``summary`` rows.
    with_timing
        Add columns ``seconds_*`` to the ``summary`` rows: the time the key's function took in
        the micro-batch (total), reading its events (Spark's Arrow to pandas), unpickling
        state (or cloning the template for a new key), checking events and building rows, in
        the models' ``predict_one`` and ``learn_one``, and pickling state. For benchmarks.

    Returns
    -------
    pyspark.sql.DataFrame
        A streaming DataFrame (append mode) with the ``by`` columns, ``event_id``, ``target``
        (the label the row learned), ``prediction`` (the target's type for a classifier,
        ``double`` for a regressor; null before a classifier has learned a label), ``kind``,
        ``error`` (the message of an ``error`` or ``unknown_label`` row), the counters
        ``n_learned``, ``n_held``, ``n_expired``, ``n_unknown_labels``, ``n_errors`` (cumulative
        per key, on ``summary`` rows), then ``metric``, ``model`` and the timings when asked.
        ``kind`` is ``predicted`` (features held, waiting for their label), ``learned``
        (``prediction`` is the one made when the features came), ``error``,
        ``unknown_label``, ``expired``, ``summary`` (one per key per micro-batch) or
        ``key_expired``.

    Raises
    ------
    TypeError
        ``model`` is not a River classifier or regressor or cannot be pickled, ``metric`` is
        not a River metric, or a column has a type that cannot serve.
    ValueError
        A column is missing or named twice, an output column would clash with an input one, a
        timeout is not positive, ``metric`` does not work with ``model``, ``moment`` has no
        watermark, or ``events`` is not streaming.

    Examples
    --------
    >>> from river import metrics  # doctest: +SKIP
    >>> from river_boost import AdaBoostOL  # doctest: +SKIP
    >>> from river_boost.spark import prequential_by_key  # doctest: +SKIP
    >>> schema = "user long, id long, x1 double, x2 double, x3 double, y boolean"  # doctest: +SKIP
    >>> events = spark.readStream.schema(schema).parquet("events/")  # doctest: +SKIP
    >>> predictions = prequential_by_key(  # doctest: +SKIP
    ...     events, AdaBoostOL(seed=1), by="user", features=["x1", "x2", "x3"], target="y",
    ...     event_id="id", metric=metrics.Accuracy(),
    ... )
    >>> query = (  # doctest: +SKIP
    ...     predictions.writeStream.format("parquet").option("path", "predictions/")
    ...     .option("checkpointLocation", "checkpoint/").trigger(availableNow=True).start()
    ... )
    >>> query.awaitTermination()  # doctest: +SKIP

    """
    from pyspark.sql import DataFrame
    from pyspark.sql.streaming.state import GroupStateTimeout
    from pyspark.sql.types import (
        BinaryType,
        DoubleType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )
    from river import base
    from river import metrics as river_metrics

    # -- the arguments, checked before any query starts
    if not isinstance(events, DataFrame):
        raise TypeError(f"events must be a pyspark.sql.DataFrame, not {type(events).__name__}")
    if not events.isStreaming:
        raise ValueError("events must be a streaming DataFrame (spark.readStream...)")
    if not isinstance(model, base.Estimator):
        raise TypeError(f"model must be a River estimator, not {type(model).__name__}")
    if isinstance(model, base.Classifier):
        is_classifier = True
    elif isinstance(model, base.Regressor):
        is_classifier = False
    else:
        raise TypeError(f"model must be a River classifier or regressor, not {model!r}")
    try:
        pickle.dumps(model.clone(), protocol=5)
    except Exception as error:  # the state store keeps models pickled
        raise TypeError(f"model cannot be pickled: {error}") from error

    by = [by] if isinstance(by, str) else list(by)
    features = [features] if isinstance(features, str) else list(features)
    if not by:
        raise ValueError("by names no column")
    if not features:
        raise ValueError("features names no column")
    schema = {field.name: field for field in events.schema.fields}
    order_by = event_id if order_by is None else order_by
    named = [*by, *features, target, event_id]
    for name in {*named, order_by, *([moment] if moment else [])}:
        if not isinstance(name, str):
            raise TypeError(f"column names must be strings, not {name!r}")
        if name not in schema:
            raise ValueError(f"events has no column {name!r} (it has {sorted(schema)})")
    repeated = sorted({name for name in named if named.count(name) > 1})
    if repeated:
        raise ValueError(f"columns named twice among by, features, target, event_id: {repeated}")

    def type_name(name):
        return type(schema[name].dataType).__name__

    for name in features:
        if type_name(name) not in (*_NUMERIC, "BooleanType", "StringType"):
            raise TypeError(
                f"feature {name!r} is {schema[name].dataType.simpleString()}: features must be "
                "numbers, booleans or strings holding numbers (cast it, e.g. to double)"
            )
    target_type = schema[target].dataType
    if is_classifier:
        if type_name(target) not in (*_INTEGRAL, "BooleanType", "StringType"):
            raise TypeError(
                f"target {target!r} is {target_type.simpleString()}: a classifier's labels are "
                "booleans, integers or strings"
            )
        prediction_type = target_type
    else:
        if type_name(target) not in _NUMERIC:
            raise TypeError(
                f"target {target!r} is {target_type.simpleString()}: a regressor's target is "
                "a number"
            )
        prediction_type = DoubleType()
    if type_name(order_by) not in (*_NUMERIC, "StringType", "TimestampType", "DateType"):
        raise TypeError(f"order_by {order_by!r} is {schema[order_by].dataType.simpleString()}")
    if moment is not None:
        if type_name(moment) != "TimestampType":
            raise TypeError(f"moment {moment!r} must be a timestamp column")
        if "spark.watermarkDelayMs" not in schema[moment].metadata:
            raise ValueError(
                f"moment {moment!r} has no watermark: events.withWatermark({moment!r}, ...) "
                "first (timeouts are then in event time)"
            )
    if isinstance(key_buckets, bool) or not isinstance(key_buckets, int) or key_buckets < 1:
        raise ValueError(f"key_buckets must be an integer >= 1, not {key_buckets!r}")
    label_timeout_ms = _milliseconds("label_timeout", label_timeout)
    key_timeout_ms = _milliseconds("key_timeout", key_timeout)
    if metric is not None:
        if not isinstance(metric, river_metrics.base.Metric):
            raise TypeError(f"metric must be a River metric, not {type(metric).__name__}")
        if not metric.works_with(model):
            raise ValueError(f"{metric.__class__.__name__} does not work with {model!r}")

    # -- the output: the keys, the event, what happened to it; per key rows of counters
    output = [StructField(name, schema[name].dataType) for name in (*by, event_id, target)]
    output += [
        StructField("prediction", prediction_type),
        StructField("kind", StringType()),
        StructField("error", StringType()),
    ]
    output += [StructField(name, LongType()) for name in COUNTERS]
    if metric is not None:
        output.append(StructField("metric", DoubleType()))
    if with_models:
        output.append(StructField("model", BinaryType()))
    if with_timing:
        output += [StructField(name, DoubleType()) for name in TIMINGS]
    clash = sorted({field.name for field in output[len(by) + 2 :]} & {*by, event_id, target})
    if clash:
        raise ValueError(f"input columns {clash} clash with the output's own columns")
    output_schema = StructType(output)
    # a bucket's state: its keys' states, pickled (_KeyFunction), and the number of buckets
    # it was hashed with (a restart with another number would split keys between buckets)
    state_schema = StructType(
        [StructField("keys", BinaryType()), StructField("key_buckets", IntegerType())]
    )

    keyed = _KeyFunction(
        model=model,
        by=by,
        features=features,
        target=target,
        event_id=event_id,
        order_by=order_by,
        moment=moment,
        string_features=[name for name in features if type_name(name) == "StringType"],
        integral_target=type_name(target) in _INTEGRAL,
        is_classifier=is_classifier,
        label_timeout_ms=label_timeout_ms,
        key_timeout_ms=key_timeout_ms,
        metric=metric,
        with_models=with_models,
        with_timing=with_timing,
        key_buckets=key_buckets,
        columns=[field.name for field in output],
    )
    from pyspark.sql import functions as F

    columns_named = list(dict.fromkeys([*by, event_id, order_by, target, *features]))
    columns = [F.col(name) for name in columns_named]
    # the keys' buckets: a key always hashes to the same one
    columns.append(
        F.pmod(F.xxhash64(*(F.col(name) for name in by)), F.lit(key_buckets)).alias(_BUCKET)
    )
    if moment is not None:
        # the watermarked column itself must reach the operator (Spark checks it)
        if moment not in columns_named:
            columns.append(F.col(moment))
        columns.append(F.unix_millis(F.col(moment)).alias(_MOMENT_MS))
    timeout = (
        GroupStateTimeout.NoTimeout
        if label_timeout_ms is None and key_timeout_ms is None
        else GroupStateTimeout.EventTimeTimeout
        if moment is not None
        else GroupStateTimeout.ProcessingTimeTimeout
    )
    return (
        events.select(*columns)
        .groupBy(_BUCKET)
        .applyInPandasWithState(keyed, output_schema, state_schema, "append", timeout)
    )


def _milliseconds(name, value):
    if value is None:
        return None
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError(f"{name} must be seconds or a datetime.timedelta, not {value!r}")
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"{name} must be positive, not {value!r}")
    return max(1, round(seconds * 1000))


def predict_learn(model, names, rows, labels, predict):
    """The prequential loop of one key over one micro-batch, in order.

    For each step ``i``: if ``predict[i]``, ``model.predict_one`` on the features ``rows[i]``
    (a tuple of values, in the order of ``names``); then, if ``labels[i]`` is not None,
    ``model.learn_one`` on them with that label. Returns the predictions (None where not
    predicted). Everything has been checked before: a faster path (a model method taking the
    rows as arrays, exactly equal to this loop) plugs in here.
    """
    predict_one = model.predict_one
    learn_one = model.learn_one
    predictions = []
    append = predictions.append
    for row, y, p in zip(rows, labels, predict):
        x = dict(zip(names, row))
        append(predict_one(x) if p else None)
        if y is not None:
            learn_one(x, y)
    return predictions


class _Visit:
    """A bucket's output, in columns: one row per event and a few per key."""

    def __init__(self, function):
        self.function = function
        self.keys, self.events, self.labels, self.predictions = [], [], [], []
        self.kinds, self.errors, self.summaries = [], [], []

    def add(self, key, event, label, prediction, kind, error=None, summary=None):
        self.keys.append(key)
        self.events.append(event)
        self.labels.append(label)
        self.predictions.append(prediction)
        self.kinds.append(kind)
        self.errors.append(error)
        self.summaries.append(summary)

    def frame(self, pd):
        f = self.function
        n = len(self.kinds)
        data = {}
        columns = list(zip(*self.keys)) if n else [()] * len(f.by)
        for name, values in zip(f.by, columns):
            data[name] = list(values)
        data[f.event_id] = self.events
        data[f.target] = self.labels
        data["prediction"] = self.predictions
        data["kind"] = self.kinds
        data["error"] = self.errors
        for name in f.columns:
            if name not in data:
                data[name] = [None if s is None else s.get(name) for s in self.summaries]
        return pd.DataFrame(data, columns=f.columns)


class _KeyFunction:
    """The function ``applyInPandasWithState`` calls per bucket of keys: (bucket, frames,
    state) -> frames.

    The keys are hashed into buckets (``key_buckets``) and Spark calls this once per bucket
    and micro-batch: each call of Spark's per-group operator costs some milliseconds (its
    Arrow batches, their conversion to pandas, the output frame), which a bucket shares among
    its keys. The bucket's state is one row: a dict of its keys' states (each key's model,
    held features and metric, pickled apart, so that a key without events is neither
    unpickled nor pickled again). A class rather than a closure so that what it carries to
    the workers is plain and picklable, and so that its steps can be read apart.
    """

    def __init__(self, **settings):
        self.__dict__.update(settings)
        self.metric_template = None if self.metric is None else self.metric.clone()

    def __call__(self, bucket, frames, state):
        import numpy as np
        import pandas as pd

        clock = time.perf_counter
        started = clock()
        # Spark converts the bucket's Arrow batches to pandas as they are iterated
        frames = [frame for frame in frames if len(frame)]
        frame = None if not frames else frames[0] if len(frames) == 1 else pd.concat(frames)
        read = clock()
        keys = self._keys(state)
        now_ms = self._now_ms(state)
        visit = _Visit(self)
        timing = {"seconds_input": read - started, "seconds_loads": clock() - read}

        # -- the keys with events, each with its events' positions in prequential order
        positions, columns = {}, None
        if frame is not None:
            events_started = clock()
            columns = self._columns(frame, now_ms, np)
            key_of = columns["keys"]
            for i in columns["order"].tolist():
                positions.setdefault(key_of[i], []).append(i)
            timing["seconds_events"] = clock() - events_started
        # ... and those whose time is up (a held event's label, or the key itself)
        if now_ms is not None:
            for key, entry in keys.items():
                if key not in positions and entry[8] is not None and entry[8] <= now_ms:
                    positions[key] = None
        for key, where in positions.items():
            self._key(key, keys, where, columns, now_ms, visit, timing, np)

        # -- the bucket's new state, and when to visit it again
        dumps_started = clock()
        if keys:
            state.update((pickle.dumps(keys, protocol=5), self.key_buckets))
            self._set_timeout(state, keys, now_ms)
        elif state.exists:
            state.remove()
        timing["seconds_dumps"] = timing.get("seconds_dumps", 0.0) + clock() - dumps_started
        if not visit.kinds:
            return
        if self.with_timing:  # the bucket's own time, on its first summary row
            first = next((s for s in visit.summaries if s is not None), None)
            if first is not None:
                for name, seconds in timing.items():
                    first[name] = first.get(name, 0.0) + seconds
                first["seconds_total"] = clock() - started
        yield visit.frame(pd)

    def _keys(self, state):
        """The bucket's keys' states; refused if the checkpoint hashed keys otherwise."""
        if not state.exists:
            return {}
        keys, key_buckets = state.get
        if key_buckets != self.key_buckets:
            # the same key would now land in another bucket, beside its old state
            raise ValueError(
                f"the checkpoint's state was written with key_buckets={key_buckets} and the "
                f"query has key_buckets={self.key_buckets}: give the checkpoint's number, or "
                "start a new checkpoint"
            )
        return pickle.loads(keys)

    # -- one key

    def _key(self, key, keys, where, columns, now_ms, visit, timing, np):
        """Key ``key``'s visit: its expirations, then its events (positions ``where`` of the
        bucket's ``columns``, in prequential order; None for a visit its deadline brought)."""
        clock = time.perf_counter
        loads_started = clock()
        entry = keys.get(key)
        if entry is None:
            model, held, metric = None, {}, None
            n_learned = n_expired = n_unknown = n_errors = 0
            last_ms = None
        else:
            model_bytes, held_bytes, metric_bytes, *counts, last_ms, _ = entry
            n_learned, n_expired, n_unknown, n_errors = counts
            held = pickle.loads(held_bytes) if held_bytes is not None else {}
            model = metric = None  # (unpickled below, if the key's state stays)

        # -- held events past their deadline expire first: their labels come too late
        if held and now_ms is not None:
            for event, (_, prediction, deadline) in list(held.items()):
                if deadline is not None and deadline <= now_ms:
                    del held[event]
                    visit.add(key, event, None, prediction, EXPIRED)
                    n_expired += 1

        # -- an idle key (no event for key_timeout) loses its state; if events came for it
        # after all (a micro-batch that visits it late), they start a fresh clone
        if self.key_timeout_ms is not None and last_ms is not None and now_ms is not None:
            if last_ms + self.key_timeout_ms <= now_ms:
                for event, (_, prediction, _) in held.items():
                    visit.add(key, event, None, prediction, EXPIRED)
                visit.add(key, None, None, None, KEY_EXPIRED)
                keys.pop(key, None)
                if where is None:
                    return
                entry, held = None, {}
                n_learned = n_expired = n_unknown = n_errors = 0
                last_ms = None
        if entry is None:
            model = self.model.clone()
            metric = None if self.metric_template is None else self.metric_template.clone()
        else:
            model = pickle.loads(model_bytes)
            metric = pickle.loads(metric_bytes) if metric_bytes is not None else None
        timing["seconds_loads"] += clock() - loads_started

        if where is not None:
            events_started = clock()
            steps, rows, labels, predict, waiting, errors = self._steps(where, columns, held)
            n_errors += errors
            learn_started = clock()
            predictions = predict_learn(model, self.features, rows, labels, predict)
            learn_done = clock()
            for j, (kind, event, label, payload) in enumerate(steps):
                prediction = predictions[j]
                if kind == ERROR or kind == UNKNOWN_LABEL:
                    visit.add(key, event, label, None, kind, payload)
                    n_unknown += kind == UNKNOWN_LABEL
                    continue
                if kind == PREDICTED:
                    if j in waiting:  # no label for it in this micro-batch
                        held[event] = (rows[j], prediction, payload)
                    visit.add(key, event, None, prediction, PREDICTED)
                    continue
                # learned: with its prediction, or with the one made when the features came
                if payload is not None:
                    where_, value = payload
                    prediction = predictions[value] if where_ == "step" else value
                visit.add(key, event, label, prediction, LEARNED)
                n_learned += 1
                if metric is not None and prediction is not None:
                    metric.update(label, prediction)
            last_ms = self._last_ms(columns, where, now_ms, last_ms)
            timing["seconds_events"] = timing.get("seconds_events", 0.0) + (
                learn_started - events_started + clock() - learn_done
            )
            timing["seconds_learn"] = timing.get("seconds_learn", 0.0) + learn_done - learn_started

        # -- the key's new state
        dumps_started = clock()
        model_bytes = pickle.dumps(model, protocol=5)
        keys[key] = (
            model_bytes,
            pickle.dumps(held, protocol=5) if held else None,
            None if metric is None else pickle.dumps(metric, protocol=5),
            n_learned,
            n_expired,
            n_unknown,
            n_errors,
            last_ms,
            self._deadline(held, last_ms, now_ms),
        )
        timing["seconds_dumps"] = timing.get("seconds_dumps", 0.0) + clock() - dumps_started
        summary = {
            "n_learned": n_learned,
            "n_held": len(held),
            "n_expired": n_expired,
            "n_unknown_labels": n_unknown,
            "n_errors": n_errors,
        }
        if metric is not None:
            summary["metric"] = float(metric.get())
        if self.with_models:
            summary["model"] = model_bytes
        visit.add(key, None, None, None, SUMMARY, summary=summary)

    # -- clocks

    def _now_ms(self, state):
        if self.label_timeout_ms is None and self.key_timeout_ms is None:
            return None
        if self.moment is not None:
            return state.getCurrentWatermarkMs()
        return state.getCurrentProcessingTimeMs()

    def _last_ms(self, columns, where, now_ms, last_ms):
        """The key's latest moment: the micro-batch's time, or its latest event time."""
        if self.key_timeout_ms is None:
            return last_ms
        if self.moment is None:
            return now_ms
        moments = [m for m in (columns["moments"][i] for i in where) if m == m and m is not None]
        if not moments:
            return last_ms
        latest = int(max(moments))
        return latest if last_ms is None else max(latest, last_ms)

    def _deadline(self, held, last_ms, now_ms):
        """When the key must be visited again (its earliest held event's deadline, or the
        end of its idle time), or None."""
        if now_ms is None:
            return None
        deadlines = [deadline for (_, _, deadline) in held.values() if deadline is not None]
        if self.key_timeout_ms is not None and last_ms is not None:
            deadlines.append(last_ms + self.key_timeout_ms)
        return min(deadlines) if deadlines else None

    def _set_timeout(self, state, keys, now_ms):
        if now_ms is None:
            return
        deadlines = [entry[8] for entry in keys.values() if entry[8] is not None]
        if not deadlines:
            return
        deadline = min(deadlines)
        if self.moment is not None:
            # the watermark must pass the deadline; Spark refuses a timeout behind it
            state.setTimeoutTimestamp(max(deadline, now_ms + 1))
        else:
            state.setTimeoutDuration(max(1, deadline - now_ms))

    # -- the events

    def _columns(self, frame, now_ms, np):
        """A bucket's events, checked column by column once: the key and the feature values
        of each, its label, why it is malformed (if it is), its id, its deadline and the
        prequential order of all of them (``order_by``, features before labels, the id)."""
        names = self.features
        reasons = {}  # position -> why the event is malformed

        # features: a list of values per column; nulls (NaN too) counted per event
        values = []
        nulls = []
        for name in names:
            column = frame[name]
            null = column.isna().to_numpy()
            nulls.append(null)
            if name in self.string_features:
                array, unparsed = _parse_numbers(column.tolist(), null, np)
                for i, text in unparsed:
                    reasons.setdefault(i, f"feature {name!r} is not a number: {text!r}")
            elif column.dtype == bool or column.dtype.kind in "iu" or column.dtype == object:
                values.append(column.tolist())  # booleans, integers (None where null)
                continue
            else:
                array = column.to_numpy(dtype=float)
            infinite = np.isinf(array)
            for i in np.flatnonzero(infinite).tolist():
                reasons.setdefault(i, f"feature {name!r} is not finite: {array[i]}")
            values.append(array.tolist())
        n_missing = np.sum(nulls, axis=0) if len(nulls) > 1 else nulls[0].astype(np.int64)
        no_features = n_missing == len(names)
        for i in np.flatnonzero((n_missing > 0) & ~no_features).tolist():
            absent = [name for name, null in zip(names, nulls) if null[i]]
            reasons[i] = f"missing feature values (null or NaN): {absent}"

        # labels: null (or NaN) means none; a regressor's must be finite
        label_column = frame[self.target]
        label_null = label_column.isna().to_numpy()
        labels = label_column.tolist()
        if self.integral_target:
            labels = [None if null else int(y) for y, null in zip(labels, label_null)]
        elif self.is_classifier:
            labels = [None if null else y for y, null in zip(labels, label_null)]
        else:
            labels = [None if null else float(y) for y, null in zip(labels, label_null)]
            for i in np.flatnonzero(~label_null).tolist():
                if not math.isfinite(labels[i]):
                    reasons.setdefault(i, f"label is not finite: {labels[i]}")

        ids = frame[self.event_id].to_numpy()
        order = _order(frame[self.order_by], no_features & ~label_null, ids, np)
        key_columns = [[_plain_value(v) for v in frame[name].tolist()] for name in self.by]
        moments = None
        deadlines = None
        if self.label_timeout_ms is not None and now_ms is not None:
            if self.moment is None:
                deadlines = [now_ms + self.label_timeout_ms] * len(frame)
            else:  # an event without a moment waits from the watermark on
                deadlines = [
                    (now_ms if m is None or m != m else int(m)) + self.label_timeout_ms
                    for m in frame[_MOMENT_MS].tolist()
                ]
        if self.moment is not None:
            moments = frame[_MOMENT_MS].tolist()
        return {
            "keys": list(zip(*key_columns)),
            "rows": list(zip(*values)),
            "labels": labels,
            "reasons": reasons,
            "no_features": no_features.tolist(),
            "ids": ids.tolist(),
            "order": order,
            "deadlines": deadlines,
            "moments": moments,
        }

    def _steps(self, where, columns, held):
        """A key's events (positions ``where``, in prequential order) as prequential steps.

        Returns the steps, one per event: ``(kind, event id, label, payload)``; the rows,
        labels and predict flags :func:`predict_learn` takes, one per step (a step that
        neither predicts nor learns has no row); the steps whose features are held for a
        label; the number of errors. ``held`` loses the events whose label came.
        """
        ids, labels, rows = columns["ids"], columns["labels"], columns["rows"]
        reasons, no_features = columns["reasons"], columns["no_features"]
        deadlines = columns["deadlines"]
        steps, step_rows, step_labels, step_predict = [], [], [], []
        pending = {}  # event id -> step: features of this micro-batch waiting for a label
        seen = set()  # event ids learned with their label in this micro-batch
        waiting = set()  # steps whose features are to be held after the micro-batch
        errors = 0
        for i in where:
            event = ids[i]
            label = labels[i]
            reason = reasons.get(i)
            if reason is None and no_features[i] and label is None:
                reason = "the event has neither features nor a label"
            if reason is None and not no_features[i]:
                if event in held or event in pending or event in seen:
                    reason = f"duplicate event id {event!r}: its features came before"
            if reason is not None:
                steps.append((ERROR, event, label, reason))
                errors += 1
                step_rows.append(())
                step_labels.append(None)
                step_predict.append(False)
                continue
            if no_features[i]:  # a label: the features are held, from now or before
                if event in pending:
                    j = pending.pop(event)
                    waiting.discard(j)
                    steps.append((LEARNED, event, label, ("step", j)))
                    step_rows.append(step_rows[j])
                elif event in held:
                    row, prediction, _ = held.pop(event)
                    steps.append((LEARNED, event, label, ("held", prediction)))
                    step_rows.append(row)
                else:
                    steps.append(
                        (UNKNOWN_LABEL, event, label, "no features held for this event id")
                    )
                    step_rows.append(())
                    step_labels.append(None)
                    step_predict.append(False)
                    continue
                step_labels.append(label)
                step_predict.append(False)
                continue
            if label is None:
                pending[event] = len(steps)
                waiting.add(len(steps))
                steps.append((PREDICTED, event, None, None if deadlines is None else deadlines[i]))
            else:
                seen.add(event)
                steps.append((LEARNED, event, label, None))
            step_rows.append(rows[i])
            step_labels.append(label)
            step_predict.append(True)
        return steps, step_rows, step_labels, step_predict, waiting, errors


def _plain_value(value):
    """A key's value as a Python value (pandas gives numpy scalars of some types)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, str) else value


def _parse_numbers(texts, null, np):
    """Strings as floats (NaN where null); (position, text) of those that are not numbers."""
    parsed = np.full(len(texts), np.nan)
    unparsed = []
    for i in np.flatnonzero(~null).tolist():
        try:
            parsed[i] = float(texts[i])
        except ValueError:
            unparsed.append((i, texts[i]))
    return parsed, unparsed


def _order(column, label_only, ids, np):
    """Positions in prequential order: the column, features before labels, the event id."""
    values = column.to_numpy()
    n = len(values)
    if values.dtype != object and n > 1:
        if not label_only.any() and bool((values[1:] > values[:-1]).all()):
            return np.arange(n)  # already in order, no ties
        try:
            return np.lexsort((ids, label_only, values))
        except TypeError:
            pass
    import pandas as pd

    frame = pd.DataFrame({"o": values, "l": label_only, "i": ids})
    return frame.sort_values(["o", "l", "i"], kind="mergesort").index.to_numpy()
