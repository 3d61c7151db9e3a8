# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The binary boosters' engine: margins and P(True) (tasks.BinaryTask).

The walk they share and the state it changes: river_boost.engine._engine."""

from river_boost.engine._engine cimport (
    Engine, CWalk, P_VOTE_SHARE, P_HEDGE, P_RANDOM, P_FINAL, _check_w,
)
from river_boost.engine._rules cimport Rule, BinaryExample
from river_boost.engine._votes cimport py_min, py_max, _hedge_lean


cdef class BinaryEngine(Engine):
    """The walk of a binary booster: margins and P(True) (tasks.BinaryTask)."""

    cdef int _task_walk(self, CWalk cw) except -1:
        """The binary walk (tasks.BinaryTask): P(True), the votes and the experts' margins."""
        cdef int i, n = self.n
        cdef double p_true, total, f, alpha
        cdef double* alphas
        for i in range(n):
            p_true = cw.rows[2 * i]
            total = p_true + cw.rows[2 * i + 1]
            cw.p[i] = p_true / total if total > 0 else 0.5
            cw.votes[i] = 1 if cw.p[i] >= 0.5 else -1
        if self.ogd is not None:
            alphas = self.ogd.values.data.as_doubles
            f = 0.0
            for i in range(n):
                alpha = alphas[i]
                if cw.p[i] >= 0.5:
                    f += alpha
                else:
                    f += -alpha
                cw.scores[i] = f
        return 0

    cdef object _predict_proba_one(self, object x):
        cdef CWalk cw = self._walk(self._cleaned(x))
        cdef double p = self._binary_proba(cw)
        return {False: 1.0 - p, True: p}

    cdef object _predict_one(self, object x):
        cdef CWalk cw = self._walk(self._cleaned(x))
        cdef int idx
        if self.pcode == P_RANDOM:
            idx = self.hedge.draw(self.draw_rng)
            return cw.scores[idx] >= 0
        return self._binary_proba(cw) >= 0.5

    cdef int _learn_one(self, object x, object y, object w) except -1:
        cdef double wd = _check_w(w)
        cdef object task = self.task
        cdef CWalk cw
        cdef int ensemble_error = 0
        if type(y) is not bool:
            if type(y) is int and (y == 0 or y == 1):  # as_binary_label
                y = y == 1
            else:
                y = task.check_label(y)
        cdef object clean = self._cleaned(x)
        if wd == 0.0:
            return 0
        self.n_seen += 1
        cw = self._walk(clean)
        errors = None
        if self.adapt is not None:
            errors = self._errors(cw, 1 if y else -1, NULL)
            ensemble_error = self._ensemble_error(cw, 1 if y else -1, NULL)
        self._binary_learn(cw, clean, y, wd)
        self._walk_stale()
        if errors is not None:
            self._observe(errors, ensemble_error)
        return 0

    cdef int _ensemble_error(self, CWalk cw, int target, const char* rel) except -1:
        """Whether the prediction (P(True) >= 0.5; with random expert draws their expectation,
        which draws nothing) misses the sign ``target``."""
        return 0 if (self._binary_proba(cw) >= 0.5) == (target == 1) else 1

    cdef double _binary_proba(self, CWalk cw) except? -1.0:
        """P(True), by the booster's prediction (tasks.BinaryTask)."""
        cdef int i, n = self.n, count
        cdef double lean, p_true
        cdef double* weights
        if self.pcode == P_VOTE_SHARE:
            count = 0
            for i in range(n):
                if cw.votes[i] == 1:
                    count += 1
            return (count + 0.5) / (n + 1.0)
        weights = self.hedge.weights.data.as_doubles
        if self.pcode == P_HEDGE:
            lean = _hedge_lean(weights, cw.scores, n)
            return py_min(1.0, py_max(0.0, 0.5 + 0.5 * lean))
        if self.pcode == P_FINAL:
            return py_min(1.0, py_max(0.0, (1.0 + cw.scores[n - 1]) / 2.0))
        lean = 0.0
        for i in range(n):
            if cw.scores[i] >= 0:
                lean += weights[i]
        return py_min(1.0, lean)

    cdef int _binary_learn(self, CWalk cw, object clean, object y, double w) except -1:
        """The rule's steps along the learners (river_boost.engine._rules), the learners' edges, the
        experts' update and the teaching."""
        cdef int i, n = self.n, z, sign = 1 if y else -1
        cdef double out[3]
        cdef BinaryExample ex
        cdef Rule rule = self.crule
        ex.n = n
        ex.sign = sign
        ex.w = w
        ex.votes = cw.votes
        ex.p_true = cw.p
        ex.scores = cw.scores if self.ogd is not None else NULL
        ex.alphas = self.ogd.values.data.as_doubles if self.ogd is not None else NULL
        ex.edges = self._running_edges()
        rule.binary_begin(&ex)
        for i in range(n):
            z = sign * cw.votes[i]
            out[1] = -1.0
            out[2] = 0.0
            self.teach[i] = rule.binary_step(i, z, out)
            self.has_edge[i] = out[1] >= 0.0
            self.en[i] = out[0]
            self.ed[i] = out[1]
            self.grads[i] = out[2]
        self._record_edges()
        if self.ogd is not None:
            self._binary_experts_update(cw, sign, w)
        self._teach(clean, y, w)
        return 0

    cdef int _binary_experts_update(self, CWalk cw, int sign, double w) except -1:
        """Binary: the vote weights' OGD step, Hedge on the experts' 0-1 losses."""
        cdef int i, n = self.n
        for i in range(n):  # expert i predicts sign(F_i), sign(0) = +1
            if sign > 0:
                self.tmp[i] = 1.0 if cw.scores[i] < 0 else 0.0
            else:
                self.tmp[i] = 1.0 if cw.scores[i] >= 0 else 0.0
        return self._experts_update(1.0, w)
