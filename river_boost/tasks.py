"""The three label spaces a booster can work in: binary, multiclass, multi-label ranking.

A task says what a label is, how a weak learner's ``predict_proba_one`` becomes a vote, how
the experts' scores move with each vote (the *prediction walk*, which never looks at the
label, so predicting and then learning the same ``x`` share it), what a learner is taught for
a labelled example, and how the experts' scores become a prediction. The rule
(:class:`river_boost.potentials.Potential`) says how much the example weighs; the booster
(:class:`river_boost.booster.Booster`) walks.

Binary is the two-class case of multiclass with a fast scalar path: margins and
``P(True)`` instead of vectors.

"""

from __future__ import annotations

import math

import numpy as np

from .core import as_binary_label
from .potentials import rank_loss, sigmoid

__all__ = ["Example", "Walk", "BinaryTask", "MulticlassTask", "RankingTask", "check_labels"]

# A label takes part in reading the weak learners' votes once this many learned examples
# have it (relevant, for multi-label rows), as soon as two labels have that support. River's
# naive-Bayes leaves give a class seen once every advantage (its Gaussians are degenerate and
# skipped, so it pays no likelihood): one stray example of a new class made the trees vote
# for it everywhere for hundreds of events. Measured in benchmarks/RESULTS.md.
MIN_SUPPORT = 2

# Expected costs closer than this fraction of the largest cost in magnitude are a tie, broken
# by the label order: the exact ties of the math (a learner with no opinion, symmetric scores)
# would otherwise go to whichever label the last bits of a sum favour.
COST_TIE = 1e-9


def _supported(support: list) -> np.ndarray | None:
    """A mask of the labels with enough support, or None when every label counts (all have
    it, or fewer than two do: nothing to choose between yet)."""
    ok = np.array([n >= MIN_SUPPORT for n in support])
    n_ok = int(ok.sum())
    return None if n_ok == len(ok) or n_ok < 2 else ok


def _walk_key(task) -> tuple:
    """``walk_key()`` of the multiclass and ranking tasks: what their walk depends on besides
    the learners and experts, the number of labels and which have enough support (supports
    only grow, so how many reach ``MIN_SUPPORT`` tells which). A walk made for a prediction
    serves the learning of the same ``x`` only while it is unchanged, and a label's commit
    can change it."""
    return len(task.support), sum(1 for n in task.support if n >= MIN_SUPPORT)


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


class Walk:
    """The label-free part of a walk along the learners for one ``x``.

    ``rows``: each learner's reading of ``x`` (binary: ``P(True)``; otherwise a distribution
    over the known labels); ``votes``: each learner's vote (binary: ``+1/-1``; multiclass: a
    label index; ranking: its distribution); ``scores``: each expert's score (the first
    ``i`` votes, weighted by ``alpha``) or None where the task does not need them; ``costs``:
    the cost matrices shown to each learner for cost-sensitive votes (multiclass), or None.
    """

    def __init__(self, rows, votes, scores=None, costs=None):
        self.rows, self.votes, self.scores, self.costs = rows, votes, scores, costs


class Example(Walk):
    """One labelled example as the rule sees it along the walk (see ``Potential``): the walk,
    the sample weight ``w``, ``n_models``, the learners' ``alphas`` and ``edges``, and the
    task's fields for the label (``y``, ``sign``, ``yi``, ``relevant``, ``k``)."""

    def __init__(self, walk: Walk, w: float, n_models: int, alphas, edges, **label):
        super().__init__(walk.rows, walk.votes, walk.scores, walk.costs)
        self.w, self.n_models, self.alphas, self.edges = w, n_models, alphas, edges
        self.__dict__.update(label)


class BinaryTask:
    """Labels ``True``/``False`` (also ``numpy.bool_`` and ``0``/``1``).

    A learner votes ``h = +1`` when its ``P(True) >= 1/2`` (``sign(0) = +1``; a learner with
    no opinion has ``P(True) = 1/2``); expert ``i`` scores ``F_i = sum_{j <= i} alpha_j h_j``.
    """

    kind = "binary"
    multiclass = False
    predictions = ("hedge", "vote", "random")

    ready = True

    def check_label(self, y) -> bool:
        return as_binary_label(y)

    def commit(self, y, w):
        return {"y": y, "sign": 1 if y else -1}

    def walk_key(self):
        """What the walk depends on besides the learners and experts: nothing here."""
        return None

    def walk(self, dists, alphas, rule, n_models) -> Walk:
        probas = []
        for proba in dists:
            p_true = proba.get(True, 0.0)
            total = p_true + proba.get(False, 0.0)
            probas.append(p_true / total if total > 0 else 0.5)
        votes = [1 if p >= 0.5 else -1 for p in probas]
        scores = None
        if alphas is not None:
            scores, f = [], 0.0
            for alpha, p in zip(alphas, probas):
                f += alpha if p >= 0.5 else -alpha
                scores.append(f)
        return Walk(probas, votes, scores)

    def offers(self, ex: Example, teach) -> list:
        y = ex.y
        return [(i, y, p) for i, p in enumerate(teach)]

    def expert_losses(self, ex: Example) -> list:
        # expert i predicts sign(F_i) with sign(0) = +1
        if ex.y:
            return [1.0 if f < 0 else 0.0 for f in ex.scores]
        return [1.0 if f >= 0 else 0.0 for f in ex.scores]

    rate_divisor = 1.0  # the vote weights' learning rate as it is

    def errors(self, ex: Example) -> list:
        """Each learner's 0/1 error on the example (its vote against the label)."""
        sign = ex.sign
        return [0 if v == sign else 1 for v in ex.votes]

    def proba(self, walk: Walk, experts) -> dict:
        if experts is None:
            # Smoothed fraction of learners voting True, (#True + 1/2) / (N + 1): monotone in
            # the vote margin, exactly 1/2 on a tie, never 0 or 1 (log loss stays finite).
            p_true = (walk.votes.count(1) + 0.5) / (len(walk.votes) + 1.0)
        elif experts.prediction == "hedge":
            # sum_i v_i sigmoid(F_i), written as 1/2 + sum_i v_i tanh(F_i / 2) / 2 so that
            # experts with no opinion (F_i = 0) give exactly 1/2, which predicts True
            lean = math.fsum(
                v * math.tanh(0.5 * f) for v, f in zip(experts.hedge.weights, walk.scores)
            )
            p_true = min(1.0, max(0.0, 0.5 + 0.5 * lean))
        elif experts.prediction == "final":
            # vote weights on the simplex (OSBoost.OCP): the full vote F_N is in [-1, 1] and
            # (1 + F_N) / 2 the alpha-weighted share of True votes (clipped: rounding)
            p_true = min(1.0, max(0.0, (1.0 + walk.scores[-1]) / 2.0))
        else:
            p_true = min(
                1.0, sum((v for v, f in zip(experts.hedge.weights, walk.scores) if f >= 0), 0.0)
            )
        return {False: 1.0 - p_true, True: p_true}

    def predict(self, walk: Walk, experts, rng):
        if experts is not None and experts.prediction == "random":
            return walk.scores[experts.draw(rng)] >= 0
        # Ties go to True, the papers' sign(0) = +1.
        return self.proba(walk, experts)[True] >= 0.5


class MulticlassTask:
    """Any hashable labels but ``None``; a label seen for the first time joins the label space.

    A learner's ``predict_proba_one`` is read as a distribution over the known labels (uniform
    while it has no opinion). With ``weak_prediction="cost"`` it votes the label of least
    expected cost under that distribution, the cost matrix being the rule's at the state the
    earlier learners left (the paper); with ``"argmax"``, its most probable label. Ties (between
    labels of equal cost or equal votes) go to a fixed label order: the largest label when
    labels can be sorted (so ``True`` beats ``False``, as ``sign(0) = +1``), else the label
    seen first.
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
            self._register(self.check_label(c))

    @property
    def ready(self) -> bool:
        return len(self.classes) >= 2

    @property
    def k(self) -> int:
        return len(self.classes)

    walk_key = _walk_key

    # -------------------------------------------------------------- labels

    def check_label(self, y):
        return check_labels([y], self.classes)[0]

    def commit(self, y, w):
        idx = self._register(y)
        self.support[idx] += 1
        return {"y": y, "yi": idx, "k": len(self.classes)}

    def _register(self, y) -> int:
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

    def argbest(self, values, maximize=True) -> int:
        """Index of the best value; ties go to the best-ranked label."""
        best, best_j = None, 0
        for j, v in enumerate(values):
            if (
                best is None
                or (v > best if maximize else v < best)
                or (v == best and self._rank[j] < self._rank[best_j])
            ):
                best, best_j = v, j
        return best_j

    # -------------------------------------------------------------- the prediction walk

    def distributions(self, dists) -> list:
        """Each learner's ``predict_proba_one`` as a vector over the known classes (over those
        with enough support, see ``MIN_SUPPORT``; uniform when the learner has no opinion)."""
        k = len(self.classes)
        ok = _supported(self.support)
        uniform = np.full(k, 1.0 / k) if ok is None else np.where(ok, 1.0 / ok.sum(), 0.0)
        out = []
        for proba in dists:
            vec = np.array([proba.get(c, 0.0) for c in self.classes], dtype=float)
            if ok is not None:
                vec[~ok] = 0.0
            total = vec.sum()
            out.append(vec / total if total > 0 else uniform)
        return out

    def weak_label(self, vec, cost_matrix) -> int:
        """The weak learner's label: least expected cost under its own distribution (costs
        within ``COST_TIE`` of the least being ties, to the best-ranked label)."""
        if cost_matrix is None:
            return self.argbest(vec.tolist())
        costs = (vec @ cost_matrix).tolist()
        tol = COST_TIE * float(np.abs(cost_matrix).max())
        least = min(costs)
        tied = [j for j, c in enumerate(costs) if c <= least + tol]
        return min(tied, key=lambda j: self._rank[j])

    def walk(self, dists, alphas, rule, n_models) -> Walk:
        k = len(self.classes)
        vectors = self.distributions(dists)
        s = np.zeros(k) if alphas is not None else np.zeros(k, dtype=int)
        cost = self.weak_prediction == "cost"
        labels, scores, costs = [], [], [] if cost else None
        for i, vec in enumerate(vectors):
            vote_costs = None
            if cost:
                C, vote_costs = rule.multiclass_vote_costs(n_models - i - 1, s, k)
                costs.append(C)
            lab = self.weak_label(vec, vote_costs)
            s[lab] += 1 if alphas is None else alphas[i]
            labels.append(lab)
            scores.append(s.copy())
        return Walk(vectors, labels, scores, costs)

    # -------------------------------------------------------------- learning

    def offers(self, ex: Example, teach) -> list:
        y = ex.y
        return [(i, y, p) for i, p in enumerate(teach)]

    def expert_losses(self, ex: Example) -> list:
        yi, argbest = ex.yi, self.argbest
        return [0.0 if argbest(s.tolist()) == yi else 1.0 for s in ex.scores]

    @property
    def rate_divisor(self) -> float:
        """What the vote weights' learning rate is divided by: the paper's
        ``c / ((k - 1) sqrt(t))``."""
        return float(len(self.classes) - 1)

    def errors(self, ex: Example) -> list:
        """Each learner's 0/1 error on the example (its vote against the label)."""
        yi = ex.yi
        return [0 if v == yi else 1 for v in ex.votes]

    # -------------------------------------------------------------- predicting

    def proba_vector(self, walk: Walk, experts):
        k = len(self.classes)
        if experts is None:
            # smoothed vote shares (votes_l + 1/k) / (N + 1)
            return (walk.scores[-1].astype(float) + 1.0 / k) / (len(walk.votes) + 1.0)
        out = np.zeros(k)
        if experts.prediction == "hedge":
            for v, s in zip(experts.hedge.weights, walk.scores):
                if v:
                    e = np.exp(s - s.max())
                    out += v * e / e.sum()
        else:
            for v, s in zip(experts.hedge.weights, walk.scores):
                out[self.argbest(s.tolist())] += v
        return out / out.sum()

    def proba(self, walk: Walk | None, experts) -> dict:
        if walk is None:  # fewer than two classes: nothing to boost yet
            return {self.classes[0]: 1.0} if self.classes else {}
        return {c: float(p) for c, p in zip(self.classes, self.proba_vector(walk, experts))}

    def predict(self, walk: Walk | None, experts, rng):
        if walk is not None and experts is not None and experts.prediction == "random":
            return self.classes[self.argbest(walk.scores[experts.draw(rng)].tolist())]
        proba = self.proba(walk, experts)
        if not proba:
            return None
        return self.classes[self.argbest([proba[c] for c in self.classes])]


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

    @property
    def k(self) -> int:
        """The number of labels known."""
        return len(self.labels)

    walk_key = _walk_key

    # -------------------------------------------------------------- labels

    def check_label(self, y) -> dict:
        if not isinstance(y, dict):
            raise ValueError(
                f"a multi-label target is a dict {{label: bool}}, got {type(y).__name__}"
            )
        check_labels(list(y), self.labels)
        return {label: as_binary_label(v) for label, v in y.items()}

    def commit(self, y: dict, w):
        for label in sorted(y, key=lambda v: (type(v).__name__, v)):
            if label not in self._index:
                self._index[label] = len(self.labels)
                self.labels.append(label)
                self.support.append(0)
        relevant = np.array([y.get(label, False) for label in self.labels])
        self._count_sum += w * relevant.sum()
        self._count_weight += w
        n_rel = int(relevant.sum())
        if n_rel == 0 or n_rel == len(relevant):
            self.n_skipped += 1
            return None
        for j in np.flatnonzero(relevant):
            self.support[j] += 1
        return {"relevant": relevant, "k": len(self.labels)}

    # -------------------------------------------------------------- the prediction walk

    def weak_matrix(self, dists) -> np.ndarray:
        """``H[i]``: learner ``i``'s distribution over the known labels (over those with enough
        support, see ``MIN_SUPPORT``; uniform if the learner has no opinion)."""
        k = len(self.labels)
        ok = _supported(self.support)
        H = np.full((len(dists), k), 1.0 / k if k else 0.0)
        if ok is not None:
            H[:] = np.where(ok, 1.0 / ok.sum(), 0.0)
        for i, proba in enumerate(dists):
            row = np.zeros(k)
            for label, p in proba.items():
                j = self._index.get(label)
                if j is not None and p > 0 and (ok is None or ok[j]):
                    row[j] = p
            total = row.sum()
            if total > 0:
                H[i] = row / total
        return H

    def walk(self, dists, alphas, rule, n_models) -> Walk:
        H = self.weak_matrix(dists)
        scores = None if alphas is None else np.cumsum(np.asarray(alphas)[:, None] * H, axis=0)
        return Walk(H, H, scores)

    # -------------------------------------------------------------- learning

    def offers(self, ex: Example, teach) -> list:
        """Learner ``i`` is taught every relevant label ``l`` with weight ``(max c - c[l]) /
        bound``, what the paper's experiments did."""
        labels, relevant = self.labels, np.flatnonzero(ex.relevant)
        out = []
        for i, (cost, bound) in enumerate(teach):
            top = cost.max()
            out += [(i, labels[j], min(1.0, float(top - cost[j]) / bound)) for j in relevant]
        return out

    def expert_losses(self, ex: Example) -> list:
        return [rank_loss(s, ex.relevant) for s in ex.scores]

    rate_divisor = 1.0  # the vote weights' learning rate as it is

    def errors(self, ex: Example) -> list:
        """Each learner's 0/1 error: whether its top-ranked label is irrelevant (one-error)."""
        relevant = ex.relevant
        return [0 if relevant[int(np.argmax(row))] else 1 for row in ex.rows]

    # -------------------------------------------------------------- predicting

    def scores(self, walk: Walk | None, experts, rng) -> dict:
        if walk is None:
            return {}
        if experts is None:
            scores = walk.rows.sum(axis=0)
        elif experts.prediction == "random":
            scores = walk.scores[experts.draw(rng)]
        else:
            scores = np.asarray(experts.hedge.weights) @ walk.scores
        return {label: float(v) for label, v in zip(self.labels, scores)}

    def label_count(self) -> int:
        if not self._count_weight:
            return 0
        return int(math.floor(self._count_sum / self._count_weight + 0.5))

    def proba(self, scores: dict) -> dict:
        if not scores:
            return {}
        ordered = sorted(scores.values(), reverse=True)
        n = self.label_count()
        if n <= 0:
            cut = ordered[0] + 1.0
        elif n >= len(ordered):
            cut = ordered[-1] - 1.0
        else:
            cut = 0.5 * (ordered[n - 1] + ordered[n])
        out = {}
        for label, v in scores.items():
            p = sigmoid(v - cut)
            out[label] = {False: 1.0 - p, True: p}
        return out
