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

from river_boost.spark._keys import (
    _MOMENT_MS,
    COUNTERS,
    ERROR,
    EXPIRED,
    KEY_EXPIRED,
    KINDS,
    LEARNED,
    PREDICTED,
    SUMMARY,
    TIMINGS,
    UNKNOWN_LABEL,
    _KeyFunction,
)

# the output's ``kind`` values are named here too
__all__ = [
    "prequential_by_key",
    "KINDS",
    "PREDICTED",
    "LEARNED",
    "ERROR",
    "UNKNOWN_LABEL",
    "EXPIRED",
    "SUMMARY",
    "KEY_EXPIRED",
]

# the bucket a key hashes to (the operator's groups)
_BUCKET = "__river_boost_bucket"

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
        [StructField("keys", BinaryType()), StructField("key_buckets", LongType())]
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
