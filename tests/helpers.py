"""Shared test helpers: a stub weak learner with known votes, stream snippets, data paths."""

from __future__ import annotations

import itertools
import pathlib

from river import base

import river_boost

# The package's sources sit beside the tests (a clone), not only an installed package:
# tools/check_dist.py --full runs the tests from a copy without them, where the documentation
# site (built from the sources) and setup.py's readers cannot run.
_PACKAGE_SOURCES = pathlib.Path(__file__).resolve().parents[1] / "river_boost"
SOURCES_HERE = (_PACKAGE_SOURCES / "engine" / "_format.py").is_file()
NO_SOURCES = "the package's sources are not beside the tests (an installed package is tested)"

# The presets by task (the martingale booster has its own tests).
BINARY_PRESETS = [
    river_boost.OnlineBBM,
    river_boost.AdaBoostOL,
    river_boost.OSBoost,
    river_boost.NHBoostDT,
    river_boost.SquintBoost,
]
MULTICLASS_PRESETS = [river_boost.AdaBoostOLM, river_boost.OnlineMBBM]
RANKING_PRESETS = [river_boost.AdaOLMR, river_boost.OnlineBMR]

SHARED_DATA = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data"


class FeatureVoter(base.Classifier):
    """A weak learner whose vote is fixed by one feature: True iff ``x[feature] > 0``.

    It records every ``learn_one`` call (features, label, weight) so tests can check exactly
    what a booster taught it. Before any learning it can be told to have no opinion
    (``predict_proba_one`` returns ``{}``, like a fresh Hoeffding tree).
    """

    # it learns (records) any label: a multiclass learner in River's sense
    _multiclass = True

    def __init__(self, feature: str = "a", silent_until_learned: bool = False):
        self.feature = feature
        self.silent_until_learned = silent_until_learned
        self.calls: list = []

    def learn_one(self, x, y, w=1.0):
        self.calls.append((dict(x), y, w))

    def predict_proba_one(self, x):
        if self.silent_until_learned and not self.calls:
            return {}
        p = 1.0 if x.get(self.feature, 0) > 0 else 0.0
        return {True: p, False: 1.0 - p}


def pool_of_voters(booster_cls, features, **kwargs):
    """A booster whose learner i votes with ``FeatureVoter(features[i])``."""
    booster = booster_cls(model=FeatureVoter(), n_models=len(features), diversify=False, **kwargs)
    for m, f in zip(booster.models, features):
        m.feature = f
    return booster


def phishing(n=None):
    from river import datasets

    data = datasets.Phishing()
    return list(itertools.islice(data, n)) if n else list(data)


def assert_reproducible_and_restorable(make, stream, split):
    """Two models from ``make()`` agree on ``stream[:split]``; then a pickled copy of one,
    restored mid-stream, predicts and learns exactly as the original on the rest."""
    import pickle

    a, b = make(), make()
    for x, y in stream[:split]:
        assert a.predict_proba_one(x) == b.predict_proba_one(x)
        a.learn_one(x, y)
        b.learn_one(x, y)
    restored = pickle.loads(pickle.dumps(a))
    for x, y in stream[split:]:
        assert restored.predict_proba_one(x) == a.predict_proba_one(x)
        assert restored.predict_one(x) == a.predict_one(x)
        a.learn_one(x, y)
        restored.learn_one(x, y)
    return a, restored


def engine_of(pool):
    """A binary engine holding ``pool`` (the engine holds the per-learner counters the
    Python walk's offers move: ``python_walk.teach(engine, ...)``)."""
    from river_boost.engine import ENGINES
    from river_boost.potentials import BinomialPotential
    from river_boost.tasks import BinaryTask

    return ENGINES["binary"](BinaryTask(), BinomialPotential(pool.n_models, 0.1), pool)
