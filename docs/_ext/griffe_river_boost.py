"""Griffe extension for the API reference: the docstrings' Sphinx roles and shared parameters.

The docstrings are numpydoc, as River's, with Sphinx cross-reference roles
(``:class:`~river_boost.core.WeakLearnerPool```). mkdocstrings renders Markdown, so

- a role becomes a cross-reference to the documented object when there is one (optional: a
  role naming an object the site does not document, e.g. River's, stays plain code), shown as
  its last component with ``~``, as Sphinx does;
- a parameter entry naming several parameters at once (``model, n_models, seed`` followed by
  one description: the parameters every booster shares) is split into one entry per name, so
  that each shows its own type and default from the signature;
- River's reference style, ``[^1]: Author, title`` lines with no footnote mark in the text,
  becomes a numbered list (Markdown would drop an unreferenced footnote).
"""

from __future__ import annotations

import html
import re

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([\w.]+)`")
MANY_NAMES = re.compile(r"^([A-Za-z_]\w*(?:, [A-Za-z_]\w*)+)$")
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


def _split_shared_parameters(text: str) -> str:
    lines = text.split("\n")
    out, section, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1]) and line.strip():
            section = line.strip()
        names = MANY_NAMES.match(line)
        if section == "Parameters" and names:
            j = i + 1
            # the description: the indented lines after the names (a blank line inside it
            # belongs to it only if more indented lines follow)
            while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                ends = j + 1 >= len(lines) or not lines[j + 1].startswith(" ")
                if not lines[j].strip() and ends:
                    break
                j += 1
            description = lines[i + 1 : j]
            for name in names.group(1).split(", "):
                out += [name, *description]
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RiverBoostDocstrings(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is None:
            return
        module = obj.module.path if not obj.is_module else obj.path
        value = _split_shared_parameters(obj.docstring.value)
        value = FOOTNOTE.sub(lambda m: f"{m.group(1)}. ", value)
        obj.docstring.value = ROLE.sub(lambda m: _role(m, module), value)
