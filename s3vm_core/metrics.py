"""How well a decision function classifies the unlabeled points: the transductive error that
every paper reports, on the points whose true class is known; and what errors over label draws
say against the supervised SVM on the same draws (``paired_comparison``).

One definition for the library's users, the app (its film, the Compare page, the teaching
pages), the command line and the benchmarks. A number that cannot be computed -- no unlabeled
point has a known true class, as in an uploaded file without a truth column -- is NaN (said
"unknown"), never 0.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: The label of an unlabeled point, and the true class of a point whose class is unknown.
UNLABELED = -1


def predicted_classes(decision) -> np.ndarray:
    """The class index each decision picks: ``f > 0`` (class 1) for one binary function
    ``(n,)``, the largest output for one-vs-rest's k functions ``(n, k)``."""
    decision = np.asarray(decision)
    return (decision > 0).astype(int) if decision.ndim == 1 else np.argmax(decision, axis=-1)


def unlabeled_error(decision, y, y_true) -> float:
    """The fraction of the unlabeled points (``y == -1``) of known true class (``y_true`` not
    -1) whose predicted class (``predicted_classes``) is not their true class; NaN when there
    is no such point.

    Classes are indices ``0 .. k-1`` (``classes_[0]`` is f < 0 for a binary decision).

    Examples
    --------
    >>> unlabeled_error([1.0, -2.0, 0.5], y=[1, -1, -1], y_true=[1, 0, 0])
    0.5
    >>> unlabeled_error([1.0, -2.0], y=[1, -1], y_true=[1, -1])
    nan
    """
    y_true = np.asarray(y_true)
    scored = (np.asarray(y) == UNLABELED) & (y_true != UNLABELED)
    if not scored.any():
        return math.nan
    return float(np.mean(predicted_classes(np.asarray(decision)[scored]) != y_true[scored]))


#: The level of the paired tests: a difference counts (a win or a loss) at p < ALPHA.
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """A method's errors over label draws beside the supervised SVM's on the same draws.

    ``mean`` and ``baseline_mean`` are the mean errors with their 95 % confidence intervals
    (``low``, ``high``: Student's t over the draws; NaN with one draw); ``below``, ``equal``
    and ``above`` count the draws where the method erred less than, as much as, more than the
    SVM; ``p_value`` is the two-sided Wilcoxon signed-rank test of the paired differences
    (draws with equal errors left out, Wilcoxon's own rule; 1 when every draw is equal, NaN
    without a draw).
    """

    n: int
    mean: float
    low: float
    high: float
    baseline_mean: float
    baseline_low: float
    baseline_high: float
    below: int
    equal: int
    above: int
    p_value: float

    @property
    def verdict(self) -> str:
        """"better" or "worse" than the SVM when the test says so at ``ALPHA``, else
        "no significant difference" (also without a test)."""
        if not self.p_value < ALPHA:
            return "no significant difference"
        return "better" if self.mean < self.baseline_mean else "worse"

    def sentence(self, what: str = "the supervised SVM") -> str:
        """The comparison in words that claim only what the test supports: "below the
        supervised SVM in 8 of 10 draws (above in 1), p = 0.02: better"."""
        if self.n == 0:
            return "no draw could be scored"
        text = f"below {what} in {self.below} of {self.n} draws"
        if self.above:
            text += f" (above in {self.above})"
        p = "p unknown" if math.isnan(self.p_value) else f"p = {self.p_value:.2g}"
        return f"{text}, {p}: {self.verdict}"


def mean_interval(values) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95 % confidence interval (Student's t); NaN bounds with
    fewer than two values, all NaN without one."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if values.size < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size))
    return mean, mean - half, mean + half


def paired_comparison(errors, baseline_errors) -> PairedComparison:
    """``errors`` of a method over label draws against ``baseline_errors`` of the supervised
    SVM on the same draws (same order; a draw where either is NaN is left out): means with
    95 % intervals, the draws below / equal / above, and the Wilcoxon signed-rank test
    (``scipy.stats.wilcoxon``, two-sided).

    Examples
    --------
    >>> c = paired_comparison([0.1, 0.0, 0.05, 0.02, 0.0, 0.01], [0.3, 0.2, 0.25, 0.2, 0.1, 0.2])
    >>> c.below, c.above, round(c.p_value, 3), c.verdict
    (6, 0, 0.031, 'better')
    """
    errors = np.asarray(errors, dtype=float)
    baseline = np.asarray(baseline_errors, dtype=float)
    if errors.shape != baseline.shape or errors.ndim != 1:
        raise ValueError(f"The errors and the SVM's errors must be two lists of the same draws, "
                         f"got shapes {errors.shape} and {baseline.shape}.")
    known = np.isfinite(errors) & np.isfinite(baseline)
    errors, baseline = errors[known], baseline[known]
    difference = errors - baseline
    if difference.size == 0:
        p_value = math.nan
    elif not np.any(difference):
        p_value = 1.0
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # few draws: scipy notes its normal approximation
            p_value = float(stats.wilcoxon(difference, zero_method="wilcox").pvalue)
    return PairedComparison(
        int(difference.size), *mean_interval(errors), *mean_interval(baseline),
        int(np.sum(difference < 0)), int(np.sum(difference == 0)), int(np.sum(difference > 0)),
        p_value)
