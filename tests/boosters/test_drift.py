"""Drift adaptation (river_boost.adaptation): replacement on drift, diagnostics, exactness when
off, pickling mid-stream (with background learners), River's checks and bad input."""

from __future__ import annotations

import itertools
import pickle

import pytest
from river import checks, drift, tree
from river.datasets import synth

import river_boost
from river_boost import adaptation, bench, forest
from river_boost.bench import REGISTRY
from river_boost.bench.streams import _chain

from ..helpers import BINARY_PRESETS as BINARY
from ..helpers import MULTICLASS_PRESETS as MULTICLASS
from ..helpers import RANKING_PRESETS as RANKING

PRESETS = BINARY + MULTICLASS + RANKING


@pytest.fixture(params=[True, False], ids=["forest", "python"])
def compiled(request, monkeypatch):
    """Both learner paths: the compiled forest, and River's own trees."""
    monkeypatch.setattr(forest, "ENABLED", request.param)
    return request.param


def sea_abrupt(n=6000, at=3000):
    """SEA with one abrupt concept change at ``at`` (threshold 8 -> 9.5, no noise)."""
    stream = synth.ConceptDriftStream(
        synth.SEA(variant=0, noise=0.0, seed=1),
        synth.SEA(variant=3, noise=0.0, seed=2),
        position=at,
        width=max(1, at // 100),
        seed=3,
    )
    return list(itertools.islice(stream, n))


def flipped(n=4000, at=2000):
    """A binary stream whose label flips at ``at``: every learner's error jumps to ~1."""
    out = []
    for x, y in sea_abrupt(n, n + 1):
        out.append((x, y if len(out) < at else not y))
    return out


def led(n=1500):
    return list(itertools.islice(synth.LEDDrift(seed=1, noise_percentage=0.1), n))


def multilabel(n=400, seed=0):
    import random

    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        x = {f"f{j}": rng.random() for j in range(4)}
        y = {"a": x["f0"] > 0.5, "b": x["f1"] > 0.5, "c": x["f0"] + x["f1"] > 1}
        rows.append((x, y))
    return rows


def stream_for(cls):
    if cls in BINARY:
        return flipped()
    if cls in MULTICLASS:
        return led()
    return multilabel()


def run(model, data):
    preds = []
    for x, y in data:
        preds.append(model.predict_proba_one(x))
        model.learn_one(x, y)
    return preds


def adwin():
    return drift.ADWIN(delta=0.002, clock=8)


def with_background(cls, **params):
    """``cls`` with drift adaptation and background learners (detectors quick to fire)."""
    return cls(
        drift_detector=drift.ADWIN(delta=0.0001, clock=8),
        warning_detector=drift.ADWIN(delta=0.05, clock=8),
        **params,
    )


# ----------------------------------------------------------------------------- replacement


@pytest.mark.parametrize("cls", BINARY)
def test_replacement_on_abrupt_drift(cls, compiled):
    model = cls(n_models=4, seed=1, drift_detector=adwin())
    data = flipped()
    run(model, data)
    assert sum(model.replacements) >= 1
    assert len(model.replacement_times) == sum(model.replacements)
    times = [t for t, _ in model.replacement_times]
    assert times == sorted(times)
    # replacements follow the flip (a stationary prefix of 2,000 examples: none before it)
    assert min(times) > 2000
    positions = {i for _, i in model.replacement_times}
    for i in positions:
        assert model.replacements[i] == sum(1 for _, j in model.replacement_times if j == i)


def test_replacement_restarts_statistics(compiled):
    model = river_boost.AdaBoostOL(n_models=4, seed=1, drift_detector=adwin())
    data = flipped()
    replaced_at = None
    for x, y in data:
        before = list(model.replacements)
        model.learn_one(x, y)
        changed = [i for i, (a, b) in enumerate(zip(before, model.replacements)) if b > a]
        if changed:
            replaced_at = changed[0]
            break
    assert replaced_at is not None
    i = replaced_at
    assert model.alphas[i] == 0.0
    assert model.edges[i] == 0.0
    assert model.mean_offered[i] == 0.0
    # the replaced learner is a blank tree
    assert model.models[i].predict_proba_one(data[0][0]) == {}


def test_drift_adaptation_improves_after_drift():
    data = flipped(6000, 2000)
    accs = {}
    for name, params in {"off": {}, "on": {"drift_detector": adwin(), "memory": 300}}.items():
        model = river_boost.OnlineBBM(n_models=5, seed=2, **params)
        hits = 0
        for t, (x, y) in enumerate(data):
            if t >= 2000:
                hits += model.predict_one(x) == y
            model.learn_one(x, y)
        accs[name] = hits / (len(data) - 2000)
    assert accs["on"] > accs["off"] + 0.05


@pytest.mark.parametrize("cls", MULTICLASS + RANKING)
def test_other_tasks_run_with_drift_on(cls, compiled):
    model = cls(n_models=3, seed=0, drift_detector=drift.ADWIN(delta=0.5, clock=4))
    run(model, stream_for(cls))
    assert len(model.replacements) == 3
    assert sum(model.replacements) == len(model.replacement_times)


def test_ranking_replaces_on_label_swap(compiled):
    data = multilabel(1200)
    swapped = [(x, {"a": y["b"], "b": y["a"], "c": y["c"]}) for x, y in multilabel(1200, 1)]
    model = river_boost.AdaOLMR(n_models=3, seed=0, drift_detector=adwin(), memory=300)
    run(model, data + swapped)
    assert sum(model.replacements) >= 1
    assert len(model.replacement_times) == sum(model.replacements)


# ----------------------------------------------------------------------------- arming


def feed(adapt, steps, errors, ensemble_error, t0=0):
    """``steps`` examples of the same errors to ``adapt``; the replacements it selects (it is
    told that each was made, as the booster does), as (stream time, learner)."""
    out = []
    for t in range(t0 + 1, t0 + steps + 1):
        _, drifted = adapt.observe(errors, t, ensemble_error)
        for i in drifted:
            adapt.replaced(i, t, False)
            out.append((t, i))
    return out


def test_detections_wait_for_the_booster_error_to_rise():
    adapt = adaptation.DriftAdaptation(adwin(), None, 3, 10_000)
    # learner 2's error jumps from 0 to 1 while the booster's own error stays 0: its detector
    # fires, and nothing is replaced
    assert feed(adapt, 600, [0, 0, 0], 0) == []
    assert feed(adapt, 300, [0, 0, 1], 0, t0=600) == []
    assert adapt.fired[2] is not None and not adapt.armed
    fired_at = adapt.fired[2]
    # the booster's error rises: armed, and learner 2's detection (within ARMING_WINDOW) acts
    got = feed(adapt, 300, [0, 0, 1], 1, t0=900)
    assert adapt.armed and adapt.arming is None and adapt.fired is None
    assert [i for _, i in got] == [2]
    assert got[0][0] - fired_at <= adaptation.ARMING_WINDOW


def test_an_old_detection_does_not_act_when_armed():
    adapt = adaptation.DriftAdaptation(adwin(), None, 3, 10_000)
    feed(adapt, 600, [0, 0, 0], 0)
    feed(adapt, 300, [0, 1, 0], 0, t0=600)
    assert adapt.fired[1] is not None
    quiet = adaptation.ARMING_WINDOW + 100  # longer ago than the window when it arms
    feed(adapt, quiet, [0, 1, 0], 0, t0=900)
    assert feed(adapt, 300, [0, 1, 0], 1, t0=900 + quiet) == []
    assert adapt.armed


def test_stationary_stream_replaces_nothing_unless_armed(compiled, monkeypatch):
    # A stationary stream: the boosted learners' detectors fire in the warm-up (their
    # unweighted errors rise as the booster's weights settle), the booster's error does not
    data = list(itertools.islice(synth.Waveform(seed=42), 1500))
    model = river_boost.AdaBoostOLM(n_models=20, seed=42, drift_detector=drift.ADWIN())
    run(model, data)
    assert not model._engine.adapt.armed
    assert any(f is not None for f in model._engine.adapt.fired)
    assert model.replacements == [0] * 20
    # armed from the start, as before the arming: the same detections replace learners
    monkeypatch.setattr(
        adaptation.DriftAdaptation, "__init__", _armed_init(adaptation.DriftAdaptation.__init__)
    )
    armed = river_boost.AdaBoostOLM(n_models=20, seed=42, drift_detector=drift.ADWIN())
    run(armed, data)
    assert sum(armed.replacements) >= 1


@pytest.mark.parametrize(
    "cls, n, fires",
    [(river_boost.AdaBoostOLM, 20, True), (river_boost.OnlineMBBM, 10, False)],
)
def test_until_armed_the_booster_is_the_one_without_adaptation(cls, n, fires, compiled):
    # Waveform is stationary: the booster's error never rises, so nothing is replaced and
    # nothing forgets; every prediction is the one of the booster without adaptation
    data = list(itertools.islice(synth.Waveform(seed=42), 1500))
    plain = cls(n_models=n, seed=42)
    watched = cls(n_models=n, seed=42, drift_detector=drift.ADWIN())
    assert run(watched, data) == run(plain, data)
    assert not watched._engine.adapt.armed and not watched._engine.adapt.forgets
    # (AdaBoost.OLM's learners' detectors fired all the same)
    assert any(f is not None for f in watched._engine.adapt.fired) == fires


def test_forgetting_starts_when_armed(compiled):
    model = river_boost.AdaBoostOL(n_models=4, seed=1, drift_detector=adwin(), memory=500)
    ogd = model._engine.ogd
    data = flipped(4000, 2000)
    for t, (x, y) in enumerate(data):
        model.learn_one(x, y)
        assert ogd.memory == 500  # the vote weights' rate floor holds from the start
        if not model._engine.adapt.armed:
            assert model._engine.edge_decay == 1.0 and model._engine.adapt.share == 0.0
        elif t < 2000:
            raise AssertionError("armed before the flip")
    assert model._engine.adapt.armed and model._engine.adapt.forgets
    assert model._engine.edge_decay == 1.0 - 1.0 / 500
    assert model._engine.adapt.share == 1.0 / 500


def _armed_init(init):
    def armed_init(self, *args):
        init(self, *args)
        self.armed = True

    return armed_init


@pytest.mark.parametrize(
    "cls, data",
    [
        (river_boost.AdaBoostOL, None),
        (river_boost.OSBoostOCP, None),
        (river_boost.AdaBoostOLM, "led"),
        (river_boost.OnlineMBBM, "led"),
        (river_boost.AdaOLMR, "multilabel"),
        (river_boost.OnlineBMR, "multilabel"),
    ],
)
def test_the_booster_error_is_its_prediction_against_the_label(cls, data, monkeypatch):
    """The walk hands the detectors the booster's own error: its prediction of the example,
    made before it learns, against the label (ranking: its top-scored label irrelevant). With
    a deep chain (OSBoost.OCP's default) each chain watches its own prediction: here the
    booster's own chain alone."""
    stream = {None: flipped(1500, 800), "led": led(1500), "multilabel": multilabel(600)}[data]
    seen = []
    observe = adaptation.DriftAdaptation.observe

    def spy(self, errors, t, ensemble_error):
        seen.append(ensemble_error)
        return observe(self, errors, t, ensemble_error)

    monkeypatch.setattr(adaptation.DriftAdaptation, "observe", spy)
    single = {"deep_scale": 1.0} if cls is river_boost.OSBoostOCP else {}
    model = cls(n_models=4, seed=1, drift_detector=adwin(), **single)
    expected = []
    for t, (x, y) in enumerate(stream):
        if data == "multilabel":
            scores = model.score_one(x)
            top = max(scores, key=scores.get) if scores else None  # the first maximum
            wrong = None if top is None else int(not y.get(top, False))
        else:
            wrong = int(model.predict_one(x) != y)
        n_before = len(seen)
        model.learn_one(x, y)
        if len(seen) > n_before and t >= 20:
            # (from the 20th example on: a class the prediction did not know yet is known
            # to the walk of learn_one, which errs differently)
            expected.append((t, wrong, seen[-1]))
    assert len(expected) > 250
    assert [(t, e) for t, e, _ in expected] == [(t, e) for t, _, e in expected]
    assert 0 < sum(seen) < len(seen)  # it errs, and not always


# ----------------------------------------------------------------------------- background learners


def test_background_learner_is_promoted(compiled):
    model = with_background(river_boost.AdaBoostOL, n_models=4, seed=1)
    seen_background = False
    for x, y in flipped(5000, 2000):
        model.learn_one(x, y)
        seen_background |= bool(model.background)
    assert seen_background
    assert sum(model.drift_warnings) >= 1
    assert sum(model._engine.adapt.promotions) >= 1


def test_background_learner_with_feature_subsets(compiled):
    model = with_background(river_boost.OnlineBBM, n_models=3, seed=1, feature_fraction=0.7)
    run(model, flipped(5000, 2000))
    assert sum(model._engine.adapt.promotions) >= 1


# ----------------------------------------------------------------------------- off is today


@pytest.mark.parametrize("cls", PRESETS)
def test_off_is_exactly_the_booster_without_adaptation(cls, compiled):
    data = stream_for(cls)[:800]
    plain = cls(n_models=3, seed=5)
    off = cls(n_models=3, seed=5, drift_detector=None)
    assert run(plain, data) == run(off, data)
    assert off.drift_detector is None and off._engine.adapt is None
    assert off.replacements == [0, 0, 0] and off.replacement_times == []


def test_unpickled_booster_from_before_has_adaptation_off():
    model = river_boost.AdaBoostOL(n_models=2, seed=0)
    state = model.__dict__.copy()
    for name in ("drift_detector", "warning_detector", "memory", "_drift"):
        state.pop(name, None)
    old = river_boost.AdaBoostOL.__new__(river_boost.AdaBoostOL)
    old.__dict__.update(state)
    assert old.drift_detector is None and old.replacements == [0, 0]


# ----------------------------------------------------------------------------- pickling, seeds


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_pickle_mid_stream_with_background_learners(protocol, compiled):
    model = with_background(river_boost.AdaBoostOL, n_models=4, seed=3, feature_fraction=0.8)
    data = flipped(5000, 2000)
    cut = None
    for t, (x, y) in enumerate(data):
        model.learn_one(x, y)
        if model.background and t > 2000:
            cut = t + 1
            break
    assert cut is not None, "no background learner started"
    copy = pickle.loads(pickle.dumps(model, protocol=protocol))
    assert copy.background == model.background
    rest = data[cut:]
    assert run(model, rest) == run(copy, rest)
    assert model.replacements == copy.replacements
    assert model.replacement_times == copy.replacement_times


def test_same_seed_same_replacements(compiled):
    data = flipped()
    a = river_boost.OnlineBBM(n_models=3, seed=7, drift_detector=adwin())
    b = river_boost.OnlineBBM(n_models=3, seed=7, drift_detector=adwin())
    assert run(a, data) == run(b, data)
    assert a.replacement_times == b.replacement_times


def test_forest_and_python_paths_agree(monkeypatch):
    data = flipped(3000, 1500)
    out = {}
    for enabled in (True, False):
        monkeypatch.setattr(forest, "ENABLED", enabled)
        model = with_background(river_boost.AdaBoostOL, n_models=3, seed=1)
        out[enabled] = (run(model, data), model.replacement_times, model.drift_warnings)
    assert out[True] == out[False]


# ----------------------------------------------------------------------------- River's checks


@pytest.mark.parametrize("cls", BINARY + MULTICLASS)  # ranking: tests/boosters/test_multilabel.py
def test_check_estimator_with_drift_on(cls):
    params = {"n_models": 3, "seed": 1, "drift_detector": drift.ADWIN(delta=0.5, clock=4)}
    if cls in BINARY[:1] + [river_boost.OSBoost]:
        params["gamma"] = 0.2
    params["warning_detector"] = drift.ADWIN(delta=0.9, clock=4)
    checks.check_estimator(cls(**params))


def test_clone_keeps_the_options():
    model = river_boost.AdaBoostOL(
        n_models=3,
        drift_detector=drift.ADWIN(delta=0.01),
        warning_detector=drift.ADWIN(),
        memory=500,
    )
    clone = model.clone()
    assert clone.drift_detector.delta == 0.01 and clone.memory == 500
    assert clone.drift_detector is not model.drift_detector
    assert "drift_detector=ADWIN" in repr(model)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "params, error",
    [
        ({"drift_detector": "adwin"}, TypeError),
        ({"drift_detector": tree.HoeffdingTreeClassifier()}, TypeError),
        ({"warning_detector": drift.ADWIN()}, ValueError),
        ({"drift_detector": drift.ADWIN(), "warning_detector": 3}, TypeError),
        ({"memory": 100}, ValueError),
        ({"drift_detector": drift.ADWIN(), "memory": 0}, ValueError),
        ({"drift_detector": drift.ADWIN(), "memory": 2.5}, ValueError),
        ({"drift_detector": drift.ADWIN(), "memory": True}, ValueError),
    ],
)
@pytest.mark.parametrize("cls", [river_boost.AdaBoostOL, river_boost.AdaBoostOLM])
def test_bad_options_raise(cls, params, error):
    with pytest.raises(error):
        cls(**params)


@pytest.mark.parametrize(
    "x, y, w",
    [
        ({"a": 1.0}, "yes", 1.0),
        ({"a": 1.0}, True, -1.0),
        ({"a": 1.0}, True, float("nan")),
        ([1.0], True, 1.0),
        ({"a": object()}, True, 1.0),
    ],
)
def test_bad_input_leaves_state_unchanged(x, y, w, compiled):
    model = with_background(river_boost.AdaBoostOL, n_models=3, seed=1)
    data = flipped(3000, 1500)
    for xx, yy in data[:2600]:
        model.learn_one(xx, yy)
    before = pickle.dumps(model)
    with pytest.raises((ValueError, TypeError)):
        model.learn_one(x, y, w=w)
    assert pickle.dumps(model) == before


# ----------------------------------------------------------------------------- bench


def test_drift_suite_entries_build():
    for name in ("AdaBoost.OL+drift", "AdaBoost.OLM+drift", "River.ADWINBoosting", "River.SRP"):
        model = REGISTRY[name].factory(3, 1)
        x, y = next(iter(synth.SEA(seed=1)))
        model.learn_one(x, y)
    assert REGISTRY["AdaBoost.OL+drift"].factory(3, 1).drift_detector is not None


def test_chained_stream_changes_concept_at_the_positions():
    stream = _chain([synth.SEA(variant=v, seed=v) for v in (0, 3, 0, 3)], 100, 5)
    labels = []
    for x, y in itertools.islice(stream, 30_000):
        labels.append(y == (x[0] + x[1] > 8))
    # concept 1 (SEA variant 0) until 12,500, then variant 3 (threshold 9.5)
    assert all(labels[:12_000])
    assert not all(labels[12_600:25_000])


def test_default_memory_is_used_with_a_detector():
    model = river_boost.AdaBoostOL(drift_detector=drift.ADWIN())
    assert model._engine.adapt.memory == adaptation.DEFAULT_MEMORY
    assert model.memory is None


def test_bench_drift_suite_prints_ranks_and_gains_and_plots(tmp_path, capsys):
    from river_boost.bench import cli

    out = tmp_path / "drift"
    argv = ["bench", "--suite", "drift", "--streams", "sea_abrupt,rbf_fast", "--models"]
    argv += ["AdaBoost.OL,AdaBoost.OL+drift,AdaBoost.OLM,AdaBoost.OLM+drift,River.ADWINBoosting"]
    argv += ["--n-models", "3", "--n-samples", "300", "--jobs", "1", "--out", str(out)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "Mean accuracy rank" in printed and "accuracy gain" in printed
    assert (out / "drift_accuracy.png").stat().st_size > 0
    assert bench.drift_points("sea_abrupt") == bench.DRIFT_POSITIONS
    assert bench.drift_points("rbf_fast") == ()


def test_drift_suite_is_not_in_the_default_bench():
    assert not set(bench.DEFAULT_MODELS) & {"AdaBoost.OL+drift", "River.SRP"}
    assert not set(bench.DEFAULT_STREAMS) & set(bench.DRIFT_STREAMS)
    assert {"AdaBoost.OL+drift", "River.ARF", "River.SRP"} <= set(bench.DRIFT_MODELS)


def test_drift_tables_without_a_plain_booster_are_not_an_error():
    assert bench.format_table(bench.drift_gains({}), ["sea_abrupt"], "gain") == "(no rows)"
    assert bench.format_ranks({}) == "(no rows)"
