# The gradient boosters' walk (river_boost.engine._gradient): see its docstring.

from river_boost.engine._clean cimport KeyOrder
from river_boost.engine._losses cimport Loss
from river_boost.forest._regforest cimport RegressionForestCore


cdef class GradientEngine:
    cdef readonly Loss loss
    cdef readonly object learners  # the weak learners (river_boost.learners)
    cdef RegressionForestCore core  # the learners, when they are the compiled trees
    cdef readonly object subsets  # each learner's features (river_boost.subsets.SizedSubsets), or None
    cdef readonly int n_steps, n_outputs
    cdef readonly double learning_rate
    cdef readonly bint newton  # SGBT's Newton steps (True) or OGB's shrinkage (False)
    cdef readonly bint use_base  # the base score is the targets' running mean (regression)
    # the regressors' bounds: detectors fed errors in units of the targets' deviation, each
    # step's prediction within the range of its targets, OGB's score within the targets'
    # range (False: the classifier, and a regressor pickled before them)
    cdef readonly bint scale_free
    cdef readonly double y_min, y_max  # the range of the targets learned
    cdef readonly list step_lows, step_highs  # each step's range of targets (learner units)
    cdef readonly object model  # what a new or replaced learner is a clone of
    cdef readonly object detector  # each step's drift detector is a clone of it (or None)
    cdef readonly list detectors
    cdef readonly list replacements
    cdef readonly object rng
    cdef readonly long long n_seen
    cdef readonly double sum_w, mean, m2
    cdef readonly double gradient_bound
    cdef readonly list sigmas
    cdef readonly list hessian_sums, hessian_weights
    cdef readonly dict nominal  # feature -> whether its learned values are strings
    cdef KeyOrder order  # clean()'s key order, and the x it cleaned last
    # whether it was ever asked to learn or predict (a prediction may decide the feature
    # subsets): until then its state is what it was built with
    cdef readonly bint changed

    cdef int _compiled(self) except -1
    cdef int _load(self, object x) except -1
    cdef double _predict(self, int i) except? -1.0
    cdef int _learn(self, int i, double y, double w) except -1
    cdef int _walk(self, double y, double w, bint learn, double* f) except -1
    cdef int _replace(self, int s) except -1
    cdef double _scale(self) noexcept
    cdef double _unit(self, double scale) noexcept
    cdef double _bounded(self, int s, double p)
    cdef int _widen(self, int s, double t) except -1
    cdef object _bounds(self)
