"""Against what scikit-learn ships: every solver, by its defaults and by cross-validation.

Data: scikit-learn's bundled iris (150 points, 4 features, 3 classes), wine (178, 13, 3),
breast cancer (569, 30, 2; 63 % benign) and digits (8x8 images, 10 classes; ``--digits-n``
points of the 1,797, drawn once with seed 0 and stratified, 300 by default: one default
one-vs-rest ∇TSVM fit on all 1,797 takes 26 s of one core and LDS 74 s, and the table fits each
method 29 times a draw; at 300 the whole table takes about 4 hours of CPU, 8 at 500, DA half
of it), nothing downloaded. Features standardized (zero mean, unit variance,
over all points: the transductive setting sees them all), digits' pixels divided by 16.

Protocol: l in {2, 5, 10} labels a class drawn at random (``toy_data.pick_labeled``, seed =
draw), 10 draws, every other point unlabeled; the error is counted on the unlabeled points, as
every paper reports its transductive results. Each method runs

* with its defaults (scikit-learn's own for its estimators: ``LabelSpreading`` at gamma = 20),
* and selected by cross-validation on the labels: ``S3VMGridSearchCV`` over its grid (below),
  3 folds of ``LabeledStratifiedKFold`` (shuffled with the draw's seed: the same folds for every
  method), held-out labels kept as unlabeled points (the LDS paper's §3.2 protocol), refitted on
  all labels at the selected point.

Methods: every binary solver of ``s3vm_core.ESTIMATORS`` (in ``OneVsRestS3VM`` on the
multi-class sets), DA with its balance ``r`` estimated from the SVM's predictions
(``estimate_positive_fraction``, breast cancer only: one-vs-rest takes each class's own), and
scikit-learn's ``LabelSpreading`` (rbf and knn), ``LabelPropagation``,
``SelfTrainingClassifier(SVC(probability=True))`` and ``SVC`` on the labeled points alone.
Grids, 3 x 3: ours ``s3vm_core.default_grid`` (widths 1, 1/2 and 2 times the LDS paper's
default, §2.3.2, the 1/c quantile of the distances for c classes, against three costs or
weights; rho in {1, 4, 16} for LDS and the graph kernel), scikit-learn's ``PEER_GRIDS`` (the
same widths as ``gamma = 1 / (2 sigma^2)``; k in {7, 3, 15} for the k-NN graphs). Every grid
lists the method's defaults first: ties (frequent with a few labels) go to the first grid
point, so a tie keeps the default.

Run ``python -m benchmarks.sklearn_peers [--quick | --tiny] [--n-jobs 2] [--digits-n N]``
(resumable: results in ``benchmarks/results/sklearn_peers``). ``--quick``: 2 draws of 2 and 5
labels a class, the grids cut to their first two values an axis (4 points). The
tables go to stdout (docs/benchmarks.md, "Against scikit-learn's semi-supervised
estimators").
"""

from __future__ import annotations

import time
import warnings
from functools import cache

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone

from benchmarks.sweep import markdown_table, output_folder, parser, run_sweep
from benchmarks.sweep import size as size_of

NAME = "sklearn_peers"
DATASETS = ("iris", "wine", "breast cancer", "digits")


class LabelsOnly(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A supervised estimator fitted on the labeled points only (``y != -1``): "SVC on the
    labels", the baseline of every paper."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        labeled = np.asarray(y) != -1
        self.estimator_ = clone(self.estimator).fit(X[labeled], np.asarray(y)[labeled])
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


# -- data -------------------------------------------------------------------------------------


@cache
def load(name: str, digits_n: int = 500):
    """``(X, y)`` of a bundled data set, standardized (digits: pixels / 16, ``digits_n`` of
    them, stratified, seed 0)."""
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    loader = {"iris": datasets.load_iris, "wine": datasets.load_wine,
              "breast cancer": datasets.load_breast_cancer,
              "digits": datasets.load_digits}[name]
    X, y = loader(return_X_y=True)
    if name != "digits":
        return StandardScaler().fit_transform(X), y
    X = X / 16.0
    if digits_n and digits_n < y.size:
        from sklearn.model_selection import train_test_split

        X, _, y, _ = train_test_split(X, y, train_size=digits_n, stratify=y, random_state=0)
    return X, y


# -- methods ----------------------------------------------------------------------------------


def _ours(key: str, **params):
    import s3vm_core

    return s3vm_core.ESTIMATORS[key](**params)


def _gammas(X, k: int) -> list[float]:
    """scikit-learn's ``gamma = 1 / (2 sigma^2)`` of ``default_grid``'s widths."""
    from s3vm_core.kernels import default_sigma
    from s3vm_core.model_selection import GRID_WIDTHS

    return [1.0 / (2.0 * (f * default_sigma(X, n_classes=k))**2) for f in GRID_WIDTHS]


#: Our methods by their ``s3vm_core.ESTIMATORS`` key; the grids are
#: ``s3vm_core.default_grid``'s.
OURS = {
    "SVM (SVMBaseline)": "svm",
    "∇TSVM": "tsvm",
    "LDS": "lds",
    "cS3VM": "cs3vm",
    "QN-S3VM": "qn-s3vm",
    "DA": "da",
    "LapSVM": "lapsvm",
    "LapRLSC": "laprlsc",
    "label switching (TSVM)": "label-switching",
    "graph kernel SVM": "graph",
}
#: DA with r estimated from the SVM's predictions: binary data only.
DA_ESTIMATED_R = "DA, r from the SVM"


def _peer(name: str):
    from sklearn.semi_supervised import (
        LabelPropagation,
        LabelSpreading,
        SelfTrainingClassifier,
    )
    from sklearn.svm import SVC

    return {
        "LabelSpreading (rbf)": LabelSpreading(kernel="rbf"),
        "LabelSpreading (knn)": LabelSpreading(kernel="knn"),
        "LabelPropagation": LabelPropagation(),
        "SelfTraining(SVC)": SelfTrainingClassifier(SVC(probability=True)),
        "SVC on the labels": LabelsOnly(SVC()),
    }[name]


#: scikit-learn's estimators: their own defaults first where the grid has them (alpha = 0.2,
#: k = 7, C = 1); their default widths (gamma = 20 for the graphs, "scale" for SVC) are not
#: on the data's scale, so the grids take ours.
PEER_GRIDS = {
    "LabelSpreading (rbf)": lambda X, k: {"gamma": _gammas(X, k), "alpha": [0.2, 0.8, 0.99]},
    "LabelSpreading (knn)": lambda X, k: {"kernel": ["knn"], "n_neighbors": [7, 3, 15],
                                          "alpha": [0.2, 0.8, 0.99]},
    "LabelPropagation": lambda X, k: [{"kernel": ["rbf"], "gamma": _gammas(X, k)},
                                      {"kernel": ["knn"], "n_neighbors": [7, 3, 15]}],
    "SelfTraining(SVC)": lambda X, k: {"estimator__C": [1.0, 0.1, 100.0],
                                       "estimator__gamma": _gammas(X, k)},
    "SVC on the labels": lambda X, k: {"estimator__C": [1.0, 0.1, 100.0],
                                       "estimator__gamma": _gammas(X, k)},
}
METHODS = (*OURS, DA_ESTIMATED_R, *PEER_GRIDS)


def build(method: str, X, y, labels, grid_values: int | None = None):
    """The method's estimator at its defaults and its grid (each axis cut to its first
    ``grid_values`` values when given), for data with ``k`` classes."""
    from s3vm_core import OneVsRestS3VM, default_grid, estimate_positive_fraction

    k = len(np.unique(y))
    if method in PEER_GRIDS:
        estimator, grid = _peer(method), PEER_GRIDS[method](X, k)
    else:
        estimator = (_ours("da", r=estimate_positive_fraction(X, labels))
                     if method == DA_ESTIMATED_R else _ours(OURS[method]))
        if k > 2:
            estimator = OneVsRestS3VM(estimator)
        grid = default_grid(estimator, X, labels)
    if grid_values:
        grid = [{name: values[:grid_values] for name, values in part.items()}
                for part in (grid if isinstance(grid, list) else [grid])]
    return estimator, grid


# -- the task -----------------------------------------------------------------------------------


def evaluate(task: dict) -> dict:
    """One method, one data set, one draw of labels, by default or cross-validation: the
    error on the unlabeled points (``status`` holds the message of a failure)."""
    from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
    from threadpoolctl import threadpool_limits

    from benchmarks.sweep import task_key
    from s3vm_core import LabeledStratifiedKFold, S3VMGridSearchCV
    from toy_data import pick_labeled

    out = {**task, "key": task_key(task), "error_unlabeled": float("nan"),
           "cv_error": float("nan"), "selected": None, "seconds": float("nan"), "status": "ok"}
    try:
        X, y = load(task["dataset"], task["digits_n"])
        labels = pick_labeled(y, task["per_class"], random_state=task["draw"])
        estimator, grid = build(task["method"], X, y, labels, task.get("grid_values"))
        with threadpool_limits(1), warnings.catch_warnings():
            for category in (ConvergenceWarning, FitFailedWarning, UserWarning, RuntimeWarning,
                             FutureWarning):
                warnings.simplefilter("ignore", category)
            start = time.process_time()
            if task["mode"] == "cv":
                folds = LabeledStratifiedKFold(task["folds"], shuffle=True,
                                               random_state=task["draw"])
                model = S3VMGridSearchCV(estimator, grid, cv=folds, baseline=None).fit(
                    X, labels)
                out["cv_error"] = 1.0 - model.best_score_
                out["selected"] = {k: float(v) if isinstance(v, float | np.floating) else v
                                   for k, v in model.best_params_.items()}
            else:
                model = clone(estimator).fit(X, labels)
            unlabeled = labels == -1
            out["error_unlabeled"] = float(np.mean(model.predict(X[unlabeled]) != y[unlabeled]))
            out["seconds"] = time.process_time() - start
    except Exception as error:  # noqa: BLE001 - a failing cell is recorded, not fatal
        out["status"] = f"{type(error).__name__}: {error}"
    return out


def tasks(size: str, digits_n: int | None = None) -> list[dict]:
    draws = {"full": 10, "quick": 2, "tiny": 1}[size]
    per_class = {"full": (2, 5, 10), "quick": (2, 5), "tiny": (2,)}[size]
    data = {"full": DATASETS, "quick": DATASETS, "tiny": ("iris",)}[size]
    methods = {"tiny": ("∇TSVM", "SVC on the labels", "LabelSpreading (knn)")}.get(size, METHODS)
    n = digits_n or 300
    out = []
    # draw by draw, every method of a draw together: a run stopped half-way leaves whole draws
    # (the tables compare methods on the same draws)
    for name in data:
        binary = len(np.unique(load(name, n)[1])) == 2
        for l in per_class:
            for draw in range(draws):
                for method in methods:
                    if method == DA_ESTIMATED_R and not binary:
                        continue
                    for mode in ("default", "cv"):
                        task = {"experiment": NAME, "dataset": name, "digits_n": n,
                                "per_class": l, "draw": draw, "method": method,
                                "mode": mode, "folds": 3}
                        if size != "full":  # two values an axis: 4 grid points
                            task["grid_values"] = 2
                        out.append(task)
    return out


# -- the tables ---------------------------------------------------------------------------------


def _cells(results):
    """``{(method, mode): {(data, l): errors over the draws}}`` and the failures."""
    cells, failed = {}, {}
    for r in results:
        key, cell = (r["method"], r["mode"]), (r["dataset"], r["per_class"])
        if r["status"] != "ok":
            failed.setdefault(key, {}).setdefault(cell, []).append(r["status"])
            continue
        cells.setdefault(key, {}).setdefault(cell, []).append(r["error_unlabeled"])
    return cells, failed


def table(results) -> str:
    """Mean ± standard deviation of the error on the unlabeled points (%), a row a method and
    mode, a column a data set and number of labels a class."""
    cells, failed = _cells(results)
    columns = sorted({(r["dataset"], r["per_class"]) for r in results},
                     key=lambda c: (DATASETS.index(c[0]), c[1]))
    rows = []
    for method in METHODS:
        for mode in ("default", "cv"):
            if (method, mode) not in cells and (method, mode) not in failed:
                continue
            row = [method, "defaults" if mode == "default" else "CV on the labels"]
            for column in columns:
                errors = cells.get((method, mode), {}).get(column)
                fails = len(failed.get((method, mode), {}).get(column, []))
                if not errors:
                    row.append("n/a" if not fails else f"failed {fails}")
                    continue
                text = f"{100 * np.mean(errors):.1f} ± {100 * np.std(errors):.1f}"
                row.append(text + (f" ({fails} failed)" if fails else ""))
            rows.append(row)
    header = ["method", "parameters", *(f"{d}, l = {l}" for d, l in columns)]
    return markdown_table(header, rows)


def verdicts(results, reference: str = "SVC on the labels") -> str:
    """For each method and mode, the cells (of all data sets and l) where its mean error is
    below the reference's (the same mode), and where it is below the best of scikit-learn's
    semi-supervised estimators."""
    cells, _ = _cells(results)
    semi = [m for m in PEER_GRIDS if m != reference]
    rows = []
    for method in METHODS:
        if method in PEER_GRIDS:
            continue
        for mode in ("default", "cv"):
            ours = cells.get((method, mode), {})
            ref = cells.get((reference, mode), {})
            common = [c for c in ours if c in ref]
            if not common:
                continue
            beats = sum(np.mean(ours[c]) < np.mean(ref[c]) for c in common)
            loses = sum(np.mean(ours[c]) > np.mean(ref[c]) for c in common)
            best_peer = [min((np.mean(cells[(p, mode)][c]) for p in semi
                              if c in cells.get((p, mode), {})), default=np.inf)
                         for c in common]
            beats_peers = sum(np.mean(ours[c]) < b for c, b in zip(common, best_peer,
                                                                   strict=True))
            rows.append([method, "defaults" if mode == "default" else "CV",
                         f"{beats} / {loses} of {len(common)}",
                         f"{beats_peers} of {len(common)}"])
    return markdown_table(["method", "parameters", f"below / above {reference}",
                           "below the best scikit-learn semi-supervised estimator"], rows)


def main(argv=None) -> list[dict]:
    p = parser(__doc__.splitlines()[0], NAME)
    p.add_argument("--digits-n", type=int, default=None,
                   help="digits used (default 300; 1797: all)")
    args = p.parse_args(argv)
    size = size_of(args)
    # the workers import the task function from this module by name, not from __main__
    from benchmarks.sklearn_peers import evaluate as task_function

    results = run_sweep(tasks(size, args.digits_n), output_folder(args, NAME),
                        n_jobs=args.n_jobs, scheduler=args.scheduler,
                        progress=not args.no_progress, fresh=args.fresh, func=task_function)
    print(f"\n### Error on the unlabeled points, %, mean ± std over the draws ({size})\n")
    print(table(results))
    print(f"\n### Cells won and lost against the SVC on the labels ({size})\n")
    print(verdicts(results))
    seconds = sum(r["seconds"] for r in results if r["status"] == "ok")
    print(f"\n{len(results)} runs, {seconds / 3600:.2f} h of CPU.")
    return results


if __name__ == "__main__":
    main()
