"""The boosters' walk, compiled: one ``learn_one`` or prediction in a few calls into C.

When a booster's weak learners are the compiled forest
(:class:`~river_boost.forest.HoeffdingForest`), its per-example work outside the trees is
pure bookkeeping over ``N`` learners: reading their probabilities, votes and expert scores,
the rule's weights, the experts' update, the pool's importance weights and counters. In
Python that bookkeeping costs several times what the trees cost. ``river_boost._walk``
(compiled from Cython at install time, like the forest) does it in C, with the trees called
through the forest's C entry points (``load`` and ``predict_loaded_matrix`` once per ``x``,
``learn_loaded`` per update; the forest's methods of those names, if an instance shadows
them).

The Python walk (:meth:`river_boost.booster.Booster.learn_one` and the task and rule classes)
stays the reference and the fallback: the compiled walk gives the same floats, bit for bit
(same operations in the same order, the C library's ``exp``/``log``/``tanh``/``erf`` as
CPython's ``math`` uses them, CPython's ``sum`` and ``math.fsum``), draws the same random
numbers from the same ``random.Random`` objects, and keeps every piece of state in the same
Python objects, so a booster can switch paths at any example (``ENABLED``, pickling into a
process without the extension) and continue identically. ``tests/test_compiled_walk.py``
checks this on every prediction of many streams.

Covered (anything else takes the Python walk, unchanged):

- binary boosters with :class:`~river_boost.potentials.BinomialPotential` (OnlineBBM),
  :class:`~river_boost.potentials.NormalHedgePotential` (NHBoostDT),
  :class:`~river_boost.potentials.SquintPotential` (both priors),
  :class:`~river_boost.potentials.OSBoostPotential` and
  :class:`~river_boost.potentials.LogisticLoss` (AdaBoost.OL, its three predictions), also
  through ``PotentialBooster``;
- multiclass boosters with :class:`~river_boost.potentials.MulticlassZeroOnePotential`
  (OnlineMBBM) and :class:`~river_boost.potentials.LogisticLoss` (AdaBoost.OLM), both weak
  predictions (``"cost"``, ``"argmax"``), when NumPy's own float64 kernels are found
  (:data:`NUMPY_EXACT`); OnlineMBBM's cost matrices are assembled in C, and its potentials
  with up to 40 votes left, when not cached, come from a compiled dense DP that adds the
  same products in the same order as NumPy's ``einsum`` (:data:`DENSE_DP_EXACT`); above 40,
  the rows of the banded DP are compiled, with NumPy's own dot function called as
  ``np.convolve`` calls it (:data:`POISSON_DP_EXACT`); both DPs also serve the potential on
  the Python walk (custom weak learners) while :data:`ENABLED`;
- multi-label ranking boosters with :class:`~river_boost.potentials.RankingPairPotential`
  (OnlineBMR, hinge and rank losses) and :class:`~river_boost.potentials.LogisticLoss`
  (Ada.OLMR), from the first example (the compiled walk fixes ``feature_fraction="auto"``
  where the Python walk does: before the learners see the first non-empty clean x);
- both weightings (importance with ``min_weight`` thinning, sampling), ``diversify="paper"``
  weight scales, feature subsets (the forest's views), sample weights;
- drift adaptation (:mod:`river_boost.adaptation`): forgetting edges, per-learner OGD rates,
  fixed-share Hedge, background learners and the loop over the learners' detectors in C
  (each detector, a River object, is still called: one ``update`` per learner and example,
  most of such a booster's time outside the trees; River's ``drift.ADWIN`` itself is read
  through its window helper, without the Python frames of its properties and ``update``,
  while its code is the one :data:`ADWIN_FINGERPRINT` was taken from); replacements run in
  Python (``Booster._act``), only when a detector fired.

Rules are matched by exact type: a subclass of a potential (a custom rule) runs in Python.

The input checks and the cleaning of ``x`` (:func:`river_boost.core.clean_features`,
:class:`~river_boost.core.FeatureCleaner`, :func:`~river_boost.core.check_sample_weight`) are
compiled for the common case (a dict with string keys and float, int, bool or string values)
and call the Python functions otherwise. The compiled copy is used only while those Python
functions are the ones it was written from (:data:`CLEANING_FINGERPRINT`, checked at import):
if they change, the Python cleaning runs until the fingerprint is reviewed.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import random
import sys
import textwrap

import numpy as np

from . import adaptation, core, potentials, tasks
from .core import Experts, FeatureCleaner, Hedge, ProjectedOGD, WeakLearnerPool
from .forest import HoeffdingForest
from .potentials import (
    BinomialPotential,
    LogisticLoss,
    MulticlassZeroOnePotential,
    NormalHedgePotential,
    OSBoostPotential,
    RankingPairPotential,
    SquintPotential,
)
from .tasks import BinaryTask, MulticlassTask, RankingTask

__all__ = [
    "AVAILABLE",
    "ENABLED",
    "UNAVAILABLE_REASON",
    "CLEANING_FINGERPRINT",
    "plan_for",
]

try:
    from . import _walk as _c
    from ._forest import forest_api as _forest_api  # the forest's C entry points, for _walk

    AVAILABLE = True
    UNAVAILABLE_REASON = ""
except ImportError as _e:  # built without a compiler, or from a source tree not compiled
    _c = None
    AVAILABLE = False
    UNAVAILABLE_REASON = (
        f"river_boost._walk is not compiled ({_e}); reinstall with a C compiler "
        "(pip install river-boost builds it with Cython) to use the compiled walk"
    )

#: Whether boosters on the compiled forest use the compiled walk (when it is compiled). Set it
#: to False to run the Python walk, the reference: the same results.
ENABLED = AVAILABLE

#: The Python input checks the compiled ones reproduce, by the fingerprint of their code
#: (docstrings left out); see :func:`cleaning_fingerprint`.
CLEANING_FINGERPRINT = "ef943f7f51adcb3f"

_CLEANING_CODE = (
    core._feature_value,
    core.clean_features,
    core.check_sample_weight,
    FeatureCleaner.cleaned,
    FeatureCleaner.learned,
    FeatureCleaner.forget,
)


def _code_digest(functions, extra: str = ""):
    """A hash of the code of ``functions`` (their syntax trees without docstrings, so
    documentation edits do not change it) and ``extra``."""
    digest = hashlib.sha256()
    for function in functions:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        body = tree.body[0].body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            tree.body[0].body = body[1:]
        digest.update(ast.dump(tree).encode())
    digest.update(extra.encode())
    return digest.hexdigest()[:16]


def cleaning_fingerprint() -> str:
    """A hash of the code of the Python input checks the compiled walk copies."""
    return _code_digest(
        _CLEANING_CODE,
        repr((core.MAX_ABS_FEATURE, core.MAX_SAMPLE_WEIGHT, core.MIN_SAMPLE_WEIGHT)),
    )


def _fast_cleaning() -> bool:
    try:
        return cleaning_fingerprint() == CLEANING_FINGERPRINT
    except (OSError, TypeError):  # no source to read (frozen install): the Python checks
        return False


def _erfcx_capsule():
    try:
        from scipy.special import cython_special

        return cython_special.__pyx_capi__["__pyx_fuse_1erfcx"]
    except (ImportError, AttributeError, KeyError):
        return None


def _numpy_kernels() -> tuple:
    """Whether the compiled walk computes exactly as NumPy (its float64 loops of tanh, exp and
    matmul found, and the kernels equal to NumPy on random data), and why not."""
    if not _c._setup_numpy(np.tanh, np.exp, np.matmul):
        return False, "NumPy's float64 loops of tanh, exp or matmul were not found"
    with np.errstate(all="ignore"):
        failed = _c._selftest_numpy(np, 200)
    if failed is not None:
        return False, f"the compiled {failed} differs from NumPy's"
    return True, ""


#: Whether the multiclass and ranking walks run compiled: they need NumPy's own kernels
#: (:func:`_numpy_kernels`); ``NUMPY_REASON`` says why not.
NUMPY_EXACT, NUMPY_REASON = _numpy_kernels() if AVAILABLE else (False, UNAVAILABLE_REASON)


#: Whether NumPy's tanh is odd to the bit (``tanh(-x) == -tanh(x)``), so that AdaBoost.OLM's
#: logistic cost matrices take one tanh per pair of labels on the compiled walk (the same
#: floats); one per entry otherwise.
TANH_ODD = bool(_c._check_tanh_odd(np)) if NUMPY_EXACT else False

#: Whether NumPy's tanh gives each element of an array what it gives that element alone
#: (its SIMD kernels work lane by lane), so that AdaBoost.OLM's gradient sigmoids of one
#: example are computed in one call on the compiled walk (the same floats); one call per
#: learner otherwise.
TANH_BATCH = bool(_c._check_elementwise(np)) if NUMPY_EXACT else False

#: Whether NumPy's exp is elementwise to the bit in the same way, so that the multiclass
#: Hedge prediction's softmax exponentials (one per expert and class) take one NumPy call per
#: prediction on the compiled walk (the same floats); one call per expert otherwise.
EXP_BATCH = bool(_c._check_elementwise(np, exp=True)) if NUMPY_EXACT else False


def _dense_dp_exact(trials: int = 40) -> bool:
    """Whether the compiled dense DP (``_walk.capped_votes``) gives NumPy's floats (the
    reference, ``potentials._capped_votes``) on random caps, up to 16 votes left and 8
    classes (a few milliseconds)."""
    import random

    rng = random.Random(2017)
    for _ in range(trials):
        n, k = rng.randint(1, 16), rng.randint(2, 8)
        gaps = tuple(sorted(rng.randint(-3, n + 1) for _ in range(k - 1)))
        args = (n, k, gaps, potentials._transition)
        if _c.capped_votes(*args).tobytes() != potentials._capped_votes(*args).tobytes():
            return False
    return True


#: Whether OnlineMBBM's cold potentials (up to ``TENSOR_MAX_N`` votes left) are computed by the
#: compiled dense DP while :data:`ENABLED`; they are NumPy's otherwise (same floats, slower).
DENSE_DP_EXACT = _dense_dp_exact() if NUMPY_EXACT else False


def _poisson_dp_exact(trials: int = 30) -> bool:
    """Whether the compiled rows of the large-``n`` DP (``_walk.capped_rows``) give the
    Python loop's floats (``MulticlassZeroOnePotential._capped_rows``, NumPy's convolutions
    and sums) on random potentials between 41 and 200 votes left and 2 to 12 classes
    (about 50 ms)."""
    import random

    rng = random.Random(2018)
    for _ in range(trials):
        k, n = rng.randint(2, 12), rng.randint(potentials.TENSOR_MAX_N + 1, 200)
        spread = rng.randint(1, 2 * int(n**0.5))
        gaps = tuple(sorted(rng.randint(-spread, spread) for _ in range(k - 1)))
        pot = MulticlassZeroOnePotential(k, rng.choice((0.02, 0.1, 0.3)))
        seen: list = []

        def both(*args, pot=pot, seen=seen):
            ref = pot._capped_rows(*args)
            seen.append(np.array(ref).tobytes() == np.array(_c.capped_rows(*args)).tobytes())
            return ref

        pot._compute_poisson(n, gaps, both)
        if not all(seen):
            return False
    return True


def _poisson_laws_set() -> bool:
    """Hand the compiled rows the potentials' cached laws and NumPy's float64 dot function
    (through NumPy's C API); False if NumPy's C API cannot be loaded (the NumPy loop then)."""
    try:
        _c._set_poisson_laws(
            potentials._poisson_pmf_range, potentials._poisson_pmf_at, potentials.DROP
        )
    except ImportError:
        return False
    return True


#: Whether OnlineMBBM's cold potentials with more than ``TENSOR_MAX_N`` votes left run the
#: rows of their DP compiled while :data:`ENABLED`; NumPy's loop otherwise (same floats,
#: slower).
POISSON_DP_EXACT = _poisson_dp_exact() if NUMPY_EXACT and _poisson_laws_set() else False


def _tensor_exact(trials: int = 60) -> bool:
    """Whether the compiled walk's own dense-DP potentials (``_walk.tensor_value``: the DP,
    the row sums and the dot with the right label's law in C) give the floats of
    ``MulticlassZeroOnePotential._compute_tensor`` with NumPy's loop (the reference), and
    its bounds on the weights (``_walk.mbbm_max_weight``) those of ``max_weight``, on random
    gaps up to ``TENSOR_MAX_N`` votes left and 2 to 12 classes (about 20 ms at import)."""
    rng = random.Random(2019)
    for trial in range(trials):
        n = rng.randint(0, 12) if trial % 4 else rng.randint(13, potentials.TENSOR_MAX_N)
        k = rng.randint(2, 12)
        gaps = tuple(sorted(rng.randint(-3, n + 2) for _ in range(k - 1)))
        pot = MulticlassZeroOnePotential(k, rng.choice((0.02, 0.1, 0.3)))
        if _c.tensor_value(pot, n, gaps) != pot._compute_tensor(n, gaps):
            return False
        if _c.mbbm_max_weight(pot, n) != pot.max_weight(n):
            return False
    return True


#: Whether the compiled walk computes OnlineMBBM's cold potentials and weight bounds (up to
#: ``TENSOR_MAX_N`` votes left) itself, without the potential's Python methods (the same
#: floats, checked here).
TENSOR_EXACT = False
if AVAILABLE:
    _c._set_tensor(potentials._transition, potentials._right_votes_pmf, -1)
    if DENSE_DP_EXACT and POISSON_DP_EXACT:  # (POISSON_DP_EXACT: NumPy's dot is set)
        TENSOR_EXACT = _tensor_exact()
        _c._set_tensor(
            potentials._transition,
            potentials._right_votes_pmf,
            potentials.TENSOR_MAX_N if TENSOR_EXACT else -1,
        )


def _pair_laws_exact(trials: int = 40) -> bool:
    """Whether the compiled difference laws (``_walk.difference_law``) are the arrays of
    ``RankingPairPotential.difference_law`` (NumPy's convolutions and cumulative sums), to
    the bit, on random laws up to 40 votes left and 30 labels, edges capped or not (a few
    milliseconds)."""
    rng = random.Random(2020)
    for _ in range(trials):
        k = rng.randint(2, 30)
        nr, n = rng.randint(1, k), rng.randint(0, 40)
        gamma = rng.choice((0.01, 0.05, 0.1, 0.2, 0.3, 0.6, 0.9))
        ref = RankingPairPotential(gamma).difference_law(n, nr, k)
        got = _c.difference_law(RankingPairPotential(gamma), n, nr, k)
        if len(got) != 3 or any(
            a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes()
            for a, b in zip(ref, got)
        ):
            return False
    return True


#: Whether OnlineBMR's difference laws are computed by the compiled walk (its convolutions in
#: C, NumPy's dot for their ramps: the same floats, checked here), not by the potential's
#: Python loop of ``np.convolve`` calls. Needs NumPy's dot (:data:`POISSON_DP_EXACT` set it).
PAIR_LAWS = _pair_laws_exact() if POISSON_DP_EXACT else False
if AVAILABLE:
    _c._set_pair_laws(PAIR_LAWS)

if AVAILABLE:  # the potentials take the compiled DPs on any walk while ENABLED
    potentials._COMPILED_DP = (
        sys.modules[__name__],
        _c.capped_votes if DENSE_DP_EXACT else None,
        _c.capped_rows if POISSON_DP_EXACT else None,
    )

if AVAILABLE:
    _c._setup(
        {
            "walk": __import__(__name__, fromlist=["ENABLED"]),
            "core": core,
            "BinaryTask": BinaryTask,
            "MulticlassTask": MulticlassTask,
            "RankingTask": RankingTask,
            "WeakLearnerPool": WeakLearnerPool,
            "FeatureCleaner": FeatureCleaner,
            "Experts": Experts,
            "ProjectedOGD": ProjectedOGD,
            "Hedge": Hedge,
            "HoeffdingForest": HoeffdingForest,
            "BinomialPotential": BinomialPotential,
            "NormalHedgePotential": NormalHedgePotential,
            "SquintPotential": SquintPotential,
            "OSBoostPotential": OSBoostPotential,
            "LogisticLoss": LogisticLoss,
            "MulticlassZeroOnePotential": MulticlassZeroOnePotential,
            "RankingPairPotential": RankingPairPotential,
            "ZERO_WEIGHT": potentials.ZERO_WEIGHT,
            "numpy_exact": NUMPY_EXACT,
            "tanh_odd": TANH_ODD,
            "tanh_batch": TANH_BATCH,
            "exp_batch": EXP_BATCH,
            "GL12": potentials._GL12,
            "GL32": potentials._GL32,
            "MAX_ABS_FEATURE": core.MAX_ABS_FEATURE,
            "MAX_SAMPLE_WEIGHT": core.MAX_SAMPLE_WEIGHT,
            "MIN_SAMPLE_WEIGHT": core.MIN_SAMPLE_WEIGHT,
            "MIN_SUPPORT": tasks.MIN_SUPPORT,
            "DriftAdaptation": adaptation.DriftAdaptation,
            "CHANGES": core.CHANGES,
        },
        _fast_cleaning(),
        _erfcx_capsule(),
        _forest_api(),
    )
    plan_for = _c.plan_for
else:

    def plan_for(booster):
        """The compiled walk for ``booster``: never, without the extension."""
        return None
