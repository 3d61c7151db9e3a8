"""The main job: `river-boost bench` runs, writes its files, and fails cleanly on bad input."""

from __future__ import annotations

import json

import pytest

from river_boost import bench, cli

SMALL = ["--streams", "phishing,sea", "--models", "HoeffdingTree,River.AdaBoost,AdaBoost.OL,OnlineBBM",
         "--gammas", "0.1,0.3", "--n-models", "3", "--n-samples", "150"]  # fmt: skip


def test_bench_prints_tables_and_writes_results_and_plots(tmp_path, capsys):
    out = tmp_path / "res"
    assert cli.main(["bench", *SMALL, "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Prequential accuracy" in printed and "OnlineBBM(best γ)" in printed
    for name in ("results.csv", "results.json", "accuracy_over_stream.png",
                 "accuracy_vs_throughput.png"):  # fmt: skip
        assert (out / name).stat().st_size > 0
    data = json.loads((out / "results.json").read_text())
    assert len(data["runs"]) == 2 * 5  # 2 streams x (3 models + 2 gammas)
    assert all(run["n_samples"] == 150 for run in data["runs"])
    boosters = [r for r in data["runs"] if r["family"] == "AdaBoost.OL"]
    assert all(0.0 <= r["overhead_share"] <= 1.0 for r in boosters)
    assert all(0.0 < r["update_share"] <= 1.0 for r in boosters)
    assert all(r["update_share"] is None for r in data["runs"] if r["family"] == "River.AdaBoost")
    assert "Weak-learner updates" in printed


def test_serial_and_parallel_runs_give_identical_metrics():
    runs = bench.grid(["phishing"], ["AdaBoost.OL", "OnlineBBM", "River.AdaBoost"], [0.2], [1, 2])
    serial = bench.run_grid(runs, n_models=3, n_samples=200, jobs=1)
    parallel = bench.run_grid(runs, n_models=3, n_samples=200, jobs=2)
    key = lambda r: (r.stream, r.model, r.seed, r.accuracy, r.curve)  # noqa: E731
    assert [key(r) for r in serial] == [key(r) for r in parallel]


def test_summary_ratios_and_best_gamma():
    runs = bench.grid(["phishing"], ["River.AdaBoost", "OnlineBBM"], [0.1, 0.3], [1])
    rows = bench.summarize(bench.run_grid(runs, n_models=2, n_samples=100))
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
