# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled forest's tree storage (see _trees.pxd), bit for bit as River's
HoeffdingTreeClassifier: see _forest.pyx for how exactness is kept."""

from libc.math cimport floor, fmod, isnan
from libc.stdlib cimport free
from libc.string cimport memset

from river_boost.forest._flat cimport (
    Flat, Rd, Tables, get_branches, get_counters, get_d, get_disabled, get_i, get_n,
    put_counters, put_d, put_disabled, put_i, read_preorder,
)
from river_boost.forest._forest_structs cimport (
    DECIDE_PRE_PRUNE, DECIDE_SPLIT, SPLIT_NOMINAL_BINARY, SPLIT_NOMINAL_MULTIWAY,
    SPLIT_NUMERIC_BINARY, XV, Dists, GCls, Leaf, NCls, Node, Spl, SplitKind, Sugg, Tree, Work,
    grow_cap, in_view, xcalloc, xrealloc,
)
from river_boost.forest._leaves cimport (
    leaf_bytes, leaf_deactivate, leaf_free, leaf_learn, leaf_new, leaf_split_decision,
    leaf_total,
)
from river_boost.forest._pymath cimport PySum, ps_add, ps_init, ps_result, py_div, py_sum
from river_boost.forest._registry cimport Registry
from river_boost.forest._splitters cimport cix_set, spl_allocated


# ----------------------------------------------------------------------------- nodes

cdef void node_free(Node* nd) noexcept:
    cdef int k
    if nd == NULL:
        return
    if nd.is_leaf:
        leaf_free(nd.lf)
    else:
        for k in range(nd.n_ch):
            node_free(nd.ch[k])
        free(nd.ch)
        free(nd.ch_vid)
        free(nd.vmap)
        free(nd.bst_c)
        free(nd.bst_w)
    free(nd)


cdef Node* node_new_leaf(int depth, int* st_c, double* st_w, int n_st) except NULL:
    cdef Node* nd = <Node*>xcalloc(1, sizeof(Node))
    nd.is_leaf = 1
    nd.depth = depth
    try:
        nd.lf = leaf_new(depth, st_c, st_w, n_st)
    except BaseException:
        free(nd)
        raise
    return nd



# ----------------------------------------------------------------------------- walking

cdef double node_total(Node* nd) noexcept:
    # Leaf.total_weight / DTBranch.total_weight (a sum over the children's totals)
    cdef PySum acc
    cdef int k
    if nd.is_leaf:
        return leaf_total(nd.lf)
    ps_init(&acc)
    for k in range(nd.n_ch):
        ps_add(&acc, node_total(nd.ch[k]))
    return ps_result(&acc)


cdef Node* most_common(Node* nd) noexcept:
    cdef int k, best
    cdef double bw, w
    if nd.kind != SPLIT_NOMINAL_MULTIWAY:
        if node_total(nd.ch[0]) < node_total(nd.ch[1]):
            return nd.ch[1]
        return nd.ch[0]
    best = 0
    bw = node_total(nd.ch[0])
    for k in range(1, nd.n_ch):
        w = node_total(nd.ch[k])
        if w > bw:
            bw = w
            best = k
    return nd.ch[best]


cdef Node* walk_partial(Node* nd, XV* xv) noexcept:
    # Branch.traverse(x, until_leaf=False): stops at a branch that raises KeyError
    cdef int b
    while not nd.is_leaf:
        b = branch_no(nd, xv)
        if b < 0:
            return nd
        nd = nd.ch[b]
    return nd


cdef Node* walk_to_leaf(Node* nd, XV* xv) noexcept:
    # Branch.traverse(x, until_leaf=True)
    cdef int b
    while not nd.is_leaf:
        b = branch_no(nd, xv)
        if b < 0:
            nd = most_common(nd)
        else:
            nd = nd.ch[b]
    return nd


cdef void gather_leaves(Node* nd, Node** out, long long cap, long long* n) noexcept:
    # Branch.iter_leaves (left to right) into out[:cap]; n counts them all
    cdef int k
    if nd.is_leaf:
        if n[0] < cap:
            out[n[0]] = nd
        n[0] += 1
        return
    for k in range(nd.n_ch):
        gather_leaves(nd.ch[k], out, cap, n)


cdef void sum_leaf_bytes(Node* nd, long long* active, long long* inactive) noexcept:
    cdef int k
    if nd.is_leaf:
        if nd.lf.active:
            active[0] += leaf_bytes(nd.lf)
        else:
            inactive[0] += leaf_bytes(nd.lf)
        return
    for k in range(nd.n_ch):
        sum_leaf_bytes(nd.ch[k], active, inactive)


cdef struct Ranked:
    double promise
    long long pos


cdef inline bint ranked_before(Ranked* a, Ranked* b) noexcept nogil:
    # by promise, then by position: the order of Python's stable sort on the promises
    return a.promise < b.promise or (a.promise == b.promise and a.pos < b.pos)


cdef void select_first(Ranked* r, long long n, long long k) noexcept nogil:
    """Reorder r[:n] so that r[:k] holds its first k in that order (in any order among
    themselves): the leaves River's sort puts before the cutoff (quickselect, O(n) on
    average; the order is total, positions breaking ties)."""
    cdef long long lo = 0, hi = n - 1, i, j
    cdef Ranked pivot, tmp
    k -= 1  # the index whose element must end in place
    while lo < hi:
        pivot = r[lo + (hi - lo) // 2]
        i = lo
        j = hi
        while i <= j:
            while ranked_before(&r[i], &pivot):
                i += 1
            while ranked_before(&pivot, &r[j]):
                j -= 1
            if i <= j:
                tmp = r[i]
                r[i] = r[j]
                r[j] = tmp
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


cdef long long count_reactivable(Node* nd, long long max_depth) noexcept:
    # the inactive leaves above max_depth
    cdef int k
    cdef long long n = 0
    if nd.is_leaf:
        return 1 if (not nd.lf.active and nd.lf.depth < max_depth) else 0
    for k in range(nd.n_ch):
        n += count_reactivable(nd.ch[k], max_depth)
    return n


cdef void count_nodes(Node* nd, long long* n_nodes, long long* n_leaves, long long* height,
                      long long depth) noexcept:
    cdef int k
    n_nodes[0] += 1
    if depth + 1 > height[0]:
        height[0] = depth + 1
    if nd.is_leaf:
        n_leaves[0] += 1
        return
    for k in range(nd.n_ch):
        count_nodes(nd.ch[k], n_nodes, n_leaves, height, depth + 1)


# ----------------------------------------------------------------------------- memory accounting

cdef long long tree_bytes(Node* nd) noexcept:
    cdef long long b
    cdef int k
    if nd.is_leaf:
        return leaf_bytes(nd.lf)
    b = sizeof(Node) + nd.n_ch * (sizeof(Node*) + sizeof(int)) + nd.n_bst * (sizeof(int) + sizeof(double))
    for k in range(nd.n_ch):
        b += tree_bytes(nd.ch[k])
    return b


# What the forest holds in memory (``ForestCore._allocated_bytes``: ``sys.getsizeof`` and so
# River's memory measures), from the allocated capacities; unlike the *_bytes above, which
# River's size-limit policy reads and which must not depend on capacities.


cdef long long node_allocated(Node* nd) noexcept:
    cdef long long b = sizeof(Node)
    cdef int k
    cdef Leaf* lf
    if nd.is_leaf:
        lf = nd.lf
        b += sizeof(Leaf) + lf.cap_st * (sizeof(int) + sizeof(double))
        b += lf.cap_spl * sizeof(Spl*) + lf.sidx_cap * sizeof(int)
        for k in range(lf.n_spl):
            b += spl_allocated(lf.spl[k])
        return b
    b += nd.cap_ch * sizeof(Node*) + nd.vmap_cap * sizeof(int)
    b += nd.n_bst * (sizeof(int) + sizeof(double))
    if nd.ch_vid != NULL:
        b += nd.cap_ch * sizeof(int)
    for k in range(nd.n_ch):
        b += node_allocated(nd.ch[k])
    return b


cdef long long tree_allocated(Tree* t) noexcept:
    cdef long long b = t.fcap + t.ccap + t.nbc_cap * sizeof(double)
    b += t.nbc_xcap * (2 * sizeof(int) + sizeof(double))
    if t.root != NULL:
        b += node_allocated(t.root)
    return b


cdef void tree_free(Tree* t) noexcept:
    """Free everything tree t owns (its nodes and its per-tree buffers)."""
    node_free(t.root)
    free(t.fstate)
    free(t.has_cls)
    free(t.nbc_out)
    free(t.nbc_f)
    free(t.nbc_v)
    free(t.nbc_d)
    memset(t, 0, sizeof(Tree))


cdef int tree_init(Tree* t, tuple params) except -1:
    """A fresh tree's parameters and counters (HoeffdingTreeClassifier.__init__); the
    buffers (fstate, has_cls, naive-Bayes cache) are left to the caller."""
    (t.grace_period, t.delta, t.tau, t.nb_threshold, t.leaf_pred, t.crit,
     t.binary_split, t.min_branch_fraction, t.max_share_to_split, t.max_byte_size,
     t.mem_period, t.stop_mem, t.remove_poor, t.merit_preprune, t.max_depth,
     t.n_splits, t.mem_crossing) = params
    t.root = NULL
    t.n_active = 0
    t.n_inactive = 0
    t.n_leaves = 0
    t.n_reactivable = 0
    t.inactive_est = 0.0
    t.active_est = 0.0
    t.overhead = 1.0
    t.growth_allowed = 1
    t.train_weight = 0.0
    t.ver = 0
    t.nbc_leaf = NULL
    t.nbc_ver = 0
    return 0


# ----------------------------------------------------------------------------- growth

cdef int attempt_split(Tree* t, int i, Node* node, Work* wk, Registry reg) except -1:
    """HoeffdingTreeClassifier._attempt_to_split (the leaf is replaced in place)."""
    cdef Sugg dec
    cdef list vids = []
    cdef int r = leaf_split_decision(t, i, node.lf, wk, reg, &dec, vids)
    if r == DECIDE_PRE_PRUNE:  # the leaf was deactivated
        enforce_size_limit(t)
    elif r == DECIDE_SPLIT:
        do_split(t, node, &dec, &wk.best, vids)
    return 0


cdef int do_split(Tree* t, Node* node, Sugg* dec, Dists* kids, list vids) except -1:
    """Turn the leaf into a branch with one new leaf per child distribution."""
    cdef Leaf* lf = node.lf
    cdef int k, nch = kids.nd, vid
    cdef Node** chs = <Node**>xcalloc(nch, sizeof(Node*))
    cdef int* chv = NULL
    cdef int* vmap = NULL
    cdef int vcap = 0
    try:
        for k in range(nch):
            chs[k] = node_new_leaf(lf.depth + 1, kids.c + kids.off[k], kids.w + kids.off[k],
                                   kids.off[k + 1] - kids.off[k])
        if dec.kind == SPLIT_NOMINAL_MULTIWAY:
            chv = <int*>xcalloc(nch, sizeof(int))
            for k in range(nch):
                vid = vids[k]
                chv[k] = vid
                if vid + 1 > vcap:
                    vcap = vid + 1
            vcap = grow_cap(0, vcap)
            vmap = <int*>xcalloc(vcap, sizeof(int))
            for k in range(nch):
                vmap[chv[k]] = k + 1
    except BaseException:
        for k in range(nch):
            node_free(chs[k])
        free(chs)
        free(chv)
        free(vmap)
        raise
    node.is_leaf = 0
    node.kind = dec.kind
    node.fid = dec.fid
    node.thr = dec.thr if dec.kind == SPLIT_NUMERIC_BINARY else 0.0
    node.vid = dec.vid if dec.kind == SPLIT_NOMINAL_BINARY else -1
    node.n_ch = nch
    node.cap_ch = nch
    node.ch = chs
    node.ch_vid = chv
    node.vmap = vmap
    node.vmap_cap = vcap
    # the branch keeps the leaf's stats
    node.n_bst = lf.n_st
    node.bst_c = lf.st_c
    node.bst_w = lf.st_w
    lf.st_c = NULL
    lf.st_w = NULL
    lf.n_st = 0
    leaf_free(lf)
    node.lf = NULL
    t.n_active -= 1
    t.n_active += nch
    t.n_leaves += nch - 1
    enforce_size_limit(t)
    return 1

cdef int enforce_size_limit(Tree* t) except -1:
    """HoeffdingTree._enforce_size_limit."""
    cdef double tree_size = t.overhead * (t.active_est + t.n_inactive * t.inactive_est)
    cdef Node** leaves
    cdef Ranked* ranked
    cdef char* off = NULL
    cdef long long L, max_active, cutoff, k, n
    cdef int j
    cdef bint has_nan
    cdef double total, mx
    cdef Leaf* lf
    cdef int reactivable = 0
    if t.n_inactive > 0 or tree_size > t.max_byte_size:
        if t.stop_mem:
            t.growth_allowed = 0
            return 0
    # River runs this after every split and walks every leaf (so a tree's learning slows
    # as it grows: O(leaves) per split). The kept counts say when the walk would change
    # nothing: no leaf to deactivate (cutoff 0) and none to reactivate. Then return: the
    # same result, without the walk, the list and the sort.
    L = t.n_leaves
    reactivable = t.n_reactivable > 0
    max_active = 0
    while max_active < L:
        max_active += 1
        if ((<double>max_active * t.active_est + <double>(L - max_active) * t.inactive_est)
                * t.overhead) > t.max_byte_size:
            max_active -= 1
            break
    cutoff = L - max_active
    if cutoff <= 0 and not reactivable:
        return 0
    # River walks the leaves (iter_leaves: left to right) and, if some must go, sorts them by
    # promise (Python's stable sort); here in C arrays, a size-limited tree's learning
    # running it after every split
    leaves = <Node**>xcalloc(L, sizeof(Node*))
    ranked = <Ranked*>xcalloc(L, sizeof(Ranked))
    try:
        n = 0
        gather_leaves(t.root, leaves, L, &n)
        if n != L:
            raise AssertionError(f"enforce_size_limit: {n} leaves walked, {L} kept")
        for k in range(L):
            ranked[k].pos = k
        if cutoff > 0:
            has_nan = False
            for k in range(L):
                lf = leaves[k].lf
                total = py_sum(lf.st_w, lf.n_st)
                if total > 0:
                    mx = lf.st_w[0]
                    for j in range(1, lf.n_st):
                        if lf.st_w[j] > mx:
                            mx = lf.st_w[j]
                    ranked[k].promise = total - mx
                else:
                    ranked[k].promise = 0.0
                has_nan |= isnan(ranked[k].promise)
            if has_nan:
                # weights that overflowed to inf: with nan among the keys, Python's sort is
                # no total order that a C sort could reproduce, so run it
                promises = [ranked[k].promise for k in range(L)]
                order = sorted(range(L), key=promises.__getitem__)
                for k in range(L):
                    ranked[k].pos = order[k]
            elif cutoff < L:
                select_first(ranked, L, cutoff)
        # only which leaves fall before the cutoff matters, not their order
        off = <char*>xcalloc(L, sizeof(char))
        for k in range(min(cutoff, L)):
            off[ranked[k].pos] = 1
        for k in range(L):
            lf = leaves[k].lf
            if off[k]:
                if lf.active:
                    leaf_deactivate(t, lf)
            else:
                if not lf.active and lf.depth < t.max_depth:
                    lf.active = 1
                    t.n_active += 1
                    t.n_inactive -= 1
                    t.n_reactivable -= 1
    finally:
        free(leaves)
        free(ranked)
        free(off)
    return 0

cdef int estimate_model_size(Tree* t, Registry reg) except -1:
    """HoeffdingTree._estimate_model_size, measuring the C structures."""
    cdef long long total_active = 0, total_inactive = 0, actual
    cdef double estimated
    sum_leaf_bytes(t.root, &total_active, &total_inactive)
    if total_active > 0 and t.n_active > 0:
        t.active_est = <double>total_active / <double>t.n_active
    if total_inactive > 0 and t.n_inactive > 0:
        t.inactive_est = <double>total_inactive / <double>t.n_inactive
    # the tree's own record without the leaf counts kept for _enforce_size_limit (added
    # later: leaving them out keeps every measurement, so max_size binds where it did)
    actual = (tree_bytes(t.root) + sizeof(Tree) - 2 * sizeof(long long)
              + reg.nf + reg.nc)
    estimated = <double>t.n_active * t.active_est + <double>t.n_inactive * t.inactive_est
    t.overhead = py_div(<double>actual, estimated)
    if <double>actual > t.max_byte_size:
        enforce_size_limit(t)
    return 0

# ----------------------------------------------------------------------------- learning

cdef int tree_learn(Tree* t, int i, XV* xv, Work* wk, Registry reg, int cid,
                    double w) except -1:
    """HoeffdingTreeClassifier.learn_one for tree i on the current view (the caller
    recorded the class: t.has_cls)."""
    cdef Node* node
    cdef Node* leaf
    cdef Leaf* lf
    cdef int b, nc
    cdef double ws, mod, before = t.train_weight
    # the cached votes are valid for this call only if nothing learned since they were made
    cdef bint cache_ok = t.nbc_leaf != NULL and t.nbc_ver == t.ver
    t.ver += 1
    t.train_weight += w
    if t.root == NULL:
        t.root = node_new_leaf(0, NULL, NULL, 0)
        t.n_active = 1
        t.n_leaves = 1
    node = t.root
    while not node.is_leaf:
        b = branch_no(node, xv)
        if b < 0:
            break
        node = node.ch[b]
    if node.is_leaf:
        lf = node.lf
        leaf_learn(t, lf, xv, wk, reg.nf, cid, w, cache_ok)
        if t.growth_allowed and lf.active:
            if lf.depth >= t.max_depth:
                leaf_deactivate(t, lf)  # not reactivable: at max_depth
            else:
                ws = leaf_total(lf)
                if ws - lf.last_split >= t.grace_period:
                    # River passes the parent and branch index to replace the leaf; the
                    # forest turns the leaf's node into the branch in place instead
                    attempt_split(t, i, node, wk, reg)
                    if node.is_leaf:
                        node.lf.last_split = ws
    else:
        while True:
            if node.kind == SPLIT_NOMINAL_MULTIWAY and in_view(xv, node.fid):
                # unseen value in a multiway split: River adds a branch
                leaf = node_new_leaf(node.depth + 1, NULL, NULL, 0)
                if node.n_ch >= node.cap_ch:
                    nc = grow_cap(node.cap_ch, node.n_ch + 1)
                    node.ch = <Node**>xrealloc(node.ch, nc * sizeof(Node*))
                    node.ch_vid = <int*>xrealloc(node.ch_vid, nc * sizeof(int))
                    node.cap_ch = nc
                b = xv.v[xv.vpos[node.fid]]
                if b >= node.vmap_cap:
                    nc = grow_cap(node.vmap_cap, b + 1)
                    node.vmap = <int*>xrealloc(node.vmap, nc * sizeof(int))
                    memset(node.vmap + node.vmap_cap, 0, (nc - node.vmap_cap) * sizeof(int))
                    node.vmap_cap = nc
                node.ch[node.n_ch] = leaf
                node.ch_vid[node.n_ch] = b
                node.n_ch += 1
                node.vmap[b] = node.n_ch
                t.n_active += 1
                t.n_leaves += 1
                node = leaf
            else:
                node = most_common(node)
                if not node.is_leaf:
                    node = walk_partial(node, xv)
            if node.is_leaf:
                break
        leaf_learn(t, node.lf, xv, wk, reg.nf, cid, w, cache_ok)
    # `_train_weight_seen_by_model % memory_estimate_period == 0` (float modulo)
    if t.mem_period == 0.0:
        raise ZeroDivisionError("float modulo")
    mod = fmod(t.train_weight, t.mem_period)
    if mod == 0.0:
        estimate_model_size(t, reg)
    elif t.mem_crossing and (floor(t.train_weight / t.mem_period)
                             != floor(before / t.mem_period)):
        # BoundedHoeffdingTree.learn_one: a multiple of the period was crossed (boosting's
        # fractional weights step over the multiples that River's check waits for)
        estimate_model_size(t, reg)
    return 0


# ----------------------------------------------------------------------------- state
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
                    s = <Spl*>xcalloc(1, sizeof(Spl))
                    lf.spl[lf.n_spl] = s
                    lf.n_spl += 1
                    s.fid = sp[0]
                    s.nominal = sp[1]
                    s.set_n = -1
                    lf.sidx[s.fid] = lf.n_spl
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
                        classes = sp[5]
                        s.n_cls = len(classes)
                        s.cap_cls = grow_cap(0, s.n_cls)
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
                        classes = sp[2]
                        s.n_cls = len(classes)
                        s.cap_cls = grow_cap(0, s.n_cls)
                        s.g = <GCls*>xcalloc(s.cap_cls, sizeof(GCls))
                        for c in range(s.n_cls):
                            g = &s.g[c]
                            (g.cid, g.n, g.mean, g.S, g.mn, g.mx) = classes[c]
                            cix_set(s, g.cid, c)
        else:
            _, depth, kind, fid, thr, vid, bst_c, bst_w, children, ch_vid = st
            nd.is_leaf = 0
            nd.depth = depth
            nd.kind = kind
            nd.fid = fid
            nd.thr = thr
            nd.vid = vid
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


# ----------------------------------------------------------------------------- flat state
# (pickling: the two streams of _flat.pxd, in pre-order; see tree_write for the layout)

cdef int node_write(Node* nd, Flat* f) except -1:
    """Node nd and its subtree (layout: tree_write)."""
    cdef Leaf* lf
    cdef Spl* s
    cdef NCls* cl
    cdef int k, c, q
    put_i(f, nd.is_leaf)
    put_i(f, nd.depth)
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
    put_i(f, nd.kind)
    put_i(f, nd.fid)
    put_d(f, nd.thr)
    put_i(f, nd.vid)
    put_i(f, nd.n_bst)
    for k in range(nd.n_bst):
        put_i(f, nd.bst_c[k])
        put_d(f, nd.bst_w[k])
    put_i(f, nd.n_ch)
    if nd.kind == SPLIT_NOMINAL_MULTIWAY:
        for k in range(nd.n_ch):
            put_i(f, nd.ch_vid[k])
    for k in range(nd.n_ch):
        node_write(nd.ch[k], f)
    return 0


cdef int tree_write(Tree* t, int nf, int nc, Flat* f) except -1:
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
        put_i(f, t.fstate[k])
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
    cdef const int* nvals = tb.nvals
    try:
        nd.is_leaf = get_i(r, 0, 2)
        nd.depth = get_i(r, 0, 2147483647)
        n_ch[0] = 0
        if nd.is_leaf:
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
        nd.kind = <SplitKind>get_i(r, 0, 3)
        nd.fid = get_i(r, 0, nf)
        nd.thr = get_d(r)
        nd.vid = get_i(r, -1, 2147483647)
        if nd.kind == SPLIT_NOMINAL_BINARY and not 0 <= nd.vid < nvals[nd.fid]:
            raise ValueError("a split on a value out of range")
        n = get_n(r, 1, 1)
        nd.bst_c = <int*>xcalloc(n, sizeof(int))
        nd.bst_w = <double*>xcalloc(n, sizeof(double))
        for k in range(n):
            nd.bst_c[k] = get_i(r, 0, nc)
            nd.bst_w[k] = get_d(r)
        nd.n_bst = n
        n = get_n(r, 3, 0)  # a child takes at least three integers
        if (nd.kind == SPLIT_NOMINAL_MULTIWAY and n < 1) or (
                nd.kind != SPLIT_NOMINAL_MULTIWAY and n != 2):
            raise ValueError("a split with the wrong number of children")
        nd.cap_ch = grow_cap(0, n)
        nd.ch = <Node**>xcalloc(nd.cap_ch, sizeof(Node*))
        if nd.kind == SPLIT_NOMINAL_MULTIWAY:
            nd.ch_vid = <int*>xcalloc(nd.cap_ch, sizeof(int))
            get_branches(r, n, nvals[nd.fid], nd.ch_vid, &nd.vmap, &nd.vmap_cap)
        n_ch[0] = n
    except BaseException:
        node_free(nd)
        raise
    return nd


cdef void node_attach(void* parent, void* child) noexcept:
    cdef Node* p = <Node*>parent
    p.ch[p.n_ch] = <Node*>child
    p.n_ch += 1


cdef int tree_read(Rd* r, Tree* t, const Tables* tb) except -1:
    """Tree t's state from the streams (tree_write's layout), into a fresh tree with its
    buffers for the tables' features and classes allocated."""
    cdef int k
    get_counters(r, &t.n_active, &t.n_inactive, &t.inactive_est, &t.active_est, &t.overhead,
                 &t.train_weight, &t.growth_allowed)
    for k in range(tb.nf):
        t.fstate[k] = <unsigned char>get_i(r, 0, 256)
    for k in range(tb.nc):
        t.has_cls[k] = get_i(r, 0, 2)
    if get_i(r, 0, 2):
        read_preorder(r, tb, node_read, node_attach, <void**>&t.root)
    return 0
