"""The Python face both compiled forests share (:class:`~river_boost.forest.HoeffdingForest`
and :class:`~river_boost.forest.HoeffdingRegressionForest`): checking and cloning the models,
and River's ``summary`` of a tree."""

from __future__ import annotations


def checked_models(unsupported, models, feature_filter) -> list:
    """Clones of ``models`` after checking each (``unsupported(model)``: why it cannot be
    compiled, or None) and the ``feature_filter`` (ValueError otherwise)."""
    models = list(models)
    for i, model in enumerate(models):
        reason = unsupported(model)
        if reason is not None:
            raise ValueError(f"model {i}: {reason}")
    if feature_filter is not None and not callable(getattr(feature_filter, "keeps", None)):
        raise ValueError("feature_filter must be None or have a keeps(i, feature) method")
    return [m.clone() for m in models]


def checked_clone(unsupported, model, what: str):
    """A clone of ``model`` if it can be compiled (ValueError naming ``what`` otherwise)."""
    reason = unsupported(model)
    if reason is not None:
        raise ValueError(f"{what}: {reason}")
    return model.clone()


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
