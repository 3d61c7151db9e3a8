# cython: language_level=3
"""The adaptive boosters' experts, compiled.

:class:`ProjectedOGD` learns the learners' vote weights ``alpha`` by online gradient descent
projected on ``[-bound, bound]``; :class:`Hedge` weights the experts (expert ``i``: the first
``i`` learners); :class:`ChainHedge` weights a booster's two chains (its own and a deep
one, ``deep_scale``). The engines (``river_boost.engine._engine``) call their C entry points
(``_experts.pxd``), Python code (the booster, the tests' reference walk) their methods: one
implementation. ``tests/engine/test_experts.py`` checks them against the readable
definitions.
"""

from cpython cimport array
from libc.math cimport exp, log, sqrt
from libc.stdlib cimport qsort
from river_boost.engine._vec cimport logistic_weight

import array as _pyarray


cdef inline double _min(double a, double b) noexcept:
    return b if b < a else a  # Python's min(a, b)


cdef inline double _max(double a, double b) noexcept:
    return b if b > a else a  # Python's max(a, b)


cdef array.array _doubles(object values, int n, str name):
    """``values`` as a new typed array of ``n`` doubles (ValueError for another length)."""
    cdef array.array a = _pyarray.array("d", values)
    if len(a) != n:
        raise ValueError(f"{name} needs {n} values, got {len(a)}")
    return a


cdef class Hedge:
    """Exponential weights over ``n`` experts, kept in log space so they never underflow.

    ``update(losses, scale)`` multiplies expert ``i``'s weight by ``exp(-scale * losses[i])``;
    the log-weights are re-centred so that the best expert's is 0 (bounded state on long
    streams). ``weights`` are the normalised weights.
    """

    def __cinit__(self, int n):
        if n < 1:
            raise ValueError(f"Hedge needs at least one expert, got {n}")
        self.n = n
        self.log_weights = _pyarray.array("d", [0.0]) * n
        self.weights = _pyarray.array("d", [1.0 / n]) * n
        self.scratch = _pyarray.array("d", [0.0]) * n

    def __reduce__(self):
        return (Hedge, (self.n,), list(self.log_weights))

    def __setstate__(self, log_weights):
        self.set_log_weights(log_weights)

    cdef int set_log_weights_c(self, const double* log_weights) except -1:
        """The log-weights, and the normalised weights from them (an exp at or below -1024
        is 0.0: the experts Hedge has all but dropped)."""
        cdef double* lw = self.log_weights.data.as_doubles
        cdef double* w = self.weights.data.as_doubles
        cdef double total = 0.0
        cdef int i
        for i in range(self.n):
            lw[i] = log_weights[i]
            w[i] = 0.0 if lw[i] <= -1024.0 else exp(lw[i])
            total += w[i]  # in order
        for i in range(self.n):
            w[i] = w[i] / total
        return 0

    cdef int _set_centred(self, double* log_weights) except -1:
        """set_log_weights_c after re-centring ``log_weights`` (in place) so that the best
        expert's is 0: bounded state on long streams."""
        cdef double top = log_weights[0]
        cdef int i
        for i in range(1, self.n):
            top = _max(top, log_weights[i])
        for i in range(self.n):
            log_weights[i] = log_weights[i] - top
        return self.set_log_weights_c(log_weights)

    cdef int update_c(self, const double* losses, double scale, double share) except -1:
        """``share > 0``: fixed-share Hedge (Herbster & Warmuth 1998), which then moves that
        share of the total weight evenly over the experts, so that an expert that lost its
        weight under an old concept can win it back. No loss: nothing changes."""
        cdef double* lw = self.log_weights.data.as_doubles
        cdef double* w = self.weights.data.as_doubles
        cdef double* tmp = self.scratch.data.as_doubles
        cdef double top, floor
        cdef int i, n = self.n
        for i in range(n):
            if losses[i] != 0.0:
                break
        else:
            return 0
        for i in range(n):
            tmp[i] = lw[i] - scale * losses[i]
        self._set_centred(tmp)
        if share > 0.0:
            floor = share / n
            for i in range(n):
                tmp[i] = (1.0 - share) * w[i] + floor
            top = tmp[0]
            for i in range(1, n):
                top = _max(top, tmp[i])
            for i in range(n):
                tmp[i] = log(tmp[i] / top)
            self.set_log_weights_c(tmp)
        return 0

    def update(self, losses, double scale=1.0, double share=0.0):
        """One example's losses (one per expert)."""
        cdef array.array a = _doubles(losses, self.n, "losses")
        self.update_c(a.data.as_doubles, scale, share)

    def set_log_weights(self, log_weights):
        cdef array.array a = _doubles(log_weights, self.n, "log_weights")
        self.set_log_weights_c(a.data.as_doubles)

    def restart(self, int i):
        """Expert ``i``'s learner was replaced: the expert starts again from expert
        ``i - 1``'s weight (with the new learner's ``alpha = 0`` they predict alike);
        expert 0 keeps its weight."""
        cdef double* lw = self.log_weights.data.as_doubles
        cdef double* tmp = self.scratch.data.as_doubles
        cdef int j
        if not 0 <= i < self.n:
            raise IndexError(f"expert {i} of {self.n}")
        if i == 0:
            return
        for j in range(self.n):
            tmp[j] = lw[j]
        tmp[i] = tmp[i - 1]
        self._set_centred(tmp)

    def draw(self, rng):
        """Index of an expert drawn with probability proportional to its weight."""
        return rng.choices(range(self.n), weights=self.weights)[0]


cdef class ProjectedOGD:
    """Online gradient descent on a vector, projected coordinate-wise on ``[-bound, bound]``.

    The learning rate at step ``t`` (1-based, one step per example) is ``lr / sqrt(t)``. With
    drift adaptation a coordinate's step count restarts when its learner is replaced
    (``starts[i]``: the step it restarted at), and with a ``memory`` the step count is capped
    there, so that the rate never falls below ``lr / sqrt(memory)``.
    """

    def __cinit__(self, int n, double lr, double bound=2.0):
        if n < 1:
            raise ValueError(f"ProjectedOGD needs at least one coordinate, got {n}")
        self.n = n
        self.values = _pyarray.array("d", [0.0]) * n
        self.lr = lr
        self.bound = bound
        self._t = _pyarray.array("q", [0])
        self.starts = None
        self.memory = None

    def __reduce__(self):
        state = (list(self.values), self._t[0], self.starts, self.memory)
        return (ProjectedOGD, (self.n, self.lr, self.bound), state)

    def __setstate__(self, state):
        values, t, self.starts, self.memory = state
        self.values = _doubles(values, self.n, "values")
        self._t[0] = t

    @property
    def t(self):
        """The steps taken so far (one per example)."""
        return self._t[0]

    @t.setter
    def t(self, long long value):
        self._t[0] = value

    cdef double rate_c(self, int i) except? -1.0:
        cdef long long t = self._t.data.as_longlongs[0]
        if self.starts is not None:
            t -= <long long>self.starts[i]
        if self.memory is not None and <long long>self.memory < t:
            t = <long long>self.memory
        return self.lr / sqrt(<double>(t if t > 1 else 1))

    def rate(self, int i):
        """The current step's rate for coordinate ``i``."""
        return self.rate_c(i)

    cdef int step_all_c(self, const double* gradients, double divisor,
                        bint per_learner) except -1:
        """One example: advance the step count, then ``alpha_i -= rate_i * gradient_i``,
        projected; ``rate_i`` is ``lr / sqrt(t)`` (``per_learner``: :meth:`rate`), divided
        by ``divisor`` (the task's: ``k - 1`` for multiclass, 1 otherwise)."""
        cdef double* v = self.values.data.as_doubles
        cdef long long* t = self._t.data.as_longlongs
        cdef double rate
        cdef int i
        t[0] += 1  # the next example
        rate = (self.lr / sqrt(<double>t[0])) / divisor
        for i in range(self.n):
            if per_learner:
                rate = self.rate_c(i) / divisor
            v[i] = _min(self.bound, _max(-self.bound, v[i] - rate * gradients[i]))
        return 0

    def step_all(self, gradients, double divisor=1.0, bint per_learner=False):
        """:meth:`step_all_c` for a sequence of ``n`` gradients."""
        cdef array.array g = _doubles(gradients, self.n, "gradients")
        self.step_all_c(g.data.as_doubles, divisor, per_learner)

    def restart(self, int i):
        """Coordinate ``i`` starts over: value 0, and its rate from ``lr`` again."""
        if not 0 <= i < self.n:
            raise IndexError(f"coordinate {i} of {self.n}")
        if self.starts is None:
            self.starts = [0] * self.n
        self.starts[i] = self._t[0]
        self.values.data.as_doubles[i] = 0.0


cdef int _descending(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*>a)[0], y = (<const double*>b)[0]
    return (x < y) - (x > y)


cdef class SimplexOGD(ProjectedOGD):
    """Online gradient descent projected on the probability simplex (Zinkevich 2003).

    The vote weights of OSBoost.OCP (Chen, Lin & Lu 2012): ``alpha`` starts uniform (``1/n``
    each); each step moves every coordinate by ``-rate_i * gradient_i`` (the rates of
    :class:`ProjectedOGD`, drift adaptation's included) and then projects the vector on
    ``{alpha >= 0, sum(alpha) = 1}`` in the Euclidean norm (:meth:`project`). A step whose
    gradients are all 0 only advances the step count: the vector is already on the simplex.
    """

    def __init__(self, int n, double lr):
        cdef int i
        self.bound = 1.0  # no coordinate leaves [0, 1]
        self.scratch = _pyarray.array("d", [0.0]) * n
        for i in range(n):
            self.values.data.as_doubles[i] = 1.0 / n

    def __reduce__(self):
        state = (list(self.values), self._t[0], self.starts, self.memory)
        return (SimplexOGD, (self.n, self.lr), state)

    cdef int project_c(self) except -1:
        """The values, replaced by their Euclidean projection on the simplex (Duchi, Shalev-
        Shwartz, Singer & Chandra 2008, Figure 1): with ``u`` the values sorted in decreasing
        order, ``rho`` the largest ``j`` with ``u_j > (u_1 + ... + u_j - 1) / j`` and ``tau``
        that threshold at ``rho``, each ``alpha_i`` becomes ``max(alpha_i - tau, 0)``."""
        cdef double* v = self.values.data.as_doubles
        cdef double* u = self.scratch.data.as_doubles
        cdef double css = 0.0, tau = 0.0, cut
        cdef int j, n = self.n
        for j in range(n):
            u[j] = v[j]
        qsort(u, n, sizeof(double), _descending)
        for j in range(n):  # the condition holds for j = 1..rho and fails after (their lemma)
            css += u[j]
            cut = (css - 1.0) / (j + 1)
            if u[j] > cut:
                tau = cut
        for j in range(n):
            v[j] = _max(v[j] - tau, 0.0)
        return 0

    def project(self):
        """Project the values on the simplex (:meth:`project_c`)."""
        self.project_c()

    cdef int step_all_c(self, const double* gradients, double divisor,
                        bint per_learner) except -1:
        """:meth:`ProjectedOGD.step_all_c`'s step, then the projection on the simplex."""
        cdef double* v = self.values.data.as_doubles
        cdef long long* t = self._t.data.as_longlongs
        cdef double rate
        cdef bint moved = False
        cdef int i
        t[0] += 1
        rate = (self.lr / sqrt(<double>t[0])) / divisor
        for i in range(self.n):
            if gradients[i] != 0.0:
                if per_learner:
                    rate = self.rate_c(i) / divisor
                v[i] = v[i] - rate * gradients[i]
                moved = True
        if moved:
            self.project_c()
        return 0

    def restart(self, int i):
        """Coordinate ``i``'s learner was replaced: its rate starts from ``lr`` again and its
        weight from ``1/n``, the weight every learner starts with; the vector is then projected
        back on the simplex (the others give up what it gains, evenly while they can)."""
        ProjectedOGD.restart(self, i)
        self.values.data.as_doubles[i] = 1.0 / self.n
        self.project_c()


cdef class ChainHedge:
    """Hedge over a booster's two chains, its own (shallow) and the deep one (``deep_scale``):
    each chain's weighted prequential losses ``M`` (fading by ``decay`` per example) and the
    deep chain's weight

    ``v = exp(-eta M_deep) / (exp(-eta M_shallow) + exp(-eta M_deep))``,

    computed by the larger term, so that neither exponential can overflow. A loss is a real
    number in ``[0, 1]``: a binary or multiclass chain's mistake (a bool, 0 or 1), a ranking
    chain's rank loss."""

    def __cinit__(self, double eta):
        if not eta > 0.0:
            raise ValueError(f"eta must be > 0, got {eta}")
        self.eta = eta
        self.m_shallow = 0.0
        self.m_deep = 0.0

    def __reduce__(self):
        return (ChainHedge, (self.eta,), (self.m_shallow, self.m_deep))

    def __setstate__(self, state):
        self.m_shallow, self.m_deep = state

    @property
    def mistakes(self):
        """The shallow chain's and the deep chain's weighted losses (mistakes for binary and
        multiclass chains)."""
        return [self.m_shallow, self.m_deep]

    @mistakes.setter
    def mistakes(self, values):
        self.m_shallow, self.m_deep = values

    cpdef double deep_weight(self):
        """Hedge's weight ``v`` of the deep chain, ``1 / (1 + exp(eta (M_deep - M_shallow)))``
        (the walk's sigmoid, without overflow)."""
        return logistic_weight(self.eta * (self.m_deep - self.m_shallow))

    cpdef record(self, double loss_shallow, double loss_deep, double w, double decay):
        """Each chain's loss in ``[0, 1]`` on an example of sample weight ``w`` it then learned
        (a mistake: ``True``/``False``, read as 1/0); the past losses fade by ``decay`` (1:
        never). A loss outside ``[0, 1]`` (NaN included) raises ``ValueError``, nothing
        changed."""
        if not (0.0 <= loss_shallow <= 1.0 and 0.0 <= loss_deep <= 1.0):
            raise ValueError(f"losses must lie in [0, 1], got {loss_shallow}, {loss_deep}")
        # a loss of 0 adds nothing (not w * 0.0): a mistake's record as before, bit for bit
        self.m_shallow = decay * self.m_shallow + (w * loss_shallow if loss_shallow else 0.0)
        self.m_deep = decay * self.m_deep + (w * loss_deep if loss_deep else 0.0)
