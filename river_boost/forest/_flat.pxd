# The flat encoding of a forest's trees for pickling (_trees.tree_write / tree_read, and the
# regression trees' _regtrees.rtree_write / rtree_read): two streams written in one pass over
# the nodes, one of small integers (ids, counts, flags, depths) and one of doubles (weights,
# statistics, thresholds, and the counters that may exceed 32 bits), in pre-order. A pickle
# holds each stream as one bytes object: the integers in the narrowest width that holds them
# all (1, 2 or 4 bytes), the doubles as IEEE 754 doubles, both in the writer's byte order (the
# forest's state records it, and a machine of the other order refuses the pickle).
#
# The reader checks everything a tree's C structures rely on before they are built from it:
# the streams are long enough, every id names a feature, value or class of the registry, every
# count fits in what is left of its stream (no allocation is sized by an unchecked number), and
# the nodes form one tree. A violation raises ValueError (the forest's Python face turns it into
# PickleFormatError); it never reads out of bounds. The helpers are `cdef inline` (each module
# compiles its own copy, as _forest_structs.pxd's).

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t
from libc.stdlib cimport free
from libc.string cimport memcpy

from river_boost.forest._forest_structs cimport xrealloc


cdef struct Flat:
    # the streams being written
    int32_t* ip
    Py_ssize_t ni
    Py_ssize_t icap
    double* dp
    Py_ssize_t nd
    Py_ssize_t dcap


cdef struct Rd:
    # the streams being read: ``ib`` holds ``ni`` integers of ``iw`` bytes each, ``db`` ``nd``
    # doubles; ``ii`` and ``di`` are the next ones to read
    const uint8_t* ib
    Py_ssize_t ni
    Py_ssize_t ii
    int iw
    const uint8_t* db
    Py_ssize_t nd
    Py_ssize_t di


cdef inline int put_i(Flat* f, long long v) except -1:
    cdef Py_ssize_t nc
    if v < -2147483648 or v > 2147483647:
        raise OverflowError("a tree's id or count does not fit in 32 bits")
    if f.ni >= f.icap:
        nc = 64 if f.icap < 64 else 2 * f.icap
        f.ip = <int32_t*>xrealloc(f.ip, nc * sizeof(int32_t))
        f.icap = nc
    f.ip[f.ni] = <int32_t>v
    f.ni += 1
    return 0


cdef inline int put_d(Flat* f, double v) except -1:
    cdef Py_ssize_t nc
    if f.nd >= f.dcap:
        nc = 64 if f.dcap < 64 else 2 * f.dcap
        f.dp = <double*>xrealloc(f.dp, nc * sizeof(double))
        f.dcap = nc
    f.dp[f.nd] = v
    f.nd += 1
    return 0


cdef inline int get_i(Rd* r, long long lo, long long hi) except? -1:
    """The next integer, which must lie in [lo, hi)."""
    cdef const uint8_t* p
    cdef long long v
    cdef int8_t a
    cdef int16_t b
    cdef int32_t c
    if r.ii >= r.ni:
        raise ValueError("the integers end early")
    p = r.ib + r.ii * r.iw
    if r.iw == 1:
        memcpy(&a, p, 1)
        v = a
    elif r.iw == 2:
        memcpy(&b, p, 2)
        v = b
    else:
        memcpy(&c, p, 4)
        v = c
    r.ii += 1
    if v < lo or v >= hi:
        raise ValueError(f"an integer out of range: {v} not in [{lo}, {hi})")
    return <int>v


cdef inline int get_n(Rd* r, int per_int, int per_double) except? -1:
    """A count of items that take ``per_int`` integers and ``per_double`` doubles each: it must
    fit in what is left of the streams (so that nothing is allocated for items a truncated or
    changed stream does not hold)."""
    cdef Py_ssize_t left = r.ni - r.ii - 1
    cdef int n
    if per_int > 0 and per_double > 0:
        left = min(left // per_int, (r.nd - r.di) // per_double)
    elif per_int > 0:
        left = left // per_int
    elif per_double > 0:
        left = (r.nd - r.di) // per_double
    n = get_i(r, 0, min(left, 2147483646) + 1)
    return n


cdef inline double get_d(Rd* r) except? -1.0:
    cdef double v
    if r.di >= r.nd:
        raise ValueError("the doubles end early")
    memcpy(&v, r.db + r.di * 8, 8)
    r.di += 1
    return v


cdef inline tuple flat_take(Flat* f):
    """The streams written, ``(width, integers, doubles)`` (two bytes objects); the buffers are
    freed."""
    cdef Py_ssize_t k
    cdef int32_t lo = 0, hi = 0, v
    cdef int w
    cdef bytes ints
    cdef char* out
    cdef int8_t a
    cdef int16_t b
    try:
        for k in range(f.ni):
            v = f.ip[k]
            if v < lo:
                lo = v
            elif v > hi:
                hi = v
        w = 1 if -128 <= lo and hi <= 127 else (2 if -32768 <= lo and hi <= 32767 else 4)
        ints = PyBytes_FromStringAndSize(NULL, f.ni * w)
        out = PyBytes_AS_STRING(ints)
        if w == 4:
            memcpy(out, f.ip, f.ni * 4)
        elif w == 2:
            for k in range(f.ni):
                b = <int16_t>f.ip[k]
                memcpy(out + 2 * k, &b, 2)
        else:
            for k in range(f.ni):
                a = <int8_t>f.ip[k]
                out[k] = (<char*>&a)[0]
        dbls = PyBytes_FromStringAndSize(<char*>f.dp, f.nd * sizeof(double))
        return (w, ints, dbls)
    finally:
        free(f.ip)
        free(f.dp)
        f.ip = NULL
        f.dp = NULL
        f.ni = f.icap = f.nd = f.dcap = 0


cdef inline int rd_open(Rd* r, object width, object ints, object dbls) except -1:
    """Read the streams flat_take gave (the caller keeps ``ints`` and ``dbls`` alive)."""
    if type(ints) is not bytes or type(dbls) is not bytes or width not in (1, 2, 4):
        raise ValueError("streams of the wrong type")
    r.iw = width
    if PyBytes_GET_SIZE(ints) % r.iw or PyBytes_GET_SIZE(dbls) % 8:
        raise ValueError("streams of the wrong length")
    r.ib = <const uint8_t*>PyBytes_AS_STRING(ints)
    r.ni = PyBytes_GET_SIZE(ints) // r.iw
    r.ii = 0
    r.db = <const uint8_t*>PyBytes_AS_STRING(dbls)
    r.nd = PyBytes_GET_SIZE(dbls) // 8
    r.di = 0
    return 0


cdef inline int rd_close(Rd* r) except -1:
    """Every integer and double was read (a longer stream was changed after it was written)."""
    if r.ii != r.ni or r.di != r.nd:
        raise ValueError("the streams hold more than the trees")
    return 0


# ----------------------------------------------------------------------------- the tree's shape
# Both kinds of tree are read by one skeleton: their nodes in pre-order, each split followed
# by its subtrees. A tree's kind gives how one node is read (``read``: the node, and how many
# children follow) and how a child joins its parent (``attach``).

# A pickled tree deeper than this is refused: freeing, walking and copying a tree recurse once
# per level (no tree a stream grows comes near it: grace_period=1 on a long stream gave 330)
cdef enum:
    MAX_READ_DEPTH = 20000


cdef struct Tables:
    # what the ids of a tree refer to: the numbers of features and classes, and of each
    # feature's values
    int nf
    int nc
    const int* nvals


ctypedef void* (*read_fn)(Rd* r, const Tables* tables, int* n_children) except NULL
ctypedef void (*attach_fn)(void* parent, void* child) noexcept


cdef inline int read_preorder(Rd* r, const Tables* tables, read_fn read, attach_fn attach,
                              void** root) except -1:
    """A tree's nodes in pre-order, without recursion: ``root`` is set to the first node at
    once, and each later node joins its parent as soon as it is read, so that freeing the root
    frees whatever was read when a check fails."""
    cdef int n, depth = 0, cap = 0
    cdef void* nd
    cdef void** parents = NULL  # the splits still waiting for children, root first
    cdef int* want = NULL
    cdef int* have = NULL
    try:
        nd = root[0] = read(r, tables, &n)
        while True:
            if n > 0:  # a split: its children come next
                if depth >= MAX_READ_DEPTH:
                    raise ValueError("a tree too deep")
                if depth >= cap:
                    cap = 16 if cap < 16 else 2 * cap
                    parents = <void**>xrealloc(parents, cap * sizeof(void*))
                    want = <int*>xrealloc(want, cap * sizeof(int))
                    have = <int*>xrealloc(have, cap * sizeof(int))
                parents[depth] = nd
                want[depth] = n
                have[depth] = 0
                depth += 1
            while depth > 0 and have[depth - 1] == want[depth - 1]:
                depth -= 1
            if depth == 0:
                return 0
            nd = read(r, tables, &n)
            attach(parents[depth - 1], nd)
            have[depth - 1] += 1
    finally:
        free(parents)
        free(want)
        free(have)


cdef inline int put_disabled(Flat* f, const int* sidx, int cap) except -1:
    """A leaf's disabled features (those whose ``sidx`` entry is -1): their number, then them."""
    cdef int k, c = 0
    for k in range(cap):
        c += sidx[k] < 0
    put_i(f, c)
    for k in range(cap):
        if sidx[k] < 0:
            put_i(f, k)
    return 0


cdef inline int get_disabled(Rd* r, int* sidx, int n_features) except -1:
    """put_disabled's features, marked -1 in ``sidx`` (of at least ``n_features`` entries)."""
    cdef int k, n = get_n(r, 1, 0)
    for k in range(n):
        sidx[get_i(r, 0, n_features)] = -1
    return 0


cdef inline int put_counters(Flat* f, long long n_active, long long n_inactive,
                             double inactive_est, double active_est, double overhead,
                             double train_weight, int growth_allowed) except -1:
    """A tree's counters and size estimates (both kinds of tree keep these)."""
    put_d(f, <double>n_active)
    put_d(f, <double>n_inactive)
    put_d(f, inactive_est)
    put_d(f, active_est)
    put_d(f, overhead)
    put_d(f, train_weight)
    put_i(f, growth_allowed)
    return 0


cdef inline int get_counters(Rd* r, long long* n_active, long long* n_inactive,
                             double* inactive_est, double* active_est, double* overhead,
                             double* train_weight, int* growth_allowed) except -1:
    n_active[0] = <long long>get_d(r)
    n_inactive[0] = <long long>get_d(r)
    inactive_est[0] = get_d(r)
    active_est[0] = get_d(r)
    overhead[0] = get_d(r)
    train_weight[0] = get_d(r)
    growth_allowed[0] = get_i(r, 0, 2)
    return 0


cdef inline int get_branches(Rd* r, int n, int n_values, int* values, int** vmap,
                             int* vmap_cap) except -1:
    """A multiway split's ``n`` children's values (of a feature of ``n_values``), into
    ``values`` and the value -> child + 1 map (none twice)."""
    cdef int k, v, q
    if n_values > vmap_cap[0]:
        vmap[0] = <int*>xrealloc(vmap[0], n_values * sizeof(int))
        for q in range(vmap_cap[0], n_values):
            vmap[0][q] = 0
        vmap_cap[0] = n_values
    for k in range(n):
        v = values[k] = get_i(r, 0, n_values)
        if vmap[0][v]:
            raise ValueError("a value with two branches")
        vmap[0][v] = k + 1
    return 0
