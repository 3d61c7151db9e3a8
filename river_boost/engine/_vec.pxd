# The walk's vector arithmetic and table helpers, written out once (cimported by the walk and
# the cost matrices): plain C loops, equal to the math within rounding, in no one else's order.

from libc.math cimport tanh, exp, isnan
from libc.stdlib cimport malloc, calloc, free


cdef inline double vsum(const double* a, Py_ssize_t n) noexcept:
    cdef double total = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        total += a[i]
    return total


cdef inline double vmax(const double* a, Py_ssize_t n) noexcept:
    """The largest of ``a[:n]`` (NaN propagates)."""
    cdef double m = a[0]
    cdef Py_ssize_t i
    for i in range(1, n):
        if not (m >= a[i] or isnan(m)):
            m = a[i]
    return m


cdef inline void vtanh(const double* x, double* out, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = tanh(x[i])


cdef inline void vexp(const double* x, double* out, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = exp(x[i])


cdef inline double vmin(const double* a, Py_ssize_t n) noexcept:
    """The smallest of ``a[:n]`` (NaN propagates)."""
    cdef double m = a[0]
    cdef Py_ssize_t i
    for i in range(1, n):
        if not (m <= a[i] or isnan(m)):
            m = a[i]
    return m


cdef inline void vsum_axis0(const double* A, Py_ssize_t rows, Py_ssize_t cols, double* out) noexcept:
    """``out[c] = sum_r A[r, c]`` of a C-contiguous matrix."""
    cdef Py_ssize_t r, c
    for c in range(cols):
        out[c] = 0.0
    for r in range(rows):
        for c in range(cols):
            out[c] += A[r * cols + c]


cdef inline void vecmat(const double* v, const double* A, double* out, Py_ssize_t rows,
                 Py_ssize_t cols) noexcept:
    """``out = v @ A`` for a vector of ``rows`` and a C-contiguous rows x cols matrix."""
    cdef Py_ssize_t r, c
    for c in range(cols):
        out[c] = 0.0
    for r in range(rows):
        for c in range(cols):
            out[c] += v[r] * A[r * cols + c]


cdef inline double logistic_weight(double s) noexcept:
    """``1 / (1 + exp(s))`` without overflow (:func:`river_boost.potentials.logistic_weight`)."""
    cdef double e
    if s >= 0:
        e = exp(-s)
        return e / (1.0 + e)
    return 1.0 / (1.0 + exp(s))


cdef inline void sigmoid(const double* z, double* out, Py_ssize_t m) noexcept:
    """``1 / (1 + exp(-z))`` elementwise, as ``(1 + tanh(z / 2)) / 2`` (no overflow)."""
    cdef Py_ssize_t j
    for j in range(m):
        out[j] = 0.5 * (1.0 + tanh(0.5 * z[j]))


# The cost matrices' direct-mapped tables hash their keys' words with FNV-1a, then a final mix
cdef inline unsigned long long fnv_basis() noexcept:
    return 14695981039346656037ULL


cdef inline unsigned long long _fnv(unsigned long long h, long long word) noexcept:
    return (h ^ <unsigned long long>word) * 1099511628211ULL


cdef inline Py_ssize_t _fnv_slot(unsigned long long h, Py_ssize_t slots) noexcept:
    """The slot of hash ``h`` in a table of ``slots`` (a power of two)."""
    h ^= h >> 29
    return <Py_ssize_t>(h & <unsigned long long>(slots - 1))


cdef inline int _reserve(void** buf, Py_ssize_t* cap, Py_ssize_t need, size_t size,
                  bint zero) except -1:
    """Keep ``buf[0]`` if it holds ``need`` items of ``size`` bytes (``cap[0]``), else free it
    and allocate anew: calloc'd when ``zero`` (the pages of a new table's slots never used
    are never touched), malloc'd otherwise. On failure ``buf[0]`` is NULL (MemoryError)."""
    if buf[0] != NULL and cap[0] >= need:
        return 0
    free(buf[0])
    buf[0] = NULL
    cap[0] = 0
    buf[0] = calloc(need, size) if zero else malloc(need * size)
    if buf[0] == NULL:
        raise MemoryError()
    cap[0] = need
    return 0


cdef inline Py_ssize_t _table_slots(Py_ssize_t entry, Py_ssize_t budget, Py_ssize_t most) noexcept:
    """The largest power of two of slots (at least 1, at most ``most``) of ``entry`` bytes
    each whose table fits twice in ``budget`` bytes."""
    cdef Py_ssize_t slots = 1
    while slots < most and 2 * slots * entry <= budget:
        slots *= 2
    return slots


cdef inline int split_labels(const char* rel, int k, int* ri, int* ii) noexcept:
    """The relevant labels' indices into ``ri`` and the others' into ``ii``, both in label
    order (``np.flatnonzero`` of the mask and of its negation); returns how many are
    relevant."""
    cdef int j, nr = 0, ni = 0
    for j in range(k):
        if rel[j]:
            ri[nr] = j
            nr += 1
        else:
            ii[ni] = j
            ni += 1
    return nr
