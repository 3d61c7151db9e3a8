"""The gradient boosters as the papers state them, in plain Python: the reference that the
compiled walk (``river_boost.engine._gradient``, ``_losses``) is checked against.

:class:`SGBTOracle` is streaming gradient boosting (Gunasekara et al. 2024) for regression,
the binary log loss and the softmax; :class:`OGBOracle` is Algorithm 1 of Beygelzimer et al.
(2015). Each keeps its own River regressors, built from the same parameters as the
estimator's, and its own drift detectors; only the feature subsets' hash (the package's
``FeatureSubsets``, keyed by each learner's salt, which the estimators' learners share) is
borrowed. The losses are written out below, as the module ``river_boost.engine._losses``
documents them.

The regressors feed their steps' detectors the squared error over the targets' running
variance ``sd^2`` (``sd`` 1 before two distinct targets) and clip each step's prediction to
the range of 0 and the targets it learned; OGB walks on the score centred at the targets'
running mean and projects each ``y^i`` onto the targets' range
(``river_boost.engine._gradient``).
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist

from river_boost.engine._contract import clean_features
from river_boost.subsets import FeatureSubsets

MIN_HESSIAN = 0.01


# ----------------------------------------------------------------------------- the losses


def loss_value(name, y, f, delta=1.0, alpha=0.5):
    if name == "squared":
        return (y - f) ** 2 / 2
    if name == "huber":
        r = y - f
        return r * r / 2 if abs(r) <= delta else delta * (abs(r) - delta / 2)
    if name == "quantile":
        r = y - f
        return alpha * r if r >= 0 else (alpha - 1) * r
    if name == "log":
        p = 1 / (1 + math.exp(-f))
        return -(y * math.log(p) + (1 - y) * math.log(1 - p))
    if name == "softmax":
        return -math.log(softmax(f)[int(y)])
    raise ValueError(name)


def softmax(f):
    m = max(f)
    e = [math.exp(v - m) for v in f]
    return [v / sum(e) for v in e]


def gradient_hessian(name, y, f, delta=1.0, alpha=0.5):
    """The loss's gradient and Hessian at ``f`` (lists for the softmax)."""
    if name == "squared":
        return f - y, 1.0
    if name == "huber":
        r = y - f
        if abs(r) <= delta:
            return -r, 1.0
        return (-delta if r > 0 else delta), 0.0
    if name == "quantile":
        return (-alpha if y - f > 0 else 1 - alpha), 0.0
    if name == "log":
        p = 1 / (1 + math.exp(-f))
        return p - y, p * (1 - p)
    if name == "softmax":
        p = softmax(f)
        return [q - (j == int(y)) for j, q in enumerate(p)], [q * (1 - q) for q in p]
    raise ValueError(name)


def newton_step(name, y, f, scale, delta=1.0, alpha=0.5):
    """The Newton step's target and weight (lists for the softmax)."""
    g, h = gradient_hessian(name, y, f, delta, alpha)
    if name == "squared":
        return y - f, 1.0
    if name == "huber":
        return min(max(y - f, -delta), delta), 1.0
    if name == "quantile":
        z = NormalDist().inv_cdf(alpha)
        return -g * scale / NormalDist().pdf(z), 1.0
    if name == "log":
        h = max(h, MIN_HESSIAN)
        return -g / h, h
    hs = [max(v, MIN_HESSIAN) for v in h]
    return [-gj / hj for gj, hj in zip(g, hs)], hs


class Targets:
    """The targets' running weighted mean and variance (West), and their range."""

    def __init__(self):
        self.sum_w = self.mean = self.m2 = self.low = self.high = 0.0

    def learn(self, y, w):
        if self.sum_w == 0:
            self.low = self.high = y
        self.low, self.high = min(self.low, y), max(self.high, y)
        self.sum_w += w
        d = y - self.mean
        self.mean += w * d / self.sum_w
        self.m2 += w * d * (y - self.mean)

    def scale(self):
        return math.sqrt(self.m2 / self.sum_w) if self.sum_w > 0 and self.m2 > 0 else 0.0

    def unit(self):
        return self.scale() or 1.0


def clip(value, low, high):
    return min(max(value, low), high)


# ----------------------------------------------------------------------------- SGBT


class SGBTOracle:
    """SGBT from scratch: ``outputs`` is ``"regression"``, ``"binary"`` or ``"softmax"``."""

    def __init__(
        self,
        model,
        n_models,
        learning_rate,
        loss="squared",
        delta=1.0,
        alpha=0.5,
        feature_fraction=1.0,
        drift_detector=None,
        seed=None,
        outputs="regression",
    ):
        self.model, self.S, self.lr = model, n_models, learning_rate
        self.loss, self.delta, self.alpha = loss, delta, alpha
        self.detector = drift_detector
        self.outputs = outputs
        self.rng = random.Random(seed)
        self.K = 1
        self.subsets, self.first = None, None
        if feature_fraction < 1.0:
            self.subsets = FeatureSubsets(
                feature_fraction, [self.rng.getrandbits(64) for _ in range(n_models)]
            )
        self.learners = [model.clone() for _ in range(n_models)]
        self.detectors = (
            [drift_detector.clone() for _ in range(n_models)] if drift_detector else None
        )
        self.replacements = [0] * n_models
        self.hsum = [0.0] * n_models
        self.hweight = [0.0] * n_models
        self.targets = Targets()
        self.ranges = [[0.0, 0.0] for _ in range(n_models)]  # each step's (regression)
        self.classes = []

    def view(self, i, x):
        if self.subsets is None:
            return x
        if self.outputs == "regression":  # each feature on its own, with the fraction
            return {f: v for f, v in x.items() if self.subsets.keeps(i, f)}
        # the classifier: each learner sees k = max(2, round(f d)) of the first example's d
        # features, the k its hash ranks first; a later feature by the hash, with the fraction
        if self.first is None and x:
            self.first = list(x)
        first = self.first or []
        fraction, hashed = self.subsets.fraction, self.subsets._hash
        k = min(len(first), max(2, math.floor(fraction * len(first) + 0.5)))
        chosen = sorted(first, key=lambda f: hashed(i, f))[:k]
        return {
            f: v
            for f, v in x.items()
            if (f in chosen if f in first else hashed(i, f) < fraction * 2**64)
        }

    def predict(self, i, x):
        p = self.learners[i].predict_one(self.view(i, x))
        p = 0.0 if p is None else float(p)
        if self.outputs == "regression":
            p = clip(p, *self.ranges[i % self.S])
        return p

    def base(self):
        return self.targets.mean if self.outputs == "regression" else 0.0

    def unit(self):
        return self.targets.unit() if self.outputs == "regression" else 1.0

    def raw(self, x):
        x = clean_features(x)
        f = [self.base()] * self.K
        for s in range(self.S):
            preds = [self.predict(s + self.S * k, x) for k in range(self.K)]
            f = [fk + self.lr * p for fk, p in zip(f, preds)]
        return f

    def add_class(self):
        for _ in range(self.S):
            self.learners.append(self.model.clone())
            if self.subsets is not None:
                self.subsets.append(self.rng.getrandbits(64))
        self.K += 1

    def learn(self, x, y, w=1.0):
        if w == 0:
            return
        x = clean_features(x)
        if self.outputs == "softmax":
            if y not in self.classes:
                self.classes.append(y)
                if len(self.classes) > 1:
                    self.add_class()
            y = self.classes.index(y)
        elif self.outputs == "binary":
            y = float(y)
        if self.outputs == "regression":  # the base score takes y first
            self.targets.learn(y, w)
        scale, unit = self.targets.scale(), self.unit()
        f = [self.base()] * self.K
        name = {"regression": self.loss, "binary": "log", "softmax": "softmax"}[self.outputs]
        for s in range(self.S):
            if name != "softmax":
                target, weight = newton_step(name, y, f[0], scale, self.delta, self.alpha)
                targets, weights = [target], [weight]
            else:
                targets, weights = newton_step(name, y, f, scale)
            self.hsum[s] += sum(h * w for h in weights)
            self.hweight[s] += self.K * w
            mean_h = self.hsum[s] / self.hweight[s]
            err = 0.0
            preds = []
            for k in range(self.K):
                i = s + self.S * k
                p = self.predict(i, x)
                preds.append(p)
                if weights[k] * w > 0:
                    self.learners[i].learn_one(
                        self.view(i, x), targets[k], w=weights[k] * w / mean_h
                    )
                    low, high = self.ranges[s]
                    self.ranges[s] = [min(low, targets[k]), max(high, targets[k])]
                err += weights[k] * (targets[k] - p) ** 2
            f = [fk + self.lr * p for fk, p in zip(f, preds)]
            if self.detectors is not None:
                before = self.detectors[s].estimation
                self.detectors[s].update(err / unit**2)
                if self.detectors[s].drift_detected and self.detectors[s].estimation > before:
                    for k in range(self.K):
                        i = s + self.S * k
                        self.learners[i] = self.model.clone()
                        if self.subsets is not None:
                            self.subsets.reseed(i, self.rng.getrandbits(64))
                    self.detectors[s] = self.detector.clone()
                    self.replacements[s] += 1
                    self.ranges[s] = [0.0, 0.0]

    def predict_one(self, x):
        f = self.raw(x)
        if self.outputs == "regression":
            return f[0]
        if self.outputs == "binary":
            p = 1 / (1 + math.exp(-f[0]))
            return {False: 1 - p, True: p}
        return dict(zip(self.classes, softmax(f)))


# ----------------------------------------------------------------------------- OGB


class OGBOracle:
    """Algorithm 1 of Online Gradient Boosting on the score centred at the targets' running
    mean, ``u^0 = 0``, each ``y^i`` projected onto the targets' range; the regression
    reduction of its weak learners (the Newton target: ``-grad`` but for the quantile), and
    the step size ``1 / (G sqrt(t))``."""

    def __init__(self, model, n_models, learning_rate, loss="squared", delta=1.0, alpha=0.5):
        self.learners = [model.clone() for _ in range(n_models)]
        self.eta = learning_rate
        self.loss, self.delta, self.alpha = loss, delta, alpha
        self.sigma = [0.0] * n_models
        self.ranges = [[0.0, 0.0] for _ in range(n_models)]
        self.targets = Targets()
        self.G = 0.0
        self.t = 0

    def _us(self, x):
        """u^0, ..., u^N (``y^i`` minus the base score)."""
        base, us = self.targets.mean, [0.0]
        for i, a in enumerate(self.learners):
            p = clip(float(a.predict_one(x)), *self.ranges[i])
            u = (1 - self.sigma[i] * self.eta) * us[-1] + self.eta * p
            us.append(clip(u, self.targets.low - base, self.targets.high - base))
        return us

    def predict_one(self, x):
        return self.targets.mean + self._us(clean_features(x))[-1]

    def learn(self, x, y, w=1.0):
        if w == 0:
            return
        x = clean_features(x)
        self.t += 1
        self.targets.learn(y, w)
        base, scale = self.targets.mean, self.targets.scale()
        us = self._us(x)
        for i, a in enumerate(self.learners):
            f = base + us[i]
            g, _ = gradient_hessian(self.loss, y, f, self.delta, self.alpha)
            self.G = max(self.G, abs(g * us[i]))
            if self.G > 0:
                s = self.sigma[i] + g * us[i] / (self.G * math.sqrt(self.t))
                self.sigma[i] = min(max(s, 0.0), 1.0)
            target, _ = newton_step(self.loss, y, f, scale, self.delta, self.alpha)
            a.learn_one(x, target, w=w)
            low, high = self.ranges[i]
            self.ranges[i] = [min(low, target), max(high, target)]
