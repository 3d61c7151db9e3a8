# The compiled regression forest (_regforest.pyx): RegStorage, the regression trees over the
# storage both kinds share (_storage.Storage: the feature views, the registry and the models;
# so is the Input that converts x), and
# RegressionForestCore, the regressor's core over ForestBase (_core.pxd). A Cython booster
# cimports RegressionForestCore and calls load_c / predict_loaded_c / learn_loaded_c on it.

from river_boost.forest._core cimport ForestBase
from river_boost.forest._reg_structs cimport RTree
from river_boost.forest._storage cimport Storage


cdef class RegStorage(Storage):
    cdef RTree* rt

    cdef int rlearn(self, int i, object inp, double y, double w) except -1
    cdef double rpredict(self, int i, object inp) except? -1.0
    cdef int check_quantizable(self, int i, object inp) except -1


cdef class RegressionForestCore(ForestBase):
    # predict_loaded(i): tree i's prediction of the loaded x
    cdef double predict_loaded_c(self, int i) except? -1.0
    # learn_loaded(i, y, w): y and w are checked (finite; w > 0) before any state changes
    cdef int learn_loaded_c(self, int i, double y, double w) except -1
