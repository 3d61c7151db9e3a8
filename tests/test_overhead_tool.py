"""benchmarks/overhead.py's reading of a callgrind profile: which instructions count as the
weak learners' (calls into the compiled forest, with everything they call) and which as the
booster's, on a small profile written by hand in callgrind's format."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

TOOL = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "overhead.py"

PROFILE = """\
# callgrind format
version: 1
events: Ir

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) ceval.c
fn=(1) _PyEval_EvalFrameDefault
10 100
cob=(2) /site/river_boost/_forest.cpython-311-x86_64-linux-gnu.so
cfl=(2) _forest.c
cfn=(2) learn_loaded
calls=2 20
11 500
cob=(4) /site/river_boost/_walk.cpython-311-x86_64-linux-gnu.so
cfl=(4) _walk.c
cfn=(4) plan_for
calls=1 40
12 70
13 50

ob=(2)
fl=(2)
fn=(2)
20 400
cob=(3) /usr/lib/x86_64-linux-gnu/libm.so.6
cfl=(3) pow.c
cfn=(3) pow
calls=5 30
21 100

ob=(3)
fl=(3)
fn=(3)
30 100

ob=(4)
fl=(4)
fn=(4)
40 70
"""


def _load_tool(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def overhead():
    return _load_tool(TOOL, "overhead_tool")


def test_calls_into_the_forest_count_inclusively_and_the_rest_by_object(overhead, tmp_path):
    path = tmp_path / "callgrind.out"
    path.write_text(PROFILE)
    r = overhead.parse(str(path))
    assert r["total"] == 100 + 50 + 400 + 100 + 70  # every self cost, once
    assert r["into_forest"] == 500  # the interpreter's call, with the forest's pow
    assert r["forest_self_and_out"] == r["into_forest"]  # the forest's own 400 and its 100
    outside = {overhead._short(k): v for k, v in r["outside"].items()}
    # pow ran for the forest: not the booster's; the walk's own 70 is
    assert outside == {"CPython": 150, "libm": 0, "walk (C)": 70}


# benchmarks/overhead_time.py: samples of `perf script -F time,period,ip,dso`, leaf first
TIME_TOOL = TOOL.parent / "overhead_time.py"
WALK = "/site/river_boost/_walk.cpython-311-x86_64-linux-gnu.so"
FOREST_SO = "/site/river_boost/_forest.cpython-311-x86_64-linux-gnu.so"
LIBM = "/usr/lib/x86_64-linux-gnu/libm.so.6"
LIBPY = "/usr/lib/libpython3.11.so.1.0"


def _sample(t, period, *dsos):
    return [f"{t:.6f}: {period}"] + [f"\t  {i:x} ({dso})" for i, dso in enumerate(dsos)] + [""]


SCRIPT = (
    _sample(0.5, 250, WALK, LIBPY)  # before the loop: not counted
    + _sample(1.1, 250, FOREST_SO, WALK, LIBPY)  # the trees' own code
    + _sample(1.2, 250, LIBM, FOREST_SO, WALK, LIBPY)  # libm for the trees
    + _sample(1.3, 300, LIBM, WALK, LIBPY)  # libm for the walk
    + _sample(1.4, 200, WALK, LIBPY)
    + _sample(1.5, 250, LIBPY)
    + _sample(1.6, 100, LIBM)  # not unwound past libm: cannot be placed, counted outside
    + _sample(2.5, 250, FOREST_SO, WALK, LIBPY)  # between the loops
    + _sample(3.5, 400, FOREST_SO, WALK, LIBPY)  # second loop
)


@pytest.fixture(scope="module")
def overhead_time():
    return _load_tool(TIME_TOOL, "overhead_time_tool")


def test_samples_with_a_forest_frame_are_the_trees_and_the_rest_by_leaf(overhead_time):
    r = overhead_time.classify(SCRIPT, [(3.0, 4.0), (1.0, 2.0)])
    assert r["samples"] == 7
    assert r["total"] == 250 + 250 + 300 + 200 + 250 + 100 + 400
    assert r["inside"] == 250 + 250 + 400
    outside = {}
    for dso, period in r["outside"].items():
        name = overhead_time._short(dso)
        outside[name] = outside.get(name, 0) + period
    assert outside == {"libm": 400, "walk (C)": 200, "CPython": 250}
    assert r["unplaced"] == 100
    assert r["per_window"] == [[500, 1350], [400, 400]]  # the windows in time order
