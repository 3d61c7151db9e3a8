"""Multi-label ranking boosters (Jung & Tewari 2018): Ada.OLMR and OnlineBMR.

A multi-label example is ``(x, y)`` with ``y`` a dict ``{label: bool}``. Both boosters are the
booster walk (:class:`river_boost.booster.Booster`) over the ranking task
(:class:`river_boost.tasks.RankingTask`): they keep a score per label (cumulative weighted
votes of multiclass weak learners, each voting with its ``predict_proba_one`` distribution
over the labels); the scores rank the labels. Labels join the label space the first time they
appear as a key of ``y``; a known label missing from a later ``y`` counts as irrelevant.

"""

from __future__ import annotations

from river import base, drift, tree

from .booster import RankingBooster
from .potentials import LogisticLoss, RankingPairPotential, logistic_rank_gradient, rank_loss

__all__ = ["AdaOLMR", "OnlineBMR", "logistic_rank_gradient", "rank_loss"]


# Majority-class leaves keep River's checks (500 rows of a 14-label set) quick.
_FAST_TREE = tree.HoeffdingTreeClassifier(leaf_prediction="mc", grace_period=50)


# drift adaptation on, with detectors quick to fire (River's checks,
# tests/boosters/test_multilabel.py)
_DRIFT_TEST = {
    "drift_detector": drift.ADWIN(delta=0.1, clock=4, grace_period=10),
    "warning_detector": drift.ADWIN(delta=0.5, clock=4, grace_period=10),
    "memory": 50,
}


class AdaOLMR(RankingBooster):
    """Ada.OLMR: adaptive online boosting for multi-label ranking (Jung & Tewari 2018, Alg. 3).

    Weak learner ``i`` is a multiclass River classifier over the labels; its prediction ``h^i``
    is its ``predict_proba_one`` read as a distribution over the known labels (uniform while it
    has no opinion). Expert ``i`` scores the labels with ``s^i = sum_{j<=i} alpha_j h^j``.

    On each labelled example, along the learners:

    - the cost vector is the gradient (8) of the logistic rank surrogate at ``s^{i-1}``
      (:func:`logistic_rank_gradient`); learner ``i`` is taught every relevant label ``l``
      with importance weight ``max(c) - c[l]`` (what the paper's experiments did), divided by
      its bound 2 to lie in ``[0, 1]`` and handed to the pool's importance / sampling modes;
    - ``alpha_i`` takes a projected online-gradient step on ``[-2, 2]`` with rate
      ``1 / sqrt(t)`` and gradient ``c^{i+1} . h^i``;
    - Hedge multiplies expert ``i``'s weight by ``exp(-rank loss of s^i)``.

    **Scores and predictions.** ``score_one(x)`` returns the label scores: with
    ``prediction="hedge"`` (default, deterministic) the Hedge mixture ``sum_i v_i s^i``; with
    ``"random"`` (the paper) the scores of one expert drawn from Hedge (seeded). Label sets
    and probabilities follow from the scores as in :class:`RankingBooster` (a learned label
    count; True probabilities in score order; with ``deep_scale``, Hedge's mixture of two
    chains' probabilities, :class:`~river_boost.booster.DeepChain`).

    Parameters
    ----------
    [shared: model/ranking]
        Which leaves suit which trees: with trees that split rarely (the default diversified
        trees), leaves should give ``x``-dependent probabilities before the tree splits, as
        River's default adaptive naive-Bayes leaves do; majority-class leaves would vote the same
        distribution for every ``x`` until a split, and on a small set none may come. With trees
        that split every few examples (``diversify="paper"``) majority-class leaves, VFDT's and
        the paper's, ranked better (``benchmarks/RESULTS.md``, "The paper's Table 3 protocol").
    [shared: n_models]
    prediction
        ``"hedge"`` or ``"random"``, see above.
    learning_rate
        ``c`` in the OGD step ``c / sqrt(t)`` on ``alpha``; the paper's is 1.
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction/ranking]
    [shared: min_weight]
    [shared: deep_scale]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory/surrogate]

    References
    ----------
    [^1]: Ada.OLMR, the adaptive algorithm (Algorithm 3) of Jung, Y.H. and Tewari, A., 2018.
    Online boosting algorithms for multi-label ranking. In International Conference on
    Artificial Intelligence and Statistics (pp. 279-287).

    Examples
    --------

    Each of the first 200 rows of Yeast is ranked, then learned:

    >>> from river import datasets
    >>> import river_boost
    >>> from river_boost.metrics import RankLoss, evaluate_ranking

    >>> model = river_boost.AdaOLMR(n_models=3, seed=42)
    >>> evaluate_ranking(datasets.Yeast().take(200), model, RankLoss())
    RankLoss: 0.2574

    """

    _test_params = (
        {"model": _FAST_TREE, "n_models": 3, "seed": 1},
        {"n_models": 2, "prediction": "random", "weighting": "sampling", "seed": 2},
        {"model": _FAST_TREE, "n_models": 3, "seed": 3, **_DRIFT_TEST},
        {"model": _FAST_TREE, "n_models": 3, "deep_scale": 4.0, "seed": 4},
    )

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        prediction: str = "hedge",
        learning_rate: float = 1.0,
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        deep_scale: float = 1.0,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
    ):
        self._build(LogisticLoss(), locals())


class OnlineBMR(RankingBooster):
    """OnlineBMR: optimal online boosting for multi-label ranking (Jung & Tewari 2018, Alg. 2).

    Every learner has weight 1 and the booster follows the last expert: the label scores are
    the summed weak predictions ``s^N = sum_i h^i`` (each ``h^i`` the learner's
    ``predict_proba_one`` over the labels). On each labelled example, learner ``i`` gets the
    cost vector ``c[l] = phi^{N-i}(s^{i-1} + e_l)`` (2), the expected final loss if it voted
    ``l`` and the remaining ``N - i`` learners were the ``gamma``-edge baseline. The potentials
    are **exact** (:class:`river_boost.potentials.RankingPairPotential`: pair terms of a
    trinomial difference, no Monte Carlo) for the hinge loss (default; the paper's choice
    for distribution-valued predictions) or the rank loss (for single-label learners).

    As in the paper's experiments, learner ``i`` is taught every relevant label ``l`` with
    importance weight ``max(c) - c[l]``, divided by a bound on ``max(c) - min(c)``: 2 for the
    hinge loss (the paper's appendix) and 1 for the rank loss (its potentials lie in
    ``[0, 1]``), so that it lies in ``[0, 1]`` for the pool's importance / sampling modes.
    The edge reported for learner ``i`` is its cost-weighted advantage over a uniform vote,
    ``sum (mean(c) - c . h) / sum (max(c) - min(c))``. Label sets and probabilities follow
    from the scores as in :class:`RankingBooster` (with ``deep_scale``, Hedge's mixture of two
    chains' probabilities, :class:`~river_boost.booster.DeepChain`).

    Parameters
    ----------
    [shared: model/ranking]
        :class:`AdaOLMR`'s ``model`` says which leaves suit which trees.
    [shared: n_models]
    gamma
        Edge of the baseline learner; the paper tried {.2, .1, .01, .001} for few labels and
        {.05, .01, .005, .001} for many.
    loss
        ``"hinge"`` or ``"rank"``.
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction/ranking]
    [shared: min_weight]
    [shared: deep_scale]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory]

    References
    ----------
    [^1]: OnlineBMR, the optimal algorithm (Algorithm 2) of Jung, Y.H. and Tewari, A., 2018.
    Online boosting algorithms for multi-label ranking. In International Conference on
    Artificial Intelligence and Statistics (pp. 279-287).

    Examples
    --------

    The first 200 rows of Yeast, ranked before each is learned:

    >>> from river import datasets
    >>> from river_boost import OnlineBMR
    >>> from river_boost.metrics import RankLoss, evaluate_ranking

    >>> model = OnlineBMR(n_models=3, gamma=0.1, seed=42)
    >>> evaluate_ranking(datasets.Yeast().take(200), model, RankLoss())
    RankLoss: 0.2571

    """

    _test_params = (
        {"model": _FAST_TREE, "n_models": 3, "gamma": 0.1, "seed": 1},
        {"n_models": 2, "gamma": 0.2, "loss": "rank", "weighting": "sampling", "seed": 2},
        {"model": _FAST_TREE, "n_models": 3, "gamma": 0.1, "seed": 3, **_DRIFT_TEST},
        {"model": _FAST_TREE, "n_models": 3, "gamma": 0.1, "deep_scale": 4.0, "seed": 4},
    )

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        gamma: float = 0.1,
        loss: str = "hinge",
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        deep_scale: float = 1.0,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
    ):
        self._build(RankingPairPotential(gamma, loss), locals())
