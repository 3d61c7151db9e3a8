"""The main job: `river-boost bench` runs, writes its files, and fails cleanly on bad input."""

from __future__ import annotations

import json
import pathlib

import pytest

from river_boost import bench
from river_boost.bench import cli, loaders, runner

from ..helpers import SHARED_DATA

SMALL = [
    "--streams",
    "phishing,sea",
    "--models",
    "HoeffdingTree,River.AdaBoost,AdaBoost.OL,OnlineBBM",
    "--gammas",
    "0.1,0.3",
    "--n-models",
    "3",
    "--n-samples",
    "150",
]


def test_bench_prints_tables_and_writes_results_and_plots(tmp_path, capsys):
    out = tmp_path / "res"
    assert cli.main(["bench", *SMALL, "--jobs", "1", "--details", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Prequential accuracy" in printed and "OnlineBBM(best γ)" in printed
    assert "Booster overhead" in printed and "seeds 42\n" in printed  # not [42]
    for name in (
        "results.csv",
        "results.json",
        "accuracy_over_stream.png",
        "accuracy_vs_throughput.png",
    ):
        assert (out / name).stat().st_size > 0
    data = json.loads((out / "results.json").read_text())
    assert len(data["runs"]) == 2 * 5  # 2 streams x (3 models + 2 gammas)
    assert all(run["n_samples"] == 150 for run in data["runs"])
    boosters = [r for r in data["runs"] if r["family"] == "AdaBoost.OL"]
    assert all(0.0 <= r["overhead_share"] <= 1.0 for r in boosters)
    assert all(0.0 < r["update_share"] <= 1.0 for r in boosters)
    assert all(r["update_share"] is None for r in data["runs"] if r["family"] == "River.AdaBoost")
    assert "Weak-learner updates" in printed


def test_river_models_are_read_back_from_the_cache_and_boosters_always_run(tmp_path, capsys):
    folder = bench.ResultCache.default_folder()
    assert str(folder).startswith(str(tmp_path.parent.parent))  # the fixture's, not ~/.cache
    args = ["bench", *SMALL, "--jobs", "1", "--no-plot"]
    assert cli.main([*args, "--out", str(tmp_path / "a")]) == 0
    printed = capsys.readouterr().out
    assert "from the cache" not in printed
    # the diagnostic tables are behind --details
    assert "Booster overhead" not in printed and "Weak-learner updates" not in printed
    assert len(list(folder.glob("*.pkl"))) == 2 * 2  # River's two models on two streams
    assert cli.main([*args, "--out", str(tmp_path / "b")]) == 0
    printed = capsys.readouterr().out
    assert "read from the cache" in printed and "HoeffdingTree, River.AdaBoost" in printed
    assert "its cached run" in printed
    first, second = (json.loads((tmp_path / d / "results.json").read_text()) for d in "ab")
    same = ("stream", "model", "seed", "accuracy", "curve", "seconds")
    for a, b in zip(first["runs"], second["runs"]):
        river = a["family"] in ("HoeffdingTree", "River.AdaBoost")
        assert [a[k] for k in same[:-1]] == [b[k] for k in same[:-1]]
        assert (a["seconds"] == b["seconds"]) == river  # boosters ran again
    assert cli.main([*args, "--no-cache", "--out", str(tmp_path / "c")]) == 0
    assert "from the cache" not in capsys.readouterr().out


def test_a_cached_river_model_without_river_adaboost_still_gives_tables_and_files(tmp_path, capsys):
    # No River.AdaBoost in the grid: no speed table, and the notice of a cached run must not
    # need one (the second run used to end in KeyError: 'speed', writing nothing).
    args = ["bench", "--streams", "phishing", "--models", "AdaBoostOL,River.ARF"]
    args += ["--n-models", "3", "--n-samples", "120", "--jobs", "1", "--no-plot"]
    for run in "ab":
        assert cli.main([*args, "--out", str(tmp_path / run)]) == 0
        printed = capsys.readouterr().out
        assert "Prequential accuracy" in printed and "Throughput (examples/s" in printed
        assert "River.AdaBoost's" not in printed
        data = json.loads((tmp_path / run / "results.json").read_text())
        assert sorted(r["model"] for r in data["runs"]) == ["AdaBoost.OL", "River.ARF"]
        assert (tmp_path / run / "results.csv").stat().st_size > 0
    assert "River's models read from the cache of earlier runs" in printed
    assert "River.ARF" in printed.split("read from the cache")[1].splitlines()[0]


def test_help_has_examples_and_comma_separated_defaults(capsys):
    for argv, example in (
        ([], "river-boost bench --streams phishing"),
        (["bench"], "river-boost bench --details"),
        (["tune"], "river-boost tune --streams phishing"),
    ):
        with pytest.raises(SystemExit) as exc:
            cli.main([*argv, "--help"])
        assert exc.value.code == 0
        text = capsys.readouterr().out
        assert "examples:" in text and example in text and "``" not in text
        assert "default: [" not in " ".join(text.split())  # no Python lists
    cli.make_parser().parse_args(["bench"])  # the defaults still parse
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 0.05,0.1,0.2,0.3)" in text and "(default: 42)" in text
    with pytest.raises(SystemExit):
        cli.main(["tune", "--help"])
    assert "(default: 5,10,20)" in " ".join(capsys.readouterr().out.split())


def test_did_you_mean_prefers_installed_models(capsys, monkeypatch):
    from river_boost.bench import anchors

    monkeypatch.setattr(anchors, "available", lambda library: False)
    with pytest.raises(SystemExit):
        cli.main(["bench", "--models", "ARF"])
    err = capsys.readouterr().err
    assert "did you mean River.ARF?" in err
    # only uninstalled candidates: named with what they need
    with pytest.raises(SystemExit):
        cli.main(["bench", "--models", "MOA.ARG"])
    assert "did you mean MOA.ARF (needs capymoa)" in capsys.readouterr().err


def test_only_uninstalled_models_is_a_complete_one_line_error(tmp_path, capsys, monkeypatch):
    from river_boost.bench import anchors

    monkeypatch.setattr(anchors, "available", lambda library: False)
    argv = ["bench", "--streams", "phishing", "--models", "MOA.ARF", "--out", str(tmp_path)]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("river-boost: error: no model to run: MOA.ARF needs capymoa")
    assert err.endswith("or choose other --models") and "\n" not in err


def test_the_cache_misses_on_other_options_and_survives_a_damaged_file(tmp_path):
    cache = bench.ResultCache(tmp_path / "cache")
    runs = bench.grid(["phishing"], ["HoeffdingTree", "AdaBoost.OL"], [0.2], [1])
    protocol = bench.Protocol(n_samples=100)
    first = bench.run_grid(runs, n_models=2, protocol=protocol, cache=cache)
    assert cache.hits == 0 and not any(r.cached for r in first)
    again = bench.run_grid(runs, n_models=2, protocol=protocol, cache=cache)
    assert cache.hits == 1 and [r.cached for r in again] == [True, False]
    assert again[0].accuracy == first[0].accuracy and again[0].curve == first[0].curve
    other = bench.run_grid(runs, n_models=2, protocol=bench.Protocol(n_samples=90), cache=cache)
    assert cache.hits == 1 and other[0].n_samples == 90
    for path in (tmp_path / "cache").glob("*.pkl"):
        path.write_bytes(b"not a pickle")
    rerun = bench.run_grid(runs, n_models=2, protocol=protocol, cache=cache)
    assert cache.hits == 1 and rerun[0].accuracy == first[0].accuracy


def test_the_cache_key_covers_the_code_of_the_streams_the_models_and_the_runs(
    tmp_path, monkeypatch
):
    """A cached River run is read back only under the same code of the bench's streams, models
    and runs: a change to any of the three modules gives other keys."""
    salts = [runner.ResultCache(tmp_path)._salt]
    real = pathlib.Path.read_bytes
    for name in ("streams.py", "registry.py", "runner.py"):

        def changed(self, name=name):
            return real(self) + (b"# changed" if self.name == name else b"")

        monkeypatch.setattr(pathlib.Path, "read_bytes", changed)
        salts.append(runner.ResultCache(tmp_path)._salt)
    assert len(set(salts)) == 4


def test_n_models_default_runs_boosters_at_their_defaults_and_river_at_ten(tmp_path):
    """``--n-models default``: each booster as its class builds it, River's ensembles at 10
    (so that their cached runs at 10 are read back)."""
    cache = bench.ResultCache(tmp_path / "cache")
    protocol = bench.Protocol(n_samples=60)
    ten = bench.run_grid(
        bench.grid(["phishing"], ["River.ARF"], [0.1], [1]), 10, protocol, cache=cache
    )
    runs = bench.grid(["phishing"], ["OSBoost.OCP", "MartingaleBooster", "River.ARF"], [0.1], [1])
    results = bench.run_grid(runs, n_models=None, protocol=protocol, cache=cache)
    learners = {r.family: r.n_models for r in results}
    assert learners == {"OSBoost.OCP": 20, "MartingaleBooster": 10, "River.ARF": 10}
    assert cache.hits == 1 and results[-1].cached and results[-1].accuracy == ten[0].accuracy
    assert bench.learners_of("AdaBoost.OLM+drift", None) is None
    assert bench.learners_of("MOA.ARF", None) == bench.OTHER_N_MODELS
    assert bench.learners_of("MOA.ARF", 3) == 3
    out = tmp_path / "res"
    argv = ["bench", "--streams", "phishing", "--models", "OSBoost.OCP", "--n-models", "default"]
    argv += ["--n-samples", "60", "--jobs", "1", "--no-plot", "--out", str(out)]
    assert cli.main(argv) == 0
    assert json.loads((out / "results.json").read_text())["runs"][0]["n_models"] == 20


def test_boosters_run_on_the_compiled_walk_and_their_forest_time_is_measured():
    """The walk times its own calls into the learners (drift boosters too): the bench does
    not wrap a booster's learners."""
    for name in ("AdaBoost.OL", "AdaBoost.OL+drift"):
        model = bench.build(bench.ModelSpec(name), 3, 1)
        learners = model.pool.learners
        model, measured = runner._instrument(model, [0.0])
        assert measured == "walk" and model.pool.learners is learners
    r = bench.run_one("phishing", bench.ModelSpec("AdaBoost.OL"), 1, 3, bench.Protocol(200))
    assert 0.0 < r.weak_seconds < r.seconds


def test_the_martingale_booster_keeps_its_compiled_forest_when_timed():
    """Wrapping the nodes' template to time it kept River's trees in Python nodes: the bench
    times the forest's calls instead, with the same metrics as Python nodes."""
    from river_boost import forest, martingale

    spec, protocol = bench.ModelSpec("MartingaleBooster"), bench.Protocol(300)
    model, measured = runner._instrument(bench.build(spec, 3, 1), [0.0])
    assert measured is True and isinstance(model._forest, runner._Timed)
    timed = bench.run_one("bananas", spec, 1, 3, protocol)
    assert 0.0 < timed.weak_seconds < timed.seconds
    forest.ENABLED = False  # River's trees in Python nodes, timed through the template
    try:
        python = bench.run_one("bananas", spec, 1, 3, protocol)
    finally:
        forest.ENABLED = True
    assert martingale.MartingaleBooster(n_levels=3)._forest is not None
    for field in ("accuracy", "curve", "update_share", "nodes"):
        assert getattr(timed, field) == getattr(python, field), field
    assert 0.0 < python.weak_seconds < python.seconds


def test_serial_and_parallel_runs_give_identical_metrics():
    runs = bench.grid(["phishing"], ["AdaBoost.OL", "OnlineBBM", "River.AdaBoost"], [0.2], [1, 2])
    serial = bench.run_grid(runs, n_models=3, protocol=bench.Protocol(n_samples=200), jobs=1)
    parallel = bench.run_grid(runs, n_models=3, protocol=bench.Protocol(n_samples=200), jobs=2)
    key = lambda r: (r.stream, r.model, r.seed, r.accuracy, r.curve)  # noqa: E731
    assert [key(r) for r in serial] == [key(r) for r in parallel]


def test_summary_ratios_and_best_gamma():
    runs = bench.grid(["phishing"], ["River.AdaBoost", "OnlineBBM"], [0.1, 0.3], [1])
    rows = bench.summarize(bench.run_grid(runs, n_models=2, protocol=bench.Protocol(n_samples=100)))
    assert rows["River.AdaBoost", "phishing"]["speed_vs_reference"] == 1.0
    best = rows["OnlineBBM(best γ)", "phishing"]
    assert best["accuracy_mean"] == max(
        rows[f"OnlineBBM(γ={g})", "phishing"]["accuracy_mean"] for g in (0.1, 0.3)
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--streams", "nope"],
        ["bench", "--models", "XGBoost"],
        ["bench", "--gammas", "0.1,2"],
        ["bench", "--n-models", "0"],
        ["bench", "--n-models", "defaults"],
        ["bench", "--seeds", "a"],
        ["bench", "--frobnicate"],
        [],
    ],
)
def test_bad_options_give_one_line_and_nonzero_exit(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("river-boost: error:") and "\n" not in err and "Traceback" not in err


def test_unwritable_output_is_a_one_line_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = cli.main(["bench", *SMALL, "--jobs", "1", "--no-plot", "--out", str(blocker / "sub")])
    assert code == 1
    assert capsys.readouterr().err.strip().startswith("river-boost: error:")


def test_joblib_and_dask_backends_give_the_serial_results():
    """Same seeds, same metrics, wherever the runs execute (a Dask LocalCluster here)."""
    distributed = pytest.importorskip("distributed")
    runs = bench.grid(
        ["phishing", "sea"], ["AdaBoost.OL", "OnlineBBM", "HoeffdingTree"], [0.2], [1, 2]
    )
    serial = bench.run_grid(runs, n_models=3, protocol=bench.Protocol(n_samples=150), jobs=1)
    joblib_runs = bench.run_grid(
        runs, n_models=3, protocol=bench.Protocol(n_samples=150), jobs=2, backend="joblib"
    )
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        seen = []
        dask_runs = bench.run_grid(
            runs,
            n_models=3,
            protocol=bench.Protocol(n_samples=150),
            backend="dask",
            scheduler=cluster.scheduler_address,
            progress=seen.append,
        )
    key = lambda r: (r.stream, r.model, r.seed, r.accuracy, r.curve)  # noqa: E731
    assert [key(r) for r in serial] == [key(r) for r in joblib_runs] == [key(r) for r in dask_runs]
    assert len(seen) == len(runs)


def test_unreachable_dask_scheduler_is_a_one_line_error(capsys):
    pytest.importorskip("distributed")
    code = cli.main(
        ["bench", *SMALL, "--no-plot", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"]
    )
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("river-boost: error:") and "\n" not in err


def test_split_accuracies_add_up_to_the_prequential_accuracy():
    r = bench.run_one("phishing", bench.ModelSpec("OnlineBBM", 0.2), 1, 3, bench.Protocol(500, 0.8))
    prefix, suffix = r.split_accuracy
    assert r.accuracy == pytest.approx(0.8 * prefix + 0.2 * suffix)
    plain = bench.run_one("phishing", bench.ModelSpec("OnlineBBM", 0.2), 1, 3, bench.Protocol(100))
    assert plain.split_accuracy is None


def test_tune_picks_the_best_prefix_configuration_and_reports_the_rest(tmp_path, capsys):
    out = tmp_path / "tune"
    argv = [
        "tune",
        "--streams",
        "phishing",
        "--models",
        "OnlineBBM,AdaBoost.OL",
        "--gammas",
        "0.1,0.3",
        "--n-models",
        "2,4",
        "--learning-rates",
        "2,4",
        "--seeds",
        "1,2",
        "--n-samples",
        "200",
        "--jobs",
        "1",
        "--out",
        str(out),
    ]
    assert cli.main(argv) == 0
    assert "held-out accuracy" in capsys.readouterr().out
    data = json.loads((out / "tune.json").read_text())
    assert len(data["runs"]) == 2 * (2 * 2 + 2 * 2)  # seeds x (γ x N + lr x N)
    assert all(r["n_samples"] == 200 for r in data["runs"])  # --n-samples, not the stream's
    for chosen in data["chosen"]:
        for seed, (model, n), held in zip((1, 2), chosen["chosen"], chosen["held_out_accuracy"]):
            cands = [
                r
                for r in data["runs"]
                if r["seed"] == seed and r["model"].startswith(chosen["family"] + "(")
            ]
            best = max(r["split_accuracy"][0] for r in cands)
            pick = next(r for r in cands if r["model"] == model and r["n_models"] == n)
            assert pick["split_accuracy"][0] == best and pick["split_accuracy"][1] == held


@pytest.mark.parametrize(
    "argv",
    [
        ["tune", "--split", "1.5"],
        ["tune", "--n-models", "0"],
        ["tune", "--learning-rates", "-1"],
        ["tune", "--streams", "x"],
    ],
)
def test_tune_bad_options_give_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().startswith("river-boost: error:")


CAR_ARFF = """@relation car
@attribute buying {vhigh,high,med,low}
@attribute safety {low,med,high}
@attribute class {unacc,acc,good}
@data
""" + "".join(
    f"{b},{s},{c}\n"
    for b, s, c in [
        ("vhigh", "low", "unacc"),
        ("low", "high", "good"),
        ("med", "med", "acc"),
        ("high", "low", "unacc"),
        ("low", "med", "acc"),
        ("med", "high", "good"),
    ]
    * 10
)


def test_data_dir_streams_the_papers_sets(tmp_path, capsys):
    (tmp_path / "car").mkdir()
    (tmp_path / "car" / "car.arff").write_text(CAR_ARFF)
    out = tmp_path / "res"
    argv = [
        "bench",
        "--streams",
        "car",
        "--models",
        "HoeffdingTree,AdaBoost.OLM,OnlineMBBM",
        "--gammas",
        "0.1",
        "--n-models",
        "2",
        "--jobs",
        "1",
        "--no-plot",
        "--data-dir",
        str(tmp_path),
        "--out",
        str(out),
    ]
    assert cli.main(argv) == 0
    runs = json.loads((out / "results.json").read_text())["runs"]
    assert {r["model"] for r in runs} == {"HoeffdingTree", "AdaBoost.OLM", "OnlineMBBM(γ=0.1)"}
    assert all(r["n_samples"] == 60 for r in runs)


@pytest.mark.parametrize("content", ["@relation x\n@data\n1,2\n", "not an arff file\n"])
def test_unreadable_data_file_is_a_one_line_error(tmp_path, capsys, content):
    (tmp_path / "car").mkdir()
    (tmp_path / "car" / "car.arff").write_text(content)
    code = cli.main(
        ["bench", "--streams", "car", "--data-dir", str(tmp_path), "--out", str(tmp_path / "res")]
    )
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("river-boost: error:") and "\n" not in err


def test_papers_sets_need_a_data_dir(capsys):
    assert cli.main(["bench", "--streams", "nursery"]) == 1
    assert "--data-dir" in capsys.readouterr().err


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="shared data absent")
@pytest.mark.parametrize("name", sorted(loaders.PAPER_SETS))
def test_every_papers_set_loads(name):
    spec = loaders.PAPER_SETS[name]
    examples = list(loaders.paper_set(name, SHARED_DATA))
    assert len(examples) == spec.rows
    if spec.task == "multilabel":  # label dicts over the same labels, train split first
        assert len({tuple(y) for _, y in examples}) == 1 and 0 < spec.train_rows < spec.rows
        return
    labels = {y for _, y in examples}
    assert (labels == {False, True}) if spec.task == "binary" else len(labels) >= 2


def test_missing_anchor_libraries_are_skipped_with_a_notice(tmp_path, capsys, monkeypatch):
    from river_boost.bench import anchors

    monkeypatch.setattr(anchors, "available", lambda library: False)
    argv = [
        "bench",
        "--streams",
        "phishing",
        "--models",
        "HoeffdingTree,VW.BBM,MOA.OzaBoost",
        "--n-samples",
        "100",
        "--jobs",
        "1",
        "--no-plot",
        "--out",
        str(tmp_path),
    ]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert "skipping VW.BBM: pip install vowpalwabbit" in captured.err
    assert "skipping MOA.OzaBoost: pip install capymoa" in captured.err
    runs = json.loads((tmp_path / "results.json").read_text())["runs"]
    assert [r["model"] for r in runs] == ["HoeffdingTree"]


@pytest.mark.parametrize(
    "name, library",
    [("VW.BBM", "vowpalwabbit"), ("VW.adaptive", "vowpalwabbit"), ("MOA.OzaBoost", "capymoa")],
)
def test_installed_anchors_run_like_river_models(name, library):
    pytest.importorskip(library)
    r = bench.run_one("phishing", bench.ModelSpec(name), seed=1, n_models=5)
    assert r.accuracy > 0.8


def test_multilabel_stream_runs_its_own_models_and_reports_one_minus_rank_loss():
    runs = bench.grid(
        ["yeast"], ["HoeffdingTree", "River.ClassifierChain", "AdaOLMR", "OnlineBMR"], [0.1], [1]
    )
    assert [spec.label for _, spec, _ in runs] == [
        "River.ClassifierChain",
        "AdaOLMR",
        "OnlineBMR(γ=0.1)",
    ]
    results = bench.run_grid(runs, n_models=2, protocol=bench.Protocol(n_samples=60))
    for r in results:
        assert 0.0 < r.accuracy <= 1.0  # 1 - mean rank loss
    booster = next(r for r in results if r.model == "AdaOLMR")
    assert booster.update_share > 1.0  # one update per relevant label
