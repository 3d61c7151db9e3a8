# The compiled forests' one core (_core.pyx): ForestBase owns a forest's trees (a Storage
# of its kind) and its input (an Input over them), the members both kinds share and the C entry
# points of the loaded x. The classifier's core (_forest.ForestCore) and the regressor's
# (_regforest.RegressionForestCore) subclass it with their own learning and prediction; an
# engine cimports the kind it runs and calls its cdef methods (load_c, then the kind's
# *_loaded_c), without a Python call per tree.

from river_boost.forest._input cimport Input
from river_boost.forest._storage cimport Storage


cdef class ForestBase:
    cdef Storage store
    cdef Input inp

    # load(x)
    cdef int load_c(self, object x) except -1
    # which conversion of x is loaded (every conversion counts one), or -1 if none is
    cdef long long loaded_version_c(self) noexcept
