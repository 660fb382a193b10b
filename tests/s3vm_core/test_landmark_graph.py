"""The landmark forms of LDS and the graph kernel (LDS paper §2.3.1: path distances from some
points only, O(n m) memory), next to their exact forms on the same k-NN graph."""

import numpy as np
import pytest

from s3vm_core import LDS, GraphKernelSVM
from toy_data import pick_labeled, two_moons


@pytest.fixture(scope="module")
def moons():
    X, y = two_moons(400, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, 1, random_state=0)


def error(model, y, labeled):
    unlabeled = labeled == -1
    return np.mean(model.transduction_[unlabeled] != y[unlabeled])


@pytest.mark.parametrize("rho", [1.0, 8.0, np.inf])
def test_landmark_lds_labels_the_moons_as_exact_lds(moons, rho):
    """100 landmarks of 400 points: the same unlabeled error as the exact form on the same
    10-NN graph (0.8 % at rho = 1 and 8, 14 % at rho = inf), at most one decision apart."""
    X, y, labeled = moons
    graph = dict(rho=rho, n_neighbors=10, bridge=True)
    exact = LDS(**graph).fit(X, labeled)
    landmark = LDS(**graph, n_landmarks=100).fit(X, labeled)
    assert landmark.path_distances_.shape == (400, 100)
    assert landmark.landmarks_.shape == (100,)
    assert error(landmark, y, labeled) <= error(exact, y, labeled) + 0.0025
    assert np.sum(landmark.transduction_ != exact.transduction_) <= 1


def test_landmark_lds_features_are_its_embedding_on_the_training_points(moons):
    """The features() contract of docs/architecture.md: LDS's features are the out-of-sample
    MDS embedding, exact on the training points, and every state's decision is linear in them."""
    X, _, labeled = moons
    model = LDS(rho=8.0, n_neighbors=10, bridge=True, n_landmarks=60)
    states = list(model.trace(X, labeled))
    F = model.features(X)
    np.testing.assert_allclose(model.embed(X), model.mds_.transform(
        model.path_distances_**2), atol=1e-9)
    final = states[-1]
    np.testing.assert_allclose(F @ final.coef + final.intercept, final.train_decision,
                               atol=1e-8)
    grid = np.random.default_rng(0).uniform(-1, 2, size=(50, 2))
    assert model.features(grid).shape == (50, model.n_components_)


def test_landmark_graph_kernel_is_the_exact_kernel_with_the_same_sigma_and_c(moons):
    """The SVM needs the paths from the labeled points only: given sigma and C, the landmark
    form is the exact form on the same graph; with the defaults, sigma and C come from the
    landmarks' paths (within 1 % here) and the labels are the same."""
    X, y, labeled = moons
    graph = dict(rho=8.0, n_neighbors=10, bridge=True)
    exact = GraphKernelSVM(**graph).fit(X, labeled)
    given = GraphKernelSVM(**graph, n_landmarks=20, sigma=exact.sigma_, C=exact.C_).fit(
        X, labeled)
    grid = np.random.default_rng(0).uniform(-1, 2, size=(50, 2))
    np.testing.assert_allclose(given.decision_function(grid), exact.decision_function(grid),
                               atol=1e-12)
    landmark = GraphKernelSVM(**graph, n_landmarks=200).fit(X, labeled)
    assert landmark.path_distances_.shape == (400, 2)
    assert landmark.sigma_ == pytest.approx(exact.sigma_, rel=0.01)
    assert landmark.C_ == pytest.approx(exact.C_, rel=0.02)
    assert np.array_equal(landmark.transduction_, exact.transduction_)


@pytest.mark.parametrize("estimator", [LDS, GraphKernelSVM])
def test_landmarks_need_the_knn_graph(moons, estimator):
    X, _, labeled = moons
    with pytest.raises(ValueError, match=r"landmark points \(n_landmarks\) need the k-NN graph: "
                                         "set n_neighbors"):
        estimator(n_landmarks=50).fit(X, labeled)


@pytest.mark.parametrize("estimator", [LDS, GraphKernelSVM])
def test_landmark_forms_fit_where_the_path_matrix_is_refused(moons, estimator, monkeypatch):
    """The exact form refuses an n x n path matrix above the memory limit and names the
    landmark form; the landmark form, n x m, fits."""
    from s3vm_core import problem

    X, _, labeled = moons
    monkeypatch.setattr(problem, "MAX_DENSE_BYTES", 8 * 300 * 300)
    with pytest.raises(ValueError, match="use n_landmarks with n_neighbors"):
        estimator(n_neighbors=10, bridge=True).fit(X, labeled)
    model = estimator(n_neighbors=10, bridge=True, n_landmarks=100).fit(X, labeled)
    assert model.predict(X[:5]).shape == (5,)
