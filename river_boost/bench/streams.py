"""The bench's streams: River's bundled and synthetic streams, and the drifting suite."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable

from river.datasets import (
    Bananas,
    ChickWeights,
    ImageSegments,
    Phishing,
    TrumpApproval,
    WaterFlow,
    Yeast,
    synth,
)

from . import loaders

# ----------------------------------------------------------------------------- streams

# name -> (factory returning an iterable of (x, y), default number of examples, task)
STREAMS: dict[str, tuple[Callable[[], Iterable], int, str]] = {
    "phishing": (Phishing, 1250, "binary"),
    "bananas": (Bananas, 5300, "binary"),
    "agrawal": (lambda: synth.Agrawal(seed=42), 10_000, "binary"),
    "sea": (lambda: synth.SEA(seed=42), 10_000, "binary"),
    "hyperplane": (lambda: synth.Hyperplane(seed=42, n_features=10), 10_000, "binary"),
    "imagesegments": (ImageSegments, 2310, "multiclass"),
    "led": (lambda: synth.LED(seed=42, noise_percentage=0.1), 10_000, "multiclass"),
    "rbf": (
        lambda: synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5, n_features=10),
        10_000,
        "multiclass",
    ),
    "waveform": (lambda: synth.Waveform(seed=42), 10_000, "multiclass"),
    # multi-label (14 labels); the first 800 of 2,417 rows keep the default run short
    "yeast": (Yeast, 800, "multilabel"),
}
DEFAULT_STREAMS = ["phishing", "bananas", "agrawal", "sea", "hyperplane", "imagesegments", "yeast"]

# ----------------------------------------------------------------------------- drifting streams

DRIFT_LENGTH = 50_000
# Abrupt and gradual streams change concept at these examples (a sigmoid ``ABRUPT_WIDTH`` or
# ``GRADUAL_WIDTH`` wide, River's ConceptDriftStream, whose sigmoid overflows below a width of
# about 4 × 12,500 / 709); RandomRBF and Hyperplane drift all along.
DRIFT_POSITIONS = (12_500, 25_000, 37_500)
ABRUPT_WIDTH = 100
GRADUAL_WIDTH = 2_500


def _chain(concepts, width: int, seed: int):
    """River's ``ConceptDriftStream`` nested: concept ``j`` takes over at
    ``DRIFT_POSITIONS[j - 1]`` (each nested stream counts its own examples)."""
    stream = concepts[-1]
    gaps = [b - a for a, b in zip((0, *DRIFT_POSITIONS), DRIFT_POSITIONS)]
    for j in range(len(concepts) - 2, -1, -1):
        stream = synth.ConceptDriftStream(
            concepts[j], stream, position=gaps[j], width=width, seed=seed + j
        )
    return stream


def _agrawal(width):  # classification functions 1, 3, 5, 7 (River's 0, 2, 4, 6)
    return lambda: _chain(
        [synth.Agrawal(classification_function=f, seed=42 + f) for f in (0, 2, 4, 6)], width, 7
    )


def _sea(width):  # SEA's four thresholds in turn, 10% label noise
    return lambda: _chain(
        [synth.SEA(variant=v, noise=0.1, seed=42 + v) for v in (0, 1, 2, 3)], width, 11
    )


def _led(width):  # 24 attributes (17 irrelevant), a different set of swapped ones per concept
    return lambda: _chain(
        [
            synth.LEDDrift(
                seed=42 + d, noise_percentage=0.1, irrelevant_features=True, n_drift_features=d
            )
            for d in (1, 3, 5, 7)
        ],
        width,
        13,
    )


def _rbf(speed):  # 5 classes, 10 features, 50 centroids all moving at ``speed``
    return lambda: synth.RandomRBFDrift(
        seed_model=42, seed_sample=42, n_classes=5, n_features=10, change_speed=speed
    )


DRIFT_STREAMS: dict[str, tuple[Callable[[], Iterable], int, str]] = {
    "agrawal_abrupt": (_agrawal(ABRUPT_WIDTH), DRIFT_LENGTH, "binary"),
    "agrawal_gradual": (_agrawal(GRADUAL_WIDTH), DRIFT_LENGTH, "binary"),
    "sea_abrupt": (_sea(ABRUPT_WIDTH), DRIFT_LENGTH, "binary"),
    "sea_gradual": (_sea(GRADUAL_WIDTH), DRIFT_LENGTH, "binary"),
    "hyperplane_rotating": (
        lambda: synth.Hyperplane(seed=42, n_features=10, n_drift_features=5, mag_change=0.001),
        DRIFT_LENGTH,
        "binary",
    ),
    "rbf_moderate": (_rbf(0.0001), DRIFT_LENGTH, "multiclass"),
    "rbf_fast": (_rbf(0.001), DRIFT_LENGTH, "multiclass"),
    "led_abrupt": (_led(ABRUPT_WIDTH), DRIFT_LENGTH, "multiclass"),
    "led_gradual": (_led(GRADUAL_WIDTH), DRIFT_LENGTH, "multiclass"),
}
STREAMS.update(DRIFT_STREAMS)

# ----------------------------------------------------------------------------- regression streams

REGRESSION_LENGTH = 10_000  # the synthetic regression streams' default length


def _water_flow():
    """WaterFlow's one feature is a timestamp, which no model here reads: it becomes the hour
    of the day, the day of the week and the days since the first row (numbers)."""
    start = None
    for x, y in WaterFlow():
        t = x["Time"]
        start = t if start is None else start
        yield (
            {
                "hour": t.hour + t.minute / 60,
                "weekday": t.weekday(),
                "day": (t - start).total_seconds() / 86_400,
            },
            y,
        )


def _friedman_drift(kind: str):
    """FriedmanDrift with its changes placed within the run's ``n`` examples: ``lea`` at a
    quarter, half and three quarters; ``gra`` (the old concept returns) and ``gsg`` (gradual,
    over a tenth of the stream each time) at a third and two thirds."""

    def make(n: int = REGRESSION_LENGTH):
        n = max(n, 8)  # the positions must increase
        if kind == "lea":
            position, window = (n // 4, n // 2, 3 * n // 4), 0
        else:
            position, window = (n // 3, 2 * n // 3), (n // 10 if kind == "gsg" else 0)
        return synth.FriedmanDrift(kind, position, window, seed=42)

    return make


# Regression streams bundled with River (nothing is downloaded; their files ship in the wheel):
# ``river-boost bench --task regression``. Synth.Mv has nominal features (strings).
REGRESSION_STREAMS: dict[str, tuple[Callable[..., Iterable], int, str]] = {
    "trump": (TrumpApproval, 1001, "regression"),
    "chickweights": (ChickWeights, 578, "regression"),
    "waterflow": (_water_flow, 1268, "regression"),
    "friedman": (lambda: synth.Friedman(seed=42), REGRESSION_LENGTH, "regression"),
    **{
        f"friedman_{kind}": (_friedman_drift(kind), REGRESSION_LENGTH, "regression")
        for kind in ("lea", "gra", "gsg")
    },
    "mv": (lambda: synth.Mv(seed=42), REGRESSION_LENGTH, "regression"),
    "planes2d": (lambda: synth.Planes2D(seed=42), REGRESSION_LENGTH, "regression"),
}
DEFAULT_REGRESSION_STREAMS = list(REGRESSION_STREAMS)
# streams whose factory takes the run's length (their drifts are placed within it)
_SIZED = {f"friedman_{kind}" for kind in ("lea", "gra", "gsg")}
STREAMS.update(REGRESSION_STREAMS)


def drift_points(stream: str) -> tuple:
    """Where a drift suite stream changes concept (empty for the streams that drift all
    along, and for the stationary streams)."""
    if stream in DRIFT_STREAMS and stream.endswith(("_abrupt", "_gradual")):
        return DRIFT_POSITIONS
    return ()


def task_of(stream: str) -> str:
    if stream in STREAMS:
        return STREAMS[stream][2]
    return loaders.PAPER_SETS[stream].task


def stream_examples(name: str, n_samples: int | None = None, data_dir=None):
    """``(examples, n)``: River's bundled / synthetic streams by name, or one of the papers'
    sets (``loaders.PAPER_SETS``) read from ``data_dir``; the first ``n_samples`` examples
    (default: the stream's default length; a data set may end sooner)."""
    if name in STREAMS:
        factory, length, _ = STREAMS[name]
    elif data_dir is not None:
        length = loaders.PAPER_SETS[name].rows
        factory = functools.partial(loaders.paper_set, name, data_dir)
    else:
        raise ValueError(f"stream {name!r} is one of the papers' sets: give --data-dir")
    n = length if n_samples is None else n_samples
    return itertools.islice(factory(n) if name in _SIZED else factory(), n), n
