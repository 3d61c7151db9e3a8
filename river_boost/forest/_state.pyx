# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The trees' state (see _state.pxd): each kind's nodes exported as tuples and imported back
(``copy_tree``, ``to_river``, the tests) and written to and read from the flat streams of
``_flat.pxd`` (pickles). A split node is laid out alike in both kinds (``Node`` and ``RNode``
begin with the same fields, up to ``vmap_cap``: ``_forest_structs.pxd``), so its head and its
children are written, read and attached once, through ``Node*``; the branch's statistics and
the leaves are each kind's."""

from libc.stdlib cimport free

from river_boost.forest._ebst cimport rspl_export, rspl_import, rspl_read, rspl_write
from river_boost.forest._flat cimport (
    Flat, Rd, Tables, get_branches, get_counters, get_d, get_disabled, get_i, get_n,
    put_counters, put_d, put_disabled, put_i, read_preorder,
)
from river_boost.forest._forest_structs cimport (
    SPLIT_NOMINAL_BINARY, SPLIT_NOMINAL_MULTIWAY, GCls, Leaf, NCls, Node, Spl, SplitKind, Tree,
    grow_cap, xcalloc, xrealloc,
)
from river_boost.forest._linear cimport lin_export, lin_import, lin_read, lin_write
from river_boost.forest._reg_structs cimport RSPL_QO, RLeaf, RNode, RSpl, RTree, VarS
from river_boost.forest._registry cimport Registry
from river_boost.forest._regtrees cimport add_child, rnode_free, rnode_leaf
from river_boost.forest._splitters cimport cix_set, spl_new
from river_boost.forest._trees cimport node_free


# ----------------------------------------------------------------------------- split nodes

cdef int split_write(Flat* f, Node* nd, bint children) except -1:
    """A node's head (i is_leaf, depth; a split's i kind, feature; d threshold; i value), or a
    split's ``children``' part (i their number, the multiway children's values); either kind's
    node (see the module)."""
    cdef int k
    if not children:
        put_i(f, nd.is_leaf)
        put_i(f, nd.depth)
        if nd.is_leaf:
            return 0
        put_i(f, nd.kind)
        put_i(f, nd.fid)
        put_d(f, nd.thr)
        put_i(f, nd.vid)
        return 0
    put_i(f, nd.n_ch)
    if nd.kind == SPLIT_NOMINAL_MULTIWAY:
        for k in range(nd.n_ch):
            put_i(f, nd.ch_vid[k])
    return 0


cdef int split_import(Node* nd, tuple st) except -1:
    """An exported split's head (``st[1:6]``: depth, kind, feature, threshold, value), either
    kind's."""
    nd.is_leaf = 0
    nd.depth, nd.kind, nd.fid, nd.thr, nd.vid = st[1], st[2], st[3], st[4], st[5]
    return 0


cdef int node_start(Rd* r, Node* nd, int* n_ch) except -1:
    """A node's head (i is_leaf, depth), either kind's; whether it is a leaf (a split's
    children are counted later: ``n_ch`` is 0 until then)."""
    nd.is_leaf = get_i(r, 0, 2)
    nd.depth = get_i(r, 0, 2147483647)
    n_ch[0] = 0
    return nd.is_leaf


cdef int split_read(Rd* r, const Tables* tb, Node* nd, bint children,
                    bint rounded) except -1:
    """split_write's split head (after the node's head: node_start), or its ``children``'
    part: the number of children, whose slots it allocates (``rounded``: to a capacity, as the
    classifier's trees hold them; else exactly, as the regressor's), which it returns."""
    cdef int n
    if not children:
        nd.kind = <SplitKind>get_i(r, 0, 3)
        nd.fid = get_i(r, 0, tb.nf)
        nd.thr = get_d(r)
        nd.vid = get_i(r, -1, 2147483647)
        if nd.kind == SPLIT_NOMINAL_BINARY and not 0 <= nd.vid < tb.nvals[nd.fid]:
            raise ValueError("a split on a value out of range")
        return 0
    n = get_n(r, 3, 0)  # a child takes at least three integers
    if (nd.kind == SPLIT_NOMINAL_MULTIWAY and n < 1) or (
            nd.kind != SPLIT_NOMINAL_MULTIWAY and n != 2):
        raise ValueError("a split with the wrong number of children")
    nd.cap_ch = grow_cap(0, n) if rounded else n
    nd.ch = <Node**>xcalloc(nd.cap_ch, sizeof(Node*))
    if nd.kind == SPLIT_NOMINAL_MULTIWAY:
        nd.ch_vid = <int*>xcalloc(nd.cap_ch, sizeof(int))
        get_branches(r, n, tb.nvals[nd.fid], nd.ch_vid, &nd.vmap, &nd.vmap_cap)
    return n


cdef void split_attach(void* parent, void* child) noexcept:
    """A child read after its split (read_preorder), either kind's."""
    cdef Node* p = <Node*>parent
    p.ch[p.n_ch] = <Node*>child
    p.n_ch += 1


# ----------------------------------------------------------------------------- the classifier's trees
# (pickling and copy_tree: a node as nested tuples of ids and floats, and back)

cdef object export_node(Node* nd, bint deep, Registry reg):
    """Node nd's state as tuples. ``deep``: as ``copy.deepcopy`` leaves it, i.e. the sets
    of nominal values rebuilt from their iteration order (see Spl.ins)."""
    cdef Leaf* lf
    cdef Spl* s
    cdef int k, c
    if nd.is_leaf:
        lf = nd.lf
        spls = None
        if lf.active:
            spls = []
            for k in range(lf.n_spl):
                s = lf.spl[k]
                if s.nominal:
                    classes = []
                    for c in range(s.n_cls):
                        classes.append((s.c[c].cid,
                                        [(s.c[c].ord[q], s.c[c].w[s.c[c].ord[q]])
                                         for q in range(s.c[c].n_ord)]))
                    if deep and s.n_vals > 0:
                        reg.set_order(s)
                        ins = [s.set_ord[q] for q in range(s.n_vals)]
                    else:
                        ins = [s.ins[q] for q in range(s.n_ins)]
                    if ins == list(range(len(ins))):
                        ins = None  # first appearance
                    spls.append((s.fid, 1, s.tot_w, s.miss_w,
                                 [s.vals[q] for q in range(s.n_vals)], classes, ins))
                else:
                    spls.append((s.fid, 0, [(s.g[c].cid, s.g[c].n, s.g[c].mean, s.g[c].S,
                                             s.g[c].mn, s.g[c].mx) for c in range(s.n_cls)]))
        disabled = [k for k in range(lf.sidx_cap) if lf.sidx[k] < 0]
        return (0, lf.depth, lf.active, lf.last_split, lf.mc_correct, lf.nb_correct,
                [lf.st_c[k] for k in range(lf.n_st)], [lf.st_w[k] for k in range(lf.n_st)],
                disabled, spls)
    return (1, nd.depth, nd.kind, nd.fid, nd.thr, nd.vid,
            [nd.bst_c[k] for k in range(nd.n_bst)], [nd.bst_w[k] for k in range(nd.n_bst)],
            [export_node(nd.ch[k], deep, reg) for k in range(nd.n_ch)],
            [nd.ch_vid[k] for k in range(nd.n_ch)]
            if nd.kind == SPLIT_NOMINAL_MULTIWAY else None)

cdef Node* import_node(tuple st, int nf) except NULL:
    """The node export_node exported (nf: the number of features known)."""
    cdef Node* nd = <Node*>xcalloc(1, sizeof(Node))
    cdef Leaf* lf
    cdef Spl* s
    cdef int k, n, c, p
    cdef NCls* cl
    cdef GCls* g
    try:
        if st[0] == 0:
            _, depth, active, last, mc, nb, st_c, st_w, disabled, spls = st
            nd.is_leaf = 1
            nd.depth = depth
            lf = <Leaf*>xcalloc(1, sizeof(Leaf))
            nd.lf = lf
            lf.depth = depth
            lf.active = active
            lf.last_split = last
            lf.mc_correct = mc
            lf.nb_correct = nb
            n = len(st_c)
            lf.cap_st = grow_cap(0, n)
            lf.st_c = <int*>xcalloc(lf.cap_st, sizeof(int))
            lf.st_w = <double*>xcalloc(lf.cap_st, sizeof(double))
            for k in range(n):
                lf.st_c[k] = st_c[k]
                lf.st_w[k] = st_w[k]
            lf.n_st = n
            lf.sidx_cap = grow_cap(0, nf + 1)
            lf.sidx = <int*>xcalloc(lf.sidx_cap, sizeof(int))
            for k in disabled:
                lf.sidx[k] = -1
            if spls is not None:
                lf.cap_spl = grow_cap(0, len(spls))
                lf.spl = <Spl**>xcalloc(lf.cap_spl, sizeof(Spl*))
                for sp in spls:
                    s = spl_new(sp[0], sp[1])
                    lf.spl[lf.n_spl] = s
                    lf.n_spl += 1
                    lf.sidx[s.fid] = lf.n_spl
                    classes = sp[5] if s.nominal else sp[2]
                    s.n_cls = len(classes)
                    s.cap_cls = grow_cap(0, s.n_cls)
                    if s.nominal:
                        s.tot_w = sp[2]
                        s.miss_w = sp[3]
                        vals = sp[4]
                        s.n_vals = len(vals)
                        s.cap_vals = grow_cap(0, s.n_vals)
                        s.vals = <int*>xcalloc(s.cap_vals, sizeof(int))
                        mx = max(vals) + 1 if vals else 1
                        s.vpos_cap = grow_cap(0, mx)
                        s.vpos = <int*>xrealloc(NULL, s.vpos_cap * sizeof(int))
                        for k in range(s.vpos_cap):
                            s.vpos[k] = -1
                        for k in range(s.n_vals):
                            s.vals[k] = vals[k]
                            s.vpos[<int>vals[k]] = k
                        ins = sp[6]
                        if ins is not None:
                            s.n_ins = len(ins)
                            s.ins = <int*>xcalloc(s.n_ins, sizeof(int))
                            for k in range(s.n_ins):
                                s.ins[k] = ins[k]
                        s.c = <NCls*>xcalloc(s.cap_cls, sizeof(NCls))
                        for c in range(s.n_cls):
                            cl = &s.c[c]
                            cl.cid = classes[c][0]
                            cix_set(s, cl.cid, c)
                            items = classes[c][1]
                            cl.cap_w = grow_cap(0, s.n_vals)
                            cl.w = <double*>xcalloc(cl.cap_w, sizeof(double))
                            cl.has = <char*>xcalloc(cl.cap_w, sizeof(char))
                            cl.cap_ord = grow_cap(0, len(items))
                            cl.ord = <int*>xcalloc(cl.cap_ord, sizeof(int))
                            for p, wv in items:
                                cl.ord[cl.n_ord] = p
                                cl.n_ord += 1
                                cl.has[p] = 1
                                cl.w[p] = wv
                    else:
                        s.g = <GCls*>xcalloc(s.cap_cls, sizeof(GCls))
                        for c in range(s.n_cls):
                            g = &s.g[c]
                            (g.cid, g.n, g.mean, g.S, g.mn, g.mx) = classes[c]
                            cix_set(s, g.cid, c)
        else:
            _, depth, kind, fid, thr, vid, bst_c, bst_w, children, ch_vid = st
            split_import(nd, st)
            n = len(bst_c)
            nd.n_bst = n
            nd.bst_c = <int*>xcalloc(n, sizeof(int))
            nd.bst_w = <double*>xcalloc(n, sizeof(double))
            for k in range(n):
                nd.bst_c[k] = bst_c[k]
                nd.bst_w[k] = bst_w[k]
            n = len(children)
            nd.cap_ch = grow_cap(0, n)
            nd.ch = <Node**>xcalloc(nd.cap_ch, sizeof(Node*))
            if kind == SPLIT_NOMINAL_MULTIWAY:
                nd.ch_vid = <int*>xcalloc(nd.cap_ch, sizeof(int))
                mx = max(ch_vid) + 1 if ch_vid else 1
                nd.vmap_cap = grow_cap(0, mx)
                nd.vmap = <int*>xcalloc(nd.vmap_cap, sizeof(int))
            for k in range(n):
                nd.ch[k] = import_node(children[k], nf)
                nd.n_ch += 1
                if kind == SPLIT_NOMINAL_MULTIWAY:
                    nd.ch_vid[k] = ch_vid[k]
                    nd.vmap[<int>ch_vid[k]] = k + 1
    except BaseException:
        node_free(nd)
        raise
    return nd


# (pickles: the two streams of _flat.pxd, in pre-order; see tree_write for the layout)

cdef int node_write(Node* nd, Flat* f) except -1:
    """Node nd and its subtree (layout: tree_write)."""
    cdef Leaf* lf
    cdef Spl* s
    cdef NCls* cl
    cdef int k, c, q
    split_write(f, nd, False)
    if nd.is_leaf:
        lf = nd.lf
        put_i(f, lf.active)
        put_d(f, lf.last_split)
        put_d(f, lf.mc_correct)
        put_d(f, lf.nb_correct)
        put_i(f, lf.n_st)
        for k in range(lf.n_st):
            put_i(f, lf.st_c[k])
            put_d(f, lf.st_w[k])
        put_disabled(f, lf.sidx, lf.sidx_cap)
        if not lf.active:  # an inactive leaf holds no splitters
            return 0
        put_i(f, lf.n_spl)
        for k in range(lf.n_spl):
            s = lf.spl[k]
            put_i(f, s.fid)
            put_i(f, s.nominal)
            if not s.nominal:
                put_i(f, s.n_cls)
                for c in range(s.n_cls):
                    put_i(f, s.g[c].cid)
                    put_d(f, s.g[c].n)
                    put_d(f, s.g[c].mean)
                    put_d(f, s.g[c].S)
                    put_d(f, s.g[c].mn)
                    put_d(f, s.g[c].mx)
                continue
            put_d(f, s.tot_w)
            put_d(f, s.miss_w)
            put_i(f, s.n_vals)
            for q in range(s.n_vals):
                put_i(f, s.vals[q])
            put_i(f, s.n_ins)
            for q in range(s.n_ins):
                put_i(f, s.ins[q])
            put_i(f, s.n_cls)
            for c in range(s.n_cls):
                cl = &s.c[c]
                put_i(f, cl.cid)
                put_i(f, cl.n_ord)
                for q in range(cl.n_ord):
                    put_i(f, cl.ord[q])
                    put_d(f, cl.w[cl.ord[q]])
        return 0
    put_i(f, nd.n_bst)
    for k in range(nd.n_bst):
        put_i(f, nd.bst_c[k])
        put_d(f, nd.bst_w[k])
    split_write(f, nd, True)
    for k in range(nd.n_ch):
        node_write(nd.ch[k], f)
    return 0


cdef int tree_write(Tree* t, const unsigned char* fstate, int nf, int nc, Flat* f) except -1:
    """Tree t's state: its counters, the per-feature decisions of its ``nf`` features, which of
    the ``nc`` classes it has seen, and its nodes in pre-order.

    Layout (i: the integers' stream, d: the doubles'): the tree: d n_active, n_inactive,
    inactive_est, active_est, overhead, train_weight; i growth_allowed, nf fstate bytes, nc
    class flags, has_root, then the root's subtree. A node: i is_leaf, depth. A leaf: i active;
    d last_split, mc_correct, nb_correct; i n_st, then n_st (i class, d weight); i n_disabled,
    n_disabled features; if active, i n_spl and the splitters: i feature, nominal; a Gaussian:
    i n_cls, then n_cls (i class; d n, mean, S, min, max); a nominal one: d total, missing; i
    n_vals values, n_ins insertion positions, n_cls classes, each i class, n_ord, then n_ord (i
    position, d weight). A split: i kind, feature; d threshold; i value, n_bst, then n_bst (i
    class, d weight); i n_children, the multiway children's values, then the children."""
    cdef int k
    put_counters(f, t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                 t.train_weight, t.growth_allowed)
    for k in range(nf):
        put_i(f, fstate[k])
    for k in range(nc):
        put_i(f, t.has_cls[k] != 0)
    put_i(f, t.root != NULL)
    if t.root != NULL:
        node_write(t.root, f)
    return 0


cdef int spl_read(Rd* r, Spl* s, const Tables* tb) except -1:
    """A splitter's statistics, into s (its fid and kind set; layout: tree_write)."""
    cdef int k, c, q, p, n, nc = tb.nc
    cdef const int* nvals = tb.nvals
    cdef NCls* cl
    cdef GCls* g
    if not s.nominal:
        n = get_n(r, 1, 5)
        s.cap_cls = grow_cap(0, n)
        s.g = <GCls*>xcalloc(s.cap_cls, sizeof(GCls))
        for c in range(n):
            g = &s.g[c]
            g.cid = get_i(r, 0, nc)
            if g.cid < s.cix_cap and s.cix[g.cid]:
                raise ValueError("a class repeated in a splitter")
            g.n = get_d(r)
            g.mean = get_d(r)
            g.S = get_d(r)
            g.mn = get_d(r)
            g.mx = get_d(r)
            cix_set(s, g.cid, c)
            s.n_cls += 1
        return 0
    s.tot_w = get_d(r)
    s.miss_w = get_d(r)
    n = get_n(r, 1, 0)
    s.cap_vals = grow_cap(0, n)
    s.vals = <int*>xcalloc(s.cap_vals, sizeof(int))
    s.vpos_cap = grow_cap(0, nvals[s.fid])
    s.vpos = <int*>xcalloc(s.vpos_cap, sizeof(int))
    for k in range(s.vpos_cap):
        s.vpos[k] = -1
    for k in range(n):
        q = get_i(r, 0, nvals[s.fid])
        if s.vpos[q] >= 0:
            raise ValueError("a value repeated in a splitter")
        s.vals[k] = q
        s.vpos[q] = k
        s.n_vals += 1
    n = get_n(r, 1, 0)
    if n > s.n_vals:
        raise ValueError("more insertions than values")
    if n > 0:
        s.ins = <int*>xcalloc(n, sizeof(int))
        for k in range(n):  # a permutation of the first n positions
            s.ins[k] = get_i(r, 0, n)
            for q in range(k):
                if s.ins[q] == s.ins[k]:
                    raise ValueError("an insertion order that is not a permutation")
        s.n_ins = n
    n = get_n(r, 2, 0)
    s.cap_cls = grow_cap(0, n)
    s.c = <NCls*>xcalloc(s.cap_cls, sizeof(NCls))
    for c in range(n):
        cl = &s.c[c]
        s.n_cls += 1  # (freed with the splitter from here on)
        cl.cid = get_i(r, 0, nc)
        if cl.cid < s.cix_cap and s.cix[cl.cid]:
            raise ValueError("a class repeated in a splitter")
        cix_set(s, cl.cid, c)
        cl.cap_w = grow_cap(0, s.n_vals)
        cl.w = <double*>xcalloc(cl.cap_w, sizeof(double))
        cl.has = <char*>xcalloc(cl.cap_w, sizeof(char))
        k = get_n(r, 1, 1)
        if k > s.n_vals:
            raise ValueError("a class with more values than its splitter")
        cl.cap_ord = grow_cap(0, k)
        cl.ord = <int*>xcalloc(cl.cap_ord, sizeof(int))
        for q in range(k):
            p = get_i(r, 0, s.n_vals)
            if cl.has[p]:
                raise ValueError("a value repeated in a class")
            cl.ord[q] = p
            cl.has[p] = 1
            cl.w[p] = get_d(r)
            cl.n_ord += 1
    return 0


cdef void* node_read(Rd* r, const Tables* tb, int* n_ch) except NULL:
    """One node (a split's children are left to the caller: ``n_ch`` of them follow, their
    slots allocated); layout: tree_write."""
    cdef Node* nd = <Node*>xcalloc(1, sizeof(Node))
    cdef Leaf* lf
    cdef Spl* s
    cdef int k, n, fid, nf = tb.nf, nc = tb.nc
    try:
        if node_start(r, nd, n_ch):
            lf = <Leaf*>xcalloc(1, sizeof(Leaf))
            nd.lf = lf
            lf.depth = nd.depth
            lf.active = get_i(r, 0, 2)
            lf.last_split = get_d(r)
            lf.mc_correct = get_d(r)
            lf.nb_correct = get_d(r)
            n = get_n(r, 1, 1)
            lf.cap_st = grow_cap(0, n)
            lf.st_c = <int*>xcalloc(lf.cap_st, sizeof(int))
            lf.st_w = <double*>xcalloc(lf.cap_st, sizeof(double))
            for k in range(n):
                lf.st_c[k] = get_i(r, 0, nc)
                lf.st_w[k] = get_d(r)
            lf.n_st = n
            lf.sidx_cap = grow_cap(0, nf + 1)
            lf.sidx = <int*>xcalloc(lf.sidx_cap, sizeof(int))
            get_disabled(r, lf.sidx, nf + 1)
            if not lf.active:
                return nd
            n = get_n(r, 2, 0)
            lf.cap_spl = grow_cap(0, n)
            lf.spl = <Spl**>xcalloc(lf.cap_spl, sizeof(Spl*))
            for k in range(n):
                fid = get_i(r, 0, nf)
                if lf.sidx[fid] != 0:
                    raise ValueError("a feature with two splitters, or disabled")
                s = <Spl*>xcalloc(1, sizeof(Spl))
                s.fid = fid
                s.set_n = -1
                lf.spl[lf.n_spl] = s
                lf.n_spl += 1
                lf.sidx[fid] = lf.n_spl
                s.nominal = get_i(r, 0, 2)
                spl_read(r, s, tb)
            return nd
        split_read(r, tb, nd, False, False)
        n = get_n(r, 1, 1)
        nd.bst_c = <int*>xcalloc(n, sizeof(int))
        nd.bst_w = <double*>xcalloc(n, sizeof(double))
        for k in range(n):
            nd.bst_c[k] = get_i(r, 0, nc)
            nd.bst_w[k] = get_d(r)
        nd.n_bst = n
        n_ch[0] = split_read(r, tb, nd, True, True)
    except BaseException:
        node_free(nd)
        raise
    return nd


cdef int tree_read(Rd* r, Tree* t, unsigned char* fstate, const Tables* tb) except -1:
    """Tree t's state from the streams (tree_write's layout), into a fresh tree with its
    buffers for the tables' features and classes allocated."""
    cdef int k
    get_counters(r, &t.n_active, &t.n_inactive, &t.inactive_est, &t.active_est, &t.overhead,
                 &t.train_weight, &t.growth_allowed)
    for k in range(tb.nf):
        fstate[k] = <unsigned char>get_i(r, 0, 256)
    for k in range(tb.nc):
        t.has_cls[k] = get_i(r, 0, 2)
    if get_i(r, 0, 2):
        read_preorder(r, tb, node_read, split_attach, <void**>&t.root)
    return 0


# ----------------------------------------------------------------------------- the regressor's trees
# (copy_tree, to_river and the tests: the nodes in pre-order as tuples, and back)

cdef tuple leaf_state(RLeaf* lf):
    spls = None
    if lf.active:
        spls = [rspl_export(lf.spl[k]) for k in range(lf.n_spl)]
    disabled = [f for f in range(lf.sidx_cap) if lf.sidx[f] < 0]
    return (0, lf.depth, lf.active, lf.last_split, (lf.st.n, lf.st.mean, lf.st.S),
            lin_export(&lf.lm), lf.fmse_mean, lf.fmse_model, spls, disabled)


cdef list rtree_export(RTree* t):
    """The tree's nodes in pre-order, a branch with its number of children (or None)."""
    cdef RNode* nd
    cdef list out = []
    cdef list stack
    cdef int k
    if t.root == NULL:
        return None
    stack = [<size_t>t.root]
    while stack:
        nd = <RNode*><size_t>stack.pop()
        if nd.is_leaf:
            out.append(leaf_state(nd.lf))
            continue
        out.append((1, nd.depth, <int>nd.kind, nd.fid, nd.thr, nd.vid,
                    (nd.bst.n, nd.bst.mean, nd.bst.S), nd.n_ch,
                    [nd.ch_vid[k] for k in range(nd.n_ch)] if nd.ch_vid != NULL else None))
        for k in range(nd.n_ch - 1, -1, -1):
            stack.append(<size_t>nd.ch[k])
    return out


cdef RNode* rtree_import(list flat, int nf) except? NULL:
    """The inverse of rtree_export (NULL for None)."""
    cdef RNode* nd
    cdef RNode* root = NULL
    cdef RNode* par
    cdef RLeaf* lf
    cdef int k, cap
    if flat is None:
        return NULL
    pending = []  # [branch, children still to come]
    for st in flat:
        if st[0] == 0:
            _, depth, active, last, vs, lm, fm, fmod_, spls, disabled = st
            lf = <RLeaf*>xcalloc(1, sizeof(RLeaf))
            lf.depth = depth
            lf.active = active
            lf.last_split = last
            lf.st.n, lf.st.mean, lf.st.S = vs
            lin_import(&lf.lm, lm, nf)
            lf.fmse_mean = fm
            lf.fmse_model = fmod_
            cap = nf if nf > 0 else 1
            lf.sidx = <int*>xcalloc(cap, sizeof(int))
            lf.sidx_cap = cap
            for f in disabled:
                lf.sidx[<int>f] = -1
            if spls:
                lf.spl = <RSpl**>xcalloc(len(spls), sizeof(RSpl*))
                lf.cap_spl = len(spls)
                for k in range(len(spls)):
                    lf.spl[k] = rspl_import(spls[k])
                    lf.n_spl = k + 1
                    lf.sidx[lf.spl[k].fid] = k + 1
            nd = rnode_leaf(lf)
        else:
            _, depth, kind, fid, thr, vid, vs, n_ch, ch_vid = st
            nd = <RNode*>xcalloc(1, sizeof(RNode))
            split_import(<Node*>nd, st)
            nd.bst.n, nd.bst.mean, nd.bst.S = vs
            nd.ch = <RNode**>xcalloc(n_ch, sizeof(RNode*))
            nd.cap_ch = n_ch
        if pending:
            par = <RNode*><size_t>pending[len(pending) - 1][0]
            if par.kind == SPLIT_NOMINAL_MULTIWAY:
                add_child(par, pending[len(pending) - 1][2][par.n_ch], nd)
            else:
                par.ch[par.n_ch] = nd
                par.n_ch += 1
            if par.n_ch == pending[len(pending) - 1][1]:
                pending.pop()
        else:
            root = nd
        if not nd.is_leaf:
            if nd.kind == SPLIT_NOMINAL_MULTIWAY:
                nd.cap_ch = 0
                free(nd.ch)
                nd.ch = NULL
            pending.append([<size_t>nd, n_ch, ch_vid])
    return root


# (pickles: the two streams of _flat.pxd, in pre-order; see rtree_write for the layout)

cdef int rnode_write(RNode* nd, Flat* f) except -1:
    cdef RLeaf* lf
    cdef int k, c
    split_write(f, <Node*>nd, False)
    if nd.is_leaf:
        lf = nd.lf
        put_i(f, lf.active)
        put_d(f, lf.last_split)
        put_d(f, lf.st.n)
        put_d(f, lf.st.mean)
        put_d(f, lf.st.S)
        lin_write(&lf.lm, f)
        put_d(f, lf.fmse_mean)
        put_d(f, lf.fmse_model)
        put_disabled(f, lf.sidx, lf.sidx_cap)
        if lf.active:
            put_i(f, lf.n_spl)
            for k in range(lf.n_spl):
                rspl_write(lf.spl[k], f)
        return 0
    put_d(f, nd.bst.n)
    put_d(f, nd.bst.mean)
    put_d(f, nd.bst.S)
    split_write(f, <Node*>nd, True)
    for k in range(nd.n_ch):
        rnode_write(nd.ch[k], f)
    return 0


cdef int rtree_write(RTree* t, Flat* f) except -1:
    """Tree t's state. Layout (i: the integers' stream, d: the doubles'): d n_active,
    n_inactive, inactive_est, active_est, overhead, train_weight; i growth_allowed, has_root;
    then the nodes in pre-order. A node: i is_leaf, depth. A leaf: i active; d last_split, the
    target's n, mean, S; the leaf model (_linear.lin_write); d fmse_mean, fmse_model; i
    n_disabled, the disabled features; if active, i n_spl and the splitters
    (_ebst.rspl_write). A split: i kind, feature; d threshold; i value; d the branch's n, mean,
    S; i n_children, the multiway children's values; then the children."""
    put_counters(f, t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                 t.train_weight, t.growth_allowed)
    put_i(f, t.root != NULL)
    if t.root != NULL:
        rnode_write(t.root, f)
    return 0


cdef void* rnode_read(Rd* r, const Tables* tb, int* n_ch) except NULL:
    """One node; a split's ``n_ch`` children come next, their slots allocated."""
    cdef RNode* nd = <RNode*>xcalloc(1, sizeof(RNode))
    cdef RLeaf* lf
    cdef RSpl* s
    cdef int k, n, nf = tb.nf
    try:
        if node_start(r, <Node*>nd, n_ch):
            lf = <RLeaf*>xcalloc(1, sizeof(RLeaf))
            nd.lf = lf
            lf.depth = nd.depth
            lf.sidx_cap = nf if nf > 0 else 1
            lf.sidx = <int*>xcalloc(lf.sidx_cap, sizeof(int))
            lf.active = get_i(r, 0, 2)
            lf.last_split = get_d(r)
            lf.st.n = get_d(r)
            lf.st.mean = get_d(r)
            lf.st.S = get_d(r)
            lin_read(r, &lf.lm, nf)
            lf.fmse_mean = get_d(r)
            lf.fmse_model = get_d(r)
            get_disabled(r, lf.sidx, nf)
            if not lf.active:
                return nd
            n = get_n(r, 3, 0)
            if n > 0:
                lf.spl = <RSpl**>xcalloc(n, sizeof(RSpl*))
                lf.cap_spl = n
            for k in range(n):
                s = rspl_read(r, nf, tb.nvals)
                lf.spl[k] = s
                lf.n_spl = k + 1
                if lf.sidx[s.fid] != 0:
                    raise ValueError("a feature with two splitters, or disabled")
                lf.sidx[s.fid] = k + 1
            return nd
        split_read(r, tb, <Node*>nd, False, False)
        nd.bst.n = get_d(r)
        nd.bst.mean = get_d(r)
        nd.bst.S = get_d(r)
        n_ch[0] = split_read(r, tb, <Node*>nd, True, False)
    except BaseException:
        rnode_free(nd)
        raise
    return nd


cdef int rtree_read(Rd* r, RTree* t, const Tables* tb) except -1:
    """Tree t's state from the streams (rtree_write's layout) into a fresh tree."""
    get_counters(r, &t.n_active, &t.n_inactive, &t.inactive_est, &t.active_est, &t.overhead,
                 &t.train_weight, &t.growth_allowed)
    if get_i(r, 0, 2):
        read_preorder(r, tb, rnode_read, split_attach, <void**>&t.root)
    return 0


# (capacities: the regression trees' size policy measures their arrays' capacities, grown by
# doubling; a pickle carries them after the trees, and a tree read back takes them, so that it
# measures, grows and decides as the original. A 0.2.x pickle has none: it loads trimmed.)

cdef int put_caps(RNode* nd, Flat* f) except -1:
    """The node's capacities, then its children's, in pre-order: a leaf's i splitters,
    splitter map, leaf model's weights and map, then each non-QO splitter's values and map; a
    split's i children, value map."""
    cdef RLeaf* lf
    cdef RSpl* s
    cdef int k
    if not nd.is_leaf:
        put_i(f, nd.cap_ch)
        put_i(f, nd.vmap_cap)
        for k in range(nd.n_ch):
            put_caps(nd.ch[k], f)
        return 0
    lf = nd.lf
    for k in (lf.cap_spl, lf.sidx_cap, lf.lm.cap_w, lf.lm.wpos_cap):
        put_i(f, k)
    for k in range(lf.n_spl):
        s = lf.spl[k]
        if s.kind != RSPL_QO:  # (a QO splitter is measured by the slots it holds)
            put_i(f, s.cap_vals)
            put_i(f, s.vpos_cap)
    return 0


cdef int rtree_write_caps(RTree* t, Flat* f) except -1:
    return put_caps(t.root, f) if t.root != NULL else 0


cdef int set_cap(Rd* r, void** a, void** b, int* cap, int n, size_t sa, size_t sb,
                 int hi) except -1:
    """Array a (and b, sharing its capacity, unless NULL) reallocated to the capacity read,
    which must hold its ``n`` items and lie below ``hi``."""
    cdef int c = get_i(r, n, hi)
    if c != cap[0]:
        a[0] = xrealloc(a[0], c * sa)
        if b != NULL:
            b[0] = xrealloc(b[0], c * sb)
        cap[0] = c
    return 0


cdef int set_map(Rd* r, int** m, int* cap, int hi) except -1:
    """An id -> position map reallocated to the capacity read (below ``hi``): the ids it
    drops must be absent, the ones it adds are."""
    cdef int c = get_i(r, 0, hi), q
    for q in range(c, cap[0]):
        if m[0][q] != 0:
            raise ValueError("a capacity below an id held")
    if c != cap[0]:
        m[0] = <int*>xrealloc(m[0], c * sizeof(int))
        for q in range(cap[0], c):
            m[0][q] = 0
        cap[0] = c
    return 0


cdef int get_caps(Rd* r, RNode* nd, int hi) except -1:
    """put_caps' capacities, into the node read back and its children."""
    cdef RLeaf* lf
    cdef RSpl* s
    cdef int k
    if not nd.is_leaf:
        set_cap(r, <void**>&nd.ch, <void**>&nd.ch_vid if nd.ch_vid != NULL else NULL,
                &nd.cap_ch, nd.n_ch, sizeof(RNode*), sizeof(int), hi)
        set_map(r, &nd.vmap, &nd.vmap_cap, hi)
        for k in range(nd.n_ch):
            get_caps(r, nd.ch[k], hi)
        return 0
    lf = nd.lf
    set_cap(r, <void**>&lf.spl, NULL, &lf.cap_spl, lf.n_spl, sizeof(RSpl*), 0, hi)
    set_map(r, &lf.sidx, &lf.sidx_cap, hi)
    set_cap(r, <void**>&lf.lm.wf, <void**>&lf.lm.w, &lf.lm.cap_w, lf.lm.n_w, sizeof(int),
            sizeof(double), hi)
    set_map(r, &lf.lm.wpos, &lf.lm.wpos_cap, hi)
    for k in range(lf.n_spl):
        s = lf.spl[k]
        if s.kind != RSPL_QO:
            set_cap(r, <void**>&s.vals, <void**>&s.st, &s.cap_vals, s.n_vals, sizeof(int),
                    sizeof(VarS), hi)
            set_map(r, &s.vpos, &s.vpos_cap, hi)
    return 0


cdef int rtree_read_caps(Rd* r, RTree* t, const Tables* tb) except -1:
    """Tree t (just read) takes rtree_write_caps' capacities: each grew by doubling to hold
    a feature's or value's id (or count), or was allocated to fit: below 2 (max + 2)."""
    cdef int k, m = tb.nf
    for k in range(tb.nf):
        if tb.nvals[k] > m:
            m = tb.nvals[k]
    return get_caps(r, t.root, 2 * (m + 2)) if t.root != NULL else 0
