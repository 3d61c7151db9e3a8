# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled forest's tree storage (see _trees.pxd), bit for bit as River's
HoeffdingTreeClassifier: see _forest.pyx for how exactness is kept."""

from libc.math cimport isnan
from libc.stdlib cimport free
from libc.string cimport memset

from river_boost.forest._forest_structs cimport (
    DECIDE_PRE_PRUNE, DECIDE_SPLIT, SPLIT_NOMINAL_BINARY, SPLIT_NOMINAL_MULTIWAY,
    SPLIT_NUMERIC_BINARY, XV, Dists, Leaf, Node, Spl, Sugg, Tree, View, Work, grow_cap, in_view,
    make_room, xcalloc, xrealloc,
)
from river_boost.forest._leaves cimport (
    leaf_bytes, leaf_deactivate, leaf_free, leaf_learn, leaf_new, leaf_split_decision, leaf_total,
)
from river_boost.forest._pymath cimport PySum, ps_add, ps_init, ps_result, py_sum
from river_boost.forest._registry cimport Registry
from river_boost.forest._size cimport max_active_leaves, measure_due, measured, stops_growing
from river_boost.forest._splitters cimport spl_allocated


# ----------------------------------------------------------------------------- nodes

cdef void subtree_free(Node* nd, OwnFree own) noexcept:
    """Free nd and its subtree, of either kind (an RNode begins as a Node): `own` frees what
    is the kind's own in a node (a leaf's statistics, a classifier branch's stats)."""
    cdef int k
    if nd == NULL:
        return
    own(nd)
    if not nd.is_leaf:
        for k in range(nd.n_ch):
            subtree_free(nd.ch[k], own)
        free(nd.ch)
        free(nd.ch_vid)
        free(nd.vmap)
    free(nd)


cdef void node_own_free(Node* nd) noexcept:
    if nd.is_leaf:
        leaf_free(nd.lf)
    else:
        free(nd.bst_c)
        free(nd.bst_w)


cdef void node_free(Node* nd) noexcept:
    subtree_free(nd, node_own_free)


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


cdef int heaviest_child(Node* nd, NodeTotal total) noexcept:
    """Branch.most_common_path, of either kind (``total``: its total_weight): the child of the
    most weight, the first of equals (a binary split's second only if strictly heavier)."""
    cdef int k, best = 0
    cdef double bw, w
    bw = total(nd.ch[0])
    for k in range(1, nd.n_ch):
        w = total(nd.ch[k])
        if w > bw:
            bw = w
            best = k
    return best


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
            nd = nd.ch[heaviest_child(nd, node_total)]
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
    cdef long long b = t.ccap + t.nbc_cap * sizeof(double)
    b += t.nbc_xcap * (2 * sizeof(int) + sizeof(double))
    if t.root != NULL:
        b += node_allocated(t.root)
    return b


cdef void tree_free(Tree* t) noexcept:
    """Free everything tree t owns (its nodes and its per-tree buffers)."""
    node_free(t.root)
    free(t.has_cls)
    free(t.nbc_out)
    free(t.nbc_f)
    free(t.nbc_v)
    free(t.nbc_d)
    memset(t, 0, sizeof(Tree))


cdef int tree_init(Tree* t, tuple params) except -1:
    """A fresh tree's parameters and counters (HoeffdingTreeClassifier.__init__); the
    buffers (has_cls, naive-Bayes cache) are left to the caller."""
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
    cdef Node** leaves
    cdef Ranked* ranked
    cdef char* off = NULL
    cdef long long L, cutoff, k, n
    cdef int j
    cdef bint has_nan
    cdef double total, mx
    cdef Leaf* lf
    cdef int reactivable = 0
    if stops_growing(t):
        return 0
    # River runs this after every split and walks every leaf (so a tree's learning slows
    # as it grows: O(leaves) per split). The kept counts say when the walk would change
    # nothing: no leaf to deactivate (cutoff 0) and none to reactivate. Then return: the
    # same result, without the walk, the list and the sort.
    L = t.n_leaves
    reactivable = t.n_reactivable > 0
    cutoff = L - max_active_leaves(t, L)
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
    cdef long long total_active = 0, total_inactive = 0
    sum_leaf_bytes(t.root, &total_active, &total_inactive)
    # the tree's own record and its feature view (the storage's View: once the tree's own
    # fields, the same bytes) without the leaf counts kept for _enforce_size_limit (added
    # later: leaving them out keeps every measurement, so max_size binds where it did)
    if measured(t, total_active, total_inactive, tree_bytes(t.root) + sizeof(Tree) + sizeof(View)
                - 2 * sizeof(long long) + reg.nf + reg.nc):
        enforce_size_limit(t)
    return 0

# ----------------------------------------------------------------------------- learning

cdef int tree_learn(Tree* t, const unsigned char* fstate, int i, XV* xv, Work* wk, Registry reg,
                    int cid, double w) except -1:
    """HoeffdingTreeClassifier.learn_one for tree i on the current view (the caller
    recorded the class: t.has_cls)."""
    cdef Node* node
    cdef Node* leaf
    cdef Leaf* lf
    cdef int b, nc
    cdef double ws, before = t.train_weight
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
        leaf_learn(t, fstate, lf, xv, wk, reg.nf, cid, w, cache_ok)
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
                make_room(node.n_ch, &node.cap_ch, <void**>&node.ch, sizeof(Node*),
                          <void**>&node.ch_vid, sizeof(int))
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
                node = node.ch[heaviest_child(node, node_total)]
                if not node.is_leaf:
                    node = walk_partial(node, xv)
            if node.is_leaf:
                break
        leaf_learn(t, fstate, node.lf, xv, wk, reg.nf, cid, w, cache_ok)
    if measure_due(t, before):
        estimate_model_size(t, reg)
    return 0
