"""A compiled forest of River Hoeffding trees: N trees that learn and predict exactly as
:class:`river.tree.HoeffdingTreeClassifier`, some 40-50 times faster than River's tree
(``benchmarks/forest_speed.py``: ten trees, predict and learn every example).

A booster runs ``N`` weak learners on every example. :class:`HoeffdingForest` holds ``N``
Hoeffding trees in C structures (``river_boost.forest._forest``, compiled from Cython at install
time): no Python object per node, leaf, splitter or class distribution, and ``x`` is
converted once per call into arrays of (feature id, value). Each tree keeps its own
parameters (the boosters diversify ``delta``, ``tau`` and ``grace_period`` per tree) and may
see its own subset of the features (``feature_filter``).

Exactness
---------
Every tree is River's ``HoeffdingTreeClassifier`` (River 0.26), bit for bit: the same splits
(features, thresholds, nominal values), the same leaf statistics, and
``predict_proba_all(x)[i] == trees[i].predict_proba_one(x)`` as dicts with the same keys in
the same order and the same float bits. ``tests/forest/test_forest.py`` checks this against River's
own tree on every call of many streams and configurations. The arithmetic is River's,
operation by operation and in River's order (including CPython's ``sum()``, which is
compensated from Python 3.12 on, ``float.__pow__`` through the C library's ``pow``, and the
exceptions Python raises on division by zero or ``math`` domain errors), and River's
tie-breaking is kept: dict insertion orders of classes and features per leaf, ``max`` keeping
the first maximum, stable sorts, and CPython's iteration order of a ``set`` of nominal values.

Supported: Gaussian splitters on numeric features (River's ``GaussianSplitter``, any
``n_splits``); nominal features (``nominal_attributes``, or any non-numeric value) with
River's ``NominalSplitterClassif``, multiway and ``binary_split=True``; criteria
``info_gain``, ``gini``, ``hellinger``; leaves ``mc``, ``nb``, ``nba`` with
``nb_threshold``; ``grace_period``, ``delta``, ``tau``, ``max_depth``, ``merit_preprune``,
``min_branch_fraction``, ``max_share_to_split``, ``remove_poor_attrs``; any positive float
sample weight (also ``1e-300`` or ``1e300``); missing features (River's traversal to the
most common path); classes and features that first appear mid-stream; new values of a
nominal feature at a multiway split (River adds a branch); River's memory management
(``max_size``, ``memory_estimate_period``, ``stop_mem_management``) and its
deactivation/reactivation policy.

Differences from River, all deliberate:

- **Memory measurement.** River measures a tree with ``sys.getsizeof`` over its Python
  objects; the forest measures its C structures (a deterministic function of their content,
  so a pickled forest measures the same). The policy that uses the measurements is River's.
  Results can therefore differ only when the size limit actually binds, i.e. when
  ``_estimate_model_size`` finds the model larger than ``max_size`` or when, after a split,
  River's leaf-size estimates times the number of leaves exceed ``max_size``; with River's
  default 100 MiB and 1,000,000-instance period, in practice never. Everywhere else —
  including ``stop_mem_management``, which stops growth at the first split after *any* leaf
  became inactive, and the reactivation of pre-pruned leaves after every split — the trees
  are River's. Outside that policy, ``sys.getsizeof(forest)``, and so River's memory
  measures of a booster (``_raw_memory_usage``, ``_memory_usage``, ``show_memory=True`` in
  ``evaluate.progressive_val_score``), count the C memory the trees hold (as allocated,
  capacities included), which Python's object walk cannot see (ten trees after 20,000 SEA
  examples: about a tenth of what River's own trees measure, and about 4 times the forest's
  pickle, a compact encoding without capacity slack or caches).
- **Numbers that are not Python ints or floats.** Feature values and weights are converted
  to C doubles once, and the forest then does what River does with Python floats. Python
  ints, bools and floats (what River's datasets and the pool produce) are exact, as are
  integers up to 2**53 in magnitude. River itself computes differently with NumPy scalars:
  ``numpy.float32`` features are carried through its statistics in float32 (NumPy 2's
  promotion rules); ``numpy.float64`` features make its Gaussian CDF return ``inf``/``nan``
  arithmetic instead of catching ``ZeroDivisionError`` when a class's weights at a leaf sum
  to at most 1; and on Python >= 3.12 ``sum()`` does not compensate ``numpy.float64``
  weights. With such inputs the forest follows River-on-Python-floats. Integers beyond 2**53
  (which Python compares exactly) may also differ.
- **Inputs River cannot learn from.** ``None`` as a feature value raises ``ValueError``
  (drop the key to mark a feature missing); a feature whose values mix numbers and
  non-numbers (without being in ``nominal_attributes``) raises ``TypeError``. River
  raises in most such cases too, but only after partly updating the tree; the forest raises
  before touching it.

- **Set order after unpickling.** Binary splits on nominal features try the values in
  CPython's iteration order of River's ``set`` of values; with string values that order
  depends on the process's hash seed. Within one process the forest and River agree; a
  pickled River tree and a pickled forest restored in another process may break an exact
  tie between two values differently.

Where River itself raises, the forest raises the same exception at the same call, after the
same partial update (the same operations run in the same order): ``w = 0`` gives
``ZeroDivisionError`` when a class's first weight at a Gaussian splitter is 0; and River's
running variance (Welford's update) can turn slightly negative by rounding when weights of
very different magnitudes meet in one leaf (seen with a 1e-300 or a 1e300 weight among
ordinary ones), after which its ``Gaussian.sigma`` is a complex number and every split
attempt at that leaf raises ``TypeError`` (``math.erf`` of a complex).

Pickling (any protocol) and ``copy.deepcopy`` work at any point of the stream and give a
forest that continues identically.

Bounded memory
--------------
River's size limit does not bind under boosting (see above): a booster's trees grow for as
long as the stream lasts. :class:`BoundedHoeffdingTree` is River's tree with one change, a
size measurement whenever the weight learned reaches or crosses a multiple of
``memory_estimate_period``, and a limit that binds (2 MiB per tree, measured every 1,000
units of weight): past it, River's (and MOA's) policy deactivates the least promising
leaves. The forest compiles it as it compiles River's tree. On a million examples of a
drifting SEA stream its trees stop growing at no cost in accuracy
(``benchmarks/drift_memory.py``; ``benchmarks/RESULTS.md``, "A million examples: memory").

Regression
----------
:class:`HoeffdingRegressionForest` compiles River's ``HoeffdingTreeRegressor`` the same way, bit
for bit, and :class:`BoundedHoeffdingTreeRegressor` is its bounded tree: see
``river_boost/forest/_regression.py``.

Converting ``x`` once
---------------------
``learn_one(i, x, y, w)`` converts ``x`` on every call. A booster that teaches several trees
the same ``x``, or walks many trees for one ``x`` (the martingale booster's exact prediction
visits every node a coin flip could reach), converts it once with :meth:`~HoeffdingForest.load`
and then calls ``predict_loaded(i)``, ``predict_loaded_row(i, labels)``,
``predict_loaded_matrix(labels, trees)`` and ``learn_loaded(i, y, w)`` on any trees, in any
order. The loaded ``x`` is the forest's own converted copy, taken at ``load``: the
``*_loaded`` methods take no ``x``, so a dict mutated (or replaced) since can never be served
a stale conversion. Any method that converts another ``x`` unloads it, and the ``*_loaded``
methods then raise ``RuntimeError`` rather than guess.

Trees that come and go
----------------------
:meth:`~HoeffdingForest.add` appends a fresh tree, :meth:`~HoeffdingForest.reset` makes a tree
fresh again (its own or new parameters), :meth:`~HoeffdingForest.copy_tree` makes a tree an
exact copy of another (River's ``copy.deepcopy``: e.g. a tree trained in the background
swapped in), :meth:`~HoeffdingForest.remove` deletes one (later trees move down an index).
The nodes of reset, overwritten and removed trees are freed. Feature views: the
``feature_filter`` is asked ``keeps(i, feature)`` once per tree and feature, and the answers
are kept with the tree: a reset tree keeps its index and so its view (``refilter=True``
asks again), a copy takes its source's answers, a moved tree keeps its own. Pickling,
``to_river``, ``summary`` and the diagnostics follow the trees as they are.
"""

from __future__ import annotations

import collections
import math

from river import tree as _river_tree
from river.proba import Gaussian
from river.tree.nodes.branch import (
    NominalBinaryBranch,
    NominalMultiwayBranch,
    NumericBinaryBranch,
)
from river.tree.splitter import GaussianSplitter
from river.tree.splitter.nominal_splitter_classif import NominalSplitterClassif

__all__ = [
    "ENABLED",
    "BoundedHoeffdingTree",
    "BoundedHoeffdingTreeRegressor",
    "HoeffdingForest",
    "HoeffdingRegressionForest",
]

from .. import _pickles
from . import _api
from ._forest import LEAF_PREDICTIONS as _LEAF
from ._forest import SPLIT_CRITERIA as _CRITERION
from ._forest import SPLIT_KINDS as _SPLIT_KINDS
from ._forest import ForestCore as _ForestCore
from ._regression import BoundedHoeffdingTreeRegressor, HoeffdingRegressionForest

# BoundedHoeffdingTree's size limit (MiB per tree) and the weight between two measurements:
# see benchmarks/RESULTS.md, "A million examples: memory"
DEFAULT_MAX_SIZE = 2.0
DEFAULT_MEMORY_ESTIMATE_PERIOD = 1000.0


class BoundedHoeffdingTree(_river_tree.HoeffdingTreeClassifier):
    """River's Hoeffding tree whose size limit binds under any sample weights.

    River's :class:`~river.tree.HoeffdingTreeClassifier` measures its size, and applies
    ``max_size`` (deactivating its least promising leaves, as MOA does), only when the
    weight it has learned is an exact multiple of ``memory_estimate_period``. Learning
    with weight 1, that is every ``memory_estimate_period`` examples; learning with a
    booster's fractional weights, practically never, so ``max_size`` does not bind and a
    tree grows for as long as the stream lasts. This tree measures itself whenever the
    weight it has learned reaches *or crosses* a multiple of ``memory_estimate_period``;
    everything else is River's tree (the same splits, statistics and predictions, and
    River's size-limit policy). It is the boosters' default weak learner
    (:func:`~river_boost.core.default_model`); River's own tree, passed as ``model``,
    keeps River's behaviour.

    Once the limit binds, the tree keeps at most as many active leaves as fit in
    ``max_size``: the others keep their class counts (and predict their majority class)
    but drop their split statistics and stop splitting; each measurement re-ranks the
    leaves by promise (the weight they misclassify) and may reactivate some.

    The compiled forest (:class:`HoeffdingForest`) runs it, measuring its own C structures
    (so the limit binds on a smaller tree there than in River's Python objects, which it
    runs on when the forest is disabled: see the forest's "Memory measurement").

    Parameters
    ----------
    grace_period
        Weight a leaf learns between split attempts.
    max_depth
        The maximum depth of the tree (``None``: unlimited).
    split_criterion
        ``"info_gain"``, ``"gini"`` or ``"hellinger"``.
    delta
        Significance level of the Hoeffding bound.
    tau
        Tie threshold between two splits.
    leaf_prediction
        ``"mc"`` (majority class), ``"nb"`` (naive Bayes) or ``"nba"`` (adaptive).
    nb_threshold
        Weight a leaf learns before it may predict with naive Bayes.
    nominal_attributes
        Features to treat as nominal (``None``: the non-numeric ones).
    splitter
        The numeric splitter (``None``: River's ``GaussianSplitter``).
    binary_split
        Binary splits only (on nominal features too).
    min_branch_fraction
        Smallest share of weight a split's branches may hold.
    max_share_to_split
        Largest share of weight the majority class may hold for a split to be tried.
    max_size
        The tree's size limit in MiB (River's default: 100, which a booster's trees never
        reach between two exact multiples).
    memory_estimate_period
        Weight learned between two measurements of the tree's size (River's default:
        1,000,000).
    stop_mem_management
        Stop growing once the limit binds, instead of deactivating leaves.
    remove_poor_attrs
        Drop the split statistics of features that cannot win a split.
    merit_preprune
        Consider not splitting at all (the null split) when choosing a split.

    Examples
    --------

    >>> from river import datasets
    >>> from river_boost.forest import BoundedHoeffdingTree
    >>> model = BoundedHoeffdingTree(grace_period=20, max_size=0.02, memory_estimate_period=50)
    >>> for x, y in datasets.Phishing():
    ...     model.learn_one(x, y, w=0.3)
    >>> model.n_inactive_leaves > 0
    True

    """

    def __init__(
        self,
        grace_period: int = 200,
        max_depth: int | None = None,
        split_criterion: str = "info_gain",
        delta: float = 1e-7,
        tau: float = 0.05,
        leaf_prediction: str = "nba",
        nb_threshold: int = 0,
        nominal_attributes: list | None = None,
        splitter=None,
        binary_split: bool = False,
        min_branch_fraction: float = 0.01,
        max_share_to_split: float = 0.99,
        max_size: float = DEFAULT_MAX_SIZE,
        memory_estimate_period: float = DEFAULT_MEMORY_ESTIMATE_PERIOD,
        stop_mem_management: bool = False,
        remove_poor_attrs: bool = False,
        merit_preprune: bool = True,
    ):
        super().__init__(
            grace_period=grace_period,
            max_depth=max_depth,
            split_criterion=split_criterion,
            delta=delta,
            tau=tau,
            leaf_prediction=leaf_prediction,
            nb_threshold=nb_threshold,
            nominal_attributes=nominal_attributes,
            splitter=splitter,
            binary_split=binary_split,
            min_branch_fraction=min_branch_fraction,
            max_share_to_split=max_share_to_split,
            max_size=max_size,
            memory_estimate_period=memory_estimate_period,
            stop_mem_management=stop_mem_management,
            remove_poor_attrs=remove_poor_attrs,
            merit_preprune=merit_preprune,
        )

    def learn_one(self, x, y, *, w=1.0):
        before = self._train_weight_seen_by_model
        # River measures in there when the weight learned is an exact multiple of the period
        super().learn_one(x, y, w=w)
        after, period = self._train_weight_seen_by_model, self.memory_estimate_period
        if after % period != 0 and math.floor(after / period) != math.floor(before / period):
            self._estimate_model_size()


_TREE_TYPES = (_river_tree.HoeffdingTreeClassifier, BoundedHoeffdingTree)
_SPLITTER_TYPES = (GaussianSplitter,)
# the codes of the split kinds in an exported tree (to_river), by River's branch
_NUMERIC_BINARY = _SPLIT_KINDS[NumericBinaryBranch.__name__]
_NOMINAL_BINARY = _SPLIT_KINDS[NominalBinaryBranch.__name__]
_NOMINAL_MULTIWAY = _SPLIT_KINDS[NominalMultiwayBranch.__name__]


def _unsupported(model) -> str | None:
    """Why ``model`` cannot be compiled, or None if it can."""
    if type(model) not in _TREE_TYPES:
        return f"{type(model).__name__} is not river.tree.HoeffdingTreeClassifier"
    if type(model.splitter) not in _SPLITTER_TYPES:
        return f"splitter {type(model.splitter).__name__} is not GaussianSplitter"
    n_splits = model.splitter.n_splits
    if not isinstance(n_splits, int) or isinstance(n_splits, bool) or n_splits < 0:
        return f"splitter n_splits must be an int >= 0, got {n_splits!r}"
    if model._root is not None:
        return "the model has already learned: give the forest fresh (unfitted) trees"
    if model._leaf_prediction not in _LEAF:
        return f"leaf_prediction {model._leaf_prediction!r} is not supported"
    if model._split_criterion not in _CRITERION:
        return f"split_criterion {model._split_criterion!r} is not supported"
    for name in (
        "grace_period",
        "delta",
        "tau",
        "nb_threshold",
        "min_branch_fraction",
        "max_share_to_split",
        "_max_byte_size",
        "memory_estimate_period",
        "max_depth",
    ):
        value = getattr(model, name)
        try:
            float(value)
        except (TypeError, ValueError):
            return f"{name.lstrip('_')} must be a real number, got {value!r}"
    if not isinstance(model.max_depth, int):
        return f"max_depth must be an int or None, got {model.max_depth!r}"
    return None


def _tree_params(model) -> tuple:
    """The parameters of one tree, in the order _trees.tree_init unpacks them."""
    return (
        float(model.grace_period),
        float(model.delta),
        float(model.tau),
        float(model.nb_threshold),
        _LEAF[model._leaf_prediction],
        _CRITERION[model._split_criterion],
        bool(model.binary_split),
        float(model.min_branch_fraction),
        float(model.max_share_to_split),
        float(model._max_byte_size),
        float(model.memory_estimate_period),
        bool(model.stop_mem_management),
        bool(model.remove_poor_attrs),
        bool(model.merit_preprune),
        int(model.max_depth),
        int(model.splitter.n_splits),
        type(model) is BoundedHoeffdingTree,
    )


def _rebuild(cls, models, feature_filter, state, stamp=None):
    """A forest of a format-1 pickle (0.2.0's): its models cloned, its nested state checked
    (:func:`_check_state`) and imported. Pickles of the current format load by
    ``_api.restore``."""
    _pickles.check(stamp, "forest")  # before the compiled code reads the state
    try:
        _check_state(state, len(models))
        state = dict(state)
        state["trees"] = [
            ts[:-1] + (None if ts[-1] is None else _nested_nodes(ts[-1]),)
            for ts in state.pop("flat_trees")
        ]
    except (TypeError, ValueError, IndexError, KeyError) as error:
        raise _pickles.PickleFormatError(
            f"a pickled forest whose state is not one this version wrote ({error}): it was "
            "changed after it was written"
        ) from None
    forest = cls(models, feature_filter)
    forest._set_state(state)
    return forest


def _check_state(state: dict, n_models: int) -> None:
    """Every id a pickled forest's trees hold names a feature, value or class of its tables,
    and every node is of its kind's shape: the compiled import reads them without checks
    (ValueError otherwise)."""

    def ids(seq, bound, what):
        if not all(isinstance(v, int) and 0 <= v < bound for v in seq):
            raise ValueError(f"{what} out of range")

    nf, nc = len(state["features"]), len(state["labels"])
    n_values = [len(v) for v in state["values"]]
    trees = state["flat_trees"]
    if state["version"] != 1 or len(n_values) != nf or len(trees) != n_models:
        raise ValueError("tables or trees of the wrong size")
    for tree in trees:
        if len(tree) != 10 or len(tree[7]) != nf:
            raise ValueError("a tree of the wrong shape")
        ids(tree[8], nc, "a class")
        for node in tree[9] or ():
            if node[0] == 0:  # a leaf: its class weights, disabled features and splitters
                _, _, _, _, _, _, st_c, st_w, disabled, splitters = node
                ids(st_c, nc, "a class")
                ids(disabled, nf + 1, "a feature")
                if len(st_w) != len(st_c):
                    raise ValueError("class weights of the wrong size")
                for sp in splitters or ():
                    ids([sp[0]], nf, "a feature")
                    if sp[1]:  # nominal: its values' ids, their classes' weights by position
                        _, _, _, _, vals, classes, ins = sp
                        ids(vals, n_values[sp[0]], "a value")
                        ids(ins or (), len(vals), "a value's position")
                        ids([c for c, _ in classes], nc, "a class")
                        ids([p for _, items in classes for p, _ in items], len(vals), "a value")
                    else:
                        ids([g[0] for g in sp[2]], nc, "a class")
                continue
            _, _, kind, fid, _, vid, bst_c, bst_w, n_children, ch_vid = node
            ids([fid], nf, "a feature")
            ids(bst_c, nc, "a class")
            if len(bst_w) != len(bst_c) or kind not in _SPLIT_KINDS.values():
                raise ValueError("a split of the wrong shape")
            if kind == _NOMINAL_MULTIWAY:
                ids(ch_vid, n_values[fid], "a value")
                if len(ch_vid) != n_children:
                    raise ValueError("a split of the wrong shape")
            elif n_children != 2 or ch_vid is not None:
                raise ValueError("a split of the wrong shape")
            if kind == _NOMINAL_BINARY:
                ids([vid], n_values[fid], "a value")


# Pickles of format 1 (0.2.0's), which still load: a forest's state as nested tuples, each
# tree a flat pre-order list of nodes (pickle recurses once per level of a nested tree), a
# split node's children replaced by their number (index 8 of its tuple).
_CHILDREN = 8


def _nested_nodes(flat: list) -> tuple:
    """A tree's nested nodes from the flat pre-order list of a format-1 pickle (a split
    node's children replaced by their number), without recursion."""
    pending = []  # split nodes still collecting children: [node, children so far]
    for position, node in enumerate(flat, 1):
        if node[0] != 0 and node[_CHILDREN] > 0:
            pending.append([node, []])
            continue
        done = node if node[0] == 0 else node[:_CHILDREN] + ([],) + node[_CHILDREN + 1 :]
        while pending:
            split, children = pending[-1]
            children.append(done)
            if len(children) < split[_CHILDREN]:
                break
            pending.pop()
            done = split[:_CHILDREN] + (children,) + split[_CHILDREN + 1 :]
        else:  # the root is complete: it must be the last node
            if position == len(flat):
                return done
            break
    raise ValueError("HoeffdingForest state: not one tree in pre-order")


class HoeffdingForest(_ForestCore):
    """``N`` River Hoeffding trees, compiled, learning and predicting exactly as River.

    Parameters
    ----------
    models
        ``N >= 0`` fresh River classifiers: :class:`river.tree.HoeffdingTreeClassifier` with a
        ``GaussianSplitter``, each with its own parameters. They are cloned: the
        forest never touches them. More trees can come later (:meth:`add`).
    feature_filter
        ``None`` (every tree sees every feature), or an object with a method
        ``keeps(i, feature) -> bool``, asked once per (tree, feature name) the first time
        tree ``i`` meets that feature (``predict_proba_all`` asks tree by tree, features in
        ``x``'s order); the answer is cached with the tree (see :meth:`reset`,
        :meth:`copy_tree` and :meth:`remove` for trees that change). Must pickle, and must
        not call the forest.

    Raises
    ------
    ValueError
        If a model cannot be compiled (see :meth:`supports`).

    Examples
    --------

    >>> from river import datasets, tree
    >>> from river_boost.forest import HoeffdingForest
    >>> models = [tree.HoeffdingTreeClassifier(grace_period=g) for g in (50, 100)]
    >>> forest = HoeffdingForest(models)
    >>> river_trees = [m.clone() for m in models]
    >>> same = True
    >>> for x, y in datasets.Phishing():
    ...     same &= forest.predict_proba_all(x) == [t.predict_proba_one(x) for t in river_trees]
    ...     for i, t in enumerate(river_trees):
    ...         forest.learn_one(i, x, y)
    ...         t.learn_one(x, y)
    >>> same, forest.n_nodes == [t.n_nodes for t in river_trees]
    (True, True)

    """

    def __init__(self, models: list, feature_filter=None):
        clones = _api.checked_models(_unsupported, models, feature_filter)
        self._init_core(
            [_tree_params(m) for m in clones], clones, [None] * len(clones), feature_filter
        )

    @classmethod
    def _of(cls, model, n: int, overrides=None, feature_filter=None):
        """``n`` trees of one ``model`` (not cloned: a pool's, never learned), tree ``i``
        with the parameters ``overrides[i]`` (``{name: value}`` of ``grace_period``,
        ``delta``, ``tau``, or None) besides the model's: a booster's forest, built without
        cloning a River model per tree."""
        return _api.build(cls, _tree_params, _unsupported, model, n, overrides, feature_filter)

    @staticmethod
    def supports(model) -> bool:
        """Whether ``model`` (exact type, splitter and parameters) can be compiled."""
        return _unsupported(model) is None

    # ------------------------------------------------------------------ trees that come and go

    def add(self, model) -> int:
        """Append a fresh tree with ``model``'s parameters; returns its index (``n_models``
        before the call).

        ``model`` must be supported (:meth:`supports`) and is cloned. The new tree meets the
        ``feature_filter`` as ``keeps(index, feature)``. A loaded ``x`` stays loaded (unless
        ``model`` makes a feature nominal that no tree treated as nominal: see :meth:`load`).

        Raises
        ------
        ValueError
            If ``model`` cannot be compiled.
        """
        model = self._checked_clone(model, "add")
        return self._add_core(_tree_params(model), model, None)

    def add_like(self, i: int) -> int:
        """Append a fresh tree with tree ``i``'s parameters (a background learner); returns
        its index."""
        return _api.add_like(self, _tree_params, i)

    def _add_shared(self, model) -> int:
        """Append a fresh tree of ``model`` itself, not a clone (a booster's model, which
        the forest never learns; checked by the caller with :meth:`supports`); its index."""
        return self._add_core(_tree_params(model), model, None)

    def reset(self, i: int, model=None, *, refilter: bool = False) -> None:
        """Tree ``i`` becomes a fresh tree: the nodes it grew are freed and it starts over,
        as River's ``trees[i].clone()`` (``model=None``) or as ``model.clone()`` (new
        parameters; ``model`` must be supported).

        The tree keeps its index, and with it its feature view: the ``feature_filter``'s
        answers for tree ``i`` stay cached (a booster that keeps per-learner feature subsets
        by index gets the same subset for the learner's successor). ``refilter=True``
        forgets them, so that the filter is asked ``keeps(i, feature)`` again. The kinds of
        the features it learned (number or not) are forgotten with its statistics.
        """
        if not 0 <= i < self.n_models:
            raise IndexError(f"tree index {i} out of range")
        if model is None:  # (the forest's models are never learned: no clone needed)
            model, overrides = self._models[i], self._overrides[i]
        else:
            model, overrides = self._checked_clone(model, "reset"), None
        self._reset_core(
            i, _api.with_overrides(_tree_params(model), overrides), model, overrides, refilter
        )

    @staticmethod
    def _checked_clone(model, what: str):
        return _api.checked_clone(_unsupported, model, what)

    @classmethod
    def _empty(cls, feature_filter=None):
        """A forest of no tree, for a state to fill (:meth:`_take_state`)."""
        return _api.empty(cls, feature_filter)

    def _state(self) -> tuple:
        """The state a pickle holds (a booster's too): the trees' models, their parameters
        and the flat encoding of their nodes (``forest/_flat.pxd``)."""
        return _api.state(self)

    def _take_state(self, state: tuple) -> None:
        """A forest that has learned nothing takes :meth:`_state`'s state (checked:
        PickleFormatError otherwise)."""
        _api.set_state(self, _tree_params, _unsupported, state)

    def __reduce__(self):
        return (_api.restore, (type(self), self.feature_filter, self._state(), _pickles.stamp()))

    def __repr__(self):
        return f"HoeffdingForest(n_models={self.n_models})"

    def __sizeof__(self):
        # The trees live in C memory that Python's and River's memory measures
        # (sys.getsizeof, river's `_raw_memory_usage` / `_memory_usage`) cannot see: count it
        # here; the Python objects the forest holds (models, feature and label tables) are
        # reached by those measures' own walk.
        return super().__sizeof__() + self._allocated_bytes()

    @property
    def models(self) -> list:
        """The trees as River objects, as they stand (copies: :meth:`to_river`)."""
        return [self.to_river(i) for i in range(self.n_models)]

    # ------------------------------------------------------------------ inspection

    def summary(self, i: int) -> dict:
        """River's ``tree.summary`` of tree ``i`` (plus its observed classes)."""
        return _api.summary(self, i)

    def to_river(self, i: int):
        """Tree ``i`` as a River object (a clone of model ``i`` carrying the forest's state).

        The River tree has the same structure, leaf statistics, splitters and counters, so it
        predicts, and goes on learning, as the forest's tree ``i`` (and as River's own tree
        fed the same stream). Meant for inspection (``draw``, ``debug_one``, ``to_dataframe``).
        """
        if not 0 <= i < self.n_models:
            raise IndexError(f"tree index {i} out of range")
        features, values, labels = self._features, self._values, self._labels
        model = _api.to_river_model(self, i)
        scalars = self._tree_scalars(i)

        def stats_of(cids, weights):
            return {labels[c]: w for c, w in zip(cids, weights)}

        def build(node, depth_parent=None):
            if node[0] == 0:
                _, depth, active, last, mc, nb, st_c, st_w, disabled, spls = node
                leaf = model._new_leaf(stats_of(st_c, st_w))
                leaf.depth = depth
                leaf._last_split_attempt_at = last
                leaf._disabled_attrs = {features[f] for f in disabled}
                if hasattr(leaf, "_mc_correct_weight"):
                    leaf._mc_correct_weight = mc
                    leaf._nb_correct_weight = nb
                if spls is None:
                    leaf.splitters = None
                else:
                    leaf.splitters = {}
                    for sp in spls:
                        fid = sp[0]
                        if sp[1] == 0:
                            splitter = model.splitter.clone()
                            for cid, n, mean, S, mn, mx in sp[2]:
                                g = Gaussian()
                                g._var.mean.n = n
                                g._var.mean._mean = mean
                                g._var._S = S
                                splitter._att_dist_per_class[labels[cid]] = g
                                splitter._min_per_class[labels[cid]] = mn
                                splitter._max_per_class[labels[cid]] = mx
                        else:
                            _, _, tot, miss, vals, classes, ins = sp
                            splitter = NominalSplitterClassif()
                            splitter._total_weight_observed = tot
                            splitter._missing_weight_observed = miss
                            objs = values[fid]
                            # River's set, from the same additions in the same order
                            ins = list(ins or ()) + list(range(len(ins or ()), len(vals)))
                            splitter._att_values = set()
                            for p in ins:
                                splitter._att_values.add(objs[vals[p]])
                            dist = collections.defaultdict(dict)
                            for cid, items in classes:
                                dist[labels[cid]] = {objs[vals[p]]: w for p, w in items}
                            splitter._att_dist_per_class = dist
                        leaf.splitters[features[fid]] = splitter
                return leaf
            _, depth, kind, fid, thr, vid, bst_c, bst_w, children, ch_vid = node
            kids = [build(c) for c in children]
            stats = stats_of(bst_c, bst_w)
            if kind == _NUMERIC_BINARY:
                return NumericBinaryBranch(stats, features[fid], thr, depth, *kids)
            if kind == _NOMINAL_BINARY:
                return NominalBinaryBranch(stats, features[fid], values[fid][vid], depth, *kids)
            return NominalMultiwayBranch(
                stats, features[fid], [values[fid][v] for v in ch_vid], depth, *kids
            )

        root = self._export_tree(i)
        model._root = None if root is None else build(root)
        model._n_active_leaves = scalars["n_active_leaves"]
        model._n_inactive_leaves = scalars["n_inactive_leaves"]
        model._inactive_leaf_size_estimate = scalars["inactive_leaf_size_estimate"]
        model._active_leaf_size_estimate = scalars["active_leaf_size_estimate"]
        model._size_estimate_overhead_fraction = scalars["size_estimate_overhead_fraction"]
        model._growth_allowed = scalars["growth_allowed"]
        model._train_weight_seen_by_model = scalars["train_weight_seen_by_model"]
        model.classes = set(scalars["classes"])
        return model


#: Whether boosters whose weak learners the forest supports use it. Set it to False to run
#: River's own trees, the reference: the same results, as long as no tree's size limit binds
#: (River measures its Python objects, several times the forest's C trees: see "Memory
#: measurement"; the default BoundedHoeffdingTree's limit binds in Python on smaller trees).
ENABLED = True
