# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The gradient boosters' walk, compiled: one ``learn_one`` or prediction is one call.

A gradient booster (:mod:`river_boost.gradient`) holds one :class:`GradientEngine`, which
owns everything its walk changes: the base score (the targets' running weighted mean and
variance), the example count, OGB's shrinkage factors ``sigma_i`` and the bound of their
step size, the steps' drift detectors and replacement counts, the per-learner feature subsets
(given each example before the learners see it, ``decide``: SGBTClassifier's subsets are drawn
from the first example's features) and the generator that draws a replaced learner's new
subset. The weak learners are behind ``learners`` (:mod:`river_boost.learners`:
``load(x)``, ``predict_loaded(i)``, ``learn_loaded(i, y, w)``, ``add``, ``reset``), learner
``s + S k`` being step ``s``'s learner of output ``k`` (``K`` outputs: one, but for the
softmax's one per class, added as the classes arrive; SGBTClassifier's first label sets its
engine's loss, ``set_loss``).

For each example the walk goes along the ``S`` steps from the base score ``F``
(``K`` raw scores), reading each step's learners before they learn:

- Newton steps (``newton``, SGBT): the loss (:mod:`river_boost.engine._losses`) gives the
  target ``-g/h`` and weight ``h`` at ``F``; each learner ``k`` of the step learns its target
  with weight ``h_k w / m_s``, ``m_s`` the step's running mean of ``h`` (weighted by ``w``,
  over its outputs and the examples so far, this one included); then ``F_k +=
  learning_rate * p_k``, ``p_k`` its prediction. With a drift detector, the step's detector
  is given the step's weighted squared error on its targets, ``sum_k h_k (target_k -
  p_k)^2``; when it detects a change *upwards* (its
  estimate after the change above the one before) the step is replaced: fresh learners,
  fresh feature subsets, a fresh detector.

  Dividing by ``m_s`` leaves a leaf's Newton value ``sum h t / sum h`` as it is (a common
  factor), but Hoeffding trees count weight before they split: with the log loss's
  ``h <= 1/4`` (``1/K`` and less for the softmax) they would grow four and more times slower
  than on the regression losses, whose ``h`` is 1 (``m_s = 1`` exactly: their weights are
  ``w``).
- Shrinkage steps (OGB, Beygelzimer et al. 2015, Algorithm 1; ``K = 1``, base 0):
  ``F <- (1 - sigma_i eta) F + eta p_i``; learner ``i`` learns the target ``-g`` (``g`` the
  loss's gradient at the previous ``F``, ``y^{i-1}``) with weight ``w``; ``sigma_i`` moves by
  projected online gradient descent on ``[0, 1]``: ``sigma_i <- clip(sigma_i + g y^{i-1} /
  (G sqrt(t)), 0, 1)``, ``t`` the example count and ``G`` the largest ``|g y^{i-1}|`` seen so
  far (the paper's ``L D``, a bound on that product, which a stream does not give in
  advance).

The regressors (``scale_free``) do not depend on the target's scale and offset: ``y`` and
``a y + b`` give the predictions ``p`` and ``a p + b`` up to rounding (``a < 0`` negates the
learners' targets, which trees and SGD from 0 follow). The base score takes the offset; the
learners take the scale as they are (River's regression tree splits on the ratio of its two
best merits, its adaptive leaf compares the ratio of two errors, SGD from 0 is linear in its
targets); the steps' detectors would not (ADWIN's bound has a term in the error's own units):
they are given the squared error over the targets' running variance ``sd^2`` (``unit``, 1
before two distinct targets). And the learners are bounded: step ``s``'s prediction ``p_s``
is clipped to the range of 0 and the targets it learned since it was (re)built
(``step_lows``, ``step_highs``). A mean leaf never leaves it; a linear leaf or learner
extrapolating from a diverging fit would (with many rare one-hot columns behind a standard
scaler, ``||x||^2`` is about their number and an SGD step of rate 0.01 multiplies the error by
``1 - 0.02 (||x||^2 + 1)``, beyond -1 past about 100 columns). OGB walks on the score centred
at the base score, ``u = F - base`` (``u^0 = 0``, the paper's ``y^0``), its learners taught the
Newton target (``-g`` for the squared and Huber losses), and projects each ``F`` onto the range
of the targets learned (``y_min``, ``y_max``): the paper's projection onto a ball (of centre
the targets' mid-range and radius half their range), which bounds the prediction as the paper
assumes. A regressor pickled before these bounds (its state has no ``bounds`` field) walks as
it did: detectors fed the error in the target's units, no clip, OGB from 0.

A prediction is the same walk without learning. The tests compare it with the plain-Python
oracle ``tests/oracles/gradient.py`` within 1e-9 relative.
"""

from cpython cimport array
import array as _pyarray
from libc.math cimport sqrt

from river_boost.engine._clean cimport KeyOrder, _cleaned, _learned
from river_boost.engine._losses cimport Loss
from river_boost.forest._regforest cimport RegressionForestCore

from river_boost.engine._format import rng_state, set_rng_state

cdef array.array _DOUBLES = _pyarray.array("d")


cdef class GradientEngine:
    """The walk of a gradient booster and the state it changes (see the module)."""

    def __init__(self, Loss loss, learners, subsets, int n_steps, double learning_rate,
                 bint newton, bint use_base, bint scale_free, model, detector, detectors,
                 rng):
        self.loss = loss
        self.learners = learners
        self._compiled()
        self.subsets = subsets
        self.n_steps = n_steps
        self.n_outputs = 1  # (add_output: a softmax's class that arrives)
        self.learning_rate = learning_rate
        self.newton = newton
        self.use_base = use_base
        self.scale_free = scale_free
        self.y_min = self.y_max = 0.0
        self.step_lows = [0.0] * n_steps
        self.step_highs = [0.0] * n_steps
        self.model = model
        self.detector = detector
        self.detectors = detectors  # each step's: clones of detector (None without one)
        self.replacements = [0] * n_steps
        self.rng = rng
        self.n_seen = 0
        self.sum_w = self.mean = self.m2 = self.gradient_bound = 0.0
        self.sigmas = [0.0] * n_steps
        self.hessian_sums = [0.0] * n_steps
        self.hessian_weights = [0.0] * n_steps
        self.nominal = {}
        self.order = KeyOrder()

    # ------------------------------------------------------------------ state (pickling)

    def __reduce__(self):
        raise TypeError(
            "a gradient booster's engine pickles with its booster (its state alone does not "
            "rebuild it): pickle or copy the booster"
        )

    def _export(self):
        """What learning changed, for the booster's pickle (river_boost._pickles): the
        outputs, the counts and running statistics, the steps' Hessian sums, OGB's
        shrinkage factors, the replacements and the steps' detectors (River objects), the
        kinds of the features, the generator, the feature subsets and the learners; last the
        regressors' bounds ``(y_min, y_max, step_lows, step_highs)``, or None."""
        return (
            self.n_outputs, self.n_seen, self.sum_w, self.mean, self.m2, self.gradient_bound,
            _pyarray.array("d", self.sigmas), _pyarray.array("d", self.hessian_sums),
            _pyarray.array("d", self.hessian_weights), _pyarray.array("q", self.replacements),
            self.detectors, self.nominal, rng_state(self.rng),
            None if self.subsets is None else self.subsets._state(), self.learners._state(),
            self._bounds(),
        )

    cdef object _bounds(self):
        if not self.scale_free:
            return None
        return (self.y_min, self.y_max, _pyarray.array("d", self.step_lows),
                _pyarray.array("d", self.step_highs))

    def _take(self, tuple state):
        """:meth:`_export`'s state, into an engine just built by the same booster's
        constructor (TypeError or ValueError for a state it cannot hold). A regressor's state
        without bounds (0.2.0's, of 15 fields, or one read from it) is read as the walk it was
        learned with: detectors fed the error in the target's units, no clips, OGB from 0
        (``scale_free`` and, for OGB, ``use_base`` off)."""
        bounds = None
        if len(state) == 16:
            bounds = state[15]
            state = state[:15]
        if bounds is None and self.scale_free:
            if not self.newton:
                self.use_base = False
            self.scale_free = False
        elif bounds is not None and not self.scale_free:
            raise ValueError("bounds that are not the booster's")
        (n_outputs, n_seen, sum_w, mean, m2, gradient_bound, sigmas, hessian_sums,
         hessian_weights, replacements, detectors, nominal, rng, subsets, learners) = state
        # (one output but for a softmax: its loss is set before the state is taken)
        if not (type(n_outputs) is int and (n_outputs == 1 or self.loss.multi and n_outputs > 1)):
            raise ValueError("a number of outputs the booster cannot have")
        if type(n_seen) is not int or n_seen < 0:
            raise ValueError("a negative example count")
        self.n_outputs = n_outputs
        self.n_seen = n_seen
        self.sum_w, self.mean, self.m2 = sum_w, mean, m2
        self.gradient_bound = gradient_bound
        self.sigmas = _step_values(sigmas, "d", self.n_steps)
        self.hessian_sums = _step_values(hessian_sums, "d", self.n_steps)
        self.hessian_weights = _step_values(hessian_weights, "d", self.n_steps)
        self.replacements = _step_values(replacements, "q", self.n_steps)
        if (detectors is None) != (self.detectors is None) or (
                detectors is not None and (type(detectors) is not list
                                           or len(detectors) != self.n_steps)):
            raise ValueError("drift detectors that are not the booster's")
        self.detectors = detectors
        self.nominal.clear()
        self.nominal.update(<dict?>nominal)
        set_rng_state(self.rng, rng)
        if (subsets is None) != (self.subsets is None):
            raise ValueError("feature subsets that are not the booster's")
        if subsets is not None:
            self.subsets._take_state(subsets)
            if len(self.subsets.salts) != self.n_steps * n_outputs:
                raise ValueError("feature subsets for another number of learners")
        self.learners._take_state(learners)
        if self.learners.n_models != self.n_steps * n_outputs:
            raise ValueError("learners for another number of steps or outputs")
        if bounds is not None:
            y_min, y_max, lows, highs = bounds
            self.y_min, self.y_max = <double?>y_min, <double?>y_max
            self.step_lows = _step_values(lows, "d", self.n_steps)
            self.step_highs = _step_values(highs, "d", self.n_steps)
        self.order = KeyOrder()
        self.changed = True
        self._compiled()

    cdef int _compiled(self) except -1:
        # the compiled trees are called in C, past their Python methods
        self.core = self.learners if isinstance(self.learners, RegressionForestCore) else None
        return 0

    # ------------------------------------------------------------------ the base score

    @property
    def base(self) -> float:
        """The raw score the steps start from: the targets' running weighted mean
        (regression), else 0."""
        return self.mean if self.use_base else 0.0

    @property
    def unit(self) -> float:
        """The unit of the errors the steps' detectors are given: the targets' standard
        deviation (1 before two distinct targets, and for an engine that is not
        ``scale_free``)."""
        return self._unit(self._scale())

    @property
    def scale(self) -> float:
        """The targets' running weighted standard deviation (0 before two distinct ones)."""
        return self._scale()

    cdef double _scale(self) noexcept:
        return sqrt(self.m2 / self.sum_w) if self.sum_w > 0.0 and self.m2 > 0.0 else 0.0

    cdef double _unit(self, double scale) noexcept:
        return scale if self.scale_free and scale > 0.0 else 1.0

    # ------------------------------------------------------------------ the walk

    def clean(self, x):
        """``x`` cleaned as every booster cleans it (``river_boost.engine._contract.clean_features``)
        without the features whose kind (string or not) differs from the one learned: a
        feature keeps the kind of its first learned value, so the trees never see both."""
        return _cleaned(self.order, x, self.nominal)

    def learn_one(self, x, double y, double w):
        """Learn the checked example ``x``, cleaned by :meth:`clean`, with label ``y`` (the
        target, 0/1, or the class index) and weight ``w`` (0: nothing changes)."""
        cdef array.array f
        cdef double delta
        if x is not self.order.cur_clean:  # (the kinds learned are read from it)
            raise ValueError("learn_one takes the x that clean() returned last")
        if w <= 0.0:
            return
        self.changed = True
        f = array.clone(_DOUBLES, self.n_outputs, zero=True)
        if self.subsets is not None:
            self.subsets.decide(x)
        self._load(x)
        self.n_seen += 1
        if self.use_base:
            # West's weighted running mean and variance, taking y before the steps learn:
            # their residuals are then against the base score the next prediction starts
            # from (after the mean, the steps had learned residuals against an older base:
            # on TrumpApproval, whose targets are about 44, the second prediction was 153)
            if self.scale_free:  # (the range OGB projects onto)
                if self.sum_w == 0.0 or y < self.y_min:
                    self.y_min = y
                if self.sum_w == 0.0 or y > self.y_max:
                    self.y_max = y
            self.sum_w += w
            delta = y - self.mean
            self.mean += w * delta / self.sum_w
            self.m2 += w * delta * (y - self.mean)
        self._walk(y, w, True, f.data.as_doubles)
        _learned(self.order, self.nominal)  # the learned features' kinds (clean() keeps them)

    def raw_one(self, x) -> list:
        """The ``K`` raw scores of the cleaned ``x`` (changes nothing)."""
        cdef array.array f = array.clone(_DOUBLES, self.n_outputs, zero=True)
        if self.subsets is not None:  # (the first example's features: SizedSubsets)
            self.subsets.decide(x)
        self.changed = True
        self._load(x)
        self._walk(0.0, 0.0, False, f.data.as_doubles)
        return list(f)

    cdef int _load(self, object x) except -1:
        if self.core is not None:
            return self.core.load_c(x)
        self.learners.load(x)
        return 0

    cdef double _predict(self, int i) except? -1.0:
        if self.core is not None:
            return self.core.predict_loaded_c(i)
        return self.learners.predict_loaded(i)

    cdef int _learn(self, int i, double y, double w) except -1:
        if self.core is not None:
            return self.core.learn_loaded_c(i, y, w)
        self.learners.learn_loaded(i, y, w)
        return 0

    cdef int _walk(self, double y, double w, bint learn, double* f) except -1:
        cdef int k = self.n_outputs, n = self.n_steps, s, j, i
        cdef double eta = self.learning_rate, base = self.base, scale = self._scale()
        cdef double p, err, gy, sigma, new_sigma, hsum, mean_h = 1.0, u, t, h
        cdef double unit = self._unit(scale)
        cdef array.array buf = array.clone(_DOUBLES, 3 * k, zero=True)
        cdef double* target = buf.data.as_doubles
        cdef double* weight = target + k
        cdef double* pred = target + 2 * k
        for j in range(k):
            f[j] = base
        u = 0.0  # (OGB's score centred at the base)
        for s in range(n):
            if self.newton:
                if learn:
                    self.loss.c_newton(y, f, k, scale, target, weight)
                    hsum = 0.0
                    for j in range(k):
                        hsum += weight[j] * w
                    self.hessian_sums[s] += hsum
                    self.hessian_weights[s] += k * w
                    mean_h = self.hessian_sums[s] / self.hessian_weights[s]
                err = 0.0
                for j in range(k):
                    i = s + n * j
                    p = self._predict(i)
                    if self.scale_free:
                        p = self._bounded(s, p)
                    pred[j] = p
                    if learn:
                        if weight[j] * w > 0.0:
                            self._learn(i, target[j], weight[j] * w / mean_h)
                            if self.scale_free:
                                self._widen(s, target[j])
                        err += weight[j] * (target[j] - p) * (target[j] - p)
                for j in range(k):
                    f[j] += eta * pred[j]
                if learn and self.detectors is not None:
                    detector = self.detectors[s]
                    # (a detector without an estimate, e.g. Page-Hinkley, replaces on any
                    # change it reports)
                    before = getattr(detector, "estimation", None)
                    if self.scale_free:  # (in units of the targets' variance)
                        err = err / (unit * unit)
                    detector.update(err)
                    if detector.drift_detected and (
                            before is None or detector.estimation > before):
                        self._replace(s)
            else:
                p = self._predict(s)
                if self.scale_free:
                    p = self._bounded(s, p)
                sigma = self.sigmas[s]
                if learn:
                    self.loss.c_derivatives(y, f, 1, target, weight)
                    gy = target[0] * u
                    if gy > self.gradient_bound or -gy > self.gradient_bound:
                        self.gradient_bound = gy if gy > 0.0 else -gy
                    if self.gradient_bound > 0.0:
                        new_sigma = sigma + gy / (self.gradient_bound * sqrt(<double>self.n_seen))
                        if new_sigma < 0.0:
                            new_sigma = 0.0
                        elif new_sigma > 1.0:
                            new_sigma = 1.0
                        self.sigmas[s] = new_sigma
                    if self.scale_free:  # (the Newton target: -g but for the quantile's)
                        self.loss.c_newton(y, f, 1, scale, &t, &h)
                        self._learn(s, t, w)
                        self._widen(s, t)
                    else:
                        self._learn(s, -target[0], w)
                u = (1.0 - sigma * eta) * u + eta * p
                if self.scale_free:  # the paper's projection
                    if u < self.y_min - base:
                        u = self.y_min - base
                    elif u > self.y_max - base:
                        u = self.y_max - base
                f[0] = base + u
        return 0

    cdef double _bounded(self, int s, double p):
        """Step ``s``'s prediction within the range of 0 and the targets it learned."""
        cdef double low = self.step_lows[s], high = self.step_highs[s]
        if p < low:
            return low
        if p > high:
            return high
        return p

    cdef int _widen(self, int s, double t) except -1:
        if t < <double>self.step_lows[s]:
            self.step_lows[s] = t
        elif t > <double>self.step_highs[s]:
            self.step_highs[s] = t
        return 0

    # ------------------------------------------------------------------ the learners

    cdef int _replace(self, int s) except -1:
        cdef int j, i
        for j in range(self.n_outputs):
            i = s + self.n_steps * j
            if self.subsets is not None:
                self.subsets.reseed(i, self.rng.getrandbits(64))
            # (after the new subset: the learner asks its filter again)
            self.learners.reset(i, refilter=True)  # (with its own parameters: no check)
        self.detectors[s] = self.detector.clone()
        self.replacements[s] += 1
        if self.scale_free:  # (the fresh learner's range)
            self.step_lows[s] = self.step_highs[s] = 0.0
        return 0

    def replace(self, int s):
        """Replace step ``s``: fresh learners, feature subsets and detector (as a detected
        drift does)."""
        if not 0 <= s < self.n_steps:
            raise IndexError(f"no step {s}")
        if self.detectors is None:
            raise ValueError("no drift detector: steps are never replaced")
        self._replace(s)

    def set_loss(self, Loss loss):
        """Walk on ``loss`` from now on, only before the engine learned or predicted
        (ValueError after): SGBTClassifier's first label says whether the engine it built
        on the log loss walks on it or on a softmax over the classes that come."""
        if self.changed:
            raise ValueError("the loss of an engine that learned or predicted is its own")
        self.loss = loss

    def add_output(self):
        """One more output (a new class of the softmax): ``S`` new learners, learner
        ``s + S K`` for step ``s``, each with a feature subset of its own."""
        for _ in range(self.n_steps):
            if self.subsets is not None:  # (first: the new learner's filter must know it)
                self.subsets.append(self.rng.getrandbits(64))
            # a fresh learner of the model (learner 0's, shared by every learner: a compiled
            # forest does not clone it)
            self.learners.add_like(0)
        self.n_outputs += 1


cdef list _step_values(object values, str typecode, int n):
    """The ``n`` per-step values of a pickled state (a typed array of ``typecode``)."""
    if type(values) is not _pyarray.array or values.typecode != typecode or len(values) != n:
        raise ValueError(f"per-step values that are not {n} items of {typecode!r}")
    return list(values)
