"""The parameters every booster preset shares, written once.

Every preset (``OnlineBBM``, ``AdaBoostOL``, ``AdaBoostOLM``, ``AdaOLMR``, ...) takes the ten
parameters in :data:`SHARED` (the binary, multiclass and ranking ones also ``deep_scale``, the
multiclass ones ``weight_scale``). Its numpy docstring lists all its parameters in the
signature's order, River's way, but for a shared one it writes a marker line where the entry
goes::

    Parameters
    ----------
    [shared: model]
    [shared: n_models]
    gamma
        Assumed edge, in ``(0, 1)``.
    ...
    [shared: memory/surrogate]

``[shared: name]`` stands for the entry of ``name`` in :data:`TEXTS`; ``[shared: name/variant]``
for a variant of it (``ranking``: the multi-label boosters'; ``surrogate``: boosters that learn
vote weights and weight their experts by Hedge; ``simplex``: OSBoost.OCP's vote weights on the
simplex; ``potential``: :class:`~river_boost.binary.PotentialBooster`, which may do either;
``wide``: random feature subsets on wide streams, OSBoost.OCP's).
Lines indented under a marker are the preset's own and continue the entry after the shared
text.

:func:`expand` writes the entries out. It runs at import, into each preset's ``__doc__``
(:class:`river_boost.booster.Booster` does it for its subclasses), so that ``help()`` and
River's tools read the full text, and in the documentation site, where the griffe extension
``docs/_ext/griffe_river_boost.py`` (griffe reads the source, not ``__doc__``) imports this
module.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["SHARED", "TEXTS", "expand"]

#: the parameters every preset shares, in the order the presets list them
SHARED = (
    "model",
    "n_models",
    "weighting",
    "diversify",
    "feature_fraction",
    "min_weight",
    "seed",
    "drift_detector",
    "warning_detector",
    "memory",
)

_FEATURE_FRACTION = (
    "Fraction of the features each learner sees: a random subset per learner, hashed from the "
    "seed and the feature's name, so that features appearing mid-stream are assigned too (1: "
    'every feature). ``"auto"``: {auto} ``feature_subsets`` shows the decision.'
)
_WIDE_DATA = '(``benchmarks/RESULTS.md``, "Wide data: the feature_fraction default").'

_SEED = "Random seed (sampling, thinning, diversification, feature subsets{also})."

_MEMORY = (
    "With a ``drift_detector``: about how many examples the learners' edges remember "
    "(exponentially weighted){also}, and how fast learners may be replaced (none while one in "
    "five is younger than ``memory`` examples); ``None``: "
    ":data:`~river_boost.adaptation.DEFAULT_MEMORY` (10,000). Smaller follows frequent, abrupt "
    "changes faster. Needs a ``drift_detector``."
)
_RATE_FLOOR = "the vote weights' learning-rate floor ``learning_rate / sqrt(memory)``"
_FIXED_SHARE = "fixed-share Hedge (share ``1 / memory``)"

#: each shared entry's description, by ``name`` or ``name/variant``
TEXTS = {
    "model": (
        "The weak learner, cloned for every position (default: "
        ":func:`~river_boost.pool.default_model`, River's Hoeffding tree with a size limit that "
        "binds, compiled). Any River classifier works."
    ),
    "model/ranking": (
        "The multiclass weak learner to clone (default: :func:`~river_boost.pool.default_model`)."
    ),
    "n_models": "Number of weak learners ``N``.",
    "weighting": (
        "How the booster's weight ``p`` in ``[0, 1]`` for an example reaches a learner: "
        '``"importance"`` (what the papers found better) as an importance weight, rescaled so '
        "that its running mean is 1 for each learner (Hoeffding trees count weight, not "
        'examples); ``"sampling"``: the learner gets the example with probability ``p``.'
    ),
    "diversify": (
        "``True``: draw the trees' ``delta``, ``tau`` and ``grace_period`` at random, all but "
        "the first learner's; "
        '``"paper"``: '
        "as the papers' code (grace period 1-10, per-learner weight scale 10-200); ``False``: "
        "clones of ``model`` as given."
    ),
    "feature_fraction": _FEATURE_FRACTION.format(
        auto="every feature, the measured choice for binary and multiclass streams, where "
        f"random subsets lost accuracy {_WIDE_DATA}"
    ),
    "feature_fraction/ranking": _FEATURE_FRACTION.format(
        auto="decided from the number of features ``d`` of the first non-empty ``x``: every "
        "feature while ``d <= 32``, else about ``max(20, sqrt(d))`` random features per learner "
        "(:func:`~river_boost.subsets.auto_feature_count`), as the paper's 20 covariates per "
        f"learner: the measured choice on the multi-label papers' sets {_WIDE_DATA}"
    ),
    "feature_fraction/wide": _FEATURE_FRACTION.format(
        auto="decided from the number of features ``d`` of the first non-empty ``x``: every "
        "feature while ``d <= 32``, else about ``max(20, sqrt(d))`` random features per learner "
        "(:func:`~river_boost.subsets.auto_feature_count`), so that the cost of a learner stays "
        "that of a narrow stream's: on a 123-feature stream, about four times the throughput "
        "for 0 to 0.4 points of accuracy (``benchmarks/ocp_speed.py``)."
    ),
    "min_weight": (
        "Importance weights below this are thinned without bias: passed as ``min_weight`` with "
        "probability ``w / min_weight``, skipped otherwise (0 passes every weight)."
    ),
    "seed": _SEED.format(also=", random predictions"),
    "seed/simplex": _SEED.format(also=""),
    "drift_detector": (
        "``None``: no drift adaptation. A River drift detector (``drift.ADWIN()``, ...): each "
        "learner watches its own error with a clone of it and is replaced by a fresh learner "
        "when it fires (:mod:`river_boost.adaptation`)."
    ),
    "warning_detector": (
        "``None``, or a River drift detector more sensitive than ``drift_detector`` (e.g. "
        "``drift.ADWIN(delta=0.01)``) whose signal starts a background learner that replaces "
        "the learner on drift, as River's ARF does. Needs a ``drift_detector``."
    ),
    "memory": _MEMORY.format(also=""),
    "memory/surrogate": _MEMORY.format(also=f", {_RATE_FLOOR} and {_FIXED_SHARE}"),
    "memory/simplex": _MEMORY.format(also=f", {_RATE_FLOOR}"),
    "memory/potential": _MEMORY.format(
        also=f"; with a surrogate potential also {_RATE_FLOOR} and {_FIXED_SHARE}"
    ),
    "weight_scale": (
        "Every weight a learner is taught with is multiplied by this: Hoeffding trees count "
        "summed weight before they split, so ``c > 1`` grows deeper trees (larger, slower). It "
        "helps on stationary streams and hurts on drifting ones (the multiclass guide has the "
        "measurements)."
    ),
    "deep_scale": (
        "1 (the default): one chain of learners. Above 1: a second chain of ``ceil(n_models / "
        "2)`` learners beside this one, the same booster taught with its weights multiplied by "
        "``deep_scale``, so that its Hoeffding trees split sooner and grow deeper; the booster "
        "predicts with Hedge over the two chains' prequential mistakes (a ranking booster: "
        "their rank losses, and it mixes their probabilities) "
        "(:class:`~river_boost.booster.DeepChain`; ``deep_chain`` is the second chain, with its "
        "diagnostics). Measured for OSBoost.OCP and AdaBoost.OLM (``benchmarks/RESULTS.md``, "
        '"Two chains: shallow and deep trees").'
    ),
}

MARKER = re.compile(r"^(?P<indent>[ \t]*)\[shared: (?P<name>\w+)(?P<variant>/\w+)?\][ \t]*$")

#: the length of the lines :func:`expand` writes, indentation included (the source's)
WIDTH = 100


def expand(doc: str) -> str:
    """``doc`` with every ``[shared: ...]`` marker line written out as its parameter entry:
    the name, then the shared description indented under it, then the lines the docstring
    indents under the marker. An unknown marker raises ``KeyError``."""
    lines = doc.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = MARKER.match(lines[i])
        i += 1
        if match is None:
            out.append(lines[i - 1])
            continue
        indent, name = match["indent"], match["name"]
        key = name + (match["variant"] or "")
        if key not in TEXTS:
            raise KeyError(f"no shared parameter text {key!r} (river_boost/_params_doc.py)")
        inner = indent + "    "
        out.append(indent + name)
        out.extend(
            textwrap.wrap(
                TEXTS[key],
                width=WIDTH,
                initial_indent=inner,
                subsequent_indent=inner,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
        while i < len(lines) and lines[i].startswith(inner) and lines[i].strip():
            out.append(lines[i])  # the preset's own continuation of the entry
            i += 1
    return "\n".join(out)
