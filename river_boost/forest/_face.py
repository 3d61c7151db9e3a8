"""The Python face both compiled forests share: :class:`_CompiledForest`, of which
:class:`~river_boost.forest.HoeffdingForest` and
:class:`~river_boost.forest.HoeffdingRegressionForest` are the classifier's and the regressor's
subclasses (River's ``HoeffdingTree`` with its classifier and regressor, in the same shape), and
the bounded trees' one change to River's (:class:`BoundedLearning`).

A kind gives the forest two functions, as static methods: ``_unsupported(model)``, why a
model cannot be compiled (None if it can), and ``_tree_params(model)``, its tree's parameters
in the order the compiled tree unpacks them; and ``to_river``, its trees as River objects."""

from __future__ import annotations

import inspect
import math
import sys

from river.tree.nodes.branch import (
    NominalBinaryBranch,
    NominalMultiwayBranch,
    NumericBinaryBranch,
)

from .. import _pickles
from ._forest import SPLIT_KINDS

# A bounded tree's size limit (MiB per tree) and the weight between two measurements: see
# benchmarks/RESULTS.md, "A million examples: memory"
DEFAULT_MAX_SIZE = 2.0
DEFAULT_MEMORY_ESTIMATE_PERIOD = 1000.0

#: The parameters a pool draws per tree (``diversify``), and their places in both kinds' tuples
#: of tree parameters (``_tree_params``): the trees keep one model between them, and these
#: per tree (``overrides``)
TREE_PARAMS = {"grace_period": 0, "delta": 1, "tau": 2}


class _Public:
    """A base of the classes the kinds' modules define and the package exports: they are named
    ``river_boost.forest.<name>``, as pickles and the docs know them."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__ in (f"{__package__}._classifier", f"{__package__}._regression"):
            cls.__module__ = __package__


def measure_if_crossed(tree, before: float) -> None:
    """A River Hoeffding tree measures its size, and applies ``max_size``, only when the weight
    it has learned is an exact multiple of ``memory_estimate_period``: under a booster's
    fractional weights, practically never. Measure it (``_estimate_model_size``) whenever that
    weight, ``before`` the last example, crossed a multiple, so that ``max_size`` binds."""
    after, period = tree._train_weight_seen_by_model, tree.memory_estimate_period
    if after % period != 0 and math.floor(after / period) != math.floor(before / period):
        tree._estimate_model_size()


def bounded_init(river_tree):
    """``river_tree.__init__`` with the bounded trees' defaults of ``max_size`` and
    ``memory_estimate_period`` (:data:`DEFAULT_MAX_SIZE`, :data:`DEFAULT_MEMORY_ESTIMATE_PERIOD`),
    in its signature too: River reads a model's parameters (``clone``, ``repr``) from it."""
    defaults = {
        "max_size": DEFAULT_MAX_SIZE,
        "memory_estimate_period": DEFAULT_MEMORY_ESTIMATE_PERIOD,
    }
    signature = inspect.signature(river_tree.__init__)
    params = [
        p.replace(default=defaults.get(p.name, p.default)) for p in signature.parameters.values()
    ]
    # each default's place among the positional arguments after self
    place = {p.name: k - 1 for k, p in enumerate(params) if p.name in defaults}

    def __init__(self, *args, **kwargs):
        for name, value in defaults.items():
            if len(args) <= place[name]:
                kwargs.setdefault(name, value)
        river_tree.__init__(self, *args, **kwargs)

    __init__.__signature__ = signature.replace(parameters=params)
    return __init__


class BoundedLearning(_Public):
    """River's Hoeffding tree (the class after this one in a subclass's bases), measuring its
    size whenever the weight it has learned reaches or crosses a multiple of
    ``memory_estimate_period`` (River: only at exact multiples; see
    :func:`measure_if_crossed`)."""

    def learn_one(self, x, y, *, w=1.0):
        before = self._train_weight_seen_by_model
        # River measures in there when the weight learned is an exact multiple of the period
        super().learn_one(x, y, w=w)
        measure_if_crossed(self, before)


def river_branch(kind: int, stats, feature, values: list, thr, vid, ch_vid, depth, kids):
    """River's branch of an exported split node of either kind (``to_river``): ``stats`` its
    statistics as River holds them, ``values`` its feature's values by id."""
    if kind == SPLIT_KINDS["NumericBinaryBranch"]:
        return NumericBinaryBranch(stats, feature, thr, depth, *kids)
    if kind == SPLIT_KINDS["NominalBinaryBranch"]:
        return NominalBinaryBranch(stats, feature, values[vid], depth, *kids)
    return NominalMultiwayBranch(stats, feature, [values[v] for v in ch_vid], depth, *kids)


def shared_params(model) -> tuple:
    """The tree parameters both kinds take, in this order, within their ``_tree_params``."""
    return (
        float(model._max_byte_size),
        float(model.memory_estimate_period),
        bool(model.stop_mem_management),
        bool(model.remove_poor_attrs),
        bool(model.merit_preprune),
        int(model.max_depth),
    )


def _check_filter(feature_filter) -> None:
    if feature_filter is not None and not callable(getattr(feature_filter, "keeps", None)):
        raise ValueError("feature_filter must be None or have a keeps(i, feature) method")


def _with_overrides(params: tuple, overrides) -> tuple:
    """A tree's parameters: its model's (``params``), with ``overrides`` (None, or
    ``{name: value}`` of :data:`TREE_PARAMS`) in their places."""
    if not overrides:
        return params
    params = list(params)
    for name, value in overrides.items():
        params[TREE_PARAMS[name]] = float(value)
    return tuple(params)


def restore(cls, feature_filter, state, stamp=None):
    """A pickled forest (``__reduce__``): built empty, then given its state."""
    _pickles.check(stamp, "forest")
    forest = cls._empty(feature_filter)
    forest._take_state(state)
    return forest


class _CompiledForest(_Public):
    """``N`` River Hoeffding trees of one kind, compiled: the members both kinds share, over
    their compiled core (``_forest.ForestCore``, ``_regforest.RegressionForestCore``).

    Parameters
    ----------
    models
        ``N >= 0`` fresh River trees of the kind, each with its own parameters. They are
        cloned: the forest never touches them. More trees can come later (:meth:`add`).
    feature_filter
        ``None`` (every tree sees every feature), or an object with a method
        ``keeps(i, feature) -> bool``, asked once per (tree, feature name) the first time
        tree ``i`` meets that feature; the answer is cached with the tree (see :meth:`reset`,
        ``copy_tree`` and ``remove`` for trees that change). Must pickle, and must not call
        the forest.

    Raises
    ------
    ValueError
        If a model cannot be compiled (see :meth:`supports`).
    """

    def __init__(self, models: list, feature_filter=None):
        models = list(models)
        for i, model in enumerate(models):
            reason = self._unsupported(model)
            if reason is not None:
                raise ValueError(f"model {i}: {reason}")
        _check_filter(feature_filter)
        clones = [m.clone() for m in models]
        self._init_core(
            [self._tree_params(m) for m in clones], clones, [None] * len(clones), feature_filter
        )

    @classmethod
    def _of(cls, model, n: int, overrides=None, feature_filter=None):
        """``n`` trees of one ``model`` (not cloned: a pool's, never learned), tree ``i``
        with the parameters ``overrides[i]`` (``{name: value}`` of ``grace_period``,
        ``delta``, ``tau``, or None) besides the model's: a booster's forest, built without
        cloning a River model per tree."""
        reason = cls._unsupported(model)
        if reason is not None:
            raise ValueError(reason)
        _check_filter(feature_filter)
        overrides = [None] * n if overrides is None else list(overrides)
        if len(overrides) != n:
            raise ValueError(f"{n} trees need {n} overrides, got {len(overrides)}")
        base = cls._tree_params(model)
        forest = cls.__new__(cls)
        forest._init_core(
            [_with_overrides(base, o) for o in overrides], [model] * n, overrides, feature_filter
        )
        return forest

    @classmethod
    def supports(cls, model) -> bool:
        """Whether ``model`` (exact type, splitter and parameters) can be compiled."""
        return cls._unsupported(model) is None

    # ------------------------------------------------------------------ trees that come and go

    def add(self, model) -> int:
        """Append a fresh tree with ``model``'s parameters; returns its index (``n_models``
        before the call).

        ``model`` must be supported (:meth:`supports`) and is cloned. The new tree meets the
        ``feature_filter`` as ``keeps(index, feature)``. A loaded ``x`` stays loaded (unless
        ``model`` makes a feature nominal that no tree treated as nominal: see ``load``).

        Raises
        ------
        ValueError
            If ``model`` cannot be compiled.
        """
        model = self._checked_clone(model, "add")
        return self._add_core(self._tree_params(model), model, None)

    def add_like(self, i: int) -> int:
        """Append a fresh tree with tree ``i``'s parameters (a background learner); returns
        its index."""
        if not 0 <= i < self.n_models:
            raise IndexError(f"tree index {i} out of range")
        model, overrides = self._models[i], self._overrides[i]
        return self._add_core(
            _with_overrides(self._tree_params(model), overrides), model, overrides
        )

    def _add_shared(self, model) -> int:
        """Append a fresh tree of ``model`` itself, not a clone (a booster's model, which
        the forest never learns; checked by the caller with :meth:`supports`); its index."""
        return self._add_core(self._tree_params(model), model, None)

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
        params = _with_overrides(self._tree_params(model), overrides)
        self._reset_core(i, params, model, overrides, refilter)

    @classmethod
    def _checked_clone(cls, model, what: str):
        """A clone of ``model`` if it can be compiled (ValueError naming ``what`` otherwise)."""
        reason = cls._unsupported(model)
        if reason is not None:
            raise ValueError(f"{what}: {reason}")
        return model.clone()

    # ------------------------------------------------------------------ state

    @classmethod
    def _empty(cls, feature_filter=None):
        """A forest of no tree, for a state to fill (:meth:`_take_state`)."""
        _check_filter(feature_filter)
        forest = cls.__new__(cls)
        forest._init_core([], [], [], feature_filter)
        return forest

    def _state(self) -> tuple:
        """The state a pickle holds (a booster's too): its distinct models, each tree's model
        and overrides, the registry's tables (features, values, labels) and the trees' flat
        encoding (``forest/_flat.pxd``)."""
        models, index, model_of = [], {}, []
        for model in self._models:
            k = index.get(id(model))
            if k is None:
                k = index[id(model)] = len(models)
                models.append(model)
            model_of.append(k)
        storage = self._storage
        features, values, labels = storage.tables()
        width, ints, dbls = storage.flat_state()
        return (
            models,
            model_of,
            list(self._overrides),
            features,
            values,
            labels,
            sys.byteorder,
            width,
            ints,
            dbls,
        )

    def _take_state(self, state: tuple) -> None:
        """A forest that has learned nothing takes :meth:`_state`'s state: every model
        checked, every tree's parameters computed from its model and overrides, the trees read
        from their streams; PickleFormatError for anything a pickle of this format cannot
        hold."""
        try:
            models, model_of, overrides, features, values, labels, order, width, ints, dbls = state
            if order != sys.byteorder:
                raise _pickles.PickleFormatError(
                    f"this forest was pickled on a {order}-endian machine: it loads on one only"
                )
            bases = []
            for model in models:
                reason = self._unsupported(model)
                if reason is not None:
                    raise ValueError(reason)
                bases.append(self._tree_params(model))
            params = [
                _with_overrides(bases[k], o) for k, o in zip(model_of, overrides, strict=True)
            ]
            self._unload()
            self._storage.set_flat_state(
                params,
                [models[k] for k in model_of],
                list(overrides),
                list(features),
                [list(v) for v in values],
                list(labels),
                width,
                ints,
                dbls,
            )
        except _pickles.PickleFormatError:
            raise
        except (TypeError, ValueError, IndexError, KeyError, OverflowError, AttributeError) as e:
            raise _pickles.PickleFormatError(
                f"a pickled forest whose state is not one this version wrote ({e}): it was "
                "changed after it was written"
            ) from None

    def __reduce__(self):
        return (restore, (type(self), self.feature_filter, self._state(), _pickles.stamp()))

    def __repr__(self):
        return f"{type(self).__name__}(n_models={self.n_models})"

    def __sizeof__(self):
        # The trees live in C memory that Python's and River's memory measures
        # (sys.getsizeof, river's `_raw_memory_usage` / `_memory_usage`) cannot see: count it
        # here; the Python objects the forest holds (models, feature and label tables) are
        # reached by those measures' own walk.
        return super().__sizeof__() + self._allocated_bytes()

    # ------------------------------------------------------------------ inspection

    @property
    def models(self) -> list:
        """The trees as River objects, as they stand (copies: ``to_river``)."""
        return [self.to_river(i) for i in range(self.n_models)]

    def _river_model(self, i: int):
        """A fresh River model with tree ``i``'s parameters (its model's, with its overrides)
        and counters, for ``to_river`` to fill with its nodes."""
        if not 0 <= i < self.n_models:
            raise IndexError(f"tree index {i} out of range")
        model = self._models[i].clone(self._overrides[i] or None)
        for name, value in self._tree_scalars(i).items():
            if name != "classes":  # (the classifier's: not a counter)
                setattr(model, "_" + name, value)
        return model

    def summary(self, i: int) -> dict:
        """River's ``tree.summary`` of tree ``i``."""
        n_nodes, n_leaves, height = self._counts(i)
        s = self._tree_scalars(i)
        return {
            "n_nodes": n_nodes,
            "n_branches": None if n_nodes is None else n_nodes - n_leaves,
            "n_leaves": n_leaves,
            "n_active_leaves": s["n_active_leaves"],
            "n_inactive_leaves": s["n_inactive_leaves"],
            "height": height,
            "total_observed_weight": s["train_weight_seen_by_model"],
        }
