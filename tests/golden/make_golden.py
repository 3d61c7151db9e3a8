"""Writes the golden pickles: every preset mid-stream, and what it predicts next.

Run by hand when a release changes the pickle format (``python -m tests.golden.make_golden``
from the repository's root); ``tests/boosters/test_golden_pickles.py`` loads what it wrote
with the version under test. A release that cannot load them says so in the CHANGELOG.
"""

from __future__ import annotations

import itertools
import json
import pickle
import random
import sys
from pathlib import Path

from river import datasets

import river_boost as rb

HERE = Path(__file__).parent
N_LEARN, N_CHECK = 300, 40


def _ranking_stream(seed: int = 7):
    """An endless multi-label stream: five labels, each relevant when a noisy linear score of
    four features is positive (no download)."""
    rng = random.Random(seed)
    weights = [[rng.uniform(-1, 1) for _ in range(4)] for _ in range(5)]
    while True:
        x = {f"x{j}": rng.uniform(-1, 1) for j in range(4)}
        y = {
            f"label{c}": sum(w * v for w, v in zip(wc, x.values())) + rng.gauss(0, 0.2) > 0
            for c, wc in enumerate(weights)
        }
        if not any(y.values()):
            y["label0"] = True
        yield x, y


def presets() -> dict:
    """Name -> (model, stream, what it predicts): every preset at its defaults, seed 1."""
    binary = lambda: datasets.Phishing()  # noqa: E731
    multiclass = lambda: datasets.ImageSegments()  # noqa: E731
    bbm = rb.potentials.BinomialPotential(n_models=10, gamma=0.1)
    return {
        "OnlineBBM": (rb.OnlineBBM(seed=1), binary, "proba"),
        "AdaBoostOL": (rb.AdaBoostOL(seed=1), binary, "proba"),
        "OSBoost": (rb.OSBoost(seed=1), binary, "proba"),
        "OSBoostOCP": (rb.OSBoostOCP(seed=1), binary, "proba"),
        "NHBoostDT": (rb.NHBoostDT(seed=1), binary, "proba"),
        "SquintBoost": (rb.SquintBoost(seed=1), binary, "proba"),
        "PotentialBooster": (rb.PotentialBooster(bbm, n_models=10, seed=1), binary, "proba"),
        "MartingaleBooster": (rb.MartingaleBooster(seed=1), binary, "proba"),
        "OnlineMBBM": (rb.OnlineMBBM(seed=1), multiclass, "proba"),
        "AdaBoostOLM": (rb.AdaBoostOLM(seed=1), multiclass, "proba"),
        "OnlineBMR": (rb.OnlineBMR(seed=1), _ranking_stream, "scores"),
        "AdaOLMR": (rb.AdaOLMR(seed=1), _ranking_stream, "scores"),
    }


def predictions(model, kind: str, xs: list) -> list:
    """What the model says of each x, as JSON keeps it (labels as strings, exact floats)."""
    out = []
    for x in xs:
        said = model.predict_proba_one(x) if kind == "proba" else model.score_one(x)
        out.append(sorted([str(label), float(v)] for label, v in said.items()))
    return out


def main() -> None:
    python = ".".join(map(str, sys.version_info[:2]))
    expected = {
        "version": rb.__version__,
        "format": rb.engine._format.FORMAT,
        "python": python,
        "models": {},
    }
    for name, (model, stream, kind) in presets().items():
        data = list(itertools.islice(stream(), N_LEARN + N_CHECK))
        for x, y in data[:N_LEARN]:
            model.learn_one(x, y)
        xs = [x for x, _ in data[N_LEARN:]]
        (HERE / f"{name}.pkl").write_bytes(pickle.dumps(model, protocol=4))
        expected["models"][name] = {
            "kind": kind,
            "xs": xs,
            "predictions": predictions(model, kind, xs),
        }
    text = json.dumps(expected, indent=1, sort_keys=True)
    (HERE / "expected.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
