"""Build script for the optional compiled Hoeffding-tree forest (``river_boost._forest``) and
the boosters' compiled walk (``river_boost._walk``).

Everything else is in ``pyproject.toml``. The extension is ``optional``: without a C compiler
(or without Cython at build time) ``pip install`` still succeeds and
``river_boost.forest.AVAILABLE`` is False, so the pure-Python trees are used.
"""

import os

from setuptools import Extension, setup

# Exactness: River's arithmetic must be reproduced bit for bit, so no floating-point
# contraction (fused multiply-add), no fast-math, and no compiler folding of pow(x, 2.0)
# into x * x (glibc's pow, which CPython's ** calls, differs from x * x in the last bit).
EXACT_FLAGS = ["-O2", "-ffp-contract=off", "-fno-fast-math", "-fno-builtin-pow"]

# The compiled forest, one module per role (_forest.pyx says which); _forest cimports the others
FOREST_MODULES = ("_criteria", "_splitters", "_registry", "_leaves", "_trees", "_forest")


def _extensions():
    try:
        from Cython.Build import cythonize
    except ImportError as e:  # Cython missing: install without the extension
        print(f"river_boost: not building the compiled forest ({e})")
        return []
    # MSVC: precise floating point (no contraction); exactness is only verified on Linux/glibc
    extra = ["/fp:precise"] if os.name == "nt" else EXACT_FLAGS
    try:  # the walk calls NumPy's own float64 dot function (its C API, NumPy >= 2)
        import numpy

        numpy_include = [numpy.get_include()]
    except ImportError as e:
        print(f"river_boost: not building the compiled walk ({e})")
        numpy_include = None
    exts = [
        Extension(
            f"river_boost.{name}",
            [f"river_boost/{name}.pyx"],
            extra_compile_args=extra,
            include_dirs=include,
            optional=True,
        )
        # _forest and the modules it cimports (_criteria, _splitters, ...): the compiled trees;
        # _walk: the boosters' compiled walk (walk.py)
        for name, include in (
            *((m, []) for m in FOREST_MODULES),
            ("_walk", numpy_include),
        )
        if include is not None
    ]
    extensions = cythonize(exts, compiler_directives={"language_level": "3"})
    for e in extensions:  # cythonize() does not carry `optional` over
        e.optional = True
    return extensions


setup(ext_modules=_extensions())
