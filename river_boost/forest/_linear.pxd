# The compiled regression trees' leaf model (_linear.pyx): River's default
# river.linear_model.LinearRegression() (SGD(0.01), squared loss, intercept_lr 0.01,
# clip_gradient 1e12), learning and predicting on a converted x as River's does.

from river_boost.forest._flat cimport Flat, Rd
from river_boost.forest._forest_structs cimport XV
from river_boost.forest._reg_structs cimport Lin


cdef void lin_free(Lin* m) noexcept
cdef int lin_copy(Lin* dst, Lin* src) except -1
cdef double lin_predict(Lin* m, XV* xv) noexcept
cdef int lin_learn(Lin* m, XV* xv, double y, double w) except -1
cdef long long lin_bytes(Lin* m) noexcept
cdef tuple lin_export(Lin* m)
cdef int lin_import(Lin* m, tuple st, int nf) except -1
cdef int lin_write(Lin* m, Flat* f) except -1
cdef int lin_read(Rd* r, Lin* m, int nf) except -1
