"""A multi-output Hoeffding regression tree with mean leaves, in plain Python: the reference a
compiled multi-output tree is checked against, and the weak learner of :class:`MultiSGBTOracle`
(SGBT's softmax with one tree per boosting step instead of one per step and class).

One tree learns ``K`` outputs at once: an example brings a target ``t_k`` and a weight ``w_k``
per output (for the softmax's Newton step, ``t_k = -g_k / h_k`` and ``w_k = h_k w / m_s``).
Each leaf and each observer bin keeps, per output, a weighted running mean and variance of
that output's targets under that output's weights (the weights differ: ``h_k`` does). A leaf
predicts its vector of means (0 for an output without weight yet). With ``K = 1`` the tree is
River's ``HoeffdingTreeRegressor(splitter=QOSplitter(), leaf_prediction="mean")``, split for
split (``tests/oracles/test_multi_tree.py``). The choices beyond River's tree:

- **merit**: the sum over outputs of River's variance reduction of each output
  (``criterion="variance"``, the default: at ``K = 1`` it is River's criterion), or the sum of
  the reductions of the weighted sums of squares, ``S_k(parent) - sum_c S_k(c)``
  (``criterion="newton"``): with targets ``-g/h`` and weights ``h`` that is the Newton gain
  ``G_L^2/H_L + G_R^2/H_R - G^2/H`` of XGBoost's multi-output trees, up to the common factor
  ``m_s``. The variance reduction divides each output's gain by its weight, so an output whose
  Hessians are small at a leaf (its class settled there) counts as much as an uncertain one;
  the Newton gain weighs outputs by the loss they can still lose. Either way an output's term
  is 0 unless every child has at least ``min_samples_split`` of that output's weight (River's
  rule, per output).
- **Hoeffding bound**: River compares the ratio of the second-best merit to the best with
  ``1 - epsilon``, a ratio in ``[0, 1]`` for any non-negative merits, so its range ``R = 1``
  holds for a sum over outputs too (and a sum, or iSOUP's mean, decide alike: the ratio is
  scale-free).
- **weight** of a leaf (grace period, Hoeffding ``n``, most common path, the observers' ``x``
  means): the mean over the outputs of their weights, ``sum_k n_k / K``. At ``K = 1`` it is
  River's; under ``m_s`` the mean of ``h_k w / m_s`` over outputs and examples is ``w``, so a
  grace period counts about as many examples as each of the ``K`` trees' does; like theirs it
  grows slower where the Hessians are small. (An output that joins dilutes the mean of the
  leaves that exist: the grace period then waits longer once per class.)

River's ``QOSplitter`` is followed as it is, quirks included, for ``K = 1`` equality: its
candidate after bin ``i`` holds the bins up to ``i`` on the left but puts the threshold
between bins ``i - 1`` and ``i``; and the left child of a numeric split starts from the
statistics of *all* the bins (the running sum it iterated with), not of the left ones.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections import Counter

# ----------------------------------------------------------------------------- statistics


class Var:
    """Weighted running mean and variance (River's ``stats.Var``, ``ddof=1``: West's update,
    Chan's merge)."""

    __slots__ = ("n", "mean", "S")

    def __init__(self, n=0.0, mean=0.0, S=0.0):
        self.n, self.mean, self.S = n, mean, S

    def update(self, x, w):
        old = self.mean
        self.n += w
        self.mean += (w / self.n) * (x - self.mean)
        self.S += w * (x - old) * (x - self.mean)

    def add(self, o):
        if o.n == 0.0:  # (an output that joined after this bin was made)
            return
        self.S = self.S + o.S + (self.mean - o.mean) ** 2 * self.n * o.n / (self.n + o.n)
        old = self.n
        self.n += o.n
        self.mean = (old * self.mean + o.n * o.mean) / self.n

    def minus(self, o):
        """A new ``Var``: these statistics without ``o``'s."""
        r = Var(self.n - o.n, 0.0, 0.0)
        if r.n > 0:
            r.mean = (self.n * self.mean - o.n * o.mean) / r.n
        else:
            r.n = 0.0
        r.S = self.S - o.S - (r.mean - o.mean) ** 2 * r.n * o.n / (r.n + o.n) if o.n else self.S
        return r

    def get(self):
        return self.S / (self.n - 1) if self.n > 1 else 0.0


def fresh(K):
    return [Var() for _ in range(K)]


def mean_weight(stats):
    return sum(v.n for v in stats) / len(stats)


# ----------------------------------------------------------------------------- merits


def merit(pre, post, criterion, min_samples_split, counts):
    """The split's merit: per output River's variance reduction (or the Newton gain), summed."""
    total = 0.0
    for k, parent in enumerate(pre):
        counts["merit_terms"] += 1
        children = [c[k] for c in post]
        if any(c.n < min_samples_split for c in children):
            continue
        if criterion == "newton":
            total += parent.S - sum(c.S for c in children)
        else:
            vr = parent.get()
            for c in children:
                vr -= c.n / parent.n * c.get()
            total += vr
    return total


class Candidate:
    """A split suggestion (River's ``BranchFactory``): ``kind`` is "numeric", "nominal" or
    "multiway"; ``None`` feature is the null split."""

    def __init__(self, merit=-math.inf, feature=None, kind=None, test=None, children=()):
        self.merit, self.feature, self.kind, self.test = merit, feature, kind, test
        self.children = children


# ----------------------------------------------------------------------------- observers


class Quantizer:
    """River's ``QOSplitter``: bins of width ``radius``, each with the weighted mean of its
    ``x`` and, per output, a ``Var`` of the targets."""

    def __init__(self, radius, K):
        self.radius, self.K, self.bins = radius, K, {}

    def update(self, x, targets, weights, w, counts):
        i = math.floor(x / self.radius)
        if i not in self.bins:
            self.bins[i] = [Var(), fresh(self.K)]
        b = self.bins[i]
        b[0].update(x, w)
        counts["bin_updates"] += 1
        for v, t, wk in zip(b[1], targets, weights):
            v.update(t, wk)
        counts["target_updates"] += len(targets)

    def add_output(self):
        self.K += 1
        for b in self.bins.values():
            b[1].append(Var())

    def best(self, pre, feature, criterion, mss, binary_only, counts):
        best = Candidate()
        if len(self.bins) == 1:
            return best
        left, prev = fresh(self.K), None  # (River's running sum, shared by its candidates)
        for i in sorted(self.bins):
            x = self.bins[i][0].mean
            for v, o in zip(left, self.bins[i][1]):
                v.add(o)
            if prev is None:
                prev = x
                continue
            right = [p.minus(v) for p, v in zip(pre, left)]
            m = merit(pre, [left, right], criterion, mss, counts)
            if m > best.merit:
                best = Candidate(m, feature, "numeric", (prev + x) / 2.0, [left, right])
            prev = x
        return best


class Nominal:
    """River's ``NominalSplitterReg``: per category, per output a ``Var``."""

    def __init__(self, radius, K):
        self.K, self.values = K, {}

    def update(self, x, targets, weights, w, counts):
        stats = self.values.setdefault(x, fresh(self.K))
        counts["bin_updates"] += 1
        for v, t, wk in zip(stats, targets, weights):
            v.update(t, wk)
        counts["target_updates"] += len(targets)

    def add_output(self):
        self.K += 1
        for stats in self.values.values():
            stats.append(Var())

    def best(self, pre, feature, criterion, mss, binary_only, counts):
        best = Candidate()
        order = sorted(self.values)
        if not binary_only and len(order) > 2:
            post = [self.values[v] for v in order]
            m = merit(pre, post, criterion, mss, counts)
            best = Candidate(m, feature, "multiway", order, post)
        for value in order:
            post = [self.values[value], [p.minus(v) for p, v in zip(pre, self.values[value])]]
            m = merit(pre, post, criterion, mss, counts)
            if m > best.merit:
                best = Candidate(m, feature, "nominal", value, post)
        return best


# ----------------------------------------------------------------------------- nodes


class Leaf:
    def __init__(self, stats, depth):
        self.stats, self.depth = stats, depth
        self.observers = {}  # feature -> observer; None once deactivated
        self.last_attempt = self.weight

    @property
    def weight(self):
        return mean_weight(self.stats)


class Branch:
    def __init__(self, feature, kind, test, children, depth):
        self.feature, self.kind, self.test, self.depth = feature, kind, test, depth
        self.children = list(children)
        if kind == "multiway":
            self.test = {v: i for i, v in enumerate(test)}

    @property
    def weight(self):
        return sum(c.weight for c in self.children)

    def branch(self, x):
        """The child's index for ``x``, None if its feature is missing or a category unseen."""
        if self.feature not in x:
            return None
        v = x[self.feature]
        if self.kind == "numeric":
            return 0 if v <= self.test else 1
        if self.kind == "nominal":
            return 0 if v == self.test else 1
        return self.test.get(v)

    def most_common(self):
        if self.kind == "multiway":
            return max(self.children, key=lambda c: c.weight)
        left, right = self.children
        return right if left.weight < right.weight else left


# ----------------------------------------------------------------------------- the tree


class MultiOutputHoeffdingTree:
    """A Hoeffding regression tree of ``n_outputs`` outputs with mean leaves (see the module).

    ``learn(x, targets, weights)`` takes one target and one weight per output; ``predict(x)``
    gives the vector of the leaf's means; ``add_output()`` appends an output with no
    statistics anywhere (it predicts 0 until it learns). ``counts`` tallies the work."""

    def __init__(
        self,
        n_outputs=1,
        grace_period=200,
        delta=1e-7,
        tau=0.05,
        radius=0.25,
        min_samples_split=5,
        criterion="variance",
        binary_split=False,
        max_depth=None,
    ):
        self.K = n_outputs
        self.grace_period, self.delta, self.tau, self.radius = grace_period, delta, tau, radius
        self.min_samples_split, self.criterion = min_samples_split, criterion
        self.binary_split = binary_split
        self.max_depth = max_depth if max_depth is not None else sys.getrecursionlimit() - 20
        self.root = None
        self.counts = Counter()

    def add_output(self):
        self.K += 1
        for leaf in self.leaves():
            leaf.stats.append(Var())
            for obs in (leaf.observers or {}).values():
                obs.add_output()

    def leaves(self):
        stack = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, Leaf):
                yield node
            else:
                stack.extend(node.children)

    def _down(self, node, x):
        """From ``node`` along ``x``'s path while its features say where: (parent, index, node)."""
        parent = index = None
        while isinstance(node, Branch):
            i = node.branch(x)
            self.counts["node_visits"] += 1
            if i is None:
                break
            parent, index, node = node, i, node.children[i]
        return parent, index, node

    def predict(self, x):
        if self.root is None:
            return [0.0] * self.K
        node = self.root
        while isinstance(node, Branch):
            self.counts["node_visits"] += 1
            i = node.branch(x)
            node = node.most_common() if i is None else node.children[i]
        return [v.mean for v in node.stats]

    def learn(self, x, targets, weights):
        self.counts["learns"] += 1
        if self.root is None:
            self.root = Leaf(fresh(self.K), 0)
        parent, index, node = self._down(self.root, x)
        if isinstance(node, Leaf):
            self._update(node, x, targets, weights)
            if node.observers is not None:
                if node.depth >= self.max_depth:
                    node.observers = None
                elif node.weight - node.last_attempt >= self.grace_period:
                    self._attempt_split(node, parent, index)
                    node.last_attempt = node.weight
            return
        # a branch whose feature x lacks, or a category unseen (River's learn_one): a new
        # branch for the category, else the most common path; no split attempt there
        while not isinstance(node, Leaf):
            if node.kind == "multiway" and node.feature in x:
                leaf = Leaf(fresh(self.K), node.depth + 1)
                node.test[x[node.feature]] = len(node.children)
                node.children.append(leaf)
                node = leaf
            else:
                node = self._down(node.most_common(), x)[2]
        self._update(node, x, targets, weights)

    def _update(self, leaf, x, targets, weights):
        for v, t, wk in zip(leaf.stats, targets, weights):
            v.update(t, wk)
        if leaf.observers is None:
            return
        w = sum(weights) / len(weights)
        for feature, value in x.items():
            obs = leaf.observers.get(feature)
            if obs is None:
                kind = Quantizer if isinstance(value, numbers.Number) else Nominal
                obs = leaf.observers[feature] = kind(self.radius, self.K)
            obs.update(value, targets, weights, w, self.counts)

    def _attempt_split(self, leaf, parent, index):
        self.counts["split_attempts"] += 1
        found = [Candidate()]  # the null split (River's merit_preprune)
        for feature, obs in leaf.observers.items():
            found.append(
                obs.best(
                    leaf.stats,
                    feature,
                    self.criterion,
                    self.min_samples_split,
                    self.binary_split,
                    self.counts,
                )
            )
        found.sort(key=lambda c: c.merit)  # (stable, as River's)
        split = len(found) < 2
        if not split:
            bound = math.sqrt(math.log(1.0 / self.delta) / (2.0 * leaf.weight))  # R = 1
            best, second = found[-1], found[-2]
            split = best.merit > 0.0 and (second.merit / best.merit < 1 - bound or bound < self.tau)
        if not split:
            return
        best = found[-1]
        if best.feature is None:
            leaf.observers = None
            return
        children = [Leaf(stats, leaf.depth + 1) for stats in best.children]
        node = Branch(best.feature, best.kind, best.test, children, leaf.depth)
        self.counts["splits"] += 1
        if parent is None:
            self.root = node
        else:
            parent.children[index] = node

    def splits(self):
        """The branches' (depth, feature, test) in depth-first order."""
        out, stack = [], [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, Branch):
                test = node.test if node.kind != "multiway" else sorted(node.test, key=str)
                out.append((node.depth, node.feature, test))
                stack.extend(reversed(node.children))
        return out
