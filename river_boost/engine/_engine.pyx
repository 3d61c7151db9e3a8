# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The boosters' engines (:mod:`river_boost.engine`): a booster's walk and the state it changes.

A booster holds one :class:`Engine` (:class:`BinaryEngine`, :class:`MulticlassEngine`,
:class:`RankingEngine`), built by ``Booster._build``, and its ``learn_one`` and predictions
are one call each into it: input checks, cleaning ``x`` (river_boost.engine._clean), reading
the learners' probabilities (river_boost.engine._learners: the compiled forest through its C
entry points, River classifiers through their Python methods), the task's votes and the experts' scores, the
rule's steps along the learners (river_boost.engine._rules: one class per rule, cost matrices
in river_boost.engine._costs), the experts' update (river_boost.engine._experts), the pool's
offers (importance weights, thinning, sampling) and the calls that teach the learners.

The engine owns what the walk changes (the per-learner counters and edge sums, the vote
weights and Hedge, the example count, the kinds of the features learned, drift adaptation's
background learners) and is changed only by its own methods: there is no second copy of that
state to keep in step, and it pickles and copies whole.

Numbers
-------
The walk computes the math the tasks' and rules' docstrings document
(:mod:`river_boost.tasks`, :mod:`river_boost.potentials`) in plain C loops
(river_boost.engine._vec), equal to it within rounding: ``tests/engine/test_compiled_walk.py``
compares every step with a plain-Python reference (``tests/oracles/python_walk.py``) from the
same state, and ``tests/engine/test_walk_oracle.py`` whole streams with readable oracles of
the papers, both within 1e-9. Random numbers come from the same ``random.Random`` objects, in
the same order (their ``random()`` method is called), so a seed gives the same run on a build.
"""

import array as _pyarray

from cpython cimport array
from cpython.float cimport PyFloat_AS_DOUBLE
from libc.stdlib cimport free, calloc

from river_boost.engine._constants cimport MAX_SAMPLE_WEIGHT, MIN_SAMPLE_WEIGHT
from river_boost.engine._clean cimport _cleaned, _learned
from river_boost.engine._experts cimport Hedge as CHedge, ProjectedOGD as COGD
from river_boost.engine._rules cimport LabelExample, Steps
from river_boost.engine._rules import rule_for
from river_boost.engine._votes cimport _first_max
cimport cython

from time import perf_counter as _perf_counter

from river_boost.engine._contract import check_sample_weight
from river_boost.engine._format import PickleFormatError, rng_state, set_rng_state, unstamped


# ----------------------------------------------------------------------------- timing

# Seconds spent inside the forest's calls (load, predict_loaded_matrix, learn_loaded) while
# TIMING is on: the benchmark's measure of the booster's own overhead on the compiled path.
cdef bint _timing = False
cdef double _forest_seconds = 0.0


cdef inline double _now() except? -1.0:
    # Python's monotonic clock, portable (C's clock_gettime is POSIX's, not MSVC's); called
    # only while timing is on
    return _perf_counter()


def set_timing(bint on):
    """Start (and reset) or stop measuring the time spent in the forest's calls."""
    global _timing, _forest_seconds
    _timing = on
    _forest_seconds = 0.0


def forest_seconds():
    """Seconds spent in the forest's calls since :func:`set_timing` ``(True)``."""
    return _forest_seconds


# ----------------------------------------------------------------------------- the Python side

cdef double _check_w(object w) except? -1.0:
    """check_sample_weight(w) (river_boost.engine._contract), a float in range in C."""
    cdef double d
    if type(w) is float:
        d = PyFloat_AS_DOUBLE(w)
        if 0.0 <= d <= MAX_SAMPLE_WEIGHT:
            return d if d >= MIN_SAMPLE_WEIGHT else 0.0
    return check_sample_weight(w)


cdef inline double _draw(object random) except? -1.0:
    """random(): a draw of the pool's generator, its bound ``random`` method fetched once."""
    return random()


# ----------------------------------------------------------------------------- predictions

PREDICTIONS = {None: P_VOTE_SHARE, "hedge": P_HEDGE, "vote": P_VOTE, "random": P_RANDOM,
               "final": P_FINAL}


cdef class CWalk:
    """The learners' predictions for one ``x`` and the label-free walk made from them: scratch
    space of one engine, current while the engine says so (``Engine.rows_ok``,
    ``Engine.walk_ok``)."""

    def __cinit__(self, int n, int k, bint with_costs):
        self.n = n
        self.k = k
        self.rows = <double*>calloc(n * k + 1, sizeof(double))
        self.p = <double*>calloc(n + 1, sizeof(double))
        self.vec = <double*>calloc(n * k + 1, sizeof(double))
        self.votes = <int*>calloc(n + 1, sizeof(int))
        self.scores = <double*>calloc(n * k + 1, sizeof(double))
        self.costs = <double*>calloc(n * k * k + 1 if with_costs else 1, sizeof(double))
        self.ok = <char*>calloc(k + 1, sizeof(char))
        if (self.rows == NULL or self.p == NULL or self.vec == NULL or self.votes == NULL
                or self.scores == NULL or self.costs == NULL or self.ok == NULL):
            raise MemoryError()

    def __dealloc__(self):
        free(self.rows)
        free(self.p)
        free(self.vec)
        free(self.votes)
        free(self.scores)
        free(self.costs)
        free(self.ok)


# ----------------------------------------------------------------------------- the engines

cdef array.array _zeros(str typecode, int n):
    return _pyarray.array(typecode, [0]) * n


cdef class Engine:
    """A booster's walk and everything it changes: built once by ``Booster._build`` from the
    task, the rule, the weak-learner pool and the experts, held as the booster's ``_engine``,
    changed only by its own methods, pickled (and copied) whole by itself.

    It owns the per-learner counters and edge sums (:attr:`offered`, :attr:`n_offered`,
    :attr:`n_zero`, :attr:`n_updates`, :attr:`edge_num`, :attr:`edge_den`, typed arrays read
    by the booster's diagnostics), the weight scales, the vote weights and Hedge (:attr:`ogd`,
    :attr:`hedge`; None without experts), :attr:`n_seen`, the kinds of the features learned
    (:attr:`nominal`), the background learners of drift adaptation (:attr:`background`) and
    the edges' forgetting (:attr:`edge_decay`); and the parts it walks: the task (its label
    space), the rule, the pool (its learners, feature subsets and random generator) and the
    drift adaptation (:attr:`adapt`, or None). What it keeps between calls (the learners'
    rows for the last x, the walk made from them) is scratch: a copy starts without it.
    """

    def __init__(self, object task, object rule, object pool, COGD ogd=None,
                 CHedge hedge=None, object prediction=None, object adapt=None,
                 object draw_rng=None):
        self.task = task
        self.rule = rule
        self.pool = pool
        self.ogd = ogd
        self.hedge = hedge
        self.prediction = prediction if ogd is not None else None
        self.adapt = adapt
        self.draw_rng = draw_rng
        self.n = pool.n_models
        self.offered = _zeros("d", self.n)  # sum of p offered to each learner
        self.n_offered = _zeros("q", self.n)
        self.n_updates = _zeros("q", self.n)  # learn_one calls per learner
        self.n_zero = _zeros("q", self.n)  # offers with weight exactly 0
        # numerator and denominator of each learner's empirical edge
        self.edge_num = _zeros("d", self.n)
        self.edge_den = _zeros("d", self.n)
        self.n_seen = 0
        self.edge_decay = 1.0
        self.background = {}
        self.nominal = {}
        self._ready()

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept:
        free(self.kb)
        free(self.teach)
        free(self.grads)
        free(self.edges)
        free(self.en)
        free(self.ed)
        free(self.tmp)
        free(self.has_edge)
        free(self.nk)
        free(self.oi)
        free(self.oy)
        free(self.rk_rel)
        free(self.op)
        self.kb = self.teach = self.grads = self.edges = self.en = self.ed = NULL
        self.tmp = self.nk = self.op = NULL
        self.has_edge = self.rk_rel = NULL
        self.oi = self.oy = NULL
        self.kcap = self.nkcap = self.rk_relcap = 0

    def __reduce__(self):
        raise TypeError(
            "a booster's engine pickles with its booster (its state alone does not rebuild "
            "it): pickle or copy the booster"
        )

    def __setstate__(self, state):
        """An engine pickled whole, as 0.2.0 pickled it (format 1): its parts and
        counters, checked before the walk reads them."""
        fields = unstamped(state, "engine", 18)
        try:
            (self.task, self.rule, self.pool, self.ogd, self.hedge, self.prediction,
             self.adapt, self.draw_rng, self.offered, self.n_offered, self.n_zero,
             self.n_updates, self.edge_num, self.edge_den, self.n_seen, self.edge_decay,
             self.background, self.nominal) = fields
        except TypeError as error:
            raise PickleFormatError(f"a pickled engine's state: {error}") from None
        self.n = len(self.offered)
        _check_loaded(self)
        self.changed = True
        self._ready()

    cdef int _ready(self) except -1:
        """What the walk reads from the parts, and fresh scratch (after building or
        unpickling)."""
        pool = self.pool
        self.weight_scales = pool._weight_scales  # the pool's constants
        self.forest = pool.learners
        self.rng = pool._rng
        subsets = pool.feature_subsets
        self.subsets = subsets if subsets.fraction is None else None  # "auto" undecided
        self.learners = Learners(self.forest, self.n)
        self.crule = rule_for(self.rule, self.n)  # the rule's steps (river_boost.engine._rules)
        kind = self.task.kind
        self.weak_cost = kind == "multiclass" and self.task.weak_prediction == "cost"
        # the forest's columns: the task's label list itself (labels join it mid-stream)
        self.labels = [True, False] if kind == "binary" else (
            self.task.classes if kind == "multiclass" else self.task.labels)
        self.pcode = PREDICTIONS[self.prediction]
        self.importance = pool.weighting == "importance"
        self.min_weight = pool.min_weight
        self.needs_edges = self.rule.needs_edges
        self.share = 0.0 if self.adapt is None else self.adapt.share
        self.order = KeyOrder()
        self.cw = None
        self.rows_ok = self.walk_ok = False
        self.rows_clean = None
        self._alloc()
        return 0

    cdef int _alloc(self) except -1:
        cdef int n = self.n
        self._free()  # (again after a state is taken)
        self.teach = <double*>calloc(n + 1, sizeof(double))
        self.grads = <double*>calloc(n + 1, sizeof(double))
        self.edges = <double*>calloc(n + 1, sizeof(double))
        self.en = <double*>calloc(n + 1, sizeof(double))
        self.ed = <double*>calloc(n + 1, sizeof(double))
        self.tmp = <double*>calloc(n + 1, sizeof(double))
        self.has_edge = <char*>calloc(n + 1, sizeof(char))
        if (self.teach == NULL or self.grads == NULL or self.edges == NULL or self.en == NULL
                or self.ed == NULL or self.tmp == NULL
                or self.has_edge == NULL):
            raise MemoryError()
        self._nkbuf(2)
        return 0

    # -------------------------------------------------------------- the booster's methods

    def learn_one(self, x, y, w=1.0):
        """Booster.learn_one: the whole event validated, then one walk along the learners."""
        # (marked after: a rejected event changes nothing, and leaves the engine as built)
        self._learn_one(x, y, w)
        self.changed = True

    def predict_proba_one(self, x):
        out = self._predict_proba_one(x)
        self.changed = True
        return out

    def predict_one(self, x):
        out = self._predict_one(x)
        self.changed = True
        return out

    def score_one(self, x):
        out = self._score_one(x)
        self.changed = True
        return out

    def rank_proba_one(self, x, bint labels_only):
        out = self._rank_proba_one(x, labels_only)
        self.changed = True
        return out

    # -------------------------------------------------------------- state (pickling)

    def _export(self):
        """What the walk changed, for the booster's pickle (river_boost._pickles): the
        counters (typed arrays), the example count, the background learners, the kinds of the
        features, and the parts' states (the task's labels, the pool's generator, feature
        subsets and learners, the vote weights and Hedge, drift adaptation, the generator
        the experts are drawn with)."""
        return (
            self.offered, self.n_offered, self.n_zero, self.n_updates, self.edge_num,
            self.edge_den, self.n_seen, self.edge_decay, self.background, self.nominal,
            self.task._state(), self.pool._state(),
            None if self.ogd is None else self.ogd.__reduce__()[2],
            None if self.hedge is None else self.hedge.__reduce__()[2],
            self.adapt, rng_state(self.draw_rng),
        )

    def _take(self, tuple state):
        """:meth:`_export`'s state, into an engine just built by the same booster's
        constructor (checked: TypeError or ValueError for a state it cannot hold)."""
        (offered, n_offered, n_zero, n_updates, edge_num, edge_den, n_seen, edge_decay,
         background, nominal, task, pool, ogd, hedge, adapt, draw_rng) = state
        self.offered = _checked_array(offered, "d", self.n)
        self.n_offered = _checked_array(n_offered, "q", self.n)
        self.n_zero = _checked_array(n_zero, "q", self.n)
        self.n_updates = _checked_array(n_updates, "q", self.n)
        self.edge_num = _checked_array(edge_num, "d", self.n)
        self.edge_den = _checked_array(edge_den, "d", self.n)
        self.n_seen = n_seen
        self.edge_decay = edge_decay
        self.background.clear()
        self.background.update(<dict?>background)
        self.nominal.clear()
        self.nominal.update(<dict?>nominal)
        self.task._take_state(task)
        self.pool._take_state(pool)
        if (ogd is None) != (self.ogd is None) or (hedge is None) != (self.hedge is None):
            raise ValueError("vote weights or Hedge where the booster has none, or none "
                             "where it has")
        if ogd is not None:
            self.ogd.__setstate__(ogd)
            self.hedge.__setstate__(hedge)
        if (adapt is None) != (self.adapt is None) or (
                adapt is not None and type(adapt) is not type(self.adapt)):
            raise ValueError("drift adaptation that is not the booster's")
        self.adapt = adapt
        set_rng_state(self.draw_rng, draw_rng)
        self.changed = True
        self._ready()
        _check_loaded(self)

    # -------------------------------------------------------------- the caches

    cdef int _forget(self) except -1:
        """A learner changes: the rows (and the walk) remembered for the last x are stale."""
        self.rows_ok = False
        self.walk_ok = False
        return 0

    cdef int _walk_stale(self) except -1:
        """The walk is stale (the experts, or the labels that count, changed)."""
        self.walk_ok = False
        return 0

    cdef CWalk _rows(self, object clean):
        """The learners' probabilities for the cleaned x (remembered until a learner learns).

        One CWalk per engine is reused from example to example: its rows are valid while
        rows_ok for this clean x (a new x or a learner's update ends that).
        """
        global _forest_seconds
        cdef CWalk cw = self.cw
        cdef double t0 = 0.0
        cdef int n = self.n, k = len(self.labels)
        if cw is not None and cw.k == k and self.rows_ok and clean is self.rows_clean:
            return cw
        if cw is None or cw.k != k:
            cw = self.cw = CWalk(n, k, self.weak_cost)
            self._kbuf(k)
        # the n learners' rows: drift adaptation's background trees follow them in the forest
        # and are not asked
        if self.subsets is not None:  # feature_fraction="auto" still undecided
            self._decide(clean)
        if _timing:
            t0 = _now()
        self.learners.load(clean)
        self.learners.rows(self.labels, n, k, cw.rows)
        if _timing:
            _forest_seconds += _now() - t0
        self.rows_ok = True
        self.rows_clean = clean
        self.walk_ok = False  # the walk made from the previous rows
        return cw

    cdef CWalk _walk(self, object clean):
        """The label-free walk, shared by a prediction and the learning that follows on the
        same x (valid while walk_ok)."""
        cdef CWalk cw = self._rows(clean)
        if self.walk_ok:
            return cw
        self._task_walk(cw)
        self.walk_ok = True
        return cw

    cdef object _cleaned(self, object x):
        """x cleaned (river_boost.engine._clean)."""
        return _cleaned(self.order, x, self.nominal)

    # -------------------------------------------------------------- the task's part

    cdef int _task_walk(self, CWalk cw) except -1:
        """The task's label-free walk from cw's rows: votes, experts' scores (and costs)."""
        raise NotImplementedError

    cdef int _learn_one(self, object x, object y, object w) except -1:
        raise NotImplementedError

    cdef object _predict_proba_one(self, object x):
        raise NotImplementedError

    cdef object _predict_one(self, object x):
        raise NotImplementedError

    cdef dict _score_one(self, object x):
        raise TypeError("score_one is a ranking booster's")

    cdef dict _rank_proba_one(self, object x, bint labels_only):
        raise TypeError("rank_proba_one is a ranking booster's")

    cdef int _kbuf(self, int k) except -1:
        """Scratch space for k labels: four vectors (the rules keep their own)."""
        if k > self.kcap:
            free(self.kb)
            self.kb = <double*>calloc(4 * k + 2, sizeof(double))
            if self.kb == NULL:
                self.kcap = 0
                raise MemoryError()
            self.kcap = k
        return 0

    # -------------------------------------------------------------- drift adaptation

    cdef int _observe(self, list errors, int ensemble_error) except -1:
        """The learners' errors and the booster's own to their detectors (River objects,
        called by DriftAdaptation.observe in Python, the one copy of that loop); then the
        learners that warned get background learners and those that drifted are replaced
        (:meth:`act`)."""
        warned, drifted = self.adapt.observe(errors, self.n_seen, ensemble_error)
        self.act(warned, drifted)
        return 0

    def act(self, warned, drifted):
        """Start background learners for the learners that ``warned``, replace those that
        ``drifted`` (as :meth:`DriftAdaptation.observe` selected them); once the adaptation is
        armed, the edges and Hedge start to forget (``memory``: the edges fade by
        ``1 - 1/memory`` per term and Hedge shares ``1/memory``; the vote weights' rate floor
        holds from the first example)."""
        cdef int i
        adapt = self.adapt
        if adapt.armed and adapt.share == 0.0:
            self.edge_decay = 1.0 - 1.0 / adapt.memory
            adapt.share = 1.0 / adapt.memory
        for i in warned:
            if i not in drifted:
                _start_background(self, i)
        for i in drifted:
            promoted = _replace(self, i)
            if self.ogd is not None:
                self.ogd.restart(i)
                self.hedge.restart(i)
            adapt.replaced(i, self.n_seen, promoted)
        self.share = adapt.share
        if warned or drifted:
            self._forget()
            self.learners.forget_loaded()
        return None

    def replace(self, int i):
        """Learner ``i`` is replaced (``_replace``: by its background learner if it has one,
        returning True, else by a fresh learner), as drift adaptation does, without the
        detectors' bookkeeping or the experts' restart."""
        if not 0 <= i < self.n:
            raise IndexError(f"learner {i} of {self.n}")
        promoted = _replace(self, i)
        self._forget()
        self.learners.forget_loaded()
        return promoted

    cdef list _errors(self, CWalk cw, int target, const char* rel):
        """Each learner's 0/1 error (the tasks' drift errors), taken from the walk before
        anything learns (binary: its vote against the sign ``target``; multiclass: against the
        label index ``target``; ranking, ``rel`` given: whether its top label is irrelevant)."""
        cdef int i, n = self.n, k = cw.k
        cdef list out = []
        for i in range(n):
            if rel == NULL:
                out.append(0 if cw.votes[i] == target else 1)
            else:
                out.append(0 if rel[_first_max(cw.vec + i * k, k)] else 1)
        return out

    cdef int _ensemble_error(self, CWalk cw, int target, const char* rel) except -1:
        """The booster's own 0/1 error on the example, from the walk before anything learns
        (the task engines say how their prediction errs)."""
        raise NotImplementedError

    cdef int _experts_update(self, double divisor, double w) except -1:
        """The vote weights' OGD step on ``grads`` (its rate divided by ``divisor``), then
        Hedge on the experts' losses the task left in ``tmp`` (no update while all are 0)."""
        cdef int i
        self.ogd.step_all_c(self.grads, divisor, self.adapt is not None)
        for i in range(self.n):
            if self.tmp[i]:
                return self.hedge.update_c(self.tmp, w, self.share)
        return 0

    # -------------------------------------------------------------- the rule's steps

    cdef int _record_edges(self) except -1:
        """Add to each learner's edge sums ``en[i] / ed[i]`` where its step gave an edge
        (has_edge), the past sums fading by ``edge_decay`` (drift adaptation's ``memory``)."""
        cdef double* edge_num = self.edge_num.data.as_doubles
        cdef double* edge_den = self.edge_den.data.as_doubles
        cdef double decay = self.edge_decay
        cdef int i
        for i in range(self.n):
            if self.has_edge[i]:
                if decay != 1.0:
                    edge_num[i] = edge_num[i] * decay
                    edge_den[i] = edge_den[i] * decay
                edge_num[i] = edge_num[i] + self.en[i]
                edge_den[i] = edge_den[i] + self.ed[i]
        return 0

    cdef double* _running_edges(self) except NULL:
        """Each learner's running edge for a rule that reads them, else zeros."""
        cdef double* edge_num = self.edge_num.data.as_doubles
        cdef double* edge_den = self.edge_den.data.as_doubles
        cdef int i
        for i in range(self.n):
            if self.needs_edges and edge_den[i]:
                self.edges[i] = edge_num[i] / edge_den[i]
            else:
                self.edges[i] = 0.0
        return self.edges

    cdef int _label_steps(self, CWalk cw, int yi, const char* rel, double w) except -1:
        """The rule's steps along the learners (river_boost.engine._rules) for a multiclass
        label (index yi) or a ranking label set (rel), then the learners' edges."""
        cdef LabelExample ex
        cdef Steps out
        cdef Rule rule = self.crule
        ex.n = self.n
        ex.k = cw.k
        ex.yi = yi
        ex.w = w
        ex.weak_cost = self.weak_cost and rel == NULL
        ex.votes = cw.votes
        ex.vec = cw.vec
        ex.scores = cw.scores
        ex.costs = cw.costs
        ex.alphas = self.ogd.values.data.as_doubles if self.ogd is not None else NULL
        ex.relevant = rel
        ex.edges = self._running_edges()
        out.teach = self.teach
        out.costs = self.nk
        out.en = self.en
        out.ed = self.ed
        out.has_edge = self.has_edge
        out.grads = self.grads
        rule.label_steps(&ex, &out)
        self._record_edges()
        return 0

    # -------------------------------------------------------------- teaching the learners

    cdef int _decide(self, object clean) except -1:
        """FeatureSubsets.decide(clean), before the learners see x (predicting or learning):
        feature_fraction="auto" is fixed by the first non-empty clean x (its number of
        features), on either walk."""
        cdef object subsets = self.subsets
        if subsets.fraction is None:
            subsets.decide(clean)
        if subsets.fraction is not None:
            self.subsets = None
        return 0

    cdef int _teach(self, object clean, object y, double sample_weight) except -1:
        """Teach the offers (i, y, teach[i]) (_teach_offers)."""
        cdef int i
        for i in range(self.n):
            self.oi[i] = i
        self._teach_offers(clean, y, None, NULL, self.oi, self.teach, self.n, sample_weight)
        return 0

    cdef int _teach_offers(self, object clean, object y, list labels, int* oy, int* oi,
                           double* op, int m, double sample_weight) except -1:
        """Teach the offers (oi[j], labels[oy[j]] or y, op[j]), in order, each with the pool's
        weighting (river_boost.pool.WeakLearnerPool's docstring); then the features' kinds are learned.
        The forest converts x once (``load``, then ``learn_loaded``: the same as
        ``learn_one`` with x, per its contract)."""
        global _forest_seconds
        cdef double* offered = self.offered.data.as_doubles
        cdef long long* n_offered = self.n_offered.data.as_longlongs
        cdef long long* n_zero = self.n_zero.data.as_longlongs
        cdef long long* n_updates = self.n_updates.data.as_longlongs
        cdef double* scales = self.weight_scales.data.as_doubles
        cdef object rng = None, label, bgi
        cdef bint loaded = False
        cdef dict background = self.background if self.background else None
        cdef int i, j
        cdef double p, wi, mw = self.min_weight, t0 = 0.0, total
        cdef long long cnt
        cdef bint forgot = False
        if self.subsets is not None:  # feature_fraction="auto" still undecided
            self._decide(clean)
        for j in range(m):
            i = oi[j]
            p = op[j]
            total = offered[i] + p
            offered[i] = total
            cnt = n_offered[i] + 1
            n_offered[i] = cnt
            if p <= 0.0:
                n_zero[i] = n_zero[i] + 1
                continue
            if self.importance:
                wi = p * cnt / total
                if wi < mw:
                    if rng is None:
                        rng = self.rng.random
                    if _draw(rng) * mw >= wi:
                        continue
                    wi = mw
                wi *= sample_weight * scales[i]
            else:
                if rng is None:
                    rng = self.rng.random
                if _draw(rng) < p:
                    wi = sample_weight * scales[i]
                else:
                    continue
            if wi <= 0.0:  # underflowed: River's trees cannot take a weight of 0
                continue
            if not forgot:  # a learner changes: the remembered predictions are stale
                self._forget()
                forgot = True
            n_updates[i] = n_updates[i] + 1
            label = y if labels is None else labels[oy[j]]
            if _timing:
                t0 = _now()
            if not loaded:  # x converted once for all the trees that learn it
                self.learners.load(clean)
                loaded = True
            self.learners.learn(i, label, wi)
            if background is not None:  # its background learner learns it too
                bgi = background.get(i)
                if bgi is not None:
                    self.learners.learn(<int>bgi, label, wi)
            if _timing:
                _forest_seconds += _now() - t0
        _learned(self.order, self.nominal)
        return 0

    cdef int _nkbuf(self, int k) except -1:
        """Per-learner label vectors (n x k) and the offers' arrays (n x k)."""
        cdef int size = self.n * k + 1
        if size > self.nkcap:
            free(self.nk)
            free(self.oi)
            free(self.oy)
            free(self.op)
            self.nk = <double*>calloc(size, sizeof(double))
            self.oi = <int*>calloc(size, sizeof(int))
            self.oy = <int*>calloc(size, sizeof(int))
            self.op = <double*>calloc(size, sizeof(double))
            if self.nk == NULL or self.oi == NULL or self.oy == NULL or self.op == NULL:
                self.nkcap = 0
                raise MemoryError()
            self.nkcap = size
        return 0


# ----------------------------------------------------------------------------- replacing learners
# (drift adaptation: Engine.act, Engine.replace)

cdef int _start_background(Engine self, int i) except -1:
    """Learner ``i`` gets a fresh background learner (its parameters, its features),
    taught from now on whatever learner ``i`` is taught; one it had is dropped."""
    _drop_background(self, i)
    forest = self.forest
    bg = forest.add_like(i)
    if forest.feature_filter is not None:
        subsets = forest.feature_filter
        subsets.aliases = {**subsets.aliases, bg: i}
    self.background[i] = bg
    return 0

cdef int _drop_background(Engine self, int i) except -1:
    """Learner ``i``'s background learner, if any, is dropped (and freed)."""
    bg = self.background.pop(i, None)
    if bg is None:
        return 0
    forest = self.forest
    forest.remove(bg)  # the trees after it move down one index
    moved = {j: (b - 1 if b > bg else b) for j, b in self.background.items()}
    self.background.clear()
    self.background.update(moved)
    if forest.feature_filter is not None:
        forest.feature_filter.aliases = {b: j for j, b in moved.items()}
    return 0

cdef bint _replace(Engine self, int i) except -1:
    """Learner ``i`` is replaced: by its background learner if it has one (True), else by
    a fresh learner with its parameters and its features (the old one is freed). Its edge
    and the running mean of the weights offered to it (the importance weights' scale)
    start over; the lifetime counters (``n_updates``, ``n_zero``) go on."""
    promoted = i in self.background
    if promoted:
        self.forest.copy_tree(self.background[i], i)
        _drop_background(self, i)
    else:
        self.forest.reset(i)
    self.offered[i] = 0.0
    self.n_offered[i] = 0
    self.edge_num[i] = 0.0
    self.edge_den[i] = 0.0
    return promoted


cdef array.array _checked_array(object a, str typecode, int n):
    """A copy of the typed array ``a`` of a pickled state: ``n`` items of ``typecode``."""
    if type(a) is not _pyarray.array or a.typecode != typecode or len(a) != n:
        raise ValueError(f"an array that is not {n} items of {typecode!r}")
    return _pyarray.array(typecode, a)


def _new_engine(cls):
    """An engine for ``__setstate__`` to fill (unpickling, copying)."""
    return cls.__new__(cls)


_KINDS = {"BinaryEngine": "binary", "MulticlassEngine": "multiclass",
          "RankingEngine": "ranking"}


cdef int _check_loaded(Engine e) except -1:
    """An unpickled engine's parts agree with one another, before the walk reads them
    without bounds checks (a pickle changed after it was written is an error, not a crash)."""
    cdef int n = e.n
    ok = (
        e.task is not None and e.task.kind == _KINDS.get(type(e).__name__, e.task.kind)
        and e.task.kind in getattr(e.rule, "tasks", ())  # a rule (a Potential) of the task
        and all(len(a) == n and a.typecode == "q" for a in (e.n_offered, e.n_zero,
                                                             e.n_updates))
        and all(len(a) == n and a.typecode == "d" for a in (e.offered, e.edge_num, e.edge_den))
        and getattr(e.pool, "n_models", None) == n
        and len(e.pool._weight_scales) == n
        and getattr(e.pool.learners, "n_models", n) >= n
        and (e.ogd is None or e.ogd.n == n) and (e.hedge is None or e.hedge.n == n)
        and e.n_seen >= 0 and 0.0 <= e.edge_decay <= 1.0
        and all(type(i) is int and 0 <= i < n and type(j) is int
                and n <= j < getattr(e.pool.learners, "n_models", j + 1)
                for i, j in e.background.items())
    )
    if not ok:
        raise PickleFormatError(
            "a pickled engine whose parts disagree (learners, counters, task or rule): it was "
            "changed after it was written")
    return 0
