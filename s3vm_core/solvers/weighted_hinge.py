"""The hinge f-step of deterministic annealing, solved in the dual by a warm-started active set.

For fixed soft labels ``p`` the DA objective (4) with the hinge ``V(t) = max(0, 1 - t)`` is,
with per-point weights ``c_plus``, ``c_minus`` (``annealing.label_weights``) and
``f = K alpha + b`` (eq. (6), plus the unregularized bias of an SVM)::

    min  lam/2 alpha^T K alpha + sum_i [c_plus_i max(0, 1 - f_i) + c_minus_i max(0, 1 + f_i)]

A weighted SVM whose unlabeled points appear twice, once per label (§3.1). Its dual merges
the two copies of a point into one variable ``gamma_i = beta_plus_i - beta_minus_i``, with
``alpha = gamma / lam`` and ``sum_i gamma_i = 0`` (the bias), and its optimality conditions
say that ``gamma_i`` is a decreasing step function of ``f_i``: ``c_plus`` below the margin
``f = -1``, ``c_plus - c_minus`` between the margins, ``-c_minus`` above ``f = 1``, anywhere
in between the neighbouring values on a margin. Each point is in one of five regions (below,
on, between, on, above the margins); given the regions, the points on a margin fix their
``f`` and the others their ``gamma``, and one small linear system (the margin points and the
bias) gives the rest. The primal-dual active-set method (Hintermueller, Ito & Kunisch, SIAM J.
Optim. 2003; for SVMs the "active set" solvers of Scheinberg, JMLR 2006) moves every point
whose ``f`` or ``gamma`` leaves its region to the region it crossed into and solves again.

Warm-started at the previous alternation's regions (the DA paper's "seeding", §3.1), it needs
one or two solves per alternation: each costs a product with the columns of ``K`` of the
points that changed and a system of the size of the margin set, where LIBSVM on the copies
(``annealing.weighted_svm``) starts from zero on ``2n`` copies every time. Should the active
set cycle, it moves one point at a time (the least-index rule of Murty's principal pivoting,
finite for positive definite systems); should that not settle within its limit either, the
caller falls back to LIBSVM (``converged`` is False).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg

from s3vm_core.kernels import symmetric_product

#: Regions of a point: below the lower margin, on it, between the margins, on the upper
#: margin, above it.
LOW, AT_LOW, MID, AT_HIGH, HIGH = range(5)
_MARGINS = (AT_LOW, AT_HIGH)
#: Block active-set iterations before the one-point-at-a-time rule takes over.
_BLOCK_ITERATIONS = 30
#: KKT tolerance on f (LIBSVM's is 1e-5 in the DA f-step; the active set is exact up to it).
F_TOL = 1e-9


class KernelColumns:
    """``K`` held in memory: the active set reads columns and square blocks of it."""

    def __init__(self, K: np.ndarray):
        self.K = K

    @property
    def size(self) -> int:
        return self.K.shape[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return symmetric_product(self.K, v)

    def columns(self, index: np.ndarray) -> np.ndarray:
        # K is symmetric: rows are contiguous, columns strided; np.take copies the rows in
        # about 60 % of the time of K[index]
        return np.take(self.K, index, axis=0).T

    def block(self, index: np.ndarray) -> np.ndarray:
        return self.K[index[:, None], index]


class LowRankColumns:
    """``K ~ F F^T`` of a feature map ``F`` (n x r, e.g. Nystroem landmarks): never formed."""

    def __init__(self, F: np.ndarray):
        self.F = F

    @property
    def size(self) -> int:
        return self.F.shape[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.F @ (self.F.T @ v)

    def columns(self, index: np.ndarray) -> np.ndarray:
        return self.F @ self.F[index].T

    def block(self, index: np.ndarray) -> np.ndarray:
        rows = self.F[index]
        return rows @ rows.T


class DualStart(NamedTuple):
    """Where an active-set solve starts: every point's region and, optionally, the dual
    variables of the margin points (the last solution's, the DA paper's "seeding", §3.1)."""

    regions: np.ndarray           # int8, one of LOW .. HIGH per point
    gamma: np.ndarray | None


class DualSolution(NamedTuple):
    """What ``WeightedHingeDual.solve`` returns."""

    alpha: np.ndarray
    intercept: float
    converged: bool
    outputs: np.ndarray | None    # f = K alpha + intercept on the points (None if not converged)
    start: DualStart              # the next call's start: where this one ended
    iterations: int


class WeightedHingeDual:
    """The hinge f-step's dual for one kernel and ``lam``; each solve starts where the
    ``start`` it is given says (the last solution's ``start``), and changes nothing here.

    Parameters
    ----------
    kernel : KernelColumns or LowRankColumns
    lam : float
        ``lambda`` of (4).
    max_iter : int, optional
        Active-set iterations per call before giving up (default ``max(500, 5 n)``: a cold
        start from random weights takes about 2 n, a warm one a few).
    """

    def __init__(self, kernel, lam: float, max_iter: int | None = None):
        self.kernel = kernel
        self.lam = float(lam)
        n = kernel.size
        self.max_iter = max(500, 5 * n) if max_iter is None else max_iter

    def solve(self, c_plus: np.ndarray, c_minus: np.ndarray,
              start: DualStart | None = None) -> DualSolution:
        """Minimize the f-step objective for these weights, from ``start`` (None: near
        f = 0). The solution's ``outputs`` are ``f = K alpha + intercept``; when the active
        set does not settle within ``max_iter``, ``converged`` is False and its ``start`` is
        the one this call began from."""
        c_plus = np.asarray(c_plus, dtype=float)
        c_minus = np.asarray(c_minus, dtype=float)
        has_low, has_high = c_minus > 0, c_plus > 0
        lam = self.lam
        if start is None:
            # Start near f = 0: a point with one copy holds gamma = 0 (above its margin),
            # every other point the value between its margins.
            cold = np.where(~has_low, HIGH, np.where(~has_high, LOW, MID))
            start = DualStart(cold.astype(np.int8), None)
        regions = _allowed(start.regions.copy(), has_low, has_high)
        gamma = _fixed_gamma(regions, c_plus, c_minus)
        free = _on_margin(regions)
        if start.gamma is not None:
            low, high = _interval(regions, c_plus, c_minus)
            gamma[free] = np.clip(start.gamma[free], low[free], high[free])
        u = self.kernel.matvec(gamma)  # K gamma, kept current below
        regions, gamma, u = self._feasible(regions, gamma, u, c_plus, c_minus, has_low,
                                           has_high)
        b = 0.0
        scale = float(np.max(c_plus + c_minus))
        for iteration in range(1, self.max_iter + 1):
            free = np.flatnonzero(_on_margin(regions))
            if free.size == 0:
                b, worst = _best_bias(u / lam, regions, has_low, has_high)
                if worst is None:
                    return self._done(regions, gamma, u, b, iteration)
                regions[worst[0]] = worst[1]
                continue
            # The subproblem: margin points at f = -1 or 1, the bias, sum gamma = 0.
            at_low = regions[free] == AT_LOW
            target = np.where(at_low, -1.0, 1.0)
            block = self.kernel.block(free)
            system = np.ones((free.size + 1, free.size + 1))
            system[:-1, :-1] = block / lam
            system[-1, -1] = 0.0
            gamma_free = gamma[free]
            rest = (u[free] - block @ gamma_free) / lam  # K_FB gamma_B / lam
            solution = _solve(system, np.r_[target - rest, gamma_free.sum() - gamma.sum()])
            step = solution[:-1] - gamma_free
            # Round-off of sum gamma = 0 is no move: it must not block a point just freed.
            step[np.abs(step) <= 1e-13 * scale] = 0.0
            cp, cm = c_plus[free], c_minus[free]
            low = np.where(at_low, cp - cm, -cm)
            high = np.where(at_low, cp, cp - cm)
            # Ratio test: the largest part of the step that keeps every gamma in its piece.
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(step > 0, (high - gamma_free) / step,
                                np.where(step < 0, (low - gamma_free) / step, np.inf))
            blocking = int(np.argmin(room))
            size = min(1.0, max(float(room[blocking]), 0.0))
            if size > 0.0:
                u = u + self.kernel.columns(free) @ (size * step)
                gamma[free] = gamma_free + size * step
            if size < 1.0:
                i = free[blocking]
                up = step[blocking] > 0
                gamma[i] = high[blocking] if up else low[blocking]
                regions[i] = ((LOW if up else MID) if at_low[blocking]
                              else (MID if up else HIGH))
                continue
            b = float(solution[-1])
            worst = _worst_fixed(u / lam + b, regions, has_low, has_high)
            if worst is None:
                return self._done(regions, gamma, u, b, iteration)
            regions[worst[0]] = worst[1]
        return DualSolution(gamma / lam, b, False, None, start, self.max_iter)

    def _done(self, regions, gamma, u, b, iteration) -> DualSolution:
        return DualSolution(gamma / self.lam, b, True, u / self.lam + b,
                            DualStart(regions, gamma), iteration)

    def _feasible(self, regions, gamma, u, c_plus, c_minus, has_low, has_high):
        """Restore ``sum gamma = 0`` after the weights changed: first within the pieces of the
        margin points, else by the bias rule of ``_balance_bias`` on the current outputs."""
        excess = float(gamma.sum())
        free = _on_margin(regions)
        low, high = _interval(regions, c_plus, c_minus)
        room = np.where(free, (gamma - low) if excess > 0 else (high - gamma), 0.0)
        if abs(excess) <= 1e-14 * max(float(np.max(c_plus + c_minus)), 1e-300):
            return regions, gamma, u
        if room.sum() >= abs(excess):
            fresh = gamma - np.sign(excess) * abs(excess) * room / room.sum()
        else:
            regions, _ = _balance_bias(u / self.lam, regions, c_plus, c_minus, has_low,
                                       has_high)
            fresh = _fixed_gamma(regions, c_plus, c_minus)
            on = np.flatnonzero(_on_margin(regions))
            fresh[on] = 0.0
            fresh[on] = -fresh.sum()
        changed = np.flatnonzero(fresh != gamma)
        if changed.size > self.kernel.size // 4:
            u = self.kernel.matvec(fresh)
        elif changed.size:
            u = u + self.kernel.columns(changed) @ (fresh[changed] - gamma[changed])
        return regions, fresh, u


def seeded_start(gamma, c_plus, c_minus) -> DualStart:
    """The start at another solver's dual ``gamma`` (LIBSVM's, to its tolerance): the region
    each of its values says."""
    tol = 1e-6 * float(np.max(c_plus + c_minus))
    kink = c_plus - c_minus
    regions = np.where(gamma >= c_plus - tol, LOW, np.where(
        gamma <= -c_minus + tol, HIGH, np.where(np.abs(gamma - kink) <= tol, MID,
                                                np.where(gamma > kink, AT_LOW, AT_HIGH))))
    return DualStart(regions.astype(np.int8), np.asarray(gamma, dtype=float))


def _worst_fixed(f, regions, has_low, has_high):
    """The point off the margins whose output violates its region the most, and the margin it
    should go onto (None when every such point is where it belongs)."""
    # One pass: a point's violation is that of its region (a point between the margins can
    # violate one margin only), the first of the largest wins, as np.argmax picks it.
    below, above = -1.0 - f, f - 1.0
    violation = np.where(regions == LOW, f + 1.0, np.where(regions == HIGH, 1.0 - f, -np.inf))
    between = regions == MID
    violation[between & has_low] = below[between & has_low]
    violation[between & has_high] = np.maximum(violation, above)[between & has_high]
    i = int(np.argmax(violation))
    if not violation[i] > F_TOL:
        return None
    if regions[i] == LOW or (regions[i] == MID and has_low[i] and below[i] == violation[i]):
        return i, AT_LOW
    return i, AT_HIGH


def _best_bias(f0, regions, has_low, has_high):
    """With every point off the margins, the bias in the middle of the range its regions
    allow, and the worst violator at that bias (None when the range is not empty)."""
    upper = np.r_[np.inf, (-1.0 - f0)[(regions == LOW)], (1.0 - f0)[(regions == MID) & has_high]]
    lower = np.r_[-np.inf, (-1.0 - f0)[(regions == MID) & has_low], (1.0 - f0)[regions == HIGH]]
    b_low, b_high = float(lower.max()), float(upper.min())
    if np.isfinite(b_low) and np.isfinite(b_high):
        b = 0.5 * (b_low + b_high)
    else:
        b = b_low if np.isfinite(b_low) else (b_high if np.isfinite(b_high) else 0.0)
    return b, _worst_fixed(f0 + b, regions, has_low, has_high)


def _on_margin(regions):
    return (regions == AT_LOW) | (regions == AT_HIGH)


def _allowed(regions, has_low, has_high):
    """A margin (or the region beyond it) exists only for a copy of non-zero weight."""
    regions[~has_low & ((regions == LOW) | (regions == AT_LOW))] = MID
    regions[~has_high & ((regions == HIGH) | (regions == AT_HIGH))] = MID
    return regions


def _fixed_gamma(regions, c_plus, c_minus):
    """``gamma`` of the points off the margins (the margin points get the between value)."""
    return np.select([regions <= AT_LOW, regions >= AT_HIGH], [c_plus, -c_minus],
                     c_plus - c_minus).astype(float)


def _interval(regions, c_plus, c_minus):
    """The range of ``gamma`` on each point's margin: [c+ - c-, c+] at f = -1, [-c-, c+ - c-]
    at f = 1 (a point off the margins gets its fixed value twice)."""
    fixed = _fixed_gamma(regions, c_plus, c_minus)
    low = np.where(regions == AT_LOW, c_plus - c_minus, np.where(regions == AT_HIGH, -c_minus,
                                                                   fixed))
    high = np.where(regions == AT_LOW, c_plus, np.where(regions == AT_HIGH, c_plus - c_minus,
                                                          fixed))
    return low, high


def _balance_bias(f0, regions, c_plus, c_minus, has_low, has_high):
    """With no point on a margin the bias alone must balance ``sum gamma = 0``: the b at which
    the decreasing step function ``sum_i gamma_i(f0_i + b)`` passes 0; the point whose margin
    it reaches there goes onto that margin, the others take the regions of ``f0 + b``."""
    # Passing f = -1 upwards drops gamma by c_minus, passing f = 1 drops it by c_plus.
    steps = np.r_[-1.0 - f0[has_low], 1.0 - f0[has_high]]
    drops = np.r_[c_minus[has_low], c_plus[has_high]]
    which = np.r_[np.flatnonzero(has_low), np.flatnonzero(has_high)]
    margin_of = np.r_[np.full(has_low.sum(), AT_LOW), np.full(has_high.sum(), AT_HIGH)]
    order = np.argsort(steps, kind="stable")
    remaining = float(c_plus.sum()) - np.cumsum(drops[order])
    k = int(np.searchsorted(-remaining, 0.0))  # first step after which the sum is <= 0
    k = min(k, order.size - 1)
    b = float(steps[order[k]])
    f = f0 + b
    regions = np.full(f.size, MID, dtype=np.int8)
    regions[has_low & (f < -1.0)] = LOW
    regions[has_high & (f > 1.0)] = HIGH
    regions[which[order[k]]] = margin_of[order[k]]
    return regions, b


def _solve(system, rhs):
    try:
        return np.linalg.solve(system, rhs)
    except np.linalg.LinAlgError:  # margin points with identical kernel rows
        return scipy.linalg.lstsq(system, rhs, check_finite=False)[0]
