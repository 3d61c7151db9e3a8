"""The online adaptive martingale booster: its parts, its extreme cases, River conventions."""

from __future__ import annotations

import math
import pickle
import random

import pytest
from river import checks, datasets, evaluate, metrics

import river_boost as rb
from river_boost.martingale import _Node, balance, freezing_threshold, round_to_grid

from ..helpers import FeatureVoter, assert_reproducible_and_restorable, phishing

# ----------------------------------------------------------------------------- the parts


@pytest.mark.parametrize("target, step", [(0.35, 0.1), (-0.77, 0.3), (0.0, 0.05), (2.0, 0.5)])
def test_randomised_rounding_is_unbiased(target, step):
    """Averaged over a uniform grid of coins, the rounded position is exactly the target."""
    n = 100_000
    mean = sum(round_to_grid(target, step, (k + 0.5) / n) for k in range(n)) / n * step
    assert mean == pytest.approx(target, abs=step / n * 2)
    # and it only ever lands on the two neighbouring grid points
    lo = math.floor(target / step)
    assert {round_to_grid(target, step, u / 10) for u in range(10)} <= {lo, lo + 1}


def test_balancing_gives_two_sided_advantage_on_a_skewed_toy_distribution():
    """A hypothesis that says "True" on almost everything (one-sided) becomes two-sided."""
    rng = random.Random(0)
    h_pos = [min(1.0, 0.9 + 0.1 * rng.random()) for _ in range(500)]  # confident on positives
    h_neg = [0.3 + 0.2 * rng.random() for _ in range(500)]  # still positive on negatives
    assert sum(h_neg) / 500 > 0  # one-sided: negatives are called positive on average
    m = (sum(h_pos) / 500 + sum(h_neg) / 500) / 2  # mean under the balanced distribution
    adv_pos = sum(balance(h, m) for h in h_pos) / 500
    adv_neg = -sum(balance(h, m) for h in h_neg) / 500
    assert adv_pos > 0.1 and adv_neg > 0.1
    assert adv_pos == pytest.approx(adv_neg, rel=1e-9)  # Lemma 7: the same on both sides
    # the node's closed form agrees
    node = _Node(0.0, None, memory=10**9)
    node.mean_h, node.n_h = [sum(h_neg) / 500, sum(h_pos) / 500], [500, 500]
    assert node.advantage(min_samples=1) == pytest.approx(adv_pos, rel=1e-9)
    assert all(-1.0 <= balance(h, m) <= 1.0 for h in (-1.0, 0.0, 1.0))


def test_nodes_train_on_class_balanced_weights():
    booster = rb.MartingaleBooster(model=FeatureVoter(), n_levels=1, seed=0)
    rng = random.Random(1)
    for _ in range(4000):
        booster.learn_one({"a": rng.random()}, rng.random() < 0.9)  # 90% True
    calls = booster._levels[0][0].model.calls
    total = {y: sum(w for _, label, w in calls if label == y) for y in (True, False)}
    assert total[True] == pytest.approx(total[False], rel=0.1)
    assert sum(w for *_, w in calls) == pytest.approx(len(calls), rel=0.1)  # mean weight ~1


def test_unbalanced_training_feeds_the_nodes_examples_as_they_come():
    """train_balanced=False: the learner gets each example's own weight; the hypothesis is
    still balanced against the node's class means, so it stays two-sided."""
    booster = rb.MartingaleBooster(model=FeatureVoter(), n_levels=1, train_balanced=False, seed=0)
    rng = random.Random(1)
    for _ in range(4000):
        y = rng.random() < 0.9  # 90% True; the feature is informative
        booster.learn_one({"a": rng.uniform(0.2, 1.0) if y else rng.uniform(-1.0, 0.4)}, y, w=0.5)
    node = booster._levels[0][0]
    assert {w for *_, w in node.model.calls} == {0.5}
    assert node.counts == pytest.approx([0.5 * node.n_h[0], 0.5 * node.n_h[1]])
    advantage = node.advantage(min_samples=1)
    m = node.balanced_mean()
    assert advantage > 0.1
    # two-sided: the balanced hypothesis moves positives up and negatives down equally
    assert node.mean_h[1] > m > node.mean_h[0]


def test_freezing_threshold_is_the_formula():
    gammas, eps = [0.3, 0.2, 0.1], 0.05
    t = 3
    expected = math.sqrt(8 * (0.09 + 0.04 + 0.01) * (2 * math.log(t) + math.log(4 / eps)))
    assert freezing_threshold(gammas, eps) == pytest.approx(expected, rel=1e-12)
    assert freezing_threshold([], eps) == math.inf
    assert freezing_threshold([0.5], 0.1) == pytest.approx(math.sqrt(8 * 0.25 * math.log(40)))


def test_nodes_beyond_the_threshold_are_frozen_stop_examples_and_never_learn():
    booster = rb.MartingaleBooster(model=FeatureVoter(), n_levels=3, epsilon=0.1, seed=0)
    booster._steps = [0.5, 0.5]  # as if two levels had committed gamma = 0.5
    threshold = freezing_threshold([0.5, 0.5], 0.1)  # 4.5056
    assert booster._new_node(threshold + 0.01, 2).frozen
    assert not booster._new_node(threshold - 0.01, 2).frozen
    assert not booster._new_node(100.0, 0).frozen  # nothing freezes at the root
    # an example routed to a frozen node stops there and is classified by sign(position)
    booster._levels = [{0: booster._new_node(0.0, 0)}, {}, {}]
    booster._level_seen = [0, 0, 0]
    # the root moves examples by +-0.5 onto grid keys +-2 (multiples of 0.25): freeze those,
    # with positions far out so that their answers are recognisable
    booster._levels[1][-2] = _Node(-7.0, None, memory=10)
    booster._levels[1][2] = _Node(7.0, None, memory=10)
    for a in (0.3, -0.4, 0.9):
        booster.learn_one({"a": a}, a > 0)
    assert booster._level_seen == [3, 3, 0]
    final = booster._walk({"a": 0.5})
    assert all(abs(position) == 7.0 for position, _ in final)


def test_freezing_invariant_holds_on_a_stream():
    booster = rb.MartingaleBooster(
        n_levels=6, epsilon=0.9, grace_period=50, min_node_samples=5, seed=0
    )
    for x, y in phishing():
        booster.learn_one(x, y)
    for t, level in enumerate(booster._levels):
        threshold = freezing_threshold(booster._steps[:t], booster.epsilon)
        for node in level.values():
            assert node.frozen == (abs(node.position) > threshold)
            assert node.frozen == (node.model is None)


def test_committed_steps_never_change():
    booster = rb.MartingaleBooster(n_levels=6, grace_period=100, min_node_samples=10, seed=3)
    stream = phishing()
    seen_steps = []
    for x, y in stream:
        booster.learn_one(x, y)
        steps = list(booster._steps)
        assert steps[: len(seen_steps)] == seen_steps
        seen_steps = steps
    assert len(seen_steps) >= 2
    assert all(booster.gamma_min <= g <= 1.0 for g in booster.gammas)


# ----------------------------------------------------------------------------- extreme cases


@pytest.mark.parametrize("prediction", ["calibrated", "sign"])
def test_a_perfect_weak_learner_is_perfect_after_one_level(prediction):
    booster = rb.MartingaleBooster(model=FeatureVoter(), n_levels=1, prediction=prediction, seed=0)
    rng = random.Random(4)
    stream = [({"a": a}, a > 0) for a in (rng.uniform(-1, 1) for _ in range(600))]
    for x, y in stream[:100]:
        booster.learn_one(x, y)
    assert all(booster.predict_one(x) == y for x, y in stream[100:])


def test_pure_noise_weak_learners_do_no_better_than_chance_and_stay_small():
    booster = rb.MartingaleBooster(
        model=FeatureVoter("noise"), n_levels=6, grace_period=100, min_node_samples=10, seed=0
    )
    rng = random.Random(5)
    acc = metrics.Accuracy()
    for _ in range(4000):
        x, y = {"noise": rng.uniform(-1, 1)}, rng.random() < 0.5
        acc.update(y, booster.predict_one(x))
        booster.learn_one(x, y)
    assert abs(acc.get() - 0.5) < 0.04
    gammas = booster.gammas
    for t, count in enumerate(booster.n_nodes[1:], start=1):
        bound = 6 * sum(gammas[:t]) / booster.gamma_min + 2
        assert count <= bound


# ----------------------------------------------------------------------------- River conventions


def _params():
    return list(rb.MartingaleBooster._unit_test_params()) + [{"seed": 7}]


@pytest.mark.parametrize("params", _params())  # the defaults, seeded: runs are reproducible
def test_river_check_estimator(params):
    checks.check_estimator(rb.MartingaleBooster(**params))


def test_in_a_pipeline_under_progressive_validation():
    from river import preprocessing

    model = preprocessing.StandardScaler() | rb.MartingaleBooster(n_levels=4, seed=1)
    acc = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    assert acc.get() > 0.85


@pytest.mark.parametrize("params", _params())
def test_same_seed_same_run_and_pickling_mid_stream(params):
    make = lambda: rb.MartingaleBooster(**params)  # noqa: E731
    a, restored = assert_reproducible_and_restorable(make, phishing(600), 300)
    assert restored.n_nodes == a.n_nodes and restored.gammas == a.gammas


def test_prediction_has_no_side_effects_and_covers_both_classes_before_learning():
    booster = rb.MartingaleBooster(seed=0)
    assert set(booster.predict_proba_one({"a": 1.0})) == {False, True}
    stream = phishing(300)
    for x, y in stream:
        booster.learn_one(x, y)
    state = pickle.dumps(booster)
    for x, _ in stream[:50]:
        booster.predict_proba_one(x)
        booster.predict_one(x)
    assert pickle.loads(state).n_nodes == booster.n_nodes
    assert [pickle.loads(state).predict_proba_one(x) for x, _ in stream[:20]] == [
        booster.predict_proba_one(x) for x, _ in stream[:20]
    ]


def test_bad_input():
    booster = rb.MartingaleBooster(seed=0)
    with pytest.raises(ValueError):
        booster.learn_one({"a": 1.0}, "yes")
    for w in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            booster.learn_one({"a": 1.0}, True, w=w)
    booster.learn_one({"a": 1.0}, True, w=0.0)  # a no-op
    assert booster.n_nodes == [1] and booster._level_seen == [0]
    booster.learn_one({"a": float("nan"), "b": float("inf"), "c": 2.0}, True)  # non-finite: missing
    assert 0.0 <= booster.predict_proba_one({"a": float("nan")})[True] <= 1.0
    for kwargs in (
        {"n_levels": 0},
        {"epsilon": 0.0},
        {"gamma_min": 0.0},
        {"prediction": "x"},
        {"step_rule": "median"},
        {"grace_period": 0},
    ):
        with pytest.raises(ValueError):
            rb.MartingaleBooster(**kwargs)


def test_learners_without_sample_weights_are_trained_by_replication():
    from river import naive_bayes, preprocessing

    model = preprocessing.StandardScaler() | rb.MartingaleBooster(
        model=naive_bayes.GaussianNB(), n_levels=3, seed=0
    )
    acc = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    assert acc.get() > 0.8
