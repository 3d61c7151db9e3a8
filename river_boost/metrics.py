"""Label-ranking metrics for multi-label streams, as River metrics, and an evaluation helper.

River's multi-label metrics judge label *sets*; these judge the *ranking* a model gives the
labels. Each metric's ``update(y_true, y_pred)`` takes the true labels as ``{label: bool}``
and the prediction as label scores ``{label: float}`` (higher ranks first) or as
``predict_proba_one``'s ``{label: {False: p0, True: p1}}`` (ranked by ``p1``). Labels missing
from ``y_true`` are irrelevant; labels missing from ``y_pred`` score ``-inf``.

Rows with no relevant label (and, for the rank loss, rows where every label is relevant)
have no defined value: they are skipped and counted in ``n_skipped``.

"""

from __future__ import annotations

import math

from river import base, metrics

from ._params import check_choice
from .potentials import rank_loss

__all__ = ["RankLoss", "OneError", "Coverage", "AveragePrecision", "evaluate_ranking"]


def _scores(y_pred) -> dict:
    out = {}
    for label, v in y_pred.items():
        out[label] = float(v.get(True, 0.0)) if isinstance(v, dict) else float(v)
    return out


class RankingMetric(metrics.base.Metric):
    """Mean of a per-row ranking measure over the rows where it is defined."""

    def __init__(self):
        self._sum = 0.0
        self._n = 0.0
        self.n_skipped = 0

    bigger_is_better = False

    def _row(self, relevant: set, scores: dict) -> float | None:
        """The row's value (``relevant`` is not empty), or None where it has none."""
        raise NotImplementedError

    def _value(self, y_true, y_pred) -> float | None:
        relevant, scores = self._prepare(y_true, y_pred)
        return self._row(relevant, scores) if relevant else None

    def _prepare(self, y_true, y_pred):
        scores = _scores(y_pred)
        labels = set(scores) | set(y_true)
        scores = {label: scores.get(label, -math.inf) for label in labels}
        relevant = {label for label, v in y_true.items() if v}
        return relevant, scores

    def update(self, y_true, y_pred, w=1.0):
        value = self._value(y_true, y_pred)
        if value is None:
            self.n_skipped += 1
            return
        self._sum += w * value
        self._n += w

    def revert(self, y_true, y_pred, w=1.0):
        value = self._value(y_true, y_pred)
        if value is None:
            self.n_skipped -= 1
            return
        self._sum -= w * value
        self._n -= w

    def get(self):
        return self._sum / self._n if self._n else 0.0

    @property
    def n_scored(self) -> float:
        """Total weight of the rows the metric has a value for (skipped rows excluded)."""
        return self._n

    def works_with(self, model) -> bool:
        return isinstance(model, base.MultiLabelClassifier)

    @property
    def requires_labels(self):
        return False

    def __repr__(self):
        return f"{type(self).__name__}: {self.get():.4f}"


class RankLoss(RankingMetric):
    """Share of (relevant, irrelevant) label pairs ranked the wrong way round, normalised by
    ``|Y| * |Y^c|``. Lower is better.

    Parameters
    ----------
    ties
        What a tied pair counts: ``"half"`` (default, the convention of Jung & Tewari 2018
        and of the boosters' own rank loss) or ``"wrong"`` (scikit-learn's
        ``label_ranking_loss``). Without ties the two agree; rows without a (relevant,
        irrelevant) pair are skipped here, where scikit-learn counts them as 0 in its mean.

    Examples
    --------

    >>> metric = RankLoss()
    >>> metric.update({"a": True, "b": False, "c": True}, {"a": 3.0, "b": 2.0, "c": 2.0})
    >>> metric
    RankLoss: 0.2500

    """

    TIES = {"half": 0.5, "wrong": 1.0}

    def __init__(self, ties: str = "half"):
        check_choice("ties", ties, tuple(self.TIES))
        super().__init__()
        self.ties = ties

    def _row(self, relevant, scores):
        is_relevant = [label in relevant for label in scores]
        value = rank_loss(list(scores.values()), is_relevant, tie=self.TIES[self.ties])
        return None if math.isnan(value) else value


class OneError(RankingMetric):
    """Whether the top-ranked label is irrelevant (ties at the top: the irrelevant share among
    them). Lower is better.

    Examples
    --------

    >>> metric = OneError()
    >>> metric.update({"a": False, "b": True}, {"a": 0.9, "b": 0.1})
    >>> metric
    OneError: 1.0000

    """

    def _row(self, relevant, scores):
        top = max(scores.values())
        tied = [label for label, v in scores.items() if v == top]
        return sum(label not in relevant for label in tied) / len(tied)


def _rank(scores: dict, label) -> int:
    """1-based rank of ``label``, ties counted pessimistically (all tied labels before it)."""
    return sum(v >= scores[label] for v in scores.values())


class Coverage(RankingMetric):
    """How many steps down the ranking are needed to cover every relevant label (rank of the
    lowest-ranked relevant label, minus 1; ties pessimistic). Lower is better. This is the
    convention of Schapire & Singer; scikit-learn's ``coverage_error`` is this plus 1.

    Examples
    --------

    >>> metric = Coverage()
    >>> metric.update({"a": True, "b": False, "c": True}, {"a": 3.0, "b": 2.0, "c": 1.0})
    >>> metric
    Coverage: 2.0000

    """

    def _row(self, relevant, scores):
        return float(max(_rank(scores, label) for label in relevant) - 1)


class AveragePrecision(RankingMetric):
    """Mean over relevant labels ``l`` of the share of relevant labels ranked at or above
    ``l`` (ties pessimistic). Higher is better; scikit-learn's
    ``label_ranking_average_precision_score`` on the same rows.

    Examples
    --------

    >>> metric = AveragePrecision()
    >>> metric.update({"a": True, "b": False, "c": True}, {"a": 3.0, "b": 2.0, "c": 1.0})
    >>> metric
    AveragePrecision: 0.8333

    """

    bigger_is_better = True

    def _row(self, relevant, scores):
        ranks = {label: _rank(scores, label) for label in relevant}
        total = 0.0
        for rank in ranks.values():
            total += sum(r <= rank for r in ranks.values()) / rank
        return total / len(relevant)


def evaluate_ranking(dataset, model, metric, *, train=None, print_every=0):
    """Feed ``model``'s label scores to ranking metrics, in the spirit of
    ``river.evaluate.progressive_val_score``.

    ``train`` (optional) is learned first without scoring (the papers' train split); then, for
    each ``(x, y)`` of ``dataset``, the model scores the labels, the metrics are updated, and the
    model learns ``(x, y)``. Scores come from ``model.score_one(x)`` when the model has it, else
    from ``predict_proba_one``'s True probabilities. ``metric`` is one metric or a list;
    returns it (them).
    """
    metrics_ = metric if isinstance(metric, (list, tuple)) else [metric]
    for x, y in train or ():
        model.learn_one(x, y)
    score = getattr(model, "score_one", None) or model.predict_proba_one
    for t, (x, y) in enumerate(dataset, start=1):
        y_pred = score(x)
        for m in metrics_:
            m.update(y, y_pred)
        model.learn_one(x, y)
        if print_every and t % print_every == 0:
            print(f"[{t:,d}] " + " – ".join(repr(m) for m in metrics_))
    return metric
