# The adaptive boosters' experts, compiled (river_boost.engine._experts): the
# learners' vote weights (projected online gradient descent, on a box or on the simplex),
# Hedge over the experts, and Hedge over a booster's two chains (ChainHedge).

from cpython cimport array


cdef class Hedge:
    cdef readonly int n
    cdef readonly array.array log_weights  # log-weights, the best expert's 0
    cdef readonly array.array weights  # normalised weights, read on every prediction
    cdef array.array scratch

    cdef int _set_centred(self, double* log_weights) except -1
    cdef int update_c(self, const double* losses, double scale, double share) except -1
    cdef int set_log_weights_c(self, const double* log_weights) except -1


cdef class ProjectedOGD:
    cdef readonly int n
    cdef readonly array.array values  # the vote weights alpha
    cdef public double lr
    cdef public double bound
    cdef readonly array.array _t  # the step count (one step per example)
    cdef public object starts  # drift adaptation: the step each coordinate restarted at
    cdef public object memory  # drift adaptation: the cap on the step count, or None

    cdef double rate_c(self, int i) except? -1.0
    cdef int step_all_c(self, const double* gradients, double divisor, bint per_learner) except -1


cdef class SimplexOGD(ProjectedOGD):
    cdef array.array scratch  # the sorted copy of the values the projection reads

    cdef int project_c(self) except -1


cdef class ChainHedge:
    cdef readonly double eta
    cdef double m_shallow, m_deep

    cpdef double deep_weight(self)
    cpdef record(self, double loss_shallow, double loss_deep, double w, double decay)

