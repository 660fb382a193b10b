"""Primal finite Newton for the weighted squared hinge: the L2-SVM-MFN family.

Keerthi & DeCoste (2005), *A Modified Finite Newton Method for Fast Solution of Large Scale
Linear SVMs*, and Sindhwani & Keerthi (2006), *Large Scale Semi-supervised Linear SVMs*: the
methods the DA paper names for linear kernels (papers/003, §3.1, the paragraph after Eqn. 6:
"updates for the weight vector w are obtained by the finite Newton procedure ... effective
conjugate gradient schemes can be used"). Every f-step of DA with the squared hinge and every
retraining of the label-switching TSVM on the linear path is one call of ``squared_hinge_mfn``;
DA's kernel f-step with the squared hinge (§3.1) is ``newton_squared_hinge``. Both take their
local problems from ``active_sets`` and their steps from ``paired_line_search``.

The problem, with ``o_i = <w, x_i> + b`` and per-point weights of the two labels::

    min_{w, b}  lam/2 ||w||^2 + sum_i [ c_plus_i / 2 max(0, 1 - o_i)^2
                                       + c_minus_i / 2 max(0, 1 + o_i)^2 ]

A labeled point has one nonzero weight, an unlabeled point of DA two. The bias ``b`` is
optional and never regularized. ``X`` is a dense array or a scipy.sparse CSR matrix; it is
never densified, and nothing of size n x n or d x d is formed.

Each Newton step solves the regularized least-squares problem of the current active set by
conjugate gradients on its normal equations (``cgls``, the CGLS of L2-SVM-MFN), warm-started at
the current ``w``, then takes the exact line search of ``losses.squared_hinge_line_search``.
Dense data with few features solve the same problem directly (``weighted_ridge``).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.linalg.blas import daxpy as axpy
from sklearn.exceptions import ConvergenceWarning

from s3vm_core.losses import squared_hinge_line_search

#: Tolerance of the inner least-squares solves (``cgls``: the gradient relative to the
#: weighted residual) and of the active-set check: the epsilon of Keerthi & DeCoste's
#: L2-SVM-MFN, 1e-6 for both (svmlin's ``EPSILON``).
INNER_TOL = 1e-6
#: A Newton run also stops when a step lowers the objective by less than this fraction of it
#: (svmlin's ``RELATIVE_STOP_EPS``, Keerthi & DeCoste 2005 §3).
RELATIVE_STOP = 1e-9
#: Newton steps per call (svmlin's ``MFNITERMAX``); finite convergence makes it a safeguard
#: (warm-started, DA's f-steps usually take 1-3).
NEWTON_MAX_ITER = 50
#: Dense data with at most this many features solve each Newton step's ridge problem by a
#: direct factorization of its normal equations (d x d) instead of LSQR.
DIRECT_MAX_FEATURES = 128


class NewtonResult(NamedTuple):
    """What ``squared_hinge_mfn`` returns: the model, its outputs and the work done."""

    w: np.ndarray
    b: float
    outputs: np.ndarray
    newton_steps: int
    cg_iterations: int
    converged: bool


def decision(X, w, b: float = 0.0) -> np.ndarray:
    """``X w + b`` as a flat float array, for dense or sparse ``X``."""
    return np.asarray(X @ w, dtype=float).ravel() + b


class RidgeSolution(NamedTuple):
    """What ``weighted_ridge`` and ``cgls`` return."""

    w: np.ndarray
    b: float
    iterations: int     # of conjugate gradients (0 for the direct solve)
    outputs: np.ndarray  # X w + b on the rows solved over


def cgls(rows, weights, targets, lam: float, w0, b0: float = 0.0, *,
         fit_intercept: bool = False, tol: float = INNER_TOL, max_iter: int | None = None,
         outputs=None, row_norms=None) -> RidgeSolution:
    """``argmin lam/2 ||w||^2 + 1/2 sum_i weights_i (<w, x_i> + b - targets_i)^2`` by
    conjugate gradients on the normal equations (CGLS, Hestenes & Stiefel), warm-started at
    ``(w0, b0)``: the inner solver of L2-SVM-MFN (Keerthi & DeCoste 2005, §3).

    Least squares on ``A = [diag(sqrt weights) [rows, 1]; sqrt(lam) I, 0]`` (the column of
    ones only with ``fit_intercept``), whose residual ``r`` has
    ``||r||^2 = sum_i weights_i (targets_i - o_i)^2 + lam ||w||^2``. CGLS and LSQR build the
    same iterates in exact arithmetic (Paige & Saunders 1982, §7); this stops by the test of
    LSQR (which the solve used before), ``||A^T r|| <= tol ||A||_F ||r||``, a relative
    backward error of ``tol``, with the Frobenius norm computed exactly,
    ``||A||_F^2 = sum_i weights_i ||x_i||^2 + lam d`` (plus ``sum weights`` for the bias;
    ``row_norms`` are the ``||x_i||^2``, computed here if the caller has not). LSQR measures
    against its running estimate of ``||A||_F``, which falls short of it by far in the few
    iterations of a warm start, and asked 19% more iterations for nothing the objective
    shows: the local problem's objective is off by ``g^T H^-1 g / 2 <= ||A^T r||^2 / (2 lam)``,
    below 1e-8 of DA's objective on sparse text at n = 10,000 (lam = 1e-3), which ends at
    the same six digits as svmlin's. L2-SVM-MFN's own rule,
    ``||A^T r|| < tol ||weights (targets - o)||``, asked about twice as many iterations.

    Each iteration is one product with ``rows`` and one with its transpose (scipy's compiled
    sparse products, or BLAS) and a few vector updates, where LSQR on a ``LinearOperator``
    spent about as long in Python as in the products on sparse text at n = 2,000.
    ``outputs``: ``rows w0 + b0``, if the caller has them; the solution's are updated along
    the way (``o += step q``), which spares the caller a product.
    """
    rows_T = rows.T
    w = np.array(w0, dtype=float)
    b = float(b0) if fit_intercept else 0.0
    if row_norms is None:
        row_norms = squared_row_norms(rows)
    norm_A2 = (float(weights @ row_norms) + lam * w.size
               + (float(weights.sum()) if fit_intercept else 0.0))  # ||A||_F^2
    residual = targets - (decision(rows, w, b) if outputs is None else outputs)  # t - o
    z = weights * residual                        # the weighted residual
    g = axpy(w, np.asarray(rows_T @ z, dtype=float).ravel(), a=-lam)  # A^T r = -gradient
    g_b = float(z.sum()) if fit_intercept else 0.0
    gamma = float(g @ g) + g_b * g_b
    p, p_b = g, g_b
    weighted_q = np.empty_like(z)
    if max_iter is None:
        max_iter = 2 * (w.size + fit_intercept) + 50
    for iteration in range(max_iter + 1):
        r2 = float(residual @ z) + lam * float(w @ w)  # ||r||^2
        if gamma <= tol * tol * norm_A2 * r2 or iteration == max_iter:
            return RidgeSolution(w, b, iteration, targets - residual)
        q = np.asarray(rows @ p, dtype=float).ravel()
        if fit_intercept:
            q += p_b
        np.multiply(weights, q, out=weighted_q)
        step = gamma / (lam * float(p @ p) + float(q @ weighted_q))
        # the updates in place (BLAS axpy: y += a x in one pass, no temporary)
        w = axpy(p, w, a=step)
        b += step * p_b
        residual = axpy(q, residual, a=-step)
        z = axpy(weighted_q, z, a=-step)
        g = axpy(w, np.asarray(rows_T @ z, dtype=float).ravel(), a=-lam)
        g_b = float(z.sum()) if fit_intercept else 0.0
        norm = float(g @ g) + g_b * g_b
        ratio, gamma = norm / gamma, norm
        p = axpy(p, g, a=ratio)                   # g + ratio p, in g's memory
        p_b = g_b + ratio * p_b
    raise AssertionError("unreachable: the loop returns at max_iter")


def squared_row_norms(X) -> np.ndarray:
    """``||x_i||^2`` of every row of a dense or CSR matrix."""
    if not sp.issparse(X):
        return np.einsum("ij,ij->i", X, X)
    X = sp.csr_matrix(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return np.bincount(rows, weights=X.data * X.data, minlength=X.shape[0])


def weighted_ridge(X, weights, targets, lam: float, w0, b0: float = 0.0, *,
                   fit_intercept: bool = False, tol: float = INNER_TOL,
                   max_iter: int | None = None, outputs=None,
                   row_norms=None) -> RidgeSolution:
    """``argmin lam/2 ||w||^2 + sum_i weights_i / 2 (<w, x_i> + b - targets_i)^2``.

    By ``cgls``, warm-started at ``(w0, b0)``, for sparse data or more than
    ``DIRECT_MAX_FEATURES`` features. Rows with zero weight are left out of the products
    when they are more than ``_SKIP_INACTIVE`` of all (selecting them copies the rows, which
    costs about two products). Dense data with few features take the normal equations
    instead: one (d + 1) x (d + 1) factorization costs less than the Python overhead of a few
    iterations (benchmarks/bench_finite_newton.py: 0.3 ms against 7-15 ms on the digits,
    d = 64). ``outputs``: ``X w0 + b0``, and ``row_norms``: ``squared_row_norms(X)``, if the
    caller has them. The solution's ``outputs`` are ``X w + b`` on every row.
    """
    active = weights > 0
    d = X.shape[1]
    if not active.any():  # only the regularizer is left: w = 0, and a free bias stays put
        b = float(b0) if fit_intercept else 0.0
        return RidgeSolution(np.zeros(d), b, 0, np.full(X.shape[0], b))
    if not sp.issparse(X) and d <= DIRECT_MAX_FEATURES:
        w, b = _normal_equations(X[active], weights[active], targets[active], lam,
                                 fit_intercept)
        return RidgeSolution(w, b, 0, decision(X, w, b))
    if row_norms is None:
        row_norms = squared_row_norms(X)
    if np.count_nonzero(active) >= (1.0 - _SKIP_INACTIVE) * active.size:
        return cgls(X, weights, targets, lam, w0, b0, fit_intercept=fit_intercept, tol=tol,
                    max_iter=max_iter, outputs=outputs, row_norms=row_norms)
    kept = np.flatnonzero(active)
    solution = cgls(X[kept], weights[kept], targets[kept], lam, w0, b0,
                    fit_intercept=fit_intercept, tol=tol, max_iter=max_iter,
                    outputs=None if outputs is None else outputs[kept],
                    row_norms=row_norms[kept])
    return solution._replace(outputs=decision(X, solution.w, solution.b))


#: Fraction of zero-weight rows above which ``weighted_ridge`` copies the others out: below,
#: multiplying the inactive rows by zero in each product costs less than the copy (DA's
#: f-steps on text, where only labeled points beyond their margin are inactive).
_SKIP_INACTIVE = 0.1


def _normal_equations(rows, weights, targets, lam, fit_intercept):
    """The ridge problem of ``weighted_ridge`` from its normal equations
    ``([X 1]^T W [X 1] + lam I) x = [X 1]^T W t``, no regularization on the bias column.
    numpy's solver: scipy's Cholesky wrappers cost more than the factorization at this size."""
    if fit_intercept:
        rows = np.hstack([rows, np.ones((rows.shape[0], 1))])
    weighted = rows.T * weights
    gram = weighted @ rows
    d = rows.shape[1] - fit_intercept
    gram[np.arange(d), np.arange(d)] += lam
    x = np.linalg.solve(gram, weighted @ targets)
    return x[:d], float(x[d]) if fit_intercept else 0.0


def squared_hinge_objective(w, outputs, c_plus, c_minus, lam: float) -> float:
    """The objective of the module docstring at ``w`` with outputs ``o = X w + b``."""
    return float(0.5 * lam * (w @ w)
                 + 0.5 * c_plus @ np.maximum(0.0, 1.0 - outputs) ** 2
                 + 0.5 * c_minus @ np.maximum(0.0, 1.0 + outputs) ** 2)


def active_sets(outputs, c_plus, c_minus):
    """The local problem of a Newton step: the copies inside their margin (the index sets of
    DA paper §3.1; Keerthi & DeCoste 2005 §3).

    A point's copy of label +1 is active when ``o < 1``, its copy of label -1 when ``o > -1``
    (with a nonzero weight); on the active copies the squared hinge is the squared loss, so
    the local problem is ``min lam/2 ||f||^2 + sum_i weight_i / 2 (o_i - target_i)^2``.

    Returns ``(act_plus, act_minus, weight, rhs)``: the two masks, each point's weight
    ``c_plus [act_plus] + c_minus [act_minus]`` and ``rhs = weight * target``,
    ``c_plus [act_plus] - c_minus [act_minus]``.
    """
    act_plus = (outputs < 1.0) & (c_plus > 0)
    act_minus = (outputs > -1.0) & (c_minus > 0)
    return (act_plus, act_minus, c_plus * act_plus + c_minus * act_minus,
            c_plus * act_plus - c_minus * act_minus)


def paired_line_search(a0, a1, outputs, rates, c_plus, c_minus) -> float:
    """The exact step along a Newton direction (``losses.squared_hinge_line_search``).

    ``a0`` and ``a1`` are the regularizer's part (``lam <f, d>`` and ``lam ||d||^2``),
    ``outputs`` the current ``o`` and ``rates`` their change along the direction.
    """
    # each point twice: label +1 with weight c_plus and label -1 with weight c_minus
    signs = np.r_[np.ones_like(outputs), -np.ones_like(outputs)]
    weights = np.r_[c_plus, c_minus]
    keep = weights > 0
    delta, _ = squared_hinge_line_search(
        a0, a1, (1.0 - signs * np.r_[outputs, outputs])[keep],
        (signs * np.r_[rates, rates])[keep], weights[keep])
    return delta


def _consistent(outputs, act_plus, act_minus, c_plus, c_minus, tol) -> bool:
    """Whether ``outputs`` keep the active sets they were computed on, up to ``tol``: then
    the least-squares solution is the minimizer (the optimality check of L2-SVM-MFN)."""
    plus = c_plus > 0
    minus = c_minus > 0
    return bool(np.all(outputs[act_plus] <= 1.0 + tol)
                and np.all(outputs[plus & ~act_plus] >= 1.0 - tol)
                and np.all(outputs[act_minus] >= -1.0 - tol)
                and np.all(outputs[minus & ~act_minus] <= -1.0 + tol))


def squared_hinge_mfn(X, c_plus, c_minus, lam: float, w, b: float = 0.0, *,
                      fit_intercept: bool = False, tol: float = INNER_TOL,
                      max_iter: int = NEWTON_MAX_ITER, outputs=None,
                      row_norms=None) -> NewtonResult:
    """Minimize the weighted squared-hinge objective of the module docstring (L2-SVM-MFN).

    Parameters
    ----------
    X : ndarray or scipy.sparse CSR matrix of shape (n, d)
    c_plus, c_minus : ndarray of shape (n,)
        Weights of ``max(0, 1 - o_i)^2 / 2`` and ``max(0, 1 + o_i)^2 / 2``.
    lam : float
        Weight of ``||w||^2 / 2``.
    w, b : the starting point (warm start).
    fit_intercept : bool
        Whether ``b`` is a free, unregularized variable (else it stays at the given value).
    tol : float
        ``cgls`` tolerance and slack of the active-set check.
    max_iter : int
        Newton steps.
    outputs : ndarray, optional
        ``X w + b`` if the caller has it.
    row_norms : ndarray, optional
        ``squared_row_norms(X)`` if the caller has them (``cgls``'s stopping rule).

    Returns
    -------
    NewtonResult
        ``converged`` is False when ``max_iter`` steps were taken without meeting either
        stopping rule (active sets consistent, or a relative decrease below
        ``RELATIVE_STOP``).
    """
    w = np.array(w, dtype=float)
    o = decision(X, w, b) if outputs is None else np.array(outputs, dtype=float)
    objective = squared_hinge_objective(w, o, c_plus, c_minus, lam)
    if row_norms is None and (sp.issparse(X) or X.shape[1] > DIRECT_MAX_FEATURES):
        row_norms = squared_row_norms(X)
    total_cg = 0
    for step in range(1, max_iter + 1):
        act_plus, act_minus, row_weight, rhs = active_sets(o, c_plus, c_minus)
        with np.errstate(invalid="ignore", divide="ignore"):
            target = np.where(row_weight > 0, rhs / row_weight, 0.0)
        w_bar, b_bar, iterations, o_bar = weighted_ridge(
            X, row_weight, target, lam, w, b, fit_intercept=fit_intercept, tol=tol,
            outputs=o, row_norms=row_norms)
        total_cg += iterations
        if _consistent(o_bar, act_plus, act_minus, c_plus, c_minus, tol):
            return NewtonResult(w_bar, b_bar, o_bar, step, total_cg, True)
        direction = w_bar - w
        do = o_bar - o
        delta = paired_line_search(lam * float(w @ direction), lam * float(direction @ direction),
                                   o, do, c_plus, c_minus)
        w = w + delta * direction
        b = b + delta * (b_bar - b)
        o = o + delta * do
        previous, objective = objective, squared_hinge_objective(w, o, c_plus, c_minus, lam)
        if abs(previous - objective) <= RELATIVE_STOP * abs(previous):
            return NewtonResult(w, b, o, step, total_cg, True)
    return NewtonResult(w, b, o, max_iter, total_cg, False)


def newton_squared_hinge(K, alpha, lam, c_plus, c_minus, max_iter=NEWTON_MAX_ITER):
    """DA's f-step for the quadratic hinge on a kernel expansion ``f = K alpha``: primal finite
    Newton with exact line search (DA paper §3.1).

    At each step the examples inside the margin (``active_sets``, the index sets ``i_0 .. i_3``
    of the paper) give a local squared-loss problem ``J^(k)``; its minimizer solves
    ``(lam I + W K_AA) alpha_A = c_plus - c_minus`` on the active points ``A`` (``W`` the active
    weights), solved in the symmetric form ``(lam I + S K_AA S) beta = b / s``,
    ``alpha_A = s beta``, ``s = sqrt(w)`` by Cholesky. The step to it is scaled by an exact line
    search (``paired_line_search``). Warm-started from ``alpha``. Returns ``(alpha, n_steps)``,
    with a ``ConvergenceWarning`` when ``max_iter`` steps did not settle the active sets.
    """
    f = K @ alpha
    previous = None
    for step in range(1, max_iter + 1):
        act_plus, act_minus, w, rhs = active_sets(f, c_plus, c_minus)
        A = w > 0
        signature = (act_plus.tobytes(), act_minus.tobytes())
        if signature == previous:
            return alpha, step - 1
        target = np.zeros_like(alpha)
        if A.any():
            s = np.sqrt(w[A])
            M = lam * np.eye(s.size) + s[:, None] * K[np.ix_(A, A)] * s[None, :]
            beta = scipy.linalg.cho_solve(scipy.linalg.cho_factor(M), rhs[A] / s)
            target[A] = s * beta
        d = target - alpha
        Kd = K @ d
        d_K_d = float(d @ Kd)
        if np.max(np.abs(Kd)) <= 1e-12 * max(1.0, np.max(np.abs(f))):
            return alpha, step  # already at the local problem's minimizer
        delta = paired_line_search(lam * float(alpha @ Kd), lam * d_K_d, f, Kd, c_plus, c_minus)
        alpha = alpha + delta * d
        f = f + delta * Kd
        # With a full step the local problem's minimizer is the true one once the active set
        # stops changing (finite convergence).
        previous = signature if delta >= 1.0 - 1e-9 else None
    warnings.warn(
        f"The squared-hinge Newton f-step did not converge in {max_iter} steps.",
        ConvergenceWarning, stacklevel=3,
    )
    return alpha, max_iter
