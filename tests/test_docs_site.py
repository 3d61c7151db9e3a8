"""The documentation site builds in strict mode, and the code of its guide pages runs.

``mkdocs build --strict`` fails on a broken link, a missing page, a reference the API pages
cannot resolve or a docstring mkdocstrings cannot parse, so the site cannot rot unnoticed.
Skipped only when the docs tools (the ``dev`` extra) are not installed.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDES = sorted((DOCS / "guide").glob("*.md")) + [DOCS / "index.md"]


def test_mkdocs_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("mkdocs_jupyter")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    site = tmp_path / "site"
    for page in ("index.html", "choosing/index.html", "api/binary/index.html"):
        assert (site / page).exists(), page
    # the API reference holds the boosters' docstrings, the notebooks their stored plots
    assert "AdaBoostOL" in (site / "api/binary/index.html").read_text()
    notebook = (site / "notebooks/binary_boosting/index.html").read_text()
    assert "data:image/png;base64" in notebook


def test_the_notebooks_are_stored_with_their_outputs():
    import json

    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        outputs = [o for c in code for o in c["outputs"]]
        # every notebook draws at least one figure, and stores it
        assert any("image/png" in o.get("data", {}) for o in outputs), (
            f"{path.name} has no stored plot: run python notebooks/execute.py"
        )
        assert all("execution" not in c["metadata"] for c in code), path.name


@pytest.mark.parametrize("page", GUIDES, ids=[p.name for p in GUIDES])
def test_guide_code_runs(page, tmp_path):
    """Every ```python block of a guide page, in order, as one script.

    In a child process: the pages stream thousands of examples, and the heap they leave
    behind would hide growth from the memory tests that run later in this process."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    script = tmp_path / f"{page.stem}.py"
    script.write_text("\n".join(blocks))
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{page.name}:\n{done.stderr[-4000:]}"
