"""``s3vm select``: a solver's parameters chosen by cross-validation on the labeled points only,
beside the supervised baseline chosen by the same folds.

``s3vm select DATA [LABELS] -s SOLVER [-g NAME=V1,V2,... ...] [--folds K] [--model PATH]`` runs
``s3vm_core.model_selection.S3VMGridSearchCV`` (docs/architecture.md, "Model selection"): K folds of
the labeled points (``LabeledStratifiedKFold``), each fold's held-out labels kept in training as
unlabeled points (the LDS paper's protocol, §3.2), every grid point scored on the held-out labels
only, and ``SVMBaseline`` with the solver's kernel selected by the same folds. It prints the
table (one row a grid point: its CV error, its mistakes, their spread over the folds; the
baseline's best; the chosen parameters) and, last, whether the unlabeled points helped; when
they did not, that line is the library's ``UnlabeledDidNotHelpWarning`` on stderr, as every
warning (``-q`` silences it). ``--model`` saves the chosen model refitted on all the data, in
the format that cannot run code (``s3vm_cli.model_file``), for ``s3vm predict``. With
``--standardize`` the search runs on the features as z-scores, and the saved models keep the
means and scales (``s3vm_cli.commands.scaled``); without it, features whose scales differ by
more than ten times are warned of.

Without ``-g`` the grid is the library's ``default_grid`` for the solver (its defaults first).
A grid's values are read as ``-p`` reads one (``s3vm_cli.commands``) and checked, each, by the
solver's ``_parameter_constraints`` before any data is read. This module is not named
``select``, so that it never stands for the standard library's ``select`` module.

A search's size is its points times its fits (``S3VMGridSearchCV.plan``: the grid points times
the folds, the baseline's, the refits). From ``PROGRESS_FROM`` on, the command says the number
of fits on stderr before the first, an estimate of the time after it, then its progress (the
library's ``verbose=1``); beyond ``LARGE_SEARCH`` it does not start without ``--large``, and
says why in a sentence with the number of fits and an estimate from two trial fits on
``PROBE_POINTS`` of the points and half as many (exit code 2).
"""

from __future__ import annotations

import math
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from s3vm_cli.commands import (
    _dense_unless_accepted,
    _estimator,
    _parsed,
    _save_model,
    _setting,
    _validated,
    add_data_and_solver,
    read_file,
    scaled,
)
from s3vm_cli.frame import RunFailure, UsageError, command, quoted, say
from toy_data.files import counted

#: Significant digits of a number in the table.
DIGITS = 4
#: Points x fits from which the search says its fits, an estimate and its progress on stderr:
#: below, a search takes seconds (the default grid, 56 fits, on 350 points).
PROGRESS_FROM = 20_000
#: Points x fits beyond which the search does not start without --large: the default grid (56
#: fits) on about 1,800 points, where a fit of the slower solvers (LDS, DA, the graph kernel)
#: takes seconds to a minute (docs/benchmarks.md, "Fit time against n") and the search minutes
#: to hours.
LARGE_SEARCH = 100_000
#: Points of the larger of the two trial fits that estimate the time of a search refused as
#: large (the other has half as many): enough that a fit's time is mostly its solver's, not
#: its overhead, and at most a few seconds for every solver (docs/benchmarks.md).
PROBE_POINTS = 1000
#: Characters of a line of the help's notes.
WIDTH = 98


@command("select", "choose a solver's parameters by cross-validation on the labeled points, "
         "beside the SVM on the labels alone; write the chosen model",
         "s3vm select points.csv -s lapsvm -g gamma_I=1,0.01,10 --folds 3 --model points.npz")
def select_command(parser):
    add_data_and_solver(parser, "one of the solvers of `s3vm fit --help`, which lists their "
                        "parameters (short or class name)")
    parser.add_argument("-g", "--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                        help="a parameter and the values to try, by its library name (repeat "
                        "for more: every combination is tried); values as -p takes them, "
                        "separated by commas; the first listed wins a tie. Without -g: the "
                        "solver's default grid (below)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter held fixed for every grid point (repeat for more)")
    parser.add_argument("--folds", type=int, default=3, metavar="K",
                        help="folds of the labeled points (default 3; at least 2, at most the "
                        "labeled points that can be held out)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="shuffle each class's labeled points with this seed before "
                        "dealing them to the folds (default: in the file's order)")
    parser.add_argument("--model", type=Path, metavar="PATH",
                        help="save the chosen model, refitted on all the points, here (an .npz "
                        "archive of arrays and JSON, which cannot run code when loaded; "
                        "`s3vm predict` reads it)")
    parser.add_argument("--baseline-model", type=Path, metavar="PATH",
                        help="save the chosen supervised baseline here too (the model to use "
                        "when the unlabeled points did not help)")
    parser.add_argument("--format", choices=("auto", "csv", "tsv", "svmlight"), default="auto",
                        help="the data file's format (default: by its name, else its content)")
    parser.add_argument("--n-jobs", type=int, default=None, metavar="N",
                        help="run the grid's groups of fits (one per kernel width or graph) "
                        "in N processes (-1: one per core)")
    parser.add_argument("--large", action="store_true",
                        help=f"start a search of more than {LARGE_SEARCH:,} points x fits, "
                        "which the command otherwise refuses with the number of fits and an "
                        "estimate of its time")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="the table only: no warnings, no summary (errors are still said)")
    parser.epilog += "\n\n" + _default_grids_help()
    return run_select


def _default_grids_help() -> str:
    """The default grids, read from the library (``GRID_AXES``, ``GRID_WIDTHS``)."""
    from s3vm_core import ESTIMATORS
    from s3vm_core.model_selection import GRID_AXES, GRID_WIDTHS

    widths = ", ".join(f"{w:g}" for w in GRID_WIDTHS)
    lines = textwrap.wrap(
        f"default grids (without -g; s3vm_core.model_selection.default_grid): with the rbf "
        f"kernel, sigma = {widths} times the LDS paper's default width, by every value of:",
        WIDTH)
    for short, cls in ESTIMATORS.items():
        axes = GRID_AXES.get(cls.__name__)
        if axes:
            lines.append(f"  {short}: " + "; ".join(
                f"{name} = {', '.join(map(_shown, values))}" for name, values in axes.items()))
    lines += [""] + textwrap.wrap(
        "Every fold keeps the unlabeled points in training, and its held-out labeled points "
        "too, as unlabeled points (the LDS paper's protocol); the errors are counted on the "
        "held-out labels only.", WIDTH)
    return "\n".join(lines)


def run_select(args) -> int:
    from s3vm_core import LabeledStratifiedKFold, OneVsRestS3VM, S3VMGridSearchCV
    from s3vm_core.model_selection import GRID_AXES, default_grid

    if args.folds < 2:
        raise UsageError(f"--folds must be at least 2 (one fold to test, one to train), got "
                         f"{args.folds}.")
    if args.seed is not None and not 0 <= args.seed < 2**32:
        raise UsageError(f"--seed must be a whole number from 0 to {2**32 - 1}, got "
                         f"{args.seed}.")
    if args.n_jobs is not None and (args.n_jobs == 0 or args.n_jobs < -1):
        raise UsageError(f"--n-jobs must be a number of processes, at least 1, or -1 for one "
                         f"per core; got {args.n_jobs}.")
    estimator = _estimator(args.solver, args.param)
    grid = _grid(estimator, args.grid, fixed=args.param)
    name = type(estimator).__name__
    if grid is None and name not in GRID_AXES:
        raise UsageError(f"There is no default grid for {name}: give the values to try with "
                         f"-g NAME=V1,V2,... (see `s3vm fit --help` for its parameters).")
    data = read_file(args.data, labels=args.labels, format=args.format)
    X, scaling = scaled(data, args.standardize)
    wrapped = data.classes.size > 2
    if wrapped:
        estimator = OneVsRestS3VM(estimator)
    X = _dense_unless_accepted(X, estimator)
    splitter = LabeledStratifiedKFold(args.folds, shuffle=args.seed is not None,
                                      random_state=args.seed)
    try:
        folds = list(splitter.split(X, data.y))
    except ValueError as error:
        raise UsageError(f"--folds {args.folds}: {error}") from None
    if grid is None:
        try:
            grid = default_grid(estimator, X, data.y)
        except ValueError as error:  # a width that cannot be computed from these points
            raise UsageError(str(error)) from None
        chosen_by = (f"the default grid of {name} (no -g given: "
                     "s3vm_core.model_selection.default_grid, see --help)")
    else:
        chosen_by = "-g " + " -g ".join(args.grid)
        if wrapped:
            grid = {f"estimator__{key}": values for key, values in grid.items()}
    search = S3VMGridSearchCV(estimator, grid, cv=splitter, n_jobs=args.n_jobs)
    try:
        plan = search.plan(X, data.y)
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    size = plan.n_samples * plan.n_fits
    if size > LARGE_SEARCH and not args.large:
        raise UsageError(
            f"This search is large: {plan} ({size:,} points x fits, beyond the "
            f"{LARGE_SEARCH:,} that s3vm select starts without asking); "
            f"{_estimate(estimator, grid, plan, X, data.y)}. Add --large to run it, or "
            "select on fewer points or a smaller grid (-g)."
        )
    if size >= PROGRESS_FROM and not args.quiet:
        search.set_params(verbose=1)
        search._report = say  # the library's progress lines, as the command's own
    with warnings.catch_warnings(record=True) as caught:
        if not args.quiet:
            warnings.simplefilter("always")
        try:
            search.fit(X, data.y)
        except (ValueError, TypeError) as error:
            raise UsageError(str(error)) from None
        except (ArithmeticError, MemoryError) as error:
            raise RunFailure(str(error)) from None
    n_held_out = sum(test.size for _, test in folds)
    print(_table(search, sorted(grid), data, args, chosen_by, n_held_out))
    if search.comparison_.helped:
        print(search.comparison_.message)
    # the search's warnings after the table, so that "did not help" comes last; once each
    said = set()
    for warning in caught:
        if (warning.category, str(warning.message)) not in said:
            said.add((warning.category, str(warning.message)))
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)
    saved = []
    for path, model, solver, what in (
            (args.model, search.best_estimator_, args.solver, "chosen model"),
            (args.baseline_model, search.baseline_best_estimator_, "svm", "baseline")):
        if path is not None:
            _save_model(path, model, data, solver, scaling)
            saved.append(f"the {what} in {path}")
    if saved and not args.quiet:
        say(f"Saved {' and '.join(saved)}.")
    return 0


def _estimate(estimator, grid, plan, X, y) -> str:
    """About how long the estimator's fits of a search take, in words, from two trial fits of
    its first grid point on ``PROBE_POINTS`` points and on half as many (every labeled point
    kept, the others drawn at random): the second's time, scaled to all the points as the
    time grew between the two (as n^g, g held within [1, 3]: a kernel solver's time grows
    as n to n^3, docs/benchmarks.md "Fit time against n")."""
    from sklearn.model_selection import ParameterGrid

    from s3vm_core.model_selection import duration_in_words

    model = clone(estimator).set_params(**next(iter(ParameterGrid(grid))))
    sizes = (max(min(plan.n_samples, PROBE_POINTS) // 2, 2), min(plan.n_samples, PROBE_POINTS))
    seconds = []
    try:
        for size in sizes:
            rows = _probe_rows(y, size)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the search's own fits will say theirs
                start = time.perf_counter()
                clone(model).fit(_safe_indexing(X, rows), y[rows])
                seconds.append(time.perf_counter() - start)
    except (ValueError, TypeError, ArithmeticError) as error:
        return f"its time is unknown: a trial fit on {size} of the points failed ({error})"
    growth = min(max(math.log(seconds[1] / seconds[0]) / math.log(sizes[1] / sizes[0]), 1.0),
                 3.0)
    fits = plan.n_candidates * plan.n_splits + min(plan.n_refits, 1)
    total = fits * seconds[1] * (plan.n_samples / sizes[1]) ** growth
    return (f"trial fits of {plan.estimator} on {sizes[0]:,} and {sizes[1]:,} of the points "
            f"took {seconds[0]:.2g} s and {seconds[1]:.2g} s, so its {fits} fits on all "
            f"{plan.n_samples:,} would take about {duration_in_words(total)} (its time growing "
            f"as n^{growth:.1f})")


def _probe_rows(y, size: int) -> np.ndarray:
    """``size`` rows of a trial fit: every labeled point, the others drawn at random (seed 0)."""
    labeled, others = np.flatnonzero(y != -1), np.flatnonzero(y == -1)
    room = min(max(size - labeled.size, 0), others.size)
    drawn = np.random.default_rng(0).choice(others, room, replace=False)
    return np.sort(np.concatenate([labeled, drawn]))


def _grid(estimator, settings: list[str], fixed: list[str]) -> dict | None:
    """The ``-g`` settings as a grid (parameter name to its list of values), each value
    checked by the solver's constraints; None without ``-g``."""
    if not settings:
        return None
    fixed_names = {setting.partition("=")[0].strip() for setting in fixed}
    grid: dict[str, list] = {}
    for setting in settings:
        key, text = _setting(estimator, setting, "NAME=V1,V2,... (like C=0.1,1,10)")
        if key in grid:
            raise UsageError(f"{key} is given by two -g options: list its values in one "
                             f"(-g {key}=V1,V2,...).")
        if key in fixed_names:
            raise UsageError(f"{key} is given both with -p and with -g: fix it (-p) or try "
                             "values (-g), not both.")
        texts = _split(text)
        if not any(t.strip() for t in texts):
            raise UsageError(f"-g {key}= lists no value: give the values to try, separated "
                             f"by commas (like -g {key}=V1,V2).")
        values = []
        for part in texts:
            if not part.strip():
                raise UsageError(f"-g {quoted(setting)} has an empty value between its "
                                 "commas: remove the extra comma.")
            value = _parsed(key, part, estimator)
            _validated(clone(estimator).set_params(**{key: value}),
                       where=f"In -g {key}={_short(text)}: ")
            if any(_same(value, seen) for seen in values):
                raise UsageError(f"-g {key} lists {part.strip()} twice: give each value once.")
            values.append(value)
        grid[key] = values
    return grid


def _split(text: str) -> list[str]:
    """``text`` cut at its commas outside brackets: a tuple value ``(0.1, 1.0)`` stays whole."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _same(a, b) -> bool:
    """Two values of a grid alike (``1`` and ``1.0`` are; ``True`` and ``1`` are not)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _shown(value) -> str:
    """A grid value in the table: numbers to ``DIGITS`` significant digits."""
    if isinstance(value, float) and not isinstance(value, bool):
        return f"{value:.{DIGITS}g}"
    return str(value)


def _table(search, names: list[str], data, args, chosen_by: str, n_held_out: int) -> str:
    """The cross-validation table: the solver's grid points in the order the search runs them
    (``ParameterGrid``'s: the last of the sorted ``names`` changes fastest), the baseline's
    best, the choice."""
    results = search.cv_results_
    shown = [key.removeprefix("estimator__") for key in names]
    labeled = int(data.labeled.sum())
    unlabeled = data.X.shape[0] - labeled
    comparison = search.comparison_
    model = comparison.estimator
    head = [f"{model} on {Path(args.data).name if args.data != '-' else 'stdin'}: "
            f"{search.n_splits_}-fold cross-validation on its {labeled} labeled points "
            f"({n_held_out} held out in turn, kept as unlabeled points; {unlabeled} unlabeled "
            f"points in every fold)",
            f"grid: {chosen_by}; {counted(len(results['params']), 'point')}, ties to the "
            "first listed"]
    rows = [["", *shown, "CV error", "mistakes", "spread"]]
    for i, point in enumerate(results["params"]):
        mark = "*" if i == search.best_index_ else ""
        rows.append([mark, *(_shown(point[key]) if key in point else "" for key in names),
                     *_errors(results, i, n_held_out)])
    lines = head + [""] + _aligned(rows) + [""]
    # the library's table lists the solver's grid points, then the baseline's
    baseline = search.baseline_cv_results_
    best = next(i for i, row in enumerate(search.table()[len(results["params"]):])
                if row["selected"])
    error, mistakes, spread = _errors(baseline, best, n_held_out)
    lines.append(f"baseline: {comparison.baseline} on the labels alone, best of its "
                 f"{len(baseline['params'])} grid points by the same folds: "
                 f"{_settings(search.baseline_best_params_)}, CV error {error} ({mistakes} "
                 f"mistakes, spread {spread})")
    error, mistakes, _ = _errors(results, search.best_index_, n_held_out)
    lines.append(f"chosen: {model} with {_settings(search.best_params_, names)}, CV error {error} "
                 f"({mistakes} mistakes)")
    return "\n".join(lines)


def _errors(results, i: int, n_held_out: int) -> list[str]:
    """A grid point's CV error (pooled over the held-out labels), its mistakes and the spread
    of its error over the folds (standard deviation, percentage points)."""
    error = results["mean_test_error"][i]
    if math.isnan(error):
        return ["failed", "-", "-"]
    spread = results["std_test_score"][i]
    return [f"{100 * error:.1f} %", f"{round(error * n_held_out)}/{n_held_out}",
            f"± {100 * spread:.1f}"]


def _settings(params: dict, names=None) -> str:
    """``name=value, ...`` in the order of ``names`` (default: by name)."""
    return ", ".join(f"{key.removeprefix('estimator__')}={_shown(params[key])}"
                     for key in (names or sorted(params))) or "its parameters as given"


def _aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(cell.rjust(width) if j else cell.ljust(width)
                      for j, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows]

