"""The Spark examples of the documentation run: the docstring's example of
``prequential_by_key`` and the ```py blocks of the deployment guide (which the main test job
cannot run: it has no PySpark), on local streams of parquet files."""

from __future__ import annotations

import doctest
import json
import pathlib
import re

import pytest
from river.datasets import synth

import river_boost.spark

from .helpers import FEATURES, skip_without_spark, write_batches

skip_without_spark()
pd = pytest.importorskip("pandas")

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "deployment.md"


def sea_events(n: int, n_users: int = 4) -> pd.DataFrame:
    rows = [(i % n_users, i, *x.values(), y) for i, (x, y) in enumerate(synth.SEA(seed=3).take(n))]
    return pd.DataFrame(rows, columns=["user", "id", *FEATURES, "y"])


def in_folder(code: str, folder, paths) -> str:
    """The code with its relative paths under ``folder`` (the JVM does not follow
    Python's working directory)."""
    for path in paths:
        code = code.replace(f'"{path}"', repr(str(folder / path)))
    return code


def test_the_docstring_example_runs(spark, tmp_path):
    data = sea_events(800)
    write_batches(tmp_path / "events", [data.iloc[:400], data.iloc[400:]])
    examples = doctest.DocTestParser().get_examples(river_boost.spark.prequential_by_key.__doc__)
    assert examples, "the docstring has no example"
    namespace = {"spark": spark}
    for example in examples:
        code = in_folder(example.source, tmp_path, ["events/", "predictions/", "checkpoint/"])
        exec(compile(code, "<docstring>", "exec"), namespace)
    out = spark.read.parquet(str(tmp_path / "predictions")).toPandas()
    assert (out.kind == "learned").sum() == len(data)
    assert out[out.kind == "summary"].metric.notna().all()


def guide_blocks() -> list[str]:
    """The guide's ```py blocks, but those an HTML comment marks ``not run``."""
    text = GUIDE.read_text()
    blocks = []
    for match in re.finditer(r"(<!-- [^>]*-->\n)?```py\n(.*?)```", text, re.S):
        comment, code = match.group(1) or "", match.group(2)
        if "not run" not in comment:
            blocks.append(code)
    return blocks


def test_the_deployment_guide_runs_on_a_local_stream(spark, tmp_path):
    """The guide reads Kafka; here ``raw`` is a stream of parquet files with the Kafka
    source's columns (``value`` a JSON payload, ``timestamp``, ``partition``, ``offset``)."""
    from pyspark.sql import functions as F

    data = sea_events(1200)
    data["y"] = data["y"].astype(object)
    data.loc[data.index % 5 == 0, "y"] = None  # some labels come later, alone
    late = data.loc[data.index % 5 == 0, ["user", "id", "y"]].copy()
    late["y"] = True
    rows = [
        {"user": int(user), "id": int(event), **dict(zip([*FEATURES, "y"], rest))}
        for user, event, *rest in data.itertuples(index=False)
    ]
    # the labels alone, later
    rows += [
        {"user": int(user), "id": int(event), "y": True}
        for user, event, _ in late.itertuples(index=False)
    ]
    kafka = pd.DataFrame(
        {
            "value": [json.dumps({k: v for k, v in row.items() if v is not None}) for row in rows],
            "timestamp": pd.Timestamp("2026-01-01") + pd.to_timedelta(range(len(rows)), "ms"),
            "partition": [0] * len(rows),
            "offset": range(len(rows)),
        }
    )
    write_batches(tmp_path / "kafka", [kafka.iloc[:700], kafka.iloc[700:]])
    raw = (
        spark.readStream.schema("value string, timestamp timestamp, partition int, offset long")
        .option("maxFilesPerTrigger", 1)
        .parquet(str(tmp_path / "kafka"))
        .withColumn("value", F.col("value").cast("binary"))
    )
    blocks = guide_blocks()
    assert len(blocks) >= 3
    namespace = {"spark": spark, "raw": raw}
    code = in_folder("\n".join(blocks), tmp_path, ["predictions/", "checkpoints/per-user"])
    exec(compile(code, str(GUIDE), "exec"), namespace)
    query = namespace["query"]
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    out = spark.read.parquet(str(tmp_path / "predictions")).toPandas()
    assert (out.kind == "learned").sum() == len(data)
    assert (out.kind == "predicted").sum() == len(late)
