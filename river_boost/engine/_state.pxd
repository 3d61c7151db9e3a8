# The booster's state as the compiled walk reads it (river_boost.engine._state): plain attributes of
# the booster's parts (Attrs) and the pool's per-learner typed arrays (PoolArrays).


cdef enum:
    TC_DOUBLE = 100  # array("d")
    TC_LONGLONG = 113  # array("q")

# the names' positions in POOL_NAMES and MEMO_NAMES (_state.pyx)
cdef enum:
    A_OFFERED, A_N_OFFERED, A_N_ZERO, A_N_UPDATES, A_WEIGHT_SCALES, A_EDGE_NUM, A_EDGE_DEN
    A_BACKGROUND, A_RNG, A_EDGE_DECAY
cdef enum:
    A_X, A_CLEAN, A_VALUE, A_NOMINAL

# The per-learner arrays an engine holds (PoolArrays.sync), by position: the pool's, and the
# booster's _n_seen.
cdef enum:
    S_OFFERED, S_N_OFFERED, S_N_ZERO, S_N_UPDATES, S_SCALES, S_EDGE_NUM, S_EDGE_DEN
    S_N_SEEN, S_COUNT

cdef long long _moved() noexcept
cdef object _aget(object obj, dict d, str name)
cdef bint _holds(dict d, str name, object expected)


cdef class Attrs:
    cdef object obj
    cdef dict d
    cdef tuple names
    cdef list values
    cdef long long seen  # core.CHANGES when values were read (-1: never)

    cdef int _refresh(self) except -1
    cdef object get(self, int j)
    cdef int set(self, int j, object value) except -1


cdef Attrs pool_attrs(object pool)
cdef Attrs memo_attrs(object memo)


cdef class PoolArrays:
    cdef object booster
    cdef dict bdict
    cdef Attrs pa  # the pool's attributes
    cdef int n
    cdef Py_buffer buf[S_COUNT]
    cdef char held[S_COUNT]
    cdef void* ptr[S_COUNT]
    cdef double decay
    cdef long long seen  # core.CHANGES when sync last checked in full (-1: check in full)

    cdef int release(self) except -1
    cdef int _hold(self, Attrs owner, int j, char typecode, int slot, Py_ssize_t n,
                   bint exact) except -1
    cdef int _pin(self, object a, int slot) except -1
    cdef int sync(self) except -1
    cdef bint _holding(self, Attrs owner, int j, int slot)
    cdef int _resync(self) except -1
    cdef int _hold_n_seen(self) except -1
    cdef double* sd(self, int slot) noexcept
    cdef long long* sq(self, int slot) noexcept
