"""One model per key on local Spark (``river_boost.spark``) beside a plain Python loop.

For each number of keys and each estimator: SEA events (``river.datasets.synth.SEA``: x1..x3
and a boolean label; the key is the event's index modulo the number of keys) are written as
parquet files, one per micro-batch, and read as a stream by ``prequential_by_key`` (a parquet
sink, ``trigger(availableNow=True)``), with ``local[1]`` and then ``local[2]``; beside it the
same estimators over the same rows in one plain Python loop (a dict of models by key,
``predict_one`` then ``learn_one``, rows as dicts). Events per second count the query's
micro-batches only (the sum of their ``triggerExecution`` durations: no JVM start, no query
planning), so that the ratio compares learning with learning.

The micro-batch's time is split with ``with_timing=True`` in the ``local[1]`` runs (a few
clock reads per bucket of keys and micro-batch). The function's time, summed over buckets:
unpickling the keys' states, or cloning the template for a new key (``loads``); checking
events and building rows (``events``); the models' ``predict_one`` and ``learn_one`` with the
per-row dicts (``learn``); pickling (``dumps``); the rest of the function (``other``: sorting,
the output frame). And ``spark``: the micro-batches' time left over, plus the conversion of
each bucket's events from Arrow to pandas (the shuffle, the state store, the sink, the Python
workers; with ``local[1]`` all on one core). ``dicts`` is the share of ``learn`` spent
building the per-row dicts, measured apart on the same rows. State bytes per key: the size of
the state store's rows at the end (the pickled models, held features and metrics of the
buckets' keys) over the number of keys.

The first micro-batch of a query also pays Spark's warm-up (the JVM compiling the query's
code, the Python workers starting and importing River: several seconds, on one core at a
time), which a long-running query pays once: a second table gives the last micro-batch
alone, beside the plain loop's rate over the same rows, and the cores that Spark's JVM and
its Python workers used during it (from ``/proc``, on Linux): with ``local[1]`` the JVM's own
threads (the shuffle, Arrow, the state store, the sink, its garbage collector) run beside the
one Python worker, so on two cores ``local[2]`` can gain only what they leave.

``key_buckets`` is ``prequential_by_key``'s default (256) up to 25,600 keys and a bucket per
100 keys beyond, as the deployment guide advises; ``--key-buckets`` sets it for every row.

Scenarios (``--scenario``, default all):

- ``keys``: 10 and 1,000 keys, 40,000 events (4,000 and 40 per key), and 100,000 keys with
  2 events per key (200,000 events: one per key per micro-batch), in two micro-batches;
- ``reference``: the issue's job: 400,000 SEA events, two micro-batches, ``AdaBoostOL()`` per
  key, 1,000 and 20,000 keys.

Run: ``python benchmarks/spark_keys.py`` (needs the ``spark`` extra and Java; about 40
minutes on 2 cores), ``--scenario reference``, ``--repeats 2``. It writes only into a
temporary folder.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import pickle
import shutil
import statistics
import sys
import tempfile
import threading
import time

import numpy as np
import pandas as pd
from river import tree
from river.datasets import synth

import river_boost
from river_boost.spark import prequential_by_key

FEATURES = ["x1", "x2", "x3"]
SCHEMA = "key long, id long, x1 double, x2 double, x3 double, y boolean"

ESTIMATORS = {
    "AdaBoostOL": lambda: river_boost.AdaBoostOL(),
    "SGBTClassifier": lambda: river_boost.SGBTClassifier(),
    "HoeffdingTree": lambda: tree.HoeffdingTreeClassifier(),
}


def events(n: int, n_keys: int, seed: int = 42) -> pd.DataFrame:
    rows = [
        (i % n_keys, i, *x.values(), y) for i, (x, y) in enumerate(synth.SEA(seed=seed).take(n))
    ]
    return pd.DataFrame(rows, columns=["key", "id", *FEATURES, "y"])


def plain_loop(data: pd.DataFrame, make, n_batches: int) -> tuple[float, float]:
    """Events per second of the plain loop (a dict of models, rows as dicts): over all rows,
    and over the rows of the last micro-batch."""
    keys = data["key"].tolist()
    columns = [data[name].tolist() for name in FEATURES]
    labels = data["y"].tolist()
    last = np.array_split(np.arange(len(data)), n_batches)[-1][0]
    models: dict = {}
    gc.collect()
    start = time.perf_counter()
    for i, (key, values, y) in enumerate(zip(keys, zip(*columns), labels)):
        if i == last:
            middle = time.perf_counter()
        model = models.get(key)
        if model is None:
            model = models[key] = make()
        x = dict(zip(FEATURES, values))
        model.predict_one(x)
        model.learn_one(x, y)
    end = time.perf_counter()
    return len(data) / (end - start), (len(data) - last) / (end - middle)


def dict_seconds(data: pd.DataFrame) -> float:
    """The time to build the per-row dicts alone (what ``learn`` includes for them)."""
    columns = [data[name].tolist() for name in FEATURES]
    start = time.perf_counter()
    for values in zip(*columns):
        dict(zip(FEATURES, values))
    return time.perf_counter() - start


class CoreUse:
    """CPU time of this process's children (Spark's JVM, and its Python workers under it),
    sampled from ``/proc`` every 0.1 s; empty where there is no ``/proc``."""

    def __init__(self):
        self.samples, self.done = [], threading.Event()
        if os.path.isdir("/proc/self"):
            threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self.done.wait(0.1):
            self.samples.append((time.time(), self._cpu()))

    @staticmethod
    def _cpu():
        tick, root = os.sysconf("SC_CLK_TCK"), os.getpid()
        parent, used, java = {}, {}, set()
        for name in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{name}/stat") as f:
                    stat = f.read()
            except OSError:  # not a process, or gone
                continue
            pid, rest = int(name), stat.rsplit(")", 1)[1].split()
            parent[pid], used[pid] = int(rest[1]), (int(rest[11]) + int(rest[12])) / tick
            if stat[stat.index("(") + 1 : stat.rindex(")")] == "java":
                java.add(pid)
        total = {"java": 0.0, "python": 0.0}
        for pid in used:
            up = parent.get(pid)
            while up not in (None, 0, root):
                up = parent.get(up)
            if up == root:
                total["java" if pid in java else "python"] += used[pid]
        return total

    def stop(self):
        self.done.set()

    def between(self, start, end):
        """Cores used by the JVM and the Python workers from start to end (wall clock)."""
        if len(self.samples) < 2:
            return {}
        a = min(self.samples, key=lambda sample: abs(sample[0] - start))
        b = min(self.samples, key=lambda sample: abs(sample[0] - end))
        wall = b[0] - a[0]
        return {f"{who} cores": (b[1][who] - a[1][who]) / wall for who in a[1]} if wall else {}


def spark_run(master, data, make, n_batches, tmp, with_timing=False, key_buckets=256):
    """One query over the data cut into n_batches files; (events/s, progress, output)."""
    from pyspark.sql import SparkSession

    # Spark's Python workers run this interpreter (by default, whatever python3 is on PATH)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    folder = os.path.join(tmp, "in")
    os.makedirs(folder)
    now = time.time()
    for i, part in enumerate(np.array_split(np.arange(len(data)), n_batches)):
        path = os.path.join(folder, f"part-{i:03d}.parquet")
        data.iloc[part].to_parquet(path)
        os.utime(path, (now + i, now + i))
    spark = (
        SparkSession.builder.master(master)
        # (the first session of the process starts the JVM: 100,000 keys' states need more
        # than its default 1 GB heap)
        .config("spark.driver.memory", "4g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config(
            "spark.sql.streaming.stateStore.providerClass",
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        )
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(folder)
    out = prequential_by_key(
        stream,
        make(),
        by="key",
        features=FEATURES,
        target="y",
        event_id="id",
        with_timing=with_timing,
        key_buckets=key_buckets,
    )
    cores = CoreUse()
    query = (
        out.writeStream.format("parquet")
        .option("path", os.path.join(tmp, "out"))
        .option("checkpointLocation", os.path.join(tmp, "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    cores.stop()
    progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
    seconds = sum(p["durationMs"]["triggerExecution"] for p in progress) / 1000
    result = {"rate": len(data) / seconds, "seconds": seconds}
    # the last micro-batch alone: past the first one's warm-up (the JVM compiling, the Python
    # workers starting and importing River), and the cores Spark's JVM and the workers used
    result["batches"] = []
    for batch in progress:
        start = datetime.datetime.fromisoformat(batch["timestamp"].replace("Z", "+00:00"))
        batch_seconds = batch["durationMs"]["triggerExecution"] / 1000
        result["batches"].append({"rate": batch["numInputRows"] / batch_seconds})
        result["batches"][-1].update(
            cores.between(start.timestamp(), start.timestamp() + batch_seconds)
        )
    result["last"] = result["batches"][-1]
    if with_timing:
        summary = spark.read.parquet(os.path.join(tmp, "out")).where("kind = 'summary'").toPandas()
        result["timing"] = {name: summary[name].sum() for name in summary if "seconds_" in name}
        state = spark.read.format("statestore").load(os.path.join(tmp, "checkpoint"))
        # a row per bucket of keys: its keys' states, pickled (the bytes per key, all told)
        total = state.selectExpr("sum(octet_length(value.groupState.keys)) AS b").first().b
        result["state_bytes"] = float(total) / data["key"].nunique()
    spark.stop()
    return result


def measure(name, n_keys, n, n_batches, repeats, key_buckets=None):
    """Plain loop, local[1] (timed: the rate and the split) and local[2], repeated."""
    if key_buckets is None:  # the guide's advice: the default, or a bucket per 100 keys
        key_buckets = max(256, n_keys // 100)
    make = ESTIMATORS[name]
    data = events(n, n_keys)
    runs = []
    for _ in range(repeats):
        run = dict(zip(("plain", "plain last"), plain_loop(data, make, n_batches)))
        for master in ("local[1]", "local[2]"):
            tmp = tempfile.mkdtemp(prefix="spark_keys_")
            try:
                run[master] = spark_run(
                    master,
                    data,
                    make,
                    n_batches,
                    tmp,
                    with_timing=master == "local[1]",
                    key_buckets=key_buckets,
                )
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        runs.append(run)
    row = {"estimator": name, "keys": n_keys, "events": n, "buckets": key_buckets}
    row["plain"] = statistics.median(run["plain"] for run in runs)
    row["plain runs"] = [round(run["plain"]) for run in runs]
    row["plain last"] = statistics.median(run["plain last"] for run in runs)
    for master in ("local[1]", "local[2]"):
        row[master] = statistics.median(run[master]["rate"] for run in runs)
        row[master + " runs"] = [round(run[master]["rate"]) for run in runs]
        row[master + " last"] = statistics.median(run[master]["last"]["rate"] for run in runs)
        # the cores the JVM and the Python workers used in the last micro-batch (median)
        for who in ("java", "python"):
            used = [run[master]["last"].get(who + " cores") for run in runs]
            row[f"{master} {who}"] = statistics.median(used) if None not in used else None
    # the split of the (first) local[1] run's micro-batches: on one core nothing overlaps
    timed = runs[0]["local[1]"]
    timing, total = timed["timing"], timed["seconds"]
    split = {
        "input": timing["seconds_input"],
        "loads": timing["seconds_loads"],
        "events": timing["seconds_events"],
        "learn": timing["seconds_learn"],
        "dumps": timing["seconds_dumps"],
    }
    split["other"] = timing["seconds_total"] - sum(split.values())
    # Spark's own work: outside the function, and converting the key's events to pandas
    split["spark"] = total - timing["seconds_total"] + split.pop("input")
    row["split"] = {key: value / total for key, value in split.items()}
    row["dicts"] = dict_seconds(data) / timing["seconds_learn"]
    row["state_bytes"] = timed["state_bytes"]
    return row


def table(rows):
    head = (
        f"{'estimator':<15}{'keys':>8}{'buckets':>8}{'events':>9}{'plain ev/s':>12}{'local[1]':>10}"
        f"{'local[2]':>10}{'[2]/plain':>10}{'[2]/[1]':>9}{'state B/key':>12}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['estimator']:<15}{r['keys']:>8,}{r['buckets']:>8,}{r['events']:>9,}"
            f"{r['plain']:>12,.0f}"
            f"{r['local[1]']:>10,.0f}{r['local[2]']:>10,.0f}"
            f"{r['local[2]'] / r['plain']:>10.2f}{r['local[2]'] / r['local[1]']:>9.2f}"
            f"{r['state_bytes']:>12,.0f}"
        )
    print()
    print("The last micro-batch (events/s), and the cores Spark's JVM + its Python workers used:")
    head = (
        f"{'estimator':<15}{'keys':>8}{'plain':>10}{'local[1]':>10}{'local[2]':>10}"
        f"{'[2]/plain':>10}{'[2]/[1]':>9}{'cores [1]':>12}{'cores [2]':>12}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        cores = [
            "n/a"
            if r[f"{master} java"] is None
            else f"{r[f'{master} java']:.2f}+{r[f'{master} python']:.2f}"
            for master in ("local[1]", "local[2]")
        ]
        print(
            f"{r['estimator']:<15}{r['keys']:>8,}{r['plain last']:>10,.0f}"
            f"{r['local[1] last']:>10,.0f}{r['local[2] last']:>10,.0f}"
            f"{r['local[2] last'] / r['plain last']:>10.2f}"
            f"{r['local[2] last'] / r['local[1] last']:>9.2f}{cores[0]:>12}{cores[1]:>12}"
        )
    print()
    head = (
        f"{'estimator':<15}{'keys':>8}   share of a local[1] micro-batch: "
        "spark  loads  events  learn  dumps  other | dicts/learn"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        s = r["split"]
        print(
            f"{r['estimator']:<15}{r['keys']:>8,}   {'':>34}"
            f"{s['spark']:>5.0%}{s['loads']:>7.0%}{s['events']:>8.0%}{s['learn']:>7.0%}"
            f"{s['dumps']:>7.0%}{s['other']:>7.0%} | {r['dicts']:>6.0%}"
        )
    print()
    print("runs (events/s, each repeat):")
    for r in rows:
        print(
            f"  {r['estimator']} {r['keys']:,} keys: plain {r['plain runs']}, "
            f"local[1] {r['local[1] runs']}, local[2] {r['local[2] runs']}"
        )
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", choices=["keys", "reference", "all"], default="all")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--estimators", default=",".join(ESTIMATORS))
    parser.add_argument(
        "--key-buckets",
        type=int,
        default=None,
        help="for every row (default: 256, or a bucket per 100 keys beyond 25,600)",
    )
    args = parser.parse_args()
    estimators = args.estimators.split(",")
    print(
        f"river_boost {river_boost.__version__}; pickled AdaBoostOL: "
        f"{len(pickle.dumps(river_boost.AdaBoostOL(), protocol=5)):,} bytes fresh\n"
    )
    if args.scenario in ("reference", "all"):
        rows = [
            measure("AdaBoostOL", k, 400_000, 2, args.repeats, args.key_buckets)
            for k in (1_000, 20_000)
        ]
        print("\nThe issue's reference job: 400,000 SEA events, two micro-batches, AdaBoostOL()\n")
        table(rows)
    if args.scenario in ("keys", "all"):
        rows = []
        for n_keys, n in ((10, 40_000), (1_000, 40_000), (100_000, 200_000)):
            for name in estimators:
                rows.append(measure(name, n_keys, n, 2, args.repeats, args.key_buckets))
                print(f"  done: {rows[-1]}", flush=True)
        print("\nKeys: SEA events, two micro-batches\n")
        table(rows)


if __name__ == "__main__":
    main()
