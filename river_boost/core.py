"""The small core every booster shares.

- :class:`WeakLearnerPool`: ``n_models`` clones of a River classifier, optionally diversified
  (random Hoeffding-tree parameters, random feature subsets), with each learner's edge and
  counters. The boosters' walk (:mod:`river_boost.engine`) cleans the raw feature dict once,
  reads the learners' predictions for it and teaches learner ``i`` with a weight ``p`` in
  ``[0, 1]`` (an importance weight or a rejection-sampling probability), as the pool's
  docstring says.
- :class:`ModelLearners`: River classifiers behind the compiled forest's interface, so that
  the ``N`` learners are one object to the walk either way.
- the adaptive boosters' learner weights ``alpha`` (projected online gradient descent,
  :class:`ProjectedOGD`, :class:`SimplexOGD`) and :class:`Hedge` over the ``N`` experts (all
  compiled: the booster's engine holds them).
- input checks shared by all boosters (labels, sample weights, feature values) and small
  utilities (:class:`BoundedCache`, :func:`check_open_unit`).

"""

from __future__ import annotations

import copy
import decimal
import hashlib
import inspect
import math
import numbers
import random
from array import array
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
from river import base

from . import _pickles
from ._params import clone as _clone
from ._params import method_params as _method_params
from ._params import names_of as _names_of
from .engine import _clean, _experts
from .engine._constants import MAX_ABS_FEATURE, MAX_SAMPLE_WEIGHT, MIN_SAMPLE_WEIGHT

__all__ = [
    "WeakLearnerPool",
    "ModelLearners",
    "FeatureSubsets",
    "SizedSubsets",
    "Hedge",
    "ProjectedOGD",
    "SimplexOGD",
    "BoundedCache",
    "as_binary_label",
    "check_sample_weight",
    "check_scale",
    "check_open_unit",
    "clean_features",
    "replicas",
    "default_model",
    "WEIGHTINGS",
]

WEIGHTINGS = ("importance", "sampling")

# Ranges for diversified Hoeffding trees. Split confidence and tie threshold: log-uniform over
# the ranges the multiclass / multi-label papers' authors drew VFDT parameters from.
DIVERSIFY_RANGES = {
    "delta": (1e-5, 0.9),  # log-uniform
    "tau": (1e-3, 1.0),  # log-uniform
    # The papers drew 1..10; trees that attempt a split every few examples were 2-3x slower
    # for no accuracy gain in our measurements, so the upper end is River's default instead.
    "grace_period": (20, 200),  # uniform integer
}
# The papers' own ranges (their experiment code): trees that try to split every few examples.
PAPER_DIVERSIFY_RANGES = {**DIVERSIFY_RANGES, "grace_period": (1, 10)}
# The papers' code also multiplied every weight it gave learner i by a constant drawn once per
# learner, uniform in this range. Hoeffding trees count weight, so this is what made their trees
# split every few examples: weight 10-200 per example reaches a grace period of 1-10 at once and
# shrinks the Hoeffding bound as if 10-200 times as many examples had been seen.
PAPER_WEIGHT_SCALE = (10.0, 200.0)
DIVERSIFY_MODES = (False, True, "paper")


def default_model() -> base.Classifier:
    """The boosters' weak learner: :class:`~river_boost.forest.BoundedHoeffdingTree`, River's
    :class:`~river.tree.HoeffdingTreeClassifier` with its defaults and a size limit that
    binds under boosting's fractional weights (2 MiB per tree), so that memory stays bounded
    on an endless stream. The pool runs such trees on the compiled forest
    (:mod:`river_boost.forest`), River's own code being the reference and the fallback. For
    River's tree exactly, pass ``model=tree.HoeffdingTreeClassifier()``."""
    from .forest import BoundedHoeffdingTree

    return BoundedHoeffdingTree()


# ----------------------------------------------------------------------------- input checks


def as_binary_label(y) -> bool:
    """Map a binary label (bool, numpy bool, 0/1 integer or float) to a Python bool.

    Raises ``ValueError`` for anything else, so that a multiclass stream fed to a binary
    booster fails loudly on the first offending label instead of being silently binarised.
    """
    if isinstance(y, (bool, np.bool_, numbers.Number)):
        if y == 1:
            return True
        if y == 0:
            return False
    raise ValueError(
        f"binary boosters take labels True/False (or 1/0), got {y!r}; "
        "use a multiclass booster for other label sets"
    )


# The input contract (README, "Bad input"): what the boosters accept, checked before any state
# changes; MAX_SAMPLE_WEIGHT, MIN_SAMPLE_WEIGHT and MAX_ABS_FEATURE are defined once, in
# river_boost/engine/_constants.pxd (imported above).


def check_scale(name: str, scale) -> None:
    """A weight scale (``weight_scale``, ``deep_scale``): a finite real number above 0."""
    if (
        isinstance(scale, bool)
        or not isinstance(scale, numbers.Real)
        or not 0.0 < scale < math.inf  # NaN fails too
    ):
        raise ValueError(f"{name} must be finite and > 0, got {scale!r}")


def check_sample_weight(w) -> float:
    """``w`` as a float; ``ValueError`` unless it is a number in ``[0, MAX_SAMPLE_WEIGHT]``.

    A weight below ``MIN_SAMPLE_WEIGHT`` is 0: Hoeffding trees' running variances lose their
    precision when weights that far apart meet in a leaf (River's then raise).
    """
    if isinstance(w, (str, bytes, bool)) or not isinstance(w, (numbers.Real, np.generic)):
        raise ValueError(f"sample weight must be a number, got {w!r}")
    try:
        w = float(w)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"sample weight must be a number, got {w!r}") from None
    if not 0.0 <= w <= MAX_SAMPLE_WEIGHT:  # NaN fails too
        raise ValueError(f"sample weight must lie in [0, {MAX_SAMPLE_WEIGHT:g}], got {w!r}")
    return w if w >= MIN_SAMPLE_WEIGHT else 0.0


def check_open_unit(name: str, value: float) -> float:
    """``value`` if it lies in ``(0, 1)``, else ``ValueError`` naming the parameter."""
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value}")
    return value


def check_choice(name: str, value, choices) -> None:
    """``ValueError`` naming the parameter unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def _feature_value(name, v):
    """A feature value as the learners see it: the value, or None for a missing one.

    Python ``int``, ``float``, ``bool`` and ``str`` values pass unchanged (strings are nominal
    features); other real numbers (numpy scalars, fractions, decimals) become Python numbers;
    ``None``, NaN, infinities and magnitudes above ``MAX_ABS_FEATURE`` are missing. Anything
    else is a ``TypeError``.
    """
    kind = type(v)
    if kind is float:
        return v if -MAX_ABS_FEATURE <= v <= MAX_ABS_FEATURE else None  # NaN fails too
    if kind is str or kind is bool:
        return v
    if kind is int:
        return v if -MAX_ABS_FEATURE <= v <= MAX_ABS_FEATURE else None
    if v is None:
        return None
    if isinstance(v, np.generic):
        v = v.item()  # numpy scalars: the Python number (or bool, or str)
        if type(v) in (float, int, bool, str):
            return _feature_value(name, v)
    if isinstance(v, (numbers.Real, decimal.Decimal)):
        try:
            return _feature_value(name, float(v))
        except (OverflowError, ValueError):
            return None
    raise TypeError(
        f"feature {name!r} has a value of type {kind.__name__}: features are numbers or "
        "strings (None and NaN are missing)"
    )


def _feature_order(name):
    return (type(name).__name__, name)


def clean_features(x) -> dict:
    """The features as the weak learners see them: usable values, in a canonical order.

    - ``x`` must be a mapping (``TypeError`` otherwise, and for a value that is neither a
      number nor a string, see :func:`_feature_value`).
    - A missing value (``None``, NaN, infinite, or beyond ``MAX_ABS_FEATURE``) is left out:
      River's learners handle missing features, and would absorb a NaN silently into their
      statistics.
    - Keys are sorted, so the boosters do not depend on the order of the features in ``x``:
      Hoeffding trees break near-ties between split candidates by iteration order.

    ``x`` itself is never modified.
    """
    if not isinstance(x, Mapping):
        raise TypeError(f"x must be a dict of features, got {type(x).__name__}")
    items = []
    for k, v in x.items():
        v = _feature_value(k, v)
        if v is not None:
            items.append((k, v))
    try:
        items.sort(key=lambda kv: kv[0])
    except TypeError:  # keys of mixed types
        try:
            items.sort(key=lambda kv: _feature_order(kv[0]))
        except TypeError:  # keys no order can compare (tuples of mixed types, ...)
            items.sort(key=lambda kv: (type(kv[0]).__name__, repr(kv[0])))
    return dict(items)


class FeatureCleaner:
    """Cleans feature dicts once, remembers one value computed from the last one, and keeps
    each feature's kind: the martingale booster's memo (the boosters' engines keep the same
    memo in C, river_boost.engine._clean).

    River's progressive validation predicts an ``x`` and then learns the same ``x``: both
    steps clean it once and share what was computed for it (the learners' predictions),
    until :meth:`forget` says the learners changed. ``x`` is compared by value, so a dict
    mutated in place is seen.

    A feature keeps the kind of its first learned value, numeric or nominal (a string): a
    later value of the other kind is treated as missing, since the learners' statistics for
    it cannot take it (a Gaussian cannot absorb a string, nor a nominal split a number).
    Only learning fixes a feature's kind (:meth:`learned`): a feature first seen in a
    prediction is passed to the learners as it is and decides nothing (a Hoeffding tree
    ignores a feature it has not learned; River's does the same).
    """

    def __init__(self):
        self.x: dict | None = None
        self.clean: dict | None = None
        self.value = None
        self.nominal: dict = {}  # feature -> whether its learned values are strings

    def cleaned(self, x) -> dict:
        """``x`` cleaned, without values of the wrong kind (for predicting and learning)."""
        try:
            same = self.x is not None and x == self.x
        except Exception:  # values that refuse comparison (arrays): not the remembered x
            same = False
        if not same:
            # the one cleaning (compiled; clean_features for dicts of other kinds), which may
            # raise: nothing is remembered then
            clean = _clean.clean_x(x, self.nominal)
            self.clean, self.x, self.value = clean, dict(x), None
        return self.clean

    def learned(self) -> None:
        """Remember the kinds of the features of the last cleaned ``x`` (it was learned)."""
        nominal = self.nominal
        for k, v in self.clean.items():
            if k not in nominal:
                nominal[k] = type(v) is str

    def forget(self) -> None:
        """The learners changed: what was remembered for the last ``x`` is stale."""
        self.value = None

    def __getstate__(self):  # the memo is a cache: a copy recomputes it
        return {**self.__dict__, "x": None, "clean": None, "value": None}


# ----------------------------------------------------------------------------- utilities


class BoundedCache(OrderedDict):
    """A dict that drops its oldest entry beyond ``size`` entries and pickles empty.

    For exact, recomputable results (potentials, cost matrices): a copy recomputes them on
    demand, so caches never make a pickle or a long stream grow without bound.

    An ``OrderedDict``: it drops the oldest entry in constant time. A plain dict finds its
    first entry by skipping the slots its deleted entries left, until it next resizes: a
    full cache of 100,000 potentials spent about 70 µs per insertion on that.
    """

    def __init__(self, size: int):
        super().__init__()
        self.size = max(1, size)

    def put(self, key, value):
        if len(self) >= self.size:
            self.popitem(last=False)  # the oldest entry (insertion order)
        self[key] = value
        return value

    def __reduce__(self):
        return (type(self), (self.size,))


def serves_multiclass(model) -> bool:
    """Whether ``model`` can learn more than two classes: River's ``_multiclass`` property
    (False for binary-only classifiers such as ``LogisticRegression``; a pipeline answers for
    its last step). A learner that does not say is trusted."""
    return bool(getattr(model, "_multiclass", True))


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


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


# ----------------------------------------------------------------------------- learners


# feature_fraction="auto" (see AUTO_FEATURES_UP_TO, auto_feature_fraction): chosen by
# measurement, benchmarks/RESULTS.md ("Wide data: the feature_fraction default").
# Streams with at most this many features (every bundled and synthetic stream of the bench,
# Waveform's 21 included) keep all of them. Above it, each learner sees about
# max(AUTO_MIN_FEATURES, sqrt(d)): 20 (the multi-label paper's 20 covariates) up to
# d = 400, then ARF's sqrt(d).
AUTO_FEATURES_UP_TO = 32
AUTO_MIN_FEATURES = 20
# The tasks whose boosters take random subsets under "auto": random subsets of wide data
# helped the multi-label ranking boosters and lost for the multiclass ones (mice_protein, 77
# features: -2.9 points) and did not help the binary ones (a9a, 123 features).
AUTO_SUBSET_TASKS = ("ranking",)


def auto_feature_count(n_features: int) -> int:
    """How many features ``feature_fraction="auto"`` gives each learner, for ``d`` features:
    all of them up to ``AUTO_FEATURES_UP_TO`` (32), else ``max(20, round(sqrt(d)))``
    (``AUTO_MIN_FEATURES`` is the 20). Not monotone at the threshold: 32 features keep all
    32, 33 give 20 each.

    Chosen by measurement (``benchmarks/RESULTS.md``, "Wide data: the feature_fraction
    default"; ``benchmarks/wide_defaults.py``): on emotions (72 features) and scene (294)
    under the Table 3 protocol, 17-20 random features per learner cut the multi-label
    boosters' rank loss against all features by 0.02-0.03, more than 8 or 34-40 did; on
    yeast (103) they cost about 0.004. Random
    subsets lost on narrow streams (Phishing, ImageSegments), hence the threshold, and on a
    wide multiclass set (mice_protein), hence ``AUTO_SUBSET_TASKS``.
    """
    if n_features <= AUTO_FEATURES_UP_TO:
        return n_features
    return max(AUTO_MIN_FEATURES, round(math.sqrt(n_features)))


def auto_feature_fraction(n_features: int) -> float:
    """``feature_fraction="auto"`` for ``d`` features: :func:`auto_feature_count` over ``d``
    (1.0, every feature, up to ``AUTO_FEATURES_UP_TO``)."""
    return auto_feature_count(n_features) / n_features  # d / d: exactly 1.0 when narrow


def check_feature_fraction(value) -> None:
    if value == "auto" and isinstance(value, str):
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0.0 < value <= 1.0  # NaN fails too
    ):
        raise ValueError(f"feature_fraction must be 'auto' or lie in (0, 1], got {value!r}")


class FeatureSubsets:
    """Which features learner ``i`` sees: about ``fraction`` of them, at random.

    Membership of a feature is a deterministic hash of (salt of learner ``i``, feature name),
    so features that appear mid-stream are assigned consistently and no feature list must be
    known in advance; answers are cached per learner.

    ``rule="auto"`` leaves ``fraction`` undecided (None) until :meth:`decide` is given the
    number of features ``d`` of the first non-empty ``x`` (the pool does so before its
    learners see one): then ``fraction = auto_feature_fraction(d)``, fixed for good; features
    that appear later are kept with that same probability. Narrow streams (``d <=
    AUTO_FEATURES_UP_TO``) get 1.0, which keeps every feature without asking the hash.
    With ``wide_subsets=False`` (the binary and multiclass boosters, see
    ``AUTO_SUBSET_TASKS``) ``"auto"`` is 1.0 from the start, whatever ``d``.
    """

    def __init__(self, fraction, salts: list, wide_subsets: bool = True):
        self.rule = fraction  # what the booster asked for: a fraction, or "auto"
        self.n_features = None  # the d "auto" was decided on
        if fraction == "auto":
            self.fraction = None if wide_subsets else 1.0
        else:
            self.fraction = float(fraction)
        self.salts = salts
        self._masks: list[dict] = [{} for _ in salts]

    def __getstate__(self):  # the masks cache a hash of the feature names: a copy recomputes
        return {**self.__dict__, "_masks": [{} for _ in self._masks]}

    def _state(self) -> tuple:
        """What the stream changed (a booster's pickle holds it): the fraction decided, the
        ``d`` it was decided on, the salts (replaced and added learners draw new ones) and the
        learners that see another learner's subset."""
        return (
            self.fraction,
            self.n_features,
            array("Q", self.salts).tobytes(),
            self.__dict__.get("aliases"),
        )

    def _take_state(self, state: tuple) -> None:
        """:meth:`_state`'s state, into subsets just built with the same rule."""
        fraction, n_features, salts, aliases = state[:4]
        if not (fraction is None or (type(fraction) is float and 0.0 < fraction <= 1.0)):
            raise ValueError("a feature fraction out of range")
        if not (n_features is None or (type(n_features) is int and n_features >= 0)):
            raise ValueError("a number of features out of range")
        a = array("Q")
        a.frombytes(salts)
        if not (aliases is None or type(aliases) is dict):
            raise ValueError("aliases that are not a dict")
        self.fraction, self.n_features, self.salts = fraction, n_features, list(a)
        self._masks = [{} for _ in self.salts]
        if aliases is not None:
            self.aliases = dict(aliases)

    #: extra learner indices that see another learner's subset (background learners on a
    #: compiled forest sit past the ``N`` learners): index -> the learner they shadow
    aliases: dict = {}

    def decide(self, x: dict) -> None:
        """Fix an undecided ``"auto"`` fraction from ``x``'s number of features (an empty
        ``x`` decides nothing)."""
        if self.fraction is None and x:
            self.n_features = len(x)
            self.fraction = auto_feature_fraction(len(x))

    def reseed(self, i: int, salt: int) -> None:
        """Learner ``i`` sees a new subset, drawn by the hash with ``salt`` (a replaced
        learner of the gradient boosters)."""
        self.salts[i] = salt
        self._masks[i] = {}

    def append(self, salt: int) -> None:
        """One more learner, whose subset the hash draws with ``salt``."""
        self.salts.append(salt)
        self._masks.append({})

    def keeps(self, i: int, feature) -> bool:
        if i >= len(self.salts):
            i = self.aliases[i]
        if self.fraction is None:
            raise RuntimeError("feature_fraction='auto' is undecided: call decide(x) first")
        if self.fraction >= 1.0:
            return True
        mask = self._masks[i]
        keep = mask.get(feature)
        if keep is None:
            keep = mask[feature] = self._hash(i, feature) < self.fraction * 2**64
        return keep

    def _hash(self, i: int, feature) -> int:
        """Learner ``i``'s 64-bit hash of ``feature`` (keyed by its salt; not Python's
        salted ``hash``, so a seed gives the same subsets in every process)."""
        digest = hashlib.blake2b(
            repr(feature).encode(), digest_size=8, key=self.salts[i].to_bytes(8, "little")
        ).digest()
        return int.from_bytes(digest, "little")

    def view(self, i: int, x: dict) -> dict:
        """The features of ``x`` learner ``i`` sees."""
        if self.fraction is None:
            self.decide(x)
        if self.fraction is None or self.fraction >= 1.0:  # still undecided: x is empty
            return x
        return {f: v for f, v in x.items() if self.keeps(i, f)}

    def __repr__(self) -> str:
        decided = "undecided" if self.fraction is None else f"{self.fraction:.4g}"
        d = "" if self.n_features is None else f", d={self.n_features}"
        return f"FeatureSubsets(rule={self.rule!r}{d}, fraction={decided})"


class SizedSubsets(FeatureSubsets):
    """Which features learner ``i`` sees: exactly ``k`` of the features of the first example,
    ``k = max(2, round(fraction * d))`` of its ``d`` (all of them when ``d <= 2``; halves
    round up), as MOA's SGBT and streaming random patches draw their subspaces. A
    :class:`FeatureSubsets` keeps each feature with probability ``fraction`` on its own: with
    few features a learner may see one or none (two features at 0.75: 44% of the learners).

    The ``d`` features are those of the first non-empty ``x`` given to :meth:`decide` (the
    gradient engine gives it every example before its learners see it); learner ``i`` takes
    the ``k`` of them its hash ranks first. A feature that appears later is kept with
    probability ``fraction``, by the hash, as :class:`FeatureSubsets` keeps it. A reseeded or
    appended learner draws its ``k`` anew.
    """

    def __init__(self, fraction: float, salts: list):
        super().__init__(fraction, salts)
        self.first = None  # the first example's features, in its order

    def decide(self, x: dict) -> None:
        """Take ``x``'s features as the ``d`` the subsets are drawn from (the first non-empty
        ``x`` only)."""
        if self.first is None and x:
            self.first = tuple(x)
            self.n_features = len(self.first)

    def _state(self) -> tuple:
        """:meth:`FeatureSubsets._state`, and the first example's features."""
        return (*super()._state(), self.first)

    def _take_state(self, state: tuple) -> None:
        super()._take_state(state)
        first = state[4]
        if not (first is None or type(first) is tuple):
            raise ValueError("the first example's features are not a tuple")
        self.first = first

    @property
    def size(self) -> int | None:
        """``k``: how many of the first example's features each learner sees."""
        if self.first is None:
            return None
        d = len(self.first)
        return min(d, max(2, math.floor(self.fraction * d + 0.5)))

    def keeps(self, i: int, feature) -> bool:
        if i >= len(self.salts):
            i = self.aliases[i]
        mask = self._masks[i]
        if not mask and self.first is not None:  # learner i's first question since its draw
            ranked = sorted(range(len(self.first)), key=lambda j: self._hash(i, self.first[j]))
            chosen = set(ranked[: self.size])
            mask.update((f, j in chosen) for j, f in enumerate(self.first))
        return super().keeps(i, feature)

    def __repr__(self) -> str:
        d = "" if self.first is None else f", d={len(self.first)}, k={self.size}"
        return f"SizedSubsets(fraction={self.fraction:.4g}{d})"


class ModelLearners:
    """``N`` River classifiers behind the compiled forest's interface, learner ``i`` seeing its
    subset of the features: the boosters' walk calls them as it calls the forest's trees.

    ``load(x)`` then ``predict_loaded_matrix(labels)`` (each learner's ``predict_proba_one``
    read at ``labels``) and ``learn_loaded(i, y, w)``; trees that come and go for drift
    adaptation (``add``, ``reset``, ``copy_tree``, ``remove``), learner ``i >= N`` seeing
    the features of the learner it stands in for (``feature_filter.aliases``). A classifier
    whose ``learn_one`` takes no sample weight learns an example of weight ``w``
    :func:`replicas` times, drawn from ``rng`` (the pool's).
    """

    def __init__(self, models: list, subsets: FeatureSubsets, accepts_w=True, rng=None):
        self.models = models
        self.feature_filter = subsets
        self.accepts_w = accepts_w
        self.rng = rng
        self._x = None

    @property
    def subsets(self) -> FeatureSubsets:
        return self.feature_filter

    @property
    def n_models(self) -> int:
        return len(self.models)

    def _view(self, i: int, x: dict) -> dict:
        subsets = self.feature_filter
        if subsets.fraction is None or subsets.fraction >= 1.0:
            return x
        return {f: v for f, v in x.items() if subsets.keeps(i, f)}

    def load(self, x: dict) -> None:
        self._x = x

    def __getstate__(self):  # the loaded x is one example's: a copy is loaded before use
        return {**self.__dict__, "_x": None}

    def _state(self) -> list:
        """The learners as they stand (River objects: a booster's pickle holds them)."""
        return list(self.models)

    def _take_state(self, models: list) -> None:
        if type(models) is not list or len(models) < len(self.models):
            raise ValueError("fewer learners than the booster's")
        if not all(isinstance(m, base.Base) for m in models):
            raise ValueError("learners that are not River models")
        self.models[:] = models
        self._x = None

    def predict_loaded_matrix(self, labels, trees=None) -> np.ndarray:
        rows = range(len(self.models)) if trees is None else trees
        out = np.zeros((len(rows), len(labels)))
        for r, i in enumerate(rows):
            proba = self.models[i].predict_proba_one(self._view(i, self._x))
            out[r] = [proba.get(label, 0.0) for label in labels]
        return out

    def learn_loaded(self, i: int, y, w: float = 1.0) -> None:
        self.learn_one(i, self._x, y, w)

    def predict_proba_all(self, x: dict) -> tuple:
        return tuple(m.predict_proba_one(self._view(i, x)) for i, m in enumerate(self.models))

    def learn_one(self, i: int, x: dict, y, w: float = 1.0) -> None:
        """Learner ``i`` learns ``x`` with weight ``w``."""
        model, view = self.models[i], self._view(i, x)
        if self.accepts_w:
            model.learn_one(view, y, w=w)
        else:
            for _ in range(replicas(w, self.rng)):
                model.learn_one(view, y)

    def add(self, model) -> int:
        self.models.append(_clone(model))
        return len(self.models) - 1

    def add_like(self, i: int) -> int:
        """A fresh learner with learner ``i``'s parameters, appended; its index."""
        return self.add(self.models[i])

    def reset(self, i: int) -> None:
        self.models[i] = _clone(self.models[i])

    def copy_tree(self, src: int, dst: int) -> None:
        self.models[dst] = copy.deepcopy(self.models[src])

    def remove(self, i: int) -> None:
        del self.models[i]


def make_learners(model, overrides: list, subsets: FeatureSubsets, accepts_w=True, rng=None):
    """The learners behind a pool: ``len(overrides)`` learners of ``model``, learner ``i``
    with the parameters ``overrides[i]`` (None: the model's). The compiled forest when
    ``model`` is a Hoeffding tree it can compile (:class:`~river_boost.forest.HoeffdingForest`:
    River's trees, bit for bit, many times faster; its trees share the model, which is never
    learned, and hold their parameters) and ``river_boost.forest.ENABLED`` is true, else clones
    of the River model (:class:`ModelLearners`)."""
    from . import forest

    if forest.ENABLED and forest.HoeffdingForest.supports(model):
        # "auto" may decide 1.0 later: the filter then keeps every feature (the same trees)
        every = subsets.fraction is not None and subsets.fraction >= 1.0
        return forest.HoeffdingForest._of(
            model, len(overrides), overrides, None if every else subsets
        )
    models = [_clone(model, o) for o in overrides]
    return ModelLearners(models, subsets, accepts_w, rng)


class WeakLearnerPool:
    """``n_models`` weak learners that vote on ``x`` and learn with a weight in ``[0, 1]``.

    The pool holds the learners behind :attr:`learners` (the compiled forest, or
    :class:`ModelLearners`), which features each sees and how the booster's weights reach
    them. The booster's engine (:mod:`river_boost.engine`) holds the pool and the
    per-learner bookkeeping (weights offered, updates, edges), which the diagnostics below
    read; it cleans each raw feature dict once, reads the learners' predictions and teaches
    them, as below.

    The parameters are the boosters' (:class:`~river_boost.booster.Booster`); how they act:

    - ``multiclass``: the learners will be taught other labels than ``True``/``False``
      (multiclass and multi-label ranking boosters): a binary-only learner (River's
      ``_multiclass`` False, e.g. ``LogisticRegression``) is refused with a ``ValueError``.
    - ``weighting="importance"``: learner ``i`` is called with ``w = sample_weight * p /
      mean_p_i``, ``mean_p_i`` the running mean of the ``p`` it was offered. Importance
      weighting is invariant to a common scale in theory, but Hoeffding trees count *weight*
      in their grace period and Hoeffding bound: unscaled weights in ``[0, 1]`` would keep
      trees from growing, while weights summing to the number of examples offered let a tree
      grow at its usual pace. ``p = 0`` skips the call (River's trees may divide by ``w``).
      A rescaled ``w < min_weight`` is passed as ``min_weight`` with probability
      ``w / min_weight`` and skipped otherwise: the same expected weight, without the many
      near-zero updates on easy examples that cost a full tree update each.
    - ``weighting="sampling"``: the learner gets the example, with the stream's sample
      weight, with probability ``p`` (rejection sampling). A learner whose ``learn_one`` takes
      no ``w`` can only be used so; a sample weight ``w`` is then honoured by learning the
      example :func:`replicas` times.
    - ``diversify``: the first learner stays ``model`` as given, so the first expert is the
      plain model (with every learner diversified, a bad draw for learner 1 hurts every
      expert of the adaptive boosters); the others draw the parameters the model has.
    - ``feature_fraction``: :class:`FeatureSubsets`; ``"auto"`` is decided from the number of
      features of the first non-empty ``x`` the pool sees (:func:`auto_feature_fraction`),
      or is 1.0 from the start with ``wide_subsets=False``.
    - ``weight_scale``: every learner's weights are multiplied by it (and by the per-learner
      draw of ``diversify="paper"``): :attr:`weight_scales`.

    """

    def __init__(
        self,
        model: base.Classifier,
        n_models: int,
        weighting: str = "importance",
        diversify: bool | str = False,
        feature_fraction: float | str = 1.0,
        min_weight: float = 0.0,
        seed: int | None = None,
        wide_subsets: bool = True,
        multiclass: bool = False,
        weight_scale: float = 1.0,
    ):
        if n_models < 1:
            raise ValueError(f"n_models must be >= 1, got {n_models}")
        if multiclass and not serves_multiclass(model):
            # refused here, not on the first multiclass label deep inside River
            name = type(model).__name__
            raise ValueError(
                f"{name} is a binary classifier, and this booster teaches its weak learners "
                f"more than two classes (multiclass and multi-label ranking boosters): give "
                f"a multiclass learner, such as a Hoeffding tree (the default) or "
                f"river.multiclass.OneVsRestClassifier({name}()); a classifier of your own "
                "that learns any label says so with River's `_multiclass = True`"
            )
        check_choice("weighting", weighting, WEIGHTINGS)
        check_choice("diversify", diversify, DIVERSIFY_MODES)
        check_feature_fraction(feature_fraction)
        if not 0.0 <= min_weight <= 1.0:
            raise ValueError(f"min_weight must lie in [0, 1], got {min_weight}")
        check_scale("weight_scale", weight_scale)
        self.n_models = n_models
        self.weighting = weighting
        self.min_weight = min_weight
        self._accepts_w = accepts_sample_weight(model)
        if weighting == "importance" and not self._accepts_w:
            raise ValueError(
                f"{type(model).__name__}.learn_one takes no sample weight `w`, so it cannot be "
                "given importance weights; use weighting='sampling'"
            )
        self._rng = random.Random(seed)
        # The first learner is always `model` as given: expert 1 (the first learner alone) is
        # then the plain model, which Hedge-based boosters can always fall back to.
        names = _names_of(model) if diversify else ()
        overrides = [None] + [self._draw(names, diversify) for _ in range(1, n_models)]
        # Salts for the feature-subset hash; drawn even when unused so that toggling
        # feature_fraction does not change the sampling stream.
        salts = [self._rng.getrandbits(64) for _ in range(n_models)]
        self._subsets = FeatureSubsets(feature_fraction, salts, wide_subsets)
        self.learners = make_learners(model, overrides, self._subsets, self._accepts_w, self._rng)
        # each learner's weight scale: constants the engine reads (a typed array)
        self._weight_scales = array("d", [float(weight_scale)]) * n_models
        if diversify == "paper" and self._accepts_w:
            for i in range(1, n_models):
                self._weight_scales[i] *= self._rng.uniform(*PAPER_WEIGHT_SCALE)
        self._engine = None  # the booster's engine, which holds the pool (set by it)

    def _state(self) -> tuple:
        """What the stream changed (the booster's pickle holds it): the generator, the
        feature subsets, the weight scales and the learners."""
        return (
            _pickles.rng_state(self._rng),
            self._subsets._state(),
            self._weight_scales,
            self.learners._state(),
        )

    def _take_state(self, state: tuple) -> None:
        """:meth:`_state`'s state, into a pool just built with the same parameters."""
        rng, subsets, scales, learners = state
        if type(scales) is not array or scales.typecode != "d" or len(scales) != self.n_models:
            raise ValueError("weight scales of the wrong size")
        _pickles.set_rng_state(self._rng, rng)
        self._subsets._take_state(subsets)
        self._weight_scales[:] = scales
        # the learners of the pickle's kind: the compiled forest, or River models (the
        # booster was built while river_boost.forest.ENABLED was off)
        from . import forest

        if type(learners) is list:
            if not isinstance(self.learners, ModelLearners):
                self.learners = ModelLearners([], self._subsets, self._accepts_w, self._rng)
        elif not isinstance(self.learners, forest.HoeffdingForest):
            every = self._subsets.fraction is not None and self._subsets.fraction >= 1.0
            self.learners = forest.HoeffdingForest._empty(None if every else self._subsets)
        self.learners._take_state(learners)

    def _draw(self, names, diversify) -> dict | None:
        """A diversified learner's parameters (those of ``delta``, ``tau`` and
        ``grace_period`` that the model has, ``names``), drawn in that order."""
        if not diversify:
            return None
        ranges = PAPER_DIVERSIFY_RANGES if diversify == "paper" else DIVERSIFY_RANGES
        new = {}
        if "delta" in names:
            new["delta"] = _log_uniform(self._rng, *ranges["delta"])
        if "tau" in names:
            new["tau"] = _log_uniform(self._rng, *ranges["tau"])
        if "grace_period" in names:
            new["grace_period"] = self._rng.randint(*ranges["grace_period"])
        return new

    # ------------------------------------------------------------------ diagnostics

    @property
    def feature_subsets(self) -> FeatureSubsets:
        """Which features each learner sees: its repr gives the rule, the ``d`` that
        ``"auto"`` was decided on and the fraction in use (``undecided`` before any ``x``)."""
        return self._subsets

    @property
    def models(self) -> list:
        """The weak learners, in boosting order."""
        return self.learners.models[: self.n_models]

    @property
    def edges(self) -> list:
        """Each learner's empirical edge, as the booster's paper defines it (see the booster);
        0 while nothing has been recorded."""
        e = self._engine
        return [n / d if d else 0.0 for n, d in zip(e.edge_num, e.edge_den)]

    @property
    def mean_offered(self) -> list:
        """Running mean of the ``p`` offered to each learner (0 before any offer)."""
        e = self._engine
        return [s / n if n else 0.0 for s, n in zip(e.offered, e.n_offered)]

    @property
    def offered(self) -> list:
        """Sum of the ``p`` offered to each learner."""
        return list(self._engine.offered)

    @property
    def learner_updates(self) -> list:
        """How many times each learner's ``learn_one`` was called."""
        return list(self._engine.n_updates)

    @property
    def zero_weights(self) -> list:
        """How many examples each learner was offered with weight exactly 0 (no update)."""
        return list(self._engine.n_zero)

    @property
    def weight_scales(self) -> list:
        """The constant each learner's weights are multiplied by (``weight_scale``, times the
        ``diversify="paper"`` per-learner draw)."""
        return list(self._weight_scales)

    @property
    def background(self) -> list:
        """The learners that have a background learner in training, in order."""
        return sorted(self._engine.background)


# ----------------------------------------------------------------------------- experts


# The experts' parts are compiled (river_boost.engine._experts)
Hedge = _experts.Hedge
ProjectedOGD = _experts.ProjectedOGD
SimplexOGD = _experts.SimplexOGD
ChainHedge = _experts.ChainHedge
