"""Malformed events never crash, corrupt or poison a booster.

Every booster of the library is fed a real stream into which hypothesis mixes malformed
events (non-finite, huge, missing or ill-typed feature values; ``x`` that is not a dict;
empty ``x``; new and non-string keys; labels of the wrong kind; empty or unknown label sets;
weights 0, negative, NaN, infinite, huge, tiny or not numbers), on every entry point. A
*control* booster with the same seed sees only what the documented input contract says each
event amounts to (``contract`` below, written independently of the library's own cleaning):

- an event the contract rejects must raise ``ValueError`` or ``TypeError`` and leave the
  booster exactly as it was (its pickle unchanged); the control sees nothing;
- an event the contract accepts must be learned (or predicted) as its clean equivalent,
  which the control gets instead;

and after every event the fuzzed booster must predict exactly as the control: no crash, no
state change by a rejected event, no poisoned booster. With the settings below the suite
feeds 11 boosters x 25 examples x 40 events = 11,000 malformed events.
"""

from __future__ import annotations

import decimal
import fractions
import itertools
import math
import numbers
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from river import datasets, tree

import river_boost as rb

REJECT = object()
MAX = 1e12  # the contract's bound on feature magnitudes and sample weights
N_EXAMPLES, N_EVENTS = 25, 40

BOOSTERS = {
    "OnlineBBM": (lambda: rb.OnlineBBM(n_models=3, seed=1), "binary"),
    "AdaBoostOL": (lambda: rb.AdaBoostOL(n_models=3, prediction="random", seed=1), "binary"),
    "OSBoost": (lambda: rb.OSBoost(n_models=3, weighting="sampling", seed=1), "binary"),
    "NHBoostDT": (lambda: rb.NHBoostDT(n_models=3, min_weight=0.0, seed=1), "binary"),
    "SquintBoost": (lambda: rb.SquintBoost(n_models=3, feature_fraction=0.5, seed=1), "binary"),
    "MartingaleBooster": (
        lambda: rb.MartingaleBooster(n_levels=3, grace_period=20, min_node_samples=3, seed=1),
        "binary",
    ),
    "AdaBoostOLM": (lambda: rb.AdaBoostOLM(n_models=3, seed=1), "multiclass"),
    "OnlineMBBM": (lambda: rb.OnlineMBBM(n_models=3, gamma=0.2, seed=1), "multiclass"),
    "AdaOLMR": (
        lambda: rb.AdaOLMR(
            model=tree.HoeffdingTreeClassifier(leaf_prediction="mc"), n_models=3, seed=1
        ),
        "ranking",
    ),
    "OnlineBMR": (
        lambda: rb.OnlineBMR(
            model=tree.HoeffdingTreeClassifier(leaf_prediction="mc"), n_models=3, seed=1
        ),
        "ranking",
    ),
    "PotentialBooster": (
        lambda: rb.PotentialBooster(rb.potentials.SquintPotential("uniform"), n_models=3, seed=1),
        "binary",
    ),
    "SGBTClassifier": (lambda: rb.SGBTClassifier(n_models=3, seed=1), "binary"),
    "SGBTClassifier-multiclass": (lambda: rb.SGBTClassifier(n_models=3, seed=1), "softmax"),
    # (trees with mean leaves, which take strings: the default adaptive leaves refuse them,
    # see test_regression.py)
    "SGBTRegressor": (
        lambda: rb.SGBTRegressor(model=rb.gradient.default_regressor("mean"), n_models=3, seed=1),
        "regression",
    ),
    # (over trees with mean leaves: linear models take numbers only and refuse strings, see
    # test_regression.py)
    "OnlineGradientBoostRegressor": (
        lambda: rb.OnlineGradientBoostRegressor(
            model=tree.HoeffdingTreeRegressor(grace_period=20, leaf_prediction="mean"), n_models=3
        ),
        "regression",
    ),
}

STREAMS = {
    "binary": list(itertools.islice(datasets.Phishing(), 400)),
    "multiclass": list(itertools.islice(datasets.ImageSegments(), 400)),
    "ranking": list(itertools.islice(datasets.Yeast(), 200)),
    "regression": list(itertools.islice(datasets.TrumpApproval(), 400)),
}
STREAMS["softmax"] = STREAMS["multiclass"]


# ----------------------------------------------------------------------------- the contract


class Contract:
    """The documented input contract, tracked for one booster (feature kinds, labels)."""

    def __init__(self, task):
        self.task = task
        self.nominal = {}  # feature -> its first learned value was a string
        self.labels = []

    def value(self, v):
        """A clean feature value, None for a missing one, REJECT for what cannot be one."""
        if isinstance(v, str):
            return v
        if v is None:
            return None
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (numbers.Real, decimal.Decimal, np.number)) and not isinstance(v, complex):
            try:
                f = float(v)
            except (OverflowError, ValueError):
                return None
            return v if (math.isfinite(f) and abs(f) <= MAX) else None
        return REJECT

    def x(self, x):
        if not isinstance(x, dict):
            return REJECT
        out = {}
        for k, v in x.items():
            v = self.value(v)
            if v is REJECT:
                return REJECT
            if v is not None and self.nominal.get(k, isinstance(v, str)) == isinstance(v, str):
                out[k] = v
        return out

    def weight(self, w):
        if isinstance(w, (bool, str, bytes)) or not isinstance(w, (numbers.Real, np.number)):
            return REJECT
        w = float(w)
        return w if 0.0 <= w <= MAX else REJECT

    def label(self, y):
        if self.task == "regression":  # a finite real number (a bool is a label, not one)
            if isinstance(y, (bool, np.bool_, str, bytes)):
                return REJECT
            if not isinstance(y, (numbers.Real, np.number)) or isinstance(y, complex):
                return REJECT
            try:
                return y if abs(float(y)) <= 1e100 else REJECT  # (NaN fails too)
            except (OverflowError, ValueError):
                return REJECT
        if self.task == "binary":
            if isinstance(y, (bool, np.bool_, numbers.Number)) and not isinstance(y, complex):
                if y == 1 or y == 0:
                    return y
            return REJECT
        if self.task == "multiclass":
            return y if self._joinable([y]) else REJECT
        if self.task == "softmax":  # SGBTClassifier: any hashable label but None and NaN
            try:
                hash(y)
            except TypeError:
                return REJECT
            return REJECT if y is None or y != y else y
        if not isinstance(y, dict) or not self._joinable(list(y)):
            return REJECT
        ok = all(
            isinstance(v, (bool, np.bool_, numbers.Number))
            and not isinstance(v, complex)
            and (v == 1 or v == 0)
            for v in y.values()
        )
        return y if ok else REJECT

    def _joinable(self, labels):
        for y in labels:
            try:
                hash(y)
            except TypeError:
                return False
            if y is None or y != y:
                return False
        try:
            sorted([*self.labels, *labels])
        except TypeError:
            return False
        return True

    def learned(self, x, y, w=1.0):
        """The booster learned ``(x, y, w)`` (all clean): its labels join; if it taught the
        learners, the features' kinds are now fixed."""
        if w == 0:
            return
        new = list(y) if isinstance(y, dict) else [y]
        self.labels += [label for label in new if label not in self.labels]
        if isinstance(y, dict):  # a ranking row without a (relevant, irrelevant) pair
            n_relevant = sum(bool(y.get(label, False)) for label in self.labels)
            if n_relevant in (0, len(self.labels)):
                return
        for k, v in x.items():
            self.nominal.setdefault(k, isinstance(v, str))


# ----------------------------------------------------------------------------- malformed events

NAMES = ["having_IP_address", "url_length", "region-centroid-col", "att1", "hue-mean", 3, ("t", 1)]
VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e300, -1e300, 1e13, 1.3e154, 1e100, 1e-300]),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.text(max_size=2),
    st.none(),
    st.booleans(),
    st.sampled_from(
        [
            1j,
            decimal.Decimal("NaN"),
            decimal.Decimal("2.5"),
            fractions.Fraction(1, 3),
            np.float32("nan"),
            np.float32(0.25),
            np.int64(3),
            np.bool_(True),
            b"x",
        ]
    ),
    st.lists(st.integers(), max_size=2),
)
BAD_X = st.one_of(
    st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=3), VALUES, max_size=4),
    st.sampled_from([None, [1.0, 2.0], "x", 3, {}]),
)
WEIGHTS = st.one_of(
    st.sampled_from([0, 0.0, -1.0, math.nan, math.inf, 1e300, 1e-300, 1e12, 1e13, "1", None, True]),
    st.floats(min_value=0.0, max_value=10.0),
)
LABELS = {
    "regression": st.sampled_from(
        [
            1.5,
            -3,
            0,
            True,
            np.bool_(False),
            "1",
            None,
            math.nan,
            math.inf,
            1e308,
            10**400,
            np.float32(2.5),
            np.int64(3),
            fractions.Fraction(1, 3),
            decimal.Decimal("2.5"),
            [1.0],
        ]
    ),
    "binary": st.sampled_from(
        [True, False, 1, 0, 1.0, np.bool_(True), 2, -1, 0.5, "yes", None, math.nan, [1]]
    ),
    "multiclass": st.sampled_from(
        [
            "path",
            "sky",
            "zebra",
            2,
            None,
            math.nan,
            ["a"],
            ("t", 1),
            frozenset({1}),
            np.float64("nan"),
        ]
    ),
    "ranking": st.sampled_from(
        [
            {},
            {"Class1": True},
            {"Class1": True, "Class2": False, "new label": True},
            {7: True},
            {None: True},
            {"Class1": "yes"},
            {"Class1": 2},
            {math.nan: True},
            ["Class1"],
            None,
        ]
    ),
}


@st.composite
def events(draw, task):
    """A malformed event: (entry point, x, y, w). The x is either malformed on its own, or a
    real example with one feature spoiled."""
    entry = draw(st.sampled_from(["learn", "learn", "learn", "predict"]))
    base_x, base_y = draw(st.sampled_from(STREAMS[task]))
    if draw(st.booleans()):
        x = dict(base_x)
        x[draw(st.sampled_from(list(x)))] = draw(VALUES)
        if draw(st.booleans()):
            x[draw(st.sampled_from(NAMES))] = draw(VALUES)
    else:
        x = draw(BAD_X)
    y = draw(LABELS[task]) if draw(st.booleans()) else base_y
    w = draw(WEIGHTS) if draw(st.booleans()) else 1.0
    return entry, x, y, w


# ----------------------------------------------------------------------------- the harness


def _predict(model, task, x):
    if task == "regression":
        return model.predict_one(x)
    if task == "ranking":
        return model.score_one(x), model.predict_proba_one(x), model.predict_one(x)
    return model.predict_proba_one(x), model.predict_one(x)


def _fuzz(name, bad_events, valid):
    make, task = BOOSTERS[name]
    fuzzed, control, contract = make(), make(), Contract(task)
    for (x, y), (entry, bx, by, bw) in zip(valid, bad_events):
        # a valid event for both
        fuzzed.learn_one(x, y)
        control.learn_one(x, y)
        contract.learned(contract.x(x), y)
        # the malformed one
        before = pickle.dumps(fuzzed)
        clean_x = contract.x(bx)
        if entry == "predict":
            outcome = clean_x
        else:
            clean_y, clean_w = contract.label(by), contract.weight(bw)
            ok = REJECT not in (clean_x, clean_y, clean_w)
            outcome = (clean_x, clean_y, clean_w) if ok else REJECT
        try:
            if entry == "predict":
                got = _predict(fuzzed, task, bx)
            else:
                fuzzed.learn_one(bx, by, w=bw)
        except (ValueError, TypeError) as e:
            assert outcome is REJECT, f"{name}: rejected an event the contract accepts: {e}"
            assert pickle.dumps(fuzzed) == before, f"{name}: a rejected event changed the state"
        else:
            assert outcome is not REJECT, f"{name}: accepted {entry}({bx!r}, {by!r}, w={bw!r})"
            if entry == "predict":
                assert got == _predict(control, task, clean_x)
            else:
                clean_x, clean_y, clean_w = outcome
                control.learn_one(clean_x, clean_y, w=clean_w)
                contract.learned(clean_x, clean_y, clean_w)
        # never poisoned: the same predictions as the control
        assert _predict(fuzzed, task, x) == _predict(control, task, x), f"{name}: poisoned"


@pytest.mark.parametrize("name", list(BOOSTERS))
def test_malformed_events_never_crash_corrupt_or_poison(name):
    task = BOOSTERS[name][1]

    @settings(
        max_examples=N_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(bad_events=st.lists(events(task), min_size=N_EVENTS, max_size=N_EVENTS))
    def run(bad_events):
        _fuzz(name, bad_events, STREAMS[task][: len(bad_events)])

    run()


LABELS["softmax"] = LABELS["multiclass"]
