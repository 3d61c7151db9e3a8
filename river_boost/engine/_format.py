"""What a pickle says it is, at the bottom with the engines and forests that pickle: the stamp
``(FORMAT, version)`` every pickled state carries (the package's version is this module's),
its check (:class:`PickleFormatError`), and a random generator's state as the pickles hold
it. How the estimators pickle is :mod:`river_boost._pickles`'s.

``FORMAT`` changes whenever what an estimator pickles changes shape; the CHANGELOG says so,
and the golden pickles under ``tests/golden/`` show which formats load.
"""

from __future__ import annotations

from array import array

#: the package's version (``pyproject.toml`` reads it here), stamped on every pickle
__version__ = "0.2.0"
#: the format of the state that pickled estimators hold
FORMAT = 2
#: the formats this version loads: 1, 0.2.0's (converted on loading), and this one
READS = (1, 2)


class PickleFormatError(ValueError):
    """A pickle that this version of river_boost cannot read: another format, or not a
    pickle of a river_boost object at all."""


def stamp() -> tuple:
    """The stamp a pickle written now carries: ``(FORMAT, __version__)``."""
    return (FORMAT, __version__)


def check(found, what: str) -> None:
    """Raise :class:`PickleFormatError` unless ``found`` is the stamp of a format this version
    reads (:data:`READS`).

    ``what`` names the object being loaded (``"booster"``, ``"engine"``, ``"forest"``)."""
    if (
        isinstance(found, tuple)
        and len(found) == 2
        and isinstance(found[0], int)
        and isinstance(found[1], str)
    ):
        if found[0] in READS:
            return
        made = f"river_boost {found[1]} (pickle format {found[0]})"
    else:  # before the stamps (0.1.0 and the development versions after it), or foreign
        made = "river_boost 0.1.0 or an unreleased version after it, or not river_boost"
    raise PickleFormatError(
        f"this pickled {what} was written by {made}; this is river_boost {__version__}, which "
        f"reads pickle formats {', '.join(map(str, READS))}. Load it with the version that "
        "wrote it, or train the model again with this one."
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
            f"this pickled {what} says it is of a format this version reads, but its state "
            f"does not have that format's {size} fields: it was changed after it was written"
        )
    return fields


def changed(what: str, error) -> PickleFormatError:
    """The error for a state that a pickle of this format cannot hold."""
    return PickleFormatError(
        f"a pickled {what} whose state is not one this version wrote ({error}): it was changed "
        "after it was written"
    )


# A random.Random's state as the pickles hold it: its 624 words and position as 32-bit
# integers (their pickle as a tuple of Python ints is half again as large and slower)
_WORDS = "I" if array("I").itemsize == 4 else "L"


def rng_state(rng) -> tuple:
    """``rng``'s state (a ``random.Random``): ``(words, gauss_next)``."""
    version, words, gauss = rng.getstate()
    return (array(_WORDS, words).tobytes(), gauss)


def set_rng_state(rng, state) -> None:
    """Give ``rng`` the state :func:`rng_state` gave (ValueError for any other)."""
    words, gauss = state
    a = array(_WORDS)
    a.frombytes(words)
    if len(a) != 625 or not (gauss is None or type(gauss) is float):
        raise ValueError("not a random generator's state")
    rng.setstate((3, tuple(a), gauss))
