# The compiled regression trees (_regtrees.pyx): River's HoeffdingTreeRegressor over its leaves
# (LeafMean, LeafModel, LeafAdaptive: statistics, splitters from _ebst, the leaf model from
# _linear), walking x to a leaf, learning and growth (split attempts, splits, the memory-size
# policy) and sizes; its state is _state's.

from river_boost.forest._forest_structs cimport XV
from river_boost.forest._reg_structs cimport RLeaf, RNode, RTree
from river_boost.forest._registry cimport Registry


cdef int rtree_init(RTree* t, tuple params) except -1
cdef void rtree_free(RTree* t) noexcept
cdef int rtree_learn(RTree* t, unsigned char* fstate, XV* xv, Registry reg, double y,
                     double w) except -1
cdef double rtree_predict(RTree* t, XV* xv) noexcept
cdef int rtree_check_x(RTree* t, XV* xv) except -1
cdef long long rtree_allocated(RTree* t) noexcept
cdef RNode* rnode_leaf(RLeaf* lf) except NULL
cdef void rnode_free(RNode* nd) noexcept
cdef int add_child(RNode* nd, int vid, RNode* child) except -1
