"""A pickled forest changed after it was written is a PickleFormatError, never a crash in C:
every id its trees hold is checked against its feature, value and class tables, every count
against what is left of its streams, and every node against its kind's shape, before the
compiled import builds anything from them (``forest/_flat.pxd``). Pickles of format 1
(0.2.0's nested states) are checked before they load too."""

from __future__ import annotations

import copy
import pickle
import random
import sys
from array import array

import pytest
from river import tree

from river_boost import PickleFormatError
from river_boost.forest import (
    BoundedHoeffdingTreeRegressor,
    HoeffdingForest,
    HoeffdingRegressionForest,
    _face,
    _rebuild,
)


def _grown_forest():
    """Three trees on numeric and nominal features and three classes, split several times."""
    rng = random.Random(3)
    forest = HoeffdingForest(
        [
            tree.HoeffdingTreeClassifier(grace_period=20),
            tree.HoeffdingTreeClassifier(grace_period=20, binary_split=True, delta=0.01),
            tree.HoeffdingTreeClassifier(grace_period=20, leaf_prediction="mc"),
        ]
    )
    for _ in range(3000):
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


X = {"a": 0.2, "b": 0.5, "colour": "r", "size": "m"}


def _use(loaded, n_trees=3):
    """What loads can predict and learn."""
    for i in range(n_trees):
        loaded.predict_proba_one(i, X)
        loaded.learn_one(i, X, "low", 1.0)


def test_a_forest_pickles_and_loads_as_it_was():
    forest, rng = _grown_forest()
    loaded = pickle.loads(pickle.dumps(forest))
    assert loaded._get_state() == forest._get_state()
    for _ in range(300):
        x = {"a": rng.random(), "b": rng.random(), "colour": rng.choice("rgbkz"), "size": "s"}
        assert loaded.predict_proba_all(x) == forest.predict_proba_all(x)
        for i in range(3):
            loaded.learn_one(i, x, "mid", 0.5)
            forest.learn_one(i, x, "mid", 0.5)
    assert loaded._get_state() == forest._get_state()


def test_the_grown_forest_has_what_the_checks_read():
    forest, _ = _grown_forest()
    nodes = []
    stack = [forest._export_tree(i) for i in range(3)]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if node[0] == 1:
            stack.extend(node[8])
    assert any(node[0] == 1 and node[2] == 2 for node in nodes), "no multiway split"
    assert any(node[0] == 1 and node[2] == 1 for node in nodes), "no nominal binary split"
    assert any(sp[1] for node in nodes if node[0] == 0 for sp in node[9] or ())


def _decoded(width: int, ints: bytes) -> list:
    a = array({1: "b", 2: "h", 4: "i"}[width])
    a.frombytes(ints)
    return list(a)


def _with_int(state: tuple, position: int, value: int) -> tuple:
    """The forest state with the integer at ``position`` of its stream made ``value`` (the
    stream re-encoded 4 bytes wide, as a writer of such a number would)."""
    ints = _decoded(state[7], state[8])
    ints[position] = value
    return (*state[:7], 4, array("i", ints).tobytes(), state[9])


def _loads_or_refuses(cls, state, use) -> bool:
    """Whether ``state`` is refused (PickleFormatError); what loads must work."""
    try:
        loaded = _face.restore(cls, None, state, _stamp())
    except PickleFormatError:
        return True
    use(loaded)
    return False


def _stamp():
    from river_boost import _pickles

    return _pickles.stamp()


def test_a_changed_integer_loads_or_is_refused_never_a_crash():
    forest, rng = _grown_forest()
    state = forest._state()
    n = len(_decoded(state[7], state[8]))
    refused = 0
    for position in rng.sample(range(n), min(600, n)):
        for value in (-1, 1, 3, 255, 10**6):
            refused += _loads_or_refuses(HoeffdingForest, _with_int(state, position, value), _use)
    assert refused > 0


@pytest.mark.parametrize("cut", [1, 7, 100])
def test_a_truncated_or_extended_stream_is_refused(cut):
    forest, _ = _grown_forest()
    w, ints, dbls = forest._state()[7:10]
    head = forest._state()[:7]
    for changed in (
        (*head, w, ints[: -cut * w], dbls),
        (*head, w, ints, dbls[: -8 * cut]),
        (*head, w, ints + bytes(w * cut), dbls),
        (*head, w, ints, dbls + bytes(8 * cut)),
        (*head, w, ints[:-1], dbls),  # not a whole number of integers
        (*head, 3, ints, dbls),  # no such width
    ):
        with pytest.raises(PickleFormatError):
            _face.restore(HoeffdingForest, None, changed, _stamp())


@pytest.mark.parametrize(
    "change",
    [
        lambda s: (s[0], s[1], s[2], s[3][:1], s[4][:1], *s[5:]),  # fewer features
        lambda s: (*s[:4], s[4][:-1], *s[5:]),  # a feature's values missing
        lambda s: (*s[:5], [], *s[6:]),  # no labels
        lambda s: (*s[:5], s[5] + [s[5][0]], *s[6:]),  # a label repeated
        lambda s: (s[0], s[1][:2], s[2][:2], *s[3:]),  # fewer trees
        lambda s: (s[0], [0, 0, 5], *s[2:]),  # a model out of range
        lambda s: (s[0], s[1], [None, {"nonsense": 1.0}, None], *s[3:]),  # an override
        lambda s: ([tree.HoeffdingTreeRegressor()], *s[1:]),  # a model it does not compile
        lambda s: (*s[:6], "middle", *s[7:]),  # another byte order
        lambda s: s[:9],  # a field missing
    ],
)
def test_a_changed_table_is_refused(change):
    forest, _ = _grown_forest()
    with pytest.raises(PickleFormatError):
        _face.restore(HoeffdingForest, None, change(forest._state()), _stamp())


def test_a_pickle_of_the_other_byte_order_says_so():
    forest, _ = _grown_forest()
    other = "big" if sys.byteorder == "little" else "little"
    state = (*forest._state()[:6], other, *forest._state()[7:])
    with pytest.raises(PickleFormatError, match=f"{other}-endian"):
        _face.restore(HoeffdingForest, None, state, _stamp())


def test_a_regression_forest_changed_loads_or_is_refused_never_a_crash():
    rng = random.Random(5)
    models = [
        tree.HoeffdingTreeRegressor(grace_period=30, leaf_prediction="mean", delta=1e-2),
        tree.HoeffdingTreeRegressor(
            grace_period=30, leaf_prediction="mean", binary_split=True, delta=1e-2
        ),
        tree.HoeffdingTreeRegressor(grace_period=30, delta=1e-2),
    ]
    forest = HoeffdingRegressionForest(models)
    for _ in range(900):
        x = {"num": rng.random(), "k": rng.randrange(4), "z": rng.gauss(0, 1)}
        cat = {"cat": rng.choice("abcd")}
        y = 3 * x["num"] + x["k"] + rng.gauss(0, 0.1)
        for i in range(2):  # (mean leaves take the nominal feature, the linear one not)
            forest.learn_one(i, {**x, **cat}, y + (cat["cat"] == "b"), 1.0)
        forest.learn_one(2, x, y, 0.7)
    assert all(n > 1 for n in forest.n_nodes)
    state = forest._state()
    x = {"num": 0.3, "k": 2, "z": 0.1}

    def use(loaded):
        for i in range(3):
            loaded.predict_one(i, x)
            loaded.learn_one(i, x, 1.0)

    loaded = _face.restore(HoeffdingRegressionForest, None, state, _stamp())
    assert [loaded.predict_one(i, x) for i in range(3)] == [
        forest.predict_one(i, x) for i in range(3)
    ]
    n = len(_decoded(state[7], state[8]))
    refused = 0
    for position in rng.sample(range(n), min(500, n)):
        for value in (-1, 1, 3, 10**6):
            refused += _loads_or_refuses(
                HoeffdingRegressionForest, _with_int(state, position, value), use
            )
    assert refused > 0
    with pytest.raises(PickleFormatError):
        _face.restore(HoeffdingRegressionForest, None, (*state[:9], state[9][:-8]), _stamp())


def _bounded_regression_forest():
    """Two bounded regression trees (a linear and a mean leaf model) on numeric and nominal
    features, split several times, their arrays grown past what they hold."""
    rng = random.Random(6)
    kw = {"grace_period": 30, "delta": 1e-2, "max_size": 0.05, "memory_estimate_period": 40}
    forest = HoeffdingRegressionForest(
        [
            BoundedHoeffdingTreeRegressor(nominal_attributes=["k"], **kw),
            BoundedHoeffdingTreeRegressor(leaf_prediction="mean", **kw),
        ]
    )
    for _ in range(900):
        x = {"num": rng.random(), "k": rng.randrange(5), "z": rng.gauss(0, 1)}
        y = 3 * x["num"] + x["k"] + rng.gauss(0, 0.1)
        forest.learn_one(0, x, y, rng.uniform(0.1, 1.0))
        forest.learn_one(1, {**x, "cat": rng.choice("abcd")}, y, rng.uniform(0.1, 1.0))
    return forest, rng


def _n_capacities(forest) -> int:
    """How many capacities end the forest's integer stream (_state.rtree_write_caps): four
    per leaf and two per non-QO splitter it holds, two per split."""
    n = 0
    for ts in forest._get_state()["trees"]:
        for node in ts[2] or ():
            n += 2 if node[0] else 4 + 2 * sum(s[1] != 2 for s in node[8] or ())
    return n


def test_a_regression_pickle_without_capacities_loads_as_it_was():
    """A pickle of 0.2.x (no capacities after the trees) loads: the same trees, predictions
    and counters (the arrays allocated to fit)."""
    forest, _ = _bounded_regression_forest()
    state = forest._state()
    ints = _decoded(state[7], state[8])
    n = _n_capacities(forest)
    assert n > 0
    old = (*state[:7], 4, array("i", ints[:-n]).tobytes(), state[9])
    loaded = _face.restore(HoeffdingRegressionForest, None, old, _stamp())
    x = {"num": 0.3, "k": 2, "z": 0.1, "cat": "b"}
    assert loaded.predict_all(x) == forest.predict_all(x)
    assert loaded._get_state() == forest._get_state()


def test_changed_capacities_load_or_are_refused_never_a_crash():
    """A capacity below what its array holds, or above any the writer could have grown, is
    refused; the others load and work."""
    forest, rng = _bounded_regression_forest()
    state = forest._state()
    total, n = len(_decoded(state[7], state[8])), _n_capacities(forest)
    x = {"num": 0.3, "k": 2, "z": 0.1, "cat": "b"}

    def use(loaded):
        for i, xi in enumerate([{k: x[k] for k in ("num", "k", "z")}, x]):
            loaded.predict_one(i, xi)
            for _ in range(50):  # (the arrays grow from the capacities loaded)
                loaded.learn_one(i, {**xi, "num": rng.random(), "k": rng.randrange(8)}, 1.0, 0.5)

    refused = 0
    for position in range(total - n, total):
        for value in (-1, 0, 1, 3, 10**6):
            refused += _loads_or_refuses(
                HoeffdingRegressionForest, _with_int(state, position, value), use
            )
    assert refused > 0


# ----------------------------------------------------------------------------- format 1


def _format1(forest) -> tuple:
    """The arguments of ``forest``'s format-1 pickle (0.2.0's ``_rebuild``): its models, and
    its nested state with each tree as a flat pre-order list of nodes."""
    state = forest._get_state()

    def flat(root):
        out, stack = [], [root]
        while stack:
            node = stack.pop()
            if node[0] == 0:
                out.append(node)
            else:
                out.append(node[:8] + (len(node[8]),) + node[9:])
                stack.extend(reversed(node[8]))
        return out

    state["flat_trees"] = [
        ts[:-1] + (None if ts[-1] is None else flat(ts[-1]),) for ts in state.pop("trees")
    ]
    return type(forest), forest._models, forest.feature_filter, state, (1, "0.2.0")


def test_a_format1_pickle_loads_as_it_was():
    forest, _ = _grown_forest()
    loaded = _rebuild(*_format1(forest))
    assert loaded._get_state() == forest._get_state()


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


def test_a_changed_format1_id_loads_or_is_refused_never_a_crash():
    forest, rng = _grown_forest()
    cls, models, feature_filter, state, stamp = _format1(forest)
    paths = list(_ints(state))
    refused = 0
    for path in rng.sample(paths, min(400, len(paths))):
        for value in (-1, 10**6):
            changed = _replaced(state, path, value)
            try:
                loaded = _rebuild(cls, copy.deepcopy(models), feature_filter, changed, stamp)
            except PickleFormatError:
                refused += 1
                continue
            _use(loaded)
    assert refused > 0


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
def test_a_changed_format1_table_is_refused(change):
    forest, _ = _grown_forest()
    cls, models, feature_filter, state, stamp = _format1(forest)
    state = copy.deepcopy(state)
    change(state)
    with pytest.raises(PickleFormatError, match="changed after it was written"):
        _rebuild(cls, models, feature_filter, state, stamp)
