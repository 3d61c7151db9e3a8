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
import pickle

import pytest
from river import base, datasets, naive_bayes, tree

import river_boost

PRESETS = [
    getattr(river_boost, name)
    for name in river_boost.__all__
    if isinstance(getattr(river_boost, name), type)
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
        _STREAMS[task] = list(itertools.islice(data, 160))
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
        model = params().get("model", river_boost.core.default_model())
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


# The compiled forest interns every feature name and nominal value of an x it loads, for a
# prediction as for learning: its feature table and every tree's per-feature array grow, and so
# does the pickle (1,000 predictions with new feature names doubled a 14 kB OSBoost). Later
# predictions are unchanged. Loading is shared by a prediction and the learning that follows,
# so the fix (registering at learning only) is not a local one.
FOREST_REGISTERS_ON_PREDICT = pytest.mark.xfail(
    strict=True,
    reason="the compiled forest registers the features and nominal values of a predicted x",
)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=FOREST_REGISTERS_ON_PREDICT) if c.learner == "default" else c
        for c in CASES
    ],
    ids=_ids,
)
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
