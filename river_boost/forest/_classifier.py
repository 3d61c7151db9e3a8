"""The classifier forest: :class:`HoeffdingForest`, River's ``HoeffdingTreeClassifier``
compiled (its documentation: ``river_boost.forest``), and :class:`BoundedHoeffdingTree`, the
boosters' default weak learner. The members both forests share are ``_face._CompiledForest``'s;
the compiled trees are ``_forest.ForestCore``'s."""

from __future__ import annotations

import collections

from river import tree as _river_tree
from river.proba import Gaussian
from river.tree.splitter import GaussianSplitter
from river.tree.splitter.nominal_splitter_classif import NominalSplitterClassif

from .. import _pickles
from ._face import BoundedLearning, _CompiledForest, bounded_init, river_branch, shared_params
from ._forest import LEAF_PREDICTIONS as _LEAF
from ._forest import SPLIT_CRITERIA as _CRITERION
from ._forest import SPLIT_KINDS as _SPLIT_KINDS
from ._forest import ForestCore as _ForestCore


class BoundedHoeffdingTree(BoundedLearning, _river_tree.HoeffdingTreeClassifier):
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
    (:func:`~river_boost.pool.default_model`); River's own tree, passed as ``model``,
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

    __init__ = bounded_init(_river_tree.HoeffdingTreeClassifier)


_TREE_TYPES = (_river_tree.HoeffdingTreeClassifier, BoundedHoeffdingTree)
_SPLITTER_TYPES = (GaussianSplitter,)
# the codes of the split kinds in a format-1 pickle's nodes (_check_state)
_NOMINAL_BINARY = _SPLIT_KINDS["NominalBinaryBranch"]
_NOMINAL_MULTIWAY = _SPLIT_KINDS["NominalMultiwayBranch"]


def _rebuild(cls, models, feature_filter, state, stamp=None):
    """A forest of a format-1 pickle (0.2.0's): its models cloned, its nested state checked
    (:func:`_check_state`) and imported. Pickles of the current format load by
    ``_face.restore``."""
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


class HoeffdingForest(_CompiledForest, _ForestCore):
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

    def to_river(self, i: int):
        """Tree ``i`` as a River object (a clone of model ``i`` carrying the forest's state).

        The River tree has the same structure, leaf statistics, splitters and counters, so it
        predicts, and goes on learning, as the forest's tree ``i`` (and as River's own tree
        fed the same stream). Meant for inspection (``draw``, ``debug_one``, ``to_dataframe``).
        """
        model = self._river_model(i)
        features, values, labels = self._features, self._values, self._labels

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
            return river_branch(
                kind, stats, features[fid], values[fid], thr, vid, ch_vid, depth, kids
            )

        root = self._export_tree(i)
        model._root = None if root is None else build(root)
        model.classes = set(self._tree_scalars(i)["classes"])
        return model

    @staticmethod
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
            *shared_params(model),
            int(model.splitter.n_splits),
            type(model) is BoundedHoeffdingTree,
        )

    @staticmethod
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
