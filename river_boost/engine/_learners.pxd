# The engine's calls into its weak learners (river_boost.engine._learners)

cdef class Learners:
    cdef object forest
    cdef bint compiled
    cdef long long loaded_version
    cdef object loaded_clean
    cdef list row_ids

    cdef int load(self, object clean) except -1
    cdef int rows(self, object labels, int n, int k, double* out) except -1
    cdef int learn(self, int i, object label, double w) except -1
    cdef int forget_loaded(self) except -1
