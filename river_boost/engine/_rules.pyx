# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The boosting rules, compiled: one small class per rule behind one interface (``_rules.pxd``).

The walk (``river_boost.engine._engine``) asks a booster's rule, learner by learner, how much the
example weighs for that learner and how the example's state moves; the math is the one the
rule's :class:`~river_boost.potentials.Potential` documents. :func:`rule_for` gives the rule for
a potential: the library's own potentials run their compiled class here, and any other
potential (a rule of your own, or a subclass of one of ours) runs in :class:`PythonRule`, which
calls its Python methods on the same walk.
"""

from libc.math cimport exp, log, log1p, expm1, pow, floor, sqrt, erf, fabs, copysign, isnan
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free
cimport scipy.special.cython_special as csc

from river_boost.engine._vec cimport vsum, vmax, vmin, vsum_axis0, sigmoid, split_labels
from river_boost.engine._vec cimport logistic_weight

import math as _math

import numpy as _np

cdef double NEG_INF = -INFINITY
cdef double ZERO_WEIGHT = 1e-12  # potentials.ZERO_WEIGHT: an exact 0 seen through float noise
cdef double LOG2 = _math.log(2.0)
cdef double SQRT_PI = _math.sqrt(_math.pi)


cdef class Rule:
    """The rule interface (see ``_rules.pxd``): subclasses override the steps."""

    def __cinit__(self, object potential, int n, *args):
        self.potential = potential
        self.n = n
        self.surrogate = bool(getattr(potential, "surrogate", False))
        self.needs_edges = bool(getattr(potential, "needs_edges", True))

    def __dealloc__(self):
        free(self.buf)

    cdef double* scratch(self, Py_ssize_t size) except NULL:
        """A buffer of at least ``size`` doubles, the rule's own (kept between calls)."""
        if size > self.bufcap:
            free(self.buf)
            self.buf = <double*>malloc((size + 1) * sizeof(double))
            if self.buf == NULL:
                self.bufcap = 0
                raise MemoryError()
            self.bufcap = size
        return self.buf

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        raise NotImplementedError(f"{type(self.potential).__name__} has no binary form")

    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL:
        raise NotImplementedError(f"{type(self.potential).__name__} has no multiclass form")

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        raise NotImplementedError(f"{type(self.potential).__name__} has no such form")

    def __reduce__(self):  # built again from the potential (rule_for)
        return (rule_for, (self.potential, self.n))


cdef inline double binary_edge(const BinaryExample* ex, double p, int z, double* out) noexcept:
    """The binary papers' edge share of one example, ``(w p z, 2 w p)``
    (:func:`river_boost.potentials.binary_edge`); returns ``p``."""
    cdef double wp = ex.w * p
    out[0] = wp * z
    out[1] = 2.0 * wp
    return p


# ----------------------------------------------------------------------------- boost by majority

cdef class BinomialRule(Rule):
    """:class:`~river_boost.potentials.BinomialPotential` (Online BBM): learner ``i`` is taught
    with probability ``P(Binomial(n, q) = k) / max``, ``k = floor((n - s + 1) / 2)``."""

    def __init__(self, object potential, int n):
        self.n_models = potential.n_models
        self.log_q = potential._log_q
        self.log_1q = potential._log_1q
        self.log_fact = _doubles(potential._log_fact)
        self.log_max = _doubles(potential._log_max)

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.s = 0.0
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef int n = self.n_models - (i + 1)
        cdef double k = floor((n - self.s + 1.0) / 2.0), log_w, p = 0.0
        if i >= self.n_models:
            raise ValueError(f"the potential was made for {self.n_models} learners")
        if 0 <= k <= n:
            log_w = (self.log_fact[n] - self.log_fact[<int>k] - self.log_fact[n - <int>k]
                     + k * self.log_q + (n - k) * self.log_1q)
            p = min(1.0, exp(log_w - self.log_max[i]))
        self.s += z
        return binary_edge(self.ex, p, z, out)


# ----------------------------------------------------------------------------- NormalHedge

cpdef double weight_from_values(double log_phi_minus, double log_phi_plus) except? -1.0:
    """:meth:`Potential.weight_from_values`: ``log((Phi(s - 1) - Phi(s + 1)) / 2)`` from the
    two log potentials, ``-inf`` when they are equal."""
    cdef double d, ratio
    if log_phi_plus >= log_phi_minus:
        return NEG_INF
    d = log_phi_plus - log_phi_minus
    ratio = exp(d)
    if ratio >= 1.0:  # |d| below rounding: 1 - e^d is -expm1(d), not 0
        return log_phi_minus + log(-expm1(d)) - LOG2
    return log_phi_minus + log1p(-ratio) - LOG2


cdef inline double nh_log_value(int i, double s) noexcept:
    cdef double m = min(0.0, s)
    return m * m / (3.0 * i)


cdef inline double nh_log_weight(int i, double s) except? -1.0:
    return weight_from_values(nh_log_value(i, s - 1.0), nh_log_value(i, s + 1.0))


cdef class NormalHedgeRule(Rule):
    """:class:`~river_boost.potentials.NormalHedgePotential` (NH-Boost.DT): the state moves by
    ``z / 2 - edge``; the probability is the weight over the all-wrong example's weight."""

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.s = self.worst = 0.0
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double lw = nh_log_weight(i + 1, self.s), p = 0.0
        cdef double edge = self.ex.edges[i]
        if lw != NEG_INF:
            p = min(1.0, exp(lw - nh_log_weight(i + 1, self.worst)))
        self.s = self.s + 0.5 * z - edge
        self.worst = self.worst - 0.5 - edge
        return binary_edge(self.ex, p, z, out)


# ----------------------------------------------------------------------------- Squint

cdef double[24] GL12  # Gauss-Legendre nodes then weights on [0, 1/2]
cdef double[64] GL32
cdef bint _gl_loaded = False


cdef inline double _erfcx(double x) noexcept nogil:
    """``scipy.special.erfcx`` for a double, through SciPy's documented Cython API (the
    function :func:`river_boost.potentials.squint_log_integral` calls)."""
    return csc.erfcx(x)


cdef int _load_squint() except -1:
    """The Gauss-Legendre rules on ``[0, 1/2]`` with 12 and 32 points (NumPy's nodes and
    weights on ``[-1, 1]``, mapped), once."""
    global _gl_loaded
    cdef int j
    if _gl_loaded:
        return 0
    nodes, weights = _np.polynomial.legendre.leggauss(12)
    for j in range(12):
        GL12[j], GL12[12 + j] = float(nodes[j] + 1.0) / 4.0, float(weights[j]) / 4.0
    nodes, weights = _np.polynomial.legendre.leggauss(32)
    for j in range(32):
        GL32[j], GL32[32 + j] = float(nodes[j] + 1.0) / 4.0, float(weights[j]) / 4.0
    _gl_loaded = True
    return 0


cpdef double squint_log_integral(double R, double V, bint uniform) except? -1.0:
    """:func:`river_boost.potentials.squint_log_integral`, whose docstring states the math
    (``uniform``: the uniform prior); the one implementation."""
    cdef const double* nodes = NULL
    cdef int npts = 0, j
    cdef double total, eta, f, sqrt_v, a, c, top, log_scale, log_i, log_ri, m
    if V < 0 or isnan(R) or isnan(V):
        raise ValueError(f"need V >= 0 and finite R, got R={R}, V={V}")
    _load_squint()
    if not uniform and fabs(R) <= 2.0 and V <= 1.0:
        nodes, npts = GL12, 12
    elif uniform and fabs(R) <= 10.0 and V <= 4.0:
        nodes, npts = GL32, 32
    if nodes != NULL:  # near R = V = 0 the closed forms lose digits (see the Python docs)
        total = 0.0
        for j in range(npts):
            eta = nodes[j]
            f = nodes[npts + j] * exp(eta * (R - eta * V))
            total += f * 2.0 * eta if uniform else f
        return log(total)
    sqrt_v = sqrt(V)
    a = R / (2.0 * sqrt_v)
    c = sqrt_v / 2.0
    top = R / 2.0 - V / 4.0  # the exponent at eta = 1/2
    log_scale = log(SQRT_PI / (2.0 * sqrt_v))
    if a >= c:  # exponent increasing on [0, 1/2]: factor out its value at 1/2
        log_i = top + log(_erfcx(a - c) - _erfcx(a) * exp(-top)) + log_scale
    elif a <= 0:  # decreasing: factor out its value at 0
        log_i = log(_erfcx(-a) - _erfcx(c - a) * exp(top)) + log_scale
    else:  # peak inside: no cancellation
        log_i = a * a + log(erf(a) + erf(c - a)) + log_scale
    if not uniform:
        return log_i
    # 2 (R I + 1 - e^top) / (2 V), scaled by the largest of the three terms
    log_ri = log_i + log(fabs(R)) if R else NEG_INF
    m = max(max(log_ri, 0.0), top)
    total = copysign(exp(log_ri - m), R) + exp(-m) - exp(top - m)
    return m + log(total) - log(V)


cdef class SquintRule(Rule):
    """:class:`~river_boost.potentials.SquintPotential` (SquintBoost): the state is the regret
    and variance ``(R, V)``; the probability is the weight over the all-wrong example's."""

    def __init__(self, object potential, int n):
        if potential.prior not in ("improper", "uniform"):
            raise ValueError(f"unknown prior {potential.prior!r}")
        self.uniform = potential.prior == "uniform"
        _load_squint()

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.R = self.V = self.Rw = self.Vw = 0.0
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double lw = squint_log_integral(self.R, self.V, self.uniform), p = 0.0
        cdef double edge = self.ex.edges[i], r
        if lw != NEG_INF:
            p = min(1.0, exp(lw - squint_log_integral(self.Rw, self.Vw, self.uniform)))
        r = edge - 0.5 * z
        self.R += r
        self.V += r * r
        r = edge + 0.5
        self.Rw += r
        self.Vw += r * r
        return binary_edge(self.ex, p, z, out)


# ----------------------------------------------------------------------------- OSBoost

cdef class OSBoostRule(Rule):
    """:class:`~river_boost.potentials.OSBoostPotential` (online smooth boosting): the state
    moves by ``z - theta``; the weight ``(1 - gamma)^(s/2)`` for ``s > 0``, else 1."""

    def __init__(self, object potential, int n):
        self.gamma = potential.gamma
        self.theta = potential._theta

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.s = 0.0
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double p = 1.0 if self.s <= 0 else pow(1.0 - self.gamma, self.s / 2.0)
        self.s += z - self.theta
        return binary_edge(self.ex, p, z, out)


cdef class OSBoostOCPRule(OSBoostRule):
    """:class:`~river_boost.potentials.OSBoostOCPPotential` (OSBoost.OCP): OSBoost's weights,
    and while the full weighted vote's margin ``y sum_i alpha_i h_i`` is below ``theta``
    (the hinge loss is positive), ``alpha_i``'s gradient ``-w z_i``, else 0."""

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        OSBoostRule.binary_begin(self, ex)
        # the full weighted vote is the last expert's margin, which the walk has made
        self.active = ex.sign * ex.scores[ex.n - 1] < self.theta
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double p = OSBoostRule.binary_step(self, i, z, out)
        out[2] = -self.ex.w * z if self.active else 0.0
        return p


# ----------------------------------------------------------------------------- logistic loss

cdef class LogisticRule(Rule):
    """:class:`~river_boost.potentials.LogisticLoss` (AdaBoost.OL): the weighted margin
    ``s^i = s^{i-1} + alpha_i z_i``; learner ``i`` is taught with probability
    ``1 / (1 + exp(s^{i-1}))`` and ``alpha_i``'s gradient is ``-w z_i / (1 + exp(s^i))``."""

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.s = 0.0
        self.p = 0.5
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double p = self.p, q
        self.s += self.ex.alphas[i] * z
        q = logistic_weight(self.s)
        out[2] = -self.ex.w * z * q
        self.p = q
        return binary_edge(self.ex, p, z, out)

    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL:
        """(9) at s (AdaBoost.OLM), computed from the previous learner's matrix."""
        if self.lcosts is None:
            self.lcosts = LogisticCosts()
        self.lcosts.along(s, k, C, changed)
        return C

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        if ex.relevant == NULL:
            return self._multiclass_steps(ex, out)
        return self._ranking_steps(ex, out)

    cdef int _multiclass_steps(self, const LabelExample* ex, Steps* out) except -1:
        """AdaBoost.OLM (Jung, Goetz & Tewari 2017, Algorithm 2): learner i's weight
        ``-C[y, y] / (k - 1)`` at the scores before it, its edge ``C[y, l_i] / -C[y, y]`` and
        alpha_i's gradient (10)."""
        cdef int i, j, n = ex.n, k = ex.k, yi = ex.yi, lab, off = 0
        cdef double* s = self.scratch(3 * k + n * k)  # zeros: the scores before learner 1
        cdef double* sig = s + k
        cdef double* z = s + 2 * k
        cdef double* zs = s + 3 * k  # every learner's gradient sigmoids, in turn
        cdef const double* sp
        cdef const double* C
        cdef double total, c_yl, alpha, grad
        for j in range(k):
            s[j] = 0.0
        # the gradients' inputs do not depend on one another: gathered, then one pass
        for i in range(n):
            sp = s if i == 0 else ex.scores + (i - 1) * k
            lab = ex.votes[i]
            alpha = ex.alphas[i]
            if lab == yi:
                for j in range(k):
                    if j != yi:
                        zs[off] = sp[j] - (sp[yi] + alpha)
                        off += 1
            else:
                zs[off] = sp[lab] - sp[yi] + alpha
                off += 1
        sigmoid(zs, zs, off)
        off = 0
        for i in range(n):
            lab = ex.votes[i]
            if ex.weak_cost:  # the matrix the learner was shown holds the row
                C = ex.costs + (i * k + yi) * k
                total = -C[yi]
                c_yl = C[lab]
            else:
                sp = s if i == 0 else ex.scores + (i - 1) * k
                for j in range(k):
                    z[j] = sp[j] - sp[yi]
                sigmoid(z, sig, k)
                sig[yi] = 0.0
                total = vsum(sig, k)
                c_yl = sig[lab] if lab != yi else -total
            if lab == yi:
                grad = -vsum(zs + off, k - 1)
                off += k - 1
            else:
                grad = zs[off]
                off += 1
            out.teach[i] = total / (k - 1)
            out.has_edge[i] = 1
            out.en[i] = ex.w * c_yl
            out.ed[i] = -ex.w * total
            out.grads[i] = ex.w * grad
        return 0

    cdef int _ranking_steps(self, const LabelExample* ex, Steps* out) except -1:
        """Ada.OLMR (Jung & Tewari 2018, Algorithm 3): learner i's cost vector is the
        gradient (8) at the scores before it, its edge (10) ``-c . h / (||c||_1 / 2)``,
        alpha_i's gradient ``c^{i+1} . h^i``; every relevant label is taught with weight
        ``max c - c[l]`` over the bound 2."""
        cdef int i, j, n = ex.n, k = ex.k
        cdef double* s0 = self.scratch(k * k + 6 * k)
        cdef double* last = s0 + k
        cdef double* work = s0 + 2 * k  # rank_gradient's (k^2 + 3k)
        cdef double* cost
        cdef double* nxt
        cdef const double* h
        cdef double dot, spread
        for j in range(k):
            s0[j] = 0.0
        rank_gradient(s0, ex.relevant, k, out.costs, work)
        for i in range(n):
            cost = out.costs + i * k
            h = ex.vec + i * k
            dot = 0.0
            spread = 0.0
            for j in range(k):
                dot += cost[j] * h[j]
                spread += fabs(cost[j])
            out.has_edge[i] = 1
            out.en[i] = -ex.w * dot
            out.ed[i] = ex.w * 0.5 * spread
            nxt = out.costs + (i + 1) * k if i + 1 < n else last
            rank_gradient(ex.scores + i * k, ex.relevant, k, nxt, work)
            dot = 0.0
            for j in range(k):
                dot += nxt[j] * h[j]
            out.grads[i] = ex.w * dot
            out.teach[i] = 2.0  # max c - c[l] <= 1/|Y^c| + 1/|Y| <= 2
        return 0


cdef int rank_gradient(const double* s, const char* rel, int k, double* out,
                       double* work) except -1:
    """:func:`~river_boost.potentials.logistic_rank_gradient` (8) at the scores ``s``
    (``work``: k^2 + 3k doubles)."""
    cdef int a, b, nr, ni
    cdef double* d = work
    cdef double* colsum = work + k * k
    cdef int* ri = <int*>(work + k * k + k)  # k ints fit in k doubles
    cdef int* ii = ri + k
    cdef double w
    nr = split_labels(rel, k, ri, ii)
    ni = k - nr
    for a in range(nr):
        for b in range(ni):
            d[a * ni + b] = s[ii[b]] - s[ri[a]]
    sigmoid(d, d, nr * ni)
    w = 1.0 / (nr * ni)
    for a in range(nr):
        out[ri[a]] = -w * vsum(d + a * ni, ni)
    vsum_axis0(d, nr, ni, colsum)
    for b in range(ni):
        out[ii[b]] = w * colsum[b]
    return 0


# ----------------------------------------------------------------------------- OnlineMBBM, OnlineBMR

cdef class MBBMRule(Rule):
    """:class:`~river_boost.potentials.MulticlassZeroOnePotential` (OnlineMBBM, Jung, Goetz &
    Tewari 2017, Algorithm 1): learner i's weight ``sum_l (C[y, l] - C[y, y])`` over its
    bound, its edge ``1 - k D[y, l_i]`` weighted by it (condition (1))."""

    def __init__(self, object potential, int n):
        self.costs = MBBMCosts(potential, n)

    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL:
        return self.costs.costs(self.costs.pot_for(k), n_left, s, k, C)

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        cdef int i, j, n = ex.n, k = ex.k, yi = ex.yi, n_left
        cdef double* s = self.scratch(3 * k + k * k)
        cdef double* row = s + k
        cdef double* diff = s + 2 * k
        cdef double* C = s + 3 * k
        cdef double weight, d_yl
        cdef object pot = self.costs.pot_for(k)
        if ex.relevant != NULL:
            raise NotImplementedError("MulticlassZeroOnePotential has no ranking form")
        for j in range(k):
            s[j] = 0.0
        for i in range(n):
            n_left = n - (i + 1)
            if ex.weak_cost:
                for j in range(k):
                    row[j] = ex.costs[i * k * k + yi * k + j]
            else:  # the potential's cost matrix, row y (from the cost tables)
                self.costs.costs(pot, n_left, s, k, C)
                for j in range(k):
                    row[j] = C[yi * k + j]
            for j in range(k):
                diff[j] = row[j] - row[yi]
            weight = vsum(diff, k)
            if weight < ZERO_WEIGHT:
                weight = 0.0
                out.has_edge[i] = 0
            else:
                out.has_edge[i] = 1
                d_yl = (row[ex.votes[i]] - row[yi]) / weight
                out.en[i] = ex.w * weight * (1.0 - k * d_yl)
                out.ed[i] = ex.w * weight
            out.teach[i] = min(1.0, weight / self.costs.max_weight(pot, n_left))
            for j in range(k):
                s[j] = ex.scores[i * k + j]
        return 0


cdef class PairRule(Rule):
    """:class:`~river_boost.potentials.RankingPairPotential` (OnlineBMR, Jung & Tewari 2018,
    Algorithm 2): each learner's cost vector from the potential's difference laws, its edge
    ``(mean(c) - c . h) / (max(c) - min(c))``; the state moves by the learner's vote h."""

    def __init__(self, object potential, int n):
        self.pcosts = PairCosts(potential, n)
        self.bound = potential.cost_bound

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        cdef int i, j, n = ex.n, k = ex.k
        cdef double* s = self.scratch(k)
        cdef double* cost
        cdef const double* h
        cdef double dot
        if ex.relevant == NULL:
            raise NotImplementedError("RankingPairPotential has no multiclass form")
        for j in range(k):
            s[j] = 0.0
        for i in range(n):
            cost = out.costs + i * k
            self.pcosts.cost_vector(s, ex.relevant, k, n - i - 1, cost)
            h = ex.vec + i * k
            dot = 0.0
            for j in range(k):
                dot += cost[j] * h[j]
            out.has_edge[i] = 1
            out.en[i] = ex.w * (vsum(cost, k) / k - dot)
            out.ed[i] = ex.w * (vmax(cost, k) - vmin(cost, k))
            out.teach[i] = self.bound
            for j in range(k):
                s[j] = s[j] + h[j]
        return 0


# ----------------------------------------------------------------------------- any Potential

cdef class PythonRule(Rule):
    """A :class:`~river_boost.potentials.Potential` of your own on the compiled walk: its
    Python methods are called where the compiled rules compute. A rule that keeps the default
    ``binary_step`` is asked for ``sampling_probability`` and ``advance`` learner by learner;
    where it keeps those defaults too, the walk asks ``log_weight`` and ``log_max_weight``
    and does the rest (``min(1, exp(log_weight - log_max_weight))``, ``state + z``) in C."""

    def __init__(self, object potential, int n):
        from river_boost.potentials import Potential

        cls = type(potential)
        self.own_step = (cls.binary_step is not Potential.binary_step
                         or cls.binary_start is not Potential.binary_start)
        self.step_fn = potential.binary_step
        self.start_fn = potential.binary_start if self.own_step else potential.start
        self.c_sampling = cls.sampling_probability is Potential.sampling_probability
        self.c_advance = cls.advance is Potential.advance and cls.start is Potential.start
        self.sampling = potential.sampling_probability
        self.log_weight = potential.log_weight
        self.log_max_weight = potential.log_max_weight
        self.advance = potential.advance

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        cdef int i
        self.ex = ex
        if not self.own_step:
            self.state = self.worst = self.start_fn()
            self.s = self.sw = 0.0
            return 0
        from river_boost.tasks import Example as TaskExample, Walk

        walk = Walk(
            [ex.p_true[i] for i in range(ex.n)],
            [ex.votes[i] for i in range(ex.n)],
            None if ex.scores == NULL else [ex.scores[i] for i in range(ex.n)],
        )
        self.example = TaskExample(
            walk,
            ex.w,
            ex.n,
            None if ex.alphas == NULL else [ex.alphas[i] for i in range(ex.n)],
            [ex.edges[i] for i in range(ex.n)],
            y=ex.sign > 0,
            sign=ex.sign,
        )
        self.state = self.start_fn(self.example)
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double p, edge, log_w
        if self.own_step:
            p, share, self.state, gradient = self.step_fn(i, self.state, self.example)
            if share is None:
                out[1] = -1.0
            else:
                out[0], out[1] = share
            if gradient is not None:
                out[2] = gradient
            return p
        if self.c_advance:  # the state is the margin s, moving by z: kept as a double
            self.state, self.worst = self.s, self.sw
            self.s += z
            self.sw -= 1.0
        if self.c_sampling:  # Potential.sampling_probability
            log_w = self.log_weight(i + 1, self.state)
            p = 0.0 if log_w == NEG_INF else min(
                1.0, exp(log_w - <double>self.log_max_weight(i + 1, self.worst)))
        else:
            p = self.sampling(i + 1, self.state, self.worst)
        if not self.c_advance:
            edge = self.ex.edges[i]
            self.state = self.advance(self.state, z, edge)
            self.worst = self.advance(self.worst, -1, edge)
        return binary_edge(self.ex, p, z, out)

    # The label-vector forms: the rule's multiclass_vote_costs, multiclass_start/_step and
    # ranking_start/_step, with the example as river_boost.tasks.Example holds it (NumPy).

    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL:
        cdef int r, j
        cdef double* D = self.scratch(k * k)
        sv = _np.array([s[j] for j in range(k)], dtype=float if self.surrogate else int)
        CC, DD = self.potential.multiclass_vote_costs(n_left, sv, k)
        CC = _np.asarray(CC, dtype=float)
        DD = _np.asarray(DD, dtype=float)
        for r in range(k):
            for j in range(k):
                C[r * k + j] = CC[r, j]
                D[r * k + j] = DD[r, j]
        return D

    cdef object _label_example(self, const LabelExample* ex, object y):
        from river_boost.tasks import Example as TaskExample, Walk

        cdef int i, j, r, n = ex.n, k = ex.k
        H = _np.array([[ex.vec[i * k + j] for j in range(k)] for i in range(n)])
        S = _np.array([[ex.scores[i * k + j] for j in range(k)] for i in range(n)])
        edges = [ex.edges[i] for i in range(n)]
        alphas = None if ex.alphas == NULL else [ex.alphas[i] for i in range(n)]
        if ex.relevant == NULL:
            costs = None
            if ex.weak_cost:
                costs = [_np.array([[ex.costs[(i * k + r) * k + j] for j in range(k)]
                                    for r in range(k)]) for i in range(n)]
            scores = list(S) if self.surrogate else list(S.astype(int))
            walk = Walk(list(H), [ex.votes[i] for i in range(n)], scores, costs)
            return TaskExample(walk, ex.w, n, alphas, edges, y=y, yi=ex.yi, k=k)
        relevant = _np.array([bool(ex.relevant[j]) for j in range(k)])
        walk = Walk(H, H, S if self.surrogate else None)
        return TaskExample(walk, ex.w, n, alphas, edges, relevant=relevant, k=k)

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        cdef int i, j, k = ex.k
        example = self._label_example(ex, self.label)
        pot = self.potential
        if ex.relevant == NULL:
            state = pot.multiclass_start(example)
            for i in range(ex.n):
                p, edge, state, gradient = pot.multiclass_step(i, state, example)
                out.teach[i] = p
                _python_share(out, i, edge, gradient)
            return 0
        state = pot.ranking_start(example)
        for i in range(ex.n):
            (cost, bound), edge, state, gradient = pot.ranking_step(i, state, example)
            cost = _np.asarray(cost, dtype=float)
            for j in range(k):
                out.costs[i * k + j] = cost[j]
            out.teach[i] = bound
            _python_share(out, i, edge, gradient)
        return 0


cdef int _python_share(Steps* out, int i, object edge, object gradient) except -1:
    """A Python step's edge share (None: none) and gradient (None: 0)."""
    if edge is None:
        out.has_edge[i] = 0
    else:
        out.has_edge[i] = 1
        out.en[i], out.ed[i] = edge
    out.grads[i] = 0.0 if gradient is None else gradient
    return 0


# ----------------------------------------------------------------------------- which rule

cdef object _COMPILED = None


def rule_for(object potential, int n):
    """The compiled rule of ``potential``: its own class for the library's potentials (matched
    by exact type: a subclass may change any method), :class:`PythonRule` otherwise."""
    global _COMPILED
    if _COMPILED is None:
        from river_boost import potentials as P

        _COMPILED = {
            P.BinomialPotential: BinomialRule,
            P.NormalHedgePotential: NormalHedgeRule,
            P.SquintPotential: SquintRule,
            P.OSBoostPotential: OSBoostRule,
            P.OSBoostOCPPotential: OSBoostOCPRule,
            P.LogisticLoss: LogisticRule,
            P.MulticlassZeroOnePotential: MBBMRule,
            P.RankingPairPotential: PairRule,
        }
    return _COMPILED.get(type(potential), PythonRule)(potential, n)


cdef double[::1] _doubles(object values):
    import numpy as np

    return np.ascontiguousarray(values, dtype=np.float64)
