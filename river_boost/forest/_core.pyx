# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The core both compiled forests share (see _core.pxd): trees that come and go, their
counts and state, and the loaded x. A kind's core names its storage (``_storage_kind``) and
adds its learning and prediction."""

from river_boost.forest._input cimport Input


cdef class ForestBase:
    """N Hoeffding trees of one kind in C structures. Use
    :class:`river_boost.forest.HoeffdingForest` or
    :class:`river_boost.forest.HoeffdingRegressionForest`.

    It owns its trees (a ``_storage.Storage`` of the kind's ``_storage_kind``) and its input
    (an :class:`Input` over them): the learning and prediction entry points convert ``x`` with
    the one and walk the other."""

    def __cinit__(self):
        # an empty forest until _init_core (the attribute lookup finds the subclass's kind)
        self.store = self._storage_kind([], [], [])
        self.inp = Input(self.store, None)

    def _init_core(self, list params, list models, list overrides, feature_filter):
        """params: one tuple per tree (the kind's _tree_params); models: each tree's River
        model (shared: never learned); overrides: each tree's parameters besides its model's,
        or None."""
        self.store = self._storage_kind(params, models, overrides)
        self.inp = Input(self.store, feature_filter)

    def _allocated_bytes(self):
        """Bytes of C memory the forest holds: its trees (nodes, leaves, splitters and
        per-tree buffers, by allocated capacity) and the tree table; not the per-call scratch
        buffers, which do not grow with the trees."""
        return self.store.allocated_bytes()

    @property
    def n_models(self):
        return self.store.n

    @property
    def _models(self):
        return self.store.models

    @property
    def _overrides(self):
        return self.store.overrides

    @property
    def feature_filter(self):
        return self.inp.feature_filter

    # ------------------------------------------------------------------ trees that come and go

    def _add_core(self, tuple params, model, overrides):
        """Append a fresh tree (``params`` as the kind's _tree_params); its index."""
        self.inp.check_free()
        if self.store.add(params, model, overrides):
            self.inp.loaded = False
        return self.store.n - 1

    def _reset_core(self, int i, tuple params, model, overrides, bint refilter):
        """Tree i becomes a fresh tree with ``params``; its nodes are freed."""
        self.inp.check_free()
        self.store.check_index(i)
        if self.store.reset(i, params, model, overrides, refilter):
            self.inp.loaded = False

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
        self.inp.check_free()
        self.store.check_index(src)
        self.store.check_index(dst)
        self.store.copy(src, dst)

    def remove(self, int i):
        """Remove tree ``i`` and free its memory; the trees after it move down one index
        (like ``del list[i]``), each with its own state and feature view (decisions made so
        far travel with the tree; features a tree has not met yet are asked of the
        ``feature_filter`` with its new index)."""
        self.inp.check_free()
        self.store.check_index(i)
        self.store.remove(i)

    # ------------------------------------------------------------------ diagnostics and state

    def _counts(self, int i):
        """Tree i's (nodes, leaves, height); (None, None, 0) before it learns."""
        return self.store.counts(i)

    @property
    def n_nodes(self):
        return [self.store.counts(i)[0] for i in range(self.store.n)]

    @property
    def n_leaves(self):
        return [self.store.counts(i)[1] for i in range(self.store.n)]

    @property
    def height(self):
        return [self.store.counts(i)[2] for i in range(self.store.n)]

    def _tree_scalars(self, int i):
        return self.store.tree_scalars(i)

    def _get_state(self):
        return self.store.get_state()

    @property
    def _storage(self):
        """The trees' storage (its state for pickling: ``flat_state``, ``tables``,
        ``set_flat_state``)."""
        return self.store

    def _unload(self):
        """Before the trees are replaced: no x is being converted, and none stays loaded."""
        self.inp.check_free()
        self.inp.loaded = False

    # ------------------------------------------------------------------ the loaded x

    def load(self, x):
        """Convert ``x`` once, for any number of ``*_loaded`` calls on any trees.

        The forest keeps its own converted copy of ``x``'s features and values, taken now:
        mutating ``x`` afterwards changes nothing of what is loaded, and no later call reuses
        the conversion for another dict (the ``*_loaded`` methods take no ``x``). Each call of
        a ``*_loaded`` method gives exactly what the same method given ``x`` gives (e.g.
        ``learn_loaded(i, y, w)`` is ``learn_one(i, x, y, w)``), in any order and
        interleaved with ``add``, ``reset``, :meth:`copy_tree` and :meth:`remove`.
        Features and nominal values no tree has learned are registered when a tree learns the
        loaded ``x``: predictions leave the forest as it was.

        ``x`` stays loaded until the next ``load``, or until a method that takes an ``x``
        (``learn_one``, ``predict_*``) converts another; then, and after a ``load`` that
        raised, the ``*_loaded`` methods raise ``RuntimeError``. So does adding or resetting a
        tree whose ``nominal_attributes`` make a feature nominal that no tree treated as
        nominal before (its numeric values were not registered as values): load ``x`` again.

        Raises
        ------
        ValueError
            A feature value is ``None`` (drop the key to mark a feature missing).
        """
        self.load_c(x)

    @property
    def is_loaded(self):
        """Whether an ``x`` is loaded (see :meth:`load`)."""
        return bool(self.inp.loaded)

    cdef int load_c(self, object x) except -1:
        self.inp.check_free()
        self.inp.loaded = False
        self.inp.convert(x)
        self.inp.loaded = True
        return 0

    cdef long long loaded_version_c(self) noexcept:
        return self.inp.n_conversions if self.inp.loaded else -1
