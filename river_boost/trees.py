"""Faster parts for River's Hoeffding trees, the boosters' default weak learners.

A booster runs tens or hundreds of trees, and with fast-splitting trees (the papers' setup:
a split attempt every few examples) most of the time goes into River's split search: for
every numeric feature, :class:`river.tree.splitter.GaussianSplitter` evaluates ten candidate
thresholds, each through fresh dicts, property reads per class and the criterion's separate
passes. :class:`FastGaussianSplitter` does the same arithmetic in one pass per threshold.

"""

from __future__ import annotations

import math

from river.tree.split_criterion import InfoGainSplitCriterion
from river.tree.splitter import GaussianSplitter
from river.tree.utils import BranchFactory

__all__ = ["FastGaussianSplitter"]


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
                (var.mean.n, var.mean._mean, var.get() ** 0.5,
                 self._min_per_class[k], self._max_per_class[k])
            )  # fmt: skip
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
