"""Griffe extension for the API reference: the shared parameters, the docstrings' Sphinx roles
and reference lists.

The docstrings are numpydoc, as River's, with Sphinx cross-reference roles
(``:class:`~river_boost.pool.WeakLearnerPool```). mkdocstrings renders Markdown, so

- a preset's ``[shared: name]`` marker lines become the shared parameters' entries, from the
  texts in ``river_boost/_params_doc.py``, as they are at run time in the class's ``__doc__``
  (griffe reads the source, where only the markers are);
- a role becomes a cross-reference to the documented object when there is one (optional: a
  role naming an object the site does not document, e.g. River's, stays plain code), shown as
  its last component with ``~``, as Sphinx does;
- River's reference style, ``[^1]: Author, title`` lines with no footnote mark in the text,
  becomes a numbered list (Markdown would drop an unreferenced footnote);

Once the markers are expanded, every booster lists each of its parameters, River's way, and
griffe's numpy parser reads them as they are (``tests/docs/test_docs_api.py``).
"""

from __future__ import annotations

import html
import importlib.util
import pathlib
import re

import griffe

# The shared parameters' texts, loaded from their file: the site is built from the source and
# needs no compiled river_boost
_SPEC = importlib.util.spec_from_file_location(
    "_river_boost_params_doc",
    pathlib.Path(__file__).resolve().parents[2] / "river_boost" / "_params_doc.py",
)
params_doc = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(params_doc)

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([\w.]+)`")
FOOTNOTE = re.compile(r"^\[\^(\w+)\]:\s*", re.M)


def _role(match: re.Match, module: str) -> str:
    tilde, target = match.groups()
    shown = target.rsplit(".", 1)[-1] if tilde else target
    if "." not in target:
        target = f"{module}.{target}"
    return (
        f'<autoref identifier="{html.escape(target)}" optional>'
        f"<code>{html.escape(shown)}</code></autoref>"
    )


class RiverBoostDocstrings(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is None:
            return
        module = obj.module.path if not obj.is_module else obj.path
        value = obj.docstring.value
        if obj.is_class:
            value = params_doc.expand(value)
        value = FOOTNOTE.sub(lambda m: f"{m.group(1)}. ", value)
        obj.docstring.value = ROLE.sub(lambda m: _role(m, module), value)
