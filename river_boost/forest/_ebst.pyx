# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The regression trees' split observers (see _ebst.pxd), River's arithmetic in River's order.

The E-BST keeps, per node, the target statistics of the values at most its own that went
through it; River walks it in order with an auxiliary ``Var`` (``_find_best_split``) and prunes
it bottom-up after a failed split attempt (``remove_bad_splits``), both with explicit stacks
here as in River (an E-BST of unrounded values can be as deep as the number of values)."""

from libc.math cimport INFINITY
from libc.stdlib cimport free
from libc.string cimport memset

from river_boost.forest._criteria cimport vr_merit_of_split
from river_boost.forest._flat cimport Flat, Rd, get_d, get_i, get_n, put_d, put_i
from river_boost.forest._forest_structs cimport (
    SPLIT_NOMINAL_BINARY, SPLIT_NOMINAL_MULTIWAY, SPLIT_NUMERIC_BINARY, make_room, xcalloc,
    xrealloc,
)
from river_boost.forest._qo cimport (
    qspl_bytes, qspl_export, qspl_free, qspl_import, qspl_read, qspl_write,
)
from river_boost.forest._reg_structs cimport (
    RSPL_NOMINAL, RSPL_QO, EBNode, QSpl, RSpl, RSugg, VarS, grow_imap, var_iadd, var_isub,
    var_update,
)


cdef RSpl* rspl_new(int fid, int kind) except NULL:
    """An E-BST (RSPL_EBST) or nominal (RSPL_NOMINAL) splitter; a QO one: _qo.qspl_new."""
    cdef RSpl* s = <RSpl*>xcalloc(1, sizeof(RSpl))
    s.fid = fid
    s.kind = kind
    return s


cdef void ebnode_free(EBNode* root) noexcept:
    # iterative: an E-BST can be deep
    cdef EBNode* n = root
    cdef EBNode* nx
    # rotate left children up (a standard constant-space tree deletion)
    while n != NULL:
        if n.left != NULL:
            nx = n.left
            n.left = nx.right
            nx.right = n
            n = nx
        else:
            nx = n.right
            free(n)
            n = nx


cdef void rspl_free(RSpl* s) noexcept:
    if s == NULL:
        return
    if s.kind == RSPL_QO:
        qspl_free(<QSpl*>s)
        return
    ebnode_free(s.root)
    free(s.vals)
    free(s.st)
    free(s.vpos)
    free(s)


cdef inline EBNode* ebnode_new(double att, double y, double w) except NULL:
    cdef EBNode* n = <EBNode*>xcalloc(1, sizeof(EBNode))
    n.att = att
    var_update(&n.est, y, w)
    return n


cdef int ebst_update(RSpl* s, double att, double y, double w) except -1:
    """EBSTSplitter.update (att already rounded by TEBSTSplitter), EBSTNode.insert_value."""
    cdef EBNode* cur = s.root
    cdef EBNode* ante = NULL
    cdef bint is_right = False
    if cur == NULL:
        s.root = ebnode_new(att, y, w)
        s.n_nodes = 1
        return 0
    while cur != NULL:
        ante = cur
        if att == cur.att:
            var_update(&cur.est, y, w)
            return 0
        elif att < cur.att:
            var_update(&cur.est, y, w)
            cur = cur.left
            is_right = False
        else:
            cur = cur.right
            is_right = True
    if is_right:
        ante.right = ebnode_new(att, y, w)
    else:
        ante.left = ebnode_new(att, y, w)
    s.n_nodes += 1
    return 0


cdef int rnom_update(RSpl* s, int vid, double y, double w) except -1:
    """NominalSplitterReg.update."""
    cdef int p
    grow_imap(&s.vpos, &s.vpos_cap, vid)
    p = s.vpos[vid]
    if p == 0:
        make_room(s.n_vals, &s.cap_vals, <void**>&s.vals, sizeof(int), <void**>&s.st, sizeof(VarS))
        s.vals[s.n_vals] = vid
        memset(&s.st[s.n_vals], 0, sizeof(VarS))
        s.n_vals += 1
        p = s.n_vals
        s.vpos[vid] = p
    var_update(&s.st[p - 1], y, w)
    return 0


cdef inline double split_merit(EBNode* n, VarS* aux, VarS* pre, double min_samples,
                               VarS* post) except? -1.0:
    """left = combine_stats(n.estimator, aux); right = combine_stats(pre, left, subtract=True);
    their merit (post: [left, right])."""
    post[0] = n.est
    var_iadd(&post[0], aux)
    post[1] = pre[0]
    var_isub(&post[1], &post[0])
    return vr_merit_of_split(pre, post, 2, min_samples)


cdef struct Frame:
    # a node of an E-BST walk and where the walk is at it
    EBNode* node
    EBNode* parent
    int is_left
    int phase
    int went_right


cdef Frame* frames(RSpl* s) except NULL:
    """A stack deep enough for any walk of the splitter's E-BST, holding its root (freed by
    the caller)."""
    cdef Frame* stack = <Frame*>xcalloc(s.n_nodes + 1, sizeof(Frame))
    stack[0] = Frame(s.root, NULL, 1, 0, 0)
    return stack


cdef inline bint descend_left(Frame* stack, int* top) noexcept:
    """The walk at the top frame goes on to its node's left child, if any (pushed)."""
    cdef Frame* fr = &stack[top[0] - 1]
    fr.phase = 1
    if fr.node.left == NULL:
        return False
    stack[top[0]] = Frame(fr.node.left, fr.node, 1, 0, 0)
    top[0] += 1
    return True


cdef int ebst_best(RSpl* s, VarS* pre, double min_samples, RSugg* out) except -1:
    """EBSTSplitter.best_evaluated_split_suggestion (out: merit -inf, fid -1 if empty)."""
    cdef VarS aux
    cdef VarS post[2]
    cdef double merit
    cdef EBNode* n
    cdef Frame* stack
    cdef Frame* fr
    cdef int top = 0
    out.merit = -INFINITY
    out.fid = -1
    if s.root == NULL:
        return 0
    memset(&aux, 0, sizeof(VarS))
    stack = frames(s)
    try:
        # in order: left subtree, the node, aux += node, right subtree, aux -= node
        top = 1
        while top > 0:
            fr = &stack[top - 1]
            n = fr.node
            if fr.phase == 0:
                descend_left(stack, &top)
                continue
            if fr.phase == 1:
                merit = split_merit(n, &aux, pre, min_samples, post)
                if merit > out.merit:
                    out.merit = merit
                    out.fid = s.fid
                    out.kind = SPLIT_NUMERIC_BINARY
                    out.thr = n.att
                    out.left = post[0]
                    out.right = post[1]
                if n.right != NULL:
                    var_iadd(&aux, &n.est)
                    fr.phase = 2
                    stack[top] = Frame(n.right, NULL, 0, 0, 0)
                    top += 1
                else:
                    top -= 1
                continue
            var_isub(&aux, &n.est)
            top -= 1
    finally:
        free(stack)
    return 0


cdef int rnom_best(RSpl* s, VarS* pre, double min_samples, bint binary_only, int* order,
                   RSugg* out) except -1:
    """NominalSplitterReg.best_evaluated_split_suggestion; order: the positions of the values
    in sorted() order. A multiway winner leaves its children's stats to the caller (the
    splitter's, in order)."""
    cdef VarS* post
    cdef VarS two[2]
    cdef double merit
    cdef int k
    out.merit = -INFINITY
    out.fid = -1
    if not binary_only and s.n_vals > 2:
        post = <VarS*>xcalloc(s.n_vals, sizeof(VarS))
        for k in range(s.n_vals):
            post[k] = s.st[order[k]]
        merit = vr_merit_of_split(pre, post, s.n_vals, min_samples)
        free(post)
        out.merit = merit
        out.fid = s.fid
        out.kind = SPLIT_NOMINAL_MULTIWAY
    for k in range(s.n_vals):
        two[0] = s.st[order[k]]
        two[1] = pre[0]
        var_isub(&two[1], &two[0])
        merit = vr_merit_of_split(pre, two, 2, min_samples)
        if merit > out.merit:
            out.merit = merit
            out.fid = s.fid
            out.kind = SPLIT_NOMINAL_BINARY
            out.vid = s.vals[order[k]]
            out.left = two[0]
            out.right = two[1]
    return 0


cdef int ebst_remove_bad_splits(RSpl* s, VarS* pre, double min_samples, double ratio,
                                double vr, double e) except -1:
    """EBSTSplitter.remove_bad_splits (River's _remove_bad_split_nodes, frame by frame)."""
    cdef VarS aux
    cdef VarS post[2]
    cdef double merit
    cdef EBNode* n
    cdef EBNode* p
    cdef bint child_bad = False, is_bad
    cdef Frame* stack
    cdef Frame* fr
    cdef Frame f
    cdef int top
    if s.root == NULL:
        return 0
    memset(&aux, 0, sizeof(VarS))
    stack = frames(s)
    try:
        # frames: node, parent, is_left_child, phase (0 left, 1 right, 2 eval), went right
        top = 1
        while top > 0:
            fr = &stack[top - 1]
            n = fr.node
            if fr.phase == 0:
                if not descend_left(stack, &top):
                    child_bad = True
                continue
            if fr.phase == 1:
                if not child_bad:
                    top -= 1
                    child_bad = False
                    continue
                if n.right != NULL:
                    var_iadd(&aux, &n.est)
                    fr.phase = 2
                    fr.went_right = 1
                    stack[top] = Frame(n.right, n, 0, 0, 0)
                    top += 1
                    continue
                child_bad = True
                fr.phase = 2
                continue
            if fr.went_right:
                var_isub(&aux, &n.est)
            is_bad = child_bad
            f = fr[0]
            top -= 1
            if is_bad:
                merit = split_merit(n, &aux, pre, min_samples, post)
                if (merit / vr) < (ratio - 2 * e):
                    p = f.parent
                    if p == NULL:
                        s.root = NULL
                    elif f.is_left:
                        p.left = NULL
                    else:
                        p.right = NULL
                    ebnode_free(n)
                    s.n_nodes -= 1
                    child_bad = True
                    continue
            child_bad = False
    finally:
        free(stack)
    return 0


cdef long long rspl_bytes(RSpl* s) noexcept:
    if s.kind == RSPL_QO:
        return qspl_bytes(<QSpl*>s)
    return (sizeof(RSpl) + s.n_nodes * sizeof(EBNode)
            + s.cap_vals * (sizeof(int) + sizeof(VarS)) + s.vpos_cap * sizeof(int))


cdef tuple rspl_export(RSpl* s):
    """(fid, kind, E-BST nodes in pre-order as (att, n, mean, S, has_left, has_right),
    nominal values and their (n, mean, S)); a QO splitter's: _qo.qspl_export."""
    cdef list nodes = []
    cdef list stack
    cdef EBNode* n
    if s.kind == RSPL_QO:
        return qspl_export(<QSpl*>s)
    if s.root != NULL:
        stack = [<size_t>s.root]
        while stack:
            n = <EBNode*><size_t>stack.pop()
            nodes.append((n.att, n.est.n, n.est.mean, n.est.S, n.left != NULL,
                          n.right != NULL))
            if n.right != NULL:
                stack.append(<size_t>n.right)
            if n.left != NULL:
                stack.append(<size_t>n.left)
    vals = [s.vals[k] for k in range(s.n_vals)]
    st = [(s.st[k].n, s.st[k].mean, s.st[k].S) for k in range(s.n_vals)]
    return (s.fid, s.kind, nodes, vals, st)


cdef RSpl* rspl_import(tuple st) except NULL:
    cdef RSpl* s
    cdef EBNode* n
    cdef EBNode* parent
    cdef int k, nv, vmax
    fid, kind, nodes, vals, stats = st
    if kind == RSPL_QO:
        return qspl_import(st)
    s = rspl_new(fid, kind)
    # pre-order with child flags: rebuild with a stack of (node, pending right)
    pending = []   # nodes whose right child comes later
    prev_slot = None
    for att, n_, mean, S, has_l, has_r in nodes:
        n = <EBNode*>xcalloc(1, sizeof(EBNode))
        n.att = att
        n.est.n = n_
        n.est.mean = mean
        n.est.S = S
        s.n_nodes += 1
        if s.root == NULL:
            s.root = n
        elif prev_slot is not None:  # the previous node's left child
            (<EBNode*><size_t>prev_slot).left = n
        else:
            parent = <EBNode*><size_t>pending.pop()
            parent.right = n
        if has_r:
            pending.append(<size_t>n)
        prev_slot = <size_t>n if has_l else None
    nv = len(vals)
    if nv > 0:
        vmax = max(vals) + 1
        s.vals = <int*>xcalloc(nv, sizeof(int))
        s.st = <VarS*>xcalloc(nv, sizeof(VarS))
        s.vpos = <int*>xcalloc(vmax, sizeof(int))
        s.cap_vals = nv
        s.vpos_cap = vmax
        for k in range(nv):
            s.vals[k] = vals[k]
            s.st[k].n, s.st[k].mean, s.st[k].S = stats[k]
            s.vpos[s.vals[k]] = k + 1
        s.n_vals = nv
    return s


# ----------------------------------------------------------------------------- flat state

cdef int rspl_write(RSpl* s, Flat* f) except -1:
    """A splitter's state (layout: _regtrees.rtree_write): i feature, kind (RSplKind); a QO
    splitter: _qo.qspl_write; an E-BST: i n_nodes, then in pre-order (i child flags: 1 left, 2 right; d att, n, mean, S); a nominal
    splitter: i n_vals, then (i value; d n, mean, S) in insertion order."""
    cdef EBNode* n
    cdef EBNode** stack = NULL
    cdef long long top = 0, cap = 0, k
    put_i(f, s.fid)
    put_i(f, s.kind)
    if s.kind == RSPL_QO:
        return qspl_write(<QSpl*>s, f)
    if s.kind == RSPL_NOMINAL:
        put_i(f, s.n_vals)
        for k in range(s.n_vals):
            put_i(f, s.vals[k])
            put_d(f, s.st[k].n)
            put_d(f, s.st[k].mean)
            put_d(f, s.st[k].S)
        return 0
    put_i(f, s.n_nodes)
    if s.root == NULL:
        return 0
    try:
        cap = 64
        stack = <EBNode**>xcalloc(cap, sizeof(EBNode*))
        stack[0] = s.root
        top = 1
        while top > 0:
            top -= 1
            n = stack[top]
            put_i(f, (n.left != NULL) | ((n.right != NULL) << 1))
            put_d(f, n.att)
            put_d(f, n.est.n)
            put_d(f, n.est.mean)
            put_d(f, n.est.S)
            if top + 2 > cap:
                cap *= 2
                stack = <EBNode**>xrealloc(stack, cap * sizeof(EBNode*))
            if n.right != NULL:
                stack[top] = n.right
                top += 1
            if n.left != NULL:
                stack[top] = n.left
                top += 1
    finally:
        free(stack)
    return 0


cdef RSpl* rspl_read(Rd* r, int nf, const int* nvals) except NULL:
    """The splitter rspl_write wrote, every id and the E-BST's shape checked."""
    cdef int fid = get_i(r, 0, nf)
    cdef int kind = get_i(r, 0, 3)  # (0.2.x's states: 0 and 1)
    cdef RSpl* s
    if kind == RSPL_QO:
        return qspl_read(r, fid)
    s = rspl_new(fid, kind)
    cdef EBNode* n
    cdef EBNode* prev = NULL  # the node whose left child comes next, if any
    cdef EBNode** pending = NULL  # nodes whose right child comes later
    cdef long long npend = 0, k, m
    cdef int flags, vid
    try:
        if kind == RSPL_NOMINAL:
            m = get_n(r, 1, 3)
            if m > 0:
                s.vals = <int*>xcalloc(m, sizeof(int))
                s.st = <VarS*>xcalloc(m, sizeof(VarS))
                s.cap_vals = m
                s.vpos_cap = nvals[fid] if nvals[fid] > 0 else 1
                s.vpos = <int*>xcalloc(s.vpos_cap, sizeof(int))
            for k in range(m):
                vid = get_i(r, 0, nvals[fid])
                if s.vpos[vid]:
                    raise ValueError("a value repeated in a splitter")
                s.vals[k] = vid
                s.st[k].n = get_d(r)
                s.st[k].mean = get_d(r)
                s.st[k].S = get_d(r)
                s.vpos[vid] = k + 1
                s.n_vals += 1
            return s
        m = get_n(r, 1, 4)
        if m > 0:
            pending = <EBNode**>xcalloc(m, sizeof(EBNode*))
        for k in range(m):
            flags = get_i(r, 0, 4)
            n = <EBNode*>xcalloc(1, sizeof(EBNode))
            if s.root == NULL:
                s.root = n
            elif prev != NULL:
                prev.left = n
            elif npend > 0:
                npend -= 1
                pending[npend].right = n
            else:
                free(n)
                raise ValueError("an E-BST not in pre-order")
            s.n_nodes += 1
            n.att = get_d(r)
            n.est.n = get_d(r)
            n.est.mean = get_d(r)
            n.est.S = get_d(r)
            if flags & 2:
                pending[npend] = n
                npend += 1
            prev = n if flags & 1 else NULL
        if prev != NULL or npend > 0:
            raise ValueError("an E-BST not in pre-order")
    except BaseException:
        rspl_free(s)
        raise
    finally:
        free(pending)
    return s
