# The compiled forest's trees (_storage.pyx). Storage: what a forest of either kind keeps per
# tree (its feature view, its River model and overrides) and the registries of the features,
# values and labels their ids refer to; the kind's storage keeps the trees themselves
# (kind_*): TreeStorage the classifier's (C structs _trees learns and walks, and the scratch
# buffers their learning and prediction borrow), _regforest.RegStorage the regressor's. The
# forest (_core.ForestBase) owns one; its input (_input.Input) registers here the features it
# meets and reads the trees' views.

from river_boost.forest._flat cimport Flat, Rd, Tables
from river_boost.forest._forest_structs cimport XV, Node, Tree, View, Work
from river_boost.forest._registry cimport Registry


cdef class Storage:
    # per tree, its view of the features (the filter's decisions, the kinds it learned, its
    # nominal attributes)
    cdef View* views
    cdef int n
    # trees that come and go: capacity of `views` (and of the kind's table of trees)
    cdef int tcap
    # capacity of the views' per-feature arrays (View.fstate)
    cdef int fcap
    cdef Registry reg
    # the trees' River models: each tree's parameters and nominal_attributes. They are never
    # learned (the state is in C), so trees reset or copied share them instead of cloning
    # (River's clone costs a signature inspection, about 0.7 ms a tree)
    cdef list models
    # per tree: None, or the parameters it has besides its model's ({name: value}: a pool's
    # diversified trees share one model)
    cdef list overrides

    # the kind's trees
    cdef int kind_resize(self, int old_cap, int cap) except -1
    cdef int kind_init(self, int i, tuple params) except -1
    cdef void kind_free(self, int i) noexcept
    cdef int kind_reset(self, int i, tuple params) except -1
    cdef int kind_copy(self, int src, int dst) except -1
    cdef int kind_shift(self, int i) except -1
    cdef long long kind_allocated(self) except -1
    cdef Node* kind_root(self, int i) noexcept
    cdef dict kind_scalars(self, int i)
    cdef int write_tree(self, int i, Flat* f) except -1
    cdef int read_tree(self, int i, Rd* r, const Tables* tb) except -1
    cdef int write_caps(self, int i, Flat* f) except -1
    cdef int read_caps(self, int i, Rd* r, const Tables* tb) except -1

    cdef int new_feature(self, object name) except -1
    cdef int class_id(self, object y) except -1
    cdef int check_index(self, int i) except -1
    cdef bint mark_nominal(self, int i) except -1
    cdef bint add(self, tuple params, object model, object overrides) except -1
    cdef bint reset(self, int i, tuple params, object model, object overrides,
                    bint refilter) except -1
    cdef int copy(self, int src, int dst) except -1
    cdef int remove(self, int i) except -1
    cdef int retable(self, list params, list models) except -1


cdef class TreeStorage(Storage):
    cdef Tree* trees
    cdef Work wk

    cdef int learn(self, int i, XV* xv, int cid, double w) except -1
    cdef int predict(self, int i, XV* xv, double** res, int** rc) except -1
    cdef dict proba_dict(self, int i, XV* xv)
    cdef int count_leaves(self, Tree* t) except -1
