"""``s3vm fit``, ``s3vm predict`` and ``s3vm app``, and the pieces the commands share.

``s3vm fit DATA [LABELS] -s SOLVER [-p NAME=VALUE ...]`` reads a CSV / TSV or svmlight file
(``toy_data.files``; svmlin's examples and labels files too), fits the solver -- wrapped in
``OneVsRestS3VM`` when more than two classes are labeled -- and writes, as svmlin does, one line
per point of the file in its order: the decision value(s) to ``NAME.outputs`` (svmlin's
convention: ``%g`` numbers, positive for the second class; k columns for k > 2 classes) and
the predicted class to ``NAME.predictions``. On request it saves the model
(``s3vm_cli.model_file``: arrays and JSON, never a pickle) and the trace as JSON lines.
``s3vm predict MODEL DATA`` does the same for new points.

``--standardize`` (``fit`` and ``select``) uses each feature as a z-score
(``toy_data.scaling``); the saved model keeps the means and scales, as arrays, and ``predict``
applies them to the new points. Without it, a file whose features' scales differ by more than
ten times is warned of in one line (``FeatureScalesWarning``).

Parameters are given by their names in the library (``-p sigma=0.5 -p C=10``), as
``set_params`` takes them: one interface for every solver, checked by the solver's own
constraints, so a value that works in Python works here and the other way round.

Exit codes and errors: ``s3vm_cli.main``.
"""

from __future__ import annotations

import ast
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from s3vm_cli.frame import RunFailure, UsageError, command, quoted, say
from s3vm_cli.parameters import parameter_help
from s3vm_core import ESTIMATORS
from s3vm_core.metrics import unlabeled_error
from toy_data.files import counted

#: Longest parameter value read (characters): no parameter needs more, and a message that
#: quotes a value quotes at most this much.
MAX_VALUE_CHARS = 200
#: Seconds a fit runs before the progress line appears, and between its updates when stderr
#: is not a terminal (a log file gets a line now and then, not one per state).
PROGRESS_AFTER, PROGRESS_EVERY_IN_LOGS = 1.0, 10.0


# -- fit ----------------------------------------------------------------------------------


@command("fit", "fit a solver on a data file; write its predictions",
         "s3vm fit points.csv -s lapsvm -p gamma_I=1 --model points.npz --trace trace.jsonl")
def fit_command(parser):
    add_data_and_solver(parser, "one of the solvers below (short or class name)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a solver parameter by its library name (repeat for more)")
    _add_format_and_outputs(parser)
    parser.add_argument("--model", type=Path, help="save the fitted model here (an .npz "
                        "archive of arrays and JSON, which cannot run code when loaded)")
    parser.add_argument("--trace", type=Path, help="write the trace here, one JSON object "
                        "per state: step, stage, value, objective, grad_norm[, unlabeled_error]")
    parser.add_argument("--true-labels", type=Path, metavar="PATH",
                        help="the true class of every point, one per line in the data file's "
                        "order (as svmlin's labels files; '?' where unknown): the summary and "
                        "the trace give the error on the unlabeled points (a CSV file may "
                        "carry them instead, in a column named 'truth')")
    parser.add_argument("--film", type=Path, metavar="PATH",
                        help="write the film of the trace here: one HTML page that plays "
                        "offline in any browser, the app's player (large: plotly.js inside)")
    parser.add_argument("--every", type=int, default=1, metavar="K",
                        help="keep one inner iteration in K in the trace (default 1)")
    parser.add_argument("--n-jobs", type=int, default=None, metavar="N",
                        help="with more than two classes: fit the one-vs-rest problems in N "
                        "processes")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress, summary or warnings (errors are still said)")
    parser.epilog += ("\n\nsolvers (short or class name) and their parameters (-p NAME=VALUE): "
                      "default; range: meaning\n")
    parser.epilog += "\n".join(parameter_help(short, cls) for short, cls in ESTIMATORS.items())
    return run_fit


def run_fit(args) -> int:
    if args.every < 1:
        raise UsageError(f"--every must be a positive integer, got {args.every}.")
    if args.film is not None:
        require_app_extra("--film", FILM_MODULES)
    estimator = _estimator(args.solver, args.param)
    _check_paths(args, reads=("data", "labels", "true_labels"),
                 writes=("outputs", "predictions", "model", "trace", "film"))
    data = read_file(args.data, labels=args.labels, format=args.format, truth=args.true_labels)
    X, scaling = scaled(data, args.standardize)
    measured = args.true_labels is not None or bool(data.scored.any())
    if args.film is not None:
        _check_film(data)
    if data.classes.size > 2:
        from s3vm_core import OneVsRestS3VM

        estimator = OneVsRestS3VM(estimator, n_jobs=args.n_jobs)
    progress = Progress(enabled=not args.quiet)
    with _writer(args.trace) as trace_file:
        try:
            X = _dense_unless_accepted(X, estimator)
            states = estimator.trace(X, data.y, every=args.every)
        except (ValueError, TypeError) as error:  # checked before the first state: the input
            raise UsageError(str(error)) from None
        kept = [] if args.film is not None else None
        try:
            for state in states:
                final = state
                if kept is not None:
                    kept.append(state)
                record = _record(state, data, measured, estimator)
                if trace_file is not None:
                    trace_file.write(json.dumps(record) + "\n")
                progress.update(record)
        except (ValueError, ArithmeticError, MemoryError) as error:
            raise RunFailure(str(error)) from None
        finally:
            progress.close()
    decision = final.train_decision
    predicted = data.classes[estimator.transduction_]
    # the film is made before anything is written: a film that fails leaves no outputs behind
    page = _film(estimator, X, data, kept, measured) if args.film is not None else None
    _write_outputs(args, decision, predicted)
    if args.model is not None:
        _save_model(args.model, estimator, data, args.solver, scaling)
    if page is not None:
        _write_film(args.film, page)
    if not args.quiet:
        unlabeled = int(np.sum(~data.labeled))
        features = ", its features standardized" if scaling is not None else ""
        say(f"{type(estimator).__name__} fitted on {data.X.shape[0]} points ({unlabeled} "
            f"unlabeled, classes {', '.join(map(str, data.classes.tolist()))}{features}); "
            f"{_error_sentence(decision, data)}{_beside_the_svm(estimator, X, data)}; outputs in "
            f"{_shown(args, 'outputs')}, predictions in {_shown(args, 'predictions')}.")
    return 0


#: Most numbers of a sparse X the film densifies to draw its points (8 bytes each: 400 MB).
FILM_MAX_VALUES = 50_000_000


def _check_film(data) -> None:
    """Refuse ``--film`` before the fit when the film cannot be made: more classes than the
    app's palette tells apart (``engine.data.MAX_CLASSES``), or a sparse X too large to draw."""
    from scipy import sparse

    from s3vm_explorer.engine.data import MAX_CLASSES

    if data.classes.size > MAX_CLASSES:
        raise UsageError(f"--film tells at most {MAX_CLASSES} classes apart (a colour and a "
                         f"marker each), and the data have {data.classes.size}: leave --film "
                         "out, or merge classes.")
    n, d = data.X.shape
    if sparse.issparse(data.X) and n * d > FILM_MAX_VALUES:
        raise UsageError(f"--film draws every point of the data, and {n:,} points of {d:,} "
                         "features are too many to draw: leave --film out, or reduce the data.")


def _film(estimator, X, data, states, measured: bool):
    """The film of the trace (``engine.notebook.film``: the app's player, one page)."""
    from scipy import sparse

    from s3vm_explorer.engine.notebook import film

    X = X.toarray() if sparse.issparse(X) else X  # at most FILM_MAX_VALUES (_check_film)
    return film(estimator, X, data.y, states, y_true=data.truth if measured else None)


def _write_film(path: Path, page) -> None:
    try:
        page.save(path)
    except OSError as error:
        raise RunFailure(f"The film could not be written to {path}: {error.strerror}.") from None


def _unlabeled_error(decision, data) -> float | None:
    """``s3vm_core.metrics.unlabeled_error`` on the file's points (class codes, ``data.truth``
    the true ones); None -- unknown, never 0 -- when no unlabeled point has a known class."""
    error = unlabeled_error(decision, data.y, data.truth)
    return None if math.isnan(error) else error


def _beside_the_svm(estimator, X, data) -> str:
    """The unlabeled error of the supervised SVM that is fair beside ``estimator`` (its
    kernel, width and C on the labeled points, ``s3vm_core.fair_svm``), as the summary adds
    it: did the unlabeled points help? Empty when the error is unknown or the solver is the
    SVM itself."""
    from s3vm_core import SVMBaseline, fair_svm, fair_svm_sentence

    inner = getattr(estimator, "estimator", estimator)
    if isinstance(inner, SVMBaseline) or _unlabeled_error(estimator.decision_function(X),
                                                          data) is None:
        return ""
    svm = fair_svm(estimator, data.y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference, not the run: its warnings are not said
        svm.fit(X, data.y)
    error = _unlabeled_error(svm.decision_function(X), data)
    said = fair_svm_sentence(svm, estimator, int(data.labeled.sum()))
    return f" (the {said}: {100 * error:.2f} %)"


def _error_sentence(decision, data) -> str:
    """The summary's words on the unlabeled error (issue 33: unknown is said, never 0)."""
    error, unlabeled = _unlabeled_error(decision, data), int(np.sum(~data.labeled))
    if error is None:
        return ("unlabeled error unknown (no unlabeled point has a known true class: give "
                "--true-labels FILE or a 'truth' column)") if unlabeled else "no unlabeled point"
    scored = int(data.scored.sum())
    of = "the" if scored == unlabeled else f"the {scored} of {unlabeled}"
    return (f"unlabeled error {100 * error:.2f} % on {of} unlabeled "
            f"{'point' if scored == 1 else 'points'} of known class")


# -- predict ------------------------------------------------------------------------------


@command("predict", "predict the classes of new points with a saved model",
         "s3vm predict points.npz new_points.csv -o new_points.outputs")
def predict_command(parser):
    parser.add_argument("model", type=Path, help="a model saved by `s3vm fit --model` (an "
                        ".npz archive of arrays and JSON, which cannot run code when loaded)")
    parser.add_argument("data", help="the points, with or without a label column (labels "
                        "given are compared with the predictions)")
    _add_format_and_outputs(parser)
    parser.add_argument("--allow-unsafe-pickle", action="store_true",
                        help="also load a pickle (.joblib) saved by an older s3vm: a pickle can "
                        "run any code when it is loaded, so only for a file you made yourself")
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary")
    return run_predict


def run_predict(args) -> int:
    _check_paths(args, reads=("model", "data"), writes=("outputs", "predictions"))
    estimator, info = _load_model(args.model, args.allow_unsafe_pickle)
    classes, zero_based = np.asarray(info["classes"]), info.get("zero_based")
    data = read_file(args.data, format=args.format, n_features=info["n_features"], min_classes=0,
                 zero_based="auto" if zero_based is None else zero_based)
    scaling = info.get("standardization")  # the model's z-scores, applied to the new points
    try:
        X = _dense_unless_accepted(data.X if scaling is None else scaling.apply(data.X),
                                   estimator)
        decision = estimator.decision_function(X)
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    predicted = classes[estimator.predict(X)]
    _write_outputs(args, decision, predicted)
    if not args.quiet:
        labeled = data.labeled
        score = ""
        if labeled.any():
            given = [_class_text(name) for name in data.classes[data.y[labeled]]]
            right = np.mean([_class_text(p) for p in predicted[labeled]] == np.array(given))
            score = (f"; accuracy on its {counted(int(labeled.sum()), 'labeled point')} "
                     f"{100 * right:.2f} %")
        say(f"{counted(data.X.shape[0], 'point')} predicted{score}; outputs in "
             f"{_shown(args, 'outputs')}, predictions in {_shown(args, 'predictions')}.")
    return 0


# -- app ----------------------------------------------------------------------------------

#: What the app needs beyond the library, and what the film of ``fit --film`` needs: both come
#: with the extra ``app`` (pyproject.toml).
APP_MODULES, FILM_MODULES = ("streamlit", "plotly"), ("plotly",)


def require_app_extra(what: str, modules: tuple[str, ...]) -> None:
    """Refuse ``what`` before any work when the app's extra is not installed: a usage error
    that says what to install, not an import error after the fit."""
    from importlib.util import find_spec

    missing = [name for name in modules if find_spec(name) is None]
    if missing:
        raise UsageError(f"{what} needs the app's extra, which is not installed ("
                         f"{' and '.join(missing)} missing): pip install "
                         "\"s3vm-explorer[app]\" (from a clone: pip install \".[app]\").")



@command("app", "serve the S3VM Explorer app (Streamlit) in the browser",
         "s3vm app --port 8502 --server.headless true")
def app_command(parser):
    parser.add_argument("--port", type=int, default=8501, help="the port (default 8501)")
    parser.add_argument("--address", default="localhost",
                        help="the address to serve on (default localhost: this machine only; "
                        "0.0.0.0 for a class on the network)")
    parser.epilog += ("\n\nAny other option is passed to `streamlit run` (see `streamlit run "
                      "--help`).")
    return run_app


def run_app(args) -> int:
    require_app_extra("s3vm app", APP_MODULES)
    folder = app_folder()
    if folder is None:
        raise RunFailure("The app's files (app.py and pages/) are not installed with this "
                         "package: reinstall it (pip install s3vm-explorer).")
    # Streamlit reads the app's settings (.streamlit/config.toml) from the folder it starts in
    command = [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"),
               "--server.port", str(args.port), "--server.address", args.address,
               *args.passed_on]
    return serve(command, folder)


#: The signals ``serve`` passes on to its child, so that stopping ``s3vm app`` stops the server.
FORWARDED_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")


def serve(command: list[str], folder) -> int:
    """Run ``command`` in ``folder`` until it ends; a SIGTERM, SIGINT or SIGHUP sent to this
    process is passed on to it and waited for (a server left behind would keep its port).
    Returns its exit code (128 + the signal's number when a signal ended it)."""
    import signal
    import subprocess

    child = subprocess.Popen(command, cwd=folder)
    numbers = [getattr(signal, name) for name in FORWARDED_SIGNALS if hasattr(signal, name)]
    previous = {number: signal.signal(number, lambda number, _frame: child.send_signal(number))
                for number in numbers}
    try:
        code = child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if child.poll() is None:  # this process is leaving for another reason: stop the child
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return 128 - code if code < 0 else code


def app_folder() -> Path | None:
    """The installed app's folder (``app.py``, ``pages/``, ``docs/``, ``.streamlit/``): the
    ``s3vm_explorer.app`` package the wheel installs, found through package resources, or in
    a checkout installed for development the repository's root, beside ``s3vm_explorer/``;
    None when it is missing."""
    from importlib import resources, util

    try:  # the wheel's s3vm_explorer/app/ (a namespace package: files() joins its paths)
        places = [Path(str(resources.files("s3vm_explorer.app").joinpath("app.py"))).parent]
    except (ModuleNotFoundError, NotADirectoryError, TypeError):
        places = []
    spec = util.find_spec("s3vm_explorer")  # a checkout: the root holds app.py and pages/
    if spec is not None and spec.origin is not None:
        places.append(Path(spec.origin).parents[1])
    return next((place for place in places if (place / "app.py").is_file()), None)


# -- shared pieces --------------------------------------------------------------------------


def add_data_and_solver(parser, solver_help: str) -> None:
    """The data file, svmlin's optional labels file and ``-s SOLVER``: the arguments of the
    commands that fit (``fit``, ``select``)."""
    parser.add_argument("data", help="CSV / TSV (label column 'label' or the last; empty, '?' "
                        "or -1 = unlabeled; a column 'truth' may give unlabeled points' true "
                        "classes) or svmlight (label 0 = unlabeled; indices from 1, or from 0 "
                        "when an index 0 appears); '-' reads stdin")
    parser.add_argument("labels", nargs="?", help="svmlin's labels file (one per line, 0 = "
                        "unlabeled) when DATA is an svmlight examples file without labels")
    parser.add_argument("-s", "--solver", required=True, metavar="NAME", help=solver_help)
    parser.add_argument("--standardize", action="store_true",
                        help="use each feature as a z-score: minus its mean, over its standard "
                        "deviation on the file's points (an svmlight file's: over it only). "
                        "A saved model keeps both, and `s3vm predict` applies them. Without "
                        "it, a file whose features' standard deviations differ by more than "
                        "10 times is warned of")


def _add_format_and_outputs(parser) -> None:
    parser.add_argument("--format", choices=("auto", "csv", "tsv", "svmlight"), default="auto",
                        help="the data file's format (default: by its name, else its content)")
    parser.add_argument("-o", "--outputs", metavar="PATH", help="decision values, one line per "
                        "point (default: DATA's name + .outputs, in this folder, as svmlin)")
    parser.add_argument("--predictions", metavar="PATH", help="predicted classes, one line per "
                        "point (default: DATA's name + .predictions); '-' writes to stdout")


def _solver(name: str):
    by_class = {cls.__name__.lower(): cls for cls in ESTIMATORS.values()}
    cls = ESTIMATORS.get(name.lower()) or by_class.get(name.lower())
    if cls is None:
        classes = ", ".join(c.__name__ for c in ESTIMATORS.values())
        raise UsageError(f"There is no solver {name!r}; choose one of {', '.join(ESTIMATORS)} "
                         f"(or a class name: {classes}).")
    return cls


def _estimator(name: str, settings: list[str]):
    """The solver with its parameters, checked by its own constraints before any data is read."""
    estimator = _solver(name)()
    params = {}
    for setting in settings:
        key, text = _setting(estimator, setting, "NAME=VALUE (like sigma=0.5)")
        params[key] = _parsed(key, text, estimator)
    return _validated(estimator.set_params(**params))


def _setting(estimator, setting: str, form: str) -> tuple[str, str]:
    """``NAME=TEXT`` split, ``NAME`` one of the estimator's parameters; ``form`` says how a
    setting is written (``"NAME=VALUE (like sigma=0.5)"``)."""
    key, equals, text = setting.partition("=")
    key = key.strip()
    if not equals or not key:
        raise UsageError(f"A parameter is given as {form}, not {quoted(setting)}.")
    names = estimator.get_params()
    if key not in names:
        raise UsageError(f"{type(estimator).__name__} has no parameter {quoted(key)}; its "
                         f"parameters are {', '.join(names)}.")
    return key, text


def _parsed(key: str, text: str, estimator):
    """One value of the parameter ``key`` from its text (see ``_value``), refused when longer
    than ``MAX_VALUE_CHARS``."""
    if len(text) > MAX_VALUE_CHARS:
        default = estimator.get_params()[key]
        raise UsageError(f"The value of {key} is {len(text):,} characters long: give a "
                         f"number or a word (like {key}={default!r}).")
    return _value(text.strip())


def _validated(estimator, where: str = ""):
    """The estimator, its parameters checked by its ``_parameter_constraints``; a value out of
    range is a usage error (``where`` says where it was given)."""
    from sklearn.utils._param_validation import InvalidParameterError

    try:
        estimator._validate_params()
    except InvalidParameterError as error:
        raise UsageError(f"{where}{error}") from None
    return estimator


def _value(text: str):
    """A parameter value: a Python literal (10, 0.5, 1e-6, None, (0.1, 1.0)), true / false /
    none in any case, or else the text itself (kernel=linear)."""
    words = {"none": None, "true": True, "false": False}
    if text.lower() in words:
        return words[text.lower()]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def read_file(path, **kwargs):
    """The data file by ``toy_data.files.read_data``; its warnings (a doubtful header row) go
    to stderr as one line each, its errors are usage errors (exit 2)."""
    from toy_data.files import read_data

    if path == "-":
        path = "/dev/stdin"
    try:
        return read_data(path, **kwargs)
    except OSError as error:  # named by its own path: the labels file's, when it is that one
        raise UsageError(f"Cannot read {error.filename or path}: "
                         f"{error.strerror or error}.") from None
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None


def scaled(data, standardize: bool):
    """``(X, standardization)``: the file's features as z-scores with ``standardize``
    (``toy_data.scaling.Standardization``, which a saved model keeps), else as they are and
    None, with a one-line warning when their scales differ by more than ten times."""
    from toy_data.scaling import Standardization, warn_if_scales_differ

    if not standardize:
        warn_if_scales_differ(data.X, data.feature_names,
                              "; --standardize uses each feature as a z-score")
        return data.X, None
    scaling = Standardization.of(data.X)
    return scaling.apply(data.X), scaling


def _dense_unless_accepted(X, estimator):
    """svmlight data are sparse; a solver that takes sparse input only with the linear kernel
    gets a dense copy (refused, before it is made, when it would not fit in memory)."""
    import scipy.sparse as sp
    from sklearn.utils import get_tags

    from s3vm_core.problem import check_dense_memory

    if not sp.issparse(X) or get_tags(estimator).input_tags.sparse:
        return X
    check_dense_memory(*X.shape, what="dense copy of the svmlight data",
                       advice="Use kernel='linear', with which the data stay sparse.")
    return X.toarray()


def _class_text(value) -> str:
    """A class name as text, numbers normalized (``+1``, ``1.0`` and ``1`` are one class)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(number)) if number.is_integer() else str(number)


def _record(state, data, measured: bool, estimator) -> dict:
    """A state as one JSON object (non-finite numbers as null); with true classes given, its
    error on the unlabeled points (null when none of them has a known class)."""
    record = {"step": state.step, "event": state.event, "objective": _number(state.objective),
              "grad_norm": _number(state.grad_norm)}
    if hasattr(state, "states"):  # one-vs-rest: every binary problem at this step
        record["problems"] = [
            {"class": _json_class(name), **_stage(s)}
            for name, s in zip(data.classes[estimator.classes_], state.states, strict=True)]
    else:
        record.update(_stage(state))
    if measured:
        # (the estimator's classes are the file's class codes 0 .. k-1, in order)
        record["unlabeled_error"] = _unlabeled_error(state.train_decision, data)
    return record


def _stage(state) -> dict:
    return {"stage": state.stage, "stage_index": state.stage_index,
            "value": _number(state.stage_value), "iteration": state.iteration,
            "event": state.event, "objective": _number(state.objective),
            "grad_norm": _number(state.grad_norm)}


def _number(value: float):
    return float(value) if math.isfinite(value) else None


def _json_class(name):
    return name.item() if isinstance(name, np.generic) else name


class _NullWriter:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _writer(path: Path | None):
    if path is None:
        return _NullWriter()
    try:
        return path.open("w")
    except OSError as error:
        raise RunFailure(f"Cannot write the trace to {path}: {error.strerror or error}.") from None


def _outputs_path(args, kind: str) -> str:
    chosen = getattr(args, kind)
    return chosen if chosen else f"{'stdin' if args.data == '-' else Path(args.data).name}.{kind}"


def _shown(args, kind: str) -> str:
    path = _outputs_path(args, kind)
    return "stdout" if path == "-" else path


#: How a message names each file a command reads, and each option that writes one.
_READ = {"data": "the data file", "labels": "the labels file",
         "true_labels": "the file of true labels", "model": "the model"}
_WRITTEN = {"outputs": "-o/--outputs", "predictions": "--predictions", "model": "--model",
            "trace": "--trace", "film": "--film"}


def _check_paths(args, reads: tuple[str, ...], writes: tuple[str, ...]) -> None:
    """Refuse, before any work, two outputs written to one file (the second would overwrite
    the first) and an output written over a file the command reads."""
    def path(kind: str) -> str | None:
        value = (_outputs_path(args, kind) if kind in ("outputs", "predictions")
                 else getattr(args, kind, None))
        return None if value is None or str(value) == "-" else str(value)

    read = [(kind, path(kind)) for kind in reads if path(kind) is not None]
    written = [(kind, path(kind)) for kind in writes if path(kind) is not None]
    for i, (kind, target) in enumerate(written):
        folder = Path(target).parent
        if Path(target).is_dir() or not folder.is_dir():
            where = ("is a folder, not a file" if Path(target).is_dir() else
                     f"is in the folder {folder}, which does not exist")
            raise UsageError(f"{_WRITTEN[kind]} {target} {where}: give the path of a file to "
                             "write.")
        for other, source in read:
            if _same_file(target, source):
                raise UsageError(f"{_WRITTEN[kind]} names {target}, which is {_READ[other]}: "
                                 "writing there would overwrite it; give another path.")
        for other, earlier in written[:i]:
            if _same_file(target, earlier):
                raise UsageError(f"{_WRITTEN[other]} and {_WRITTEN[kind]} both write {target}: "
                                 "one would overwrite the other; give each its own path.")


def _same_file(a: str, b: str) -> bool:
    """Whether two paths are one regular file (or would be: a file not there yet); a device
    such as /dev/null may take any number of outputs."""
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(a).st_mode):
            return False
        return os.path.samefile(a, b)
    except OSError:  # not there yet (or not readable): by its resolved name
        return os.path.realpath(a) == os.path.realpath(b)


def _write_outputs(args, decision, predicted) -> None:
    """svmlin's ``.outputs``: one line per point, ``%g`` (more digits here), tab-separated
    columns for k > 2 classes; and the predicted class names, one per line."""
    decision = np.asarray(decision, dtype=float)
    rows = decision[:, None] if decision.ndim == 1 else decision
    outputs = "".join("\t".join(f"{v:.12g}" for v in row) + "\n" for row in rows)
    names = "".join(f"{_json_class(name)}\n" for name in predicted)
    for kind, text in (("outputs", outputs), ("predictions", names)):
        path = _outputs_path(args, kind)
        if path == "-":
            sys.stdout.write(text)
            continue
        try:
            Path(path).write_text(text)
        except OSError as error:
            raise RunFailure(f"Cannot write {path}: {error.strerror or error}.") from None


def _save_model(path: Path, estimator, data, solver: str, scaling=None) -> None:
    """The model in the format that cannot run code (``s3vm_cli.model_file``), with the
    standardization it was fitted after (``scaling``: its means and scales, two arrays)."""
    from s3vm_cli.model_file import save_model

    standardization = None if scaling is None else {"mean": scaling.mean,
                                                    "scale": scaling.scale}
    try:
        save_model(path, estimator, classes=data.classes.tolist(), n_features=data.X.shape[1],
                   feature_names=list(data.feature_names or ()) or None, solver=solver,
                   zero_based=data.zero_based, standardization=standardization)
    except OSError as error:
        raise RunFailure(f"Cannot write the model to {path}: {error.strerror or error}.") from None
    except TypeError as error:
        raise RunFailure(f"Cannot save this model: {error}") from None


def _load_model(path: Path, allow_unsafe_pickle: bool = False):
    """``(estimator, info)`` of a model saved by ``s3vm fit --model``; ``info`` holds its
    ``classes``, ``n_features``, how its svmlight file was numbered (``zero_based``) and its
    ``standardization`` (``toy_data.scaling.Standardization``, or None)."""
    from s3vm_cli.model_file import load_model

    try:
        estimator, info = load_model(path, allow_unsafe_pickle=allow_unsafe_pickle)
    except OSError as error:
        raise UsageError(f"Cannot read the model {path}: {error.strerror or error}.") from None
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not hasattr(estimator, "decision_function") or not isinstance(info, dict) or (
            "classes" not in info or "n_features" not in info):
        raise UsageError(f"{path} is not a model saved by `s3vm fit --model`.")
    _check_model_info(path, estimator, info)
    return estimator, info


def _check_model_info(path: Path, estimator, info: dict) -> None:
    """What the command line keeps beside a model (its class names, number of features and
    svmlight numbering), checked against its estimator: a damaged model is said to be one
    before any point is read, not blamed on the data (or a raw IndexError) later."""
    from numbers import Integral

    from toy_data.files import MAX_FEATURES, one_line

    damaged = f"{path} is a damaged model file: its"
    classes, n_features, zero_based = info["classes"], info["n_features"], info.get("zero_based")
    names = list(classes) if isinstance(classes, list | tuple | np.ndarray) else []
    words = all(isinstance(name, str) for name in names)
    numbers = all(isinstance(name, Integral) and not isinstance(name, bool | np.bool_)
                  for name in names)
    if len(names) < 2 or not (words or numbers) or len(set(names)) != len(names):
        raise UsageError(f"{damaged} classes are {_shown_value(classes)}, not a list of two or "
                         "more distinct class names (text or whole numbers).")
    for name in names:
        if words and not one_line(name):
            raise UsageError(f"{path} has the class name {_shown_value(name)}, which spans "
                             "lines: the predictions file writes one class a line, so a class "
                             "name must be one line. Rename the class in the data and fit "
                             "again.")
    fitted = getattr(estimator, "classes_", None)
    if not (isinstance(fitted, np.ndarray) and fitted.dtype.kind in "iu" and (
            np.array_equal(fitted, np.arange(len(names))))):
        raise UsageError(f"{damaged} estimator's classes_ are {_shown_value(fitted)}, not the "
                         f"class numbers 0 .. {len(names) - 1} of its {len(names)} classes.")
    if not (isinstance(n_features, int) and not isinstance(n_features, bool)
            and 1 <= n_features <= MAX_FEATURES):
        raise UsageError(f"{damaged} number of features is {_shown_value(n_features)}, not a "
                         f"whole number from 1 to {MAX_FEATURES:,}.")
    fitted = getattr(estimator, "n_features_in_", n_features)
    if fitted != n_features:
        raise UsageError(f"{damaged} estimator was fitted on {_shown_value(fitted)} "
                         f"{'feature' if fitted == 1 else 'features'}, but the model says "
                         f"{n_features}.")
    if zero_based is not None and not isinstance(zero_based, bool):
        raise UsageError(f"{damaged} zero_based is {_shown_value(zero_based)}, not true, false "
                         "or none.")
    info["standardization"] = _standardization(path, info.get("standardization"), n_features)


def _standardization(path: Path, saved, n_features: int):
    """A model's standardization as its file keeps it (None, or the means and scales of its
    features), checked: ``toy_data.scaling.Standardization`` or None."""
    from toy_data.scaling import Standardization

    if saved is None:
        return None
    if not isinstance(saved, dict) or set(saved) != {"mean", "scale"}:
        raise UsageError(f"{path} is a damaged model file: its standardization is "
                         f"{_shown_value(saved)}, not the means and scales of its features.")
    try:
        return Standardization.checked(saved["mean"], saved["scale"], n_features)
    except ValueError as error:
        raise UsageError(f"{path} is a damaged model file: {error}.") from None


def _shown_value(value) -> str:
    """A value of a file as a message quotes it: its repr, cut."""
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 60 else text[:60] + "..."


class Progress:
    """One line on stderr for fits longer than ``PROGRESS_AFTER`` seconds: rewritten in place
    on a terminal, printed every ``PROGRESS_EVERY_IN_LOGS`` seconds otherwise."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.start = self.last = time.perf_counter()
        self.terminal = sys.stderr.isatty()
        self.shown = False

    def update(self, record: dict) -> None:
        now = time.perf_counter()
        wait = 0.2 if self.terminal else PROGRESS_EVERY_IN_LOGS
        if not self.enabled or now - self.start < PROGRESS_AFTER or now - self.last < wait:
            return
        self.last = now
        if "problems" in record:
            done = sum(p["event"] == "final" for p in record["problems"])
            where = f"{done}/{len(record['problems'])} problems done"
        else:
            value = "" if record["value"] is None else f" = {record['value']:.3g}"
            where = f"stage {record['stage']}{value}"
        objective = "" if record["objective"] is None else f", objective {record['objective']:.6g}"
        error = record.get("unlabeled_error", "")
        error = ("" if error == "" else ", unlabeled error unknown" if error is None
                 else f", unlabeled error {100 * error:.1f} %")
        line = f"step {record['step']}, {where}{objective}{error} ({now - self.start:.0f} s)"
        if self.terminal:
            sys.stderr.write("\r\033[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown and self.terminal:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
