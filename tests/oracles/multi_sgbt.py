"""SGBT's softmax with one multi-output tree per boosting step, in plain Python: the reference
walk for a compiled one, and the measurement's two variants (``benchmarks/multi_output_trees.py``).

:class:`MultiSGBTOracle` is :class:`~tests.oracles.gradient.SGBTOracle`'s softmax walk (the
engine's documented math: the Newton step ``t_k = -g_k / h_k`` with the Hessian floored at
0.01, the steps read before they learn, the drift replacement) with step ``s`` one
:class:`~tests.oracles.multi_tree.MultiOutputHoeffdingTree` of ``K`` outputs instead of ``K``
regressors. Output ``k`` learns ``t_k`` with weight ``h_k w / m_s``, ``m_s`` the step's running
mean of ``h`` over its outputs and the examples (the engine's): one vector step weighs each
output as the ``K`` trees of the step would, so the two variants differ only in the shared
structure (``m_s`` cancels in each output's mean, and it makes a leaf's weight, the mean of its
outputs' weights, count about one per example). The step's feature subset is the step's (one
salt per step; the ``K``-tree walk has one per tree). A class that joins gives every step's tree
an output (:meth:`~tests.oracles.multi_tree.MultiOutputHoeffdingTree.add_output`): raw score 0
until it learns, as the ``K``-tree walk's fresh learners.

:class:`QOTree` puts the oracle tree at ``K = 1`` behind River's regressor methods, so that
``SGBTOracle(QOTree(...), ..., outputs="softmax")`` is the ``K``-trees-per-step walk with the same
observer (River's ``HoeffdingTreeRegressor(splitter=QOSplitter(), leaf_prediction="mean")``).
"""

from __future__ import annotations

from river_boost.engine._contract import clean_features

from .gradient import SGBTOracle, newton_step
from .multi_tree import MultiOutputHoeffdingTree


class QOTree:
    """The oracle tree with one output, as a River regressor (``clone``, ``predict_one``,
    ``learn_one``)."""

    def __init__(self, **params):
        self.params = params
        self.tree = MultiOutputHoeffdingTree(1, **params)

    def clone(self):
        return QOTree(**self.params)

    def predict_one(self, x):
        return self.tree.predict(x)[0]

    def learn_one(self, x, y, w=1.0):
        self.tree.learn(x, [y], [w])


class MultiSGBTOracle(SGBTOracle):
    """SGBT's softmax walk, one multi-output tree per step (see the module); ``tree`` holds the
    trees' parameters (:class:`~tests.oracles.multi_tree.MultiOutputHoeffdingTree`'s)."""

    def __init__(
        self, n_models, learning_rate, feature_fraction=1.0, drift_detector=None, seed=None, **tree
    ):
        super().__init__(
            QOTree(**tree),
            n_models,
            learning_rate,
            feature_fraction=feature_fraction,
            drift_detector=drift_detector,
            seed=seed,
            outputs="softmax",
        )
        self.tree = tree
        self.learners = [self.new_tree() for _ in range(n_models)]

    def new_tree(self):
        return MultiOutputHoeffdingTree(self.K, **self.tree)

    def add_class(self):
        for t in self.learners:
            t.add_output()
        self.K += 1

    def raw(self, x):
        x = clean_features(x)
        f = [0.0] * self.K
        for s in range(self.S):
            p = self.learners[s].predict(self.view(s, x))
            f = [fk + self.lr * pk for fk, pk in zip(f, p)]
        return f

    def learn(self, x, y, w=1.0):
        if w == 0:
            return
        x = clean_features(x)
        if y not in self.classes:
            self.classes.append(y)
            if len(self.classes) > 1:
                self.add_class()
        y = self.classes.index(y)
        f = [0.0] * self.K
        for s in range(self.S):
            targets, hessians = newton_step("softmax", y, f, 0.0)
            self.hsum[s] += sum(h * w for h in hessians)
            self.hweight[s] += self.K * w
            mean_h = self.hsum[s] / self.hweight[s]
            view = self.view(s, x)
            preds = self.learners[s].predict(view)
            self.learners[s].learn(view, targets, [h * w / mean_h for h in hessians])
            err = sum(h * (t - p) ** 2 for h, t, p in zip(hessians, targets, preds))
            f = [fk + self.lr * p for fk, p in zip(f, preds)]
            if self.detectors is not None:
                before = self.detectors[s].estimation
                self.detectors[s].update(err)
                if self.detectors[s].drift_detected and self.detectors[s].estimation > before:
                    self.learners[s] = self.new_tree()
                    if self.subsets is not None:
                        self.subsets.reseed(s, self.rng.getrandbits(64))
                    self.detectors[s] = self.detector.clone()
                    self.replacements[s] += 1
