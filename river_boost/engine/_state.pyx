# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The booster's state as the compiled walk reads it (the C side of :mod:`river_boost.engine`).

The state of a booster stays in its Python objects (the pool, its memo, the experts), so that
pickles do not depend on the compiled modules. :class:`Attrs` reads some plain attributes of
one object and keeps them until any attribute of the booster's parts is assigned
(:data:`river_boost.core.CHANGES` counts the assignments); :class:`PoolArrays` holds the
pool's per-learner typed arrays and the booster's counter between calls.
"""

from cpython.dict cimport PyDict_SetItem, PyDict_GetItem, PyDict_GetItemWithError
from cpython.list cimport PyList_GET_ITEM
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.object cimport PyObject, Py_SIZE
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_WRITABLE
from cpython cimport array
import array as _pyarray


def set_changes(object changes):
    """Called once by :mod:`river_boost.engine` with :data:`river_boost.core.CHANGES`."""
    global _changes
    _changes = changes


cdef Attrs pool_attrs(object pool):
    """The attributes of a WeakLearnerPool the walk reads (the A_OFFERED... positions)."""
    return Attrs(pool, POOL_NAMES)


cdef Attrs memo_attrs(object memo):
    """The attributes of a FeatureCleaner the walk reads (A_X, A_CLEAN, A_VALUE, A_NOMINAL)."""
    return Attrs(memo, MEMO_NAMES)


# ----------------------------------------------------------------------------- typed state

cdef array.array _changes = _pyarray.array("q", [0])  # core.CHANGES (set by _setup)


cdef long long _moved() noexcept:
    """core.CHANGES: attribute assignments on the boosters' parts so far."""
    return _changes.data.as_longlongs[0]


cdef object _aget(object obj, dict d, str name):
    """``getattr(obj, name)`` for a plain instance attribute, read from ``d``, the instance's
    ``__dict__``, without the type's descriptor lookup (several times cheaper, and the walk
    reads a dozen per example); the attribute protocol when ``d`` does not hold the name (a
    class default). Only names that no class of these objects defines as a property or a
    slot are read this way."""
    cdef PyObject* v = PyDict_GetItemWithError(d, name)
    if v == NULL:
        return getattr(obj, name)
    return <object>v


cdef bint _holds(dict d, str name, object expected):
    """``d.get(name) is expected``, without a reference taken."""
    cdef PyObject* v = PyDict_GetItem(d, name)
    if v == NULL:
        return expected is None
    return v == <PyObject*>expected


cdef class Attrs:
    """Some plain instance attributes of one object (the pool, its memo, the OGD, Hedge),
    read from its ``__dict__`` (a class default otherwise) and kept until any attribute of
    these objects is assigned in Python (:data:`river_boost.core.CHANGES` moves).

    ``names``: attributes every such object has (on the instance or as a class default),
    read and written by position (the enums below); none is a property or a slot. The
    object's ``__dict__`` is never replaced wholesale in river_boost (pickles and copies are
    new objects, with a new engine).
    """

    def __cinit__(self, object obj, tuple names):
        self.obj = obj
        self.d = obj.__dict__
        self.names = names
        self.values = [None] * len(names)
        self.seen = -1

    def __reduce__(self):
        return (object, ())

    cdef int _refresh(self) except -1:
        cdef Py_ssize_t j
        for j in range(PyTuple_GET_SIZE(self.names)):
            self.values[j] = _aget(self.obj, self.d, <str>PyTuple_GET_ITEM(self.names, j))
        self.seen = _moved()
        return 0

    cdef object get(self, int j):
        """``obj.<names[j]>`` (read again after any assignment counted in core.CHANGES)."""
        if self.seen != _moved():
            self._refresh()
        return <object>PyList_GET_ITEM(self.values, j)

    cdef int set(self, int j, object value) except -1:
        """``obj.<names[j]> = value`` (into the ``__dict__``, as setattr would, but not
        counted in core.CHANGES: the values read stay current)."""
        PyDict_SetItem(self.d, <str>PyTuple_GET_ITEM(self.names, j), value)
        if self.seen == _moved():
            self.values[j] = value
        return 0


cdef tuple POOL_NAMES = (
    "_offered", "_n_offered", "_n_zero", "_n_updates", "_weight_scales", "_edge_num",
    "_edge_den", "_background", "_rng", "_edge_decay",
)
cdef tuple MEMO_NAMES = ("x", "clean", "value", "nominal")


cdef array.array _typed(Attrs owner, int j, char typecode):
    """Attribute j of the pool or the OGD, per-learner state, as a typed array (a list, e.g.
    unpickled from before, is converted in place: the same values)."""
    cdef object a = owner.get(j)
    if type(a) is not array.array or (<array.array>a).ob_descr.typecode != typecode:
        a = _pyarray.array(chr(typecode), a)
        owner.set(j, a)
    return <array.array>a


cdef class PoolArrays:
    """The pool's per-learner arrays (offers, updates, weight scales, edge sums) and the
    booster's example counter, held between calls: their buffers (``buf``; a held buffer
    also makes any resize a BufferError, never a dangling pointer), their data (``ptr``, by
    the S_* positions) and the edges' decay read with them, read again only when an
    attribute of the booster's parts was assigned (core.CHANGES moved)."""

    def __cinit__(self, object booster, dict bdict, Attrs pa, int n):
        self.booster = booster
        self.bdict = bdict
        self.pa = pa
        self.n = n
        self.seen = -1

    def __dealloc__(self):
        self.release()

    def __reduce__(self):
        return (object, ())

    cdef int release(self) except -1:
        cdef int j
        self.seen = -1
        for j in range(S_COUNT):
            if self.held[j]:
                self.held[j] = 0
                PyBuffer_Release(&self.buf[j])
            self.ptr[j] = NULL
        return 0

    cdef int _hold(self, Attrs owner, int j, char typecode, int slot, Py_ssize_t n,
                   bint exact) except -1:
        """Hold attribute j of the pool, OGD or Hedge (_typed) in buf[slot]: at least n
        values (exactly n when ``exact``)."""
        cdef array.array a = _typed(owner, j, typecode)
        if Py_SIZE(a) < n or (exact and Py_SIZE(a) != n):
            raise ValueError(f"{owner.names[j]} holds {Py_SIZE(a)} values, expected {n}")
        return self._pin(a, slot)

    cdef int _pin(self, object a, int slot) except -1:
        """Hold the buffer of the typed array ``a`` in buf[slot], its data in ptr."""
        PyObject_GetBuffer(a, &self.buf[slot], PyBUF_WRITABLE)
        self.held[slot] = 1
        self.ptr[slot] = self.buf[slot].buf
        return 0

    cdef int sync(self) except -1:
        """The per-learner arrays (ptr) for this call: those held since the last call
        while the pool, the OGD, Hedge and the booster still hold the very same arrays (held
        buffers cannot be resized: the same object has the same size), read again
        otherwise; the scalars read again. _engine_of calls it before every entry's work; the
        walk calls no Python code that could replace them before its last use of them
        (drift replacements come last)."""
        if self.seen == _moved():  # nothing assigned since: the same arrays
            return 0
        if not (self.held[S_N_SEEN]
                and self._holding(self.pa, A_OFFERED, S_OFFERED)
                and self._holding(self.pa, A_N_OFFERED, S_N_OFFERED)
                and self._holding(self.pa, A_N_ZERO, S_N_ZERO)
                and self._holding(self.pa, A_N_UPDATES, S_N_UPDATES)
                and self._holding(self.pa, A_WEIGHT_SCALES, S_SCALES)
                and self._holding(self.pa, A_EDGE_NUM, S_EDGE_NUM)
                and self._holding(self.pa, A_EDGE_DEN, S_EDGE_DEN)
                and _aget(self.booster, self.bdict, "_n_seen") is self.buf[S_N_SEEN].obj):
            return self._resync()
        self.decay = self.pa.get(A_EDGE_DECAY)
        self.seen = _moved()
        return 0

    cdef bint _holding(self, Attrs owner, int j, int slot):
        """Whether attribute j of ``owner`` is the array held in buf[slot]."""
        return self.held[slot] and owner.get(j) is self.buf[slot].obj

    cdef int _resync(self) except -1:
        cdef int n = self.n
        self.release()
        self._hold(self.pa, A_OFFERED, TC_DOUBLE, S_OFFERED, n, False)
        self._hold(self.pa, A_N_OFFERED, TC_LONGLONG, S_N_OFFERED, n, False)
        self._hold(self.pa, A_N_ZERO, TC_LONGLONG, S_N_ZERO, n, False)
        self._hold(self.pa, A_N_UPDATES, TC_LONGLONG, S_N_UPDATES, n, False)
        self._hold(self.pa, A_WEIGHT_SCALES, TC_DOUBLE, S_SCALES, n, False)
        self._hold(self.pa, A_EDGE_NUM, TC_DOUBLE, S_EDGE_NUM, n, False)
        self._hold(self.pa, A_EDGE_DEN, TC_DOUBLE, S_EDGE_DEN, n, False)
        self.decay = self.pa.get(A_EDGE_DECAY)
        self._hold_n_seen()
        self.seen = _moved()
        return 0

    cdef int _hold_n_seen(self) except -1:
        """The booster's _n_seen counter (an int from an older pickle, set on the booster by
        hand, becomes the typed counter Booster keeps)."""
        cdef object a = _aget(self.booster, self.bdict, "_n_seen")
        if type(a) is not array.array or (<array.array>a).ob_descr.typecode != TC_LONGLONG:
            a = _pyarray.array("q", [a])
            self.bdict["_n_seen"] = a
        if Py_SIZE(a) != 1:
            raise ValueError(f"_n_seen holds {Py_SIZE(a)} counts, expected 1")
        return self._pin(a, S_N_SEEN)

    cdef double* sd(self, int slot) noexcept:
        return <double*>self.ptr[slot]

    cdef long long* sq(self, int slot) noexcept:
        return <long long*>self.ptr[slot]
