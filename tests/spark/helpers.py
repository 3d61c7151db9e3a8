"""Streams as parquet files, a query over them, and the standalone runs it must equal."""

from __future__ import annotations

import os
import pathlib
import pickle
import random
import shutil
import time

import pytest
from river import base

FEATURES = ["x1", "x2", "x3"]


def skip_without_spark() -> None:
    """Skip the calling test module where local Spark cannot run."""
    for module, why in [
        ("pyspark", "PySpark is not installed (the spark extra)"),
        ("pandas", "pandas is not installed (the spark extra)"),
        ("pyarrow", "PyArrow is not installed (the spark extra)"),
    ]:
        pytest.importorskip(module, reason=why)
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java, and none is installed", allow_module_level=True)


def write_batches(folder: pathlib.Path, frames, seed: int = 0) -> None:
    """One parquet file per frame, its rows shuffled: Spark gives a group's rows in no
    particular order anyway, and the function under test must sort them."""
    folder.mkdir(parents=True, exist_ok=True)
    start = len(list(folder.glob("*.parquet")))
    now = time.time()
    for i, frame in enumerate(frames, start=start):
        path = folder / f"part-{i:03d}.parquet"
        # microseconds: Spark reads no nanosecond timestamps (pandas 2 writes those)
        frame.sample(frac=1.0, random_state=seed + i).to_parquet(path, coerce_timestamps="us")
        # the file source takes files in the order of their modification times: files
        # written within one tick could come in any order
        os.utime(path, (now + i, now + i))


def run_query(spark, folder, schema, tmp, model, *, name="run", transform=None, **kwargs):
    """prequential_by_key over the files of ``folder`` (one file per micro-batch), written to a
    parquet sink with ``trigger(availableNow=True)``; the sink's rows as pandas, and the query.
    The keys share two buckets unless ``key_buckets`` says otherwise.

    ``tmp/name`` holds the checkpoint and the sink: a second call with the same name continues
    the same query."""
    from river_boost.spark import prequential_by_key

    events = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(folder))
    if transform is not None:
        events = transform(events)
    kwargs.setdefault("by", "key")
    kwargs.setdefault("features", FEATURES)
    kwargs.setdefault("target", "y")
    kwargs.setdefault("event_id", "id")
    # (few buckets: the keys share them, as many keys do in production)
    kwargs.setdefault("key_buckets", 2)
    predictions = prequential_by_key(events, model, **kwargs)
    query = (
        predictions.writeStream.format("parquet")
        .option("path", str(tmp / name / "out"))
        .option("checkpointLocation", str(tmp / name / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return read_output(spark, tmp / name), query


def read_output(spark, where):
    return spark.read.parquet(str(where / "out")).toPandas()


def state_models(spark, where) -> dict:
    """The models in the query's state store, by key, read back with Spark's state reader."""
    state = spark.read.format("statestore").load(str(where / "checkpoint")).collect()
    models = {}
    for row in state:  # a row per bucket of keys: its keys' states, pickled
        for key, entry in pickle.loads(row.value.groupState.keys).items():
            models[key[0]] = entry[0]
    return models


def standalone(events, template):
    """The reference: per key a clone of the template, predict_one then learn_one over that
    key's events in order. ``events``: (key, id, x, y) in order. Predictions by id; models."""
    models, predictions = {}, {}
    for key, event, x, y in events:
        model = models.get(key)
        if model is None:
            model = models[key] = template.clone()
        predictions[event] = model.predict_one(x)
        model.learn_one(x, y)
    return predictions, models


def probes(n: int = 200, seed: int = 7):
    rng = random.Random(seed)
    return [{name: rng.uniform(0, 10) for name in FEATURES} for _ in range(n)]


def same_models(a, b, points) -> bool:
    """Equal predictions on every probe point, and equal pickles."""
    return all(a.predict_one(x) == b.predict_one(x) for x in points)


def loads(data):
    return pickle.loads(data)


class FaultOnce(base.Classifier):
    """A classifier that wraps another and raises once in ``learn_one`` on a marked event:
    when ``x[feature] == value`` and the marker file exists (it deletes the file first, so the
    rerun passes). Otherwise it is the wrapped model, step for step."""

    def __init__(self, model: base.Classifier, marker: str, feature: str, value: float):
        self.model = model
        self.marker = marker
        self.feature = feature
        self.value = value

    def learn_one(self, x, y):
        if x[self.feature] == self.value:
            marker = pathlib.Path(self.marker)
            if marker.exists():
                marker.unlink()
                raise RuntimeError("an injected fault, half-way through a micro-batch")
        self.model.learn_one(x, y)

    def predict_proba_one(self, x):
        return self.model.predict_proba_one(x)

    def predict_one(self, x):
        return self.model.predict_one(x)
