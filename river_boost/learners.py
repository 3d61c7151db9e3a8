"""The weak learners behind one interface: ``N`` River models, classifiers or regressors, as the
walks call them, learner ``i`` by index.

The engines (:mod:`river_boost.engine`) call their learners through this interface only:

- ``load(x)``, then on the loaded ``x`` the classifiers' ``predict_loaded_matrix(labels,
  rows)`` (each learner's ``predict_proba_one`` read at ``labels``) or the regressors'
  ``predict_loaded(i) -> float``, and ``learn_loaded(i, y, w)``; ``learn_one(i, x, y, w)``
  (and the regressors' ``predict_one(i, x)``) on any ``x``;
- ``add(model) -> i`` (a clone of ``model``), ``add_like(i) -> j`` (a fresh learner with
  learner ``i``'s parameters), ``reset(i, model=None)`` (a fresh clone of ``model``, or of
  learner ``i``'s own parameters; ``refilter=True`` after its feature subset changed),
  ``remove(i)``, ``copy_tree(src, dst)``;
- ``n_models``, ``models``; the static ``supports(model)``: whether the implementation takes
  that model, and the class method ``_of(model, n, overrides, feature_filter)``: ``n``
  learners of ``model``.

The compiled forests implement it for River's Hoeffding trees (River's trees, bit for bit,
many times faster: :class:`~river_boost.forest.HoeffdingForest`,
:class:`~river_boost.forest.HoeffdingRegressionForest`); :class:`ClassifierLearners` and
:class:`RegressorLearners` (one :class:`ModelLearners` each) for any other River model.
:func:`make_learners` is the one place where an implementation is chosen. The filter a
family is given (:class:`~river_boost.subsets.FeatureSubsets`) may change in place (``reseed(i,
salt)`` when a step is replaced, ``append(salt)`` when a class arrives, ``aliases`` for
background learners): an implementation reads it when it filters, never copies it.
"""

from __future__ import annotations

import copy
import inspect
import random

import numpy as np
from river import base

from . import forest
from ._params import clone as _clone
from ._params import method_params as _method_params
from .forest import HoeffdingRegressionForest
from .forest._face import measure_if_crossed

__all__ = [
    "IMPLEMENTATIONS",
    "ModelLearners",
    "ClassifierLearners",
    "RegressorLearners",
    "make_learners",
    "accepts_sample_weight",
    "replicas",
]


def accepts_sample_weight(model) -> bool:
    """Whether ``model.learn_one`` takes a ``w`` keyword (or any keyword)."""
    params = _method_params(model, "learn_one")
    if params is None:
        return True
    return any(name == "w" or kind is inspect.Parameter.VAR_KEYWORD for name, kind in params)


def replicas(w: float, rng: random.Random) -> int:
    """How many times a learner without sample weights learns an example of weight ``w``:
    ``floor(w)``, plus once more with probability ``frac(w)`` (``w`` in expectation)."""
    return int(w) + (rng.random() < w - int(w))


class ModelLearners:
    """``N`` River models behind the compiled forests' interface, learner ``i`` seeing the
    features ``feature_filter.keeps(i, feature)`` keeps (every feature without a filter;
    learner ``i >= N``, a background learner, those of the learner it stands in for,
    ``feature_filter.aliases``). A kind (:class:`ClassifierLearners`,
    :class:`RegressorLearners`) gives the predictions and how a learner whose ``learn_one``
    takes no sample weight learns a weighted example.
    """

    def __init__(self, models: list, feature_filter=None, rng: random.Random | None = None):
        self.models = list(models)
        self.feature_filter = feature_filter
        self.rng = rng  # the generator of the replicas of a learner without sample weights
        self._x = None
        self._views: dict = {}
        self._accepts_w = [self._takes_w(m) for m in self.models]

    @staticmethod
    def supports(model) -> bool:
        raise NotImplementedError

    @staticmethod
    def _takes_w(model) -> bool:
        """Whether ``model`` learns with a sample weight ``w``."""
        raise NotImplementedError

    @classmethod
    def _of(cls, model, n: int, overrides=None, feature_filter=None, rng=None):
        """``n`` clones of ``model`` (clone ``i`` with the parameters ``overrides[i]``)."""
        overrides = [None] * n if overrides is None else overrides
        return cls([_clone(model, o) for o in overrides], feature_filter, rng)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def subsets(self):
        return self.feature_filter

    def __getstate__(self):  # the loaded x is one example's: a copy loads its own
        return {**self.__dict__, "_x": None, "_views": {}}

    def _state(self) -> list:
        """The learners as they stand (River objects: a booster's pickle holds them)."""
        return list(self.models)

    def _take_state(self, models: list) -> None:
        if type(models) is not list or len(models) < len(self.models):
            raise ValueError("fewer learners than the booster's")
        if not all(self.supports(m) for m in models):
            raise ValueError(f"learners that are not {self.kind}")
        self.models = list(models)
        self._accepts_w = [self._takes_w(m) for m in self.models]
        self._x, self._views = None, {}

    def _view(self, i: int, x: dict) -> dict:
        keep = self.feature_filter
        if keep is None or keep.fraction is None or keep.fraction >= 1.0:
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

    def learn_loaded(self, i: int, y, w: float = 1.0) -> None:
        self._learn(i, self._loaded_view(i), y, w)

    def learn_one(self, i: int, x: dict, y, w: float = 1.0) -> None:
        """Learner ``i`` learns ``x`` with weight ``w``."""
        self._learn(i, self._view(i, x), y, w)

    def _learn(self, i: int, view: dict, y, w: float) -> None:
        raise NotImplementedError

    def add(self, model) -> int:
        self.models.append(_clone(model))
        self._accepts_w.append(self._takes_w(model))
        return len(self.models) - 1

    def add_like(self, i: int) -> int:
        """A fresh learner with learner ``i``'s parameters, appended; its index."""
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


class ClassifierLearners(ModelLearners):
    """River classifiers (the boosters' pool): each learner's ``predict_proba_one``; a
    classifier whose ``learn_one`` takes no sample weight learns an example of weight ``w``
    :func:`replicas` times, drawn from ``rng`` (the pool's)."""

    kind = "River models"
    _takes_w = staticmethod(accepts_sample_weight)

    @staticmethod
    def supports(model) -> bool:
        """Any River model (the pool refuses what it cannot teach)."""
        return isinstance(model, base.Base)

    def predict_loaded_matrix(self, labels, trees=None):
        rows = range(len(self.models)) if trees is None else trees
        out = np.zeros((len(rows), len(labels)))
        for r, i in enumerate(rows):
            proba = self.models[i].predict_proba_one(self._loaded_view(i))
            out[r] = [proba.get(label, 0.0) for label in labels]
        return out

    def predict_proba_all(self, x: dict) -> tuple:
        return tuple(m.predict_proba_one(self._view(i, x)) for i, m in enumerate(self.models))

    def _learn(self, i: int, view: dict, y, w: float) -> None:
        model = self.models[i]
        if self._accepts_w[i]:
            model.learn_one(view, y, w=w)
        else:
            for _ in range(replicas(w, self.rng)):
                model.learn_one(view, y)


class RegressorLearners(ModelLearners):
    """River regressors (the gradient boosters): each learner's ``predict_one`` (0 for None);
    a regressor whose ``learn_one`` takes no sample weight learns an example of any positive
    weight once, unweighted (River's ``LinearRegression`` and trees take weights)."""

    kind = "River regressors"

    @staticmethod
    def supports(model) -> bool:
        """Any River regressor."""
        return isinstance(model, base.Regressor)

    @staticmethod
    def _takes_w(model) -> bool:
        return any(name == "w" for name, _ in _method_params(model, "learn_one") or ())

    def predict_loaded(self, i: int) -> float:
        return self._predict(i, self._loaded_view(i))

    def predict_one(self, i: int, x: dict) -> float:
        return self._predict(i, self._view(i, x))

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


#: The regressors' implementations, in order of preference: the first that supports the model
#: runs the learners (the compiled trees run River's Hoeffding regression trees, bit for bit)
IMPLEMENTATIONS: tuple = (HoeffdingRegressionForest, RegressorLearners)


def make_learners(model, n: int, feature_filter=None, overrides=None, rng=None):
    """``n`` learners of ``model``, learner ``i`` with the parameters ``overrides[i]`` (None:
    the model's).

    With ``rng`` (the pool's generator), the boosters' classifiers: the compiled forest when
    ``model`` is a Hoeffding tree it can compile and ``river_boost.forest.ENABLED`` is true
    (its trees share the model, which is never learned, and hold their parameters), else
    :class:`ClassifierLearners`. Without, the gradient boosters' regressors: the first of
    :data:`IMPLEMENTATIONS` that supports the model (``ValueError`` if none does).
    """
    if rng is not None:
        if forest.ENABLED and forest.HoeffdingForest.supports(model):
            # "auto" may decide 1.0 later: the filter then keeps every feature (the same trees)
            every = feature_filter.fraction is not None and feature_filter.fraction >= 1.0
            return forest.HoeffdingForest._of(
                model, n, overrides, None if every else feature_filter
            )
        return ClassifierLearners._of(model, n, overrides, feature_filter, rng)
    for impl in IMPLEMENTATIONS:
        if impl.supports(model):
            return impl._of(model, n, overrides, feature_filter)
    raise ValueError(f"the weak learners must be River regressors, got {type(model).__name__}")
