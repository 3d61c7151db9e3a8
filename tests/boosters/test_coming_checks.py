"""River's coming estimator checks, as this package's own tests, for every preset.

River's next release checks that a prediction changes nothing, that a clone shares no state
with its original, that ``_get_params`` matches ``__init__``, that a fresh estimator predicts,
that ``repr`` and ``clone`` round-trip, that ``clone(new_params)`` applies them, that a
classifier keeps the labels it has seen and that an estimator keeps no reference to the
caller's ``x`` or ``y``. These tests check the same properties, more strictly (the pickle of
the booster and its later predictions, not only its input), through public behaviour only:
the River API, ``clone``, ``_get_params``, ``repr`` and ``pickle``.

Every preset runs with its default weak learner (the compiled forest) and with two River
learners the forest does not compile (a Hoeffding tree with a histogram splitter, taught
with importance weights, and Bernoulli naive Bayes, which takes no weights: taught by
sampling), so that the boosters' Python path is checked too. (GaussianNB passes them too, but
each of its Gaussians holds an unseeded random generator, which makes its pickles large and
two equal models' pickles differ.) The streams are River's bundled sets (Phishing, ImageSegments,
Yeast): nothing is downloaded.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import itertools
import math
import pickle

import pytest
from river import base, datasets, naive_bayes, tree

import river_boost

# (the gradient boosters take regressors as weak learners, not the classifiers below: the same
# properties are checked for them in test_regression.py and test_gradient_classifier.py)
PRESETS = [
    getattr(river_boost, name)
    for name in river_boost.__all__
    if isinstance(getattr(river_boost, name), type)
    and issubclass(getattr(river_boost, name), base.Estimator)
    and getattr(river_boost, name).__module__ != "river_boost.gradient"
]


def _river_tree():
    """A River tree the compiled forest does not take (its histogram splitter)."""
    return tree.HoeffdingTreeClassifier(
        grace_period=20, leaf_prediction="mc", splitter=tree.splitter.HistogramSplitter()
    )


# the weak learners: name -> the parameters they add (BernoulliNB takes no weights: sampling)
LEARNERS = {
    "default": lambda: {},
    "river_tree": lambda: {"model": _river_tree()},
    "bernoulli_nb": lambda: {
        "model": naive_bayes.BernoulliNB(true_threshold=0.5),
        "weighting": "sampling",
    },
}


@dataclasses.dataclass(frozen=True)
class Case:
    cls: type
    learner: str

    def params(self, **override) -> dict:
        """The preset's first test parameters, three learners, and the weak learner."""
        params = dict(next(iter(self.cls._unit_test_params())))
        signature = inspect.signature(self.cls).parameters
        if "n_models" in signature:
            params["n_models"] = 3
        params.update(LEARNERS[self.learner]())
        params.update(override)
        return {k: v for k, v in params.items() if k in signature}

    def make(self, **override):
        return self.cls(**self.params(**override))

    def __str__(self):
        return f"{self.cls.__name__}-{self.learner}"


CASES = [Case(cls, learner) for cls in PRESETS for learner in LEARNERS]


def _ids(case):
    return str(case)


def task_of(model) -> str:
    if isinstance(model, base.MultiLabelClassifier):
        return "ranking"
    return "multiclass" if model._multiclass else "binary"


_STREAMS = {}


def stream_for(model, n: int) -> list:
    """``n`` examples of River's bundled set for the booster's task (cached; callers copy)."""
    task = task_of(model)
    if task not in _STREAMS:
        data = {
            "binary": datasets.Phishing,
            "multiclass": datasets.ImageSegments,
            "ranking": datasets.Yeast,
        }[task]()
        _STREAMS[task] = list(itertools.islice(data, 240))
    return copy.deepcopy(_STREAMS[task][:n])


def lengths(model) -> tuple:
    """Stream lengths per task: Yeast's 103 features make River's trees slow."""
    return (20, 10, 20) if task_of(model) == "ranking" else (40, 15, 40)


def predictions(model, x) -> tuple:
    """Everything the booster predicts for ``x`` (``score_one`` too for a ranker)."""
    out = (model.predict_one(x), model.predict_proba_one(x))
    if task_of(model) == "ranking":
        out += (model.score_one(x),)
    return out


def learn(model, stream) -> None:
    for x, y in stream:
        model.learn_one(x, y)


def assert_same_future(a, b, stream) -> None:
    """``a`` and ``b`` predict the same on ``stream`` while both learn it."""
    for i, (x, y) in enumerate(stream):
        assert predictions(a, x) == predictions(b, x), f"predictions differ at example {i}"
        a.learn_one(x, y)
        b.learn_one(x, y)


def same_params(a: dict, b: dict) -> bool:
    """``_get_params`` dicts are equal (River estimators in them compared by class and
    parameters, since they have no ``__eq__``)."""

    def norm(v):
        if isinstance(v, base.Base):
            return (type(v), {k: norm(p) for k, p in v._get_params().items()})
        if isinstance(v, dict):
            return {k: norm(p) for k, p in v.items()}
        if isinstance(v, (list, tuple)):
            return type(v)(norm(p) for p in v)
        return v

    return norm(a) == norm(b)


def test_the_river_learners_take_the_python_path():
    """The River learners above are ones the compiled forest does not take (so the boosters
    call them through River's API), the default weak learners ones it does."""
    from river_boost.forest import HoeffdingForest

    for learner, params in LEARNERS.items():
        model = params().get("model", river_boost.pool.default_model())
        assert HoeffdingForest.supports(model) == (learner == "default")


# ----------------------------------------------------------------------------- the bug


def test_martingale_clone_with_attributes_learns_mid_stream():
    """The reported bug: a copy made with ``include_attributes=True`` raised ``RuntimeError:
    no x is loaded`` on its first ``learn_one`` (its nodes' trees lived in a forest of their
    own, apart from the one the copy loads ``x`` into)."""
    stream = list(itertools.islice(datasets.Phishing(), 360))
    model = river_boost.MartingaleBooster(seed=1)
    learn(model, stream[:300])
    copied = model.clone(include_attributes=True)
    reference = pickle.loads(pickle.dumps(model))
    assert_same_future(copied, model, stream[300:])
    assert model.n_nodes == copied.n_nodes == reference.n_nodes


# ----------------------------------------------------------------------------- the checks


@pytest.mark.parametrize("include_attributes", [False, True], ids=["fresh", "with_attributes"])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_clone_shares_no_state(case, include_attributes):
    """A clone, fresh or with the learned state, is independent of its original: each one's
    learning leaves the other's pickle and predictions as they were; a clone with attributes
    continues as the original would, a fresh clone as a new booster would."""
    model = case.make()
    n_first, n_second, n_third = lengths(model)
    stream = stream_for(model, n_first + n_second + n_third)
    first, second, third = (
        stream[:n_first],
        stream[n_first : n_first + n_second],
        stream[n_first + n_second :],
    )
    learn(model, first)
    snapshot = pickle.dumps(model)
    clone = model.clone(include_attributes=include_attributes)
    assert pickle.dumps(model) == snapshot, "cloning changed the original"
    expected = pickle.loads(snapshot) if include_attributes else case.make()

    # the clone learns: the original does not move
    assert_same_future(clone, expected, second)
    assert pickle.dumps(model) == snapshot, "the clone's learning changed the original"

    # the original learns: the clone does not move
    clone_snapshot = pickle.dumps(clone)
    assert_same_future(model, pickle.loads(snapshot), second + third)
    assert pickle.dumps(clone) == clone_snapshot, "the original's learning changed the clone"
    assert_same_future(clone, expected, third)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_predicting_changes_nothing(case):
    """Predicting mid-stream (``predict_one``, ``predict_proba_one``, ``score_one``) on new
    ``x``'s leaves the booster's pickle, the ``x``'s and the later predictions as they were."""
    model = case.make()
    n_first, n_second, n_third = lengths(model)
    stream = stream_for(model, n_first + n_second + n_third)
    learn(model, stream[:n_first])
    snapshot = pickle.dumps(model)
    for x, _ in stream[n_first:]:
        before = copy.deepcopy(x)
        predictions(model, x)
        assert x == before, "a prediction changed its x"
        assert pickle.dumps(model) == snapshot, "a prediction changed the booster"
    # and what the pickle does not hold (caches) does not change what comes next
    assert_same_future(model, pickle.loads(snapshot), stream[n_first:])


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_get_params_matches_signature(case):
    """``_get_params`` has exactly the keywords of ``__init__``, with the values given."""
    params = case.params()
    model = case.cls(**params)
    signature = inspect.signature(case.cls).parameters
    expected = {
        name for name, p in signature.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    got = model._get_params()
    assert set(got) == expected
    assert same_params({k: got[k] for k in params}, params)


def assert_valid_prediction(model, x) -> None:
    """A prediction River accepts for the booster's task, before or after learning."""
    task = task_of(model)
    label = model.predict_one(x)
    proba = model.predict_proba_one(x)
    assert isinstance(proba, dict)
    if task == "ranking":  # {label: {False: p, True: 1 - p}}, {label: bool}, {label: score}
        for p in proba.values():
            assert set(p) == {False, True} and math.isclose(sum(p.values()), 1.0)
            assert all(0.0 <= v <= 1.0 for v in p.values())
        assert isinstance(label, dict) and set(label) <= set(proba)
        assert all(isinstance(v, bool) for v in label.values())
        scores = model.score_one(x)
        assert isinstance(scores, dict) and set(scores) == set(proba)
        assert all(math.isfinite(s) for s in scores.values())
        return
    assert all(0.0 <= p <= 1.0 for p in proba.values())
    if task == "binary":  # River's binary check: both keys, from the first example on
        assert set(proba) == {False, True}
        assert label in (False, True)
    if not proba:  # River's multiclass classifiers may have no opinion yet
        assert label is None
        return
    assert math.isclose(sum(proba.values()), 1.0)
    assert label in proba and proba[label] == max(proba.values())


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_predict_before_any_learning(case):
    """A fresh booster predicts (a valid answer for its task, also for an empty or narrow
    ``x``), and those predictions change nothing it does afterwards (a fresh twin's future)."""
    model, twin = case.make(), case.make()
    stream = stream_for(model, sum(lengths(model)))
    first = stream[0][0]
    for x in (first, {}, dict(itertools.islice(first.items(), 2))):
        assert_valid_prediction(model, x)
    for x, y in stream[: lengths(model)[0]]:
        model.learn_one(x, y)
        twin.learn_one(x, y)
        assert_valid_prediction(model, x)
    assert_same_future(model, twin, stream[lengths(model)[0] :])


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_repr_and_clone_round_trip(case):
    """``repr`` shows the parameters, which a clone keeps: fresh, mid-stream, with attributes."""
    model = case.make()
    for _ in range(2):
        for clone in (model.clone(), model.clone(include_attributes=True)):
            assert repr(clone) == repr(model)
            assert same_params(clone._get_params(), model._get_params())
            assert type(clone) is type(model)
        learn(model, stream_for(model, lengths(model)[0]))


def _changed(value):
    """A new value for a scalar parameter (as River's check picks it), or None."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    return None


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_clone_with_new_params_applies_them(case):
    """``clone(new_params)`` gives a booster with those parameters, the others unchanged, that
    learns as a booster built with them; every scalar parameter changed on its own applies."""
    model = case.make()
    stream = stream_for(model, lengths(model)[0])
    learn(model, stream)
    snapshot = pickle.dumps(model)
    signature = inspect.signature(case.cls).parameters
    new = {"seed": 7, **({"n_models": 4} if "n_models" in signature else {"n_levels": 4})}
    clone = model.clone(new)
    assert pickle.dumps(model) == snapshot
    params = clone._get_params()
    assert {k: params[k] for k in new} == new
    assert same_params(
        {k: v for k, v in params.items() if k not in new},
        {k: v for k, v in model._get_params().items() if k not in new},
    )
    if "n_models" in new:
        assert len(clone.models) == 4
    assert_same_future(clone, case.make(**new), stream)
    if "n_levels" in new:
        assert len(clone.n_nodes) <= 4

    for name, value in model._get_params().items():
        changed = _changed(value)
        if changed is None:
            continue
        try:
            clone = model.clone({name: changed})
        except (ValueError, TypeError):  # the constructor refuses the value
            continue
        assert getattr(clone, name) == changed
        assert clone._get_params()[name] == changed


def seen_labels(task: str, y) -> set:
    return set(y) if task == "ranking" else {y}


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_tracks_seen_labels(case):
    """``predict_proba_one`` covers every label seen so far (binary: True and False always;
    a ranker's ``score_one`` too), for any ``x``, all along the stream."""
    model = case.make()
    task = task_of(model)
    seen = set()
    for i, (x, y) in enumerate(stream_for(model, sum(lengths(model)))):
        model.learn_one(x, y)
        seen |= seen_labels(task, y)
        if i % 5 == 4:
            for probe in (x, {}):
                proba = model.predict_proba_one(probe)
                expected = {False, True} if task == "binary" else seen
                assert expected <= set(proba), f"labels missing after {i + 1} examples"
                if task == "ranking":
                    assert seen <= set(model.score_one(probe))


def _mutate(d: dict) -> None:
    """Change a dict in place: every number and string, and drop one key."""
    for k, v in d.items():
        if isinstance(v, bool):
            d[k] = not v
        elif isinstance(v, (int, float)):
            d[k] = v + 1e9
        elif isinstance(v, str):
            d[k] = v + "_mutated"
    if d:
        d.pop(next(iter(d)))


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_no_reference_to_the_callers_x_and_y(case):
    """The booster keeps no reference to the ``x`` and ``y`` it is given: changing or clearing
    them after ``learn_one`` or a prediction leaves its pickle as it was, a dict changed in
    place is predicted as it now is, and the booster predicts as a twin fed copies."""
    model, twin = case.make(), case.make()
    ranking = task_of(model) == "ranking"
    stream = stream_for(model, lengths(model)[0])
    for i, (x, y) in enumerate(stream):
        mine, my_y = dict(x), copy.deepcopy(y)
        assert predictions(model, mine) == predictions(twin, x)
        snapshot = pickle.dumps(model)
        _mutate(mine)
        assert pickle.dumps(model) == snapshot, "changing a predicted x changed the booster"
        changed = predictions(twin, copy.deepcopy(mine))
        assert predictions(model, mine) == changed, "a changed x was predicted as it was"
        mine.clear()
        mine.update(x)
        model.learn_one(mine, my_y)
        twin.learn_one(copy.deepcopy(x), copy.deepcopy(y))
        snapshot = pickle.dumps(model)
        for caller_object in (mine, my_y) if ranking else (mine,):
            if i % 2:
                _mutate(caller_object)
            else:
                caller_object.clear()
        assert pickle.dumps(model) == snapshot, "changing a learned x or y changed the booster"
    assert_same_future(model, twin, stream_for(model, sum(lengths(model)))[len(stream) :])


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_predicting_new_features_changes_nothing(case):
    """Predicting an ``x`` with features the booster never learned (a number, a string)
    leaves its pickle as it was: predictions cannot make the booster grow."""
    model = case.make()
    stream = stream_for(model, lengths(model)[0] + 5)
    learn(model, stream[:-5])
    snapshot = pickle.dumps(model)
    for i, (x, _) in enumerate(stream[-5:]):
        predictions(model, {**x, f"new_{i}": 1.5, f"new_nominal_{i}": "mauve"})
        assert pickle.dumps(model) == snapshot, "predicting new features changed the booster"


def _every_test_configuration():
    return [
        pytest.param(cls, params, id=f"{cls.__name__}-{k}")
        for cls in PRESETS
        for k, params in enumerate(cls._unit_test_params())
    ]


@pytest.mark.parametrize("cls, params", _every_test_configuration())
def test_clone_with_attributes_continues_as_the_original(cls, params):
    """With every configuration River's checks try (drift adaptation, sampling, deep chains,
    ...), a copy made mid-stream with ``include_attributes=True`` predicts and learns as the
    original does, and leaves it as it was."""
    model = cls(**params)
    n = 60 if task_of(model) == "ranking" else 200
    stream = stream_for(model, n + 40)
    learn(model, stream[:n])
    snapshot = pickle.dumps(model)
    copied = model.clone(include_attributes=True)
    assert_same_future(copied, pickle.loads(snapshot), stream[n:])
    assert pickle.dumps(model) == snapshot
