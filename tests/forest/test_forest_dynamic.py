"""The forest's convert-once API and its trees that come and go, against River's own trees.

As in ``tests/forest/test_forest.py``, every prediction is compared with River's to the last bit and
every tree's complete state is compared at checkpoints. Here the forest is driven through
``load(x)`` and the ``*_loaded`` methods, in random interleavings of predictions and updates
of different trees, while trees are added, reset (with their own or new parameters), copied
over one another and removed mid-stream; River's side mirrors each operation with fresh
trees, ``copy.deepcopy`` and ``del``.
"""

from __future__ import annotations

import copy
import ctypes
import itertools
import pickle
import random

import pytest
from river import datasets, tree
from river.datasets import synth

from river_boost import forest as forest_mod

from .test_forest import TOTALS, Checker, HashFilter, _bits, _proba_bits, float_weights, tree_state

HoeffdingForest = forest_mod.HoeffdingForest

NOMINAL = ["elevel", "car", "zipcode"]
CONFIGS = [
    {"grace_period": 10, "tau": 0.2},
    {"grace_period": 5, "leaf_prediction": "mc", "split_criterion": "gini"},
    {"grace_period": 10, "leaf_prediction": "nb", "nominal_attributes": NOMINAL, "tau": 0.1},
    {"grace_period": 5, "nominal_attributes": NOMINAL, "binary_split": True, "tau": 0.3},
    {"grace_period": 20, "delta": 0.1, "split_criterion": "hellinger", "max_depth": 3},
    {"grace_period": 5, "remove_poor_attrs": True, "leaf_prediction": "mc", "delta": 0.5},
]


def hard_stream(n, seed):
    """Agrawal with the hard cases: missing features, a string feature, a feature and a class
    that first appear mid-stream, and sample weights (as ``(x, y, w)``)."""
    rng = random.Random(seed)
    out = []
    for k, (x, y) in enumerate(synth.Agrawal(classification_function=2, seed=seed).take(n)):
        x = {f: v for f, v in x.items() if rng.random() > 0.08}
        x["colour"] = rng.choice(["red", "green", "blue", "grey"])
        if k > n // 3:
            x["late"] = rng.gauss(1.0 if y else -1.0, 1.0)
        if k > n // 2 and rng.random() < 0.2:
            y = 2  # a new class, sortable with the others
        out.append((x, y, float_weights(rng)))
    return out


class LoadedChecker(Checker):
    """A :class:`Checker` that drives the forest through ``load`` and the ``*_loaded``
    methods, and mirrors add / reset / copy_tree / remove on River's side."""

    def predict_loaded(self, i, x):
        got = self.forest.predict_loaded(i)
        want = self.river[i].predict_proba_one(self.view(i, x))
        assert _proba_bits(got) == _proba_bits(want), (i, self.configs[i], got, want)
        labels = list(want) + ["never seen"]
        row = self.forest.predict_loaded_row(i, labels)
        assert [_bits(v) for v in row] == [_bits(want.get(c, 0.0)) for c in labels]
        self.n_compared += 1
        TOTALS["predict_proba_one calls compared"] += 1

    def learn_loaded(self, i, x, y, w):
        """As :meth:`Checker.learn`: where River raises, the forest raises alike."""
        TOTALS["learn_one calls"] += 1
        try:
            self.river[i].learn_one(self.view(i, x), y, w=w)
        except (ArithmeticError, ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                self.forest.learn_loaded(i, y, w)
            self.n_raised += 1
            TOTALS["River raised"] += 1
            return
        self.forest.learn_loaded(i, y, w)

    def matrix(self, x, labels):
        trees = list(range(len(self.river)))[::-1] + [0]
        m = self.forest.predict_loaded_matrix(labels, trees).tolist()
        for r, i in enumerate(trees):
            want = self.river[i].predict_proba_one(self.view(i, x))
            assert [_bits(v) for v in m[r]] == [_bits(want.get(c, 0.0)) for c in labels]

    # trees that come and go: the forest and River's side (and the feature masks) alike

    def add(self, cfg):
        assert self.forest.add(tree.HoeffdingTreeClassifier(**cfg)) == len(self.river)
        self.river.append(tree.HoeffdingTreeClassifier(**cfg))
        self.configs.append(cfg)
        self.masks.append({})

    def reset(self, i, cfg=None, refilter=False):
        if cfg is None:
            self.forest.reset(i, refilter=refilter)
            cfg = self.configs[i]
        else:
            self.forest.reset(i, tree.HoeffdingTreeClassifier(**cfg), refilter=refilter)
        self.river[i] = tree.HoeffdingTreeClassifier(**cfg)
        self.configs[i] = cfg
        if refilter:
            self.masks[i] = {}

    def copy(self, src, dst):
        self.forest.copy_tree(src, dst)
        self.river[dst] = copy.deepcopy(self.river[src])
        self.configs[dst] = self.configs[src]
        self.masks[dst] = dict(self.masks[src])

    def remove(self, i):
        self.forest.remove(i)
        del self.river[i], self.configs[i], self.masks[i]


def drive(c, stream, rng, *, ops=False, every=150):
    """Per example: load x, then tree by tree in random order predict and/or learn it; now
    and then a random add / reset / copy / remove (``ops``)."""
    for k, (x, y, w) in enumerate(stream):
        c.forest.load(x)
        order = list(range(len(c.river)))
        rng.shuffle(order)
        for i in order:
            if rng.random() < 0.7:
                c.predict_loaded(i, x)
            if rng.random() < 0.8:
                c.learn_loaded(i, x, y, w)
            if rng.random() < 0.3:
                c.predict_loaded(i, x)  # after learning: the new state
        if k % 7 == 0:
            c.matrix(x, c.forest._labels + ["never seen"])
        if ops and rng.random() < 0.04:
            op = rng.choice(["add", "reset", "reset_new", "copy", "remove"])
            n = len(c.river)
            if op == "add" or n <= 2:
                c.add(rng.choice(CONFIGS))
            elif op == "reset":
                c.reset(rng.randrange(n), refilter=rng.random() < 0.5)
            elif op == "reset_new":
                c.reset(rng.randrange(n), rng.choice(CONFIGS))
            elif op == "copy":
                c.copy(rng.randrange(n), rng.randrange(n))
            else:
                c.remove(rng.randrange(n))
            if not c.forest.is_loaded:  # a tree made a loaded numeric feature nominal
                c.forest.load(x)
            for i in range(len(c.river)):  # x is still loaded, the new trees see it too
                c.predict_loaded(i, x)
        if every and k % every == every - 1:
            c.check_state()
    c.check_state()
    return c


# ----------------------------------------------------------------------------- convert once


def test_loaded_api_matches_river_in_any_interleaving():
    c = LoadedChecker([dict(cfg) for cfg in CONFIGS])
    drive(c, hard_stream(700, seed=1), random.Random(1))
    assert max(t.height for t in c.river) >= 3  # the trees grew
    assert all(2 in t.classes for t in c.river)


def test_loaded_api_with_a_feature_filter_and_a_bundled_stream():
    cfgs = [
        {"grace_period": 5, "tau": 0.5, "leaf_prediction": "nba"},
        {"grace_period": 5, "tau": 0.5, "leaf_prediction": "mc", "split_criterion": "gini"},
        {"grace_period": 10, "tau": 0.5, "leaf_prediction": "nb"},
    ]
    c = LoadedChecker(cfgs * 2, feature_filter=HashFilter(0.6, 2))
    stream = [(x, y, 1.0) for x, y in itertools.islice(datasets.ImageSegments(), 400)]
    drive(c, stream, random.Random(2))
    assert len({t.n_nodes for t in c.river}) > 1


def test_load_snapshots_x_and_unloads_safely():
    f = HoeffdingForest(
        [tree.HoeffdingTreeClassifier(grace_period=5), tree.HoeffdingTreeClassifier()]
    )
    r = tree.HoeffdingTreeClassifier(grace_period=5)
    with pytest.raises(RuntimeError, match="no x is loaded"):
        f.learn_loaded(0, True)
    x = {"a": 1.0, "b": "u"}
    f.load(x)
    original = dict(x)
    x["a"] = 5.0  # mutated after load: the forest learns what was loaded
    x["c"] = 3.0
    f.learn_loaded(0, True)
    r.learn_one(original, True)
    assert tree_state(f.to_river(0)) == tree_state(r)
    assert f.is_loaded
    # every method that converts another x unloads
    for call in (
        lambda: f.learn_one(1, {"a": 2.0}, False),
        lambda: f.predict_proba_one(1, {"a": 2.0}),
        lambda: f.predict_proba_all({"a": 2.0}),
        lambda: f.predict_proba_matrix({"a": 2.0}, [True]),
    ):
        f.load(x)
        call()
        assert not f.is_loaded
        for loaded in (
            lambda: f.learn_loaded(0, True),
            lambda: f.predict_loaded(0),
            lambda: f.predict_loaded_row(0, [True]),
            lambda: f.predict_loaded_matrix([True]),
        ):
            with pytest.raises(RuntimeError, match="no x is loaded"):
                loaded()
    with pytest.raises(ValueError, match="None"):
        f.load({"a": None})  # a failed load leaves nothing loaded
    assert not f.is_loaded
    # a tree that makes a loaded numeric feature nominal needs x converted again
    f.load({"a": 1.0})
    f.add(tree.HoeffdingTreeClassifier())
    assert f.is_loaded  # nothing new is nominal
    f.add(tree.HoeffdingTreeClassifier(nominal_attributes=["a"]))
    assert not f.is_loaded
    f.load({"a": 1.0})
    f.learn_loaded(3, True)
    assert f.to_river(3)._root.splitters["a"].__class__.__name__ == "NominalSplitterClassif"
    with pytest.raises(IndexError):
        f.learn_loaded(4, True)
    with pytest.raises(IndexError):
        f.predict_loaded_matrix([True], [0, 4])


def test_a_feature_only_predicted_does_not_fix_its_kind():
    """River keeps no trace of a feature a tree only predicted with; the forest neither, so
    the feature may come with numbers later."""
    f = HoeffdingForest([tree.HoeffdingTreeClassifier(leaf_prediction="nba", grace_period=2)])
    r = tree.HoeffdingTreeClassifier(leaf_prediction="nba", grace_period=2)
    for k in range(8):
        x = {"b": float(k)}
        shown = {**x, "a": "s" if k < 4 else 0.5}  # a string while "a" is not learned
        f.load(shown)
        assert f.predict_loaded(0) == r.predict_proba_one(shown)
        if k >= 4:
            x["a"] = float(k % 3)
        f.learn_one(0, x, k % 2 == 0)
        r.learn_one(x, k % 2 == 0)
    assert tree_state(f.to_river(0)) == tree_state(r)
    with pytest.raises(TypeError, match="mixes"):  # a learned kind is checked
        f.predict_proba_one(0, {"a": "s"})


def test_a_filter_calling_back_into_the_forest_is_refused():
    class Meddler:
        def keeps(self, i, feature):
            forest.load({"z": 1.0})
            return True

    forest = HoeffdingForest([tree.HoeffdingTreeClassifier()], Meddler())
    with pytest.raises(RuntimeError, match="feature filter"):
        forest.learn_one(0, {"a": 1.0}, True)


# ------------------------------------------------------------------------ trees that come and go


@pytest.mark.parametrize("seed", [3, 4])
def test_add_reset_copy_remove_mid_stream_match_river(seed):
    c = LoadedChecker([dict(cfg) for cfg in CONFIGS[:4]], feature_filter=HashFilter(0.8, seed))
    rng = random.Random(seed)
    drive(c, hard_stream(900, seed=seed), rng, ops=True)
    assert c.forest.n_models == len(c.river) >= 2


def test_each_operation_at_a_grown_state():
    """Every operation once, on trees that have split, with the states compared right after."""
    c = LoadedChecker([dict(CONFIGS[0]), dict(CONFIGS[5]), dict(CONFIGS[3])])
    stream = hard_stream(1200, seed=5)
    rng = random.Random(5)
    drive(c, stream[:400], rng)
    assert [t.height >= 2 for t in c.river] == [True, True, True], [t.height for t in c.river]
    c.copy(0, 1)  # a grown tree over another grown tree
    c.check_state()
    assert tree_state(c.forest.to_river(1)) == tree_state(copy.deepcopy(c.forest.to_river(0)))
    c.add(CONFIGS[2])
    c.copy(2, 3)  # over a fresh tree
    c.reset(0)  # its own parameters
    assert c.forest.n_nodes[0] is None and c.forest.summary(0)["n_leaves"] is None
    c.reset(2, CONFIGS[4])  # new parameters
    c.remove(1)
    c.check_state()
    drive(c, stream[400:800], rng)
    assert [m.grace_period for m in c.forest.models] == [cfg["grace_period"] for cfg in c.configs]
    assert c.forest.summary(2)["n_nodes"] == c.river[2].n_nodes
    # removing every tree leaves a forest that can grow again
    for _ in range(len(c.river)):
        c.remove(0)
    assert c.forest.n_models == 0 and c.forest.predict_proba_all({"a": 1.0}) == []
    c.add(CONFIGS[0])
    drive(c, stream[800:], rng)


def test_reset_keeps_the_view_and_refilter_asks_again():
    filt = HashFilter(0.5, seed=6)
    f = HoeffdingForest([tree.HoeffdingTreeClassifier()] * 2, filt)
    x = {f"f{k}": float(k) for k in range(20)}
    f.learn_one(0, x, True)
    asked = len(filt.calls)
    f.reset(0)
    f.learn_one(0, x, True)
    assert len(filt.calls) == asked  # the cached view of tree 0 stays
    f.reset(0, refilter=True)
    f.learn_one(0, x, True)
    assert filt.calls[asked:] == [(0, k) for k in x]
    f.copy_tree(0, 1)
    f.learn_one(1, {**x, "new": 1.0}, True)
    assert filt.calls[-1] == (1, "new")  # what src had not met is asked for dst
    with pytest.raises(IndexError):
        f.copy_tree(0, 2)
    with pytest.raises(IndexError):
        f.reset(2)
    with pytest.raises(IndexError):
        f.remove(-1)
    with pytest.raises(ValueError, match="reset"):
        f.reset(0, tree.HoeffdingAdaptiveTreeClassifier())
    with pytest.raises(ValueError, match="add"):
        f.add(tree.HoeffdingTreeClassifier(splitter=tree.splitter.HistogramSplitter()))


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_after_trees_came_and_went_continues_identically(protocol):
    c = LoadedChecker([dict(cfg) for cfg in CONFIGS[:3]], feature_filter=HashFilter(0.8, 7))
    stream = hard_stream(500, seed=7)
    rng = random.Random(7)
    drive(c, stream[:250], rng, every=0)
    c.add(CONFIGS[3])
    c.copy(0, 3)
    c.reset(1, CONFIGS[5])
    c.remove(2)
    drive(c, stream[250:300], rng, every=0)
    c.forest.load(stream[300][0])
    c.forest = pickle.loads(pickle.dumps(c.forest, protocol=protocol))
    assert not c.forest.is_loaded  # a loaded x is not part of the state
    c.check_state()
    assert [type(m) for m in c.forest._models] == [type(t) for t in c.river]
    drive(c, stream[300:], rng, ops=True, every=0)


def test_memory_of_reset_copied_over_and_removed_trees_is_freed():
    """Grow a big tree and throw it away (reset, copied over, removed), over and over: the
    bytes in use on the C heap stay flat (a leak would add the tree's size every round).

    glibc's ``mallinfo2`` counts the bytes malloc has handed out and not taken back, exactly;
    the resident set size would not do (freed memory stays resident and is reused, so after
    other tests a new tree need not grow it)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError):
        pytest.skip("needs glibc's mallinfo2")

    class _Mallinfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
            ).split()
        ]

    mallinfo2.restype = _Mallinfo2

    def rss():  # bytes in use: small blocks in the arenas plus mmapped large ones
        info = mallinfo2()
        return info.uordblks + info.hblkhd

    rng = random.Random(8)
    # nominal features with many values, never split: big splitters at one leaf
    stream = [
        ({f"n{k}": f"v{rng.randrange(400)}" for k in range(40)}, rng.randrange(4))
        for _ in range(1200)
    ]
    model = tree.HoeffdingTreeClassifier(grace_period=10**9)
    f = HoeffdingForest([model, model, model])

    def grow(i):
        for x, y in stream:
            f.learn_one(i, x, y)

    grow(2)  # the forest's registries of features and values, for good
    before = rss()
    grow(1)  # a second tree while the first lives: new memory, the size of one tree
    size = rss() - before
    assert size > 500_000
    f.reset(1)
    f.reset(2)
    before = rss()
    for k in range(15):
        grow(0)
        if k % 3 == 0:
            f.reset(0)
        elif k % 3 == 1:
            f.copy_tree(1, 0)  # tree 1 is fresh: tree 0's nodes go
        else:
            f.remove(0)  # the fresh tree 1 becomes tree 0
            f.add(model)
    assert f.n_models == 3 and f.n_nodes == [None] * 3
    print(f"one tree: {size} bytes in use; 15 rounds: {rss() - before} bytes")
    assert rss() - before < 3 * size  # 15 leaked trees would take 15 times `size`
