"""The three label spaces a booster can work in: binary, multiclass, multi-label ranking.

A task says what a label is, how a weak learner's ``predict_proba_one`` becomes a vote, how
the experts' scores move with each vote (the *prediction walk*, which never looks at the
label, so predicting and then learning the same ``x`` share it), what a learner is taught for
a labelled example, and how the experts' scores become a prediction: each class's docstring
gives that math, which the compiled walk (:mod:`river_boost.engine`) computes. The rule
(:class:`river_boost.potentials.Potential`) says how much the example weighs. The task
objects keep the label space (labels in order of arrival, their support, the label count).

Binary is the two-class case of multiclass with a fast scalar path: margins and
``P(True)`` instead of vectors.

"""

from __future__ import annotations

from .engine._constants import COST_TIE, MIN_SUPPORT
from .engine._contract import as_binary_label

__all__ = [
    "BinaryTask",
    "MulticlassTask",
    "RankingTask",
    "check_labels",
    "COST_TIE",
    "MIN_SUPPORT",
]

# MIN_SUPPORT (the learned examples a label needs before the learners' votes count it) and
# COST_TIE (expected costs this close, relative, are a tie): defined, with their reasons, in
# river_boost/engine/_constants.pxd.


def check_labels(new: list, known: list) -> list:
    """``new`` if they can join the ``known`` labels, else ``ValueError``.

    A label is hashable, not None and not NaN, and can be ordered with the other labels:
    River's trees sort the classes they have seen, and labels of kinds that do not compare
    (``"cat"`` and ``2``) would break every later prediction.
    """
    for y in new:
        if y is None:
            raise ValueError("None is not a valid label")
        try:
            hash(y)
        except TypeError:
            raise ValueError(f"labels must be hashable, got {y!r}") from None
        if y != y:
            raise ValueError(f"NaN is not a valid label, got {y!r}")
    fresh = [y for y in new if y not in known]
    if fresh:
        try:
            sorted([*known, *fresh])
        except TypeError:
            raise ValueError(
                f"labels {fresh!r} cannot be ordered with the known labels {known!r}: "
                "labels must be of kinds that compare (all strings, or all numbers, ...)"
            ) from None
    return new


def _counts(values) -> list:
    """``values`` checked to be counts (ints >= 0)."""
    values = list(values)
    if not all(type(v) is int and v >= 0 for v in values):
        raise ValueError("counts that are not integers >= 0")
    return values


class BinaryTask:
    """Labels ``True``/``False`` (also ``numpy.bool_`` and ``0``/``1``).

    A learner votes ``h = +1`` when its ``P(True) >= 1/2`` (``sign(0) = +1``; a learner with
    no opinion has ``P(True) = 1/2``); expert ``i`` scores ``F_i = sum_{j <= i} alpha_j h_j``.

    **Learning.** Learner ``i`` is taught ``y`` with the rule's weight. For Hedge, expert
    ``i``'s loss is its 0/1 error, ``sign(F_i)`` against ``y``; for drift detection, learner
    ``i``'s error is its vote ``h_i`` against ``y``.

    **Predicting.** Without vote weights, ``P(True) = (#True votes + 1/2) / (N + 1)`` (never 0
    or 1, exactly 1/2 on a tie). With them, by ``prediction``: ``"hedge"``, the mixture
    ``sum_i v_i sigmoid(F_i)`` (Hedge's weights ``v``), computed as ``1/2 + sum_i v_i
    tanh(F_i / 2) / 2`` so that experts with no opinion give exactly 1/2; ``"vote"``, the
    Hedge weight of the experts with ``F_i >= 0``; ``"final"`` (vote weights on the simplex,
    OSBoost.OCP), ``(1 + F_N) / 2``; ``"random"``, ``sign(F_i)`` of an expert drawn with
    Hedge's weights. The label is True when ``P(True) >= 1/2``.
    """

    kind = "binary"
    multiclass = False
    predictions = ("hedge", "vote", "random")

    ready = True

    def check_label(self, y) -> bool:
        return as_binary_label(y)

    def _state(self) -> None:
        """What learning changed (the booster's pickle holds it): nothing."""
        return None

    def _take_state(self, state) -> None:
        if state is not None:
            raise ValueError("a binary task has no state")

    @staticmethod
    def best(proba: dict) -> bool:
        """The label probabilities ``proba`` predict: True when ``P(True) >= 1/2``."""
        return proba[True] >= 0.5  # ties go to True, sign(0) = +1


class MulticlassTask:
    """Any hashable labels but ``None``; a label seen for the first time joins the label space.

    A learner's ``predict_proba_one`` is read as a distribution over the known labels (uniform
    while it has no opinion). With ``weak_prediction="cost"`` it votes the label of least
    expected cost under that distribution, the cost matrix being the rule's at the state the
    earlier learners left (the paper); with ``"argmax"``, its most probable label. Ties (between
    labels of equal cost or equal votes) go to a fixed label order: the largest label when
    labels can be sorted (so ``True`` beats ``False``, as ``sign(0) = +1``), else the label
    seen first. Expected costs within ``COST_TIE`` of the least (relative to the largest cost
    in magnitude) are ties. Once two labels have ``MIN_SUPPORT`` learned examples, the
    distributions are read over those labels only. Expert ``i`` scores the vector ``s^i =
    sum_{j <= i} alpha_j e_{h_j}`` (vote counts without vote weights).

    **Learning.** Learner ``i`` is taught ``y`` with the rule's weight. For Hedge, expert
    ``i``'s loss is 0 when its best-scored label (ties as above) is ``y``, else 1; the vote
    weights' learning rate is divided by ``k - 1`` (the paper's ``c / ((k - 1) sqrt(t))``).
    For drift detection, learner ``i``'s error is its vote against ``y``.

    **Predicting.** Without vote weights, the smoothed vote shares ``(votes_l + 1/k) / (N +
    1)``. With them, by ``prediction``: ``"hedge"``, ``sum_i v_i softmax(s^i)``; ``"vote"``,
    the Hedge weight of the experts whose best label is ``l``; ``"random"``, the best label of
    an expert drawn with Hedge's weights. The label is the most probable one (ties as above);
    with fewer than two labels known, the one label (probability 1).
    """

    kind = "multiclass"
    multiclass = True
    predictions = ("hedge", "vote", "random")
    WEAK_PREDICTIONS = ("cost", "argmax")

    def __init__(self, classes=None, weak_prediction: str = "cost"):
        if weak_prediction not in self.WEAK_PREDICTIONS:
            raise ValueError(
                f"weak_prediction must be one of {self.WEAK_PREDICTIONS}, got {weak_prediction!r}"
            )
        self.weak_prediction = weak_prediction
        self.classes: list = []  # in order of first appearance
        self.support: list = []  # learned examples of each class
        self._index: dict = {}
        self._rank: list = []  # tie-break rank of each class index (0 wins)
        for c in classes or ():
            self.register(self.check_label(c))

    @property
    def ready(self) -> bool:
        return len(self.classes) >= 2

    def _state(self) -> tuple:
        """What learning changed (the booster's pickle holds it): the labels in order of
        arrival and their support."""
        return (list(self.classes), list(self.support))

    def _take_state(self, state: tuple) -> None:
        """:meth:`_state`'s state, into a task just built with the same parameters."""
        classes, support = state
        if len(support) != len(classes) or classes[: len(self.classes)] != self.classes:
            raise ValueError("labels that are not this task's")
        for c in classes:
            self.register(self.check_label(c))
        if len(self.classes) != len(classes):
            raise ValueError("a label repeated")
        self.support[:] = _counts(support)

    @property
    def k(self) -> int:
        return len(self.classes)

    # -------------------------------------------------------------- labels

    def check_label(self, y):
        return check_labels([y], self.classes)[0]

    def best(self, proba: dict):
        """The label probabilities ``proba`` (over known labels) predict: the most probable,
        ties to the label ranked first (the greatest); ``None`` without any."""
        if not proba:
            return None
        rank, index = self._rank, self._index
        return max(proba, key=lambda c: (proba[c], -rank[index[c]]))

    def register(self, y) -> int:
        """The index of the (checked) label ``y``, which joins the label space if it is new
        (the booster's engine then counts it in ``support``)."""
        idx = self._index.get(y)
        if idx is None:
            self._index[y] = idx = len(self.classes)
            self.classes.append(y)
            self.support.append(0)
            try:
                order = sorted(
                    range(len(self.classes)), key=lambda j: self.classes[j], reverse=True
                )
            except TypeError:
                order = list(range(len(self.classes)))
            self._rank = [0] * len(order)
            for position, j in enumerate(order):
                self._rank[j] = position
        return idx


class RankingTask:
    """Multi-label ranking: a label is a dict ``{label: bool}``; the boosters rank the labels.

    Labels join the label space the first time they appear as a key; a known label missing
    from a later ``y`` counts as irrelevant. A weak learner is a multiclass classifier over
    the labels and votes its ``predict_proba_one`` as a distribution over the known labels
    (uniform while it has no opinion); expert ``i`` scores ``s^i = sum_{j <= i} alpha_j h^j``.

    **From scores to a label set.** The task keeps the running mean of ``|Y|`` (weighted by
    the sample weights) and predicts the ``round(mean)`` best-scored labels (ties included).
    ``P(True) = sigmoid(score - c)`` with ``c`` halfway between the last predicted and the
    first unpredicted score, so the True probabilities order the labels exactly as the scores
    do. Rows whose label set is empty or full have no (relevant, irrelevant) pair: they teach
    the learners nothing (they still update the label count) and are counted as skipped.

    **Learning.** The rule gives learner ``i`` a cost vector ``c`` and a bound; the learner is
    taught every relevant label ``l`` with weight ``min(1, (max c - c_l) / bound)`` (what the
    paper's experiments did). For Hedge, expert ``i``'s loss is the rank loss of ``s^i``
    (:func:`~river_boost.potentials.rank_loss`); for drift detection, learner ``i``'s error is
    whether its top label is irrelevant (one-error).

    **Scores.** Without vote weights, ``sum_i h^i``; with them, Hedge's mixture ``sum_i v_i
    s^i`` (``prediction="hedge"``) or the scores of an expert drawn with Hedge's weights
    (``"random"``).
    """

    kind = "ranking"
    multiclass = True
    predictions = ("hedge", "random")

    def __init__(self):
        self.labels: list = []
        self.support: list = []  # learned rows where each label was relevant
        self._index: dict = {}
        self._count_sum = 0.0  # running sum of |Y| (weighted) for the label-count rule
        self._count_weight = 0.0
        self.n_skipped = 0

    @property
    def ready(self) -> bool:
        return bool(self.labels)

    def _state(self) -> tuple:
        """What learning changed (the booster's pickle holds it): the labels in order of
        arrival, their support, the running label count and the rows skipped."""
        return (
            list(self.labels),
            list(self.support),
            self._count_sum,
            self._count_weight,
            self.n_skipped,
        )

    def _take_state(self, state: tuple) -> None:
        """:meth:`_state`'s state, into a task just built."""
        labels, support, count_sum, count_weight, n_skipped = state
        if self.labels or len(support) != len(labels):
            raise ValueError("labels that are not this task's")
        check_labels(list(labels), [])
        for label in labels:
            if label in self._index:
                raise ValueError("a label repeated")
            self._index[label] = len(self.labels)
            self.labels.append(label)
        self.support[:] = _counts(support)
        self._count_sum, self._count_weight = float(count_sum), float(count_weight)
        (self.n_skipped,) = _counts([n_skipped])

    @property
    def k(self) -> int:
        """The number of labels known."""
        return len(self.labels)

    # -------------------------------------------------------------- labels

    def check_label(self, y) -> dict:
        if not isinstance(y, dict):
            raise ValueError(
                f"a multi-label target is a dict {{label: bool}}, got {type(y).__name__}"
            )
        check_labels(list(y), self.labels)
        return {label: as_binary_label(v) for label, v in y.items()}

    def register(self, y: dict) -> bool:
        """The labels of the (checked) label set ``y`` that are new join the label space, in
        sorted order; whether any did. The booster's engine then records the row: the
        running label count, the rows skipped (empty or full label sets) and each relevant
        label's support."""
        joined = False
        for label in sorted(y, key=lambda v: (type(v).__name__, v)):
            if label not in self._index:
                self._index[label] = len(self.labels)
                self.labels.append(label)
                self.support.append(0)
                joined = True
        return joined
