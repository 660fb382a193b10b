"""Errors over label draws beside a supervised SVM on the same draws, as markdown tables.

One place for the statistics of ``sklearn_peers`` and ``safe_s4vm``: each result (a dict of
the sweep) holds a method's ``error_unlabeled`` on one draw and, where the method has one, the
error of its fair SVM on the same draw (``svm_error``: ``s3vm_core.fair_svm``, LIBSVM on the
labeled points with the solver's own kernel, width and C). ``s3vm_core.paired_comparison``
turns a cell's draws into the means with 95 % intervals and the two-sided Wilcoxon
signed-rank test; a cell is "better" or "worse" at p < 0.05, else "no significant
difference".
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from benchmarks.sweep import markdown_table
from s3vm_core import PairedComparison, paired_comparison

#: The verdicts of ``PairedComparison.verdict``, in the order of the counting tables.
VERDICTS = ("better", "no significant difference", "worse")
#: Their marks in a cell: below the SVM, above it, no significant difference.
MARKS = {"better": "↓", "worse": "↑", "no significant difference": "="}


def paired_cells(results, cell_keys=("dataset", "per_class"), reference: str | None = None,
                 own_svm: bool = True) -> dict:
    """``{(method, mode): {cell: PairedComparison}}`` over the draws of each cell.

    A result is paired with its own ``svm_error`` when it has a finite one (and ``own_svm``),
    else with the ``error_unlabeled`` of the ``reference`` method on the same cell, mode and
    draw (the methods that have no fair SVM of their own: scikit-learn's estimators beside
    its SVC on the labels; or every method, with ``own_svm=False``). Failed runs and draws
    without a partner are left out.
    """
    ok = [r for r in results if r["status"] == "ok"]

    def cell_of(r):
        return tuple(r[k] for k in cell_keys)

    partner = {(cell_of(r), r.get("mode"), r["draw"]): r["error_unlabeled"]
               for r in ok if reference is not None and r["method"] == reference}
    pairs = defaultdict(lambda: defaultdict(lambda: ([], [])))
    for r in ok:
        base = r.get("svm_error", math.nan) if own_svm else math.nan
        if not np.isfinite(base):
            if r["method"] == reference:
                continue
            base = partner.get((cell_of(r), r.get("mode"), r["draw"]), math.nan)
        if not (np.isfinite(base) and np.isfinite(r["error_unlabeled"])):
            continue
        errors, baseline = pairs[(r["method"], r.get("mode"))][cell_of(r)]
        errors.append(r["error_unlabeled"])
        baseline.append(base)
    return {key: {cell: paired_comparison(e, b) for cell, (e, b) in cells.items()}
            for key, cells in pairs.items()}


def cell_text(c: PairedComparison | None) -> str:
    """"7.2 [6.1, 8.3] vs 8.0 ↓ p = 0.003": the method's mean error (%) and its 95 % interval,
    the SVM's mean on the same draws, the verdict's mark and the p-value."""
    if c is None or c.n == 0:
        return "n/a"
    interval = "" if math.isnan(c.low) else f" [{100 * c.low:.1f}, {100 * c.high:.1f}]"
    p = "–" if math.isnan(c.p_value) else f"{c.p_value:.2g}"
    return (f"{100 * c.mean:.1f}{interval} vs {100 * c.baseline_mean:.1f} "
            f"{MARKS[c.verdict]} p = {p}")


def counts(cells: dict) -> dict[str, int]:
    """How many cells are better / no significant difference / worse."""
    tally = dict.fromkeys(VERDICTS, 0)
    for c in cells.values():
        if c.n:
            tally[c.verdict] += 1
    return tally


def counts_table(paired: dict, rows, reference_of, label=lambda key: key[0]) -> str:
    """For each ``(method, mode)`` of ``rows`` (named ``label(key)``): the cells significantly
    below its reference (``reference_of(key)``, a name), without a significant difference,
    and above, with the draws per cell."""
    table = []
    for key in rows:
        cells = paired.get(key)
        if not cells:
            continue
        tally = counts(cells)
        draws = sorted({c.n for c in cells.values()})
        table.append([label(key), reference_of(key), tally["better"],
                      tally["no significant difference"], tally["worse"], len(cells),
                      "–".join(map(str, (draws[0], draws[-1]))) if len(draws) > 1
                      else str(draws[0])])
    return markdown_table(["method", "against", "better (p < 0.05)", "no significant difference",
                           "worse (p < 0.05)", "cells", "draws a cell"], table)


def unlabeled_error(model, X, y, unlabeled) -> float:
    """The error of the labels a fitted method gives the unlabeled points: ``transduction_``
    for the estimators of this library (S4VM's chosen labeling, the paper's answer; for the
    others the sign of f on the training points, what ``predict`` gives them), ``predict``
    for scikit-learn's."""
    from s3vm_core.base import S3VMClassifier
    from s3vm_core.multiclass import OneVsRestS3VM

    if isinstance(model, S3VMClassifier | OneVsRestS3VM):
        labels = model.transduction_[unlabeled]
    else:
        labels = model.predict(X[unlabeled])
    return float(np.mean(labels != y[unlabeled]))


def cpu_hours(results) -> float:
    """The process time of every run, in hours (each run measures its own, fits and fair SVM
    included)."""
    return sum(r.get("seconds", 0.0) for r in results
               if np.isfinite(r.get("seconds", math.nan))) / 3600
