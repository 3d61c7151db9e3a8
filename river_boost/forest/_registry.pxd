# The forest's registries: features, their nominal values and the class labels, each given a
# small integer id (the C structures hold ids, never Python objects), and per tree the order
# of its classes. Python objects live here only; the trees ask for what needs them (sorting
# labels or values, iterating a set of values as CPython does).

from river_boost.forest._forest_structs cimport Spl, Tree


cdef class Registry:
    # features: name -> fid, and per feature its values (value -> vid, vid -> value)
    cdef dict fmap
    cdef list fnames
    cdef list fvals
    cdef list fvalobjs
    cdef char* f_nomany     # fid -> some tree treats the feature as a nominal attribute
    cdef char* f_truthy     # fid -> bool(name) (River disables only truthy attributes)
    cdef int nf
    cdef int fcap
    # classes: label -> cid, cid -> label; the ids of the labels 1 and 0 (Hellinger), or -1
    cdef dict cmap
    cdef list labels
    cdef int nc
    cdef int cid_one
    cdef int cid_zero
    # per tree: its cids in sorted(label) order (or None: to compute), and cid -> rank
    cdef list sorted_cls
    cdef int** crank
    cdef int tcap

    cdef int add_feature(self, object name) except -1
    cdef int add_class(self, object y) except -1
    cdef int value_id(self, int fid, object v) except -1
    cdef list tree_sorted(self, int i, Tree* t)
    cdef int* tree_crank(self, int i, Tree* t) except NULL
    cdef int forget_sorted(self, int i) except -1
    cdef int add_tree(self) except -1
    cdef int remove_tree(self, int i) except -1
    cdef int set_order(self, Spl* s) except -1
    cdef int sorted_values(self, Spl* s, int* out) except -1
    cdef long long allocated(self) noexcept
