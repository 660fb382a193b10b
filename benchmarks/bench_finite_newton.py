"""The least-squares solve inside the primal finite Newton f-step: which solver.

Each Newton step of ``s3vm_core.solvers.finite_newton`` solves
``min lam/2 ||w||^2 + 1/2 sum_i c_i (<w, x_i> - t_i)^2`` on the active rows. This script
times, on the first f-step problem of DA (p = r = 0.5, lam = 1e-3, lam_u = 1, 50 labels),

* scipy's LSQR and LSMR on the stacked operator ``[diag(sqrt c) X; sqrt(lam) I]`` (what the
  library used for sparse or wide data before ``finite_newton.cgls``),
* the library's ``finite_newton.cgls`` (conjugate gradients on the normal equations, stopped
  at a relative backward error of 1e-6 against ``||A||_F``),
* the same CGLS with the stopping rule of L2-SVM-MFN, ``||grad|| < eps ||C (t - X w)||``,
* the normal equations ``(X^T C X + lam I) w = X^T C t`` by Cholesky (what the library uses
  for dense data with few features),

on the sparse text-like data (d = 10,000) and on dense data with few features (the digits).
Each is run from w = 0 to a relative gradient of 1e-6 (the inner tolerance of svmlin and of
the library); the table gives the median time of 5 runs, the iterations and the gradient
reached, ``||X^T C (X w - t) + lam w|| / ||X^T C t||``.

Run ``python -m benchmarks.bench_finite_newton`` (``--help`` for the options).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator, lsmr, lsqr
from threadpoolctl import threadpool_limits

from benchmarks._timing import median_time, parser
from benchmarks.sparse_text import sparse_text_problem
from s3vm_core.solvers.finite_newton import cgls
from toy_data import digits_pair, pick_labeled

TOL = 1e-6
LAM = 1e-3


def _first_f_step(X, labels):
    labeled = labels != -1
    c = np.where(labeled, 1.0 / labeled.sum(), 1.0 / (~labeled).sum())
    t = np.where(labeled, np.where(labels == 1, 1.0, -1.0), 0.0)  # 2p - 1 = 0 at p = 0.5
    return c, t


def _relative_gradient(X, c, t, w):
    g = X.T @ (c * (X @ w - t)) + LAM * w
    return float(np.linalg.norm(g) / np.linalg.norm(X.T @ (c * t)))


def stacked_operator(X, scale, lam):
    """``[diag(scale) X; sqrt(lam) I]`` as a ``LinearOperator``, never formed."""
    m, d = X.shape
    root = np.sqrt(lam)
    X_T = X.T

    def matvec(v):
        v = np.ravel(v)
        return np.concatenate([scale * np.asarray(X @ v).ravel(), root * v])

    def rmatvec(z):
        z = np.ravel(z)
        return np.asarray(X_T @ (scale * z[:m])).ravel() + root * z[m:]

    return LinearOperator((m + d, d), matvec=matvec, rmatvec=rmatvec, dtype=float)


def _krylov(solver):
    def solve(X, c, t):
        operator = stacked_operator(X, np.sqrt(c), LAM)
        rhs = np.concatenate([np.sqrt(c) * t, np.zeros(X.shape[1])])
        out = solver(operator, rhs, atol=TOL, btol=TOL, conlim=1e12, maxiter=10 * X.shape[1])
        return out[0], int(out[2])
    return solve


def _lsqr(operator, rhs, maxiter, **kwargs):
    return lsqr(operator, rhs, iter_lim=maxiter, **kwargs)


def library_cgls(X, c, t):
    """``finite_newton.cgls`` from w = 0."""
    solution = cgls(X, c, t, LAM, np.zeros(X.shape[1]), tol=TOL)
    return solution.w, solution.iterations


def mfn_cgls(X, c, t):
    """Conjugate gradient on ``(X^T C X + lam I) w = X^T C t`` from w = 0, stopped by
    L2-SVM-MFN's rule."""
    w = np.zeros(X.shape[1])
    z = c * t                       # weighted residual C (t - X w)
    r = X.T @ z - LAM * w
    p, gamma = r.copy(), r @ r
    for k in range(1, 10 * X.shape[1]):
        q = X @ p
        alpha = gamma / (LAM * (p @ p) + q @ (c * q))
        w += alpha * p
        z -= alpha * c * q
        r = X.T @ z - LAM * w
        gamma_new = r @ r
        if gamma_new < TOL**2 * (z @ z):
            return w, k
        p = r + gamma_new / gamma * p
        gamma = gamma_new
    return w, k


def cholesky(X, c, t):
    gram = X.T @ (c[:, None] * X)
    gram[np.diag_indices_from(gram)] += LAM
    return scipy.linalg.cho_solve(scipy.linalg.cho_factor(gram), X.T @ (c * t)), 1


SOLVERS = {"LSQR": _krylov(_lsqr), "LSMR": _krylov(lsmr), "CGLS (library)": library_cgls,
           "CGLS, L2-SVM-MFN's rule": mfn_cgls,
           "Cholesky (normal equations)": cholesky}


def main(argv=None):
    args = parser(__doc__, repeats=5).parse_args(argv)
    n_text, repeats = (1000, 1) if args.quick else (10_000, args.repeats)
    text, _, text_labels = sparse_text_problem(n_text)
    digits, y = digits_pair(digits=(3, 8))
    cases = [(f"text n = {n_text:,}, d = 10,000 (sparse)", text, text_labels),
             ("digits 3 vs 8, n = 357, d = 64 (dense)", digits, pick_labeled(y, 5, 0))]
    print("| data | solver | median time (ms) | iterations | relative gradient |")
    print("|---|---|---|---|---|")
    with threadpool_limits(limits=1, user_api="blas"):
        for title, X, labels in cases:
            c, t = _first_f_step(X, labels)
            for name, solve in SOLVERS.items():
                if name.startswith("Cholesky") and X.shape[1] > 1000:
                    continue  # a d x d matrix: not for sparse text
                seconds, (w, iterations) = median_time(
                    lambda solve=solve, X=X, c=c, t=t: solve(X, c, t), repeats)
                print(f"| {title} | {name} | {1000 * seconds:.1f} | "
                      f"{iterations} | {_relative_gradient(X, c, t, w):.1e} |", flush=True)


if __name__ == "__main__":
    main()
