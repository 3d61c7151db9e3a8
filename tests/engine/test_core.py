"""The shared core, tested alone: pool weighting, feature subsets, Hedge, OGD, input checks."""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest
from river import linear_model, tree
from river_boost.engine._clean import Cleaner
from river_boost.engine._experts import Hedge, ProjectedOGD

from river_boost.engine._contract import as_binary_label, check_sample_weight, clean_features
from river_boost.pool import DIVERSIFY_RANGES, WeakLearnerPool
from river_boost.subsets import SizedSubsets
from river_boost.tasks import BinaryTask

from ..helpers import FeatureVoter, engine_of
from ..oracles import python_walk


def make_engine(**kwargs):
    """A binary engine holding a pool of FeatureVoters."""
    kwargs.setdefault("n_models", 2)
    return engine_of(WeakLearnerPool(model=FeatureVoter(), seed=kwargs.pop("seed", 0), **kwargs))


def offer(e, i, x, y, p, sample_weight=1.0):
    """Teach learner i alone (as the boosters' walk does, here its Python reference); the
    weight it was passed."""
    return python_walk.teach(e, x, [(i, y, p)], sample_weight)[0]


def test_importance_weights_are_rescaled_to_unit_running_mean():
    e = make_engine(weighting="importance")
    ps = [0.5, 0.1, 0.4, 0.0, 1.0]
    passed = [offer(e, 0, {"a": 1}, True, p) for p in ps]
    # w_t = p_t / mean(p_1..p_t): relative weights kept, total weight ~ number of examples
    expected = [p / (sum(ps[: t + 1]) / (t + 1)) for t, p in enumerate(ps)]
    assert passed == pytest.approx(expected)
    # zero weight skips the call entirely (River's trees may divide by w)
    assert [w for _, _, w in e.pool.models[0].calls] == pytest.approx(
        [v for v in expected if v > 0]
    )
    assert e.pool.models[1].calls == []


def test_importance_weights_multiply_the_sample_weight():
    e = make_engine()
    assert offer(e, 0, {"a": 1}, True, 0.5, sample_weight=3.0) == pytest.approx(3.0)


def test_min_weight_thinning_is_unbiased():
    e = make_engine(min_weight=0.5, seed=1)
    offer(e, 0, {}, True, 1.0)  # mean p so far = 1, so p below is also the rescaled weight
    # feed p = 0.05 many times, keeping the running mean about constant by interleaving p = 1
    total, n = 0.0, 20000
    for _ in range(n):
        offer(e, 0, {}, True, 1.0)
        mean_p = e.offered[0] / e.n_offered[0]
        w = offer(e, 0, {}, True, 0.05)
        assert w in (0.0, 0.5)
        total += w * mean_p
    assert total / n == pytest.approx(0.05, rel=0.1)


def test_sampling_passes_examples_with_probability_p_and_unit_weight():
    e = make_engine(weighting="sampling", seed=3)
    n = 20000
    passed = [offer(e, 0, {}, True, 0.3, sample_weight=2.0) for _ in range(n)]
    assert set(passed) == {0.0, 2.0}
    assert sum(1 for w in passed if w) / n == pytest.approx(0.3, abs=0.015)


def test_votes_convention_and_no_opinion():
    task = BinaryTask()
    e = engine_of(WeakLearnerPool(FeatureVoter(silent_until_learned=True), n_models=1))
    no_opinion = python_walk.learner_probas(e, {"a": 1})
    assert python_walk.task_walk(task, no_opinion, None, None, 1).rows == [0.5]
    dists = [{True: p, False: 1 - p} for p in (0.5, 0.51, 0.49, 0.0, 1.0)]
    assert python_walk.task_walk(task, dists, None, None, 5).votes == [1, 1, -1, -1, 1]


def p_true(e, x):
    return [d[True] for d in python_walk.learner_probas(e, x)]


class Recorder(FeatureVoter):
    def predict_proba_one(self, x):
        self.seen = dict(x)
        return super().predict_proba_one(x)


def test_the_cleaner_gives_the_same_clean_x_while_x_is_unchanged():
    """Cleaner (the martingale booster's; the engines clean with the same code in C): the
    same clean x for the same x, by which the booster keeps what it computed for it; an x
    mutated in place seen as another x; an equal x cleaned alike; the learned kinds survive
    a copy, and 0.2.0's pickled FeatureCleaner state."""
    memo = Cleaner()
    x = {"a": 1, "b": None}
    clean = memo.cleaned(x)
    assert clean == {"a": 1}
    assert memo.cleaned(x) is clean
    x["a"] = -1  # mutated in place: another x
    assert memo.cleaned(x) == {"a": -1}
    assert memo.cleaned({"b": None, "a": -1}) == {"a": -1}
    memo.learned()  # "a" is numeric from now on: a string value for it is dropped
    assert memo.cleaned({"a": "red", "c": "blue"}) == {"c": "blue"}
    copy = pickle.loads(pickle.dumps(memo))
    assert copy.nominal == {"a": False} and copy.cleaned({"a": "red"}) == {}
    old = Cleaner.__new__(Cleaner)  # as format 1 loads it: its __dict__ as the state
    old.__setstate__({"x": None, "clean": None, "value": None, "nominal": {"a": True}})
    assert old.cleaned({"a": 1.0, "c": "blue"}) == {"c": "blue"}


def test_learners_see_the_cleaned_features():
    recorder = engine_of(WeakLearnerPool(Recorder(), n_models=1))
    python_walk.learner_probas(recorder, {"b": float("nan"), "a": 2})
    assert recorder.pool.models[0].seen == {"a": 2}
    assert p_true(make_engine(n_models=1), {"a": 1}) == [1.0]


def test_diversify_draws_tree_parameters_within_ranges_and_by_seed():
    pools = [
        WeakLearnerPool(tree.HoeffdingTreeClassifier(), 20, diversify=True, seed=s)
        for s in (5, 5, 6)
    ]
    params = [[(m.delta, m.tau, m.grace_period) for m in p.models] for p in pools]
    assert params[0] == params[1] != params[2]
    # the first learner is the model as given; the others are drawn
    default = tree.HoeffdingTreeClassifier()
    assert params[0][0] == (default.delta, default.tau, default.grace_period)
    params = [p[1:] for p in params]
    lo, hi = DIVERSIFY_RANGES["delta"]
    assert all(lo <= d <= hi for d, _, _ in params[0])
    lo, hi = DIVERSIFY_RANGES["tau"]
    assert all(lo <= t <= hi for _, t, _ in params[0])
    lo, hi = DIVERSIFY_RANGES["grace_period"]
    assert all(lo <= g <= hi and isinstance(g, int) for _, _, g in params[0])
    assert len({p for p in params[0]}) == 19
    # the papers' ranges: grace periods of 1 to 10
    paper = WeakLearnerPool(tree.HoeffdingTreeClassifier(), 20, diversify="paper", seed=5)
    assert all(1 <= m.grace_period <= 10 for m in paper.models[1:])
    with pytest.raises(ValueError, match="diversify"):
        WeakLearnerPool(tree.HoeffdingTreeClassifier(), 2, diversify="yes")
    # a model without those parameters is cloned as is
    pool = WeakLearnerPool(linear_model.LogisticRegression(), 3, diversify=True, seed=1)
    assert all(type(m) is linear_model.LogisticRegression for m in pool.models)


def test_feature_subsets_are_consistent_and_cover_about_the_fraction():
    pool = WeakLearnerPool(FeatureVoter(), 4, feature_fraction=0.5, seed=11)
    x = {f"f{j}": j for j in range(400)}
    views = [pool.learners.subsets.view(i, x) for i in range(4)]
    for v in views:
        assert 140 < len(v) < 260
    assert len({tuple(v) for v in views}) == 4  # learners see different subsets
    # consistent across calls, order of features and features that appear later
    shuffled = dict(reversed(list(x.items())))
    assert [set(pool.learners.subsets.view(i, shuffled)) for i in range(4)] == [
        set(v) for v in views
    ]
    x_more = {**x, "late": 1.0}
    for i in range(4):
        assert set(pool.learners.subsets.view(i, x_more)) - {"late"} == set(views[i])
    # the same seed gives the same subsets in another pool (hash, not Python's salted hash)
    other = WeakLearnerPool(FeatureVoter(), 4, feature_fraction=0.5, seed=11)
    assert [set(other.learners.subsets.view(i, x)) for i in range(4)] == [set(v) for v in views]


@pytest.mark.parametrize(
    "d, fraction, k",
    [
        (2, 0.75, 2),
        (3, 0.75, 2),
        (4, 0.75, 3),
        (6, 0.75, 5),
        (10, 0.75, 8),
        (1, 0.5, 1),
        (5, 0.1, 2),
        (21, 0.5, 11),
    ],
)
def test_sized_subsets_give_each_learner_exactly_k_of_the_first_features(d, fraction, k):
    subsets = SizedSubsets(fraction, [random.Random(j).getrandbits(64) for j in range(40)])
    x = {f"f{j}": float(j) for j in range(d)}
    subsets.decide({})  # (an empty x decides nothing)
    assert subsets.size is None
    subsets.decide(x)
    subsets.decide({"other": 1.0})  # (the first non-empty x only)
    assert subsets.size == k and subsets.n_features == d
    kept = [{f for f in x if subsets.keeps(i, f)} for i in range(40)]
    assert all(len(v) == k for v in kept)
    if k < d:  # the learners' draws differ, and every feature is someone's
        assert len({frozenset(v) for v in kept}) > 1
        assert set().union(*kept) == set(x)


def test_sized_subsets_draw_anew_on_reseed_and_survive_a_pickle():
    salts = [random.Random(j).getrandbits(64) for j in range(30)]
    subsets = SizedSubsets(0.5, list(salts))
    x = {f"f{j}": 1.0 for j in range(8)}
    subsets.decide(x)
    before = [{f for f in x if subsets.keeps(i, f)} for i in range(30)]
    copy = pickle.loads(pickle.dumps(subsets))
    assert [{f for f in x if copy.keeps(i, f)} for i in range(30)] == before
    # a feature absent from the first x is kept with probability 0.5, by the hash
    late = [subsets.keeps(i, "late") for i in range(30)]
    assert 0 < sum(late) < 30 and late == [copy.keeps(i, "late") for i in range(30)]
    for i in range(30):
        subsets.reseed(i, random.Random(100 + i).getrandbits(64))
    after = [{f for f in x if subsets.keeps(i, f)} for i in range(30)]
    assert all(len(v) == 4 for v in after) and after != before
    subsets.append(random.Random(7).getrandbits(64))
    assert len({f for f in x if subsets.keeps(30, f)}) == 4


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_models": 0},
        {"weighting": "poisson"},
        {"feature_fraction": 0.0},
        {"feature_fraction": 1.5},
        {"min_weight": -0.1},
        {"min_weight": 2.0},
    ],
)
def test_pool_rejects_bad_parameters(kwargs):
    kwargs.setdefault("n_models", 2)
    with pytest.raises(ValueError):
        WeakLearnerPool(FeatureVoter(), **kwargs)


def test_hedge_weights_are_exponential_in_cumulative_loss():
    hedge = Hedge(3)
    losses = [[1, 0, 1], [1, 0, 0], [0, 1, 1], [1, 0, 0]]
    for row in losses:
        hedge.update(row)
    cum = [sum(col) for col in zip(*losses)]
    raw = [math.exp(-c) for c in cum]
    assert hedge.weights == pytest.approx([r / sum(raw) for r in raw])
    # long streams neither underflow nor drift: the best expert stays at log-weight 0
    for _ in range(100000):
        hedge.update([1, 0, 1], scale=0.5)
    assert max(hedge.log_weights) == 0.0
    assert hedge.weights == pytest.approx([0.0, 1.0, 0.0])
    rng = random.Random(0)
    assert {hedge.draw(rng) for _ in range(50)} == {1}


def test_projected_ogd_steps_and_projects():
    ogd = ProjectedOGD(2, lr=4.0, bound=2.0)
    ogd.step_all([-0.3, 5.0])
    assert ogd.rate(0) == 4.0
    assert ogd.values == pytest.approx([1.2, -2.0])
    ogd.step_all([-1.0, 0.0])
    assert ogd.rate(0) == pytest.approx(4 / math.sqrt(2))
    assert ogd.values[0] == 2.0


def test_projected_ogd_counts_its_steps_and_pickles():
    """ProjectedOGD.t (the compiled experts count in place) reads and writes as an int, and
    a copy goes on from the same count, restarts and rates."""
    ogd = ProjectedOGD(3, lr=1.0)
    for _ in range(5):
        ogd.step_all([0.0] * 3)
    assert ogd.t == 5 and type(ogd.t) is int
    ogd.restart(1)
    assert ogd.starts == [0, 5, 0] and ogd.rate(1) == 1.0
    copy = pickle.loads(pickle.dumps(ogd))
    assert copy.t == 5 and copy.starts == [0, 5, 0] and copy.rate(1) == ogd.rate(1)
    copy.step_all([0.0] * 3)
    assert copy.t == 6 and copy.rate(0) == 1 / math.sqrt(6) and ogd.t == 5
    copy.t = 2
    copy.step_all([0.0] * 3)
    assert copy.rate(0) == 1.0 / math.sqrt(3)


@pytest.mark.parametrize(
    "y, expected",
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        (np.bool_(True), True),
        (np.bool_(False), False),
        (np.int64(1), True),
        (1.0, True),
        (0.0, False),
    ],
)
def test_binary_labels_accepted(y, expected):
    assert as_binary_label(y) is expected


@pytest.mark.parametrize("y", [2, -1, 0.5, "yes", "1", None, float("nan")])
def test_non_binary_labels_rejected(y):
    with pytest.raises(ValueError, match="binary"):
        as_binary_label(y)


def test_sample_weight_checks():
    assert check_sample_weight(2) == 2.0
    assert check_sample_weight(0) == 0.0
    for w in (-1, float("nan"), float("inf"), "a", None):
        with pytest.raises(ValueError, match="weight"):
            check_sample_weight(w)


def test_clean_features_drops_non_finite_values_and_sorts_without_touching_input():
    x = {"e": 3, "a": 1.0, "b": float("nan"), "c": float("inf"), "d": "text"}
    assert list(clean_features(x).items()) == [("a", 1.0), ("d", "text"), ("e", 3)]
    assert len(x) == 5
    mixed = {2: 1.0, "b": 2.0, 1: 3.0, ("t", 1): 4.0}
    assert list(clean_features(mixed)) == [1, 2, "b", ("t", 1)]


class Unweighted(FeatureVoter):
    def learn_one(self, x, y):
        self.calls.append((dict(x), y, None))


def test_sampling_replicates_sample_weights_for_learners_without_w():
    e = engine_of(WeakLearnerPool(Unweighted(), 1, weighting="sampling", seed=0))
    n = 4000
    for _ in range(n):
        offer(e, 0, {}, True, 1.0, sample_weight=2.5)
    assert len(e.pool.models[0].calls) / n == pytest.approx(2.5, abs=0.05)
    with pytest.raises(ValueError, match="sampling"):
        WeakLearnerPool(Unweighted(), 1, weighting="importance")


def test_paper_mode_scales_each_learners_weights_by_a_drawn_constant():
    # The papers' code multiplied learner i's weights by a constant drawn in [10, 200].
    e = make_engine(n_models=4, diversify="paper", seed=3)
    scales = e.pool.weight_scales
    assert scales[0] == 1.0  # the first learner stays the model as given
    assert all(10.0 <= s <= 200.0 for s in scales[1:]) and len(set(scales[1:])) == 3
    for i in range(4):
        assert offer(e, i, {"a": 1}, True, 0.5, sample_weight=2.0) == pytest.approx(2.0 * scales[i])
        assert e.pool.models[i].calls[-1][2] == pytest.approx(2.0 * scales[i])
    sampling = make_engine(n_models=3, diversify="paper", weighting="sampling", seed=3)
    assert offer(sampling, 2, {"a": 1}, True, 1.0) == pytest.approx(sampling.pool.weight_scales[2])
    # other modes leave weights alone
    for diversify in (False, True):
        assert make_engine(n_models=3, diversify=diversify).pool.weight_scales == [1.0] * 3
