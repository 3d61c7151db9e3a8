"""Pickles say what they are: every pickled booster, engine and forest carries the package's
pickle format and version, and one of another format, from before the stamps, or changed after
it was written is a clear error (river_boost.PickleFormatError), never a crash in C."""

from __future__ import annotations

import array
import itertools
import pickle

import pytest
from river import datasets
from river_boost.engine._engine import _new_engine

import river_boost as rb
from river_boost import _pickles


def _trained(model=None, n=120):
    model = model or rb.AdaBoostOL(n_models=4, seed=1)
    for x, y in itertools.islice(datasets.Phishing(), n):
        model.learn_one(x, y)
    return model


def test_every_pickled_part_carries_the_stamp():
    model = _trained()
    stamp = (_pickles.FORMAT, rb.__version__)
    assert model.__getstate__()[_pickles._KEY] == stamp
    assert model._engine.__reduce__()[2][0] == stamp
    assert model.pool.learners.__reduce__()[1][-1] == stamp
    martingale = _trained(rb.MartingaleBooster(seed=1))
    assert martingale.__getstate__()[_pickles._KEY] == stamp


@pytest.mark.parametrize("what", ["booster", "engine", "forest"])
def test_a_pickle_of_another_format_names_both_versions(what, monkeypatch):
    model = _trained()
    part = {"booster": model, "engine": model._engine, "forest": model.pool.learners}[what]
    monkeypatch.setattr(_pickles, "FORMAT", 99)
    monkeypatch.setattr(_pickles, "__version__", "9.9.9")
    data = pickle.dumps(part)
    monkeypatch.undo()
    with pytest.raises(rb.PickleFormatError) as error:
        pickle.loads(data)
    message = str(error.value)
    assert "river_boost 9.9.9 (pickle format 99)" in message
    assert f"this is river_boost {rb.__version__}" in message
    assert f"reads pickle format {_pickles.FORMAT}" in message
    assert "train the model again" in message


def test_a_pickle_from_before_the_stamps_is_refused():
    model = _trained()
    fields = model._engine.__reduce__()[2][1]  # the state as 0.1.0's successors pickled it
    engine = _new_engine(type(model._engine))
    with pytest.raises(rb.PickleFormatError, match="0.1.0 or an unreleased version"):
        engine.__setstate__(fields)
    state = model.__getstate__()
    del state[_pickles._KEY]
    with pytest.raises(rb.PickleFormatError, match="pickled booster"):
        type(model).__new__(type(model)).__setstate__(state)


def _engine_fields(model):
    return list(model._engine.__reduce__()[2][1])


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.__setitem__(12, array.array("d", [0.0])),  # edge_num shorter than n
        lambda f: f.__setitem__(9, array.array("q", [0] * 9)),  # n_offered longer
        lambda f: f.__setitem__(13, array.array("f", [0.0] * 4)),  # floats, not doubles
        lambda f: f.__setitem__(14, -5),  # n_seen
        lambda f: f.__setitem__(16, {99: 4}),  # a background learner for learner 99
        lambda f: f.__setitem__(1, "not a rule"),
        lambda f: f.__setitem__(12, "not an array"),
        lambda f: f.pop(),  # a field missing
    ],
)
def test_a_tampered_engine_is_an_error_not_a_crash(change):
    model = _trained()
    fields = _engine_fields(model)
    change(fields)
    engine = _new_engine(type(model._engine))
    with pytest.raises(rb.PickleFormatError):
        engine.__setstate__((_pickles.stamp(), tuple(fields)))


def test_a_foreign_state_is_refused():
    model = _trained()
    with pytest.raises(rb.PickleFormatError):
        type(model).__new__(type(model)).__setstate__(["not", "a", "booster"])
    with pytest.raises(rb.PickleFormatError):
        _new_engine(type(model._engine)).__setstate__("nonsense")


def test_a_stamped_pickle_loads_and_predicts_as_the_original():
    model = _trained(rb.OSBoostOCP(seed=3), n=200)
    copy = pickle.loads(pickle.dumps(model))
    for x, y in itertools.islice(datasets.Phishing(), 200, 320):
        assert copy.predict_proba_one(x) == model.predict_proba_one(x)
        model.learn_one(x, y)
        copy.learn_one(x, y)
