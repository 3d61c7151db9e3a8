# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The multi-label ranking boosters' engine: label scores, rank losses, offers of every
relevant label (tasks.RankingTask).

The walk they share and the state it changes: river_boost.engine._engine."""

from libc.stdlib cimport realloc
from libc.string cimport memcpy
from libc.math cimport floor
from river_boost.engine._constants cimport MIN_SUPPORT
from river_boost.engine._engine cimport Engine, CWalk, P_RANDOM, _check_w
from river_boost.engine._vec cimport vsum, vmax, vecmat, vsum_axis0, logistic_weight
from river_boost.engine._votes cimport py_min, _first_max, _supported

import numpy as _np


cdef double rank_loss_of(const double* s, const char* rel, int k, double tie) noexcept:
    """The rank loss of the scores ``s`` (:func:`rank_loss`) for a label set ``rel`` that is
    neither empty nor full. Scores are compared, not subtracted: two scored -inf tie."""
    cdef int a, b, above = 0, ties = 0, nr = 0, ni = 0
    for a in range(k):
        if rel[a]:
            nr += 1
            for b in range(k):
                if not rel[b]:
                    if s[b] > s[a]:
                        above += 1
                    elif s[b] == s[a]:
                        ties += 1
    ni = k - nr
    return (above + tie * ties) / (nr * ni)


def rank_loss(scores, relevant, double tie=0.5):
    """The share of (relevant, irrelevant) pairs ranked the wrong way round, ties counting
    ``tie``; ``nan`` when ``relevant`` is empty or full (no pairs). The experts' losses of the
    ranking walk (:func:`river_boost.potentials.rank_loss`)."""
    cdef const double[::1] s = _np.ascontiguousarray(scores, dtype=_np.float64)
    cdef const signed char[::1] r = _np.ascontiguousarray(relevant, dtype=bool).view(_np.int8)
    cdef int k = s.shape[0], nr
    if r.shape[0] != k:
        raise ValueError("scores and relevant differ in length")
    nr = int(_np.asarray(r).sum())
    if nr == 0 or nr == k:
        return _np.nan
    return rank_loss_of(&s[0], <const char*>&r[0], k, tie)

cdef class RankingEngine(Engine):
    """The walk of a multi-label ranking booster: label scores, rank losses, offers of every
    relevant label (tasks.RankingTask)."""

    cdef int _task_walk(self, CWalk cw) except -1:
        """The ranking walk (tasks.RankingTask): H (each learner's distribution over the
        labels) and, with alphas, the experts' scores ``cumsum(alpha[:, None] * H, axis=0)``."""
        cdef int i, j, n = self.n, k = cw.k
        cdef int n_ok = _supported(self.task.support, k, cw.ok)
        cdef double total, p
        cdef double* h
        cdef double* alphas
        for i in range(n):  # each learner's distribution over the labels with support
            h = cw.vec + i * k
            for j in range(k):
                p = cw.rows[i * k + j]
                h[j] = p if p > 0 and (n_ok < 0 or cw.ok[j]) else 0.0
            total = vsum(h, k)
            if total > 0:
                for j in range(k):
                    h[j] = h[j] / total
            elif n_ok < 0:
                for j in range(k):
                    h[j] = 1.0 / k
            else:
                for j in range(k):
                    h[j] = 1.0 / n_ok if cw.ok[j] else 0.0
        if self.ogd is not None:
            alphas = self.ogd.values.data.as_doubles
            for i in range(n):
                for j in range(k):
                    p = alphas[i] * cw.vec[i * k + j]
                    cw.scores[i * k + j] = p if i == 0 else cw.scores[(i - 1) * k + j] + p
        return 0

    cdef int _rk_experts_update(self, CWalk cw, char* rel, double w) except -1:
        """The experts' update for the ranking task: OGD, Hedge on the experts' rank losses."""
        cdef int i, k = cw.k
        for i in range(self.n):
            self.tmp[i] = rank_loss_of(cw.scores + i * k, rel, k, 0.5)
        return self._experts_update(1.0, w)

    cdef int _rk_scores(self, object x) except -1:
        """The label scores (tasks.RankingTask) into self.kb[:k]; returns k (0: no label known
        yet)."""
        cdef int k = len(self.task.labels)
        cdef CWalk cw
        clean = self._cleaned(x)
        if k == 0:
            return 0
        cw = self._walk(clean)
        self._rk_scores_of(cw, k, self.kb, True)
        return k

    cdef int _rk_scores_of(self, CWalk cw, int k, double* out, bint draw) except -1:
        """The label scores of the walk ``cw`` into ``out[:k]``; with random expert draws a
        drawn expert's (``draw``) or the Hedge-weighted scores, their expectation."""
        cdef int i, j, n = self.n, idx
        cdef double* weights
        if self.ogd is None:
            vsum_axis0(cw.vec, n, k, out)
        elif draw and self.pcode == P_RANDOM:
            idx = self.hedge.draw(self.draw_rng)
            for j in range(k):
                out[j] = cw.scores[idx * k + j]
        else:
            weights = self.hedge.weights.data.as_doubles
            for i in range(n):
                self.tmp[i] = weights[i]
            vecmat(self.tmp, cw.scores, out, n, k)
        return 0

    cdef int _ensemble_error(self, CWalk cw, int target, const char* rel) except -1:
        """Whether the top-scored label (the first maximum) is irrelevant (``rel``), as for
        the learners' errors."""
        cdef int k = cw.k
        self._rk_scores_of(cw, k, self.kb, False)
        return 0 if rel[_first_max(self.kb, k)] else 1

    cdef object _predict_proba_one(self, object x):
        return self._rank_proba_one(x, False)

    cdef object _predict_one(self, object x):
        return self._rank_proba_one(x, True)

    cdef dict _score_one(self, object x):
        """RankingBooster.score_one."""
        cdef list labels = self.task.labels
        cdef int j, k = self._rk_scores(x)
        cdef double* out = self.kb
        return {labels[j]: out[j] for j in range(k)}

    cdef dict _rank_proba_one(self, object x, bint labels_only):
        """RankingBooster.predict_proba_one (P(True) from score_one's scores and the label count,
        tasks.RankingTask), or with labels_only its predict_one ({label: P(True) >= 0.5})."""
        cdef list labels = self.task.labels
        cdef int j, a, b, n_top, k = self._rk_scores(x)
        cdef double* out = self.kb
        cdef double* ordered
        cdef double v, cut, d, p, count_weight
        cdef dict result = {}
        if k == 0:
            return result
        ordered = self.kb + k  # the scores, descending (sorted(values, reverse=True))
        for a in range(k):
            v = out[a]
            b = a
            while b > 0 and ordered[b - 1] < v:
                ordered[b] = ordered[b - 1]
                b -= 1
            ordered[b] = v
        # the label count: the rounded running mean of |Y|
        count_weight = <double>self.task._count_weight
        if count_weight == 0.0:
            n_top = 0
        else:
            d = floor(<double>self.task._count_sum / count_weight + 0.5)
            n_top = <int>d if d < k + 1 else k + 1
        if n_top <= 0:
            cut = ordered[0] + 1.0
        elif n_top >= k:
            cut = ordered[k - 1] - 1.0
        else:
            cut = 0.5 * (ordered[n_top - 1] + ordered[n_top])
        for j in range(k):
            # potentials.sigmoid(v - cut) = logistic_weight(-(v - cut))
            p = logistic_weight(-(out[j] - cut))
            if labels_only:
                result[labels[j]] = p >= 0.5
            else:
                result[labels[j]] = {False: 1.0 - p, True: p}
        return result

    cdef int _learn_one(self, object x, object y, object w) except -1:
        cdef double wd = _check_w(w)
        cdef object task = self.task, clean
        cdef dict index = task._index
        cdef int ensemble_error = 0
        cdef list labels
        cdef int i, j, n = self.n, k, m
        cdef double top, bound  # (C doubles: the same divisions, without a float object each)
        cdef CWalk cw
        cdef char* rel
        cdef bint known = type(y) is dict  # y's labels all known, its values all bool
        if known:
            for key, v in (<dict>y).items():
                if type(v) is not bool or key not in index:
                    known = False
                    break
        if not known:
            y = task.check_label(y)  # (a dict of bools)
        clean = self._cleaned(x)
        if wd == 0.0:
            return 0
        # The walk a prediction of this x made serves below only while the task's part of it
        # (the labels, which have enough support) is unchanged
        if not known and task.register(y):  # labels joined
            self._walk_stale()
        if not self._commit(<dict>y, wd):  # an empty or full label set: nothing to rank
            return 0
        self.n_seen += 1
        labels = task.labels
        k = len(labels)
        cw = self._walk(clean)
        self._nkbuf(k)
        rel = <char*>(self.kb + 3 * k)  # (the rules' steps keep their own scratch)
        memcpy(rel, self.rk_rel, k)  # as _commit read them (y is not read again)
        errors = None
        if self.adapt is not None:
            errors = self._errors(cw, 0, rel)
            ensemble_error = self._ensemble_error(cw, 0, rel)
        self._label_steps(cw, -1, rel, wd)  # (each learner's cost bound in teach)
        if self.ogd is not None:
            self._rk_experts_update(cw, rel, wd)
        # the offers: every relevant label, weight (max c - c[l]) / bound
        m = 0
        for i in range(n):
            bound = self.teach[i]
            top = vmax(self.nk + i * k, k)
            for j in range(k):
                if rel[j]:
                    self.oi[m] = i
                    self.oy[m] = j
                    self.op[m] = py_min(1.0, (top - self.nk[i * k + j]) / bound)
                    m += 1
        self._teach_offers(clean, None, labels, self.oy, self.oi, self.op, m, wd)
        self._walk_stale()
        if errors is not None:
            self._observe(errors, ensemble_error)
        return 0

    cdef bint _commit(self, dict y, double w) except -1:
        """The label set ``y`` (every key a known label, every value a bool) recorded in the
        task: the running label count (``w |Y|`` and ``w`` summed), the rows skipped and each
        relevant label's support; whether the row teaches (False for an empty or full label
        set: no (relevant, irrelevant) pair)."""
        cdef object task = self.task
        cdef list labels = task.labels, support = task.support
        cdef int j, k = len(labels), n_rel = 0
        cdef char* rel
        if k + 1 > self.rk_relcap:
            rel = <char*>realloc(self.rk_rel, k + 1)
            if rel == NULL:
                raise MemoryError()
            self.rk_rel, self.rk_relcap = rel, k + 1
        rel = self.rk_rel  # each label's relevance, read once (_rk_learn_one reads it too)
        for j in range(k):
            rel[j] = 1 if y.get(labels[j], False) else 0
            n_rel += rel[j]
        task._count_sum = task._count_sum + w * <double>n_rel
        task._count_weight = task._count_weight + w
        if n_rel == 0 or n_rel == k:
            task.n_skipped += 1
            return False
        for j in range(k):
            if rel[j]:
                support[j] = support[j] + 1
                if <long long>support[j] == MIN_SUPPORT:  # the label now counts in the votes
                    self._walk_stale()
        return True
