"""The golden pickles (tests/golden/, written by make_golden.py when the pickle format last
changed) load with this version and predict exactly what they predicted when written; a
version that cannot load them says so in the CHANGELOG."""

from __future__ import annotations

import itertools
import json
import pickle
import sys

import pytest

from ..golden import make_golden

EXPECTED = json.loads((make_golden.HERE / "expected.json").read_text())
SAME_PYTHON = EXPECTED["python"] == ".".join(map(str, sys.version_info[:2]))


def test_every_preset_has_a_golden_pickle():
    assert sorted(EXPECTED["models"]) == sorted(make_golden.presets())


@pytest.mark.parametrize("name", sorted(EXPECTED["models"]))
def test_a_golden_pickle_loads_and_predicts_as_when_it_was_written(name):
    spec = EXPECTED["models"][name]
    model = pickle.loads((make_golden.HERE / f"{name}.pkl").read_bytes())
    assert type(model).__name__ == name
    got = make_golden.predictions(model, spec["kind"], spec["xs"])
    if SAME_PYTHON:  # the build that wrote them: to the last bit
        assert got == spec["predictions"]
    else:  # another Python sums some floats in another order (3.12's sum): to rounding
        for row, want in zip(got, spec["predictions"], strict=True):
            assert [label for label, _ in row] == [label for label, _ in want]
            assert [v for _, v in row] == pytest.approx([v for _, v in want], rel=1e-12, abs=0)
    _, stream, _ = make_golden.presets()[name]
    n = make_golden.N_LEARN + make_golden.N_CHECK
    for x, y in itertools.islice(stream(), n, n + 30):  # and it learns on
        model.learn_one(x, y)


@pytest.mark.parametrize("name", sorted(EXPECTED["models"]))
def test_a_golden_pickle_converts_to_the_current_format(name):
    """Loaded, a pickle of 0.2.0's format pickles in the current one, and that copy predicts
    and learns on as the model loaded from the golden pickle."""
    from river_boost.engine import _format

    spec = EXPECTED["models"][name]
    model = pickle.loads((make_golden.HERE / f"{name}.pkl").read_bytes())
    assert EXPECTED["format"] == 1 < _format.FORMAT  # (a golden pickle of the old format)
    assert model.__reduce__()[1][3] == _format.stamp()
    converted = pickle.loads(pickle.dumps(model))
    xs = spec["xs"]
    assert make_golden.predictions(converted, spec["kind"], xs) == make_golden.predictions(
        model, spec["kind"], xs
    )
    _, stream, _ = make_golden.presets()[name]
    n = make_golden.N_LEARN + make_golden.N_CHECK
    for x, y in itertools.islice(stream(), n, n + 30):
        model.learn_one(x, y)
        converted.learn_one(x, y)
    assert make_golden.predictions(converted, spec["kind"], xs) == make_golden.predictions(
        model, spec["kind"], xs
    )


@pytest.mark.parametrize("name", ["OSBoostOCP", "AdaBoostOLM", "AdaOLMR"])
def test_the_comparison_can_fail(name):
    """A golden model that learned a few examples more no longer predicts what was stored."""
    spec = EXPECTED["models"][name]
    model = pickle.loads((make_golden.HERE / f"{name}.pkl").read_bytes())
    _, stream, _ = make_golden.presets()[name]
    n = make_golden.N_LEARN + make_golden.N_CHECK
    for x, y in itertools.islice(stream(), n, n + 20):
        model.learn_one(x, y)
    assert make_golden.predictions(model, spec["kind"], spec["xs"]) != spec["predictions"]
