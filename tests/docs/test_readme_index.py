"""The README as the package index shows it (setup.py's long description): no link of it
points into the repository relatively, which an index page cannot follow."""

from __future__ import annotations

import pathlib
import re
import runpy
import shutil

import pytest

from ..helpers import NO_SOURCES, SOURCES_HERE

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _long_description(root: pathlib.Path) -> str:
    return runpy.run_path(str(ROOT / "setup.py"), run_name="setup_for_tests")["long_description"](
        root
    )


def _targets(text: str) -> list:
    return [target for _, target in LINK.findall(text)]


def test_the_readme_has_relative_links_that_the_index_page_would_break():
    relative = [t for t in _targets((ROOT / "README.md").read_text()) if "://" not in t]
    assert relative, "the README has no relative link: this test checks nothing"
    for target in relative:  # and each works on a clone
        assert (ROOT / target.split("#")[0]).exists(), target


@pytest.mark.skipif(not SOURCES_HERE, reason=NO_SOURCES)
def test_the_index_page_has_no_relative_link(tmp_path):
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "river_boost" / "engine").mkdir(parents=True)
    version = pathlib.Path("river_boost", "engine", "_format.py")
    shutil.copy(ROOT / version, tmp_path / version)
    text = _long_description(tmp_path)
    assert all("://" in t or t.startswith("#") for t in _targets(text))
    # with a home for the sources, every link leads into it, at this version's tag
    pyproject = (tmp_path / "pyproject.toml").read_text()
    if "[project.urls]" not in pyproject:
        pyproject = pyproject.replace(
            "[tool.setuptools.dynamic]",
            '[project.urls]\nSource = "https://example.org/river-boost"\n\n'
            "[tool.setuptools.dynamic]",
        )
        (tmp_path / "pyproject.toml").write_text(pyproject)
    text = _long_description(tmp_path)
    relative = [t for t in _targets((ROOT / "README.md").read_text()) if "://" not in t]
    linked = [t for t in _targets(text) if "/blob/v" in t]
    assert len(linked) == len(relative)
    assert all(t.startswith("http") for t in _targets(text))


def test_the_version_is_the_changelogs_latest_release():
    import river_boost

    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases and releases[0] == river_boost.__version__
