# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""Compiled forest of River Hoeffding trees (``river.tree.HoeffdingTreeClassifier``).

This module holds the C side of :class:`river_boost.forest.HoeffdingForest`: ``N`` Hoeffding
trees kept in C structs (no Python object per node, leaf or splitter), which learn and predict
bit for bit as River 0.26's ``HoeffdingTreeClassifier`` does. Read the Python face,
``river_boost/forest.py``, for the supported parameters and the documented differences.

How exactness is kept
---------------------
Every floating-point operation River performs is performed here in the same order, with the
same operands, in IEEE double precision (the extension is compiled with
``-ffp-contract=off`` and without ``-ffast-math``, so no fused multiply-add or re-association).
Where CPython's semantics matter, they are reproduced explicitly:

- ``sum()`` of floats is plain left-to-right addition up to Python 3.11 and Neumaier
  compensated summation from 3.12 on (:c:func:`ps_add`), chosen at compile time;
- ``x ** 2`` and ``x ** 0.5`` call the C library's ``pow`` exactly as ``float.__pow__`` does
  (glibc's ``pow(x, 2.0)`` differs from ``x * x`` in the last bit for about 0.1% of inputs,
  so it must not be replaced; the extension is compiled with ``-fno-builtin-pow`` so that the
  compiler does not fold it either), including CPython's special cases and its overflow error;
- ``math.log``, ``math.log2``, ``math.sqrt`` and ``math.exp`` raise where CPython raises;
  ``math.erf`` is the C library's ``erf`` (as in CPython);
- every Python division whose divisor can be zero raises ``ZeroDivisionError`` where River's
  would (or, where River catches it, returns what River returns);
- ``dict`` insertion order is reproduced with ordered arrays: classes in a leaf's statistics
  and in each splitter, features in a leaf's splitters, values of a nominal feature;
- ties are broken as River breaks them: ``max`` keeps the first maximum, ``list.sort`` is
  stable, and a ``set`` of nominal values is iterated in CPython's own order (rebuilt with a
  real ``set`` from the values' order of first appearance, or, in a tree copied by
  ``copy_tree``, in the order ``copy.deepcopy`` added them).
"""

from cpython.dict cimport PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_Check
from cpython.object cimport PyObject
from cpython.pycapsule cimport PyCapsule_New
from libc.math cimport INFINITY, fmod, isnan
from libc.stdlib cimport free
from libc.string cimport memcmp, memcpy, memmove, memset

import numbers as _numbers

import numpy as _np

from river_boost._criteria cimport entropy_w, range_of_merit
from river_boost._forest_structs cimport (
    F_DECIDED, F_KEEP, F_KIND, F_NOMATTR, F_NONNUM, XV, Dists, GCls, Leaf, NCls, Node, Spl,
    Sugg, Tree, Work, grow_cap, in_view, work_ds, work_free, work_votes, xcalloc, xrealloc,
)
from river_boost._forestapi cimport ForestAPI
from river_boost._pymath cimport PySum, ps_add, ps_init, ps_result, py_div, py_exp, py_log
from river_boost._pymath cimport py_sqrt, py_sum
from river_boost._splitters cimport (
    best_suggestion, cix_set, gauss_log_pdf, gauss_post, gauss_update, gfind, nom_cond_proba,
    nom_post_binary, nom_post_multiway, nom_update, spl_allocated, spl_bytes, spl_free, spl_new,
)

cdef double NEG_INF = -INFINITY



cdef void leaf_drop_splitters(Leaf* lf) noexcept:
    # HTLeaf.deactivate (splitters = None) and activate (splitters = {}): the disabled
    # attributes survive both.
    cdef int k
    for k in range(lf.n_spl):
        if lf.sidx[lf.spl[k].fid] > 0:
            lf.sidx[lf.spl[k].fid] = 0
        spl_free(lf.spl[k])
    lf.n_spl = 0


cdef void leaf_free(Leaf* lf) noexcept:
    if lf == NULL:
        return
    leaf_drop_splitters(lf)
    free(lf.spl)
    free(lf.sidx)
    free(lf.st_c)
    free(lf.st_w)
    free(lf)


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



# ----------------------------------------------------------------------------- leaf statistics

cdef inline int stats_find(Leaf* lf, int cid) noexcept:
    cdef int k
    for k in range(lf.n_st):
        if lf.st_c[k] == cid:
            return k
    return -1


cdef int leaf_update_stats(Leaf* lf, int cid, double w) except -1:
    # LeafMajorityClass.update_stats
    cdef int k = stats_find(lf, cid)
    cdef int nc
    if k >= 0:
        lf.st_w[k] += w
        return 0
    if lf.n_st >= lf.cap_st:
        nc = grow_cap(lf.cap_st, lf.n_st + 1)
        lf.st_c = <int*>xrealloc(lf.st_c, nc * sizeof(int))
        lf.st_w = <double*>xrealloc(lf.st_w, nc * sizeof(double))
        lf.cap_st = nc
    lf.st_c[lf.n_st] = cid
    lf.st_w[lf.n_st] = w
    lf.n_st += 1
    return 0


cdef inline double leaf_total(Leaf* lf) noexcept:
    # total_weight: sum(self.stats.values()) if self.stats else 0
    return py_sum(lf.st_w, lf.n_st)


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



# ----------------------------------------------------------------------------- tree walking

cdef inline int branch_no(Node* nd, XV* xv) noexcept:
    """DTBranch.branch_no, or -1 where River raises KeyError (feature missing, unseen value)."""
    cdef int j, vid
    if not in_view(xv, nd.fid):
        return -1
    j = xv.vpos[nd.fid]
    if nd.kind == 0:
        return 0 if xv.d[j] <= nd.thr else 1
    if nd.kind == 1:
        return 0 if xv.v[j] == nd.vid else 1
    vid = xv.v[j]
    if vid < 0 or vid >= nd.vmap_cap or nd.vmap[vid] == 0:
        return -1
    return nd.vmap[vid] - 1


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
    if nd.kind != 2:
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


cdef int collect_leaves(Node* nd, list out) except -1:
    # Branch.iter_leaves: left to right
    cdef int k
    if nd.is_leaf:
        out.append(<size_t>nd)
        return 0
    for k in range(nd.n_ch):
        collect_leaves(nd.ch[k], out)
    return 0


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


cdef long long leaf_bytes(Leaf* lf) noexcept:
    cdef long long b = sizeof(Node) + sizeof(Leaf) + lf.n_st * (sizeof(int) + sizeof(double))
    cdef int k
    for k in range(lf.n_spl):
        b += spl_bytes(lf.spl[k])
    return b


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


# ----------------------------------------------------------------------------- trees

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
     t.n_splits) = params
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


# ----------------------------------------------------------------------------- the forest

cdef class ForestCore:
    """N Hoeffding trees in C structures. Use :class:`river_boost.forest.HoeffdingForest`."""

    cdef Tree* trees
    cdef int n
    cdef XV xv
    cdef Work wk

    cdef readonly list _models
    cdef readonly object feature_filter
    # features
    cdef dict fmap
    cdef list fnames
    cdef list fvals         # per feature: dict value -> vid
    cdef list fvalobjs      # per feature: list of value objects by vid
    cdef char* f_nomany
    cdef char* f_truthy
    cdef int nf
    cdef int fcap
    # classes
    cdef dict cmap
    cdef list labels
    cdef int nc
    cdef int cid_one
    cdef int cid_zero
    cdef list sorted_cls    # per tree: list of cids in sorted(label) order, or None
    cdef int** crank        # per tree: cid -> rank in sorted order
    # x conversion cache: the previous x's keys, by position
    cdef list lkeys
    cdef int* lfid
    cdef int lcap
    cdef object _Number
    # trees that come and go: capacity of `trees` and `crank`
    cdef int tcap
    # load(x): whether xv holds an x loaded by load() (every other conversion unloads it,
    # and so does a tree that makes a loaded numeric feature nominal: see _mark_nominal)
    cdef bint loaded
    cdef long long n_conversions  # conversions of an x so far (which one is loaded: the API)
    # > 0 while the feature filter runs: a filter that calls back into the forest must not
    # convert another x or reallocate the trees under the caller
    cdef int in_filter

    def __cinit__(self):
        self.trees = NULL
        self.n = 0
        memset(&self.xv, 0, sizeof(XV))
        memset(&self.wk, 0, sizeof(Work))
        self.f_nomany = NULL
        self.f_truthy = NULL
        self.crank = NULL
        self.lfid = NULL
        self.tcap = 0
        self.loaded = False
        self.in_filter = 0

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.n):
                tree_free(&self.trees[i])
                if self.crank != NULL:
                    free(self.crank[i])
            free(self.trees)
        free(self.crank)
        free(self.xv.f)
        free(self.xv.d)
        free(self.xv.v)
        free(self.xv.isnum)
        free(self.xv.vj)
        free(self.xv.vst)
        free(self.xv.vpos)
        work_free(&self.wk)
        free(self.f_nomany)
        free(self.f_truthy)
        free(self.lfid)

    def _allocated_bytes(self):
        """Bytes of C memory the forest holds: its trees (nodes, leaves, splitters and
        per-tree buffers, by allocated capacity) and the tree table; not the per-call
        scratch buffers, which do not grow with the trees."""
        cdef long long b = self.tcap * (sizeof(Tree) + sizeof(int*))
        cdef int i
        for i in range(self.n):
            b += tree_allocated(&self.trees[i])
            if self.crank != NULL and self.crank[i] != NULL:
                b += self.nc * sizeof(int)
        return b

    def _init_core(self, list params, models, feature_filter):
        """params: one tuple per tree (see forest.py: _tree_params)."""
        cdef int i
        cdef Tree* t
        self._models = list(models)
        self.feature_filter = feature_filter
        self.n = len(params)
        self.tcap = self.n
        self.trees = <Tree*>xcalloc(self.n, sizeof(Tree))
        self.crank = <int**>xcalloc(self.n, sizeof(int*))
        for i in range(self.n):
            t = &self.trees[i]
            tree_init(t, <tuple>params[i])
        self.fmap = {}
        self.fnames = []
        self.fvals = []
        self.fvalobjs = []
        self.nf = 0
        self.fcap = 0
        self.cmap = {}
        self.labels = []
        self.nc = 0
        self.cid_one = -1
        self.cid_zero = -1
        self.sorted_cls = [None] * self.n
        self.lkeys = []
        self.lcap = 0
        self._Number = _numbers.Number

    @property
    def n_models(self):
        return self.n

    # ------------------------------------------------------------------ registries

    cdef int _grow_features(self, int need) except -1:
        cdef int nc, i, k
        if need <= self.fcap:
            return 0
        nc = grow_cap(self.fcap, need)
        self.f_nomany = <char*>xrealloc(self.f_nomany, nc)
        self.f_truthy = <char*>xrealloc(self.f_truthy, nc)
        for i in range(self.n):
            self.trees[i].fstate = <unsigned char*>xrealloc(self.trees[i].fstate, nc)
            for k in range(self.fcap, nc):
                self.trees[i].fstate[k] = 0
            self.trees[i].fcap = nc
        self.xv.vst = <unsigned int*>xrealloc(self.xv.vst, nc * sizeof(unsigned int))
        self.xv.vpos = <int*>xrealloc(self.xv.vpos, nc * sizeof(int))
        for k in range(self.fcap, nc):
            self.xv.vst[k] = 0
            self.f_nomany[k] = 0
            self.f_truthy[k] = 0
        self.xv.fcap = nc
        self.fcap = nc
        return 0

    cdef int _new_feature(self, object name) except -1:
        cdef int fid = self.nf
        cdef int i
        cdef object nominal
        cdef bint any_nom = False
        self._grow_features(fid + 1)
        self.fmap[name] = fid
        self.fnames.append(name)
        self.fvals.append({})
        self.fvalobjs.append([])
        self.nf += 1
        self.f_truthy[fid] = 1 if name else 0
        for i in range(self.n):
            nominal = self._models[i].nominal_attributes
            if nominal is not None and name in nominal:
                self.trees[i].fstate[fid] |= F_NOMATTR
                any_nom = True
        self.f_nomany[fid] = any_nom
        return fid

    cdef int _class_id(self, object y) except -1:
        cdef object cid = self.cmap.get(y)
        cdef int c, i, nc
        if cid is not None:
            return <int>cid
        c = self.nc
        self.cmap[y] = c
        self.labels.append(y)
        self.nc += 1
        for i in range(self.n):
            if c >= self.trees[i].ccap:
                nc = grow_cap(self.trees[i].ccap, c + 1)
                self.trees[i].has_cls = <char*>xrealloc(self.trees[i].has_cls, nc)
                memset(self.trees[i].has_cls + self.trees[i].ccap, 0, nc - self.trees[i].ccap)
                self.trees[i].ccap = nc
        one = self.cmap.get(1)
        zero = self.cmap.get(0)
        self.cid_one = -1 if one is None else one
        self.cid_zero = -1 if zero is None else zero
        return c

    cdef int _value_id(self, int fid, object v) except -1:
        cdef dict d = <dict>self.fvals[fid]
        cdef object vid = d.get(v)
        if vid is not None:
            return <int>vid
        lst = <list>self.fvalobjs[fid]
        d[v] = len(lst)
        lst.append(v)
        return len(lst) - 1

    cdef list _tree_sorted(self, int i):
        """sorted(tree.classes) as class ids; cached per tree."""
        cdef list s = self.sorted_cls[i]
        cdef int k, r
        if s is not None:
            return s
        labels = self.labels
        cids = [c for c in range(self.nc) if c < self.trees[i].ccap and self.trees[i].has_cls[c]]
        s = sorted(cids, key=labels.__getitem__)
        free(self.crank[i])
        self.crank[i] = <int*>xcalloc(self.nc, sizeof(int))
        r = 0
        for k in s:
            self.crank[i][k] = r
            r += 1
        self.sorted_cls[i] = s
        return s

    # ------------------------------------------------------------------ x conversion

    cdef int _convert(self, object x) except -1:
        """x -> (fid, number, value id) arrays, in x's order."""
        cdef PyObject* key
        cdef PyObject* val
        cdef Py_ssize_t pos = 0
        cdef int j = 0
        self.n_conversions += 1
        if type(x) is not dict:
            x = dict(x)
        self._reserve(len(<dict>x))
        while PyDict_Next(x, &pos, &key, &val):
            self._convert_item(j, key, val)
            j += 1
        self.xv.nx = j
        return 0

    cdef int _convert_items(self, PyObject** keys, PyObject** vals, int n) except -1:
        """_convert of a dict holding the ``n`` items (keys[j], vals[j]) in this order."""
        cdef int j
        self.n_conversions += 1
        self._reserve(n)
        for j in range(n):
            self._convert_item(j, keys[j], vals[j])
        self.xv.nx = n
        return 0

    cdef int _reserve(self, Py_ssize_t n) except -1:
        """Room for n features in the converted x."""
        cdef XV* xv = &self.xv
        cdef int nc
        if n > xv.cap:
            nc = grow_cap(xv.cap, n)
            xv.f = <int*>xrealloc(xv.f, nc * sizeof(int))
            xv.d = <double*>xrealloc(xv.d, nc * sizeof(double))
            xv.v = <int*>xrealloc(xv.v, nc * sizeof(int))
            xv.isnum = <char*>xrealloc(xv.isnum, nc * sizeof(char))
            xv.vj = <int*>xrealloc(xv.vj, nc * sizeof(int))
            xv.cap = nc
        if xv.cap > self.lcap:
            self.lfid = <int*>xrealloc(self.lfid, xv.cap * sizeof(int))
            self.lcap = xv.cap
        return 0

    cdef inline int _convert_item(self, int j, PyObject* key, PyObject* val) except -1:
        """The j-th feature of the converted x (_reserve made room)."""
        cdef XV* xv = &self.xv
        cdef list lkeys = self.lkeys
        cdef int fid
        cdef object k, v, fo
        cdef bint isnum
        cdef double d
        # the feature id: the previous x usually had the same key objects in the same order
        if j < PyList_GET_SIZE(lkeys) and <PyObject*>PyList_GET_ITEM(lkeys, j) == key:
            fid = self.lfid[j]
        else:
            k = <object>key
            fo = self.fmap.get(k)
            if fo is None:
                fid = self._new_feature(k)
            else:
                fid = <int>fo
            if j < PyList_GET_SIZE(lkeys):
                lkeys[j] = k
            else:
                lkeys.append(k)
            self.lfid[j] = fid
        xv.f[j] = fid
        v = <object>val
        if PyFloat_Check(v):
            isnum = True
            d = PyFloat_AS_DOUBLE(v)
        elif PyLong_Check(v):  # int and bool
            isnum = True
            d = float(v)
        elif v is None:
            raise ValueError(
                f"feature {self.fnames[fid]!r} is None: drop the key to mark a feature "
                "missing (None values are not supported by the compiled forest)"
            )
        elif isinstance(v, self._Number):
            isnum = True
            d = float(v)
        else:
            isnum = False
            d = 0.0
        xv.isnum[j] = isnum
        xv.d[j] = d
        if not isnum or self.f_nomany[fid]:
            xv.v[j] = self._value_id(fid, v)
        else:
            xv.v[j] = -1
        return 0

    cdef int _view(self, int i, bint learning) except -1:
        """The features tree i sees (feature_filter), with River's type checks.

        A feature's kind (number or not) is recorded for tree i when the tree first *learns*
        it: a tree that only predicted a feature has no statistics of it, so River would take
        either kind later, and so does the forest. A kind mismatch with a recorded kind raises
        before anything is recorded for this x.
        """
        cdef XV* xv = &self.xv
        cdef Tree* t = &self.trees[i]
        cdef int j, k, fid, nv = 0
        cdef bint keep, pending = False
        cdef unsigned char st
        xv.stamp += 1
        if xv.stamp == 0:  # wrapped around
            memset(xv.vst, 0, xv.fcap * sizeof(unsigned int))
            xv.stamp = 1
        for j in range(xv.nx):
            fid = xv.f[j]
            st = t.fstate[fid]
            if not (st & F_DECIDED):
                if self.feature_filter is None:
                    keep = True
                else:
                    self.in_filter += 1
                    try:
                        keep = self.feature_filter.keeps(i, self.fnames[fid])
                    finally:
                        self.in_filter -= 1
                st |= F_DECIDED
                if keep:
                    st |= F_KEEP
                t.fstate[fid] = st
            if not (st & F_KEEP):
                continue
            if not (st & F_NOMATTR):
                if st & F_KIND:
                    if (not xv.isnum[j]) != ((st & F_NONNUM) != 0):
                        raise TypeError(
                            f"feature {self.fnames[fid]!r} of tree {i} mixes numbers and "
                            "non-numbers; River would fail or treat it inconsistently"
                        )
                elif learning:
                    pending = True
            xv.vj[nv] = j
            nv += 1
            xv.vst[fid] = xv.stamp
            xv.vpos[fid] = j
        xv.nv = nv
        if pending:
            for k in range(nv):
                j = xv.vj[k]
                fid = xv.f[j]
                st = t.fstate[fid]
                if not (st & (F_NOMATTR | F_KIND)):
                    st |= F_KIND
                    if not xv.isnum[j]:
                        st |= F_NONNUM
                    t.fstate[fid] = st
        return 0

    # ------------------------------------------------------------------ naive Bayes

    cdef int _nb(self, Tree* t, Leaf* lf, double* out) except -1:
        """do_naive_bayes_prediction(x, stats, splitters) -> out aligned with stats order;
        returns the number of entries (0 for River's {})."""
        cdef XV* xv = &self.xv
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
        if lf.n_spl > self.wk.nbq_cap:
            self.wk.nbq_cap = grow_cap(self.wk.nbq_cap, lf.n_spl)
            self.wk.nbq = <Spl**>xrealloc(self.wk.nbq, self.wk.nbq_cap * sizeof(Spl*))
            self.wk.nbj = <int*>xrealloc(self.wk.nbj, self.wk.nbq_cap * sizeof(int))
        qs = self.wk.nbq
        qj = self.wk.nbj
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

    # ------------------------------------------------------------------ learning

    cdef bint _nb_cached(self, Tree* t, Leaf* lf) noexcept:
        """Whether the votes of the last prediction are those of this leaf and this x."""
        cdef XV* xv = &self.xv
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

    cdef int _nb_store(self, Tree* t, Leaf* lf, double* out, int n) except -1:
        cdef XV* xv = &self.xv
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

    cdef int _leaf_learn(self, Tree* t, Leaf* lf, int cid, double w, bint cache_ok) except -1:
        cdef XV* xv = &self.xv
        cdef int k, bk, n, j, fid, si
        cdef double best
        cdef double* out
        cdef Spl* s
        cdef unsigned char st
        if t.leaf_pred == 2 and lf.active:
            # LeafNaiveBayesAdaptive.learn_one: score both predictors before learning
            if lf.n_st == 0 or mc_argmax(lf) == cid:
                lf.mc_correct += w
            out = work_votes(&self.wk, lf.n_st + 1)
            if cache_ok and self._nb_cached(t, lf):
                n = t.nbc_n
                memcpy(out, t.nbc_out, n * sizeof(double))
            else:
                n = self._nb(t, lf, out)
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
                n = grow_cap(lf.sidx_cap, self.nf if self.nf > fid + 1 else fid + 1)
                lf.sidx = <int*>xrealloc(lf.sidx, n * sizeof(int))
                memset(lf.sidx + lf.sidx_cap, 0, (n - lf.sidx_cap) * sizeof(int))
                lf.sidx_cap = n
            si = lf.sidx[fid]
            if si < 0:
                continue  # disabled attribute
            if si == 0:
                if lf.n_spl >= lf.cap_spl:
                    n = grow_cap(lf.cap_spl, lf.n_spl + 1)
                    lf.spl = <Spl**>xrealloc(lf.spl, n * sizeof(Spl*))
                    lf.cap_spl = n
                st = t.fstate[fid]
                s = spl_new(fid, 1 if (st & F_NOMATTR) or not xv.isnum[j] else 0)
                lf.spl[lf.n_spl] = s
                lf.n_spl += 1
                lf.sidx[fid] = lf.n_spl
            else:
                s = lf.spl[si - 1]
            if s.nominal:
                nom_update(s, xv.v[j], cid, w)
            else:
                gauss_update(s, xv.d[j], cid, w)
        return 0

    cdef int _set_order(self, Spl* s) except -1:
        """Positions of the splitter's values in the iteration order of River's set."""
        cdef int p
        if s.set_n == s.n_vals:
            return 0
        objs = <list>self.fvalobjs[s.fid]
        vals = set()  # River's set, rebuilt by the same additions in the same order
        for p in range(s.n_ins):
            vals.add(objs[s.vals[s.ins[p]]])
        for p in range(s.n_ins, s.n_vals):
            vals.add(objs[s.vals[p]])
        d = <dict>self.fvals[s.fid]
        free(s.set_ord)
        s.set_ord = <int*>xcalloc(s.n_vals, sizeof(int))
        p = 0
        for v in vals:
            s.set_ord[p] = s.vpos[<int>d[v]]
            p += 1
        s.set_n = s.n_vals
        return 0

    cdef int _sorted_values(self, Spl* s, int* out) except -1:
        """Positions of the splitter's values in sorted(self._att_values) order."""
        cdef int p
        objs = <list>self.fvalobjs[s.fid]
        d = <dict>self.fvals[s.fid]
        vals = sorted([objs[s.vals[p]] for p in range(s.n_vals)])
        p = 0
        for v in vals:
            out[p] = s.vpos[<int>d[v]]
            p += 1
        return 0

    cdef int _best_suggestion(self, int i, Tree* t, Spl* s, double pre_entropy,
                              Sugg* out) except -1:
        """The splitter's best split: its values' orders first, if nominal."""
        cdef int* spos = NULL
        cdef int* crank = NULL
        if not s.nominal:
            return best_suggestion(s, t, pre_entropy, &self.wk, self.cid_one, self.cid_zero,
                                   NULL, NULL, out)
        try:
            if not t.binary_split:
                # (sorting the classes may raise TypeError, as River's sort would)
                self._tree_sorted(i)
                crank = self.crank[i]
                spos = <int*>xcalloc(s.n_vals, sizeof(int))
                self._sorted_values(s, spos)
            self._set_order(s)
            best_suggestion(s, t, pre_entropy, &self.wk, self.cid_one, self.cid_zero, spos,
                            crank, out)
        finally:
            free(spos)
        return 0

    cdef int _children(self, int i, Tree* t, Leaf* lf, Sugg* sg, Dists* out, list vids) except -1:
        """The winning suggestion's children stats (recomputed: same arithmetic as when it
        was evaluated)."""
        cdef Spl* s = lf.spl[sg.sidx]
        cdef int* spos
        cdef int k
        if sg.kind == 0:
            gauss_post(s, sg.thr, out, &self.wk.tmp)
        elif sg.kind == 1:
            nom_post_binary(s, sg.vpos, out, &self.wk.tmp)
        else:
            self._tree_sorted(i)
            spos = <int*>xcalloc(s.n_vals, sizeof(int))
            try:
                self._sorted_values(s, spos)
                nom_post_multiway(s, spos, self.crank[i], out)
                for k in range(s.n_vals):
                    vids.append(s.vals[spos[k]])
            finally:
                free(spos)
        return 0

    cdef int _attempt_split(self, int i, Tree* t, Node* node) except -1:
        """HoeffdingTreeClassifier._attempt_to_split (the leaf is replaced in place)."""
        cdef Leaf* lf = node.lf
        cdef int k, n_nonzero, ns, bi, si
        cdef double maj, total, bound = 0.0, pre_entropy
        cdef Sugg* sug
        cdef bint should_split = False, has_nan = False
        cdef Sugg dec
        cdef list vids
        # observed_class_distribution_is_pure
        n_nonzero = 0
        for k in range(lf.n_st):
            if lf.st_w[k] != 0.0:
                n_nonzero += 1
        if n_nonzero < 2:
            return 0
        if lf.n_spl + 1 > self.wk.sug_cap:
            self.wk.sug_cap = grow_cap(self.wk.sug_cap, lf.n_spl + 1)
            self.wk.sug = <Sugg*>xrealloc(self.wk.sug, self.wk.sug_cap * sizeof(Sugg))
        sug = self.wk.sug
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
            pre_entropy = entropy_w(lf.st_w, lf.n_st) if t.crit == 0 else 0.0
            for k in range(lf.n_spl):
                self._best_suggestion(i, t, lf.spl[k], pre_entropy, &sug[ns])
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
        dec = sug[bi]
        vids = []
        if should_split and dec.fid >= 0:
            # River builds the children's stats when it evaluates the suggestion, i.e.
            # before poor attributes are disabled below
            self._children(i, t, lf, &dec, &self.wk.best, vids)
        if ns >= 2 and t.remove_poor and t.leaf_pred == 0:
            # LeafMajorityClass.disable_attribute (the naive-Bayes leaves ignore it)
            poor = []
            for k in range(ns):
                if (sug[k].fid >= 0 and self.f_truthy[sug[k].fid]
                        and sug[bi].merit - sug[k].merit > bound):
                    poor.append(sug[k].fid)
            for f in poor:
                self._disable(lf, <int>f)
        if not should_split:
            return 0
        if dec.fid < 0:
            # pre-pruning: the null split wins
            lf.active = 0
            leaf_drop_splitters(lf)
            t.n_inactive += 1
            t.n_active -= 1
            if lf.depth < t.max_depth:
                t.n_reactivable += 1
            self._enforce_size_limit(i, t)
            return 0
        return self._do_split(i, t, node, &dec, &self.wk.best, vids)

    cdef int _disable(self, Leaf* lf, int fid) except -1:
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

    cdef int _do_split(self, int i, Tree* t, Node* node, Sugg* dec, Dists* kids,
                       list vids) except -1:
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
            if dec.kind == 2:
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
        node.thr = dec.thr if dec.kind == 0 else 0.0
        node.vid = dec.vid if dec.kind == 1 else -1
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
        self._enforce_size_limit(i, t)
        return 1

    cdef int _enforce_size_limit(self, int i, Tree* t) except -1:
        """HoeffdingTree._enforce_size_limit."""
        cdef double tree_size = t.overhead * (t.active_est + t.n_inactive * t.inactive_est)
        cdef list leaves
        cdef long long L, max_active, cutoff, k
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
        leaves = []
        collect_leaves(t.root, leaves)
        if cutoff > 0:
            # leaves.sort(key=leaf.calculate_promise): Python's stable sort on the same keys
            promises = []
            for o in leaves:
                lf = (<Node*><size_t>o).lf
                total = py_sum(lf.st_w, lf.n_st)
                if total > 0:
                    mx = lf.st_w[0]
                    for k in range(1, lf.n_st):
                        if lf.st_w[k] > mx:
                            mx = lf.st_w[k]
                    promises.append(total - mx)
                else:
                    promises.append(0)
            order = sorted(range(L), key=promises.__getitem__)
            leaves = [leaves[k] for k in order]
        for k in range(L):
            lf = (<Node*><size_t>leaves[k]).lf
            if k < cutoff:
                if lf.active:
                    lf.active = 0
                    leaf_drop_splitters(lf)
                    t.n_inactive += 1
                    t.n_active -= 1
                    if lf.depth < t.max_depth:
                        t.n_reactivable += 1
            else:
                if not lf.active and lf.depth < t.max_depth:
                    lf.active = 1
                    t.n_active += 1
                    t.n_inactive -= 1
                    t.n_reactivable -= 1
        return 0

    cdef int _estimate_model_size(self, int i, Tree* t) except -1:
        """HoeffdingTree._estimate_model_size, measuring the C structures."""
        cdef list leaves = []
        cdef long long total_active = 0, total_inactive = 0, actual
        cdef Leaf* lf
        cdef double estimated
        collect_leaves(t.root, leaves)
        for o in leaves:
            lf = (<Node*><size_t>o).lf
            if lf.active:
                total_active += leaf_bytes(lf)
            else:
                total_inactive += leaf_bytes(lf)
        if total_active > 0 and t.n_active > 0:
            t.active_est = <double>total_active / <double>t.n_active
        if total_inactive > 0 and t.n_inactive > 0:
            t.inactive_est = <double>total_inactive / <double>t.n_inactive
        # the tree's own record without the leaf counts kept for _enforce_size_limit (added
        # later: leaving them out keeps every measurement, so max_size binds where it did)
        actual = (tree_bytes(t.root) + sizeof(Tree) - 2 * sizeof(long long)
                  + self.nf + self.nc)
        estimated = <double>t.n_active * t.active_est + <double>t.n_inactive * t.inactive_est
        t.overhead = py_div(<double>actual, estimated)
        if <double>actual > t.max_byte_size:
            self._enforce_size_limit(i, t)
        return 0

    cdef int _learn(self, int i, int cid, double w) except -1:
        """HoeffdingTreeClassifier.learn_one for tree i on the current view."""
        cdef Tree* t = &self.trees[i]
        cdef XV* xv = &self.xv
        cdef Node* node
        cdef Node* leaf
        cdef Leaf* lf
        cdef int b, nc
        cdef double ws, mod
        # the cached votes are valid for this call only if nothing learned since they were made
        cdef bint cache_ok = t.nbc_leaf != NULL and t.nbc_ver == t.ver
        t.ver += 1
        if not t.has_cls[cid]:
            t.has_cls[cid] = 1
            self.sorted_cls[i] = None
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
            self._leaf_learn(t, lf, cid, w, cache_ok)
            if t.growth_allowed and lf.active:
                if lf.depth >= t.max_depth:
                    lf.active = 0
                    leaf_drop_splitters(lf)
                    t.n_active -= 1
                    t.n_inactive += 1
                else:
                    ws = leaf_total(lf)
                    if ws - lf.last_split >= t.grace_period:
                        # River passes the parent and branch index to replace the leaf; the
                        # forest turns the leaf's node into the branch in place instead
                        self._attempt_split(i, t, node)
                        if node.is_leaf:
                            node.lf.last_split = ws
        else:
            while True:
                if node.kind == 2 and in_view(xv, node.fid):
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
            self._leaf_learn(t, node.lf, cid, w, cache_ok)
        # `_train_weight_seen_by_model % memory_estimate_period == 0` (float modulo)
        if t.mem_period == 0.0:
            raise ZeroDivisionError("float modulo")
        mod = fmod(t.train_weight, t.mem_period)
        if mod == 0.0:
            self._estimate_model_size(i, t)
        return 0

    def learn_one(self, int i, x, y, w=1.0):
        """Tree ``i`` learns ``(x, y)``: ``trees[i].learn_one(view_i(x), y, w=w)``.

        Parameters
        ----------
        i
            The tree.
        x
            Features: numbers (numeric features) or other hashables (nominal features); a
            feature absent from ``x`` is missing. ``view_i`` keeps the features the
            ``feature_filter`` gives tree ``i``.
        y
            The class label (hashable; labels must be mutually orderable, as River sorts them).
        w
            The sample weight. River's behaviour for ``w <= 0`` is reproduced (it may raise).

        Notes
        -----
        Converts ``x`` (and so unloads an ``x`` loaded by :meth:`load`). To teach several
        trees the same ``x``, :meth:`load` it once and call :meth:`learn_loaded`.
        """
        cdef double wd = float(w)
        cdef int cid
        self._check_free()
        self._check_index(i)
        self.loaded = False
        cid = self._class_id(y)
        self._convert(x)
        self._view(i, True)
        self._learn(i, cid, wd)

    # ------------------------------------------------------------------ convert once

    cdef int _check_free(self) except -1:
        if self.in_filter:
            raise RuntimeError(
                "the feature filter called back into the forest; keeps(i, feature) must not "
                "use it"
            )
        return 0

    cdef int _check_index(self, int i) except -1:
        if i < 0 or i >= self.n:
            raise IndexError(f"tree index {i} out of range")
        return 0

    cdef int _check_loaded(self) except -1:
        if not self.loaded:
            raise RuntimeError(
                "no x is loaded: call load(x) first (learn_one, predict_proba_one, "
                "predict_proba_all and predict_proba_matrix unload it, and so does a failed "
                "load or a tree added or reset with new nominal attributes)"
            )
        return 0

    def load(self, x):
        """Convert ``x`` once, for any number of :meth:`predict_loaded`,
        :meth:`predict_loaded_row`, :meth:`predict_loaded_matrix` and :meth:`learn_loaded`
        calls on any trees.

        The forest keeps its own converted copy of ``x``'s features and values, taken now:
        mutating ``x`` afterwards changes nothing of what is loaded, and no later call reuses
        the conversion for another dict (the ``*_loaded`` methods take no ``x``). Each call of
        a ``*_loaded`` method gives exactly what the same method given ``x`` gives (e.g.
        ``learn_loaded(i, y, w)`` is ``learn_one(i, x, y, w)``), in any order and
        interleaved with :meth:`add`, :meth:`reset`, :meth:`copy_tree` and :meth:`remove`.

        ``x`` stays loaded until the next ``load``, or until a method that takes an ``x``
        (:meth:`learn_one`, ``predict_proba_*``) converts another; then, and after a ``load``
        that raised, the ``*_loaded`` methods raise ``RuntimeError``. So does adding or
        resetting a tree whose ``nominal_attributes`` make a feature nominal that no tree
        treated as nominal before (its numeric values were not registered as values): load
        ``x`` again.

        Raises
        ------
        ValueError
            A feature value is ``None`` (drop the key to mark a feature missing).
        """
        _api_load(self, x)

    @property
    def is_loaded(self):
        """Whether an ``x`` is loaded (see :meth:`load`)."""
        return bool(self.loaded)

    def learn_loaded(self, int i, y, w=1.0):
        """Tree ``i`` learns the loaded ``x`` with label ``y`` and weight ``w``: exactly
        :meth:`learn_one` ``(i, x, y, w)``.

        Raises
        ------
        RuntimeError
            No ``x`` is loaded (see :meth:`load`).
        """
        _api_learn_loaded(self, i, y, float(w))

    def predict_loaded(self, int i):
        """Tree ``i``'s ``predict_proba_one`` of the loaded ``x``: exactly
        :meth:`predict_proba_one` ``(i, x)``, a dict as River returns it."""
        self._check_free()
        self._check_index(i)
        self._check_loaded()
        self._view(i, False)
        return self._proba_dict(i)

    def predict_loaded_row(self, int i, labels):
        """Tree ``i``'s probabilities of ``labels`` for the loaded ``x``, without a dict.

        Returns
        -------
        list of float
            ``[predict_loaded(i).get(label, 0.0) for label in labels]``, the same floats.
        """
        cdef double* res = NULL
        cdef int* rc = NULL
        cdef int k, n, c
        cdef list out = []
        self._check_free()
        self._check_index(i)
        self._check_loaded()
        self._view(i, False)
        n = self._predict(i, &res, &rc)
        for label in labels:
            co = self.cmap.get(label)
            c = -1 if co is None else <int>co
            v = 0.0
            for k in range(n):
                if rc[k] == c:
                    v = res[k]
                    break
            out.append(v)
        return out

    def predict_loaded_matrix(self, labels, trees=None):
        """Several trees' probabilities for the loaded ``x``, as an array.

        Parameters
        ----------
        labels
            The columns' labels.
        trees
            The rows' tree indices (any order, repeats allowed); ``None``: every tree.

        Returns
        -------
        numpy.ndarray
            Shape ``(len(trees), len(labels))``: entry ``[r, k]`` is
            ``predict_loaded(trees[r]).get(labels[k], 0.0)``, the same float.
        """
        self._check_free()
        self._check_loaded()
        return self._matrix(labels, trees)

    cdef object _matrix(self, labels, trees):
        """The loaded x's probability matrix (see predict_loaded_matrix)."""
        cdef int i, R, L = len(labels)
        cdef list idx
        if trees is None:
            idx = list(range(self.n))
        else:
            idx = [int(i) for i in trees]
            for i in idx:
                self._check_index(i)
        R = len(idx)
        out = _np.zeros((R, L), dtype=_np.float64)
        cdef double[:, ::1] M = out
        if R > 0 and L > 0:
            self._fill(labels, idx, R, &M[0, 0])
        return out

    cdef int _fill(self, labels, list idx, int R, double* out) except -1:
        """Rows of the loaded x's probability matrix into ``out`` (R x len(labels), zeroed
        here): trees ``idx`` (None: trees 0..R-1)."""
        cdef int i, r, k, kk, c, n, L = len(labels)
        cdef double* res = NULL
        cdef int* rc = NULL
        cdef int* col = <int*>xcalloc(L if L > 0 else 1, sizeof(int))
        try:
            memset(out, 0, R * L * sizeof(double))
            for kk in range(L):
                co = self.cmap.get(labels[kk])
                col[kk] = -1 if co is None else <int>co
            for r in range(R):
                i = r if idx is None else <int>idx[r]
                self._view(i, False)
                n = self._predict(i, &res, &rc)
                for kk in range(L):
                    c = col[kk]
                    if c < 0:
                        continue
                    for k in range(n):
                        if rc[k] == c:
                            out[r * L + kk] = res[k]
                            break
        finally:
            free(col)
        return 0

    # ------------------------------------------------------------------ prediction

    cdef int _predict(self, int i, double** res, int** rc) except -1:
        """The leaf's prediction for tree i: (values, classes, n); n = 0 for River's {}."""
        cdef Tree* t = &self.trees[i]
        cdef Node* nd
        cdef Leaf* lf
        cdef double* out
        cdef double factor, mult
        cdef int k, n
        cdef bint use_nb
        if t.root == NULL:
            return 0
        nd = walk_to_leaf(t.root, &self.xv)
        lf = nd.lf
        out = work_votes(&self.wk, lf.n_st + 1)
        rc[0] = lf.st_c
        res[0] = out
        if t.leaf_pred == 0:
            use_nb = False
        elif t.leaf_pred == 1:
            use_nb = lf.active and leaf_total(lf) >= t.nb_threshold
        else:
            use_nb = lf.active and lf.nb_correct >= lf.mc_correct
        if use_nb:
            n = self._nb(t, lf, out)
            if t.leaf_pred == 2:
                self._nb_store(t, lf, out, n)
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

    cdef dict _proba_dict(self, int i):
        cdef double* res = NULL
        cdef int* rc = NULL
        cdef int n = self._predict(i, &res, &rc)
        cdef int k
        cdef list labels = self.labels
        cdef list s = self._tree_sorted(i)
        cdef dict proba = {}
        # {c: 0.0 for c in sorted(classes)}, then update with the leaf's prediction
        if n <= 0:
            for c in s:
                proba[labels[<int>c]] = 0.0
            return proba
        for c in s:
            proba[labels[<int>c]] = 0.0
        for k in range(n):
            proba[labels[rc[k]]] = res[k]
        return proba

    def predict_proba_all(self, x):
        """Every tree's ``predict_proba_one``: ``[trees[i].predict_proba_one(view_i(x)) for i]``.

        Returns
        -------
        list of dict
            One dict per tree, as River returns it: the tree's classes in sorted order, each
            with River's probability to the last bit (``{}`` for a tree that learned nothing).
        """
        cdef int i
        cdef list out = []
        self._check_free()
        self.loaded = False
        self._convert(x)
        for i in range(self.n):
            self._view(i, False)
            out.append(self._proba_dict(i))
        return out

    def predict_proba_one(self, int i, x):
        """``trees[i].predict_proba_one(view_i(x))``."""
        self._check_free()
        self._check_index(i)
        self.loaded = False
        self._convert(x)
        self._view(i, False)
        return self._proba_dict(i)

    def predict_proba_matrix(self, x, labels):
        """Every tree's probabilities as an array, without building dicts.

        Parameters
        ----------
        x
            Features, as for :meth:`predict_proba_all`.
        labels
            The columns' labels.

        Returns
        -------
        numpy.ndarray
            Shape ``(n_models, len(labels))``: entry ``[i, k]`` is
            ``predict_proba_all(x)[i].get(labels[k], 0.0)``, the same float.
        """
        self._check_free()
        self.loaded = False
        self._convert(x)
        return self._matrix(labels, None)

    # ------------------------------------------------------------------ trees that come and go

    cdef int _mark_nominal(self, int i) except -1:
        """Tree i's nominal attributes among the known features, from its model."""
        cdef Tree* t = &self.trees[i]
        cdef int fid
        nominal = self._models[i].nominal_attributes
        for fid in range(self.nf):
            if nominal is not None and self.fnames[fid] in nominal:
                t.fstate[fid] |= F_NOMATTR
                if not self.f_nomany[fid]:
                    # the loaded x registered no value ids for this feature's numbers
                    self.f_nomany[fid] = 1
                    self.loaded = False
            else:
                t.fstate[fid] &= ~F_NOMATTR
        return 0

    def _add_core(self, tuple params, model):
        """Append a fresh tree (``params`` as forest.py's _tree_params); its index."""
        cdef int i, nc
        cdef Tree* t
        self._check_free()
        if self.n >= self.tcap:
            nc = grow_cap(self.tcap, self.n + 1)
            self.trees = <Tree*>xrealloc(self.trees, nc * sizeof(Tree))
            memset(&self.trees[self.tcap], 0, (nc - self.tcap) * sizeof(Tree))
            self.crank = <int**>xrealloc(self.crank, nc * sizeof(int*))
            memset(&self.crank[self.tcap], 0, (nc - self.tcap) * sizeof(int*))
            self.tcap = nc
        i = self.n
        t = &self.trees[i]
        memset(t, 0, sizeof(Tree))
        tree_init(t, params)
        t.fstate = <unsigned char*>xcalloc(self.fcap, sizeof(unsigned char))
        t.fcap = self.fcap
        t.ccap = grow_cap(0, self.nc)
        t.has_cls = <char*>xcalloc(t.ccap, sizeof(char))
        self.crank[i] = NULL
        self._models.append(model)
        self.sorted_cls.append(None)
        self.n += 1
        self._mark_nominal(i)
        return i

    def _reset_core(self, int i, tuple params, model, bint refilter):
        """Tree i becomes a fresh tree with ``params``; its nodes are freed."""
        cdef Tree* t
        cdef int fid
        self._check_free()
        self._check_index(i)
        t = &self.trees[i]
        node_free(t.root)
        t.root = NULL
        tree_init(t, params)
        memset(t.has_cls, 0, t.ccap)
        for fid in range(t.fcap):
            # the filter's decisions stay (the tree keeps its index), unless refilter; the
            # kinds it learned go with its statistics
            t.fstate[fid] = 0 if refilter else t.fstate[fid] & (F_DECIDED | F_KEEP)
        free(self.crank[i])
        self.crank[i] = NULL
        self.sorted_cls[i] = None
        self._models[i] = model
        self._mark_nominal(i)

    def copy_tree(self, int src, int dst):
        """Tree ``dst`` becomes an exact copy of tree ``src``: its parameters, its feature view
        (the ``feature_filter``'s decisions made so far for ``src``, and the kinds it
        learned), its nodes, statistics and counters: River's ``copy.deepcopy(trees[src])``,
        which then learns and predicts as River's copy would (``dst``'s old nodes are freed).
        Features ``src`` has not met yet are asked of the filter as ``keeps(dst, f)`` when
        ``dst`` meets them.

        Like ``copy.deepcopy``, the copy rebuilds each set of nominal values by adding them in
        the source set's iteration order, which can order colliding string values differently
        from the source, so ``copy_tree(i, i)`` is not quite a no-op: it is
        ``trees[i] = copy.deepcopy(trees[i])``.
        """
        cdef Tree* s
        cdef Tree* d
        cdef Tree keep
        cdef Node* root = NULL
        self._check_free()
        self._check_index(src)
        self._check_index(dst)
        s = &self.trees[src]
        if s.root != NULL:
            # the state export/import that pickling uses (and tests): an exact copy
            root = self._import_node(self._export_node(s.root, True))
        model = self._models[src].clone()
        s = &self.trees[src]
        d = &self.trees[dst]
        node_free(d.root)
        if src == dst:
            d.root = root
            d.nbc_leaf = NULL  # it pointed into the freed nodes
            return
        keep = d[0]
        d[0] = s[0]
        d.root = root
        d.fstate = keep.fstate
        d.fcap = keep.fcap
        memcpy(d.fstate, s.fstate, self.nf * sizeof(unsigned char))
        d.has_cls = keep.has_cls
        d.ccap = keep.ccap
        memset(d.has_cls, 0, d.ccap)
        memcpy(d.has_cls, s.has_cls, self.nc * sizeof(char))
        # dst's own naive-Bayes cache buffers, emptied (src's entry points into src's leaves)
        d.nbc_out = keep.nbc_out
        d.nbc_cap = keep.nbc_cap
        d.nbc_f = keep.nbc_f
        d.nbc_v = keep.nbc_v
        d.nbc_d = keep.nbc_d
        d.nbc_xcap = keep.nbc_xcap
        d.nbc_leaf = NULL
        d.nbc_ver = 0
        d.ver = 0
        free(self.crank[dst])
        self.crank[dst] = NULL
        self.sorted_cls[dst] = None
        self._models[dst] = model

    def remove(self, int i):
        """Remove tree ``i`` and free its memory; the trees after it move down one index
        (like ``del list[i]``), each with its own state and feature view (decisions made so
        far travel with the tree; features a tree has not met yet are asked of the
        ``feature_filter`` with its new index)."""
        self._check_free()
        self._check_index(i)
        tree_free(&self.trees[i])
        free(self.crank[i])
        memmove(&self.trees[i], &self.trees[i + 1], (self.n - i - 1) * sizeof(Tree))
        memmove(&self.crank[i], &self.crank[i + 1], (self.n - i - 1) * sizeof(int*))
        self.n -= 1
        memset(&self.trees[self.n], 0, sizeof(Tree))
        self.crank[self.n] = NULL
        del self._models[i]
        del self.sorted_cls[i]

    # ------------------------------------------------------------------ diagnostics

    def _counts(self, int i):
        cdef long long nn = 0, nl = 0, h = 0
        cdef Tree* t
        self._check_index(i)
        t = &self.trees[i]
        if t.root == NULL:
            return None, None, 0
        count_nodes(t.root, &nn, &nl, &h, 0)
        return nn, nl, h

    @property
    def n_nodes(self):
        return [self._counts(i)[0] for i in range(self.n)]

    @property
    def n_leaves(self):
        return [self._counts(i)[1] for i in range(self.n)]

    @property
    def height(self):
        return [self._counts(i)[2] for i in range(self.n)]

    @property
    def n_active_leaves(self):
        return [self.trees[i].n_active for i in range(self.n)]

    @property
    def n_inactive_leaves(self):
        return [self.trees[i].n_inactive for i in range(self.n)]

    # ------------------------------------------------------------------ state export / import

    cdef object _export_node(self, Node* nd, bint deep):
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
                            self._set_order(s)
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
                [self._export_node(nd.ch[k], deep) for k in range(nd.n_ch)],
                [nd.ch_vid[k] for k in range(nd.n_ch)] if nd.kind == 2 else None)

    cdef Node* _import_node(self, tuple st) except NULL:
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
                lf.sidx_cap = grow_cap(0, self.nf + 1)
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
                            # (states pickled before the history was kept have 6 entries)
                            ins = sp[6] if len(sp) > 6 else None
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
                if kind == 2:
                    nd.ch_vid = <int*>xcalloc(nd.cap_ch, sizeof(int))
                    mx = max(ch_vid) + 1 if ch_vid else 1
                    nd.vmap_cap = grow_cap(0, mx)
                    nd.vmap = <int*>xcalloc(nd.vmap_cap, sizeof(int))
                for k in range(n):
                    nd.ch[k] = self._import_node(children[k])
                    nd.n_ch += 1
                    if kind == 2:
                        nd.ch_vid[k] = ch_vid[k]
                        nd.vmap[<int>ch_vid[k]] = k + 1
        except BaseException:
            node_free(nd)
            raise
        return nd

    def _get_state(self):
        cdef int i
        cdef Tree* t
        trees = []
        for i in range(self.n):
            t = &self.trees[i]
            trees.append((
                t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                t.growth_allowed, t.train_weight,
                bytes([t.fstate[k] for k in range(self.nf)]),
                [c for c in range(self.nc) if t.has_cls[c]],
                None if t.root == NULL else self._export_node(t.root, False),
            ))
        return {
            "version": 1,
            "features": list(self.fnames),
            "values": [list(v) for v in self.fvalobjs],
            "labels": list(self.labels),
            "trees": trees,
        }

    def _set_state(self, dict state):
        cdef int i, k
        cdef Tree* t
        if state.get("version") != 1:
            raise ValueError("unknown HoeffdingForest state version")
        for name in state["features"]:
            self._new_feature(name)
        for k, vals in enumerate(state["values"]):
            for v in vals:
                self._value_id(k, v)
        for y in state["labels"]:
            self._class_id(y)
        for i, ts in enumerate(state["trees"]):
            t = &self.trees[i]
            (t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
             t.growth_allowed, t.train_weight, fstate, has, root) = ts
            for k in range(len(fstate)):
                t.fstate[k] = fstate[k]
            for c in has:
                t.has_cls[<int>c] = 1
            if root is not None:
                t.root = self._import_node(root)
            self._count_leaves(t)
            t.nbc_leaf = NULL
            self.sorted_cls[i] = None

    cdef int _count_leaves(self, Tree* t) except -1:
        """Set the kept leaf counts from a walk over the leaves (after an import)."""
        cdef long long nn = 0, nl = 0, h = 0
        t.n_reactivable = 0
        if t.root != NULL:
            count_nodes(t.root, &nn, &nl, &h, 0)
            t.n_reactivable = count_reactivable(t.root, t.max_depth)
        t.n_leaves = nl
        return 0

    def _leaf_counts(self, int i):
        """``(kept, walked)``: tree i's kept (leaves, reactivable leaves) and the same counted
        by walking the leaves (for the tests: they must agree)."""
        cdef Tree* t
        cdef long long nn = 0, nl = 0, h = 0
        self._check_index(i)
        t = &self.trees[i]
        if t.root == NULL:
            walked = (0, 0)
        else:
            count_nodes(t.root, &nn, &nl, &h, 0)
            walked = (nl, count_reactivable(t.root, t.max_depth))
        return (t.n_leaves, t.n_reactivable), walked

    def _export_tree(self, int i):
        """Tree i's raw state (ids refer to ``_features``, ``_values`` and ``_labels``)."""
        cdef Tree* t
        self._check_index(i)
        t = &self.trees[i]
        return None if t.root == NULL else self._export_node(t.root, False)

    def _tree_scalars(self, int i):
        cdef Tree* t
        self._check_index(i)
        t = &self.trees[i]
        return {
            "n_active_leaves": t.n_active,
            "n_inactive_leaves": t.n_inactive,
            "inactive_leaf_size_estimate": t.inactive_est,
            "active_leaf_size_estimate": t.active_est,
            "size_estimate_overhead_fraction": t.overhead,
            "growth_allowed": bool(t.growth_allowed),
            "train_weight_seen_by_model": t.train_weight,
            "classes": [self.labels[c] for c in range(self.nc) if t.has_cls[c]],
        }

    @property
    def _features(self):
        return list(self.fnames)

    @property
    def _values(self):
        return [list(v) for v in self.fvalobjs]

    @property
    def _labels(self):
        return list(self.labels)


# ----------------------------------------------------------------------------- the walk's API
# river_boost._walk calls the forest through these (a capsule from forest_api()), without a
# Python call per tree: each does what the method it names does, checks included.


cdef int _api_load(object forest, object x) except -1:
    cdef ForestCore f = <ForestCore?>forest
    f._check_free()
    f.loaded = False
    f._convert(x)
    f.loaded = True
    return 0


cdef int _api_load_items(object forest, PyObject** keys, PyObject** vals, int n) except -1:
    cdef ForestCore f = <ForestCore?>forest
    f._check_free()
    f.loaded = False
    f._convert_items(keys, vals, n)
    f.loaded = True
    return 0


cdef int _api_loaded_matrix(object forest, object labels, int n_rows, double* out) except -1:
    cdef ForestCore f = <ForestCore?>forest
    f._check_free()
    f._check_loaded()
    if n_rows < 0 or n_rows > f.n:
        raise IndexError(f"{n_rows} rows asked of a forest of {f.n} trees")
    return f._fill(labels, None, n_rows, out)


cdef int _api_learn_loaded(object forest, int i, object y, double w) except -1:
    cdef ForestCore f = <ForestCore?>forest
    cdef int cid
    f._check_free()
    f._check_index(i)
    f._check_loaded()
    cid = f._class_id(y)
    f._view(i, True)
    f._learn(i, cid, w)
    return 0


cdef long long _api_loaded_version(object forest) noexcept:
    cdef ForestCore f = <ForestCore>forest
    return f.n_conversions if f.loaded else -1


cdef ForestAPI _API
_API.load = _api_load
_API.load_items = _api_load_items
_API.loaded_matrix = _api_loaded_matrix
_API.learn_loaded = _api_learn_loaded
_API.loaded_version = _api_loaded_version


def forest_api():
    """A capsule of the forest's C entry points for the compiled walk (``_forestapi.pxd``)."""
    return PyCapsule_New(<void*>&_API, b"river_boost._forest.ForestAPI", NULL)
