"""Drift adaptation: the boosters' learners are watched, and replaced when their concept goes.

Every booster takes ``drift_detector`` (default ``None``: off, and the booster is exactly
what it was without this module), ``warning_detector`` and ``memory``. With a detector:

- **What is watched.** Learner ``i`` has its own clone of ``drift_detector``, fed the
  learner's 0/1 error on every labelled example the booster learns (its vote against the
  label, taken in the prediction walk, before anything learns the example; for multi-label
  ranking, whether its top-ranked label is irrelevant). The error is *unweighted*, as in
  River's ``ARFClassifier`` and ``ADWINBoostingClassifier``: the boosting weights say how
  much learner ``i`` should *learn* from an example and move whenever an earlier learner
  changes, so a weighted error would drift on a stationary stream by itself. Only a change
  for the worse counts: ADWIN also fires when a growing tree's error falls, which is no
  reason to replace it (the estimate after the change must exceed the one before).
- **Replacement.** When learner ``i``'s detector fires, learner ``i`` is replaced by a fresh
  learner with its own parameters and feature subset (``forest.reset(i)`` on the compiled
  forest, which frees the tree's nodes; a clone of the model otherwise), or by its
  background learner when it has one. Its edge, the running mean of the weights offered
  to it, its vote weight ``alpha`` (back to 0, and its OGD step count restarted so that it
  learns at the first examples' rate) and the Hedge weight of expert ``i`` (set to expert
  ``i - 1``'s: with ``alpha_i = 0`` they predict alike) restart; its detectors restart.
  The potentials' state is per example, rebuilt on every walk: nothing to restart.
- **Armed by the booster's own error.** Until the booster's own 0/1 error (its prediction
  against the label, taken in the same walk) rises, no detection is acted on: a boosted
  learner's unweighted error rises on a stationary stream too, as the learners before it
  improve and the booster teaches it mostly the hard examples, so its detector fires there
  and the replacements cost accuracy (``benchmarks/RESULTS.md``, "Armed by the booster's own
  error"). The booster's error is watched
  by ``ADWIN(delta=ARMING_DELTA)``; its first change for the worse arms the adaptation for
  the rest of the stream, and from then on the learners' detections are acted on as below
  (with the detections of the last ``ARMING_WINDOW`` examples: a learner's detector may fire
  first). The learners' detectors run from the start either way, and warnings start
  background learners unarmed too (they do not vote). Until it is armed nothing is replaced,
  and of ``memory``'s forgetting only the vote weights' rate floor (below) is on, which
  binds after ``memory`` examples: so over its first ``memory`` examples an unarmed booster
  is the one without drift adaptation, to the last bit.
- **How many at a time.** At most one learner is replaced per example (among those whose
  detectors fired, the one whose error estimate is highest, as River's
  ``ADWINBoostingClassifier`` does), and none while one learner in :data:`YOUNG_SHARE` (at
  least one) is younger than ``memory`` examples: a gradual change fires nearly every
  learner's detector, and an ensemble of blank trees is worse than old trees that keep
  growing (``benchmarks/RESULTS.md``, "Choosing ``memory``", has what the cap saves on
  Agrawal's gradual change).
- **The learners after it.** As in SGBT and River's ``ADWINBoostingClassifier``, only the
  learner whose detector fired is replaced: the later learners keep their trees, their
  statistics and their detectors. The new learner votes as a blank tree until it grows, so
  the weights the walk gives the later learners shift; a later learner that the new concept
  defeats is caught by its own detector.
- **Background learners.** With ``warning_detector`` (e.g. a more sensitive ADWIN, as in
  ARF), a warning of learner ``i`` starts a background learner that learns whatever learner
  ``i`` learns (restarting it if there was one) and takes its place on drift.
- **Forgetting.** ``memory`` ``M``: the OGD rate of ``alpha`` never falls below
  ``learning_rate / sqrt(M)`` (from the first example: with the floor off until the arming,
  the booster recovered from a first change much slower; ``benchmarks/RESULTS.md``, "Armed by
  the booster's own error"),
  and from the example that arms the adaptation on, edges are exponentially weighted
  (factor ``1 - 1/M`` per term) and Hedge is fixed-share Hedge with share ``1/M``, so that
  statistics follow a new concept within about ``M`` examples. ``None``
  (default) takes :data:`DEFAULT_MEMORY` with a detector; ``memory`` without a detector is
  an error (the booster would no longer be the one without drift adaptation, which the
  compiled walk relies on).
- **Choosing ``memory``.** It also sets how fast learners may be replaced (at most one in
  five younger than ``memory`` examples), so it trades following a fast drift against
  replacing trees that would have kept up with a slow one. On the drift suite the default
  10,000 gained on nearly every booster and stream; 2,000 gained more where concepts change
  often and abruptly but lost on a slowly moving stream, whose replaced trees vote while they
  regrow (``benchmarks/RESULTS.md``, "Choosing ``memory``"). Take a smaller ``memory`` when
  concepts change often and abruptly. A ``warning_detector`` (ADWIN with ``delta=0.01``) did
  not help there.

The martingale booster (:class:`river_boost.MartingaleBooster`) has no drift adaptation: its
learners are the nodes of a branching program, created on demand and visited by the
examples whose margin reaches them, not a fixed walk of ``N`` learners that each see every
example, so "a learner's error on the stream" and "the learners after it" have no meaning
there; a node would have to be replaced with the nodes it leads to.

Examples
--------

SEA's threshold moves from 8 to 9.5 after 2,000 examples; learners whose error rises are
replaced (``memory=2000``: this stream is short; ``replacement_times``: the examples
learned so far, and the position). Detectors of learners late in the walk fire early on, as
those learners specialise, but the booster's own error falls then and nothing is replaced;
the change arms the adaptation, and two learners go within 120 examples of it:

>>> import itertools
>>> from river import drift
>>> from river.datasets import synth
>>> import river_boost

>>> stream = synth.ConceptDriftStream(
...     synth.SEA(variant=0, seed=1), synth.SEA(variant=3, seed=2), position=2000, width=20, seed=3
... )
>>> model = river_boost.OnlineBBM(
...     n_models=10, seed=42, drift_detector=drift.ADWIN(), memory=2000  # a short stream
... )
>>> for x, y in itertools.islice(stream, 4000):
...     model.learn_one(x, y)
>>> model.replacements
[1, 0, 0, 0, 0, 0, 0, 1, 0, 0]
>>> model.replacement_times
[(2080, 7), (2112, 0)]

Off, the booster is the one without drift adaptation, to the last bit:

>>> model.clone({"drift_detector": None, "memory": None}).drift_detector is None
True

"""

from __future__ import annotations

import collections
import numbers

from river import base, drift

from ._params import clone as _clone

__all__ = [
    "DriftAdaptation",
    "DEFAULT_MEMORY",
    "ARMING_DELTA",
    "ARMING_WINDOW",
    "LOG_SIZE",
    "check_drift_params",
]

#: ``memory`` taken when a detector is given and ``memory`` is None: the measured choice on
#: the drift suite, where a smaller one gained more on fast, abrupt changes but lost on slowly
#: moving streams (``benchmarks/RESULTS.md``, "Choosing ``memory``")
DEFAULT_MEMORY = 10_000
#: ``delta`` of the ADWIN that watches the booster's own error and arms the adaptation: more
#: sensitive than ADWIN's default 0.002, since it only allows the learners' detections to
#: be acted on (``benchmarks/RESULTS.md``, "Armed by the booster's own error")
ARMING_DELTA = 0.05
#: examples a learner's detection made before the adaptation is armed counts when it arms
ARMING_WINDOW = 1_000
#: replacements remembered with their stream time (:attr:`DriftAdaptation.log`)
LOG_SIZE = 10_000
#: at most one learner in this many (at least one) may be younger than ``memory`` examples:
#: a gradual change fires the detectors of nearly every learner, and replacing them all
#: leaves the ensemble blank (``benchmarks/RESULTS.md``)
YOUNG_SHARE = 5


def _is_detector(detector) -> bool:
    return isinstance(detector, (base.DriftDetector, base.BinaryDriftDetector))


def check_drift_params(drift_detector, warning_detector, memory) -> int | None:
    """``ValueError`` (``TypeError`` for a non-detector) unless the options go together;
    returns the ``memory`` in force (None when drift adaptation is off)."""
    if drift_detector is not None and not _is_detector(drift_detector):
        raise TypeError(
            "drift_detector must be None or a river.drift detector (e.g. drift.ADWIN()), got "
            f"{type(drift_detector).__name__}"
        )
    if warning_detector is not None:
        if not _is_detector(warning_detector):
            raise TypeError(
                "warning_detector must be None or a river.drift detector, got "
                f"{type(warning_detector).__name__}"
            )
        if drift_detector is None:
            raise ValueError("warning_detector needs a drift_detector (drift adaptation is off)")
    if memory is not None:
        if drift_detector is None:
            raise ValueError("memory needs a drift_detector (drift adaptation is off)")
        if isinstance(memory, bool) or not isinstance(memory, numbers.Integral) or memory < 1:
            raise ValueError(f"memory must be a positive integer or None, got {memory!r}")
        return int(memory)
    return DEFAULT_MEMORY if drift_detector is not None else None


def _worse(detector, err) -> bool:
    """Update ``detector`` with ``err``; whether it detected a change *for the worse*.

    Detectors that estimate the mean (ADWIN, KSWIN's ...) fire on any change, and a growing
    tree's error falls: a change is for the worse when the estimate after it is above the
    estimate before. Detectors without an ``estimation`` (DDM, ...) only detect increases.
    """
    before = getattr(detector, "estimation", None)
    detector.update(err)
    if not detector.drift_detected:
        return False
    return before is None or detector.estimation > before


class DriftAdaptation:
    """The detectors of ``n`` learners and the record of their replacements.

    :meth:`observe` takes the learners' errors on one example and says which learners
    warned and which drifted; the booster acts on it (see the module's docstring).
    """

    def __init__(self, drift_detector, warning_detector, n: int, memory: int):
        self.drift_detector = drift_detector
        self.warning_detector = warning_detector
        self.memory = memory
        self.share = 0.0  # fixed-share Hedge's share: 1 / memory once armed
        self.detectors = [_clone(drift_detector) for _ in range(n)]
        self.warning_detectors = (
            None if warning_detector is None else [_clone(warning_detector) for _ in range(n)]
        )
        self.replacements = [0] * n
        self.promotions = [0] * n  # replacements by a background learner
        self.warnings = [0] * n
        self.log = collections.deque(maxlen=LOG_SIZE)  # (stream time, learner)
        # stream time of each learner's last replacement (None: an original learner); at most
        # ``max_young`` learners may be younger than ``memory`` examples at a time
        self.born: list = [None] * n
        self.max_young = max(1, n // YOUNG_SHARE)
        self.armed = False
        self.arming = drift.ADWIN(delta=ARMING_DELTA)
        self.fired: list | None = [None] * n  # stream time of detections while not armed

    @property
    def forgets(self) -> bool:
        """Whether the edges and Hedge forget (Booster._start_forgetting, once armed)."""
        return self.share != 0.0

    def observe(self, errors, t: int, ensemble_error: int) -> tuple:
        """``(warned, drifted)``: the learners whose warning and drift detectors fired on
        these errors (one 0/1 error per learner) at stream time ``t``, and that may be
        replaced: one per example (the one whose error estimate is highest), and none while
        ``max_young`` learners are younger than ``memory`` examples. ``ensemble_error``, the
        booster's own 0/1 error on the example, arms the adaptation when it rises; until
        then no learner warns or drifts."""
        arms = not self.armed and _worse(self.arming, ensemble_error)
        warned, drifted = [], []
        watchers = self.warning_detectors
        for i, err in enumerate(errors):
            if watchers is not None and _worse(watchers[i], err):
                warned.append(i)
                self.warnings[i] += 1
                watchers[i] = self.warning_detector.clone()
            if _worse(self.detectors[i], err):
                drifted.append(i)
        if not self.armed:
            # a learner's detector may fire before the booster's does: its detection is
            # remembered for ARMING_WINDOW examples, and acted on if the adaptation arms
            for i in drifted:
                self.fired[i] = t
            if not arms:
                return warned, []
            self.armed = True
            drifted = [
                i for i, f in enumerate(self.fired) if f is not None and t - f <= ARMING_WINDOW
            ]
            self.arming = self.fired = None  # armed for good
        return warned, self.select(drifted, t)

    def select(self, drifted: list, t: int) -> list:
        """Which of the learners whose detectors fired at stream time ``t`` are replaced: at
        most one (the one whose error estimate is highest), none while ``max_young``
        learners are younger than ``memory`` examples."""
        if drifted:
            young = sum(b is not None and t - b < self.memory for b in self.born)
            if young >= self.max_young:
                return []
        if len(drifted) > 1:  # one replacement per example: the learner that errs most
            drifted = [max(drifted, key=lambda i: self.detectors[i].estimation)]
        return drifted

    def replaced(self, i: int, t: int, promoted: bool) -> None:
        """Learner ``i`` was replaced at stream time ``t``: its detectors start over."""
        self.replacements[i] += 1
        self.promotions[i] += promoted
        self.log.append((t, i))
        self.born[i] = t
        self.detectors[i] = self.drift_detector.clone()
        if self.warning_detectors is not None:
            self.warning_detectors[i] = self.warning_detector.clone()
