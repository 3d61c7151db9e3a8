# The memory-size policy both kinds' trees run (River's HoeffdingTree: when to measure,
# _estimate_model_size and the start of _enforce_size_limit), on the fields the classifier's
# Tree and the regressor's RTree both keep (max_byte_size, mem_period, stop_mem, mem_crossing,
# n_active, n_inactive, active_est, inactive_est, overhead, growth_allowed, train_weight).
# What the kinds measure (their leaves and nodes) and which leaves they deactivate (by promise,
# by depth) stay theirs. Inline: compiled into _trees and _regtrees, on their hot paths.

from libc.math cimport floor, fmod

from river_boost.forest._forest_structs cimport Tree
from river_boost.forest._pymath cimport py_div
from river_boost.forest._reg_structs cimport RTree


ctypedef fused SizedTree:
    Tree
    RTree


cdef inline int measure_due(SizedTree* t, double before) except -1:
    """Whether the tree, which had learned the weight ``before`` the last example, measures
    its size now: River's ``_train_weight_seen_by_model % memory_estimate_period == 0`` (a
    float modulo: ZeroDivisionError for a zero period), or, for a bounded tree
    (``mem_crossing``: forest.BoundedHoeffdingTree), a multiple of the period crossed
    (boosting's fractional weights step over the multiples that River's check waits for)."""
    if t.mem_period == 0.0:
        raise ZeroDivisionError("float modulo")
    if fmod(t.train_weight, t.mem_period) == 0.0:
        return 1
    return t.mem_crossing and floor(t.train_weight / t.mem_period) != floor(before / t.mem_period)


cdef inline int measured(SizedTree* t, long long active_bytes, long long inactive_bytes,
                         long long actual) except -1:
    """_estimate_model_size, given the bytes of the active and the inactive leaves and the
    tree's: the leaves' mean sizes and the overhead; whether the tree is over its limit (then
    the caller enforces it)."""
    if active_bytes > 0 and t.n_active > 0:
        t.active_est = <double>active_bytes / <double>t.n_active
    if inactive_bytes > 0 and t.n_inactive > 0:
        t.inactive_est = <double>inactive_bytes / <double>t.n_inactive
    t.overhead = py_div(<double>actual, <double>t.n_active * t.active_est
                        + <double>t.n_inactive * t.inactive_est)
    return <double>actual > t.max_byte_size


cdef inline bint stops_growing(SizedTree* t) noexcept:
    """_enforce_size_limit's start: with stop_mem_management, a tree stops growing (and its
    leaves stay as they are) once a leaf is inactive or its estimated size is over the limit."""
    cdef double tree_size = t.overhead * (t.active_est + t.n_inactive * t.inactive_est)
    if (t.n_inactive > 0 or tree_size > t.max_byte_size) and t.stop_mem:
        t.growth_allowed = 0
        return True
    return False


cdef inline dict scalars(SizedTree* t):
    """The tree's counters, by River's names (ForestBase._tree_scalars)."""
    return {
        "n_active_leaves": t.n_active,
        "n_inactive_leaves": t.n_inactive,
        "inactive_leaf_size_estimate": t.inactive_est,
        "active_leaf_size_estimate": t.active_est,
        "size_estimate_overhead_fraction": t.overhead,
        "growth_allowed": bool(t.growth_allowed),
        "train_weight_seen_by_model": t.train_weight,
    }


cdef inline long long max_active_leaves(SizedTree* t, long long n_leaves) noexcept:
    """_enforce_size_limit: how many of the ``n_leaves`` leaves may stay active within
    max_byte_size (the rest are deactivated)."""
    cdef long long max_active = 0
    while max_active < n_leaves:
        max_active += 1
        if ((<double>max_active * t.active_est + <double>(n_leaves - max_active) * t.inactive_est)
                * t.overhead) > t.max_byte_size:
            max_active -= 1
            break
    return max_active
