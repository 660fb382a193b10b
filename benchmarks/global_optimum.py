"""How far from the best? Every solver against the exact global minimum of the S3VM objective.

Issue 35, item 4. On small two moons, two circles and g50c, over label draws, every local
solver that the common objective applies to (``s3vm_core.matched_solvers``: the same kernel,
C and C*) is scored on eq. (2) of the continuation paper with the hinge under its balance
constraint (3) (``s3vm_core.common_objective``, its ``balanced_value``), beside the exact
minimum of ``BranchAndBoundS3VM`` and the supervised SVM:

* **minima**: per solver, how often it reaches the global minimum (within 1e-6 relative) with
  its own f, and with its labeling of the unlabeled points (the minimum of eq. (2) for those
  labels, ``BranchAndBoundS3VM.labeling_objective``: the optimum's basin, whatever surrogate
  the solver minimized), its mean objective gaps, its error on the unlabeled points against
  the global optimum's and the SVM's; and over all (solver, draw) pairs, how the gap in
  objective goes with the gap in error (the continuation paper's Figure 3, and NIPS 2006's
  finding that the global optimum generalizes better);
* **reach**: how far the exact solver goes (nodes, seconds, proven or the certified gap at its
  time budget) against the number of unlabeled points u;
* **branching**: its two branching rules on the same problems.

Run ``python -m benchmarks.global_optimum [--quick] [--n-jobs 2]``; results in
``benchmarks/results/global_optimum[_quick]/`` (resumable, ``--fresh`` recomputes).
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections import defaultdict

import numpy as np

from benchmarks.sweep import (
    load_data,
    markdown_table,
    output_folder,
    parser,
    run_sweep,
    size,
    task_key,
)

NAME = "global_optimum"

#: The local solvers scored, in the order of the tables.
SOLVERS = ("cs3vm", "tsvm", "qn-s3vm", "da", "label-switching")
SOLVER_TITLES = {"cs3vm": "cS3VM", "tsvm": "∇TSVM", "qn-s3vm": "QN-S3VM", "da": "DA (hinge)",
                 "label-switching": "label switching (JTSVM)", "svm": "SVM (labeled only)"}
#: Relative gap within which a solver counts as having reached the global minimum.
REACHED = 1e-6

#: The data sets of the minima table: one fixed set for the toy problems (label draws vary), a
#: fresh g50c per draw (the LDS paper's random partitions); the kernel width and costs.
DATASETS = {
    "two moons": {"data": {"name": "two_moons", "kwargs": {"n_samples": 60, "noise": 0.1},
                           "n_per_class": 1, "data_seed": 0}, "sigma": 0.5},
    "two circles": {"data": {"name": "two_circles",
                             "kwargs": {"n_samples": 60, "noise": 0.05},
                             "n_per_class": 1, "data_seed": 0}, "sigma": 0.5},
    "g50c": {"data": {"name": "g50c", "kwargs": {"n_samples": 40}, "n_per_class": 2},
             "sigma": None},
}
COST = 10.0


def minima_tasks(kind: str) -> list[dict]:
    draws = {"full": 20, "quick": 5, "tiny": 1}[kind]
    tasks = []
    for name, setting in DATASETS.items():
        data = dict(setting["data"])
        if kind == "tiny":
            data["kwargs"] = {**data["kwargs"], "n_samples": 16}
        for draw in range(draws):
            tasks.append({"part": "minima", "data_name": name, "data": data, "draw": draw,
                          "sigma": setting["sigma"], "C": COST, "scores": "labeling"})
    return tasks


def reach_tasks(kind: str) -> list[dict]:
    """Two moons (sigma 0.5, and the default median width at u = 30) and g50c (default
    sigma), C = C* in {1, 10}, growing u; the default local solvers start the incumbent."""
    cells = {"full": [("two moons", 0.5, (30, 60, 100, 200)), ("two moons", None, (30,)),
                      ("g50c", None, (30, 40, 60, 100))],
             "quick": [("two moons", 0.5, (30, 100)), ("g50c", None, (30,))],
             "tiny": [("two moons", 0.5, (10,))]}[kind]
    draws = {"full": 3, "quick": 2, "tiny": 1}[kind]
    budget = {"full": 60.0, "quick": 10.0, "tiny": 5.0}[kind]
    tasks = []
    for name, sigma, us in cells:
        base = DATASETS[name]["data"]
        for u in us:
            data = {**base, "kwargs": {**base["kwargs"], "n_samples": u + 2 * base["n_per_class"]}}
            for C in (1.0, 10.0):
                for draw in range(draws):
                    tasks.append({"part": "reach", "data_name": name, "data": data, "u": u,
                                  "draw": draw, "sigma": sigma, "C": C,
                                  "branching": "balanced", "max_time": budget})
    return tasks


def branching_tasks(kind: str) -> list[dict]:
    """Both branching rules, C = C* = 1 (the harder setting): at u = 30 on two moons with a
    narrow and a wide RBF and on g50c (5 draws), and on the larger problems where they part
    most (two moons u = 100, two circles u = 60, g50c u = 40; 2 draws, 60 s budget)."""
    small = 10 if kind == "tiny" else 30
    cells = [("two moons", 0.25, small), ("two moons", 0.5, small), ("g50c", None, small)]
    if kind == "full":
        cells += [("two moons", 0.5, 100), ("two circles", 0.5, 60), ("g50c", None, 40)]
    tasks = []
    for name, sigma, u in cells:
        draws = 2 if u > 30 else {"full": 5, "quick": 2, "tiny": 1}[kind]
        base = DATASETS[name]["data"]
        data = {**base, "kwargs": {**base["kwargs"], "n_samples": u + 2 * base["n_per_class"]}}
        for rule in ("balanced", "confident"):
            for draw in range(draws):
                tasks.append({"part": "branching", "data_name": name, "data": data, "u": u,
                              "draw": draw, "sigma": sigma, "C": 1.0, "branching": rule,
                              "max_time": 60.0})
    return tasks


# -- the task function (one label draw) ------------------------------------------------------


def evaluate(task: dict) -> dict:
    """Run one task: a ``minima`` draw (every solver and the exact one), or one exact fit of
    ``reach`` / ``branching``. A failure is recorded in ``status``, not raised."""
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    out = {**task, "key": task_key(task), "status": "ok"}
    try:
        X, y, y_semi, _, _ = load_data(task["data"], task["draw"])
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if task["part"] == "minima":
                out.update(_minima(task, X, y, y_semi))
            else:
                out.update(_exact_fit(task, X, y, y_semi))
    except Exception as exc:  # noqa: BLE001 - a failing draw must not stop the sweep
        out["status"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = traceback.format_exc(limit=3)
    return out


def _error(labels, y, y_semi) -> float:
    unlabeled = y_semi == -1
    return float(np.mean(labels[unlabeled] != y[unlabeled]))


def _minima(task, X, y, y_semi) -> dict:
    from s3vm_core import compare_with_global_minimum

    C = task["C"]
    comparison = compare_with_global_minimum(X, y_semi, C=C, C_star=C, sigma=task["sigma"],
                                             names=("svm", *SOLVERS), max_time=600.0)
    exact = comparison.exact
    scores = {name: {"objective": score.value, "balanced": score.balanced_value,
                     "residual": score.balance_residual,
                     "seconds": comparison.seconds[name],
                     "labeling": comparison.labelings[name],
                     "error": _error(comparison.solvers[name].transduction_, y, y_semi)}
              for name, score in comparison.scores.items()}
    return {"solvers": scores, "u": int(np.sum(y_semi == -1)), "sigma_used": exact.sigma_,
            "global": {"objective": exact.objective_, "lower_bound": exact.lower_bound_,
                       "proven": exact.proven_, "n_nodes": exact.n_nodes_,
                       "seconds": comparison.seconds["exact"],
                       "source": exact.incumbent_source_,
                       "error": _error(exact.transduction_, y, y_semi)}}


def _exact_fit(task, X, y, y_semi) -> dict:
    from s3vm_core import BranchAndBoundS3VM

    model = BranchAndBoundS3VM(C=task["C"], sigma=task["sigma"], branching=task["branching"],
                               max_time=task["max_time"], max_nodes=10**7)
    start = time.perf_counter()
    model.fit(X, y_semi)
    return {"seconds": time.perf_counter() - start, "n_nodes": model.n_nodes_,
            "proven": model.proven_, "objective": model.objective_,
            "relative_gap": model.gap_ / max(abs(model.objective_), 1e-300),
            "error": _error(model.transduction_, y, y_semi)}


# -- the tables ------------------------------------------------------------------------------


def _minima_by_data(results: list[dict]) -> dict[str, list[dict]]:
    """The finished runs of the minima part, by data set."""
    by_data = defaultdict(list)
    for r in results:
        if r["part"] == "minima" and r["status"] == "ok":
            by_data[r["data_name"]].append(r)
    return by_data


def minima_table(results: list[dict]) -> str:
    """Per data set and solver: how often it reached the global minimum, with its own f
    (its ``balanced_value`` within ``REACHED``) and with its labeling (the minimum of eq. (2)
    for the labels it gives the unlabeled points: the optimum's basin, whatever surrogate it
    minimized); its mean gaps; its error against the optimum's."""
    rows = []
    for name, runs in _minima_by_data(results).items():
        optimum = np.array([r["global"]["objective"] for r in runs])
        optimum_error = np.array([r["global"]["error"] for r in runs])
        for solver in (*SOLVERS, "svm"):
            gap = (np.array([r["solvers"][solver]["balanced"] for r in runs]) - optimum) / \
                np.abs(optimum)
            basin = (np.array([r["solvers"][solver]["labeling"] for r in runs]) - optimum) / \
                np.abs(optimum)
            error = np.array([r["solvers"][solver]["error"] for r in runs])
            rows.append([name, SOLVER_TITLES[solver],
                         f"{int(np.sum(gap <= REACHED))} / {int(np.sum(basin <= REACHED))}",
                         f"{100 * gap.mean():.1f}", f"{100 * basin.mean():.1f}",
                         _percent(error), _wins(error, optimum_error)])
        rows.append([name, "**global minimum (B&B)**", f"{len(runs)} / {len(runs)}", "0", "0",
                     _percent(optimum_error), "–"])
    return markdown_table(["data set", "solver", "reaches the minimum (own f / its labeling)",
                           "mean gap, own f (%)", "mean gap, its labeling (%)",
                           "unlabeled error (%)", "error below / equal / above the "
                           "optimum's"], rows)


def correlation_table(results: list[dict]) -> str:
    """Figure 3 of the continuation paper against the exact optimum: over every (local solver,
    draw) pair whose labeling is not optimal, the gap in objective of that labeling (its
    basin's minimum) against the gap in error (both labelings' errors)."""
    from scipy.stats import spearmanr

    rows = []
    for name, runs in _minima_by_data(results).items():
        gaps, errors = [], []
        for r in runs:
            optimum = r["global"]["objective"]
            for solver in SOLVERS:
                gap = (r["solvers"][solver]["labeling"] - optimum) / abs(optimum)
                if gap > REACHED:
                    gaps.append(gap)
                    errors.append(r["solvers"][solver]["error"] - r["global"]["error"])
        gaps, errors = np.array(gaps), np.array(errors)
        # undefined (nan) when either side is constant, e.g. every error the same
        varies = len(gaps) > 2 and np.ptp(gaps) > 0 and np.ptp(errors) > 0
        rho = spearmanr(gaps, errors).statistic if varies else float("nan")
        rows.append([name, len(gaps), f"{np.mean(errors > 0):.2f}",
                     f"{np.mean(errors == 0):.2f}", f"{np.mean(errors < 0):.2f}",
                     f"{100 * np.mean(errors) if len(errors) else float('nan'):+.1f}",
                     f"{rho:.2f}"])
    return markdown_table(["data set", "pairs above the minimum", "error higher", "equal",
                           "lower", "mean error difference (pts)",
                           "Spearman (gap in objective, gap in error)"], rows)


def reach_table(results: list[dict], part: str = "reach") -> str:
    cells = defaultdict(list)
    for r in results:
        if r["part"] == part and r["status"] == "ok":
            key = (r["data_name"], r["sigma"], r["C"], r["u"], r["branching"])
            cells[key].append(r)
    rows = []
    for (name, sigma, C, u, rule), runs in sorted(cells.items(), key=lambda kv: (
            kv[0][0], str(kv[0][1]), kv[0][2], kv[0][3], kv[0][4])):
        open_gaps = [r["relative_gap"] for r in runs if not r["proven"]]
        rows.append([name, "default" if sigma is None else f"{sigma:g}", f"{C:g}", u, rule,
                     f"{sum(r['proven'] for r in runs)}/{len(runs)}",
                     f"{np.median([r['n_nodes'] for r in runs]):.0f}",
                     f"{np.median([r['seconds'] for r in runs]):.2f}",
                     f"{max(r['seconds'] for r in runs):.1f}",
                     f"{100 * max(open_gaps):.2g}" if open_gaps else "–"])
    return markdown_table(["data set", "sigma", "C = C*", "u", "branching", "proven",
                           "median nodes", "median s", "max s", "largest certified gap (%)"],
                          rows)


def _percent(values) -> str:
    return f"{100 * np.mean(values):.1f} ± {100 * np.std(values):.1f}"


def _wins(error, optimum_error) -> str:
    return (f"{int(np.sum(error < optimum_error))} / {int(np.sum(error == optimum_error))} / "
            f"{int(np.sum(error > optimum_error))}")


def main(argv=None) -> list[dict]:
    args = parser(__doc__.splitlines()[0], NAME).parse_args(argv)
    kind = size(args)
    tasks = minima_tasks(kind) + reach_tasks(kind) + branching_tasks(kind)
    results = run_sweep(tasks, output_folder(args, NAME), n_jobs=args.n_jobs,
                        scheduler=args.scheduler, progress=not args.no_progress,
                        fresh=args.fresh, func=evaluate)
    failed = [r for r in results if r["status"] != "ok"]
    print(f"\n### Local minima against the global minimum ({kind})\n")
    print(minima_table(results))
    print(f"\n### Gap in objective against gap in error ({kind})\n")
    print(correlation_table(results))
    print(f"\n### How far the exact solver goes ({kind})\n")
    print(reach_table(results))
    print(f"\n### Branching rules, C = C* = 1 ({kind})\n")
    print(reach_table(results, part="branching"))
    if failed:
        print(f"\n{len(failed)} task(s) failed, e.g. {failed[0]['status']}")
    return results


if __name__ == "__main__":
    main()
