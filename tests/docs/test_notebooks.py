"""Every notebook's code runs top to bottom (cells executed in order, plots to a file backend).

This needs no Jupyter: the code cells are read from the .ipynb JSON and executed, so a
notebook that drifts from the library fails here.
"""

from __future__ import annotations

import json
import pathlib

import matplotlib
import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    cells = json.loads(path.read_text())["cells"]
    namespace: dict = {"__name__": "__notebook__"}
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            exec(compile(source, f"{path.name}[cell {i}]", "exec"), namespace)
    plt.close("all")


def test_there_are_notebooks():
    assert NOTEBOOKS
