"""The API reference tells the truth about every public booster's parameters.

The site's parameter tables come from griffe: it parses each class's numpy docstring and
fills a parameter's type and default from the signature when the docstring leaves them out.
This loads the package the way the site does (the griffe extensions ``mkdocs.yml`` names) and
checks, for every public booster, that each parameter of its constructor is documented with a
description, and that the type and default the page shows are the signature's. A parameter
entry the parser misreads (several names on one entry, a wrapped line) shows up here as a
missing parameter or a wrong type.
"""

from __future__ import annotations

import inspect
import pathlib

import pytest
from river import base

import river_boost

from ..helpers import NO_SOURCES, SOURCES_HERE

griffe = pytest.importorskip("griffe")
yaml = pytest.importorskip("yaml")

ROOT = pathlib.Path(__file__).resolve().parents[2]

BOOSTERS = [
    name
    for name in river_boost.__all__
    if inspect.isclass(getattr(river_boost, name))
    and issubclass(getattr(river_boost, name), base.Estimator)
]


def _python_options() -> dict:
    # mkdocs.yml has !!python/name tags (the theme's emoji); only the handler options matter
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            return plugin["mkdocstrings"]["handlers"]["python"]["options"]
    raise AssertionError("mkdocs.yml has no mkdocstrings python handler")


@pytest.fixture(scope="module")
def package():
    if not SOURCES_HERE:
        pytest.skip(NO_SOURCES)
    options = _python_options()
    extensions = [
        str(ROOT / ext) if isinstance(ext, str) and ext.startswith("docs/") else ext
        for ext in options.get("extensions", [])
    ]
    return griffe.load(
        "river_boost",
        search_paths=[str(ROOT)],
        docstring_parser=options.get("docstring_style", "numpy"),
        docstring_options={"warn_unknown_params": False, "warn_missing_types": False},
        extensions=griffe.load_extensions(*extensions),
    )


def _documented(cls_doc) -> dict:
    sections = [s for s in cls_doc.docstring.parsed if s.kind.value == "parameters"]
    assert len(sections) == 1, f"{cls_doc.path}: {len(sections)} Parameters sections"
    return {p.name: p for p in sections[0].value}


def _shown(value) -> str:
    return " ".join(str(value).split())


@pytest.mark.parametrize("name", BOOSTERS)
def test_every_parameter_is_documented_with_the_signature_type_and_default(package, name):
    cls = getattr(river_boost, name)
    cls_doc = package[f"{cls.__module__}.{name}".removeprefix("river_boost.")]
    documented = _documented(cls_doc)
    signature = inspect.signature(cls)
    module = inspect.getmodule(cls)
    missing = [p for p in signature.parameters if p not in documented]
    unknown = [p for p in documented if p not in signature.parameters]
    assert not missing and not unknown, f"{name}: undocumented {missing}, unknown {unknown}"
    for pname, param in signature.parameters.items():
        doc = documented[pname]
        assert doc.description.strip(), f"{name}.{pname} has no description"
        # with `from __future__ import annotations` the runtime annotation is the source text
        assert _shown(doc.annotation) == _shown(param.annotation), (
            f"{name}.{pname}: the page shows type {doc.annotation!s}, "
            f"the signature says {param.annotation!s}"
        )
        if param.default is inspect.Parameter.empty:
            assert doc.default is None, f"{name}.{pname} is required, the page shows a default"
        else:
            assert doc.default is not None, f"{name}.{pname}: the page shows no default"
            shown = eval(str(doc.default), vars(module))  # the expression the page shows
            assert shown == param.default, (
                f"{name}.{pname}: the page shows default {doc.default!s}, "
                f"the signature's is {param.default!r}"
            )
    # in the signature's order, as River lists them
    assert list(documented) == list(signature.parameters), f"{name}: not in signature order"


def test_internal_classes_are_not_in_the_reference():
    pages = (ROOT / "docs" / "api").glob("*.md")
    text = "\n".join(page.read_text() for page in pages)
    for internal in ("EdgeBooster", "river_boost.engine"):
        assert internal not in text


@pytest.mark.parametrize("name", BOOSTERS)
def test_the_run_time_docstring_writes_out_every_parameter(name):
    """``help()`` and River's tools read ``__doc__``: the shared parameters' markers
    (``river_boost/_params_doc.py``) are written out there, every parameter in order."""
    cls = getattr(river_boost, name)
    assert "[shared:" not in cls.__doc__, f"{name}: a shared parameter's marker is left"
    doc = griffe.Docstring(inspect.cleandoc(cls.__doc__), parser="numpy")
    parsed = doc.parse(warn_unknown_params=False, warn_missing_types=False)
    sections = [s for s in parsed if s.kind.value == "parameters"]
    assert len(sections) == 1, f"{name}: {len(sections)} Parameters sections"
    documented = {p.name: p.description for p in sections[0].value}
    assert list(documented) == list(inspect.signature(cls).parameters), name
    for pname, description in documented.items():
        assert description.strip(), f"{name}.{pname} has no description"
