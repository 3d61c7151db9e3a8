# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled forest's input (see _input.pxd): ``x`` converted once per call to feature ids,
floats and value ids, and each tree's view of it."""

from cpython.dict cimport PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_Check
from cpython.object cimport PyObject
from libc.stdlib cimport free
from libc.string cimport memset

import numbers as _numbers

from river_boost.forest._forest_structs cimport (
    F_DECIDED, F_KEEP, F_KIND, F_NOMATTR, F_NONNUM, XV, View, grow_cap, xrealloc,
)
from river_boost.forest._storage cimport Storage


cdef class Input:
    """The forest's input: ``x`` converted (the view ``xv``) for the trees of ``store``, each
    tree seeing the features ``feature_filter`` keeps for it."""

    def __cinit__(self):
        memset(&self.xv, 0, sizeof(XV))
        self.lfid = NULL
        self.lcap = 0
        self.loaded = False
        self.n_conversions = 0
        self.in_filter = 0

    def __init__(self, Storage store, feature_filter):
        self.store = store
        self.reg = store.reg
        self.feature_filter = feature_filter
        self.lkeys = []
        self.pending = []
        self.number_type = _numbers.Number

    def __dealloc__(self):
        free(self.xv.f)
        free(self.xv.d)
        free(self.xv.v)
        free(self.xv.isnum)
        free(self.xv.vj)
        free(self.xv.vst)
        free(self.xv.vpos)
        free(self.lfid)

    # ------------------------------------------------------------------ checks

    cdef int check_free(self) except -1:
        if self.in_filter:
            raise RuntimeError(
                "the feature filter called back into the forest; keeps(i, feature) must not "
                "use it"
            )
        return 0

    cdef int check_loaded(self) except -1:
        if not self.loaded:
            raise RuntimeError(
                "no x is loaded: call load(x) first (learn_one, predict_proba_one, "
                "predict_proba_all and predict_proba_matrix unload it, and so does a failed "
                "load or a tree added or reset with new nominal attributes)"
            )
        return 0

    # ------------------------------------------------------------------ x conversion

    cdef int convert(self, object x) except -1:
        """x -> (fid, number, value id) arrays, in x's order.

        Nothing is registered: a feature or nominal value the forest has not learned gets the
        id -1, which no split or leaf statistic holds (the trees predict as River's, which
        ignores what it never learned), and waits in ``pending`` for :meth:`complete`, which
        learning calls. So a prediction leaves the forest as it was."""
        cdef PyObject* key
        cdef PyObject* val
        cdef Py_ssize_t pos = 0
        cdef int j = 0
        cdef XV* xv = &self.xv
        self.n_conversions += 1
        if type(x) is not dict:
            x = dict(x)
        if self.pending:  # (empty but after a prediction of something never learned)
            self.pending = []
        self.reserve(len(<dict>x))
        while PyDict_Next(x, &pos, &key, &val):
            self.convert_item(j, key, val)
            j += 1
        xv.nx = j
        self.fit_features()
        return 0

    cdef int complete(self) except -1:
        """Register what the conversion left pending, in x's order (the ids learning would
        have given at conversion), before a tree learns the converted x."""
        cdef XV* xv = &self.xv
        cdef int j, fid
        if not self.pending:
            return 0
        for j, k, v in self.pending:
            fid = xv.f[j]
            if fid < 0:
                fo = self.reg.fmap.get(k)
                fid = self.store.new_feature(k) if fo is None else <int>fo
                xv.f[j] = fid
            if not xv.isnum[j] or self.reg.f_nomany[fid]:
                xv.v[j] = self.reg.value_id(fid, v)
            else:
                xv.v[j] = -1
        self.pending = []
        self.fit_features()
        return 0

    cdef int fit_features(self) except -1:
        """The per-feature arrays of the view cover every registered feature (registered by
        learning or by the trees' state)."""
        cdef XV* xv = &self.xv
        cdef int nc, k
        if self.reg.nf > xv.fcap:
            nc = grow_cap(xv.fcap, self.reg.nf)
            xv.vst = <unsigned int*>xrealloc(xv.vst, nc * sizeof(unsigned int))
            xv.vpos = <int*>xrealloc(xv.vpos, nc * sizeof(int))
            for k in range(xv.fcap, nc):
                xv.vst[k] = 0
            xv.fcap = nc
        return 0

    cdef int reserve(self, Py_ssize_t n) except -1:
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

    cdef int convert_item(self, int j, PyObject* key, PyObject* val) except -1:
        """The j-th feature of the converted x (reserve made room)."""
        cdef XV* xv = &self.xv
        cdef list lkeys = self.lkeys
        cdef int fid
        cdef object k, v, fo, vid
        cdef bint isnum
        cdef double d
        # the feature id: the previous x usually had the same key objects in the same order
        # (only learned features are remembered: an unknown one is looked up again)
        if j < PyList_GET_SIZE(lkeys) and <PyObject*>PyList_GET_ITEM(lkeys, j) == key:
            fid = self.lfid[j]
        else:
            k = <object>key
            fo = self.reg.fmap.get(k)
            fid = -1 if fo is None else <int>fo
            if j < PyList_GET_SIZE(lkeys):
                lkeys[j] = k if fid >= 0 else None
            else:
                lkeys.append(k if fid >= 0 else None)
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
                f"feature {<object>key!r} is None: drop the key to mark a feature "
                "missing (None values are not supported by the compiled forest)"
            )
        elif isinstance(v, self.number_type):
            isnum = True
            d = float(v)
        else:
            isnum = False
            d = 0.0
        xv.isnum[j] = isnum
        xv.d[j] = d
        if fid < 0:
            xv.v[j] = -1
            self.pending.append((j, <object>key, v))
        elif not isnum or self.reg.f_nomany[fid]:
            vid = (<dict>self.reg.fvals[fid]).get(v)
            if vid is None:
                xv.v[j] = -1
                self.pending.append((j, None, v))
            else:
                xv.v[j] = <int>vid
        else:
            xv.v[j] = -1
        return 0

    # ------------------------------------------------------------------ a tree's view

    cdef int view(self, int i, bint learning) except -1:
        """The features tree i sees (feature_filter), with River's type checks.

        A feature's kind (number or not) is recorded for tree i when the tree first *learns*
        it: a tree that only predicted a feature has no statistics of it, so River would take
        either kind later, and so does the forest. A kind mismatch with a recorded kind raises
        before anything is recorded for this x.
        """
        cdef XV* xv = &self.xv
        cdef View* t = &self.store.views[i]
        cdef int j, k, fid, nv = 0
        cdef bint keep, pending = False
        cdef unsigned char st
        xv.stamp += 1
        if xv.stamp == 0:  # wrapped around
            memset(xv.vst, 0, xv.fcap * sizeof(unsigned int))
            xv.stamp = 1
        for j in range(xv.nx):
            fid = xv.f[j]
            if fid < 0:  # not learned by any tree: no tree reads it
                continue
            st = t.fstate[fid]
            if not (st & F_DECIDED):
                if self.feature_filter is None:
                    keep = True
                else:
                    self.in_filter += 1
                    try:
                        keep = self.feature_filter.keeps(i, self.reg.fnames[fid])
                    finally:
                        self.in_filter -= 1
                st |= F_DECIDED
                if keep:
                    st |= F_KEEP
                if learning:  # (a prediction changes nothing: decided again next time)
                    t.fstate[fid] = st
            if not (st & F_KEEP):
                continue
            if not (st & F_NOMATTR):
                if st & F_KIND:
                    if (not xv.isnum[j]) != ((st & F_NONNUM) != 0):
                        raise TypeError(
                            f"feature {self.reg.fnames[fid]!r} of tree {i} mixes numbers and "
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
