# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""Compiled booster walk (the C side of :mod:`river_boost.walk`).

One ``learn_one`` / ``predict_proba_one`` of a booster runs here (an :class:`Engine` per
booster: :class:`BinaryEngine`, :class:`MulticlassEngine`, :class:`RankingEngine`): input
checks, cleaning ``x`` (river_boost._clean), reading the learners' probabilities (the compiled forest's ``load`` and
``predict_loaded_matrix`` in C, River classifiers through their Python methods), the task's
votes and the experts' scores, the rule's steps along the learners (river_boost._rules: one
class per rule, cost matrices in river_boost._costs), the experts' update (river_boost._experts),
the pool's offers (importance weights, thinning, sampling) and the calls that teach the
learners.

Numbers
-------
The walk computes the math the Python reference documents (:mod:`river_boost.tasks`,
:mod:`river_boost.potentials`) in plain C loops (river_boost._vec), equal to it within
rounding; ``tests/test_compiled_walk.py`` compares every step with a plain-Python reference
(``tests/python_walk.py``) from the same state, and ``tests/test_walk_oracle.py`` whole streams with readable oracles of the
papers, both within 1e-9. Random numbers come from the same ``random.Random`` objects, in the
same order (their ``random()`` method is called), so a seed gives the same run on a build.

State stays in the booster's objects (the pool's typed arrays of per-learner counters and
edge sums, written in place, read through river_boost._state; the experts' vote weights and
Hedge; the booster's ``_n_seen`` counter): pickles do not depend on this module.
"""

from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.pycapsule cimport PyCapsule_GetPointer
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_C_CONTIGUOUS, PyBUF_FORMAT
from libc.stdlib cimport free, calloc, realloc
from libc.string cimport memcpy
from libc.math cimport fabs, isnan, exp, tanh, floor

from river_boost._forestapi cimport ForestAPI
from river_boost._state cimport Attrs, PoolArrays, pool_attrs, memo_attrs, _moved, _holds
from river_boost._state cimport A_VALUE, A_BACKGROUND, A_RNG
from river_boost._state cimport S_OFFERED, S_N_OFFERED, S_N_ZERO, S_N_UPDATES, S_SCALES
from river_boost._state cimport S_EDGE_NUM, S_EDGE_DEN, S_N_SEEN
from river_boost._clean cimport CleanX, KeyOrder, _cleaned, _learned
from river_boost import _clean, _state
from river_boost._experts cimport Hedge as CHedge, ProjectedOGD as COGD
from river_boost._experts cimport SimplexOGD as CSimplexOGD
from river_boost._rules cimport Rule, BinaryExample, LabelExample, Steps, PythonRule, MBBMRule
from river_boost._rules import rule_for
from river_boost._vec cimport vsum, vmax, vexp, vecmat, vsum_axis0, logistic_weight
from river_boost._costs cimport MBBMCosts, LogisticCosts
cimport cython

from time import perf_counter as _perf_counter


cdef inline double py_min(double a, double b) noexcept:
    return b if b < a else a


cdef inline double py_max(double a, double b) noexcept:
    return b if b > a else a


cdef inline int _first_max(const double* v, int k) noexcept:
    """int(np.argmax(v[:k])): the first maximum, a NaN first (the ranking errors' top label)."""
    cdef int j, top = 0
    for j in range(k):
        if isnan(v[j]):
            return j
        if v[j] > v[top]:
            top = j
    return top


cdef inline int _argbest(const double* v, int k, bint maximize, list rank) except -2:
    """The best value, ties to the best-ranked label (0 if k < 1).
    A function, not a method, so that the walks' calls (one per learner or expert and
    example) are inlined."""
    cdef int j, best_j = 0
    cdef double best, x
    if k < 1:
        return 0
    best = v[0]
    for j in range(1, k):
        x = v[j]
        if ((x > best if maximize else x < best)
                or (x == best and <long long>rank[j] < <long long>rank[best_j])):
            best = x
            best_j = j
    return best_j


cdef int _least_cost(const double* v, int k, double tol, list rank) except -2:
    """MulticlassTask.least_cost: the label of least expected cost, costs within ``tol`` of
    the least counting as ties (to the best-ranked label)."""
    cdef int j, best_j = 0
    cdef double least = v[0]
    for j in range(1, k):
        if v[j] < least:
            least = v[j]
    best_j = -1
    for j in range(k):
        if v[j] <= least + tol and (best_j < 0 or <long long>rank[j] < <long long>rank[best_j]):
            best_j = j
    return best_j if best_j >= 0 else _argbest(v, k, False, rank)


cdef inline double _tie_tol(const double* C, int kk) noexcept:
    """COST_TIE times the largest cost in magnitude: expected costs this close are ties."""
    cdef double top = 0.0
    cdef int j
    for j in range(kk):
        if fabs(C[j]) > top:
            top = fabs(C[j])
    return COST_TIE * top


# ----------------------------------------------------------------------------- plain loops
#
# The walk's vector arithmetic, written out: it equals the documented math within rounding
# (checked against the readable references under tests/), in no one else's order.

cdef double _hedge_lean(const double* w, const double* s, int n) noexcept:
    """``sum_i w[i] tanh(s[i] / 2)``: BinaryTask's Hedge prediction, centred on 1/2. Hedge
    drives most weights below 2^-60 of the largest within a few thousand examples: their
    terms (at most their weight each) cannot move the sum beyond rounding, and their tanh, the
    costliest part of a prediction, are skipped."""
    cdef double lean = 0.0, top = 0.0, cut
    cdef int i
    for i in range(n):
        if w[i] > top:
            top = w[i]
    cut = top * 8.673617379884035e-19  # 2^-60
    for i in range(n):
        if w[i] >= cut and w[i] != 0.0:
            lean += w[i] * tanh(0.5 * s[i])
    return lean


# ----------------------------------------------------------------------------- timing

# Seconds spent inside the forest's calls (load, predict_loaded_matrix, learn_loaded) while
# TIMING is on: the benchmark's measure of the booster's own overhead on the compiled path.
cdef bint _timing = False
cdef double _forest_seconds = 0.0


cdef inline double _now() noexcept:
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

cdef extern from "Python.h":
    object PyObject_GenericGetDict(object o, void* context)


# Set by river_boost.walk at import: the modules and classes the compiled walk stands in for.
cdef object _core = None
cdef object BinaryTask = None
cdef object MulticlassTask = None
cdef object RankingTask = None
cdef object WeakLearnerPool = None
cdef object FeatureCleaner = None
cdef object Experts = None
cdef object HoeffdingForest = None

cdef double MAX_SAMPLE_WEIGHT = 1e12
cdef double MIN_SAMPLE_WEIGHT = 1e-12
cdef long MIN_SUPPORT = 2  # tasks.MIN_SUPPORT
cdef double COST_TIE = 1e-9  # tasks.COST_TIE


cdef ForestAPI* _FAPI = NULL  # the forest's C entry points (river_boost._forest.forest_api)


def _setup(dict names, object forest_capsule):
    """Called once by :mod:`river_boost.walk` with the Python classes and constants."""
    global _FAPI, _core, BinaryTask, MulticlassTask, RankingTask
    global WeakLearnerPool, FeatureCleaner, Experts, HoeffdingForest
    global MAX_SAMPLE_WEIGHT, MIN_SAMPLE_WEIGHT, MIN_SUPPORT, COST_TIE
    _core = names["core"]
    BinaryTask = names["BinaryTask"]
    MulticlassTask = names["MulticlassTask"]
    RankingTask = names["RankingTask"]
    WeakLearnerPool = names["WeakLearnerPool"]
    FeatureCleaner = names["FeatureCleaner"]
    Experts = names["Experts"]
    HoeffdingForest = names["HoeffdingForest"]
    _clean.set_max_abs_feature(names["MAX_ABS_FEATURE"])
    MAX_SAMPLE_WEIGHT = names["MAX_SAMPLE_WEIGHT"]
    MIN_SAMPLE_WEIGHT = names["MIN_SAMPLE_WEIGHT"]
    MIN_SUPPORT = names["MIN_SUPPORT"]
    COST_TIE = names["COST_TIE"]
    _state.set_changes(names["CHANGES"])
    _FAPI = <ForestAPI*>PyCapsule_GetPointer(forest_capsule, b"river_boost._forest.ForestAPI")


cdef double _check_w(object w) except? -1.0:
    """core.check_sample_weight(w)."""
    cdef double d
    if type(w) is float:
        d = PyFloat_AS_DOUBLE(w)
        if 0.0 <= d <= MAX_SAMPLE_WEIGHT:
            return d if d >= MIN_SAMPLE_WEIGHT else 0.0
    return _core.check_sample_weight(w)


cdef inline double _draw(object random) except? -1.0:
    """random(): a draw of the pool's generator, its bound ``random`` method fetched once."""
    return random()


# ----------------------------------------------------------------------------- rules

DEF P_VOTE_SHARE = 0  # no experts: smoothed share of True votes
DEF P_HEDGE = 1
DEF P_VOTE = 2
DEF P_RANDOM = 3
DEF P_FINAL = 4  # vote weights on the simplex: the full weighted vote's share of True


# ----------------------------------------------------------------------------- the walk memo

cdef int _supported(list support, int k, char* ok) except -2:
    """tasks._supported(support): the labels with at least MIN_SUPPORT learned examples in
    ``ok`` and their number, or -1 (None: every label counts, because all have the support or
    fewer than two do)."""
    cdef int j, n_ok = 0
    for j in range(k):
        ok[j] = <long long>support[j] >= MIN_SUPPORT
        n_ok += ok[j]
    return -1 if n_ok == k or n_ok < 2 else n_ok


@cython.final
cdef class Learners:
    """The engine's calls into its weak learners: the compiled forest through its C entry
    points (``_FAPI``), or anything else with the forest's interface (River classifiers,
    :class:`~river_boost.core.ModelLearners`; a forest whose instance shadows the methods, as
    a profiler's or a recorder's wrappers would) through its Python methods. It remembers
    which clean x the forest has loaded, so that a prediction's conversion serves the
    learning that follows."""
    cdef object forest
    cdef bint direct
    cdef long long loaded_version
    cdef object loaded_clean
    cdef list row_ids

    def __cinit__(self, object forest, int n):
        cdef dict fd = getattr(forest, "__dict__", {})
        self.forest = forest
        self.direct = type(forest) is HoeffdingForest and not any(
            m in fd for m in ("load", "predict_loaded_matrix", "learn_loaded"))
        self.row_ids = list(range(n))
        self.loaded_version = -1

    def __reduce__(self):
        return (object, ())

    cdef int load(self, object clean) except -1:
        """forest.load(clean), unless the forest still holds this very clean x, converted
        last (no conversion since, and still loaded)."""
        if (self.loaded_clean is clean and self.loaded_version >= 0 and self.direct
                and _FAPI.loaded_version(self.forest) == self.loaded_version):
            return 0
        self.loaded_clean = None
        if type(clean) is CleanX:
            if self.direct:
                _FAPI.load_items(self.forest, (<CleanX>clean).k, (<CleanX>clean).v,
                                 (<CleanX>clean).n)
            else:
                self.forest.load((<CleanX>clean).as_dict())
        elif self.direct:
            _FAPI.load(self.forest, clean)
        else:
            self.forest.load(clean)
        if self.direct:
            self.loaded_version = _FAPI.loaded_version(self.forest)
            self.loaded_clean = clean
        return 0

    cdef int rows(self, object labels, int n, int k, double* out) except -1:
        """The first n learners' probabilities of the loaded x at ``labels`` (n x k)."""
        cdef Py_buffer view
        if self.direct:
            _FAPI.loaded_matrix(self.forest, labels, n, out)
            return 0
        M = self.forest.predict_loaded_matrix(labels, self.row_ids)
        # an (n, k) C-contiguous float64 array: its buffer, without a typed memoryview
        PyObject_GetBuffer(M, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
        try:
            if view.len != n * k * <Py_ssize_t>sizeof(double) or view.format != b"d":
                raise ValueError("predict_loaded_matrix returned an unexpected array")
            memcpy(out, view.buf, n * k * sizeof(double))
        finally:
            PyBuffer_Release(&view)
        return 0

    cdef inline int learn(self, int i, object label, double w) except -1:
        """forest.learn_loaded(i, label, w)."""
        if self.direct:
            return _FAPI.learn_loaded(self.forest, i, label, w)
        self.forest.learn_loaded(i, label, w)
        return 0


cdef class CWalk:
    """The learners' predictions for one ``x`` and the label-free walk made from them.

    One per engine, current while the engine says so (``Engine._rows_current``, ``_walk_current``).
    Pickles as a plain object (a cache: nothing to keep, and no dependency on this module in a
    pickle).
    """
    cdef Engine engine
    cdef int n, k
    cdef double* rows    # n x k: the forest's probabilities for the task's labels
    cdef double* p       # binary: P(True) per learner
    cdef double* vec     # multiclass / ranking: each learner's distribution (n x k)
    cdef int* votes      # binary: +1/-1; multiclass: a label index
    cdef double* scores  # binary: the experts' margins F_i; otherwise score vectors (n x k)
    cdef double* costs   # multiclass, weak_prediction="cost": each learner's C (n x k x k)
    cdef char* ok        # multiclass / ranking: the labels with enough support (_supported)

    def __cinit__(self, Engine engine, int n, int k, bint with_costs):
        self.engine = engine
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

    def __reduce__(self):
        return (object, ())


# ----------------------------------------------------------------------------- the engines

cdef class Engine:
    """The compiled walk of one booster: its configuration, read once, and scratch space.

    An engine is valid while the booster keeps the same task, rule, pool, learners and experts
    (checked on every call); it pickles as a plain object and is rebuilt on demand.
    """
    cdef object booster, task, rule, pool, forest, memo, experts
    cdef COGD ogd  # the experts' parts (river_boost._experts; None without experts)
    cdef CHedge hedge
    cdef object adapt  # the booster's DriftAdaptation, or None (drift adaptation off)
    cdef Learners learners  # the calls into the weak learners (the forest, in C)
    cdef double share  # fixed-share Hedge's share (adapt.share; 0 without adaptation)
    cdef dict bdict, edict  # the booster's and the experts' __dict__ (the pool's: pa.d)
    cdef Attrs pa  # the pool's attributes
    cdef KeyOrder order
    cdef CWalk cw
    # cw's rows are current while rows_ok, for the clean x rows_clean, and its walk while
    # walk_ok, both while core.CHANGES is where they were made (rows_seen, walk_seen): any
    # change of the booster's parts counts there
    cdef bint rows_ok, walk_ok
    cdef object rows_clean
    cdef long long rows_seen, walk_seen
    cdef int n, prediction
    cdef Rule crule  # binary: the rule's compiled steps (river_boost._rules)
    cdef bint weak_cost
    cdef double* kb  # scratch for label vectors and matrices (_kbuf)
    cdef int kcap
    cdef bint importance, needs_edges
    cdef double min_weight
    cdef object labels  # the forest's columns: [True, False] for binary
    # binary rule constants
    # scratch
    cdef double* teach
    cdef double* grads
    cdef double* edges
    cdef double* en
    cdef double* ed
    cdef double* tmp
    cdef double* partials
    cdef char* has_edge
    cdef double* nk  # ranking: each learner's cost vector (n x k)
    cdef int* oi     # the offers: learner, weight
    cdef double* op
    cdef int* oy     # (ranking) each offer's label, by index into the task's labels
    cdef char* rk_rel  # (ranking) y's relevant labels, as _rk_commit_known read them
    cdef int rk_relcap
    cdef int nkcap
    # the pool's FeatureSubsets while feature_fraction="auto" is undecided (_decide), or None
    cdef object subsets
    cdef PoolArrays st  # the pool's per-learner arrays and the booster's counter, held
    # core.CHANGES when valid_for last checked in full (-1: check in full)
    cdef long long valid_seen

    def __dealloc__(self):
        free(self.kb)
        free(self.teach)
        free(self.grads)
        free(self.edges)
        free(self.en)
        free(self.ed)
        free(self.tmp)
        free(self.partials)
        free(self.has_edge)
        free(self.nk)
        free(self.oi)
        free(self.oy)
        free(self.rk_rel)
        free(self.op)

    def __reduce__(self):
        return (object, ())

    cdef int _alloc(self) except -1:
        cdef int n = self.n
        self.teach = <double*>calloc(n + 1, sizeof(double))
        self.grads = <double*>calloc(n + 1, sizeof(double))
        self.edges = <double*>calloc(n + 1, sizeof(double))
        self.en = <double*>calloc(n + 1, sizeof(double))
        self.ed = <double*>calloc(n + 1, sizeof(double))
        self.tmp = <double*>calloc(n + 1, sizeof(double))
        self.partials = <double*>calloc(n + 2, sizeof(double))
        self.has_edge = <char*>calloc(n + 1, sizeof(char))
        if self.has_edge == NULL:
            raise MemoryError()
        self._nkbuf(2)
        if (self.teach == NULL or self.grads == NULL or self.edges == NULL or self.en == NULL
                or self.ed == NULL or self.tmp == NULL or self.partials == NULL):
            raise MemoryError()
        return 0

    cdef bint valid_for(self, dict d):
        """Whether the booster (its ``__dict__``) still has the parts this engine was made for.

        Checked in full (nine lookups) only when an attribute of the booster's parts was
        assigned since the last full check (core.CHANGES moved; the walk's own writes do not
        count: _n_seen is counted in place)."""
        cdef dict pd = self.pa.d
        cdef bint ok
        if self.valid_seen == _moved():  # no part assigned since the last full check
            return True
        ok = (
            _holds(d, "_rule", self.rule)
            and _holds(d, "_task", self.task)
            and _holds(d, "_pool", self.pool)
            and _holds(d, "_experts", self.experts)
            and _holds(d, "_drift", self.adapt)
            and _holds(pd, "learners", self.forest)
            and _holds(pd, "_memo", self.memo)
            and (self.experts is None or (_holds(self.edict, "ogd", self.ogd)
                                          and _holds(self.edict, "hedge", self.hedge)))
        )
        self.valid_seen = _moved() if ok else -1
        return ok

    cdef inline bint _rows_current(self, CWalk cw, object clean):
        """Whether cw holds the learners' rows for the clean x: no learner learned since,
        here or in Python (which counts in core.CHANGES, as any change of the booster's parts
        does)."""
        return self.rows_ok and clean is self.rows_clean and self.rows_seen == _moved()

    cdef inline int _rows_made(self, CWalk cw, object clean) except -1:
        self.rows_ok = True
        self.rows_clean = clean
        self.rows_seen = _moved()
        return 0

    cdef int _forget(self) except -1:
        """FeatureCleaner.forget(memo): a learner changes, the remembered rows are stale (the
        memo's too, if it holds any for this x)."""
        self.rows_ok = False
        if self.order.ma.get(A_VALUE) is not None:
            self.order.ma.set(A_VALUE, None)
        return 0

    cdef inline bint _walk_current(self):
        """Whether cw's walk (its scores, votes...) is current: made from its rows, and
        nothing of the experts or the booster's parts changed since."""
        return self.walk_ok and self.walk_seen == _moved()

    cdef inline int _walk_made(self) except -1:
        self.walk_ok = True
        self.walk_seen = _moved()
        return 0

    cdef inline int _walk_stale(self) except -1:
        """The walk is stale."""
        self.walk_ok = False
        return 0

    cdef CWalk _rows(self, object clean):
        """The learners' probabilities for the cleaned x (remembered until a learner learns).

        One CWalk per engine is reused from example to example: its rows are valid while
        _rows_current (a new x or a learner's update ends that).
        """
        global _forest_seconds
        cdef CWalk cw = self.cw
        cdef double t0 = 0.0
        cdef int n = self.n, k = len(self.labels)
        if cw is not None and cw.k == k and self._rows_current(cw, clean):
            return cw
        if cw is None or cw.k != k:
            cw = self.cw = CWalk(self, n, k, self.weak_cost)
            self._kbuf(k)
        # the n learners' rows: drift adaptation's background trees (pool._background) follow
        # them in the forest and are not asked
        if self.subsets is not None:  # feature_fraction="auto" still undecided
            self._decide(clean)
        if _timing:
            t0 = _now()
        self.learners.load(clean)
        self.learners.rows(self.labels, n, k, cw.rows)
        if _timing:
            _forest_seconds += _now() - t0
        self._rows_made(cw, clean)
        self._walk_stale()  # the walk made from the previous rows
        return cw

    cdef CWalk _walk(self, object clean):
        """The label-free walk, shared by a prediction and the learning that
        follows on the same x (valid while _walk_current)."""
        cdef CWalk cw = self._rows(clean)
        if self._walk_current():
            return cw
        self._task_walk(cw)
        self._walk_made()
        return cw

    # -------------------------------------------------------------- the task's part

    cdef int _task_walk(self, CWalk cw) except -1:
        """The task's label-free walk from cw's rows: votes, experts' scores (and costs)."""
        raise NotImplementedError

    # Booster's methods, as the entries at the end of this module call them

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

    cdef int _observe(self, list errors, int ensemble_error) except -1:
        """The learners' errors and the booster's own to their detectors (River objects,
        called by DriftAdaptation.observe in Python, the one copy of that loop); then
        Booster._act starts background learners and replaces the learners that drifted."""
        warned, drifted = self.adapt.observe(errors, self.booster.n_seen, ensemble_error)
        self.booster._act(self.adapt, warned, drifted)
        self.share = self.adapt.share  # (0 until the adaptation is armed)
        return 0

    cdef list _errors(self, CWalk cw, int target, const char* rel):
        """Each learner's 0/1 error (the tasks' drift errors), taken from the walk before anything
        learns (binary: its vote against the sign ``target``; multiclass: against the label
        index ``target``; ranking, ``rel`` given: whether its top label is irrelevant)."""
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

    cdef int _record_edges(self) except -1:
        """pool.record_edge for every learner whose step gave an edge (has_edge), with the
        pool's forgetting (``_edge_decay``: drift adaptation's ``memory``)."""
        cdef object pool = self.pool
        cdef double* edge_num = self.st.sd(S_EDGE_NUM)
        cdef double* edge_den = self.st.sd(S_EDGE_DEN)
        cdef double decay = self.st.decay
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
        """Each learner's running edge (pool.edges) for a rule that reads them, else zeros."""
        cdef double* edge_num = self.st.sd(S_EDGE_NUM)
        cdef double* edge_den = self.st.sd(S_EDGE_DEN)
        cdef int i
        for i in range(self.n):
            if self.needs_edges and edge_den[i]:
                self.edges[i] = edge_num[i] / edge_den[i]
            else:
                self.edges[i] = 0.0
        return self.edges

    cdef int _label_steps(self, CWalk cw, int yi, const char* rel, double w,
                          object y) except -1:
        """The rule's steps along the learners (river_boost._rules) for a multiclass label
        (index yi) or a ranking label set (rel), then the learners' edges."""
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
        ex.alphas = self.ogd.values.data.as_doubles if self.experts is not None else NULL
        ex.relevant = rel
        ex.edges = self._running_edges()
        out.teach = self.teach
        out.costs = self.nk
        out.en = self.en
        out.ed = self.ed
        out.has_edge = self.has_edge
        out.grads = self.grads
        if type(rule) is PythonRule:
            (<PythonRule>rule).label = y
        rule.label_steps(&ex, &out)
        self._record_edges()
        return 0

    cdef int _decide(self, object clean) except -1:
        """FeatureSubsets.decide(clean), before the learners see x (predicting or learning):
        feature_fraction="auto" is fixed by
        the first non-empty clean x (its number of features), on either walk; until then the
        ranking boosters run the compiled walk all the same."""
        cdef object subsets = self.subsets
        if subsets.fraction is None:
            subsets.decide((<CleanX>clean).as_dict() if type(clean) is CleanX else clean)
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
        weighting (core.WeakLearnerPool's docstring); then FeatureCleaner.learned. The forest
        converts x once (``load``, then ``learn_loaded``: the same as ``learn_one`` with x,
        per its contract)."""
        global _forest_seconds
        cdef object pool = self.pool
        cdef double* offered = self.st.sd(S_OFFERED)
        cdef long long* n_offered = self.st.sq(S_N_OFFERED)
        cdef long long* n_zero = self.st.sq(S_N_ZERO)
        cdef long long* n_updates = self.st.sq(S_N_UPDATES)
        cdef double* scales = self.st.sd(S_SCALES)
        cdef object rng = None, label, bgi
        cdef bint loaded = False
        cdef dict background = self.pa.get(A_BACKGROUND)  # drift adaptation's background learners
        cdef int i, j
        cdef double p, wi, mw = self.min_weight, t0 = 0.0, total
        cdef long long cnt
        cdef bint forgot = False
        if self.subsets is not None:  # feature_fraction="auto" still undecided
            self._decide(clean)
        if not background:
            background = None
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
                        rng = self.pa.get(A_RNG).random
                    if _draw(rng) * mw >= wi:
                        continue
                    wi = mw
                wi *= sample_weight * scales[i]
            else:
                if rng is None:
                    rng = self.pa.get(A_RNG).random
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
        _learned(self.memo, self.order)
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
        if self.experts is not None:
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
        cdef CWalk cw = self._walk(_cleaned(self.memo, x, self.order))
        cdef double p = self._binary_proba(cw)
        return {False: 1.0 - p, True: p}

    cdef object _predict_one(self, object x):
        cdef CWalk cw = self._walk(_cleaned(self.memo, x, self.order))
        cdef int idx
        if self.prediction == P_RANDOM:
            idx = self.experts.draw(self.booster._rng)
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
        cdef object clean = _cleaned(self.memo, x, self.order)
        if wd == 0.0:
            return 0
        self.st.sq(S_N_SEEN)[0] += 1  # booster._n_seen
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
        if self.prediction == P_VOTE_SHARE:
            count = 0
            for i in range(n):
                if cw.votes[i] == 1:
                    count += 1
            return (count + 0.5) / (n + 1.0)
        weights = self.hedge.weights.data.as_doubles
        if self.prediction == P_HEDGE:
            lean = _hedge_lean(weights, cw.scores, n)
            return py_min(1.0, py_max(0.0, 0.5 + 0.5 * lean))
        if self.prediction == P_FINAL:
            return py_min(1.0, py_max(0.0, (1.0 + cw.scores[n - 1]) / 2.0))
        lean = 0.0
        for i in range(n):
            if cw.scores[i] >= 0:
                lean += weights[i]
        return py_min(1.0, lean)

    cdef int _binary_learn(self, CWalk cw, object clean, object y, double w) except -1:
        """The rule's steps along the learners (river_boost._rules), the learners' edges, the
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
        ex.scores = cw.scores if self.experts is not None else NULL
        ex.alphas = self.ogd.values.data.as_doubles if self.experts is not None else NULL
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
        if self.experts is not None:
            self._binary_experts_update(cw, sign, w)
        self._teach(clean, y, w)
        return 0

    cdef int _binary_experts_update(self, CWalk cw, int sign, double w) except -1:
        """Binary: the vote weights' OGD step, Hedge on the experts' 0-1 losses."""
        cdef int i, n = self.n
        cdef bint any_loss = False
        self.ogd.step_all_c(self.grads, 1.0, self.adapt is not None)
        for i in range(n):  # expert i predicts sign(F_i), sign(0) = +1
            if sign > 0:
                self.tmp[i] = 1.0 if cw.scores[i] < 0 else 0.0
            else:
                self.tmp[i] = 1.0 if cw.scores[i] >= 0 else 0.0
            if self.tmp[i]:
                any_loss = True
        if any_loss:
            self.hedge.update_c(self.tmp, w, self.share)
        return 0


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
        cdef double* alphas = self.ogd.values.data.as_doubles if self.experts is not None else NULL
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

    def logistic_cost_matrix(self, s):
        """A test hook: LogisticCosts's matrix for the scores s (river_boost._costs)."""
        return LogisticCosts().logistic_cost_matrix(s)

    def logistic_costs_along(self, scores):
        """A test hook: LogisticCosts's matrices along the score vectors."""
        return LogisticCosts().logistic_costs_along(scores)

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
        clean = _cleaned(self.memo, x, self.order)
        if wd == 0.0:
            return 0
        # The walk a prediction of this x made serves below only while the task's part of it
        # (MulticlassTask.walk_key: the classes, which have enough support) is unchanged
        if idx is None:
            yi = task.commit(y, wd)["yi"]
            self._walk_stale()  # a new class
        else:  # MulticlassTask.commit of a known class
            yi = idx
            support = task.support
            support[yi] = support[yi] + 1
            if <long long>support[yi] == MIN_SUPPORT:  # the class now counts in the learners' votes
                self._walk_stale()
        k = len(<list>task.classes)
        self.st.sq(S_N_SEEN)[0] += 1  # booster._n_seen
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
        self._label_steps(cw, yi, NULL, wd, y)
        if self.experts is not None:
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
        cdef bint any_loss = False
        cdef list rank = self.task._rank
        self.ogd.step_all_c(self.grads, k - 1, self.adapt is not None)
        for i in range(self.n):
            self.tmp[i] = 0.0 if _argbest(cw.scores + i * k, k, True, rank) == yi else 1.0
            if self.tmp[i]:
                any_loss = True
        if any_loss:
            self.hedge.update_c(self.tmp, w, self.share)
        return 0

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
        if self.prediction == P_VOTE_SHARE:
            for j in range(k):
                out[j] = (cw.scores[(n - 1) * k + j] + 1.0 / k) / (n + 1.0)
            return 0
        for j in range(k):
            out[j] = 0.0
        weights = self.hedge.weights.data.as_doubles
        if self.prediction == P_HEDGE:
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
        clean = _cleaned(self.memo, x, self.order)
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
        clean = _cleaned(self.memo, x, self.order)
        k = len(classes)
        if k < 2:
            return classes[0] if classes else None
        cw = self._walk(clean)
        if self.prediction == P_RANDOM:
            idx = self.experts.draw(self.booster._rng)
            return classes[_argbest(cw.scores + idx * k, k, True, rank)]
        out = self.kb + 2 * k
        self._mc_proba_vector(cw, out)
        return classes[_argbest(out, k, True, rank)]


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
        if self.experts is not None:
            alphas = self.ogd.values.data.as_doubles
            for i in range(n):
                for j in range(k):
                    p = alphas[i] * cw.vec[i * k + j]
                    cw.scores[i * k + j] = p if i == 0 else cw.scores[(i - 1) * k + j] + p
        return 0

    cdef int _rk_experts_update(self, CWalk cw, char* rel, double w) except -1:
        """The experts' update for the ranking task: OGD, Hedge on the experts' rank losses."""
        cdef int i, k = cw.k
        cdef bint any_loss = False
        self.ogd.step_all_c(self.grads, 1.0, self.adapt is not None)
        for i in range(self.n):
            self.tmp[i] = self._rank_loss(cw.scores + i * k, rel, k)
            if self.tmp[i]:
                any_loss = True
        if any_loss:
            self.hedge.update_c(self.tmp, w, self.share)
        return 0

    cdef double _rank_loss(self, double* s, char* rel, int k) noexcept:
        """rank_loss(s, relevant) for a label set that is neither empty nor full."""
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
        return (above + 0.5 * ties) / (nr * ni)

    cdef int _rk_scores(self, object x) except -1:
        """The label scores (tasks.RankingTask) into self.kb[:k]; returns k (0: no label known
        yet)."""
        cdef int k = len(self.task.labels)
        cdef CWalk cw
        clean = _cleaned(self.memo, x, self.order)
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
        if self.experts is None:
            vsum_axis0(cw.vec, n, k, out)
        elif draw and self.prediction == P_RANDOM:
            idx = self.experts.draw(self.booster._rng)
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
        cdef bint fast = type(y) is dict
        if fast:
            for key, v in (<dict>y).items():
                if type(v) is not bool or key not in index:
                    fast = False
                    break
        if not fast:
            y = task.check_label(y)
        clean = _cleaned(self.memo, x, self.order)
        if wd == 0.0:
            return 0
        # The walk a prediction of this x made serves below only while the task's part of it
        # (RankingTask.walk_key: the labels, which have enough support) is unchanged
        if fast:  # RankingTask.commit for a label set of known labels, without NumPy
            if not self._rk_commit_known(<dict>y, wd):
                return 0
        else:  # (labels may join: y's labels are not all known, or its values not all bool)
            key = task.walk_key()
            committed = task.commit(y, wd)
            if task.walk_key() != key:
                self._walk_stale()
            if committed is None:  # an empty or full label set: nothing to rank
                return 0
        self.st.sq(S_N_SEEN)[0] += 1  # booster._n_seen
        labels = task.labels
        k = len(labels)
        cw = self._walk(clean)
        self._nkbuf(k)
        rel = <char*>(self.kb + 3 * k)  # (the rules' steps keep their own scratch)
        if fast:  # as _rk_commit_known read them (y is not read again)
            memcpy(rel, self.rk_rel, k)
        else:
            for j in range(k):
                rel[j] = 1 if (<dict>y).get(labels[j], False) else 0
        errors = None
        if self.adapt is not None:
            errors = self._errors(cw, 0, rel)
            ensemble_error = self._ensemble_error(cw, 0, rel)
        self._label_steps(cw, -1, rel, wd, None)  # (each learner's cost bound in teach)
        if self.experts is not None:
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

    cdef bint _rk_commit_known(self, dict y, double w) except -1:
        """RankingTask.commit(y, w) when every key of y is a known label and every value a
        bool (no label joins): the same running label count, skip count and supports, and
        whether the row teaches (False for an empty or full label set)."""
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
        # the same float operations as commit's `w * relevant.sum()` and `+= w`
        task._count_sum = task._count_sum + w * <double>n_rel
        task._count_weight = task._count_weight + w
        if n_rel == 0 or n_rel == k:
            task.n_skipped += 1
            return False
        for j in range(k):
            if rel[j]:
                support[j] = support[j] + 1
                if <long long>support[j] == MIN_SUPPORT:  # the label now counts (walk_key changed)
                    self._walk_stale()
        return True


# ----------------------------------------------------------------------------- building engines

cdef int _unsupported(str what) except -1:
    raise TypeError(
        f"this booster's {what} is not one the boosters' walk runs (river_boost.walk): a "
        "booster is built by a preset, or by Booster._build with a task and a Potential"
    )


cdef Engine _build(object b):
    """The walk of booster ``b``, built from its parts (``TypeError`` for parts it cannot
    run: they are the package's own, whatever the rule and the weak learners)."""
    cdef dict d = b.__dict__
    cdef Engine engine
    task, rule, pool, experts = d.get("_task"), d.get("_rule"), d.get("_pool"), d.get("_experts")
    if type(pool) is not WeakLearnerPool or type(pool._memo) is not FeatureCleaner:
        _unsupported("weak-learner pool")
    subsets = getattr(pool, "_subsets", None)
    undecided = getattr(subsets, "fraction", 0.0) is None  # feature_fraction="auto"
    if undecided and type(task) is not RankingTask:
        _unsupported("undecided feature_fraction")  # only ranking pools decide it from x
    if pool.weighting not in ("importance", "sampling"):
        _unsupported("weighting")
    if experts is not None and (
        type(experts) is not Experts
        or type(experts.ogd) not in (COGD, CSimplexOGD)
        or type(experts.hedge) is not CHedge
    ):
        _unsupported("experts")
    if type(task) is BinaryTask:
        engine = BinaryEngine()
        engine.labels = [True, False]
    elif type(task) is MulticlassTask:
        if task.weak_prediction not in ("cost", "argmax"):
            _unsupported("weak_prediction")
        engine = MulticlassEngine()
        engine.weak_cost = task.weak_prediction == "cost"
        engine.labels = task.classes
    elif type(task) is RankingTask:
        engine = RankingEngine()
        engine.labels = task.labels
    else:
        _unsupported("task")
    engine.crule = rule_for(rule, b.n_models)  # the rule's steps (river_boost._rules)
    if (experts is not None) != bool(rule.surrogate):  # the rule's kind and the booster's
        _unsupported("experts (for its rule)")
    engine.booster = b
    engine.task = task
    engine.rule = rule
    engine.pool = pool
    engine.forest = pool.learners
    engine.memo = pool._memo
    engine.experts = experts
    engine.bdict = d
    engine.order = KeyOrder()
    engine.order.ma = memo_attrs(engine.memo)
    engine.pa = pool_attrs(pool)
    engine.edict = experts.__dict__ if experts is not None else None
    engine.n = b.n_models
    engine.valid_seen = -1
    engine.st = PoolArrays(b, d, engine.pa, b.n_models)
    engine.subsets = subsets if undecided else None
    # the forest's trees: the n learners, then drift adaptation's background trees, if any
    if (engine.n != pool.n_models or engine.n < 1
            or engine.forest.n_models != engine.n + len(pool._background)):
        _unsupported("number of weak learners")
    engine.adapt = d.get("_drift")
    # the compiled forest is called in C; River's models (core.ModelLearners) and a forest
    # whose methods an instance shadows, through their Python methods
    engine.learners = Learners(engine.forest, engine.n)
    engine.share = 0.0 if engine.adapt is None else engine.adapt.share
    engine.importance = pool.weighting == "importance"
    engine.min_weight = pool.min_weight
    engine.needs_edges = rule.needs_edges
    if experts is None:
        engine.prediction = P_VOTE_SHARE
    else:
        engine.ogd = experts.ogd
        engine.hedge = experts.hedge
        engine.prediction = {
            "hedge": P_HEDGE, "vote": P_VOTE, "random": P_RANDOM, "final": P_FINAL
        }[experts.prediction]
    engine._alloc()
    return engine


def engine_for(b):
    """The compiled walk for booster ``b`` (a :class:`Engine`).

    The engine is kept in the booster's ``__dict__`` (it pickles as a plain object, so a pickle
    neither carries nor needs it) and rebuilt whenever the booster's parts change.
    """
    return _engine_of(b)


cdef Engine _engine_of(object b):
    """engine_for(b)."""
    # b.__dict__ without the attribute lookup (the generic __dict__ getter of a class without
    # __slots__: river_boost's boosters and their subclasses)
    cdef dict d = <dict>PyObject_GenericGetDict(b, NULL)
    cdef object p = d.get("_compiled_walk")
    if not (isinstance(p, Engine) and (<Engine>p).bdict is d and (<Engine>p).valid_for(d)):
        p = _build(b)
        d["_compiled_walk"] = p
    (<Engine>p).st.sync()
    return <Engine>p


# The boosters' methods call these (river_boost.booster): one call into C per method.

def learn_one(object b, object x, object y, object w):
    _engine_of(b)._learn_one(x, y, w)


def predict_proba_one(object b, object x):
    return _engine_of(b)._predict_proba_one(x)


def predict_one(object b, object x):
    return _engine_of(b)._predict_one(x)


def score_one(object b, object x):
    return _engine_of(b)._score_one(x)


def rank_proba_one(object b, object x, bint labels_only):
    return _engine_of(b)._rank_proba_one(x, labels_only)
