"""A compiled forest of River Hoeffding *regression* trees: N trees that learn and predict as
:class:`river.tree.HoeffdingTreeRegressor` (River 0.26.1), in C, some 50 times faster than
River's tree (``benchmarks/forest_regression_speed.py``: ten trees on Friedman, predict and
learn every example).

:class:`HoeffdingRegressionForest` is the regression counterpart of
:class:`~river_boost.forest.HoeffdingForest`: it shares the classifier forest's input
conversion (``_input.Input``), registries (``_registry``), storage (``_storage.Storage``:
the per-tree feature views, models and registries, of which ``_regforest.RegStorage`` keeps
the regression trees), core (``_core.ForestBase``), size policy (``_size.pxd``), state
(``_state``) and Python face (``_face._CompiledForest``); the regression roles are their own
modules: ``_reg_structs.pxd`` (structs, ``river.stats.Var`` arithmetic), ``_ebst``
(``TEBSTSplitter``/``EBSTSplitter`` and ``NominalSplitterReg``), ``_qo`` (``QOSplitter``,
the quantization observer of Mastelini & de Carvalho, 2021), ``_criteria``
(``VarianceReductionSplitCriterion``), ``_linear`` (the default ``LinearRegression`` leaf
model), ``_regtrees`` (leaves, nodes, learning, growth) and ``_regforest`` (storage and
core, with the C entry points a Cython booster cimports).

Exactness
---------
Bit for bit, checked against River's own tree on every call
(``tests/forest/test_regression_forest.py``): splits (features, thresholds, nominal values,
multiway and binary), leaf statistics, and ``predict_one`` for leaf predictions ``"mean"``,
``"model"`` and ``"adaptive"`` (the default), with River's ``TEBSTSplitter`` (any ``digits``),
``EBSTSplitter`` or ``QOSplitter`` (any ``radius``; ``tests/forest/test_qo_forest.py``),
``grace_period``, ``delta``, ``tau``, ``max_depth``,
``min_samples_split``, ``model_selector_decay``, ``merit_preprune``, ``remove_poor_attrs``,
``binary_split``, sample weights (any finite positive float), missing features, nominal
features and features first seen mid-stream. The arithmetic is River's operation by
operation: ``Var``'s Welford updates and its ``+=``/``-=`` (Chan et al.), the E-BST's in-order
walk with River's auxiliary statistics and its pruning of bad splits after a failed attempt,
the quantizer's slots ``math.floor(x / radius)`` walked in key order (and River's left
statistics of a QO split, which are its running sum after the walk: all the slots),
``round(x, digits)`` (correctly rounded, as CPython's), ``float.__pow__`` through libm, and
the leaf model's SGD step. River 0.26's ``VectorDict`` (Rust) sums ``weights.dot(x)`` over
``x``'s keys in ``x``'s order from ``0.0``; the forest does the same, so the linear leaf model
is bit for bit too (a key of ``x`` missing from the weights adds ``0.0 * x[k]`` in River,
nothing here: the same sum for finite values).

What holds, option by option (River 0.26.1, CPython floats; each checked on every call by
the tests, on Friedman, FriedmanDrift, TrumpApproval, ChickWeights and a stream with nominal
and late features, with integer and fractional weights and missing features):

=============================================  =========================================
option                                         the forest's tree against River's
=============================================  =========================================
``leaf_prediction`` ``"adaptive"`` (default),  bit for bit (predictions, splits, leaf
``"model"`` (default ``LinearRegression()``),  statistics, leaf models, sizes)
``"mean"``
``splitter`` ``TEBSTSplitter(digits)``         bit for bit
(default ``digits=1``), ``EBSTSplitter()``,
``QOSplitter(radius)`` (binary splits)
``QOSplitter(allow_multiway_splits=True)``     bit for bit with ``binary_split=True``
                                               (River then never tries a multiway
                                               split); not compiled otherwise
:class:`MidpointQOSplitter` ``(radius)``       bit for bit with River's tree running it
                                               (River's QO, the slots below a threshold
                                               on its left: see its docstring)
``grace_period``, ``delta``, ``tau``,          bit for bit
``max_depth``, ``min_samples_split``,
``model_selector_decay``, ``merit_preprune``,
``remove_poor_attrs``, ``binary_split``,
``nominal_attributes``, ``stop_mem_management``
sample weights (finite, positive), missing     bit for bit
features, features first seen mid-stream,
nominal (non-numeric) features
``max_size`` / ``memory_estimate_period``      River's policy on the C structures' sizes:
(and :class:`BoundedHoeffdingTreeRegressor`)   bit for bit while no limit binds; a limit
                                               binds on larger trees than River's, whose
                                               Python objects measure more (see below)
``to_river(i)``, pickling, ``copy.deepcopy``,  bit for bit (continue identically)
``copy_tree``
any other ``leaf_model``, other splitters      not compiled (``supports`` is False)
=============================================  =========================================

No option needed a tolerance: the one place River's arithmetic is not plain Python floats,
the Rust ``VectorDict`` of the leaf model, sums in ``x``'s order, which the forest reproduces.

Differences from River, all deliberate:

- **Non-numeric features with model or adaptive leaves.** River's ``LinearRegression`` raises
  ``TypeError`` for them (after its tree has partly learned the example); the forest raises
  ``TypeError`` before any state changes. With ``leaf_prediction="mean"`` nominal features
  work as in River.
- **Memory measurement.** As in the classifier forest, the size policy is River's but it
  measures the C structures (River: ``sys.getsizeof`` over Python objects), so results can
  differ only when a size limit binds (River's default: 500 MiB, measured every 1,000,000
  units of weight; in practice never).
- **Targets and weights** must be finite (and weights positive): ``ValueError`` before any
  state changes (River would propagate ``nan``/``inf`` into its statistics).
- **Values a QOSplitter cannot quantize.** With ``QOSplitter``, a numeric feature whose
  ``x / radius`` is not finite (NaN, infinite, or huge over a small radius) makes River's
  ``math.floor`` raise after its tree has partly learned the example; the forest raises
  ``ValueError`` before any state changes, for every such feature the tree sees (nominal
  attributes excepted), also where River's example would not have reached a splitter.
- Feature values are converted to C doubles once (as in the classifier forest): Python ints
  beyond 2**53, which River's ``round`` keeps exact, may differ, and an infinite or NaN
  feature that a leaf model has no weight for yet adds nothing here where River adds
  ``0.0 * x[k]`` (NaN).

The C entry points for a Cython booster (``river_boost/forest/_regforest.pxd``)::

    from river_boost.forest._regforest cimport RegressionForestCore
    cdef RegressionForestCore f = <RegressionForestCore?>forest
    f.load_c(x)                          # int, except -1 (_core.ForestBase's, as the classifier's)
    p = f.predict_loaded_c(i)            # double, except? -1.0
    f.learn_loaded_c(i, y, w)            # int, except -1 (ValueError: y or w not finite, w <= 0)

Bounded memory
--------------
:class:`BoundedHoeffdingTreeRegressor` is River's regressor whose size limit binds under
fractional weights (measured whenever the weight learned reaches or crosses a multiple of
``memory_estimate_period``; 2 MiB per tree and every 1,000 units of weight by default): past
it, River's policy deactivates the deepest leaves (they keep predicting, drop their E-BSTs).
One such tree learning a million examples of a drifting Friedman stream with weights drawn
uniformly in [0.05, 2] stays at 2.0 MiB of C memory from the 100,000th example on.
"""

from __future__ import annotations

import copy
import math

from river import linear_model as _linear_model
from river import optim as _optim
from river import tree as _river_tree
from river.stats import Mean, Var
from river.tree.splitter import EBSTSplitter, QOSplitter, TEBSTSplitter
from river.tree.splitter.ebst_splitter import EBSTNode
from river.tree.splitter.nominal_splitter_reg import NominalSplitterReg
from river.tree.splitter.qo_splitter import Slot
from river.tree.utils import BranchFactory, combine_stats, update_stats
from river.utils import VectorDict

from ._face import BoundedLearning, _CompiledForest, bounded_init, river_branch, shared_params
from ._regforest import RegressionForestCore as _RegressionForestCore

__all__ = ["BoundedHoeffdingTreeRegressor", "HoeffdingRegressionForest", "MidpointQOSplitter"]

_LEAF = {"mean": 0, "model": 1, "adaptive": 2}
_NO_ROUNDING = -1000  # EBSTSplitter: no rounding of the values
_KIND_NOMINAL, _KIND_QO = 1, 2  # _reg_structs.RSplKind (0: an E-BST)


class BoundedHoeffdingTreeRegressor(BoundedLearning, _river_tree.HoeffdingTreeRegressor):
    """River's Hoeffding regression tree whose size limit binds under any sample weights.

    River measures its size (and applies ``max_size``) only when the weight learned is an
    exact multiple of ``memory_estimate_period``: with a booster's fractional weights,
    practically never. This tree also measures itself whenever the weight learned crosses a
    multiple; everything else is River's :class:`~river.tree.HoeffdingTreeRegressor`.
    The compiled :class:`HoeffdingRegressionForest` runs it, measuring its C structures.

    Parameters
    ----------
    max_size
        The size limit in MiB (default 2).
    memory_estimate_period
        Weight learned between two measurements (default 1,000).
    **kwargs
        Any other parameter of :class:`~river.tree.HoeffdingTreeRegressor`.

    Examples
    --------

    >>> from river.datasets import synth
    >>> from river_boost.forest import BoundedHoeffdingTreeRegressor
    >>> model = BoundedHoeffdingTreeRegressor(grace_period=20, max_size=0.05,
    ...                                       memory_estimate_period=50)
    >>> for x, y in synth.Friedman(seed=1).take(3000):
    ...     model.learn_one(x, y, w=0.3)
    >>> model.summary["n_inactive_leaves"] > 0
    True

    """

    __init__ = bounded_init(_river_tree.HoeffdingTreeRegressor)


class MidpointQOSplitter(QOSplitter):
    """River's quantization observer whose split at the midpoint between two slots sends the
    slots below it to the left, as Mastelini & de Carvalho (2021) describe it.

    River's :class:`~river.tree.splitter.QOSplitter` (0.26) scores the threshold between slots
    ``k - 1`` and ``k`` with slot ``k`` on the left side, and the last threshold with every
    slot on the left: a feature of two slots (a 0/1 feature, a one-hot category) never
    splits, and a winning split's left child starts from the statistics of every slot. Here
    the threshold's left side is the slots below it, for the merit and the child alike;
    everything else (the slots, the radius, the midpoints) is River's. Binary splits only.
    The compiled :class:`HoeffdingRegressionForest` runs it, bit for bit.

    Parameters
    ----------
    radius
        The quantization radius: a value ``x`` goes to the slot ``math.floor(x / radius)``.

    Examples
    --------

    >>> import random
    >>> from river import tree
    >>> from river.tree.splitter import QOSplitter
    >>> from river_boost.forest import MidpointQOSplitter
    >>> rng = random.Random(1)
    >>> bits = [rng.randint(0, 1) for _ in range(500)]
    >>> data = [({"a": b}, 3.0 * b + rng.gauss(0.0, 0.1)) for b in bits]
    >>> for splitter in (QOSplitter(), MidpointQOSplitter()):
    ...     model = tree.HoeffdingTreeRegressor(grace_period=50, splitter=splitter)
    ...     for x, y in data:
    ...         model.learn_one(x, y)
    ...     print(type(splitter).__name__, model.n_nodes)
    QOSplitter 1
    MidpointQOSplitter 3

    References
    ----------
    Mastelini, S. M. and de Carvalho, A. C. P. L. F., 2021. Using dynamical quantization to
    perform split attempts in online tree regressors. Pattern Recognition Letters, 145.

    """

    def __init__(self, radius: float = 0.25):
        super().__init__(radius=radius, allow_multiway_splits=False)

    def best_evaluated_split_suggestion(self, criterion, pre_split_dist, att_idx, binary_only=True):
        candidate = BranchFactory()
        slots = self._quantizer.hash
        if len(slots) == 1:
            return candidate
        left, prev_x = Var(), None
        for key in sorted(slots):
            x = slots[key].x_stats.get()
            if prev_x is not None:
                right = combine_stats(pre_split_dist, left, subtract=True)
                merit = criterion.merit_of_split(pre_split_dist, [left, right])
                if merit > candidate.merit:
                    children = [copy.deepcopy(left), right]
                    candidate = BranchFactory(merit, att_idx, (prev_x + x) / 2.0, children)
            update_stats(left, slots[key].y_stats)
            prev_x = x
        return candidate


_QO_SPLITTERS = (QOSplitter, MidpointQOSplitter)
_TREE_TYPES = (_river_tree.HoeffdingTreeRegressor, BoundedHoeffdingTreeRegressor)


def _is_default_linear(lm) -> bool:
    """Whether ``lm`` is River's ``LinearRegression()`` with its default parameters, fresh:
    the leaf model the regression trees compile (compared parameter by parameter: River's
    ``repr`` of it took 0.6 ms, more than building a booster should)."""
    if type(lm) is not _linear_model.LinearRegression:
        return False
    optimizer, intercept_lr = lm.optimizer, lm.intercept_lr
    schedule = getattr(optimizer, "lr", None)
    return (
        type(optimizer) is _optim.SGD
        and type(schedule) is _optim.schedulers.Constant
        and schedule.learning_rate == 0.01
        and optimizer.n_iterations == 0
        and type(lm.loss) is _optim.losses.Squared
        and lm.l2 == 0.0
        and lm.l1 == 0.0
        and lm.intercept_init == 0.0
        and lm.intercept == 0.0
        and type(intercept_lr) is _optim.schedulers.Constant
        and intercept_lr.learning_rate == 0.01
        and lm.clip_gradient == 1e12
        and type(lm.initializer) is _optim.initializers.Zeros
        and not lm._weights.to_dict()
    )


class HoeffdingRegressionForest(_CompiledForest, _RegressionForestCore):
    """``N`` River Hoeffding regression trees, compiled, learning and predicting as River.

    Parameters
    ----------
    models
        Fresh River regressors (:class:`river.tree.HoeffdingTreeRegressor` or
        :class:`BoundedHoeffdingTreeRegressor`), each configuring its tree; cloned.
    feature_filter
        ``None`` or an object with ``keeps(i, feature) -> bool`` (as
        :class:`~river_boost.forest.HoeffdingForest`'s).

    Examples
    --------

    >>> from river import tree
    >>> from river.datasets import synth
    >>> from river_boost.forest import HoeffdingRegressionForest
    >>> models = [tree.HoeffdingTreeRegressor(grace_period=g) for g in (50, 100)]
    >>> forest = HoeffdingRegressionForest(models)
    >>> river_trees = [m.clone() for m in models]
    >>> same = True
    >>> for x, y in synth.Friedman(seed=42).take(2000):
    ...     for i, t in enumerate(river_trees):
    ...         same &= forest.predict_one(i, x) == t.predict_one(x)
    ...         forest.learn_one(i, x, y)
    ...         t.learn_one(x, y)
    >>> same, forest.n_nodes == [t.n_nodes for t in river_trees]
    (True, True)

    """

    def to_river(self, i: int):
        """Tree ``i`` as a River object (a clone of model ``i`` carrying the forest's state):
        the same structure, leaf statistics, leaf models, E-BSTs and counters, so it
        predicts, and goes on learning, as the forest's tree ``i`` (E-BST thresholds are
        floats where River, fed ints, may hold ints)."""
        model = self._river_model(i)
        state = self._get_state()
        features, values = state["features"], state["values"]
        flat = state["trees"][i][2]

        def var(st):
            v = Var()
            v.mean.n, v.mean._mean, v._S = st
            return v

        def ebst(nodes):
            root, pending, prev = None, [], None
            for att, n, mean, S, has_l, has_r in nodes:
                node = EBSTNode.__new__(EBSTNode)
                node.att_val, node.estimator = att, var((n, mean, S))
                node._update_estimator = EBSTNode._update_estimator_univariate
                node._left = node._right = None
                if root is None:
                    root = node
                elif prev is not None:
                    prev._left = node
                else:
                    pending.pop()._right = node
                if has_r:
                    pending.append(node)
                prev = node if has_l else None
            return root

        def slot(x_mean, n, mean, S):
            sl = Slot.__new__(Slot)
            sl.x_stats = Mean()
            sl.x_stats.n, sl.x_stats._mean = n, x_mean
            sl.y_stats, sl.is_single_target = var((n, mean, S)), True
            sl._update_estimator = sl._update_estimator_univariate
            return sl

        def leaf_of(st):
            _, depth, active, last, vs, lm, fmse_mean, fmse_model, spls, disabled = st
            leaf = model._new_leaf(var(vs))
            leaf.depth = depth
            leaf._last_split_attempt_at = last
            leaf._disabled_attrs = {features[f] for f in disabled}
            if hasattr(leaf, "_leaf_model"):
                intercept, n_iter, wf, w = lm
                leaf._leaf_model.intercept = intercept
                leaf._leaf_model._weights = VectorDict({features[f]: v for f, v in zip(wf, w)})
                leaf._leaf_model.optimizer.n_iterations = n_iter
            if hasattr(leaf, "_fmse_mean"):
                leaf._fmse_mean, leaf._fmse_model = fmse_mean, fmse_model
            if not active:
                leaf.splitters = None
                return leaf
            for fid, kind, nodes, vids, stats in spls:
                if kind == _KIND_NOMINAL:
                    sp = NominalSplitterReg()
                    sp._statistics = {values[fid][v]: var(t) for v, t in zip(vids, stats)}
                elif kind == _KIND_QO:
                    sp = model.splitter.clone()
                    sp._quantizer.hash = {int(key): slot(*st) for key, *st in nodes[2]}
                else:
                    sp = model.splitter.clone()
                    sp._root = ebst(nodes)
                leaf.splitters[features[fid]] = sp
            return leaf

        def build(pos):
            st = flat[pos]
            if st[0] == 0:
                return leaf_of(st), pos + 1
            _, depth, kind, fid, thr, vid, vs, n_ch, ch_vid = st
            kids, pos = [], pos + 1
            for _ in range(n_ch):
                kid, pos = build(pos)
                kids.append(kid)
            branch = river_branch(
                kind, var(vs), features[fid], values[fid], thr, vid, ch_vid, depth, kids
            )
            return branch, pos

        model._root = None if flat is None else build(0)[0]
        return model

    @staticmethod
    def _tree_params(model) -> tuple:
        """One tree's parameters, in the order _regtrees.rtree_init unpacks them."""
        sp = model.splitter
        return (
            float(model.grace_period),
            float(model.delta),
            float(model.tau),
            _LEAF[model.leaf_prediction],
            float(model.model_selector_decay),
            float(model.min_samples_split),
            bool(model.binary_split),
            *shared_params(model),
            sp.digits if type(sp) is TEBSTSplitter else _NO_ROUNDING,
            type(model) is BoundedHoeffdingTreeRegressor,
            float(sp.radius) if type(sp) in _QO_SPLITTERS else 0.0,
            type(sp) is MidpointQOSplitter,
        )

    @staticmethod
    def _unsupported(model) -> str | None:
        """Why ``model`` cannot be compiled, or None if it can."""
        if type(model) not in _TREE_TYPES:
            return f"{type(model).__name__} is not river.tree.HoeffdingTreeRegressor"
        sp = model.splitter
        if type(sp) is TEBSTSplitter:
            d = sp.digits
            if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d <= 20:
                return f"TEBSTSplitter digits must be an int in [0, 20], got {d!r}"
        elif type(sp) in _QO_SPLITTERS:
            r = sp.radius
            if isinstance(r, bool) or not isinstance(r, (int, float)):
                return f"QOSplitter radius must be a real number, got {r!r}"
            if not 0 < r < math.inf or (isinstance(r, int) and r > 2**53):
                return f"QOSplitter radius must be positive and finite, got {r!r}"
            if sp.allow_multiway_splits and not model.binary_split:
                return "QOSplitter's numeric multiway splits are not compiled (binary_split=True)"
        elif type(sp) is not EBSTSplitter:
            return f"splitter {type(sp).__name__} is not TEBSTSplitter, EBSTSplitter or QOSplitter"
        if sp._quantizer.hash if type(sp) in _QO_SPLITTERS else sp._root is not None:
            return "the splitter has already learned"
        if model._root is not None:
            return "the model has already learned: give the forest fresh (unfitted) trees"
        if model.leaf_prediction not in _LEAF:
            return f"leaf_prediction {model.leaf_prediction!r} is not supported"
        if model.leaf_prediction != "mean":
            lm = model.leaf_model
            if not _is_default_linear(lm):
                return "only River's default, fresh LinearRegression() leaf model is compiled"
        for name in (
            "grace_period",
            "delta",
            "tau",
            "model_selector_decay",
            "min_samples_split",
            "_max_byte_size",
            "memory_estimate_period",
        ):
            value = getattr(model, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return f"{name.lstrip('_')} must be a real number, got {value!r}"
        if not isinstance(model.max_depth, int):
            return f"max_depth must be an int or None, got {model.max_depth!r}"
        return None
