"""benchmarks/speed.py's command line (its measurements are benchmarks, not tests)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

TOOL = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "speed.py"


@pytest.fixture(scope="module")
def speed():
    spec = importlib.util.spec_from_file_location("speed_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.mark.parametrize("option", ["--python-repeats", "--repeats"])
def test_no_run_to_check_against_is_refused_with_a_clear_message(speed, option, capsys):
    """Every compiled run's outputs are checked against a pure-Python run: zero repeats would
    leave nothing to check them on (it used to fail as "outputs differ")."""
    with pytest.raises(SystemExit) as stop:
        speed.main(["--throughput", option, "0"])
    assert stop.value.code == 2
    assert "need at least 1" in capsys.readouterr().err
