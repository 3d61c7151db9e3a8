"""Which features each weak learner sees: random subsets of the features, drawn by a hash of
(learner, feature name), and ``feature_fraction="auto"``'s choice from the number of features.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from array import array

__all__ = [
    "FeatureSubsets",
    "SizedSubsets",
    "auto_feature_count",
    "auto_feature_fraction",
    "check_feature_fraction",
]

# feature_fraction="auto" (see AUTO_FEATURES_UP_TO, auto_feature_fraction): chosen by
# measurement, benchmarks/RESULTS.md ("Wide data: the feature_fraction default").
# Streams with at most this many features (every bundled and synthetic stream of the bench,
# Waveform's 21 included) keep all of them. Above it, each learner sees about
# max(AUTO_MIN_FEATURES, sqrt(d)): 20 (the multi-label paper's 20 covariates) up to
# d = 400, then ARF's sqrt(d).
AUTO_FEATURES_UP_TO = 32
AUTO_MIN_FEATURES = 20
# The tasks whose boosters take random subsets under "auto": random subsets of wide data
# helped the multi-label ranking boosters and lost for the multiclass ones (mice_protein, 77
# features: -2.9 points) and did not help the binary ones (a9a, 123 features). A preset may take
# them anyway for speed (``Booster._wide_subsets``: OSBoost.OCP's thirty trees).
AUTO_SUBSET_TASKS = ("ranking",)


def auto_feature_count(n_features: int) -> int:
    """How many features ``feature_fraction="auto"`` gives each learner, for ``d`` features:
    all of them up to ``AUTO_FEATURES_UP_TO`` (32), else ``max(20, round(sqrt(d)))``
    (``AUTO_MIN_FEATURES`` is the 20). Not monotone at the threshold: 32 features keep all
    32, 33 give 20 each.

    Chosen by measurement (``benchmarks/RESULTS.md``, "Wide data: the feature_fraction
    default"; ``benchmarks/wide_defaults.py``): on emotions (72 features) and scene (294)
    under the Table 3 protocol, 17-20 random features per learner cut the multi-label
    boosters' rank loss against all features by 0.02-0.03, more than 8 or 34-40 did; on
    yeast (103) they cost about 0.004. Random
    subsets lost on narrow streams (Phishing, ImageSegments), hence the threshold, and on a
    wide multiclass set (mice_protein), hence ``AUTO_SUBSET_TASKS``.
    """
    if n_features <= AUTO_FEATURES_UP_TO:
        return n_features
    return max(AUTO_MIN_FEATURES, round(math.sqrt(n_features)))


def auto_feature_fraction(n_features: int) -> float:
    """``feature_fraction="auto"`` for ``d`` features: :func:`auto_feature_count` over ``d``
    (1.0, every feature, up to ``AUTO_FEATURES_UP_TO``)."""
    return auto_feature_count(n_features) / n_features  # d / d: exactly 1.0 when narrow


def check_feature_fraction(value) -> None:
    if value == "auto" and isinstance(value, str):
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0.0 < value <= 1.0  # NaN fails too
    ):
        raise ValueError(f"feature_fraction must be 'auto' or lie in (0, 1], got {value!r}")


class FeatureSubsets:
    """Which features learner ``i`` sees: about ``fraction`` of them, at random.

    Membership of a feature is a deterministic hash of (salt of learner ``i``, feature name),
    so features that appear mid-stream are assigned consistently and no feature list must be
    known in advance; answers are cached per learner.

    ``rule="auto"`` leaves ``fraction`` undecided (None) until :meth:`decide` is given the
    number of features ``d`` of the first non-empty ``x`` (the pool does so before its
    learners see one): then ``fraction = auto_feature_fraction(d)``, fixed for good; features
    that appear later are kept with that same probability. Narrow streams (``d <=
    AUTO_FEATURES_UP_TO``) get 1.0, which keeps every feature without asking the hash.
    With ``wide_subsets=False`` (the binary and multiclass boosters, see
    ``AUTO_SUBSET_TASKS``) ``"auto"`` is 1.0 from the start, whatever ``d``.
    """

    def __init__(self, fraction, salts: list, wide_subsets: bool = True):
        self.rule = fraction  # what the booster asked for: a fraction, or "auto"
        self.n_features = None  # the d "auto" was decided on
        if fraction == "auto":
            self.fraction = None if wide_subsets else 1.0
        else:
            self.fraction = float(fraction)
        self.salts = salts
        self._masks: list[dict] = [{} for _ in salts]

    def __getstate__(self):  # the masks cache a hash of the feature names: a copy recomputes
        return {**self.__dict__, "_masks": [{} for _ in self._masks]}

    def _state(self) -> tuple:
        """What the stream changed (a booster's pickle holds it): the fraction decided, the
        ``d`` it was decided on, the salts (replaced and added learners draw new ones) and the
        learners that see another learner's subset."""
        return (
            self.fraction,
            self.n_features,
            array("Q", self.salts).tobytes(),
            self.__dict__.get("aliases"),
        )

    def _take_state(self, state: tuple) -> None:
        """:meth:`_state`'s state, into subsets just built with the same rule."""
        fraction, n_features, salts, aliases = state[:4]
        if not (fraction is None or (type(fraction) is float and 0.0 < fraction <= 1.0)):
            raise ValueError("a feature fraction out of range")
        if not (n_features is None or (type(n_features) is int and n_features >= 0)):
            raise ValueError("a number of features out of range")
        a = array("Q")
        a.frombytes(salts)
        if not (aliases is None or type(aliases) is dict):
            raise ValueError("aliases that are not a dict")
        self.fraction, self.n_features, self.salts = fraction, n_features, list(a)
        self._masks = [{} for _ in self.salts]
        if aliases is not None:
            self.aliases = dict(aliases)

    #: extra learner indices that see another learner's subset (background learners on a
    #: compiled forest sit past the ``N`` learners): index -> the learner they shadow
    aliases: dict = {}

    def decide(self, x: dict) -> None:
        """Fix an undecided ``"auto"`` fraction from ``x``'s number of features (an empty
        ``x`` decides nothing)."""
        if self.fraction is None and x:
            self.n_features = len(x)
            self.fraction = auto_feature_fraction(len(x))

    def reseed(self, i: int, salt: int) -> None:
        """Learner ``i`` sees a new subset, drawn by the hash with ``salt`` (a replaced
        learner of the gradient boosters)."""
        self.salts[i] = salt
        self._masks[i] = {}

    def append(self, salt: int) -> None:
        """One more learner, whose subset the hash draws with ``salt``."""
        self.salts.append(salt)
        self._masks.append({})

    def keeps(self, i: int, feature) -> bool:
        if i >= len(self.salts):
            i = self.aliases[i]
        if self.fraction is None:
            raise RuntimeError("feature_fraction='auto' is undecided: call decide(x) first")
        if self.fraction >= 1.0:
            return True
        mask = self._masks[i]
        keep = mask.get(feature)
        if keep is None:
            keep = mask[feature] = self._hash(i, feature) < self.fraction * 2**64
        return keep

    def _hash(self, i: int, feature) -> int:
        """Learner ``i``'s 64-bit hash of ``feature`` (keyed by its salt; not Python's
        salted ``hash``, so a seed gives the same subsets in every process)."""
        digest = hashlib.blake2b(
            repr(feature).encode(), digest_size=8, key=self.salts[i].to_bytes(8, "little")
        ).digest()
        return int.from_bytes(digest, "little")

    def view(self, i: int, x: dict) -> dict:
        """The features of ``x`` learner ``i`` sees."""
        if self.fraction is None:
            self.decide(x)
        if self.fraction is None or self.fraction >= 1.0:  # still undecided: x is empty
            return x
        return {f: v for f, v in x.items() if self.keeps(i, f)}

    def __repr__(self) -> str:
        decided = "undecided" if self.fraction is None else f"{self.fraction:.4g}"
        d = "" if self.n_features is None else f", d={self.n_features}"
        return f"FeatureSubsets(rule={self.rule!r}{d}, fraction={decided})"


class SizedSubsets(FeatureSubsets):
    """Which features learner ``i`` sees: exactly ``k`` of the features of the first example,
    ``k = max(2, round(fraction * d))`` of its ``d`` (all of them when ``d <= 2``; halves
    round up), as MOA's SGBT and streaming random patches draw their subspaces. A
    :class:`FeatureSubsets` keeps each feature with probability ``fraction`` on its own: with
    few features a learner may see one or none (two features at 0.75: 44% of the learners).

    The ``d`` features are those of the first non-empty ``x`` given to :meth:`decide` (the
    gradient engine gives it every example before its learners see it); learner ``i`` takes
    the ``k`` of them its hash ranks first. A feature that appears later is kept with
    probability ``fraction``, by the hash, as :class:`FeatureSubsets` keeps it. A reseeded or
    appended learner draws its ``k`` anew.
    """

    def __init__(self, fraction: float, salts: list):
        super().__init__(fraction, salts)
        self.first = None  # the first example's features, in its order

    def decide(self, x: dict) -> None:
        """Take ``x``'s features as the ``d`` the subsets are drawn from (the first non-empty
        ``x`` only)."""
        if self.first is None and x:
            self.first = tuple(x)
            self.n_features = len(self.first)

    def _state(self) -> tuple:
        """:meth:`FeatureSubsets._state`, and the first example's features."""
        return (*super()._state(), self.first)

    def _take_state(self, state: tuple) -> None:
        super()._take_state(state)
        first = state[4]
        if not (first is None or type(first) is tuple):
            raise ValueError("the first example's features are not a tuple")
        self.first = first

    @property
    def size(self) -> int | None:
        """``k``: how many of the first example's features each learner sees."""
        if self.first is None:
            return None
        d = len(self.first)
        return min(d, max(2, math.floor(self.fraction * d + 0.5)))

    def keeps(self, i: int, feature) -> bool:
        if i >= len(self.salts):
            i = self.aliases[i]
        mask = self._masks[i]
        if not mask and self.first is not None:  # learner i's first question since its draw
            ranked = sorted(range(len(self.first)), key=lambda j: self._hash(i, self.first[j]))
            chosen = set(ranked[: self.size])
            mask.update((f, j in chosen) for j, f in enumerate(self.first))
        return super().keeps(i, feature)

    def __repr__(self) -> str:
        d = "" if self.first is None else f", d={len(self.first)}, k={self.size}"
        return f"SizedSubsets(fraction={self.fraction:.4g}{d})"
