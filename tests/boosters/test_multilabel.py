"""Multi-label ranking: Ada.OLMR, the ranking metrics and the evaluation helper."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from river import base, checks, datasets, tree

import river_boost as rb
from river_boost.metrics import AveragePrecision, Coverage, OneError, RankLoss, evaluate_ranking
from river_boost.multilabel import logistic_rank_gradient, rank_loss

from ..helpers import assert_reproducible_and_restorable

# River's multi-label checks stream datasets.Music, which is downloaded on first use. The test
# suite must run offline, so the checks get River's bundled multi-label set (Yeast) instead:
# substituted here, at import time, for the whole test session.
datasets.Music = datasets.Yeast


def yeast(n):
    return list(itertools.islice(datasets.Yeast(), n))


def fast_tree():
    """Majority-class leaves: cheap on Yeast's 103 features (these tests check mechanics)."""
    return tree.HoeffdingTreeClassifier(leaf_prediction="mc", grace_period=50)


# ----------------------------------------------------------------------------- metrics by hand


def test_rank_loss_by_hand_with_ties():
    metric = RankLoss()
    # relevant a, c; irrelevant b, d. Pairs: (a,b) ok, (a,d) ok, (c,b) tie 1/2, (c,d) wrong
    metric.update({"a": True, "b": False, "c": True, "d": False}, {"a": 4, "b": 2, "c": 2, "d": 3})
    assert metric.get() == pytest.approx(1.5 / 4)
    # a second row, perfect: the mean over rows
    metric.update({"a": True, "b": False}, {"a": 1.0, "b": 0.0})
    assert metric.get() == pytest.approx((1.5 / 4 + 0.0) / 2)
    # rows with no pair are skipped and counted
    metric.update({"a": False, "b": False}, {"a": 1.0, "b": 0.0})
    metric.update({"a": True, "b": True}, {"a": 1.0, "b": 0.0})
    assert metric.n_skipped == 2 and metric.get() == pytest.approx(1.5 / 8)
    assert rank_loss([4, 2, 2, 3], [True, False, True, False]) == pytest.approx(1.5 / 4)
    assert math.isnan(rank_loss([1.0, 2.0], [True, True]))


def test_rank_loss_reads_probabilities_and_missing_labels():
    metric = RankLoss()
    y_pred = {"a": {False: 0.2, True: 0.8}, "b": {False: 0.6, True: 0.4}}
    metric.update({"a": False, "b": True, "c": True}, y_pred)  # c unscored: ranked last
    # pairs (b, a): wrong; (c, a): wrong
    assert metric.get() == pytest.approx(1.0)


def test_one_error_coverage_average_precision_by_hand():
    y = {"a": True, "b": False, "c": True, "d": False}
    s = {"a": 1.0, "b": 4.0, "c": 3.0, "d": 2.0}  # ranking b, c, d, a
    one, cov, ap = OneError(), Coverage(), AveragePrecision()
    for m in (one, cov, ap):
        m.update(y, s)
    assert one.get() == 1.0  # b is on top and irrelevant
    assert cov.get() == 3.0  # a is 4th
    assert ap.get() == pytest.approx((1 / 2 + 2 / 4) / 2)  # c at rank 2, a at rank 4
    tie = OneError()
    tie.update({"a": True, "b": False}, {"a": 1.0, "b": 1.0})
    assert tie.get() == 0.5
    assert OneError().bigger_is_better is False and AveragePrecision().bigger_is_better


def test_metrics_revert():
    metric = RankLoss()
    metric.update({"a": True, "b": False}, {"a": 0.0, "b": 1.0})
    metric.update({"a": True, "b": False}, {"a": 1.0, "b": 0.0})
    metric.revert({"a": True, "b": False}, {"a": 1.0, "b": 0.0})
    assert metric.get() == 1.0


# ----------------------------------------------------------------------------- the math


def test_logistic_rank_gradient_is_the_gradient():
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = int(rng.integers(2, 7))
        s = rng.normal(size=k) * 2
        rel = rng.random(k) < 0.4
        if rel.all() or not rel.any():
            continue

        def loss(v, rel=rel):
            d = v[~rel][None, :] - v[rel][:, None]
            return float(np.log1p(np.exp(d)).sum() / d.size)

        eps = 1e-6
        numeric = [(loss(s + eps * e) - loss(s - eps * e)) / (2 * eps) for e in np.eye(k)]
        grad = logistic_rank_gradient(s, rel)
        assert grad == pytest.approx(numeric, abs=1e-8)
        assert grad.sum() == pytest.approx(0.0, abs=1e-12)
        assert (grad[rel] < 0).all() and (grad[~rel] > 0).all()


# ----------------------------------------------------------------------------- River conventions


BOOSTERS = [rb.AdaOLMR, rb.OnlineBMR]


def _variants():
    return [
        pytest.param(cls, params, id=f"{cls.__name__}-{params}")
        for cls in BOOSTERS
        for params in cls._unit_test_params()
    ]


@pytest.mark.parametrize("cls, params", _variants())
def test_river_check_estimator(cls, params):
    checks.check_estimator(cls(**params))


@pytest.mark.parametrize("cls, params", _variants())
def test_seeds_and_pickling_mid_stream(cls, params):
    assert_reproducible_and_restorable(lambda: cls(**params), yeast(120), 60)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_probabilities_order_labels_as_the_scores_and_predict_a_sensible_set(cls):
    model = cls(model=fast_tree(), n_models=4, seed=0)
    stream = yeast(400)
    for x, y in stream[:300]:
        model.learn_one(x, y)
    mean_count = np.mean([sum(y.values()) for _, y in stream[:300]])
    sizes = []
    for x, _y in stream[300:]:
        scores, proba, pred = model.score_one(x), model.predict_proba_one(x), model.predict_one(x)
        assert isinstance(model, base.MultiLabelClassifier)
        assert set(scores) == set(proba) == set(pred) == set(model.labels)
        by_score = sorted(scores, key=lambda l: scores[l])
        p_true = [proba[l][True] for l in by_score]
        assert p_true == sorted(p_true)  # same order
        assert all(pred[l] == (proba[l][True] >= 0.5) for l in pred)
        sizes.append(sum(pred.values()))
    assert abs(np.mean(sizes) - mean_count) < 1.0  # about as many labels as the stream has
    assert 0 < np.mean(sizes) < len(model.labels)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_labels_join_mid_stream_and_missing_keys_are_irrelevant(cls):
    model = cls(n_models=2, seed=0)
    model.learn_one({"x": 1.0}, {"a": True, "b": False})
    assert model.labels == ["a", "b"]
    model.learn_one({"x": 2.0}, {"c": True})  # a, b missing: irrelevant; c joins
    assert model.labels == ["a", "b", "c"]
    assert set(model.predict_one({"x": 1.5})) == {"a", "b", "c"}


@pytest.mark.parametrize("cls", BOOSTERS)
def test_empty_and_full_label_sets_teach_nothing_but_are_counted(cls):
    model = cls(n_models=2, seed=0)
    model.learn_one({"x": 1.0}, {"a": False, "b": False})
    model.learn_one({"x": 1.0}, {"a": True, "b": True})
    assert model.n_skipped == 2 and model.n_seen == 0 and model.learner_updates == [0, 0]
    model.learn_one({"x": 1.0}, {"a": True, "b": False})
    assert model.n_seen == 1


@pytest.mark.parametrize("cls", BOOSTERS)
def test_bad_input(cls):
    model = cls(n_models=2, seed=0)
    with pytest.raises(ValueError, match="dict"):
        model.learn_one({"x": 1.0}, "a")
    with pytest.raises(ValueError):
        model.learn_one({"x": 1.0}, {"a": "maybe"})
    with pytest.raises(ValueError):
        model.learn_one({"x": 1.0}, {"a": True}, w=-1.0)
    assert model.predict_one({"x": 1.0}) == {} or set(model.predict_one({"x": 1.0})) == {"a"}
    model.learn_one({"x": float("nan")}, {"a": True, "b": False})  # NaN: a missing feature
    with pytest.raises(ValueError):
        rb.AdaOLMR(prediction="best")
    for kwargs in ({"gamma": 0.0}, {"gamma": 1.0}, {"loss": "square"}):
        with pytest.raises(ValueError):
            rb.OnlineBMR(**kwargs)


# ----------------------------------------------------------------------------- the reduction


class OneHotVoter(base.Classifier):
    """Votes one label with certainty: ``labels[0]`` if ``x[feature] > 0`` else ``labels[1]``."""

    _multiclass = True  # accepts any label

    def __init__(self, feature="f0", labels=("a", "b")):
        self.feature = feature
        self.labels = labels

    def learn_one(self, x, y, w=1.0):
        pass

    def predict_proba_one(self, x):
        return {self.labels[0] if x.get(self.feature, 0) > 0 else self.labels[1]: 1.0}


def test_with_one_relevant_label_of_two_ada_olmr_is_adaboost_olm():
    """Jung & Tewari's surrogate with |Y| = 1 is Jung et al.'s multiclass logistic loss divided
    by k - 1, so with two labels (and weak learners that vote one label) Ada.OLMR makes
    AdaBoost.OLM's steps with learning_rate = 1: the same alphas, the same weights handed to
    the learners and the same edges. (Hedge differs only on exact ties: rank loss counts a tie
    1/2 where AdaBoost.OLM's argmax breaks it.)"""
    features = ["f0", "f1", "f2"]

    def build(cls, **kw):
        booster = cls(
            model=OneHotVoter(), n_models=3, diversify=False, min_weight=0.0, seed=0, **kw
        )
        for m, f in zip(booster.models, features):
            m.feature = f
        return booster

    olmr = build(rb.AdaOLMR)
    olm = build(rb.AdaBoostOLM, classes=("a", "b"), learning_rate=1.0, weak_prediction="argmax")
    rng = random.Random(0)
    for _ in range(300):
        x = {f: rng.uniform(-1, 1) for f in features}
        label = "a" if x["f0"] + 0.5 * x["f1"] + rng.gauss(0, 0.3) > 0 else "b"
        olmr.learn_one(x, {"a": label == "a", "b": label == "b"})
        olm.learn_one(x, label)
        assert olmr.alphas == pytest.approx(olm.alphas, rel=1e-12, abs=1e-15)
        assert olmr.offered == pytest.approx(olm.offered, rel=1e-12)
    assert olmr.edges == pytest.approx(olm.edges, rel=1e-9)


# ----------------------------------------------------------------------------- evaluation helper


def test_evaluate_ranking_train_then_test_while_learning():
    model = rb.AdaOLMR(model=fast_tree(), n_models=3, seed=1)
    stream = yeast(300)
    metrics_ = evaluate_ranking(stream[200:], model, [RankLoss(), OneError()], train=stream[:200])
    assert model.n_seen == 300
    assert 0.0 < metrics_[0].get() < 0.4 and 0.0 <= metrics_[1].get() <= 1.0
    assert metrics_[0].n_scored == 100


# ----------------------------------------------------------------------------- OnlineBMR potentials


def _brute_potential(pot, s, rel, n):
    """(1) by enumerating every sequence of n baseline draws."""
    k, n_rel = len(s), sum(rel)
    p_rel, p_irr = pot.baseline(n_rel, k)
    u = [p_rel if r else p_irr for r in rel]
    total = 0.0
    for seq in itertools.product(range(k), repeat=n):
        prob = math.prod(u[j] for j in seq)
        v = list(s)
        for j in seq:
            v[j] += 1
        loss = 0.0
        for l, r in itertools.product(range(k), repeat=2):
            if rel[l] and not rel[r]:
                g = v[r] - v[l]
                if pot.loss == "hinge":
                    loss += max(0.0, 1.0 + g)
                else:
                    loss += 1.0 if g > 0 else 0.5 if g == 0 else 0.0
        total += prob * loss / (n_rel * (k - n_rel))
    return total


@pytest.mark.parametrize("loss", ["rank", "hinge"])
def test_exact_pair_potentials_equal_brute_force_enumeration(loss):
    from river_boost.potentials import RankingPairPotential

    rng = np.random.default_rng(1)
    pot = RankingPairPotential(0.15, loss)
    checked = 0
    while checked < 40:
        k, n = int(rng.integers(2, 5)), int(rng.integers(0, 6))
        rel = [bool(v) for v in rng.random(k) < 0.5]
        if all(rel) or not any(rel):
            continue
        # integer scores (single-label votes) for the rank loss, real ones for the hinge loss
        s = rng.integers(-2, 3, size=k).astype(float) if loss == "rank" else rng.normal(size=k)
        assert pot.value(s, rel, n) == pytest.approx(_brute_potential(pot, s, rel, n), abs=1e-12)
        # the cost vector (2): c[l] = phi(s + e_l), against the direct (slow) formula
        c = pot.cost_vector(s, rel, n)
        for j in range(k):
            e = np.eye(k)[j]
            assert c[j] == pytest.approx(_brute_potential(pot, s + e, rel, n), abs=1e-12)
        checked += 1


def test_pair_potential_cache_is_bounded_and_not_pickled():
    import pickle

    from river_boost.engine import _costs
    from river_boost.potentials import RankingPairPotential

    pot = RankingPairPotential(0.1, cache_size=5)
    costs = _costs.PairCosts(pot, 20)  # the engine's cost object keeps the laws
    for n in range(20):
        costs.pair_terms([0.0, 1.0], n, 1, 3)
    assert len(costs.known) == 5 and not hasattr(pot, "_cache")
    assert len(pickle.loads(pickle.dumps(costs)).known) == 0


def test_hinge_weights_stay_within_the_papers_bound():
    """max(c) - min(c) <= 2 for hinge potentials (the paper's appendix), over random states."""
    from river_boost.potentials import RankingPairPotential

    rng = np.random.default_rng(2)
    pot = RankingPairPotential(0.1, "hinge")
    for _ in range(300):
        k = int(rng.integers(2, 8))
        rel = rng.random(k) < 0.4
        if rel.all() or not rel.any():
            continue
        c = pot.cost_vector(rng.normal(size=k) * 3, rel, int(rng.integers(0, 30)))
        assert c.max() - c.min() <= 2.0 + 1e-12
        assert c[rel].max() <= c[~rel].min() + 1e-12  # relevant labels cost less (proper loss)


@pytest.mark.parametrize("with_ties", [False, True])
def test_ranking_metrics_against_scikit_learn(with_ties):
    """Our conventions, stated in the docs, against scikit-learn's on random scores."""
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    Y = rng.random((400, 6)) < 0.4
    Y[Y.sum(axis=1) == 0, 0] = True  # every row has a relevant label
    S = rng.random((400, 6))
    if with_ties:
        S = np.round(S * 3) / 3
    ours = [RankLoss(), RankLoss(ties="wrong"), Coverage(), AveragePrecision()]
    for y, s in zip(Y, S):
        for m in ours:
            m.update({j: bool(v) for j, v in enumerate(y)}, {j: float(v) for j, v in enumerate(s)})
    pairs = Y.sum(axis=1) < Y.shape[1]  # scikit-learn counts rows without a pair as 0
    half, wrong, coverage, ap = (m.get() for m in ours)
    assert wrong == pytest.approx(sk.label_ranking_loss(Y[pairs], S[pairs]), abs=1e-12)
    assert (half < wrong) if with_ties else (half == pytest.approx(wrong, abs=1e-12))
    assert coverage == pytest.approx(sk.coverage_error(Y, S) - 1, abs=1e-12)
    assert ap == pytest.approx(sk.label_ranking_average_precision_score(Y, S), abs=1e-12)
    with pytest.raises(ValueError, match="ties"):
        RankLoss(ties="ignore")


# ----------------------------------------------------------------------------- deep chains


def _chains(booster):
    """Copies of a deep-chained booster's two chains, each alone (``deep_scale``)."""
    import copy

    shallow, deep = copy.deepcopy(booster), copy.deepcopy(booster.deep_chain)
    shallow._deep = None  # its own chain alone
    return shallow, deep


def _true_scores(proba, y):
    """Each label's True probability and relevance, labels the prediction lacks scoring
    lowest (as RankLoss reads them)."""
    labels = [*proba, *(c for c in y if c not in proba)]
    scores = [proba[c][True] if c in proba else -math.inf for c in labels]
    return scores, [bool(y.get(c, False)) for c in labels]


@pytest.mark.parametrize("cls", BOOSTERS)
def test_a_deep_chained_ranker_mixes_the_chains_by_hedge_over_their_rank_losses(cls):
    """``deep_scale`` on a ranker: replayed by hand, each label's probability of relevance is
    (1 - v) P_shallow + v P_deep with v from the chains' weighted rank losses before learning
    (label sets without a (relevant, irrelevant) pair teach Hedge nothing); score_one is that
    True probability and predict_one the labels at 1/2 or above."""
    booster = cls(model=fast_tree(), n_models=3, deep_scale=4.0, seed=5)
    deep = booster.deep_chain
    assert type(deep) is cls and deep.n_models == 2 and deep.deep_chain is None
    assert deep.pool.weight_scales == [4.0, 4.0] and booster.pool.weight_scales == [1.0] * 3
    assert booster._get_params()["deep_scale"] == 4.0 and deep._get_params()["deep_scale"] == 1.0
    shallow, deep = _chains(booster)
    eta, losses = booster._deep.eta, [0.0, 0.0]
    rng = random.Random(3)
    stream = yeast(250)
    stream[10] = (stream[10][0], {label: False for label in stream[10][1]})  # no pair
    fractional = 0
    for x, y in stream:
        ps, pd = shallow.predict_proba_one(x), deep.predict_proba_one(x)
        terms = [math.exp(-eta * m) for m in losses]
        v = terms[1] / (terms[0] + terms[1])
        assert booster.deep_chain_weight == pytest.approx(v, rel=1e-12)
        expected = {c: {b: (1 - v) * ps[c][b] + v * pd[c][b] for b in (False, True)} for c in ps}
        got = booster.predict_proba_one(x)
        assert list(got) == list(expected) == list(pd)
        for c in expected:
            assert got[c] == pytest.approx(expected[c], rel=1e-12, abs=1e-15)
        assert booster.score_one(x) == {c: got[c][True] for c in got}
        assert booster.predict_one(x) == {c: got[c][True] >= 0.5 for c in got}
        w = rng.choice([0.5, 1.0, 2.0])
        row = [rank_loss(*_true_scores(p, y)) for p in (ps, pd)]
        if not math.isnan(row[0]):
            losses = [m + w * loss for m, loss in zip(losses, row)]
            fractional += any(0.0 < loss < 1.0 for loss in row)
        booster.learn_one(x, y, w)
        shallow.learn_one(x, y, w)
        deep.learn_one(x, y, w)
        assert booster._deep.mistakes == pytest.approx(losses, rel=1e-12)
    assert booster.labels == shallow.labels == booster.deep_chain.labels
    assert booster.n_seen == booster.deep_chain.n_seen == 249  # one row without a pair
    assert fractional > 100  # real rank losses, not 0/1 mistakes
    assert losses[0] != losses[1] and 0.0 < booster.deep_chain_weight < 1.0


class Contrarian(OneHotVoter):
    """Votes the label :class:`OneHotVoter` does not: always wrong where it is always right."""

    def predict_proba_one(self, x):
        return {self.labels[1] if x.get(self.feature, 0) > 0 else self.labels[0]: 1.0}


class Silent(OneHotVoter):
    """Has no opinion: its vote is uniform, so that a chain of them ties every label."""

    def predict_proba_one(self, x):
        return {}


# AdaOLMR would learn negative vote weights for contrarians (and rank right): its bad chain
# ties every pair instead (rank loss 1/2 on every example)
@pytest.mark.parametrize(
    "cls, bad", [(rb.OnlineBMR, Contrarian), (rb.OnlineBMR, Silent), (rb.AdaOLMR, Silent)]
)
@pytest.mark.parametrize("wrong", ["deep", "shallow"])
def test_a_chain_that_ranks_every_example_wrong_loses_hedge_weight(cls, bad, wrong):
    """Label ``a`` is relevant exactly when ``f0 > 0``: a chain of right voters ranks the
    examples right, one of contrarians ranks them the wrong way round (one of silent voters
    ties them), and Hedge moves the prediction to the right chain, whichever of the two it
    is."""
    own, other = (OneHotVoter, bad) if wrong == "deep" else (bad, OneHotVoter)
    booster = cls(model=own(), n_models=3, deep_scale=4.0, diversify=False, seed=0)
    booster._deep.chain = cls(model=other(), n_models=2, diversify=False, seed=0)
    rng = random.Random(1)
    stream = []
    for _ in range(200):
        f0 = rng.choice([-1.0, 1.0])
        stream.append(({"f0": f0}, {"a": f0 > 0, "b": f0 <= 0}))
    for x, y in stream:
        booster.learn_one(x, y)
    m_shallow, m_deep = booster._deep.mistakes
    right, wrong_chain = (m_shallow, m_deep) if wrong == "deep" else (m_deep, m_shallow)
    assert right <= 1.0 and wrong_chain >= (199 if bad is Contrarian else 99.5)
    v = booster.deep_chain_weight
    assert (v < 0.01) if wrong == "deep" else (v > 0.99)
    for x, y in stream[:10]:
        assert booster.predict_one(x) == y
        scores = booster.score_one(x)
        assert y[max(scores, key=scores.get)]


@pytest.mark.parametrize("cls", BOOSTERS)
def test_a_deep_chained_ranker_rejects_a_bad_event_before_anything_changes(cls):
    import pickle

    booster = cls(model=fast_tree(), n_models=3, deep_scale=4.0, seed=1)
    stream = yeast(160)
    for x, y in stream[:60]:
        booster.learn_one(x, y)
    before = pickle.dumps(booster)
    x = stream[60][0]
    bad_events = [
        ("a", 1.0),  # not a dict
        ({"label1": "maybe"}, 1.0),  # not a bool
        ({"label1": True, 3: False}, 1.0),  # 3 cannot be ordered with the string labels
        ({"label1": True, "new": False}, -1.0),  # a negative weight, and a new label
        ({"label1": True, "new": False}, float("nan")),
    ]
    for y, w in bad_events:
        with pytest.raises((ValueError, TypeError)):
            booster.learn_one(x, y, w)
    assert pickle.dumps(booster) == before
    assert "new" not in booster.labels and "new" not in booster.deep_chain.labels
    restored = pickle.loads(before)
    for x, y in stream[60:]:
        assert restored.predict_proba_one(x) == booster.predict_proba_one(x)
        assert restored.score_one(x) == booster.score_one(x)
        restored.learn_one(x, y)
        booster.learn_one(x, y)
    assert restored._deep.mistakes == booster._deep.mistakes


@pytest.mark.parametrize("cls", BOOSTERS)
def test_a_deep_chained_ranker_clones_and_copies_mid_stream(cls):
    """``clone()`` is a fresh booster of the same parameters (the deep chain included);
    ``clone(include_attributes=True)`` and a pickle go on exactly as the original."""
    import pickle

    booster = cls(model=fast_tree(), n_models=3, deep_scale=12.0, seed=2)
    stream = yeast(160)
    for x, y in stream[:80]:
        booster.learn_one(x, y)
    fresh = booster.clone()
    assert fresh._get_params()["deep_scale"] == 12.0 and fresh.n_seen == 0
    assert fresh.deep_chain is not None and fresh.deep_chain.n_seen == 0
    assert "deep_scale=12." in repr(booster)
    copies = [booster.clone(include_attributes=True), pickle.loads(pickle.dumps(booster))]
    for x, y in stream[80:]:
        for c in copies:
            assert c.predict_proba_one(x) == booster.predict_proba_one(x)
            assert c.predict_one(x) == booster.predict_one(x)
            c.learn_one(x, y)
        booster.learn_one(x, y)
    for c in copies:
        assert c._deep.mistakes == booster._deep.mistakes
        assert c.deep_chain_weight == booster.deep_chain_weight
        assert c.deep_chain.n_seen == booster.deep_chain.n_seen
