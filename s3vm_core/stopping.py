"""Early stopping criteria of preconditioned conjugate gradient (LapSVM paper, §4).

Melacci & Belkin (2011) compare the classical goal conditions of gradient methods (§4: the
gradient norm, the preconditioned gradient norm, the mixed product ``sqrt(grad_hat^T grad)``,
each normalized by its value at t = 0, and the relative decrease of the objective) with checks
built on the classifier's decisions (§4.1): the stability check (Algorithm 2), the validation
check (Algorithm 3) and the mixed check that merges them.

Every criterion has the same small interface::

    criterion.start(progress_at_t0)          # once, before the first PCG iteration
    value, stop = criterion.check(progress)  # after every PCG iteration t = 1, 2, ...

``value`` is what the criterion watches (recorded in each ``SolverState.extras`` so the app can
show where every criterion would have stopped), ``stop`` whether it says "stop PCG" now.
``make_criterion(name, ...)`` builds one by name; ``CRITERIA`` lists the names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Names accepted by ``make_criterion`` (and by ``LapSVM(stopping=...)``).
CRITERIA = (
    "stability", "validation", "mixed",
    "grad_norm", "grad_norm_preconditioned", "mixed_product", "objective",
)

#: Default threshold of each criterion. Stability: eta = 1.5 % (Algorithm 2). Validation: eta
#: is one validation example, 1/|V| (Algorithm 3), resolved when the set is known. The classical
#: thresholds are not given by the paper (it argues no good value exists, §4); these are the
#: defaults of the authors' Matlab library that the paper links in §1
#: (http://www.dii.unisi.it/~melacci/lapsvmp/, lapsvmp.m, S. Melacci 2012): ``CgStopParam``
#: 1e-8 for CgStopType 4-6 (gradient, preconditioned gradient and mixed norms, normalized) and
#: 1e-6 for CgStopType 7 (relative objective change), with ``CgStopIter`` = 1, a check after
#: every iteration, as here. Its stability and validation defaults are Algorithms 2-3's.
DEFAULT_TOL = {
    "stability": 0.015,
    "validation": None,
    "mixed": 0.015,
    "grad_norm": 1e-8,
    "grad_norm_preconditioned": 1e-8,
    "mixed_product": 1e-8,
    "objective": 1e-6,
}


@dataclass(frozen=True, slots=True)
class Progress:
    """What a criterion may look at after PCG iteration ``iteration`` (0 = the start).

    Attributes
    ----------
    iteration : int
    objective : float
        The objective of eq. (7).
    grad_norm : float
        ``||grad||`` of eq. (9).
    grad_norm_preconditioned : float
        ``||grad_hat||`` with ``grad_hat = P^{-1} grad``, ``P = diag(1, K)`` (§3.2).
    mixed_product : float
        ``sqrt(grad_hat^T grad)`` (Shewchuk 1994, §4).
    unlabeled_decision : ndarray
        f on the unlabeled training points.
    validation_error : float
        Error rate on the labeled validation set (``nan`` without one).
    """

    iteration: int
    objective: float
    grad_norm: float
    grad_norm_preconditioned: float
    mixed_product: float
    unlabeled_decision: np.ndarray
    validation_error: float = math.nan


def default_check_every(n: int) -> int:
    """The checking period theta = sqrt(n) / 2 of Algorithms 2 and 3 (at least 1)."""
    return max(1, round(math.sqrt(n) / 2))


def _ratio(value: float, first: float) -> float:
    # Normalized by the value at t = 0 (§4, Figures 4, 13, 14); a zero start means converged.
    return value / first if first > 0 else 0.0


class _NormalizedNorm:
    """Classical goal condition: a norm normalized by its t = 0 value falls below ``tol``."""

    def __init__(self, field: str, tol: float):
        self.name = field
        self.tol = tol
        self._first = math.nan

    def start(self, progress: Progress) -> None:
        self._first = getattr(progress, self.name)

    def check(self, progress: Progress) -> tuple[float, bool]:
        value = _ratio(getattr(progress, self.name), self._first)
        return value, value < self.tol


class RelativeObjectiveDecrease:
    """Classical goal condition: ``(obj_{t-1} - obj_t) / |obj_{t-1}| < tol`` (§4)."""

    name = "objective"

    def __init__(self, tol: float):
        self.tol = tol
        self._previous = math.nan

    def start(self, progress: Progress) -> None:
        self._previous = progress.objective

    def check(self, progress: Progress) -> tuple[float, bool]:
        previous, self._previous = self._previous, progress.objective
        value = (previous - progress.objective) / abs(previous) if previous != 0 else 0.0
        return value, value < self.tol


class StabilityCheck:
    """The stability check of Algorithm 2 (§4.1).

    Every ``theta`` iterations, with ``d`` the decisions ``sign f(x_j)`` on the u unlabeled
    points and ``d_old`` those at the previous check (initially the zero vector),
    ``tau = ||d - d_old||_1 / u``; stop when ``tau < eta``, otherwise ``d_old = d``.

    ``tau`` is a fraction (the paper writes it in percent: eta = 1.5 % is ``eta=0.015``).
    Taken literally, as here, a flipped decision changes ``d`` by 2 and counts ``2/u``, so
    eta = 1.5 % tolerates 0.75 % of flipped unlabeled decisions. The first check compares with
    ``d_old = 0`` and so never stops (tau = 1). The value reported after every iteration is
    ``tau`` against the last check's ``d_old``; ``stop`` is only ever true at a check.
    With no unlabeled point the decisions cannot change: tau = 0.
    """

    name = "stability"

    def __init__(self, eta: float, theta: int):
        self.eta = eta
        self.theta = theta
        self._d_old = None

    def start(self, progress: Progress) -> None:
        self._d_old = np.zeros_like(progress.unlabeled_decision)

    def tau(self, progress: Progress) -> float:
        d = np.sign(progress.unlabeled_decision)
        return float(np.abs(d - self._d_old).sum() / d.size) if d.size else 0.0

    def check(self, progress: Progress) -> tuple[float, bool]:
        tau = self.tau(progress)
        if progress.iteration % self.theta != 0:
            return tau, False
        if tau < self.eta:
            return tau, True
        self._d_old = np.sign(progress.unlabeled_decision)
        return tau, False


class ValidationCheck:
    """The validation check of Algorithm 3 (§4.1).

    Every ``theta`` iterations: stop when ``err(V) > err_old - eta``, otherwise
    ``err_old = err(V)``, with ``err_old`` initially 100 % and ``eta = 1/|V|`` by default (the
    classifier must get one more validation example right at each check). Errors are fractions.
    """

    name = "validation"

    def __init__(self, eta: float, theta: int):
        self.eta = eta
        self.theta = theta
        self._err_old = 1.0

    def start(self, progress: Progress) -> None:
        self._err_old = 1.0

    def check(self, progress: Progress) -> tuple[float, bool]:
        err = progress.validation_error
        if progress.iteration % self.theta != 0:
            return err, False
        if err > self._err_old - self.eta:
            return err, True
        self._err_old = err
        return err, False


class MixedCheck:
    """The mixed check of §4.1: stability and validation checks merged.

    At each check (every ``theta`` iterations) PCG stops only when both checks say stop at the
    same time; each check keeps its own reference (``d_old``, ``err_old``), updated as in
    Algorithms 2 and 3. This is the strictest of the two, as the paper observes in §6.4
    ("the mixed criterion has generally the same behavior of the most strict of the two").
    The value reported is the stability ``tau``.
    """

    name = "mixed"

    def __init__(self, stability: StabilityCheck, validation: ValidationCheck):
        self.stability = stability
        self.validation = validation

    def start(self, progress: Progress) -> None:
        self.stability.start(progress)
        self.validation.start(progress)

    def check(self, progress: Progress) -> tuple[float, bool]:
        tau, stable = self.stability.check(progress)
        _, validated = self.validation.check(progress)
        return tau, stable and validated


def make_criterion(name: str, *, n: int, tol: float | None = None,
                   check_every: int | None = None, n_validation: int = 0):
    """Build the criterion called ``name`` (one of ``CRITERIA``) for a problem of ``n`` points.

    Parameters
    ----------
    name : str
    n : int
        Number of training points (sets theta = sqrt(n)/2 of Algorithms 2-3).
    tol : float or None
        The threshold (``eta`` of the stability check and of the stability part of the mixed
        check; ``eta`` of the validation check; ``tau`` of the classical ones). ``None`` takes
        ``DEFAULT_TOL``; for the validation check ``1 / n_validation``.
    check_every : int or None
        theta of the data-based checks; ``None`` takes ``default_check_every(n)``. The
        classical criteria are checked after every iteration.
    n_validation : int
        Size of the labeled validation set (needed by "validation" and "mixed").
    """
    if name not in CRITERIA:
        raise ValueError(
            f"Unknown stopping criterion {name!r}; choose one of {', '.join(CRITERIA)}."
        )
    theta = default_check_every(n) if check_every is None else int(check_every)
    if name in ("validation", "mixed") and n_validation < 1:
        raise ValueError(
            f"The {name!r} stopping check needs a labeled validation set, and none was given. "
            "Pass one to fit/trace: fit(X, y, X_val=..., y_val=...), or choose "
            "stopping='stability'."
        )
    if name == "stability":
        return StabilityCheck(DEFAULT_TOL[name] if tol is None else tol, theta)
    if name == "validation":
        return ValidationCheck(1.0 / n_validation if tol is None else tol, theta)
    if name == "mixed":
        eta = DEFAULT_TOL[name] if tol is None else tol
        return MixedCheck(StabilityCheck(eta, theta), ValidationCheck(1.0 / n_validation, theta))
    if name == "objective":
        return RelativeObjectiveDecrease(DEFAULT_TOL[name] if tol is None else tol)
    return _NormalizedNorm(name, DEFAULT_TOL[name] if tol is None else tol)


def make_all_criteria(*, n: int, check_every: int | None = None, n_validation: int = 0,
                      tols: dict | None = None) -> dict:
    """Every criterion that can run on this problem, keyed by name (for recording them all)."""
    tols = tols or {}
    names = [c for c in CRITERIA if n_validation > 0 or c not in ("validation", "mixed")]
    return {
        name: make_criterion(name, n=n, tol=tols.get(name), check_every=check_every,
                             n_validation=n_validation)
        for name in names
    }
