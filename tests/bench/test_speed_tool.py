"""benchmarks/speed.py's command line (its measurements are benchmarks, not tests)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

TOOL = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "speed.py"


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


def test_no_run_to_time_is_refused_with_a_clear_message(speed, capsys):
    with pytest.raises(SystemExit) as stop:
        speed.main(["--throughput", "--repeats", "0"])
    assert stop.value.code == 2
    assert "needs at least 1" in capsys.readouterr().err


def test_the_share_outside_the_learners_is_a_share(speed):
    """The walk times its calls into the forest: the rest of a run is a share in (0, 1)."""
    from river.datasets import synth

    data = list(synth.Agrawal(seed=1).take(300))
    share = speed.outside_share("AdaBoost.OL", data, False)
    assert 0.0 < share < 1.0
