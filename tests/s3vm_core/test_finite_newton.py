"""The primal finite Newton f-step (L2-SVM-MFN) and its least-squares solve by LSQR."""

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

from s3vm_core.solvers.finite_newton import (
    decision,
    squared_hinge_mfn,
    squared_hinge_objective,
    weighted_ridge,
)


def _data(n=70, d=25, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.3, format="csr", random_state=rng)
    c_plus = rng.uniform(size=n) * (rng.uniform(size=n) < 0.7)
    c_minus = rng.uniform(size=n) * (rng.uniform(size=n) < 0.7)
    return X, c_plus, c_minus


def _scipy_minimum(X, c_plus, c_minus, lam, fit_intercept):
    Xd = X.toarray()
    d = Xd.shape[1]

    def fun(v):
        w, b = v[:d], (v[d] if fit_intercept else 0.0)
        o = Xd @ w + b
        value = squared_hinge_objective(w, o, c_plus, c_minus, lam)
        r = -c_plus * np.maximum(0.0, 1.0 - o) + c_minus * np.maximum(0.0, 1.0 + o)
        grad = lam * w + Xd.T @ r
        return value, (np.append(grad, r.sum()) if fit_intercept else grad)

    start = np.zeros(d + fit_intercept)
    return scipy.optimize.minimize(fun, start, jac=True, method="L-BFGS-B",
                                   options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10000}).fun


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("warm", [False, True])
def test_mfn_reaches_the_minimum_scipy_finds(fit_intercept, dense, warm):
    X, c_plus, c_minus = _data()
    lam = 0.05
    w0 = np.random.default_rng(1).normal(size=X.shape[1]) if warm else np.zeros(X.shape[1])
    result = squared_hinge_mfn(X.toarray() if dense else X, c_plus, c_minus, lam, w0,
                               fit_intercept=fit_intercept)
    reference = _scipy_minimum(X, c_plus, c_minus, lam, fit_intercept)
    value = squared_hinge_objective(result.w, result.outputs, c_plus, c_minus, lam)
    assert result.converged and result.newton_steps < 15  # finite convergence
    assert value <= reference * (1 + 1e-7)
    np.testing.assert_allclose(result.outputs, decision(X, result.w, result.b), atol=1e-12)
    if not fit_intercept:
        assert result.b == 0.0


@pytest.mark.parametrize("dense", [False, True])  # LSQR, and Cholesky for few features
def test_weighted_ridge_is_the_normal_equations_with_a_free_bias(dense):
    X, weights, targets = _data(seed=3)
    targets = np.random.default_rng(0).normal(size=weights.size)
    lam = 0.3
    w, b, _, outputs = weighted_ridge(X.toarray() if dense else X, weights, targets, lam,
                                      np.ones(X.shape[1]), 2.0, fit_intercept=True,
                                      tol=1e-12)
    np.testing.assert_allclose(outputs, X @ w + b, atol=1e-12)
    # the gradient of lam/2 ||w||^2 + sum_i weights_i/2 (x_i w + b - t_i)^2 vanishes
    residual = weights * (X @ w + b - targets)
    np.testing.assert_allclose(lam * w + X.T @ residual, 0.0, atol=1e-9)
    assert abs(residual.sum()) < 1e-9


@pytest.mark.parametrize("dense", [False, True])
def test_no_active_example_leaves_only_the_regularizer(dense):
    X, _, _ = _data(seed=4)
    X = X.toarray() if dense else X
    # every example far on its right side: nothing is active, the minimum is w = 0
    c_plus = np.ones(X.shape[0])
    result = squared_hinge_mfn(X, c_plus, np.zeros_like(c_plus), 0.1, np.zeros(X.shape[1]),
                               b=5.0, fit_intercept=True)
    assert result.converged
    np.testing.assert_allclose(result.w, 0.0)
    assert result.b >= 1.0 and np.all(result.outputs >= 1.0)
