# The compiled classifier forest's core (_forest.pyx): ForestBase's trees (_core.pxd) learning
# class labels. An engine (river_boost.engine._engine) cimports ForestCore and calls, besides
# ForestBase's load_c and loaded_version_c, these without a Python call per tree, checks
# included.

from river_boost.forest._core cimport ForestBase


cdef class ForestCore(ForestBase):
    # predict_loaded_matrix(labels, range(n_rows)) into out (n_rows x len(labels))
    cdef int loaded_matrix_c(self, object labels, int n_rows, double* out) except -1
    # learn_loaded(i, y, w)
    cdef int learn_loaded_c(self, int i, object y, double w) except -1

    cdef object _matrix(self, labels, trees)
    cdef int _fill(self, labels, list idx, int R, double* out) except -1
