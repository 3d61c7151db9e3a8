"""Faster parts for River's Hoeffding trees, the boosters' default weak learners.

A booster runs tens or hundreds of trees, and with fast-splitting trees (the papers' setup:
a split attempt every few examples) most of the time goes into River's split search: for
every numeric feature, :class:`river.tree.splitter.GaussianSplitter` evaluates ten candidate
thresholds, each through fresh dicts, property reads per class and the criterion's separate
passes. :class:`FastGaussianSplitter` does the same arithmetic in one pass per threshold.

With the trees' default naive-Bayes leaves, the other hot spot is the leaves' naive-Bayes
prediction, which River recomputes from the Gaussian statistics for every class and feature
on every prediction *and* on every update (the adaptive leaves score naive Bayes against the
majority class as they learn). :class:`FastHoeffdingTreeClassifier` keeps, per leaf and class,
the Gaussian terms it needs and recomputes only the class an update touched.

"""

from __future__ import annotations

import math

from river.tree import HoeffdingTreeClassifier
from river.tree.nodes.htc_nodes import (
    LeafMajorityClass,
    LeafNaiveBayes,
    LeafNaiveBayesAdaptive,
)
from river.tree.split_criterion import InfoGainSplitCriterion
from river.tree.splitter import GaussianSplitter
from river.tree.utils import BranchFactory

__all__ = ["FastGaussianSplitter", "FastHoeffdingTreeClassifier"]


class FastGaussianSplitter(GaussianSplitter):
    """River's :class:`~river.tree.splitter.GaussianSplitter`, with a faster split search.

    The statistics, the candidate thresholds and the naive-Bayes densities are River's. For
    the information-gain criterion (the Hoeffding trees' default) the search reads each
    class's Gaussian once instead of once per threshold, and fuses River's class
    distributions, branch-fraction check and entropies into one pass per threshold, with the
    same floating-point operations in the same order: the merits, the chosen threshold and
    the children's statistics are River's to the last bit (tested on random states and in
    whole trees), so a tree grows exactly as with River's splitter. ``clone()`` skips the
    signature inspection (a tree clones its splitter for every feature of every new leaf).
    Any other criterion falls back to River's search.

    Measured in ``benchmarks/RESULTS.md`` (``benchmarks/fast_splitter.py``).

    Parameters
    ----------
    n_splits
        The number of candidate thresholds, as in River.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, tree
    >>> from river_boost.trees import FastGaussianSplitter

    >>> model = tree.HoeffdingTreeClassifier(splitter=FastGaussianSplitter())
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 87.99%

    The same as River's own splitter:

    >>> evaluate.progressive_val_score(
    ...     datasets.Phishing(), tree.HoeffdingTreeClassifier(), metrics.Accuracy()
    ... )
    Accuracy: 87.99%

    """

    def clone(self, new_params=None, include_attributes=False):
        if new_params or include_attributes:
            return super().clone(new_params, include_attributes)
        return type(self)(n_splits=self.n_splits)

    def best_evaluated_split_suggestion(self, criterion, pre_split_dist, att_idx, binary_only):
        if type(criterion) is not InfoGainSplitCriterion:
            return super().best_evaluated_split_suggestion(
                criterion, pre_split_dist, att_idx, binary_only
            )
        values = self._split_point_suggestions()
        if not values:
            return BranchFactory()
        # Per class, once: River reads these through properties for every threshold.
        per_class = []
        for k, estimator in self._att_dist_per_class.items():
            var = estimator._var
            per_class.append(
                (
                    var.mean.n,
                    var.mean._mean,
                    var.get() ** 0.5,
                    self._min_per_class[k],
                    self._max_per_class[k],
                )
            )
        pre = criterion.compute_entropy(pre_split_dist)
        frac = criterion.min_branch_fraction
        log2 = math.log2
        best_merit, best_value = -math.inf, None
        for value in values:
            # River's _class_dists_from_binary_split (with Gaussian.cdf) and
            # InfoGainSplitCriterion.merit_of_split, fused, in the same floating-point
            # operations and order, so the merits are River's to the last bit.
            l_sum = l_ent = l_pos = r_sum = r_ent = r_pos = 0.0
            for n, mu, sigma, lo, hi in per_class:
                if value < lo:
                    left, right = None, n
                elif value >= hi:
                    left, right = n, None
                else:
                    try:
                        left = 0.5 * (1.0 + math.erf((value - mu) / sigma / _SQRT2)) * n
                    except ZeroDivisionError:
                        left = 0.0
                    right = n - left
                if left is not None:
                    l_sum += left
                    if left > 0.0:
                        l_ent -= left * log2(left)
                        l_pos += left
                if right is not None:
                    r_sum += right
                    if right > 0.0:
                        r_ent -= right * log2(right)
                        r_pos += right
            total = 0.0 + l_sum + r_sum
            if not (total > 0.0 and l_sum / total > frac and r_sum / total > frac):
                continue  # fewer than two branches above min_branch_fraction: River's -inf
            h_left = (l_ent + l_pos * log2(l_pos)) / l_pos if l_pos > 0.0 else 0.0
            h_right = (r_ent + r_pos * log2(r_pos)) / r_pos if r_pos > 0.0 else 0.0
            merit = pre - (0.0 + l_sum * h_left + r_sum * h_right) / total
            if merit > best_merit:  # strict: the first of equal merits, as River
                best_merit, best_value = merit, value
        if best_value is None:
            return BranchFactory()
        return BranchFactory(
            best_merit, att_idx, best_value, self._class_dists_from_binary_split(best_value)
        )


_SQRT2 = math.sqrt(2.0)


# ---------------------------------------------------------------------- naive-Bayes leaves

_HALF_LOG_TAU = 0.5 * math.log(math.tau)  # River's constant in Gaussian.log_pdf
_GAUSSIAN_SPLITTERS = (GaussianSplitter, FastGaussianSplitter)
_MISSING = object()


def _class_terms(splitters: dict, c) -> list:
    """The naive-Bayes terms of class ``c``, in the splitters' order.

    A Gaussian feature gives ``(feature, mu, -2 variance, 0.5 log variance, None)``: the pieces
    of River's ``Gaussian.log_pdf``, so ``(v - mu) ** 2 / (-2 variance) - 0.5 log(tau) - 0.5
    log(variance)`` is computed with River's operations in River's order. Features whose
    Gaussian for ``c`` is missing or degenerate (River's ``-inf``, which it skips) are left out.
    Any other splitter (nominal features, custom ones) gives ``(feature, ..., splitter)`` and
    is asked live, as River does: its terms can depend on other classes' counts.
    """
    terms = []
    for att, splitter in splitters.items():
        if type(splitter) not in _GAUSSIAN_SPLITTERS:
            terms.append((att, None, None, None, splitter))
            continue
        gaussian = splitter._att_dist_per_class.get(c)
        if gaussian is None:
            continue
        var = gaussian._var
        n = var.mean.n
        if n > var.ddof:
            variance = var._S / (n - var.ddof)
            if variance > 0.0:
                terms.append((att, var.mean._mean, -2.0 * variance, 0.5 * math.log(variance), None))
    return terms


class _CachedNaiveBayes:
    """Naive-Bayes prediction of River's leaves (``river.tree.utils.do_naive_bayes_prediction``)
    with each class's Gaussian terms cached until an update touches that class.

    An update ``(x, y)`` changes only class ``y``'s Gaussians (and the priors, which are
    recomputed every time), so only ``y``'s terms are dropped; a new feature (a new splitter)
    drops them all. Naive-Bayes leaves never disable a feature. The probabilities are River's
    to the last bit (tested against River's leaves in whole trees).

    The cache lives in slots and ``__sizeof__`` leaves them out, so River's memory manager
    (``max_size``), which measures leaves by walking their ``__dict__``, sees the leaf River
    would have and deactivates the same leaves. The cache is bounded (one tuple per class and
    feature of an active leaf) and emptied when a leaf is deactivated.
    """

    __slots__ = ()

    def __init__(self, stats, depth, splitter, **kwargs):
        super().__init__(stats, depth, splitter, **kwargs)
        self._nb_terms: dict = {}
        self._nb_n_splitters = 0

    def __sizeof__(self):
        # River's size of the leaf: without the cache's slots (see above)
        return super().__sizeof__() - self._SLOT_BYTES

    def __getstate__(self):  # River's leaf; the cache is rebuilt on demand (any protocol)
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._nb_terms = {}
        self._nb_n_splitters = 0

    def activate(self):
        super().activate()
        self._nb_terms = {}

    def deactivate(self):
        super().deactivate()
        self._nb_terms = {}

    def _forget(self, y) -> None:
        self._nb_terms.pop(y, None)

    def _naive_bayes(self, x) -> dict:
        stats = self.stats
        total_weight = sum(stats.values())
        if not stats or total_weight == 0:
            return {}
        splitters = self.splitters or {}
        cache = self._nb_terms
        if self._nb_n_splitters != len(splitters):
            cache.clear()
            self._nb_n_splitters = len(splitters)
        votes = {}
        for c, class_weight in stats.items():
            if not class_weight > 0:
                votes[c] = 0.0
                continue
            vote = math.log(class_weight / total_weight)
            terms = cache.get(c)
            if terms is None:
                terms = cache[c] = _class_terms(splitters, c)
            for att, mu, neg_two_var, half_log_var, splitter in terms:
                v = x.get(att, _MISSING)
                if v is _MISSING:
                    continue
                if splitter is None:
                    log_p = (v - mu) ** 2 / neg_two_var - _HALF_LOG_TAU - half_log_var
                elif (log_proba := getattr(splitter, "cond_log_proba", None)) is not None:
                    log_p = log_proba(v, c)
                else:
                    p = splitter.cond_proba(v, c)
                    vote += math.log(p) if p > 0 else 0.0
                    continue
                if log_p > -math.inf:
                    vote += log_p
            votes[c] = vote
        # River's log-sum-exp normalisation, verbatim
        max_ll = max(votes.values())
        lse = max_ll + math.log(sum(math.exp(log_proba - max_ll) for log_proba in votes.values()))
        for c in votes:
            votes[c] = math.exp(votes[c] - lse)
        return votes


class _FastLeafNaiveBayes(_CachedNaiveBayes, LeafNaiveBayes):
    """River's ``LeafNaiveBayes`` with cached naive-Bayes terms."""

    __slots__ = ("_nb_terms", "_nb_n_splitters")

    def learn_one(self, x, y, *, w=1.0, tree=None):
        super().learn_one(x, y, w=w, tree=tree)
        self._forget(y)

    def prediction(self, x, *, tree=None):
        if self.is_active() and self.total_weight >= tree.nb_threshold:
            return self._naive_bayes(x)
        return LeafMajorityClass.prediction(self, x)


class _FastLeafNaiveBayesAdaptive(_CachedNaiveBayes, LeafNaiveBayesAdaptive):
    """River's ``LeafNaiveBayesAdaptive`` with cached naive-Bayes terms (same bookkeeping of
    which of naive Bayes and the majority class has been right more often)."""

    __slots__ = ("_nb_terms", "_nb_n_splitters")

    def learn_one(self, x, y, *, w=1.0, tree=None):
        if self.is_active():
            mc_pred = LeafMajorityClass.prediction(self, x)
            if len(self.stats) == 0 or max(mc_pred, key=mc_pred.get) == y:
                self._mc_correct_weight += w
            nb_pred = self._naive_bayes(x)
            if len(nb_pred) > 0 and max(nb_pred, key=nb_pred.get) == y:
                self._nb_correct_weight += w
        LeafMajorityClass.learn_one(self, x, y, w=w, tree=tree)
        self._forget(y)

    def prediction(self, x, *, tree=None):
        if self.is_active() and self._nb_correct_weight >= self._mc_correct_weight:
            return self._naive_bayes(x)
        return LeafMajorityClass.prediction(self, x)


for _leaf, _river_leaf in (
    (_FastLeafNaiveBayes, LeafNaiveBayes),
    (_FastLeafNaiveBayesAdaptive, LeafNaiveBayesAdaptive),
):
    _leaf._SLOT_BYTES = _leaf.__basicsize__ - _river_leaf.__basicsize__


class FastHoeffdingTreeClassifier(HoeffdingTreeClassifier):
    """River's :class:`~river.tree.HoeffdingTreeClassifier`, with faster naive-Bayes leaves.

    Same parameters, same tree, same predictions to the last bit. River's naive-Bayes leaves
    (``leaf_prediction="nb"`` and the default ``"nba"``) recompute every class's Gaussian
    log-density for every feature on every prediction, and the adaptive ones on every update
    too. Here a leaf keeps each class's Gaussian terms (mean, ``-2 variance``, ``0.5 log
    variance``) and recomputes only those of the class an update touched, so a prediction is
    one subtraction, square, division and two subtractions per class and feature, in River's
    order. Majority-class leaves are River's. Pass ``splitter=FastGaussianSplitter()`` for
    the faster split search as well (:func:`river_boost.core.default_model` does both).

    Measured in ``benchmarks/RESULTS.md`` (``benchmarks/fast_splitter.py``).

    Examples
    --------

    >>> from river import datasets, tree
    >>> from river_boost.trees import FastHoeffdingTreeClassifier

    Every probability is River's, on a seven-class stream where the leaves use naive Bayes:

    >>> river_tree = tree.HoeffdingTreeClassifier(grace_period=50, tau=0.5)
    >>> fast_tree = FastHoeffdingTreeClassifier(grace_period=50, tau=0.5)
    >>> same = True
    >>> for x, y in datasets.ImageSegments():
    ...     same &= fast_tree.predict_proba_one(x) == river_tree.predict_proba_one(x)
    ...     river_tree.learn_one(x, y)
    ...     fast_tree.learn_one(x, y)
    >>> same, fast_tree.n_leaves, river_tree.n_leaves
    (True, 16, 16)

    """

    def _new_leaf(self, initial_stats=None, parent=None):
        # River's choice of leaf, with the cached naive-Bayes leaves in place of its own
        if self._leaf_prediction == self._MAJORITY_CLASS:
            return super()._new_leaf(initial_stats, parent)
        stats = {} if initial_stats is None else initial_stats
        depth = 0 if parent is None else parent.depth + 1
        if self._leaf_prediction == self._NAIVE_BAYES:
            return _FastLeafNaiveBayes(stats, depth, self.splitter)
        return _FastLeafNaiveBayesAdaptive(stats, depth, self.splitter)
