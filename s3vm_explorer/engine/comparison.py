"""The Compare page's computation: every solver on the same data over k random label draws.

Pure numpy / joblib (no streamlit): ``compare_solvers`` runs each (draw, solver) pair in
parallel and returns one plain dict per run, ``summarize`` reduces them per solver, and
``rows_to_csv`` makes the download.

Did the unlabeled points help? Each row is measured against the supervised SVM that is fair
beside its solver, fitted on the same draw's labels (``s3vm_core.fair_svm``: the solver's own
kernel, width and C; when the solver's parameters were chosen by cross-validation, the SVM
chosen by the same folds), never against one SVM at other settings; ``summarize`` puts each
solver's errors beside its SVM's with 95 % intervals and the paired Wilcoxon test over the
draws (``s3vm_core.paired_comparison``), and claims a difference only where the test supports
it (p < 0.05). A run counts as a *success* when at most
``SUCCESS_ERROR`` (1 %) of the unlabeled points are misclassified: the DA paper's Table 2 counts
"a decision boundary perfectly classifying the unlabeled data" (10 random draws of 2 labeled
examples), but at the app's noise a point or two lie across any sensible boundary (on two
moons with noise 0.1 the best boundaries of every paper leave one of 198 points wrong), and
a success must stay within reach.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np
from joblib import Parallel, delayed, parallel_config
from sklearn.base import BaseEstimator, clone

from s3vm_core import (
    S3VMGridSearchCV,
    UnlabeledDidNotHelpWarning,
    default_grid,
    fair_svm,
    fair_svm_sentence,
)
from s3vm_core.metrics import ALPHA, paired_comparison, unlabeled_error
from s3vm_explorer.engine.metrics import UNKNOWN
from s3vm_explorer.engine.registry import make_estimator, with_form_defaults
from s3vm_explorer.engine.run.backends import cluster
from toy_data import UNLABELED, class_count, pick_labeled

#: Columns of a result row, in the order of the CSV download: ``baseline_error`` is the error
#: of the row's own supervised SVM on the same draw (``baseline_svm`` says which SVM), and
#: ``verdict`` the paired test's over all the solver's draws (``summarize``).
COLUMNS = ("solver", "draw", "seed", "success", "unlabeled_error", "baseline_error",
           "error_vs_baseline", "verdict", "baseline_svm", "objective", "seconds", "cv_error",
           "baseline_cv_error", "error")

#: The supervised SVM the Compare page runs as a reference (at its preset, or chosen by
#: cross-validation); its own fair SVM is itself, so it has no verdict but ``REFERENCE``.
BASELINE = "SVMBaseline"
REFERENCE = "reference"
#: Folds of the labeled points in a cross-validated choice (the fewest labels a class it
#: needs: each fold holds one of each class).
CV_FOLDS = 2
#: Largest unlabeled error of a success (see the module docstring).
SUCCESS_ERROR = 0.01


def draw_seeds(k: int, random_state: int = 0) -> list[int]:
    """The seeds of the k label draws (reproducible from ``random_state``)."""
    if not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"The number of label draws must be a positive integer, got {k!r}.")
    rng = np.random.default_rng(random_state)
    return [int(s) for s in rng.integers(0, 2**31 - 1, size=k)]


def run_one(X: np.ndarray, y_true: np.ndarray, labels: np.ndarray, solver: str,
            params: dict | None = None, estimator=None) -> dict:
    """Fit ``solver`` on ``(X, labels)`` and score it, and its own supervised SVM, on the
    unlabeled points.

    ``estimator`` (an unfitted estimator) replaces building one from ``solver`` and ``params``.
    The row's ``baseline_error`` is the unlabeled error of the SVM that is fair beside the
    fitted solver (``fair_baseline``) on the same labels, ``baseline_svm`` says which SVM it
    is. Never raises for a solver failure: a ``ValueError`` is reported in the row's
    ``"error"`` (so one failing solver does not stop a comparison); numbers are then ``nan``.
    """
    row = {"solver": solver, "success": False, "unlabeled_error": math.nan,
           "baseline_error": math.nan, "baseline_svm": "", "objective": math.nan,
           "seconds": math.nan, "cv_error": math.nan, "baseline_cv_error": math.nan,
           "error": ""}
    try:
        if estimator is None:
            estimator = make_estimator(solver, dict(params or {}))
        else:
            estimator = clone(estimator)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning: the row still has a result
            estimator.fit(X, labels)
        row["seconds"] = time.perf_counter() - start
    except ValueError as error:
        row["error"] = str(error)
        return row
    row["unlabeled_error"] = error = unlabeled_error(estimator.decision_function(X), labels,
                                                     y_true)
    # unknown without true classes to score: neither a success nor a failure
    row["success"] = None if math.isnan(error) else bool(error <= SUCCESS_ERROR)
    row["objective"] = float(getattr(estimator, "objective_", math.nan))
    if isinstance(estimator, ChosenByCV):  # what the held-out labels said of it
        compared = estimator.search_.comparison_
        row["cv_error"], row["baseline_cv_error"] = (compared.estimator_error,
                                                     compared.baseline_error)
    try:
        svm, row["baseline_svm"] = fair_baseline(estimator, X, labels)
    except ValueError as failure:  # the row keeps its own error; its SVM's is unknown
        row["baseline_svm"] = f"the supervised SVM could not be fitted: {failure}"
    else:
        row["baseline_error"] = unlabeled_error(svm.decision_function(X), labels, y_true)
    return row


def fair_baseline(estimator, X: np.ndarray, labels: np.ndarray) -> tuple:
    """The supervised SVM fair beside a fitted ``estimator`` on ``labels``, fitted, and which
    SVM it is in a line.

    ``s3vm_core.fair_svm`` (the solver's own kernel, width and C on the labeled points, as
    docs/deviations.md maps each solver's cost; ``fair_svm_sentence`` names it), or, for a
    solver chosen by cross-validation (``ChosenByCV``), the SVM that ``S3VMGridSearchCV``
    chose by the same folds beside it and refitted on the same labels.
    """
    n_labeled = int(np.sum(np.asarray(labels) != UNLABELED))
    points = f"{n_labeled} labeled point{'' if n_labeled == 1 else 's'}"
    if isinstance(estimator, ChosenByCV):
        return (estimator.search_.baseline_best_estimator_,
                f"supervised SVM chosen by the same folds ({estimator.cv} folds of the held-out "
                f"labels, the same kernel grid), on the {points}")
    svm = fair_svm(estimator, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference beside the row, not the row's run
        svm.fit(X, labels)
    return svm, fair_svm_sentence(svm, estimator, n_labeled)


class ChosenByCV(BaseEstimator):
    """``estimator`` with its parameters chosen by cross-validation on the labels it is
    fitted with: ``s3vm_core.S3VMGridSearchCV`` over its ``default_grid`` by ``cv`` folds of
    the labeled points, the supervised SVM chosen by the same folds beside it (``search_``:
    its ``comparison_`` says whether the unlabeled points helped). The Compare page's "chosen
    by cross-validation on your labels": what a user can do without the true classes."""

    def __init__(self, estimator, cv: int = CV_FOLDS):
        self.estimator = estimator
        self.cv = cv

    def fit(self, X, y):
        grid = default_grid(self.estimator, X, y)
        with warnings.catch_warnings():
            # (the comparison below says whether the unlabeled points helped)
            warnings.simplefilter("ignore", UnlabeledDidNotHelpWarning)
            self.search_ = S3VMGridSearchCV(self.estimator, grid, cv=self.cv).fit(X, y)
        return self

    def decision_function(self, X):
        return self.search_.decision_function(X)

    @property
    def objective_(self) -> float:
        return float(getattr(self.search_.best_estimator_, "objective_", math.nan))


def _task(X, y_true, n_per_class, draw, seed, solver, estimator):
    labels = pick_labeled(y_true, n_per_class, random_state=seed)
    row = run_one(X, y_true, labels, solver, estimator=estimator)
    row.update(draw=draw, seed=seed)
    return row


@contextlib.contextmanager
def compute_backend(scheduler: str | None):
    """joblib's default backend, or its Dask backend on the cluster whose scheduler is at
    ``scheduler`` (an address such as ``tcp://host:8786``; the workers must be able to import
    this project)."""
    if scheduler is None:
        yield
        return
    with cluster(scheduler).client().as_current(), parallel_config(backend="dask"):
        yield


def compare_solvers(X: np.ndarray, y_true: np.ndarray, solvers: Sequence[str], *,
                    k: int = 10, n_per_class: int = 1, random_state: int = 0,
                    params: dict[str, dict] | None = None, n_jobs: int = 2,
                    progress: Callable[[int, int], None] | None = None,
                    scheduler: str | None = None,
                    runs: dict[str, str] | None = None,
                    chosen_by_cv: bool = False) -> list[dict]:
    """Run every solver (plus the supervised SVM as a reference) on k random label draws,
    each beside its own supervised SVM on the same draws (``run_one``).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y_true : ndarray of shape (n,)
        The generator's true classes (0/1).
    solvers : sequence of str
        Names of ``engine.registry.SOLVERS``; ``"SVMBaseline"`` is always added, a reference
        (each row's ``error_vs_baseline`` compares with the row's own fair SVM, not with it).
    k : int, default=10
        Number of label draws (the DA paper's Table 2 uses 10).
    n_per_class : int, default=1
        Labeled points per class in each draw (Table 2: 2 labeled examples, one per class).
    random_state : int
        Seed of the draws; the same value gives the same labels for every solver.
    params : dict, optional
        Per-solver parameters (``{solver: {name: value}}``); missing ones take the defaults.
    n_jobs : int, default=2
        joblib workers (the machine has 2 cores); with ``scheduler``, every worker of the
        cluster.
    progress : callable(done, total), optional
        Called after every finished run, in completion order.
    scheduler : str, optional
        Address of a Dask scheduler: the runs go to its workers (``compute_backend``).
    runs : dict, optional
        Names in ``solvers`` that are not solver names, each with its solver (``{"LDS:paper":
        "LDS"}``): one solver can then run twice, with two sets of ``params``.
    chosen_by_cv : bool, default=False
        Every solver, the baseline included, with its parameters chosen on each draw by
        cross-validation on that draw's labels (``ChosenByCV``); it needs ``CV_FOLDS``
        labels per class.

    Returns
    -------
    list of dict
        One row per (draw, solver) with the keys of ``COLUMNS``, sorted by solver then draw.
    """
    y_true = np.asarray(y_true)
    if len(set(np.unique(y_true).tolist()) - {UNLABELED}) < 2:
        raise ValueError("The comparison needs data with at least two true classes.")
    names = list(dict.fromkeys([BASELINE, *solvers]))
    params = params or {}
    # Fail early with the student's message (e.g. 1 point of a class but 3 labels asked).
    pick_labeled(y_true, n_per_class, random_state=0)
    if chosen_by_cv and n_per_class < CV_FOLDS:
        raise ValueError(f"Choosing parameters by cross-validation on the labels needs at "
                         f"least {CV_FOLDS} labels per class in each draw (a fold of held-out "
                         f"labels each), not {n_per_class}. Give more labels per class.")
    runs = runs or {}
    solver_of = {name: runs.get(name, name) for name in names}
    estimators = {name: make_estimator(solver, with_form_defaults(solver, params.get(name, {})),
                                       class_count(y_true)) for name, solver in solver_of.items()}
    if chosen_by_cv:
        estimators = {name: ChosenByCV(estimator) for name, estimator in estimators.items()}
    rows = run_draws(X, y_true, estimators, draw_seeds(k, random_state),
                     n_per_class=n_per_class, n_jobs=n_jobs, progress=progress,
                     scheduler=scheduler)
    return [{c: row[c] for c in COLUMNS} for row in rows]




def run_draws(X: np.ndarray, y_true: np.ndarray, estimators: dict, seeds: Sequence[int], *,
              n_per_class: int = 1, n_jobs: int = 1,
              progress: Callable[[int, int], None] | None = None,
              scheduler: str | None = None) -> list[dict]:
    """Each of ``estimators`` (unfitted, by the name their rows carry) on the same label draws:
    draw ``d`` labels ``n_per_class`` points per class with ``pick_labeled(y_true,
    n_per_class, random_state=seeds[d])``.

    The fits run ``n_jobs`` at a time (on the Dask cluster at ``scheduler`` if given, see
    ``compute_backend``), and ``progress(done, total)`` is called after each. Returns one
    ``run_one`` row per (estimator, draw) with its ``"draw"`` and ``"seed"``, its error minus
    its own SVM's (``error_vs_baseline``) and its solver's ``verdict`` over the draws
    (``summarize``), sorted by estimator then draw.
    """
    tasks = [(draw, seed, name) for draw, seed in enumerate(seeds) for name in estimators]
    jobs = (delayed(_task)(X, y_true, n_per_class, draw, seed, name, estimators[name])
            for draw, seed, name in tasks)
    rows = []
    with compute_backend(scheduler):
        runner = Parallel(n_jobs=n_jobs if scheduler is None else -1,
                          return_as="generator_unordered")
        for row in runner(jobs):
            rows.append(row)
            if progress is not None:
                progress(len(rows), len(tasks))
    order = {name: i for i, name in enumerate(estimators)}
    rows.sort(key=lambda r: (order[r["solver"]], r["draw"]))
    for row in rows:
        row["error_vs_baseline"] = row["unlabeled_error"] - row["baseline_error"]
    verdicts = {s["solver"]: s["verdict"] for s in summarize(rows)}
    for row in rows:
        row["verdict"] = verdicts[row["solver"]]
    return rows


def summarize(rows: Sequence[dict]) -> list[dict]:
    """One row per solver: successes, the unlabeled error beside its own SVM's, time.

    The error statistics and ``success_rate`` are over the draws where the solver ran and its
    error could be computed (``scored``; ``failed`` counts the draws where it did not run); NaN
    -- "unknown" -- when no draw could be scored (no unlabeled point of known class).
    ``error_std`` is the sample standard deviation. ``paired`` is
    ``s3vm_core.paired_comparison`` of the scored draws' errors against their own SVM's
    (``baseline_error``; means with 95 % intervals, draws below / equal / above, the Wilcoxon
    signed-rank p), ``verdict`` its verdict ("better", "worse", "no significant difference" at
    p < 0.05; ``REFERENCE`` for the reference SVM ``BASELINE``, whose own SVM is itself), and
    ``baseline_svm`` which SVM it is, in a line.
    """
    out = []
    for name in dict.fromkeys(r["solver"] for r in rows):
        mine = [r for r in rows if r["solver"] == name]
        ran = [r for r in mine if not r["error"]]
        scored = [r for r in ran if r["success"] is not None]
        errors = np.array([r["unlabeled_error"] for r in scored], dtype=float)
        paired = paired_comparison(errors, [r.get("baseline_error", math.nan) for r in scored])
        seconds = np.array([r["seconds"] for r in ran], dtype=float)
        successes = sum(r["success"] for r in scored)
        out.append({
            "solver": name,
            "draws": len(mine),
            "scored": len(scored),
            "successes": successes,
            "success_rate": successes / len(scored) if scored else math.nan,
            "mean_error": float(errors.mean()) if scored else math.nan,
            "error_std": (float(errors.std(ddof=1)) if len(scored) > 1
                          else 0.0 if scored else math.nan),
            "mean_error_vs_baseline": (paired.mean - paired.baseline_mean if paired.n
                                       else math.nan),
            "paired": paired,
            "verdict": REFERENCE if name == BASELINE else paired.verdict,
            "baseline_svm": _one_sentence([r.get("baseline_svm", "") for r in ran]),
            "median_seconds": float(np.median(seconds)) if ran else math.nan,
            "failed": len(mine) - len(ran),
        })
    return out


def _one_sentence(sentences: Sequence[str]) -> str:
    """The sentence that names a solver's SVM on every draw, or the first draw's and a word
    that it differs (a width resolved from each draw's labels)."""
    distinct = list(dict.fromkeys(s for s in sentences if s))
    if len(distinct) <= 1:
        return distinct[0] if distinct else ""
    return f"{distinct[0]} (on the first draw; its settings differ between the draws)"


def verdict_counts(summary: Sequence[dict]) -> dict[str, int]:
    """How many solvers of ``summarize``'s rows are better than, level with ("no significant
    difference") and worse than their own supervised SVM at p < ``ALPHA``: the wins, ties and
    losses of a comparison (the reference SVM left out)."""
    counts = {"better": 0, "no significant difference": 0, "worse": 0}
    for s in summary:
        if s["verdict"] in counts:
            counts[s["verdict"]] += 1
    return counts


#: The fewest draws with which the paired test can reach p < ALPHA: with n draws that all
#: differ in one direction, the two-sided Wilcoxon signed-rank p is 2 / 2^n, 0.0625 at n = 5.
FEWEST_DRAWS_FOR_A_VERDICT = next(n for n in range(1, 64) if 2 / 2**n < ALPHA)


def rows_to_csv(rows: Sequence[dict]) -> str:
    """The rows as CSV text (header = the keys of the first row); a number that could not be
    computed (NaN) is written "unknown", never as a number."""
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: UNKNOWN if isinstance(value, float) and math.isnan(value) else value
                      for key, value in row.items()} for row in rows)
    return buffer.getvalue()
