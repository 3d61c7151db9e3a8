"""What a pickle of the package says it is.

Every pickled booster, engine and forest carries a stamp, ``(FORMAT, version)``: the format of
its state and the version of river_boost that wrote it. Loading checks the stamp before the
state is read, so that a pickle of another format (an older or a later release's, or one
that is not river_boost's) gives a :class:`PickleFormatError` naming both versions, never a
crash inside the compiled code or a model that silently predicts something else.

``FORMAT`` changes whenever what a booster, its engine or its forest pickles changes shape; the
CHANGELOG says so, and the golden pickles under ``tests/golden/`` show which formats load.
"""

from __future__ import annotations

from ._version import __version__

#: the format of the state that pickled boosters, engines and forests hold
FORMAT = 1


class PickleFormatError(ValueError):
    """A pickle that this version of river_boost cannot read: another format, or not a
    pickle of a river_boost object at all."""


def stamp() -> tuple:
    """The stamp a pickle written now carries: ``(FORMAT, __version__)``."""
    return (FORMAT, __version__)


def check(found, what: str) -> None:
    """Raise :class:`PickleFormatError` unless ``found`` is the stamp of this format.

    ``what`` names the object being loaded (``"booster"``, ``"engine"``, ``"forest"``)."""
    if (
        isinstance(found, tuple)
        and len(found) == 2
        and isinstance(found[0], int)
        and isinstance(found[1], str)
    ):
        if found[0] == FORMAT:
            return
        made = f"river_boost {found[1]} (pickle format {found[0]})"
    else:  # before the stamps (0.1.0 and the development versions after it), or foreign
        made = "river_boost 0.1.0 or an unreleased version after it, or not river_boost"
    raise PickleFormatError(
        f"this pickled {what} was written by {made}; this is river_boost {__version__}, which "
        f"reads pickle format {FORMAT}. Load it with the version that wrote it, or train the "
        "model again with this one (pickles are not converted between formats)."
    )


def unstamped(state, what: str, size: int) -> tuple:
    """The fields of a stamped state ``(stamp, fields)``, checked: the stamp, then that
    there are ``size`` fields."""
    if not (isinstance(state, tuple) and len(state) == 2):
        check(None, what)
    check(state[0], what)
    fields = state[1]
    if not (isinstance(fields, tuple) and len(fields) == size):
        raise PickleFormatError(
            f"this pickled {what} says it is of format {FORMAT}, but its state does not have "
            f"that format's {size} fields: it was changed after it was written"
        )
    return fields


_KEY = "_river_boost_pickle"


class Stamped:
    """A mixin: the pickles and copies of an estimator carry the stamp, checked first when
    they load (``what`` names the estimator in the error)."""

    _pickled_what = "booster"

    def __getstate__(self):
        state = self.__dict__.copy()
        state[_KEY] = stamp()
        return state

    def __setstate__(self, state):
        if not isinstance(state, dict):
            check(None, self._pickled_what)
        state = dict(state)
        check(state.pop(_KEY, None), self._pickled_what)
        self.__dict__.update(state)
