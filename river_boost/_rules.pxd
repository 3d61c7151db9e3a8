# The boosting rules as the compiled walk asks them (river_boost._rules): one small class per
# rule behind one interface, and PythonRule, which runs any Python Potential on the same loop.


cdef struct BinaryExample:
    # One labelled example of a binary booster, as the rule sees it along the walk.
    int n                  # learners
    int sign               # the label: +1 (True) or -1 (False)
    double w               # the sample weight
    const int* votes       # each learner's vote, +1 / -1
    const double* alphas   # each learner's vote weight (NULL: the rule learns none)
    const double* edges    # each learner's running edge (zeros unless the rule needs them)


cdef class Rule:
    cdef readonly object potential  # the Potential this rule runs (its parameters, its docs)
    cdef readonly bint surrogate  # alpha follows the loss's gradient (the experts learn)
    cdef readonly bint needs_edges  # the binary state reads the learners' running edges
    cdef const BinaryExample* ex  # the example being walked (binary_begin)

    # Binary form. binary_begin starts the walk of one example; binary_step(i, z, out) is
    # learner i's part (0-based; z = +1 for a right vote, -1 for a wrong one): it returns the
    # probability that learner i is taught the example, writes its share of the learner's
    # edge to out[0] (numerator) and out[1] (denominator; negative: no share) and, for a
    # surrogate, the loss's gradient in alpha_i to out[2], and moves the example's state.
    cdef int binary_begin(self, const BinaryExample* ex) except -1
    cdef double binary_step(self, int i, int z, double* out) except? -1.0


cdef class BinomialRule(Rule):
    cdef int n_models
    cdef double log_q, log_1q
    cdef double[::1] log_fact, log_max
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


cdef class PythonRule(Rule):
    cdef object step_fn, start_fn, sampling, advance, log_weight, log_max_weight
    cdef object state, worst
    cdef double s, sw  # the state and the all-wrong state, while they are plain margins
    cdef bint c_sampling, c_advance  # Potential's defaults: computed here
    cdef object example  # the Python example handed to an overridden binary_step
    cdef bint own_step


cpdef double squint_log_integral(double R, double V, bint uniform) except? -1.0
cpdef double weight_from_values(double log_phi_minus, double log_phi_plus) except? -1.0
