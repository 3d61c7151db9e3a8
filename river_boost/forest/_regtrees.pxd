# The compiled regression trees (_regtrees.pyx): River's HoeffdingTreeRegressor over its leaves
# (LeafMean, LeafModel, LeafAdaptive: statistics, splitters from _ebst, the leaf model from
# _linear), walking x to a leaf, learning and growth (split attempts, splits, the memory-size
# policy), sizes, and the state export for pickling.

from river_boost.forest._flat cimport Flat, Rd, Tables
from river_boost.forest._forest_structs cimport XV
from river_boost.forest._reg_structs cimport RNode, RTree
from river_boost.forest._registry cimport Registry


cdef int rtree_init(RTree* t, tuple params) except -1
cdef void rtree_free(RTree* t) noexcept
cdef int rtree_learn(RTree* t, unsigned char* fstate, XV* xv, Registry reg, double y,
                     double w) except -1
cdef double rtree_predict(RTree* t, XV* xv) noexcept
cdef int rtree_check_x(RTree* t, XV* xv) except -1
cdef long long rtree_allocated(RTree* t) noexcept
cdef void rnode_counts(RNode* nd, long long* n_nodes, long long* n_leaves, long long* height,
                       long long depth) noexcept
cdef list rtree_export(RTree* t)
cdef RNode* rtree_import(list flat, int nf) except? NULL
cdef int rtree_write(RTree* t, Flat* f) except -1
cdef int rtree_read(Rd* r, RTree* t, const Tables* tb) except -1
