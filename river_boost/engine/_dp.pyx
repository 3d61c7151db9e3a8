# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The dynamic programs of the exact potentials, once, in plain C order.

Both walks take their potentials from here: :class:`~river_boost.potentials.
MulticlassZeroOnePotential` (OnlineMBBM) calls :func:`dense_potential` up to
``TENSOR_MAX_N`` votes left, :func:`capped_rows` above (the rows of its banded DP) and
:func:`max_gap_pmf` for its weight bound; :class:`~river_boost.potentials.RankingPairPotential`
(OnlineBMR) calls :func:`difference_law`. The compiled walk (``river_boost.engine._engine``) calls
:func:`dense_potential` through ``_dp.pxd`` and the potentials' methods otherwise, so the
floats are the same on every walk because they come from the same code.

The loops are the papers' sums written plainly (ascending indices, libm's ``pow``); the
readable NumPy versions they are tested against live in ``tests/oracles/dp_oracle.py``.
"""

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_C_CONTIGUOUS, PyBUF_FORMAT
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy
from libc.math cimport pow

import numpy as _np

#: ``n`` up to which :class:`~river_boost.potentials.MulticlassZeroOnePotential` runs the
#: dense DP (:func:`dense_potential`); the banded DP (:func:`capped_rows`) above
TENSOR_MAX_N = DENSE_MAX_N


# ----------------------------------------------------------------------------- binomial laws

cdef double* _pascal(int n) except NULL:
    """Binomial coefficients ``C(a, x)`` at ``[a * (n + 1) + x]`` for ``x <= a <= n`` (zeros
    elsewhere): exact integers up to ``n = 56``, the DPs' ``n`` here is at most 40."""
    cdef Py_ssize_t w = n + 1, a, x
    cdef double* c = <double*>calloc(w * w, sizeof(double))
    if c == NULL:
        raise MemoryError()
    for a in range(w):
        c[a * w] = 1.0
        for x in range(1, a + 1):
            c[a * w + x] = c[(a - 1) * w + x - 1] + c[(a - 1) * w + x]
    return c


cdef inline double _binomial(const double* comb, Py_ssize_t w, int a, int x, double q) noexcept:
    """``P(Binomial(a, q) = x)`` = ``C(a, x) q^x (1 - q)^(a - x)`` (``0^0 = 1``)."""
    return comb[a * w + x] * pow(q, x) * pow(1.0 - q, a - x)


# ----------------------------------------------------------------------------- dense DP

cdef void _cap_step(Py_ssize_t n, long long g, const double* T, const double* cur,
                    double* nxt) noexcept:
    """One binding label: ``nxt[m, b] = sum_a cur[m, a] T[a, b]`` over the ``a`` with the
    label's ``a - b`` votes within its cap ``m + g - 1`` (``a`` ascending)."""
    cdef Py_ssize_t w = n + 1, m, a, b, hi, top
    cdef long long cap
    cdef double acc
    for m in range(w):
        cap = m + g - 1
        top = n - m  # the wrong votes: cur[m, a] == 0 for a > top
        for b in range(w):
            acc = 0.0
            if b <= top and cap >= 0:
                hi = b + cap if b + cap < top else top
                for a in range(b, hi + 1):
                    acc += cur[m * w + a] * T[a * w + b]
            nxt[m * w + b] = acc


cdef double dense_potential(int n, int k, double p_right, const long long* gaps) except? -1.0:
    """The potential with ``n`` votes left for the ``k - 1`` sorted ``gaps`` (tightest
    first) and the right label's probability ``p_right``, by the dense DP.

    ``V[m, a]``: the probability, given ``m`` votes for the right label, that ``a`` of the
    other ``n - m`` votes are still to place once every binding wrong label took its share
    within its cap ``m + g - 1``; one wrong label at a time, ``T[a, b] = P(Binomial(a,
    1 / labels) = a - b)`` with ``labels`` the wrong labels not placed yet. A label that
    binds for no ``m`` (``g - 1 >= n``) ends the DP: the looser ones bind for none either.
    ``1 - sum_m P(m) sum_a V[m, a]``, clipped to ``[0, 1]``."""
    cdef Py_ssize_t w = n + 1, m, a, b
    cdef int j, remaining = k - 1
    cdef double q, win, row
    cdef double* comb
    cdef double* block
    cdef double* cur
    cdef double* nxt
    cdef double* T
    cdef double* tmp
    if n < 0 or k < 2:
        raise ValueError("dense_potential: n >= 0 and k >= 2 expected")
    if n == 0:
        return 1.0 if gaps[0] <= 0 else 0.0
    comb = _pascal(n)
    block = <double*>calloc(3 * w * w, sizeof(double))
    if block == NULL:
        free(comb)
        raise MemoryError()
    cur, nxt, T = block, block + w * w, block + 2 * w * w
    try:
        for m in range(w):
            cur[m * w + n - m] = 1.0
        for j in range(k - 1):
            if gaps[j] - 1 >= n:
                break
            q = 1.0 / remaining
            for a in range(w):
                for b in range(a + 1):
                    T[a * w + b] = _binomial(comb, w, <int>a, <int>(a - b), q)
            _cap_step(n, gaps[j], T, cur, nxt)
            tmp = cur
            cur = nxt
            nxt = tmp
            remaining -= 1
        win = 0.0
        for m in range(w):
            row = 0.0
            for a in range(w):
                row += cur[m * w + a]
            win += _binomial(comb, w, n, <int>m, p_right) * row
        return min(1.0, max(0.0, 1.0 - win))
    finally:
        free(comb)
        free(block)


def potential(int n, int k, double p_right, gaps):
    """:func:`dense_potential` for a sequence of ``k - 1`` sorted integer gaps."""
    cdef int j
    cdef long long* g
    if len(gaps) != k - 1:
        raise ValueError(f"potential: {k - 1} gaps expected, got {len(gaps)}")
    g = <long long*>malloc(k * sizeof(long long))
    if g == NULL:
        raise MemoryError()
    try:
        for j in range(k - 1):
            g[j] = gaps[j]
        return dense_potential(n, k, p_right, g)
    finally:
        free(g)


def max_gap_pmf(int k, double gamma, double p_right, int n):
    """``max_c P(X_r - X_l = c)`` after ``n`` votes, for one wrong label ``l``: the trinomial
    sum (``t`` votes land on ``{r, l}``, ``j`` of them on ``r``: the gap ``2 j - t``)."""
    cdef Py_ssize_t w = n + 1, t, j
    cdef double p_other, both, rho, p_t, peak
    cdef double* comb
    cdef double* pmf
    if n < 0:
        raise ValueError("max_gap_pmf: n >= 0 expected")
    if n == 0:
        return 1.0
    comb = _pascal(n)
    pmf = <double*>calloc(2 * w - 1, sizeof(double))
    if pmf == NULL:
        free(comb)
        raise MemoryError()
    try:
        p_other = (1.0 - gamma) / k
        both = p_right + p_other
        rho = p_right / both
        for t in range(w):
            if both < 1:
                p_t = _binomial(comb, w, n, <int>t, both)
            else:
                p_t = 1.0 if t == n else 0.0
            if p_t == 0.0:
                continue
            for j in range(t + 1):
                pmf[2 * j - t + n] = pmf[2 * j - t + n] + p_t * _binomial(comb, w, <int>t,
                                                                          <int>j, rho)
        peak = pmf[0]
        for j in range(1, 2 * w - 1):
            if pmf[j] > peak:
                peak = pmf[j]
        return peak
    finally:
        free(comb)
        free(pmf)


# ----------------------------------------------------------------------------- banded DP

cdef void _convolve(const double* a, Py_ssize_t na, const double* v, Py_ssize_t nv,
                    double* out) noexcept:
    """The full convolution ``out[i] = sum_j a[i - j] v[j]`` (``na + nv - 1`` values, ``j``
    ascending)."""
    cdef Py_ssize_t i, j, lo, hi
    cdef double acc
    for i in range(na + nv - 1):
        lo = i - na + 1 if i - na + 1 > 0 else 0
        hi = i if i < nv - 1 else nv - 1
        acc = 0.0
        for j in range(lo, hi + 1):
            acc += a[i - j] * v[j]
        out[i] = acc


cdef int _grow(double** buf, Py_ssize_t n) except -1:
    """Resize a malloc'd scratch buffer to ``n`` doubles (kept as it was on failure)."""
    cdef double* p = <double*>realloc(buf[0], (n if n > 0 else 1) * sizeof(double))
    if p == NULL:
        raise MemoryError()
    buf[0] = p
    return 0


cdef const void* _buffer_1d(object arr, Py_buffer* view, bytes formats) except NULL:
    """A contiguous 1-d buffer of 8-byte items of one of ``formats`` (released by the caller)."""
    PyObject_GetBuffer(arr, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    if view.ndim != 1 or view.itemsize != 8 or view.format == NULL or view.format not in formats:
        PyBuffer_Release(view)
        raise ValueError("capped_rows: contiguous 1-d float64 / int64 arrays expected")
    return view.buf


cdef Py_ssize_t _above(const double* a, Py_ssize_t n, double t, Py_ssize_t* last) noexcept:
    """The first and (in ``last``) the last index of ``a[:n]`` holding more than ``t``; -1 if
    none."""
    cdef Py_ssize_t j, first = -1
    for j in range(n):
        if a[j] > t:
            if first < 0:
                first = j
            last[0] = j
    return first


def capped_rows(int K, object caps_off, object mr, object Tr, object p_r, object pmf_range,
                object pmf_at, double drop):
    """``P(m) Q(m)`` for the binding rows of the banded DP of
    :func:`~river_boost.engine.laws.banded_potential`.

    ``mr``: the rows' right votes ``m`` (ascending), ``Tr``: their wrong votes ``n - m``,
    ``p_r``: their ``P(m)``; ``caps_off``: the ``K`` sorted gaps minus 1 (a label's cap is
    ``m + caps_off``). The wrong votes are ``K`` Poisson(``lam``) counts conditioned on their
    sum, ``lam = mean(Tr) / K``: ``pmf_range(lam, top)`` gives ``P(Poisson(lam) = x)`` for
    ``x = 0..top`` and ``pmf_at(lam, x)`` at the integers ``x`` (the potentials' cached
    laws). Each label in turn convolves every live row with the kernel cut at the row's cap;
    a row whose cap no longer cuts the kernel is closed with one Poisson((K - used) lam) law
    for the labels left, and divided by ``P(Poisson(K lam) = T)``. Kernel entries and
    columns at most ``drop`` are left out. Returns a list of floats, one per row."""
    cdef Py_buffer views[6]
    cdef int held = 0, used = 0, jc
    cdef const long long* caps_o
    cdef const long long* m_
    cdef const long long* T
    cdef const double* pr
    cdef const double* pi
    cdef const double* kern
    cdef const double* den
    cdef Py_ssize_t R, rows, width, L, x_lo, x_hi, r, c, live, a0, a1, nw, cut, y0 = 0
    cdef long long tsum = 0, tmax
    cdef double lam
    cdef double* U = NULL  # U[r, j]: P(the labels placed so far hold y0 + j votes, in caps)
    cdef double* new = NULL
    cdef double* scratch = NULL
    cdef list out = []
    try:
        caps_o = <const long long*>_buffer_1d(caps_off, &views[held], b"lq")
        held += 1
        m_ = <const long long*>_buffer_1d(mr, &views[held], b"lq")
        held += 1
        T = <const long long*>_buffer_1d(Tr, &views[held], b"lq")
        held += 1
        pr = <const double*>_buffer_1d(p_r, &views[held], b"d")
        held += 1
        R = views[1].shape[0]
        if views[0].shape[0] != K or views[2].shape[0] != R or views[3].shape[0] != R or R == 0:
            raise ValueError("capped_rows: rows and caps of matching lengths expected")
        tmax = T[0]
        for r in range(R):
            tsum += T[r]
            if T[r] > tmax:
                tmax = T[r]
        lam = (<double>tsum / <double>R) / K  # the sum of the counts is exact
        pi = <const double*>_buffer_1d(pmf_range(lam, tmax), &views[held], b"d")
        held += 1
        x_lo = _above(pi, views[4].shape[0], drop, &x_hi)
        if x_lo < 0:
            raise ValueError("capped_rows: an empty Poisson kernel")
        kern = pi + x_lo
        L = x_hi - x_lo + 1
        den = <const double*>_buffer_1d(pmf_at(K * lam, Tr), &views[held], b"d")
        held += 1
        _grow(&U, R)
        for r in range(R):
            U[r] = 1.0
        width = 1
        rows = R
        for jc in range(K):  # the labels, tightest cap first
            # rows whose cap cuts the kernel (caps ascending): the others are closed
            live = 0
            while live < rows and m_[live] + caps_o[jc] < x_hi:
                live += 1
            _close_rows(U + live * width, width, y0, used, K, live, rows, T, pr, den, lam,
                        pmf_range, &scratch, out)
            rows = live
            if rows == 0:
                return out
            nw = width + L - 1
            new = <double*>calloc(rows * nw, sizeof(double))
            if new == NULL:
                raise MemoryError()
            for r in range(rows):  # the kernel cut at the row's cap
                cut = m_[r] + caps_o[jc] - x_lo + 1
                if cut > L:
                    cut = L
                if cut > 0:
                    _convolve(U + r * width, width, kern, cut, new + r * nw)
            _grow(&scratch, nw)  # the largest entry of each column, then the columns kept
            memcpy(scratch, new, nw * sizeof(double))
            for r in range(1, rows):
                for c in range(nw):
                    if new[r * nw + c] > scratch[c]:
                        scratch[c] = new[r * nw + c]
            a0 = _above(scratch, nw, drop, &a1)
            if a0 < 0:
                out.extend([0.0] * rows)
                return out
            width = a1 - a0 + 1
            _grow(&U, rows * width)
            for r in range(rows):
                memcpy(U + r * width, new + r * nw + a0, width * sizeof(double))
            free(new)
            new = NULL
            y0 += x_lo + a0
            used += 1
        _close_rows(U, width, y0, used, K, 0, rows, T, pr, den, lam, pmf_range, &scratch, out)
        return out
    finally:
        for jc in range(held):
            PyBuffer_Release(&views[jc])
        free(U)
        free(new)
        free(scratch)


cdef int _close_rows(const double* U, Py_ssize_t width, Py_ssize_t y0, int used, int K,
                     Py_ssize_t lo, Py_ssize_t hi, const long long* T, const double* pr,
                     const double* den, double lam, object pmf_range, double** scratch,
                     list out) except -1:
    """Close the rows ``lo..hi-1`` (``U`` points at row ``lo``): ``P(m) min(1, num / den)``
    with ``num = sum_j U[r, j] rest(T - y0 - j)``, ``rest(f)`` the probability that the
    ``K - used`` labels left take the other ``f`` votes (1 if ``f == 0`` once all are
    placed)."""
    cdef Py_ssize_t r, j, nrest = 0
    cdef long long f, top = -1
    cdef double num, rest
    cdef const double* pmf = NULL
    cdef Py_buffer vr
    cdef bint has_view = False
    if hi <= lo:
        return 0
    if used != K:
        for r in range(lo, hi):  # the most votes left to the other labels: at j = 0
            if T[r] - y0 > top:
                top = T[r] - y0
        if top >= 0:
            pmf = <const double*>_buffer_1d(pmf_range((K - used) * lam, top), &vr, b"d")
            has_view = True
            nrest = vr.shape[0]
    try:
        for r in range(lo, hi):
            num = 0.0
            for j in range(width):
                f = T[r] - (y0 + j)
                if used == K:
                    rest = 1.0 if f == 0 else 0.0
                elif pmf != NULL and 0 <= f < nrest:
                    rest = pmf[f]
                else:
                    rest = 0.0
                num += U[(r - lo) * width + j] * rest
            out.append(pr[r] * min(num / den[r], 1.0))
    finally:
        if has_view:
            PyBuffer_Release(&vr)
    return 0


# ----------------------------------------------------------------------------- pair laws

def difference_law(int n, double p_l, double p_r):
    """``(P, SP, SD)`` of ``D = X_r - X_l`` after ``n`` votes, each ``-1`` with probability
    ``p_l``, ``+1`` with ``p_r``, else 0 (RankingPairPotential's law): ``P`` on ``d = -n..n``
    by ``n`` convolutions with ``(p_l, max(0, 1 - p_l - p_r), p_r)``, and the suffix sums of
    ``P`` and of ``d P`` from the end (one extra 0 at the end): NumPy arrays."""
    cdef Py_ssize_t width, m, j
    cdef double kern[3]
    cdef double* block
    cdef double* cur
    cdef double* nxt
    cdef double* t
    cdef double[::1] P, SP, SD
    if n < 0:
        raise ValueError("difference_law: n >= 0 expected")
    width = 2 * <Py_ssize_t>n + 1
    kern[0], kern[1], kern[2] = p_l, max(0.0, 1.0 - p_l - p_r), p_r
    P_arr = _np.empty(width)
    SP_arr = _np.empty(width + 1)
    SD_arr = _np.empty(width + 1)
    P, SP, SD = P_arr, SP_arr, SD_arr
    block = <double*>malloc(2 * width * sizeof(double))
    if block == NULL:
        raise MemoryError()
    cur, nxt = block, block + width
    try:
        cur[0] = 1.0
        m = 1
        for j in range(n):
            _convolve(cur, m, kern, 3, nxt)
            m += 2
            t = cur
            cur = nxt
            nxt = t
        for j in range(width):
            P[j] = cur[j]
    finally:
        free(block)
    SP[width] = 0.0
    SD[width] = 0.0
    for j in range(width - 1, -1, -1):
        SP[j] = SP[j + 1] + P[j]
        SD[j] = SD[j + 1] + <double>(j - n) * P[j]
    return P_arr, SP_arr, SD_arr
