"""The boosters' walk (river_boost.engine, compiled) gives what its Python reference gives.

Every booster runs on a stream, and at every example a copy of it is stepped by the plain
Python walk of ``tests/oracles/python_walk.py`` (the reference) from the same state; every
prediction (``predict_proba_one``, ``predict_one``, ``score_one``) must be the same value,
floats within 1e-9 relative, and so must the learned state after every learning. The streams
mix the hard cases: sample weights, missing and nominal features, label noise, a feature and
a class (or a label) that first appear mid-stream, numpy scalars and unusual keys (the
cleaning's Python fallbacks), and for ranking empty and full label sets.
"""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import random

import numpy as np
import pytest
from river import base, datasets, drift, tree
from river.datasets import synth

import river_boost as rb
from river_boost import adaptation, forest, potentials
from river_boost.engine._contract import clean_features

from ..oracles import python_walk
from ..oracles import rules as oracle_rules

# ----------------------------------------------------------------------------- streams


def _binary_stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(synth.Agrawal(seed=seed).take(n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}  # missing features
        x["colour"] = rng.choice(["red", "green", "blue"])  # a nominal feature
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)  # a feature that appears mid-stream
        if t % 17 == 0:
            x["gap"] = None if t % 2 else math.nan  # missing values
        if t % 23 == 0:
            x["np"] = np.float32(rng.random())  # numpy scalars: the Python cleaning
        y = bool(y) if rng.random() > 0.1 else not y  # label noise
        out.append((x, int(y) if t % 5 == 0 else y, _weight(rng)))
    return out


def _multiclass_stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(itertools.islice(datasets.ImageSegments(), n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}
        x["colour"] = rng.choice(["red", "green", "blue"])
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)
            if t % 7 == 0:
                y = "late class"  # a class that appears mid-stream
        if rng.random() < 0.05:
            y = rng.choice(["sky", "cement", "window"])  # label noise
        out.append((x, y, _weight(rng)))
    return out


def _int_key_stream(n, seed):
    """Integer feature names (the cleaning's other compiled case), multiclass labels 0..2."""
    rng = random.Random(seed)
    gen = synth.RandomRBF(seed_model=seed, seed_sample=seed, n_classes=3, n_features=6)
    out = []
    for t, (x, y) in enumerate(gen.take(n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.05}
        if t % 31 == 0:
            x[(1, "tuple key")] = 1.0  # keys of mixed kinds: Python's fallback sort
        out.append((x, y, _weight(rng)))
    return out


def _ranking_stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(itertools.islice(datasets.Yeast(), n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}
        x["colour"] = rng.choice(["red", "green", "blue"])
        y = dict(y)
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)
            y["late label"] = t % 3 == 0  # a label that appears mid-stream
        if t % 41 == 0:
            y = dict.fromkeys(y, t % 2 == 0)  # empty or full label sets: not learned
        out.append((x, y, _weight(rng)))
    return out


def _few_labels_stream(n, seed):
    """Two labels, a third from a third of the way on: the smallest label spaces (k = 2, 3),
    where the compiled walk's scratch vectors sit closest together."""
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(itertools.islice(datasets.Yeast(), n)):
        keep = ("Class1", "Class2", "Class3") if t > n // 3 else ("Class1", "Class2")
        out.append((x, {label: y[label] for label in keep}, _weight(rng)))
    return out


def _weight(rng):
    return rng.choice([1.0, 1.0, 0.5, 3.0, 0.0, rng.uniform(0.01, 5)])


def _drifting(stream, change):
    """``stream`` whose concept changes halfway: ``change(y)`` from then on."""

    def make(n, seed):
        out = stream(n, seed)
        return out[: n // 2] + [(x, change(y), w) for x, y, w in out[n // 2 :]]

    return make


_SWAP = {"sky": "grass", "grass": "sky", "cement": "window", "window": "cement"}

STREAMS = {
    "binary": _binary_stream,
    "multiclass": _multiclass_stream,
    "multiclass (short)": _multiclass_stream,
    "int keys": _int_key_stream,
    "ranking": _ranking_stream,
    "few labels": _few_labels_stream,
    # concept changes for drift adaptation: labels flipped, classes swapped, relevance flipped
    "binary drift": _drifting(_binary_stream, lambda y: not y),
    "multiclass drift": _drifting(_multiclass_stream, lambda y: _SWAP.get(y, y)),
    "ranking drift": _drifting(
        _ranking_stream, lambda y: {k: (not v) if k < "Class5" else v for k, v in y.items()}
    ),
}


def _mc_tree():
    return tree.HoeffdingTreeClassifier(leaf_prediction="mc")


def _adapting(warning=False, **params):
    """Drift adaptation with sensitive detectors and a short memory, so that learners are
    replaced (and, with ``warning``, promoted from the background) within a short stream."""
    out = {"drift_detector": drift.ADWIN(delta=0.1, clock=4), "memory": 40, **params}
    if warning:
        out["warning_detector"] = drift.ADWIN(delta=0.6, clock=4)
    return out


# (booster, parameters, stream): every rule the library ships, every prediction, both
# weightings, the papers' weight scales, feature subsets, both priors and both weak predictions
CASES = [
    (rb.OnlineBBM, {"gamma": 0.2}, "binary"),
    (rb.OnlineBBM, {"weighting": "sampling", "diversify": "paper"}, "binary"),
    (rb.PotentialBooster, {"potential": potentials.BinomialPotential(4, 0.1)}, "binary"),
    (rb.NHBoostDT, {}, "binary"),
    (rb.NHBoostDT, {"weighting": "sampling", "feature_fraction": 0.6}, "binary"),
    (rb.SquintBoost, {"diversify": "paper"}, "binary"),
    (rb.SquintBoost, {"prior": "uniform", "min_weight": 0.0}, "binary"),
    (rb.OSBoost, {"gamma": 0.1}, "binary"),
    (rb.OSBoost, {"weighting": "sampling"}, "binary"),
    (rb.AdaBoostOL, {}, "binary"),
    (rb.AdaBoostOL, {"prediction": "vote", "feature_fraction": 0.6}, "binary"),
    (rb.AdaBoostOL, {"prediction": "random", "weighting": "sampling"}, "binary"),
    (rb.AdaBoostOL, {"diversify": "paper", "learning_rate": 1.0}, "binary"),
    (rb.AdaBoostOLM, {}, "multiclass"),
    (rb.AdaBoostOLM, {"weak_prediction": "argmax", "prediction": "vote"}, "multiclass"),
    (rb.AdaBoostOLM, {"prediction": "random", "weighting": "sampling"}, "multiclass"),
    (rb.AdaBoostOLM, {"diversify": "paper", "feature_fraction": 0.6}, "int keys"),
    (rb.OnlineMBBM, {}, "multiclass"),
    (rb.OnlineMBBM, {"weak_prediction": "argmax", "diversify": "paper"}, "multiclass"),
    (rb.OnlineMBBM, {"weighting": "sampling", "classes": (0, 1, 2)}, "int keys"),
    (rb.AdaOLMR, {"model": _mc_tree()}, "ranking"),
    (rb.AdaOLMR, {"prediction": "random", "weighting": "sampling"}, "ranking"),
    (rb.OnlineBMR, {"model": _mc_tree(), "diversify": "paper"}, "ranking"),
    (rb.OnlineBMR, {"loss": "rank", "feature_fraction": 0.6, "gamma": 0.2}, "ranking"),
    (rb.AdaOLMR, {}, "few labels"),
    (rb.OnlineBMR, {}, "few labels"),
    (rb.AdaBoostOLM, {"weight_scale": 3.0}, "multiclass"),
    (rb.OSBoostOCP, {"deep_scale": 1.0}, "binary"),
    (rb.AdaBoostOLM, {"deep_scale": 4.0}, "multiclass"),
    (rb.OnlineMBBM, {"weight_scale": 0.5, "diversify": "paper"}, "multiclass"),
]


class _OwnADWIN(drift.ADWIN):
    """Not River's ADWIN itself: the compiled loop calls it through its Python methods."""


# drift adaptation (river_boost.adaptation): replacements, background learners, forgetting
DRIFT_CASES = [
    (rb.OnlineBBM, _adapting(), "binary drift"),
    (rb.NHBoostDT, _adapting(True, weighting="sampling"), "binary drift"),
    (rb.AdaBoostOL, _adapting(True), "binary drift"),
    (rb.AdaBoostOL, _adapting(prediction="random", feature_fraction=0.6), "binary drift"),
    (rb.AdaBoostOLM, _adapting(True), "multiclass drift"),
    (rb.AdaBoostOLM, _adapting(True, deep_scale=4.0), "multiclass drift"),
    (rb.OnlineMBBM, _adapting(True, diversify="paper"), "multiclass drift"),
    (rb.AdaOLMR, _adapting(True, model=_mc_tree()), "ranking drift"),
    (rb.OnlineBMR, _adapting(), "ranking drift"),
    (rb.OnlineBBM, _adapting(drift_detector=_OwnADWIN(delta=0.1, clock=4)), "binary drift"),
]
CASES += DRIFT_CASES
# OSBoost.OCP: vote weights on the simplex and the full weighted vote's prediction; with
# drift adaptation, replaced learners' weights reset to 1/n and projected
OCP_CASES = [
    (rb.OSBoostOCP, {}, "binary"),
    (rb.OSBoostOCP, {"weighting": "sampling", "learning_rate": 4.0, "gamma": 0.3}, "binary"),
    (rb.OSBoostOCP, _adapting(True, weighting="sampling"), "binary drift"),
]
CASES += OCP_CASES
# 44 learners: potentials above 40 votes left (the banded DP; kept short, the Python walk's
# NumPy DP is slow)
CASES.append((rb.OnlineMBBM, {"n_models": 44}, "multiclass (short)"))
# examples per stream (the drifting ones long enough for detectors to fire)
LENGTHS = {
    "ranking": 250,
    "ranking drift": 300,
    "binary drift": 800,
    "multiclass drift": 500,
    "multiclass (short)": 60,
}


def _ids(case):
    cls, params, stream = case
    return f"{cls.__name__}-{stream}-" + ",".join(sorted(params)) if params else cls.__name__


def _build(cls, params):
    fresh = {k: v.clone() if hasattr(v, "clone") else v for k, v in params.items()}
    return cls(**{"n_models": 4, "seed": 5, **fresh})


def _driven(model, compiled=True):
    """The booster itself (the compiled walk), or driven by the Python reference."""
    return model if compiled else python_walk.Reference(model)


def _outputs(model, x, compiled=True):
    """Everything the booster predicts for x, on the compiled walk or the reference."""
    m = _driven(model, compiled)
    out = [m.predict_proba_one(x), m.predict_one(x)]
    if hasattr(model, "score_one"):
        out.append(m.score_one(x))
    return out


def _learn(model, x, y, w, compiled=True):
    _driven(model, compiled).learn_one(x, y, w)


def _diagnostics(model, trees=True):
    """What the booster learned (``trees``: with the learners' sizes, slow to read)."""
    out = {
        "edges": model.edges,
        "alphas": model.alphas,
        "expert_weights": model.expert_weights,
        "learner_updates": model.learner_updates,
        "zero_weights": model.zero_weights,
        "offered": model.offered,
        "n_seen": model.n_seen,
    }
    if trees:
        out["n_nodes"] = [m.n_nodes for m in model.models]
    if model._engine.ogd is not None:
        out["log_weights"] = list(model._engine.hedge.log_weights)
        out["t"] = model._engine.ogd.t
    if getattr(model, "_deep", None) is not None:
        out["deep_chain"] = _diagnostics(model.deep_chain, trees)
        out["deep_chain_mistakes"] = list(model._deep.mistakes)
    if hasattr(model, "n_skipped"):
        out["n_skipped"] = model.n_skipped
    if model.drift_detector is not None:
        out["replacement_times"] = model.replacement_times
        out["drift_warnings"] = model.drift_warnings
        out["background"] = model.background
    return out


def _same(a, b) -> bool:
    """Equal, floats within 1e-9 relative (the walk's contract with its reference: the same
    math, not the same order of operations), NaN equal to itself; everything else (labels,
    counts, which learners learned) exactly."""
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def _copy(model):
    return pickle.loads(pickle.dumps(model))


def _compare(compiled, python, stream, switch_at=None) -> int:
    """Feed ``stream`` to ``compiled`` (predict, then learn each example) and, example by
    example, to a copy of it on the Python walk, the reference, from the same state: the
    number of examples whose predictions or learned state differ (``_same``), the compiled
    booster and the reference's last copy. Each step is compared from one state, since a
    last-bit difference may break a tie in a learner (two classes of equal weight) and the
    two boosters would then learn different things ever after. ``switch_at``: the compiled
    booster is pickled there and goes on from the copy."""
    differ = 0
    for t, (x, y, w) in enumerate(stream):
        if t == switch_at:
            compiled = _copy(compiled)
        python = _copy(compiled)
        a = _outputs(compiled, x, True)
        b = _outputs(python, x, False)
        _learn(compiled, x, y, w, True)
        _learn(python, x, y, w, False)
        differ += not (
            _same(a, b) and _same(_diagnostics(compiled, False), _diagnostics(python, False))
        )
    return differ, compiled, python


# ----------------------------------------------------------------------------- the walks agree


def _armed_from_the_start(monkeypatch):
    """Drift adaptation armed from the first example: on these short, barely learnable
    streams a flip need not raise the booster's error (AdaBoost.OL: 36% errors before, 33%
    after), and learners must be replaced on both walks (the arming has its own test)."""
    init = adaptation.DriftAdaptation.__init__

    def armed_init(self, *args):
        init(self, *args)
        self.armed = True

    monkeypatch.setattr(adaptation.DriftAdaptation, "__init__", armed_init)


@pytest.mark.parametrize("cls, params, stream", CASES, ids=[_ids(c) for c in CASES])
def test_compiled_and_python_walks_agree_exactly(cls, params, stream, monkeypatch):
    _armed_from_the_start(monkeypatch)
    data = STREAMS[stream](LENGTHS.get(stream, 400), seed=3)
    compiled = _build(cls, params)
    python = _build(cls, params)
    differ, compiled, python = _compare(compiled, python, data)
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    if compiled.drift_detector is not None:  # learners were replaced, on both walks alike
        assert compiled.replacement_times
        if compiled.warning_detector is not None:
            assert any(compiled.drift_warnings)


@pytest.mark.parametrize("cls, params, stream", DRIFT_CASES, ids=[_ids(c) for c in DRIFT_CASES])
def test_walks_agree_on_arming_drift_adaptation(cls, params, stream, monkeypatch):
    """The booster's own error, which arms drift adaptation, is the same on both walks
    (armed at its first rise, however small, on these short streams)."""
    monkeypatch.setattr(adaptation, "ARMING_DELTA", 0.99)
    data = STREAMS[stream](LENGTHS.get(stream, 400), seed=3)
    differ, compiled, python = _compare(_build(cls, params), _build(cls, params), data)
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    assert compiled._engine.adapt.armed == python._engine.adapt.armed


@pytest.mark.parametrize(
    "cls, params, stream",
    [CASES[0], CASES[6], CASES[9], CASES[13], CASES[17], CASES[20], CASES[22]]
    + [DRIFT_CASES[2], DRIFT_CASES[4], OCP_CASES[0], OCP_CASES[2]],
    ids=lambda c: getattr(c, "__name__", None),
)
def test_a_booster_pickled_mid_stream_goes_on_identically_on_the_other_walk(
    cls, params, stream, monkeypatch
):
    data = STREAMS[stream](300 if stream == "ranking" else LENGTHS.get(stream, 400), seed=4)
    compiled = _build(cls, params)
    python = _build(cls, params)
    # the drifting streams switch while a background learner is in training
    switch_at = 250 if "drift" in stream else 150
    differ, compiled, python = _compare(compiled, python, data, switch_at=switch_at)
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    # the engine pickles itself: a copy of a copy is the same booster
    assert pickle.dumps(_copy(_copy(compiled))) == pickle.dumps(_copy(compiled))


@pytest.mark.parametrize("cls", [rb.AdaOLMR, rb.OnlineBMR])
def test_the_compiled_walk_decides_feature_fraction_auto_as_the_python_walk(cls, monkeypatch):
    """A ranking booster's feature_fraction="auto" is fixed by the number of features of the
    first non-empty clean x its learners see: the compiled walk runs from the first example
    and decides where the Python walk does (not before any label is known, nor on an empty
    clean x; a prediction decides, even on an example that is then not learned)."""
    data = _ranking_stream(120, seed=5)
    x1, y1, _ = data[1]
    x2, y2, _ = data[2]
    head = [
        ({"a": 1.0}, {}, 1.0),  # no label known when it is predicted: decides nothing
        ({"a": None, "b": float("nan")}, dict.fromkeys(y1, False), 1.0),  # empty when clean
        (dict(list(x1.items())[:40]), y1, 0.0),  # its prediction decides (40); weight 0
        (dict(list(x2.items())[:50]), y2, 1.0),
    ]
    compiled = _build(cls, {})
    python = _build(cls, {})
    differ, compiled, python = _compare(compiled, python, head + data[3:])
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    for model in (compiled, python):
        assert model.pool.feature_subsets.n_features == 40
        assert model.pool.feature_subsets.fraction == 20 / 40


def test_a_perturbed_rule_is_detected(monkeypatch):
    """The comparison can fail: AdaBoost.OL's weights one part in a million larger in the
    Python reference change what the two boosters do beyond the tolerance."""
    data = _binary_stream(300, seed=3)
    compiled = _build(rb.AdaBoostOL, {})
    python = _build(rb.AdaBoostOL, {})
    weight = oracle_rules.logistic_weight
    monkeypatch.setattr(oracle_rules, "logistic_weight", lambda s: weight(s) * (1.0 + 1e-6))
    differ, compiled, python = _compare(compiled, python, data)
    assert differ > 0 or not _same(_diagnostics(compiled), _diagnostics(python))


class _Exponential(potentials.Potential):
    """docs/new-booster.md's rule: only log_weight and log_max_weight of its own."""

    def __init__(self, eta=0.5):
        self.eta = eta

    def log_weight(self, i, s):
        return -self.eta * s

    def log_max_weight(self, i, worst):
        return -self.eta * worst


class _Drifted(potentials.NormalHedgePotential):  # a subclass of ours: its own advance runs
    def advance(self, s, z, edge):
        return s + z - edge


class _OwnSampling(potentials.OSBoostPotential):  # its own sampling_probability is called
    def sampling_probability(self, i, state, worst=None):
        return 0.5 * super().sampling_probability(i, state, worst)


@pytest.mark.parametrize("rule", [_Exponential, _Drifted, lambda: _OwnSampling(gamma=0.1)])
def test_rules_of_your_own_run_compiled_as_on_the_python_walk(rule, monkeypatch):
    """A Potential of your own (or a subclass of ours) runs on the compiled walk through its
    hooks (river_boost.engine._rules.PythonRule), with the Python walk's results."""
    booster = rb.PotentialBooster(rule(), n_models=4, seed=5)
    assert booster._engine is not None
    data = _binary_stream(300, seed=3)
    compiled = rb.PotentialBooster(rule(), n_models=4, seed=5)
    python = rb.PotentialBooster(rule(), n_models=4, seed=5)
    differ, compiled, python = _compare(compiled, python, data)
    assert differ == 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    assert compiled.n_seen > 200 and max(compiled.learner_updates) > 0


class _Counts(base.Classifier):
    """A classifier without sample weights (``learn_one(x, y)``): label counts by the colour
    feature, so the boosters teach it by rejection sampling and replicas."""

    _multiclass = True

    def __init__(self):
        self.counts = {}

    @property
    def n_nodes(self):  # what the walks' comparison reads of a learner: all it learned
        return sorted((str(c), sorted(map(str, v.items()))) for c, v in self.counts.items())

    def learn_one(self, x, y):
        by_colour = self.counts.setdefault(x.get("colour"), {})
        by_colour[y] = by_colour.get(y, 0) + 1

    def predict_proba_one(self, x):
        by_colour = self.counts.get(x.get("colour"), {})
        total = sum(by_colour.values())
        return {y: n / total for y, n in by_colour.items()}


class _OwnMBBM(potentials.MulticlassZeroOnePotential):  # its own max_weight, so it runs in Python
    def max_weight(self, n):
        return 2.0 * super().max_weight(n)


class _OwnPair(potentials.RankingPairPotential):
    cost_bound = 3.0


class _MBBMOwn(rb.OnlineMBBM):  # boosters of your own (module level: they pickle)
    def _build(self, rule, params):
        super()._build(_OwnMBBM(2, rule.gamma), params)


class _BMROwn(rb.OnlineBMR):
    def _build(self, rule, params):
        super()._build(_OwnPair(rule.gamma, rule.loss), params)


OWN_RULES = [
    (_MBBMOwn, {}, "multiclass"),
    (_MBBMOwn, {"weak_prediction": "argmax"}, "multiclass"),
    (_BMROwn, {}, "ranking"),
]


@pytest.mark.parametrize("cls, params, stream", OWN_RULES, ids=[_ids(c) for c in OWN_RULES])
def test_multiclass_and_ranking_rules_of_your_own_run_compiled(cls, params, stream, monkeypatch):
    """A multiclass or ranking Potential of your own runs on the compiled walk through its
    hooks (cost rows and matrices, bounds, cost vectors), as on the Python walk."""
    booster = _build(cls, params)
    assert booster._engine is not None
    data = STREAMS[stream](LENGTHS.get(stream, 200), seed=3)
    compiled = _build(cls, params)
    python = _build(cls, params)
    differ, compiled, python = _compare(compiled, python, data)
    assert differ == 0
    assert max(compiled.learner_updates) > 0


def test_a_surrogate_loss_is_its_compiled_rule():
    """A surrogate's steps (the alpha gradients) are its compiled rule's: a subclass, which
    may change any hook, is refused rather than run without its gradients."""

    class OwnLogistic(potentials.LogisticLoss):
        pass

    with pytest.raises(TypeError, match="surrogate"):
        rb.PotentialBooster(OwnLogistic(), n_models=3)


RIVER_LEARNERS = [
    (rb.AdaBoostOL, {"model": tree.HoeffdingTreeClassifier(grace_period=30)}, "binary"),
    (rb.OnlineBBM, {"model": _mc_tree(), "diversify": True}, "binary"),
    (rb.AdaBoostOL, {"model": _Counts(), "weighting": "sampling"}, "binary"),
    (rb.AdaBoostOLM, {"model": tree.HoeffdingTreeClassifier(grace_period=30)}, "multiclass"),
    (
        rb.OnlineMBBM,
        {"model": _Counts(), "weighting": "sampling", "feature_fraction": 0.5},
        "multiclass",
    ),
    (rb.AdaOLMR, {"model": tree.HoeffdingTreeClassifier(grace_period=30)}, "ranking"),
    (
        rb.AdaBoostOL,
        _adapting(warning=True, model=tree.HoeffdingTreeClassifier(grace_period=30)),
        "binary drift",
    ),
]


@pytest.mark.parametrize(
    "cls, params, stream", RIVER_LEARNERS, ids=[_ids(c) for c in RIVER_LEARNERS]
)
def test_river_classifiers_run_compiled_as_on_the_python_walk(cls, params, stream, monkeypatch):
    """Weak learners that are River classifiers (not the compiled forest) run on the compiled
    walk through their Python methods (river_boost.learners.ClassifierLearners), with the
    Python walk's results."""
    monkeypatch.setattr(forest, "ENABLED", False)  # River's own trees too
    _armed_from_the_start(monkeypatch)
    booster = _build(cls, params)
    assert booster._engine is not None
    # River's trees copy slowly (the reference starts from a copy at every example)
    length = {"ranking": 60, "multiclass": 120, "binary drift": 800}.get(stream, 300)
    data = STREAMS[stream](length, seed=3)
    compiled = _build(cls, params)
    python = _build(cls, params)
    differ, compiled, python = _compare(compiled, python, data)
    assert differ == 0
    if "drift" in stream:  # learners were replaced, background learners promoted
        assert sum(compiled.replacements) > 0
    assert _same(_diagnostics(compiled), _diagnostics(python))
    assert max(compiled.learner_updates) > 0


@pytest.mark.parametrize(
    "x, y, w, error",
    [
        ({"a": 1.0}, 2, 1.0, ValueError),  # not a binary label
        ({"a": 1.0}, True, -1.0, ValueError),  # negative weight
        ({"a": 1.0}, True, math.nan, ValueError),
        ({"a": 1.0}, True, "1", ValueError),
        ([("a", 1.0)], True, 1.0, TypeError),  # not a dict
        ({"a": [1.0]}, True, 1.0, TypeError),  # not a number or a string
    ],
)
def test_bad_input_raises_the_same_and_leaves_no_trace(x, y, w, error, monkeypatch):
    boosters = [_build(rb.AdaBoostOL, {}) for compiled in (True, False)]
    data = _binary_stream(50, seed=1)
    for compiled, booster in zip((True, False), boosters):
        for xx, yy, ww in data:
            _learn(booster, xx, yy, ww, compiled)
        with pytest.raises(error):
            _learn(booster, x, y, w, compiled)
    assert _same(_diagnostics(boosters[0]), _diagnostics(boosters[1]))
    x0 = data[0][0]
    assert _same(_outputs(boosters[0], x0, True), _outputs(boosters[1], x0, False))


def test_timing_counts_the_forest_calls():
    from river_boost import engine as _walk

    booster = rb.AdaBoostOL(n_models=3, seed=1)
    _walk.set_timing(True)
    try:
        for x, y, w in _binary_stream(100, seed=2):
            booster.predict_one(x)
            booster.learn_one(x, y, w=w)
        assert _walk.forest_seconds() > 0.0
    finally:
        _walk.set_timing(False)


def test_a_label_joining_after_a_prediction_of_the_same_x():
    """The walk a prediction made is not reused once a new label has joined."""
    booster = rb.AdaOLMR(n_models=3, seed=1)
    booster.learn_one({"a": 1.0}, {"x": True, "y": False})
    booster.score_one({"a": 2.0})
    booster.learn_one({"a": 2.0}, {"x": True, "y": False, "z": True})
    assert list(booster.score_one({"a": 2.0})) == ["x", "y", "z"]


# ----------------------------------------------------------------------------- robustness rules


def _drive(cls, params, events):
    """Play ``events`` (("predict", x) or ("learn", x, y, w)) on a compiled booster and on
    copies of it on the Python walk, each made after a learning (see ``_compare``): every
    prediction and the learned state must agree."""
    a = _build(cls, params)
    b = None
    for event in events:
        if b is None:
            b = _copy(a)
        if event[0] == "predict":
            x = event[1]
            assert _same(_outputs(a, x, True), _outputs(b, x, False))
        else:
            _, x, y, w = event
            _learn(a, x, y, w, True)
            _learn(b, x, y, w, False)
            assert _same(_diagnostics(a, False), _diagnostics(b, False))
            b = None
    if b is None:
        b = _copy(a)
    return a, b


def _events(stream, probes=()):
    """Predict before most learnings (not all: a learning without its prediction computes
    the walk after the label's commit), and the probes now and then."""
    events = []
    for t, (x, y, w) in enumerate(stream):
        if t % 4:
            events.append(("predict", x))
        events.append(("learn", x, y, w))
        if probes and t % 9 == 0:
            events.append(("predict", probes[t % len(probes)]))
    return events


def _rare(stream, label_at, rare, relevant=None):
    """``stream`` with the label ``rare`` at the given positions (multiclass: the class;
    ranking: a label relevant there and absent elsewhere)."""
    out = []
    for t, (x, y, w) in enumerate(stream):
        if t in label_at:
            y = {**y, rare: True} if relevant else rare
            w = 1.0
        out.append((x, y, w))
    return out


RARE_CASES = [
    (rb.AdaBoostOLM, {}, "multiclass"),
    (rb.AdaBoostOLM, {"weak_prediction": "argmax", "prediction": "vote"}, "multiclass"),
    (rb.OnlineMBBM, {}, "multiclass"),
    (rb.OnlineMBBM, {"weak_prediction": "argmax", "weighting": "sampling"}, "multiclass"),
    (rb.AdaOLMR, {}, "ranking"),
    (rb.OnlineBMR, {"model": _mc_tree()}, "ranking"),
]


@pytest.mark.parametrize("cls, params, stream", RARE_CASES, ids=[_ids(c) for c in RARE_CASES])
def test_a_class_seen_once_then_again_later(cls, params, stream, monkeypatch):
    """tasks.MIN_SUPPORT: a class (a label) seen once is masked from the learners' votes until
    it is seen again, on both walks; a class seen only once stays masked; the first two
    examples of the stream are two classes seen once each (nothing to mask yet)."""
    data = STREAMS[stream](260, seed=8)
    ranking = stream == "ranking"
    data = _rare(data, {12, 150, 200}, "rare", ranking)
    data = _rare(data, {30}, "stray", ranking)
    _drive(cls, params, _events(data))


@pytest.mark.parametrize("stream", ["binary", "multiclass", "ranking"])
@pytest.mark.parametrize("weighting", ["importance", "sampling"])
def test_tiny_weights(stream, weighting, monkeypatch):
    """MIN_SAMPLE_WEIGHT (the input contract): a positive weight below it is 0 (no trace), one
    at or above it learns; with min_weight=0 the pool's scaled weights may underflow to 0 and
    are skipped."""
    cls = {"binary": rb.SquintBoost, "multiclass": rb.AdaBoostOLM, "ranking": rb.AdaOLMR}[stream]
    tiny = [1e-300, 5e-324, 9.99e-13, 1e-12, 1.5e-12, 1e-11, 1.0, 2.0]
    data = [(x, y, tiny[t % len(tiny)]) for t, (x, y, _) in enumerate(STREAMS[stream](240, seed=9))]
    params = {"weighting": weighting, "min_weight": 0.0}
    a, b = _drive(cls, params, _events(data))
    assert a.n_seen == b.n_seen < len(data)  # the weights below 1e-12 left no trace
    # the first event is weighted 1e-300: nothing learned, on both walks
    for compiled in (True, False):
        fresh = _build(cls, params)
        _learn(fresh, *data[0], compiled)
        assert fresh.n_seen == 0 and fresh.learner_updates == [0] * 4


@pytest.mark.parametrize("stream", ["binary", "multiclass", "ranking"])
def test_a_feature_first_predicted_as_a_string_then_learned_as_a_number(stream, monkeypatch):
    """Only learning fixes a feature's kind. "late" is first seen in
    predictions with string values, then learned as a number (its kind: numeric), after which
    a string "late" in a prediction is dropped; "only predicted" is never learned."""
    cls = {"binary": rb.AdaBoostOL, "multiclass": rb.OnlineMBBM, "ranking": rb.OnlineBMR}[stream]
    data = STREAMS[stream](220, seed=10)
    events = []
    for t, (x, y, w) in enumerate(data):
        x = {k: v for k, v in x.items() if k != "late"}
        probe = {**x, "late": ["a", "b", "c"][t % 3], "only predicted": str(t % 2)}
        events.append(("predict", probe))
        if t >= 60:
            x["late"] = t / 10.0 if t % 5 else "now a string"
        events.append(("predict", x))
        events.append(("learn", x, y, w))
    _drive(cls, {}, events)


@pytest.mark.parametrize("stream", ["binary", "multiclass", "ranking"])
def test_one_dict_learned_after_its_features_kinds_were_learned_elsewhere(stream, monkeypatch):
    """The compiled walk keeps a clean x for the very dict it cleaned (no copy) while that
    dict and the learned kinds are unchanged. One dict, never changed, is predicted; then the
    kinds of its features ("late" a number, "other" a string) are fixed, first written into
    the engine's kinds (``nominal``, as a copy stepped by the Python walk does), later by
    learning another x; the dict (or an equal copy) is then learned: its string "late" is
    dropped, as on the Python walk all along."""
    cls = {"binary": rb.AdaBoostOL, "multiclass": rb.OnlineMBBM, "ranking": rb.OnlineBMR}[stream]
    data = STREAMS[stream](120, seed=12)
    a = _build(cls, {})
    for t, (x, y, w) in enumerate(data):
        b = _copy(a)  # the reference, from a's state (see _compare)
        probe = {**x, "late": "a string", "other": 2.0}
        taught = {**x, "late": t / 10.0, "other": "c"}
        assert _same(_outputs(a, probe, True), _outputs(b, probe, False))
        if t == 0:  # the kinds written between the two
            for m in (a, b):
                m._engine.nominal.update({"late": False, "other": True})
        elif t % 2 == 0:  # the kinds fixed by another x learned between the two
            _learn(a, taught, y, w, True)
            _learn(b, taught, y, w, False)
        _learn(a, probe if t % 3 else dict(probe), y, w, True)
        _learn(b, probe, y, w, False)
        assert _same(_outputs(a, probe, True), _outputs(b, probe, False))
        assert _same(_diagnostics(a, False), _diagnostics(b, False))


@pytest.mark.parametrize("cls", [rb.AdaBoostOL, rb.AdaBoostOLM])
def test_a_scaled_weight_that_underflows_is_skipped(cls, monkeypatch):
    """The walk skips a weight that underflowed to 0 after scaling (River's trees cannot take
    it): forced here with huge offered sums and tiny weight scales."""
    stream = "binary" if cls is rb.AdaBoostOL else "multiclass"
    data = STREAMS[stream](120, seed=11)
    boosters = []
    for compiled in (True, False):
        booster = _build(cls, {"min_weight": 0.0})
        for x, y, w in data[:60]:
            _learn(booster, x, y, w, compiled)
        for i in range(4):
            booster._engine.offered[i] = 1e308
            booster.pool._weight_scales[i] = 1e-30
        boosters.append(booster)
    before = list(boosters[1].learner_updates)
    for x, y, _ in data[60:]:
        assert _same(
            _outputs(boosters[0], x, True),
            _outputs(boosters[1], x, False),
        )
        _learn(boosters[0], x, y, 1e-12, True)
        _learn(boosters[1], x, y, 1e-12, False)
    assert boosters[1].learner_updates == before  # every scaled weight underflowed
    assert _same(_diagnostics(boosters[0]), _diagnostics(boosters[1]))


@pytest.mark.parametrize("k", [2, 3, 7])
def test_mbbm_cost_matrices_assembled_in_c_are_the_potentials(k):
    """The compiled walk assembles OnlineMBBM's cost matrices itself (labels with equal
    scores share their entries; each potential looked up by votes left and sorted gaps):
    every entry is ``phi_n^r(s + e_l)`` as a fresh potential's ``value`` computes it, with
    ties, repeated scores, one label ahead, every score distinct, and both DPs (up to and
    above 40 votes)."""
    engine = rb.OnlineMBBM(n_models=3, seed=1)._engine
    assert engine is not None
    pot = potentials.MulticlassZeroOnePotential(k, 0.1)
    rng = random.Random(k)
    votes = [[0] * k, [3] + [0] * (k - 1), list(range(k)), [1, 1] + [0] * (k - 2)]
    votes += [[rng.randrange(4) for _ in range(k)] for _ in range(6)]
    for n_left in (0, 1, 6, 40, 41, 55):
        for s in votes:
            fresh = potentials.MulticlassZeroOnePotential(k, 0.1)
            expected = [
                [
                    fresh.value(n_left, [v + (j == lab) for j, v in enumerate(s)], r)
                    for lab in range(k)
                ]
                for r in range(k)
            ]
            assert engine.mbbm_cost_matrix(pot, n_left, s) == expected, (n_left, s)
    # the same potential's matrices come from the engine's cache the second time
    assert engine.mbbm_cost_matrix(pot, 41, votes[-1]) == pot.cost_matrix(41, votes[-1]).tolist()


def _python_cleaned(x, nominal):
    """The cleaning of a new x, readably: clean_features, then the learned kinds' filter
    (the reference for the compiled cleaning every walk uses)."""
    clean = clean_features(x)
    for k, v in list(clean.items()):
        kind = nominal.get(k)
        if kind is not None and kind is not (type(v) is str):
            del clean[k]
    return clean


@pytest.mark.parametrize(
    "x",
    [
        {"a": 1.0, "b": 2, "c": "red", "d": True},  # sorted keys, all kept: a copy of x
        {"a": None, "b": 2.0, "c": 3.0},  # sorted, the first dropped
        {"a": 1.0, "b": math.nan, "c": 3.0},  # sorted, one in the middle dropped
        {"a": 1.0, "b": 2.0, "c": None},  # sorted, the last dropped
        {"a": 1.0, "b": "blue", "c": 3.0},  # sorted, b of the other kind than learned
        {"c": 1.0, "a": 2.0, "b": None},  # unsorted
        {1: 1.0, 2: 2.0, 10: 3.0},  # int keys, sorted
        {},
    ],
)
def test_the_compiled_cleaning_gives_the_python_clean_x_in_its_order(x):
    """The compiled cleaning of a new x: the same dict, keys in the same order, whether it
    copies x (keys already sorted, every value kept) or builds it (a value dropped, by
    value or by its learned kind)."""
    from river_boost.engine import _clean

    for nominal in ({}, {"b": False}, {"b": True, "c": False}):
        expected = _python_cleaned(x, nominal)
        for got in _clean._cleaned_for_test(x, nominal):
            assert list(got.items()) == list(expected.items()), (x, nominal)
            assert got is not x


def test_a_dict_changed_after_its_prediction_then_dropped_learns_as_fresh_dicts_do():
    """A dict changed in place between its prediction and its learning, then dropped, is
    learned as fresh dicts of the same contents are."""
    model = rb.AdaBoostOL(n_models=3, seed=1)
    stream = [({"b": 1.5, "a": "u", "c": float(t)}, t % 2 == 0) for t in range(40)]
    reference = rb.AdaBoostOL(n_models=3, seed=1)
    for x, y in stream:
        x = dict(x)
        model.predict_proba_one(x)
        x_copy = dict(x)
        x.clear()  # changed after the prediction: learn_one cleans the new content
        x.update(x_copy)
        model.learn_one(x, y)
        del x
        reference.learn_one(dict(x_copy), y)
    probe = {"c": 3.0, "a": "u", "b": 1.5}
    assert model.predict_proba_one(probe) == reference.predict_proba_one(probe)


@pytest.mark.parametrize("make", [rb.AdaBoostOL, rb.OnlineMBBM])
def test_a_dict_reused_and_changed_in_place_is_cleaned_again(make, monkeypatch):
    """The walk skips comparing x with the memo's copy while x is the very dict it last
    cleaned, holding the same key and value objects (its snapshot): a caller that reuses one
    dict for every example, or changes it between predicting and learning, gets what the
    Python reference gives, where x is compared each time."""
    data = (_binary_stream if make is rb.AdaBoostOL else _multiclass_stream)(300, 5)
    boosters = [make(n_models=4, seed=3), make(n_models=4, seed=3)]
    buffers = [{}, {}]
    for t, (x, y, w) in enumerate(data):
        outs = []
        for b, (model, buf) in enumerate(zip(boosters, buffers)):
            compiled = b == 0
            buf.clear()
            buf.update(x)  # the same dict object, new contents
            outs.append(_outputs(model, buf, compiled))
            if t % 3 == 0:  # changed between predicting and learning
                key = next(iter(buf))
                buf[key] = -1.0 if type(buf[key]) is not str else "changed"
            elif t % 3 == 1:
                buf["extra"] = float(t)
            _learn(model, buf, y, w, compiled)
            outs.append(_outputs(model, buf, compiled))
        assert _same(outs[:2], outs[2:]), t
    assert _same(_diagnostics(boosters[0]), _diagnostics(boosters[1]))


def _near_copies(x, t):
    """Dicts equal to x as dicts compare (equal values, distinct objects, -0.0 for 0.0, the
    very NaN object) and dicts one value away from it (the next float, another string, a new
    NaN object), keys in x's order."""

    def with_(key, value):
        return {k: (value if k == key else v) for k, v in x.items()}

    out = [dict(x), with_("zero", -0.0), with_("big", int(str(x["big"])))]
    out.append(with_("colour", "".join(list(x["colour"]))))  # an equal, distinct string
    floats = [k for k, v in x.items() if type(v) is float and math.isfinite(v) and k != "zero"]
    key = floats[t % len(floats)]
    out.append(with_(key, math.nextafter(x[key], math.inf)))
    out.append(with_("colour", x["colour"] + "!"))
    out.append(with_("big", x["big"] + 1))
    out.append(with_("nan", float("nan")))  # a NaN object of its own: not equal
    out.append(dict(x))
    return out


@pytest.mark.parametrize("cls", [rb.AdaBoostOL, rb.OnlineMBBM])
def test_dicts_equal_or_one_value_away_from_the_last_x_predict_as_on_the_python_walk(
    cls, monkeypatch
):
    """The compiled cleaning decides ``x == last x`` in its own pass over x (the same key
    objects in the same order: equal when every value equals the other's), where the Python
    walk compares the dicts: equal dicts reuse the last clean x, others are cleaned again.
    Probed with equal copies (distinct ints and strings, -0.0 for 0.0, the same NaN object)
    and with copies one value away (the next float, another string or int, a new NaN)."""
    stream = "binary" if cls is rb.AdaBoostOL else "multiclass"
    nan = float("nan")
    events = []
    for t, (x, y, w) in enumerate(STREAMS[stream](160, seed=14)):
        x = {k: v for k, v in x.items() if type(v) is not np.float32}
        x.update(zero=0.0, big=10**6 + t, colour=["red", "green"][t % 2], nan=nan, f=t / 7)
        events.append(("predict", x))
        events.append(("learn", x, y, w))
        events.extend(("predict", probe) for probe in _near_copies(x, t))
    _drive(cls, {}, events)


def test_the_ranking_walks_difference_laws_are_read_as_the_rule_made_them():
    """The engine reads RankingPairPotential's difference laws through their buffers (PairLaw):
    the arrays of difference_law, checked for their shape and type, and kept alive."""
    from river_boost.engine import _costs

    rule = potentials.RankingPairPotential(gamma=0.1)
    law = rule.difference_law(3, 2, 5)
    _costs.PairLaw(law, 3)  # 7, 8 and 8 float64 values
    with pytest.raises(ValueError, match="shape"):
        _costs.PairLaw(law, 4)
    with pytest.raises(ValueError, match="shape or type"):
        _costs.PairLaw(tuple(a.astype(np.float32) for a in law), 3)
    with pytest.raises(ValueError, match="P, SP, SD"):
        _costs.PairLaw(law[:2], 3)


def _close_matrix(got, expected) -> bool:
    return np.allclose(np.array(got), expected, rtol=1e-12, atol=1e-15)


def test_logistic_cost_matrices_are_the_losss():
    """AdaBoost.OLM's cost matrices (one tanh per pair of labels) are those of
    of the readable (9) (tests/oracles/rules.py), with ties, scores far apart (saturated
    sigmoids), tiny and signed-zero differences."""
    from river_boost.engine import _costs

    costs = _costs.LogisticCosts()  # the walk's (AdaBoost.OLM's engine holds one)
    rng = np.random.default_rng(7)
    cases = [[0.0], [0.0, 0.0], [1.5, -0.0, 0.0], [800.0, -800.0, 1e-300, 3.0]]
    for k in (2, 3, 7, 12):
        for scale in (1e-9, 1.0, 40.0):
            s = rng.standard_normal(k) * scale
            s[rng.integers(k)] = s[0]  # a tie
            cases.append(s.tolist())
    for s in cases:
        expected = oracle_rules.logistic_cost_matrix(s)
        assert _close_matrix(costs.logistic_cost_matrix(s), expected), s
        assert _close_matrix(potentials.LogisticLoss.cost_matrix_of(s), expected), s


def test_logistic_cost_matrices_along_the_learners_keep_the_unchanged_pairs():
    """The walk builds learner i's cost matrix from learner i - 1's pairs, computing again
    only the pairs of the label whose score changed: every matrix along a walk is still
    the readable (9) of its scores, with ties made and broken, saturated
    sigmoids, a score that changes by 0 and signed zeros."""
    from river_boost.engine import _costs

    costs = _costs.LogisticCosts()
    rng = np.random.default_rng(11)
    walks = []
    for k in (2, 3, 7, 12):
        for scale in (1e-9, 1.0, 40.0, 900.0):
            s = [0.0] * k
            scores = [list(s)]
            for _ in range(25):
                lab = int(rng.integers(k))
                step = rng.choice(
                    [0.0, -0.0, rng.random() * scale, s[int(rng.integers(k))] - s[lab]]
                )
                s[lab] = s[lab] + float(step)  # sometimes a tie with another label
                scores.append(list(s))
            walks.append(scores)
    for scores in walks:
        got = costs.logistic_costs_along(scores)
        assert len(got) == len(scores)
        for s, matrix in zip(scores, got):
            assert _close_matrix(matrix, oracle_rules.logistic_cost_matrix(s)), s
    with pytest.raises(ValueError, match="one label"):
        costs.logistic_costs_along([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0]])


@pytest.mark.parametrize("budget", [1, 5000])
def test_a_small_cost_matrix_table_changes_nothing(budget, monkeypatch):
    """OnlineMBBM's cost matrices are kept in a direct-mapped table: with one slot (every
    new key evicts the last) or a few, the booster predicts exactly as with the default
    table and as the Python walk."""
    from river_boost.engine import _costs

    data = _multiclass_stream(150, 4)
    outputs = []
    for compiled, size in [(True, None), (True, budget), (False, None)]:
        old = _costs._set_mbbm_cache_bytes(size) if size is not None else None
        try:
            model = _driven(rb.OnlineMBBM(n_models=6, seed=3), compiled)
            outputs.append(
                [(model.predict_proba_one(x), model.learn_one(x, y, w)) for x, y, w in data]
            )
        finally:
            if old is not None:
                _costs._set_mbbm_cache_bytes(old)
    assert _same(outputs[0], outputs[1]) and _same(outputs[0], outputs[2])


@pytest.mark.parametrize("budget", [None, 600])
def test_the_cost_matrix_table_starts_empty_for_each_potential_and_label_count(budget, monkeypatch):
    """The matrix table keeps its buffers from one potential or label count to the next
    and empties them by a new epoch: the same keys asked of another potential (another
    gamma) or with another number of labels never read the last table's entries."""
    from river_boost.engine import _costs

    engine = rb.OnlineMBBM(n_models=3, seed=1)._engine
    rng = random.Random(21)
    pots = {
        (k, g): potentials.MulticlassZeroOnePotential(k, g) for k in (2, 3, 5) for g in (0.1, 0.3)
    }
    old = _costs._set_mbbm_cache_bytes(budget) if budget is not None else None
    try:
        for _ in range(30):
            k, g = rng.choice(sorted(pots))
            for _ in range(12):  # repeated keys: the table answers some of them
                n_left = rng.randrange(4)
                s = [rng.randrange(3) for _ in range(k)]
                C, D = engine.mbbm_cost_matrix(pots[k, g], n_left, s, table=True)
                fresh = potentials.MulticlassZeroOnePotential(k, g)
                expected = np.asarray(fresh.cost_matrix(n_left, np.array(s)), dtype=float)
                assert np.array(C).tobytes() == expected.tobytes(), (k, g, n_left, s)
    finally:
        if old is not None:
            _costs._set_mbbm_cache_bytes(old)


def test_the_walk_fills_its_potentials_cache_as_value_does():
    """Cost matrices assembled by the walk's cost object on a cold cache: the potential's
    matrices, and afterwards the cache holds what value would have put there."""
    from river_boost.engine import _costs

    pot = potentials.MulticlassZeroOnePotential(5, 0.1)
    costs = _costs.MBBMCosts(pot, 8)
    for n_left, s in [(7, [0, 0, 0, 0, 0]), (3, [2, 0, 1, 1, 0]), (0, [1, 0, 0, 0, 0])]:
        got = np.array(costs.cost_matrix(pot, n_left, s))
        assert got.tobytes() == np.asarray(pot.cost_matrix(n_left, s)).tobytes()
    assert len(costs.values) > 10
    for (_, n_left, gaps), value in costs.values.items():
        assert value == pot.value_from_gaps(n_left, gaps)


def _drawing_stream(n):
    return [(x, y, 1.0) for x, y in synth.SEA(seed=3).take(n)]


@pytest.mark.parametrize(
    "cls, params",
    [(rb.AdaBoostOL, {}), (rb.OnlineBBM, {"weighting": "sampling"}), (rb.AdaBoostOLM, {})],
)
def test_the_walks_draws_are_the_pools_random_randoms(cls, params):
    """The compiled walk draws its random numbers from the pool's ``random.Random`` by its
    ``random`` method: a subclass that counts its draws is called, and the booster predicts
    and learns as with the plain generator, which ends in the same state."""
    data = _drawing_stream(300)
    model = cls(n_models=5, seed=9, **params)
    start = model.pool._rng.getstate()
    plain = [(model.predict_proba_one(x), model.learn_one(x, y, w=w)) for x, y, w in data]
    end = model.pool._rng.getstate()
    assert end != start  # it drew

    class Counting(random.Random):
        calls = 0

        def random(self):
            Counting.calls += 1
            return super().random()

    model = cls(n_models=5, seed=9, **params)
    model.pool._rng = Counting()
    model.pool._rng.setstate(start)
    # (the engine reads the pool's parts when it takes a state)
    model._engine._take(model._engine._export())
    outputs = [(model.predict_proba_one(x), model.learn_one(x, y, w=w)) for x, y, w in data]
    assert Counting.calls > 0
    assert _same(outputs, plain)
    assert model.pool._rng.getstate() == end


def test_every_walk_takes_the_compiled_dps(monkeypatch):
    """OnlineMBBM with 44 learners, on the compiled walk (the compiled forest) and on the
    Python reference (the same forest): the same predictions, and on both the potentials
    come from river_boost.engine._dp's DPs: the banded one (above 40 votes left) through the
    potential's Python method, the dense one (up to 40) called in C by the cost matrices'
    assembly, which the potential's cost_matrix runs too: one DP for every walk."""
    from river_boost.engine import _dp

    calls = []

    def counting(name):
        real = getattr(_dp, name)

        def run(*args):
            calls.append(name)
            return real(*args)

        monkeypatch.setattr(_dp, name, run)

    counting("potential")
    counting("capped_rows")
    data = [(x, y, 1.0) for x, y in itertools.islice(datasets.ImageSegments(), 25)]
    outputs, asked = {}, {}
    for compiled in (True, False):
        model = _driven(rb.OnlineMBBM(n_models=44, weighting="sampling", seed=2), compiled)
        seen = []
        for x, y, w in data:
            seen.append([model.predict_proba_one(x), model.predict_one(x)])
            model.learn_one(x, y, w)
        outputs[compiled] = seen
        asked[compiled] = set(calls)
        calls.clear()
    assert _same(outputs[True], outputs[False])
    assert asked[False] == asked[True] == {"capped_rows"}  # the dense DP: in C on both


def test_the_engine_is_built_once_and_copies_are_independent():
    """The booster's engine is built with it and kept (never rebuilt: nothing outside it
    changes its state); a pickle, a deep copy and River's ``clone(include_attributes=True)``
    each get an engine of their own that goes on as the original does, and learning on a copy
    leaves the original as it was."""

    booster = rb.AdaBoostOL(n_models=3, seed=1)
    data = _binary_stream(90, seed=3)
    engine = booster._engine
    for x, y, w in data[:40]:
        booster.predict_one(x)
        booster.learn_one(x, y, w)
        assert booster._engine is engine
    copies = [
        pickle.loads(pickle.dumps(booster)),
        copy.deepcopy(booster),
        booster.clone(include_attributes=True),
    ]
    for c in copies:
        assert c._engine is not engine and c.pool is not booster.pool
        assert c._engine.pool.learners is c.pool.learners
    before = pickle.dumps(booster)
    for x, y, w in data[40:60]:  # the copies learn, the original does not
        for c in copies:
            c.learn_one(x, y, w)
    assert pickle.dumps(booster) == before
    for x, y, w in data[40:]:
        booster.learn_one(x, y, w)
    for x, y, w in data[60:]:
        for c in copies:
            c.learn_one(x, y, w)
    for c in copies:
        assert _same(_diagnostics(c), _diagnostics(booster))
        assert all(c.predict_proba_one(x) == booster.predict_proba_one(x) for x, _, _ in data)


# ----------------------------------------------------------------------------- entered in C


def test_a_subclass_overriding_a_method_reaches_the_entry_through_super(monkeypatch):
    seen = []

    class Logged(rb.AdaBoostOL):
        def learn_one(self, x, y, w=1.0, **kwargs):
            seen.append(y)
            return super().learn_one(x, y, w=w, **kwargs)

        def predict_proba_one(self, x, **kwargs):
            return super().predict_proba_one(x, **kwargs)

    data = _binary_stream(150, seed=7)
    logged = Logged(n_models=3, seed=2)
    plain = rb.AdaBoostOL(n_models=3, seed=2)
    for x, y, w in data:
        assert logged.predict_proba_one(x) == plain.predict_proba_one(x)
        logged.learn_one(x, y, w)
        plain.learn_one(x, y, w)
    assert len(seen) == len(data)
    assert logged._engine is not None


@pytest.mark.parametrize(
    "cls, stream", [(rb.AdaBoostOL, "binary"), (rb.OnlineMBBM, "multiclass")], ids=["OL", "MBBM"]
)
def test_a_learner_replaced_between_two_predictions_of_one_x_is_seen(cls, stream):
    """Learners replaced from Python (the engine's replace, as drift adaptation does) make
    the next prediction of the same x new."""
    data = STREAMS[stream](200, seed=8)
    a = cls(n_models=4, seed=3)
    for x, y, w in data[:-1]:
        a.predict_one(x)
        a.learn_one(x, y, w)
    b = pickle.loads(pickle.dumps(a))
    x = data[-1][0]
    before = a.predict_proba_one(x)
    for i in range(4):  # every learner starts over
        a._engine.replace(i)
        b._engine.replace(i)
    after = a.predict_proba_one(x)
    assert _same(after, b.predict_proba_one(x))  # b predicts x for the first time
    assert not _same(after, before)  # the replaced learners mattered


@pytest.mark.parametrize("module", ["engine._engine", "forest._forest"])
def test_without_a_compiled_extension_the_import_says_how_to_get_it(module):
    """A build without the compiled extensions (no compiler, or a source tree not built):
    ``import river_boost`` fails at once with an ImportError that says what is missing and
    how to install it, not a silent slowdown on the Python walk."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["river_boost.{module}"] = None  # importing it raises ImportError
        try:
            import river_boost
        except ImportError as e:
            print(e)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "compiled extensions cannot be imported" in out.stdout
    assert f"river_boost.{module}" in out.stdout
    assert "pip install" in out.stdout and "C compiler" in out.stdout


# a binary, two multiclass and two ranking boosters of each walk's rules (the binary walk
# keeps no task state: its cases are the control)
BOOSTERS_BY_STREAM = [
    (rb.AdaBoostOL, "binary"),
    (rb.OnlineBBM, "binary"),
    (rb.AdaBoostOLM, "multiclass"),
    (rb.OnlineMBBM, "multiclass"),
    (rb.AdaOLMR, "ranking"),
    (rb.OnlineBMR, "ranking"),
]


@pytest.mark.parametrize("cls, stream", BOOSTERS_BY_STREAM)
def test_what_is_learned_does_not_depend_on_a_prediction_before_it(cls, stream):
    """The walk a prediction made is reused by the learning of the same x only while the
    task's part of it is unchanged: a label that joins, or reaches the support a learner's
    vote needs (MIN_SUPPORT), makes the learning walk anew. (Before, the prediction's walk
    was reused, and what was learned depended on whether predict_proba_one ran first.)"""

    def learned(b):  # not the whole pickle: a prediction may add empty per-class entries to
        # a leaf's statistics, as River's own tree does (its defaultdicts), which change no
        # prediction; the booster's own state, the learners' updates and predictions count
        e = b._engine
        state = (e.ogd, e.hedge, e.task, e.n_seen, list(e.edge_num), list(e.edge_den))
        return pickle.dumps(state), b.learner_updates

    data = STREAMS[stream](300, seed=11)
    learn_only, predict_first = cls(n_models=3, seed=1), cls(n_models=3, seed=1)
    for t, (x, y, w) in enumerate(data):
        predict_first.predict_proba_one(x)  # pure: it must not change what is learned
        learn_only.learn_one(x, y, w)
        predict_first.learn_one(x, y, w)
        assert learned(learn_only) == learned(predict_first), t
    for x, _, _ in data[::10]:
        assert _same(learn_only.predict_proba_one(x), predict_first.predict_proba_one(x))


@pytest.mark.parametrize("cls", [rb.AdaOLMR, rb.OnlineBMR])
def test_ranking_labels_given_as_0_or_1_learn_as_bools_do(cls):
    """Label sets with 0/1 values take the ranking walk's general commit (a task.commit call,
    the walk kept only while task.walk_key() is unchanged): the same boosters as with bools,
    on each walk, whether each x was predicted first or not."""
    data = STREAMS["ranking"](200, seed=11)
    as_ints = [(x, {label: int(v) for label, v in y.items()}, w) for x, y, w in data]
    boosters = {}
    for compiled in (True, False):
        for name, stream, predict_first in (
            ("bools", data, True),
            ("ints", as_ints, True),
            ("ints, learning only", as_ints, False),
        ):
            b = boosters[compiled, name] = cls(n_models=3, seed=1)
            for x, y, w in stream:
                if predict_first:
                    _driven(b, compiled).predict_proba_one(x)
                _driven(b, compiled).learn_one(x, y, w)
    for (compiled, _), b in boosters.items():
        reference = boosters[compiled, "bools"]
        experts = (b._engine.ogd, b._engine.hedge)
        assert pickle.dumps(experts) == pickle.dumps(
            (reference._engine.ogd, reference._engine.hedge)
        )
        assert b.learner_updates == reference.learner_updates
        for x, _, _ in data[::20]:
            got = _driven(b, compiled).predict_proba_one(x)
            assert got == _driven(reference, compiled).predict_proba_one(x)


def test_onlinebmr_takes_its_difference_laws_from_the_potential_on_both_walks(monkeypatch):
    """OnlineBMR on the compiled and on the Python walk: both ask
    RankingPairPotential.difference_law (river_boost.engine._dp's DP) for their laws (that they
    compute the same scores from them is test_compiled_and_python_walks_agree_exactly's)."""
    data = _ranking_stream(120, 5)
    method = potentials.RankingPairPotential.difference_law
    calls = []

    def counted(self, *args):
        calls.append(args)
        return method(self, *args)

    monkeypatch.setattr(potentials.RankingPairPotential, "difference_law", counted)
    outputs, asked = [], []
    for compiled in (True, False):
        calls.clear()
        model = _driven(rb.OnlineBMR(n_models=5, gamma=0.2, seed=4), compiled)
        outputs.append([(model.score_one(x), model.learn_one(x, y, w)) for x, y, w in data])
        asked.append(len(calls))
    assert asked[0] > 0 and asked[1] > 0


@pytest.mark.parametrize("loss", ["hinge", "rank"])
def test_the_ranking_walks_pair_terms_and_costs_are_the_papers(loss):
    """OnlineBMR's pair terms (RankingPairPotential.pair_terms, compiled) and cost vectors
    (the walk's one pass over the gaps g, g - 1 and g + 1) against the readable ones, for
    gaps of every size (far beyond any reachable score: a hinge gap below -(n + 1) costs
    exactly 0), integers, halves and the edges of the law included."""
    rng = random.Random(13)
    pot = potentials.RankingPairPotential(gamma=0.1, loss=loss)
    for n in (0, 1, 4, 9, 25):
        gaps = [rng.uniform(-n - 3, n + 3) for _ in range(300)]
        gaps += [
            float(rng.randint(-n - 3, n + 3)) + rng.choice((0.0, 0.5, -0.5)) for _ in range(200)
        ]
        gaps += [0.0, -0.0, 2.0**50, -(2.0**50), 2.0**50 - 1, 2.0**53, -(2.0**60), 1e300, -1e300]
        G = np.array(gaps)
        for shift in (0.0, -1.0, 1.0):
            got = pot.pair_terms(G + shift, n, 3, 8)
            ref = oracle_rules.pair_terms(pot, G + shift, n, 3, 8)
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
            assert got[-1] == 0.0 and got[-3] == 0.0  # -1e300, -(2**60): never above 0
        for _ in range(20):
            s = np.array([rng.choice(gaps[:500]) for _ in range(8)])
            relevant = np.array([True, False, True, False, False, True, False, False])
            np.testing.assert_allclose(
                pot.cost_vector(s, relevant, n),
                oracle_rules.pair_cost_vector(pot, s, relevant, n),
                rtol=1e-9,
                atol=1e-15,
            )
