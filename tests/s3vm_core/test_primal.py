"""The shared primal machinery: PrimalMap (cS3VM §2.2-2.3) and s3vm_objective (LDS eq. (4))."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import check_grad
from sklearn.datasets import make_moons
from threadpoolctl import threadpool_limits

from s3vm_core.kernels import kernel_matrix
from s3vm_core.problem import make_problem
from s3vm_core.solvers.primal import CentredRows, PrimalMap, s3vm_objective


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # Small eigendecompositions run many times slower with BLAS threads on a busy 2-core box.
    with threadpool_limits(1):
        yield


def _moons(n=120, n_labeled=6, seed=0):
    X, y = make_moons(n_samples=n, noise=0.1, random_state=seed)
    y = y.copy()
    rng = np.random.default_rng(seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(y == c), n_labeled // 2, replace=False)
                           for c in (0, 1)])
    y_semi = np.full(n, -1)
    y_semi[keep] = y[keep]
    return X, y_semi


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_map_reproduces_centred_kernel_and_balance(kernel):
    X, y = _moons()
    problem = make_problem(X, y)
    pm = PrimalMap.fit(X, problem, kernel=kernel, sigma_=0.5, degree=2, coef0=1.0)
    unl = problem.unlabeled
    # Z Z^T is K centred on the unlabeled mean in feature space (§2.2, §2.3).
    if kernel == "linear":
        Xc = X - X[unl].mean(axis=0)
        K_c = Xc @ Xc.T
    else:
        K = kernel_matrix(X, X, kernel, 0.5, 2, 1.0)
        H = np.eye(len(X)) - np.outer(np.ones(len(X)), unl) / unl.sum()
        K_c = H @ K @ H.T
    Z = _dense(pm.Z)
    np.testing.assert_allclose(Z @ Z.T, K_c, atol=1e-8)
    # The out-of-sample map agrees with the training coordinates.
    np.testing.assert_allclose(_dense(pm.transform(X)), Z, atol=1e-7)
    # Balancing constraint (3): mean unlabeled output equals the mean labeled label, any w.
    w = np.random.default_rng(1).normal(size=pm.Z.shape[1])
    f = pm.Z @ w + pm.bias
    assert pm.bias == pytest.approx(problem.y[problem.labeled].mean())
    assert f[unl].mean() == pytest.approx(pm.bias, abs=1e-9)
    # features() @ coef + intercept is the same decision function
    coef, intercept = pm.decision_parts(w)
    np.testing.assert_allclose(pm.features(X) @ coef + intercept, f, atol=1e-10)


def _dense(Z):
    """The linear kernel's coordinates are CentredRows (never formed for sparse data)."""
    return Z.toarray() if isinstance(Z, CentredRows) else Z


def test_centred_rows_of_sparse_data_act_as_the_centred_matrix():
    rng = np.random.default_rng(5)
    X = sp.random(30, 12, density=0.3, format="csr", random_state=rng)
    shift, scale = rng.normal(size=12), rng.uniform(0.5, 2.0, size=30)
    Z = CentredRows(X, shift, scale)
    dense = scale[:, None] * (X.toarray() - shift)
    v, u, V = rng.normal(size=12), rng.normal(size=30), rng.normal(size=(12, 3))
    np.testing.assert_allclose(Z @ v, dense @ v, atol=1e-12)
    np.testing.assert_allclose(Z @ V, dense @ V, atol=1e-12)
    np.testing.assert_allclose(Z.T @ u, dense.T @ u, atol=1e-12)
    np.testing.assert_allclose(Z.row_norms(), np.linalg.norm(dense, axis=1), atol=1e-12)
    rows = np.array([3, 7, 8])
    np.testing.assert_allclose(Z.rows(rows, np.full(3, 2.0)).toarray(), 2 * dense[rows],
                               atol=1e-12)
    assert sp.issparse(Z.X)  # nothing was densified


def test_rank_deficient_kernel_keeps_only_its_span():
    # 60 points but only 10 distinct ones: K has rank <= 10, so at most 10 coordinates.
    X, y = _moons(60)
    X = np.repeat(X[:10], 6, axis=0)
    y = np.full(60, -1)
    y[[0, 7]] = [0, 1]
    pm = PrimalMap.fit(X, make_problem(X, y), kernel="rbf", sigma_=0.5)
    assert pm.Z.shape[1] <= 10
    assert np.all(np.isfinite(pm.transform(X)))


def test_n_components_keeps_the_leading_ones():
    X, y = _moons()
    problem = make_problem(X, y)
    full = PrimalMap.fit(X, problem, kernel="rbf", sigma_=0.5)
    small = PrimalMap.fit(X, problem, kernel="rbf", sigma_=0.5, n_components=5)
    assert small.Z.shape == (len(X), 5)
    np.testing.assert_allclose(np.abs(small.Z), np.abs(full.Z[:, :5]), atol=1e-6)


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_objective_gradient_matches_finite_differences(loss):
    X, y = _moons()
    problem = make_problem(X, y)
    pm = PrimalMap.fit(X, problem, kernel="rbf", sigma_=0.5)
    kw = dict(Z=pm.Z, y=problem.y, C=10.0, C_star=5.0, s=3.0, bias=pm.bias, loss=loss)
    rng = np.random.default_rng(2)
    for _ in range(3):
        w = rng.normal(scale=0.5, size=pm.Z.shape[1])
        err = check_grad(lambda v: s3vm_objective(v, **kw)[0],
                         lambda v: s3vm_objective(v, **kw)[1], w)
        assert err < 1e-4 * max(1.0, np.linalg.norm(s3vm_objective(w, **kw)[1]))


def test_objective_value_is_the_papers_formula():
    Z = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    y = np.array([1, -1, 0])
    w = np.array([0.5, 0.25])
    f = Z @ w + 0.0  # [0.5, 0.5, 0.75]
    expected = 0.5 * w @ w + 2 * ((1 - 0.5) ** 2 + (1 + 0.5) ** 2) + 3 * np.exp(-3 * 0.75**2)
    value, _ = s3vm_objective(w, Z, y, C=2.0, C_star=3.0, bias=0.0)
    assert value == pytest.approx(expected)
    assert f[2] == 0.75


def test_subset_map_of_section_5_2_keeps_balance_and_is_exact_with_all_points():
    X, y = _moons()
    problem = make_problem(X, y)
    sub = PrimalMap.fit(X, problem, kernel="rbf", sigma_=0.5, n_components=15,
                        landmarks=np.arange(0, 120, 4))
    assert sub.Z.shape == (120, 15)
    np.testing.assert_allclose(sub.transform(X), sub.Z, atol=1e-8)
    assert np.abs(sub.Z[problem.unlabeled].mean(axis=0)).max() < 1e-10  # constraint (3)
    # With every point as a landmark the map is the exact centred kernel-PCA map.
    full = PrimalMap.fit(X, problem, kernel="rbf", sigma_=0.5)
    every = PrimalMap.fit(X, problem, kernel="rbf", sigma_=0.5, landmarks=np.arange(120))
    np.testing.assert_allclose(every.Z @ every.Z.T, full.Z @ full.Z.T, atol=1e-6)


def test_fully_labeled_data_leave_the_kernel_uncentred():
    X, y = make_moons(n_samples=30, noise=0.1, random_state=0)
    pm = PrimalMap.fit(X, make_problem(X, y), kernel="rbf", sigma_=0.5)
    np.testing.assert_allclose(pm.Z @ pm.Z.T, kernel_matrix(X, X, "rbf", 0.5), atol=1e-8)
    np.testing.assert_allclose(pm.transform(X), pm.Z, atol=1e-7)
