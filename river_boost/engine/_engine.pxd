# A booster's engine (river_boost.engine._engine): the walk every task shares and the state
# it changes. The task engines (_binary, _multiclass, _ranking) subclass Engine.

from cpython cimport array

from river_boost.engine._clean cimport KeyOrder
from river_boost.engine._experts cimport Hedge as CHedge, ProjectedOGD as COGD
from river_boost.engine._learners cimport Learners
from river_boost.engine._rules cimport Rule


# How the experts' scores become a prediction (Engine.pcode)
cdef enum:
    P_VOTE_SHARE  # no experts: the smoothed share of the votes
    P_HEDGE  # Hedge's mixture of the experts
    P_VOTE  # Hedge-weighted vote
    P_RANDOM  # an expert drawn with Hedge's weights
    P_FINAL  # vote weights on the simplex: the full weighted vote


cdef double _check_w(object w) except? -1.0


cdef class CWalk:
    cdef int n, k
    cdef double* rows    # n x k: the forest's probabilities for the task's labels
    cdef double* p       # binary: P(True) per learner
    cdef double* vec     # multiclass / ranking: each learner's distribution (n x k)
    cdef int* votes      # binary: +1/-1; multiclass: a label index
    cdef double* scores  # binary: the experts' margins F_i; otherwise score vectors (n x k)
    cdef double* costs   # multiclass, weak_prediction="cost": each learner's C (n x k x k)
    cdef char* ok        # multiclass / ranking: the labels with enough support (_supported)


cdef class Engine:
    # the parts (never replaced)
    cdef readonly object task, rule, pool, adapt, draw_rng
    cdef readonly COGD ogd
    cdef readonly CHedge hedge
    cdef readonly int n
    cdef readonly object prediction  # the experts' prediction ("hedge", ...), None without
    # the state the walk changes
    cdef readonly array.array offered, n_offered, n_zero, n_updates, weight_scales
    cdef readonly array.array edge_num, edge_den
    cdef public long long n_seen
    cdef public double edge_decay  # the edges' sums fade by this per new term (1: never)
    cdef readonly dict background  # learner i -> the index of its background learner
    cdef readonly dict nominal  # feature -> whether its learned values are strings
    # whether the engine was ever asked to learn or predict (a prediction may decide the
    # feature subsets or draw an expert): until then its state is what its parts were built
    # with, and a booster pickles as its parameters
    cdef readonly bint changed
    # read from the parts at build (and after unpickling)
    cdef object forest, rng, subsets
    cdef Learners learners
    cdef Rule crule
    cdef int pcode, kcap, nkcap, rk_relcap
    cdef bint importance, needs_edges, weak_cost
    cdef double min_weight, share
    cdef object labels  # the forest's columns: [True, False] for binary
    # scratch: the clean x's key order, the walk, per-learner and per-label vectors
    cdef KeyOrder order
    cdef CWalk cw
    cdef bint rows_ok, walk_ok  # cw's rows are those of rows_clean; its walk is current
    cdef object rows_clean
    cdef double* kb  # four label vectors (_kbuf)
    cdef double* teach
    cdef double* grads
    cdef double* edges
    cdef double* en
    cdef double* ed
    cdef double* tmp
    cdef char* has_edge
    cdef double* nk  # ranking: each learner's cost vector (n x k)
    cdef int* oi     # the offers: learner, weight
    cdef double* op
    cdef int* oy     # (ranking) each offer's label, by index into the task's labels
    cdef char* rk_rel  # (ranking) y's relevant labels, as _commit read them

    cdef int _ready(self) except -1
    cdef int _alloc(self) except -1
    cdef void _free(self) noexcept
    cdef int _forget(self) except -1
    cdef int _walk_stale(self) except -1
    cdef CWalk _rows(self, object clean)
    cdef CWalk _walk(self, object clean)
    cdef object _cleaned(self, object x)
    cdef int _task_walk(self, CWalk cw) except -1
    cdef int _learn_one(self, object x, object y, object w) except -1
    cdef object _predict_proba_one(self, object x)
    cdef object _predict_one(self, object x)
    cdef dict _score_one(self, object x)
    cdef dict _rank_proba_one(self, object x, bint labels_only)
    cdef int _kbuf(self, int k) except -1
    cdef int _observe(self, list errors, int ensemble_error) except -1
    cdef list _errors(self, CWalk cw, int target, const char* rel)
    cdef int _ensemble_error(self, CWalk cw, int target, const char* rel) except -1
    cdef int _experts_update(self, double divisor, double w) except -1
    cdef int _record_edges(self) except -1
    cdef double* _running_edges(self) except NULL
    cdef int _label_steps(self, CWalk cw, int yi, const char* rel, double w) except -1
    cdef int _decide(self, object clean) except -1
    cdef int _teach(self, object clean, object y, double sample_weight) except -1
    cdef int _teach_offers(self, object clean, object y, list labels, int* oy, int* oi,
                           double* op, int m, double sample_weight) except -1
    cdef int _nkbuf(self, int k) except -1
