# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled regression trees (see _regtrees.pxd): River's ``HoeffdingTreeRegressor``
(River 0.26.1), its arithmetic operation by operation in River's order."""

from libc.math cimport INFINITY, copysign, fabs, floor, fma
from libc.stdio cimport snprintf
from libc.stdlib cimport calloc, free, strtod
from libc.string cimport memset

from river_boost.forest._ebst cimport (
    ebst_best, ebst_remove_bad_splits, ebst_update, rnom_best, rnom_update, rspl_bytes, rspl_free,
    rspl_new,
)
from river_boost.forest._forest_structs cimport (
    F_NOMATTR, SPLIT_NOMINAL_MULTIWAY, XV, Node, in_view, make_room, push_ptr, xcalloc,
)
from river_boost.forest._linear cimport lin_bytes, lin_copy, lin_free, lin_learn, lin_predict
from river_boost.forest._pymath cimport py_div, py_log, py_pow, py_sqrt, py_sum
from river_boost.forest._qo cimport qo_best, qo_update, qspl_new
from river_boost.forest._reg_structs cimport (
    RLEAF_ADAPTIVE, RLEAF_MEAN, RSPL_EBST, RSPL_NOMINAL, RSPL_QO, QSpl, RLeaf, RNode, RSpl,
    RSugg, RTree, VarS, grow_imap, var_update,
)
from river_boost.forest._registry cimport Registry
from river_boost.forest._size cimport max_active_leaves, measure_due, measured, stops_growing
from river_boost.forest._trees cimport (  # (a split node reads alike in both kinds)
    branch_no, heaviest_child, subtree_free,
)


# ----------------------------------------------------------------------------- leaves

cdef RLeaf* rleaf_new(RTree* t, int depth, VarS* st, RLeaf* parent) except NULL:
    """HoeffdingTreeRegressor._new_leaf(initial_stats, parent): the leaf model is a copy of
    the parent leaf's (a fresh one without a parent leaf), an adaptive leaf takes its parent
    leaf's running errors."""
    cdef RLeaf* lf = <RLeaf*>xcalloc(1, sizeof(RLeaf))
    lf.depth = depth
    lf.active = 1
    if st != NULL:
        lf.st = st[0]
    lf.last_split = lf.st.n
    if parent != NULL and t.leaf_pred != RLEAF_MEAN:
        lin_copy(&lf.lm, &parent.lm)
        if t.leaf_pred == RLEAF_ADAPTIVE:
            lf.fmse_mean = parent.fmse_mean
            lf.fmse_model = parent.fmse_model
    return lf


cdef void rleaf_drop_splitters(RLeaf* lf) noexcept:
    cdef int k
    for k in range(lf.n_spl):
        rspl_free(lf.spl[k])
    free(lf.spl)
    lf.spl = NULL
    lf.n_spl = 0
    lf.cap_spl = 0
    # the disabled attributes stay
    for k in range(lf.sidx_cap):
        if lf.sidx[k] > 0:
            lf.sidx[k] = 0


cdef void rleaf_free(RLeaf* lf) noexcept:
    if lf == NULL:
        return
    rleaf_drop_splitters(lf)
    free(lf.sidx)
    lin_free(&lf.lm)
    free(lf)


cdef inline void rleaf_deactivate(RTree* t, RLeaf* lf) noexcept:
    rleaf_drop_splitters(lf)
    lf.active = 0


# 10.0 ** digits, exact for digits <= 22
cdef double[23] POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                         1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]


cdef double py_round(double x, int digits) noexcept:
    """round(x, digits) for a float, as CPython: the double nearest to x rounded to
    ``digits`` decimals, correctly (halves to even, on x's exact binary value).

    Fast path: the exact product x * 10**digits is p + e (p rounded, e its exact error, by
    fma); when p + e is clearly on one side of the half-way point between two integers, its
    nearest integer k is that side's, and k / 10**digits (a correctly rounded division) is
    the double nearest to the decimal CPython's dtoa gives. Otherwise (a tie or near-tie,
    huge values) the C library's correctly rounded printf and strtod decide, as CPython's
    dtoa does."""
    cdef char buf[400]
    cdef double s, p, e, fl, h, r
    if digits == -1000 or x != x or x == INFINITY or x == -INFINITY:
        return x
    s = POW10[digits]
    p = x * s
    if fabs(p) < 2251799813685248.0:  # 2**51: floor(p) + 0.5 is exact
        e = fma(x, s, -p)
        fl = floor(p)
        h = fl + 0.5
        if fabs(p - h) > 2.0 * fabs(e):
            r = (fl + 1.0 if p > h else fl) / s
            return r if r != 0.0 else copysign(0.0, x)
    snprintf(buf, 400, "%.*f", digits, x)
    return strtod(buf, NULL)


cdef int rleaf_learn(RTree* t, RLeaf* lf, unsigned char* fstate, XV* xv, double y,
                     double w) except -1:
    """LeafAdaptive / LeafModel / LeafMean.learn_one."""
    cdef double pm, pmod
    cdef int k, j, fid, si
    cdef RSpl* s
    if t.leaf_pred == RLEAF_ADAPTIVE:
        pm = lf.st.mean
        pmod = lin_predict(&lf.lm, xv)
        lf.fmse_mean = t.decay * lf.fmse_mean + py_pow(y - pm, 2.0)
        lf.fmse_model = t.decay * lf.fmse_model + py_pow(y - pmod, 2.0)
    var_update(&lf.st, y, w)
    if lf.active:
        # HTLeaf.update_splitters, in x's order
        for k in range(xv.nv):
            j = xv.vj[k]
            fid = xv.f[j]
            grow_imap(&lf.sidx, &lf.sidx_cap, fid)
            si = lf.sidx[fid]
            if si < 0:
                continue
            if si == 0:
                if (fstate[fid] & F_NOMATTR) != 0 or not xv.isnum[j]:
                    s = rspl_new(fid, RSPL_NOMINAL)
                elif t.radius > 0.0:
                    s = qspl_new(fid, t.radius, t.qo_below)
                else:
                    s = rspl_new(fid, RSPL_EBST)
                lf.sidx[fid] = push_ptr(<void***>&lf.spl, &lf.n_spl, &lf.cap_spl, s)
            else:
                s = lf.spl[si - 1]
            if s.kind == RSPL_NOMINAL:
                rnom_update(s, xv.v[j], y, w)
            elif s.kind == RSPL_QO:
                qo_update(<QSpl*>s, xv.d[j], y, w)
            else:
                ebst_update(s, py_round(xv.d[j], t.digits), y, w)
    if t.leaf_pred != RLEAF_MEAN:
        lin_learn(&lf.lm, xv, y, w)
    return 0


cdef inline double rleaf_predict(RTree* t, RLeaf* lf, XV* xv) noexcept:
    if t.leaf_pred == RLEAF_MEAN:
        return lf.st.mean
    if t.leaf_pred == RLEAF_ADAPTIVE and lf.fmse_mean < lf.fmse_model:
        return lf.st.mean
    return lin_predict(&lf.lm, xv)


cdef long long rleaf_bytes(RLeaf* lf) noexcept:
    cdef long long b = sizeof(RNode) + sizeof(RLeaf) + lf.cap_spl * sizeof(RSpl*)
    cdef int k
    b += lf.sidx_cap * sizeof(int) + lin_bytes(&lf.lm)
    for k in range(lf.n_spl):
        b += rspl_bytes(lf.spl[k])
    return b


# ----------------------------------------------------------------------------- nodes

cdef RNode* rnode_leaf(RLeaf* lf) except NULL:
    cdef RNode* nd = <RNode*>xcalloc(1, sizeof(RNode))
    nd.is_leaf = 1
    nd.depth = lf.depth
    nd.lf = lf
    return nd


cdef void rnode_own_free(Node* nd) noexcept:
    if nd.is_leaf:
        rleaf_free((<RNode*>nd).lf)


cdef void rnode_free(RNode* nd) noexcept:
    subtree_free(<Node*>nd, rnode_own_free)


cdef double total_weight(Node* nd) noexcept:
    """The node's total_weight: a leaf's stats.mean.n, a branch's sum() over its children."""
    cdef double buf[16]
    cdef double* v
    cdef double r
    cdef int k
    if nd.is_leaf:
        return (<RNode*>nd).lf.st.n
    if nd.n_ch <= 16:
        v = &buf[0]
    else:
        v = <double*>calloc(nd.n_ch, sizeof(double))
        if v == NULL:
            return 0.0
    for k in range(nd.n_ch):
        v[k] = total_weight(nd.ch[k])
    r = py_sum(v, nd.n_ch)
    if v != &buf[0]:
        free(v)
    return r


cdef inline RNode* walk_until_stuck(RNode* nd, XV* xv, RNode** parent) noexcept:
    """DTBranch.walk(x, until_leaf=False): the leaf reached, or the branch where x cannot go
    on; parent: the node before it (NULL at the root)."""
    cdef int b
    while not nd.is_leaf:
        b = branch_no(<Node*>nd, xv)
        if b < 0:
            return nd
        if parent != NULL:
            parent[0] = nd
        nd = nd.ch[b]
    return nd


cdef RNode* walk_to_leaf(RNode* nd, XV* xv) noexcept:
    """DTBranch.traverse(x, until_leaf=True)."""
    cdef int b
    while not nd.is_leaf:
        b = branch_no(<Node*>nd, xv)
        if b < 0:
            b = heaviest_child(<Node*>nd, total_weight)
        nd = nd.ch[b]
    return nd


cdef void collect_leaves(RNode* nd, list out) noexcept:
    cdef int k
    if nd.is_leaf:
        out.append(<size_t>nd.lf)
        return
    for k in range(nd.n_ch):
        collect_leaves(nd.ch[k], out)


cdef long long nodes_bytes(RNode* nd) noexcept:
    cdef long long b
    cdef int k
    if nd == NULL:
        return 0
    if nd.is_leaf:
        return rleaf_bytes(nd.lf)
    b = sizeof(RNode) + nd.cap_ch * (sizeof(RNode*) + sizeof(int)) + nd.vmap_cap * sizeof(int)
    for k in range(nd.n_ch):
        b += nodes_bytes(nd.ch[k])
    return b


# ----------------------------------------------------------------------------- the tree

cdef int rtree_init(RTree* t, tuple params) except -1:
    memset(t, 0, sizeof(RTree))
    (t.grace_period, t.delta, t.tau, t.leaf_pred, t.decay, t.min_samples, t.binary_split,
     t.max_byte_size, t.mem_period, t.stop_mem, t.remove_poor, t.merit_preprune, t.max_depth,
     t.digits, t.mem_crossing, t.radius, t.qo_below) = params
    t.root = NULL
    t.overhead = 1.0
    t.growth_allowed = 1
    return 0


cdef void rtree_free(RTree* t) noexcept:
    rnode_free(t.root)
    t.root = NULL


cdef long long rtree_allocated(RTree* t) noexcept:
    return nodes_bytes(t.root)


cdef int rtree_check_x(RTree* t, XV* xv) except -1:
    """River's leaf model (model and adaptive leaves) takes numbers only: it raises TypeError
    for any other value, after River's tree has partly learned; the forest raises first."""
    cdef int k
    cdef bint bad = xv == NULL
    if t.leaf_pred == RLEAF_MEAN:
        return 0
    if not bad:
        for k in range(xv.nv):
            if not xv.isnum[xv.vj[k]]:
                bad = True
    if bad:
        raise TypeError("VectorDict values must be real numbers (a model or adaptive leaf "
                        "learns only from numeric features)")
    return 0


cdef double rtree_predict(RTree* t, XV* xv) noexcept:
    """HoeffdingTreeRegressor.predict_one."""
    if t.root == NULL:
        return 0.0
    return rleaf_predict(t, walk_to_leaf(t.root, xv).lf, xv)


cdef int rtree_learn(RTree* t, unsigned char* fstate, XV* xv, Registry reg, double y,
                     double w) except -1:
    """HoeffdingTreeRegressor.learn_one (plus BoundedHoeffdingTreeRegressor's measurement)."""
    cdef double before = t.train_weight
    cdef RNode* p = NULL
    cdef RNode* nd
    cdef RNode* leaf
    cdef RLeaf* lf
    cdef double ws
    cdef int j, vid, pb
    t.train_weight += w
    if t.root == NULL:
        t.root = rnode_leaf(rleaf_new(t, 0, NULL, NULL))
        t.n_active = 1
    nd = walk_until_stuck(t.root, xv, &p)
    if nd.is_leaf:
        lf = nd.lf
        rleaf_learn(t, lf, fstate, xv, y, w)
        if t.growth_allowed and lf.active:
            if lf.depth >= t.max_depth:
                rleaf_deactivate(t, lf)
                t.n_active -= 1
                t.n_inactive += 1
            else:
                ws = lf.st.n
                if ws - lf.last_split >= t.grace_period:
                    pb = branch_no(<Node*>p, xv) if p != NULL else -1
                    if not attempt_split(t, nd, p, pb, reg):
                        lf.last_split = ws
    else:
        while True:
            if nd.kind == SPLIT_NOMINAL_MULTIWAY and in_view(xv, nd.fid):
                j = xv.vpos[nd.fid]
                vid = xv.v[j]
                leaf = rnode_leaf(rleaf_new(t, nd.depth + 1, NULL, NULL))
                add_child(nd, vid, leaf)
                t.n_active += 1
                nd = leaf
            else:
                nd = nd.ch[heaviest_child(<Node*>nd, total_weight)]
                if not nd.is_leaf:
                    nd = walk_until_stuck(nd, xv, NULL)
            if nd.is_leaf:
                break
        rleaf_learn(t, nd.lf, fstate, xv, y, w)
    if measure_due(t, before):
        estimate_model_size(t)
    return 0


cdef int add_child(RNode* nd, int vid, RNode* child) except -1:
    """NominalMultiwayBranch.add_child."""
    make_room(nd.n_ch, &nd.cap_ch, <void**>&nd.ch, sizeof(RNode*), <void**>&nd.ch_vid, sizeof(int))
    grow_imap(&nd.vmap, &nd.vmap_cap, vid)
    nd.ch[nd.n_ch] = child
    nd.ch_vid[nd.n_ch] = vid
    nd.n_ch += 1
    nd.vmap[vid] = nd.n_ch
    return 0


cdef list sorted_positions(RSpl* s, Registry reg):
    objs = <list>reg.fvalobjs[s.fid]
    vals = [objs[s.vals[p]] for p in range(s.n_vals)]
    return sorted(range(s.n_vals), key=vals.__getitem__)


cdef bint attempt_split(RTree* t, RNode* nd, RNode* parent, int pbranch,
                        Registry reg) except -1:
    """HoeffdingTreeRegressor._attempt_to_split; whether the leaf was replaced (freed)."""
    cdef RLeaf* lf = nd.lf
    cdef int ns = 0, k, bi, si, n_ch
    cdef RSugg* sug = <RSugg*>xcalloc(lf.n_spl + 1, sizeof(RSugg))
    cdef int* order = NULL
    cdef double hb = 0.0, best_ratio
    cdef bint should_split = False, replaced = False
    cdef RSpl* s
    cdef RNode* br
    cdef RSugg dec
    cdef VarS* cst = NULL
    try:
        if t.merit_preprune:
            sug[0].merit = -INFINITY
            sug[0].fid = -1
            sug[0].sidx = -1
            ns = 1
        orders = {}
        for k in range(lf.n_spl):
            s = lf.spl[k]
            if s.kind == RSPL_NOMINAL:
                o = sorted_positions(s, reg)
                orders[k] = o
                free(order)
                order = NULL
                order = <int*>xcalloc(s.n_vals, sizeof(int))
                for q in range(s.n_vals):
                    order[q] = o[q]
                rnom_best(s, &lf.st, t.min_samples, t.binary_split, order, &sug[ns])
            elif s.kind == RSPL_QO:
                qo_best(<QSpl*>s, &lf.st, t.min_samples, &sug[ns])
            else:
                ebst_best(s, &lf.st, t.min_samples, &sug[ns])
            sug[ns].sidx = k
            ns += 1
        merits = [sug[k].merit for k in range(ns)]
        srt = sorted(range(ns), key=merits.__getitem__)
        if ns < 2:
            should_split = ns > 0
        else:
            hb = py_sqrt(py_div(1.0 * 1.0 * py_log(py_div(1.0, t.delta)), 2.0 * lf.st.n))
            bi = srt[ns - 1]
            si = srt[ns - 2]
            if sug[bi].merit > 0.0 and (
                py_div(sug[si].merit, sug[bi].merit) < 1 - hb or hb < t.tau
            ):
                should_split = True
            if t.remove_poor:
                poor = []
                best_ratio = py_div(sug[si].merit, sug[bi].merit)
                for k in range(ns):
                    if (sug[k].fid >= 0 and reg.f_truthy[sug[k].fid]
                            and py_div(sug[k].merit, sug[bi].merit) < best_ratio - 2 * hb):
                        poor.append(sug[k].fid)
                if not (should_split and sug[srt[ns - 1]].fid >= 0):
                    for f in poor:
                        disable_attribute(lf, f)
        if should_split:
            dec = sug[srt[ns - 1]]
            if dec.fid < 0:
                rleaf_deactivate(t, lf)
                t.n_inactive += 1
                t.n_active -= 1
            else:
                br = <RNode*>xcalloc(1, sizeof(RNode))
                br.depth = lf.depth
                br.kind = dec.kind
                br.fid = dec.fid
                br.thr = dec.thr
                br.vid = dec.vid
                br.bst = lf.st
                if dec.kind == SPLIT_NOMINAL_MULTIWAY:
                    s = lf.spl[dec.sidx]
                    o = orders[dec.sidx]
                    for q in o:
                        add_child(br, s.vals[<int>q],
                                  rnode_leaf(rleaf_new(t, lf.depth + 1, &s.st[<int>q], lf)))
                else:
                    br.n_ch = 2
                    br.cap_ch = 2
                    br.ch = <RNode**>xcalloc(2, sizeof(RNode*))
                    br.ch[0] = rnode_leaf(rleaf_new(t, lf.depth + 1, &dec.left, lf))
                    br.ch[1] = rnode_leaf(rleaf_new(t, lf.depth + 1, &dec.right, lf))
                t.n_active -= 1
                t.n_active += br.n_ch
                if parent == NULL:
                    t.root = br
                else:
                    parent.ch[pbranch] = br
                rnode_free(nd)
                replaced = True
            enforce_size_limit(t)
        elif ns >= 2 and sug[srt[ns - 1]].merit > 0 and sug[srt[ns - 2]].merit > 0:
            # LeafMean.manage_memory (E-BSTs only: not a QOSplitter, nor a nominal one)
            for k in range(lf.n_spl):
                if lf.spl[k].kind == RSPL_EBST:
                    ebst_remove_bad_splits(
                        lf.spl[k], &lf.st, t.min_samples,
                        sug[srt[ns - 2]].merit / sug[srt[ns - 1]].merit,
                        sug[srt[ns - 1]].merit, hb)
    finally:
        free(sug)
        free(order)
    return replaced


cdef int disable_attribute(RLeaf* lf, int fid) except -1:
    """HTLeaf.disable_attribute."""
    cdef int si = lf.sidx[fid] if fid < lf.sidx_cap else 0
    cdef int k
    if si <= 0:
        return 0
    rspl_free(lf.spl[si - 1])
    for k in range(si - 1, lf.n_spl - 1):
        lf.spl[k] = lf.spl[k + 1]
        lf.sidx[lf.spl[k].fid] = k + 1
    lf.n_spl -= 1
    lf.sidx[fid] = -1
    return 0


# ----------------------------------------------------------------------------- memory policy

cdef int enforce_size_limit(RTree* t) except -1:
    """HoeffdingTree._enforce_size_limit."""
    cdef long long n, cutoff, i
    cdef RLeaf* lf
    if stops_growing(t):
        return 0
    leaves = []
    collect_leaves(t.root, leaves)
    leaves.sort(key=lambda a: -(<RLeaf*><size_t>a).depth)
    n = len(leaves)
    cutoff = n - max_active_leaves(t, n)
    for i in range(cutoff):
        lf = <RLeaf*><size_t>leaves[i]
        if lf.active:
            rleaf_deactivate(t, lf)
            t.n_inactive += 1
            t.n_active -= 1
    for i in range(cutoff, n):
        lf = <RLeaf*><size_t>leaves[i]
        if not lf.active and lf.depth < t.max_depth:
            lf.active = 1
            t.n_active += 1
            t.n_inactive -= 1
    return 0


cdef int estimate_model_size(RTree* t) except -1:
    """HoeffdingTree._estimate_model_size, measuring the C structures."""
    cdef long long act = 0, inact = 0
    cdef RLeaf* lf
    leaves = []
    collect_leaves(t.root, leaves)
    for a in leaves:
        lf = <RLeaf*><size_t>a
        if lf.active:
            act += rleaf_bytes(lf)
        else:
            inact += rleaf_bytes(lf)
    if measured(t, act, inact, nodes_bytes(t.root) + sizeof(RTree)):
        enforce_size_limit(t)
    return 0


def _round(double x, int digits):
    """py_round, for the tests (against CPython's round)."""
    return py_round(x, digits)
