"""The Python face both compiled forests share (:class:`~river_boost.forest.HoeffdingForest`
and :class:`~river_boost.forest.HoeffdingRegressionForest`): checking and cloning the models,
the trees' parameters with a pool's per-tree draws, the state a pickle holds, and River's
``summary`` of a tree."""

from __future__ import annotations

import sys

from .. import _pickles

#: The parameters a pool draws per tree (``diversify``), and their places in both kinds' tuples
#: of tree parameters (``_tree_params``): the trees keep one model between them, and these
#: per tree (``overrides``)
TREE_PARAMS = {"grace_period": 0, "delta": 1, "tau": 2}


def checked_models(unsupported, models, feature_filter) -> list:
    """Clones of ``models`` after checking each (``unsupported(model)``: why it cannot be
    compiled, or None) and the ``feature_filter`` (ValueError otherwise)."""
    models = list(models)
    for i, model in enumerate(models):
        reason = unsupported(model)
        if reason is not None:
            raise ValueError(f"model {i}: {reason}")
    check_filter(feature_filter)
    return [m.clone() for m in models]


def check_filter(feature_filter) -> None:
    if feature_filter is not None and not callable(getattr(feature_filter, "keeps", None)):
        raise ValueError("feature_filter must be None or have a keeps(i, feature) method")


def checked_clone(unsupported, model, what: str):
    """A clone of ``model`` if it can be compiled (ValueError naming ``what`` otherwise)."""
    reason = unsupported(model)
    if reason is not None:
        raise ValueError(f"{what}: {reason}")
    return model.clone()


def with_overrides(params: tuple, overrides) -> tuple:
    """A tree's parameters: its model's (``params``), with ``overrides`` (None, or
    ``{name: value}`` of :data:`TREE_PARAMS`) in their places."""
    if not overrides:
        return params
    params = list(params)
    for name, value in overrides.items():
        params[TREE_PARAMS[name]] = float(value)
    return tuple(params)


def build(cls, tree_params, unsupported, model, n: int, overrides, feature_filter):
    """``n`` trees of ``cls`` sharing ``model`` (not cloned: the forest never learns it), tree
    ``i`` with ``overrides[i]`` (None: the model's parameters): a pool's forest."""
    reason = unsupported(model)
    if reason is not None:
        raise ValueError(reason)
    check_filter(feature_filter)
    overrides = [None] * n if overrides is None else list(overrides)
    if len(overrides) != n:
        raise ValueError(f"{n} trees need {n} overrides, got {len(overrides)}")
    base = tree_params(model)
    forest = cls.__new__(cls)
    forest._init_core(
        [with_overrides(base, o) for o in overrides], [model] * n, overrides, feature_filter
    )
    return forest


def add_like(forest, tree_params, i: int) -> int:
    """A fresh tree with tree ``i``'s model and parameters, appended; its index."""
    if not 0 <= i < forest.n_models:
        raise IndexError(f"tree index {i} out of range")
    model, overrides = forest._models[i], forest._overrides[i]
    return forest._add_core(with_overrides(tree_params(model), overrides), model, overrides)


def to_river_model(forest, i: int):
    """A fresh River model with tree ``i``'s parameters (its model's, with its overrides)."""
    return forest._models[i].clone(forest._overrides[i] or None)


def state(forest) -> tuple:
    """What a pickle of ``forest`` holds (see :func:`set_state`): its distinct models, each
    tree's model and overrides, the registry's tables and the trees' streams."""
    models, index, model_of = [], {}, []
    for model in forest._models:
        k = index.get(id(model))
        if k is None:
            k = index[id(model)] = len(models)
            models.append(model)
        model_of.append(k)
    storage = forest._storage
    features, values, labels = storage.tables()
    width, ints, dbls = storage.flat_state()
    return (
        models,
        model_of,
        list(forest._overrides),
        features,
        values,
        labels,
        sys.byteorder,
        width,
        ints,
        dbls,
    )


def set_state(forest, tree_params, unsupported, state) -> None:
    """A forest that has learned nothing takes ``state`` (:func:`state`): every model checked
    (``unsupported``), every tree's parameters computed from its model and overrides, the
    trees read from their streams; PickleFormatError for anything a pickle of this format
    cannot hold."""
    try:
        models, model_of, overrides, features, values, labels, order, width, ints, dbls = state
        if order != sys.byteorder:
            raise _pickles.PickleFormatError(
                f"this forest was pickled on a {order}-endian machine: it loads on one only"
            )
        bases = []
        for model in models:
            reason = unsupported(model)
            if reason is not None:
                raise ValueError(reason)
            bases.append(tree_params(model))
        params = [with_overrides(bases[k], o) for k, o in zip(model_of, overrides, strict=True)]
        forest._unload()
        forest._storage.set_flat_state(
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
    except (TypeError, ValueError, IndexError, KeyError, OverflowError, AttributeError) as error:
        raise _pickles.PickleFormatError(
            f"a pickled forest whose state is not one this version wrote ({error}): it was "
            "changed after it was written"
        ) from None


def empty(cls, feature_filter=None):
    """A forest of no tree, for a state to fill (``_take_state``)."""
    check_filter(feature_filter)
    forest = cls.__new__(cls)
    forest._init_core([], [], [], feature_filter)
    return forest


def restore(cls, feature_filter, state, stamp=None):
    """A pickled forest (``__reduce__``): built empty, then given its state."""
    _pickles.check(stamp, "forest")
    forest = empty(cls, feature_filter)
    forest._take_state(state)
    return forest


def summary(forest, i: int) -> dict:
    """River's ``tree.summary`` of the forest's tree ``i``."""
    n_nodes, n_leaves, height = forest._counts(i)
    s = forest._tree_scalars(i)
    return {
        "n_nodes": n_nodes,
        "n_branches": None if n_nodes is None else n_nodes - n_leaves,
        "n_leaves": n_leaves,
        "n_active_leaves": s["n_active_leaves"],
        "n_inactive_leaves": s["n_inactive_leaves"],
        "height": height,
        "total_observed_weight": s["train_weight_seen_by_model"],
    }
