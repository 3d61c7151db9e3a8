"""Loaders for the papers' file formats, on small files written here and (optionally) the
shared data sets, skipped when ../shared/data is absent."""

from __future__ import annotations

import itertools

import pytest

from river_boost.bench import loaders

from ..helpers import SHARED_DATA

ARFF = """% a comment
@relation toy
@attribute 'first name' {a, 'b c', d}
@attribute len real
@attribute n INTEGER
@attribute class {yes,no}

@data
a,1.5,3,yes
'b c',?,4,no
% comment in data
d, 2 ,?,yes
"""

SPARSE = """@relation ml
@attribute f1 numeric
@attribute f2 numeric
@attribute l1 {0,1}
@attribute l2 {0,1}
@data
{0 1.5,3 1}
{1 2,2 1,3 1}
{}
"""


def test_dense_arff_with_quotes_missing_values_and_target(tmp_path):
    path = tmp_path / "toy.arff"
    path.write_text(ARFF)
    rows = list(loaders.iter_arff(path))
    assert rows == [
        ({"first name": "a", "len": 1.5, "n": 3.0}, "yes"),
        ({"first name": "b c", "n": 4.0}, "no"),
        ({"first name": "d", "len": 2.0}, "yes"),
    ]
    assert loaders.read_arff_header(path)[0] == ("first name", "nominal", ["a", "b c", "d"])
    x, y = next(loaders.iter_arff(path, target="first name"))
    assert y == "a" and x["class"] == "yes"


def test_sparse_multilabel_arff(tmp_path):
    path = tmp_path / "ml.arff"
    path.write_text(SPARSE)
    rows = list(loaders.iter_arff(path, target=["l1", "l2"]))
    assert rows == [
        ({"f1": 1.5, "f2": 0.0}, {"l1": False, "l2": True}),
        ({"f1": 0.0, "f2": 2.0}, {"l1": True, "l2": True}),
        ({"f1": 0.0, "f2": 0.0}, {"l1": False, "l2": False}),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("@relation r\n@attribute a real\n", ":2: .*layout"),
        ("@relation r\n@attribute a date\n@data\n1\n", ":2: .*ATTRIBUTE type"),
        ("@relation r\n@attribute a real\n@attribute c {x,y}\n@data\n1,x,3\n", ":5: .*1,x,3"),
        ("@relation r\n@attribute a real\n@attribute c {x,y}\n@data\nzz,x\n", ":5: .*numerical"),
        (
            "@relation r\n@attribute a real\n@attribute c {x,y}\n@data\n% c\n1,x\n\n2,?\n",
            ":8: .*missing",
        ),
    ],
)
def test_bad_arff_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.arff"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        list(loaders.iter_arff(path))


def test_unknown_target_is_a_clear_error(tmp_path):
    path = tmp_path / "toy.arff"
    path.write_text(ARFF)
    with pytest.raises(ValueError, match="no attribute named 'label'"):
        list(loaders.iter_arff(path, target="label"))


def test_csv_drops_columns_and_missing_cells(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,a,b,class\n1,0.5,,x\n2,,text,y\n")
    assert list(loaders.iter_csv(path, target="class", drop=("id",))) == [
        ({"a": 0.5}, "x"),
        ({"b": "text"}, "y"),
    ]
    with pytest.raises(ValueError, match="no column named"):
        list(loaders.iter_csv(path, target="label"))


def test_svmlight_dense_fill(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("+1 1:1 3:0.5\n-1 2:1\n")
    assert list(loaders.iter_svmlight(path, dense_features=3)) == [
        ({"1": 1.0, "2": 0.0, "3": 0.5}, 1),
        ({"1": 0.0, "2": 1.0, "3": 0.0}, -1),
    ]


needs_data = pytest.mark.skipif(not SHARED_DATA.exists(), reason="../shared/data is absent")


@needs_data
@pytest.mark.parametrize(
    "folder, file, n_rows, n_classes",
    [
        ("balance_scale", "balance-scale.arff", 625, 3),
        ("car", "car.arff", 1728, 4),
        ("mushroom", "mushroom.arff", 8124, 2),
        ("nursery", "nursery.arff", 12960, 5),
    ],
)
def test_shared_arff_sets_load(folder, file, n_rows, n_classes):
    rows = list(loaders.iter_arff(SHARED_DATA / folder / file))
    assert len(rows) == n_rows
    assert len({y for _, y in rows}) == n_classes


@needs_data
def test_shared_mice_protein_loads():
    path = next((SHARED_DATA / "mice_protein").glob("*.csv"))
    drop = ("MouseID", "Genotype", "Treatment", "Behavior")  # these give the class away
    rows = list(loaders.iter_csv(path, target="class", drop=drop))
    assert len(rows) == 1080 and len({y for _, y in rows}) == 8
    assert all(isinstance(v, float) for x, _ in itertools.islice(rows, 50) for v in x.values())


def test_arff_without_attributes_is_a_clear_error(tmp_path):
    path = tmp_path / "empty.arff"
    path.write_text("@relation x\n@data\n1,2\n")
    with pytest.raises(ValueError, match=r"empty.arff:2: .*layout"):
        list(loaders.iter_arff(path))


def test_bad_svmlight_token_names_the_file_and_line(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("+1 1:1\n-1 2:x\n")
    with pytest.raises(ValueError, match=r"s.txt:2: "):
        list(loaders.iter_svmlight(path))
