"""``feature_fraction="auto"``: every learner sees every feature of a narrow stream, a random
subset of a wide one (``benchmarks/RESULTS.md``, "Wide data: the feature_fraction default")."""

from __future__ import annotations

import itertools
import math
import pickle
import random

import pytest
from river import datasets

import river_boost
from river_boost import forest
from river_boost.pool import WeakLearnerPool
from river_boost.subsets import (
    AUTO_FEATURES_UP_TO,
    FeatureSubsets,
    auto_feature_count,
    auto_feature_fraction,
)

from ..helpers import BINARY_PRESETS as BINARY
from ..helpers import MULTICLASS_PRESETS as MULTICLASS
from ..helpers import RANKING_PRESETS as MULTILABEL
from ..helpers import FeatureVoter, engine_of
from ..oracles import python_walk


def wide_x(d, offset=0.0):
    return {f"f{j:03d}": (j * 7919 % 101) / 101 + offset for j in range(d)}


@pytest.mark.parametrize(
    "d, k",
    [(1, 1), (2, 2), (9, 9), (18, 18), (21, 21), (AUTO_FEATURES_UP_TO, AUTO_FEATURES_UP_TO)]
    + [(33, 20), (72, 20), (103, 20), (123, 20), (294, 20), (400, 20), (1000, 32), (10**4, 100)],
)
def test_auto_rule_subset_sizes(d, k):
    assert AUTO_FEATURES_UP_TO == 32
    assert auto_feature_count(d) == k
    assert auto_feature_fraction(d) == (1.0 if d <= AUTO_FEATURES_UP_TO else k / d)


def test_auto_rule_bounds_and_every_preset_defaults_to_it():
    for d in range(1, 3000):
        k = auto_feature_count(d)
        assert min(d, 20) <= k <= d
        assert k == d or k == max(20, round(math.sqrt(d)))
    for cls in BINARY + MULTICLASS + MULTILABEL:
        assert cls().feature_fraction == "auto", cls.__name__


def test_auto_is_decided_by_the_first_non_empty_x_and_sizes_follow_the_rule():
    e = engine_of(WeakLearnerPool(FeatureVoter(), 6, feature_fraction="auto", seed=3))
    subsets = e.pool.learners.subsets
    assert subsets.fraction is None and "undecided" in repr(subsets)
    python_walk.learner_probas(e, {})  # an empty x decides nothing
    assert subsets.fraction is None
    x = wide_x(294)
    python_walk.learner_probas(e, x)
    assert subsets.n_features == 294 and subsets.fraction == 20 / 294
    assert repr(subsets) == "FeatureSubsets(rule='auto', d=294, fraction=0.06803)"
    sizes = [len(subsets.view(i, x)) for i in range(6)]
    assert all(8 < s < 35 for s in sizes), sizes  # about 20 (binomial)
    python_walk.teach(e, wide_x(10), [(0, True, 1.0)])  # a later, narrower x changes nothing
    assert subsets.fraction == 20 / 294


def test_auto_subsets_are_deterministic_seeded_and_take_features_that_appear_later():
    def views(seed, x):
        e = engine_of(WeakLearnerPool(FeatureVoter(), 4, feature_fraction="auto", seed=seed))
        python_walk.learner_probas(e, wide_x(200))
        pool = e.pool
        return pool, [set(pool.learners.subsets.view(i, x)) for i in range(4)]

    x = {**wide_x(200), **{f"late{j}": 1.0 for j in range(2000)}}
    pool, first = views(7, x)
    assert views(7, x)[1] == first  # the same seed, the same subsets
    assert views(8, x)[1] != first
    fraction = pool.learners.subsets.fraction
    assert fraction == auto_feature_fraction(200)
    for v in first:  # features met later are kept with the decided fraction
        late = sum(f.startswith("late") for f in v)
        assert abs(late - 2000 * fraction) < 4 * math.sqrt(2000 * fraction)


@pytest.mark.parametrize("use_forest", [True, False])
def test_auto_equals_the_fraction_it_decides(monkeypatch, use_forest):
    """A multi-label booster's "auto" is exactly feature_fraction=auto_feature_fraction(d),
    compiled or not, and features appearing mid-stream join both the same way."""
    monkeypatch.setattr(forest, "ENABLED", use_forest)
    stream = list(datasets.Yeast().take(150))

    def widened(t, x):  # 103 features, 30 more from row 75 on
        return {**x, **({f"late{j}": (t + j) % 5 / 5 for j in range(30)} if t >= 75 else {})}

    d = len(stream[0][0])
    assert d == 103
    kwargs = {"n_models": 3, "seed": 5}
    auto = river_boost.OnlineBMR(**kwargs)
    fixed = river_boost.OnlineBMR(feature_fraction=auto_feature_fraction(d), **kwargs)
    everything = river_boost.OnlineBMR(feature_fraction=1.0, **kwargs)
    differs = False
    for t, (x, y) in enumerate(stream):
        x = widened(t, x)
        scores = auto.score_one(x)
        assert scores == fixed.score_one(x)
        differs |= scores != everything.score_one(x)
        for m in (auto, fixed, everything):
            m.learn_one(x, y)
    assert differs
    assert auto.feature_subsets.fraction == 20 / 103


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_auto_pickles_undecided_and_decided(protocol):
    stream = [(wide_x(80, t / 50), {"a": t % 3 == 0, "b": t % 3 != 0}) for t in range(120)]
    model = river_boost.AdaOLMR(n_models=3, seed=2)
    fresh = pickle.loads(pickle.dumps(model, protocol))  # undecided
    for x, y in stream[:60]:
        model.learn_one(x, y)
        fresh.learn_one(x, y)
    assert fresh.pool.feature_subsets.fraction == model.pool.feature_subsets.fraction == 20 / 80
    assert repr(model.feature_subsets) == "FeatureSubsets(rule='auto', d=80, fraction=0.25)"
    copy = pickle.loads(pickle.dumps(model, protocol))  # decided, mid-stream
    for x, y in stream[60:]:
        scores = model.score_one(x)
        assert scores == copy.score_one(x) == fresh.score_one(x)
        for m in (model, copy, fresh):
            m.learn_one(x, y)
    learners = copy.pool.learners  # the forest's filter, or the Python learners' subsets
    assert copy.pool.feature_subsets is getattr(learners, "feature_filter", None) or (
        copy.pool.feature_subsets is learners.subsets
    )


@pytest.mark.parametrize("cls", BINARY + MULTICLASS, ids=lambda c: c.__name__)
def test_binary_and_multiclass_auto_keeps_every_feature_of_wide_data(cls):
    kwargs = {"n_models": 3, "seed": 4}
    auto, everything = cls(**kwargs), cls(feature_fraction=1.0, **kwargs)
    assert repr(auto.feature_subsets) == "FeatureSubsets(rule='auto', fraction=1)"
    for t in range(80):
        x, y = wide_x(120, t / 40), (t % 3 == 0) if cls in BINARY else t % 3
        assert auto.predict_proba_one(x) == everything.predict_proba_one(x)
        auto.learn_one(x, y)
        everything.learn_one(x, y)
    assert auto.learner_updates == everything.learner_updates


def test_osboost_ocp_auto_takes_subsets_of_wide_data_in_both_chains():
    """OSBoost.OCP's "auto" (the other binary boosters keep every feature) is exactly
    feature_fraction=auto_feature_fraction(d) on a wide stream, its deep chain's too, and every
    feature of a narrow stream."""
    kwargs = {"n_models": 4, "seed": 6}
    auto = river_boost.OSBoostOCP(**kwargs)
    fixed = river_boost.OSBoostOCP(feature_fraction=auto_feature_fraction(120), **kwargs)
    everything = river_boost.OSBoostOCP(feature_fraction=1.0, **kwargs)
    differs = False
    rng = random.Random(1)
    for _ in range(300):
        y = rng.random() < 0.5  # a few of the features carry the label
        x = {f"f{j:03d}": rng.gauss(float(y and j % 10 == 0), 1.0) for j in range(120)}
        p = auto.predict_proba_one(x)
        assert p == fixed.predict_proba_one(x)
        differs |= p != everything.predict_proba_one(x)
        for m in (auto, fixed, everything):
            m.learn_one(x, y)
    assert differs
    for m in (auto, auto._deep.chain):
        assert m.feature_subsets.fraction == 20 / 120
    narrow, everything = (
        river_boost.OSBoostOCP(**kwargs),
        river_boost.OSBoostOCP(feature_fraction=1.0, **kwargs),
    )
    for x, y in datasets.Phishing().take(200):
        assert narrow.predict_proba_one(x) == everything.predict_proba_one(x)
        narrow.learn_one(x, y)
        everything.learn_one(x, y)
    assert narrow.feature_subsets.fraction == 1.0


def _events(cls):
    if cls in MULTILABEL:
        return [  # River's Yeast has 103 features: cut to 32 (narrow)
            ({k: v for k, v in itertools.islice(x.items(), 32)}, y)
            for x, y in datasets.Yeast().take(120)
        ]
    if cls in MULTICLASS:
        return list(datasets.ImageSegments().take(300))  # 18 features
    return list(datasets.Phishing().take(300))  # 9 features


@pytest.mark.parametrize("cls", BINARY + MULTICLASS + MULTILABEL, ids=lambda c: c.__name__)
def test_narrow_streams_are_unchanged_against_every_feature(cls):
    kwargs = {"n_models": 4, "seed": 9}
    if cls is river_boost.OnlineMBBM:
        kwargs["gamma"] = 0.1
    auto, everything = cls(**kwargs), cls(feature_fraction=1.0, **kwargs)
    assert auto.feature_fraction == "auto"
    for x, y in _events(cls):
        if cls in MULTILABEL:
            assert auto.score_one(x) == everything.score_one(x)
        else:
            assert auto.predict_proba_one(x) == everything.predict_proba_one(x)
        auto.learn_one(x, y)
        everything.learn_one(x, y)
    assert auto.pool.feature_subsets.fraction == 1.0
    assert auto.learner_updates == everything.learner_updates


def test_feature_subsets_reject_keeps_before_auto_is_decided():
    subsets = FeatureSubsets("auto", [1, 2])
    with pytest.raises(RuntimeError):
        subsets.keeps(0, "a")
    assert subsets.view(0, {}) == {}


@pytest.mark.parametrize("bad", ["all", "AUTO", 0.0, 1.5, float("nan"), True, None])
def test_bad_feature_fractions_are_rejected(bad):
    with pytest.raises(ValueError):
        river_boost.AdaBoostOL(feature_fraction=bad)
