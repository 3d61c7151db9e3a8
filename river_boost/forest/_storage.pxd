# The compiled forest's trees (_storage.pyx): the table of trees (C structs, _trees learns and
# walks each), the River models they compile, the registries of the features, values and labels
# their ids refer to, and the scratch buffers their learning and prediction borrow. The forest
# (_forest.ForestCore) owns one; its input (_input.Input) registers here the features it meets.

from river_boost.forest._flat cimport Flat, Rd, Tables
from river_boost.forest._forest_structs cimport XV, Tree, Work
from river_boost.forest._registry cimport Registry


cdef class TreeStorage:
    cdef Tree* trees
    cdef int n
    # trees that come and go: capacity of `trees`
    cdef int tcap
    # capacity of the trees' per-feature arrays (Tree.fstate)
    cdef int fcap
    cdef Work wk
    cdef Registry reg
    # the trees' River models: each tree's parameters and nominal_attributes. They are never
    # learned (the state is in C), so trees reset or copied share them instead of cloning
    # (River's clone costs a signature inspection, about 0.7 ms a tree)
    cdef list models
    # per tree: None, or the parameters it has besides its model's ({name: value}: a pool's
    # diversified trees share one model)
    cdef list overrides

    cdef int new_feature(self, object name) except -1
    cdef int class_id(self, object y) except -1
    cdef int check_index(self, int i) except -1
    cdef bint mark_nominal(self, int i) except -1
    cdef bint add(self, tuple params, object model, object overrides) except -1
    cdef bint reset(self, int i, tuple params, object model, object overrides,
                    bint refilter) except -1
    cdef int copy(self, int src, int dst) except -1
    cdef int remove(self, int i) except -1
    cdef int learn(self, int i, XV* xv, int cid, double w) except -1
    cdef int predict(self, int i, XV* xv, double** res, int** rc) except -1
    cdef dict proba_dict(self, int i, XV* xv)
    cdef int count_leaves(self, Tree* t) except -1
    cdef int retable(self, list params, list models) except -1
    cdef int retable_registry(self, int m) except -1
    cdef int write_tree(self, int i, Flat* f) except -1
    cdef int read_tree(self, int i, Rd* r, const Tables* tb) except -1
