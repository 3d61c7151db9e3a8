"""The boosters on the compiled forest give exactly what they give on River's own trees in
Python: every probability and prediction, on streams with sample weights, missing and nominal
features, and classes and features that first appear mid-stream."""

from __future__ import annotations

import itertools
import pickle
import random

import pytest
from river import datasets, tree
from river.datasets import synth

import river_boost as rb
from river_boost import forest


def _stream(task, n, seed):
    """A stream mixing the hard cases: weights, missing and nominal features, a late class and
    a late feature."""
    rng = random.Random(seed)
    if task == "multilabel":
        base = itertools.islice(datasets.Yeast(), n)
    elif task == "multiclass":
        base = itertools.islice(datasets.ImageSegments(), n)
    else:
        base = ((x, bool(y)) for x, y in synth.Agrawal(seed=seed).take(n))
    out = []
    for t, (x, y) in enumerate(base):
        x = {k: v for k, v in x.items() if rng.random() > 0.1}  # missing features
        x["colour"] = rng.choice(["red", "green", "blue"])  # a nominal feature
        if t > n // 2:
            x["late"] = rng.gauss(0, 1)  # a feature that appears mid-stream
            if task == "multiclass" and t % 7 == 0:
                y = "late class"  # a class that appears mid-stream
        out.append((x, y, rng.choice([1.0, 0.5, 3.0, rng.uniform(0.01, 5)])))
    return out


# The default trees' size limit (2 MiB) binds at different sizes in River's Python objects and
# in the forest's C trees, which are several times smaller (forest.py, "Memory measurement"):
# where the Python trees reach it within the stream (the papers' weights of 10-200 per example,
# ImageSegments' 19 features and 7 classes, Yeast's 103 features), a limit neither reaches.
UNBOUND = forest.BoundedHoeffdingTree(max_size=100.0)

CASES = [
    (rb.OnlineBBM, {"gamma": 0.2}, "binary"),
    (rb.AdaBoostOL, {"feature_fraction": 0.6}, "binary"),
    (rb.SquintBoost, {"diversify": "paper", "model": UNBOUND}, "binary"),
    (rb.AdaBoostOLM, {"model": UNBOUND}, "multiclass"),
    (rb.OnlineMBBM, {"weighting": "sampling"}, "multiclass"),
    (rb.AdaOLMR, {"model": tree.HoeffdingTreeClassifier(leaf_prediction="mc")}, "multilabel"),
    (rb.OnlineBMR, {"gamma": 0.1, "model": UNBOUND}, "multilabel"),
]


@pytest.mark.parametrize("cls, params, task", CASES, ids=[c[0].__name__ for c in CASES])
def test_compiled_and_python_learners_agree_exactly(cls, params, task, monkeypatch):
    stream = _stream(task, 400 if task == "multilabel" else 800, seed=3)
    compiled = cls(n_models=4, seed=5, **params)
    monkeypatch.setattr(forest, "ENABLED", False)
    python = cls(n_models=4, seed=5, **params)
    assert type(compiled.pool.learners) is forest.HoeffdingForest
    assert type(python.pool.learners) is not forest.HoeffdingForest
    predict = "score_one" if task == "multilabel" else "predict_proba_one"
    for t, (x, y, w) in enumerate(stream):
        assert getattr(compiled, predict)(x) == getattr(python, predict)(x)
        assert compiled.predict_one(x) == python.predict_one(x)
        compiled.learn_one(x, y, w=w)
        python.learn_one(x, y, w=w)
        if t == len(stream) // 2:  # pickled mid-stream, the compiled booster goes on the same
            compiled = pickle.loads(pickle.dumps(compiled))
    assert compiled.edges == python.edges and compiled.alphas == python.alphas
    assert [m.n_nodes for m in compiled.models] == [m.n_nodes for m in python.models]
