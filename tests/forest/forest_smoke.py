"""Quick smoke test of an installed wheel: the compiled forests are there and are River's trees.

Run as a script (cibuildwheel's test command: `python tests/forest/forest_smoke.py`).
"""

import itertools

from river import datasets, tree


def test_forest_smoke():
    from river_boost import forest

    configs = [{"grace_period": 20, "tau": 0.2}, {"grace_period": 50, "leaf_prediction": "mc"}]
    f = forest.HoeffdingForest([tree.HoeffdingTreeClassifier(**c) for c in configs])
    river = [tree.HoeffdingTreeClassifier(**c) for c in configs]
    for x, y in itertools.islice(datasets.Phishing(), 600):
        assert f.predict_proba_all(x) == [t.predict_proba_one(x) for t in river]
        for i, t in enumerate(river):
            f.learn_one(i, x, y)
            t.learn_one(x, y)
    assert f.n_nodes == [t.n_nodes for t in river]
    assert river[0].n_nodes > 1


def test_regression_forest_smoke():
    from river.datasets import synth

    from river_boost import forest

    configs = [{"grace_period": 50}, {"grace_period": 80, "leaf_prediction": "mean"}]
    f = forest.HoeffdingRegressionForest([tree.HoeffdingTreeRegressor(**c) for c in configs])
    river = [tree.HoeffdingTreeRegressor(**c) for c in configs]
    for x, y in synth.Friedman(seed=1).take(800):
        for i, t in enumerate(river):
            assert f.predict_one(i, x) == t.predict_one(x)
            f.learn_one(i, x, y)
            t.learn_one(x, y)
    assert f.n_nodes == [t.n_nodes for t in river]
    assert river[0].n_nodes > 1


if __name__ == "__main__":
    test_forest_smoke()
    test_regression_forest_smoke()
    print("forest smoke test: ok")
