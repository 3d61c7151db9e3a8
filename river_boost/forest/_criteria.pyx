# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The split criteria of the compiled forest (each tree's t.crit: info gain, Gini or
Hellinger), bit for bit: see _forest.pyx for how exactness is kept."""

from libc.math cimport INFINITY

from river_boost.forest._forest_structs cimport (
    CRIT_GINI, CRIT_HELLINGER, CRIT_INFO_GAIN, Dists, Leaf, Tree,
)
from river_boost.forest._pymath cimport py_div, py_log2, py_pow, py_sqrt, py_sum
from river_boost.forest._reg_structs cimport VarS, var_get

cdef double NEG_INF = -INFINITY


cdef double entropy_w(const double* w, int n) except? -1.0:
    # InfoGainSplitCriterion._compute_entropy_dict
    cdef double e = 0.0
    cdef double s = 0.0
    cdef double d
    cdef int k
    for k in range(n):
        d = w[k]
        if d > 0.0:
            e -= d * py_log2(d)
            s += d
    if s > 0.0:
        return (e + s * py_log2(s)) / s
    return 0.0


cdef int n_subsets_gt_frac(Dists* post, double frac, double* ds, int guarded) except -1:
    # num_subsets_greater_than_frac; Hellinger's has no `total_weight > 0` guard
    cdef double total = 0.0
    cdef int i, n = 0
    for i in range(post.nd):
        ds[i] = py_sum(post.w + post.off[i], post.off[i + 1] - post.off[i])
        total += ds[i]
    if guarded and not total > 0.0:
        return 0
    for i in range(post.nd):
        if py_div(ds[i], total) > frac:
            n += 1
    return n


cdef double merit_of_split(Tree* t, double pre_entropy, Dists* post, double* ds,
                           int cid_one, int cid_zero) except? -1.0:
    cdef int i, k, nd = post.nd
    cdef double total, acc, g, rel, s
    cdef double pos[2]  # Hellinger: each branch's weight of class one (dist[i][1])
    cdef double neg[2]  # and of class zero (dist[i][0])
    cdef double tn, tp, h
    cdef int found
    if n_subsets_gt_frac(post, t.min_branch_fraction, ds, t.crit != CRIT_HELLINGER) < 2:
        return NEG_INF
    if t.crit == CRIT_HELLINGER:
        # dist[0][1], dist[0][0], dist[1][1], dist[1][0]; a KeyError gives 0
        if cid_one < 0 or cid_zero < 0:
            return 0.0
        found = 0
        for i in range(2):
            for k in range(post.off[i], post.off[i + 1]):
                if post.c[k] == cid_one:
                    pos[i] = post.w[k]
                    found |= 1 << (2 * i)
                elif post.c[k] == cid_zero:
                    neg[i] = post.w[k]
                    found |= 2 << (2 * i)
        if found != 15:
            return 0.0
        tn = neg[0] + neg[1]
        tp = pos[0] + pos[1]
        h = py_pow(py_sqrt(py_div(neg[0], tn)) - py_sqrt(py_div(pos[0], tp)), 2.0)
        h = h + py_pow(py_sqrt(py_div(neg[1], tn)) - py_sqrt(py_div(pos[1], tp)), 2.0)
        return py_sqrt(h)
    total = 0.0
    for i in range(nd):
        total += ds[i]
    if t.crit == CRIT_INFO_GAIN:
        acc = 0.0
        for i in range(nd):
            acc += ds[i] * entropy_w(post.w + post.off[i], post.off[i + 1] - post.off[i])
        return pre_entropy - py_div(acc, total)
    g = 0.0  # CRIT_GINI
    for i in range(nd):
        s = ds[i]
        acc = 1.0
        if s != 0.0:
            for k in range(post.off[i], post.off[i + 1]):
                rel = post.w[k] / s
                acc -= rel * rel
        g += py_div(ds[i], total) * acc
    return 1.0 - g


cdef double range_of_merit(Tree* t, Leaf* lf) except? -1.0:
    cdef int n
    if t.crit == CRIT_GINI:
        return 1.0
    n = lf.n_st
    if n <= 2:
        n = 2
    return py_log2(<double>n)



# ----------------------------------------------------------------------------- regression

cdef double vr_merit_of_split(VarS* pre, VarS* post, int n_post,
                              double min_samples_split) noexcept:
    """VarianceReductionSplitCriterion.merit_of_split (pre.n > 0: the leaf has learned)."""
    cdef double vr = 0.0
    cdef double n = pre.n
    cdef int i, count = 0
    for i in range(n_post):
        if post[i].n >= min_samples_split:
            count += 1
    if count == n_post:
        vr = var_get(pre)
        for i in range(n_post):
            vr -= post[i].n / n * var_get(&post[i])
    return vr
