# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled forest's trees (see _storage.pxd): ``Storage``, what a forest of either kind
keeps per tree (its feature view, its River model and overrides) and the registry, with the
trees added, reset, copied and removed; ``TreeStorage``, the classifier's trees over it,
learning and predicting on a converted x (_input's view), their counts and their state. The
regressor's trees are ``_regforest.RegStorage``, over the same ``Storage``."""

from libc.stdlib cimport free
from libc.string cimport memcpy, memmove, memset

from river_boost.forest._flat cimport Flat, Rd, Tables, flat_take, rd_close, rd_open
from river_boost.forest._forest_structs cimport (
    F_DECIDED, F_KEEP, F_NOMATTR, XV, Leaf, Node, Tree, View, grow_cap, work_free, xcalloc,
    xrealloc,
)
from river_boost.forest._leaves cimport leaf_predict
from river_boost.forest._registry cimport Registry
from river_boost.forest._size cimport scalars
from river_boost.forest._state cimport export_node, import_node, tree_read, tree_write
from river_boost.forest._trees cimport (
    count_nodes, count_reactivable, node_free, tree_allocated, tree_free, tree_init, tree_learn,
    walk_to_leaf,
)


cdef class Storage:
    """A forest's trees, of either kind: per tree its feature view (``View``), its River model
    and its overrides, and the registries their ids refer to. ``params``: one tuple per tree
    (the kind's _tree_params); ``models``: the trees' River models (shared between trees:
    never learned); ``overrides``: per tree, None or the parameters it has besides its
    model's (a pool's diversified trees share one model). The trees themselves are the kind's
    (``kind_*``)."""

    def __cinit__(self):
        self.views = NULL
        self.n = 0
        self.tcap = 0
        self.fcap = 0

    def __init__(self, list params, list models, list overrides):
        cdef int i
        self.models = models
        self.overrides = overrides
        self.reg = Registry(len(params))
        self.n = self.tcap = len(params)
        self.views = <View*>xcalloc(self.n, sizeof(View))
        self.kind_resize(0, self.n)
        for i in range(self.n):
            self.kind_init(i, <tuple>params[i])

    def __dealloc__(self):
        cdef int i
        if self.views != NULL:
            for i in range(self.n):
                free(self.views[i].fstate)
            free(self.views)

    def allocated_bytes(self):
        """Bytes of C memory the trees hold (nodes, leaves, splitters, feature views and
        per-tree buffers, by allocated capacity) and the tables of trees; not the scratch
        buffers, which do not grow with the trees."""
        cdef long long b = self.tcap * sizeof(View) + self.kind_allocated()
        cdef int i
        for i in range(self.n):
            b += self.views[i].fcap
        return b

    # ------------------------------------------------------------------ the kind's trees

    cdef int kind_resize(self, int old_cap, int cap) except -1:
        """The table of trees to ``cap`` slots (at least one), those from ``old_cap`` on
        zeroed."""
        raise NotImplementedError

    cdef int kind_init(self, int i, tuple params) except -1:
        """Tree i (a zeroed slot) becomes a fresh tree with ``params``."""
        raise NotImplementedError

    cdef void kind_free(self, int i) noexcept:
        """Tree i's memory freed (its slot left to the caller)."""

    cdef int kind_reset(self, int i, tuple params) except -1:
        """Tree i starts over with ``params``: its nodes are freed."""
        raise NotImplementedError

    cdef int kind_copy(self, int src, int dst) except -1:
        """Tree dst becomes an exact copy of tree src (views and models: the caller's)."""
        raise NotImplementedError

    cdef int kind_shift(self, int i) except -1:
        """The trees after i (freed) move down one slot; the last slot is zeroed."""
        raise NotImplementedError

    cdef long long kind_allocated(self) except -1:
        """Bytes the kind's trees hold (allocated_bytes)."""
        raise NotImplementedError

    cdef Node* kind_root(self, int i) noexcept:
        """Tree i's root (NULL before it learns), as a Node: a split node reads alike in both
        kinds (_forest_structs.pxd)."""
        return NULL

    cdef dict kind_scalars(self, int i):
        """Tree i's counters (tree_scalars)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ diagnostics

    def counts(self, int i):
        """Tree i's (nodes, leaves, height); (None, None, 0) before it learns."""
        cdef long long nn = 0, nl = 0, h = 0
        cdef Node* root
        self.check_index(i)
        root = self.kind_root(i)
        if root == NULL:
            return None, None, 0
        count_nodes(root, &nn, &nl, &h, 0)
        return nn, nl, h

    def tree_scalars(self, int i):
        """Tree i's counters, River's names for them (summary, to_river)."""
        self.check_index(i)
        return self.kind_scalars(i)

    # ------------------------------------------------------------------ registries

    cdef int new_feature(self, object name) except -1:
        """Register a feature (its id), and grow the trees' feature views."""
        cdef int fid = self.reg.add_feature(name)
        cdef int nc, i, k
        cdef object nominal
        cdef bint any_nom = False
        if fid + 1 > self.fcap:
            nc = grow_cap(self.fcap, fid + 1)
            for i in range(self.n):
                self.views[i].fstate = <unsigned char*>xrealloc(self.views[i].fstate, nc)
                for k in range(self.fcap, nc):
                    self.views[i].fstate[k] = 0
                self.views[i].fcap = nc
            self.fcap = nc
        for i in range(self.n):
            nominal = self.models[i].nominal_attributes
            if nominal is not None and name in nominal:
                self.views[i].fstate[fid] |= F_NOMATTR
                any_nom = True
        self.reg.f_nomany[fid] = any_nom
        return fid

    cdef int check_index(self, int i) except -1:
        if i < 0 or i >= self.n:
            raise IndexError(f"tree index {i} out of range")
        return 0

    # ------------------------------------------------------------------ trees that come and go

    cdef bint mark_nominal(self, int i) except -1:
        """Tree i's nominal attributes among the known features, from its model; whether a
        feature became nominal that no tree took as nominal before (a loaded x registered no
        value ids for its numbers: the forest unloads it)."""
        cdef unsigned char* fstate = self.views[i].fstate
        cdef int fid
        cdef bint unload = False
        nominal = self.models[i].nominal_attributes
        for fid in range(self.reg.nf):
            if nominal is not None and self.reg.fnames[fid] in nominal:
                fstate[fid] |= F_NOMATTR
                if not self.reg.f_nomany[fid]:
                    self.reg.f_nomany[fid] = 1
                    unload = True
            else:
                fstate[fid] &= ~F_NOMATTR
        return unload

    cdef bint add(self, tuple params, object model, object overrides) except -1:
        """Append a fresh tree (index n - 1 after the call); mark_nominal's answer."""
        cdef int i = self.n, nc
        if self.n >= self.tcap:
            nc = grow_cap(self.tcap, self.n + 1)
            self.views = <View*>xrealloc(self.views, nc * sizeof(View))
            memset(&self.views[self.tcap], 0, (nc - self.tcap) * sizeof(View))
            self.kind_resize(self.tcap, nc)
            self.tcap = nc
        self.reg.add_tree()
        self.views[i].fstate = <unsigned char*>xcalloc(self.fcap, sizeof(unsigned char))
        self.views[i].fcap = self.fcap
        self.kind_init(i, params)
        self.models.append(model)
        self.overrides.append(overrides)
        self.n += 1
        return self.mark_nominal(i)

    cdef bint reset(self, int i, tuple params, object model, object overrides,
                    bint refilter) except -1:
        """Tree i becomes a fresh tree with ``params``; its nodes are freed. mark_nominal's
        answer."""
        cdef View* v = &self.views[i]
        cdef int fid
        self.kind_reset(i, params)
        for fid in range(v.fcap):
            # the filter's decisions stay (the tree keeps its index), unless refilter; the
            # kinds it learned go with its statistics
            v.fstate[fid] = 0 if refilter else v.fstate[fid] & (F_DECIDED | F_KEEP)
        self.models[i] = model
        self.overrides[i] = overrides
        return self.mark_nominal(i)

    cdef int copy(self, int src, int dst) except -1:
        """Tree dst becomes an exact copy of tree src (ForestBase.copy_tree)."""
        self.kind_copy(src, dst)
        if src != dst:
            memcpy(self.views[dst].fstate, self.views[src].fstate, self.reg.nf)
            self.models[dst] = self.models[src]  # (never learned: shared, see _storage.pxd)
            self.overrides[dst] = self.overrides[src]
        return 0

    cdef int remove(self, int i) except -1:
        """Remove tree i; the trees after it move down one index."""
        self.kind_free(i)
        self.kind_shift(i)
        free(self.views[i].fstate)
        memmove(&self.views[i], &self.views[i + 1], (self.n - i - 1) * sizeof(View))
        self.n -= 1
        memset(&self.views[self.n], 0, sizeof(View))
        self.reg.remove_tree(i)
        del self.models[i]
        del self.overrides[i]
        return 0

    # ------------------------------------------------------------------ flat state (pickling)

    def tables(self):
        """The registry's tables: the features, each feature's values and the labels, in
        the order of their ids."""
        return (list(self.reg.fnames), [list(v) for v in self.reg.fvalobjs], list(self.reg.labels))

    def flat_state(self):
        """The trees' state in the flat encoding of _flat.pxd, ``(width, integers, doubles)``:
        tree after tree, each as its kind writes it (write_tree), then what their size policy
        measures beyond it (write_caps). The registry's tables, the models and the parameters
        are the caller's to keep."""
        cdef Flat f
        cdef int i
        memset(&f, 0, sizeof(Flat))
        try:
            for i in range(self.n):
                self.write_tree(i, &f)
            for i in range(self.n):
                self.write_caps(i, &f)
        except BaseException:
            flat_take(&f)  # (frees the buffers)
            raise
        return flat_take(&f)

    def set_flat_state(self, list params, list models, list overrides, list features,
                       list values, list labels, width, ints, dbls):
        """A storage that has registered nothing yet (just built) takes the state flat_state
        gave: ``len(params)`` trees with these parameters and models, the registry's tables,
        then each tree read from the streams, every id checked against the tables (ValueError
        for anything a pickle written by flat_state cannot hold)."""
        cdef Rd r
        cdef Tables tb
        cdef int i, fid
        cdef int* nvals = NULL
        if self.reg.nf or self.reg.nc:
            raise RuntimeError("only a forest that has learned nothing takes a state")
        if len(models) != len(params) or len(overrides) != len(params) or len(values) != len(
                features):
            raise ValueError("tables of the wrong size")
        self.retable(params, models)
        self.overrides = list(overrides)
        for name in features:
            self.new_feature(name)
        for fid in range(len(values)):
            for v in values[fid]:
                self.reg.value_id(fid, v)
        for y in labels:
            self.class_id(y)
        if (self.reg.nf != len(features) or self.reg.nc != len(labels)
                or [len(v) for v in self.reg.fvalobjs] != [len(v) for v in values]):
            raise ValueError("a feature, value or label repeated")
        rd_open(&r, width, ints, dbls)
        nvals = <int*>xcalloc(self.reg.nf, sizeof(int))
        try:
            for fid in range(self.reg.nf):
                nvals[fid] = len(self.reg.fvalobjs[fid])
            tb.nf, tb.nc, tb.nvals = self.reg.nf, self.reg.nc, nvals
            for i in range(self.n):
                self.read_tree(i, &r, &tb)
            if r.ii < r.ni:  # the capacities (write_caps; none in a pickle of 0.2.x)
                for i in range(self.n):
                    self.read_caps(i, &r, &tb)
            rd_close(&r)
        finally:
            free(nvals)

    cdef int class_id(self, object y) except -1:
        """The label's id (registered if new)."""
        cdef object cid = self.reg.cmap.get(y)
        if cid is not None:
            return <int>cid
        return self.reg.add_class(y)

    cdef int retable(self, list params, list models) except -1:
        """Every tree freed; ``len(params)`` fresh trees in their place (set_flat_state)."""
        cdef int i, m = len(params)
        for i in range(self.n):
            self.kind_free(i)
            free(self.views[i].fstate)
        self.views = <View*>xrealloc(self.views, (m if m > 0 else 1) * sizeof(View))
        memset(self.views, 0, (m if m > 0 else 1) * sizeof(View))
        self.kind_resize(0, m if m > 0 else 1)
        self.tcap = m
        self.n = 0
        while len(self.reg.sorted_cls) < m:
            self.reg.add_tree()
        while len(self.reg.sorted_cls) > m:
            self.reg.remove_tree(len(self.reg.sorted_cls) - 1)
        self.models = list(models)
        for i in range(m):
            self.kind_init(i, <tuple>params[i])
            self.views[i].fstate = <unsigned char*>xcalloc(self.fcap, sizeof(unsigned char))
            self.views[i].fcap = self.fcap
            self.n += 1
        return 0

    cdef int write_tree(self, int i, Flat* f) except -1:
        raise NotImplementedError

    cdef int read_tree(self, int i, Rd* r, const Tables* tb) except -1:
        raise NotImplementedError

    cdef int write_caps(self, int i, Flat* f) except -1:
        """What tree i's size policy measures beyond its state (after every tree's state):
        nothing for a kind whose policy measures only what its trees hold."""
        return 0

    cdef int read_caps(self, int i, Rd* r, const Tables* tb) except -1:
        return 0


cdef class TreeStorage(Storage):
    """The classifier's trees (``Tree``: River's HoeffdingTreeClassifier) over ``Storage``,
    with the scratch buffers their learning and prediction borrow."""

    def __cinit__(self):
        self.trees = NULL
        memset(&self.wk, 0, sizeof(Work))

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.n):
                tree_free(&self.trees[i])
            free(self.trees)
        work_free(&self.wk)

    cdef int kind_resize(self, int old_cap, int cap) except -1:
        self.trees = <Tree*>xrealloc(self.trees, cap * sizeof(Tree))
        memset(&self.trees[old_cap], 0, (cap - old_cap) * sizeof(Tree))
        return 0

    cdef int kind_init(self, int i, tuple params) except -1:
        cdef Tree* t = &self.trees[i]
        tree_init(t, params)
        t.ccap = grow_cap(0, self.reg.nc)
        t.has_cls = <char*>xcalloc(t.ccap, sizeof(char))
        return 0

    cdef void kind_free(self, int i) noexcept:
        tree_free(&self.trees[i])

    cdef int kind_reset(self, int i, tuple params) except -1:
        cdef Tree* t = &self.trees[i]
        node_free(t.root)
        t.root = NULL
        tree_init(t, params)
        memset(t.has_cls, 0, t.ccap)
        self.reg.forget_sorted(i)
        return 0

    cdef int kind_copy(self, int src, int dst) except -1:
        cdef Tree* s = &self.trees[src]
        cdef Tree* d
        cdef Tree keep
        cdef Node* root = NULL
        if s.root != NULL:
            # the state export/import that pickling uses (and tests): an exact copy
            root = import_node(export_node(s.root, True, self.reg), self.reg.nf)
        s = &self.trees[src]
        d = &self.trees[dst]
        node_free(d.root)
        if src == dst:
            d.root = root
            d.nbc_leaf = NULL  # it pointed into the freed nodes
            return 0
        keep = d[0]
        d[0] = s[0]
        d.root = root
        d.has_cls = keep.has_cls
        d.ccap = keep.ccap
        memset(d.has_cls, 0, d.ccap)
        memcpy(d.has_cls, s.has_cls, self.reg.nc * sizeof(char))
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
        self.reg.forget_sorted(dst)
        return 0

    cdef int kind_shift(self, int i) except -1:
        memmove(&self.trees[i], &self.trees[i + 1], (self.n - i - 1) * sizeof(Tree))
        memset(&self.trees[self.n - 1], 0, sizeof(Tree))
        return 0

    cdef long long kind_allocated(self) except -1:
        cdef long long b = self.tcap * sizeof(Tree) + self.reg.allocated()
        cdef int i
        for i in range(self.n):
            b += tree_allocated(&self.trees[i])
        return b

    cdef int class_id(self, object y) except -1:
        """The label's id (registered if new; the trees' class arrays grow)."""
        cdef object cid = self.reg.cmap.get(y)
        cdef int c, i, nc
        if cid is not None:
            return <int>cid
        c = self.reg.add_class(y)
        for i in range(self.n):
            if c >= self.trees[i].ccap:
                nc = grow_cap(self.trees[i].ccap, c + 1)
                self.trees[i].has_cls = <char*>xrealloc(self.trees[i].has_cls, nc)
                memset(self.trees[i].has_cls + self.trees[i].ccap, 0, nc - self.trees[i].ccap)
                self.trees[i].ccap = nc
        return c

    cdef Node* kind_root(self, int i) noexcept:
        return self.trees[i].root

    # ------------------------------------------------------------------ learning and prediction

    cdef int learn(self, int i, XV* xv, int cid, double w) except -1:
        """HoeffdingTreeClassifier.learn_one for tree i on xv's view of it."""
        cdef Tree* t = &self.trees[i]
        if not t.has_cls[cid]:
            t.has_cls[cid] = 1
            self.reg.sorted_cls[i] = None  # (its ranks are recomputed with it)
        return tree_learn(t, self.views[i].fstate, i, xv, &self.wk, self.reg, cid, w)

    cdef int predict(self, int i, XV* xv, double** res, int** rc) except -1:
        """The leaf's prediction for tree i: (values, classes, n); n = 0 for River's {}."""
        cdef Tree* t = &self.trees[i]
        cdef Leaf* lf
        if t.root == NULL:
            return 0
        lf = walk_to_leaf(t.root, xv).lf
        n = leaf_predict(t, lf, xv, &self.wk)
        rc[0] = lf.st_c
        res[0] = self.wk.votes
        return n

    cdef dict proba_dict(self, int i, XV* xv):
        """Tree i's predict_proba_one, the dict River returns."""
        cdef double* res = NULL
        cdef int* rc = NULL
        cdef int n = self.predict(i, xv, &res, &rc)
        cdef int k
        cdef list labels = self.reg.labels
        cdef list s = self.reg.tree_sorted(i, &self.trees[i])
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

    # ------------------------------------------------------------------ diagnostics

    def leaf_counts(self, int i):
        """``(kept, walked)``: tree i's kept (leaves, reactivable leaves) and the same counted
        by walking the leaves (for the tests: they must agree)."""
        cdef Tree* t
        cdef long long nn = 0, nl = 0, h = 0
        self.check_index(i)
        t = &self.trees[i]
        if t.root == NULL:
            walked = (0, 0)
        else:
            count_nodes(t.root, &nn, &nl, &h, 0)
            walked = (nl, count_reactivable(t.root, t.max_depth))
        return (t.n_leaves, t.n_reactivable), walked

    def export_tree(self, int i):
        """Tree i's raw state (ids refer to the registry's features, values and labels)."""
        cdef Tree* t
        self.check_index(i)
        t = &self.trees[i]
        return None if t.root == NULL else export_node(t.root, False, self.reg)

    cdef dict kind_scalars(self, int i):
        cdef Tree* t = &self.trees[i]
        cdef dict s = scalars(t)
        s["classes"] = [self.reg.labels[c] for c in range(self.reg.nc) if t.has_cls[c]]
        return s

    # ------------------------------------------------------------------ state export / import

    def get_state(self):
        """The trees' state, registries included (the models are not: the caller keeps them)."""
        cdef int i
        cdef Tree* t
        trees = []
        for i in range(self.n):
            t = &self.trees[i]
            trees.append((
                t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                t.growth_allowed, t.train_weight,
                bytes([self.views[i].fstate[k] for k in range(self.reg.nf)]),
                [c for c in range(self.reg.nc) if t.has_cls[c]],
                None if t.root == NULL else export_node(t.root, False, self.reg),
            ))
        return {
            "version": 1,
            "features": list(self.reg.fnames),
            "values": [list(v) for v in self.reg.fvalobjs],
            "labels": list(self.reg.labels),
            "trees": trees,
        }

    def set_state(self, dict state):
        """get_state's state, into fresh trees made from the same models and parameters."""
        cdef int i, k
        cdef Tree* t
        if state.get("version") != 1:
            raise ValueError("unknown HoeffdingForest state version")
        for name in state["features"]:
            self.new_feature(name)
        for k, vals in enumerate(state["values"]):
            for v in vals:
                self.reg.value_id(k, v)
        for y in state["labels"]:
            self.class_id(y)
        for i, ts in enumerate(state["trees"]):
            t = &self.trees[i]
            (t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
             t.growth_allowed, t.train_weight, fstate, has, root) = ts
            for k in range(len(fstate)):
                self.views[i].fstate[k] = fstate[k]
            for c in has:
                t.has_cls[<int>c] = 1
            if root is not None:
                t.root = import_node(root, self.reg.nf)
            self.count_leaves(t)
            t.nbc_leaf = NULL
            self.reg.sorted_cls[i] = None

    cdef int count_leaves(self, Tree* t) except -1:
        """Set the kept leaf counts from a walk over the leaves (after an import)."""
        cdef long long nn = 0, nl = 0, h = 0
        t.n_reactivable = 0
        if t.root != NULL:
            count_nodes(t.root, &nn, &nl, &h, 0)
            t.n_reactivable = count_reactivable(t.root, t.max_depth)
        t.n_leaves = nl
        return 0

    cdef int write_tree(self, int i, Flat* f) except -1:
        return tree_write(&self.trees[i], self.views[i].fstate, self.reg.nf, self.reg.nc, f)

    cdef int read_tree(self, int i, Rd* r, const Tables* tb) except -1:
        cdef Tree* t = &self.trees[i]
        tree_read(r, t, self.views[i].fstate, tb)
        self.count_leaves(t)
        t.nbc_leaf = NULL
        self.reg.forget_sorted(i)
        return 0
