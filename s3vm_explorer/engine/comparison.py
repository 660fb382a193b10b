"""The Compare page's computation: every solver on the same data over k random label draws.

Pure numpy / joblib (no streamlit): ``compare_solvers`` runs each (draw, solver) pair in
parallel and returns one plain dict per run, ``summarize`` reduces them per solver, and
``rows_to_csv`` makes the download. A run counts as a *success* when at most
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

from s3vm_core import S3VMGridSearchCV, UnlabeledDidNotHelpWarning, default_grid
from s3vm_core.metrics import unlabeled_error
from s3vm_explorer.engine.metrics import UNKNOWN
from s3vm_explorer.engine.registry import make_estimator
from s3vm_explorer.engine.run.backends import cluster
from toy_data import UNLABELED, class_count, pick_labeled

#: Columns of a result row, in the order of the CSV download.
COLUMNS = ("solver", "draw", "seed", "success", "unlabeled_error", "baseline_error",
           "error_vs_baseline", "objective", "seconds", "cv_error", "baseline_cv_error", "error")

BASELINE = "SVMBaseline"
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
    """Fit ``solver`` on ``(X, labels)`` and score it on the unlabeled points.

    ``estimator`` (an unfitted estimator) replaces building one from ``solver`` and ``params``.
    Never raises for a solver failure: a ``ValueError`` is reported in the row's ``"error"``
    (so one failing solver does not stop a comparison); numbers are then ``nan``.
    """
    row = {"solver": solver, "success": False, "unlabeled_error": math.nan,
           "objective": math.nan, "seconds": math.nan, "cv_error": math.nan,
           "baseline_cv_error": math.nan, "error": ""}
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
    return row


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
    """Run every solver (plus the supervised baseline) on k random label draws.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y_true : ndarray of shape (n,)
        The generator's true classes (0/1).
    solvers : sequence of str
        Names of ``engine.registry.SOLVERS``; ``"SVMBaseline"`` is always added (each row's
        ``error_vs_baseline`` compares with it on the same draw).
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
    estimators = {name: make_estimator(runs.get(name, name), dict(params.get(name, {})),
                                       class_count(y_true)) for name in names}
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
    ``run_one`` row per (estimator, draw) with its ``"draw"`` and ``"seed"``, and the errors
    against an estimator named ``BASELINE`` (``add_baseline``), sorted by estimator then draw.
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
    add_baseline(rows)
    order = {name: i for i, name in enumerate(estimators)}
    return sorted(rows, key=lambda r: (order[r["solver"]], r["draw"]))


def add_baseline(rows: Sequence[dict]) -> None:
    """Give every row the supervised baseline's error on its draw (``baseline_error``, nan
    without a baseline row) and its own error minus that (``error_vs_baseline``)."""
    baseline = {r["draw"]: r["unlabeled_error"] for r in rows if r["solver"] == BASELINE}
    for row in rows:
        row["baseline_error"] = baseline.get(row["draw"], math.nan)
        row["error_vs_baseline"] = row["unlabeled_error"] - row["baseline_error"]


def summarize(rows: Sequence[dict]) -> list[dict]:
    """One row per solver: successes, mean and spread of the unlabeled error, time.

    The error statistics and ``success_rate`` are over the draws where the solver ran and its
    error could be computed (``scored``; ``failed`` counts the draws where it did not run); NaN
    -- "unknown" -- when no draw could be scored (no unlabeled point of known class).
    ``error_std`` is the sample standard deviation.
    """
    out = []
    for name in dict.fromkeys(r["solver"] for r in rows):
        mine = [r for r in rows if r["solver"] == name]
        ran = [r for r in mine if not r["error"]]
        scored = [r for r in ran if r["success"] is not None]
        errors = np.array([r["unlabeled_error"] for r in scored], dtype=float)
        versus = np.array([r["error_vs_baseline"] for r in scored], dtype=float)
        versus = versus[np.isfinite(versus)]
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
            "mean_error_vs_baseline": float(versus.mean()) if versus.size else math.nan,
            "median_seconds": float(np.median(seconds)) if ran else math.nan,
            "failed": len(mine) - len(ran),
        })
    return out


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
