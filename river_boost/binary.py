"""Binary online boosters: Online BBM, AdaBoost.OL (and .S), OSBoost (and .OCP), NH-Boost.DT,
SquintBoost.

Each is the booster walk (:class:`river_boost.booster.Booster`) over the labels
``True``/``False`` with one rule (:mod:`river_boost.potentials`). Labels may be ``bool``,
``numpy.bool_`` or ``0``/``1``; anything else raises ``ValueError``. Sample weights
(``learn_one(x, y, w=...)``) scale every update the example causes; a weight of 0 makes
``learn_one`` a no-op and a negative, NaN or infinite weight raises ``ValueError``. NaN and
infinite feature values are treated as missing features.

**Edges** of the binary boosters are the papers' ``gamma_i = (w^i . z^i) / (2 ||w^i||_1)``:
``w^i`` are the booster's weights for learner ``i`` (times the sample weights) and ``z^i``
its +/-1 correctness, measured before it learned each example; in ``[-1/2, 1/2]``, 0 for a
learner that has had no weight yet.

"""

from __future__ import annotations

from river import base

from .booster import BinaryBooster
from .potentials import (
    BinomialPotential,
    LogisticLoss,
    NormalHedgePotential,
    OSBoostOCPPotential,
    OSBoostPotential,
    Potential,
    SquintPotential,
)

__all__ = [
    "PotentialBooster",
    "EdgeBooster",
    "OnlineBBM",
    "NHBoostDT",
    "SquintBoost",
    "AdaBoostOL",
    "OSBoost",
    "OSBoostOCP",
]


def _checked(potential, n_models: int) -> Potential:
    """``potential``, if it is one and was built for ``n_models`` learners (if it says)."""
    if not isinstance(potential, Potential):
        raise TypeError(
            f"potential must be a river_boost.potentials.Potential, got {type(potential)}"
        )
    sized = getattr(potential, "n_models", n_models)
    if sized != n_models:
        raise ValueError(
            f"the potential is built for {sized} learners but n_models={n_models}: "
            "learners past its horizon would vote untrained"
        )
    return potential


class PotentialBooster(BinaryBooster):
    """Online boosting with any drifting-game potential (Beygelzimer et al. 2015, section 3.1).

    For each labelled example the booster walks along the learners with the example's state
    (its margin, or whatever the potential tracks; see
    :class:`river_boost.potentials.Potential`). Learner ``i`` gets the example with
    probability ``w / max_w`` from the potential, then the state moves by the learner's vote
    ``z`` (``+1`` right, ``-1`` wrong) and, for drifting potentials, its running empirical
    edge (taken before this example, as the batch algorithms use the round's edge).
    Prediction is the unweighted majority vote (ties go to ``True``);
    ``predict_proba_one`` is the smoothed vote fraction ``(#True + 1/2) / (N + 1)``.

    :class:`OnlineBBM`, :class:`NHBoostDT`, :class:`SquintBoost` and :class:`OSBoost` are
    this walk with a fixed potential; use this class to try a potential of your own (a
    surrogate loss such as :class:`~river_boost.potentials.LogisticLoss` also learns the
    learners' vote weights, as :class:`AdaBoostOL` does, with its defaults).

    Parameters
    ----------
    potential
        A binary :class:`river_boost.potentials.Potential`. A potential built for a number of
        learners (``potential.n_models``) must be built for ``n_models``.
    [shared: model]
    [shared: n_models]
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory/potential]
    [shared: deep_scale]

    References
    ----------
    [^1]: Section 3.1 (online boosting from any potential) of Beygelzimer, A., Kale, S. and Luo,
    H., 2015. Optimal and adaptive algorithms for online boosting. In International Conference
    on Machine Learning (pp. 2323-2331).

    Examples
    --------

    Plugging in boost-by-majority's potential gives Online BBM:

    >>> from river import datasets, evaluate, metrics
    >>> from river_boost import PotentialBooster
    >>> from river_boost.potentials import BinomialPotential

    >>> model = PotentialBooster(BinomialPotential(n_models=5, gamma=0.1), n_models=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 89.12%

    ``docs/new-booster.md`` writes a new potential in a few lines.

    """

    _test_params = tuple(
        {"potential": NormalHedgePotential(), **params} for params in BinaryBooster._test_params
    ) + ({"potential": BinomialPotential(3, 0.2), "n_models": 3, "seed": 4},)

    def __init__(
        self,
        potential: Potential,
        model: base.Classifier | None = None,
        n_models: int = 10,
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
        deep_scale: float = 1.0,
    ):
        self._build(_checked(potential, n_models), locals())


class EdgeBooster(BinaryBooster):
    """A binary booster whose potential assumes the weak learners' edge ``gamma``: the
    constructor :class:`OnlineBBM` and :class:`OSBoost` share (not used directly)."""

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        gamma: float = 0.1,
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
        deep_scale: float = 1.0,
    ):
        self._build(self._potential(n_models, gamma), locals())

    @staticmethod
    def _potential(n_models, gamma) -> Potential:
        raise NotImplementedError


class OnlineBBM(EdgeBooster):
    """Online boost-by-majority (Online BBM).

    Algorithm 1 of Beygelzimer, Kale & Luo (2015). For each labelled example the booster walks
    along the learners keeping the margin ``s`` (number of right minus wrong votes so far);
    learner ``i`` receives the example with probability ``p = w / ||w^i||_inf`` where ``w`` is
    the boost-by-majority weight (5): half the probability that a ``(1+gamma)/2``-biased coin
    tossed by the ``N - i`` remaining learners lands exactly on the decision boundary. Examples
    that are already decided get ``p = 0`` and cost no weak-learner update.

    ``||w^i||_inf`` is the exact maximum over margins reachable by learner ``i`` (a clamped
    binomial mode, see :class:`river_boost.potentials.BinomialPotential`), so ``p`` reaches 1.
    Weights are computed in log space: ``n_models=1000, gamma=0.001`` is fine.

    **Prediction** is the unweighted majority vote of the learners (ties go to ``True``).
    ``predict_proba_one`` returns the smoothed vote fraction ``(#True + 1/2) / (N + 1)``, which
    orders examples by their vote margin.

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    gamma
        Assumed edge of the weak learners, in ``(0, 1)``. Smaller values spread the weight over
        more examples; the paper tunes it by progressive validation (``river-boost tune``).
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory]
    [shared: deep_scale]

    References
    ----------
    [^1]: Online BBM is Algorithm 1 of Beygelzimer, A., Kale, S. and Luo, H., 2015. Optimal and
    adaptive algorithms for online boosting. In International Conference on Machine Learning
    (pp. 2323-2331).

    Examples
    --------

    Five learners on the Phishing stream that ships with River:

    >>> from river import datasets, evaluate, metrics
    >>> from river_boost import OnlineBBM

    >>> model = OnlineBBM(n_models=5, gamma=0.1, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 89.12%

    Each learner's edge, with the booster's weights (the later learners see harder examples):

    >>> [round(edge, 2) for edge in model.edges]
    [0.38, 0.36, 0.34, 0.19, 0.13]

    """

    @staticmethod
    def _potential(n_models, gamma):
        return BinomialPotential(n_models, gamma)


class NHBoostDT(BinaryBooster):
    """Online NH-Boost.DT: boosting with NormalHedge.DT's potential, parameter-free.

    NH-Boost.DT (Luo & Schapire 2014; Algorithm 3 of Otten 2016) is a batch booster whose
    example weights come from the NormalHedge.DT allocation algorithm. Online, the roles of
    Online BBM's drifting game carry over (Beygelzimer et al. 2015, section 3.1):

    - *time* is the learner index ``i`` (the batch round ``t``);
    - each *example* is an expert, and its *loss* at learner ``i`` is ``1{h_i(x) = y}``
      (the booster wants weight on what the learners get wrong);
    - the learners' weighted accuracy ``1/2 + gamma_i`` is the allocation's loss, where the
      batch edge ``gamma_t`` is replaced by learner ``i``'s running empirical edge
      (``edges``, measured with this booster's weights, before the current example);
    - the example's *regret* is ``-s`` with ``s^i = s^{i-1} + z_i / 2 - gamma_i``.

    Learner ``i`` gets weight ``(exp([s-1]_-^2 / 3i) - exp([s+1]_-^2 / 3i)) / 2`` with
    ``s = s^{i-1}`` and ``[s]_- = min(0, s)``. That weight is **exactly 0** once ``s >= 1``:
    examples the earlier learners classified better than their average cost no update at all
    (``zero_weights`` counts them). The weight is normalised by its exact maximum over the
    margins learner ``i`` can meet, the margin of an example every earlier learner got wrong
    (:class:`river_boost.potentials.NormalHedgePotential`), and computed in log space.
    Prediction is the unweighted majority vote, as in the batch algorithm.

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory]
    [shared: deep_scale]

    References
    ----------
    [^1]: Luo, H. and Schapire, R.E., 2014. A drifting-games analysis for online learning and
    applications to boosting. In Advances in Neural Information Processing Systems.
    [^2]: Otten, H., 2016. A theoretical analysis of boosting algorithms. Bachelor thesis,
    Leiden University.
    [^3]: Beygelzimer, A., Kale, S. and Luo, H., 2015. Optimal and adaptive algorithms for
    online boosting. In International Conference on Machine Learning (pp. 2323-2331).

    Examples
    --------

    It has no parameter of its own:

    >>> from river import datasets, evaluate, metrics
    >>> import river_boost

    >>> metric = metrics.Accuracy()
    >>> model = river_boost.NHBoostDT(n_models=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metric)
    Accuracy: 84.48%

    >>> [round(edge, 2) for edge in model.edges]
    [0.38, 0.22, 0.05, 0.04, -0.03]

    Examples the earlier learners already got right cost the later learners nothing:

    >>> model.zero_weights
    [0, 0, 11, 231, 545]

    On this small, noisy stream the later learners, fed mostly the examples the first ones
    got wrong, barely beat chance on them (see the edges), and the unweighted majority vote
    trails a single tree; ``benchmarks/RESULTS.md`` has the streams where it wins.

    """

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
        deep_scale: float = 1.0,
    ):
        self._build(NormalHedgePotential(), locals())


class SquintBoost(BinaryBooster):
    """Online SquintBoost: boosting with the Squint potential, parameter-free.

    SquintBoost (Otten 2016, Algorithm 4) is NH-Boost.DT with the Squint allocation algorithm
    (Koolen & van Erven 2015), whose regret bound scales with the variance of the regret
    instead of the number of rounds. Online, with the roles of :class:`NHBoostDT` (time =
    learner index, expert = example, loss = ``1{h_i(x) = y}``), the example keeps its regret
    ``R = sum_j r_j`` and variance ``V = sum_j r_j^2`` with ``r_j = gamma_j - z_j / 2``
    (``gamma_j`` is learner ``j``'s running empirical edge) and learner ``i`` gets weight
    ``int_0^{1/2} exp(eta R - eta^2 V) d eta`` (``prior="improper"``, the thesis's formula) or
    ``int_0^{1/2} 2 eta exp(eta R - eta^2 V) d eta`` (``prior="uniform"``), from the closed
    forms in :func:`river_boost.potentials.squint_log_integral` (error functions, in log
    space). The weight is normalised by its exact maximum over reachable states, reached by an
    example every earlier learner got wrong. Unlike NormalHedge, Squint never gives exactly
    zero weight: well-classified examples get tiny weights, which importance weighting thins
    (``min_weight``). The thesis's prior ``D`` over examples is the sample weight
    ``learn_one(x, y, w)``. Prediction is the unweighted majority vote.

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    prior
        Prior on Squint's learning rate ``eta``: ``"improper"`` (default) or ``"uniform"``.
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory]
    [shared: deep_scale]

    References
    ----------
    [^1]: Koolen, W.M. and van Erven, T., 2015. Second-order quantile methods for experts and
    combinatorial games. In Conference on Learning Theory (pp. 1155-1175).
    [^2]: Otten, H., 2016. A theoretical analysis of boosting algorithms. Bachelor thesis,
    Leiden University.

    Examples
    --------

    Nothing to tune, in a River pipeline like any classifier:

    >>> from river import compose, datasets, evaluate, metrics
    >>> from river_boost import SquintBoost

    >>> model = compose.Pipeline(SquintBoost(n_models=5, seed=42))
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.96%

    """

    _test_params = BinaryBooster._test_params + ({"n_models": 3, "prior": "uniform", "seed": 5},)

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        prior: str = "improper",
        weighting: str = "importance",
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
        deep_scale: float = 1.0,
    ):
        self._build(SquintPotential(prior), locals())


class OSBoost(EdgeBooster):
    """Online smooth boosting (OSBoost), the baseline of Beygelzimer et al. (2015).

    Chen, Lin & Lu (2012). Along the learners the booster keeps ``s <- s + z_i - theta`` with
    ``theta = gamma / (2 + gamma)`` and ``z_i = +1/-1`` for a right/wrong vote; learner ``i+1``
    gets the example with weight ``1`` if ``s <= 0`` and ``(1 - gamma)^(s/2)`` otherwise (a
    smooth distribution: no example weighs more than 1;
    :class:`~river_boost.potentials.OSBoostPotential`). Prediction is the uniform majority
    vote; ``predict_proba_one`` is the smoothed vote fraction, as in ``OnlineBBM``.

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    gamma
        Assumed edge, in ``(0, 1)``.
    [shared: weighting]
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory]
    [shared: deep_scale]

    References
    ----------
    [^1]: Chen, S.T., Lin, H.T. and Lu, C.J., 2012. An online boosting algorithm with
    theoretical justifications. In International Conference on Machine Learning.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics
    >>> from river_boost import OSBoost

    >>> stream = datasets.Phishing()
    >>> evaluate.progressive_val_score(stream, OSBoost(n_models=5, gamma=0.1, seed=42),
    ...                                metrics.Accuracy())
    Accuracy: 88.00%

    """

    @staticmethod
    def _potential(n_models, gamma):
        return OSBoostPotential(gamma)


class OSBoostOCP(BinaryBooster):
    """OSBoost.OCP: online smooth boosting with vote weights learned by online convex
    programming, the second baseline of Beygelzimer et al. (2015).

    Algorithm 1 of Chen, Lin & Lu (2012). The examples weigh for the learners as in
    :class:`OSBoost` (``s <- s + z_i - theta``, ``theta = gamma / (2 + gamma)``; weight ``1``
    if ``s <= 0``, else ``(1 - gamma)^(s/2)``). Instead of OSBoost's uniform vote, the
    learners' vote weights ``alpha`` live on the probability simplex, start uniform (``1/N``
    each) and follow projected online gradient descent on the hinge loss
    ``max(0, theta - y sum_i alpha_i h_i)`` of the weighted vote (``y``, ``h_i`` in
    ``{-1, +1}``, the votes before learning): while an example's margin is below ``theta``,
    ``alpha_i <- alpha_i + rate * w y h_i`` for every learner, then the Euclidean projection
    on the simplex (:class:`~river_boost.potentials.OSBoostOCPPotential`,
    :class:`~river_boost.engine._experts.SimplexOGD`). Prediction is the weighted vote
    ``sign(sum_i alpha_i h_i)`` (ties to ``True``); ``predict_proba_one`` is the
    ``alpha``-weighted share of True votes, ``P(True) = (1 + sum_i alpha_i h_i) / 2``.

    By default a second, shorter chain of learners taught with 12 times the weight (deeper
    trees) runs beside it, and Hedge over the two chains' mistakes makes the prediction
    (``deep_scale``; :class:`~river_boost.booster.DeepChain`).

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
        20 by default (the other binary boosters take 10): the measured choice, more accurate
        than 10 at about half the throughput (``benchmarks/RESULTS.md``, "How many learners:
        OSBoost.OCP's default of 20").
    gamma
        Assumed edge, in ``(0, 1)``: OSBoost's weights and the hinge loss's margin ``theta``.
    [shared: weighting]
    learning_rate
        ``c`` in the vote weights' step ``c / sqrt(t)``. The default is the measured choice
        (``benchmarks/RESULTS.md``, "OSBoost.OCP's learning rate"); the code behind the papers'
        experiments steps ``1 / sqrt(N t)``, close to it for ``N = 10`` to 20.
    [shared: diversify]
    [shared: feature_fraction/wide]
    [shared: min_weight]
    deep_scale
        A second chain of ``ceil(n_models / 2)`` learners beside this one, the same booster
        taught with its weights multiplied by ``deep_scale``, so that its Hoeffding trees split
        sooner and grow deeper; the booster predicts with Hedge over the two chains'
        prequential mistakes (:class:`~river_boost.booster.DeepChain`). 12 by default; 1 turns
        it off (one chain, faster). Shallow trees with naive-Bayes leaves win on noisy linear
        streams, deep trees on narrow non-linear ones: with both, the booster gained on most
        streams and lost on none of the bench's; a longer single chain gains less for the same
        time (``benchmarks/RESULTS.md``, "Two chains: shallow and deep trees").
    [shared: seed/simplex]
    [shared: drift_detector]
        The new learner's vote weight starts again at ``1/N`` (the others make room for it on
        the simplex).
    [shared: warning_detector]
    [shared: memory/simplex]

    References
    ----------
    [^1]: Chen, S.T., Lin, H.T. and Lu, C.J., 2012. An online boosting algorithm with
    theoretical justifications. In International Conference on Machine Learning.

    [^2]: Zinkevich, M., 2003. Online convex programming and generalized infinitesimal
    gradient ascent. In International Conference on Machine Learning (pp. 928-936).

    [^3]: Duchi, J., Shalev-Shwartz, S., Singer, Y. and Chandra, T., 2008. Efficient
    projections onto the l1-ball for learning in high dimensions. In International
    Conference on Machine Learning (pp. 272-279).

    Examples
    --------

    >>> from river import datasets, evaluate, metrics
    >>> from river_boost import OSBoostOCP

    >>> model = OSBoostOCP(n_models=5, gamma=0.1, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.64%

    The vote weights of its own five learners, learned on the simplex (they started at 0.2
    each), and Hedge's weight of the deep chain beside them (three learners taught with 12
    times the weight):

    >>> [round(alpha, 2) for alpha in model.alphas]
    [0.25, 0.17, 0.16, 0.03, 0.38]
    >>> round(model.deep_chain_weight, 2)
    0.79

    """

    # its thirty trees (the deep chain's included) would each learn and weigh every feature of
    # a wide stream: on a9a (123 features) a quarter of ARF's throughput per example otherwise
    _wide_subsets = True

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 20,
        gamma: float = 0.1,
        weighting: str = "importance",
        learning_rate: float = 0.3,
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        deep_scale: float = 12.0,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
    ):
        self._build(OSBoostOCPPotential(gamma), locals())


class AdaBoostOL(BinaryBooster):
    """AdaBoost.OL: adaptive, parameter-free online boosting with the logistic loss.

    Algorithm 2 of Beygelzimer, Kale & Luo (2015). Along the learners the booster keeps the
    weighted margin ``s^i = s^{i-1} + alpha_i z_i``; learner ``i`` gets the example with
    probability ``p = 1 / (1 + exp(s^{i-1}))`` (minus the logistic-loss derivative), the vote
    weights ``alpha_i`` follow online gradient descent on the logistic loss with rate
    ``4 / sqrt(t)``, projected on ``[-2, 2]``, and the ``N`` experts (expert ``i`` votes
    ``sign(sum_{j<=i} alpha_j h_j)``) are weighted by Hedge, ``v_i <- v_i exp(-1[mistake])``
    (:class:`~river_boost.potentials.LogisticLoss`, :class:`~river_boost.engine._experts.Hedge`).
    With ``weighting="sampling"`` this is AdaBoost.OL.S.

    **Prediction.** The paper draws an expert from the Hedge distribution. Three options:

    - ``"hedge"`` (default): ``P(True) = sum_i v_i sigmoid(F_i(x))``, the Hedge mixture of the
      experts' logistic-model probabilities (``F_i`` is expert ``i``'s score; the logistic
      loss is the log loss of ``sigmoid(F)``); ``predict_one`` is its argmax.
    - ``"vote"``: ``P(True) = sum_i v_i 1[F_i(x) >= 0]``, the probability that the paper's
      random draw says ``True``; ``predict_one`` is its argmax (Hedge-weighted vote).
    - ``"random"``: the paper's algorithm: ``predict_one`` draws an expert (seeded) and returns
      its vote; ``predict_proba_one`` returns the distribution it draws from (as ``"vote"``).

    The default was chosen by measurement (``benchmarks/RESULTS.md``, "The documented
    defaults"): ``"hedge"`` is as accurate as ``"vote"`` and, unlike it, gives graded
    probabilities (useful for log loss and ROC AUC).

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    [shared: weighting]
        ``"sampling"`` is AdaBoost.OL.S.
    prediction
        ``"hedge"``, ``"vote"`` or ``"random"``, see above.
    learning_rate
        ``c`` in the OGD step ``c / sqrt(t)``; the paper's analysis uses 4.
    [shared: diversify]
    [shared: feature_fraction]
    [shared: min_weight]
    [shared: seed]
    [shared: drift_detector]
    [shared: warning_detector]
    [shared: memory/surrogate]
    [shared: deep_scale]

    References
    ----------
    [^1]: AdaBoost.OL is Algorithm 2 and AdaBoost.OL.S its sampling variant in Beygelzimer, A.,
    Kale, S. and Luo, H., 2015. Optimal and adaptive algorithms for online boosting. In
    International Conference on Machine Learning (pp. 2323-2331).

    Examples
    --------

    The paper's learning rate, with Hedge mixing the experts' probabilities:

    >>> from river import datasets, evaluate, metrics
    >>> import river_boost

    >>> model = river_boost.AdaBoostOL(n_models=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.08%

    The learners' vote weights, learned by online gradient descent on the logistic loss:

    >>> [round(alpha, 2) for alpha in model.alphas]
    [1.85, 1.72, 0.54, -0.02, 0.12]

    """

    _test_params = BinaryBooster._test_params + (
        {"n_models": 3, "prediction": "random", "seed": 3},
    )

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_models: int = 10,
        weighting: str = "importance",
        prediction: str = "hedge",
        learning_rate: float = 4.0,
        diversify: bool | str = True,
        feature_fraction: float | str = "auto",
        min_weight: float = 0.3,
        seed: int | None = None,
        drift_detector: base.DriftDetector | None = None,
        warning_detector: base.DriftDetector | None = None,
        memory: int | None = None,
        deep_scale: float = 1.0,
    ):
        self._build(LogisticLoss(), locals())
