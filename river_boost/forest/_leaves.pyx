# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled forest's leaves (see _leaves.pxd), bit for bit as River's: see _forest.pyx for
how exactness is kept."""

from libc.math cimport INFINITY, isnan
from libc.stdlib cimport free
from libc.string cimport memcmp, memcpy, memset

from river_boost.forest._criteria cimport entropy_w, range_of_merit
from river_boost.forest._forest_structs cimport (
    CRIT_INFO_GAIN, DECIDE_NO_SPLIT, DECIDE_PRE_PRUNE, DECIDE_SPLIT, F_NOMATTR,
    LEAF_MAJORITY_CLASS, LEAF_NAIVE_BAYES, LEAF_NAIVE_BAYES_ADAPTIVE, SPLIT_NOMINAL_BINARY,
    SPLIT_NUMERIC_BINARY, XV, Leaf, Node, Spl, Sugg, Tree, Work, grow_cap, in_view, make_room,
    push_ptr, work_votes, xcalloc, xrealloc,
)
from river_boost.forest._pymath cimport PySum, ps_add, ps_init, ps_result, py_div, py_exp, py_log
from river_boost.forest._pymath cimport py_sqrt, py_sum
from river_boost.forest._registry cimport Registry
from river_boost.forest._splitters cimport (
    best_suggestion, gauss_log_pdf, gauss_post, gauss_update, gfind, nom_cond_proba,
    nom_post_binary, nom_post_multiway, nom_update, spl_bytes, spl_free, spl_new,
)

cdef double NEG_INF = -INFINITY


# ----------------------------------------------------------------------------- life cycle

cdef Leaf* leaf_new(int depth, int* st_c, double* st_w, int n_st) except NULL:
    """HoeffdingTreeClassifier._new_leaf: stats copied, _last_split_attempt_at = total_weight."""
    cdef Leaf* lf = <Leaf*>xcalloc(1, sizeof(Leaf))
    lf.depth = depth
    lf.active = 1
    if n_st > 0:
        lf.cap_st = grow_cap(0, n_st)
        lf.st_c = <int*>xrealloc(NULL, lf.cap_st * sizeof(int))
        lf.st_w = <double*>xrealloc(NULL, lf.cap_st * sizeof(double))
        memcpy(lf.st_c, st_c, n_st * sizeof(int))
        memcpy(lf.st_w, st_w, n_st * sizeof(double))
        lf.n_st = n_st
    lf.last_split = py_sum(lf.st_w, lf.n_st)
    return lf


cdef void leaf_drop_splitters(Leaf* lf) noexcept:
    # HTLeaf.deactivate (splitters = None) and activate (splitters = {}): the disabled
    # attributes survive both.
    cdef int k
    for k in range(lf.n_spl):
        if lf.sidx[lf.spl[k].fid] > 0:
            lf.sidx[lf.spl[k].fid] = 0
        spl_free(lf.spl[k])
    lf.n_spl = 0


cdef void leaf_deactivate(Tree* t, Leaf* lf) noexcept:
    """An active leaf stops learning split statistics (HTLeaf.deactivate), and the tree's
    counts follow: active, inactive, and inactive above max_depth (reactivable)."""
    lf.active = 0
    leaf_drop_splitters(lf)
    t.n_inactive += 1
    t.n_active -= 1
    if lf.depth < t.max_depth:
        t.n_reactivable += 1


cdef void leaf_free(Leaf* lf) noexcept:
    if lf == NULL:
        return
    leaf_drop_splitters(lf)
    free(lf.spl)
    free(lf.sidx)
    free(lf.st_c)
    free(lf.st_w)
    free(lf)


# ----------------------------------------------------------------------------- statistics

cdef inline int stats_find(Leaf* lf, int cid) noexcept:
    cdef int k
    for k in range(lf.n_st):
        if lf.st_c[k] == cid:
            return k
    return -1


cdef int leaf_update_stats(Leaf* lf, int cid, double w) except -1:
    # LeafMajorityClass.update_stats
    cdef int k = stats_find(lf, cid)
    if k >= 0:
        lf.st_w[k] += w
        return 0
    make_room(lf.n_st, &lf.cap_st, <void**>&lf.st_c, sizeof(int), <void**>&lf.st_w, sizeof(double))
    lf.st_c[lf.n_st] = cid
    lf.st_w[lf.n_st] = w
    lf.n_st += 1
    return 0


cdef int mc_argmax(Leaf* lf) except -2:
    """max(mc_pred, key=mc_pred.get) over normalize_values_in_dict(stats, inplace=False)."""
    cdef double factor = py_sum(lf.st_w, lf.n_st)
    cdef double mult = 0.0, best, v
    cdef int k, bk
    cdef bint normalize
    if lf.n_st == 0:
        return -1
    normalize = not (factor == 0.0 or isnan(factor))
    if normalize:
        mult = 1.0 / factor
        best = lf.st_w[0] * mult
    else:
        best = lf.st_w[0]
    bk = 0
    for k in range(1, lf.n_st):
        v = lf.st_w[k] * mult if normalize else lf.st_w[k]
        if v > best:
            best = v
            bk = k
    return lf.st_c[bk]



# ----------------------------------------------------------------------------- naive Bayes

cdef int leaf_nb(Leaf* lf, XV* xv, Work* wk, double* out) except -1:
    """do_naive_bayes_prediction(x, stats, splitters) -> out aligned with stats order;
    returns the number of entries (0 for River's {})."""
    cdef double total, cw, v, lp, tmp, max_ll, lse
    cdef int k, q, j, gi, cid
    cdef Spl* s
    cdef PySum acc
    cdef int nq = 0
    cdef Spl** qs
    cdef int* qj
    if lf.n_st == 0:
        return 0
    total = py_sum(lf.st_w, lf.n_st)
    if total == 0.0:
        return 0
    # the splitters of features present in x, in the splitters' order
    if lf.n_spl > wk.nbq_cap:
        wk.nbq_cap = grow_cap(wk.nbq_cap, lf.n_spl)
        wk.nbq = <Spl**>xrealloc(wk.nbq, wk.nbq_cap * sizeof(Spl*))
        wk.nbj = <int*>xrealloc(wk.nbj, wk.nbq_cap * sizeof(int))
    qs = wk.nbq
    qj = wk.nbj
    for q in range(lf.n_spl):
        s = lf.spl[q]
        if in_view(xv, s.fid):
            qs[nq] = s
            qj[nq] = xv.vpos[s.fid]
            nq += 1
    for k in range(lf.n_st):
        cw = lf.st_w[k]
        cid = lf.st_c[k]
        if cw > 0.0:
            v = py_log(cw / total)
        else:
            out[k] = 0.0
            continue
        for q in range(nq):
            s = qs[q]
            j = qj[q]
            if not s.nominal:
                gi = gfind(s, cid)
                if gi < 0:
                    continue
                lp = gauss_log_pdf(&s.g[gi], xv.d[j])
                if lp > NEG_INF:
                    v += lp
            else:
                tmp = nom_cond_proba(s, xv.v[j], cid)
                v += py_log(tmp) if tmp > 0.0 else 0.0
        out[k] = v
    max_ll = out[0]
    for k in range(1, lf.n_st):
        if out[k] > max_ll:
            max_ll = out[k]
    ps_init(&acc)
    for k in range(lf.n_st):
        ps_add(&acc, py_exp(out[k] - max_ll))
    lse = max_ll + py_log(ps_result(&acc))
    for k in range(lf.n_st):
        out[k] = py_exp(out[k] - lse)
    return lf.n_st

cdef bint nb_cached(Tree* t, Leaf* lf, XV* xv) noexcept:
    """Whether the votes of the last prediction are those of this leaf and this x."""
    cdef int k, j
    if t.nbc_leaf != lf or t.nbc_nv != xv.nv:
        return False
    for k in range(xv.nv):
        j = xv.vj[k]
        if t.nbc_f[k] != xv.f[j] or t.nbc_v[k] != xv.v[j]:
            return False
        if memcmp(&t.nbc_d[k], &xv.d[j], sizeof(double)) != 0:
            return False
    return True

cdef int nb_store(Tree* t, Leaf* lf, XV* xv, double* out, int n) except -1:
    cdef int k, j, nc
    if n > t.nbc_cap:
        nc = grow_cap(t.nbc_cap, n)
        t.nbc_out = <double*>xrealloc(t.nbc_out, nc * sizeof(double))
        t.nbc_cap = nc
    if xv.nv > t.nbc_xcap:
        nc = grow_cap(t.nbc_xcap, xv.nv)
        t.nbc_f = <int*>xrealloc(t.nbc_f, nc * sizeof(int))
        t.nbc_v = <int*>xrealloc(t.nbc_v, nc * sizeof(int))
        t.nbc_d = <double*>xrealloc(t.nbc_d, nc * sizeof(double))
        t.nbc_xcap = nc
    memcpy(t.nbc_out, out, n * sizeof(double))
    for k in range(xv.nv):
        j = xv.vj[k]
        t.nbc_f[k] = xv.f[j]
        t.nbc_v[k] = xv.v[j]
        t.nbc_d[k] = xv.d[j]
    t.nbc_nv = xv.nv
    t.nbc_n = n
    t.nbc_leaf = lf
    t.nbc_ver = t.ver
    return 0

# ----------------------------------------------------------------------------- learning

cdef int leaf_learn(Tree* t, const unsigned char* fstate, Leaf* lf, XV* xv, Work* wk, int nf,
                    int cid, double w, bint cache_ok) except -1:
    """The leaf's learn_one: its stats, then (active) its splitters, in x's order."""
    cdef int k, bk, n, j, fid, si
    cdef double best
    cdef double* out
    cdef Spl* s
    if t.leaf_pred == LEAF_NAIVE_BAYES_ADAPTIVE and lf.active:
        # LeafNaiveBayesAdaptive.learn_one: score both predictors before learning
        if lf.n_st == 0 or mc_argmax(lf) == cid:
            lf.mc_correct += w
        out = work_votes(wk, lf.n_st + 1)
        if cache_ok and nb_cached(t, lf, xv):
            n = t.nbc_n
            memcpy(out, t.nbc_out, n * sizeof(double))
        else:
            n = leaf_nb(lf, xv, wk, out)
        if n > 0:
            bk = 0
            best = out[0]
            for k in range(1, n):
                if out[k] > best:
                    best = out[k]
                    bk = k
            if lf.st_c[bk] == cid:
                lf.nb_correct += w
    leaf_update_stats(lf, cid, w)
    if not lf.active:
        return 0
    # HTLeaf.update_splitters, in x's order
    for k in range(xv.nv):
        j = xv.vj[k]
        fid = xv.f[j]
        if fid >= lf.sidx_cap:
            n = grow_cap(lf.sidx_cap, nf if nf > fid + 1 else fid + 1)
            lf.sidx = <int*>xrealloc(lf.sidx, n * sizeof(int))
            memset(lf.sidx + lf.sidx_cap, 0, (n - lf.sidx_cap) * sizeof(int))
            lf.sidx_cap = n
        si = lf.sidx[fid]
        if si < 0:
            continue  # disabled attribute
        if si == 0:
            s = spl_new(fid, 1 if (fstate[fid] & F_NOMATTR) or not xv.isnum[j] else 0)
            lf.sidx[fid] = push_ptr(<void***>&lf.spl, &lf.n_spl, &lf.cap_spl, s)
        else:
            s = lf.spl[si - 1]
        if s.nominal:
            nom_update(s, xv.v[j], cid, w)
        else:
            gauss_update(s, xv.d[j], cid, w)
    return 0



# ----------------------------------------------------------------------------- prediction

cdef int leaf_predict(Tree* t, Leaf* lf, XV* xv, Work* wk) except -1:
    """The leaf's prediction into wk.votes, aligned with lf.st_c: the number of entries, 0
    for River's {} (majority class, naive Bayes or adaptive, as t.leaf_pred says)."""
    cdef double* out = work_votes(wk, lf.n_st + 1)
    cdef double factor, mult
    cdef int k, n
    cdef bint use_nb
    if t.leaf_pred == LEAF_MAJORITY_CLASS:
        use_nb = False
    elif t.leaf_pred == LEAF_NAIVE_BAYES:
        use_nb = lf.active and leaf_total(lf) >= t.nb_threshold
    else:
        use_nb = lf.active and lf.nb_correct >= lf.mc_correct
    if use_nb:
        n = leaf_nb(lf, xv, wk, out)
        if t.leaf_pred == LEAF_NAIVE_BAYES_ADAPTIVE:
            nb_store(t, lf, xv, out, n)
        return n
    # normalize_values_in_dict(stats, inplace=False)
    factor = py_sum(lf.st_w, lf.n_st)
    if factor == 0.0 or isnan(factor):
        for k in range(lf.n_st):
            out[k] = lf.st_w[k]
    else:
        mult = 1.0 / factor
        for k in range(lf.n_st):
            out[k] = lf.st_w[k] * mult
    return lf.n_st


# ----------------------------------------------------------------------------- splitting

cdef int suggestion(Tree* t, int i, Spl* s, double pre_entropy, Work* wk, Registry reg,
                    Sugg* out) except -1:
    """The splitter's best split: its values' orders first, if nominal."""
    cdef int* spos = NULL
    cdef int* crank = NULL
    if not s.nominal:
        return best_suggestion(s, t, pre_entropy, wk, reg.cid_one, reg.cid_zero, NULL, NULL,
                               out)
    try:
        if not t.binary_split:
            # (sorting the classes may raise TypeError, as River's sort would)
            crank = reg.tree_crank(i, t)
            spos = <int*>xcalloc(s.n_vals, sizeof(int))
            reg.sorted_values(s, spos)
        reg.set_order(s)
        best_suggestion(s, t, pre_entropy, wk, reg.cid_one, reg.cid_zero, spos, crank, out)
    finally:
        free(spos)
    return 0


cdef int children(Tree* t, int i, Leaf* lf, Sugg* sg, Work* wk, Registry reg,
                  list vids) except -1:
    """The winning suggestion's children stats into wk.best (recomputed: same arithmetic as
    when it was evaluated); vids: a multiway split's values, in its children's order."""
    cdef Spl* s = lf.spl[sg.sidx]
    cdef int* spos
    cdef int k
    if sg.kind == SPLIT_NUMERIC_BINARY:
        gauss_post(s, sg.thr, &wk.best, &wk.tmp)
    elif sg.kind == SPLIT_NOMINAL_BINARY:
        nom_post_binary(s, sg.vpos, &wk.best, &wk.tmp)
    else:  # SPLIT_NOMINAL_MULTIWAY
        spos = <int*>xcalloc(s.n_vals, sizeof(int))
        try:
            crank = reg.tree_crank(i, t)
            reg.sorted_values(s, spos)
            nom_post_multiway(s, spos, crank, &wk.best)
            for k in range(s.n_vals):
                vids.append(s.vals[spos[k]])
        finally:
            free(spos)
    return 0


cdef int leaf_disable(Leaf* lf, int fid) except -1:
    """LeafMajorityClass.disable_attribute."""
    cdef int si, k
    if fid >= lf.sidx_cap or lf.sidx[fid] <= 0:
        return 0
    si = lf.sidx[fid] - 1
    spl_free(lf.spl[si])
    for k in range(si, lf.n_spl - 1):
        lf.spl[k] = lf.spl[k + 1]
        lf.sidx[lf.spl[k].fid] = k + 1
    lf.n_spl -= 1
    lf.sidx[fid] = -1
    return 0


cdef int leaf_split_decision(Tree* t, int i, Leaf* lf, Work* wk, Registry reg, Sugg* dec,
                             list vids) except -1:
    """HoeffdingTreeClassifier._attempt_to_split up to the split, a SplitDecision:
    DECIDE_NO_SPLIT; DECIDE_PRE_PRUNE, the null split won (the leaf is deactivated here);
    DECIDE_SPLIT as dec says (children's stats in wk.best, a multiway split's values in vids).
    Poor attributes are disabled here, as River does."""
    cdef int k, n_nonzero, ns, bi, si
    cdef double maj, total, bound = 0.0, pre_entropy
    cdef Sugg* sug
    cdef bint should_split = False, has_nan = False
    # observed_class_distribution_is_pure
    n_nonzero = 0
    for k in range(lf.n_st):
        if lf.st_w[k] != 0.0:
            n_nonzero += 1
    if n_nonzero < 2:
        return DECIDE_NO_SPLIT
    if lf.n_spl + 1 > wk.sug_cap:
        wk.sug_cap = grow_cap(wk.sug_cap, lf.n_spl + 1)
        wk.sug = <Sugg*>xrealloc(wk.sug, wk.sug_cap * sizeof(Sugg))
    sug = wk.sug
    ns = 0
    # LeafMajorityClass.best_split_suggestions
    maj = lf.st_w[0]
    for k in range(1, lf.n_st):
        if lf.st_w[k] > maj:
            maj = lf.st_w[k]
    total = leaf_total(lf)
    if maj != 0.0 and py_div(maj, total) > t.max_share_to_split:
        sug[0].merit = NEG_INF
        sug[0].fid = -1
        ns = 1
    else:
        if t.merit_preprune:
            sug[0].merit = NEG_INF
            sug[0].fid = -1
            ns = 1
        pre_entropy = entropy_w(lf.st_w, lf.n_st) if t.crit == CRIT_INFO_GAIN else 0.0
        for k in range(lf.n_spl):
            suggestion(t, i, lf.spl[k], pre_entropy, wk, reg, &sug[ns])
            sug[ns].sidx = k
            ns += 1
    # best_split_suggestions.sort(); the last two
    bi = -1
    si = -1
    for k in range(ns):
        if isnan(sug[k].merit):
            has_nan = True
    if has_nan:
        merits = [sug[k].merit for k in range(ns)]
        order = sorted(range(ns), key=merits.__getitem__)
        bi = order[ns - 1]
        si = order[ns - 2] if ns >= 2 else -1
    else:
        for k in range(ns):
            if bi < 0 or sug[k].merit >= sug[bi].merit:
                si = bi
                bi = k
            elif si < 0 or sug[k].merit >= sug[si].merit:
                si = k
    if ns < 2:
        should_split = ns > 0
    else:
        total = leaf_total(lf)
        bound = py_sqrt(py_div(range_of_merit(t, lf) * range_of_merit(t, lf)
                               * py_log(py_div(1.0, t.delta)), 2.0 * total))
        if sug[bi].merit - sug[si].merit > bound or bound < t.tau:
            should_split = True
    dec[0] = sug[bi]
    if should_split and dec[0].fid >= 0:
        # River builds the children's stats when it evaluates the suggestion, i.e.
        # before poor attributes are disabled below
        children(t, i, lf, dec, wk, reg, vids)
    if ns >= 2 and t.remove_poor and t.leaf_pred == LEAF_MAJORITY_CLASS:
        # LeafMajorityClass.disable_attribute (the naive-Bayes leaves ignore it)
        poor = []
        for k in range(ns):
            if (sug[k].fid >= 0 and reg.f_truthy[sug[k].fid]
                    and sug[bi].merit - sug[k].merit > bound):
                poor.append(sug[k].fid)
        for f in poor:
            leaf_disable(lf, <int>f)
    if not should_split:
        return DECIDE_NO_SPLIT
    if dec[0].fid < 0:
        # pre-pruning: the null split wins
        leaf_deactivate(t, lf)
        return DECIDE_PRE_PRUNE
    return DECIDE_SPLIT


# ----------------------------------------------------------------------------- memory accounting

cdef long long leaf_bytes(Leaf* lf) noexcept:
    cdef long long b = sizeof(Node) + sizeof(Leaf) + lf.n_st * (sizeof(int) + sizeof(double))
    cdef int k
    for k in range(lf.n_spl):
        b += spl_bytes(lf.spl[k])
    return b
