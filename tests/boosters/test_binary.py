"""The binary boosters: River conventions, the papers' formulas, reproducibility, bad input."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import random
from fractions import Fraction

import pytest
from river import checks, compose, datasets, evaluate, metrics, preprocessing, tree

import river_boost as rb
from river_boost import potentials
from river_boost.engine._contract import clean_features

from ..engine.test_experts import brute_simplex_projection
from ..engine.test_potentials import brute_phi, reachable_margins
from ..helpers import FeatureVoter, assert_reproducible_and_restorable, phishing, pool_of_voters

BOOSTERS = [rb.OnlineBBM, rb.AdaBoostOL, rb.OSBoost, rb.OSBoostOCP, rb.NHBoostDT, rb.SquintBoost]


def _variants():
    for cls in BOOSTERS + [rb.PotentialBooster]:
        for params in cls._unit_test_params():
            yield pytest.param(cls, params, id=f"{cls.__name__}-{params}")


VARIANTS = list(_variants())


# ----------------------------------------------------------------------------- River's checks


@pytest.mark.parametrize("cls, params", VARIANTS)
def test_river_check_estimator(cls, params):
    checks.check_estimator(cls(**params))


@pytest.mark.parametrize("cls", BOOSTERS)
def test_river_check_estimator_default_parameters(cls):
    checks.check_estimator(cls())


@pytest.mark.parametrize("cls", BOOSTERS)
def test_repr_is_compact_and_clone_keeps_parameters(cls):
    model = cls(n_models=4, seed=3)
    assert repr(model).startswith(cls.__name__ + " (")
    # the repr names the default weak learner, not `model=None`
    assert "model=BoundedHoeffdingTree" in repr(model)
    clone = model.clone()
    assert clone._get_params() == model._get_params()


# ----------------------------------------------------------------------------- probabilities


@pytest.mark.parametrize("cls, params", VARIANTS)
def test_predict_proba_is_a_distribution_over_false_true_and_agrees_with_predict(cls, params):
    model = cls(**params)
    for x, y in phishing(300):
        proba = model.predict_proba_one(x)
        assert set(proba) == {False, True}
        assert math.isclose(sum(proba.values()), 1.0)
        assert 0.0 <= proba[True] <= 1.0
        if getattr(model, "prediction", None) != "random":
            assert model.predict_one(x) == (proba[True] >= 0.5)
        model.learn_one(x, y)


# ----------------------------------------------------------------------------- formulas


def test_online_bbm_probabilities_are_formula_5_normalised_by_the_exact_maximum():
    n, gamma = 5, 0.2
    votes = [1, 1, 0, 1, 0]  # learner i votes True iff its feature is 1
    booster = pool_of_voters(rb.OnlineBBM, [f"h{i}" for i in range(n)], gamma=gamma, min_weight=0.0)
    x = {f"h{i}": v for i, v in enumerate(votes)}
    booster.learn_one(x, False)
    s, g = 0, Fraction(gamma)
    for i, m in enumerate(booster.models, start=1):
        w = lambda s_, i=i: (brute_phi(n, i, s_ - 1, g) - brute_phi(n, i, s_ + 1, g)) / 2  # noqa: E731
        p = float(w(s) / max(w(r) for r in reachable_margins(i)))
        if p == 0:
            assert m.calls == []
        else:  # first call of each learner: the rescaled importance weight is exactly 1
            assert m.calls == [(x, False, pytest.approx(1.0))]
        assert booster.offered[i - 1] == pytest.approx(p, abs=1e-12)
        s += -1 if votes[i - 1] else 1  # y = False: a True vote is wrong


def test_adaboost_ol_follows_algorithm_2():
    """Replay Algorithm 2 by hand with learners whose votes are known."""
    features = ["a", "b", "c"]
    booster = pool_of_voters(rb.AdaBoostOL, features, min_weight=0.0)
    stream = [({"a": a, "b": b, "c": c}, y) for a, b, c, y in itertools.product([0, 1], repeat=4)]
    stream = stream * 3
    alpha, log_v, offered = [0.0] * 3, [0.0] * 3, [0.0] * 3
    for t, (x, y) in enumerate(stream, start=1):
        proba = booster.predict_proba_one(x)
        # deterministic "hedge" prediction: Hedge mixture of sigmoid(F_i)
        v = [math.exp(lv) for lv in log_v]
        f, mix = 0.0, 0.0
        for i, feat in enumerate(features):
            f += alpha[i] * (1 if x[feat] > 0 else -1)
            mix += v[i] / sum(v) / (1 + math.exp(-f))
        assert proba[True] == pytest.approx(mix, rel=1e-12)
        booster.learn_one(x, y)
        eta, sy, s = 4 / math.sqrt(t), (1 if y else -1), 0.0
        for i, feat in enumerate(features):
            z = sy * (1 if x[feat] > 0 else -1)
            offered[i] += 1 / (1 + math.exp(s))
            s_new = s + alpha[i] * z
            log_v[i] -= 1.0 if (s_new < 0 or (s_new == 0 and not y)) else 0.0
            alpha[i] = max(-2.0, min(2.0, alpha[i] + eta * z / (1 + math.exp(s_new))))
            s = s_new
        assert booster.alphas == pytest.approx(alpha, rel=1e-12)
        assert booster.offered == pytest.approx(offered, rel=1e-12)
        top = max(log_v)
        expected_v = [math.exp(lv - top) for lv in log_v]
        assert booster.expert_weights == pytest.approx([e / sum(expected_v) for e in expected_v])
    assert all(-2.0 <= a <= 2.0 for a in booster.alphas)


def test_osboost_weights_follow_chen_lin_lu():
    gamma = 0.2
    booster = pool_of_voters(rb.OSBoost, ["a", "b", "c", "d"], gamma=gamma, min_weight=0.0)
    x = {"a": 1, "b": 1, "c": 0, "d": 1}
    booster.learn_one(x, True)
    theta = gamma / (2 + gamma)
    s, expected = 0.0, []
    for feat in "abcd":
        expected.append(1.0 if s <= 0 else (1 - gamma) ** (s / 2))
        s += (1 if x[feat] else -1) - theta
    assert booster.offered == pytest.approx(expected)


def test_osboost_ocp_follows_chen_lin_lu_algorithm_1():
    """Replay Algorithm 1 of Chen, Lin & Lu (2012) by hand with learners whose votes are
    known: OSBoost's weights, and the vote weights' projected gradient step on the hinge loss
    at theta, the projection by exhaustion in exact fractions; the prediction is the
    alpha-weighted share of True votes."""
    gamma, lr = 0.2, 0.7
    features = ["a", "b", "c"]
    booster = pool_of_voters(
        rb.OSBoostOCP, features, gamma=gamma, learning_rate=lr, min_weight=0.0, deep_scale=1.0
    )
    # b is right 6 times in 10, a and c 4 times
    stream = [
        ({"a": a, "b": b, "c": c}, y)
        for a, b, c, y in itertools.product([0, 1], repeat=4)
        if (b == y or a == c) and not (c == y and a == b)
    ] * 6
    theta = gamma / (2 + gamma)
    alpha, offered = [1 / 3] * 3, [0.0] * 3
    steps = 0
    for t, (x, y) in enumerate(stream, start=1):
        votes = [1 if x[f] > 0 else -1 for f in features]
        f = sum(Fraction(a) * v for a, v in zip(alpha, votes))
        assert booster.predict_proba_one(x)[True] == pytest.approx(float((1 + f) / 2), abs=1e-12)
        assert booster.predict_one(x) == (f >= 0)
        booster.learn_one(x, y)
        sy, s = (1 if y else -1), 0.0
        for i, v in enumerate(votes):
            offered[i] += 1.0 if s <= 0 else (1 - gamma) ** (s / 2)
            s += sy * v - theta
        if sy * f < Fraction(theta):  # the hinge is active: a step, then the projection
            rate = Fraction(lr / math.sqrt(t))
            raw = [Fraction(a) + rate * sy * v for a, v in zip(alpha, votes)]
            alpha = [float(a) for a in brute_simplex_projection(raw)]
            steps += 1
        assert booster.alphas == pytest.approx(alpha, abs=1e-12)
        assert booster.offered == pytest.approx(offered, rel=1e-12)
    assert 0 < steps < len(stream)  # both sides of the margin were met
    assert booster.alphas[1] == max(booster.alphas)  # the best learner weighs most
    assert booster.expert_weights == [0.0, 0.0, 1.0]  # the full weighted vote predicts


def test_edges_follow_the_papers_definition():
    booster = pool_of_voters(rb.OnlineBBM, ["a", "b", "c"], gamma=0.1, min_weight=0.0)
    stream = [({"a": a, "b": 1 - a, "c": 1}, bool(a)) for a in (0, 1)] * 10
    for x, y in stream:
        booster.learn_one(x, y)
    # learner a is always right, b always wrong, c right half the time
    assert booster.edges[0] == pytest.approx(0.5)
    assert booster.edges[1] == pytest.approx(-0.5)
    assert -0.5 < booster.edges[2] < 0.5
    assert booster.alphas == [1.0] * 3
    assert booster.expert_weights == [0.0, 0.0, 1.0]


# ----------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("cls", BOOSTERS)
def test_one_learner_is_the_weak_learner(cls):
    """With n_models=1 the learner is taught every example with weight 1 (OSBoost.OCP: its
    own chain, without the deep one)."""
    single = {"deep_scale": 1.0} if cls is rb.OSBoostOCP else {}
    booster = cls(n_models=1, diversify=False, seed=0, **single)
    reference = tree.HoeffdingTreeClassifier()
    stream = phishing()
    agree = with_opinion = 0
    for t, (x, y) in enumerate(stream):
        x = clean_features(x)  # the booster's canonical feature order, for bit-equal sums
        ref_proba = reference.predict_proba_one(x)
        assert booster.models[0].predict_proba_one(x) == ref_proba
        if ref_proba and ref_proba[True] != 0.5 and t > 50:
            with_opinion += 1
            agree += booster.predict_one(x) == (ref_proba[True] > 0.5)
        booster.learn_one(x, y)
        reference.learn_one(x, y)
    # majority-vote boosters are exactly the learner; AdaBoost.OL is once its alpha is > 0
    assert agree == with_opinion
    if cls is rb.AdaBoostOL:
        assert booster.alphas[0] > 0


# ----------------------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("cls, params", VARIANTS)
def test_same_seed_same_predictions(cls, params):
    a, b = cls(**params), cls(**params)
    for x, y in phishing(400):
        assert a.predict_proba_one(x) == b.predict_proba_one(x)
        assert a.predict_one(x) == b.predict_one(x)
        a.learn_one(x, y)
        b.learn_one(x, y)


def test_different_seeds_give_different_boosters():
    a, b = rb.AdaBoostOL(seed=1), rb.AdaBoostOL(seed=2)
    stream = phishing(400)
    for x, y in stream:
        a.learn_one(x, y)
        b.learn_one(x, y)
    assert [a.predict_proba_one(x) for x, _ in stream] != [
        b.predict_proba_one(x) for x, _ in stream
    ]


@pytest.mark.parametrize("cls, params", VARIANTS)
def test_pickled_mid_stream_predicts_exactly_as_the_original(cls, params):
    model = cls(**params)
    stream = phishing(700)
    for x, y in stream[:350]:
        model.predict_one(x)
        model.learn_one(x, y)
    restored = pickle.loads(pickle.dumps(model))
    for x, y in stream[350:]:
        assert restored.predict_proba_one(x) == model.predict_proba_one(x)
        assert restored.predict_one(x) == model.predict_one(x)
        model.learn_one(x, y)
        restored.learn_one(x, y)
    assert restored.alphas == model.alphas and restored.edges == model.edges


# ----------------------------------------------------------------------------- River integration


@pytest.mark.parametrize("cls", BOOSTERS)
def test_in_a_pipeline_under_progressive_validation(cls):
    model = preprocessing.StandardScaler() | cls(n_models=5, seed=1)
    metric = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    assert metric.get() > 0.85


@pytest.mark.parametrize("cls", BOOSTERS)
def test_sample_weights_reach_the_booster_through_a_pipeline(cls):
    booster = cls(model=FeatureVoter(), n_models=2, diversify=False, min_weight=0.0, seed=0)
    pipeline = compose.Pipeline(preprocessing.StandardScaler(), booster)
    pipeline.learn_one({"a": 1.0}, True, w=0)
    assert booster.n_seen == 0 and booster.models[0].calls == []
    pipeline.learn_one({"a": 1.0}, True, w=3.0)
    assert booster.n_seen == 1
    assert booster.models[0].calls[0][2] == pytest.approx(3.0)  # p rescaled to 1, times w


@pytest.mark.parametrize("cls", BOOSTERS)
def test_bool_numpy_bool_and_int_labels_are_the_same(cls):
    import numpy as np

    runs = []
    for cast in (bool, np.bool_, int):
        model = cls(n_models=3, seed=5)
        out = []
        for x, y in phishing(300):
            out.append(model.predict_proba_one(x))
            model.learn_one(x, cast(y))
        runs.append(out)
    assert runs[0] == runs[1] == runs[2]


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("cls", BOOSTERS)
def test_non_binary_labels_raise_a_clear_error(cls):
    model = cls(n_models=2, seed=0)
    x = {"a": 1.0}
    for y in (2, "spam", None, 0.5):
        with pytest.raises(ValueError, match="binary"):
            model.learn_one(x, y)
    assert model.n_seen == 0


@pytest.mark.parametrize("cls", BOOSTERS)
def test_bad_sample_weights_raise(cls):
    model = cls(n_models=2, seed=0)
    for w in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="weight"):
            model.learn_one({"a": 1.0}, True, w=w)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_non_finite_features_are_treated_as_missing(cls):
    a, b = cls(n_models=3, seed=4), cls(n_models=3, seed=4)
    for t, (x, y) in enumerate(phishing(400)):
        dirty = dict(x)
        if t % 3 == 0:
            dirty["long_url"] = float("nan")
            dirty["bad"] = float("inf")
            clean = {k: v for k, v in x.items() if k != "long_url"}
        else:
            clean = x
        assert a.predict_proba_one(dirty) == b.predict_proba_one(clean)
        a.learn_one(dirty, y)
        b.learn_one(clean, y)
        assert all(math.isfinite(v) for v in a.predict_proba_one(x).values())


@pytest.mark.parametrize("cls", BOOSTERS)
def test_new_and_missing_features_mid_stream(cls):
    model = cls(n_models=3, seed=0)
    for t, (x, y) in enumerate(phishing(300)):
        x = dict(x)
        if t > 100:
            x[f"new_{t % 7}"] = float(t)
        if t > 200:
            x.pop("long_url")
        model.predict_one(x)
        model.learn_one(x, y)
    assert model.predict_one({}) in (True, False)


@pytest.mark.parametrize(
    "cls, kwargs",
    [
        (rb.OnlineBBM, {"gamma": 0.0}),
        (rb.OnlineBBM, {"gamma": 1.0}),
        (rb.OnlineBBM, {"n_models": 0}),
        (rb.OSBoost, {"gamma": -0.1}),
        (rb.OSBoostOCP, {"gamma": 1.0}),
        (rb.OSBoostOCP, {"learning_rate": -1.0}),
        (rb.AdaBoostOL, {"prediction": "best"}),
        (rb.AdaBoostOL, {"learning_rate": 0.0}),
        (rb.AdaBoostOL, {"weighting": "poisson"}),
    ],
)
def test_bad_parameters_raise(cls, kwargs):
    with pytest.raises(ValueError):
        cls(**kwargs)


def test_random_prediction_draws_from_predict_proba():
    model = rb.AdaBoostOL(n_models=4, prediction="random", seed=0)
    stream = phishing(600)
    for x, y in stream[:300]:
        model.learn_one(x, y)
    # make the experts disagree and spread their weights
    for i, alpha in enumerate([1.0, -2.0, 0.5, 2.0]):
        model._engine.ogd.values[i] = alpha
    model._engine.hedge.set_log_weights([0.0, -0.5, -0.2, -1.0])
    x = next(x for x, _ in stream if 0.2 < model.predict_proba_one(x)[True] < 0.8)
    p_true = model.predict_proba_one(x)[True]
    # the draw is seeded: a copy of the booster repeats it
    assert [copy.deepcopy(model).predict_one(x) for _ in range(5)] == [model.predict_one(x)] * 5
    freq = sum(model.predict_one(x) for _ in range(4000)) / 4000
    assert freq == pytest.approx(p_true, abs=0.03)


def test_memory_stays_bounded_on_a_long_stream():
    """No per-example state: the booster's own bookkeeping does not grow with the stream."""
    from river.datasets import synth

    model = rb.OnlineBBM(n_models=3, seed=0, model=FeatureVoter())
    for x, y in synth.SEA(seed=1).take(3000):
        model.learn_one({"a": x[0] - 5}, y)
    size = len(pickle.dumps(model)) - sum(len(pickle.dumps(m)) for m in model.models)
    for x, y in synth.SEA(seed=2).take(20000):
        model.learn_one({"a": x[0] - 5}, y)
    for m in model.models:
        m.calls.clear()
    assert len(pickle.dumps(model)) - sum(len(pickle.dumps(m)) for m in model.models) <= size + 200


@pytest.mark.parametrize("cls", BOOSTERS)
def test_any_river_classifier_can_be_the_weak_learner(cls):
    from river import linear_model, naive_bayes

    for weak, weighting in (
        (linear_model.LogisticRegression(), "importance"),
        (naive_bayes.GaussianNB(), "sampling"),  # learn_one(x, y) without a weight
    ):
        booster = cls(model=weak, n_models=3, weighting=weighting, seed=0)
        model = preprocessing.StandardScaler() | booster
        metric = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
        assert metric.get() > 0.8
    # a learner that takes no weight cannot get importance weights: say so up front
    with pytest.raises(ValueError, match="sampling"):
        cls(model=naive_bayes.GaussianNB(), weighting="importance")


@pytest.mark.parametrize("prediction", ["hedge", "vote", "random"])
def test_a_fresh_adaptive_booster_ties_to_true(prediction):
    """Experts with no opinion: P(True) is exactly 1/2 and the documented tie rule says True."""
    model = rb.AdaBoostOL(n_models=4, prediction=prediction, seed=0)
    x = {"a": 1.0}
    if prediction == "hedge":
        assert model.predict_proba_one(x) == {False: 0.5, True: 0.5}
    assert model.predict_one(x) is True


def _noisy_linear(n, seed):
    rng = random.Random(seed)
    stream = []
    for _ in range(n):
        x = {f: rng.uniform(-1, 1) for f in "abcd"}
        stream.append((x, (x["a"] + 0.5 * x["b"] > 0) != (rng.random() < 0.2)))
    return stream


def test_the_booster_own_chain_is_the_booster_without_a_deep_chain():
    """``deep_scale`` adds a chain; the booster's own chain learns exactly as without it, and
    the deep chain is the same booster whose learners' weights are all scaled."""
    stream = _noisy_linear(400, 4)
    both = rb.OSBoostOCP(n_models=3, deep_scale=3.0, seed=1)
    alone = rb.OSBoostOCP(n_models=3, deep_scale=1.0, seed=1)
    assert alone.deep_chain is None and alone.deep_chain_weight == 0.0
    for x, y in stream:
        both.learn_one(x, y)
        alone.learn_one(x, y)
    assert both.pool.weight_scales == [1.0] * 3
    assert both.deep_chain.pool.weight_scales == [3.0] * 2  # ceil(3 / 2) learners
    # its trees check their size at the same pace per example, with half the size limit
    tree, deep_tree = both.model._get_params(), both.deep_chain.model._get_params()
    assert deep_tree["memory_estimate_period"] == 3.0 * tree["memory_estimate_period"]
    assert deep_tree["max_size"] == tree["max_size"] / 2
    assert both.alphas == alone.alphas and both.edges == alone.edges
    assert [m.n_nodes for m in both.models] == [m.n_nodes for m in alone.models]
    assert both.deep_chain.n_seen == both.n_seen == len(stream)


def test_the_prediction_is_hedge_over_the_two_chains_mistakes():
    """Replayed by hand: each chain's weighted mistakes (its own prediction before it learns)
    and P(True) = (1 - v) P_shallow + v P_deep, v = exp(-eta M_deep) / (exp(-eta M_shallow)
    + exp(-eta M_deep)); the chains themselves driven as boosters of their own."""
    booster = rb.OSBoostOCP(n_models=3, deep_scale=8.0, seed=2)
    shallow, deep = copy.deepcopy(booster), copy.deepcopy(booster.deep_chain)
    shallow._deep = None  # its own chain alone
    eta = booster._deep.eta
    mistakes = [0.0, 0.0]
    rng = random.Random(5)
    stream = _noisy_linear(600, 3)
    for x, y in stream:
        p = [shallow.predict_proba_one(x)[True], deep.predict_proba_one(x)[True]]
        terms = [math.exp(-eta * m) for m in mistakes]
        v = terms[1] / (terms[0] + terms[1])
        expected = (1 - v) * p[0] + v * p[1]
        assert booster.predict_proba_one(x)[True] == pytest.approx(expected, rel=1e-12)
        assert booster.predict_one(x) == (expected >= 0.5)
        w = rng.choice([0.5, 1.0, 2.0])
        for k in range(2):
            mistakes[k] += w if (p[k] >= 0.5) != y else 0.0
        booster.learn_one(x, y, w)
        shallow.learn_one(x, y, w)
        deep.learn_one(x, y, w)
        assert booster._deep.mistakes == pytest.approx(mistakes, rel=1e-12)
    assert 0 < mistakes[0] != mistakes[1] > 0  # the comparison could fail


def test_deep_chain_weight_survives_a_large_lead():
    """A lead of a million mistakes neither overflows nor leaves a NaN."""
    booster = rb.OSBoostOCP(n_models=2, seed=1)
    booster._deep.mistakes = [0.0, 1e6]
    assert booster.deep_chain_weight == 0.0
    booster._deep.mistakes = [1e6, 0.0]
    assert booster.deep_chain_weight == 1.0
    assert booster.predict_proba_one({"a": 1.0}) == booster.deep_chain.predict_proba_one({"a": 1.0})


def test_the_chains_mistakes_fade_once_drift_adaptation_is_armed():
    """After the arming the mistakes fade by 1 - 1/memory per example, like the edges."""
    from river import drift

    booster = rb.OSBoostOCP(n_models=2, seed=1, drift_detector=drift.ADWIN(), memory=50)
    stream = _noisy_linear(200, 6)
    for x, y in stream[:100]:
        booster.learn_one(x, y)
    booster._engine.adapt.armed = True
    booster._engine.act([], [])  # the arming starts the forgetting
    shallow = copy.deepcopy(booster)
    shallow._deep = None  # its own chain alone, in step with the booster's
    faded = 0
    for x, y in stream[100:]:
        before = list(booster._deep.mistakes)
        missed = [
            (chain.predict_proba_one(x)[True] >= 0.5) != y
            for chain in (shallow, booster.deep_chain)
        ]
        booster.learn_one(x, y)
        shallow.learn_one(x, y)
        for k in range(2):
            assert booster._deep.mistakes[k] == pytest.approx(0.98 * before[k] + missed[k])
        faded += before[0] > 0 and not missed[0]
    assert faded > 10


@pytest.mark.parametrize(
    "event", [({"a": 1.0}, "yes", 1.0), ({"a": 1.0}, True, -1.0), ("x", True, 1.0)]
)
def test_a_rejected_event_leaves_both_chains_unchanged(event):
    booster = rb.OSBoostOCP(n_models=3, seed=3)
    for x, y in _noisy_linear(150, 1):
        booster.learn_one(x, y)
    before = pickle.dumps(booster)
    with pytest.raises((ValueError, TypeError)):
        booster.learn_one(*event)
    assert pickle.dumps(booster) == before


def test_two_chains_pickled_mid_stream_predict_as_the_original():
    assert_reproducible_and_restorable(
        lambda: rb.OSBoostOCP(n_models=3, seed=7), _noisy_linear(500, 2), 250
    )


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, True, "3"])
def test_a_deep_scale_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match="deep_scale"):
        rb.OSBoostOCP(deep_scale=bad)


@pytest.mark.parametrize(
    "cls",
    [rb.PotentialBooster, rb.OnlineBBM, rb.NHBoostDT, rb.SquintBoost, rb.OSBoost, rb.AdaBoostOL],
    ids=lambda c: c.__name__,
)
def test_every_binary_preset_takes_a_deep_chain(cls):
    """deep_scale on any preset: a second chain of the same preset, half as long, its weights
    scaled, with its own diagnostics; the booster's probabilities are Hedge's mixture of the
    two chains', and a pickle taken mid-stream goes on identically."""
    args = (potentials.BinomialPotential(n_models=5, gamma=0.1),)
    args = args if cls is rb.PotentialBooster else ()
    booster = cls(*args, n_models=5, deep_scale=4.0, seed=3)
    deep = booster.deep_chain
    assert type(deep) is cls and deep.n_models == 3 and deep.deep_chain is None
    assert deep.pool.weight_scales == [4.0] * 3
    stream = phishing(400)
    for x, y in stream[:250]:
        booster.learn_one(x, y)
    assert deep.n_seen == booster.n_seen == 250
    assert 0.0 < booster.deep_chain_weight < 1.0
    x = stream[250][0]
    v = booster.deep_chain_weight
    mixed = booster.predict_proba_one(x)
    own, other = booster._engine.predict_proba_one(x), deep.predict_proba_one(x)
    assert mixed[True] == pytest.approx((1 - v) * own[True] + v * other[True])
    twin = pickle.loads(pickle.dumps(booster))
    for x, y in stream[250:]:
        assert twin.predict_proba_one(x) == booster.predict_proba_one(x)
        twin.learn_one(x, y)
        booster.learn_one(x, y)
