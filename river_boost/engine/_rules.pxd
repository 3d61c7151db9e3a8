# The boosting rules as the compiled walk asks them (river_boost.engine._rules): one small class per
# rule behind one interface, and PythonRule, which runs any Python Potential on the same loop.


cimport cython

from river_boost.engine._costs cimport LogisticCosts, MBBMCosts, PairCosts


cdef struct BinaryExample:
    # One labelled example of a binary booster, as the rule sees it along the walk.
    int n                  # learners
    int sign               # the label: +1 (True) or -1 (False)
    double w               # the sample weight
    const int* votes       # each learner's vote, +1 / -1
    const double* p_true   # each learner's P(True)
    const double* scores   # the experts' margins F_i (NULL: no vote weights)
    const double* alphas   # each learner's vote weight (NULL: the rule learns none)
    const double* edges    # each learner's running edge (zeros unless the rule needs them)


cdef struct LabelExample:
    # One labelled example of a multiclass (yi >= 0) or ranking (relevant) booster.
    int n, k               # learners, labels
    int yi                 # multiclass: the label's index (ranking: -1)
    double w
    bint weak_cost         # multiclass: the learners voted by expected cost (costs given)
    const int* votes       # multiclass: each learner's vote (a label index)
    const double* vec      # each learner's distribution over the labels (n x k)
    const double* scores   # the experts' scores after each learner (n x k)
    const double* costs    # multiclass, weak_cost: the cost matrix each learner was shown
    const double* alphas   # the vote weights (NULL: the rule learns none)
    const double* edges    # each learner's running edge
    const char* relevant   # ranking: the relevant labels (k); NULL for multiclass


cdef struct Steps:
    # What the label-vector steps write, learner by learner.
    double* teach          # multiclass: the probability of teaching; ranking: the cost bound
    double* costs          # ranking: each learner's cost vector (n x k)
    double* en             # the edge share's numerator and denominator
    double* ed
    char* has_edge
    double* grads          # the loss's gradient in alpha_i (surrogates)


cdef class Rule:
    cdef readonly object potential  # the Potential this rule runs (its parameters, its docs)
    cdef readonly bint surrogate  # alpha follows the loss's gradient (the experts learn)
    cdef readonly bint needs_edges  # the binary state reads the learners' running edges
    cdef readonly int n  # learners
    cdef readonly double cost_bound  # ranking: the potential's bound on max(c) - min(c)
    cdef const BinaryExample* ex  # the example being walked (binary_begin)
    cdef double* buf  # scratch (scratch())
    cdef Py_ssize_t bufcap

    cdef double* scratch(self, Py_ssize_t size) except NULL

    # Multiclass and ranking forms. vote_costs: the cost matrix C for a learner with n_left
    # votes after it and the scores s (``changed``: the label whose score changed since the
    # previous learner's, -1 for the first), returning the costs it votes by (its normalised
    # form D, or C itself). label_steps: every learner's step of a labelled example.
    cdef double* vote_costs(self, int n_left, const double* s, int k, double* C,
                            int changed) except NULL
    cdef int label_steps(self, const LabelExample* ex, Steps* out) except -1
    # What label_steps reads of the potential: row r of its cost matrix (Algorithm 1 of
    # OnlineMBBM, mbbm_steps) and the bound on its weight, for pot = for_classes(k) (the
    # potential for k labels); its cost vector (Algorithm 2 of OnlineBMR, bmr_steps).
    cdef object for_classes(self, int k)
    cdef int cost_row(self, object pot, int n_left, const double* s, int k, int r,
                      double* row) except -1
    cdef double max_weight(self, object pot, int n_left) except? -1.0
    cdef int cost_vector(self, const double* s, const char* rel, int k, int n_left,
                         double* out) except -1

    # Binary form. binary_begin starts the walk of one example; binary_step(i, z, out) is
    # learner i's part (0-based; z = +1 for a right vote, -1 for a wrong one): it returns the
    # probability that learner i is taught the example, writes its share of the learner's
    # edge to out[0] (numerator) and out[1] (denominator; negative: no share) and, for a
    # surrogate, the loss's gradient in alpha_i to out[2], and moves the example's state.
    cdef int binary_begin(self, const BinaryExample* ex) except -1
    cdef double binary_step(self, int i, int z, double* out) except? -1.0


@cython.final  # (its methods are called per learner and example: no override lookup)
cdef class BinomialTables:
    cdef readonly int n_models
    cdef double log_q, log_1q
    cdef double[::1] log_fact, log_max
    cdef int[::1] argmax_k
    cpdef double log_pmf(self, int n, int k) noexcept
    cpdef int k_at(self, int i, double s) noexcept
    cpdef double log_weight_ratio(self, int i, double s) except? -1.0


cdef class BinomialRule(Rule):
    cdef BinomialTables tables
    cdef double s


cdef class NormalHedgeRule(Rule):
    cdef double s, worst


cdef class SquintRule(Rule):
    cdef bint uniform
    cdef double R, V, Rw, Vw


cdef class OSBoostRule(Rule):
    cdef double gamma, theta, s


cdef class OSBoostOCPRule(OSBoostRule):
    cdef bint active  # the hinge loss of the full weighted vote is positive: alpha moves


cdef class LogisticRule(Rule):
    cdef double s, p
    cdef LogisticCosts lcosts
    cdef int _multiclass_steps(self, const LabelExample* ex, Steps* out) except -1
    cdef int _ranking_steps(self, const LabelExample* ex, Steps* out) except -1


cdef class MBBMRule(Rule):
    cdef MBBMCosts costs


cdef class PairRule(Rule):
    cdef PairCosts pcosts


cdef class PythonRule(Rule):
    cdef object start_fn, sampling, advance, log_weight, log_max_weight
    cdef object state, worst
    cdef double s, sw  # the state and the all-wrong state, while they are plain margins
    cdef bint c_sampling, c_advance  # Potential's defaults: computed here


cpdef double nh_log_value(int i, double s) noexcept
cpdef double nh_log_weight(int i, double s) except? -1.0
cpdef double nh_advance(double s, int z, double edge) noexcept
cpdef double squint_regret(int z, double edge) noexcept
cpdef double osboost_weight(double s, double gamma) noexcept
cpdef double osboost_advance(double s, int z, double theta) noexcept
cpdef double squint_log_integral(double R, double V, bint uniform) except? -1.0
cpdef double weight_from_values(double log_phi_minus, double log_phi_plus) except? -1.0
