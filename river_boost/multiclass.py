"""Multiclass online boosters: AdaBoost.OLM and OnlineMBBM (Jung, Goetz & Tewari 2017).

Both are the booster walk (:class:`river_boost.booster.Booster`) over the multiclass task
(:class:`river_boost.tasks.MulticlassTask`): labels join the label space when first seen,
without a restart (or are given up front with ``classes``); until two classes are known
there is nothing to boost and every learner learns every example with weight 1. For an
example, the booster walks along the learners keeping the vote vector ``s`` over the classes;
learner ``i`` is shown a cost matrix ``C^i`` computed from ``s^{i-1}`` by the rule and
predicts the label with the least expected cost under its own ``predict_proba_one``. Sample
weights scale every update (``w=0`` is a no-op; negative, NaN or infinite weights raise
``ValueError``); NaN and infinite features are treated as missing; ``None`` is not accepted
as a label. Predictions are pure functions of the booster's state.

"""

from __future__ import annotations

import math

from river import base

from .booster import MulticlassBooster
from .potentials import LogisticLoss, MulticlassZeroOnePotential

__all__ = ["AdaBoostOLM", "OnlineMBBM"]

# River's checks on both boosters, with cost-sensitive and argmax weak predictions
_TEST_PARAMS = (
    {"n_models": 3, "seed": 1},
    {"n_models": 2, "weighting": "sampling", "weak_prediction": "argmax", "seed": 2},
)


class AdaBoostOLM(MulticlassBooster):
    """AdaBoost.OLM: adaptive online multiclass boosting with the logistic loss.

    Algorithm 2 of Jung, Goetz & Tewari (2017). Along the learners the booster keeps the
    weighted vote vector ``s^i = s^{i-1} + alpha_i e_{l_i}``. Learner ``i`` is shown the cost
    matrix (9), the gradient of the multiclass logistic loss
    ``L^r(s) = sum_{l != r} ln(1 + exp(s[l] - s[r]))`` at ``s^{i-1}``, predicts the label ``l_i``
    of least expected cost (or its own argmax, ``weak_prediction="argmax"``), and learns the
    example with weight ``w = -C[y, y] / (k - 1)`` in ``[0, 1]``. ``alpha_i`` follows projected
    online gradient descent on ``L^y(s^{i-1} + alpha e_{l_i})`` (gradient (10)) with rate
    ``learning_rate / ((k - 1) sqrt(t))`` on ``[-2, 2]``; experts (``argmax s^i``) are weighted
    by Hedge, ``v_i <- v_i exp(-1[mistake])``.

    **Prediction** as in :class:`river_boost.AdaBoostOL`: ``"hedge"`` (default) returns the
    Hedge mixture of the experts' softmax probabilities ``softmax(s^i)`` (for two classes,
    exactly AdaBoost.OL's mixture of ``sigmoid(F_i)``); ``"vote"`` the Hedge-weighted vote of
    the experts; ``"random"`` draws an expert, as in the paper.

    **Edges** are the paper's ``gamma_i = sum_t C[y, l_i] / sum_t C[y, y]`` in ``[-1, 1]``.

    **Two classes.** With ``classes=(False, True)``, ``learning_rate=4`` and
    ``weak_prediction="argmax"`` this is AdaBoost.OL step for step: same weights, same
    ``alpha`` updates, same predictions. (With ``"cost"`` the weak prediction depends on
    ``s``: a learner must be more confident to vote with the current majority.)

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
        20 by default (OnlineMBBM takes 10): the measured choice, more accurate than 10 on
        the bench's, held-out and drifting multiclass streams at about half the throughput
        (``benchmarks/RESULTS.md``, "How many learners: AdaBoost.OLM's default of 20").
    classes
        Labels known in advance (optional); others join when first seen.
    [shared: weighting]
    weak_prediction
        ``"cost"`` (the paper: least expected cost under the learner's probabilities) or
        ``"argmax"`` (the learner's most probable label).
    prediction
        ``"hedge"``, ``"vote"`` or ``"random"``.
    learning_rate
        ``c`` in the OGD rate ``c / ((k - 1) sqrt(t))``; the paper's choice is ``2 sqrt(2)``.
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: weight_scale]
    deep_scale
        1 (the default): off. Otherwise a second chain of ``ceil(n_models / 2)`` learners, the
        same booster taught with its weights multiplied by ``deep_scale`` (deeper trees), runs
        beside this one, and Hedge over the two chains' prequential mistakes predicts
        (:class:`~river_boost.booster.DeepChain`, as ``OSBoostOCP``'s default).
        ``deep_scale=12`` gained on ImageSegments, RandomRBF and the held-out multiclass streams
        and changed the others little, but at about half the throughput, so it is an option
        (``benchmarks/RESULTS.md``, "The learners' weight scale").
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory/surrogate]

    References
    ----------
    [^1]: AdaBoost.OLM, the adaptive algorithm (Algorithm 2) of Jung, Y.H., Goetz, J. and
    Tewari, A., 2017. Online multiclass boosting. In Advances in Neural Information Processing
    Systems (pp. 919-928).

    Examples
    --------

    Seven classes, none known in advance:

    >>> from river import datasets, evaluate, metrics
    >>> import river_boost

    >>> model = river_boost.AdaBoostOLM(n_models=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
    Accuracy: 82.85%

    """

    _test_params = _TEST_PARAMS + (
        {"n_models": 3, "prediction": "random", "seed": 3},
        {"n_models": 3, "deep_scale": 4.0, "seed": 4},
    )

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 20,
        classes: tuple | None = None,
        weighting: str = "importance",
        weak_prediction: str = "cost",
        prediction: str = "hedge",
        learning_rate: float = 2 * math.sqrt(2),
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        weight_scale: float = 1.0,
        deep_scale: float = 1.0,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
    ):
        self._build(LogisticLoss(), locals())


class OnlineMBBM(MulticlassBooster):
    """Online multiclass boost-by-majority (OnlineMBBM) with exact potentials.

    Algorithm 1 of Jung, Goetz & Tewari (2017) with the multiclass 0-1 loss. Learner ``i`` is
    shown the normalised cost matrix (5) built from the potentials
    ``phi_{N-i}^r(s^{i-1} + e_l)`` (the chance that the remaining ``N - i`` votes, drawn from
    ``u_gamma^r``, leave a wrong label tied with or ahead of ``r``), predicts the label of
    least expected cost, and learns the example with probability / importance
    ``p = w / w*`` where ``w = sum_l [phi(s + e_l) - phi(s + e_y)]``.

    **Exact potentials, no Monte Carlo** (the paper simulated them):
    :class:`river_boost.potentials.MulticlassZeroOnePotential` conditions on the votes of the
    right label and counts the capped multinomial of the others exactly, and caches results
    under ``(votes left, sorted gaps)``. Labels with equal scores are interchangeable, so a
    cost matrix costs ``G^2 + G`` potentials for ``G`` distinct scores. A potential with
    ``n <= 40`` votes left is the original dense DP (``O(n^3)``); above, an ``O(n^2)``
    Poisson-conditioned DP, so ``n_models`` in the hundreds runs, but an example's cost grows
    fast with ``N``, nearly all of it in the potentials no cache holds (``benchmarks/RESULTS.md``,
    "OnlineMBBM's cost"). For ensembles that large, :class:`AdaBoostOLM` costs the same per
    learner whatever ``N``.

    **Weight bound** ``w* = (k - 1) min(1, k M_n)`` with ``M_n`` the largest point
    probability of the gap between the right label's and one wrong label's remaining votes
    (a coupling argument, see ``MulticlassZeroOnePotential.max_weight``; tested to hold over
    all reachable states for small ``N, k``). With importance weighting only relative weights
    matter (they are rescaled to unit mean); the bound matters for ``weighting="sampling"``.

    **Two classes.** With ``k = 2`` the weights are exactly twice Online BBM's (formula (5),
    ties counted as mistakes in both): ``w_MBBM = 2 w_BBM``. With importance weighting only
    relative weights reach the learners, so ``OnlineMBBM(classes=(False, True),
    weak_prediction="argmax")`` makes the same predictions as ``OnlineBBM``.

    **Prediction** is the unweighted majority vote; ``predict_proba_one`` returns the
    smoothed vote shares ``(votes_l + 1/k) / (N + 1)``.

    **Edges**: ``gamma_i = 1 - k sum_t w_t D_t[y_t, l_t] / sum_t w_t`` from the weak learning
    condition (1): 0 for random guessing, 1 for a learner that is always right.

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    gamma
        Assumed edge, in ``(0, 1)``.
    classes
        Labels known in advance (optional); others join when first seen.
    [shared: weighting]
    weak_prediction
        ``"cost"`` (the paper) or ``"argmax"``.
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: weight_scale]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory]
    [shared: deep_scale]

    References
    ----------
    [^1]: OnlineMBBM, the optimal algorithm (Algorithm 1) of Jung, Y.H., Goetz, J. and Tewari,
    A., 2017. Online multiclass boosting. In Advances in Neural Information Processing Systems
    (pp. 919-928).

    Examples
    --------

    Exact potentials, no Monte Carlo, at an edge of 0.3:

    >>> from river import datasets, evaluate, metrics
    >>> from river_boost import OnlineMBBM

    >>> model = OnlineMBBM(n_models=5, gamma=0.3, seed=42)
    >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
    Accuracy: 79.08%

    Decided examples cost nothing: the last learners only see the undecided ones.

    >>> model.learner_updates
    [2310, 2310, 2310, 65, 28]

    """

    _test_params = _TEST_PARAMS

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        gamma: float = 0.1,
        classes: tuple | None = None,
        weighting: str = "importance",
        weak_prediction: str = "cost",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        weight_scale: float = 1.0,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
        deep_scale: float = 1.0,
    ):
        self._build(MulticlassZeroOnePotential(2, gamma), locals())
