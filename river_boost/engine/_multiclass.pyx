# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The multiclass boosters' engine: label vectors, cost-sensitive or argmax votes
(tasks.MulticlassTask).

The walk they share and the state it changes: river_boost.engine._engine."""

from river_boost.engine._constants cimport MIN_SUPPORT
from river_boost.engine._engine cimport Engine, CWalk, P_VOTE_SHARE, P_HEDGE, P_RANDOM, _check_w
from river_boost.engine._rules cimport Rule, MBBMRule
from river_boost.engine._costs cimport MBBMCosts, LogisticCosts
from river_boost.engine._vec cimport vsum, vmax, vexp, vecmat
from river_boost.engine._votes cimport _argbest, _least_cost, _tie_tol, _supported


cdef class MulticlassEngine(Engine):
    """The walk of a multiclass booster: label vectors, cost-sensitive or argmax votes
    (tasks.MulticlassTask)."""

    cdef int _task_walk(self, CWalk cw) except -1:
        """The multiclass walk (tasks.MulticlassTask; with the rule's cost matrices for
        weak_prediction="cost")."""
        cdef int i, j, r, l, n = self.n, k = cw.k, lab, n_ok
        cdef double total
        cdef double* vec
        cdef double* s = self.kb
        cdef double* D  # the normalised costs, read where the matrix table holds them
        cdef double* prod = self.kb + k
        cdef double* C
        cdef list rank = self.task._rank
        cdef double* alphas = self.ogd.values.data.as_doubles if self.ogd is not None else NULL
        cdef Rule rule = self.crule
        n_ok = _supported(self.task.support, k, cw.ok)
        for i in range(n):  # each learner's distribution over the labels with support
            vec = cw.vec + i * k
            if n_ok < 0:
                total = vsum(cw.rows + i * k, k)
                if total > 0:
                    for j in range(k):
                        vec[j] = cw.rows[i * k + j] / total
                else:
                    for j in range(k):
                        vec[j] = 1.0 / k
                continue
            for j in range(k):  # the labels without support masked
                vec[j] = cw.rows[i * k + j] if cw.ok[j] else 0.0
            total = vsum(vec, k)
            if total > 0:
                for j in range(k):
                    vec[j] = vec[j] / total
            else:
                for j in range(k):
                    vec[j] = 1.0 / n_ok if cw.ok[j] else 0.0
        for j in range(k):
            s[j] = 0.0
        for i in range(n):
            vec = cw.vec + i * k
            if self.weak_cost:
                C = cw.costs + i * k * k
                # (learner i's scores differ from learner i - 1's in its vote's label only)
                D = rule.vote_costs(n - i - 1, s, k, C, -1 if i == 0 else lab)
                vecmat(vec, D, prod, k, k)
                lab = _least_cost(prod, k, _tie_tol(D, k * k), rank)
            else:
                lab = _argbest(vec, k, True, rank)
            if alphas == NULL:
                s[lab] = s[lab] + 1
            else:
                s[lab] = s[lab] + alphas[i]
            cw.votes[i] = lab
            for j in range(k):
                cw.scores[i * k + j] = s[j]
        return 0

    def mbbm_cost_matrix(self, pot, int n_left, s, bint table=False):
        """A test hook: this engine's MBBMCosts's matrix (and with ``table``, through its
        table)."""
        cdef MBBMCosts costs = MBBMCosts(self.rule, self.n)
        if type(self.crule) is MBBMRule:  # the walk's own, with its table
            costs = (<MBBMRule>self.crule).costs
        return costs.cost_matrix(pot, n_left, s, table)

    cdef int _learn_one(self, object x, object y, object w) except -1:
        cdef double wd = _check_w(w)
        cdef object task = self.task, idx, clean
        cdef int i, k, yi, ensemble_error = 0
        cdef CWalk cw
        try:
            idx = (<dict>task._index).get(y)
        except TypeError:
            idx = None
        if idx is None:
            y = task.check_label(y)
        clean = self._cleaned(x)
        if wd == 0.0:
            return 0
        # The example's label is recorded (the task's label space: a new class joins it) and
        # counted in its support. The walk a prediction of this x made serves below only while
        # the task's part of it (the classes, which have enough support) is unchanged.
        if idx is None:
            idx = task.register(y)
            self._walk_stale()  # a new class
        yi = idx
        support = task.support
        support[yi] = support[yi] + 1
        if <long long>support[yi] == MIN_SUPPORT:  # the class now counts in the learners' votes
            self._walk_stale()
        k = len(<list>task.classes)
        self.n_seen += 1
        if k < 2:  # fewer than two classes: nothing to boost, every learner learns
            for i in range(self.n):
                self.teach[i] = 1.0
            self._teach(clean, y, wd)
            self._walk_stale()
            return 0
        cw = self._walk(clean)
        errors = None
        if self.adapt is not None:
            errors = self._errors(cw, yi, NULL)
            ensemble_error = self._ensemble_error(cw, yi, NULL)
        self._label_steps(cw, yi, NULL, wd)
        if self.ogd is not None:
            self._mc_experts_update(cw, yi, wd)
        self._teach(clean, y, wd)
        self._walk_stale()
        if errors is not None:
            self._observe(errors, ensemble_error)
        return 0

    cdef int _mc_experts_update(self, CWalk cw, int yi, double w) except -1:
        """The experts' update for the multiclass task: OGD at rate / (k - 1), Hedge on the
        experts' 0-1 losses."""
        cdef int i, k = cw.k
        cdef list rank = self.task._rank
        for i in range(self.n):
            self.tmp[i] = 0.0 if _argbest(cw.scores + i * k, k, True, rank) == yi else 1.0
        return self._experts_update(k - 1, w)

    cdef int _ensemble_error(self, CWalk cw, int target, const char* rel) except -1:
        """Whether the most probable label (with random expert draws, of their expectation,
        which draws nothing) is not the label index ``target``."""
        cdef int k = cw.k
        cdef double* out = self.kb + 2 * k
        self._mc_proba_vector(cw, out)
        return 0 if _argbest(out, k, True, self.task._rank) == target else 1

    cdef int _mc_proba_vector(self, CWalk cw, double* out) except -1:
        """The label probabilities, by the booster's prediction (tasks.MulticlassTask)."""
        cdef int i, j, n = self.n, k = cw.k, rows
        cdef double* e
        cdef double* srow
        cdef double v, m, esum, total
        cdef double* weights
        cdef list rank = self.task._rank
        if self.pcode == P_VOTE_SHARE:
            for j in range(k):
                out[j] = (cw.scores[(n - 1) * k + j] + 1.0 / k) / (n + 1.0)
            return 0
        for j in range(k):
            out[j] = 0.0
        weights = self.hedge.weights.data.as_doubles
        if self.pcode == P_HEDGE:
            # the experts' shifted scores gathered, their exponentials in one loop, then each
            # expert's softmax weighted by Hedge
            self._nkbuf(k)
            rows = 0
            for i in range(n):
                if weights[i]:
                    srow = cw.scores + i * k
                    m = vmax(srow, k)
                    e = self.nk + rows * k
                    for j in range(k):
                        e[j] = srow[j] - m
                    rows += 1
            vexp(self.nk, self.nk, rows * k)
            rows = 0
            for i in range(n):
                v = weights[i]
                if v:
                    e = self.nk + rows * k
                    esum = vsum(e, k)
                    for j in range(k):
                        out[j] = out[j] + v * e[j] / esum
                    rows += 1
        else:
            for i in range(n):
                j = _argbest(cw.scores + i * k, k, True, rank)
                out[j] = out[j] + weights[i]
        total = vsum(out, k)
        for j in range(k):
            out[j] = out[j] / total
        return 0

    cdef object _predict_proba_one(self, object x):
        """predict_proba_one: the label probabilities for x."""
        cdef list classes = self.task.classes
        cdef int j, k
        cdef CWalk cw
        cdef double* out
        cdef dict proba
        clean = self._cleaned(x)
        k = len(classes)
        if k < 2:
            return {classes[0]: 1.0} if classes else {}
        cw = self._walk(clean)
        out = self.kb + 2 * k
        self._mc_proba_vector(cw, out)
        proba = {}
        for j in range(k):
            proba[classes[j]] = out[j]
        return proba

    cdef object _predict_one(self, object x):
        """predict_one: the most probable label (or a drawn expert's best label)."""
        cdef list classes = self.task.classes, rank = self.task._rank
        cdef int k, idx
        cdef CWalk cw
        cdef double* out
        clean = self._cleaned(x)
        k = len(classes)
        if k < 2:
            return classes[0] if classes else None
        cw = self._walk(clean)
        if self.pcode == P_RANDOM:
            idx = self.hedge.draw(self.draw_rng)
            return classes[_argbest(cw.scores + idx * k, k, True, rank)]
        out = self.kb + 2 * k
        self._mc_proba_vector(cw, out)
        return classes[_argbest(out, k, True, rank)]
