"""Optional outside anchors for ``river-boost bench``: Vowpal Wabbit's and MOA's boosters.

Each anchor is a small River classifier wrapping the other library, so the bench runs it
exactly like River's models (predict, score, learn, one example at a time). They are used only
when their library is installed (``pip install vowpalwabbit`` / ``pip install capymoa``, which
needs Java); otherwise the bench skips them with a notice.

- ``VW.BBM``, ``VW.logistic``, ``VW.adaptive``: Vowpal Wabbit's online boosting reduction
  (``--boosting N --alg BBM|logistic|adaptive``, the implementation of Beygelzimer, Kale &
  Luo 2015 in VW) over its default linear learner. Binary streams.
- ``MOA.OzaBoost``, ``MOA.OnlineSmoothBoost`` (binary streams), ``MOA.SGBT`` (binary and
  multiclass): MOA's boosters through capymoa; ``MOA.ARF``, ``MOA.SRP`` (binary and
  multiclass): its drift-adaptive ensembles (the drift suite).
- ``MOA.SGBR``, ``MOA.ARFRegressor``: MOA's streaming gradient-boosted regression and its
  adaptive random forest regressor (the regression bench).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import re
import shutil

from river import base

from ..potentials import sigmoid

__all__ = [
    "ANCHORS",
    "DRIFT_ANCHORS",
    "available",
    "missing_notice",
    "VWBoostingClassifier",
    "MOAClassifier",
    "MOARegressor",
]

_UNSAFE = re.compile(r"[\s|:]")


def available(library: str) -> bool:
    """Whether ``library`` is installed (capymoa: and Java, which it starts)."""
    return _installed(library) and (library != "capymoa" or _java())


def _installed(library: str) -> bool:
    return importlib.util.find_spec(library) is not None


def _java() -> bool:
    return bool(os.environ.get("JAVA_HOME")) or shutil.which("java") is not None


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


class _MOAModel:
    """What MOA's classifiers and regressors share through capymoa: a schema built from the
    stream, and features turned into MOA's numeric attributes.

    MOA needs its attributes (and classes) up front. The schema starts from the first example:
    its numeric features sorted by name; a nominal value (a string, or anything ``float``
    does not read) becomes a one-hot attribute ``name=value``. A feature, nominal value or
    class that first appears later grows the schema: the model is rebuilt on it and retrains
    on every example seen so far, in order, so it is the model MOA would have had with that
    attribute or class declared from the start (absent attributes count as 0, as they did).
    The examples seen are kept for that; the retraining counts in the run's time.
    """

    def __init__(self, learner: str, n_models: int = 10, seed: int = 0):
        self.learner = learner
        self.n_models = n_models
        self.seed = seed
        self._reset()
        # capymoa starts the JVM on import (seconds): here, when the model is made, rather than
        # in its first learn_one, inside the time a bench run measures
        importlib.import_module(self._MODULE)

    def _reset(self):
        self._model = None
        self._schema = None
        self._columns = {}  # feature name, or (name, nominal value), -> attribute index
        self._seen = []  # (attribute values, target) of every example learned
        self._grown = False

    def __getstate__(self):  # JVM objects do not pickle; a copy starts afresh
        state = dict(self.__dict__)
        state.update(_model=None, _schema=None, _columns={}, _seen=[], _grown=False)
        return state

    def _keys(self, x):
        """The attribute key of each feature of ``x`` and its value (1 for a nominal one)."""
        for name, value in x.items():
            number = _number(value)
            if number is None:
                yield (name, str(value)), 1.0
            else:
                yield name, number

    def _values(self, x):
        import numpy as np

        values = np.zeros(len(self._columns))
        for key, value in self._keys(x):
            j = self._columns.get(key)
            if j is not None:
                values[j] = value
        return values

    def _register(self, x) -> None:
        """Give every new attribute of ``x`` a column (the first example's in sorted order)."""
        new = [key for key, _ in self._keys(x) if key not in self._columns]
        if not new:
            return
        if not self._columns:
            new.sort(key=str)
        for key in new:
            self._columns[key] = len(self._columns)
        if self._model is not None:
            self._grown = True

    def _attribute_names(self):
        names = []
        for key in self._columns:
            text = f"{key[0]}={key[1]}" if isinstance(key, tuple) else str(key)
            names.append(f"f_{_UNSAFE.sub('_', text)}")
        return names

    _MODULE = "capymoa"  # the capymoa module of LEARNERS

    def _target(self):
        """``(target attribute, its categories or None)``."""
        raise NotImplementedError

    def _build(self):
        from capymoa.stream import Schema

        target, categories = self._target()
        self._schema = Schema.from_custom(
            [*self._attribute_names(), target],
            target=target,
            categories=categories,
            name="river_boost",
        )
        cls_name, size_param = self.LEARNERS[self.learner]
        self._model = getattr(importlib.import_module(self._MODULE), cls_name)(
            schema=self._schema, random_seed=self.seed, **{size_param: self.n_models}
        )

    def _learn(self, x, target) -> None:
        """Learn one example (its target in MOA's terms), rebuilding first if the schema grew."""
        self._register(x)
        if self._model is None or self._grown:
            self._grown = False
            width = len(self._columns)
            self._seen = [(_padded(v, width), t) for v, t in self._seen]
            self._build()
            for values, t in self._seen:
                self._model.train(self._labeled(values, t))
        values = self._values(x)
        self._seen.append((values, target))
        self._model.train(self._labeled(values, target))


def _padded(values, width: int):
    import numpy as np

    if len(values) == width:
        return values
    return np.concatenate([values, np.zeros(width - len(values))])


class MOAClassifier(_MOAModel, base.Classifier):
    """One of MOA's classifiers through capymoa, as a River classifier.

    Attributes as :class:`_MOAModel` says. Classes: when the first label is ``False``/``True``
    (or 0/1), both are declared from the start (a binary stream); otherwise, and for any
    other label, the classes are the labels in the order they appear: a label first seen
    mid-stream rebuilds the model on the grown class list and retrains it on the examples seen
    so far (MOA's SGBT trains one committee per declared class, so declaring spare classes
    would cost it time). Before it learns, predictions are uniform over the known labels.

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

    _multiclass = True
    _MODULE = "capymoa.classifier"

    def __init__(self, learner: str = "OzaBoost", n_models: int = 10, seed: int = 0):
        super().__init__(learner, n_models, seed)

    def _reset(self):
        super()._reset()
        self._classes = []

    def __getstate__(self):
        return {**super().__getstate__(), "_classes": []}

    # capymoa class and the name of its ensemble-size parameter
    LEARNERS = {
        "OzaBoost": ("OzaBoost", "boosting_iterations"),
        "OnlineSmoothBoost": ("OnlineSmoothBoost", "boosting_iterations"),
        "SGBT": ("StreamingGradientBoostedTrees", "boosting_iterations"),
        "ARF": ("AdaptiveRandomForestClassifier", "ensemble_size"),
        "SRP": ("StreamingRandomPatches", "ensemble_size"),
    }

    def _target(self):
        if self._classes == [0, 1]:  # or [False, True]
            names = ["False", "True"]
        else:
            names = [f"c{i}" for i in range(len(self._classes))]
        return "class", {"class": names}

    def _labeled(self, values, target):
        from capymoa.core import LabeledInstance

        return LabeledInstance.from_array(self._schema, values, target)

    def learn_one(self, x, y, **kwargs):
        if not self._classes and y in (0, 1):  # a binary stream's labels, declared at once
            self._classes = [False, True] if isinstance(y, bool) else [0, 1]
        if y not in self._classes:
            self._classes.append(y)
            if self._model is not None:
                self._grown = True
        self._learn(x, self._classes.index(y))

    def predict_proba_one(self, x, **kwargs):
        from capymoa.core import Instance

        if self._model is None:
            if not self._classes:
                return {False: 0.5, True: 0.5}
            return {c: 1 / len(self._classes) for c in self._classes}
        proba = self._model.predict_proba(Instance.from_array(self._schema, self._values(x)))
        if self._classes == [0, 1]:  # or [False, True]
            p = float(proba[1]) if proba is not None and len(proba) > 1 else 0.5
            return {self._classes[0]: 1.0 - p, self._classes[1]: p}
        if proba is None or len(proba) != len(self._classes) or not sum(proba) > 0:
            return {c: 1 / len(self._classes) for c in self._classes}
        total = float(sum(proba))
        return {c: float(p) / total for c, p in zip(self._classes, proba)}


class MOARegressor(_MOAModel, base.Regressor):
    """One of MOA's regressors through capymoa, as a River regressor (attributes as
    :class:`_MOAModel` says; predicts 0 before it learns).

    Parameters
    ----------
    learner
        ``"SGBR"`` (StreamingGradientBoostedRegression, at its defaults: ``n_models`` is its
        number of boosting iterations, 10 by default) or ``"ARF"`` (AdaptiveRandomForest-
        Regressor with ``n_models`` trees: 10, as River's ARFRegressor, rather than MOA's 100).
    n_models
        Its ensemble size.
    seed
        ``random_seed``.

    """

    _MODULE = "capymoa.regressor"
    LEARNERS = {
        "SGBR": ("StreamingGradientBoostedRegression", "boosting_iterations"),
        "ARF": ("AdaptiveRandomForestRegressor", "ensemble_size"),
    }

    def __init__(self, learner: str = "SGBR", n_models: int = 10, seed: int = 0):
        super().__init__(learner, n_models, seed)

    def _target(self):
        return "target", None

    def _labeled(self, values, target):
        from capymoa.core import RegressionInstance

        return RegressionInstance.from_array(self._schema, values, target)

    def learn_one(self, x, y, **kwargs):
        self._learn(x, float(y))

    def predict_one(self, x, **kwargs):
        from capymoa.core import Instance

        if self._model is None:
            return 0.0
        y = self._model.predict(Instance.from_array(self._schema, self._values(x)))
        return float(y) if y is not None and math.isfinite(y) else 0.0


def _number(value) -> float | None:
    """``value`` as a number (non-finite: 0), or None for a nominal value."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
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
    "MOA.SGBR": ("capymoa", lambda n, seed: MOARegressor("SGBR", n, seed)),
    "MOA.ARFRegressor": ("capymoa", lambda n, seed: MOARegressor("ARF", n, seed)),
}
# the anchors that run on every classification stream (binary and multiclass), and the
# regression anchors; the others run on binary streams
MULTICLASS_ANCHORS = ["MOA.SGBT", "MOA.ARF", "MOA.SRP"]
REGRESSION_ANCHORS = ["MOA.SGBR", "MOA.ARFRegressor"]
# MOA's drift-adaptive ensembles: the drift suite's outside anchors (binary streams)
DRIFT_ANCHORS = ["MOA.SGBT", "MOA.ARF", "MOA.SRP"]


def missing_notice(name: str) -> str:
    library = ANCHORS[name][0]
    if library == "capymoa" and _installed(library) and not _java():
        return (
            f"skipping {name}: capymoa needs Java, and none was found (java on the PATH or "
            "JAVA_HOME)"
        )
    extra = " (and Java)" if library == "capymoa" else ""
    return f"skipping {name}: pip install {library}{extra} to compare with it"
