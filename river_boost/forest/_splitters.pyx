# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The split observers of the compiled forest's leaves (River's GaussianSplitter and
NominalSplitterClassif), bit for bit: see _forest.pyx for how exactness is kept."""

from libc.math cimport INFINITY, erf
from libc.stdlib cimport free
from libc.string cimport memset

import math as _math

from river_boost.forest._criteria cimport merit_of_split
from river_boost.forest._forest_structs cimport (
    SPLIT_NOMINAL_BINARY, SPLIT_NOMINAL_MULTIWAY, SPLIT_NUMERIC_BINARY, Dists, GCls, NCls, Spl,
    Sugg, Tree, Work, dists_close, dists_push, dists_reset, grow_cap, make_room, work_ds,
    xcalloc, xrealloc,
)
from river_boost.forest._pymath cimport PySum, ps_add, ps_init, ps_result, py_div, py_log, py_pow

# river.utils.math.norm_cdf divides by math.sqrt(2.0)
cdef double SQRT2 = _math.sqrt(2.0)
cdef double NEG_INF = -INFINITY


# ----------------------------------------------------------------------------- both kinds

cdef Spl* spl_new(int fid, int nominal) except NULL:
    """An empty splitter of feature fid (HTLeaf._new_splitter)."""
    cdef Spl* s = <Spl*>xcalloc(1, sizeof(Spl))
    s.fid = fid
    s.nominal = nominal
    s.set_n = -1
    return s


cdef void spl_free(Spl* s) noexcept:
    cdef int k
    if s == NULL:
        return
    if s.nominal:
        for k in range(s.n_cls):
            free(s.c[k].ord)
            free(s.c[k].w)
            free(s.c[k].has)
        free(s.c)
    else:
        free(s.g)
    free(s.vals)
    free(s.vpos)
    free(s.set_ord)
    free(s.ins)
    free(s.cix)
    free(s)


cdef int cix_set(Spl* s, int cid, int k) except -1:
    cdef int nc
    if cid >= s.cix_cap:
        nc = grow_cap(s.cix_cap, cid + 1)
        s.cix = <int*>xrealloc(s.cix, nc * sizeof(int))
        memset(s.cix + s.cix_cap, 0, (nc - s.cix_cap) * sizeof(int))
        s.cix_cap = nc
    s.cix[cid] = k + 1
    return 0



# ----------------------------------------------------------------------------- Gaussian splitter

cdef GCls* gauss_new_class(Spl* s, double x, int cid) except NULL:
    """gauss_update's first value of a class: its Gaussian, empty, at the end of s.g."""
    cdef GCls* g
    make_room(s.n_cls, &s.cap_cls, <void**>&s.g, sizeof(GCls), NULL, 0)
    cix_set(s, cid, s.n_cls)
    g = &s.g[s.n_cls]
    s.n_cls += 1
    memset(g, 0, sizeof(GCls))
    g.cid = cid
    g.mn = x
    g.mx = x
    return g


cdef double gauss_cdf(GCls* g, double x) except? -1.0:
    """Gaussian.cdf: norm_cdf((x - mu) / sigma), 0.0 on ZeroDivisionError."""
    cdef double num = x - g.mean
    cdef double var, sigma
    if not g.sig_ok:
        # a pure function of (n, S): cached until the class is updated
        var = g.S / (g.n - 1.0) if g.n > 1.0 else 0.0
        g.sig = py_pow(var, 0.5)
        g.sig_ok = 1
    sigma = g.sig
    if sigma == 0.0:
        return 0.0
    return 0.5 * (1.0 + erf((num / sigma) / SQRT2))


cdef int gauss_post(Spl* s, double sv, Dists* out, Dists* tmp) except -1:
    """GaussianSplitter._class_dists_from_binary_split -> [lhs, rhs] in out."""
    cdef int k
    cdef GCls* g
    cdef double l
    dists_reset(out)
    dists_reset(tmp)
    for k in range(s.n_cls):
        g = &s.g[k]
        if sv < g.mn:
            dists_push(tmp, g.cid, g.n)
        elif sv >= g.mx:
            dists_push(out, g.cid, g.n)
        else:
            l = gauss_cdf(g, sv) * g.n
            dists_push(out, g.cid, l)
            dists_push(tmp, g.cid, g.n - l)
    dists_close(out)
    for k in range(tmp.n):
        dists_push(out, tmp.c[k], tmp.w[k])
    dists_close(out)
    return 0



# ----------------------------------------------------------------------------- nominal splitter

cdef NCls* nom_class(Spl* s, int cid) except NULL:
    """_att_dist_per_class[cid] (a defaultdict: inserts an empty dict for a new class)."""
    cdef int k = gfind(s, cid)
    cdef NCls* c
    if k >= 0:
        return &s.c[k]
    make_room(s.n_cls, &s.cap_cls, <void**>&s.c, sizeof(NCls), NULL, 0)
    cix_set(s, cid, s.n_cls)
    c = &s.c[s.n_cls]
    s.n_cls += 1
    memset(c, 0, sizeof(NCls))
    c.cid = cid
    return c



cdef int nom_update(Spl* s, int vid, int cid, double w) except -1:
    # NominalSplitterClassif.update (att_val is never None here)
    cdef int p = nom_vpos(s, vid)
    cdef int nc, k
    cdef NCls* c
    if p < 0:
        if vid >= s.vpos_cap:
            nc = grow_cap(s.vpos_cap, vid + 1)
            s.vpos = <int*>xrealloc(s.vpos, nc * sizeof(int))
            for k in range(s.vpos_cap, nc):
                s.vpos[k] = -1
            s.vpos_cap = nc
        make_room(s.n_vals, &s.cap_vals, <void**>&s.vals, sizeof(int), NULL, 0)
        p = s.n_vals
        s.vals[p] = vid
        s.vpos[vid] = p
        s.n_vals += 1
    c = nom_class(s, cid)
    if p >= c.cap_w:
        nc = grow_cap(c.cap_w, p + 1)
        c.w = <double*>xrealloc(c.w, nc * sizeof(double))
        c.has = <char*>xrealloc(c.has, nc * sizeof(char))
        for k in range(c.cap_w, nc):
            c.w[k] = 0.0
            c.has[k] = 0
        c.cap_w = nc
    if c.has[p]:
        c.w[p] += w
    else:
        make_room(c.n_ord, &c.cap_ord, <void**>&c.ord, sizeof(int), NULL, 0)
        c.ord[c.n_ord] = p
        c.n_ord += 1
        c.has[p] = 1
        c.w[p] = w
    c.sum_ok = 0
    s.tot_w += w
    return 0


cdef double nom_cond_proba(Spl* s, int vid, int cid) except? -1.0:
    # NominalSplitterClassif.cond_proba (the defaultdict lookup inserts the class)
    cdef NCls* c = nom_class(s, cid)
    cdef int p = nom_vpos(s, vid)
    cdef PySum acc
    cdef int k
    if p < 0 or p >= c.cap_w or not c.has[p]:
        return 0.0
    if not c.sum_ok:
        ps_init(&acc)
        for k in range(c.n_ord):
            ps_add(&acc, c.w[c.ord[k]])
        c.sum = ps_result(&acc)
        c.sum_ok = 1
    if c.sum == 0.0:
        return 0.0
    return c.w[p] / c.sum


cdef int nom_post_binary(Spl* s, int p, Dists* out, Dists* tmp) except -1:
    """NominalSplitterClassif._class_dist_from_binary_split(value at position p)."""
    cdef int k, q, any_ne
    cdef NCls* c
    cdef double ne
    dists_reset(out)
    dists_reset(tmp)
    for k in range(s.n_cls):
        c = &s.c[k]
        if p < c.cap_w and c.has[p]:
            dists_push(out, c.cid, 0.0 + c.w[p])
        ne = 0.0
        any_ne = 0
        for q in range(c.n_ord):
            if c.ord[q] != p:
                ne += c.w[c.ord[q]]
                any_ne = 1
        if any_ne:
            dists_push(tmp, c.cid, ne)
    dists_close(out)
    for k in range(tmp.n):
        dists_push(out, tmp.c[k], tmp.w[k])
    dists_close(out)
    return 0


cdef int nom_post_multiway(Spl* s, int* sorted_pos, int* crank, Dists* out) except -1:
    """NominalSplitterClassif._class_dist_from_multiway_split: one dist per value (values in
    sorted order), each dist's classes in sorted order (dict(sorted(items)))."""
    cdef int i, i2, k, p, a, b, tc
    cdef NCls* c
    cdef double tw
    dists_reset(out)
    for i in range(s.n_vals):
        p = sorted_pos[i]
        a = out.n
        for k in range(s.n_cls):
            c = &s.c[k]
            if p < c.cap_w and c.has[p]:
                dists_push(out, c.cid, 0.0 + c.w[p])
        # insertion sort of this dist by class rank (ranks are distinct)
        for i2 in range(a + 1, out.n):
            tc = out.c[i2]
            tw = out.w[i2]
            b = i2 - 1
            while b >= a and crank[out.c[b]] > crank[tc]:
                out.c[b + 1] = out.c[b]
                out.w[b + 1] = out.w[b]
                b -= 1
            out.c[b + 1] = tc
            out.w[b + 1] = tw
        dists_close(out)
    return 0



# ----------------------------------------------------------------------------- best split

cdef int best_suggestion(Spl* s, Tree* t, double pre_entropy, Work* wk, int cid_one,
                         int cid_zero, int* spos, int* crank, Sugg* out) except -1:
    """splitter.best_evaluated_split_suggestion(criterion, stats, feature, binary_split).

    A nominal splitter needs its values' set order (s.set_ord, computed by the registry,
    which holds the value objects) and, for a multiway split (not t.binary_split), ``spos``,
    the positions of its values in sorted order, and ``crank``, the tree's class ranks.
    """
    cdef double mn, mx, bin_size, sv, merit
    cdef int k, p
    out.merit = NEG_INF
    out.fid = -1
    if not s.nominal:
        # GaussianSplitter._split_point_suggestions
        if s.n_cls == 0:
            return 0
        mn = INFINITY
        mx = -INFINITY
        for k in range(s.n_cls):
            if s.g[k].mn < mn:
                mn = s.g[k].mn
            if s.g[k].mx > mx:
                mx = s.g[k].mx
        if not mn < INFINITY:
            return 0
        bin_size = mx - mn
        bin_size = py_div(bin_size, t.n_splits + 1.0)
        for k in range(t.n_splits):
            sv = mn + (bin_size * <double>(k + 1))
            if not (mn < sv and sv < mx):
                continue
            gauss_post(s, sv, &wk.post, &wk.tmp)
            merit = merit_of_split(t, pre_entropy, &wk.post, work_ds(wk, wk.post.nd),
                                   cid_one, cid_zero)
            if merit > out.merit:
                out.merit = merit
                out.fid = s.fid
                out.kind = SPLIT_NUMERIC_BINARY
                out.thr = sv
        return 0
    # NominalSplitterClassif
    if not t.binary_split:
        nom_post_multiway(s, spos, crank, &wk.post)
        merit = merit_of_split(t, pre_entropy, &wk.post, work_ds(wk, wk.post.nd),
                               cid_one, cid_zero)
        out.merit = merit
        out.fid = s.fid
        out.kind = SPLIT_NOMINAL_MULTIWAY
    for k in range(s.n_vals):
        p = s.set_ord[k]
        nom_post_binary(s, p, &wk.post, &wk.tmp)
        merit = merit_of_split(t, pre_entropy, &wk.post, work_ds(wk, wk.post.nd),
                               cid_one, cid_zero)
        if merit > out.merit:
            out.merit = merit
            out.fid = s.fid
            out.kind = SPLIT_NOMINAL_BINARY
            out.vpos = p
            out.vid = s.vals[p]
    return 0


# ----------------------------------------------------------------------------- memory accounting

cdef long long spl_bytes(Spl* s) noexcept:
    # Deterministic in the logical content (not the allocated capacities), so that a pickled
    # and restored forest measures exactly as the original.
    cdef long long b = sizeof(Spl) + sizeof(Spl*) + s.n_vals * 2 * sizeof(int)
    cdef int k
    if s.nominal:
        for k in range(s.n_cls):
            b += sizeof(NCls) + s.c[k].n_ord * (sizeof(int) + sizeof(double) + sizeof(char))
    else:
        # without the naive-Bayes memo (nb_x, nb_lp): a cache, not content, and a tree's size
        # limit binds where it did before the memo
        b += s.n_cls * (sizeof(GCls) - 2 * sizeof(double))
    return b



cdef long long spl_allocated(Spl* s) noexcept:
    cdef long long b = sizeof(Spl) + (s.cap_vals + s.vpos_cap + s.cix_cap + s.n_ins) * sizeof(int)
    cdef int k
    if s.set_ord != NULL:
        b += s.set_n * sizeof(int)
    if s.nominal:
        b += s.cap_cls * sizeof(NCls)
        for k in range(s.n_cls):
            b += s.c[k].cap_ord * sizeof(int) + s.c[k].cap_w * (sizeof(double) + sizeof(char))
    else:
        b += s.cap_cls * sizeof(GCls)
    return b

