"""The boosters' walk in plain Python: the reference the compiled walk is tested against.

The package runs one walk, compiled (``river_boost.engine``). This module is the same
walk written the slow, readable way, on the same state (what the booster's engine holds: the
task, the rule, the pool, the per-learner counters, the experts) and with the same random
draws, so that a booster can be copied mid-stream and the copy stepped here:
``tests/engine/test_compiled_walk.py`` compares every prediction and every learned state
with it, within 1e-9 relative. It is not a second implementation to keep equal to the last
bit: it follows the documented math in its own order.

The rules' steps are the readable rules of ``rules.py``: the library's potentials' (whose
steps the package runs compiled only), and the papers' steps on the hooks of a rule of your own
(``rules.Hooks``, as the compiled walk runs them); this module adds what the tasks, the
weak-learner pool and the experts do around them:

- the *prediction walk* (:func:`walk`): each learner's ``predict_proba_one`` read as a vote,
  the experts' scores (the first ``i`` votes weighted by ``alpha``), and for cost-sensitive
  multiclass votes the rule's cost matrix at the state the earlier learners left;
- learning (:func:`learn_one`): the rule's weight for each learner along the walk, the
  experts' update (OGD on ``alpha``, Hedge on the experts' losses), the weights handed to the
  learners (:func:`offer`), and drift adaptation's detectors;
- the predictions (:func:`predict_proba_one`, :func:`predict_one`, :func:`score_one`).

:class:`Reference` wraps a booster so that a test calls these as the booster's methods.
"""

from __future__ import annotations

import math

import numpy as np

from river_boost.engine import _clean
from river_boost.engine._contract import check_sample_weight
from river_boost.potentials import rank_loss, sigmoid
from river_boost.tasks import COST_TIE, MIN_SUPPORT

from .rules import readable


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
    """One labelled example as the rule sees it along the walk (``rules.py``): the walk, the
    sample weight ``w``, ``n_models``, the learners' ``alphas`` and ``edges``, and the task's
    fields for the label (``y``, ``sign``, ``yi``, ``relevant``, ``k``)."""

    def __init__(self, walk: Walk, w: float, n_models: int, alphas, edges, **label):
        super().__init__(walk.rows, walk.votes, walk.scores, walk.costs)
        self.w, self.n_models, self.alphas, self.edges = w, n_models, alphas, edges
        self.__dict__.update(label)


# ----------------------------------------------------------------------------- the pool
#
# ``e`` is a booster's engine (``booster._engine``): it holds the pool (the learners, their
# feature subsets, the random generator) and the per-learner counters this walk reads and
# writes, as the compiled walk does.


def prepared(e, x) -> dict:
    """``x`` cleaned (the package's one cleaning, without the values of a kind other than the
    one learned), once ``feature_fraction="auto"`` is decided by the first non-empty ``x``
    the learners see."""
    clean = _clean.Cleaner(e.nominal).cleaned(x)
    subsets = e.pool.feature_subsets
    if subsets.fraction is None:
        subsets.decide(clean)
    return clean


def learned(e, clean: dict) -> None:
    """A feature keeps the kind of its first learned value (a string: nominal)."""
    for k, v in clean.items():
        e.nominal.setdefault(k, type(v) is str)


def learner_probas(e, x) -> tuple:
    """Each learner's ``predict_proba_one`` for the raw ``x`` (the background learners of
    drift adaptation follow the ``N`` learners and are not asked)."""
    return tuple(e.pool.learners.predict_proba_all(prepared(e, x))[: e.n])


def teach(e, x, offers, sample_weight: float = 1.0) -> list:
    """Teach ``x``: ``offers`` are ``(learner i, label, p)``, ``p`` in ``[0, 1]``, in that
    order. Returns the weights passed (0: not called)."""
    clean = prepared(e, x)
    weights = [offer(e, i, clean, y, p, sample_weight) for i, y, p in offers]
    learned(e, clean)
    return weights


def offer(e, i: int, x: dict, y, p: float, sample_weight: float) -> float:
    """Learner ``i`` is offered ``x`` with ``p`` (see ``WeakLearnerPool``'s ``weighting``)."""
    pool = e.pool
    e.offered[i] += p
    e.n_offered[i] += 1
    if p <= 0.0:
        e.n_zero[i] += 1
        return 0.0
    if pool.weighting == "importance":
        w = p * e.n_offered[i] / e.offered[i]
        if w < pool.min_weight:  # thinning: the same expected weight, far fewer updates
            if pool._rng.random() * pool.min_weight >= w:
                return 0.0
            w = pool.min_weight
        w *= sample_weight * e.weight_scales[i]
    elif pool._rng.random() < p:  # rejection sampling
        w = sample_weight * e.weight_scales[i]
    else:
        return 0.0
    if w <= 0.0:  # underflowed: River's trees cannot take a weight of 0
        return 0.0
    e.n_updates[i] += 1
    pool.learners.learn_one(i, x, y, w)
    if i in e.background:
        pool.learners.learn_one(e.background[i], x, y, w)
    return w


def record_edge(e, i: int, numerator: float, denominator: float) -> None:
    """Add to learner ``i``'s empirical edge ``sum(numerator) / sum(denominator)``, the past
    sums fading by ``edge_decay`` (drift adaptation's forgetting)."""
    decay = e.edge_decay
    if decay != 1.0:
        e.edge_num[i] *= decay
        e.edge_den[i] *= decay
    e.edge_num[i] += numerator
    e.edge_den[i] += denominator


def edges(e) -> list:
    return [n / d if d else 0.0 for n, d in zip(e.edge_num, e.edge_den)]


# ----------------------------------------------------------------------------- the tasks


def commit(task, y, w: float):
    """Record the (checked) label ``y`` of an example of sample weight ``w`` in the task, as
    the engine does: what the rule is shown of it, or None for a ranking row with an empty or
    full label set (nothing to rank: it still counts in the running label count)."""
    if task.kind == "binary":
        return {"y": y, "sign": 1 if y else -1}
    if task.kind == "multiclass":
        idx = task.register(y)  # a new class joins the label space
        task.support[idx] += 1
        return {"y": y, "yi": idx, "k": len(task.classes)}
    task.register(y)  # new labels join, in sorted order
    relevant = np.array([y.get(label, False) for label in task.labels])
    task._count_sum += w * relevant.sum()  # the running mean of |Y| (weighted)
    task._count_weight += w
    n_rel = int(relevant.sum())
    if n_rel == 0 or n_rel == len(relevant):
        task.n_skipped += 1
        return None
    for j in np.flatnonzero(relevant):
        task.support[j] += 1
    return {"relevant": relevant, "k": len(task.labels)}


def supported(support: list):
    """A mask of the labels with enough support (``MIN_SUPPORT``), or None when every label
    counts (all have it, or fewer than two do)."""
    ok = np.array([n >= MIN_SUPPORT for n in support])
    n_ok = int(ok.sum())
    return None if n_ok == len(ok) or n_ok < 2 else ok


def argbest(task, values, maximize=True) -> int:
    """Index of the best value; ties go to the best-ranked label (the task's order)."""
    best, best_j = None, 0
    for j, v in enumerate(values):
        if (
            best is None
            or (v > best if maximize else v < best)
            or (v == best and task._rank[j] < task._rank[best_j])
        ):
            best, best_j = v, j
    return best_j


def distributions(task, dists) -> list:
    """Multiclass: each learner's ``predict_proba_one`` as a vector over the known classes
    with enough support (uniform when the learner has no opinion)."""
    k = len(task.classes)
    ok = supported(task.support)
    uniform = np.full(k, 1.0 / k) if ok is None else np.where(ok, 1.0 / ok.sum(), 0.0)
    out = []
    for proba in dists:
        vec = np.array([proba.get(c, 0.0) for c in task.classes], dtype=float)
        if ok is not None:
            vec[~ok] = 0.0
        total = vec.sum()
        out.append(vec / total if total > 0 else uniform)
    return out


def weak_label(task, vec, cost_matrix) -> int:
    """A multiclass learner's vote: least expected cost under its own distribution (costs
    within ``COST_TIE`` of the least tie, to the best-ranked label), or its argmax."""
    if cost_matrix is None:
        return argbest(task, vec.tolist())
    costs = (vec @ cost_matrix).tolist()
    tol = COST_TIE * float(np.abs(cost_matrix).max())
    least = min(costs)
    tied = [j for j, c in enumerate(costs) if c <= least + tol]
    return min(tied, key=lambda j: task._rank[j])


def weak_matrix(task, dists) -> np.ndarray:
    """Ranking: ``H[i]``, learner ``i``'s distribution over the known labels with enough
    support (uniform if it has no opinion)."""
    k = len(task.labels)
    ok = supported(task.support)
    H = np.full((len(dists), k), 1.0 / k if k else 0.0)
    if ok is not None:
        H[:] = np.where(ok, 1.0 / ok.sum(), 0.0)
    for i, proba in enumerate(dists):
        row = np.zeros(k)
        for label, p in proba.items():
            j = task._index.get(label)
            if j is not None and p > 0 and (ok is None or ok[j]):
                row[j] = p
        total = row.sum()
        if total > 0:
            H[i] = row / total
    return H


def task_walk(task, dists, alphas, rule, n_models) -> Walk:
    """The label-free walk along the learners (see :class:`Walk`)."""
    if task.kind == "binary":
        probas = []
        for proba in dists:
            p_true = proba.get(True, 0.0)
            total = p_true + proba.get(False, 0.0)
            probas.append(p_true / total if total > 0 else 0.5)
        votes = [1 if p >= 0.5 else -1 for p in probas]  # sign(0) = +1
        scores = None
        if alphas is not None:
            scores, f = [], 0.0
            for alpha, p in zip(alphas, probas):
                f += alpha if p >= 0.5 else -alpha
                scores.append(f)
        return Walk(probas, votes, scores)
    if task.kind == "multiclass":
        k = len(task.classes)
        vectors = distributions(task, dists)
        s = np.zeros(k) if alphas is not None else np.zeros(k, dtype=int)
        cost = task.weak_prediction == "cost"
        labels, scores, costs = [], [], [] if cost else None
        for i, vec in enumerate(vectors):
            vote_costs = None
            if cost:
                C, vote_costs = rule.multiclass_vote_costs(n_models - i - 1, s, k)
                costs.append(C)
            lab = weak_label(task, vec, vote_costs)
            s[lab] += 1 if alphas is None else alphas[i]
            labels.append(lab)
            scores.append(s.copy())
        return Walk(vectors, labels, scores, costs)
    H = weak_matrix(task, dists)
    scores = None if alphas is None else np.cumsum(np.asarray(alphas)[:, None] * H, axis=0)
    return Walk(H, H, scores)


def offers(task, ex: Example, teach_values) -> list:
    """What each learner is taught: ``(i, label, p)``. Ranking: learner ``i`` is taught every
    relevant label ``l`` with weight ``(max c - c[l]) / bound`` (the paper's experiments)."""
    if task.kind != "ranking":
        return [(i, ex.y, p) for i, p in enumerate(teach_values)]
    labels, relevant = task.labels, np.flatnonzero(ex.relevant)
    out = []
    for i, (cost, bound) in enumerate(teach_values):
        top = cost.max()
        out += [(i, labels[j], min(1.0, float(top - cost[j]) / bound)) for j in relevant]
    return out


def expert_losses(task, ex: Example) -> list:
    """Each expert's loss on the example, for Hedge."""
    if task.kind == "binary":  # expert i predicts sign(F_i), sign(0) = +1
        if ex.y:
            return [1.0 if f < 0 else 0.0 for f in ex.scores]
        return [1.0 if f >= 0 else 0.0 for f in ex.scores]
    if task.kind == "multiclass":
        return [0.0 if argbest(task, s.tolist()) == ex.yi else 1.0 for s in ex.scores]
    return [rank_loss(s, ex.relevant) for s in ex.scores]


def rate_divisor(task) -> float:
    """What the vote weights' learning rate is divided by: ``k - 1`` for multiclass (the
    paper's ``c / ((k - 1) sqrt(t))``), else 1."""
    return float(len(task.classes) - 1) if task.kind == "multiclass" else 1.0


def errors(task, ex: Example) -> list:
    """Each learner's 0/1 error, for drift detection: its vote against the label (ranking:
    whether its top-ranked label is irrelevant)."""
    if task.kind == "binary":
        return [0 if v == ex.sign else 1 for v in ex.votes]
    if task.kind == "multiclass":
        return [0 if v == ex.yi else 1 for v in ex.votes]
    return [0 if ex.relevant[int(np.argmax(row))] else 1 for row in ex.rows]


def ensemble_error(task, ex: Example, e) -> int:
    """The booster's own 0/1 error, for arming drift adaptation: its prediction from the walk
    against the label (with random expert draws, their expectation; ranking: whether its
    top-scored label is irrelevant)."""
    if task.kind == "binary":
        return 0 if (binary_proba(ex, e)[True] >= 0.5) == (ex.sign == 1) else 1
    if task.kind == "multiclass":
        proba = multiclass_proba_vector(task, ex, e)
        return 0 if argbest(task, proba.tolist()) == ex.yi else 1
    if e.hedge is None:
        values = ex.rows.sum(axis=0)
    else:
        values = np.asarray(e.hedge.weights) @ ex.scores
    return 0 if ex.relevant[int(np.argmax(values))] else 1


def binary_proba(w: Walk, e) -> dict:
    if e.hedge is None:
        # smoothed share of True votes, (#True + 1/2) / (N + 1)
        p_true = (w.votes.count(1) + 0.5) / (len(w.votes) + 1.0)
    elif e.prediction == "hedge":
        # sum_i v_i sigmoid(F_i) as 1/2 + sum_i v_i tanh(F_i / 2) / 2
        lean = math.fsum(v * math.tanh(0.5 * f) for v, f in zip(e.hedge.weights, w.scores))
        p_true = min(1.0, max(0.0, 0.5 + 0.5 * lean))
    elif e.prediction == "final":  # OSBoost.OCP: (1 + F_N) / 2
        p_true = min(1.0, max(0.0, (1.0 + w.scores[-1]) / 2.0))
    else:  # Hedge-weighted vote
        p_true = min(1.0, sum((v for v, f in zip(e.hedge.weights, w.scores) if f >= 0), 0.0))
    return {False: 1.0 - p_true, True: p_true}


def multiclass_proba_vector(task, w: Walk, e):
    k = len(task.classes)
    if e.hedge is None:  # smoothed vote shares (votes_l + 1/k) / (N + 1)
        return (w.scores[-1].astype(float) + 1.0 / k) / (len(w.votes) + 1.0)
    out = np.zeros(k)
    if e.prediction == "hedge":
        for v, s in zip(e.hedge.weights, w.scores):
            if v:
                e = np.exp(s - s.max())
                out += v * e / e.sum()
    else:
        for v, s in zip(e.hedge.weights, w.scores):
            out[argbest(task, s.tolist())] += v
    return out / out.sum()


def label_count(task) -> int:
    """Ranking: how many labels are predicted relevant (the rounded running mean of |Y|)."""
    if not task._count_weight:
        return 0
    return int(math.floor(task._count_sum / task._count_weight + 0.5))


# ----------------------------------------------------------------------------- the booster


def walk(b, x):
    """The prediction walk for the raw ``x`` (None while the task has too few labels)."""
    e = b._engine
    if not e.task.ready:
        prepared(e, x)  # validated all the same: bad input is an error at any time
        return None
    alphas = e.ogd.values if e.ogd is not None else None
    return task_walk(e.task, learner_probas(e, x), alphas, readable(e.rule), b.n_models)


def learn_one(b, x, y, w=1.0):
    """``b.learn_one(x, y, w)``: validate the whole event, then one loop along the learners."""
    e = b._engine
    w = check_sample_weight(w)
    task = e.task
    y = task.check_label(y)
    prepared(e, x)
    if w == 0.0:
        return
    label = commit(task, y, w)
    if label is None:  # nothing to learn from this label (see the task)
        return
    e.n_seen += 1
    n = b.n_models
    if not task.ready:  # fewer than two classes: every learner learns
        teach(e, x, [(i, y, 1.0) for i in range(n)], w)
        return
    rule, ogd, hedge, adapt = readable(e.rule), e.ogd, e.hedge, e.adapt
    ex = Example(
        walk(b, x),
        w,
        n,
        ogd.values if ogd is not None else None,
        edges(e) if rule.needs_edges else [0.0] * n,
        **label,
    )
    if adapt is not None:  # (before the experts learn the example)
        booster_error = ensemble_error(task, ex, e)
    step = getattr(rule, task.kind + "_step")
    state = getattr(rule, task.kind + "_start")(ex)
    teach_values, gradients = [], []
    for i in range(n):
        p, edge, state, gradient = step(i, state, ex)
        teach_values.append(p)
        gradients.append(gradient)
        if edge is not None:
            record_edge(e, i, *edge)
    if ogd is not None:  # with drift adaptation, each learner's own rate and share
        ogd.step_all(gradients, rate_divisor(task), adapt is not None)
        hedge.update(expert_losses(task, ex), w, adapt.share if adapt is not None else 0.0)
    teach(e, x, offers(task, ex, teach_values), w)
    if adapt is not None:  # the detectors, then the engine's replacements (package code)
        warned, drifted = adapt.observe(errors(task, ex), e.n_seen, booster_error)
        e.act(warned, drifted)


def scores(b, x) -> dict:
    """A ranking booster's label scores."""
    e = b._engine
    w, task = walk(b, x), e.task
    if w is None:
        return {}
    if e.hedge is None:
        values = w.rows.sum(axis=0)
    elif e.prediction == "random":
        values = w.scores[e.hedge.draw(e.draw_rng)]
    else:
        values = np.asarray(e.hedge.weights) @ w.scores
    return {label: float(v) for label, v in zip(task.labels, values)}


def ranking_proba(task, label_scores: dict) -> dict:
    """``P(True) = sigmoid(score - c)``, ``c`` halfway between the last predicted and the first
    unpredicted score."""
    if not label_scores:
        return {}
    ordered = sorted(label_scores.values(), reverse=True)
    n = label_count(task)
    if n <= 0:
        cut = ordered[0] + 1.0
    elif n >= len(ordered):
        cut = ordered[-1] - 1.0
    else:
        cut = 0.5 * (ordered[n - 1] + ordered[n])
    out = {}
    for label, v in label_scores.items():
        p = sigmoid(v - cut)
        out[label] = {False: 1.0 - p, True: p}
    return out


def predict_proba_one(b, x) -> dict:
    e = b._engine
    task = e.task
    if task.kind == "ranking":
        return ranking_proba(task, scores(b, x))
    w = walk(b, x)
    if task.kind == "binary":
        return binary_proba(w, e)
    if w is None:  # fewer than two classes: nothing to boost yet
        return {task.classes[0]: 1.0} if task.classes else {}
    return {c: float(p) for c, p in zip(task.classes, multiclass_proba_vector(task, w, e))}


def predict_one(b, x):
    e = b._engine
    task = e.task
    if task.kind == "ranking":
        return {label: p[True] >= 0.5 for label, p in predict_proba_one(b, x).items()}
    random_expert = e.hedge is not None and e.prediction == "random"
    if task.kind == "binary":
        if random_expert:
            return walk(b, x).scores[e.hedge.draw(e.draw_rng)] >= 0
        return predict_proba_one(b, x)[True] >= 0.5  # ties go to True, sign(0) = +1
    if random_expert and task.ready:
        expert_scores = walk(b, x).scores[e.hedge.draw(e.draw_rng)]
        return task.classes[argbest(task, expert_scores.tolist())]
    proba = predict_proba_one(b, x)
    if not proba:
        return None
    return task.classes[argbest(task, [proba[c] for c in task.classes])]


def deep_chain_weight(deep) -> float:
    """Hedge's weight of the deep chain: ``exp(-eta M_deep) / (exp(-eta M_shallow) +
    exp(-eta M_deep))`` (river_boost.booster.DeepChain), by the largest term."""
    m_shallow, m_deep = deep.mistakes
    top = max(-deep.eta * m_shallow, -deep.eta * m_deep)
    shallow_term = math.exp(-deep.eta * m_shallow - top)
    deep_term = math.exp(-deep.eta * m_deep - top)
    return deep_term / (shallow_term + deep_term)


def chain_prediction(chain, proba: dict):
    """The label a chain's probabilities predict: binary P(True) >= 1/2, multiclass the most
    probable label, ties to the task's order; ``None`` without any."""
    task = chain._task
    if task.kind == "binary":
        return proba[True] >= 0.5
    if not proba:
        return None
    return task.classes[argbest(task, [proba[c] for c in task.classes])]


class Reference:
    """A booster driven by this module's walk: its methods are the reference's. A deep chain
    (``deep_scale``) is driven by this walk too, and the two chains' probabilities are
    combined here by Hedge on their weighted mistakes."""

    def __init__(self, booster):
        self.booster = booster
        self.deep = getattr(booster, "_deep", None)

    def learn_one(self, x, y, w=1.0):
        if self.deep is None:
            learn_one(self.booster, x, y, w)
            return
        chains = (self.booster, self.deep.chain)
        before = [chain_prediction(c, predict_proba_one(c, x)) for c in chains]
        label = self.booster._task.check_label(y)
        for chain in chains:
            learn_one(chain, x, y, w)
        adapt = self.booster._engine.adapt
        fade = 1.0 - 1.0 / adapt.memory if adapt is not None and adapt.share != 0 else 1.0
        weight = check_sample_weight(w)
        self.deep.mistakes = [
            fade * m + (weight if predicted != label else 0.0)
            for m, predicted in zip(self.deep.mistakes, before)
        ]

    def predict_proba_one(self, x):
        if self.deep is None:
            return predict_proba_one(self.booster, x)
        v = deep_chain_weight(self.deep)
        shallow = predict_proba_one(self.booster, x)
        deep = predict_proba_one(self.deep.chain, x)
        labels = list(shallow) + [c for c in deep if c not in shallow]
        return {c: (1 - v) * shallow.get(c, 0.0) + v * deep.get(c, 0.0) for c in labels}

    def predict_one(self, x):
        if self.deep is None:
            return predict_one(self.booster, x)
        return chain_prediction(self.booster, self.predict_proba_one(x))

    def score_one(self, x):
        return scores(self.booster, x)
