"""Gradient boosting on streams: regression and classification.

River's boosters (:mod:`river_boost.binary`, ...) weigh examples for classifiers; these fit
regressors to the gradient of a loss instead:

- :class:`SGBTRegressor` and :class:`SGBTClassifier`: Streaming Gradient Boosted Trees
  (Gunasekara, Pfahringer, Gomes & Bifet 2024), each step's learner taught the loss's Newton
  step at the raw score of the steps before it;
- :class:`OnlineGradientBoostRegressor`: Online Gradient Boosting (Beygelzimer, Hazan, Kale &
  Luo 2015, Algorithm 1), shrinking the earlier steps' sum by learned factors.

Each holds one compiled engine (:mod:`river_boost.engine._gradient`): the walk along the
steps, which owns the state it changes, with the losses in :mod:`river_boost.engine._losses`
and the weak learners behind :mod:`river_boost.learners`. The Python side checks the whole
event (``x``, the label, the sample weight) before the engine changes anything.
"""

from __future__ import annotations

import math
import numbers
import random
from functools import partial

import numpy as np
from river import base, drift, linear_model, tree

from ._params import clone as _clone
from ._pickles import Stateful, seed_or_entropy
from .engine._contract import check_sample_weight
from .engine._gradient import GradientEngine
from .engine._losses import make_loss, softmax
from .forest import BoundedHoeffdingTreeRegressor
from .learners import make_learners
from .subsets import FeatureSubsets, SizedSubsets

__all__ = ["OnlineGradientBoostRegressor", "SGBTClassifier", "SGBTRegressor", "default_regressor"]

#: the regression losses (``loss`` of the regressors)
REGRESSION_LOSSES = ("squared", "huber", "quantile")


def default_regressor(leaf_prediction: str = "adaptive") -> BoundedHoeffdingTreeRegressor:
    """The SGBT estimators' weak learner: River's Hoeffding regression tree, splitting after
    ``grace_period=50`` (weight), with a size limit that binds under the boosters' fractional
    weights (2 MiB per tree, measured every 1,000 units of weight:
    :class:`~river_boost.forest.BoundedHoeffdingTreeRegressor`), run in the compiled forest
    (River's tree, bit for bit).

    The regressors' leaves are River's default, ``"adaptive"``: a leaf predicts its mean or
    its linear model, whichever has erred less. Like River's own regression trees, the linear
    leaves want standardized features (``preprocessing.StandardScaler() | SGBTRegressor()``;
    unscaled, they diverged on TrumpApproval) and take numbers only. Behind a scaler, on its
    tuning streams (Friedman, 2,000 examples, and TrumpApproval; seeds 42-44), adaptive leaves
    scored an RMSE of 2.10 and 1.42 against 2.73 and 1.53 for mean leaves (25 steps at 0.2).
    A linear leaf's SGD can still diverge on wide standardized data (many rare one-hot
    columns: ``benchmarks/regression_wide.py``); the boosters bound what each step adds
    (:class:`SGBTRegressor`), and the adaptive leaf then keeps its mean.
    ``SGBTClassifier``'s are ``"mean"`` (measured on Phishing and Agrawal). Grace period 50
    beat 200 on Friedman and TrumpApproval (``benchmarks/regression_default.py --grid``)."""
    return BoundedHoeffdingTreeRegressor(grace_period=50, leaf_prediction=leaf_prediction)


#: the largest target magnitude a regressor learns: beyond it, squares of residuals and the
#: trees' weighted sums of squares (weights up to 1e12) could overflow a double
MAX_ABS_TARGET = 1e100


def check_target(y) -> float:
    """``y`` as a float; ``ValueError`` unless it is a real number (not a bool) of magnitude
    at most :data:`MAX_ABS_TARGET`."""
    if isinstance(y, (str, bytes, bool, np.bool_)) or not isinstance(y, (numbers.Real, np.generic)):
        raise ValueError(f"the target must be a finite real number, got {y!r}")
    try:
        value = float(y)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"the target must be a finite real number, got {y!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"the target must be a finite real number, got {y!r}")
    if abs(value) > MAX_ABS_TARGET:
        raise ValueError(f"the target's magnitude must be at most {MAX_ABS_TARGET:g}, got {y!r}")
    return value


def _check_rate(name: str, value, upper: float) -> None:
    if not (isinstance(value, numbers.Real) and 0.0 < value <= upper):
        raise ValueError(f"{name} must lie in (0, {upper:g}], got {value!r}")


def _detector(detector, delta: float):
    """The steps' detector template: ``"adwin"`` is River's ``ADWIN(delta=delta)`` (the
    booster's ``_adwin_delta``), ``None`` none (no replacement)."""
    if detector == "adwin":
        return drift.ADWIN(delta=delta)
    if detector is None or isinstance(detector, base.DriftDetector):
        return detector
    raise ValueError(
        f"drift_detector must be a River drift detector, 'adwin' or None, got {detector!r}"
    )


def _numbers_only(model) -> bool:
    """Whether the weak learner fails on string features: River's linear models, and Hoeffding
    regression trees whose leaves fit one (``leaf_prediction`` "model" or "adaptive"). Such
    an event is refused before any learner learns (a learner failing midway through the steps
    would leave the earlier ones changed)."""
    if isinstance(model, linear_model.base.GLM):
        return True
    return isinstance(model, tree.HoeffdingTreeRegressor) and model.leaf_prediction != "mean"


def _check_numbers(clean: dict) -> None:
    for key, value in clean.items():
        if type(value) is str:
            raise TypeError(
                f"feature {key!r} is a string, and the weak learner takes numbers only (River's "
                "linear models, trees with model or adaptive leaves): encode it first, e.g. "
                "with River's preprocessing.OneHotEncoder"
            )


class _GradientBooster(Stateful, base.Estimator):
    """What the gradient boosters share: the engine, the checks, the diagnostics."""

    #: the delta of the steps' ADWIN for ``drift_detector="adwin"``: River's default (measured
    #: on the classification drift suite); SGBTRegressor's is smaller
    _adwin_delta = 0.002
    #: how a learner's features are drawn when ``feature_fraction < 1``: exactly
    #: ``max(2, round(f d))`` of the first example's (SGBTClassifier; on Bananas' two features
    #: the per-feature draw left 44% of the trees one feature or none), or each feature on its
    #: own with probability ``f`` (SGBTRegressor: a lower RMSE so on each of the seven
    #: regression bench streams compared, by 0.2-3.4%, seeds 42-44)
    _subsets = SizedSubsets
    #: the largest learning rate (OGB's shrinkage is at most 1)
    _max_rate = math.inf

    def _build(self, params: dict, default, loss, newton: bool, use_base: bool):
        """Store the parameters under their own names (River's convention: ``clone()`` and
        the repr read them back; ``params`` is the ``__init__``'s ``locals()``), check them
        and build the one engine: on ``loss``, with the weak learner ``model`` (``default()``
        for None), Newton steps (SGBT) or shrinkage (OGB); a regressor (``use_base``) walks
        from the targets' running mean, its steps bounded and its detectors fed errors in
        units of the targets' deviation (:mod:`river_boost.engine._gradient`), a classifier
        from 0."""
        for name, value in params.items():
            if name != "self":
                setattr(self, name, value)
        n = self.n_models
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n_models must be a positive integer, got {n!r}")
        model = default() if self.model is None else self.model
        self._numbers_only = _numbers_only(model)
        _check_rate("learning_rate", self.learning_rate, self._max_rate)
        fraction = params.get("feature_fraction", 1.0)
        _check_rate("feature_fraction", fraction, 1.0)
        seed = None
        if hasattr(self, "seed"):  # (OGB draws nothing)
            seed, self._entropy = seed_or_entropy(self.seed, self._entropy)
        rng = random.Random(seed)
        detector = _detector(params.get("drift_detector"), self._adwin_delta)
        subsets = None
        if fraction < 1.0:
            subsets = self._subsets(fraction, [rng.getrandbits(64) for _ in range(n)])
        learners = make_learners(model, n, subsets)
        self._engine = GradientEngine(
            loss,
            learners,
            subsets,
            n,
            float(self.learning_rate),
            newton,
            use_base,
            use_base,
            model,
            detector,
            None if detector is None else [_clone(detector) for _ in range(n)],
            rng,
        )

    def _get_state(self) -> tuple:
        """``(entropy, engine)``: the engine's state, None while the booster has neither
        learned nor predicted (it is then its parameters)."""
        engine = self._engine
        return (self._entropy, engine._export() if engine.changed else None)

    def _take_state(self, state: tuple) -> None:
        _, engine = state
        if engine is not None:
            self._engine._take(engine)

    def _checked(self, x) -> dict:
        """``x`` cleaned, and refused if its strings would fail the weak learners."""
        clean = self._engine.clean(x)
        if self._numbers_only:
            _check_numbers(clean)
        return clean

    @property
    def models(self) -> list:
        """The weak learners: step ``s``'s learner of output ``k`` at ``s + n_models * k``."""
        return list(self._engine.learners.models)

    @property
    def n_seen(self) -> int:
        """Number of examples learned (with non-zero weight)."""
        return self._engine.n_seen

    @property
    def base_score(self) -> float:
        """The raw score the steps start from (the targets' running mean for regression)."""
        return self._engine.base


def _regression_loss(loss: str, delta: float, alpha: float):
    """The regression loss ``loss`` (:data:`REGRESSION_LOSSES`), ValueError for another."""
    if loss not in REGRESSION_LOSSES:
        raise ValueError(f"loss must be one of {REGRESSION_LOSSES}, got {loss!r}")
    return make_loss(loss, delta, alpha)


class _Regressor(_GradientBooster, base.Regressor):
    def learn_one(self, x, y, w=1.0, **kwargs):
        """Learn ``x`` with target ``y`` (a finite real number) and sample weight ``w``.

        The whole event is checked first: a rejected one (``ValueError``, ``TypeError``)
        leaves the estimator as it was."""
        target = check_target(y)
        weight = check_sample_weight(w)
        self._engine.learn_one(self._checked(x), target, weight)

    def predict_one(self, x, **kwargs) -> float:
        """The prediction for ``x``: the base score plus the steps' contributions."""
        return self._engine.raw_one(self._checked(x))[0]


class SGBTRegressor(_Regressor):
    """Streaming Gradient Boosted Trees for regression (SGBT, SGBR).

    Gunasekara, Pfahringer, Gomes & Bifet's streaming gradient boosting: ``n_models`` boosting
    steps, each a regressor (by default a Hoeffding regression tree). For each example, with
    ``F_s`` the raw score of the steps before ``s`` (``F_0`` the base score, the targets'
    running weighted mean, this example's included), step ``s``'s learner is taught the Newton
    target ``-g / h`` with weight ``h`` times the sample weight, ``g`` and ``h`` the gradient
    and Hessian of the loss at ``F_s``, and ``F_{s+1} = F_s + learning_rate * p_s``, ``p_s``
    its prediction (read before it learns). The prediction is ``F_S``.

    **Scale and bounds.** For the squared loss ``y`` and ``a y + b`` give the predictions ``p``
    and ``a p + b`` up to rounding, for any ``a != 0``: the base score takes the offset, and
    the learners the scale (River's regression tree splits on the ratio of its two best
    merits, its adaptive leaf compares the ratio of two errors, and SGD from 0 is linear in
    its targets); the steps' detectors are given the squared error over the targets' running
    variance (ADWIN's bound has a term in the error's own units). Huber's ``delta`` is in the
    target's units (it scales with ``a`` for that to hold); the quantile loss holds it for
    ``a > 0`` (``a < 0`` turns the ``alpha``-quantile into the ``1 - alpha``-quantile). Each
    step's prediction ``p_s`` is clipped to the range of 0 and the targets its learner
    learned (since it was last replaced): a mean leaf never leaves it, a linear leaf whose
    SGD diverges would.

    Each learner sees a random subset of about ``feature_fraction`` of the features (hashed
    from the seed and the feature's name: features that appear mid-stream are assigned too).
    With a ``drift_detector`` each step has its own, fed the step's weighted squared error on
    its targets (in the learners' unit, below); when it reports the error went up, the step
    is replaced: a fresh learner with a new feature subset, and a fresh detector
    (``replacements``).

    **Losses** (:mod:`river_boost.engine._losses`): ``"squared"`` (the Newton target is the
    residual), ``"huber"`` (the residual clipped at ``delta``: the Hessian of the quadratic
    part, 1, is used beyond ``delta`` too, where the loss has none), ``"quantile"`` (the
    pinball loss of the ``alpha``-quantile: its Hessian is 0, so the step uses the density of
    a normal residual at its ``alpha``-quantile, ``phi(z_alpha) / sigma``, ``sigma`` the
    targets' running standard deviation; the target is then ``-g sigma / phi(z_alpha)``, weight
    1). Two quantile models, ``alpha=0.05`` and ``alpha=0.95``, give a 90% prediction
    interval.

    Parameters
    ----------
    model
        The weak learner, any River regressor (each step learns a clone). Defaults to
        :func:`default_regressor`, a Hoeffding regression tree with River's adaptive leaves
        (standardize the features first, as for River's own regression trees).
    n_models
        Number of boosting steps.
    learning_rate
        Shrinkage of each step's prediction. With 25 steps, 0.2 was the best of 10, 25 and 50
        steps at rates 0.1 to 0.5 on Friedman (2,000 examples) and TrumpApproval, seeds 42-44
        (mean leaves); behind a standard scaler with the default adaptive leaves, 0.2 against
        0.1 scored an RMSE of 2.10 and 1.42 against 2.27 and 1.43. More steps at a higher rate
        overshoot on short streams.
    feature_fraction
        Fraction of the features each learner sees, in ``(0, 1]`` (1: every feature). (Each
        feature is kept on its own: on the regression bench's streams this scored a lower
        RMSE than :class:`SGBTClassifier`'s draw of exactly ``max(2, round(f d))``.)
    loss
        ``"squared"``, ``"huber"`` or ``"quantile"``.
    delta
        Huber's threshold (``loss="huber"``), in the target's units.
    alpha
        The quantile (``loss="quantile"``), in ``(0, 1)``.
    drift_detector
        Each step's change detector (a clone per step); ``"adwin"``: River's ``ADWIN`` with
        ``delta=1e-7`` (River's default 0.002 replaced steps on the stationary Friedman, and
        most steps after each drift); ``None``: steps are never replaced.
    seed
        Random seed (the feature subsets, and those of replaced learners).

    References
    ----------
    [^1]: Gunasekara, N., Pfahringer, B., Gomes, H. M. and Bifet, A., 2024. Gradient boosted
    trees for evolving data streams. Machine Learning, 113, pp. 3325-3352.

    [^2]: Gunasekara, N., Pfahringer, B., Gomes, H. M. and Bifet, A., 2025. Gradient boosted
    bagging for evolving data streams regression. Data Mining and Knowledge Discovery, 39.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from river_boost import SGBTRegressor

    >>> model = preprocessing.StandardScaler() | SGBTRegressor(n_models=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.359291

    A target in other units gives the same predictions in those units (after the first
    example, before which both predict 0):

    >>> one = preprocessing.StandardScaler() | SGBTRegressor(n_models=10, seed=42)
    >>> other = preprocessing.StandardScaler() | SGBTRegressor(n_models=10, seed=42)
    >>> gaps = []
    >>> for t, (x, y) in enumerate(datasets.TrumpApproval()):
    ...     if t:
    ...         gaps.append(other.predict_one(x) - (1000 * one.predict_one(x) - 50))
    ...     one.learn_one(x, y)
    ...     other.learn_one(x, 1000 * y - 50)
    >>> max(map(abs, gaps)) < 1e-9 * 40_000
    True

    """

    # River's default delta (0.002) replaced steps on the stationary Friedman stream, and most
    # of the 25 steps at once after each drift; 1e-7 replaced none on Friedman and gave a lower
    # RMSE on all three FriedmanDrift kinds (20,000 examples, seeds 42-44: benchmarks/
    # regression_default.py --detectors; the bench's 2,000-example streams held out)
    _adwin_delta = 1e-7
    _subsets = FeatureSubsets

    def __init__(
        self,
        model: base.Regressor | None = None,
        n_models: int = 25,
        learning_rate: float = 0.2,
        feature_fraction: float = 0.75,
        loss: str = "squared",
        delta: float = 1.0,
        alpha: float = 0.5,
        drift_detector: base.DriftDetector | str | None = "adwin",
        seed: int | None = None,
    ):
        self._build(locals(), default_regressor, _regression_loss(loss, delta, alpha), True, True)

    @classmethod
    def _unit_test_params(cls):
        yield {"n_models": 3, "seed": 1}
        yield {"n_models": 2, "loss": "huber", "feature_fraction": 0.5, "seed": 2}
        yield {
            "n_models": 3,
            "loss": "quantile",
            "alpha": 0.9,
            "drift_detector": drift.ADWIN(delta=0.1, clock=4, grace_period=10),
            "seed": 3,
        }

    @property
    def replacements(self) -> list:
        """How many times each step was replaced after a detected drift."""
        return list(self._engine.replacements)


class OnlineGradientBoostRegressor(_Regressor):
    """Online Gradient Boosting for regression (Beygelzimer, Hazan, Kale & Luo 2015).

    Algorithm 1 of the paper, boosting for the span of the weak learners' class: ``N`` weak
    learners ``A^i``, shrinkage ``eta`` (``learning_rate``) and one factor ``sigma_i`` in
    ``[0, 1]`` per learner, 0 at first. It walks on the score centred at the base score ``b``,
    the targets' running weighted mean (as :class:`SGBTRegressor`): for an example ``x``,
    ``y^0 = 0`` and ``y^i = Pi((1 - sigma_i eta) y^{i-1} + eta A^i(x))``, the prediction
    ``b + y^N``. ``Pi`` is the paper's projection onto the domain of the predictions, a ball:
    here the interval of the targets learned so far, ``[y_min - b, y_max - b]`` (centre the
    targets' mid-range, radius half their range; the squared loss's best prediction lies in
    it). Given the target, ``A^i`` learns the linear loss ``g_i y`` with ``g_i`` the loss's
    gradient at ``b + y^{i-1}``, through a regressor: its target is ``-g_i`` (the residual for
    the squared loss, the clipped residual for Huber's; the quantile loss's Newton target of
    :class:`SGBTRegressor`, a positive multiple of ``-g_i`` in the target's units), and its
    prediction is clipped to the range of 0 and the targets it learned (the paper's weak
    learners are bounded). So ``y`` and ``a y + b`` give the same predictions up to rounding,
    as for :class:`SGBTRegressor`.
    ``sigma_i`` moves by projected online gradient descent on ``[0, 1]`` on the linear loss
    ``-sigma g_i y^{i-1}``: ``sigma_i <- clip(sigma_i + g_i y^{i-1} / (G sqrt(t)), 0, 1)``,
    the paper's step size ``1 / (L D sqrt(t))``, ``t`` the example count, with the bound ``L D``
    on ``|g y|`` (unknown on a stream) taken as ``G``, the largest ``|g_i y^{i-1}|`` seen so
    far.

    Any River regressor is a weak learner: Hoeffding regression trees (the default), linear
    models. River's ``LinearRegression``, the default before, diverged behind a standard
    scaler on wide data with rare one-hot columns: there a step of its SGD multiplies the
    error by about ``1 - 0.02 d``, ``d`` the number of standardized columns
    (``benchmarks/regression_wide.py``); its steps are now bounded, but it scored far behind
    the tree there (RMSE 2,979 against 794 on 3,000 examples) and behind it on each of the
    regression bench's streams.

    Parameters
    ----------
    model
        The weak learner, any River regressor (each of the ``N`` learns a clone). Defaults
        to :func:`default_regressor`, a Hoeffding regression tree with adaptive leaves
        (standardize the features first).
    n_models
        Number of weak learners ``N``.
    learning_rate
        The shrinkage ``eta``, in ``(0, 1]`` (the paper takes it in ``[1/N, 1]``). With the
        default trees, on Friedman (2,000 examples) and TrumpApproval, scaled, seeds 42-44,
        0.3 and 0.5 were level (RMSE 2.33 and 1.433 against 2.37 and 1.435) and ahead of 0.1
        and 1.
    loss
        ``"squared"``, ``"huber"`` or ``"quantile"`` (their gradients: see
        :class:`SGBTRegressor`).
    delta
        Huber's threshold (``loss="huber"``).
    alpha
        The quantile (``loss="quantile"``).

    References
    ----------
    [^1]: Beygelzimer, A., Hazan, E., Kale, S. and Luo, H., 2015. Online gradient boosting. In
    Advances in Neural Information Processing Systems 28 (pp. 2458-2466).

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from river_boost import OnlineGradientBoostRegressor

    Ten Hoeffding trees (the default), on scaled features, on 1,000 examples of Friedman's
    synthetic function:

    >>> model = preprocessing.StandardScaler() | OnlineGradientBoostRegressor()
    >>> data = datasets.synth.Friedman(seed=42).take(1000)
    >>> evaluate.progressive_val_score(data, model, metrics.MAE())
    MAE: 2.108318

    It walks from the targets' mean (the base score), and the later learners' shrinkage
    factors moved: the sum of the steps before them overshot the residuals, and shrinking it
    lowered the loss:

    >>> ogb = model["OnlineGradientBoostRegressor"]
    >>> round(ogb.base_score, 2)
    14.3
    >>> [round(s, 2) for s in ogb.sigmas]
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.04, 0.13, 0.07, 0.0, 0.27]

    """

    _max_rate = 1.0  # (the paper's eta lies in [1/N, 1])

    def __init__(
        self,
        model: base.Regressor | None = None,
        n_models: int = 10,
        learning_rate: float = 0.5,
        loss: str = "squared",
        delta: float = 1.0,
        alpha: float = 0.5,
    ):
        self._build(
            locals(),
            default_regressor,
            _regression_loss(loss, delta, alpha),
            False,
            True,
        )

    @classmethod
    def _unit_test_params(cls):
        yield {"n_models": 3}
        yield {"n_models": 2, "loss": "huber", "model": tree.HoeffdingTreeRegressor()}

    @property
    def sigmas(self) -> list:
        """Each learner's shrinkage factor ``sigma_i``."""
        return list(self._engine.sigmas)


class SGBTClassifier(_GradientBooster, base.Classifier):
    """Streaming Gradient Boosted Trees for classification (SGBT).

    :class:`SGBTRegressor`'s walk on the log loss of the raw scores. With ``bool`` labels
    (River's binary streams) one raw score ``f`` per step, ``P(True) = sigmoid(f)``, the binary
    log loss. Any other hashable labels are classes of a softmax: one raw score and one
    regression learner per class and step, each taught its coordinate of the Newton step of the
    cross-entropy (the Hessian's diagonal, ``p_k (1 - p_k)``), with weight ``p_k (1 - p_k)``
    times the sample weight. The Hessian is floored at 0.01 in the step (as XGBoost's
    ``lambda`` regularizes a leaf): a class whose probability ``p`` is tiny would otherwise
    teach a target of ``1 / p``, and a class joining mid-stream moved a raw score by orders
    of magnitude; so ``|target| <= 100``. A class that first appears mid-stream gets
    ``n_models`` fresh learners, raw score 0 until they learn; ``predict_proba_one`` covers
    every class seen so far (``known_classes``, in order of arrival). A stream whose first
    label is a ``bool`` is binary for good: another label is then a ``ValueError``.

    Parameters
    ----------
    model
        The weak learner, any River regressor. Defaults to :func:`default_regressor` with
        mean leaves (``default_regressor("mean")``).
    n_models
        Number of boosting steps.
    learning_rate
        Shrinkage of each step's prediction. (25 steps at 0.2: on eight synthetic streams the
        bench does not score, binary and multiclass, 2,000 and 10,000 examples, three seeds,
        rates 0.1 to 0.3 were level within 0.3 points, and 50 steps half as fast;
        ``benchmarks/sgbt_classifier_default.py``.)
    feature_fraction
        Fraction of the features each learner sees, in ``(0, 1]``: exactly ``max(2, round(f
        d))`` of the first example's ``d`` features, drawn at random per learner, as MOA's SGBT
        draws its subspaces (a feature that appears later is kept with probability ``f``;
        :class:`~river_boost.subsets.SizedSubsets`). Keeping each feature on its own with
        probability 0.75 left 44% of the trees one feature or none on Bananas' two.
    drift_detector
        Each step's change detector (see :class:`SGBTRegressor`; ``"adwin"``: River's
        ``ADWIN()`` at its defaults, which replaced steps sooner than ``SGBTRegressor``'s
        smaller delta and was more accurate on the drifting classification streams), or
        ``None``.
    seed
        Random seed (the feature subsets).

    References
    ----------
    [^1]: Gunasekara, N., Pfahringer, B., Gomes, H. M. and Bifet, A., 2024. Gradient boosted
    trees for evolving data streams. Machine Learning, 113, pp. 3325-3352.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics
    >>> from river_boost import SGBTClassifier

    >>> model = SGBTClassifier(n_models=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 89.51%

    """

    def __init__(
        self,
        model: base.Regressor | None = None,
        n_models: int = 25,
        learning_rate: float = 0.2,
        feature_fraction: float = 0.75,
        drift_detector: base.DriftDetector | str | None = "adwin",
        seed: int | None = None,
    ):
        # the log loss until the first label says otherwise (_decide)
        self._build(locals(), partial(default_regressor, "mean"), make_loss("log"), True, False)
        self._classes: list = []
        self._binary = None  # decided by the first label

    @classmethod
    def _unit_test_params(cls):
        # (River's checks learn a 7-class stream: one learner per class and step, so few
        # steps, and a linear learner for speed)
        from river import linear_model

        yield {"n_models": 2, "model": linear_model.LinearRegression(), "seed": 1}
        yield {
            "n_models": 2,
            "model": linear_model.LinearRegression(),
            "feature_fraction": 0.5,
            "drift_detector": drift.ADWIN(delta=0.1, clock=4, grace_period=10),
            "seed": 2,
        }

    @property
    def _multiclass(self):
        return True

    def _get_state(self) -> tuple:
        """``(entropy, engine, binary, classes)``: the booster's, and the labels seen."""
        return (*super()._get_state(), self._binary, list(self._classes))

    def _take_state(self, state: tuple) -> None:
        entropy, engine, binary, classes = state
        if binary not in (None, True, False) or type(classes) is not list:
            raise ValueError("labels that are not the booster's")
        if binary is None and engine is not None:  # (the first label it learns decides)
            raise ValueError("a state learned before any label")
        for c in classes:
            self._label(c)  # (checked as a label of this stream would be)
        if len(set(classes)) != len(classes) or (binary is not False and classes):
            raise ValueError("labels repeated, or classes of a binary stream")
        if binary is not None:
            self._decide(binary)
        self._classes = list(classes)
        super()._take_state((entropy, engine))

    def _decide(self, binary: bool) -> None:
        """The first label's verdict: a stream of bools walks on the log loss the engine was
        built with; any other label makes it a softmax over the classes, the first of them on
        the engine's one output."""
        if not binary:
            self._engine.set_loss(make_loss("softmax"))
        self._binary = binary

    @property
    def known_classes(self) -> list:
        """The labels seen so far, in order of arrival (``[False, True]`` for a binary
        stream)."""
        return [False, True] if self._binary else list(self._classes)

    def _label(self, y):
        """The checked label's code for the engine, and whether it is a new class (nothing
        changes here)."""
        try:
            missing = y is None or bool(y != y)  # (NaN is never equal to a class seen)
        except Exception:  # (values that refuse comparison: not hashable either, see below)
            missing = False
        if missing:
            raise ValueError(f"the label must not be None or NaN, got {y!r}")
        binary = self._binary
        if binary is None:
            binary = isinstance(y, (bool, np.bool_))
        if binary:
            # bools, and the numbers 0 and 1 for them (as the binary boosters take them)
            if isinstance(y, (bool, np.bool_)) or (
                isinstance(y, (numbers.Real, np.number)) and (y == 0 or y == 1)
            ):
                return binary, float(y == 1), False
            raise ValueError(f"this stream's labels are bools (or 0 and 1), got {y!r}")
        try:
            hash(y)
        except TypeError:
            raise ValueError(f"a label must be hashable, got {y!r}") from None
        if y in self._classes:
            return binary, float(self._classes.index(y)), False
        return binary, float(len(self._classes)), True

    def learn_one(self, x, y, w=1.0, **kwargs):
        """Learn ``x`` with label ``y`` and sample weight ``w`` (checked first: a rejected
        event changes nothing)."""
        binary, code, new = self._label(y)
        weight = check_sample_weight(w)
        clean = self._checked(x)
        if weight == 0.0:
            return
        if self._binary is None:
            self._decide(binary)
        if new:
            self._classes.append(y)
            if len(self._classes) > 1:  # (the first class has the engine's one output)
                self._engine.add_output()
        self._engine.learn_one(clean, code, weight)

    def predict_proba_one(self, x, **kwargs) -> dict:
        """The probability of each class seen so far (``{}`` before the first label)."""
        if self._binary is None:
            return {}
        scores = self._engine.raw_one(self._checked(x))
        if self._binary:
            p = 1.0 / (1.0 + math.exp(-scores[0])) if scores[0] >= -700 else 0.0
            return {False: 1.0 - p, True: p}
        return dict(zip(self._classes, softmax(scores)))

    def predict_one(self, x, **kwargs):
        """The most probable class (ties: the first known), ``None`` before any label."""
        proba = self.predict_proba_one(x)
        if not proba:
            return None
        return max(proba, key=proba.get)

    @property
    def replacements(self) -> list:
        """How many times each step was replaced after a detected drift."""
        return list(self._engine.replacements)
