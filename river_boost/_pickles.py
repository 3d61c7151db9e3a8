"""How the package's estimators pickle, and what a pickle says it is.

An estimator pickles as its parameters and its state (:class:`Stateful`): loading builds it
with its constructor from the parameters, then gives it the state. The state is what learning
changed, in a few flat arrays: the compiled forests' trees as two streams of numbers
(``river_boost/forest/_flat.pxd``), the counters as typed arrays, the random generators'
states as bytes, and the tables of Python objects the numbers refer to (feature names,
labels, nominal values). A booster that has not learned (nor predicted) since it was built
pickles as its parameters alone. Loading walks no object graph of the trees and inspects no
signature, and every number a compiled structure relies on is checked (in C) before it is
built.

Every pickle carries a stamp, ``(FORMAT, version)``: the format of its state and the version
of river_boost that wrote it. Loading checks the stamp before the state is read, so that a
pickle of a format this version does not read (a later release's, or one that is not
river_boost's) gives a :class:`PickleFormatError` naming both versions, never a crash inside
the compiled code or a model that silently predicts something else. Pickles of format 1
(0.2.0's: the boosters' objects pickled whole) still load, into objects that pickle in the
current format. The stamp, its check and the formats this version reads, and the random
generators' states, are ``river_boost/engine/_format.py``'s, with the engines that pickle.
"""

from __future__ import annotations

import copy
import os

from ._params import fresh, param_names, params_of
from .engine._format import PickleFormatError, changed, check, stamp

# ----------------------------------------------------------------------------- seeds


def seed_or_entropy(seed, entropy=None) -> tuple:
    """``(seed, entropy)``: the seed an estimator builds its random generators from (its own
    ``seed``; when that is None, ``entropy`` if it drew some already, else 64 bits of fresh
    entropy) and the entropy (None for a given seed). A pickle keeps the entropy, so that a
    booster pickled before it learned is built again with the same generators."""
    if seed is not None:
        return seed, None
    if entropy is None:
        entropy = int.from_bytes(os.urandom(8), "little")
    return entropy, entropy


# ----------------------------------------------------------------------------- estimators


def restore(cls, params: dict, state: tuple, stamp=None):
    """A pickled estimator (:meth:`Stateful.__reduce__`): built by its constructor from its
    parameters (with the entropy it was built with, if it drew any), then given its state."""
    check(stamp, "booster")
    if not (isinstance(state, tuple) and state and isinstance(params, dict)):
        raise changed("estimator", "no parameters or state")
    entropy = state[0]
    if entropy is not None and type(entropy) is not int:
        raise changed("estimator", "its seed")
    obj = cls(**(params if entropy is None else {**params, "seed": entropy}))
    if entropy is not None:
        obj.seed = None
        obj._entropy = entropy
    try:
        obj._take_state(state)
    except PickleFormatError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, OverflowError, AttributeError) as e:
        raise changed("estimator", e) from None
    return obj


class Stateful:
    """A mixin for the package's estimators: they pickle (and copy) as their parameters and
    their state (see the module), and ``clone`` builds from the parameters without inspecting
    signatures.

    A subclass builds its random generators from ``seed_or_entropy(self.seed)`` and keeps the
    entropy as ``_entropy``; :meth:`_get_state` gives ``(entropy, ...)``, the rest being what
    learning changed (None for nothing), and :meth:`_take_state` takes it into an estimator
    just built with the same parameters (TypeError, ValueError, ... for a state it cannot
    hold: :func:`restore` turns them into PickleFormatError)."""

    _pickled_what = "booster"
    _entropy = None

    def __reduce__(self):
        return (restore, (type(self), params_of(self), self._get_state(), stamp()))

    def _get_state(self) -> tuple:
        raise NotImplementedError

    def _take_state(self, state: tuple) -> None:
        raise NotImplementedError

    def clone(self, new_params: dict | None = None, include_attributes: bool = False):
        """River's :meth:`~river.base.Base.clone`: a fresh estimator with the same parameters
        (``new_params`` in their place), built without inspecting signatures; with
        ``include_attributes``, an independent copy of the estimator as it stands (its
        state too)."""
        if include_attributes and not new_params:
            return copy.deepcopy(self)
        clone = fresh(self, new_params)
        if include_attributes:  # River's: the other attributes copied onto the new parameters
            names = param_names(type(self))
            for attr, value in self.__dict__.items():
                if attr not in names:
                    setattr(clone, attr, copy.deepcopy(value))
        return clone

    def __setstate__(self, state):
        """A pickle of format 1 (0.2.0's: the estimator's ``__dict__``, stamped), loaded as
        it was written; the estimator then pickles in the current format."""
        if not isinstance(state, dict):
            check(None, self._pickled_what)
        state = dict(state)
        check(state.pop(_KEY, None), self._pickled_what)
        self.__dict__.update(state)


_KEY = "_river_boost_pickle"  # format 1's stamp in an estimator's __dict__
