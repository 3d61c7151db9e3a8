# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""River's QOSplitter (see _qo.pxd), its arithmetic in River's order.

River keeps the slots in a dict keyed by ``math.floor(x / radius)`` and iterates them in
``sorted()`` key order; here they are kept sorted (a binary search per update, a move of the
later slots when a new one opens: a few dozen slots for scaled features at the default
radius). A key is an integer-valued double: ``floor`` of a finite double is exact, so the
order of the keys is that of River's Python ints. The forest checks before learning that
every ``x / radius`` is finite (River's ``math.floor`` raises otherwise)."""

from libc.math cimport INFINITY, floor
from libc.stdlib cimport free
from libc.string cimport memmove, memset

from river_boost.forest._criteria cimport vr_merit_of_split
from river_boost.forest._flat cimport Flat, Rd, get_d, get_i, get_n, put_d, put_i
from river_boost.forest._forest_structs cimport SPLIT_NUMERIC_BINARY, grow_cap, xcalloc, xrealloc
from river_boost.forest._reg_structs cimport (
    RSPL_QO, QSlot, QSpl, RSpl, RSugg, VarS, var_iadd, var_isub, var_update,
)


cdef RSpl* qspl_new(int fid, double radius, int below) except NULL:
    cdef QSpl* s = <QSpl*>xcalloc(1, sizeof(QSpl))
    s.fid = fid
    s.kind = RSPL_QO
    s.below = below
    s.radius = radius
    return <RSpl*>s


cdef void qspl_free(QSpl* s) noexcept:
    if s != NULL:
        free(s.slots)
        free(s)


cdef inline int slot_at(QSpl* s, double key) noexcept:
    """The position of the first slot whose key is at least ``key`` (n_slots if none)."""
    cdef int lo = 0, hi = s.n_slots, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if s.slots[mid].key < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef int qo_update(QSpl* s, double x, double y, double w) except -1:
    """QOSplitter.update: FeatureQuantizer.update, Slot(x, y, w) / Slot.update."""
    cdef double key = floor(x / s.radius)
    cdef int p = slot_at(s, key)
    cdef QSlot* sl
    if p == s.n_slots or s.slots[p].key != key:
        if s.n_slots == s.cap_slots:
            s.cap_slots = grow_cap(s.cap_slots, s.n_slots + 1)
            s.slots = <QSlot*>xrealloc(s.slots, s.cap_slots * sizeof(QSlot))
        memmove(&s.slots[p + 1], &s.slots[p], (s.n_slots - p) * sizeof(QSlot))
        memset(&s.slots[p], 0, sizeof(QSlot))
        s.slots[p].key = key
        s.n_slots += 1
    sl = &s.slots[p]
    # y_stats.update(y, w), then x_stats.update(x, w), whose n is y_stats' n after the update
    var_update(&sl.y, y, w)
    sl.x_mean += (w / sl.y.n) * (x - sl.x_mean)
    return 0


cdef int qo_best(QSpl* s, VarS* pre, double min_samples, RSugg* out) except -1:
    """QOSplitter.best_evaluated_split_suggestion with binary_only (out: merit -inf, fid -1
    for River's null split, a single slot).

    River's left statistics are the running ``aux_stats`` its generator yields, which already
    holds the slot above the threshold, and goes on updating in place: a winning suggestion's
    merit is that of the slots up to the one above its threshold, and its left child ends up
    with the sum of every slot. So does the forest's. With ``below``
    (``river_boost.forest.MidpointQOSplitter``) the left side of the threshold between two
    slots is the slots below it, for the merit and for the left child."""
    cdef VarS aux
    cdef VarS post[2]
    cdef double merit, prev_x = 0.0, x
    cdef int k
    out.merit = -INFINITY
    out.fid = -1
    if s.n_slots == 1:
        return 0
    memset(&aux, 0, sizeof(VarS))
    for k in range(s.n_slots):
        x = s.slots[k].x_mean
        if not s.below:
            var_iadd(&aux, &s.slots[k].y)
        if k > 0:
            post[0] = aux
            post[1] = pre[0]
            var_isub(&post[1], &aux)
            merit = vr_merit_of_split(pre, post, 2, min_samples)
            if merit > out.merit:
                out.merit = merit
                out.fid = s.fid
                out.kind = SPLIT_NUMERIC_BINARY
                out.thr = (prev_x + x) / 2.0
                out.left = post[0]
                out.right = post[1]
        if s.below:
            var_iadd(&aux, &s.slots[k].y)
        prev_x = x
    if not s.below:
        out.left = aux
    return 0


cdef long long qspl_bytes(QSpl* s) noexcept:
    # the slots held, not the capacity: the size policy measures content, so that a pickled
    # forest (whose slots are allocated to measure) goes on deciding as the original
    return sizeof(QSpl) + s.n_slots * sizeof(QSlot)


cdef tuple qspl_export(QSpl* s):
    """(fid, RSPL_QO, (radius, below, slots as (key, x mean, n, mean, S) in key order), [],
    [])."""
    slots = [(s.slots[k].key, s.slots[k].x_mean, s.slots[k].y.n, s.slots[k].y.mean,
              s.slots[k].y.S) for k in range(s.n_slots)]
    return (s.fid, RSPL_QO, (s.radius, s.below, slots), [], [])


cdef RSpl* qspl_import(tuple st) except NULL:
    cdef QSpl* s
    cdef int k
    fid, _, (radius, below, slots), _, _ = st
    s = <QSpl*>qspl_new(fid, radius, below)
    if slots:
        s.slots = <QSlot*>xcalloc(len(slots), sizeof(QSlot))
        s.cap_slots = len(slots)
    for k in range(len(slots)):
        sl = slots[k]
        s.slots[k].key, s.slots[k].x_mean, s.slots[k].y.n, s.slots[k].y.mean, s.slots[k].y.S = sl
    s.n_slots = len(slots)
    return <RSpl*>s


cdef int qspl_write(QSpl* s, Flat* f) except -1:
    """The rest of a QO splitter's state after its feature and kind (_ebst.rspl_write): i
    below; d radius; i n_slots; then in key order d key, x mean, n, mean, S."""
    cdef int k
    put_i(f, s.below)
    put_d(f, s.radius)
    put_i(f, s.n_slots)
    for k in range(s.n_slots):
        put_d(f, s.slots[k].key)
        put_d(f, s.slots[k].x_mean)
        put_d(f, s.slots[k].y.n)
        put_d(f, s.slots[k].y.mean)
        put_d(f, s.slots[k].y.S)
    return 0


cdef RSpl* qspl_read(Rd* r, int fid) except NULL:
    """The splitter qspl_write wrote, its radius and the order of its keys checked."""
    cdef int below = get_i(r, 0, 2)
    cdef double radius = get_d(r)
    cdef QSpl* s
    cdef int k, m
    if not radius > 0.0:
        raise ValueError("a QO splitter's radius must be positive")
    s = <QSpl*>qspl_new(fid, radius, below)
    try:
        m = get_n(r, 0, 5)
        if m > 0:
            s.slots = <QSlot*>xcalloc(m, sizeof(QSlot))
            s.cap_slots = m
        for k in range(m):
            s.slots[k].key = get_d(r)
            if k > 0 and not s.slots[k].key > s.slots[k - 1].key:
                raise ValueError("a QO splitter's slots out of order")
            s.slots[k].x_mean = get_d(r)
            s.slots[k].y.n = get_d(r)
            s.slots[k].y.mean = get_d(r)
            s.slots[k].y.S = get_d(r)
            s.n_slots = k + 1
    except BaseException:
        qspl_free(s)
        raise
    return <RSpl*>s
