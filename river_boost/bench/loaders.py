"""Streams from the file formats the papers' data sets come in (ARFF, CSV, svmlight).

Each loader yields ``(x, y)`` pairs like River's ``stream`` module, whose readers (and
liac-arff's, for ARFF; the ``bench`` extra) do the parsing. Missing values (``?`` in ARFF,
empty cells in CSV) are left out of ``x``, which River's learners treat as missing features.
Errors are ``ValueError`` naming the file and line.
"""

from __future__ import annotations

import csv
import dataclasses
import pathlib
import re

from river import stream as river_stream

__all__ = [
    "iter_arff",
    "iter_csv",
    "iter_svmlight",
    "read_arff_header",
    "paper_set",
    "PaperSet",
    "PAPER_SETS",
]


def _liac_arff():
    try:
        import arff
    except ImportError:
        raise ImportError(
            "reading ARFF files needs liac-arff: pip install 'river-boost[bench]'"
        ) from None
    return arff


def _load_arff(path: pathlib.Path) -> dict:
    arff = _liac_arff()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return arff.load(f)
    except arff.ArffException as e:
        raise ValueError(f"{path}:{e.line}: {e}") from None


def read_arff_header(path) -> list:
    """The attributes of an ARFF file, as ``(name, kind, nominal values or None)``."""
    return [
        (name, "nominal", kind) if isinstance(kind, list) else (name, kind.lower(), None)
        for name, kind in _load_arff(pathlib.Path(path))["attributes"]
    ]


def _data_line(path: pathlib.Path, row: int) -> int:
    """The line of data row ``row`` (0-based) of an ARFF file, for error messages."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = enumerate(f, start=1)
        next(n for n, line in lines if line.strip().lower().startswith("@data"))
        rows = (n for n, line in lines if line.strip() and not line.strip().startswith("%"))
        return next(n for i, n in enumerate(rows) if i == row)


def iter_arff(path, target=None, label_true: str = "1"):
    """Iterate over an ARFF file (dense or sparse rows; read with liac-arff).

    Numeric values are floats; omitted values of sparse rows are 0 (numeric) or the first
    nominal value, as the format says. A missing (``?``) class value is a ``ValueError``.

    Parameters
    ----------
    path
        The ``.arff`` file.
    target
        Name of the class attribute (default: the last attribute), or a list of names for a
        multi-label file, in which case ``y`` is a dict ``{label: value == label_true}``.
    label_true
        The nominal value that means "relevant" for multi-label targets.
    """
    path = pathlib.Path(path)
    data = _load_arff(path)
    names = [name for name, _ in data["attributes"]]
    numeric = [
        not isinstance(kind, list) and kind.upper() != "STRING" for _, kind in data["attributes"]
    ]
    multi = isinstance(target, (list, tuple))
    targets = list(target) if multi else [target if target is not None else names[-1]]
    missing = [t for t in targets if t not in names]
    if missing:
        raise ValueError(f"{path}: no attribute named {', '.join(map(repr, missing))}")
    is_target = [name in targets for name in names]
    for row, values in enumerate(data["data"]):
        values = [float(v) if num and v is not None else v for v, num in zip(values, numeric)]
        x = {n: v for n, v, t in zip(names, values, is_target) if not t and v is not None}
        y = {n: v == label_true for n, v, t in zip(names, values, is_target) if t}
        if not multi:
            y = values[names.index(targets[0])]
            if y is None:
                raise ValueError(f"{path}:{_data_line(path, row)}: the class value is missing")
        yield x, y


def _number(text: str):
    """A CSV cell: a float where it parses, None if empty, else the text."""
    if not text.strip():
        return None
    try:
        return float(text)
    except ValueError:
        return text


def iter_csv(path, target: str, drop=()):
    """Iterate over a CSV file with a header row (``river.stream.iter_csv``), numbers parsed as
    floats where possible; empty cells are missing features and ``drop`` names columns to
    leave out (identifiers, or columns that give the label away)."""
    path = pathlib.Path(path)
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        header = next(csv.reader(f), [])
    if target not in header:
        raise ValueError(f"{path}: no column named {target!r}")
    converters = {c: _number for c in header if c != target and c not in drop}
    yield from river_stream.iter_csv(
        str(path), target=target, converters=converters, drop=list(drop), drop_nones=True
    )


def iter_svmlight(path, dense_features: int | None = None):
    """Iterate over an svmlight / LIBSVM file; labels as ints (``+1`` -> ``1``).

    With ``dense_features=d`` absent features ``1..d`` are filled with 0 (trees cannot split
    on a feature they never see).
    """
    rows = river_stream.iter_libsvm(str(path), target_type=lambda v: int(float(v)))
    line = 0
    try:
        for x, y in rows:
            line += 1
            if dense_features:
                x = {str(j): x.get(str(j), 0.0) for j in range(1, dense_features + 1)}
            yield x, y
    except ValueError as e:
        raise ValueError(f"{path}:{line + 1}: {e}") from None  # the line that failed


# ----------------------------------------------------------------------------- the papers' sets


def _first(folder: pathlib.Path, pattern: str) -> pathlib.Path:
    found = sorted(folder.glob(pattern))
    if not found:
        raise FileNotFoundError(f"no {pattern} file in {folder}")
    return found[0]


def _a9a(folder: pathlib.Path):
    for name in ("a9a", "a9a.t"):
        path = folder / name
        if not path.exists():
            raise FileNotFoundError(f"{path} not found")
        for x, y in iter_svmlight(path, dense_features=123):
            yield x, y > 0


def _letter(folder: pathlib.Path):
    path = _first(folder, "*.data")
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue  # the file ends with a blank line
            label, *values = line.strip().split(",")
            try:
                yield {f"x{i}": float(v) for i, v in enumerate(values, start=1)}, label
            except ValueError:
                raise ValueError(f"{path}:{lineno}: not a number in {line.strip()!r}") from None


def _arff(folder: pathlib.Path):
    yield from iter_arff(_first(folder, "*.arff"))


def _mice(folder: pathlib.Path):
    # MouseID identifies the row; Genotype, Treatment and Behavior together encode the class.
    drop = ("MouseID", "Genotype", "Treatment", "Behavior")
    yield from iter_csv(_first(folder, "*.csv"), target="class", drop=drop)


def _mulan(stem: str):
    """A MULAN multi-label set: its train split, then its test split; labels from the XML."""

    def read(folder: pathlib.Path):
        xml = _first(folder, "*.xml")
        labels = re.findall(r'<label name="([^"]+)"', xml.read_text())
        if not labels:
            raise ValueError(f"{xml}: no <label name=...> entries")
        for part in ("train", "test"):
            yield from iter_arff(folder / f"{stem}-{part}.arff", target=labels)

    return read


@dataclasses.dataclass(frozen=True)
class PaperSet:
    """One of the papers' data sets: its task, the reader of its folder, its number of rows
    and, for the sets published with a train/test split, the number of train rows (they come
    first)."""

    task: str
    read: object
    rows: int
    folder: str | None = None  # the folder under --data-dir, if not the set's name
    train_rows: int | None = None


# rows in file order (train split first)
PAPER_SETS = {
    "a9a": PaperSet("binary", _a9a, 48_842),
    "letter": PaperSet("multiclass", _letter, 20_000),
    "balance_scale": PaperSet("multiclass", _arff, 625),
    "car": PaperSet("multiclass", _arff, 1_728),
    "mushroom": PaperSet("multiclass", _arff, 8_124),
    "nursery": PaperSet("multiclass", _arff, 12_960),
    "mice_protein": PaperSet("multiclass", _mice, 1_080),
    "emotions": PaperSet("multilabel", _mulan("emotions"), 593, train_rows=391),
    "scene": PaperSet("multilabel", _mulan("scene"), 2_407, train_rows=1_211),
    "mulan_yeast": PaperSet("multilabel", _mulan("yeast"), 2_417, "yeast", train_rows=1_500),
    "mediamill_reduced": PaperSet("multilabel", _mulan("mediamill"), 2_000, train_rows=1_500),
}


def paper_set(name: str, data_dir) -> object:
    """Stream one of the papers' data sets (``PAPER_SETS``) from its folder under ``data_dir``.

    Each set sits in a folder of its own, named after the set (``mulan_yeast`` in ``yeast/``),
    with the files as their publishers distribute them: ``a9a`` and ``a9a.t`` from the LIBSVM
    data sets; ``letter-recognition.data`` from UCI; one ``.arff`` file for UCI's
    balance_scale, car, mushroom and nursery; UCI's mice protein sheet saved as one ``.csv``
    with its header; and for MULAN's emotions, scene, yeast and mediamill (reduced as by Jung
    & Tewari, 2018) the ``<stem>-train.arff``, ``<stem>-test.arff`` and ``<stem>.xml`` files.
    Multi-label sets yield their train split first, then their test split.

    Raises ``KeyError`` for an unknown name and ``FileNotFoundError`` when the files are
    absent.
    """
    if name not in PAPER_SETS:
        raise KeyError(f"unknown data set {name!r}; known: {', '.join(PAPER_SETS)}")
    spec = PAPER_SETS[name]
    folder = pathlib.Path(data_dir) / (spec.folder or name)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} not found (expected the folder of data set {name!r})")
    return spec.read(folder)
