"""Against what scikit-learn ships: every solver beside its fair SVM, over 30 label draws.

Data: scikit-learn's bundled iris (150 points, 4 features, 3 classes), wine (178, 13, 3),
breast cancer (569, 30, 2; 63 % benign) and digits (8x8 images, 10 classes; ``--digits-n``
points of the 1,797, drawn once with seed 0 and stratified, 200 by default: at 300 the
digits alone took 16 s of CPU a draw, two thirds of the table, S4VM, DA, QN-S3VM and cS3VM
in one-vs-rest the most), nothing downloaded. Features standardized (zero mean, unit
variance, over all points: the transductive setting sees them all), digits' pixels divided by
16.

Protocol: l in {2, 5, 10} labels a class drawn at random (``toy_data.pick_labeled``, seed =
draw), 30 draws (``--draws``), every other point unlabeled; the error is counted on the
unlabeled points, as every paper reports its transductive results (the labels each method
gives them: ``benchmarks.paired.unlabeled_error``). Each method runs with its
defaults (scikit-learn's own for its estimators: ``LabelSpreading`` at gamma = 20). On the
same draw, each solver of this library stands beside its fair SVM (``s3vm_core.fair_svm``:
LIBSVM on the labeled points with the solver's own kernel, width and C; in one-vs-rest on the
multi-class sets); scikit-learn's estimators, and the library's own ``SVMBaseline``, stand
beside scikit-learn's ``SVC`` on the labeled points at its defaults. Per method and cell:
the mean error with its 95 % interval, the reference's mean on the same draws and the
two-sided Wilcoxon signed-rank test of the paired differences
(``s3vm_core.paired_comparison``); the cells better / without a significant difference /
worse at p < 0.05 are counted per method.

``--cv`` adds every method selected by cross-validation on the labels
(``S3VMGridSearchCV``, 3 folds of ``LabeledStratifiedKFold`` shuffled with the draw's seed:
the same folds for every method; held-out labels kept as unlabeled points, the LDS paper's
§3.2 protocol; refitted on all labels), beside the SVM selected by the same folds (the
search's own baseline); about 30 times the fits of the defaults (a 3 x 3 grid, 3 folds and
the refit), 9 h of CPU at 30 draws. S4VM has no default grid and runs at its defaults only.
Grids, 3 x 3: ours ``s3vm_core.default_grid`` (widths 1, 1/2 and 2 times the LDS paper's
default, §2.3.2, the 1/c quantile of the distances for c classes, against three costs or
weights; rho in {1, 4, 16} for LDS and the graph kernel), scikit-learn's ``PEER_GRIDS`` (the
same widths as ``gamma = 1 / (2 sigma^2)``; k in {7, 3, 15} for the k-NN graphs). Every grid
lists the method's defaults first: ties (frequent with a few labels) go to the first grid
point, so a tie keeps the default.

Methods: every binary solver of ``s3vm_core.ESTIMATORS`` but the exact search (in
``OneVsRestS3VM`` on the multi-class sets), DA with its balance ``r`` estimated from the SVM's
predictions (``estimate_positive_fraction``, breast cancer only: one-vs-rest takes each
class's own), and scikit-learn's ``LabelSpreading`` (rbf and knn), ``LabelPropagation``,
``SelfTrainingClassifier(SVC(probability=True))`` and ``SVC`` on the labeled points alone.

Run ``python -m benchmarks.sklearn_peers [--quick | --tiny] [--n-jobs 2] [--draws N] [--cv]
[--digits-n N]`` (resumable: results in ``benchmarks/results/sklearn_peers``; each run
records its own process time, fits and fair SVM included, and the total is printed in CPU
hours). ``--quick``: 3 draws of 2 and 5 labels a class, the grids cut to their first two
values an axis (4 points). The tables go to stdout (docs/benchmarks.md, "Against
scikit-learn's semi-supervised estimators").
"""

from __future__ import annotations

import time
import warnings
from functools import cache

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone

from benchmarks.paired import (
    cell_text,
    counts_table,
    cpu_hours,
    paired_cells,
    unlabeled_error,
)
from benchmarks.sweep import markdown_table, output_folder, parser, run_sweep
from benchmarks.sweep import size as size_of

NAME = "sklearn_peers"
DATASETS = ("iris", "wine", "breast cancer", "digits")
DRAWS = {"full": 30, "quick": 3, "tiny": 2}
#: The reference of the methods without a fair SVM of their own (scikit-learn's estimators,
#: and the library's SVM itself): scikit-learn's SVC on the labeled points.
REFERENCE = "SVC on the labels"


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
    "S4VM": "s4vm",
}
#: Our methods without a default grid: at their defaults only.
WITHOUT_GRID = ("S4VM",)
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
    ``grid_values`` values when given; None for ``WITHOUT_GRID``), for data with ``k``
    classes."""
    from s3vm_core import OneVsRestS3VM, default_grid, estimate_positive_fraction

    k = len(np.unique(y))
    if method in PEER_GRIDS:
        estimator, grid = _peer(method), PEER_GRIDS[method](X, k)
    else:
        estimator = (_ours("da", r=estimate_positive_fraction(X, labels))
                     if method == DA_ESTIMATED_R else _ours(OURS[method]))
        if k > 2:
            estimator = OneVsRestS3VM(estimator)
        grid = None if method in WITHOUT_GRID else default_grid(estimator, X, labels)
    if grid_values and grid is not None:
        grid = [{name: values[:grid_values] for name, values in part.items()}
                for part in (grid if isinstance(grid, list) else [grid])]
    return estimator, grid


# -- the task -----------------------------------------------------------------------------------


def has_fair_svm(method: str) -> bool:
    """Whether the method stands beside its own fair SVM (the solvers of this library but its
    SVM), rather than beside scikit-learn's SVC on the labels (``REFERENCE``)."""
    return method not in PEER_GRIDS and method != "SVM (SVMBaseline)"


def evaluate(task: dict) -> dict:
    """One method, one data set, one draw of labels, by default or cross-validation: the
    error on the unlabeled points and that of the method's fair SVM on the same draw
    (``svm_error``; NaN for the methods compared with ``REFERENCE``), the process time of
    both (``seconds``); ``status`` holds the message of a failure."""
    from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
    from threadpoolctl import threadpool_limits

    from benchmarks.sweep import task_key
    from s3vm_core import LabeledStratifiedKFold, S3VMGridSearchCV, fair_svm
    from toy_data import pick_labeled

    out = {**task, "key": task_key(task), "error_unlabeled": float("nan"),
           "svm_error": float("nan"), "cv_error": float("nan"), "selected": None,
           "seconds": float("nan"), "status": "ok"}
    start = time.process_time()
    try:
        X, y = load(task["dataset"], task["digits_n"])
        labels = pick_labeled(y, task["per_class"], random_state=task["draw"])
        unlabeled = labels == -1
        estimator, grid = build(task["method"], X, y, labels, task.get("grid_values"))
        # every random draw of a method (S4VM's starts, a calibration's folds) seeded by the
        # label draw: a run gives the same numbers in any process
        estimator.set_params(**{name: task["draw"] for name in estimator.get_params()
                                if name.endswith("random_state")})
        fair = has_fair_svm(task["method"])
        with threadpool_limits(1), warnings.catch_warnings():
            for category in (ConvergenceWarning, FitFailedWarning, UserWarning, RuntimeWarning,
                             FutureWarning):
                warnings.simplefilter("ignore", category)
            if task["mode"] == "cv":
                folds = LabeledStratifiedKFold(task["folds"], shuffle=True,
                                               random_state=task["draw"])
                model = S3VMGridSearchCV(estimator, grid, cv=folds,
                                         baseline="svm" if fair else None).fit(X, labels)
                out["cv_error"] = 1.0 - model.best_score_
                out["selected"] = {k: float(v) if isinstance(v, float | np.floating) else v
                                   for k, v in model.best_params_.items()}
                svm = model.baseline_best_estimator_ if fair else None
            else:
                model = clone(estimator).fit(X, labels)
                svm = fair_svm(model, labels).fit(X, labels) if fair else None
            out["error_unlabeled"] = unlabeled_error(
                model.best_estimator_ if task["mode"] == "cv" else model, X, y, unlabeled)
            if svm is not None:
                out["svm_error"] = unlabeled_error(svm, X, y, unlabeled)
    except Exception as error:  # noqa: BLE001 - a failing cell is recorded, not fatal
        out["status"] = f"{type(error).__name__}: {error}"
    out["seconds"] = time.process_time() - start
    return out


def tasks(size: str, digits_n: int | None = None, draws: int | None = None,
          cv: bool = False) -> list[dict]:
    """The runs of a table: every method at its defaults on every draw (and by
    cross-validation with ``cv``, or at the quick and tiny sizes)."""
    draws = draws or DRAWS[size]
    per_class = {"full": (2, 5, 10), "quick": (2, 5), "tiny": (2,)}[size]
    data = {"full": DATASETS, "quick": DATASETS, "tiny": ("iris",)}[size]
    methods = {"tiny": ("∇TSVM", REFERENCE, "LabelSpreading (knn)")}.get(size, METHODS)
    modes = ("default", "cv") if cv or size != "full" else ("default",)
    n = digits_n or 200
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
                    for mode in modes:
                        if mode == "cv" and method in WITHOUT_GRID:
                            continue
                        task = {"experiment": NAME, "dataset": name, "digits_n": n,
                                "per_class": l, "draw": draw, "method": method,
                                "mode": mode, "folds": 3}
                        if size != "full":  # two values an axis: 4 grid points
                            task["grid_values"] = 2
                        out.append(task)
    return out


# -- the tables ---------------------------------------------------------------------------------


def _rows(paired):
    return [(method, mode) for method in METHODS for mode in ("default", "cv")
            if (method, mode) in paired]


def _reference_of(key: tuple[str, str]) -> str:
    method, mode = key
    if not has_fair_svm(method):
        return REFERENCE
    return "its fair SVM" if mode == "default" else "the SVM by the same folds"


def _mode_text(mode: str) -> str:
    return "defaults" if mode == "default" else "CV on the labels"


def table(results) -> str:
    """Per data set, a row a method and mode, a column a number of labels a class: the mean
    error on the unlabeled points (%) with its 95 % interval, the reference's mean on the
    same draws (the fair SVM, or the SVC on the labels), the verdict (↓ better, ↑ worse, =
    no significant difference at p < 0.05) and the Wilcoxon p-value. The SVC on the labels
    has its own mean and interval."""
    from s3vm_core.metrics import mean_interval

    paired = paired_cells(results, reference=REFERENCE)
    ok = [r for r in results if r["status"] == "ok"]
    failed = {}
    for r in results:
        if r["status"] != "ok":
            key = (r["method"], r["mode"], r["dataset"], r["per_class"])
            failed[key] = failed.get(key, 0) + 1
    blocks = []
    for name in [d for d in DATASETS if any(r["dataset"] == d for r in results)]:
        labels = sorted({r["per_class"] for r in results if r["dataset"] == name})
        rows = []
        for method, mode in _rows(paired) + [(REFERENCE, m) for m in ("default", "cv")]:
            if method == REFERENCE:
                errors = [[r["error_unlabeled"] for r in ok if r["method"] == REFERENCE
                           and r["mode"] == mode and r["dataset"] == name
                           and r["per_class"] == l] for l in labels]
                if not any(errors):
                    continue
                cells = []
                for e in errors:
                    mean, low, high = mean_interval(e)
                    cells.append(f"{100 * mean:.1f} [{100 * low:.1f}, {100 * high:.1f}]"
                                 if e else "n/a")
            else:
                cells = [cell_text(paired[(method, mode)].get((name, l))) for l in labels]
                if all(c == "n/a" for c in cells):
                    continue
            for i, l in enumerate(labels):
                fails = failed.get((method, mode, name, l))
                if fails:
                    cells[i] += f" ({fails} failed)"
            rows.append([method, _mode_text(mode), _reference_of((method, mode))
                         if method != REFERENCE else "–", *cells])
        blocks.append(f"#### {name}\n\n" + markdown_table(
            ["method", "parameters", "against", *(f"l = {l}" for l in labels)], rows))
    return "\n\n".join(blocks)


def verdicts(results) -> str:
    """For each method and mode, the cells (of every data set and l) where it is
    significantly below its reference (its fair SVM, or the SVC on the labels), without a
    significant difference, and above; then every method against the one SVC on the labels
    (a yardstick common to all, scikit-learn's defaults: C = 1, gamma = "scale")."""
    def label(key):
        return key[0] + ("" if key[1] == "default" else ", CV")

    own = paired_cells(results, reference=REFERENCE)
    common = paired_cells(results, reference=REFERENCE, own_svm=False)
    rows = [(m, mode) for m, mode in _rows(own) if m != REFERENCE]
    return (counts_table(own, rows, _reference_of, label=label) + "\n\nAgainst the SVC on "
            "the labels, every method:\n\n"
            + counts_table(common, rows, lambda key: REFERENCE, label=label))


def main(argv=None) -> list[dict]:
    p = parser(__doc__.splitlines()[0], NAME)
    p.add_argument("--digits-n", type=int, default=None,
                   help="digits used (default 200; 1797: all)")
    p.add_argument("--draws", type=int, default=None,
                   help="label draws a cell (default 30; --quick 3, --tiny 2)")
    p.add_argument("--cv", action="store_true",
                   help="also every method selected by cross-validation on the labels")
    args = p.parse_args(argv)
    size = size_of(args)
    # the workers import the task function from this module by name, not from __main__
    from benchmarks.sklearn_peers import evaluate as task_function

    wall = time.perf_counter()
    results = run_sweep(tasks(size, args.digits_n, args.draws, args.cv),
                        output_folder(args, NAME), n_jobs=args.n_jobs,
                        scheduler=args.scheduler, progress=not args.no_progress,
                        fresh=args.fresh, func=task_function)
    draws = len({r["draw"] for r in results})
    print(f"\n### Error on the unlabeled points, %, over {draws} draws ({size}): mean [95 % "
          "interval] vs the reference's mean on the same draws, ↓ better / ↑ worse / = no "
          "significant difference (Wilcoxon signed-rank, p < 0.05)\n")
    print(table(results))
    print(f"\n### Cells better, without a significant difference and worse than the reference "
          f"({size})\n")
    print(verdicts(results))
    failed = sum(r["status"] != "ok" for r in results)
    print(f"\n{len(results)} runs ({failed} failed), {cpu_hours(results):.2f} h of CPU "
          f"(process time of the runs); this invocation {time.perf_counter() - wall:.0f} s of "
          "wall time.")
    return results


if __name__ == "__main__":
    main()
