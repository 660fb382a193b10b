"""The least-squares solve inside the primal finite Newton f-step: which solver.

Each Newton step of ``s3vm_core.solvers.finite_newton`` solves
``min lam/2 ||w||^2 + 1/2 sum_i c_i (<w, x_i> - t_i)^2`` on the active rows. This script
times, on the first f-step problem of DA (p = r = 0.5, lam = 1e-3, lam_u = 1, 50 labels),

* scipy's LSQR and LSMR on the stacked operator ``[diag(sqrt c) X; sqrt(lam) I]`` (what the
  library uses for sparse or wide data),
* a plain conjugate gradient on the normal equations (CGLS), written here with numpy for the
  comparison only, with svmlin's stopping rule ``||grad|| < eps ||residual||``,
* the normal equations ``(X^T C X + lam I) w = X^T C t`` by Cholesky (what the library uses
  for dense data with few features),

on the sparse text-like data (d = 10,000) and on dense data with few features (the digits).
Each is run from w = 0 to a relative gradient of 1e-6 (the inner tolerance of svmlin and of
the library); the table gives the median time of 5 runs, the iterations and the gradient
reached, ``||X^T C (X w - t) + lam w|| / ||X^T C t||``.

Run ``python -m benchmarks.bench_finite_newton``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import lsmr, lsqr
from threadpoolctl import threadpool_limits

from benchmarks.sparse_text import sparse_text_problem
from s3vm_core.solvers.finite_newton import stacked_operator
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


def _krylov(solver):
    def solve(X, c, t):
        operator = stacked_operator(X, np.sqrt(c), LAM, False)
        rhs = np.concatenate([np.sqrt(c) * t, np.zeros(X.shape[1])])
        out = solver(operator, rhs, atol=TOL, btol=TOL, conlim=1e12, maxiter=10 * X.shape[1])
        return out[0], int(out[2])
    return solve


def _lsqr(operator, rhs, maxiter, **kwargs):
    return lsqr(operator, rhs, iter_lim=maxiter, **kwargs)


def cgls(X, c, t):
    """Conjugate gradient on ``(X^T C X + lam I) w = X^T C t`` from w = 0 (svmlin's rule)."""
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


SOLVERS = {"LSQR": _krylov(_lsqr), "LSMR": _krylov(lsmr), "CGLS (numpy)": cgls,
           "Cholesky (normal equations)": cholesky}


def main():
    text, _, text_labels = sparse_text_problem(10_000)
    digits, y = digits_pair(digits=(3, 8))
    cases = [("text n = 10,000, d = 10,000 (sparse)", text, text_labels),
             ("digits 3 vs 8, n = 357, d = 64 (dense)", digits, pick_labeled(y, 5, 0))]
    print("| data | solver | median time (ms) | iterations | relative gradient |")
    print("|---|---|---|---|---|")
    with threadpool_limits(limits=1, user_api="blas"):
        for title, X, labels in cases:
            c, t = _first_f_step(X, labels)
            for name, solve in SOLVERS.items():
                if name.startswith("Cholesky") and X.shape[1] > 1000:
                    continue  # a d x d matrix: not for sparse text
                times = []
                for _ in range(5):
                    start = time.perf_counter()
                    w, iterations = solve(X, c, t)
                    times.append(time.perf_counter() - start)
                print(f"| {title} | {name} | {1000 * statistics.median(times):.1f} | "
                      f"{iterations} | {_relative_gradient(X, c, t, w):.1e} |", flush=True)


if __name__ == "__main__":
    main()
