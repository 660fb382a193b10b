"""The hinge f-step of DA by the warm-started dual active set (s3vm_core.solvers.weighted_hinge)."""

import numpy as np
import pytest

from s3vm_core.kernels import rbf_kernel
from s3vm_core.solvers.annealing import label_weights, weighted_svm
from s3vm_core.solvers.weighted_hinge import KernelColumns, LowRankColumns, WeightedHingeDual
from toy_data import pick_labeled, two_moons

LAM = 1e-3


def _problem(n=160, sigma=0.25):
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    signed = np.where(labels == -1, 0, np.where(labels == 1, 1, -1))
    return rbf_kernel(X, X, sigma), signed


def _objective(K, alpha, b, c_plus, c_minus):
    f = K @ alpha + b
    return (0.5 * LAM * alpha @ K @ alpha + c_plus @ np.maximum(0.0, 1.0 - f)
            + c_minus @ np.maximum(0.0, 1.0 + f))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_active_set_reaches_the_minimum_libsvm_finds_on_the_point_copies(seed):
    K, y = _problem()
    p = np.random.default_rng(seed).uniform(size=np.count_nonzero(y == 0))
    c_plus, c_minus = label_weights(y, p, 1.0)
    alpha, b, converged, *_ = WeightedHingeDual(KernelColumns(K), LAM).solve(c_plus, c_minus)
    reference = weighted_svm(K, LAM, c_plus, c_minus)
    assert converged
    ours, theirs = _objective(K, alpha, b, c_plus, c_minus), _objective(K, *reference[:2],
                                                                          c_plus, c_minus)
    # LIBSVM stops at a KKT tolerance of 1e-5: the exact minimum is at most that much lower
    assert ours <= theirs + 1e-9
    assert ours >= theirs - 1e-4 * theirs
    # optimality: the dual balances the bias, and every point sits where its gamma says
    gamma = alpha * LAM
    assert abs(gamma.sum()) < 1e-10
    f = K @ alpha + b
    assert np.all((f < 1 - 1e-7) | (gamma <= c_plus - c_minus + 1e-12))  # below f=1: not less


def test_a_warm_start_after_a_small_change_of_the_weights_takes_few_steps():
    K, y = _problem()
    u = np.count_nonzero(y == 0)
    p = np.random.default_rng(0).uniform(size=u)
    solver = WeightedHingeDual(KernelColumns(K), LAM)
    cold = solver.solve(*label_weights(y, p, 1.0))
    nudged = np.clip(p + 0.01 * np.random.default_rng(1).standard_normal(u), 0, 1)
    warm = solver.solve(*label_weights(y, nudged, 1.0), cold.start)
    alpha, b = warm.alpha, warm.intercept
    assert warm.converged
    assert warm.iterations < cold.iterations / 3
    fresh = WeightedHingeDual(KernelColumns(K), LAM).solve(*label_weights(y, nudged, 1.0))
    np.testing.assert_allclose(K @ alpha + b, K @ fresh[0] + fresh[1], atol=1e-6)


def test_a_low_rank_kernel_gives_the_same_f_step_as_its_matrix():
    K, y = _problem(n=120)
    lam_, U = np.linalg.eigh(K)
    keep = lam_ > 1e-10 * lam_[-1]
    F = U[:, keep] * np.sqrt(lam_[keep])  # F F^T = K up to the dropped round-off
    c_plus, c_minus = label_weights(y, np.full(np.count_nonzero(y == 0), 0.3), 1.0)
    dense = WeightedHingeDual(KernelColumns(K), LAM).solve(c_plus, c_minus)
    low_rank = WeightedHingeDual(LowRankColumns(F), LAM).solve(c_plus, c_minus)
    np.testing.assert_allclose(K @ dense[0] + dense[1], K @ low_rank[0] + low_rank[1],
                               atol=1e-6)
