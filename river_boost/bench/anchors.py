"""Optional outside anchors for ``river-boost bench``: Vowpal Wabbit's and MOA's boosters.

Each anchor is a small River classifier wrapping the other library, so the bench runs it
exactly like River's models (predict, score, learn, one example at a time). They are used only
when their library is installed (``pip install vowpalwabbit`` / ``pip install capymoa``, which
needs Java); otherwise the bench skips them with a notice. Binary streams only.

- ``VW.BBM``, ``VW.logistic``, ``VW.adaptive``: Vowpal Wabbit's online boosting reduction
  (``--boosting N --alg BBM|logistic|adaptive``, the implementation of Beygelzimer, Kale &
  Luo 2015 in VW) over its default linear learner.
- ``MOA.OzaBoost``, ``MOA.OnlineSmoothBoost``, ``MOA.SGBT``: MOA's boosters through capymoa;
  ``MOA.ARF``, ``MOA.SRP``: its drift-adaptive ensembles (the drift suite).
"""

from __future__ import annotations

import importlib.util
import math
import re

from river import base

from ..potentials import sigmoid

__all__ = [
    "ANCHORS",
    "DRIFT_ANCHORS",
    "available",
    "missing_notice",
    "VWBoostingClassifier",
    "MOAClassifier",
]

_UNSAFE = re.compile(r"[\s|:]")


def available(library: str) -> bool:
    return importlib.util.find_spec(library) is not None


class VWBoostingClassifier(base.Classifier):
    """Vowpal Wabbit's online boosting reduction as a River binary classifier.

    Features become VW features (numbers as ``name:value``, anything else as the indicator
    ``name=value``); ``predict_proba_one`` is ``sigmoid(score)`` of VW's boosted score (a
    monotone map, not a calibration).

    Parameters
    ----------
    n_models
        ``--boosting N``.
    alg
        ``"BBM"``, ``"logistic"`` or ``"adaptive"`` (``--alg``).
    gamma
        ``--gamma`` (VW's assumed edge, used by BBM).
    seed
        ``--random_seed``.

    """

    def __init__(self, n_models: int = 10, alg: str = "BBM", gamma: float = 0.1, seed: int = 0):
        self.n_models = n_models
        self.alg = alg
        self.gamma = gamma
        self.seed = seed
        self._vw = None

    def _workspace(self):
        if self._vw is None:
            import vowpalwabbit

            self._vw = vowpalwabbit.Workspace(
                f"--boosting {self.n_models} --alg {self.alg} --gamma {self.gamma} "
                f"--random_seed {self.seed} --quiet"
            )
        return self._vw

    @staticmethod
    def _features(x: dict) -> str:
        parts = []
        for name, value in x.items():
            name = _UNSAFE.sub("_", str(name))
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if math.isfinite(value):
                    parts.append(f"{name}:{value}")
            else:
                parts.append(f"{name}={_UNSAFE.sub('_', str(value))}")
        return " ".join(parts)

    def learn_one(self, x, y, **kwargs):
        self._workspace().learn(f"{1 if y else -1} | {self._features(x)}")

    def predict_proba_one(self, x, **kwargs):
        p = sigmoid(self._workspace().predict(f"| {self._features(x)}"))
        return {False: 1.0 - p, True: p}

    def __getstate__(self):  # VW workspaces do not pickle; a copy starts afresh
        state = dict(self.__dict__)
        state["_vw"] = None
        return state


class MOAClassifier(base.Classifier):
    """One of MOA's classifiers through capymoa, as a River binary classifier.

    capymoa needs a schema up front: it is built from the first example's features (numbers;
    a feature missing later counts as 0) with the classes ``False``/``True``.

    Parameters
    ----------
    learner
        Name of a capymoa classifier (``"OzaBoost"``, ``"OnlineSmoothBoost"``, ``"SGBT"``,
        ``"ARF"``, ``"SRP"``; see ``LEARNERS``).
    n_models
        Its ensemble size (``boosting_iterations`` / ``ensemble_size``).
    seed
        ``random_seed``.

    """

    def __init__(self, learner: str = "OzaBoost", n_models: int = 10, seed: int = 0):
        self.learner = learner
        self.n_models = n_models
        self.seed = seed
        self._model = None
        self._schema = None
        self._features = None

    # capymoa class and the name of its ensemble-size parameter
    LEARNERS = {
        "OzaBoost": ("OzaBoost", "boosting_iterations"),
        "OnlineSmoothBoost": ("OnlineSmoothBoost", "boosting_iterations"),
        "SGBT": ("StreamingGradientBoostedTrees", "boosting_iterations"),
        "ARF": ("AdaptiveRandomForestClassifier", "ensemble_size"),
        "SRP": ("StreamingRandomPatches", "ensemble_size"),
    }

    def _build(self, x):
        import capymoa.classifier as cl
        from capymoa.stream import Schema

        self._features = sorted(x, key=str)
        names = [f"f_{_UNSAFE.sub('_', str(f))}" for f in self._features]
        self._schema = Schema.from_custom(
            [*names, "class"],
            target="class",
            categories={"class": ["False", "True"]},
            name="river_boost",
        )
        cls_name, size_param = self.LEARNERS[self.learner]
        self._model = getattr(cl, cls_name)(
            schema=self._schema, random_seed=self.seed, **{size_param: self.n_models}
        )

    def _instance(self, x, y=None):
        import numpy as np
        from capymoa.core import Instance, LabeledInstance

        values = np.array([_number(x.get(f, 0.0)) for f in self._features], dtype=float)
        if y is None:
            return Instance.from_array(self._schema, values)
        return LabeledInstance.from_array(self._schema, values, int(bool(y)))

    def learn_one(self, x, y, **kwargs):
        if self._model is None:
            self._build(x)
        self._model.train(self._instance(x, y))

    def __getstate__(self):  # JVM objects do not pickle; a copy starts afresh
        state = dict(self.__dict__)
        state.update(_model=None, _schema=None, _features=None)
        return state

    def predict_proba_one(self, x, **kwargs):
        if self._model is None:
            return {False: 0.5, True: 0.5}
        proba = self._model.predict_proba(self._instance(x))
        p = float(proba[1]) if proba is not None and len(proba) > 1 else 0.5
        return {False: 1.0 - p, True: p}


def _number(value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return (
            0.0  # nominal values are not encoded for MOA (the bench's binary streams are numeric)
        )
    return value if math.isfinite(value) else 0.0


# name -> (library, factory(n_models, seed))
ANCHORS = {
    "VW.BBM": ("vowpalwabbit", lambda n, seed: VWBoostingClassifier(n, "BBM", 0.1, seed)),
    "VW.logistic": ("vowpalwabbit", lambda n, seed: VWBoostingClassifier(n, "logistic", 0.1, seed)),
    "VW.adaptive": ("vowpalwabbit", lambda n, seed: VWBoostingClassifier(n, "adaptive", 0.1, seed)),
    "MOA.OzaBoost": ("capymoa", lambda n, seed: MOAClassifier("OzaBoost", n, seed)),
    "MOA.OnlineSmoothBoost": (
        "capymoa",
        lambda n, seed: MOAClassifier("OnlineSmoothBoost", n, seed),
    ),
    "MOA.SGBT": ("capymoa", lambda n, seed: MOAClassifier("SGBT", n, seed)),
    "MOA.ARF": ("capymoa", lambda n, seed: MOAClassifier("ARF", n, seed)),
    "MOA.SRP": ("capymoa", lambda n, seed: MOAClassifier("SRP", n, seed)),
}
# MOA's drift-adaptive ensembles: the drift suite's outside anchors (binary streams)
DRIFT_ANCHORS = ["MOA.SGBT", "MOA.ARF", "MOA.SRP"]


def missing_notice(name: str) -> str:
    library = ANCHORS[name][0]
    extra = " (and Java)" if library == "capymoa" else ""
    return f"skipping {name}: pip install {library}{extra} to compare with it"
