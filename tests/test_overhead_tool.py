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


@pytest.fixture(scope="module")
def overhead():
    spec = importlib.util.spec_from_file_location("overhead_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
