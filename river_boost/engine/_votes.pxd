# The engines' small helpers on the votes, written out once: which label a vector of
# scores or costs picks (ties to the task's label order), which labels have the support to
# count, the binary Hedge prediction's lean. `cdef inline`: each engine module compiles
# its own copy. Plain C loops, equal to the documented math within rounding (checked
# against the readable references under tests/), in no one else's order.

from libc.math cimport fabs, isnan, tanh

from river_boost.engine._constants cimport COST_TIE, MIN_SUPPORT


cdef inline double py_min(double a, double b) noexcept:
    return b if b < a else a


cdef inline double py_max(double a, double b) noexcept:
    return b if b > a else a


cdef inline int _first_max(const double* v, int k) noexcept:
    """int(np.argmax(v[:k])): the first maximum, a NaN first (the ranking errors' top label)."""
    cdef int j, top = 0
    for j in range(k):
        if isnan(v[j]):
            return j
        if v[j] > v[top]:
            top = j
    return top


cdef inline int _argbest(const double* v, int k, bint maximize, list rank) except -2:
    """The best value, ties to the best-ranked label (0 if k < 1).
    A function, not a method, so that the walks' calls (one per learner or expert and
    example) are inlined."""
    cdef int j, best_j = 0
    cdef double best, x
    if k < 1:
        return 0
    best = v[0]
    for j in range(1, k):
        x = v[j]
        if ((x > best if maximize else x < best)
                or (x == best and <long long>rank[j] < <long long>rank[best_j])):
            best = x
            best_j = j
    return best_j


cdef inline int _least_cost(const double* v, int k, double tol, list rank) except -2:
    """MulticlassTask.least_cost: the label of least expected cost, costs within ``tol`` of
    the least counting as ties (to the best-ranked label)."""
    cdef int j, best_j = 0
    cdef double least = v[0]
    for j in range(1, k):
        if v[j] < least:
            least = v[j]
    best_j = -1
    for j in range(k):
        if v[j] <= least + tol and (best_j < 0 or <long long>rank[j] < <long long>rank[best_j]):
            best_j = j
    return best_j if best_j >= 0 else _argbest(v, k, False, rank)


cdef inline double _tie_tol(const double* C, int kk) noexcept:
    """COST_TIE times the largest cost in magnitude: expected costs this close are ties."""
    cdef double top = 0.0
    cdef int j
    for j in range(kk):
        if fabs(C[j]) > top:
            top = fabs(C[j])
    return COST_TIE * top


cdef inline double _hedge_lean(const double* w, const double* s, int n) noexcept:
    """``sum_i w[i] tanh(s[i] / 2)``: BinaryTask's Hedge prediction, centred on 1/2. Hedge
    drives most weights below 2^-60 of the largest within a few thousand examples: their
    terms (at most their weight each) cannot move the sum beyond rounding, and their tanh, the
    costliest part of a prediction, are skipped."""
    cdef double lean = 0.0, top = 0.0, cut
    cdef int i
    for i in range(n):
        if w[i] > top:
            top = w[i]
    cut = top * 8.673617379884035e-19  # 2^-60
    for i in range(n):
        if w[i] >= cut and w[i] != 0.0:
            lean += w[i] * tanh(0.5 * s[i])
    return lean


cdef inline int _supported(list support, int k, char* ok) except -2:
    """tasks._supported(support): the labels with at least MIN_SUPPORT learned examples in
    ``ok`` and their number, or -1 (None: every label counts, because all have the support or
    fewer than two do)."""
    cdef int j, n_ok = 0
    for j in range(k):
        ok[j] = <long long>support[j] >= MIN_SUPPORT
        n_ok += ok[j]
    return -1 if n_ok == k or n_ok < 2 else n_ok
