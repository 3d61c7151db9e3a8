"""The bench's figures: a grid of panels, one legend, and each panel's metric on its axis."""

from __future__ import annotations

import types

import pytest

pytest.importorskip("matplotlib")

from river_boost.bench import plots  # noqa: E402


def fake_results(streams, models):
    results, rows = [], {}
    for i, stream in enumerate(streams):
        for j, model in enumerate(models):
            accuracy = 0.6 + 0.01 * (i + j)
            curve = [(n, accuracy * n / 100) for n in range(10, 110, 10)]
            results.append(types.SimpleNamespace(stream=stream, model=model, seed=1, curve=curve))
            rows[model, stream] = {"throughput": 50.0 * 3**j, "accuracy_mean": accuracy}
    return results, rows


def test_each_panel_names_its_metric():
    assert plots.metric_name("yeast") == "1 − rank loss (%)"
    assert plots.metric_name("phishing") == "accuracy (%)"
    assert plots.metric_name("mulan_yeast") == "1 − rank loss (%)"
    assert plots.metric_name("car") == "accuracy (%)"


@pytest.mark.parametrize("n_streams", [1, 3, 4, 7])
def test_figures_are_written_for_any_number_of_streams(n_streams, tmp_path):
    streams = ["phishing", "bananas", "agrawal", "sea", "hyperplane", "imagesegments", "yeast"]
    models = ["HoeffdingTree", "River.AdaBoost", "AdaBoost.OL", "OnlineBBM(γ=0.1)"]
    results, rows = fake_results(streams[:n_streams], models)
    paths = plots.plot_bench(results, rows, streams[:n_streams], tmp_path)
    assert [p.name for p in paths] == ["accuracy_over_stream.png", "accuracy_vs_throughput.png"]
    assert all(p.stat().st_size > 0 for p in paths)


@pytest.mark.parametrize(
    ("value", "text"), [(50, "50"), (200, "200"), (1000, "1k"), (2500, "2.5k"), (2e6, "2M")]
)
def test_throughput_ticks_are_short(value, text):
    assert plots._short(value) == text
