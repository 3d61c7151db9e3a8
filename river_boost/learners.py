"""The gradient boosters' weak learners: ``N`` regressors behind one interface.

The walk (:mod:`river_boost.engine._gradient`) calls its learners through this interface
only, learner ``i`` by index:

- ``load(x)``, then ``predict_loaded(i) -> float`` and ``learn_loaded(i, y, w)`` on the loaded
  ``x``; ``predict_one(i, x)`` and ``learn_one(i, x, y, w)`` on any ``x``;
- ``add(model) -> i`` (a clone of ``model``), ``add_like(i) -> j`` (a fresh learner with
  learner ``i``'s parameters), ``reset(i, model=None)`` (a fresh clone of ``model``, or of
  learner ``i``'s own parameters; ``refilter=True`` after its feature subset changed),
  ``remove(i)``, ``copy_tree(src, dst)``;
- ``n_models``, ``models``; the static ``supports(model)``: whether the implementation
  takes that model, and the class method ``_of(model, n, overrides, feature_filter)``: ``n``
  learners of ``model``.

:class:`RegressorLearners` implements it for any River regressor. :func:`make_learners` is the
one place where an implementation is chosen: the first of :data:`IMPLEMENTATIONS` that
supports the model. The compiled forest of Hoeffding regression trees
(:class:`~river_boost.forest.HoeffdingRegressionForest`) comes first in that tuple. The filter
it is given is the engine's ``FeatureSubsets``, which the engine changes in place
(``reseed(i, salt)`` when it replaces a step, ``append(salt)`` when a class arrives): an
implementation must read it when it filters, not copy it once.
"""

from __future__ import annotations

import copy

from river import base

from ._params import clone as _clone
from ._params import method_params as _method_params
from .forest import HoeffdingRegressionForest
from .forest._face import measure_if_crossed

__all__ = ["IMPLEMENTATIONS", "RegressorLearners", "make_learners"]


class RegressorLearners:
    """``N`` River regressors, learner ``i`` seeing the features ``feature_filter.keeps(i,
    feature)`` keeps (every feature without a filter).

    A regressor whose ``learn_one`` takes no sample weight learns an example of any positive
    weight once, unweighted (River's ``LinearRegression`` and trees take weights).
    """

    def __init__(self, models: list, feature_filter=None):
        self.models = list(models)
        self.feature_filter = feature_filter
        self._x = None
        self._views: dict = {}
        self._accepts_w = [self._takes_w(m) for m in self.models]

    @staticmethod
    def supports(model) -> bool:
        """Any River regressor."""
        return isinstance(model, base.Regressor)

    @classmethod
    def _of(cls, model, n: int, overrides=None, feature_filter=None):
        """``n`` clones of ``model`` (clone ``i`` with the parameters ``overrides[i]``)."""
        overrides = [None] * n if overrides is None else overrides
        return cls([_clone(model, o) for o in overrides], feature_filter)

    @staticmethod
    def _takes_w(model) -> bool:
        return any(name == "w" for name, _ in _method_params(model, "learn_one") or ())

    @property
    def n_models(self) -> int:
        return len(self.models)

    def __getstate__(self):  # the loaded x is one example's: a copy loads its own
        return {**self.__dict__, "_x": None, "_views": {}}

    def _state(self) -> list:
        """The learners as they stand (River objects: a booster's pickle holds them)."""
        return list(self.models)

    def _take_state(self, models: list) -> None:
        if type(models) is not list or not all(self.supports(m) for m in models):
            raise ValueError("learners that are not River regressors")
        self.models = list(models)
        self._accepts_w = [self._takes_w(m) for m in self.models]
        self._x, self._views = None, {}

    def _view(self, i: int, x: dict) -> dict:
        keep = self.feature_filter
        if keep is None or keep.fraction >= 1.0:
            return x
        return {f: v for f, v in x.items() if keep.keeps(i, f)}

    def _loaded_view(self, i: int) -> dict:
        view = self._views.get(i)
        if view is None:
            if self._x is None:
                raise RuntimeError("no x is loaded")
            view = self._views[i] = self._view(i, self._x)
        return view

    def load(self, x: dict) -> None:
        self._x = x
        self._views = {}

    def predict_loaded(self, i: int) -> float:
        return self._predict(i, self._loaded_view(i))

    def learn_loaded(self, i: int, y: float, w: float = 1.0) -> None:
        self._learn(i, self._loaded_view(i), y, w)

    def predict_one(self, i: int, x: dict) -> float:
        return self._predict(i, self._view(i, x))

    def learn_one(self, i: int, x: dict, y: float, w: float = 1.0) -> None:
        self._learn(i, self._view(i, x), y, w)

    def _predict(self, i: int, view: dict) -> float:
        p = self.models[i].predict_one(view)
        return 0.0 if p is None else float(p)

    def _learn(self, i: int, view: dict, y: float, w: float) -> None:
        model = self.models[i]
        if not self._accepts_w[i]:
            if w > 0.0:
                model.learn_one(view, y)
            return
        before = getattr(model, "_train_weight_seen_by_model", None)
        model.learn_one(view, y, w=w)
        if before is not None:
            measure_if_crossed(model, before)

    def add(self, model) -> int:
        self.models.append(_clone(model))
        self._accepts_w.append(self._takes_w(model))
        return len(self.models) - 1

    def add_like(self, i: int) -> int:
        return self.add(self.models[i])

    def reset(self, i: int, model=None, *, refilter: bool = False) -> None:
        model = self.models[i] if model is None else model
        self.models[i] = _clone(model)
        self._accepts_w[i] = self._takes_w(model)
        self._views.pop(i, None)  # (views are computed afresh: refilter or not)

    def remove(self, i: int) -> None:
        del self.models[i]
        del self._accepts_w[i]
        self._views = {}

    def copy_tree(self, src: int, dst: int) -> None:
        self.models[dst] = copy.deepcopy(self.models[src])
        self._accepts_w[dst] = self._accepts_w[src]
        self._views.pop(dst, None)


#: The implementations, in order of preference: the first that supports every model runs them
#: (the compiled trees run River's Hoeffding regression trees, bit for bit)
IMPLEMENTATIONS: tuple = (HoeffdingRegressionForest, RegressorLearners)


def make_learners(model, n: int, feature_filter=None):
    """``n`` learners of ``model``: the first of :data:`IMPLEMENTATIONS` that supports it."""
    for impl in IMPLEMENTATIONS:
        if impl.supports(model):
            return impl._of(model, n, None, feature_filter)
    raise ValueError(f"the weak learners must be River regressors, got {type(model).__name__}")
