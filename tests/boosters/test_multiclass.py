"""Multiclass boosting: exact potentials, AdaBoost.OLM, OnlineMBBM, reductions to binary."""

from __future__ import annotations

import itertools
import math
import pickle
import random
from fractions import Fraction

import numpy as np
import pytest
from river import base, checks, datasets, evaluate, metrics

import river_boost as rb
from river_boost.engine import _costs, laws
from river_boost.potentials import BinomialPotential, LogisticLoss, MulticlassZeroOnePotential
from river_boost.tasks import MulticlassTask

from ..helpers import FeatureVoter, assert_reproducible_and_restorable, phishing, pool_of_voters
from ..oracles import python_walk

BOOSTERS = [rb.AdaBoostOLM, rb.OnlineMBBM]


def _variants():
    for cls in BOOSTERS:
        for params in cls._unit_test_params():
            yield pytest.param(cls, params, id=f"{cls.__name__}-{params}")


VARIANTS = list(_variants())


def brute_potential(n, s, r, k, gamma):
    """phi_n^r(s) by enumerating every sequence of n votes, in exact rationals."""
    g = Fraction(gamma)
    p_right, p_other = (1 - g) / k + g, (1 - g) / k
    total = Fraction(0)
    for seq in itertools.product(range(k), repeat=n):
        final = list(s)
        p = Fraction(1)
        for lab in seq:
            p *= p_right if lab == r else p_other
            final[lab] += 1
        if max(final[lab] for lab in range(k) if lab != r) >= final[r]:
            total += p
    return total


def image_segments(n):
    return list(itertools.islice(datasets.ImageSegments(), n))


# ----------------------------------------------------------------------------- potentials


@pytest.mark.parametrize(
    "banded, tol, seed", [(False, 1e-12, 0), (True, 1e-13, 5)], ids=["dense DP", "Poisson DP"]
)
def test_exact_potential_equals_brute_force_enumeration(banded, tol, seed):
    """Both exact algorithms: the dense DP (small ``n``, the potential's) and the large-``n``
    Poisson-conditioned DP (``laws.banded_potential``) for every ``n >= 1``."""
    rng = random.Random(seed)
    for _ in range(80):
        k = rng.randint(2, 4)
        n = rng.randint(0, 8 if k <= 3 else 6)
        s = [rng.randint(0, 4) for _ in range(k)]
        r = rng.randrange(k)
        gamma = rng.choice(["0.05", "0.1", "0.3"])
        pot = MulticlassZeroOnePotential(k, float(Fraction(gamma)))
        got = pot.value(n, s, r)
        if banded and n:
            gaps = tuple(sorted(s[r] - v for j, v in enumerate(s) if j != r))
            tail = _costs.MBBMCosts(pot, 1).gap_tail(pot, n)
            got = laws.banded_potential(n, k, pot.p_right, gaps, tail)
        assert got == pytest.approx(float(brute_potential(n, s, r, k, gamma)), abs=tol)


@pytest.mark.parametrize("k, n, gamma", [(5, 40, 0.1), (8, 25, 0.2), (26, 19, 0.05)])
def test_exact_potential_agrees_with_monte_carlo(k, n, gamma):
    rng = np.random.default_rng(1)
    pot = MulticlassZeroOnePotential(k, gamma)
    probs = np.full(k, (1 - gamma) / k)
    probs[0] += gamma
    s = np.zeros(k, dtype=int)
    s[:3] = [3, 2, 4]  # r = 0 behind label 2
    draws = rng.multinomial(n, probs, size=200_000) + s
    mc = np.mean(draws[:, 1:].max(axis=1) >= draws[:, 0])
    se = math.sqrt(mc * (1 - mc) / len(draws))
    assert abs(pot.value(n, s.tolist(), 0) - mc) < 4 * se


def test_potential_recursion_and_properness():
    pot = MulticlassZeroOnePotential(3, 0.2)
    p = [(1 - 0.2) / 3 + 0.2, (1 - 0.2) / 3, (1 - 0.2) / 3]
    for s in ([0, 0, 0], [2, 1, 0], [0, 3, 1]):
        for n in range(0, 6):
            nxt = sum(
                p[lab] * pot.value(n, [v + (j == lab) for j, v in enumerate(s)], 0)
                for lab in range(3)
            )
            assert pot.value(n + 1, s, 0) == pytest.approx(nxt, abs=1e-14)
            # proper: a vote for r lowers the potential, a vote for a wrong label raises it
            assert pot.value(n, [s[0] + 1, s[1], s[2]], 0) <= pot.value(n, s, 0) + 1e-15
            assert pot.value(n, [s[0], s[1] + 1, s[2]], 0) >= pot.value(n, s, 0) - 1e-15


def test_cost_matrix_groups_equal_scores_exactly():
    rng = random.Random(3)
    for _ in range(20):
        k, n = rng.randint(2, 6), rng.randint(0, 7)
        pot = MulticlassZeroOnePotential(k, 0.2)
        s = [rng.randint(0, 3) for _ in range(k)]
        C = pot.cost_matrix(n, s)
        for r, lab in itertools.product(range(k), repeat=2):
            s2 = list(s)
            s2[lab] += 1
            assert C[r, lab] == pytest.approx(pot.value(n, s2, r), abs=1e-15)
        assert pot.cost_row(n, s, 1) == pytest.approx(C[1].tolist(), abs=1e-15)


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("gamma", [0.05, 0.3])
def test_weight_bound_is_never_exceeded_over_reachable_states(k, gamma):
    pot = MulticlassZeroOnePotential(k, gamma)
    n_models = 7
    for i in range(1, n_models + 1):
        n, worst = n_models - i, 0.0
        for votes in itertools.product(range(k), repeat=i - 1):
            s = np.bincount(votes, minlength=k).tolist() if votes else [0] * k
            worst = max(worst, max(pot.weight(n, s, r) for r in range(k)))
        assert worst <= pot.max_weight(n) * (1 + 1e-12)
    assert pot.max_weight(0) == k - 1  # attained: r tied with everyone, one vote to come


def test_two_classes_weight_is_twice_online_bbm():
    n_models, gamma = 11, 0.2
    bbm, mbbm = BinomialPotential(n_models, gamma), MulticlassZeroOnePotential(2, gamma)
    for i in range(1, n_models + 1):
        for right in range(i):
            s = [right, i - 1 - right]  # r = 0; margin s^{i-1} = right - wrong
            margin = right - (i - 1 - right)
            assert mbbm.weight(n_models - i, s, 0) == pytest.approx(
                2 * bbm.weight(i, margin), abs=1e-14
            )


def test_potential_cache_is_bounded_and_not_pickled():
    """The engine's cost object keeps the potentials (none on the potential), at most
    ``cache_size``, and pickles without them."""
    pot = MulticlassZeroOnePotential(4, 0.1, cache_size=50)
    costs = _costs.MBBMCosts(pot, 3)
    for a, b in itertools.product(range(10), range(10)):
        costs.value(pot, 5, tuple(sorted([a - b, a, a])))
        pot.value(5, [a, b, 0, 0], 0)
    assert len(costs.values) == 50
    assert not any(isinstance(v, dict) for v in vars(pot).values())
    restored = pickle.loads(pickle.dumps(costs))
    assert len(restored.values) == 0
    assert restored.value(pot, 5, (-1, 0, 0)) == pot.value(5, [0, 1, 0, 0], 0)


def test_potential_is_numerically_safe_for_many_votes():
    pot = MulticlassZeroOnePotential(3, 0.01)
    v = pot.value(400, [0, 5, 0], 0)
    assert 0.0 < v < 1.0 and math.isfinite(v)
    assert 0.0 < pot.max_weight(1000) < 2


# ----------------------------------------------------------------------------- River conventions


@pytest.mark.parametrize("cls, params", VARIANTS)
def test_river_check_estimator(cls, params):
    checks.check_estimator(cls(**params))


@pytest.mark.parametrize("cls, params", VARIANTS)
def test_same_seed_same_predictions_and_pickling_mid_stream(cls, params):
    assert_reproducible_and_restorable(lambda: cls(**params), image_segments(300), 150)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_classes_join_mid_stream_without_restart(cls):
    model = cls(n_models=3, seed=0)
    assert model.predict_proba_one({"a": 1.0}) == {}
    stream = image_segments(400)
    first = [(x, y) for x, y in stream if y in ("sky", "grass")][:60]
    for x, y in first:
        model.learn_one(x, y)
    assert set(model.predict_proba_one(first[0][0])) == {"sky", "grass"}
    seen = {"sky", "grass"}
    correct_late = 0
    for t, (x, y) in enumerate(stream):
        proba = model.predict_proba_one(x)
        assert set(proba) == seen and math.isclose(sum(proba.values()), 1.0)
        correct_late += t > 300 and model.predict_one(x) == y
        model.learn_one(x, y)
        seen.add(y)
    assert len(seen) == 7 and model.known_classes[:2] == ["sky", "grass"]
    assert correct_late > 50  # new classes are learned, not just listed


@pytest.mark.parametrize("cls", BOOSTERS)
def test_bad_input(cls):
    model = cls(n_models=2, seed=0)
    for y in (None, ["a"], {"a": 1}):
        with pytest.raises(ValueError):
            model.learn_one({"a": 1.0}, y)
    for w in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="weight"):
            model.learn_one({"a": 1.0}, "x", w=w)
    model.learn_one({"a": 1.0}, "x", w=0)
    assert model.n_seen == 0
    for bad in ({"gamma": 0.0}, {"weak_prediction": "best"}, {"prediction": "best"}):
        if "gamma" in bad and cls is rb.AdaBoostOLM or "prediction" in bad and cls is rb.OnlineMBBM:
            continue
        with pytest.raises(ValueError):
            cls(**bad)
    # NaN features are missing features
    a, b = cls(n_models=3, seed=1), cls(n_models=3, seed=1)
    for x, y in image_segments(150):
        dirty = {**x, "hue-mean": float("nan")}
        clean = {k: v for k, v in x.items() if k != "hue-mean"}
        assert a.predict_proba_one(dirty) == b.predict_proba_one(clean)
        a.learn_one(dirty, y)
        b.learn_one(clean, y)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_beats_a_single_tree_on_image_segments(cls):
    from river import tree

    kwargs = {"gamma": 0.3} if cls is rb.OnlineMBBM else {}
    acc = evaluate.progressive_val_score(
        datasets.ImageSegments(), cls(n_models=5, seed=1, **kwargs), metrics.Accuracy()
    )
    single = evaluate.progressive_val_score(
        datasets.ImageSegments(), tree.HoeffdingTreeClassifier(), metrics.Accuracy()
    )
    assert acc.get() > single.get()


# ----------------------------------------------------------------------------- reductions


def test_adaboost_olm_with_two_classes_is_adaboost_ol():
    ol = rb.AdaBoostOL(n_models=5, seed=3)
    olm = rb.AdaBoostOLM(
        n_models=5, seed=3, classes=(False, True), learning_rate=4.0, weak_prediction="argmax"
    )
    for x, y in phishing(700):
        p_ol, p_olm = ol.predict_proba_one(x), olm.predict_proba_one(x)
        assert p_olm[True] == pytest.approx(p_ol[True], abs=1e-12)
        assert olm.predict_one(x) == ol.predict_one(x)
        ol.learn_one(x, y)
        olm.learn_one(x, y)
        assert olm.alphas == pytest.approx(ol.alphas, abs=1e-12)
    assert olm.expert_weights == pytest.approx(ol.expert_weights, abs=1e-12)


def test_online_mbbm_with_two_classes_weighs_like_online_bbm():
    """Same votes, so the same learners see the same relative weights and vote the same."""
    features = [f"h{i}" for i in range(6)]
    bbm = pool_of_voters(rb.OnlineBBM, features, gamma=0.2, min_weight=0.0)
    mbbm = rb.OnlineMBBM(
        model=FeatureVoter(),
        n_models=6,
        gamma=0.2,
        classes=(False, True),
        weak_prediction="argmax",
        diversify=False,
        min_weight=0.0,
    )
    for m, f in zip(mbbm.models, features):
        m.feature = f
    rng = random.Random(5)
    for _ in range(300):
        y = rng.random() < 0.5
        x = {f: int(y if rng.random() < 0.7 else not y) for f in features}
        assert mbbm.predict_proba_one(x)[True] == pytest.approx(bbm.predict_proba_one(x)[True])
        bbm.learn_one(x, y)
        mbbm.learn_one(x, y)
    for m_b, m_m in zip(bbm.models, mbbm.models):
        assert [w for *_, w in m_m.calls] == pytest.approx([w for *_, w in m_b.calls], rel=1e-9)


def test_cost_sensitive_weak_prediction_differs_from_argmax_only_when_unsure():
    """A learner sure of its label keeps it; an unsure one follows the cheaper label."""
    task = MulticlassTask(classes=("a", "b", "c"))
    s = np.array([2.0, 0.0, 0.0])
    C = LogisticLoss.cost_matrix_of(s)
    sure = np.array([0.0, 1.0, 0.0])
    assert python_walk.weak_label(task, sure, C) == 1
    unsure = np.array([0.3, 0.36, 0.34])  # argmax says "b"
    assert python_walk.weak_label(task, unsure, None) == 1
    expected = int(np.argmin(unsure @ C))
    assert python_walk.weak_label(task, unsure, C) == expected


class _Constant(base.Classifier):
    _multiclass = True  # votes and accepts any label

    def __init__(self, label="a"):
        self.label = label

    def learn_one(self, x, y, w=1.0):
        pass

    def predict_proba_one(self, x):
        return {self.label: 1.0}


def test_edges_are_one_for_always_right_learners():
    model = rb.AdaBoostOLM(
        model=_Constant("a"), n_models=3, classes=("a", "b", "c"), diversify=False
    )
    for _ in range(20):
        model.learn_one({"x": 1.0}, "a")
    assert model.edges == pytest.approx([1.0, 1.0, 1.0])
    mb = rb.OnlineMBBM(model=_Constant("a"), n_models=3, classes=("a", "b", "c"), diversify=False)
    for _ in range(20):
        mb.learn_one({"x": 1.0}, "a")
    assert mb.edges[0] == pytest.approx(1.0)


@pytest.mark.parametrize("cls", [*BOOSTERS, rb.AdaOLMR, rb.OnlineBMR])
def test_a_binary_only_weak_learner_is_refused_at_construction(cls):
    from river import linear_model

    # LogisticRegression learns True/False only: it used to be accepted and then fail inside
    # River on the first multiclass label
    with pytest.raises(ValueError, match=r"LogisticRegression is a binary classifier.*OneVsRest"):
        cls(model=linear_model.LogisticRegression())


@pytest.mark.parametrize("cls", BOOSTERS)
def test_multiclass_river_classifiers_serve_as_weak_learners(cls):
    from river import linear_model, multiclass, naive_bayes, preprocessing

    stream = list(datasets.ImageSegments().take(600))
    for weak, weighting in (
        (multiclass.OneVsRestClassifier(linear_model.LogisticRegression()), "importance"),
        (naive_bayes.GaussianNB(), "sampling"),  # learn_one(x, y) without a weight
    ):
        booster = cls(model=weak, n_models=3, weighting=weighting, seed=0)
        model = preprocessing.StandardScaler() | booster
        metric = evaluate.progressive_val_score(stream, model, metrics.Accuracy())
        assert metric.get() > 0.6  # seven classes: a chance learner scores about 0.14


@pytest.mark.parametrize("cls", [rb.AdaBoostOLM, rb.OnlineMBBM])
def test_weight_scale_multiplies_every_weight_a_learner_is_taught(cls):
    """The same walk (voters whose votes do not depend on what they learn), every weight
    multiplied by the scale: the same calls, weights 3 times as large."""
    rng = random.Random(4)
    stream = []
    for _ in range(300):
        x = {f: rng.uniform(-1, 1) for f in "abc"}
        stream.append((x, (x["a"] + 0.5 * x["b"] > 0) != (rng.random() < 0.2)))
    calls = {}
    for scale in (1.0, 3.0):
        booster = pool_of_voters(cls, ["a", "b", "c"], seed=1, weight_scale=scale)
        for x, y in stream:
            booster.predict_one(x)
            booster.learn_one(x, y)
        assert booster.pool.weight_scales == [scale] * 3
        calls[scale] = [m.calls for m in booster.models]
    assert sum(len(c) for c in calls[1.0]) > 300
    for plain, scaled in zip(calls[1.0], calls[3.0], strict=True):
        assert [(x, y) for x, y, _ in plain] == [(x, y) for x, y, _ in scaled]
        assert [3.0 * w for _, _, w in plain] == pytest.approx([w for _, _, w in scaled])


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, True, "3"])
def test_a_weight_scale_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match="weight_scale"):
        rb.AdaBoostOLM(weight_scale=bad)


def _blobs(n, seed):
    """Three noisy classes in two dimensions (a label joins mid-stream: "c" after 40)."""
    rng = random.Random(seed)
    centres = {"a": (0.0, 0.0), "b": (1.0, 0.5), "c": (0.3, 1.2)}
    stream = []
    for t in range(n):
        label = rng.choice("ab" if t < 40 else "abc")
        cx, cy = centres[label]
        stream.append(({"u": rng.gauss(cx, 0.5), "v": rng.gauss(cy, 0.5)}, label))
    return stream


def test_adaboost_olm_deep_chain_predicts_by_hedge_over_the_chains_mistakes():
    """``deep_scale``: replayed by hand, each label's probability is (1 - v) P_shallow + v
    P_deep with v from the chains' weighted mistakes (the most probable label of each, ties
    to the task's order), and the prediction the most probable combined label."""
    import copy

    booster = rb.AdaBoostOLM(n_models=4, deep_scale=6.0, seed=3)
    shallow, deep = copy.deepcopy(booster), copy.deepcopy(booster.deep_chain)
    shallow._deep = None  # its own chain alone
    assert deep.pool.weight_scales == [6.0, 6.0] and booster.pool.weight_scales == [1.0] * 4
    eta, mistakes = booster._deep.eta, [0.0, 0.0]
    rng = random.Random(2)
    for x, y in _blobs(500, 1):
        ps, pd = shallow.predict_proba_one(x), deep.predict_proba_one(x)
        terms = [math.exp(-eta * m) for m in mistakes]
        v = terms[1] / (terms[0] + terms[1])
        expected = {c: (1 - v) * ps.get(c, 0.0) + v * pd.get(c, 0.0) for c in ps}
        got = booster.predict_proba_one(x)
        assert list(got) == list(expected)
        assert got == pytest.approx(expected, rel=1e-12)
        if expected:
            top = max(expected.values())
            assert expected[booster.predict_one(x)] == top
        w = rng.choice([0.5, 1.0, 2.0])
        for k, chain in enumerate((shallow, deep)):
            mistakes[k] += w if chain.predict_one(x) != y else 0.0
        booster.learn_one(x, y, w)
        shallow.learn_one(x, y, w)
        deep.learn_one(x, y, w)
        assert booster._deep.mistakes == pytest.approx(mistakes, rel=1e-12)
    assert booster.known_classes == ["a", "b", "c"] == booster.deep_chain.known_classes
    assert 0 < mistakes[0] != mistakes[1] > 0  # the comparison could fail


def test_adaboost_olm_deep_chain_rejects_a_bad_label_before_anything_changes():
    booster = rb.AdaBoostOLM(n_models=3, deep_scale=4.0, seed=1)
    for x, y in _blobs(100, 2):
        booster.learn_one(x, y)
    before = pickle.dumps(booster)
    for bad in (None, float("nan"), 3):  # 3 cannot be ordered with the string labels
        with pytest.raises(ValueError):
            booster.learn_one({"u": 0.0, "v": 0.0}, bad)
    assert pickle.dumps(booster) == before
    restored = pickle.loads(before)
    for x, y in _blobs(100, 3):
        assert restored.predict_proba_one(x) == booster.predict_proba_one(x)
        restored.learn_one(x, y)
        booster.learn_one(x, y)
