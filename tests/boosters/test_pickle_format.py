"""Pickles are the estimators' parameters and their state, and say what they are.

Every pickled estimator and forest carries the package's pickle format and version; one of a
format this version does not read, from before the stamps, or changed after it was written is
a clear error (river_boost.PickleFormatError), never a crash in C. A booster that has not
learned pickles as its parameters (a few hundred bytes); loading builds it by its constructor,
inspecting no signature, then takes its state."""

from __future__ import annotations

import array
import inspect
import itertools
import pickle

import pytest
from river import datasets
from river.datasets import synth
from river_boost.engine._engine import _new_engine

import river_boost as rb
from river_boost import _pickles
from river_boost.engine import _format

PHISHING = list(itertools.islice(datasets.Phishing(), 400))


def _trained(model=None, n=120):
    model = model or rb.AdaBoostOL(n_models=4, seed=1)
    for x, y in PHISHING[:n]:
        model.learn_one(x, y)
    return model


def _goes_on_the_same(a, b, data, predict="predict_proba_one"):
    for x, y in data:
        assert getattr(a, predict)(x) == getattr(b, predict)(x)
        a.learn_one(x, y)
        b.learn_one(x, y)


# ----------------------------------------------------------------------------- what a pickle is


def test_a_pickle_is_the_parameters_and_the_state_with_the_stamp():
    model = _trained()
    loader, (cls, params, state, stamp) = model.__reduce__()
    assert loader is _pickles.restore and cls is rb.AdaBoostOL
    assert stamp == (_format.FORMAT, rb.__version__)
    assert params["n_models"] == 4 and params["seed"] == 1
    assert model.pool.learners.__reduce__()[1][-1] == stamp  # the forest's own pickle too


def test_a_booster_that_has_not_learned_is_its_parameters():
    model = rb.OSBoostOCP(seed=7)
    _, (_, params, state, _) = model.__reduce__()
    assert state == (None, None, None)
    copy_ = pickle.loads(pickle.dumps(model))
    _goes_on_the_same(copy_, model, PHISHING[:150])


def test_an_unseeded_booster_that_has_not_learned_goes_on_as_the_original():
    """Its generators come from entropy drawn when it was built, which the pickle keeps."""
    for make in (rb.OSBoostOCP, rb.AdaBoostOLM, rb.SGBTClassifier, rb.MartingaleBooster):
        model = make()
        copy_ = pickle.loads(pickle.dumps(model))
        assert copy_.seed is None
        _goes_on_the_same(copy_, model, PHISHING[:150])


def test_a_booster_that_only_predicted_pickles_its_state():
    """A prediction may draw an expert (prediction="random") or decide feature subsets: a
    booster that predicted is no longer its parameters."""
    model = rb.AdaBoostOL(n_models=4, prediction="random", seed=3)
    for x, _ in PHISHING[:20]:
        model.predict_one(x)
    assert model.__reduce__()[1][2][1] is not None
    _goes_on_the_same(pickle.loads(pickle.dumps(model)), model, PHISHING[20:200])


def test_a_rejected_event_leaves_a_fresh_booster_its_parameters():
    model = rb.AdaBoostOL(seed=3)
    with pytest.raises(TypeError):
        model.predict_one({"a": object()})
    with pytest.raises(ValueError):
        model.learn_one({"a": 1.0}, "not a label")
    assert model.__reduce__()[1][2] == (None, None, None)


DEFAULTS = [
    rb.AdaBoostOL,
    rb.OnlineBBM,
    rb.OSBoost,
    rb.OSBoostOCP,
    rb.SquintBoost,
    rb.NHBoostDT,
    rb.MartingaleBooster,
    rb.AdaBoostOLM,
    rb.OnlineMBBM,
    rb.AdaOLMR,
    rb.OnlineBMR,
    rb.SGBTClassifier,
    rb.SGBTRegressor,
    rb.OnlineGradientBoostRegressor,
]


@pytest.mark.parametrize("make", DEFAULTS, ids=[c.__name__ for c in DEFAULTS])
def test_a_fresh_default_estimator_pickles_in_under_3_kb(make):
    assert len(pickle.dumps(make())) <= 3 * 1024


def _stream_for(model, n):
    if isinstance(model, rb.booster.RankingBooster):
        return [(x, y) for x, y in itertools.islice(datasets.Yeast(), n)]
    if isinstance(model, (rb.SGBTRegressor, rb.OnlineGradientBoostRegressor)):
        return list(synth.Friedman(seed=1).take(n))
    if isinstance(model, rb.booster.MulticlassBooster):
        return list(itertools.islice(datasets.ImageSegments(), n))
    return PHISHING[:n]


@pytest.mark.parametrize("make", DEFAULTS, ids=[c.__name__ for c in DEFAULTS])
def test_building_and_loading_inspect_no_signature(make, monkeypatch):
    """A model per key is built, and loaded, many times over: River's signature inspection
    (``_get_params``, ``clone``) costs about 20 us an object, and a booster holds dozens."""
    make(seed=1) if "seed" in inspect.signature(make).parameters else make()  # (warm up)
    trained = make()
    for x, y in _stream_for(trained, 200):
        trained.learn_one(x, y)
    data = pickle.dumps(trained)
    pickle.loads(data)  # (per-class caches filled once per process)

    def refused(*args, **kwargs):
        raise AssertionError("a signature was inspected")

    monkeypatch.setattr(inspect, "signature", refused)
    built = make()
    loaded = pickle.loads(data)
    copy_ = built.clone()
    assert type(loaded) is type(built) is type(copy_)


def test_clone_with_attributes_is_an_independent_working_copy():
    model = _trained(rb.OSBoostOCP(n_models=4, seed=2), n=200)
    twin = model.clone(include_attributes=True)
    idle = model.clone(include_attributes=True)
    _goes_on_the_same(twin, model, PHISHING[200:320])
    fresh = rb.OSBoostOCP(n_models=4, seed=2)
    _goes_on_the_same(idle, _trained(fresh, n=200), PHISHING[200:260])


# ----------------------------------------------------------------------------- stamps


@pytest.mark.parametrize("what", ["booster", "forest"])
def test_a_pickle_of_another_format_names_both_versions(what, monkeypatch):
    model = _trained()
    part = {"booster": model, "forest": model.pool.learners}[what]
    monkeypatch.setattr(_format, "FORMAT", 99)
    monkeypatch.setattr(_format, "__version__", "9.9.9")
    data = pickle.dumps(part)
    monkeypatch.undo()
    with pytest.raises(rb.PickleFormatError) as error:
        pickle.loads(data)
    message = str(error.value)
    assert "river_boost 9.9.9 (pickle format 99)" in message
    assert f"this is river_boost {rb.__version__}" in message
    assert f"reads pickle formats {', '.join(map(str, _format.READS))}" in message
    assert "train the model again" in message


def test_a_pickle_without_a_stamp_is_refused():
    model = _trained()
    _, (cls, params, state, _) = model.__reduce__()
    with pytest.raises(rb.PickleFormatError, match="0.1.0 or an unreleased version"):
        _pickles.restore(cls, params, state, None)
    old = {k: v for k, v in model.__dict__.items()}  # format 1's state, without its stamp
    with pytest.raises(rb.PickleFormatError, match="pickled booster"):
        type(model).__new__(type(model)).__setstate__(old)
    with pytest.raises(rb.PickleFormatError):
        type(model).__new__(type(model)).__setstate__(["not", "a", "booster"])


def test_an_engine_pickles_with_its_booster_only():
    model = _trained(rb.SGBTRegressor(n_models=3, seed=1), n=0)
    for engine in (_trained()._engine, model._engine):
        with pytest.raises(TypeError, match="pickle or copy the booster"):
            pickle.dumps(engine)


# ----------------------------------------------------------------------------- tampered states


def _engine_state(model) -> list:
    return list(model.__reduce__()[1][2][1])


def _with_engine(model, engine) -> tuple:
    _, (cls, params, state, stamp) = model.__reduce__()
    return cls, params, (state[0], tuple(engine), state[2]), stamp


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.__setitem__(4, array.array("d", [0.0])),  # edge_num shorter than n
        lambda f: f.__setitem__(1, array.array("q", [0] * 9)),  # n_offered longer
        lambda f: f.__setitem__(5, array.array("f", [0.0] * 4)),  # floats, not doubles
        lambda f: f.__setitem__(6, -5),  # n_seen
        lambda f: f.__setitem__(8, {99: 4}),  # a background learner for learner 99
        lambda f: f.__setitem__(8, {0: 1}),  # a background learner that is a learner
        lambda f: f.__setitem__(0, "not an array"),
        lambda f: f.__setitem__(15, (b"short", None)),  # the generator's state
        lambda f: f.__setitem__(12, None),  # vote weights missing
        lambda f: f.pop(),  # a field missing
    ],
)
def test_a_tampered_engine_state_is_an_error_not_a_crash(change):
    model = _trained()
    fields = _engine_state(model)
    change(fields)
    with pytest.raises(rb.PickleFormatError, match="changed after it was written"):
        _pickles.restore(*_with_engine(model, fields))


@pytest.mark.parametrize(
    "change",
    [
        lambda p: (p[0], p[1], array.array("d", [1.0]), p[3]),  # weight scales
        lambda p: (p[0], (2.0, *p[1][1:]), p[2], p[3]),  # a feature fraction above 1
        lambda p: (p[0], p[1], p[2], ("not", "a", "forest")),
        lambda p: (p[0], p[1], p[2], [object()]),  # learners that are not River models
    ],
)
def test_a_tampered_pool_state_is_an_error_not_a_crash(change):
    model = _trained()
    fields = _engine_state(model)
    fields[11] = change(fields[11])
    with pytest.raises(rb.PickleFormatError):
        _pickles.restore(*_with_engine(model, fields))


def test_a_tampered_label_space_is_an_error():
    model = _trained(rb.AdaBoostOLM(n_models=3, seed=1), n=0)
    for x, y in itertools.islice(datasets.ImageSegments(), 100):
        model.learn_one(x, y)
    fields = _engine_state(model)
    classes, support = fields[10]
    for task in ((classes + classes[:1], support + [0]), (classes, support[:-1]), ([None], [1])):
        fields[10] = task
        with pytest.raises(rb.PickleFormatError):
            _pickles.restore(*_with_engine(model, fields))


def test_a_deep_chain_state_must_be_the_boosters():
    model = _trained(rb.OSBoostOCP(n_models=4, seed=1))
    _, (cls, params, state, stamp) = model.__reduce__()
    with pytest.raises(rb.PickleFormatError):
        _pickles.restore(cls, params, (state[0], state[1], None), stamp)
    with pytest.raises(rb.PickleFormatError):
        _pickles.restore(cls, {**params, "deep_scale": 1.0}, state, stamp)
    with pytest.raises(rb.PickleFormatError):
        _pickles.restore(cls, params, ("entropy", None, None), stamp)


# ----------------------------------------------------------------------------- format 1


def _format1_fields(engine) -> list:
    """An engine's state as 0.2.0 pickled it (format 1): its parts and counters."""
    return [
        engine.task, engine.rule, engine.pool, engine.ogd, engine.hedge, engine.prediction,
        engine.adapt, engine.draw_rng, engine.offered, engine.n_offered, engine.n_zero,
        engine.n_updates, engine.edge_num, engine.edge_den, engine.n_seen, engine.edge_decay,
        engine.background, engine.nominal,
    ]  # fmt: skip


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
def test_a_tampered_format1_engine_is_an_error_not_a_crash(change):
    model = _trained()
    fields = _format1_fields(model._engine)  # (the engine is not used again)
    change(fields)
    engine = _new_engine(type(model._engine))
    with pytest.raises(rb.PickleFormatError):
        engine.__setstate__(((1, "0.2.0"), tuple(fields)))


def test_a_format1_engine_loads():
    model = _trained()
    fields = _format1_fields(model._engine)
    engine = _new_engine(type(model._engine))
    engine.__setstate__(((1, "0.2.0"), tuple(fields)))
    assert engine.n_seen == model._engine.n_seen and engine.changed
    with pytest.raises(rb.PickleFormatError, match="0.1.0 or an unreleased version"):
        _new_engine(type(model._engine)).__setstate__(tuple(fields))
    with pytest.raises(rb.PickleFormatError):
        _new_engine(type(model._engine)).__setstate__("nonsense")


def test_a_stamped_pickle_loads_and_predicts_as_the_original():
    model = _trained(rb.OSBoostOCP(seed=3), n=200)
    _goes_on_the_same(pickle.loads(pickle.dumps(model)), model, PHISHING[200:320])
