"""A pickled forest changed after it was written is a PickleFormatError, never a crash in C:
every id its trees hold is checked against its feature, value and class tables, and every
node against its kind's shape, before the compiled import reads them."""

from __future__ import annotations

import copy
import random

import pytest
from river import tree

from river_boost import PickleFormatError
from river_boost.forest import HoeffdingForest, _rebuild


def _grown_forest():
    """Three trees on numeric and nominal features and three classes, split several times."""
    rng = random.Random(3)
    forest = HoeffdingForest([tree.HoeffdingTreeClassifier(grace_period=20) for _ in range(3)])
    for _ in range(1500):
        x = {
            "a": rng.random(),
            "b": rng.random(),
            "colour": rng.choice("rgbk"),
            "size": "sml"[rng.randrange(3)],
        }
        y = ("low" if x["a"] < 0.3 else "mid") if x["colour"] in "rg" else "high"
        for i in range(3):
            forest.learn_one(i, x, y, 1.0)
    return forest, rng


def _reduced(forest):
    _, (cls, models, feature_filter, state, stamp) = forest.__reduce__()
    return cls, models, feature_filter, state, stamp


def test_the_grown_forest_has_what_the_checks_read():
    forest, _ = _grown_forest()
    *_, state, _ = _reduced(forest)
    nodes = [node for t in state["flat_trees"] for node in t[9] or ()]
    assert any(node[0] == 1 for node in nodes), "no split: the checks of splits are not run"
    assert any(sp[1] for node in nodes if node[0] == 0 for sp in node[9] or ())


def _ints(obj, path=()):
    """Paths to every int (not bool) in a nested state of tuples, lists and dicts."""
    if isinstance(obj, bool):
        return
    if isinstance(obj, int):
        yield path
    elif isinstance(obj, (tuple, list)):
        for k, v in enumerate(obj):
            yield from _ints(v, path + (k,))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("flat_trees",):
                yield from _ints(v, path + (k,))


def _replaced(obj, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {**obj, head: _replaced(obj[head], rest, value)}
    items = list(obj)
    items[head] = _replaced(items[head], rest, value)
    return tuple(items) if isinstance(obj, tuple) else items


def fuzz_loads(rebuild, reduced, paths, use) -> int:
    """Rebuild ``reduced`` (a forest's __reduce__ arguments) with each int at ``paths`` made
    -1 and 10**6; what loads must work (``use(loaded)``). The number refused."""
    cls, models, feature_filter, state, stamp = reduced
    refused = 0
    for path in paths:
        for value in (-1, 10**6):
            changed = _replaced(state, path, value)
            try:
                loaded = rebuild(cls, copy.deepcopy(models), feature_filter, changed, stamp)
            except PickleFormatError:
                refused += 1
                continue
            use(loaded)
    return refused


def test_a_changed_id_loads_or_is_refused_never_a_crash():
    forest, rng = _grown_forest()
    reduced = _reduced(forest)
    paths = list(_ints(reduced[3]))
    x = {"a": 0.2, "b": 0.5, "colour": "r", "size": "m"}

    def use(loaded):
        for i in range(3):  # what loads can predict and learn
            loaded.predict_proba_one(i, x)
            loaded.learn_one(i, x, "low", 1.0)

    assert fuzz_loads(_rebuild, reduced, rng.sample(paths, min(400, len(paths))), use) > 0


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.update(features=s["features"][:1]),
        lambda s: s.update(values=s["values"][:-1]),
        lambda s: s.update(labels=[]),
        lambda s: s.update(flat_trees=s["flat_trees"][:2]),
        lambda s: s.update(version=2),
        lambda s: s.pop("labels"),
        lambda s: s.update(flat_trees=[t[:9] for t in s["flat_trees"]]),
    ],
)
def test_a_changed_table_is_refused(change):
    forest, _ = _grown_forest()
    cls, models, feature_filter, state, stamp = _reduced(forest)
    state = copy.deepcopy(state)
    change(state)
    with pytest.raises(PickleFormatError, match="changed after it was written"):
        _rebuild(cls, models, feature_filter, state, stamp)
