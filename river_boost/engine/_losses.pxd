# The gradient boosters' losses (river_boost.engine._losses): value, gradient, Hessian and the
# Newton step of each, for K raw scores f[0..K-1] (K = 1 but for the softmax). The label y is
# a double: the target (regression), 0 or 1 (log loss), the class index (softmax).

cdef class Loss:
    cdef readonly bint multi  # K scores for one label (softmax), else one score

    cdef double c_value(self, double y, const double* f, int k) noexcept
    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept
    cdef void c_newton(self, double y, const double* f, int k, double scale, double* target,
                       double* weight) noexcept


cdef class SquaredLoss(Loss):
    pass


cdef class HuberLoss(Loss):
    cdef readonly double delta


cdef class QuantileLoss(Loss):
    cdef readonly double alpha
    cdef readonly double density  # the standard normal density at the alpha-quantile


cdef class LogLoss(Loss):
    pass


cdef class SoftmaxLoss(Loss):
    pass
