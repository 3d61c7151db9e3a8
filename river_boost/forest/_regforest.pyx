# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled regression forest's storage and core (see _regforest.pxd and
:class:`river_boost.forest.HoeffdingRegressionForest`)."""

from libc.math cimport isfinite
from libc.stdlib cimport free
from libc.string cimport memcpy, memmove, memset

from river_boost.forest._flat cimport Flat, Rd, Tables, get_i, put_i
from river_boost.forest._forest_structs cimport (
    F_DECIDED, F_KEEP, XV, Node, Tree, grow_cap, xcalloc, xrealloc,
)
from river_boost.forest._core cimport ForestBase
from river_boost.forest._input cimport Input
from river_boost.forest._reg_structs cimport RLEAF_MEAN, RTree
from river_boost.forest._regtrees cimport (
    rtree_allocated, rtree_check_x, rtree_free, rtree_init, rtree_learn, rtree_predict,
)
from river_boost.forest._state cimport rtree_export, rtree_import, rtree_read, rtree_write
from river_boost.forest._registry cimport Registry
from river_boost.forest._storage cimport TreeStorage
from river_boost.forest._trees cimport count_nodes, tree_free


cdef class RegStorage(TreeStorage):
    """The regression trees (RTree) beside TreeStorage's per-tree records, of which they use
    the feature state (``fstate``: the filter's decisions, kinds, nominal attributes)."""

    def __init__(self, list params, list models, list overrides):
        cdef int i
        self.models = models
        self.overrides = overrides
        self.n = len(params)
        self.tcap = self.n
        self.rcap = self.n
        self.trees = <Tree*>xcalloc(self.n, sizeof(Tree))
        self.rt = <RTree*>xcalloc(self.n, sizeof(RTree))
        for i in range(self.n):
            rtree_init(&self.rt[i], <tuple>params[i])
        self.reg = Registry(self.n)

    def __dealloc__(self):
        cdef int i
        if self.rt != NULL:
            for i in range(self.n):
                rtree_free(&self.rt[i])
            free(self.rt)
            self.rt = NULL

    def allocated_bytes(self):
        cdef long long b = self.tcap * sizeof(Tree) + self.rcap * sizeof(RTree)
        cdef int i
        for i in range(self.n):
            b += rtree_allocated(&self.rt[i]) + self.trees[i].fcap
        return b

    cdef bint add(self, tuple params, object model, object overrides) except -1:
        cdef int i, nc
        cdef Tree* t
        if self.n >= self.tcap:
            nc = grow_cap(self.tcap, self.n + 1)
            self.trees = <Tree*>xrealloc(self.trees, nc * sizeof(Tree))
            memset(&self.trees[self.tcap], 0, (nc - self.tcap) * sizeof(Tree))
            self.tcap = nc
        if self.n >= self.rcap:
            nc = grow_cap(self.rcap, self.n + 1)
            self.rt = <RTree*>xrealloc(self.rt, nc * sizeof(RTree))
            memset(&self.rt[self.rcap], 0, (nc - self.rcap) * sizeof(RTree))
            self.rcap = nc
        self.reg.add_tree()
        i = self.n
        t = &self.trees[i]
        memset(t, 0, sizeof(Tree))
        t.fstate = <unsigned char*>xcalloc(self.fcap, sizeof(unsigned char))
        t.fcap = self.fcap
        rtree_init(&self.rt[i], params)
        self.models.append(model)
        self.overrides.append(overrides)
        self.n += 1
        return self.mark_nominal(i)

    cdef bint reset(self, int i, tuple params, object model, object overrides,
                    bint refilter) except -1:
        cdef Tree* t = &self.trees[i]
        cdef int fid
        rtree_free(&self.rt[i])
        rtree_init(&self.rt[i], params)
        for fid in range(t.fcap):
            t.fstate[fid] = 0 if refilter else t.fstate[fid] & (F_DECIDED | F_KEEP)
        self.models[i] = model
        self.overrides[i] = overrides
        return self.mark_nominal(i)

    cdef int copy(self, int src, int dst) except -1:
        cdef RTree* s = &self.rt[src]
        cdef RTree* d = &self.rt[dst]
        root = rtree_import(rtree_export(s), self.reg.nf)
        model = self.models[src]  # (never learned: shared, as _storage.pxd says)
        overrides = self.overrides[src]
        rtree_free(d)
        if src == dst:
            d.root = root
            return 0
        d[0] = s[0]
        d.root = root
        memcpy(self.trees[dst].fstate, self.trees[src].fstate, self.reg.nf)
        self.models[dst] = model
        self.overrides[dst] = overrides
        return 0

    cdef int remove(self, int i) except -1:
        rtree_free(&self.rt[i])
        memmove(&self.rt[i], &self.rt[i + 1], (self.n - i - 1) * sizeof(RTree))
        memset(&self.rt[self.n - 1], 0, sizeof(RTree))
        tree_free(&self.trees[i])
        memmove(&self.trees[i], &self.trees[i + 1], (self.n - i - 1) * sizeof(Tree))
        self.n -= 1
        memset(&self.trees[self.n], 0, sizeof(Tree))
        self.reg.remove_tree(i)
        del self.models[i]
        del self.overrides[i]
        return 0

    cdef int rlearn(self, int i, object inp, double y, double w) except -1:
        """Tree i learns the converted x (checks done: y finite, w > 0 finite)."""
        cdef Input it = <Input>inp
        cdef XV* xv = &it.xv
        cdef int j
        cdef bint nonnum = False
        if self.rt[i].leaf_pred != RLEAF_MEAN:
            # River's leaf model rejects non-numbers: checked before anything is registered
            for j in range(xv.nx):
                if not xv.isnum[j]:
                    nonnum = True
            if nonnum:
                it.view(i, False)  # the registered features
                rtree_check_x(&self.rt[i], xv)
                for j, key, _ in it.pending:  # the others (key None: a registered feature)
                    if key is not None and not xv.isnum[<int>j] and (
                        it.feature_filter is None or it.feature_filter.keeps(i, key)
                    ):
                        rtree_check_x(&self.rt[i], NULL)
        it.complete()
        it.view(i, True)
        return rtree_learn(&self.rt[i], self.trees[i].fstate, xv, self.reg, y, w)

    cdef double rpredict(self, int i, object inp) except? -1.0:
        cdef Input it = <Input>inp
        it.view(i, False)
        return rtree_predict(&self.rt[i], &it.xv)

    def counts(self, int i):
        cdef long long nn = 0, nl = 0, h = 0
        self.check_index(i)
        if self.rt[i].root == NULL:
            return None, None, 0
        count_nodes(<Node*>self.rt[i].root, &nn, &nl, &h, 0)  # (a split reads as a Node)
        return nn, nl, h

    def tree_scalars(self, int i):
        cdef RTree* t
        self.check_index(i)
        t = &self.rt[i]
        return {
            "n_active_leaves": t.n_active, "n_inactive_leaves": t.n_inactive,
            "inactive_leaf_size_estimate": t.inactive_est,
            "active_leaf_size_estimate": t.active_est,
            "size_estimate_overhead_fraction": t.overhead,
            "growth_allowed": bool(t.growth_allowed),
            "train_weight_seen_by_model": t.train_weight,
        }

    def get_state(self):
        cdef int i
        cdef RTree* t
        trees = []
        for i in range(self.n):
            t = &self.rt[i]
            trees.append((
                (t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                 t.growth_allowed, t.train_weight),
                [self.trees[i].fstate[f] for f in range(self.reg.nf)],
                rtree_export(t),
            ))
        return {
            "version": 1,
            "features": list(self.reg.fnames),
            "values": [list(v) for v in self.reg.fvalobjs],
            "trees": trees,
        }


    # ------------------------------------------------------------------ flat state (pickling)

    cdef int retable(self, list params, list models) except -1:
        cdef int i, m = len(params)
        for i in range(self.n):
            rtree_free(&self.rt[i])
            tree_free(&self.trees[i])
        self.trees = <Tree*>xrealloc(self.trees, (m if m > 0 else 1) * sizeof(Tree))
        memset(self.trees, 0, (m if m > 0 else 1) * sizeof(Tree))
        self.rt = <RTree*>xrealloc(self.rt, (m if m > 0 else 1) * sizeof(RTree))
        memset(self.rt, 0, (m if m > 0 else 1) * sizeof(RTree))
        self.tcap = self.rcap = m
        self.n = 0
        self.retable_registry(m)
        self.models = list(models)
        for i in range(m):
            rtree_init(&self.rt[i], <tuple>params[i])
            self.trees[i].fstate = <unsigned char*>xcalloc(self.fcap, sizeof(unsigned char))
            self.trees[i].fcap = self.fcap
            self.n += 1
        return 0

    cdef int write_tree(self, int i, Flat* f) except -1:
        """The tree's feature decisions (i, one per feature), then rtree_write's state."""
        cdef int k
        for k in range(self.reg.nf):
            put_i(f, self.trees[i].fstate[k])
        return rtree_write(&self.rt[i], f)

    cdef int read_tree(self, int i, Rd* r, const Tables* tb) except -1:
        cdef int k
        for k in range(self.reg.nf):
            self.trees[i].fstate[k] = <unsigned char>get_i(r, 0, 256)
        return rtree_read(r, &self.rt[i], tb)


cdef inline int check_target(double y, double w) except -1:
    if not isfinite(y):
        raise ValueError(f"the target must be finite, not {y!r}")
    if not (isfinite(w) and w > 0.0):
        raise ValueError(f"the weight must be a finite positive number, not {w!r}")
    return 0


cdef class RegressionForestCore(ForestBase):
    """N regression Hoeffding trees in C structures (the members both kinds share:
    ``_core.ForestBase``). Use :class:`river_boost.forest.HoeffdingRegressionForest`."""

    _storage_kind = RegStorage

    # ------------------------------------------------------------------ learning, prediction

    def learn_one(self, int i, x, y, w=1.0):
        """Tree ``i`` learns ``(x, y)`` with weight ``w``: River's
        ``trees[i].learn_one(view_i(x), y, w=w)``.

        Raises
        ------
        ValueError
            ``y`` is not finite, ``w`` is not finite and positive, or a feature is ``None``
            (nothing has changed then).
        TypeError
            A feature mixes numbers and non-numbers, or a model or adaptive leaf meets a
            non-numeric feature (nothing has changed then).
        """
        cdef double yd = float(y)
        cdef double wd = float(w)
        self.inp.check_free()
        self.store.check_index(i)
        check_target(yd, wd)
        self.inp.loaded = False
        self.inp.convert(x)
        (<RegStorage>self.store).rlearn(i, self.inp, yd, wd)

    def predict_one(self, int i, x):
        """Tree ``i``'s ``predict_one(view_i(x))`` (a float; changes nothing)."""
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.loaded = False
        self.inp.convert(x)
        return (<RegStorage>self.store).rpredict(i, self.inp)

    def predict_all(self, x):
        """Every tree's prediction of ``x`` (converted once)."""
        cdef int i
        cdef RegStorage store = <RegStorage>self.store
        self.inp.check_free()
        self.inp.loaded = False
        self.inp.convert(x)
        return [store.rpredict(i, self.inp) for i in range(store.n)]

    def predict_loaded(self, int i):
        """Tree ``i``'s prediction of the loaded ``x``: :meth:`predict_one` ``(i, x)``."""
        return self.predict_loaded_c(i)

    def learn_loaded(self, int i, y, w=1.0):
        """Tree ``i`` learns the loaded ``x``: :meth:`learn_one` ``(i, x, y, w)``."""
        self.learn_loaded_c(i, float(y), float(w))

    cdef double predict_loaded_c(self, int i) except? -1.0:
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.check_loaded()
        return (<RegStorage>self.store).rpredict(i, self.inp)

    cdef int learn_loaded_c(self, int i, double y, double w) except -1:
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.check_loaded()
        check_target(y, w)
        return (<RegStorage>self.store).rlearn(i, self.inp, y, w)
