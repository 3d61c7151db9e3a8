"""Streams from the file formats the papers' data sets come in (ARFF, CSV, svmlight).

Each loader yields ``(x, y)`` pairs like River's ``stream`` module. Missing values (``?`` in
ARFF, empty cells in CSV) are left out of ``x``, which River's learners treat as missing
features. Errors name the file and line.
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

NUMERIC = ("numeric", "real", "integer")


class _Attribute:
    def __init__(self, name: str, kind: str, values: list | None):
        self.name, self.kind, self.values = name, kind, values

    def parse(self, raw: str):
        raw = raw.strip()
        if raw == "?" or raw == "":
            return None
        raw = _unquote(raw)
        if self.kind == "numeric":
            return float(raw)
        return raw


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _split_attribute(line: str):
    """``@attribute NAME TYPE`` where NAME may be quoted and TYPE may be ``{a, b}``."""
    body = line.strip()[len("@attribute") :].strip()
    if body[0] in "'\"":
        end = body.index(body[0], 1)
        name, rest = body[1:end], body[end + 1 :].strip()
    else:
        name, _, rest = body.partition(" ")
        if "\t" in name:
            name, _, more = name.partition("\t")
            rest = more + " " + rest
        rest = rest.strip()
    if rest.startswith("{"):
        inner = rest[1 : rest.rindex("}")]
        values = [_unquote(v.strip()) for v in next(csv.reader([inner], skipinitialspace=True))]
        return _Attribute(name, "nominal", values)
    kind = rest.split()[0].lower() if rest else ""
    if kind in NUMERIC:
        return _Attribute(name, "numeric", None)
    if kind == "string":
        return _Attribute(name, "string", None)
    raise ValueError(f"unsupported attribute type {rest!r} for {name!r}")


def read_arff_header(path) -> list:
    """The attributes of an ARFF file, as ``(name, kind, nominal values or None)``."""
    with open(path, encoding="utf-8", errors="replace") as f:
        attrs, _ = _read_header(f, path)
    return [(a.name, a.kind, a.values) for a in attrs]


def _read_header(f, path):
    attrs = []
    for lineno, line in enumerate(f, start=1):
        low = line.strip().lower()
        if not low or low.startswith("%"):
            continue
        if low.startswith("@attribute"):
            try:
                attrs.append(_split_attribute(line))
            except (ValueError, IndexError) as e:
                raise ValueError(f"{path}:{lineno}: bad @attribute line: {e}") from None
        elif low.startswith("@data"):
            if not attrs:
                raise ValueError(f"{path}:{lineno}: @data before any @attribute")
            return attrs, lineno
    raise ValueError(f"{path}: no @data section")


def iter_arff(path, target=None, label_true: str = "1"):
    """Iterate over an ARFF file (dense or sparse rows).

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
    with open(path, encoding="utf-8", errors="replace") as f:
        attrs, header_end = _read_header(f, path)
        names = [a.name for a in attrs]
        multi = isinstance(target, (list, tuple))
        targets = list(target) if multi else [target if target is not None else names[-1]]
        missing = [t for t in targets if t not in names]
        if missing:
            raise ValueError(f"{path}: no attribute named {', '.join(map(repr, missing))}")
        is_target = [a.name in targets for a in attrs]
        for lineno, line in enumerate(f, start=header_end + 1):
            line = line.strip()
            if not line or line.startswith("%"):
                continue
            try:
                if line.startswith("{"):  # sparse row: omitted = 0 / first nominal value
                    cells = {}
                    for item in line[1 : line.rindex("}")].split(","):
                        if item.strip():
                            idx, _, val = item.strip().partition(" ")
                            cells[int(idx)] = val
                    raw = [
                        cells.get(j, "0" if a.kind == "numeric" else (a.values or ["0"])[0])
                        for j, a in enumerate(attrs)
                    ]
                else:
                    raw = next(csv.reader([line], quotechar="'", skipinitialspace=True))
                if len(raw) != len(attrs):
                    raise ValueError(f"{len(raw)} values for {len(attrs)} attributes")
                values = [a.parse(r) for a, r in zip(attrs, raw)]
            except (ValueError, IndexError) as e:
                raise ValueError(f"{path}:{lineno}: {e}") from None
            x = {n: v for n, v, t in zip(names, values, is_target) if not t and v is not None}
            if multi:
                y = {n: v == label_true for n, v, t in zip(names, values, is_target) if t}
            else:
                y = values[names.index(targets[0])]
            yield x, y


def iter_csv(path, target: str, drop=(), numeric: bool = True):
    """Iterate over a CSV file with a header row; empty cells are missing features.

    ``drop`` names columns to leave out (identifiers, or columns that give the label away);
    with ``numeric=True`` feature values are parsed as floats where possible.
    """
    path = pathlib.Path(path)
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or target not in reader.fieldnames:
            raise ValueError(f"{path}: no column named {target!r}")
        for row in reader:
            y = row.pop(target)
            x = {}
            for k, v in row.items():
                if k in drop or v is None or v.strip() == "":
                    continue
                if numeric:
                    try:
                        v = float(v)
                    except ValueError:
                        pass
                x[k] = v
            yield x, y


def iter_svmlight(path, dense_features: int | None = None):
    """Iterate over an svmlight / LIBSVM file; labels as ints (``+1`` -> ``1``).

    With ``dense_features=d`` absent features ``1..d`` are filled with 0 (trees cannot split
    on a feature they never see).
    """
    for x, y in river_stream.iter_libsvm(str(path), target_type=lambda v: int(float(v))):
        if dense_features:
            x = {str(j): x.get(str(j), 0.0) for j in range(1, dense_features + 1)}
        yield x, y


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
    """Stream one of the papers' binary / multiclass sets from ``data_dir/<name>/`` (the layout
    of ``shared/data``, see its MANIFEST). Raises ``KeyError`` for an unknown name and
    ``FileNotFoundError`` when the files are absent."""
    if name not in PAPER_SETS:
        raise KeyError(f"unknown data set {name!r}; known: {', '.join(PAPER_SETS)}")
    spec = PAPER_SETS[name]
    folder = pathlib.Path(data_dir) / (spec.folder or name)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} not found (expected the folder of data set {name!r})")
    return spec.read(folder)
