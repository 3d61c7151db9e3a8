# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The boosting rules, compiled: one small class per rule behind one interface (``_rules.pxd``).

The walk (``river_boost.engine._engine``) asks a booster's rule, learner by learner, how much the
example weighs for that learner and how the example's state moves; the math is the one the
rule's :class:`~river_boost.potentials.Potential` documents. :func:`rule_for` gives the rule for
a potential: each of the library's potentials names its compiled class here (its ``rule``),
and any other potential (a rule of your own, or a subclass of one of ours) runs in
:class:`PythonRule`, where the same steps call its hooks.
"""

from libc.math cimport exp, log, log1p, expm1, pow, floor, sqrt, erf, fabs, copysign, isnan
from libc.math cimport INFINITY
from libc.stdlib cimport free
cimport scipy.special.cython_special as csc

from river_boost.engine._vec cimport vsum, vmax, vmin, sigmoid, _reserve
from river_boost.engine._vec cimport logistic_weight as c_logistic_weight
from river_boost.engine._costs cimport normalised_costs, rank_gradient

import functools as _functools
import math as _math

import numpy as _np

cdef double NEG_INF = -INFINITY
cdef double ZERO_WEIGHT = 1e-12  # OnlineMBBM's weight below this: an exact 0 seen through rounding
cdef double LOG2 = _math.log(2.0)
cdef double SQRT_PI = _math.sqrt(_math.pi)


cdef class Rule:
    """The rule interface (see ``_rules.pxd``): subclasses override the steps."""

    def __cinit__(self, object potential, int n, *args):
        self.potential = potential
        self.n = n
        self.surrogate = bool(getattr(potential, "surrogate", False))
        self.needs_edges = bool(getattr(potential, "needs_edges", True))
        self.cost_bound = getattr(potential, "cost_bound", 1.0)

    def __dealloc__(self):
        free(self.buf)

    cdef double* scratch(self, Py_ssize_t size) except NULL:
        """A buffer of at least ``size`` doubles, the rule's own (kept between calls)."""
        _reserve(<void**>&self.buf, &self.bufcap, size + 1, sizeof(double), 0)
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

    cdef object for_classes(self, int k):
        return self.potential.for_classes(k)

    cdef int cost_row(self, object pot, int n_left, const double* s, int k, int r,
                      double* row) except -1:
        raise NotImplementedError(f"{type(self.potential).__name__} has no multiclass form")

    cdef double max_weight(self, object pot, int n_left) except? -1.0:
        raise NotImplementedError(f"{type(self.potential).__name__} has no multiclass form")

    cdef int cost_vector(self, const double* s, const char* rel, int k, int n_left,
                         double* out) except -1:
        raise NotImplementedError(f"{type(self.potential).__name__} has no ranking form")

    def __reduce__(self):  # built again from the potential (rule_for)
        return (rule_for, (self.potential, self.n))

    def steps(self, object ex):
        """A test hook: every learner's step of one binary example, as the walk takes them.

        ``ex`` has the example's ``n_models``, ``sign`` (+1 / -1), sample weight ``w``, each
        learner's ``votes`` (+1 / -1), ``rows`` (P(True)) and running ``edges``, and the
        experts' ``scores`` and ``alphas`` (or None); returns one ``(p, edge, gradient)`` per
        learner: the probability of teaching, the edge share ``(numerator, denominator)`` or
        None, the loss's gradient in ``alpha_i`` (None unless a surrogate).
        """
        cdef int i, n = ex.n_models
        cdef double[3] out
        cdef BinaryExample bex
        cdef double p
        votes = _np.ascontiguousarray(ex.votes, dtype=_np.intc)
        cdef int[::1] v = votes
        cdef double[::1] rows = _doubles(ex.rows)
        cdef double[::1] edges = _doubles(ex.edges)
        cdef double[::1] scores = None if ex.scores is None else _doubles(ex.scores)
        cdef double[::1] alphas = None if ex.alphas is None else _doubles(ex.alphas)
        if v.shape[0] < n or rows.shape[0] < n or edges.shape[0] < n:
            raise ValueError(f"an example of {n} learners needs {n} votes, rows and edges")
        bex.n = n
        bex.sign = 1 if ex.sign > 0 else -1
        bex.w = ex.w
        bex.votes = &v[0] if n else NULL
        bex.p_true = &rows[0] if n else NULL
        bex.edges = &edges[0] if n else NULL
        bex.scores = &scores[0] if scores is not None and n else NULL
        bex.alphas = &alphas[0] if alphas is not None and n else NULL
        result = []
        self.binary_begin(&bex)
        for i in range(n):
            out[0] = out[1] = out[2] = 0.0
            p = self.binary_step(i, bex.sign * v[i], out)
            result.append((p, None if out[1] < 0 else (out[0], out[1]),
                           out[2] if self.surrogate else None))
        return result


cdef inline double binary_edge(const BinaryExample* ex, double p, int z, double* out) noexcept:
    """The binary papers' edge ``gamma_i = (w^i . z^i) / (2 ||w^i||_1)``: one example's share
    ``(w p z, 2 w p)``, ``z = +1/-1`` for a right/wrong vote before learning; returns ``p``."""
    cdef double wp = ex.w * p
    out[0] = wp * z
    out[1] = 2.0 * wp
    return p


# ----------------------------------------------------------------------------- boost by majority

cdef inline double _log_pmf(double log_fact_n, double log_fact_k, double log_fact_nk, int k,
                            double log_q, int nk, double log_1q) noexcept:
    """``log P(Binomial(n, q) = k)`` from ``log n!``, ``log k!``, ``log (n - k)!`` and
    ``nk = n - k``: ``log C(n, k) + k log q + (n - k) log(1 - q)``."""
    return log_fact_n - log_fact_k - log_fact_nk + k * log_q + nk * log_1q


cdef class BinomialTables:
    """Online BBM's tables for ``N`` learners and edge ``gamma``
    (:class:`~river_boost.potentials.BinomialPotential`, which reads them through
    :func:`binomial_tables`): ``log k!`` and, for each learner, the peak of its weight over
    the margins it can meet (``k`` clamped into the reachable range; the class docstring)."""

    def __init__(self, int n_models, double gamma):
        cdef int i, n, lo, hi, k
        cdef double q = (1.0 + gamma) / 2.0
        if n_models < 1:
            raise ValueError(f"n_models must be >= 1, got {n_models}")
        self.n_models = n_models
        # Python's math: the tables (not the walk) decide the floats, as they always have
        self.log_q = _math.log(q)
        self.log_1q = _math.log1p(-q)
        self.log_fact = _np.array([_math.lgamma(m + 1) for m in range(n_models + 1)])
        self.argmax_k = _np.empty(n_models, dtype=_np.intc)
        self.log_max = _np.empty(n_models)
        for i in range(1, n_models + 1):
            n = n_models - i
            lo = max(0, (n_models - 2 * i + 2) // 2)
            hi = min(n, n_models // 2)
            k = min(max(<int>_math.floor((n + 1) * q), lo), hi)
            self.argmax_k[i - 1] = k
            self.log_max[i - 1] = self.log_pmf(n, k)

    cpdef double log_pmf(self, int n, int k) noexcept:
        """``log P(Binomial(n, q) = k)``; ``-inf`` outside ``0 <= k <= n``."""
        if k < 0 or k > n:
            return NEG_INF
        return _log_pmf(self.log_fact[n], self.log_fact[k], self.log_fact[n - k], k,
                        self.log_q, n - k, self.log_1q)

    cpdef int k_at(self, int i, double s) noexcept:
        """``k = floor((N - i - s + 1) / 2)`` for learner ``i`` (1-based) at margin ``s``."""
        return <int>floor((self.n_models - i - s + 1.0) / 2.0)

    cpdef double log_weight_ratio(self, int i, double s) except? -1.0:
        """``log(w_i(s) / max_s w_i)``: learner ``i``'s sampling probability, as a log
        (``-inf``: weight exactly 0; above 0 only at margins unreachable with alpha = 1)."""
        if i < 1 or i > self.n_models:
            raise ValueError(f"the potential was made for {self.n_models} learners")
        return self.log_pmf(self.n_models - i, self.k_at(i, s)) - self.log_max[i - 1]

    def peak(self, int i):
        """``(k, log P(Binomial(N - i, q) = k))`` at learner ``i``'s peak."""
        return int(self.argmax_k[i - 1]), float(self.log_max[i - 1])


@_functools.lru_cache(maxsize=64)
def binomial_tables(int n_models, double gamma):
    """The :class:`BinomialTables` of ``(n_models, gamma)``, built once per pair (read-only)."""
    return BinomialTables(n_models, gamma)


cdef class BinomialRule(Rule):
    """:class:`~river_boost.potentials.BinomialPotential` (Online BBM): learner ``i`` is taught
    with probability ``P(Binomial(n, q) = k) / max``, ``k = floor((n - s + 1) / 2)``."""

    def __init__(self, object potential, int n):
        self.tables = binomial_tables(potential.n_models, potential.gamma)

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.s = 0.0
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        # Margins unreachable with alpha = 1 (none in OnlineBBM) could exceed the peak: clip.
        cdef double log_r = self.tables.log_weight_ratio(i + 1, self.s)
        cdef double p = 0.0 if log_r == NEG_INF else min(1.0, exp(log_r))
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


cpdef double nh_log_value(int i, double s) noexcept:
    """NormalHedge's ``log Phi_i(s) = [s]_-^2 / (3 i)``."""
    cdef double m = min(0.0, s)
    return m * m / (3.0 * i)


cpdef double nh_log_weight(int i, double s) except? -1.0:
    """``log((Phi_i(s - 1) - Phi_i(s + 1)) / 2)`` (:func:`weight_from_values`)."""
    return weight_from_values(nh_log_value(i, s - 1.0), nh_log_value(i, s + 1.0))


cpdef double nh_advance(double s, int z, double edge) noexcept:
    """The drift-adjusted margin after a learner with edge ``edge`` voted ``z``."""
    return s + 0.5 * z - edge


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
        self.s = nh_advance(self.s, z, edge)
        self.worst = nh_advance(self.worst, -1, edge)
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


cpdef double squint_regret(int z, double edge) noexcept:
    """Squint's instantaneous regret ``r = edge - z / 2`` of a learner's vote ``z``."""
    return edge - 0.5 * z


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
        r = squint_regret(z, edge)
        self.R += r
        self.V += r * r
        r = squint_regret(-1, edge)
        self.Rw += r
        self.Vw += r * r
        return binary_edge(self.ex, p, z, out)


# ----------------------------------------------------------------------------- OSBoost

cpdef double osboost_weight(double s, double gamma) noexcept:
    """Online smooth boosting's weight: 1 for ``s <= 0``, else ``(1 - gamma)^(s/2)``."""
    return 1.0 if s <= 0 else pow(1.0 - gamma, s / 2.0)


cpdef double osboost_advance(double s, int z, double theta) noexcept:
    """OSBoost's state after a vote ``z``: ``s + (z - theta)``."""
    return s + (z - theta)


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
        cdef double p = osboost_weight(self.s, self.gamma)
        self.s = osboost_advance(self.s, z, self.theta)
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
        q = c_logistic_weight(self.s)
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


# ----------------------------------------------------------------------------- OnlineMBBM, OnlineBMR

cdef int mbbm_steps(Rule rule, const LabelExample* ex, Steps* out) except -1:
    """OnlineMBBM (Jung, Goetz & Tewari 2017, Algorithm 1) on the rule's cost rows and
    bounds: learner i's weight ``sum_l (C[y, l] - C[y, y])`` over its bound, its edge
    ``1 - k D[y, l_i]`` weighted by it (condition (1))."""
    cdef int i, j, n = ex.n, k = ex.k, yi = ex.yi, n_left
    cdef double* s = rule.scratch(3 * k + k * k)
    cdef double* row = s + k
    cdef double* diff = s + 2 * k
    cdef double weight, d_yl
    cdef object pot = rule.for_classes(k)
    for j in range(k):
        s[j] = 0.0
    for i in range(n):
        n_left = n - (i + 1)
        if ex.weak_cost:
            for j in range(k):
                row[j] = ex.costs[i * k * k + yi * k + j]
        else:  # the potential's cost matrix, row y
            rule.cost_row(pot, n_left, s, k, yi, row)
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
        out.teach[i] = min(1.0, weight / rule.max_weight(pot, n_left))
        for j in range(k):
            s[j] = ex.scores[i * k + j]
    return 0


cdef int bmr_steps(Rule rule, const LabelExample* ex, Steps* out) except -1:
    """OnlineBMR (Jung & Tewari 2018, Algorithm 2) on the rule's cost vectors: learner i's
    edge ``(mean(c) - c . h) / (max(c) - min(c))``; the state moves by the learner's vote h."""
    cdef int i, j, n = ex.n, k = ex.k
    cdef double* s = rule.scratch(k)
    cdef double* cost
    cdef const double* h
    cdef double dot
    for j in range(k):
        s[j] = 0.0
    for i in range(n):
        cost = out.costs + i * k
        rule.cost_vector(s, ex.relevant, k, n - i - 1, cost)
        h = ex.vec + i * k
        dot = 0.0
        for j in range(k):
            dot += cost[j] * h[j]
        out.has_edge[i] = 1
        out.en[i] = ex.w * (vsum(cost, k) / k - dot)
        out.ed[i] = ex.w * (vmax(cost, k) - vmin(cost, k))
        out.teach[i] = rule.cost_bound
        for j in range(k):
            s[j] = s[j] + h[j]
    return 0


cdef class MBBMRule(Rule):
    """:class:`~river_boost.potentials.MulticlassZeroOnePotential` (OnlineMBBM): Algorithm 1
    (:func:`mbbm_steps`) on the exact potentials' cost matrices and bounds, kept in the
    engine's tables (``river_boost.engine._costs.MBBMCosts``)."""

    def __init__(self, object potential, int n):
        self.costs = MBBMCosts(potential, n)

    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL:
        return self.costs.costs(self.costs.pot_for(k), n_left, s, k, C)

    cdef object for_classes(self, int k):
        return self.costs.pot_for(k)  # (kept while the labels are k: the tables are its)

    cdef int cost_row(self, object pot, int n_left, const double* s, int k, int r,
                      double* row) except -1:
        cdef int j
        cdef double* C = self.scratch(3 * k + k * k) + 3 * k  # (after mbbm_steps' part)
        self.costs.costs(pot, n_left, s, k, C)
        for j in range(k):
            row[j] = C[r * k + j]
        return 0

    cdef double max_weight(self, object pot, int n_left) except? -1.0:
        return self.costs.max_weight(pot, n_left)

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        if ex.relevant != NULL:
            raise NotImplementedError("MulticlassZeroOnePotential has no ranking form")
        return mbbm_steps(self, ex, out)


cdef class PairRule(Rule):
    """:class:`~river_boost.potentials.RankingPairPotential` (OnlineBMR): Algorithm 2
    (:func:`bmr_steps`) on the cost vectors of the potential's difference laws."""

    def __init__(self, object potential, int n):
        self.pcosts = PairCosts(potential, n)

    cdef int cost_vector(self, const double* s, const char* rel, int k, int n_left,
                         double* out) except -1:
        return self.pcosts.cost_vector(s, rel, k, n_left, out)

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        if ex.relevant == NULL:
            raise NotImplementedError("RankingPairPotential has no multiclass form")
        return bmr_steps(self, ex, out)


# ----------------------------------------------------------------------------- any Potential

cdef class PythonRule(Rule):
    """A :class:`~river_boost.potentials.Potential` of your own on the compiled walk: the
    library's steps, with its hooks called where the compiled rules compute. Binary: the walk
    asks ``sampling_probability`` and ``advance`` learner by learner, and where the rule keeps
    those defaults, ``log_weight`` and ``log_max_weight``, doing the rest
    (``min(1, exp(log_weight - log_max_weight))``, ``state + z``) in C. Multiclass: Algorithm
    1 (:func:`mbbm_steps`) on ``cost_row`` and ``max_weight``, and ``cost_matrix`` for
    cost-sensitive votes. Ranking: Algorithm 2 (:func:`bmr_steps`) on ``cost_vector`` and
    ``cost_bound``. The label vectors are NumPy arrays (scores as ints)."""

    def __init__(self, object potential, int n):
        cls = type(potential)
        if self.surrogate:
            raise TypeError(f"{cls.__name__} is a surrogate loss: its steps are its compiled "
                            "rule's (its class's own `rule`), which hooks cannot change")
        # the class that declares the hooks (Potential): where a rule keeps its defaults, C
        root = next(c for c in reversed(cls.__mro__) if "log_max_weight" in vars(c))
        self.c_sampling = cls.sampling_probability is root.sampling_probability
        self.c_advance = cls.advance is root.advance and cls.start is root.start
        self.start_fn = potential.start
        self.sampling = potential.sampling_probability
        self.log_weight = potential.log_weight
        self.log_max_weight = potential.log_max_weight
        self.advance = potential.advance

    cdef int binary_begin(self, const BinaryExample* ex) except -1:
        self.ex = ex
        self.state = self.worst = self.start_fn()
        self.s = self.sw = 0.0
        return 0

    cdef double binary_step(self, int i, int z, double* out) except? -1.0:
        cdef double p, edge, log_w
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

    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL:
        cdef double* D = self.scratch(k * k)
        _copy_into(self.potential.for_classes(k).cost_matrix(n_left, _votes(s, k)), C, k * k)
        normalised_costs(C, k, D)
        return D

    cdef int cost_row(self, object pot, int n_left, const double* s, int k, int r,
                      double* row) except -1:
        return _copy_into(pot.cost_row(n_left, _votes(s, k), r), row, k)

    cdef double max_weight(self, object pot, int n_left) except? -1.0:
        return pot.max_weight(n_left)

    cdef int cost_vector(self, const double* s, const char* rel, int k, int n_left,
                         double* out) except -1:
        cdef int j
        scores = _np.array([s[j] for j in range(k)])
        relevant = _np.array([bool(rel[j]) for j in range(k)])
        return _copy_into(self.potential.cost_vector(scores, relevant, n_left), out, k)

    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1:
        if ex.relevant == NULL:
            return mbbm_steps(self, ex, out)
        return bmr_steps(self, ex, out)


cdef object _votes(const double* s, int k):
    """The vote counts ``s`` as a NumPy vector of ints (the multiclass hooks' ``s``)."""
    cdef int j
    return _np.array([<long long>s[j] for j in range(k)])


cdef int _copy_into(object values, double* out, Py_ssize_t size) except -1:
    """A hook's answer (any array-like of ``size`` numbers, flattened) into ``out``."""
    cdef Py_ssize_t j
    cdef const double[::1] v = _np.ascontiguousarray(values, dtype=_np.float64).ravel()
    if v.shape[0] != size:
        raise ValueError(f"a hook answered {v.shape[0]} numbers where {size} were expected")
    for j in range(size):
        out[j] = v[j]
    return 0


# ----------------------------------------------------------------------------- which rule

def rule_for(object potential, int n):
    """The compiled rule of ``potential``: the ``rule`` its own class names (exactly its
    class: a subclass may change any hook), else :class:`PythonRule`."""
    return (vars(type(potential)).get("rule") or PythonRule)(potential, n)


def binomial_log_pmf(int n, int k, double q):
    """``log P(Binomial(n, q) = k)`` (:func:`river_boost.potentials.binomial_log_pmf`):
    :func:`_log_pmf` on Python's ``lgamma``, as :class:`BinomialTables` are built."""
    if k < 0 or k > n:
        return NEG_INF
    # q is strictly inside (0, 1) for every caller; guard the edges anyway (0 * log 0 = 0)
    return _log_pmf(_math.lgamma(n + 1), _math.lgamma(k + 1), _math.lgamma(n - k + 1), k,
                    _math.log(q) if k else 0.0, n - k, _math.log1p(-q) if n - k else 0.0)


def logistic_weight(double s):
    """``1 / (1 + exp(s))`` (:func:`river_boost.potentials.logistic_weight`)."""
    return c_logistic_weight(s)


cdef double[::1] _doubles(object values):
    return _np.ascontiguousarray(values, dtype=_np.float64)
