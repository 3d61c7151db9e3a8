# The split observers of a leaf, one per feature (River's splitters): GaussianSplitter for a
# numeric feature, NominalSplitterClassif for a nominal one, in the Spl struct of
# _forest_structs.pxd. Each learns (update), answers naive Bayes (log_pdf, cond_proba), gives
# the class distributions on either side of a candidate split (posteriors) and its best split
# (best_suggestion, scored by _criteria). Read _splitters.pyx for River's counterparts.

from libc.math cimport INFINITY

from river_boost.forest._forest_structs cimport Dists, GCls, Spl, Sugg, Tree, Work
from river_boost.forest._pymath cimport py_log, py_pow


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


cdef inline double gauss_log_pdf(GCls* g, double x) except? -1.0:
    """Gaussian.log_pdf, with the per-class terms cached until the class is updated (inline
    here: naive-Bayes leaves call it per class and feature, from _leaves).

    The last answer is kept too: a leaf learns only its example's class, so the other
    classes' Gaussians are asked again at the next example unchanged, and on sparse or
    discrete features mostly at the same x (a9a's 0/1 features: two values). The same
    operations on the same values, so the memo returns the very bits it would recompute
    (x == nb_x also for 0.0 and -0.0: (x - mean) ** 2.0 is then the same)."""
    cdef double variance, lp
    if g.nb_state == 3:
        if x == g.nb_x:
            return g.nb_lp
    elif g.nb_state == 0:
        if g.n > 1.0:
            variance = g.S / (g.n - 1.0)
            if variance > 0.0:
                g.nb_neg2var = -2.0 * variance
                g.nb_halflog = 0.5 * py_log(variance)
                g.nb_state = 1
            else:
                g.nb_state = 2
        else:
            g.nb_state = 2
    if g.nb_state == 2:
        return -INFINITY
    # 0.9189385332046727: river.proba.gaussian._HALF_LOG_TAU, 0.5 * math.log(math.tau)
    lp = py_pow(x - g.mean, 2.0) / g.nb_neg2var - 0.9189385332046727 - g.nb_halflog
    g.nb_x = x
    g.nb_lp = lp
    g.nb_state = 3
    return lp


cdef Spl* spl_new(int fid, int nominal) except NULL
cdef void spl_free(Spl* s) noexcept
cdef int cix_set(Spl* s, int cid, int k) except -1

cdef GCls* gauss_new_class(Spl* s, double x, int cid) except NULL


cdef inline int gauss_update(Spl* s, double x, int cid, double w) except -1:
    """GaussianSplitter.update, then Gaussian.update -> Var.update -> Mean.update (inline
    here: a leaf learns each feature of x with it, from _leaves)."""
    cdef int k = gfind(s, cid)
    cdef GCls* g
    cdef double mean_old, mean_new
    if k >= 0:
        g = &s.g[k]
        if x < g.mn:
            g.mn = x
        if x > g.mx:
            g.mx = x
    else:
        g = gauss_new_class(s, x, cid)
    g.nb_state = 0
    g.sig_ok = 0
    mean_old = g.mean
    g.n += w
    if g.n == 0.0:
        raise ZeroDivisionError("float division by zero")
    g.mean += (w / g.n) * (x - g.mean)
    mean_new = g.mean
    g.S += w * (x - mean_old) * (x - mean_new)
    return 0

cdef int gauss_post(Spl* s, double sv, Dists* out, Dists* tmp) except -1

cdef int nom_update(Spl* s, int vid, int cid, double w) except -1
cdef double nom_cond_proba(Spl* s, int vid, int cid) except? -1.0
cdef int nom_post_binary(Spl* s, int p, Dists* out, Dists* tmp) except -1
cdef int nom_post_multiway(Spl* s, int* sorted_pos, int* crank, Dists* out) except -1

cdef int best_suggestion(Spl* s, Tree* t, double pre_entropy, Work* wk, int cid_one,
                         int cid_zero, int* spos, int* crank, Sugg* out) except -1

cdef long long spl_bytes(Spl* s) noexcept
cdef long long spl_allocated(Spl* s) noexcept
