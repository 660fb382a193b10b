import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from s3vm_core import SolverState, SVMBaseline, decision_on_grid
from s3vm_core.estimator_checks import expected_failed_checks
from toy_data import gaussian_2c, pick_labeled, two_moons


@parametrize_with_checks([SVMBaseline()], expected_failed_checks=expected_failed_checks)
def test_scikit_learn_compatibility(estimator, check):
    check(estimator)


@pytest.fixture
def moons():
    X, y = two_moons(120, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, 2, random_state=0)


def test_trace_has_init_and_final_and_matches_fit(moons):
    X, _, labels = moons
    model = SVMBaseline()
    states = list(model.trace(X, labels))
    assert [s.event for s in states] == ["init", "final"]
    assert all(isinstance(s, SolverState) and s.stage == "fit" for s in states)
    np.testing.assert_allclose(states[-1].train_decision, model.decision_function(X))
    np.testing.assert_array_equal(model.transduction_, model.predict(X))
    np.testing.assert_array_equal(states[0].train_decision, 0.0)


def test_decision_on_grid_equals_decision_function(moons):
    X, _, labels = moons
    model = SVMBaseline(C=10.0, sigma=0.5)
    trace = model.trace(X, labels)
    grid = np.random.default_rng(1).uniform(-1.5, 2.5, size=(50, 2))
    features = model.features(grid)  # available before the first state is drawn
    states = list(trace)
    values = decision_on_grid(features, states)
    assert values.shape == (2, 50)
    np.testing.assert_allclose(values[-1], model.decision_function(grid), atol=1e-12)


def test_state_arrays_are_read_only_copies(moons):
    X, _, labels = moons
    final = list(SVMBaseline().trace(X, labels))[-1]
    with pytest.raises(ValueError):
        final.coef[0] = 1.0
    with pytest.raises(TypeError):
        final.extras["x"] = 1.0


def test_state_arrays_cannot_be_made_writeable_again(moons):
    X, _, labels = moons
    final = list(SVMBaseline().trace(X, labels))[-1]
    for array in (final.coef, final.train_decision):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.flags.writeable = True
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.base.flags.writeable = True  # nor through the array that holds its memory
    assert final.coef.flags.writeable is False


def test_hard_margin_fits_the_labeled_points_and_sigma_is_the_median(moons):
    X, _, labels = moons
    model = SVMBaseline(C=1e3).fit(X, labels)
    assert model.coef_.shape == (4,)  # one dual coefficient per labeled point
    distances = np.linalg.norm(X[:, None] - X[None], axis=-1)
    assert model.sigma_ == pytest.approx(np.median(distances[distances > 0]))
    assert model.predict(X[labels != -1]).tolist() == labels[labels != -1].tolist()


def test_baseline_separates_well_separated_gaussians():
    X, y = gaussian_2c(200, n_features=2, random_state=0)
    labels = pick_labeled(y, 5, random_state=0)
    model = SVMBaseline(C=10.0, kernel="linear").fit(X, labels)
    assert np.mean(model.predict(X) == y) > 0.95


def test_every_thins_iterations_but_keeps_the_ends(moons):
    X, _, labels = moons
    states = list(SVMBaseline().trace(X, labels, every=5))
    assert [s.event for s in states] == ["init", "final"]
    with pytest.raises(ValueError, match="every"):
        SVMBaseline().trace(X, labels, every=0)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("capped", [False, True])
def test_libsvm_on_a_precomputed_kernel_is_svcs_fit_to_the_bit(weighted, capped, monkeypatch):
    """fit_libsvm calls LIBSVM on a dense precomputed kernel without SVC.fit's checks and
    with a kernel cache of PRECOMPUTED_CACHE_MB: the support, coefficients, intercept and
    status of SVC.fit to the bit (weighted or not, stopped at the cap or not), for labels
    of any two values, and NumPy's global stream drawn from as SVC draws from it. A cache
    of two columns (every other column read again from K) changes nothing."""
    from sklearn.svm import SVC

    from s3vm_core.kernels import rbf_kernel
    from s3vm_core.solvers import svm as svm_module

    if capped:  # a cap of 30 LIBSVM iterations stops these fits
        monkeypatch.setattr(svm_module, "_LIBSVM_MIN_ITER", 30)
        monkeypatch.setattr(svm_module, "LIBSVM_ITER_PER_POINT", 0)
    monkeypatch.setattr(svm_module, "PRECOMPUTED_CACHE_MB", 1e-6)  # LIBSVM keeps 2 columns
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 2))
    K = rbf_kernel(X, X, 0.5)
    labels = np.where(X[:, 0] + 0.5 * rng.normal(size=150) > 0, 3.0, -7.0)
    weights = rng.uniform(0.1, 100.0, size=150) if weighted else None
    # NumPy's legacy global generator is the one SVC draws its seed from
    np.random.seed(1)  # noqa: NPY002
    fit, converged = svm_module.fit_libsvm(K, labels, C=10.0, sample_weight=weights)
    after_fit = np.random.random()  # noqa: NPY002
    assert isinstance(fit, svm_module.PrecomputedFit)
    np.random.seed(1)  # noqa: NPY002
    reference = SVC(C=10.0, kernel="precomputed", max_iter=30 if capped else 15_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference.fit(K, labels, sample_weight=weights)
    assert np.random.random() == after_fit  # noqa: NPY002
    assert converged == (not capped) == (reference.fit_status_ == 0)
    np.testing.assert_array_equal(fit.support_, reference.support_)
    np.testing.assert_array_equal(fit.dual_coef_, reference.dual_coef_)
    np.testing.assert_array_equal(fit.intercept_, reference.intercept_)


def test_libsvm_without_a_finite_solution_is_explained():
    from s3vm_core.solvers.svm import fit_libsvm

    K = np.full((4, 4), 1e308)
    with pytest.raises(ValueError, match="LIBSVM found no finite solution"):
        fit_libsvm(K, np.array([1.0, -1.0, 1.0, -1.0]), C=1e300)
