# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The compiled forest's registries of features, values and labels (see _registry.pxd)."""

from libc.stdlib cimport free
from libc.string cimport memmove, memset

from river_boost.forest._forest_structs cimport Spl, Tree, grow_cap, xcalloc, xrealloc


cdef class Registry:
    """Features, values and labels by id, and each tree's sorted classes."""

    def __cinit__(self, int n_trees):
        self.fmap = {}
        self.fnames = []
        self.fvals = []
        self.fvalobjs = []
        self.f_nomany = NULL
        self.f_truthy = NULL
        self.nf = 0
        self.fcap = 0
        self.cmap = {}
        self.labels = []
        self.nc = 0
        self.cid_one = -1
        self.cid_zero = -1
        self.sorted_cls = [None] * n_trees
        self.tcap = n_trees
        self.crank = <int**>xcalloc(n_trees, sizeof(int*))

    def __dealloc__(self):
        # C state only: the garbage collector may have cleared the object attributes already
        # (sorted_cls is None then); the rows past the trees in use are NULL
        cdef int i
        if self.crank != NULL:
            for i in range(self.tcap):
                free(self.crank[i])
        free(self.crank)
        free(self.f_nomany)
        free(self.f_truthy)

    cdef int add_feature(self, object name) except -1:
        """A new feature's id (the caller grows the trees' per-feature arrays to fcap)."""
        cdef int fid = self.nf
        cdef int nc, k
        if fid + 1 > self.fcap:
            nc = grow_cap(self.fcap, fid + 1)
            self.f_nomany = <char*>xrealloc(self.f_nomany, nc)
            self.f_truthy = <char*>xrealloc(self.f_truthy, nc)
            for k in range(self.fcap, nc):
                self.f_nomany[k] = 0
                self.f_truthy[k] = 0
            self.fcap = nc
        self.fmap[name] = fid
        self.fnames.append(name)
        self.fvals.append({})
        self.fvalobjs.append([])
        self.nf += 1
        self.f_truthy[fid] = 1 if name else 0
        return fid

    cdef int add_class(self, object y) except -1:
        """A new label's id (the caller grows the trees' per-class arrays)."""
        cdef int c = self.nc
        self.cmap[y] = c
        self.labels.append(y)
        self.nc += 1
        one = self.cmap.get(1)
        zero = self.cmap.get(0)
        self.cid_one = -1 if one is None else one
        self.cid_zero = -1 if zero is None else zero
        return c

    cdef int value_id(self, int fid, object v) except -1:
        cdef dict d = <dict>self.fvals[fid]
        cdef object vid = d.get(v)
        if vid is not None:
            return <int>vid
        lst = <list>self.fvalobjs[fid]
        d[v] = len(lst)
        lst.append(v)
        return len(lst) - 1

    cdef list tree_sorted(self, int i, Tree* t):
        """sorted(tree.classes) as class ids; cached per tree (see forget_sorted)."""
        cdef list s = self.sorted_cls[i]
        cdef int k, r
        if s is not None:
            return s
        labels = self.labels
        cids = [c for c in range(self.nc) if c < t.ccap and t.has_cls[c]]
        s = sorted(cids, key=labels.__getitem__)
        free(self.crank[i])
        self.crank[i] = NULL
        self.crank[i] = <int*>xcalloc(self.nc, sizeof(int))
        r = 0
        for k in s:
            self.crank[i][k] = r
            r += 1
        self.sorted_cls[i] = s
        return s

    cdef int* tree_crank(self, int i, Tree* t) except NULL:
        """cid -> rank in sorted(tree.classes) (sorting may raise TypeError, as River's)."""
        self.tree_sorted(i, t)
        return self.crank[i]

    cdef int forget_sorted(self, int i) except -1:
        """Tree i's classes changed (or the tree did)."""
        self.sorted_cls[i] = None
        free(self.crank[i])
        self.crank[i] = NULL
        return 0

    cdef int add_tree(self) except -1:
        cdef int n = len(self.sorted_cls)
        cdef int nc
        if n >= self.tcap:
            nc = grow_cap(self.tcap, n + 1)
            self.crank = <int**>xrealloc(self.crank, nc * sizeof(int*))
            memset(&self.crank[self.tcap], 0, (nc - self.tcap) * sizeof(int*))
            self.tcap = nc
        self.crank[n] = NULL
        self.sorted_cls.append(None)
        return 0

    cdef int remove_tree(self, int i) except -1:
        cdef int n = len(self.sorted_cls)
        free(self.crank[i])
        memmove(&self.crank[i], &self.crank[i + 1], (n - i - 1) * sizeof(int*))
        self.crank[n - 1] = NULL
        del self.sorted_cls[i]
        return 0

    cdef int set_order(self, Spl* s) except -1:
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
        s.set_ord = NULL
        s.set_ord = <int*>xcalloc(s.n_vals, sizeof(int))
        p = 0
        for v in vals:
            s.set_ord[p] = s.vpos[<int>d[v]]
            p += 1
        s.set_n = s.n_vals
        return 0

    cdef int sorted_values(self, Spl* s, int* out) except -1:
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

    cdef long long allocated(self) noexcept:
        """C bytes of the trees' class ranks (TreeStorage.allocated_bytes)."""
        cdef long long b = self.tcap * sizeof(int*)
        cdef int i
        for i in range(len(self.sorted_cls)):
            if self.crank[i] != NULL:
                b += self.nc * sizeof(int)
        return b
