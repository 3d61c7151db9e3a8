# The split observers of a leaf, one per feature (River's splitters): GaussianSplitter for a
# numeric feature, NominalSplitterClassif for a nominal one, in the Spl struct of
# _forest_structs.pxd. Each learns (update), answers naive Bayes (log_pdf, cond_proba), gives
# the class distributions on either side of a candidate split (posteriors) and its best split
# (best_suggestion, scored by _criteria). Read _splitters.pyx for River's counterparts.

from river_boost._forest_structs cimport Dists, GCls, Spl, Sugg, Tree, Work


cdef inline int gfind(Spl* s, int cid) noexcept:
    """The class's index in the splitter (its g or c entry), or -1."""
    if cid >= s.cix_cap:
        return -1
    return s.cix[cid] - 1


cdef inline int nom_vpos(Spl* s, int vid) noexcept:
    """The value's position in a nominal splitter, or -1."""
    if vid < 0 or vid >= s.vpos_cap:
        return -1
    return s.vpos[vid]


cdef Spl* spl_new(int fid, int nominal) except NULL
cdef void spl_free(Spl* s) noexcept
cdef int cix_set(Spl* s, int cid, int k) except -1

cdef int gauss_update(Spl* s, double x, int cid, double w) except -1
cdef double gauss_log_pdf(GCls* g, double x) except? -1.0
cdef int gauss_post(Spl* s, double sv, Dists* out, Dists* tmp) except -1

cdef int nom_update(Spl* s, int vid, int cid, double w) except -1
cdef double nom_cond_proba(Spl* s, int vid, int cid) except? -1.0
cdef int nom_post_binary(Spl* s, int p, Dists* out, Dists* tmp) except -1
cdef int nom_post_multiway(Spl* s, int* sorted_pos, int* crank, Dists* out) except -1

cdef int best_suggestion(Spl* s, Tree* t, double pre_entropy, Work* wk, int cid_one,
                         int cid_zero, int* spos, int* crank, Sugg* out) except -1

cdef long long spl_bytes(Spl* s) noexcept
cdef long long spl_allocated(Spl* s) noexcept
