"""River's parameter convention, without a signature inspection per call.

A River estimator keeps each ``__init__`` parameter under its own name, and River reads them
back with ``inspect.signature`` (``_get_params``, ``clone``): about 20 us per object, and a
booster and its weak learner hold several. The names are a property of the class:
:func:`param_names` inspects each class once per process, and :func:`params_of` and
:func:`fresh` use them. And the checks of a few parameters' values that several estimators share.
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers

from river import base

__all__ = [
    "check_choice",
    "check_open_unit",
    "check_scale",
    "clone",
    "fresh",
    "param_names",
    "params_of",
]

_NAMES: dict = {}
_UNNAMED: set = set()  # the classes whose __init__ takes *args or **kwargs


def param_names(cls) -> tuple:
    """The names of ``cls.__init__``'s parameters, inspected once per class (TypeError for a
    class whose ``__init__`` takes ``*args`` or ``**kwargs``: its parameters are not named)."""
    names = _NAMES.get(cls)
    if names is None and cls.__init__ is object.__init__:  # (no parameters at all)
        names = _NAMES[cls] = ()
    if names is None:
        params = inspect.signature(cls.__init__).parameters.values()
        named = not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
        names = _NAMES[cls] = tuple(p.name for p in params if p.name != "self") if named else ()
        if not named:
            _UNNAMED.add(cls)
    if cls in _UNNAMED:
        raise TypeError(f"{cls.__name__} takes *args or **kwargs: its parameters are not named")
    return names


def params_of(obj) -> dict:
    """``obj``'s ``__init__`` parameters as it keeps them (River's convention)."""
    return {name: getattr(obj, name) for name in param_names(type(obj))}


def fresh(obj, new_params: dict | None = None, *, given: bool = False):
    """What River's ``obj.clone(new_params)`` gives, without inspecting signatures: a fresh
    estimator built from ``obj``'s parameters, those that are River objects cloned
    (:func:`clone`), the others deep-copied, ``new_params`` (deep-copied) in their place.
    ``given``: the new parameters are the caller's own fresh objects, used as they are."""
    params = {}
    for name, value in params_of(obj).items():
        if new_params is not None and name in new_params:
            new = new_params[name]
            if _is_class_param(new):  # River's (class, parameters) of a nested estimator
                value = clone(value, new[1]) if isinstance(value, new[0]) else new[0](**new[1])
            else:
                value = new if given else copy.deepcopy(new)
        elif isinstance(value, base.Base):
            value = clone(value)
        elif value is not None and not isinstance(value, (bool, int, float, str)):
            value = copy.deepcopy(value)
        params[name] = value
    if new_params:
        unknown = set(new_params) - set(params)
        if unknown:
            raise TypeError(f"{type(obj).__name__} has no parameter {sorted(unknown)[0]!r}")
    return type(obj)(**params)


def _is_class_param(value) -> bool:
    """River's ``(class, parameters)`` form of a nested estimator in ``new_params`` (what
    ``_get_params`` gives)."""
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and inspect.isclass(value[0])
        and isinstance(value[1], dict)
    )


def clone(obj, new_params: dict | None = None):
    """``obj.clone(new_params)``: by :func:`fresh` for a River object that keeps River's
    ``clone`` and names its parameters, by its own ``clone`` otherwise (a pipeline, a class
    with a ``clone`` of its own)."""
    if getattr(type(obj), "clone", None) is base.Base.clone:
        try:
            param_names(type(obj))
        except (TypeError, ValueError):
            pass
        else:
            return fresh(obj, new_params)
    return obj.clone(new_params)


_METHODS: dict = {}


def method_params(obj, method: str) -> tuple:
    """``(name, kind)`` of each parameter of ``obj``'s ``method`` (e.g. whether ``learn_one``
    takes a sample weight), inspected once per class (an instance's own method each time);
    ``None`` when the method has no signature to inspect."""
    own = method in getattr(obj, "__dict__", ())
    key = (type(obj), method)
    found = None if own else _METHODS.get(key)
    if found is None:
        try:
            params = inspect.signature(getattr(obj, method)).parameters.values()
        except (TypeError, ValueError):
            return None
        found = tuple((p.name, p.kind) for p in params)
        if not own:
            _METHODS[key] = found
    return found


def names_of(obj) -> tuple:
    """The names of ``obj``'s parameters; none for an object whose parameters are not named
    (a pipeline's steps)."""
    try:
        return param_names(type(obj))
    except (TypeError, ValueError):
        return ()


def check_scale(name: str, scale) -> None:
    """A weight scale (``weight_scale``, ``deep_scale``): a finite real number above 0."""
    if (
        isinstance(scale, bool)
        or not isinstance(scale, numbers.Real)
        or not 0.0 < scale < math.inf  # NaN fails too
    ):
        raise ValueError(f"{name} must be finite and > 0, got {scale!r}")


def check_open_unit(name: str, value: float) -> float:
    """``value`` if it lies in ``(0, 1)``, else ``ValueError`` naming the parameter."""
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value}")
    return value


def check_choice(name: str, value, choices) -> None:
    """``ValueError`` naming the parameter unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
