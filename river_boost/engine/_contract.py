"""The input contract (README, "Bad input"): what the boosters accept, checked before any state
changes, here at the bottom with the engines that rely on it.

The bounds, ``MAX_SAMPLE_WEIGHT``, ``MIN_SAMPLE_WEIGHT`` and ``MAX_ABS_FEATURE``, are defined
once, in ``river_boost/engine/_constants.pxd``. The engines take the common cases in C (a float
weight, the dicts ``river_boost.engine._clean`` cleans) and call these for any other.
"""

from __future__ import annotations

import decimal
import numbers
from collections.abc import Mapping

import numpy as np

from ._constants import MAX_ABS_FEATURE, MAX_SAMPLE_WEIGHT, MIN_SAMPLE_WEIGHT

__all__ = ["as_binary_label", "check_sample_weight", "clean_features"]


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
