# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The multiclass cost matrices of the walk's rules (one class per rule): AdaBoost.OLM's
logistic costs (9), computed along the learners, and OnlineMBBM's exact potentials' costs
(Jung, Goetz & Tewari 2017, (4) and (5)), assembled from the potentials and kept in bounded
direct-mapped tables, since the same matrices come back example after example."""

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.math cimport floor, rint, fabs
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_C_CONTIGUOUS, PyBUF_FORMAT
import numpy as _np
import math as _math
from collections import OrderedDict

from river_boost.engine import _dp, laws as _laws

from river_boost.engine._dp cimport dense_potential, DENSE_MAX_N
from river_boost.engine._vec cimport vsum, vtanh, sigmoid, fnv_basis, _fnv, _fnv_slot, _reserve
from river_boost.engine._vec cimport _table_slots, vsum_axis0, split_labels

# the bytes a table of OnlineMBBM cost matrices may hold (MBBMCosts)
cdef Py_ssize_t MBBM_CACHE_BYTES = 16 * 2**20


def _set_mbbm_cache_bytes(Py_ssize_t n):
    """A test hook: the budget of each cost-matrix table (tables made from now on); returns
    the previous one."""
    global MBBM_CACHE_BYTES
    old, MBBM_CACHE_BYTES = MBBM_CACHE_BYTES, n
    return old


cdef Py_ssize_t mbbm_cache_bytes() noexcept:
    return MBBM_CACHE_BYTES


cdef int normalised_costs(const double* C, int k, double* D) except -1:
        """Potential.multiclass_vote_costs's D: (C[r] - C[r, r]) / sum_l (C[r, l] - C[r, r])
        where that sum is positive, else 0."""
        cdef int r, l
        cdef double w
        for r in range(k):
            for l in range(k):
                D[r * k + l] = C[r * k + l] - C[r * k + r]
        for r in range(k):
            w = vsum(D + r * k, k)
            for l in range(k):
                if w > 0:
                    D[r * k + l] = D[r * k + l] / w
                else:
                    D[r * k + l] = 0.0
        return 0


cdef class LogisticCosts:
    """LogisticLoss.cost_matrix_of along the learners (AdaBoost.OLM's cost matrices)."""

    def __dealloc__(self):
        free(self.T)

    def __reduce__(self):  # a cache
        return (LogisticCosts, ())

    cdef int _scratch(self, int k) except -1:
        _reserve(<void**>&self.T, &self.cap, 3 * k * k + 1, sizeof(double), 1)
        self.g = self.T + k * k
        self.at = <int*>(self.g + k * k)
        return 0

    cdef int along(self, const double* s, int k, double* C, int changed) except -1:
        """LogisticLoss.cost_matrix_of(s) into C: C[r, l] = sigmoid(s[l] - s[r]), the diagonal
        minus the row's other entries; for the learners in turn, ``changed`` being the label
        whose score changed since the previous learner's matrix (-1: compute every pair).

        tanh is odd, so one tanh serves a
        pair of labels: s[r] - s[l] is exactly -(s[l] - s[r]) and halving is exact, so
        C[r, l] = 0.5 * (1 + t) and C[l, r] = 0.5 * (1 - t) for t = tanh(0.5 * (s[l] - s[r])),
        The pairs' tanh are kept in the
        scratch matrix T (T[r, l] for r < l) and only the k - 1 pairs of the changed label are
        computed again: the other pairs' inputs are the very same floats as for the previous
        learner, so their tanh are too. k - 1 tanh per learner instead of k^2."""
        cdef double* T
        cdef double* g
        cdef int* at
        cdef int r, l, j, lo, hi, m = 0
        cdef double t
        self._scratch(k)
        T, g, at = self.T, self.g, self.at
        if k < 2:
            for r in range(k):
                for l in range(k):
                    C[r * k + l] = s[l] - s[r]
            sigmoid(C, C, k * k)
        else:
            if changed < 0:  # every pair r < l
                for r in range(k):
                    for l in range(r + 1, k):
                        g[m] = 0.5 * (s[l] - s[r])
                        at[m] = r * k + l
                        m += 1
            else:  # the changed label's k - 1 pairs
                for r in range(k):
                    if r != changed:
                        lo, hi = (r, changed) if r < changed else (changed, r)
                        g[m] = 0.5 * (s[hi] - s[lo])
                        at[m] = lo * k + hi
                        m += 1
            vtanh(g, g, m)
            for j in range(m):
                T[at[j]] = g[j]
            for r in range(k):
                for l in range(r + 1, k):
                    t = T[r * k + l]
                    C[r * k + l] = 0.5 * (1.0 + t)
                    C[l * k + r] = 0.5 * (1.0 - t)
        for r in range(k):
            C[r * k + r] = 0.0
        for r in range(k):
            C[r * k + r] = -vsum(C + r * k, k)
        return 0

    def logistic_cost_matrix(self, s):
        """The cost matrix _logistic_costs_along computes for the scores s (a list of k
        floats) from scratch, as a list of rows: a test hook (tests/engine/test_compiled_walk.py)."""
        cdef int k = len(s), r, l
        cdef double* sd = <double*>malloc((k + k * k) * sizeof(double))
        if sd == NULL:
            raise MemoryError()
        try:
            for r in range(k):
                sd[r] = s[r]
            self.along(sd, k, sd + k, -1)
            return [[sd[k + r * k + l] for l in range(k)] for r in range(k)]
        finally:
            free(sd)

    def logistic_costs_along(self, scores):
        """The cost matrices _logistic_costs_along computes for a sequence of score vectors
        (lists of k floats, each differing from the one before in at most one label, as the
        walk's scores do from one learner to the next), as lists of rows: a test hook."""
        cdef int k = len(scores[0]), r, l, changed
        cdef double* sd = <double*>malloc((k + k * k) * sizeof(double))
        if sd == NULL:
            raise MemoryError()
        out = []
        try:
            changed = -1
            for t, s in enumerate(scores):
                if len(s) != k:
                    raise ValueError("logistic_costs_along: vectors of one length expected")
                if t > 0:
                    diff = [j for j in range(k) if s[j] != scores[t - 1][j]
                            or _math.copysign(1.0, s[j]) != _math.copysign(1.0, scores[t - 1][j])]
                    if len(diff) > 1:
                        raise ValueError("logistic_costs_along: one label changes at a time")
                    changed = diff[0] if diff else 0
                for r in range(k):
                    sd[r] = s[r]
                self.along(sd, k, sd + k, changed)
                out.append([[sd[k + r * k + l] for l in range(k)] for r in range(k)])
            return out
        finally:
            free(sd)


cdef object _put(object cache, Py_ssize_t size, object key, object value):
    """``cache[key] = value`` in a cache of at most ``size`` entries, the oldest dropped."""
    if len(cache) >= size:
        cache.popitem(last=False)  # the oldest entry (insertion order)
    cache[key] = value
    return value


cdef class MBBMCosts:
    """OnlineMBBM's cost matrices for one rule (a MulticlassZeroOnePotential) and ``n``
    learners, with their tables: the potentials (by votes left and sorted gaps, at most the
    rule's ``cache_size``), the laws of one gap above the dense DP, the weights' bounds, and the
    rule for the labels known (the caches of the rule's potentials: pure functions of their
    keys, recomputed exactly after unpickling)."""

    def __cinit__(self, object rule, int n):
        self.rule = rule
        self.n = n
        self.values = OrderedDict()
        self.size = max(1, rule.cache_size)
        self.gap_peaks = {}
        self.gap_tails = OrderedDict()
        self.bounds = {}

    def __dealloc__(self):
        free(self.mc_keys)
        free(self.mc_vals)
        free(self.maxw)

    def __reduce__(self):  # a cache
        return (MBBMCosts, (self.rule, self.n))

    cdef object pot_for(self, int k):
        """OnlineMBBM's potential for k labels: the rule itself, or its copy for k labels
        (kept while the labels are k)."""
        if k == self.rule.n_classes:
            return self.rule
        if self.resized is None or self.resized.n_classes != k:
            self.resized = self.rule.for_classes(k)
        return self.resized

    cpdef double value(self, object pot, int n_left, tuple gaps) except? -1.0:
        """The potential ``phi_n`` of ``pot`` for ``n_left`` votes left and the sorted
        ``gaps``, cached: the dense DP up to DENSE_MAX_N votes left (``_dp.potential``), the
        banded one above (:func:`river_boost.engine.laws.banded_potential`).

        **Exact computation, no Monte Carlo.** Condition on the number ``m`` of votes ``r``
        receives (``Binomial(n, p_r)``); the other ``n - m`` votes are uniform over the ``k -
        1`` wrong labels and ``r`` wins iff every wrong label ``l`` gets at most ``cap_l = m +
        s[r] - s[l] - 1`` of them. Up to ``n = TENSOR_MAX_N`` (40) that capped multinomial
        probability is the original dynamic program over "votes left", label by label, for every
        ``m`` at once: ``O(n^3)`` per binding label. Above, the wrong labels' votes are seen as
        independent Poisson counts conditioned on their sum (exact), so one truncated Poisson
        kernel serves every ``m`` and a binding label costs ``O(rows x band x width)``, about
        ``O(n^2)`` (``laws.banded_potential``); terms below ``1e-30`` are left out, far below
        the float64 rounding of ``1 - P(win)``. A potential that is decided to within ``2^-60``
        (one wrong label's gap law, a union bound) is exactly 1 or 0 without a DP. Everything is
        a sum of non-negative terms, with exact binomial coefficients up to ``TENSOR_MAX_N`` and
        Loader's accurate binomial and Poisson pmfs above (``exp(lgamma ...)`` loses ~1e-13 at
        ``n = 1000``). Both DPs are compiled (``river_boost.engine._dp``, the one code every
        walk calls; NumPy oracles in the tests). At ``n = 999`` one potential takes about
        0.05-0.3 s (7 or 30 classes) instead of tens of seconds.
        """
        key = (pot.gamma, n_left, gaps)
        value = self.values.get(key)
        if value is None:
            if n_left <= DENSE_MAX_N:
                value = _dp.potential(n_left, pot.n_classes, pot.p_right, gaps)
            else:
                value = _laws.banded_potential(n_left, pot.n_classes, pot.p_right, gaps,
                                               self.gap_tail(pot, n_left))
            _put(self.values, self.size, key, value)
        return value

    cpdef double bound(self, object pot, int n_left) except? -1.0:
        """``pot.max_weight(n_left)``: ``(k - 1) min(1, k M_n)`` with ``M_n`` the largest
        probability of one gap (:meth:`max_gap_pmf`), cached."""
        key = (pot.gamma, pot.n_classes, n_left)
        value = self.bounds.get(key)
        if value is None:
            k = pot.n_classes
            value = self.bounds[key] = (k - 1) * min(1.0, k * self.max_gap_pmf(pot, n_left))
        return value

    def max_gap_pmf(self, pot, int n):
        """``max_c P(X_r - X_l = c)`` after ``n`` votes, for a wrong label ``l``: up to
        DENSE_MAX_N the trinomial sum (``O(n^2)``, ``_dp.max_gap_pmf``); above, the law of
        the gap built by ``n`` convolutions, its maximum recorded for every ``n' <= n`` at once
        (:meth:`gap_pass`: the booster asks ``N - 1`` first)."""
        if n == 0:
            return 1.0
        if n > DENSE_MAX_N:
            key = (pot.gamma, pot.n_classes, n)
            if key not in self.gap_peaks:
                self.gap_pass(pot, n)
            return self.gap_peaks[key]
        return _dp.max_gap_pmf(pot.n_classes, pot.gamma, pot.p_right, n)

    def gap_tail(self, pot, int n):
        """``(P(D >= d), P(D <= d))`` for ``d = -n..n`` at index ``d + n`` (the first with one
        extra 0 at the end), ``D`` the gap ``X_r - X_l`` to one wrong label after ``n`` votes."""
        key = (pot.gamma, pot.n_classes, n)
        if key not in self.gap_tails:
            self.gap_pass(pot, n)
        return self.gap_tails[key]

    def gap_pass(self, pot, int n):
        """The laws of ``D`` for every ``n' <= n`` come out of one pass of ``n`` convolutions
        with ``(q, 1 - p - q, p)``: keep their tails (:meth:`gap_tail`, at most 100,000) and
        peaks (:meth:`max_gap_pmf`) for every ``n' > DENSE_MAX_N``."""
        gamma, k = pot.gamma, pot.n_classes
        for j, law in _laws.gap_laws(n, k, gamma, pot.p_right):
            if j > DENSE_MAX_N or j == n:
                self.gap_peaks[(gamma, k, j)] = float(law.max())
                _put(self.gap_tails, 100_000, (gamma, k, j), _laws.tails(law))

    cdef double* costs(self, object pot, int n_left, const double* s, int k,
                             double* C) except NULL:
        """C = pot.cost_matrix(n_left, s), and its normalised form D (_normalised_costs)
        returned where the table holds it (read it before the next call: a later key may
        take the slot over), both kept in a bounded cache: the potential's own cache is
        Python (a tuple key and a method call per learner and example) and D would be
        computed again each time. The matrices
        are a pure function of the potential, n_left and s: a hit is the same floats, and a
        miss assembles them again (an entry overwritten costs only time).

        The cache is a direct-mapped table in C (at most MBBM_CACHE_BYTES): slot
        hash(n_left, s) holds that key and its C and D, and a new key takes the slot over.
        A dict of bytes keys cost about 700 instructions per lookup (a bytes object, its
        hash and the dict's probe), a fifth of OnlineMBBM's walk on ImageSegments."""
        cdef Py_ssize_t kk = <Py_ssize_t>k * k, slot, j
        cdef long long* key
        cdef double* val
        cdef unsigned long long h
        if pot is not self.pot or k != self.mc_k:  # another potential: start over
            self.reset(k)
            self.pot = pot
        h = _fnv(fnv_basis(), n_left)
        for j in range(k):
            h = _fnv(h, <long long>s[j])
        slot = _fnv_slot(h, self.mc_slots)
        key = self.mc_keys + slot * (k + 2)
        val = self.mc_vals + slot * 2 * kk
        if key[0] == self.mc_epoch:  # a filled slot: the same key?
            j = 0
            if key[1] == n_left:
                for j in range(k):
                    if key[j + 2] != <long long>s[j]:
                        break
                else:
                    memcpy(C, val, kk * sizeof(double))
                    return val + kk
        self.matrix(pot, n_left, s, k, C)
        normalised_costs(C, k, val + kk)
        key[0] = self.mc_epoch
        key[1] = n_left
        for j in range(k):
            key[j + 2] = <long long>s[j]
        memcpy(val, C, kk * sizeof(double))
        return val + kk

    cdef int reset(self, int k) except -1:
        """An empty matrix table for k labels: the largest power of two of slots (at most
        65,536) whose keys and matrices fit in MBBM_CACHE_BYTES. The buffers of the last
        table are kept when they are large enough, and emptied by a new epoch (labels join
        one by one at the start of a stream); new buffers are calloc'd, so the pages of
        slots never used are never touched."""
        cdef Py_ssize_t slots = _table_slots(
            (k + 2) * sizeof(long long) + 2 * k * k * sizeof(double), MBBM_CACHE_BYTES, 65536)
        self.mc_k = 0
        _reserve(<void**>&self.mc_keys, &self.mc_keys_cap, slots * (k + 2), sizeof(long long), 1)
        _reserve(<void**>&self.mc_vals, &self.mc_vals_cap, slots * 2 * k * k, sizeof(double), 0)
        if self.mc_epoch < (1LL << 32):
            self.mc_epoch = 1LL << 32
        self.mc_epoch += 1
        self.mc_slots = slots
        self.mc_k = k
        self.pot = None
        return 0

    cdef int matrix(self, object pot, int n_left, const double* s, int k,
                               double* C) except -1:
        """MulticlassZeroOnePotential.cost_matrix(n_left, s), assembled here from the same
        potentials (its _cost_matrix: labels with equal scores share their entries, G^2 + G
        potentials for G distinct scores), each read from this object's cache under its key
        (votes left, sorted gaps); on a miss computed by river_boost.engine._dp's dense DP (up
        to DENSE_MAX_N votes left) or by :meth:`value` (the banded DP), and cached. The
        Python assembly
        (numpy.unique, tuples, a method call per potential) was most of a cold matrix's time
        for small boosters."""
        cdef long long* sv = <long long*>malloc((5 * k + 1) * sizeof(long long))
        cdef long long* u  # distinct scores, ascending
        cdef long long* cnt  # how many labels have each
        cdef long long* inv  # each label's score class
        cdef long long* kbuf  # the potential's key: votes left, then the sorted gaps
        cdef double* off = NULL  # off[a * G + b]: phi(s + e_l) for r of class a, l of class b
        cdef double* diag = NULL  # diag[a]: phi(s + e_r) for r of class a
        cdef int r, l, j, G = 0, a, b, c, t, pos
        cdef long long right, g
        cdef double v
        cdef object cache = self.values, gamma = pot.gamma
        if sv == NULL:
            raise MemoryError()
        u, cnt, inv, kbuf = sv + k, sv + 2 * k, sv + 3 * k, sv + 4 * k
        try:
            off = <double*>malloc((k * k + k) * sizeof(double))
            if off == NULL:
                raise MemoryError()
            diag = off + k * k
            for r in range(k):
                sv[r] = <long long>s[r]
            for r in range(k):  # insertion into the sorted distinct scores
                pos = 0
                while pos < G and u[pos] < sv[r]:
                    pos += 1
                if pos < G and u[pos] == sv[r]:
                    cnt[pos] += 1
                    continue
                for j in range(G, pos, -1):
                    u[j] = u[j - 1]
                    cnt[j] = cnt[j - 1]
                u[pos] = sv[r]
                cnt[pos] = 1
                G += 1
            for r in range(k):
                for a in range(G):
                    if u[a] == sv[r]:
                        inv[r] = a
                        break
            for a in range(G):
                right = u[a]
                for b in range(G + 1):  # b == G: the diagonal
                    if b < G and cnt[b] - (b == a) < 1:
                        off[a * G + b] = 0.0  # no such l != r (the diagonal covers it)
                        continue
                    # the k - 1 gaps right - u[c], ascending (u descending), then the vote
                    kbuf[0] = n_left
                    t = 1
                    for c in range(G - 1, -1, -1):
                        for j in range(cnt[c] - (c == a)):
                            kbuf[t] = right - u[c]
                            t += 1
                    if b == G:  # r's own extra vote: every gap + 1 (still sorted)
                        for j in range(1, k):
                            kbuf[j] += 1
                    else:  # one label of class b got it: its first gap - 1 (still sorted)
                        g = right - u[b]
                        for j in range(1, k):
                            if kbuf[j] == g:
                                kbuf[j] -= 1
                                break
                    gaps = tuple([kbuf[j] for j in range(1, k)])
                    key = (gamma, n_left, gaps)
                    value = cache.get(key)
                    if value is None and n_left <= DENSE_MAX_N:
                        # value's dense DP (river_boost.engine._dp), cached as it would be
                        value = _put(cache, self.size, key,
                                     dense_potential(n_left, k, pot.p_right, kbuf + 1))
                    elif value is None:  # the banded DP, computed and cached by value
                        value = self.value(pot, n_left, gaps)
                    v = <double>value
                    if b == G:
                        diag[a] = v
                    else:
                        off[a * G + b] = v
            for r in range(k):
                for l in range(k):
                    C[r * k + l] = off[inv[r] * G + inv[l]]
                C[r * k + r] = diag[inv[r]]
        finally:
            free(sv)
            free(off)
        return 0

    cdef double max_weight(self, object pot, int n_left) except? -1.0:
        """pot.max_weight(n_left) (:meth:`bound`), read once per potential and n_left, then
        from the table's array: a pure function of both, read for every learner and
        example."""
        cdef int i
        cdef double bound
        if pot is not self.maxw_pot or self.maxw == NULL:
            if self.maxw == NULL:
                self.maxw = <double*>malloc(self.n * sizeof(double))
                if self.maxw == NULL:
                    raise MemoryError()
            for i in range(self.n):
                self.maxw[i] = -1.0
            self.maxw_pot = pot
        if 0 <= n_left < self.n and self.maxw[n_left] >= 0.0:
            return self.maxw[n_left]
        bound = self.bound(pot, n_left)
        if 0 <= n_left < self.n and bound >= 0.0:
            self.maxw[n_left] = bound
        return bound

    def cost_matrix(self, pot, int n_left, s, bint table=False):
        """The cost matrix :meth:`matrix` assembles for pot, n_left and the votes s (a list of
        k ints), as a list of rows (MulticlassZeroOnePotential.cost_matrix calls it); with
        ``table``, the matrix and its normalised form (flat lists) as the walk reads them,
        through the matrix table (:meth:`costs`: for the tests)."""
        cdef int k = len(s), r, l
        cdef double* sd = <double*>malloc(k * sizeof(double))
        cdef double* C = <double*>malloc(2 * k * k * sizeof(double))
        cdef double* D
        if sd == NULL or C == NULL:
            free(sd)
            free(C)
            raise MemoryError()
        try:
            for r in range(k):
                sd[r] = s[r]
            if table:
                D = self.costs(pot, n_left, sd, k, C)
                return [C[r] for r in range(k * k)], [D[r] for r in range(k * k)]
            self.matrix(pot, n_left, sd, k, C)
            return [[C[r * k + l] for l in range(k)] for r in range(k)]
        finally:
            free(sd)
            free(C)


# ----------------------------------------------------------------------------- ranking

cdef inline long long _law_index(double x, long long n, long long top) noexcept:
    """Where a difference law's arrays are read for the bound ``x`` of its suffix sums:
    ``floor(x) + 1 + n``, clipped to ``[0, top]`` (pair_terms' ``i0``; NaN: 0), clipped
    before the conversion to an integer."""
    cdef double i0 = floor(x) + 1 + n
    if not i0 >= 0:
        return 0
    return top if i0 > top else <long long>i0


cdef inline double _hinge_term(double one, long long n, long long top, const double* SP,
                               const double* SD) noexcept:
    """The hinge pair term of RankingPairPotential.pair_terms for ``one = 1.0 + g``."""
    cdef long long i0 = _law_index(-one, n, top)
    return one * SP[i0] + SD[i0]


cdef void _hinge_terms3(const double* g, int q, int n, const double* SP, const double* SD,
                        double* F, double* Fm, double* Fp) noexcept:
    """The hinge pair terms of the gaps g, g - 1 and g + 1 (cost_vector's three calls of
    pair_terms: the same floats, 1.0 + (g + shift) as NumPy computes it), in one pass over
    the gaps."""
    cdef int j
    cdef long long top = 2 * <long long>n + 1
    cdef double gj
    for j in range(q):
        gj = g[j]
        F[j] = _hinge_term(1.0 + (gj + 0.0), n, top, SP, SD)
        Fm[j] = _hinge_term(1.0 + (gj + -1.0), n, top, SP, SD)
        Fp[j] = _hinge_term(1.0 + (gj + 1.0), n, top, SP, SD)


cdef object label_pairs(object relevant, int k):
    """``relevant`` as ``k`` int8 flags, checked to hold a (relevant, irrelevant) pair: the
    ranking losses' sums run over those pairs."""
    rel = _np.ascontiguousarray(relevant, dtype=bool).astype(_np.int8)
    if rel.shape[0] != k:
        raise ValueError("scores and relevant differ in length")
    if not 0 < int(rel.sum()) < k:
        raise ValueError("a ranking loss needs a relevant and an irrelevant label")
    return rel


cdef int rank_gradient(const double* s, const char* rel, int k, double* out,
                       double* work) except -1:
    """:func:`~river_boost.potentials.logistic_rank_gradient` (8) at the scores ``s``
    (``work``: k^2 + 3k doubles)."""
    cdef int a, b, nr, ni
    cdef double* d = work
    cdef double* colsum = work + k * k
    cdef int* ri = <int*>(work + k * k + k)  # k ints fit in k doubles
    cdef int* ii = ri + k
    cdef double w
    nr = split_labels(rel, k, ri, ii)
    ni = k - nr
    for a in range(nr):
        for b in range(ni):
            d[a * ni + b] = s[ii[b]] - s[ri[a]]
    sigmoid(d, d, nr * ni)
    w = 1.0 / (nr * ni)
    for a in range(nr):
        out[ri[a]] = -w * vsum(d + a * ni, ni)
    vsum_axis0(d, nr, ni, colsum)
    for b in range(ni):
        out[ii[b]] = w * colsum[b]
    return 0


def logistic_rank_gradient(scores, relevant):
    """The gradient (8) of the logistic rank surrogate at ``scores``
    (:func:`river_boost.potentials.logistic_rank_gradient`)."""
    cdef double[::1] s = _np.ascontiguousarray(scores, dtype=_np.float64)
    cdef int k = s.shape[0]
    cdef signed char[::1] r = label_pairs(relevant, k)
    out = _np.empty(k)
    work = _np.empty(k * k + 3 * k)
    cdef double[::1] o = out, wv = work
    rank_gradient(&s[0], <const char*>&r[0], k, &o[0], &wv[0])
    return out


cdef class PairLaw:
    """A difference law ``(P, SP, SD)`` of :class:`RankingPairPotential` (``difference_law``),
    read through its arrays' buffers, held for as long as this object lives: the ranking walk
    asks for one per learner and example, and unpacking three typed memoryviews each time
    cost more than the cost vector's arithmetic."""

    def __cinit__(self, tuple law, int n):
        cdef int j
        cdef Py_ssize_t sizes[3]
        self.held = 0
        if len(law) != 3:
            raise ValueError("a difference law is (P, SP, SD)")
        self.law = law
        sizes[0], sizes[1], sizes[2] = 2 * n + 1, 2 * n + 2, 2 * n + 2
        for j in range(3):
            PyObject_GetBuffer(law[j], &self.bufs[j], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
            self.held += 1
            if (self.bufs[j].format != b"d"
                    or self.bufs[j].len != sizes[j] * <Py_ssize_t>sizeof(double)):
                raise ValueError("a difference law of unexpected shape or type")
        self.P = <const double*>self.bufs[0].buf
        self.SP = <const double*>self.bufs[1].buf
        self.SD = <const double*>self.bufs[2].buf

    def __dealloc__(self):
        cdef int j
        for j in range(self.held):
            PyBuffer_Release(&self.bufs[j])


cdef class PairCosts:
    """OnlineBMR's cost vectors for one rule (a RankingPairPotential) and ``n`` learners,
    from the rule's difference laws (kept in a bounded table)."""

    def __cinit__(self, object rule, int n):
        if rule.loss not in ("hinge", "rank"):
            raise ValueError(f"unknown loss {rule.loss!r}")
        self.rule = rule
        self.n = n
        self.hinge = rule.loss == "hinge"
        self.known = OrderedDict()
        self.size = max(1, rule.cache_size)

    def __dealloc__(self):
        free(self.kb)

    def __reduce__(self):  # a cache
        return (PairCosts, (self.rule, self.n))

    def pair_terms(self, gaps, int n, int nr, int k):
        """RankingPairPotential.pair_terms: ``E f(g + D)`` for every gap ``g`` (any shape),
        ``D`` the difference law of ``(n, nr, k)`` (``n`` below this table's learners)."""
        cdef double[::1] g
        cdef double[::1] o
        cdef Py_ssize_t j, q
        cdef long long top = 2 * <long long>n + 1
        cdef PairLaw law = self.law(n, nr, k)
        arr = _np.asarray(gaps, dtype=_np.float64)
        flat = _np.ascontiguousarray(arr.ravel())
        out = _np.empty_like(flat)
        g, o, q = flat, out, flat.shape[0]
        if q == 0:
            return out.reshape(arr.shape)
        if self.hinge:
            for j in range(q):
                o[j] = _hinge_term(1.0 + g[j], n, top, law.SP, law.SD)
        else:
            self.rank_terms(&g[0], <int>q, n, law.P, law.SP, 0.0, &o[0])
        return out.reshape(arr.shape)

    def cost_vector_of(self, s, relevant, int n_left):
        """RankingPairPotential.cost_vector(s, relevant, n_left), as the walk computes it."""
        cdef double[::1] sv = _np.ascontiguousarray(s, dtype=_np.float64)
        cdef int k = sv.shape[0]
        cdef signed char[::1] r = label_pairs(relevant, k)
        out = _np.empty(k)
        cdef double[::1] o = out
        self.cost_vector(&sv[0], <const char*>&r[0], k, n_left, &o[0])
        return out

    cdef int _scratch(self, int k) except -1:
        """Room for the gaps and their three terms (4 k^2 doubles) and 6 k more."""
        return _reserve(<void**>&self.kb, &self.cap, 5 * k * k + 6 * k + 2, sizeof(double), 1)

    cdef int rank_terms(self, const double* g, int q, int n, const double* P,
                         const double* SP, double shift, double* out) except -1:
        """RankingPairPotential.pair_terms(g + shift) of the rank loss for q gaps (shift: the
        -1.0 / +1.0 of cost_vector, applied first as NumPy does; the hinge loss's terms are
        _hinge_terms3's)."""
        cdef int j
        cdef long long i0, top = 2 * <long long>n + 1
        cdef double gj
        for j in range(q):
            gj = g[j] + shift
            i0 = _law_index(-gj, n, top)
            out[j] = SP[i0]
            if gj == rint(gj) and fabs(gj) <= n:
                out[j] = out[j] + 0.5 * P[<long long>(-gj) + n]
        return 0

    cdef PairLaw law(self, int n_left, int nr, int k):
        """The rule's difference law for (n_left, nr, k), from this table, else from the laws
        known (at most the rule's ``cache_size``, the oldest dropped first), else computed by
        the rule."""
        cdef Py_ssize_t idx
        cdef PairLaw law
        if (self.laws is None or self.laws_rule is not self.rule
                or self.laws_k != k or self.laws_bytes >= mbbm_cache_bytes()):
            self.laws = [None] * (self.n * (k + 1))
            self.laws_rule = self.rule
            self.laws_k = k
            self.laws_bytes = 0
        idx = <Py_ssize_t>n_left * (k + 1) + nr
        if not 0 <= idx < len(self.laws):
            raise IndexError("votes left beyond the learners")
        found = self.laws[idx]
        if found is not None:
            return <PairLaw>found
        key = (n_left, nr, k)
        arrays = self.known.get(key)
        if arrays is None:
            arrays = tuple(self.rule.difference_law(n_left, nr, k))
            _put(self.known, self.size, key, arrays)
        law = PairLaw(arrays, n_left)
        self.laws[idx] = law
        self.laws_bytes += (6 * n_left + 5) * sizeof(double) + 200
        return law

    cdef int cost_vector(self, const double* s, const char* rel, int k, int n_left,
                               double* out) except -1:
        """RankingPairPotential.cost_vector(s, relevant, n_left): c[j] = phi(s + e_j), from
        the potential's cached difference law (computed by it on a miss)."""
        cdef int a, b, j, nr, ni, q
        cdef int* ri
        cdef int* ii
        cdef double* rows_f
        cdef double* rows_m
        cdef double* cols_f
        cdef double* cols_p
        cdef double* G
        cdef double* F
        cdef double* Fm
        cdef double* Fp
        cdef double total, w
        cdef PairLaw law
        self._scratch(k)
        ri = <int*>(self.kb + k * k)
        ii = ri + k
        rows_f = self.kb + k * k + k
        rows_m = rows_f + k
        cols_f = rows_f + 2 * k
        cols_p = rows_f + 3 * k
        nr = split_labels(rel, k, ri, ii)
        ni = k - nr
        q = nr * ni
        G = self.kb
        F = G + q
        Fm = G + 2 * q
        Fp = G + 3 * q
        law = self.law(n_left, nr, k)
        for a in range(nr):
            for b in range(ni):
                G[a * ni + b] = s[ii[b]] - s[ri[a]]
        if self.hinge:
            _hinge_terms3(G, q, n_left, law.SP, law.SD, F, Fm, Fp)
        else:
            self.rank_terms(G, q, n_left, law.P, law.SP, 0.0, F)
            self.rank_terms(G, q, n_left, law.P, law.SP, -1.0, Fm)
            self.rank_terms(G, q, n_left, law.P, law.SP, 1.0, Fp)
        total = vsum(F, q)
        w = 1.0 / q
        for a in range(nr):
            rows_f[a] = vsum(F + a * ni, ni)
            rows_m[a] = vsum(Fm + a * ni, ni)
        vsum_axis0(F, nr, ni, cols_f)
        vsum_axis0(Fp, nr, ni, cols_p)
        for a in range(nr):
            out[ri[a]] = w * (total - rows_f[a] + rows_m[a])
        for b in range(ni):
            out[ii[b]] = w * (total - cols_f[b] + cols_p[b])
        return 0
