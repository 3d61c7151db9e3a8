# Cleaning x, compiled (river_boost.engine._clean): the key order reused from one x to the
# next, which also remembers the last x an engine cleaned (KeyOrder), and the engines' cleaning.

from cpython.object cimport PyObject

cdef class KeyOrder:
    cdef list keys  # the keys, in x's order
    cdef int* perm  # perm[p]: position in x of the p-th key in sorted order
    cdef PyObject** vals  # scratch: x's values in x's order (borrowed while cleaning x)
    cdef char* keep  # scratch: each value dropped (0), kept (1), kept and a str (2)
    cdef int* sel  # scratch: the positions in x of the kept values, in sorted order
    cdef signed char* kinds  # per sorted position: 1 str, 0 not, 2 skip always, -1 unknown
    cdef int n_known  # positions whose kind is known
    cdef int cap
    cdef object nominal  # the dict the kinds were read from
    cdef bint in_order  # the keys, in x's order, are sorted (perm is the identity)
    cdef object clean  # the last clean x made in this order
    cdef object cur_clean  # the clean x _cleaned returned last
    cdef object mx, mclean  # the last x cleaned that is not a dict (a dict copy) and its clean x
    # sel (its sel_m first entries) for the keep codes pkeep of sel_j values, made while
    # every kept value's kind was known (sel_ok): the same codes give the same sel
    cdef char* pkeep
    cdef int sel_m, sel_j
    cdef bint sel_ok
    # The dict x the compiled walk cleaned last (snap_x), its keys and values in its order
    # (snap_kv: key, value, key, ...; strong references, so that no other object can take
    # their addresses) and its clean x (snap_clean): while x is that dict holding the same
    # key and value objects in the same order, it is equal to what was cleaned, without a
    # copy of x to compare it with (_cleaned).
    cdef object snap_x, snap_clean
    cdef PyObject** snap_kv
    cdef Py_ssize_t snap_n, snap_cap
    cdef Py_ssize_t snap_known  # the learned kinds when the last x was cleaned

    cdef void _snap_drop(self) noexcept
    cdef int _snap_take(self, dict x, object clean) except -1
    cdef bint _snap_holds(self, dict x) noexcept
    cdef void _free_rows(self) noexcept
    cdef int _grow(self, Py_ssize_t n) except -1
    cdef bint all_learned(self, object clean, object nominal)


cdef object _cleaned(KeyOrder order, object x, dict nominal)
cdef int _learned(KeyOrder order, dict nominal) except -1
