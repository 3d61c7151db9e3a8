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
- ``_trees``: one tree: nodes, walking ``x`` to a leaf, learning and growth, sizes;
- ``_size.pxd``: the size policy (River's memory management), over either kind's tree;
- ``_state``: either kind's trees exported and imported (copies) and written and read (pickles);
- ``_registry``: features, values and labels by id (the Python objects the C side refers to);
- ``_storage``: ``Storage``, a forest's trees of either kind (their feature views, models and
  registry: trees added, reset, copied, removed, their counts and state), and
  ``TreeStorage``, the classifier's trees over it (the table of C structs, the scratch
  buffers), learning and predicting on a converted ``x``;
- ``_input``: ``Input``, ``x`` converted once (the ``XV`` view) and each tree's view of it;
- ``_core``: ``ForestBase``, the core both kinds share, which owns a ``Storage`` and an
  ``Input`` (composition, as scikit-learn's splitter owns its criterion): trees that come and
  go, their counts and state, and the loaded ``x``;
- this module: ``ForestCore``, the classifier's core over ``ForestBase`` (learning class
  labels, predicting probabilities), with the C entry points of the boosters' engines
  (``_forest.pxd``).

The regression forest (``forest/_regression.py``) shares ``_core``, ``_input``, ``_registry``,
``_storage``, ``_size`` and ``_state`` (its ``_regforest.RegStorage`` is a ``Storage``) and adds
its own roles: ``_reg_structs.pxd`` (structs, ``river.stats.Var``), ``_ebst`` (E-BST and
nominal regression splitters), ``_linear`` (the leaf model), variance reduction in
``_criteria``, ``_regtrees`` (leaves and trees) and ``_regforest`` (storage and core).

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

from libc.stdlib cimport free
from libc.string cimport memset

import numpy as _np

from river_boost.forest._forest_structs cimport (
    CRIT_GINI, CRIT_HELLINGER, CRIT_INFO_GAIN, LEAF_MAJORITY_CLASS, LEAF_NAIVE_BAYES,
    LEAF_NAIVE_BAYES_ADAPTIVE, SPLIT_NOMINAL_BINARY, SPLIT_NOMINAL_MULTIWAY, SPLIT_NUMERIC_BINARY,
    xcalloc,
)
from river_boost.forest._core cimport ForestBase
from river_boost.forest._storage cimport TreeStorage


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
# forest.HoeffdingForest subclasses ForestCore (and pickles it: its __reduce__, through
# _get_state and _set_state).

cdef class ForestCore(ForestBase):
    """N Hoeffding classification trees in C structures (the members both kinds share:
    ``_core.ForestBase``). Use :class:`river_boost.forest.HoeffdingForest`."""

    _storage_kind = TreeStorage

    @property
    def n_active_leaves(self):
        return [(<TreeStorage>self.store).trees[i].n_active for i in range(self.store.n)]

    @property
    def n_inactive_leaves(self):
        return [(<TreeStorage>self.store).trees[i].n_inactive for i in range(self.store.n)]

    def _leaf_counts(self, int i):
        """``(kept, walked)``: tree i's kept (leaves, reactivable leaves) and the same counted
        by walking the leaves (for the tests: they must agree)."""
        return (<TreeStorage>self.store).leaf_counts(i)

    def _export_tree(self, int i):
        """Tree i's raw state (ids refer to ``_features``, ``_values`` and ``_labels``)."""
        return (<TreeStorage>self.store).export_tree(i)

    @property
    def _features(self):
        return list(self.store.reg.fnames)

    @property
    def _values(self):
        return [list(v) for v in self.store.reg.fvalobjs]

    @property
    def _labels(self):
        return list(self.store.reg.labels)

    def _set_state(self, dict state):
        (<TreeStorage>self.store).set_state(state)

    def learn_loaded(self, int i, y, w=1.0):
        """Tree ``i`` learns the loaded ``x`` with label ``y`` and weight ``w``: exactly
        :meth:`learn_one` ``(i, x, y, w)``.

        Raises
        ------
        RuntimeError
            No ``x`` is loaded (see :meth:`load`).
        """
        self.learn_loaded_c(i, y, float(w))

    def predict_loaded(self, int i):
        """Tree ``i``'s ``predict_proba_one`` of the loaded ``x``: exactly
        :meth:`predict_proba_one` ``(i, x)``, a dict as River returns it."""
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.check_loaded()
        self.inp.view(i, False)
        return (<TreeStorage>self.store).proba_dict(i, &self.inp.xv)

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
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.check_loaded()
        self.inp.view(i, False)
        n = (<TreeStorage>self.store).predict(i, &self.inp.xv, &res, &rc)
        for label in labels:
            co = self.store.reg.cmap.get(label)
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
        self.inp.check_free()
        self.inp.check_loaded()
        return self._matrix(labels, trees)

    cdef object _matrix(self, labels, trees):
        """The loaded x's probability matrix (see predict_loaded_matrix)."""
        cdef int i, R, L = len(labels)
        cdef list idx
        if trees is None:
            idx = list(range(self.store.n))
        else:
            idx = [int(i) for i in trees]
            for i in idx:
                self.store.check_index(i)
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
                co = self.store.reg.cmap.get(labels[kk])
                col[kk] = -1 if co is None else <int>co
            for r in range(R):
                i = r if idx is None else <int>idx[r]
                self.inp.view(i, False)
                n = (<TreeStorage>self.store).predict(i, &self.inp.xv, &res, &rc)
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

    # ------------------------------------------------------------------ an x per call

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
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.loaded = False
        cid = self.store.class_id(y)
        self.inp.convert(x)
        self.inp.complete()
        self.inp.view(i, True)
        (<TreeStorage>self.store).learn(i, &self.inp.xv, cid, wd)

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
        self.inp.check_free()
        self.inp.loaded = False
        self.inp.convert(x)
        for i in range(self.store.n):
            self.inp.view(i, False)
            out.append((<TreeStorage>self.store).proba_dict(i, &self.inp.xv))
        return out

    def predict_proba_one(self, int i, x):
        """``trees[i].predict_proba_one(view_i(x))``."""
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.loaded = False
        self.inp.convert(x)
        self.inp.view(i, False)
        return (<TreeStorage>self.store).proba_dict(i, &self.inp.xv)

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
        self.inp.check_free()
        self.inp.loaded = False
        self.inp.convert(x)
        return self._matrix(labels, None)

    # ------------------------------------------------------------------ the engines' entry points
    # river_boost.engine._engine calls the forest through these (declared in _forest.pxd),
    # without a Python call per tree: each does what the method it names does, checks included.

    cdef int loaded_matrix_c(self, object labels, int n_rows, double* out) except -1:
        """predict_loaded_matrix(labels, range(n_rows)) into out (n_rows x len(labels))."""
        self.inp.check_free()
        self.inp.check_loaded()
        if n_rows < 0 or n_rows > self.store.n:
            raise IndexError(f"{n_rows} rows asked of a forest of {self.store.n} trees")
        return self._fill(labels, None, n_rows, out)

    cdef int learn_loaded_c(self, int i, object y, double w) except -1:
        """learn_loaded(i, y, w)."""
        cdef int cid
        self.inp.check_free()
        self.store.check_index(i)
        self.inp.check_loaded()
        cid = self.store.class_id(y)
        self.inp.complete()  # what the load left unregistered: learning registers it
        self.inp.view(i, True)
        (<TreeStorage>self.store).learn(i, &self.inp.xv, cid, w)
        return 0
