"""Smoke test of an installed river-boost (a wheel on a user's machine, cibuildwheel's test).

Every public booster learns 300 examples of a stream bundled with River (nothing is
downloaded) and must then predict the next 200 well above what a broken booster (a constant,
random or inverted guess) scores; the compiled extensions must all import and be what a
default booster runs. About ten seconds.

Run as a script from outside the source tree, so that the installed package is the one
imported (``python tests/smoke.py``; tools/check_dist.py copies it elsewhere first), or
collected by pytest with the rest of ``tests/``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import itertools
import pathlib
import sys

from river import base, datasets

import river_boost
from river_boost import booster as _booster
from river_boost import metrics
from river_boost.potentials import BinomialPotential

N_LEARN = 300
N_TEST = 200
# Loose floors, far above a broken booster and far below a working one (measured on Linux,
# seed 7): on Phishing's test examples a constant guess scores 0.62, the boosters 0.88 or more;
# on ImageSegments' (7 classes) a constant guess 0.17, the boosters 0.77 or more; on the
# synthetic ranking stream a constant or random ranking has a rank loss near 0.5 (inverted:
# near 1), the boosters 0.01 or less.
BINARY_FLOOR = 0.75
MULTICLASS_FLOOR = 0.5
RANK_LOSS_CEILING = 0.25

# The regressors' MAE on Friedman's test examples (River's generator, seed 7) must be below
# this fraction of a constant guess's (the mean of the targets learned): measured 0.66
# (SGBTRegressor, its trees still shallow after 300 examples) and 0.54 (OGB's linear learners);
# a broken booster (0, or a random guess) scores above 1
REGRESSION_CEILING = 0.8

# Public boosters whose constructor needs arguments, or fewer learners than their default to
# stay quick (SGBTClassifier: one tree per class and step)
ARGUMENTS = {
    "PotentialBooster": lambda: {"potential": BinomialPotential(n_models=10, gamma=0.1)},
    "SGBTClassifier": lambda: {"n_models": 5, "learning_rate": 0.3},
}


def boosters():
    """The public booster classes of ``river_boost.__all__``, by name."""
    found = {
        name: getattr(river_boost, name)
        for name in river_boost.__all__
        if inspect.isclass(getattr(river_boost, name))
        and issubclass(getattr(river_boost, name), base.Estimator)
    }
    assert found, "river_boost.__all__ lists no booster class"
    return found


def make(cls):
    seed = {"seed": 7} if "seed" in inspect.signature(cls).parameters else {}
    return cls(**ARGUMENTS.get(cls.__name__, dict)(), **seed)


def ranking_stream():
    """Multi-label examples from Phishing's features: three labels, each a function of x that
    trees can learn (the phishing label itself, and two rules on the features)."""
    for x, phishing in datasets.Phishing():
        labels = {
            "phishing": bool(phishing),
            "popular": x["is_popular"] >= 0.5,
            "old_or_https": x["age_of_domain"] == 1 or x["https"] > 0.5,
        }
        yield x, labels


def split(stream):
    examples = list(itertools.islice(stream, N_LEARN + N_TEST))
    assert len(examples) == N_LEARN + N_TEST
    return examples[:N_LEARN], examples[N_LEARN:]


def accuracy(model, stream):
    learn, test = split(stream)
    for x, y in learn:
        model.learn_one(x, y)
    return sum(model.predict_one(x) == y for x, y in test) / len(test)


def rank_loss(model, stream):
    learn, test = split(stream)
    for x, y in learn:
        model.learn_one(x, y)
    metric = metrics.RankLoss()
    for x, y in test:
        metric.update(y, model.score_one(x))
    return metric.get()


def check_booster(name, cls):
    """Learn and predict with one booster; returns a line for the report."""
    model = make(cls)
    if isinstance(model, base.Regressor):
        learn, test = split(datasets.synth.Friedman(seed=7))
        for x, y in learn:
            model.learn_one(x, y)
        mean = sum(y for _, y in learn) / len(learn)
        mae = sum(abs(model.predict_one(x) - y) for x, y in test) / len(test)
        constant = sum(abs(mean - y) for _, y in test) / len(test)
        assert mae <= REGRESSION_CEILING * constant, (
            f"{name}: MAE {mae:.3f}, constant {constant:.3f}"
        )
        return f"{name}: MAE {mae:.3f}, a constant's {constant:.3f} (Friedman)"
    if cls.__name__ == "SGBTClassifier":  # (its labels decide the task: bools, binary)
        acc = accuracy(model, datasets.Phishing())
        assert acc >= BINARY_FLOOR, f"{name}: accuracy {acc:.3f} < {BINARY_FLOOR}"
        return f"{name}: accuracy {acc:.3f} (Phishing)"
    if issubclass(cls, _booster.RankingBooster):
        loss = rank_loss(model, ranking_stream())
        assert loss <= RANK_LOSS_CEILING, f"{name}: rank loss {loss:.3f} > {RANK_LOSS_CEILING}"
        return f"{name}: rank loss {loss:.3f} (synthetic multi-label stream)"
    if model._multiclass:
        acc = accuracy(model, datasets.ImageSegments())
        assert acc >= MULTICLASS_FLOOR, f"{name}: accuracy {acc:.3f} < {MULTICLASS_FLOOR}"
        return f"{name}: accuracy {acc:.3f} (ImageSegments)"
    acc = accuracy(model, datasets.Phishing())
    assert acc >= BINARY_FLOOR, f"{name}: accuracy {acc:.3f} < {BINARY_FLOOR}"
    return f"{name}: accuracy {acc:.3f} (Phishing)"


def extension_files():
    """The compiled extension modules in the installed package's directory, wherever they
    sit in it, by dotted name."""
    root = pathlib.Path(river_boost.__file__).resolve().parent
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = {}
    for path in sorted(root.rglob("*")):
        # a file is module X of this interpreter if its name is X + one of its suffixes (an
        # in-place build for another Python, X.cpython-313-....so, is not), and the import
        # system takes the first suffix in EXTENSION_SUFFIXES' order
        for rank, suffix in enumerate(suffixes):
            stem = path.name[: -len(suffix)]
            if path.name.endswith(suffix) and stem and "." not in stem:
                parts = path.relative_to(root.parent).parts
                name = ".".join((*parts[:-1], stem))
                if name not in found or rank < found[name][0]:
                    found[name] = (rank, path)
                break
    return {name: path for name, (rank, path) in found.items()}


def check_extensions():
    """Every extension file imports, from where it was found; a default booster's weak
    learners are the compiled forest. Returns the extensions' dotted names."""
    files = extension_files()
    assert files, f"no compiled extension in {pathlib.Path(river_boost.__file__).parent}"
    for name, path in files.items():
        module = importlib.import_module(name)
        assert isinstance(module.__spec__.loader, importlib.machinery.ExtensionFileLoader), name
        assert pathlib.Path(module.__file__).resolve() == path, (name, module.__file__, path)
    model = river_boost.AdaBoostOL()
    learners = model.pool.learners
    assert type(learners).__name__ == "HoeffdingForest", type(learners)
    # ... and the forest's code is one of those extensions (not a pure-Python stand-in)
    compiled = {c.__module__ for c in type(learners).__mro__} & set(files)
    assert compiled, f"{type(learners).__mro__} defines nothing in {sorted(files)}"
    return sorted(files)


def test_extensions_are_compiled_and_used():
    check_extensions()


def test_every_booster_learns():
    for name, cls in boosters().items():
        check_booster(name, cls)


def main():
    print(f"river_boost {river_boost.__version__} from {river_boost.__file__}")
    print(f"Python {sys.version.split()[0]} on {sys.platform}")
    names = check_extensions()
    print(f"{len(names)} compiled extensions import: {', '.join(names)}")
    for name, cls in boosters().items():
        print(check_booster(name, cls))
    print("smoke test: ok")


if __name__ == "__main__":
    main()
