"""The boosters against the readable oracles of their walk (``tests/oracles/walk_oracle.py``).

Each preset runs on its default compiled forest (``model=None``: River's Hoeffding tree with
its defaults, cloned for every learner when ``diversify=False``) and its oracle on fresh
``river.tree.HoeffdingTreeClassifier()`` learners (the forest is River's tree bit for bit).
Both see the same stream with sample weights (non-unit ones, a zero and one below the 1e-12
floor), progressively: every prediction must agree within 1e-9 relative, then both learn;
at the end so must the learned vote weights, Hedge weights and edges, and the learners'
update counts exactly (the thinning draws stay in step).
"""

from __future__ import annotations

import functools
import itertools
import math
import random

import pytest
from river import datasets, tree

import river_boost
from river_boost import forest

from ..oracles.walk_oracle import BinaryOracle, MulticlassOracle, RankingOracle

N_MODELS = 5
SEED = 7
# Sample weights, cycled along the stream: non-unit ones, a 0 and one below the 1e-12 floor
# (no-ops). The others stay within a factor 15: with weights from 1e-4 to 1e4 in one stream,
# River's trees are ill-conditioned (a weight changed in its last bit grows another tree: the
# booster's weights and the oracle's, equal to 1e-15, part within a few hundred rows), so no
# two implementations of the same math agree within 1e-9 there.
WEIGHTS = (1.0, 0.5, 2.0, 1.0, 0.3, 1e-13, 1.7, 0.0, 4.0, 1.0)


def agree(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def assert_agree(got, want, what: str) -> None:
    """``got`` (the booster's) and ``want`` (the oracle's): same keys, or same length, and
    values within 1e-9 relative."""
    if isinstance(got, dict):
        assert list(got) == list(want), f"{what}: labels {list(got)} != {list(want)}"
        got, want = list(got.values()), list(want.values())
    assert len(got) == len(want), f"{what}: {got} != {want}"
    bad = [(j, g, w) for j, (g, w) in enumerate(zip(got, want)) if not agree(g, w)]
    assert not bad, f"{what}: (index, booster, oracle) {bad}"


# ----------------------------------------------------------------------------- streams


@functools.cache
def phishing(n: int = 600) -> tuple:
    """Phishing with a missing (NaN) feature every 17th row: left out on both sides."""
    rows = []
    for t, (x, y) in enumerate(itertools.islice(datasets.Phishing(), n)):
        if t % 17 == 3:
            x = {**x, "https": math.nan}
        rows.append((x, y))
    return tuple(rows)


@functools.cache
def sea(n: int = 600) -> tuple:
    return tuple(itertools.islice(datasets.synth.SEA(variant=1, noise=0.1, seed=3), n))


@functools.cache
def segments(n: int = 450) -> tuple:
    """ImageSegments with the class "sky" held back for 150 rows: it joins mid-stream, and
    the votes skip it until it has ``MIN_SUPPORT`` examples."""
    rows = list(itertools.islice(datasets.ImageSegments(), n + 150))
    early = [r for r in rows[:300] if r[1] != "sky"][:150]
    return tuple(early + rows[300 : 300 + n - len(early)])


@functools.cache
def multilabel(n: int = 450) -> tuple:
    """Six Gaussian features, four labels from noisy thresholds and a fifth from row 60 on;
    label "b" is missing (irrelevant) every 13th row; some rows are all False or all True."""
    rng = random.Random(1)
    rows = []
    for t in range(n):
        x = {f"x{j}": rng.gauss(0, 1) for j in range(6)}
        y = {
            "a": x["x0"] + x["x1"] > 0.3,
            "b": x["x2"] - x["x0"] > rng.gauss(0, 0.3),
            "c": x["x3"] > 0.5,
            "d": x["x4"] * x["x5"] > 0,
        }
        if t >= 60:
            y["e"] = x["x1"] - x["x3"] > 0.5
        if t % 13 == 0:
            del y["b"]
        rows.append((x, y))
    return tuple(rows)


# ----------------------------------------------------------------------------- the comparison


def make(booster_cls, oracle_cls, rule, params, oracle_params=None, n_models=N_MODELS):
    booster = booster_cls(
        n_models=n_models, diversify=False, feature_fraction=1.0, seed=SEED, **params
    )
    learners = [tree.HoeffdingTreeClassifier() for _ in range(n_models)]
    oracle = oracle_cls(rule, learners, seed=SEED, **{**params, **(oracle_params or {})})
    return booster, oracle


def compare(booster, oracle, stream) -> None:
    """Progressive validation of both; ``AssertionError`` at the first disagreement."""
    ranking = isinstance(oracle, RankingOracle)
    for t, (x, y) in enumerate(stream):
        if ranking:
            assert_agree(booster.score_one(x), oracle.score_one(x), f"score_one at row {t}")
            got, want = booster.predict_proba_one(x), oracle.predict_proba_one(x)
            got = {label: p[True] for label, p in got.items()}
            assert_agree(got, {label: p[True] for label, p in want.items()}, f"P(True) at {t}")
        else:
            got, want = booster.predict_proba_one(x), oracle.predict_proba_one(x)
            assert_agree(got, want, f"predict_proba_one at row {t}")
            assert booster.predict_one(x) == oracle.predict_one(x), f"predict_one at row {t}"
        w = WEIGHTS[t % len(WEIGHTS)]
        booster.learn_one(x, y, w)
        oracle.learn_one(x, y, w)
    assert_agree(booster.alphas, oracle.alphas, "alphas")
    assert_agree(booster.expert_weights, oracle.expert_weights, "expert_weights")
    assert_agree(booster.edges, oracle.pool.edges, "edges")
    assert booster.learner_updates == oracle.pool.updates, "learner_updates"
    assert booster.zero_weights == oracle.pool.zeros, "zero_weights"


BINARY = [
    (river_boost.OnlineBBM, "bbm", {"gamma": 0.1}),
    (river_boost.NHBoostDT, "nh", {}),
    (river_boost.SquintBoost, "squint", {}),
    (river_boost.SquintBoost, "squint", {"prior": "uniform"}),
    (river_boost.OSBoost, "osboost", {"gamma": 0.2}),
    (river_boost.AdaBoostOL, "ol", {}),
    (river_boost.AdaBoostOL, "ol", {"prediction": "vote", "learning_rate": 2.0}),
    (river_boost.AdaBoostOL, "ol", {"prediction": "random"}),
    (river_boost.AdaBoostOL, "ol", {"weighting": "sampling"}),  # AdaBoost.OL.S
    (river_boost.OnlineBBM, "bbm", {"gamma": 0.3, "min_weight": 0.0}),
]
MULTICLASS = [
    (river_boost.OnlineMBBM, "mbbm", {"gamma": 0.1}),
    (river_boost.OnlineMBBM, "mbbm", {"gamma": 0.2, "weak_prediction": "argmax"}),
    (river_boost.AdaBoostOLM, "olm", {}),
    (river_boost.AdaBoostOLM, "olm", {"weak_prediction": "argmax", "prediction": "vote"}),
    (river_boost.AdaBoostOLM, "olm", {"prediction": "random"}),
]
RANKING = [
    (river_boost.OnlineBMR, "bmr", {"gamma": 0.1}),
    (river_boost.OnlineBMR, "bmr", {"gamma": 0.1, "loss": "rank"}),
    (river_boost.AdaOLMR, "olmr", {}),
    (river_boost.AdaOLMR, "olmr", {"prediction": "random"}),
]


def _id(case) -> str:
    cls, _, params = case
    return "-".join([cls.__name__, *(f"{k}={v}" for k, v in params.items())])


@pytest.mark.parametrize("stream", [phishing, sea])
@pytest.mark.parametrize("case", BINARY, ids=_id)
def test_binary_boosters_equal_their_oracle(case, stream):
    booster_cls, rule, params = case
    compare(*make(booster_cls, BinaryOracle, rule, params), stream())


@pytest.mark.parametrize("case", MULTICLASS, ids=_id)
def test_multiclass_boosters_equal_their_oracle(case):
    booster_cls, rule, params = case
    booster, oracle = make(booster_cls, MulticlassOracle, rule, params)
    compare(booster, oracle, segments())
    assert booster.known_classes == oracle.classes


def test_onlinembbm_beyond_the_dense_dp_equals_its_oracle():
    """45 learners: the first ones' potentials have more than 40 votes left, where the booster
    runs its banded Poisson DP; the oracle's is the dense DP all along."""
    booster, oracle = make(river_boost.OnlineMBBM, MulticlassOracle, "mbbm", {}, n_models=45)
    compare(booster, oracle, sea()[:120])


@pytest.mark.parametrize("case", RANKING, ids=_id)
def test_ranking_boosters_equal_their_oracle(case):
    booster_cls, rule, params = case
    booster, oracle = make(booster_cls, RankingOracle, rule, params)
    compare(booster, oracle, multilabel())
    assert booster.labels == oracle.labels
    assert booster.n_skipped == oracle.n_skipped > 0


def test_the_boosters_compared_run_the_compiled_forest():
    """What the comparisons above check is the compiled engine: the default learners are the
    forest's trees, the default weak learner (River's Hoeffding tree with a size limit that
    binds), one clone per learner."""
    booster = river_boost.AdaBoostOL(n_models=N_MODELS, diversify=False, seed=SEED)
    assert isinstance(booster.pool.learners, forest.HoeffdingForest)
    default = forest.BoundedHoeffdingTree()._get_params()
    assert all(type(m) is forest.BoundedHoeffdingTree for m in booster.pool.learners.models)
    assert all(m._get_params() == default for m in booster.pool.learners.models)


@pytest.mark.parametrize(
    "booster_cls, oracle_cls, rule, params, wrong, stream",
    [
        (river_boost.AdaBoostOL, BinaryOracle, "ol", {}, {"learning_rate": 4.0 + 4e-7}, sea),
        (river_boost.OnlineBBM, BinaryOracle, "bbm", {"gamma": 0.1}, {"gamma": 0.1 + 1e-7}, sea),
        (river_boost.OnlineMBBM, MulticlassOracle, "mbbm", {}, {"gamma": 0.1 + 1e-7}, segments),
        (river_boost.AdaOLMR, RankingOracle, "olmr", {}, {"learning_rate": 1.0 + 1e-7}, multilabel),
    ],
    ids=["AdaBoostOL-rate", "OnlineBBM-gamma", "OnlineMBBM-gamma", "AdaOLMR-rate"],
)
def test_the_comparison_fails_for_a_slightly_wrong_oracle(
    booster_cls, oracle_cls, rule, params, wrong, stream
):
    """An oracle off by 1e-7 in one parameter is caught: the 1e-9 comparison is not vacuous."""
    booster, oracle = make(booster_cls, oracle_cls, rule, params, wrong)
    with pytest.raises(AssertionError):
        compare(booster, oracle, stream()[:200])
