"""QN-S3VM (Gieseke et al. 2012): objective (5), gradient (6), Algorithm 1, the §3.3 paths."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from s3vm_core.estimator_checks import expected_failed_checks
from s3vm_core.losses import modified_logistic, modified_logistic_grad
from s3vm_core.problem import make_problem
from s3vm_core.solvers.qn import QNS3VM
from s3vm_core.solvers.svm import SVMBaseline
from s3vm_core.trace import decision_on_grid
from toy_data import gaussian_2c, pick_labeled


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # The products here are small; BLAS threads on a shared 2-core machine only add contention.
    with threadpool_limits(1):
        yield


@parametrize_with_checks(
    [QNS3VM(max_iter=50), QNS3VM(kernel="linear", max_iter=50)],
    expected_failed_checks=expected_failed_checks,
)
def test_scikit_learn_compatibility(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


# -- data --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def moons():
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(n_samples=150, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, 3, random_state=0)


def _sparse_data(n=120, d=300, density=0.05, seed=0):
    """Two classes differing in which block of features is active (text-like, non-negative)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = sp.random(n, d, density=density, random_state=seed, format="csr")
    signal = np.zeros((n, d))
    signal[np.arange(n), y * 10 + rng.integers(0, 10, n)] = 1.0
    X = (X + sp.csr_matrix(signal)).tocsr()
    labels = np.full(n, -1)
    for cls in (0, 1):
        labels[np.flatnonzero(y == cls)[:3]] = cls
    return X, y, labels


def _gaussian2c_split(seed):
    """The paper's Gaussian2C protocol (§4.1.2): first half train, second half test, l = 24.

    The labels are drawn per class (12 + 12): the paper hands the class ratio to its competitor
    (§4.1.4, UniverSVM's -w), and the balancing of §2.2 takes it from the labeled points, so an
    unbalanced draw of 25 would tell the method a wrong ratio.
    """
    X, y = gaussian_2c(n_samples=500, n_features=500, random_state=seed)
    X_train, y_train, X_test, y_test = X[:250], y[:250], X[250:], y[250:]
    return X_train, pick_labeled(y_train, 12, random_state=seed), X_test, y_test


# -- the loss and the gradient (6) -------------------------------------------------------


def test_modified_logistic_is_a_smooth_hinge_that_never_overflows():
    t = np.array([-1e6, -50.0, 0.0, 1.0, 2.0, 1e6])
    with np.errstate(all="raise"):
        values = modified_logistic(t, 20.0)
        slopes = modified_logistic_grad(t, 20.0)
    np.testing.assert_allclose(values[[0, 1]], 1.0 - t[[0, 1]])  # the hinge far from the kink
    assert values[2] == pytest.approx(1.0, abs=1e-8)
    assert values[3] == pytest.approx(np.log(2) / 20)  # smoothing of the kink, Figure 2a
    assert values[-1] == 0.0 and slopes[-1] == 0.0
    np.testing.assert_allclose(slopes[:2], -1.0)
    h = 1e-6
    t = np.linspace(-2, 3, 11)
    numeric = (modified_logistic(t + h) - modified_logistic(t - h)) / (2 * h)
    np.testing.assert_allclose(modified_logistic_grad(t), numeric, rtol=1e-5, atol=1e-8)


def _surrogate(model, X, labels, lam_u=0.7):
    model.trace(X, labels)  # runs _setup; the generator is never started
    return model._surrogate(make_problem(X, labels), lam_u)


@pytest.mark.parametrize(
    "params, sparse",
    [
        ({"kernel": "rbf", "sigma": 0.5}, False),
        ({"kernel": "rbf", "sigma": 0.5, "n_landmarks": 25, "random_state": 0}, False),
        ({"kernel": "linear"}, False),
        ({"kernel": "linear"}, True),
    ],
    ids=["dense", "landmarks", "linear", "sparse"],
)
def test_gradient_matches_finite_differences(moons, params, sparse):
    X, _, labels = moons
    if sparse:
        X, _, labels = _sparse_data()
    objective = _surrogate(QNS3VM(**params), X, labels)
    rng = np.random.default_rng(0)
    c = 0.3 * rng.standard_normal(objective.model.n_params)
    direction = rng.standard_normal(c.size)
    h = 1e-6
    numeric = (objective(c + h * direction).value - objective(c - h * direction).value) / (2 * h)
    assert objective(c).grad @ direction == pytest.approx(numeric, rel=1e-6, abs=1e-9)


# -- the three paths ---------------------------------------------------------------------


def test_sparse_and_dense_input_give_the_same_model():
    X, _, labels = _sparse_data()
    # lam = 1: a well-conditioned objective, on which the two paths' round-off stays at 1e-9
    # (at the default 1e-3 L-BFGS carries it to 1e-5 of the coefficients)
    dense = QNS3VM(kernel="linear", lam=1.0).fit(X.toarray(), labels)
    sparse = QNS3VM(kernel="linear", lam=1.0).fit(X, labels)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()),
                               rtol=1e-6, atol=1e-9)
    assert sparse.features(X[:5]).shape == (5, X.shape[1])  # the primal linear model


def test_sparse_input_with_rbf_kernel_is_supported():
    X, _, labels = _sparse_data(n=80)
    dense = QNS3VM(sigma=2.0).fit(X.toarray(), labels)
    sparse = QNS3VM(sigma=2.0).fit(X, labels)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()),
                               rtol=1e-6, atol=1e-8)


def test_all_points_as_landmarks_is_the_full_expansion(moons):
    X, _, labels = moons
    full = QNS3VM(sigma=0.3).fit(X, labels)
    landmarks = QNS3VM(sigma=0.3, n_landmarks=len(X), random_state=0).fit(X, labels)
    np.testing.assert_allclose(landmarks.coef_, full.coef_)


def test_landmarks_shrink_the_feature_space_and_keep_the_accuracy():
    """Subset of regressors, eq. (9): half the points as basis, same moons as below."""
    from toy_data import pick_labeled, two_moons

    errors = []
    for seed in range(5):
        X, y = two_moons(n_samples=200, noise=0.1, random_state=seed)
        labels = pick_labeled(y, 3, random_state=seed)
        model = QNS3VM(sigma=0.2, lam=2**-10, n_landmarks=100, max_iter=1000, random_state=0)
        model.fit(X, labels)
        assert model.coef_.shape == (100,) and model.features(X[:7]).shape == (7, 100)
        unlabeled = labels == -1
        errors.append(np.mean(model.transduction_[unlabeled] != y[unlabeled]))
    assert np.mean(errors) <= 0.05


# -- the paper's experiments -------------------------------------------------------------


@pytest.mark.slow
def test_two_moons_with_a_handful_of_labels():
    """§4.2.1 / Figure 4 (QN-S3VM: 0.0-2.6% test error): RBF kernel, 3 labels per class."""
    from toy_data import pick_labeled, two_moons

    errors, supervised = [], []
    for seed in range(5):
        X, y = two_moons(n_samples=200, noise=0.1, random_state=seed)
        labels = pick_labeled(y, 3, random_state=seed)
        unlabeled = labels == -1
        model = QNS3VM(sigma=0.15, lam=2**-10, lam_u=1.0)
        states = list(model.trace(X, labels))
        errors.append(np.mean(model.transduction_[unlabeled] != y[unlabeled]))
        start = next(s for s in states if s.event == "stage_end")  # the supervised model
        supervised.append(np.mean((start.train_decision[unlabeled] > 0) != y[unlabeled]))
    assert np.mean(errors) <= 0.05
    assert np.mean(supervised) >= np.mean(errors) + 0.05  # the unlabeled points did the work


@pytest.mark.slow
def test_gaussian2c_linear_kernel_beats_the_supervised_svm():
    """Table 1, Gaussian2C, l = 25 (here 24), u = 225, t = 250, d = 500, linear kernel.

    The paper reports 0.5% (non-realistic) to 1.8% (realistic) for QN-S3VM and 13.0% for
    LIBSVM. (lambda, lambda') = (2^10, 100) is the point of the paper's grid (§4.1.3) with the
    lowest mean test error over the draws 10-29, which this test does not use (2.0% there).
    With lambda that large every |f| stays well below 1, so exp(-s f^2) ~ 1 - s f^2 and the
    unlabeled term rewards the direction of largest unlabeled variance, here the one that
    separates the two Gaussians.
    """
    qn_errors, svm_errors = [], []
    for seed in range(5):
        X_train, labels, X_test, y_test = _gaussian2c_split(seed)
        qn = QNS3VM(kernel="linear", lam=2.0**10, lam_u=100.0).fit(X_train, labels)
        qn_errors.append(np.mean(qn.predict(X_test) != y_test))
        svm = SVMBaseline(kernel="linear").fit(X_train, labels)
        svm_errors.append(np.mean(svm.predict(X_test) != y_test))
    assert np.mean(qn_errors) <= 0.03
    assert 0.10 < np.mean(svm_errors) < 0.18


@pytest.mark.slow
def test_gaussian2c_is_hard_even_with_every_training_label():
    """Why Table 1's 0.5% is out of reach: in d = 500 with 250 training points even a linear
    SVM given *all* training labels errs on 2-4% of the test points (Bayes error 0.6%), so the
    24-label QN-S3VM above (2-3%) matches full supervision."""
    errors = []
    for seed in range(5):
        X, y = gaussian_2c(n_samples=500, n_features=500, random_state=seed)
        svm = SVMBaseline(kernel="linear").fit(X[:250], y[:250])
        errors.append(np.mean(svm.predict(X[250:]) != y[250:]))
    assert 0.02 < np.mean(errors) < 0.045


# -- the trace contract ------------------------------------------------------------------


@pytest.mark.parametrize(
    "params", [{"sigma": 0.3}, {"sigma": 0.3, "n_landmarks": 30, "random_state": 1},
               {"kernel": "linear"}], ids=["dense", "landmarks", "linear"],
)
def test_trace_follows_algorithm_1_and_the_state_contract(moons, params):
    X, _, labels = moons
    model = QNS3VM(**params)
    trace = model.trace(X, labels)
    grid = np.random.default_rng(1).uniform(-1.5, 2.5, size=(40, 2))
    F_grid, F_train = model.features(grid), model.features(X)  # before the first state
    states = list(trace)

    assert states[0].event == "init" and states[-1].event == "final"
    assert {s.stage for s in states} == {"alpha"}
    ends = [s for s in states if s.event == "stage_end"]
    assert [s.stage_value for s in ends] == [0.0, 0.01, 0.1, 1.0]  # lambda' = 0, then alphas
    assert [s.stage_index for s in ends] == [0, 1, 2, 3]

    # every state's decision is linear in the features, on the training points and elsewhere
    np.testing.assert_allclose(decision_on_grid(F_train, states),
                               np.stack([s.train_decision for s in states]), atol=1e-9)
    np.testing.assert_allclose(decision_on_grid(F_grid, states[-1:])[0],
                               model.decision_function(grid), atol=1e-12)

    # balancing (cS3VM §2.2): the unlabeled mean of f is the mean labeled label, always
    unlabeled, y = labels == -1, labels[labels != -1]
    for state in states:
        assert state.train_decision[unlabeled].mean() == pytest.approx(
            np.mean(2 * y - 1), abs=1e-9)

    # L-BFGS never increases the stage's objective
    for index in range(4):
        stage = [s.objective for s in states
                 if s.stage_index == index and s.event in ("iter", "stage_end")]
        assert len(stage) >= 2
        assert np.all(np.diff(stage) <= 1e-12 * (1 + abs(stage[0])))

    # the final state is the fitted model
    final = states[-1]
    np.testing.assert_array_equal(model.coef_, final.coef)
    assert model.intercept_ == final.intercept
    np.testing.assert_allclose(model.decision_function(X), final.train_decision, atol=1e-12)
    assert model.n_iter_ == sum(s.event == "iter" for s in states)  # L-BFGS iterates
    assert set(final.extras) == {"labeled_loss", "unlabeled_loss"}


def test_the_papers_gradient_rule_ends_each_stage_and_ftol_only_shortens_it(moons):
    """§3.2: a stage iterates while the gradient is larger than eps. With ftol = 0 nothing
    else stops it, so every stage ends with a small gradient; the reference's ftol (default)
    stops earlier, on the same model."""
    X, y, labels = moons
    tol = 1e-6
    exact = QNS3VM(sigma=0.3, tol=tol, ftol=0.0, max_iter=5000)
    states = list(exact.trace(X, labels))
    n_params = X.shape[0]
    for end in (s for s in states if s.event == "stage_end"):
        assert end.grad_norm <= np.sqrt(n_params) * tol  # the largest entry is <= tol
    default = QNS3VM(sigma=0.3, tol=tol).fit(X, labels)
    assert default.n_iter_ < exact.n_iter_
    unlabeled = labels == -1
    assert np.mean(default.transduction_[unlabeled] != exact.transduction_[unlabeled]) <= 0.01


def test_every_thins_only_iterations(moons):
    X, _, labels = moons
    full = list(QNS3VM(sigma=0.3).trace(X, labels))
    thin = list(QNS3VM(sigma=0.3).trace(X, labels, every=10))
    kept = [s for s in full if s.event != "iter"]
    assert [s.step for s in thin if s.event != "iter"] == [s.step for s in kept]
    assert len(thin) < len(full)


def test_iteration_limit_warns(moons):
    X, _, labels = moons
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        QNS3VM(sigma=0.3, max_iter=2).fit(X, labels)


def test_large_inputs_do_not_overflow(moons):
    X, _, labels = moons
    # pyproject turns RuntimeWarnings from s3vm_core into errors; margins here reach ~1e6.
    model = QNS3VM(kernel="linear", lam=1e-6).fit(1e3 * X, labels)
    assert np.all(np.isfinite(model.coef_)) and np.isfinite(model.objective_)


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, message",
    [
        ({"lam": 0.0}, "'lam' parameter"),
        ({"lam": -1.0}, "'lam' parameter"),
        ({"lam_u": 0.0}, "'lam_u' parameter"),
        ({"n_landmarks": 0}, "'n_landmarks' parameter"),
        ({"n_landmarks": 151}, "n_landmarks=151 is more than the 150 training points"),
        ({"alphas": (0.1, 0.01)}, "strictly increasing"),
        ({"alphas": ()}, "not a valid annealing sequence"),
        ({"alphas": (0.0, 1.0)}, "positive"),
    ],
)
def test_bad_parameters_are_explained(moons, params, message):
    X, _, labels = moons
    with pytest.raises(ValueError, match=message):
        QNS3VM(**params).fit(X, labels)
