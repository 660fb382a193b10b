"""Does S4VM stay safe on real data? S4VM and ∇TSVM beside their fair SVMs over 30 draws.

Li & Zhou's S4VM (ICML 2011; TPAMI 2015) returns a labeling of the unlabeled points only
where it gains over the SVM whichever of its kept candidate separators is the truth; when
the truth is among them it is never less accurate than that SVM. This benchmark measures
whether that holds on data: S4VM at its defaults (the paper's) and with ``r="both"`` (half
its local searches with the balance centred on the share of positives its SVM predicts
instead of the labels' share, which is one half when labels are drawn per class), and ∇TSVM
(``GradientTSVM``, the S3VM without a safety net) at its defaults, each beside its fair SVM
(``s3vm_core.fair_svm``: LIBSVM on the labeled points with the solver's own kernel, width
and C -- C1 for S4VM) on the same draws.

Data: scikit-learn's bundled breast cancer (569 points, 30 features, 2 classes), wine (178,
13, 3) and iris (150, 4, 3), the last two one-vs-rest (``OneVsRestS3VM``), its digits 3 vs 8
and 2 vs 5 (357 and 359 points, 64 pixels in [0, 1]; ``toy_data.digits_pair``), and the
app's generators at their default size and noise, seed 0: two moons, two circles, the clock,
Gaussian2C and Gaussian4C in the plane (Gaussian4C's classes cut across its clusters) and
g10n (the LDS paper's set whose labels cut through both clusters). Each in two scalings:

* ``"as given"``: the app's units for the generators and the digits, scikit-learn's sets
  standardized (zero mean, unit variance) as in ``sklearn_peers``;
* ``"[0, 1]"``: every feature scaled to [0, 1] over all points, the S4VM paper's protocol.

Protocol: l in {2, 5, 10} labels a class drawn at random (``toy_data.pick_labeled``, seed =
draw), 30 draws, every other point unlabeled; the error counted on the labels each method
gives the unlabeled points (``transduction_``: for binary S4VM the chosen labeling, which the
paper's guarantee is about, not the SVM that ``predict`` uses on new points; one-vs-rest
takes the largest of the k outputs); S4VM seeded with the draw. Per cell: the mean with its
95 % interval, the fair SVM's mean on the same draws, the two-sided Wilcoxon signed-rank
test (``s3vm_core.paired_comparison``), and for S4VM how often it kept the SVM's labels and
how far the truth was from its nearest kept candidate (the share of unlabeled points on which
they differ, averaged over the draws and, one-vs-rest, the binary problems): the paper's
guarantee holds when that distance is 0.

Run ``python -m benchmarks.safe_s4vm [--quick | --tiny] [--n-jobs 2] [--draws N]
[--methods ...]`` (resumable: results in ``benchmarks/results/safe_s4vm``; each run records
its process time; ``--methods "S4VM, r = svm"`` runs S4VM with every search centred on its
SVM's share).
``--balance`` runs only S4VM on the two unbalanced sets (breast cancer, the clock; 10 labels
a class) at the default balance tolerance beta = 0.1 and at 0.3, which admits their true
class ratio; ``--widths`` only S4VM on ``WORSE_CELLS`` at its width and at S4VM.m's, each
beside its fair SVM. ``--quick``: 3 draws of 2 and 5 labels a class; ``--tiny``: 2 draws of
iris and the moons at 2 labels a class, S4VM with 10 local searches (a smoke test). The
tables go to stdout (docs/benchmarks.md, "Safe on real data").
"""

from __future__ import annotations

import math
import time
import warnings
from functools import cache

import numpy as np

from benchmarks.paired import (
    cell_text,
    counts_table,
    cpu_hours,
    paired_cells,
    unlabeled_error,
)
from benchmarks.sweep import markdown_table, output_folder, parser, run_sweep
from benchmarks.sweep import size as size_of

NAME = "safe_s4vm"
SKLEARN = ("breast cancer", "wine", "iris")
#: The app's data sets (``toy_data.DATASETS``) by their names in the tables.
GENERATED = {
    "digits 3 vs 8": "digits_3_8",
    "digits 2 vs 5": "digits_2_5",
    "two moons": "two_moons",
    "two circles": "two_circles",
    "clock": "clock",
    "Gaussian2C (2-D)": "gaussian_2c_2d",
    "Gaussian4C (2-D)": "gaussian_4c_2d",
    "g10n": "g10n",
}
DATASETS = (*SKLEARN, *GENERATED)
SCALINGS = ("as given", "[0, 1]")
#: S4VM at its defaults (the balance centred on the labels' share, the paper's), with
#: ``r="both"`` (half its searches centred on the share its SVM predicts), and ∇TSVM at its
#: defaults; ``--methods`` also offers S4VM with ``r="svm"`` (every search centred there).
S4VM_R = {"S4VM": None, "S4VM, r = both": "both", "S4VM, r = svm": "svm"}
S4VMS = tuple(S4VM_R)
METHODS = ("S4VM", "S4VM, r = both", "∇TSVM")
DRAWS = {"full": 30, "quick": 3, "tiny": 2}


@cache
def load(name: str, scaling: str):
    """``(X, y)`` of a data set in a scaling (``SCALINGS``)."""
    if name in SKLEARN:
        from sklearn import datasets
        from sklearn.preprocessing import StandardScaler

        loader = {"iris": datasets.load_iris, "wine": datasets.load_wine,
                  "breast cancer": datasets.load_breast_cancer}[name]
        X, y = loader(return_X_y=True)
        X = StandardScaler().fit_transform(X)
    else:
        from toy_data import make_dataset

        X, y = make_dataset(GENERATED[name], random_state=0)[:2]
    if scaling == "[0, 1]":
        span = np.ptp(X, axis=0)
        X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)  # a constant feature stays 0
    return X, y


def build(method: str, n_classes: int, seed: int, sample_time: int = 100):
    """The method at its defaults (S4VM seeded; ``sample_time`` below the paper's 100 only in
    the tiny run), one-vs-rest for more than two classes."""
    from s3vm_core import S4VM, GradientTSVM, OneVsRestS3VM

    if method in S4VMS:
        estimator = S4VM(random_state=seed, sample_time=sample_time, r=S4VM_R[method])
    else:
        estimator = GradientTSVM()
    return OneVsRestS3VM(estimator) if n_classes > 2 else estimator


def _binary_problems(model, y_true):
    """``(estimator, truth as +-1)`` for each binary problem of a fitted model (one-vs-rest:
    class c against the rest)."""
    from s3vm_core import OneVsRestS3VM

    if isinstance(model, OneVsRestS3VM):
        return [(e, np.where(y_true == c, 1, -1)) for e, c in zip(model.estimators_,
                                                                  model.classes_, strict=True)]
    return [(model, np.where(y_true == model.classes_[1], 1, -1))]


def s4vm_diagnostics(model, y_true, unlabeled) -> dict:
    """The share of binary problems where S4VM kept the SVM's labels, and the mean share of
    unlabeled points on which the truth differs from its nearest kept candidate."""
    kept_svm, distances = [], []
    for estimator, truth in _binary_problems(model, y_true):
        kept_svm.append(estimator.safe_choice_ == "SVM")
        kept = estimator.candidate_labelings_[estimator.kept_candidates_][:, unlabeled]
        if kept.size:
            distances.append(float(np.min(np.mean(kept != truth[unlabeled], axis=1))))
    return {"svm_kept": float(np.mean(kept_svm)),
            "truth_distance": float(np.mean(distances)) if distances else math.nan}


def evaluate(task: dict) -> dict:
    """One method, data set, scaling and draw: its error on the unlabeled points, its fair
    SVM's on the same draw, S4VM's diagnostics, the process time of both fits."""
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    from benchmarks.sweep import task_key
    from s3vm_core import fair_svm
    from toy_data import pick_labeled

    out = {**task, "key": task_key(task), "error_unlabeled": math.nan, "svm_error": math.nan,
           "svm_kept": math.nan, "truth_distance": math.nan, "seconds": math.nan,
           "status": "ok"}
    start = time.process_time()
    try:
        X, y = load(task["dataset"], task["scaling"])
        labels = pick_labeled(y, task["per_class"], random_state=task["draw"])
        unlabeled = labels == -1
        model = build(task["method"], len(np.unique(y)), task["draw"],
                      task.get("sample_time", 100))
        with threadpool_limits(1), warnings.catch_warnings():
            for category in (ConvergenceWarning, UserWarning, RuntimeWarning):
                warnings.simplefilter("ignore", category)
            model.fit(X, labels)
            svm = fair_svm(model, labels).fit(X, labels)
        out["error_unlabeled"] = unlabeled_error(model, X, y, unlabeled)
        out["svm_error"] = unlabeled_error(svm, X, y, unlabeled)
        if task["method"] in S4VMS:
            out.update(s4vm_diagnostics(model, y, unlabeled))
    except Exception as error:  # noqa: BLE001 - a failing cell is recorded, not fatal
        out["status"] = f"{type(error).__name__}: {error}"
    out["seconds"] = time.process_time() - start
    return out


def tasks(size: str, draws: int | None = None, methods=METHODS) -> list[dict]:
    draws = draws or DRAWS[size]
    per_class = {"full": (2, 5, 10), "quick": (2, 5), "tiny": (2,)}[size]
    data = {"tiny": ("iris", "two moons")}.get(size, DATASETS)
    # draw by draw: a run stopped half-way leaves whole draws
    out = [{"experiment": NAME, "dataset": name, "scaling": scaling, "per_class": l,
            "draw": draw, "method": method}
           for scaling in SCALINGS for name in data for l in per_class
           for draw in range(draws) for method in methods]
    if size == "tiny":  # a smoke test: S4VM with 10 local searches
        for task in out:
            task["sample_time"] = 10
    return out


# -- the tables ---------------------------------------------------------------------------------

_CELL = ("dataset", "scaling", "per_class")


def table(results, scaling: str) -> str:
    """A row a data set and number of labels a class, for one scaling: each method's mean
    error (%) with its 95 % interval against its fair SVM's mean on the same draws, the
    verdict (↓ better, ↑ worse, = no significant difference at p < 0.05) and the p-value;
    for each S4VM, how often it kept the SVM's labels, and the truth's distance to its
    nearest kept candidate."""
    paired = paired_cells(results, cell_keys=_CELL)
    ok = [r for r in results if r["status"] == "ok" and r["scaling"] == scaling]
    methods = [m for m in (*METHODS, "S4VM, r = svm") if any(r["method"] == m for r in ok)]
    s4vms = [m for m in methods if m in S4VMS]
    rows = []
    for name in DATASETS:
        for l in sorted({r["per_class"] for r in ok if r["dataset"] == name}):
            cell = (name, scaling, l)
            kept, distance = [], []
            for method in s4vms:
                runs = [r for r in ok if r["method"] == method and r["dataset"] == name
                        and r["per_class"] == l]
                kept.append(f"{np.mean([r['svm_kept'] for r in runs]):.0%}" if runs else "n/a")
                distance.append(f"{100 * np.nanmean([r['truth_distance'] for r in runs]):.1f}"
                                if runs else "n/a")
            rows.append([name, l, *(cell_text(paired.get((m, None), {}).get(cell))
                                    for m in methods), " / ".join(kept), " / ".join(distance)])
    which = " / ".join(s4vms)
    return markdown_table(["data", "l", *(f"{m} vs its SVM" for m in methods),
                           f"kept the SVM's labels ({which})",
                           f"truth to nearest kept candidate, % ({which})"], rows)


def verdicts(results) -> str:
    """Per method and scaling, the cells significantly better than its fair SVM, without a
    significant difference and worse."""
    blocks = []
    for scaling in SCALINGS:
        chosen = [r for r in results if r["scaling"] == scaling]
        paired = paired_cells(chosen, cell_keys=_CELL)
        rows = [(m, None) for m in (*METHODS, "S4VM, r = svm")
                if any(r["method"] == m for r in chosen)]
        blocks.append(counts_table(paired, rows, lambda key: "its fair SVM",
                                   label=lambda key, s=scaling: f"{key[0]}, {s}"))
    header, *rest = blocks
    return "\n".join([header, *("\n".join(b.splitlines()[2:]) for b in rest)])


def worse_cells(results) -> list[str]:
    """The cells where a method is significantly worse than its fair SVM, in words."""
    paired = paired_cells(results, cell_keys=_CELL)
    return [f"{method} on {name} ({scaling}), l = {l}: {cell_text(c)}"
            for (method, _), cells in sorted(paired.items())
            for (name, scaling, l), c in cells.items() if c.verdict == "worse"]


def balance_check(draws: int = 30, betas=(0.1, 0.3), per_class: int = 10,
                  sample_time: int = 100) -> str:
    """S4VM on the two unbalanced sets (breast cancer 63 % benign, the clock 60 % rim; as
    given) at the default balance tolerance beta = 0.1 and at one wide enough for the true
    ratio, against its fair SVM on the same draws: the share of unlabeled points it labels
    positive, the true share, the truth's distance to the nearest kept candidate
    (``sample_time`` local searches a fit, the paper's 100)."""
    from threadpoolctl import threadpool_limits

    from s3vm_core import S4VM, fair_svm, paired_comparison
    from toy_data import pick_labeled

    rows = []
    for name in ("breast cancer", "clock"):
        X, y = load(name, "as given")
        for beta in betas:
            errors, svm_errors, positive, true_positive, distance = [], [], [], [], []
            for draw in range(draws):
                labels = pick_labeled(y, per_class, random_state=draw)
                unlabeled = labels == -1
                with threadpool_limits(1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = S4VM(beta=beta, random_state=draw,
                                 sample_time=sample_time).fit(X, labels)
                    svm = fair_svm(model, labels).fit(X, labels)
                errors.append(unlabeled_error(model, X, y, unlabeled))
                svm_errors.append(unlabeled_error(svm, X, y, unlabeled))
                positive.append(np.mean(model.transduction_[unlabeled] == 1))
                true_positive.append(np.mean(y[unlabeled] == 1))
                distance.append(s4vm_diagnostics(model, y, unlabeled)["truth_distance"])
            c = paired_comparison(errors, svm_errors)
            rows.append([name, per_class, beta, cell_text(c), f"{c.below} / {c.above}",
                         f"{np.mean(positive):.1%}", f"{np.mean(true_positive):.1%}",
                         f"{100 * np.mean(distance):.1f}"])
    return markdown_table(["data", "l", "beta", "S4VM vs its SVM", "draws below / above",
                           "labeled positive by S4VM", "truly positive",
                           "truth to nearest kept candidate, %"], rows)


#: The cells where S4VM was significantly worse than its fair SVM at its defaults (one of each
#: kind, as given unless named, and g10n on [0, 1], where S4VM.m's width is the authors' whole
#: protocol): the width check's.
WORSE_CELLS = (("g10n", "as given", 2), ("g10n", "as given", 5), ("clock", "as given", 10),
               ("breast cancer", "[0, 1]", 10), ("g10n", "[0, 1]", 2), ("g10n", "[0, 1]", 5))


def width_check(draws: int = 30, cells=WORSE_CELLS, sample_time: int = 100) -> str:
    """S4VM at its width (sigma = the mean distance d between points) and at S4VM.m's (LIBSVM's
    gamma = 1/d, i.e. sigma = sqrt(d / 2); docs/deviations.md, "S4VM") on ``cells``, each
    beside the fair SVM of the same width on the same draws: does the width explain where
    S4VM is worse?"""
    from threadpoolctl import threadpool_limits

    from s3vm_core import S4VM, fair_svm, paired_comparison
    from s3vm_core.solvers.s4vm import mean_distance_sigma
    from toy_data import pick_labeled

    rows = []
    for name, scaling, per_class in cells:
        X, y = load(name, scaling)
        d = mean_distance_sigma(X)
        for width, sigma in (("sigma = d", d), ("S4VM.m's gamma = 1/d", math.sqrt(d / 2))):
            errors, svm_errors, kept, distance = [], [], [], []
            for draw in range(draws):
                labels = pick_labeled(y, per_class, random_state=draw)
                unlabeled = labels == -1
                with threadpool_limits(1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = S4VM(sigma=sigma, random_state=draw,
                                 sample_time=sample_time).fit(X, labels)
                    svm = fair_svm(model, labels).fit(X, labels)
                errors.append(unlabeled_error(model, X, y, unlabeled))
                svm_errors.append(unlabeled_error(svm, X, y, unlabeled))
                diagnostics = s4vm_diagnostics(model, y, unlabeled)
                kept.append(diagnostics["svm_kept"])
                distance.append(diagnostics["truth_distance"])
            rows.append([name, scaling, per_class, f"{width} ({sigma:.2f})",
                         cell_text(paired_comparison(errors, svm_errors)),
                         f"{np.mean(kept):.0%}", f"{100 * np.mean(distance):.1f}"])
    return markdown_table(["data", "scaling", "l", "width (sigma)", "S4VM vs its SVM",
                           "S4VM kept the SVM's labels", "truth to nearest kept candidate, %"],
                          rows)


def main(argv=None) -> list[dict]:
    p = parser(__doc__.splitlines()[0], NAME)
    p.add_argument("--draws", type=int, default=None,
                   help="label draws a cell (default 30; --quick 3, --tiny 2)")
    p.add_argument("--methods", nargs="+", choices=(*METHODS, "S4VM, r = svm"),
                   default=METHODS,
                   help="these methods (default: the three of the tables)")
    p.add_argument("--balance", action="store_true",
                   help="only S4VM's balance tolerance on the two unbalanced sets, l = 10")
    p.add_argument("--widths", action="store_true",
                   help="only S4VM at its width and at S4VM.m's where it is worse than its SVM")
    args = p.parse_args(argv)
    size = size_of(args)
    if args.balance:
        draws = args.draws or DRAWS[size]
        print(f"\n### S4VM's balance tolerance where the classes are unbalanced ({draws} "
              "draws)\n")
        print(balance_check(draws))
        return []
    if args.widths:
        draws = args.draws or DRAWS[size]
        print(f"\n### S4VM's width where it is worse than its SVM ({draws} draws)\n")
        print(width_check(draws))
        return []
    from benchmarks.safe_s4vm import evaluate as task_function

    wall = time.perf_counter()
    results = run_sweep(tasks(size, args.draws, args.methods), output_folder(args, NAME),
                        n_jobs=args.n_jobs, scheduler=args.scheduler,
                        progress=not args.no_progress, fresh=args.fresh, func=task_function)
    draws = len({r["draw"] for r in results})
    for scaling in SCALINGS:
        print(f"\n### S4VM and ∇TSVM against their fair SVMs, features {scaling}, {draws} "
              f"draws ({size}): error on the unlabeled points, %, mean [95 % interval] vs the "
              "SVM's mean, ↓ better / ↑ worse / = no significant difference (Wilcoxon "
              "signed-rank, p < 0.05)\n")
        print(table(results, scaling))
    print(f"\n### Cells better, without a significant difference and worse than the fair SVM "
          f"({size})\n")
    print(verdicts(results))
    worse = worse_cells(results)
    print("\nSignificantly worse than the fair SVM: " + ("; ".join(worse) if worse else "none")
          + ".")
    failed = sum(r["status"] != "ok" for r in results)
    print(f"\n{len(results)} runs ({failed} failed), {cpu_hours(results):.2f} h of CPU "
          f"(process time of the runs); this invocation {time.perf_counter() - wall:.0f} s of "
          "wall time.")
    return results


if __name__ == "__main__":
    main()
