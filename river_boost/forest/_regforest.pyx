# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled regression forest's storage and core (see _regforest.pxd and
:class:`river_boost.forest.HoeffdingRegressionForest`)."""

from libc.math cimport isfinite
from libc.stdlib cimport free
from libc.string cimport memmove, memset

from river_boost.forest._flat cimport Flat, Rd, Tables, get_i, put_i
from river_boost.forest._forest_structs cimport F_NOMATTR, XV, Node, xrealloc
from river_boost.forest._core cimport ForestBase
from river_boost.forest._input cimport Input
from river_boost.forest._reg_structs cimport RLEAF_MEAN, RTree
from river_boost.forest._regtrees cimport (
    rtree_allocated, rtree_check_x, rtree_free, rtree_init, rtree_learn, rtree_predict,
)
from river_boost.forest._state cimport (
    rtree_export, rtree_import, rtree_read, rtree_read_caps, rtree_write, rtree_write_caps,
)
from river_boost.forest._size cimport scalars
from river_boost.forest._storage cimport Storage


cdef class RegStorage(Storage):
    """The regressor's trees (``RTree``: River's HoeffdingTreeRegressor) over ``Storage``."""

    def __cinit__(self):
        self.rt = NULL

    def __dealloc__(self):
        cdef int i
        if self.rt != NULL:
            for i in range(self.n):
                rtree_free(&self.rt[i])
            free(self.rt)
            self.rt = NULL

    cdef int kind_resize(self, int old_cap, int cap) except -1:
        self.rt = <RTree*>xrealloc(self.rt, cap * sizeof(RTree))
        memset(&self.rt[old_cap], 0, (cap - old_cap) * sizeof(RTree))
        return 0

    cdef int kind_init(self, int i, tuple params) except -1:
        return rtree_init(&self.rt[i], params)

    cdef void kind_free(self, int i) noexcept:
        rtree_free(&self.rt[i])

    cdef int kind_reset(self, int i, tuple params) except -1:
        rtree_free(&self.rt[i])
        return rtree_init(&self.rt[i], params)

    cdef int kind_copy(self, int src, int dst) except -1:
        cdef RTree* s = &self.rt[src]
        cdef RTree* d = &self.rt[dst]
        root = rtree_import(rtree_export(s), self.reg.nf)
        rtree_free(d)
        if src != dst:
            d[0] = s[0]
        d.root = root
        return 0

    cdef int kind_shift(self, int i) except -1:
        memmove(&self.rt[i], &self.rt[i + 1], (self.n - i - 1) * sizeof(RTree))
        memset(&self.rt[self.n - 1], 0, sizeof(RTree))
        return 0

    cdef long long kind_allocated(self) except -1:
        cdef long long b = self.tcap * sizeof(RTree)
        cdef int i
        for i in range(self.n):
            b += rtree_allocated(&self.rt[i])
        return b

    cdef Node* kind_root(self, int i) noexcept:
        return <Node*>self.rt[i].root  # (a split node reads alike in both kinds)

    cdef dict kind_scalars(self, int i):
        return scalars(&self.rt[i])

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
        if self.rt[i].radius > 0.0:
            self.check_quantizable(i, it)
        it.complete()
        it.view(i, True)
        return rtree_learn(&self.rt[i], self.views[i].fstate, xv, self.reg, y, w)

    cdef int check_quantizable(self, int i, object inp) except -1:
        """A QOSplitter's ``math.floor(x / radius)`` raises for a non-finite quotient (a
        nan, an infinite or a huge value), after River's tree has partly learned: the forest
        raises ValueError first, for any numeric feature tree i sees and keeps numeric."""
        cdef Input it = <Input>inp
        cdef XV* xv = &it.xv
        cdef double radius = self.rt[i].radius
        cdef int j, k
        cdef bint bad = False
        for j in range(xv.nx):
            if xv.isnum[j] and not isfinite(xv.d[j] / radius):
                bad = True
        if not bad:
            return 0
        it.view(i, False)  # the registered features
        for k in range(xv.nv):
            j = xv.vj[k]
            if (xv.isnum[j] and not (self.views[i].fstate[xv.f[j]] & F_NOMATTR)
                    and not isfinite(xv.d[j] / radius)):
                raise_unquantizable(self.reg.fnames[xv.f[j]], xv.d[j], radius)
        nominal = self.models[i].nominal_attributes or ()
        for j, key, _ in it.pending:  # the others (key None: a registered feature)
            if (key is not None and xv.isnum[<int>j] and not isfinite(xv.d[<int>j] / radius)
                    and key not in nominal
                    and (it.feature_filter is None or it.feature_filter.keeps(i, key))):
                raise_unquantizable(key, xv.d[<int>j], radius)
        return 0

    cdef double rpredict(self, int i, object inp) except? -1.0:
        cdef Input it = <Input>inp
        it.view(i, False)
        return rtree_predict(&self.rt[i], &it.xv)

    def get_state(self):
        cdef int i
        cdef RTree* t
        trees = []
        for i in range(self.n):
            t = &self.rt[i]
            trees.append((
                (t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                 t.growth_allowed, t.train_weight),
                [self.views[i].fstate[f] for f in range(self.reg.nf)],
                rtree_export(t),
            ))
        return {
            "version": 1,
            "features": list(self.reg.fnames),
            "values": [list(v) for v in self.reg.fvalobjs],
            "trees": trees,
        }

    # ------------------------------------------------------------------ flat state (pickling)

    cdef int write_tree(self, int i, Flat* f) except -1:
        """The tree's feature decisions (i, one per feature), then rtree_write's state."""
        cdef int k
        for k in range(self.reg.nf):
            put_i(f, self.views[i].fstate[k])
        return rtree_write(&self.rt[i], f)

    cdef int read_tree(self, int i, Rd* r, const Tables* tb) except -1:
        cdef int k
        for k in range(self.reg.nf):
            self.views[i].fstate[k] = <unsigned char>get_i(r, 0, 256)
        return rtree_read(r, &self.rt[i], tb)

    cdef int write_caps(self, int i, Flat* f) except -1:
        """The capacities the tree's size policy measures (_state.rtree_write_caps)."""
        return rtree_write_caps(&self.rt[i], f)

    cdef int read_caps(self, int i, Rd* r, const Tables* tb) except -1:
        return rtree_read_caps(r, &self.rt[i], tb)


cdef int raise_unquantizable(object key, double x, double radius) except -1:
    raise ValueError(f"feature {key!r} = {x!r} cannot be quantized: {x!r} / radius {radius!r} "
                     "is not finite (River's QOSplitter fails on it)")


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
