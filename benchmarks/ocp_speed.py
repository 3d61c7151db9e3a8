"""OSBoostOCP() against River's ARFClassifier(), on a wide set and the binary bench streams.

Each run is a worker process that reads a stream's first rows into memory, then runs
``ARFClassifier(seed=s)`` and ``OSBoostOCP(seed=s)`` prequentially (``predict_one``, then
``learn_one``; the garbage collector on, as users run them) and prints the CPU seconds of its
thread (``time.thread_time``: the machine may be shared), the accuracy and a digest of the
predictions. The ratio is ARF's time over OSBoostOCP's, both measured in the same process,
one after the other. With ``--pythonpath`` the same runs are made for each given source tree
(e.g. an earlier build and this one), alternated seed by seed, so that builds compare side by
side. The wide set is LIBSVM's ``a9a`` (123 sparse binary features, made dense: absent = 0),
given by ``--a9a FILE``; ``--a9a-rows`` of it.

    python benchmarks/ocp_speed.py --a9a PATH/a9a --seeds 42,43,44 \\
        --pythonpath /old/checkout,/new/checkout

Prints one row per stream and build: the median ratio over the seeds, each seed's ratio and
the mean accuracy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

BINARY_STREAMS = "phishing,bananas,agrawal,sea,hyperplane"
DRIFT_STREAMS = "agrawal_abrupt,agrawal_gradual,sea_abrupt,sea_gradual,hyperplane_rotating"


def worker(stream: str, n: int, seed: int, a9a: str | None) -> dict:
    import hashlib
    import itertools
    import time

    from river import forest

    from river_boost import OSBoostOCP
    from river_boost.bench import loaders, streams

    if stream == "a9a":
        rows = loaders.iter_svmlight(a9a, dense_features=123)
        data = [(x, y == 1) for x, y in itertools.islice(rows, n)]
    else:
        data = list(streams.stream_examples(stream, n or None)[0])

    def run(model):
        digest, correct = hashlib.sha256(), 0
        start = time.thread_time()
        for x, y in data:
            p = model.predict_one(x)
            correct += p == y
            digest.update(b"1" if p else b"0")
            model.learn_one(x, y)
        return time.thread_time() - start, correct / len(data), digest.hexdigest()[:12]

    arf = run(forest.ARFClassifier(seed=seed))
    ocp = run(OSBoostOCP(seed=seed))
    return {"arf": arf, "ocp": ocp}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a9a", help="the a9a LIBSVM file (skipped if not given)")
    parser.add_argument("--a9a-rows", type=int, default=10_000)
    parser.add_argument("--streams", default=BINARY_STREAMS, help=f"or add {DRIFT_STREAMS}")
    parser.add_argument("--n", type=int, default=0, help="rows per bench stream (0: default)")
    parser.add_argument("--seeds", default="42,43,44")
    parser.add_argument("--pythonpath", default="", help="comma-separated source trees")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        stream, n, seed = args.worker.split(":")
        print(json.dumps(worker(stream, int(n), int(seed), args.a9a)))
        return 0
    builds = args.pythonpath.split(",") if args.pythonpath else [""]
    streams = ([("a9a", args.a9a_rows)] if args.a9a else []) + [
        (s, args.n) for s in args.streams.split(",") if s
    ]
    print("| stream | build | x ARF (median) | per seed | accuracy | ARF accuracy | digests |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for stream, n in streams:
        runs = {b: [] for b in builds}
        for seed in args.seeds.split(","):
            for b in builds:
                env = dict(os.environ, PYTHONPATH=b) if b else dict(os.environ)
                cmd = [sys.executable, __file__, "--worker", f"{stream}:{n}:{seed}"]
                if args.a9a:
                    cmd += ["--a9a", args.a9a]
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                runs[b].append(json.loads(out.stdout))
        for b in builds:
            ratios = [r["arf"][0] / r["ocp"][0] for r in runs[b]]
            acc = statistics.fmean(r["ocp"][1] for r in runs[b])
            arf_acc = statistics.fmean(r["arf"][1] for r in runs[b])
            per_seed = " ".join(f"{v:.1f}" for v in ratios)
            digests = " ".join(r["ocp"][2] for r in runs[b])
            print(
                f"| {stream} | {b or 'this'} | {statistics.median(ratios):.1f} | {per_seed} "
                f"| {acc:.4f} | {arf_acc:.4f} | {digests} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
