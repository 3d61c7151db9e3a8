# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""Compiled forest of River Hoeffding trees (``river.tree.HoeffdingTreeClassifier``).

This module holds the C side of :class:`river_boost.forest.HoeffdingForest`: ``N`` Hoeffding
trees kept in C structs (no Python object per node, leaf or splitter), which learn and predict
bit for bit as River 0.26's ``HoeffdingTreeClassifier`` does. Read the Python face,
``river_boost/forest/__init__.py``, for the supported parameters and the documented differences.

The compiled forest is several modules, one per role (as scikit-learn's tree code is), each
with its interface in a ``.pxd``:

- ``_forest_structs.pxd``: the C structs and the allocation helpers (inline);
- ``_splitters``: the split observers (River's GaussianSplitter, NominalSplitterClassif);
- ``_criteria``: the split criteria (info gain, Gini, Hellinger);
- ``_leaves``: a leaf's statistics, prediction (majority class, naive Bayes) and split decision;
- ``_trees``: tree storage: nodes, walking ``x`` to a leaf, learning and growth, sizes, state;
- ``_registry``: features, values and labels by id (the Python objects the C side refers to);
- this module: ``ForestCore`` (over ``ForestInput`` and ``ForestTrees``), the Python entry
  points, and the C entry points of the boosters' engines (``_forest.pxd``).

A function of another module is called through a pointer (no inlining across modules); the
small helpers on the hot paths (``gfind``, ``branch_no``, ``leaf_total``, the allocation and
CPython-numerics helpers) are therefore ``cdef inline`` in the ``.pxd`` files, compiled into
every module that uses them. Every module is compiled with the same flags (setup.py).

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
from libc.stdlib cimport free
from libc.string cimport memcpy, memmove, memset

import numbers as _numbers

import numpy as _np

from river_boost.forest._forest_structs cimport (
    CRIT_GINI, CRIT_HELLINGER, CRIT_INFO_GAIN, F_DECIDED, F_KEEP, F_KIND, F_NOMATTR, F_NONNUM,
    LEAF_MAJORITY_CLASS, LEAF_NAIVE_BAYES, LEAF_NAIVE_BAYES_ADAPTIVE, SPLIT_NOMINAL_BINARY,
    SPLIT_NOMINAL_MULTIWAY, SPLIT_NUMERIC_BINARY, XV, Leaf, Node, Tree, Work, grow_cap, work_free,
    xcalloc, xrealloc,
)
from river_boost.forest._leaves cimport leaf_predict
from river_boost.forest._registry cimport Registry
from river_boost.forest._trees cimport (
    count_nodes, count_reactivable, export_node, import_node, node_free, tree_allocated,
    tree_free, tree_init, tree_learn, walk_to_leaf,
)


# The codes as forest/__init__.py needs them: River's parameter strings (_tree_params), and the
# kinds of the split nodes _export_tree gives, by River's branch (to_river builds them)
LEAF_PREDICTIONS = {
    "mc": LEAF_MAJORITY_CLASS, "nb": LEAF_NAIVE_BAYES, "nba": LEAF_NAIVE_BAYES_ADAPTIVE,
}
SPLIT_CRITERIA = {"info_gain": CRIT_INFO_GAIN, "gini": CRIT_GINI, "hellinger": CRIT_HELLINGER}
SPLIT_KINDS = {
    "NumericBinaryBranch": SPLIT_NUMERIC_BINARY,
    "NominalBinaryBranch": SPLIT_NOMINAL_BINARY,
    "NominalMultiwayBranch": SPLIT_NOMINAL_MULTIWAY,
}

# ----------------------------------------------------------------------------- the forest
# Three classes, each a role: ForestTrees (storage), ForestInput (x), ForestCore (learning and
# prediction); forest.HoeffdingForest subclasses ForestCore.

cdef class ForestTrees:
    """The forest's storage: its trees (C structs), their models, the registries of
    features, values and labels, and the scratch buffers; trees added, reset, copied and
    removed. :class:`ForestCore` adds the input conversion and the learning and prediction
    entry points."""

    cdef Tree* trees
    cdef int n
    # trees that come and go: capacity of `trees`
    cdef int tcap
    # capacity of the trees' per-feature arrays (Tree.fstate) and of the view's (xv.vst, ...)
    cdef int fcap
    cdef XV xv
    cdef Work wk
    cdef Registry reg

    cdef readonly list _models
    cdef readonly object feature_filter
    # x conversion cache: the previous x's keys, by position
    cdef list lkeys
    cdef int* lfid
    cdef int lcap
    cdef object _Number
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
        self.lfid = NULL
        self.tcap = 0
        self.loaded = False
        self.in_filter = 0

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.n):
                tree_free(&self.trees[i])
            free(self.trees)
        free(self.xv.f)
        free(self.xv.d)
        free(self.xv.v)
        free(self.xv.isnum)
        free(self.xv.vj)
        free(self.xv.vst)
        free(self.xv.vpos)
        work_free(&self.wk)
        free(self.lfid)

    def _allocated_bytes(self):
        """Bytes of C memory the forest holds: its trees (nodes, leaves, splitters and
        per-tree buffers, by allocated capacity), the tree table and the trees' class ranks;
        not the per-call scratch buffers, which do not grow with the trees."""
        cdef long long b = self.tcap * sizeof(Tree) + self.reg.allocated()
        cdef int i
        for i in range(self.n):
            b += tree_allocated(&self.trees[i])
        return b

    def _init_core(self, list params, models, feature_filter):
        """params: one tuple per tree (see forest.py: _tree_params)."""
        cdef int i
        self._models = list(models)
        self.feature_filter = feature_filter
        self.n = len(params)
        self.tcap = self.n
        self.trees = <Tree*>xcalloc(self.n, sizeof(Tree))
        for i in range(self.n):
            tree_init(&self.trees[i], <tuple>params[i])
        self.reg = Registry(self.n)
        self.fcap = 0
        self.lkeys = []
        self.lcap = 0
        self._Number = _numbers.Number

    @property
    def n_models(self):
        return self.n

    # ------------------------------------------------------------------ registries

    cdef int _new_feature(self, object name) except -1:
        """Register a feature (its id), and grow the trees' and the view's feature arrays."""
        cdef int fid = self.reg.add_feature(name)
        cdef int nc, i, k
        cdef object nominal
        cdef bint any_nom = False
        if fid + 1 > self.fcap:
            nc = grow_cap(self.fcap, fid + 1)
            for i in range(self.n):
                self.trees[i].fstate = <unsigned char*>xrealloc(self.trees[i].fstate, nc)
                for k in range(self.fcap, nc):
                    self.trees[i].fstate[k] = 0
                self.trees[i].fcap = nc
            self.xv.vst = <unsigned int*>xrealloc(self.xv.vst, nc * sizeof(unsigned int))
            self.xv.vpos = <int*>xrealloc(self.xv.vpos, nc * sizeof(int))
            for k in range(self.fcap, nc):
                self.xv.vst[k] = 0
            self.xv.fcap = nc
            self.fcap = nc
        for i in range(self.n):
            nominal = self._models[i].nominal_attributes
            if nominal is not None and name in nominal:
                self.trees[i].fstate[fid] |= F_NOMATTR
                any_nom = True
        self.reg.f_nomany[fid] = any_nom
        return fid

    cdef int _class_id(self, object y) except -1:
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

    # ------------------------------------------------------------------ checks

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

    # ------------------------------------------------------------------ trees that come and go

    cdef int _mark_nominal(self, int i) except -1:
        """Tree i's nominal attributes among the known features, from its model."""
        cdef Tree* t = &self.trees[i]
        cdef int fid
        nominal = self._models[i].nominal_attributes
        for fid in range(self.reg.nf):
            if nominal is not None and self.reg.fnames[fid] in nominal:
                t.fstate[fid] |= F_NOMATTR
                if not self.reg.f_nomany[fid]:
                    # the loaded x registered no value ids for this feature's numbers
                    self.reg.f_nomany[fid] = 1
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
            self.tcap = nc
        self.reg.add_tree()
        i = self.n
        t = &self.trees[i]
        memset(t, 0, sizeof(Tree))
        tree_init(t, params)
        t.fstate = <unsigned char*>xcalloc(self.fcap, sizeof(unsigned char))
        t.fcap = self.fcap
        t.ccap = grow_cap(0, self.reg.nc)
        t.has_cls = <char*>xcalloc(t.ccap, sizeof(char))
        self._models.append(model)
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
        self.reg.forget_sorted(i)
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
            root = import_node(export_node(s.root, True, self.reg), self.reg.nf)
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
        memcpy(d.fstate, s.fstate, self.reg.nf * sizeof(unsigned char))
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
        self._models[dst] = model

    def remove(self, int i):
        """Remove tree ``i`` and free its memory; the trees after it move down one index
        (like ``del list[i]``), each with its own state and feature view (decisions made so
        far travel with the tree; features a tree has not met yet are asked of the
        ``feature_filter`` with its new index)."""
        self._check_free()
        self._check_index(i)
        tree_free(&self.trees[i])
        memmove(&self.trees[i], &self.trees[i + 1], (self.n - i - 1) * sizeof(Tree))
        self.n -= 1
        memset(&self.trees[self.n], 0, sizeof(Tree))
        self.reg.remove_tree(i)
        del self._models[i]

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

    def _get_state(self):
        cdef int i
        cdef Tree* t
        trees = []
        for i in range(self.n):
            t = &self.trees[i]
            trees.append((
                t.n_active, t.n_inactive, t.inactive_est, t.active_est, t.overhead,
                t.growth_allowed, t.train_weight,
                bytes([t.fstate[k] for k in range(self.reg.nf)]),
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

    def _set_state(self, dict state):
        cdef int i, k
        cdef Tree* t
        if state.get("version") != 1:
            raise ValueError("unknown HoeffdingForest state version")
        for name in state["features"]:
            self._new_feature(name)
        for k, vals in enumerate(state["values"]):
            for v in vals:
                self.reg.value_id(k, v)
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
                t.root = import_node(root, self.reg.nf)
            self._count_leaves(t)
            t.nbc_leaf = NULL
            self.reg.sorted_cls[i] = None

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
        return None if t.root == NULL else export_node(t.root, False, self.reg)

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
            "classes": [self.reg.labels[c] for c in range(self.reg.nc) if t.has_cls[c]],
        }

    @property
    def _features(self):
        return list(self.reg.fnames)

    @property
    def _values(self):
        return [list(v) for v in self.reg.fvalobjs]

    @property
    def _labels(self):
        return list(self.reg.labels)


cdef class ForestInput(ForestTrees):
    """The forest's input: ``x`` converted once to ids and floats (the view ``xv``), each
    tree's view of it (its feature filter, River's type checks), and ``load``."""

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
            fo = self.reg.fmap.get(k)
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
                f"feature {self.reg.fnames[fid]!r} is None: drop the key to mark a feature "
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
        if not isnum or self.reg.f_nomany[fid]:
            xv.v[j] = self.reg.value_id(fid, v)
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
                        keep = self.feature_filter.keeps(i, self.reg.fnames[fid])
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
        forest_load(self, x)

    @property
    def is_loaded(self):
        """Whether an ``x`` is loaded (see :meth:`load`)."""
        return bool(self.loaded)


cdef class ForestCore(ForestInput):
    """N Hoeffding trees in C structures. Use :class:`river_boost.forest.HoeffdingForest`."""

    # ------------------------------------------------------------------ learning

    cdef int _learn(self, int i, int cid, double w) except -1:
        """HoeffdingTreeClassifier.learn_one for tree i on the current view."""
        cdef Tree* t = &self.trees[i]
        if not t.has_cls[cid]:
            t.has_cls[cid] = 1
            self.reg.sorted_cls[i] = None  # (its ranks are recomputed with it)
        return tree_learn(t, i, &self.xv, &self.wk, self.reg, cid, w)

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

    # ------------------------------------------------------------------ the loaded x

    def learn_loaded(self, int i, y, w=1.0):
        """Tree ``i`` learns the loaded ``x`` with label ``y`` and weight ``w``: exactly
        :meth:`learn_one` ``(i, x, y, w)``.

        Raises
        ------
        RuntimeError
            No ``x`` is loaded (see :meth:`load`).
        """
        forest_learn_loaded(self, i, y, float(w))

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
            co = self.reg.cmap.get(label)
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
                co = self.reg.cmap.get(labels[kk])
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
        cdef Leaf* lf
        if t.root == NULL:
            return 0
        lf = walk_to_leaf(t.root, &self.xv).lf
        n = leaf_predict(t, lf, &self.xv, &self.wk)
        rc[0] = lf.st_c
        res[0] = self.wk.votes
        return n

    cdef dict _proba_dict(self, int i):
        cdef double* res = NULL
        cdef int* rc = NULL
        cdef int n = self._predict(i, &res, &rc)
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

# ----------------------------------------------------------------------------- the engines' API
# river_boost.engine._engine calls the forest through these (declared in _forest.pxd), without a
# Python call per tree: each does what the method it names does, checks included.


cdef int forest_load(object forest, object x) except -1:
    cdef ForestCore f = <ForestCore?>forest
    f._check_free()
    f.loaded = False
    f._convert(x)
    f.loaded = True
    return 0


cdef int forest_loaded_matrix(object forest, object labels, int n_rows, double* out) except -1:
    cdef ForestCore f = <ForestCore?>forest
    f._check_free()
    f._check_loaded()
    if n_rows < 0 or n_rows > f.n:
        raise IndexError(f"{n_rows} rows asked of a forest of {f.n} trees")
    return f._fill(labels, None, n_rows, out)


cdef int forest_learn_loaded(object forest, int i, object y, double w) except -1:
    cdef ForestCore f = <ForestCore?>forest
    cdef int cid
    f._check_free()
    f._check_index(i)
    f._check_loaded()
    cid = f._class_id(y)
    f._view(i, True)
    f._learn(i, cid, w)
    return 0


cdef long long forest_loaded_version(object forest) noexcept:
    cdef ForestCore f = <ForestCore>forest
    return f.n_conversions if f.loaded else -1
