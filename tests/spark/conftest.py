"""Local Spark for the tests of ``river_boost.spark``: skipped without PySpark or Java.

One SparkSession for the whole run (``local[2]``, two shuffle partitions, no UI): starting a
JVM takes seconds. Events are parquet files in a folder, read as a stream one file per
micro-batch; the sink is a parquet folder (exactly-once: a micro-batch's files count only once
it is committed in the sink's log), read back whole after the query.
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

# Each test module skips itself without PySpark, pandas, PyArrow or Java
# (helpers.skip_without_spark): the main test job has none of them.

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from .helpers import skip_without_spark

    skip_without_spark()
    from pyspark.sql import SparkSession

    # Spark's Python workers run this interpreter (by default: python3 on PATH, which may
    # not be the one with river_boost), and import the helper models (tests.spark.helpers)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    warehouse = tmp_path_factory.mktemp("spark")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("river_boost tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(warehouse / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={warehouse}")
        .config("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
