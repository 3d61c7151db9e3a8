"""MkDocs hook: the changelog page's links lead to the site's pages.

``CHANGELOG.md`` links what it cites as the repository holds it (``benchmarks/RESULTS.md#...``,
``docs/guide/weak-learners.md``). The site's changelog page (``docs/changelog.md``) is a
pymdownx.snippets line that includes it, and on the site those pages are ``benchmarks.md`` (which
includes ``benchmarks/RESULTS.md``) and ``guide/weak-learners.md``. MkDocs checks the links while
it converts the page, after any hook could see the included text, so this hook includes
``CHANGELOG.md`` itself, in place of the snippet line, with those links rewritten.
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SNIPPET = re.compile(r'^--8<-- "CHANGELOG\.md:(\d+):"$', re.M)
# a repository path as a link's target, inline or in a reference definition
LINK = re.compile(r"(\]\(|^\[[\w-]+\]: )(benchmarks/RESULTS\.md|docs/)", re.M)
SITE = {"benchmarks/RESULTS.md": "benchmarks.md", "docs/": ""}


def _include(match: re.Match) -> str:
    lines = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").split("\n")
    text = "\n".join(lines[int(match[1]) - 1 :])  # from that line on, as the snippet would
    return LINK.sub(lambda link: link[1] + SITE[link[2]], text)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if page.file.src_uri != "changelog.md":
        return markdown
    return SNIPPET.sub(_include, markdown)
