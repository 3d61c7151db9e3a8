"""The martingale booster with its nodes' trees in one compiled forest gives exactly what it
gives with River's trees in Python nodes: every probability, the program's shape and every
diagnostic, on streams with sample weights, missing and nominal features, and a feature that
first appears mid-stream; pickled mid-stream, it goes on identically."""

from __future__ import annotations

import pickle
import random

import pytest
from river import naive_bayes, tree
from river.datasets import synth

import river_boost as rb
from river_boost import forest
from river_boost.engine._contract import clean_features
from river_boost.martingale import _ForestTree

from ..forest.test_forest import tree_state

NOMINAL = ["elevel", "car", "zipcode"]


def _stream(n, seed):
    rng = random.Random(seed)
    out = []
    for t, (x, y) in enumerate(synth.Agrawal(classification_function=1, seed=seed).take(n)):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}  # missing features
        x["colour"] = rng.choice(["red", "green", "blue", "grey", "teal"])  # a nominal one
        if t > n // 2:
            x["late"] = rng.gauss(1.0 if y else -1.0, 1.0)  # appears mid-stream
        out.append((x, bool(y), rng.choice([1.0, 0.5, 2.0, rng.uniform(0.05, 4.0)])))
    return out


CASES = {
    "default": {"seed": 1},
    "warm_start": {
        "seed": 2,
        "warm_start": True,
        "n_levels": 6,
        "grace_period": 40,
        "min_node_samples": 5,
    },
    "hard_unbalanced_sign_mean": {
        "seed": 3,
        "hard": True,
        "train_balanced": False,
        "prediction": "sign",
        "step_rule": "mean",
        "epsilon": 0.9,
        "grace_period": 60,
        "min_node_samples": 5,
    },
    "river_tree_nominal_binary_warm": {
        "seed": 4,
        "model": tree.HoeffdingTreeClassifier(
            grace_period=10, tau=0.2, binary_split=True, nominal_attributes=NOMINAL
        ),
        "warm_start": True,
        "n_levels": 5,
        "grace_period": 50,
        "min_node_samples": 5,
    },
    "mc_leaves": {
        "seed": 5,
        "model": tree.HoeffdingTreeClassifier(
            grace_period=20, leaf_prediction="mc", split_criterion="gini", delta=0.05
        ),
        "n_levels": 8,
        "gamma_min": 0.3,
        "grace_period": 30,
        "min_node_samples": 3,
    },
}


def _diagnostics(m):
    return (m.n_nodes, m.gammas, m.advantages, m.n_frozen, m.level_visits, [*m._steps, *m._platt])


def _run(booster, stream, pickle_at=None, protocol=None):
    """Every prediction and, every 50 examples, the diagnostics; pickled at ``pickle_at``."""
    trace = []
    for t, (x, y, w) in enumerate(stream):
        trace.append(booster.predict_proba_one(x))
        booster.learn_one(x, y, w=w)
        if t % 50 == 0:
            trace.append(_diagnostics(booster))
        if t == pickle_at:
            booster = pickle.loads(pickle.dumps(booster, protocol=protocol))
    trace.append(_diagnostics(booster))
    return booster, trace


_REFERENCE = {}


def _python_reference(case, n, seed):
    """The booster with Python nodes (forest.ENABLED off): run once per module."""
    key = (case, n, seed)
    if key not in _REFERENCE:
        saved = forest.ENABLED
        forest.ENABLED = False
        try:
            booster = rb.MartingaleBooster(**CASES[case])
        finally:
            forest.ENABLED = saved
        assert booster._forest is None
        _REFERENCE[key] = _run(booster, _stream(n, seed))
    return _REFERENCE[key]


def _compiled(case):
    booster = rb.MartingaleBooster(**CASES[case])
    assert type(booster._forest) is forest.HoeffdingForest
    return booster


@pytest.mark.parametrize("case", list(CASES))
def test_compiled_nodes_give_exactly_the_python_nodes_results(case):
    python, want = _python_reference(case, 800, seed=7)
    compiled, got = _run(_compiled(case), _stream(800, seed=7))
    assert got == want
    assert sum(compiled.n_nodes) > 5
    # node by node, the forest's tree is the Python node's River tree
    live = 0
    for level_c, level_p in zip(compiled._levels, python._levels):
        assert list(level_c) == list(level_p)
        for key, node in level_c.items():
            other = level_p[key]
            assert node.frozen == other.frozen
            assert (node.counts, node.mean_h, node.n_h) == (other.counts, other.mean_h, other.n_h)
            if not node.frozen:
                assert type(node.model) is _ForestTree
                assert tree_state(node.model.to_river()) == tree_state(other.model)
                live += 1
    assert compiled._forest.n_models == live  # one tree per live node


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickled_mid_stream_goes_on_identically(protocol):
    _, want = _python_reference("warm_start", 400, seed=8)
    _, got = _run(_compiled("warm_start"), _stream(400, seed=8), pickle_at=200, protocol=protocol)
    assert got == want


def test_frozen_nodes_get_no_tree():
    booster = _compiled("default")
    booster._steps = [0.5, 0.5]  # as if two levels had committed gamma = 0.5
    threshold = rb.martingale.freezing_threshold([0.5, 0.5], booster.epsilon)
    assert booster._new_node(threshold + 0.01, 2).frozen
    assert booster._forest.n_models == 1  # the root's
    assert booster._new_node(threshold - 0.01, 2).model.index == 1


def test_node_handles_answer_as_river_trees(monkeypatch):
    params = {"seed": 9, "n_levels": 3, "grace_period": 50}
    compiled = rb.MartingaleBooster(**params)
    monkeypatch.setattr(forest, "ENABLED", False)
    python = rb.MartingaleBooster(**params)
    stream = _stream(300, seed=9)
    for x, y, w in stream:
        compiled.learn_one(x, y, w=w)
        python.learn_one(x, y, w=w)
    x = stream[0][0]
    clean = clean_features(x)
    for key, node in compiled._levels[1].items():
        assert node.model.predict_proba_one(clean) == python._levels[1][
            key
        ].model.predict_proba_one(clean)
    # a handle's own conversion unloads the booster's x: the booster loads again
    assert compiled.predict_proba_one(x) == python.predict_proba_one(x)
    compiled._levels[0][0].model.predict_proba_one(clean)
    compiled.learn_one(x, True)
    python.learn_one(x, True)
    assert compiled.predict_proba_one(x) == python.predict_proba_one(x)


def test_unsupported_templates_and_the_switch_keep_python_nodes(monkeypatch):
    for model in (
        naive_bayes.GaussianNB(),
        tree.HoeffdingAdaptiveTreeClassifier(),
        tree.HoeffdingTreeClassifier(splitter=tree.splitter.HistogramSplitter()),
    ):
        booster = rb.MartingaleBooster(model=model, seed=0)
        assert booster._forest is None
        assert type(booster._levels[0][0].model) is type(model)
    trained = tree.HoeffdingTreeClassifier()
    trained.learn_one({"a": 1.0}, True)
    assert rb.MartingaleBooster(model=trained)._forest is not None  # nodes get fresh clones
    monkeypatch.setattr(forest, "ENABLED", False)
    assert rb.MartingaleBooster()._forest is None
