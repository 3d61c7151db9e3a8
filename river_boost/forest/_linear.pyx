# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The regression leaves' linear model (see _linear.pxd): River's default
``LinearRegression()``, operation by operation.

River 0.26's ``LinearRegression.predict_one(x)`` is ``weights.dot(x) + intercept``, where the
(Rust) ``VectorDict.dot`` adds ``weights.get(k, 0.0) * x[k]`` over ``x``'s keys in ``x``'s order,
from ``0.0``; ``learn_one(x, y, w)`` computes ``g = clamp(2 * (y_pred - y) * w, -1e12, 1e12)``,
then ``intercept -= 0.01 * g`` and, key by key in ``x``'s order (new keys appended to the
weights at 0.0), ``weights[k] -= 0.01 * (x[k] * g)``. A feature missing from ``x`` adds nothing
(River adds ``0.0 * x[k]`` for a key the weights lack: the same sum for finite values)."""

from libc.stdlib cimport free
from libc.string cimport memcpy

from river_boost.forest._flat cimport Flat, Rd, get_d, get_i, get_n, put_d, put_i
from river_boost.forest._forest_structs cimport XV, make_room, xcalloc
from river_boost.forest._reg_structs cimport Lin, grow_imap


cdef void lin_free(Lin* m) noexcept:
    free(m.wf)
    free(m.w)
    free(m.wpos)
    m.wf = NULL
    m.w = NULL
    m.wpos = NULL
    m.n_w = 0
    m.cap_w = 0
    m.wpos_cap = 0


cdef int lin_copy(Lin* dst, Lin* src) except -1:
    """dst = copy.deepcopy(src) (dst holds nothing)."""
    dst[0] = src[0]
    dst.wf = NULL
    dst.w = NULL
    dst.wpos = NULL
    if src.cap_w > 0:
        dst.wf = <int*>xcalloc(src.cap_w, sizeof(int))
        dst.w = <double*>xcalloc(src.cap_w, sizeof(double))
        memcpy(dst.wf, src.wf, src.n_w * sizeof(int))
        memcpy(dst.w, src.w, src.n_w * sizeof(double))
    if src.wpos_cap > 0:
        dst.wpos = <int*>xcalloc(src.wpos_cap, sizeof(int))
        memcpy(dst.wpos, src.wpos, src.wpos_cap * sizeof(int))
    return 0


cdef inline double lin_dot(Lin* m, XV* xv) noexcept:
    cdef double s = 0.0
    cdef int k, j, fid, p
    for k in range(xv.nv):
        j = xv.vj[k]
        fid = xv.f[j]
        if fid < m.wpos_cap:
            p = m.wpos[fid]
            if p > 0:
                s += m.w[p - 1] * xv.d[j]
    return s


cdef double lin_predict(Lin* m, XV* xv) noexcept:
    """LinearRegression.predict_one (the squared loss's mean function is the identity)."""
    return lin_dot(m, xv) + m.intercept


cdef int lin_learn(Lin* m, XV* xv, double y, double w) except -1:
    """LinearRegression.learn_one(x, y, w) (GLM._fit with SGD)."""
    cdef double g = 2.0 * ((lin_dot(m, xv) + m.intercept) - y)
    cdef int k, j, fid, p
    g *= w
    # utils.math.clamp: max(min(g, 1e12), -1e12)
    if 1e12 < g:
        g = 1e12
    if -1e12 > g:
        g = -1e12
    m.intercept -= 0.01 * g
    for k in range(xv.nv):
        j = xv.vj[k]
        fid = xv.f[j]
        grow_imap(&m.wpos, &m.wpos_cap, fid)
        p = m.wpos[fid]
        if p == 0:
            make_room(m.n_w, &m.cap_w, <void**>&m.wf, sizeof(int), <void**>&m.w, sizeof(double))
            m.wf[m.n_w] = fid
            m.w[m.n_w] = 0.0
            m.n_w += 1
            p = m.n_w
            m.wpos[fid] = p
        m.w[p - 1] = m.w[p - 1] - 0.01 * (xv.d[j] * g)
    m.n_iter += 1
    return 0


cdef long long lin_bytes(Lin* m) noexcept:
    return m.cap_w * (sizeof(int) + sizeof(double)) + m.wpos_cap * sizeof(int)


cdef tuple lin_export(Lin* m):
    return (m.intercept, m.n_iter, [m.wf[k] for k in range(m.n_w)],
            [m.w[k] for k in range(m.n_w)])


cdef int lin_import(Lin* m, tuple st, int nf) except -1:
    cdef int k, n
    intercept, n_iter, wf, w = st
    n = len(wf)
    m.intercept = intercept
    m.n_iter = n_iter
    m.n_w = n
    m.cap_w = n
    m.wf = <int*>xcalloc(n, sizeof(int))
    m.w = <double*>xcalloc(n, sizeof(double))
    m.wpos_cap = nf if nf > 0 else 1
    m.wpos = <int*>xcalloc(m.wpos_cap, sizeof(int))
    for k in range(n):
        m.wf[k] = wf[k]
        m.w[k] = w[k]
        m.wpos[m.wf[k]] = k + 1
    return 0


cdef int lin_write(Lin* m, Flat* f) except -1:
    """The model's state (layout: _regtrees.rtree_write): d intercept, iterations; i n_w, then
    (i feature, d weight) in insertion order."""
    cdef int k
    put_d(f, m.intercept)
    put_d(f, <double>m.n_iter)
    put_i(f, m.n_w)
    for k in range(m.n_w):
        put_i(f, m.wf[k])
        put_d(f, m.w[k])
    return 0


cdef int lin_read(Rd* r, Lin* m, int nf) except -1:
    """lin_write's state into an empty model (every feature id checked, none repeated)."""
    cdef int k, n
    m.intercept = get_d(r)
    m.n_iter = <long long>get_d(r)
    n = get_n(r, 1, 1)
    m.cap_w = n
    m.wf = <int*>xcalloc(n, sizeof(int))
    m.w = <double*>xcalloc(n, sizeof(double))
    m.wpos_cap = nf if nf > 0 else 1
    m.wpos = <int*>xcalloc(m.wpos_cap, sizeof(int))
    for k in range(n):
        m.wf[k] = get_i(r, 0, nf)
        if m.wpos[m.wf[k]]:
            raise ValueError("a weight repeated in a leaf model")
        m.w[k] = get_d(r)
        m.wpos[m.wf[k]] = k + 1
        m.n_w += 1
    return 0
