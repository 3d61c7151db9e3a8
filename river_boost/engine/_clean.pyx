# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""Cleaning ``x``, compiled: the one cleaning of the package (the engines' walks, and the
martingale booster through :class:`Cleaner`).

``clean_features(x)`` (``river_boost.engine._contract``) without the features whose kind
differs from the one learned:
dicts whose keys are all str or all int and whose values are floats, ints, bools, strings or
None are cleaned here (their keys sorted once per key order, :class:`KeyOrder`), any other by
``clean_features`` in Python. An engine's :class:`KeyOrder` also remembers the last x it
cleaned, so that a prediction and the learning that follows clean it once.
"""

from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.list cimport PyList_GET_ITEM
from cpython.dict cimport PyDict_Next, PyDict_SetItem, PyDict_Contains, PyDict_Copy
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.long cimport PyLong_AsLongLongAndOverflow
from libc.stdlib cimport free, calloc, realloc
from libc.string cimport memcpy, memcmp
cimport cython

cdef extern from "Python.h":
    Py_ssize_t PyDict_GET_SIZE(object o)

from river_boost.engine._constants cimport MAX_ABS_FEATURE
from river_boost.engine._contract import clean_features as _clean_features


cdef inline bint _keeps(object v) except -1:
    """Whether _contract._feature_value keeps the value ``v`` unchanged (1), drops it (0), or
    must be asked (-2: another kind of value)."""
    cdef type tv = type(v)
    cdef double d
    cdef long long iv
    cdef int overflow
    if tv is float:
        d = PyFloat_AS_DOUBLE(v)
        return -MAX_ABS_FEATURE <= d <= MAX_ABS_FEATURE  # NaN fails too
    if tv is str or tv is bool:
        return 1
    if tv is int:
        iv = PyLong_AsLongLongAndOverflow(v, &overflow)
        return not overflow and -MAX_ABS_FEATURE <= <double>iv <= MAX_ABS_FEATURE
    if v is None:
        return 0
    return -2


cdef inline int _keep_code(object v) except -3:
    """The cleaning's code for the value ``v``: dropped (0), kept (1), kept and a str (2),
    or another kind of value (-2: the Python cleaning decides)."""
    cdef int kp
    if type(v) is float:  # (the usual value, first)
        return -MAX_ABS_FEATURE <= PyFloat_AS_DOUBLE(v) <= MAX_ABS_FEATURE
    if type(v) is str:
        return 2
    kp = _keeps(v)
    return -2 if kp == -2 else kp == 1


cdef class KeyOrder:
    """The sorted order of the last x's keys, reused while the next x has the same key
    objects in the same order (a stream's rows usually do): no sort per example; and the
    learned kind of each key (the engine's ``nominal``), read once it is known (a key's
    kind, once learned, never changes)."""

    def __dealloc__(self):
        self._snap_drop()
        free(self.snap_kv)
        self._free_rows()

    cdef void _free_rows(self) noexcept:
        """The per-key arrays (_grow makes them)."""
        free(self.perm)
        free(self.vals)
        free(self.keep)
        free(self.kinds)
        free(self.sel)
        free(self.pkeep)

    cdef void _snap_drop(self) noexcept:
        cdef Py_ssize_t j
        for j in range(2 * self.snap_n):
            Py_XDECREF(self.snap_kv[j])
        self.snap_n = 0
        self.snap_x = None
        self.snap_clean = None

    cdef int _snap_take(self, dict x, object clean) except -1:
        """Remember the dict ``x`` (its key and value objects) and its clean x."""
        cdef Py_ssize_t n = PyDict_GET_SIZE(x), pos = 0, j = 0
        cdef PyObject* key
        cdef PyObject* val
        cdef PyObject** kv
        self._snap_drop()
        if n > self.snap_cap:
            kv = <PyObject**>realloc(self.snap_kv, 2 * n * sizeof(PyObject*))
            if kv == NULL:
                raise MemoryError()
            self.snap_kv = kv
            self.snap_cap = n
        while PyDict_Next(x, &pos, &key, &val):
            Py_INCREF(<object>key)
            Py_INCREF(<object>val)
            self.snap_kv[2 * j] = key
            self.snap_kv[2 * j + 1] = val
            j += 1
        self.snap_n = j
        self.snap_x = x
        self.snap_clean = clean
        return 0

    cdef bint _snap_holds(self, dict x) noexcept:
        """Whether ``x`` is the remembered dict with the same key and value objects."""
        cdef Py_ssize_t pos = 0, j = 0
        cdef PyObject* key
        cdef PyObject* val
        if x is not self.snap_x or PyDict_GET_SIZE(x) != self.snap_n:
            return False
        while PyDict_Next(x, &pos, &key, &val):
            if key != self.snap_kv[2 * j] or val != self.snap_kv[2 * j + 1]:
                return False
            j += 1
        return True

    cdef int _grow(self, Py_ssize_t n) except -1:
        if n <= self.cap:
            return 0
        self._free_rows()
        self.sel_ok = False
        self.perm = <int*>calloc(n, sizeof(int))
        self.vals = <PyObject**>calloc(n, sizeof(PyObject*))
        self.pkeep = <char*>calloc(n, sizeof(char))
        self.keep = <char*>calloc(n, sizeof(char))
        self.kinds = <signed char*>calloc(n, sizeof(signed char))
        self.sel = <int*>calloc(n, sizeof(int))
        self.keys = None  # the order is rebuilt
        if (self.perm == NULL or self.vals == NULL or self.keep == NULL or self.kinds == NULL
                or self.sel == NULL or self.pkeep == NULL):
            self.cap = 0
            raise MemoryError()
        self.cap = <int>n
        return 0

    cdef bint all_learned(self, object clean, object nominal):
        """Whether every key of ``clean`` (made in this order) has a learned kind."""
        return (clean is self.clean and nominal is self.nominal and self.keys is not None
                and self.n_known == len(self.keys))


cdef object _cleaned_fast(object x, dict nominal, KeyOrder order):
    """The cleaning of a new ``x``: clean_features(x) without the features
    whose kind differs from the one learned. Dicts whose keys are all str or all int and whose
    values are Python floats, ints, bools, strings or None are cleaned here (keys of one of
    those kinds, all distinct, sort as Python sorts them, and sorting them all then dropping
    the missing values keeps the order of the others); anything else by the Python code.
    """
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    cdef list okeys
    cdef object k
    cdef type tk = None
    cdef int kp, j = 0, p, nk
    cdef bint same = True
    if type(x) is not dict:
        return _filtered(_clean_features(x), nominal)
    order._grow(len(<dict>x))
    okeys = order.keys
    nk = -1 if okeys is None else len(okeys)
    while PyDict_Next(x, &pos, &key, &val):
        k = <object>key
        if tk is None:
            tk = type(k)
            if tk is not str and tk is not int:
                return _filtered(_clean_features(x), nominal)
        elif type(k) is not tk:
            return _filtered(_clean_features(x), nominal)
        kp = _keep_code(<object>val)
        if kp == -2:
            return _filtered(_clean_features(x), nominal)
        if same and (j >= nk or <PyObject*>PyList_GET_ITEM(okeys, j) != key):
            same = False
        order.vals[j] = val
        order.keep[j] = kp
        j += 1
    if not same or j != nk:
        keys = list(x)
        where = {kk: i for i, kk in enumerate(keys)}
        order.in_order = True
        for p, kk in enumerate(sorted(keys)):
            order.perm[p] = <int>where[kk]
            if order.perm[p] != p:
                order.in_order = False
        order.keys = keys
        order.nominal = None  # the kinds are read again
    return _clean_build(x, nominal, order, j)


cdef object _clean_build(dict x, dict nominal, KeyOrder order, int j):
    """The clean x of the j values _cleaned_fast's first pass read (order.vals, order.keep,
    in x's order, which order.keys and order.perm describe)."""
    cdef list okeys = order.keys
    cdef object out, kind
    cdef int kp, p, q, m
    cdef signed char kd
    cdef bint known = True
    if order.nominal is not nominal:
        for p in range(j):
            order.kinds[p] = -1
        order.n_known = 0
        order.nominal = nominal
        order.sel_ok = False
    if order.sel_ok and order.sel_j == j and memcmp(order.keep, order.pkeep, j) == 0:
        m = order.sel_m  # the same values kept, of the same kinds, as last time
    else:
        m = 0  # the kept values' positions in x, in sorted order
        for p in range(j):
            kp = order.perm[p]
            if not order.keep[kp]:
                continue
            kd = order.kinds[p]
            if kd < 0:
                kind = nominal.get(<object>PyList_GET_ITEM(okeys, kp))
                if kind is not None:
                    kd = 1 if kind is True else (0 if kind is False else 2)
                    order.kinds[p] = kd
                    order.n_known += 1
                else:
                    known = False
            # kind is not None and kind is not (type(v) is str)
            if kd >= 0 and kd != order.keep[kp] - 1:
                continue
            order.sel[m] = kp
            m += 1
        # a kind learned later could drop a value sel keeps: remembered only when all known
        order.sel_ok = known
        if known:
            memcpy(order.pkeep, order.keep, j)
            order.sel_m, order.sel_j = m, j
    if order.in_order and m == j:
        out = PyDict_Copy(x)  # x's keys sorted and every value kept: a copy of x
    else:
        out = {}
        for q in range(m):
            kp = order.sel[q]
            PyDict_SetItem(out, <object>PyList_GET_ITEM(okeys, kp), <object>order.vals[kp])
    order.clean = out
    return out


def _cleaned_for_test(x, dict nominal, int times=2):
    """_cleaned_fast(x, nominal) with a fresh key order, ``times`` times (the order is made
    by the first call and reused by the next): a test hook (tests/engine/test_compiled_walk.py)."""
    cdef KeyOrder order = KeyOrder()
    return [_cleaned_fast(x, nominal, order) for _ in range(times)]


cdef dict _filtered(dict clean, dict nominal):
    """The learned kinds' filter: drop the features whose kind is not the learned one."""
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    cdef dict out = {}
    cdef object kind
    while PyDict_Next(clean, &pos, &key, &val):
        kind = nominal.get(<object>key)
        if kind is not None and kind is not (type(<object>val) is str):
            continue
        out[<object>key] = <object>val
    return out


cdef object _cleaned(KeyOrder order, object x, dict nominal):
    """An engine's cleaning of ``x`` (the kinds learned in ``nominal``), remembering the last x while no kind is learned. A dict the engine cleaned
    last, still holding the same objects, is recognised by the order's snapshot
    (KeyOrder.snap_*) without a copy or a comparison by value; another mapping equal to the
    last one cleaned (a copy of it is kept) gets its clean x."""
    cdef object out
    # (kinds are only ever added: the same number of learned kinds, the same kinds)
    cdef Py_ssize_t known = PyDict_GET_SIZE(nominal)
    if known != order.snap_known:  # a kind was learned since: what was cleaned is stale
        order._snap_drop()
        order.mx = order.mclean = None
        order.snap_known = known
    if type(x) is dict and order._snap_holds(<dict>x):
        out = order.snap_clean
        order.cur_clean = out
        return out
    try:
        same = order.mx is not None and x == order.mx
    except Exception:  # values that refuse comparison (arrays): not the remembered x
        same = False
    if same:
        out = order.mclean
    else:
        out = _cleaned_fast(x, nominal, order)  # (may raise: nothing is remembered then)
        if type(x) is dict:
            order._snap_take(<dict>x, out)
            order.mx = order.mclean = None
        else:
            order._snap_drop()
            order.mclean = out
            order.mx = dict(x)
    order.cur_clean = out
    return out


cdef int _learned(KeyOrder order, dict nominal) except -1:
    """The kinds of the features of the x just learned (the last
    cleaned); nothing to do once every key of x has a learned kind."""
    cdef object clean
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    clean = order.cur_clean  # the x just learned, as _cleaned returned it
    if order.all_learned(clean, nominal):
        return 0
    while PyDict_Next(clean, &pos, &key, &val):
        if not PyDict_Contains(nominal, <object>key):
            nominal[<object>key] = type(<object>val) is str
    return 0


cdef class Cleaner:
    """The engines' cleaning, for a booster written in Python (the martingale booster).

    River's progressive validation predicts an ``x`` and then learns the same ``x``:
    :meth:`cleaned` gives the same clean dict back while ``x`` is the last one cleaned and no
    kind was learned since, so that what was computed for it can be kept by identity.

    A feature keeps the kind of its first learned value, numeric or nominal (a string): a
    later value of the other kind is treated as missing, since the learners' statistics for
    it cannot take it (a Gaussian cannot absorb a string, nor a nominal split a number).
    Only learning fixes a feature's kind (:meth:`learned`): a feature first seen in a
    prediction is passed to the learners as it is and decides nothing (a Hoeffding tree
    ignores a feature it has not learned; River's does the same).
    """

    cdef KeyOrder order
    cdef public dict nominal  # feature -> whether its learned values are strings

    def __cinit__(self, dict nominal=None):
        self.order = KeyOrder()
        self.nominal = {} if nominal is None else nominal

    def cleaned(self, x):
        """``x`` cleaned, without values of the wrong kind (for predicting and learning)."""
        return _cleaned(self.order, x, self.nominal)

    def learned(self):
        """Remember the kinds of the features of the last cleaned ``x`` (it was learned)."""
        _learned(self.order, self.nominal)

    def __reduce__(self):  # what was cleaned last is a cache: a copy cleans anew
        return (Cleaner, (), {"nominal": dict(self.nominal)})

    def __setstate__(self, dict state):
        """The learned kinds (also of 0.2.0's pickles, whose ``FeatureCleaner`` this is)."""
        self.nominal = dict(state["nominal"])
