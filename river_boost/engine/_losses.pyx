# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The gradient boosters' losses, compiled: one small class per loss.

Each loss gives, at raw scores ``f`` for label ``y``, its value, its gradient ``g`` and
Hessian ``h`` (exact: the derivatives of the loss, with the conventions below at its kinks),
and the *Newton step* the walk teaches a weak learner (:mod:`river_boost.engine._gradient`):
the regression target ``-g / h`` with weight ``h``. Where the Hessian is zero or tiny the step
uses another curvature, said for each loss; the tests (``tests/engine/test_losses.py``)
check every formula exactly.

Regression (one score ``f``, residual ``r = y - f``):

- :class:`SquaredLoss`: ``r^2 / 2``; ``g = -r``, ``h = 1``; the step is ``r`` with weight 1.
- :class:`HuberLoss` (``delta``): ``r^2 / 2`` for ``|r| <= delta``, else
  ``delta (|r| - delta / 2)``; ``g = -clip(r, -delta, delta)``; ``h = 1`` inside, 0 beyond
  (the second derivative). The step takes the quadratic part's curvature 1 everywhere: the
  target is the clipped residual ``clip(r, -delta, delta)``, weight 1 (a far outlier moves
  a leaf by at most ``delta``, where ``-g / h`` with ``h = 0`` would be infinite).
- :class:`QuantileLoss` (``alpha``): the pinball loss ``alpha r`` for ``r >= 0``, else
  ``(alpha - 1) r``; ``g = -alpha`` for ``r > 0``, ``1 - alpha`` for ``r <= 0``; ``h = 0``.
  The loss has no curvature, but its expectation has: at the ``alpha``-quantile its second
  derivative is the density of the residuals there. The step takes that density for a normal
  residual of the targets' standard deviation ``scale`` (the walk's running estimate):
  ``phi(z_alpha) / scale``, ``z_alpha`` the standard normal ``alpha``-quantile, so the target
  is ``-g scale / phi(z_alpha)``. That curvature is the same for every example, and only the
  ratios of the weights enter a leaf's mean, so the weight stays 1 (Hoeffding trees count
  weight before they split: ``1 / scale`` would slow their growth on wide targets).

Classification:

- :class:`LogLoss` (``y`` 0 or 1, one score, ``p = sigmoid(f)``): ``-y log p - (1 - y)
  log(1 - p)``; ``g = p - y``, ``h = p (1 - p)``.
- :class:`SoftmaxLoss` (``y`` the class index, ``K`` scores, ``p = softmax(f)``):
  ``-log p_y``; ``g_j = p_j - [j = y]``, ``h_j = p_j (1 - p_j)`` (the Hessian's diagonal, one
  regression learner per class and step).

Their step is ``-g / h`` with weight ``h``, ``h`` floored at :data:`MIN_HESSIAN` (0.01). For
``y = 1`` the target is ``(1 - p) / (p (1 - p)) = 1 / p``: a class whose probability is tiny
(a noisy label, or a class that joins the softmax mid-stream while the others' scores have
grown) would teach a leaf holding that one example a value of thousands; with a floor of
``1e-6`` a raw score reached 6.4e5 at LED's tenth example. Floored, ``|target| <= |g| / 0.01
<= 100``, and a leaf's mean ``sum(-g) / sum(max(h, 0.01))`` keeps every example's gradient:
the floor only adds curvature where ``h`` is below it, as XGBoost's ``lambda`` adds to a
leaf's. (Clipping the target instead, as LogitBoost clips its working response, drops the
gradient of confident mistakes.) 0.01 was chosen by measurement
(``benchmarks/sgbt_classifier_default.py``, eight synthetic streams: 0.05 and a clip at 8 were
level or behind).
"""

from libc.math cimport exp, log, log1p, fabs
from river_boost.engine._vec cimport logistic_weight

import numpy as _np

#: the floor of a classification loss's Hessian in its Newton step
MIN_HESSIAN = 0.01
cdef double _MIN_H = 0.01


cdef class Loss:
    """A loss of the gradient boosters (abstract): see the module's docstring."""

    cdef double c_value(self, double y, const double* f, int k) noexcept:
        return 0.0

    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept:
        pass

    cdef void c_newton(self, double y, const double* f, int k, double scale, double* target,
                       double* weight) noexcept:
        # -g / h with weight h, h floored (the classification losses; the regression losses
        # override it)
        cdef int j
        self.c_derivatives(y, f, k, target, weight)
        for j in range(k):
            if weight[j] < _MIN_H:
                weight[j] = _MIN_H
            target[j] = -target[j] / weight[j]

    # -- Python access (the tests, the oracle): f a float, or a list of K floats (softmax)

    def _scores(self, f):
        if self.multi:
            return [float(v) for v in f]
        return [float(f)]

    def _out(self, values):
        return list(values) if self.multi else values[0]

    def value(self, y, f) -> float:
        """The loss at raw score(s) ``f`` for label ``y``."""
        cdef double[::1] fs = _buffer(self._scores(f))
        return self.c_value(float(y), &fs[0], fs.shape[0])

    def gradient(self, y, f):
        """The gradient with respect to ``f`` (a float, or a list for the softmax)."""
        return self._out(self._both(y, f)[0])

    def hessian(self, y, f):
        """The second derivative with respect to ``f`` (the softmax: the diagonal)."""
        return self._out(self._both(y, f)[1])

    def newton(self, y, f, scale=1.0):
        """``(target, weight)`` of the Newton step the walk teaches (lists for the softmax);
        ``scale``: the targets' standard deviation (read by :class:`QuantileLoss` only)."""
        cdef double[::1] fs = _buffer(self._scores(f))
        cdef int k = fs.shape[0]
        cdef double[::1] t = _buffer([0.0] * k), w = _buffer([0.0] * k)
        self.c_newton(float(y), &fs[0], k, float(scale), &t[0], &w[0])
        return self._out(list(t)), self._out(list(w))

    def _both(self, y, f):
        cdef double[::1] fs = _buffer(self._scores(f))
        cdef int k = fs.shape[0]
        cdef double[::1] g = _buffer([0.0] * k), h = _buffer([0.0] * k)
        self.c_derivatives(float(y), &fs[0], k, &g[0], &h[0])
        return list(g), list(h)


def _buffer(values):
    import array
    return array.array("d", values)


cdef class SquaredLoss(Loss):
    """``(y - f)^2 / 2``."""

    def __reduce__(self):
        return (SquaredLoss, ())

    cdef double c_value(self, double y, const double* f, int k) noexcept:
        return 0.5 * (y - f[0]) * (y - f[0])

    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept:
        g[0] = f[0] - y
        h[0] = 1.0

    cdef void c_newton(self, double y, const double* f, int k, double scale, double* target,
                       double* weight) noexcept:
        target[0] = y - f[0]
        weight[0] = 1.0


cdef class HuberLoss(Loss):
    """Huber's loss: quadratic within ``delta`` of the target, linear beyond."""

    def __init__(self, double delta=1.0):
        if not delta > 0.0:
            raise ValueError(f"delta must be > 0, got {delta}")
        self.delta = delta

    def __reduce__(self):
        return (HuberLoss, (self.delta,))

    cdef double c_value(self, double y, const double* f, int k) noexcept:
        cdef double r = y - f[0]
        if fabs(r) <= self.delta:
            return 0.5 * r * r
        return self.delta * (fabs(r) - 0.5 * self.delta)

    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept:
        cdef double r = y - f[0]
        if fabs(r) <= self.delta:
            g[0] = -r
            h[0] = 1.0
        else:
            g[0] = -self.delta if r > 0.0 else self.delta
            h[0] = 0.0

    cdef void c_newton(self, double y, const double* f, int k, double scale, double* target,
                       double* weight) noexcept:
        cdef double r = y - f[0]
        if r > self.delta:
            r = self.delta
        elif r < -self.delta:
            r = -self.delta
        target[0] = r
        weight[0] = 1.0


cdef class QuantileLoss(Loss):
    """The pinball loss of the ``alpha``-quantile."""

    def __init__(self, double alpha=0.5):
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
        from statistics import NormalDist
        self.alpha = alpha
        self.density = NormalDist().pdf(NormalDist().inv_cdf(alpha))

    def __reduce__(self):
        return (QuantileLoss, (self.alpha,))

    cdef double c_value(self, double y, const double* f, int k) noexcept:
        cdef double r = y - f[0]
        if r >= 0.0:
            return self.alpha * r
        return (self.alpha - 1.0) * r

    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept:
        g[0] = -self.alpha if y - f[0] > 0.0 else 1.0 - self.alpha
        h[0] = 0.0

    cdef void c_newton(self, double y, const double* f, int k, double scale, double* target,
                       double* weight) noexcept:
        cdef double g = -self.alpha if y - f[0] > 0.0 else 1.0 - self.alpha
        target[0] = -g * scale / self.density
        weight[0] = 1.0


cdef class LogLoss(Loss):
    """The binary log loss of ``p = sigmoid(f)``, ``y`` 0 or 1."""

    def __reduce__(self):
        return (LogLoss, ())

    cdef double c_value(self, double y, const double* f, int k) noexcept:
        # log(1 + exp(-|f|)) + max(f, 0) - y f, without overflow
        cdef double a = f[0]
        return log1p(exp(-fabs(a))) + (a if a > 0.0 else 0.0) - y * a

    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept:
        cdef double p = logistic_weight(-f[0])  # sigmoid(f)
        g[0] = p - y
        h[0] = p * (1.0 - p)


cdef class SoftmaxLoss(Loss):
    """The cross-entropy of ``softmax(f)`` over ``K`` classes, ``y`` the class index."""

    def __cinit__(self):
        self.multi = True

    def __reduce__(self):
        return (SoftmaxLoss, ())

    cdef double c_value(self, double y, const double* f, int k) noexcept:
        cdef int j, c = <int>y
        cdef double m = _top(f, k), s = 0.0
        for j in range(k):
            s += exp(f[j] - m)
        return m + log(s) - f[c]

    cdef void c_derivatives(self, double y, const double* f, int k, double* g,
                            double* h) noexcept:
        cdef int j, c = <int>y
        cdef double p
        _softmax(f, k, g)
        for j in range(k):
            p = g[j]
            g[j] = p - (1.0 if j == c else 0.0)
            h[j] = p * (1.0 - p)


cdef inline double _top(const double* f, int k) noexcept:
    """``max(f)`` (the first of equal maxima, as Python's ``max``)."""
    cdef int j
    cdef double m = f[0]
    for j in range(1, k):
        if f[j] > m:
            m = f[j]
    return m


cdef inline void _softmax(const double* f, int k, double* p) noexcept:
    """``p = softmax(f)``: ``exp(f[j] - max f)`` over their sum, summed in order."""
    cdef int j
    cdef double m = _top(f, k), s = 0.0
    for j in range(k):
        p[j] = exp(f[j] - m)
        s += p[j]
    for j in range(k):
        p[j] = p[j] / s


def softmax(scores) -> list:
    """``softmax(scores)`` as a list (the probabilities of SGBTClassifier's classes): the
    softmax loss's own."""
    cdef int k = len(scores), j
    cdef double[::1] f = _np.array(scores, dtype=_np.float64)
    cdef double[::1] p = _np.empty(k)
    if k:
        _softmax(&f[0], k, &p[0])
    return [p[j] for j in range(k)]


def make_loss(name: str, delta: float = 1.0, alpha: float = 0.5) -> Loss:
    """The loss ``name`` (``"squared"``, ``"huber"``, ``"quantile"``, ``"log"``,
    ``"softmax"``), ``ValueError`` for another."""
    if name == "squared":
        return SquaredLoss()
    if name == "huber":
        return HuberLoss(delta)
    if name == "quantile":
        return QuantileLoss(alpha)
    if name == "log":
        return LogLoss()
    if name == "softmax":
        return SoftmaxLoss()
    raise ValueError(
        f"loss must be one of ('squared', 'huber', 'quantile'), got {name!r}"
    )
