"""`river-boost bench --task regression`: River's regression streams and regressors, MOA's
through capymoa, and MOA's classifiers on multiclass streams."""

from __future__ import annotations

import json
import math

import pytest

from river_boost import bench
from river_boost.bench import anchors, cli, registry, streams

RIVER_REGRESSORS = [
    "HoeffdingTreeRegressor",
    "River.ARFRegressor",
    "River.SRPRegressor",
    "River.BaggingRegressor",
    "River.AMFRegressor",
    "River.SGTRegressor",
]
needs_moa = pytest.mark.skipif(not anchors.available("capymoa"), reason="capymoa or Java absent")


def test_regression_bench_prints_errors_ranks_and_throughput_and_writes_its_files(tmp_path, capsys):
    out = tmp_path / "res"
    argv = ["bench", "--task", "regression", "--streams", "trump,friedman_lea"]
    argv += ["--models", "HTR,ARFRegressor", "--seeds", "1,2", "--n-samples", "120"]
    assert cli.main([*argv, "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for title in ("Prequential RMSE", "Prequential MAE", "Prequential R²", "Throughput (ex"):
        assert title in printed
    assert "Throughput ÷ River.ARFRegressor's" in printed and "mean rank" in printed
    assert "accuracy" not in printed.lower()
    data = json.loads((out / "results.json").read_text())
    assert len(data["runs"]) == 2 * 2 * 2  # streams x models x seeds
    for run in data["runs"]:
        assert run["n_samples"] == 120 and "accuracy" not in run
        assert run["rmse"] >= run["mae"] > 0 and run["r2"] <= 1
        assert run["curve"][-1] == [120, run["rmse"]]
    assert "rmse" in (out / "results.csv").read_text().splitlines()[0]
    for name in ("rmse_over_stream.png", "rmse_vs_throughput.png"):
        assert (out / name).stat().st_size > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--streams", "trump"], "add --task regression"),
        (["--task", "regression", "--streams", "phishing"], "drop --task regression"),
        (["--task", "regression", "--suite", "drift"], "classification suite"),
    ],
)
def test_streams_of_the_other_task_are_a_one_line_error(tmp_path, capsys, argv, message):
    assert cli.main(["bench", *argv, "--no-plot", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("river-boost: error:") and message in err and "\n" not in err


def test_the_classification_defaults_leave_the_regression_streams_and_models_out():
    assert not set(bench.DEFAULT_STREAMS) & set(bench.REGRESSION_STREAMS)
    assert not set(bench.DEFAULT_MODELS) & set(bench.REGRESSION_MODELS)
    assert set(RIVER_REGRESSORS) <= set(bench.REGRESSION_MODELS)
    assert bench.REGRESSION_MODELS[: len(RIVER_REGRESSORS)] == RIVER_REGRESSORS
    assert set(anchors.REGRESSION_ANCHORS) <= set(bench.REGRESSION_MODELS)


def test_every_regression_stream_ships_with_river_and_drifts_within_the_run():
    for name in bench.REGRESSION_STREAMS:
        examples, n = streams.stream_examples(name, 40)
        examples = list(examples)
        assert len(examples) == n == 40 and bench.task_of(name) == "regression"
        assert all(isinstance(y, (int, float)) for _, y in examples), name
        assert all(isinstance(v, (int, float, str)) for x, _ in examples for v in x.values())
    for kind, changes in (("lea", 3), ("gra", 2), ("gsg", 2)):
        drifting = streams.REGRESSION_STREAMS[f"friedman_{kind}"][0](2000)
        assert len(drifting.position) == changes and 0 < min(drifting.position)
        assert max(drifting.position) + drifting.transition_window < 2000


@pytest.mark.parametrize("name", RIVER_REGRESSORS)
def test_river_regressors_run_on_numeric_and_nominal_features(name):
    for stream in ("mv", "waterflow"):  # strings; a timestamp turned into numbers
        r = bench.run_one(stream, bench.ModelSpec(name), 1, 10, bench.Protocol(60))
        assert all(math.isfinite(v) for v in r.errors.values()) and r.accuracy is None
        assert r.skipped <= 1  # AMF predicts nothing before it learns: not scored


def test_a_regression_entry_is_all_ours_need(monkeypatch):
    """What adding river_boost's regressors takes: one Entry of the task "regression"."""
    from river import linear_model

    entry = registry.Entry(lambda n, seed: linear_model.LinearRegression(), registry.REGRESSION)
    monkeypatch.setitem(registry.REGISTRY, "Ours", entry)
    runs = bench.grid(["trump", "phishing"], ["Ours"], [0.1], [1])
    assert [(s, spec.family) for s, spec, _ in runs] == [("trump", "Ours")]
    (result,) = bench.run_grid(runs, n_models=None, protocol=bench.Protocol(50))
    assert set(result.errors) == {"mae", "rmse", "r2"}


def test_ranks_on_rmse_put_the_lowest_error_first():
    rows = {
        ("a", "s"): {"model": "a", "rmse_mean": 2.0},
        ("b", "s"): {"model": "b", "rmse_mean": 1.0},
        ("c", "s"): {"model": "c", "rmse_mean": 2.0},
    }
    ranks = bench.mean_ranks(rows, ["s"], "rmse_mean", lower_is_better=True)
    assert ranks == {"b": (1.0, 1), "a": (2.5, 1), "c": (2.5, 1)}


# ----------------------------------------------------------------------------- MOA (capymoa)


def _learn(model, examples):
    for x, y in examples:
        model.learn_one(x, y)
    return model


@needs_moa
def test_moa_regressors_run_on_nominal_features_and_grow_like_a_model_that_knew_them():
    r = bench.run_one("mv", bench.ModelSpec("MOA.SGBR"), 1, 2, bench.Protocol(60))
    assert all(math.isfinite(v) for v in r.errors.values()) and r.errors["mae"] > 0
    # a nominal value (and a feature) first seen mid-stream: the rebuilt model is the one
    # that had the attribute from the start
    examples = [({"a": i % 7, "c": "x" if i < 40 else "y"}, 2.0 * (i % 7)) for i in range(80)]
    examples[60][0]["b"] = 1.0
    grown = _learn(anchors.MOARegressor("ARF", 3, 1), examples)
    known = anchors.MOARegressor("ARF", 3, 1)
    known._columns = dict(grown._columns)
    _learn(known, examples)
    assert list(grown._columns)[-2:] == [("c", "y"), "b"]  # after the first example's
    probes = [{"a": a, "c": c} for a in range(7) for c in "xy"]
    assert [grown.predict_one(x) for x in probes] == [known.predict_one(x) for x in probes]


@needs_moa
def test_moa_classifiers_learn_labels_that_appear_mid_stream():
    examples = list(streams.stream_examples("imagesegments", 60)[0])
    for learner in ("SGBT", "ARF"):
        grown = _learn(anchors.MOAClassifier(learner, 1, 1), examples)
        assert sorted(grown._classes) == sorted({y for _, y in examples})
        known = anchors.MOAClassifier(learner, 1, 1)
        known._classes = list(grown._classes)
        _learn(known, examples)
        probes = [x for x, _ in examples[:20]]
        assert [grown.predict_proba_one(x) for x in probes] == [
            known.predict_proba_one(x) for x in probes
        ]
        assert set(grown.predict_proba_one(probes[0])) == set(grown._classes)
    for name in ("MOA.SGBT", "MOA.ARF", "MOA.SRP"):
        assert bench.runs_on(name, "imagesegments") and bench.runs_on(name, "phishing")
    assert not bench.runs_on("MOA.OzaBoost", "imagesegments")


@needs_moa
def test_moa_sgbt_runs_in_the_classification_bench_on_a_multiclass_stream(tmp_path, capsys):
    argv = ["bench", "--streams", "imagesegments", "--models", "MOA.SGBT,HoeffdingTree"]
    argv += ["--n-models", "1", "--n-samples", "60", "--jobs", "1", "--no-plot"]
    assert cli.main([*argv, "--out", str(tmp_path)]) == 0
    runs = json.loads((tmp_path / "results.json").read_text())["runs"]
    assert {r["model"] for r in runs} == {"MOA.SGBT", "HoeffdingTree"}
    assert all(0 < r["accuracy"] <= 1 for r in runs)


def test_moa_models_are_skipped_with_a_notice_without_capymoa_or_java(
    tmp_path, capsys, monkeypatch
):
    argv = ["bench", "--task", "regression", "--streams", "chickweights", "--n-samples", "40"]
    argv += ["--models", "HTR,SGBR", "--jobs", "1", "--no-plot", "--out", str(tmp_path)]
    monkeypatch.setattr(anchors, "_installed", lambda library: True)
    with monkeypatch.context() as no_java:
        no_java.delenv("JAVA_HOME", raising=False)
        no_java.setattr(anchors.shutil, "which", lambda name: None)
        assert cli.main(argv) == 0
        assert "skipping MOA.SGBR: capymoa needs Java" in capsys.readouterr().err
    monkeypatch.setattr(anchors, "_installed", lambda library: False)
    assert cli.main(argv) == 0
    assert "skipping MOA.SGBR: pip install capymoa (and Java)" in capsys.readouterr().err
    runs = json.loads((tmp_path / "results.json").read_text())["runs"]
    assert [r["model"] for r in runs] == ["HoeffdingTreeRegressor"]
