# The compiled forest's leaves (River's LeafMajorityClass, LeafNaiveBayes and
# LeafNaiveBayesAdaptive, as HTLeaf): class statistics, splitters, prediction (majority class
# or naive Bayes) and the decision to split (HoeffdingTreeClassifier._attempt_to_split up to
# the split itself, which the tree (_trees) makes).

from river_boost.forest._forest_structs cimport XV, Leaf, Sugg, Tree, Work
from river_boost.forest._pymath cimport py_sum
from river_boost.forest._registry cimport Registry


cdef inline double leaf_total(Leaf* lf) noexcept:
    # total_weight: sum(self.stats.values()) if self.stats else 0
    return py_sum(lf.st_w, lf.n_st)


cdef Leaf* leaf_new(int depth, int* st_c, double* st_w, int n_st) except NULL
cdef void leaf_free(Leaf* lf) noexcept
cdef void leaf_drop_splitters(Leaf* lf) noexcept
cdef void leaf_deactivate(Tree* t, Leaf* lf) noexcept
cdef int leaf_learn(Tree* t, const unsigned char* fstate, Leaf* lf, XV* xv, Work* wk, int nf,
                    int cid, double w, bint cache_ok) except -1
cdef int leaf_predict(Tree* t, Leaf* lf, XV* xv, Work* wk) except -1
cdef int leaf_split_decision(Tree* t, int i, Leaf* lf, Work* wk, Registry reg, Sugg* dec,
                             list vids) except -1
cdef long long leaf_bytes(Leaf* lf) noexcept
