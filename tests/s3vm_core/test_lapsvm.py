"""LapSVM in the primal (Newton, PCG) and LapRLSC (Melacci & Belkin 2011)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from s3vm_core.estimator_checks import expected_failed_checks
from s3vm_core.graph import graph_laplacian, knn_adjacency
from s3vm_core.kernels import rbf_kernel
from s3vm_core.solvers.lapsvm import (
    LapRLSC,
    LapSVM,
    exact_line_search,
    lapsvm_gradient,
    lapsvm_hessian,
    lapsvm_objective,
)
from s3vm_core.solvers.svm import SVMBaseline
from s3vm_core.trace import decision_on_grid

#: Two moons hyperparameters (the paper does not give those of Figure 3; sigma fits the moons'
#: scale, gamma_A/gamma_I are on the grid of §6.3).
MOONS = dict(sigma=0.2, gamma_A=1e-2, gamma_I=1.0)


def moons(seed=2, n=200):
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(n_samples=n, noise=0.05, random_state=seed)
    return X, y, pick_labeled(y, 1, random_state=seed)


@pytest.fixture(scope="module")
def small_problem():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = np.zeros(30)
    y[:6] = [1, -1, 1, -1, 1, -1]
    K = rbf_kernel(X, X, 1.0)
    return K, y


# -- objective, gradient, Hessian, line search -------------------------------------------------


@pytest.mark.parametrize("hinge", [True, False])
@pytest.mark.parametrize("normalized", [True, False])
def test_gradient_and_generalized_hessian_match_finite_differences(small_problem, hinge,
                                                                   normalized):
    K, y = small_problem
    X_graph = np.random.default_rng(2).normal(size=(30, 2))
    L = graph_laplacian(knn_adjacency(X_graph, 4), normalized=normalized)
    z = np.random.default_rng(3).normal(scale=0.3, size=31)
    args = (K, L, y, 0.1, 0.5, hinge)
    grad = lapsvm_gradient(z, *args)
    H = lapsvm_hessian(z, *args)
    h = 1e-6
    for i in range(31):
        e = np.zeros(31)
        e[i] = h
        numeric = (lapsvm_objective(z + e, *args) - lapsvm_objective(z - e, *args)) / (2 * h)
        assert numeric == pytest.approx(grad[i], rel=1e-5, abs=1e-7)
        column = (lapsvm_gradient(z + e, *args) - lapsvm_gradient(z - e, *args)) / (2 * h)
        assert np.allclose(column, H[:, i], rtol=1e-5, atol=1e-6)


def test_exact_line_search_finds_the_minimum_along_the_line():
    rng = np.random.default_rng(4)
    y = rng.choice([-1.0, 1.0], 40)
    residual = rng.normal(size=40) - y * 0.5
    fd = rng.normal(size=40)
    a0, a1 = -3.0, 0.5

    def phi(s):  # obj(z + s d) up to a constant, with psi = phi'
        f = residual + y + s * fd
        loss = np.maximum(0, 1 - y * f) ** 2
        return a0 * s + 0.5 * a1 * s * s + 0.5 * loss.sum()

    s, n_pieces = exact_line_search(a0, a1, residual, fd, y)
    grid = np.linspace(0, 3 * s, 30001)
    assert phi(s) <= min(phi(g) for g in grid) + 1e-12
    assert n_pieces >= 1


# -- the paper's behaviour ---------------------------------------------------------------------


def test_pcg_reaches_the_newton_optimum():
    X, y, yl = moons()
    newton = LapSVM(**MOONS).fit(X, yl)
    pcg = LapSVM(solver="pcg", **MOONS).fit(X, yl)
    assert pcg.stopped_by_ == "converged"
    assert pcg.objective_ == pytest.approx(newton.objective_, rel=1e-6)
    assert np.array_equal(pcg.predict(X), newton.predict(X))
    assert np.array_equal(newton.transduction_, y)


def test_pcg_default_stop_fires_before_max_iter_at_newtons_decisions():
    """With the defaults (gamma_A = 1e-6, the median-distance sigma) K is numerically
    singular and PCG creeps: the default stop (gradient norm at 1e-8 of its start) must still
    end it before max_iter, on the decisions of Newton's optimum."""
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(n_samples=1000, noise=0.1, random_state=0)
    yl = pick_labeled(y, 2, random_state=0)
    newton = LapSVM().fit(X, yl)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        pcg = LapSVM(solver="pcg").fit(X, yl)
    assert pcg.stopped_by_ == "converged" and pcg.n_iter_ < pcg.max_iter
    np.testing.assert_allclose(pcg.decision_function(X), newton.decision_function(X),
                               atol=1e-4)


@pytest.mark.parametrize("estimator", [LapSVM, LapRLSC])
@pytest.mark.parametrize("seed", [0, 1])
def test_pcg_with_k_in_float32_keeps_the_float64_objective_and_decisions(estimator, seed):
    """kernel_dtype="float32" stores K in float32 for PCG's one product a step. Its rounding
    of K (6e-8 of each value) moves PCG's path early on, so the stability check (theta = 10
    here) may fire one check later; where it stops, the objective (7) agrees to five digits,
    beyond the three the paper prints, and every unlabeled decision is the same."""
    from s3vm_core.stopping import default_check_every
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(n_samples=400, noise=0.1, random_state=seed)
    yl = pick_labeled(y, 2, random_state=seed)
    full, single = [estimator(solver="pcg", stopping="stability", kernel_dtype=dtype, p=2,
                              **MOONS).fit(X, yl) for dtype in ("float64", "float32")]
    assert single.stopped_by_ == full.stopped_by_ == "stability"
    assert abs(single.n_iter_ - full.n_iter_) <= default_check_every(400)
    assert single.objective_ == pytest.approx(full.objective_, rel=1e-5)
    assert np.array_equal(single.transduction_, full.transduction_)
    np.testing.assert_allclose(single.decision_function(X), full.decision_function(X),
                               atol=1e-2)


def test_newton_and_pcg_use_l_to_the_p_as_p_products():
    """With p > 1 the intrinsic norm is f^T L^p f (Table 8's degree); Newton and PCG apply L^p as
    p products by L, and reach the optimum of the formed L^p."""
    from s3vm_core.solvers.lapsvm import newton_path

    X, y, yl = moons(n=150)
    newton = LapSVM(p=3, **MOONS).fit(X, yl)
    K = rbf_kernel(X, X, MOONS["sigma"])
    signed = np.where(yl == -1, 0.0, np.where(yl == 1, 1.0, -1.0))
    *_, (b, alpha) = newton_path(K, newton.laplacian_, signed, MOONS["gamma_A"],
                                 MOONS["gamma_I"])
    np.testing.assert_allclose(newton.coef_, alpha, rtol=1e-6, atol=1e-8)
    pcg = LapSVM(p=3, solver="pcg", **MOONS).fit(X, yl)
    assert pcg.objective_ == pytest.approx(newton.objective_, rel=1e-6)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_k_and_the_graph_in_blocks_give_the_fit_at_once(kernel, monkeypatch):
    """LapSVM reads its k-NN graph off the distances its K is computed from; computed in
    blocks of rows (as above 256 MB), they give the graph of the search and the same fit."""
    from s3vm_core import kernels

    X, y, yl = moons(n=300)
    params = {**MOONS, "kernel": kernel, "degree": 2}
    whole = LapSVM(solver="pcg", **params).fit(X, yl)
    searched = graph_laplacian(knn_adjacency(X, whole.n_neighbors), normalized=True)
    assert (whole.laplacian_ != searched).nnz == 0
    monkeypatch.setattr(kernels, "KERNEL_BLOCK_BYTES", 8 * 300 * 7)
    blocked = LapSVM(solver="pcg", **params).fit(X, yl)
    assert (blocked.laplacian_ != searched).nnz == 0
    assert blocked.objective_ == pytest.approx(whole.objective_, rel=1e-10)
    np.testing.assert_array_equal(blocked.transduction_, whole.transduction_)


def test_newton_converges_in_few_steps_on_g50c():
    from toy_data import g50c, pick_labeled

    X, y = g50c(n_samples=300, random_state=0)
    yl = pick_labeled(y, 25, random_state=0)  # |L| = 50 as Table 2
    # Table 8, G50C, LapSVM primal (Newton): sigma 17.5, nn 50, p 5, gamma_A 0.1, gamma_I 10.
    model = LapSVM(sigma=17.5, n_neighbors=50, p=5, gamma_A=0.1, gamma_I=10).fit(X, yl)
    assert model.n_iter_ <= 6  # Table 5: at most 5 Newton steps, 1 on G50C
    unlabeled = yl == -1
    assert np.mean(model.transduction_[unlabeled] != y[unlabeled]) < 0.15  # Table 4: 6 %


def test_figure_3_pcg_labels_the_moons_early_and_stability_stops_it():
    X, y, yl = moons()
    full = list(LapSVM(solver="pcg", **MOONS).trace(X, yl))
    errors = [np.mean((s.train_decision > 0) != y) for s in full]
    first_perfect = errors.index(0.0)
    assert first_perfect <= 8  # the paper: 0 % error after 4 PCG iterations
    model = LapSVM(solver="pcg", stopping="stability", **MOONS)
    stopped = list(model.trace(X, yl))
    assert model.stopped_by_ == "stability"
    assert np.array_equal(model.transduction_, y)  # 0 % error where it stops
    assert model.n_iter_ % 7 == 0 and model.n_iter_ <= full[-1].iteration / 4
    # the classical criteria have not fired by then (Figure 4): their thresholds are far away
    assert stopped[-1].extras["grad_norm_normalized"] > 1e-4
    # the full run records where the stability check would have stopped it
    fired = [s.iteration for s in full if s.extras["stop_stability"] == 1.0]
    assert fired[0] == model.n_iter_


def test_figure_1_clock_is_separated_by_lapsvm_not_by_the_svm():
    from toy_data import clock, pick_labeled

    X, y = clock(n_samples=300, random_state=0)
    yl = pick_labeled(y, 1, random_state=0)
    lap = LapSVM(sigma=0.2, gamma_A=1e-4, gamma_I=1.0, n_neighbors=10).fit(X, yl)
    svm = SVMBaseline().fit(X, yl)
    assert np.mean(lap.transduction_ != y) < 0.01
    assert np.mean(svm.transduction_ != y) > 0.2


def test_laprlsc_pcg_equals_the_direct_solution():
    X, y, yl = moons(n=150)
    direct = LapRLSC(**MOONS).fit(X, yl)
    pcg = LapRLSC(solver="pcg", **MOONS).fit(X, yl)
    assert pcg.objective_ == pytest.approx(direct.objective_, rel=1e-8)
    assert np.allclose(pcg.decision_function(X), direct.decision_function(X), atol=1e-5)


def test_lapsvm_with_every_labeled_point_an_error_vector_is_laprlsc():
    X, y, yl = moons(n=150)
    params = dict(sigma=0.2, gamma_A=1.0, gamma_I=1.0)  # strong regularization: |f| < 1 on L
    lap = LapSVM(**params).fit(X, yl)
    states = list(LapSVM(**params).trace(X, yl))
    assert states[-1].extras["n_error_vectors"] == np.count_nonzero(yl != -1)
    rls = LapRLSC(**params).fit(X, yl)
    assert np.allclose(lap.coef_, rls.coef_) and lap.intercept_ == pytest.approx(rls.intercept_)


def test_validation_check_stops_pcg_with_a_validation_set():
    X, y, yl = moons()
    Xv, yv, _ = moons(seed=5, n=40)
    model = LapSVM(solver="pcg", stopping="validation", **MOONS).fit(X, yl, X_val=Xv, y_val=yv)
    assert model.stopped_by_ == "validation"
    assert np.mean(model.predict(Xv) != yv) <= 0.05
    mixed = LapSVM(solver="pcg", stopping="mixed", **MOONS).fit(X, yl, X_val=Xv, y_val=yv)
    assert mixed.n_iter_ >= max(model.n_iter_, model.stop_iterations_["stability"])


# -- the trace contract --------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", [LapSVM(**MOONS), LapSVM(solver="pcg", **MOONS),
                                       LapRLSC(**MOONS), LapRLSC(solver="pcg", **MOONS),
                                       LapSVM(kernel="linear"),
                                       LapSVM(kernel="linear", solver="pcg")])
def test_trace_states_are_linear_in_the_features(estimator):
    X, y, yl = moons(n=120)
    Xv, yv, _ = moons(seed=7, n=20)
    trace = estimator.trace(X, yl, X_val=Xv, y_val=yv)
    grid = np.random.default_rng(0).uniform(-1, 2, size=(50, 2))
    F = estimator.features(grid)  # available before the first state
    states = list(trace)
    assert states[0].event == "init" and states[-1].event == "final"
    assert states[-2].event == "stage_end"
    assert {s.event for s in states[1:-2]} == {"iter"}
    assert {s.stage for s in states} == {estimator.solver if estimator.solver != "direct"
                                         else "fit"}
    assert np.allclose(decision_on_grid(F, states)[-1], estimator.decision_function(grid))
    F_train = estimator.features(X)
    for state in states:
        assert np.allclose(F_train @ state.coef + state.intercept, state.train_decision,
                           atol=1e-8)
    assert all(not np.isnan(s.extras["validation_error"]) for s in states)
    if estimator.solver == "pcg":
        first = states[0].extras
        for key in ("objective_normalized", "grad_norm_normalized", "grad_norm_preconditioned",
                    "mixed_product"):
            assert first[key] == 1.0
        keys = {f"stop_{name}" for name in estimator.stop_iterations_}
        assert keys <= set(states[-1].extras)


def test_max_iter_raises_a_convergence_warning():
    X, y, yl = moons(n=100)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        LapSVM(solver="pcg", max_iter=3, **MOONS).fit(X, yl)


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("params, message", [
    (dict(n_neighbors=100), "n_neighbors=100 but there are only 100 points"),
    (dict(p=0), "'p' parameter"),
    (dict(gamma_A=0.0), "'gamma_A' parameter"),
    (dict(gamma_I=-1.0), "'gamma_I' parameter"),
    (dict(solver="pcg", stopping="validation"), "needs a labeled validation set"),
])
def test_bad_input_is_explained(params, message):
    X, y, yl = moons(n=100)
    with pytest.raises(ValueError, match=message):
        LapSVM(**params).fit(X, yl)


@pytest.mark.parametrize("solver", ["newton", "pcg"])
def test_a_kernel_matrix_too_large_is_refused_before_it_is_built(monkeypatch, solver):
    from s3vm_core import problem

    # 1200 points and room for 1100 x 1100: the default sigma's 1000-point sample fits, K not
    monkeypatch.setattr(problem, "MAX_DENSE_BYTES", 8 * 1100 * 1100)
    X, y, yl = moons(n=1200)
    said = {"pcg": "1200 x 1200 kernel matrix needs",
            "newton": r"Three 1200 x 1200 matrices \(K, L K and the Newton system\) need"}[solver]
    with pytest.raises(ValueError, match=f"{said}.*kernel='linear' with solver='pcg'"):
        LapSVM(solver=solver).fit(X, yl)
    model = LapSVM(kernel="linear", solver="pcg", gamma_A=0.1).fit(X, yl)  # never forms K
    assert model.coef_.shape == (2,)


def test_validation_labels_must_be_training_classes():
    X, y, yl = moons(n=100)
    with pytest.raises(ValueError, match="not among the training classes"):
        LapSVM().fit(X, yl, X_val=X[:5], y_val=[0, 1, -1, 0, 1])


@parametrize_with_checks(
    [LapSVM(), LapSVM(solver="pcg", stopping="stability", max_iter=100), LapRLSC(),
     LapRLSC(solver="pcg", max_iter=100)],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.mark.parametrize("estimator", [LapSVM, LapRLSC])
def test_k_in_float32_gives_the_float64_answer_on_the_facemit_shape(estimator, monkeypatch):
    """The LapSVM paper's largest run, FACEMIT (RBF sigma = 4.3, a 6-NN graph, one label a
    class, Tables 8-9), at 1,500 points: K stored in float32 (as kernel_dtype="auto" stores
    it from 2 GiB of float64 on) gives the float64 fit's objective (7) to 1e-3 relative and
    its unlabeled decisions but for 0.1 % of them. PCG multiplies and sums in float64 on the
    rounded K, so PCG runs the float64 path of a matrix within 6e-8 of K."""
    import s3vm_core.solvers.lapsvm as lapsvm
    from toy_data import images, pick_labeled

    X, y = images.faces(n_samples=1500, random_state=0)
    yl = pick_labeled(y, 1, random_state=0)
    params = {"sigma": 4.3, "n_neighbors": 6, "gamma_A": 1e-6, "gamma_I": 1e-8,
              "solver": "pcg", "stopping": "stability"}
    full = estimator(**params).fit(X, yl)
    assert full.kernel_dtype_ == "float64"  # below FLOAT32_FROM_BYTES
    monkeypatch.setattr(lapsvm, "FLOAT32_FROM_BYTES", 8 * 1500**2)
    single = estimator(**params).fit(X, yl)
    assert single.kernel_dtype_ == "float32"
    assert single.objective_ == pytest.approx(full.objective_, rel=1e-3)
    unlabeled = yl == -1
    assert np.mean(single.transduction_[unlabeled] != full.transduction_[unlabeled]) <= 1e-3


def test_predictions_in_blocks_of_new_points_are_those_at_once(monkeypatch):
    """decision_function takes new points a block at a time (64 MB of kernel rows): the
    values at once (to BLAS's round-off), for arrays and lists alike; bad input is still
    explained."""
    import s3vm_core.solvers.lapsvm as lapsvm

    X, y, yl = moons(n=120)
    model = LapSVM(**MOONS).fit(X, yl)
    X_new = np.random.default_rng(3).normal(size=(50, 2))
    at_once = model.decision_function(X_new)
    monkeypatch.setattr(lapsvm, "_PREDICTION_BLOCK_BYTES", 8 * 120 * 7)  # 7 points a block
    np.testing.assert_allclose(model.decision_function(X_new), at_once, rtol=1e-12)
    np.testing.assert_allclose(model.decision_function(X_new.tolist()), at_once, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X_new),
                                  model.classes_[(at_once > 0).astype(int)])
    with pytest.raises(ValueError, match="features"):
        model.decision_function(np.ones((20, 3)))


def test_a_tighter_gradient_tolerance_is_reached():
    """stopping="grad_norm" with a tol below PCG's own convergence threshold (1e-8) runs to
    that tol: the own test, the same criterion, takes the user's tol instead of stopping PCG
    first, and the objective (7) is at least as low."""
    X, y, yl = moons(n=200)
    default = LapSVM(solver="pcg", stopping="grad_norm", **MOONS).fit(X, yl)
    tight = LapSVM(solver="pcg", stopping="grad_norm", tol=1e-12, max_iter=5000,
                   **MOONS).fit(X, yl)
    assert tight.n_iter_ > default.n_iter_
    assert tight.stopped_by_ == "grad_norm"
    assert tight.objective_ <= default.objective_ * (1 + 1e-12)
