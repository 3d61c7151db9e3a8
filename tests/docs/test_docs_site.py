"""The documentation site builds in strict mode, and the code of its guide pages runs.

``mkdocs build --strict`` fails on a broken link, a missing page, a reference the API pages
cannot resolve or a docstring mkdocstrings cannot parse, so the site cannot rot unnoticed.
Skipped only when the docs tools (the ``dev`` extra) are not installed.
"""

from __future__ import annotations

import html
import inspect
import math
import os
import pathlib
import re
import subprocess
import sys

import pytest
from river import base

import river_boost
from river_boost.booster import Booster

from ..helpers import NO_SOURCES, SOURCES_HERE

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GUIDES = sorted((DOCS / "guide").glob("*.md")) + [DOCS / "index.md"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once for this module's tests."""
    if not SOURCES_HERE:
        pytest.skip(NO_SOURCES)
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("mkdocs_jupyter")
    site = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return site


def test_mkdocs_builds_strict(site):
    for page in ("index.html", "choosing/index.html", "api/binary/index.html"):
        assert (site / page).exists(), page
    # the API reference holds the boosters' docstrings, the notebooks their stored plots
    assert "AdaBoostOL" in (site / "api/binary/index.html").read_text()
    notebook = (site / "notebooks/binary_boosting/index.html").read_text()
    assert "data:image/png;base64" in notebook
    # the notebooks' runner is a script, not a page
    assert not (site / "notebooks/execute").exists()


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _parameter_rows(section: str) -> list:
    """(name, type, description, default) of each row of a class's Parameters table."""
    start = section.index('doc-section-title">Parameters:')
    table = section[start : section.index("</table>", start)]
    rows = []
    for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, re.S):
        cells = [_text(cell) for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
        rows.append(tuple(cells))
    return rows


BOOSTERS = [
    name
    for name in river_boost.__all__
    if inspect.isclass(getattr(river_boost, name))
    and issubclass(getattr(river_boost, name), base.Estimator)
]
DIAGNOSTICS = ("edges", "alphas", "expert_weights", "learner_updates", "n_seen", "replacements")


@pytest.mark.parametrize("name", BOOSTERS)
def test_each_booster_page_shows_every_parameter_and_the_diagnostics(site, name):
    """The built page, as a reader sees it: a row per constructor parameter with the
    signature's type and default and a description; the diagnostics listed under it."""
    cls = getattr(river_boost, name)
    module = inspect.getmodule(cls)
    page = (site / "api" / module.__name__.rsplit(".", 1)[1] / "index.html").read_text()
    anchor = f'id="{module.__name__}.{name}"'
    assert anchor in page, f"{name} is not on its module's page"
    section = page[page.index(anchor) :]
    following = re.search(r'id="river_boost\.\w+\.[A-Z]\w*"', section[len(anchor) :])
    if following:
        section = section[: len(anchor) + following.start()]
    rows = _parameter_rows(section)
    signature = inspect.signature(cls)
    assert [row[0] for row in rows] == list(signature.parameters), name
    for (pname, shown_type, description, default), param in zip(
        rows, signature.parameters.values()
    ):
        assert description, f"{name}.{pname}: no description"
        # the page shows annotations without their module prefix (base.Classifier: Classifier)
        expected = re.sub(r"\b[a-z_]\w*\.", "", param.annotation)
        assert shown_type == " ".join(expected.split()), f"{name}.{pname}: type {shown_type}"
        if param.default is inspect.Parameter.empty:
            assert default in ("", "required"), f"{name}.{pname}: default {default}"
        else:
            # the page drops module prefixes from defaults too (math.sqrt: sqrt)
            shown = eval(default, {**vars(math), **vars(module)})
            assert shown == param.default, f"{name}.{pname}: default {default}"
    if issubclass(cls, Booster):
        for diagnostic in DIAGNOSTICS:
            assert f'id="{module.__name__}.{name}.{diagnostic}"' in section, (name, diagnostic)


def test_internal_classes_have_no_page(site):
    for page in (site / "api").glob("*/index.html"):
        assert "EdgeBooster" not in page.read_text(), page


def test_the_changelog_links_lead_to_the_figures(site):
    """CHANGELOG.md links the RESULTS sections as the repository holds them; on the site
    (docs/_ext/changelog_links.py) each link leads to the benchmark page's section."""
    changelog = (site / "changelog" / "index.html").read_text()
    benchmarks = (site / "benchmarks" / "index.html").read_text()
    anchors = re.findall(r'href="\.\./benchmarks/#([\w-]+)"', changelog)
    assert anchors, "the changelog links no figures"
    for anchor in anchors:
        assert f'id="{anchor}"' in benchmarks, f"the benchmark page has no section {anchor}"
    assert not re.search(r'href="[^"]*RESULTS\.md', changelog), "a link to the repository's file"


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


# a ```python block followed by a ```text block: the output the page shows for it
SHOWN = [
    (page.name, *pair)
    for page in (ROOT / "README.md", DOCS / "index.md")
    for pair in re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", page.read_text(), re.S)
]


@pytest.mark.parametrize(
    "page, code, output", SHOWN, ids=[f"{page}-{i}" for i, (page, *_) in enumerate(SHOWN)]
)
def test_the_snippets_print_what_the_page_shows(page, code, output, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout == output


def test_the_readme_and_the_home_page_show_their_snippets_outputs():
    assert sum(page == "README.md" for page, *_ in SHOWN) >= 2  # quick start, multi-label
    assert any(page == "index.md" for page, *_ in SHOWN)
