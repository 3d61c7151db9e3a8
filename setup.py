"""Build script for the compiled Hoeffding-tree forest (``river_boost.forest._forest`` and the
modules it cimports) and the boosters' compiled walk (``river_boost.engine._walk``).

Everything else is in ``pyproject.toml``. The extensions are required (``import
river_boost`` says how to get them when they are missing): a source install needs a C
compiler; Cython and SciPy (whose Cython API the rules cimport) come from the build
requirements.
"""

import os
import pathlib
import re
import tomllib

# Exactness: River's arithmetic must be reproduced bit for bit, so no floating-point
# contraction (fused multiply-add), no fast-math, and no compiler folding of pow(x, 2.0)
# into x * x (glibc's pow, which CPython's ** calls, differs from x * x in the last bit).
EXACT_FLAGS = ["-O2", "-ffp-contract=off", "-fno-fast-math", "-fno-builtin-pow"]

# The compiled forest (river_boost/forest/), one module per role (_forest.pyx says which);
# _forest cimports the others
FOREST_MODULES = (
    "_criteria",
    "_linear",
    "_qo",
    "_ebst",
    "_splitters",
    "_registry",
    "_leaves",
    "_trees",
    "_storage",
    "_input",
    "_core",
    "_forest",
    "_regtrees",
    "_state",
    "_regforest",
)
# The boosters' engines (river_boost/engine/: _engine, the walk and the state it changes;
# _binary, _multiclass, _ranking, the tasks' engines; _gradient, the gradient boosters' walk, and
# _losses, their losses) and their parts: the constants, the
# experts, the rules, the cost matrices, the cleaning of x, the exact potentials' dynamic
# programs, the calls into the learners
ENGINE_MODULES = (
    "_constants",
    "_experts",
    "_rules",
    "_costs",
    "_clean",
    "_dp",
    "_learners",
    "_engine",
    "_binary",
    "_multiclass",
    "_ranking",
    "_losses",
    "_gradient",
)


def _extensions():
    # (imported here: the tests read long_description where no build requirement is installed)
    from Cython.Build import cythonize
    from setuptools import Extension

    # MSVC: precise floating point (no contraction)
    extra = ["/fp:precise"] if os.name == "nt" else EXACT_FLAGS
    exts = [
        Extension(
            f"river_boost.{pkg}.{name}", [f"river_boost/{pkg}/{name}.pyx"], extra_compile_args=extra
        )
        # (_rules cimports SciPy's Cython API for Squint's erfcx)
        for pkg, names in (("forest", FOREST_MODULES), ("engine", ENGINE_MODULES))
        for name in names
    ]
    return cythonize(exts, compiler_directives={"language_level": "3"})


# A link of the README to a file of the repository, ``[text](docs/guide/drift.md)``: such
# links work on a clone and on the code host, not on the package index's page
_RELATIVE_LINK = re.compile(r"\[([^\]]+)\]\((?!https?://|#|mailto:)([^)\s]+)\)")


def long_description(root: pathlib.Path = pathlib.Path(__file__).parent) -> str:
    """The README for the package index, whose page cannot follow the README's relative
    links: each points into the repository named by ``[project.urls] Source`` in
    pyproject.toml (at this version's tag), or, without one, is kept as its text alone."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    source = project.get("urls", {}).get("Source", "").rstrip("/")
    version = re.search(
        r'__version__ = "([^"]+)"', (root / "river_boost" / "engine" / "_format.py").read_text()
    ).group(1)

    def absolute(match):
        text, target = match.groups()
        if not source:
            return text
        return f"[{text}]({source}/blob/v{version}/{target.lstrip('./')})"

    return _RELATIVE_LINK.sub(absolute, (root / "README.md").read_text(encoding="utf-8"))


if __name__ == "__main__":  # (the tests import long_description alone)
    from setuptools import setup

    setup(
        ext_modules=_extensions(),
        long_description=long_description(),
        long_description_content_type="text/markdown",
    )
