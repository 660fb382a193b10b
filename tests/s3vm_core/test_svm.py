import numpy as np
import pytest
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
