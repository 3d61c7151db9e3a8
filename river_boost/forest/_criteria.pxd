# The split criteria of the compiled forest (River's InfoGain, Gini and Hellinger split
# criteria): the merit of a split given its post-split class distributions.

from river_boost.forest._forest_structs cimport Dists, Leaf, Tree


cdef double entropy_w(const double* w, int n) except? -1.0
cdef double merit_of_split(Tree* t, double pre_entropy, Dists* post, double* ds,
                           int cid_one, int cid_zero) except? -1.0
cdef double range_of_merit(Tree* t, Leaf* lf) except? -1.0

# The regression trees' criterion (River's VarianceReductionSplitCriterion)
from river_boost.forest._reg_structs cimport VarS
cdef double vr_merit_of_split(VarS* pre, VarS* post, int n_post,
                              double min_samples_split) noexcept
