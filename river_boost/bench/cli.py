"""The ``river-boost`` command line: ``bench`` and ``tune``.

``river-boost bench`` compares the boosters with a single Hoeffding tree and River's own
ensembles on streams bundled with River (nothing is downloaded), prints tables, and writes
``results.csv``, ``results.json`` and PNG plots to ``--out``. ``river-boost tune`` picks each
booster's γ / number of learners / learning rate on a prefix of the stream and reports its
accuracy on the rest.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import importlib.util
import json
import os
import pathlib
import sys

from .. import __version__, bench
from .loaders import PAPER_SETS, paper_set

ALL_STREAMS = list(bench.STREAMS) + list(PAPER_SETS)
# Class names (and other spellings) users may type for the bench's model names.
ALIASES = {
    "AdaBoostOL": "AdaBoost.OL",
    "AdaBoostOLS": "AdaBoost.OL.S",
    "AdaBoostOLM": "AdaBoost.OLM",
    "Ada.OLMR": "AdaOLMR",
    "HoeffdingTreeClassifier": "HoeffdingTree",
    "AdaBoostClassifier": "River.AdaBoost",
    "BOLEClassifier": "River.BOLE",
    "ARFClassifier": "River.ARF",
    "ClassifierChain": "River.ClassifierChain",
    "HTR": "HoeffdingTreeRegressor",
    "OGB": "OnlineGradientBoostRegressor",
    "ARFRegressor": "River.ARFRegressor",
    "SRPRegressor": "River.SRPRegressor",
    "BaggingRegressor": "River.BaggingRegressor",
    "AMFRegressor": "River.AMFRegressor",
    "SGTRegressor": "River.SGTRegressor",
    "SGBR": "MOA.SGBR",
    "StreamingGradientBoostedRegression": "MOA.SGBR",
    "StreamingGradientBoostedTrees": "MOA.SGBT",
}


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"river-boost: error: {message} (see --help)\n")


class _Help(argparse.RawDescriptionHelpFormatter):
    """Shows every option's default (lists as the flags take them: comma-separated), except
    where the help text already says it; keeps the description's and epilog's line breaks
    (the examples)."""

    def _get_help_string(self, action):
        default = action.default
        if (
            "default:" in (action.help or "")
            or default in (None, False)
            or default is argparse.SUPPRESS
            or not action.option_strings
        ):
            return action.help
        if isinstance(default, (list, tuple)):
            default = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in default)
        # argparse %-formats the help text: a literal % in a default must be doubled
        return f"{action.help} (default: {str(default).replace('%', '%%')})"


def _resolve(kind, choices, aliases=None, missing=None):
    """Parse a comma-separated list of names from ``choices`` (or their ``aliases``, any
    case), with a "did you mean" for the rest.

    ``missing(name)``, if given, says what a choice needs that is not installed (or None): a
    suggestion prefers the choices that can run here, and names what the others need.
    """
    folded = {c.lower(): c for c in choices}
    folded.update({a.lower(): c for a, c in (aliases or {}).items()})

    def suggestions(item):
        item = item.lower()
        close = difflib.get_close_matches(item, list(folded), n=5, cutoff=0.6)
        # "arf" for River.ARF and MOA.ARF: a name's last dotted part typed alone
        close += [c for c in folded if c.rsplit(".", 1)[-1] == item]
        names = list(dict.fromkeys(folded[c] for c in close))
        if missing is None:
            return names[:3]
        ready = [n for n in names if missing(n) is None]
        if ready:
            return ready[:3]
        return [f"{n} (needs {missing(n)})" for n in names[:3]]

    def parse(text):
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"empty {kind} list")
        out = []
        for item in items:
            name = folded.get(item.lower())
            if name is None:
                close = suggestions(item)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise argparse.ArgumentTypeError(
                    f"unknown {kind} {item!r}{hint} (choose from {', '.join(choices)})"
                )
            out.append(name)
        return list(dict.fromkeys(out))

    return parse


def _numbers(text, convert, check, what):
    try:
        values = [convert(t) for t in text.split(",") if t.strip()]
    except ValueError:
        values = []
    if not values or not all(check(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return values


def _edges(text):
    return _numbers(text, float, lambda v: 0 < v < 1, "edges in (0, 1)")


def _int_list(text):
    return _numbers(text, int, lambda v: True, "a list of integers")


def _positive_int_list(text):
    return _numbers(text, int, lambda v: v >= 1, "positive integers")


def _positive_float_list(text):
    return _numbers(text, float, lambda v: v > 0, "positive numbers")


def _positive_int(text):
    return _numbers(text, int, lambda v: v >= 1, "a positive integer")[0]


def _n_models(text):
    """``--n-models`` of ``bench``: a positive integer, or ``default`` (None: each booster at
    its own default, the other ensembles at bench.OTHER_N_MODELS)."""
    return None if text.strip() == "default" else _positive_int(text)


def _fraction(text):
    return _numbers(text, float, lambda v: 0 < v < 1, "a number in (0, 1)")[0]


def _run_options(p, streams, models, out, regression=False):
    """The options ``bench`` and ``tune`` share (``regression``: ``bench``'s help also names
    the regression streams and models)."""
    p.add_argument(
        "--streams",
        type=_resolve("stream", ALL_STREAMS),
        default=streams,
        help=f"comma-separated streams (default: {','.join(streams)}; bundled with River: "
        f"{', '.join(s for s in bench.STREAMS if s not in bench.REGRESSION_STREAMS)}; the "
        f"papers' sets, with --data-dir: {', '.join(PAPER_SETS)}"
        + (
            f"; regression, with --task regression: {', '.join(bench.REGRESSION_STREAMS)})"
            if regression
            else ")"
        ),
    )
    p.add_argument(
        "--data-dir",
        type=pathlib.Path,
        default=None,
        help="folder holding the papers' data sets, one sub-folder per set (the README says "
        "where each comes from)",
    )
    p.add_argument(
        "--models",
        type=_resolve("model", list(bench.REGISTRY), ALIASES, bench.missing_library),
        default=models,
        help=f"comma-separated models, bench names or class names (default: {','.join(models)}"
        f"; ablations: {', '.join(bench.ABLATIONS)}; outside anchors, when installed: "
        f"{', '.join(bench.anchors.ANCHORS)}"
        + (
            f"; with --task regression: {','.join(bench.REGRESSION_MODELS)}, the default there)"
            if regression
            else ")"
        ),
    )
    p.add_argument(
        "--gammas",
        type=_edges,
        default=list(bench.DEFAULT_GAMMAS),
        help="edges to try for the models that take one",
    )
    p.add_argument("--seeds", type=_int_list, default=[42], help="model seeds")
    p.add_argument(
        "--n-samples",
        type=_positive_int,
        default=None,
        help="cap on examples per stream (default: each stream's length)",
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        default=min(2, os.cpu_count() or 1),
        help="parallel processes, or local Dask workers",
    )
    p.add_argument(
        "--backend",
        choices=bench.BACKENDS,
        default="joblib",
        help="where runs execute: local joblib processes or a Dask cluster",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: a local cluster)",
    )
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path(out), help="output folder")


MAIN_DESCRIPTION = """\
Online boosting for River, from the command line: compare the boosters with River's own
ensembles on streams (bench), or tune their parameters on a prefix of a stream (tune).
Every stream bundled with River runs without a download; the papers' data sets are read
from a folder given by --data-dir."""

MAIN_EPILOG = """\
examples:
  river-boost bench                                   the default comparison (a few minutes)
  river-boost bench --streams phishing --n-samples 500 --jobs 1
  river-boost bench --models AdaBoostOL,River.ARF --seeds 1,2,3
  river-boost bench --suite drift                     the drifting streams
  river-boost tune --streams phishing --models OnlineBBM --n-samples 1000

'river-boost bench --help' and 'river-boost tune --help' list every option."""

BENCH_EPILOG = """\
examples:
  river-boost bench
      every booster, River's baselines, the default streams; tables on the screen,
      results.csv, results.json and plots in ./river-boost-results
  river-boost bench --streams phishing,sea --models AdaBoostOL,OnlineBBM,River.ARF \\
                    --gammas 0.1 --n-samples 2000 --jobs 2 --out results
  river-boost bench --streams nursery --data-dir ~/data     one of the papers' data sets
  river-boost bench --details      also the booster-overhead and updates-per-pair tables
  river-boost bench --n-models default --models OSBoost.OCP,AdaBoost.OLM,River.ARF
      the boosters at their own defaults (20 learners), River's ARF at its 10 trees

  river-boost bench --task regression --seeds 1,2,3 --n-samples 2000
      River's regression streams: MAE, RMSE and R² of River's regressors (and MOA's,
      with capymoa), throughput beside River's ARFRegressor

Models take bench names or class names (AdaBoostOL = AdaBoost.OL), in any case.
River's own models are cached between invocations (--no-cache runs them again)."""

TUNE_EPILOG = """\
examples:
  river-boost tune --streams phishing --models OnlineBBM,AdaBoostOL
  river-boost tune --streams bananas --models OnlineBBM --gammas 0.05,0.1,0.2 \\
                   --n-models 5,10 --n-samples 2000 --split 0.5

Writes tune.json (the chosen configurations and every run) to --out."""


def make_parser():
    parser = _OneLineParser(
        prog="river-boost",
        description=MAIN_DESCRIPTION,
        epilog=MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"river-boost {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, parser_class=_OneLineParser, metavar="{bench,tune}"
    )
    b = sub.add_parser(
        "bench",
        formatter_class=_Help,
        help="prequential comparison of the boosters and River's ensembles",
        description="Progressive validation (predict, score, learn) of every booster beside a\n"
        "single Hoeffding tree and River's AdaBoost, BOLE and ARF, on River's bundled\n"
        "streams (or the papers' data sets, with --data-dir). With --task regression:\n"
        "River's regressors on its regression streams (MAE, RMSE, R², throughput).",
        epilog=BENCH_EPILOG,
    )
    _run_options(
        b, bench.DEFAULT_STREAMS, bench.DEFAULT_MODELS, "river-boost-results", regression=True
    )
    b.add_argument(
        "--task",
        choices=("classification", "regression"),
        default="classification",
        help="classification: the streams and models above; regression: River's regression "
        f"streams ({', '.join(bench.DEFAULT_REGRESSION_STREAMS)}) and regressors, with "
        "prequential MAE, RMSE and R² (--streams and --models, when given, still choose)",
    )
    b.add_argument(
        "--n-models",
        type=_n_models,
        default=10,
        help="weak learners per ensemble; 'default': each booster at its own default "
        f"(OSBoostOCP and AdaBoostOLM: 20), the other ensembles at {bench.OTHER_N_MODELS}",
    )
    b.add_argument(
        "--osboost-gammas",
        type=_edges,
        default=[bench.OSBOOST_GAMMA],
        help="edges for OSBoost and OSBoost.OCP",
    )
    b.add_argument("--no-plot", action="store_true", help="skip the PNG plots")
    b.add_argument(
        "--details",
        action="store_true",
        help="also print the booster-overhead and weak-learner-updates tables (what share of "
        "the time the boosters spend outside their weak learners, how many example-learner "
        "pairs update a learner)",
    )
    b.add_argument(
        "--no-cache",
        action="store_true",
        help="run River's own models again instead of reading their results from the cache "
        f"of earlier invocations ({bench.ResultCache.default_folder()}; the same stream, "
        "model, seed and options under the same library versions)",
    )
    b.add_argument(
        "--suite",
        choices=("default", "drift"),
        default="default",
        help="default: the streams and models above; drift: the drifting streams (50,000 "
        f"examples each: {', '.join(bench.DRIFT_STREAMS)}), every booster with and without "
        "drift adaptation and the drift-adaptive ensembles (--streams, --models and --gammas, "
        "when given, still choose)",
    )

    t = sub.add_parser(
        "tune",
        formatter_class=_Help,
        help="tune γ / n_models / learning rate on a prefix, report on the rest",
        description="The papers' protocol: every configuration runs prequentially over the\n"
        "stream; the one with the best accuracy on the first --split share is chosen (per\n"
        "seed), and its accuracy on the rest of the stream, where it keeps learning, is\n"
        "reported.",
        epilog=TUNE_EPILOG,
    )
    _run_options(t, ["phishing", "bananas"], ["OnlineBBM", "AdaBoost.OL"], "river-boost-tune")
    t.add_argument(
        "--n-models",
        type=_positive_int_list,
        default=[5, 10, 20],
        help="numbers of weak learners to try",
    )
    t.add_argument(
        "--learning-rates",
        type=_positive_float_list,
        default=None,
        help="learning-rate constants to try for AdaBoost.OL/OLM (default: their own)",
    )
    t.add_argument("--split", type=_fraction, default=0.8, help="share of the stream to tune on")
    return parser


# ----------------------------------------------------------------------------- running


def _check_extra(args) -> None:
    """One line instead of a traceback when the ``bench`` extra is not installed."""
    needed = ["tqdm"] + (["joblib"] if args.jobs > 1 and args.backend == "joblib" else [])
    needed += [] if getattr(args, "no_plot", True) else ["matplotlib"]
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        raise RuntimeError(f"{', '.join(missing)} not installed: pip install 'river-boost[bench]'")


def _check_streams(streams, data_dir) -> None:
    """Fail before any run if a data set is requested without --data-dir or cannot be read."""
    for name in streams:
        if name in bench.STREAMS:
            continue
        if data_dir is None:
            raise ValueError(f"stream {name!r} is one of the papers' data sets: give --data-dir")
        try:
            next(iter(paper_set(name, data_dir)))
        except StopIteration:
            raise ValueError(f"data set {name!r} under {data_dir} is empty") from None


def _check_writable(out: pathlib.Path) -> None:
    """Fail before minutes of runs, not after, if results cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".river-boost-write-test"
    probe.write_text("")
    probe.unlink()


def _check_grid(runs, streams, models) -> None:
    if not runs:
        tasks = {s: bench.task_of(s) for s in streams}
        fits = {m: "/".join(sorted(bench.REGISTRY[m].tasks)) for m in models}
        raise ValueError(
            "no model runs on the chosen streams: "
            + ", ".join(f"{s} is {t}" for s, t in tasks.items())
            + "; "
            + ", ".join(f"{m} runs on {t}" for m, t in fits.items())
        )


def _prepare(args):
    _check_extra(args)
    _check_streams(args.streams, args.data_dir)
    _check_writable(args.out)
    if args.backend == "dask":
        bench.check_dask(args.scheduler)
    asked = args.models
    args.models, notices = bench.usable_models(args.models)
    if not args.models:  # every model asked for needs a library that is not installed
        libraries = {bench.missing_library(m) for m in asked}
        needs = ", ".join(f"{m} needs {bench.missing_library(m)}" for m in asked)
        java = " (and Java)" if "capymoa" in libraries else ""
        raise RuntimeError(
            f"no model to run: {needs}, which is not installed; pip install "
            f"{' '.join(sorted(libraries))}{java}, or choose other --models"
        )
    for notice in notices:
        print(f"river-boost: {notice}", file=sys.stderr)


class _Progress:
    """tqdm's bar on a terminal; plain lines, one per finished run, in a log."""

    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.done, self.bar = total, desc, 0, None
        if sys.stderr.isatty():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="run", dynamic_ncols=True)

    def __call__(self, r) -> None:
        self.done += 1
        score = f"RMSE {r.score:.4g}" if r.errors else f"{100 * r.accuracy:.2f}%"
        text = f"{r.stream} · {r.model} · {score}"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
            self.bar.update()
        else:
            print(f"{self.desc} [{self.done}/{self.total}] {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _run(args, runs, desc, **kwargs):
    progress = _Progress(len(runs), desc)
    try:
        return bench.run_grid(
            runs,
            jobs=args.jobs,
            progress=progress,
            backend=args.backend,
            scheduler=args.scheduler,
            data_dir=args.data_dir,
            **kwargs,
        )
    finally:
        progress.close()


def _write_outputs(results, rows, out: pathlib.Path, regression=False):
    out.mkdir(parents=True, exist_ok=True)
    fields = [
        "stream",
        "model",
        "family",
        "gamma",
        "seed",
        "n_models",
        "n_samples",
        *(bench.ERRORS if regression else ["accuracy"]),
        "seconds",
        "weak_seconds",
        "throughput",
        "overhead_share",
        "update_share",
        "replacements",
    ]
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for r in results:
            writer.writerow([_field(r, k) for k in fields])
    with open(out / "results.json", "w") as f:
        json.dump(
            {
                "runs": [{**{k: _field(r, k) for k in fields}, "curve": r.curve} for r in results],
                "summary": list(rows.values()),
            },
            f,
            indent=1,
        )


def _field(r, name):
    """A run's field for the files: its attributes, and on regression streams its errors."""
    return r.errors[name] if name in bench.ERRORS else getattr(r, name)


def _drift_suite(args) -> None:
    """``--suite drift``: the drift suite's streams, models and one γ, where not given."""
    if args.streams == bench.DEFAULT_STREAMS:
        args.streams = list(bench.DRIFT_STREAMS)
    if args.models == bench.DEFAULT_MODELS:
        args.models = list(bench.DRIFT_MODELS)
    if args.gammas == list(bench.DEFAULT_GAMMAS):
        args.gammas = list(bench.DRIFT_GAMMAS)


def _learners_caption(n_models) -> str:
    if n_models is None:
        return f"boosters at their default learners, other ensembles at {bench.OTHER_N_MODELS}"
    return f"{n_models} weak learners"


def _regression_task(args) -> None:
    """``--task regression``: the regression streams and models, where not given."""
    if args.suite == "drift":
        raise ValueError("--suite drift is a classification suite: drop --task regression")
    if args.streams == bench.DEFAULT_STREAMS:
        args.streams = list(bench.DEFAULT_REGRESSION_STREAMS)
    if args.models == bench.DEFAULT_MODELS:
        args.models = list(bench.REGRESSION_MODELS)


def _check_task(args) -> None:
    """Every stream chosen is of the task asked for (the tables differ)."""
    regression = args.task == "regression"
    wrong = [s for s in args.streams if (bench.task_of(s) == "regression") != regression]
    if wrong:
        hint = "drop --task regression" if regression else "add --task regression"
        kind = "not regression streams" if regression else "regression streams"
        raise ValueError(f"{', '.join(wrong)}: {kind}; {hint} or choose other --streams")


def cmd_bench(args):
    if args.task == "regression":
        _regression_task(args)
    elif args.suite == "drift":
        _drift_suite(args)
    _check_task(args)
    _prepare(args)
    if args.task == "regression":
        return _bench_regression(args)
    runs = bench.grid(args.streams, args.models, args.gammas, args.seeds, args.osboost_gammas)
    _check_grid(runs, args.streams, args.models)
    protocol = bench.Protocol(n_samples=args.n_samples)
    cache = None if args.no_cache else bench.ResultCache(bench.ResultCache.default_folder())
    results = _run(args, runs, "bench", n_models=args.n_models, protocol=protocol, cache=cache)
    rows = bench.summarize(results)
    streams = [s for s in args.streams if any(r.stream == s for r in results)]
    tables = {
        "accuracy": f"Prequential accuracy (%; on multi-label streams 100 × (1 − rank loss)), "
        f"{_learners_caption(args.n_models)}, seeds {','.join(map(str, args.seeds))}",
        "throughput": "Throughput (examples/s, median over seeds)",
        "speed": "Throughput ÷ River.AdaBoost's on the same stream, same invocation",
    }
    if args.details:
        tables["overhead"] = (
            "Booster overhead: share of time outside the weak learners' learn/predict"
        )
        tables["updates"] = (
            "Weak-learner updates per (example, learner) pair (multi-label: one per relevant label)"
        )
    if all(r["speed_vs_reference"] is None for r in rows.values()):
        del tables["speed"]
    cached = sorted({r.model for r in results if r.cached})
    if cached:
        if "speed" in tables:  # absent without River.AdaBoost in the grid
            tables["speed"] = tables["speed"].replace("same invocation", "its cached run")
        print(
            f"\nRiver's models read from the cache of earlier runs on this machine: "
            f"{', '.join(cached)} (their accuracy is the same; their times are from the run "
            f"that made them; --no-cache runs them again). Cache: {cache.folder}"
        )
    if any(r.replacements for r in results):
        tables["replacements"] = "Learner replacements after a drift (mean over seeds)"
    for value, title in tables.items():
        print(f"\n{title}\n{bench.format_table(rows, streams, value)}")
    if args.suite == "drift":
        print(
            f"\nMean accuracy rank over the streams each model ran on (1 = best)\n"
            f"{bench.format_ranks(bench.mean_ranks(rows, streams))}"
        )
        print(
            f"\nDrift adaptation: accuracy gain (points) of each booster with it\n"
            f"{bench.format_table(bench.drift_gains(rows), streams, 'gain')}"
        )
    _write_outputs(results, rows, args.out)
    written = [args.out / "results.csv", args.out / "results.json"]
    if not args.no_plot:
        from .plots import plot_bench, plot_drift

        written += plot_bench(results, rows, streams, args.out)
        if args.suite == "drift":
            written += plot_drift(results, streams, args.out)
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


REGRESSION_REFERENCE = "River.ARFRegressor"


def _bench_regression(args):
    """``river-boost bench --task regression``: the grid, the tables, the files, the plots."""
    runs = bench.grid(args.streams, args.models, args.gammas, args.seeds, args.osboost_gammas)
    _check_grid(runs, args.streams, args.models)
    protocol = bench.Protocol(n_samples=args.n_samples)
    cache = None if args.no_cache else bench.ResultCache(bench.ResultCache.default_folder())
    results = _run(args, runs, "bench", n_models=args.n_models, protocol=protocol, cache=cache)
    rows = bench.summarize(results, reference=REGRESSION_REFERENCE)
    streams = [s for s in args.streams if any(r.stream == s for r in results)]
    seeds = ",".join(map(str, args.seeds))
    stat = "mean ± std over seeds" if len(args.seeds) > 1 else "one seed"
    if args.n_models is None:
        learners = f"ours at their defaults, other ensembles of {bench.OTHER_N_MODELS} members"
    elif args.n_models == 10:
        learners = "ensembles of 10 members (River's default)"
    else:
        learners = f"ensembles of {args.n_models} members (River's default: 10)"
    caption = f"{learners}, seeds {seeds} ({stat})"
    tables = {
        "rmse": f"Prequential RMSE (lower is better), {caption}; last column: mean RMSE rank "
        "over the streams (1 = best)",
        "mae": f"Prequential MAE (lower is better), {caption}",
        "r2": f"Prequential R² (higher is better), {caption}",
        "throughput": "Throughput (examples/s, median over seeds)",
        "speed": f"Throughput ÷ {REGRESSION_REFERENCE}'s on the same stream, same invocation",
    }
    if args.details:
        tables["updates"] = "Weak-learner updates per (example, learner) pair"
    if all(r["speed_vs_reference"] is None for r in rows.values()):
        del tables["speed"]
    cached = sorted({r.model for r in results if r.cached})
    if cached:
        if "speed" in tables:
            tables["speed"] = tables["speed"].replace("same invocation", "its cached run")
        print(
            f"\nRiver's models read from the cache of earlier runs on this machine: "
            f"{', '.join(cached)} (their errors are the same; their times are from the run "
            f"that made them; --no-cache runs them again). Cache: {cache.folder}"
        )
    ranks = bench.mean_ranks(rows, streams, "rmse_mean", lower_is_better=True)
    for value, title in tables.items():
        table = bench.format_table(rows, streams, value, ranks if value == "rmse" else None)
        print(f"\n{title}\n{table}")
    skipped = sorted({r.model for r in results if r.skipped})
    if skipped:
        print(f"\nNot scored where they predicted nothing (before learning): {', '.join(skipped)}")
    _write_outputs(results, rows, args.out, regression=True)
    written = [args.out / "results.csv", args.out / "results.json"]
    if not args.no_plot:
        from .plots import plot_bench

        written += plot_bench(results, rows, streams, args.out)
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


def cmd_tune(args):
    _prepare(args)
    grid = (args.gammas, args.n_models, args.learning_rates, args.seeds, args.split)
    runs = bench.tuning_grid(args.streams, args.models, *grid, n_samples=args.n_samples)
    _check_grid(runs, args.streams, args.models)
    results = _run(args, runs, "tune")
    chosen = bench.pick_tuned(results)
    share = f"{100 * args.split:g}%"
    print(
        f"\nTuned on the first {share} of each stream (prequential accuracy), reported on "
        f"the rest; seeds {','.join(map(str, args.seeds))}"
    )
    print("| model | stream | chosen (per seed) | tuning accuracy | held-out accuracy |")
    print("| --- | --- | --- | --- | --- |")
    summary = []
    for (family, stream), rs in chosen.items():
        baseline = bench.REGISTRY[family].kind == "baseline"
        configs = ", ".join(r.model if baseline else f"{r.model} N={r.n_models}" for r in rs)
        tune_acc, _ = bench.mean_std(r.split_accuracy[0] for r in rs)
        held = [r.split_accuracy[1] for r in rs]
        mean, std = bench.mean_std(held)
        print(
            f"| {family} | {stream} | {configs} | {100 * tune_acc:.2f} | "
            f"{100 * mean:.2f} ± {100 * std:.2f} |"
        )
        entry = {"family": family, "stream": stream, "chosen": [(r.model, r.n_models) for r in rs]}
        summary.append({**entry, "tuning_accuracy": tune_acc, "held_out_accuracy": held})
    keys = ("stream", "model", "n_models", "seed", "n_samples", "split_accuracy")
    runs_out = [{k: getattr(r, k) for k in keys} for r in results]
    with open(args.out / "tune.json", "w") as f:
        json.dump({"chosen": summary, "runs": runs_out}, f, indent=1)
    print(f"\nwrote {args.out / 'tune.json'}")
    return 0


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        return {"bench": cmd_bench, "tune": cmd_tune}[args.command](args)
    except KeyboardInterrupt:
        print("river-boost: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError, RuntimeError) as e:
        print(f"river-boost: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
