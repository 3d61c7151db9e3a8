"""Booster overhead counted in instructions: the share of a prequential run spent outside the
weak learners, measured in place, repeatably, with valgrind's callgrind.

``speed.py`` times the forest's calls by recording them and replaying them alone on a fresh
forest; on a busy or a different machine that estimate moves by ±10 points, and it can even
come out negative (the replay, alone in the caches, is not the in-place cost). This script
counts instructions instead, inside the very run it measures:

- each (stream, booster) runs in its own ``valgrind --tool=callgrind`` process, with
  instrumentation switched on just around the prequential loop (``predict_one`` —
  ``score_one`` on Yeast — then ``learn_one``, as ``speed.py --throughput`` runs it, ten
  learners, seed 42), through valgrind's client requests (a three-line C helper compiled
  with gcc into a temporary folder and loaded with ctypes);
- **inside the weak learners** = the inclusive instructions of every call made into the
  compiled forest (``river_boost._forest``) from outside it: the trees' own code and
  whatever it calls (libm, CPython's dict and float functions);
- **overhead** = 1 - inside / all instructions of the loop. The rest is broken down by the
  object the instructions ran in (CPython's interpreter, the compiled walk, NumPy, ...).

Instruction counts are not seconds (the trees miss the caches more often per instruction
than the interpreter does), but they do not depend on the machine's load: the same command
gives the same counts to a few parts per million.

    python benchmarks/overhead.py                                  # the issue's grid
    python benchmarks/overhead.py --streams agrawal --models AdaBoost.OL
    python benchmarks/overhead.py --streams bananas --keep profiles  # then callgrind_annotate

Needs valgrind, its ``callgrind.h`` header and gcc; each run takes 10-60 s.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

GRID = {
    "phishing": ["AdaBoost.OL", "OnlineBBM"],
    "bananas": ["AdaBoost.OL", "OnlineBBM"],
    "agrawal": ["AdaBoost.OL", "OnlineBBM"],
    "sea": ["AdaBoost.OL", "OnlineBBM"],
    "hyperplane": ["AdaBoost.OL", "OnlineBBM"],
    "imagesegments": ["AdaBoost.OLM", "OnlineMBBM"],
    "rbf": ["AdaBoost.OLM", "OnlineMBBM"],
    "yeast": ["AdaOLMR", "OnlineBMR"],
}
FOREST = "_forest."  # the compiled forest's shared object, by name
HELPER = r"""
#include <valgrind/callgrind.h>
void loop_begin(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_TOGGLE_COLLECT; }
void loop_end(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_STOP_INSTRUMENTATION; }
"""


# ----------------------------------------------------------------------------- the child


def child(stream: str, model_name: str, helper: str) -> None:
    """Runs inside valgrind: one prequential run, instructions collected around the loop."""
    import speed

    from river_boost import bench

    data = list(bench.stream_examples(stream)[0])
    model = speed.build(model_name, True)
    marks = ctypes.CDLL(helper)
    ranking = bench.task_of(stream) == "multilabel"
    # speed.run's loop, with the instructions counted where it starts its clock
    gc.collect()
    gc.disable()
    marks.loop_begin()
    prequential(model, data, ranking)
    marks.loop_end()
    gc.enable()


def prequential(model, data, ranking: bool) -> None:
    """speed.run's loop, without keeping the outputs."""
    from river_boost import bench

    if ranking:
        for x, y in data:
            bench._label_scores(model, x)
            model.learn_one(x, y)
    else:
        for x, y in data:
            model.predict_one(x)
            model.learn_one(x, y)


# ----------------------------------------------------------------------------- parsing

_NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")


def parse(path: str) -> dict:
    """Instructions of a callgrind profile: all, self by object, and the inclusive cost of
    the calls into the forest from outside it (and out of it, to check the sum)."""
    names: dict = {"ob": {}, "fn": {}}
    total = 0
    by_object: dict = {}
    into_forest = 0  # calls from outside the forest into it, inclusive
    out_of_forest = 0  # calls from the forest to outside it, inclusive
    out_by_object: dict = {}  # the same, by the called function's object
    forest_self = 0
    ob = cob = None
    pending_call = False

    def name(space, value):
        m = _NAMED.match(value)
        if m is None:
            return value
        if m.group(2) is not None:
            names[space][m.group(1)] = m.group(2)
        return names[space][m.group(1)]

    with open(path) as f:
        for line in f:
            if not line or line[0] == "\n":
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                cost = line.split()
                ir = int(cost[1]) if len(cost) > 1 else 0
                if pending_call:
                    inside_caller = FOREST in ob
                    inside_callee = FOREST in (cob or ob)
                    if inside_callee and not inside_caller:
                        into_forest += ir
                    elif inside_caller and not inside_callee:
                        out_of_forest += ir
                        out_by_object[cob] = out_by_object.get(cob, 0) + ir
                    pending_call = False
                    cob = None
                else:
                    total += ir
                    by_object[ob] = by_object.get(ob, 0) + ir
                    if FOREST in ob:
                        forest_self += ir
                continue
            key, _, value = line.rstrip("\n").partition("=")
            if key == "ob":
                ob = name("ob", value)
            elif key == "cob":
                cob = name("ob", value)
            elif key in ("fn", "cfn"):
                name("fn", value)
                if key == "fn":
                    cob = None
            elif key == "calls":
                pending_call = True
            elif key == "summary" or key == "totals":
                pass
    return {
        "total": total,
        "into_forest": into_forest,
        "forest_self_and_out": forest_self + out_of_forest,
        # outside the trees, by object: self instructions less the forest's calls into
        # that object (inclusive, so a callee's own callees count to it: approximate)
        "outside": {
            obj: ir - out_by_object.get(obj, 0)
            for obj, ir in by_object.items()
            if FOREST not in (obj or "")
        },
    }


def _short(obj: str) -> str:
    base = os.path.basename(obj or "?")
    if base.startswith("[kernel"):  # (perf's name for the kernel's own code)
        return "kernel"
    if base.startswith("_walk."):
        return "walk (C)"
    if base.startswith("libpython") or base.startswith("python"):
        return "CPython"
    if "numpy" in (obj or "") or "openblas" in base:
        return "NumPy"
    if base.startswith("libm.") or base.startswith("libm-"):
        return "libm"
    if base.startswith("libc.") or base.startswith("ld-linux"):
        return "libc"
    return base.split(".")[0]


# ----------------------------------------------------------------------------- the parent


def measure(stream: str, model_name: str, helper: str, folder: str) -> dict:
    out = os.path.join(folder, f"{stream}-{model_name}.out")
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            "--collect-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            stream,
            model_name,
            helper,
        ],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return parse(out)


def build_helper(folder: str) -> str:
    src = os.path.join(folder, "marks.c")
    lib = os.path.join(folder, "marks.so")
    with open(src, "w") as f:
        f.write(HELPER)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(*argv[1:4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", nargs="+", default=list(GRID), choices=list(GRID))
    parser.add_argument("--models", nargs="+", default=None)
    parser.add_argument(
        "--keep", default=None, help="a folder to keep the profiles in (callgrind_annotate)"
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        print("needs valgrind (with callgrind.h) and gcc", file=sys.stderr)
        return 2
    print("python benchmarks/overhead.py " + " ".join(argv))
    header = (
        f"{'stream':<14}{'model':<14}{'loop Ir':>15}{'trees':>8}{'overhead':>10}  outside the trees"
    )
    print(header)
    print("-" * len(header))
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="river-boost-overhead-") as folder:
        helper = build_helper(folder)
        for stream in args.streams:
            for model_name in GRID[stream]:
                if args.models and model_name not in args.models:
                    continue
                r = measure(stream, model_name, helper, args.keep or folder)
                total = r["total"]
                trees = r["into_forest"] / total
                rest: dict = {}
                for obj, ir in r["outside"].items():
                    rest[_short(obj)] = rest.get(_short(obj), 0) + ir
                top = sorted(rest.items(), key=lambda kv: -kv[1])[:4]
                parts = ", ".join(f"{k} {v / total:.0%}" for k, v in top)
                check = r["forest_self_and_out"] / max(1, r["into_forest"])
                print(
                    f"{stream:<14}{model_name:<14}{total:>15,}{trees:>8.1%}{1 - trees:>10.1%}"
                    f"  [{parts}] (check {check:.3f})",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
