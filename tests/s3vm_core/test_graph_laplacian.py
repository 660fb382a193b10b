"""The k-NN graph, its Laplacian and the intrinsic norm (LapSVM paper §2, eq. (1))."""

import numpy as np
import pytest
import scipy.sparse as sp

from s3vm_core.graph import graph_laplacian, intrinsic_norm, knn_adjacency


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(60, 2))


@pytest.mark.parametrize("weights", ["gaussian", "binary"])
def test_knn_adjacency_is_a_symmetric_sparse_graph(X, weights):
    W = knn_adjacency(X, n_neighbors=5, weights=weights)
    assert sp.issparse(W)
    assert abs(W - W.T).max() == 0
    assert W.diagonal().max() == 0
    assert np.all((W > 0).sum(axis=1) >= 5)  # every point keeps its 5 neighbours
    assert np.all(W.data > 0) and np.all(W.data <= 1)
    if weights == "binary":
        assert np.all(W.data == 1)


def test_sparse_points_give_the_same_graph(X):
    X = X.copy()
    X[np.abs(X) < 0.3] = 0.0
    W = knn_adjacency(X, n_neighbors=4)
    np.testing.assert_allclose(knn_adjacency(sp.csr_matrix(X), n_neighbors=4).toarray(),
                               W.toarray(), atol=1e-15)


def test_coincident_neighbours_keep_their_edge_with_the_largest_weight():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    W = knn_adjacency(X, n_neighbors=1, graph_sigma=1.0).toarray()
    assert W[0, 1] == W[1, 0] == 1.0  # exp(-0 / 2) for the distance 0


def test_nearest_neighbour_is_connected_with_gaussian_weight(X):
    W = knn_adjacency(X, n_neighbors=1, weights="gaussian", graph_sigma=0.5).toarray()
    d = np.linalg.norm(X[0] - X[1:], axis=1)
    j = 1 + int(np.argmin(d))
    assert W[0, j] == pytest.approx(np.exp(-d.min() ** 2 / (2 * 0.5**2)))


def test_unnormalized_laplacian_gives_the_intrinsic_norm_of_eq_1(X):
    W = knn_adjacency(X, n_neighbors=5)
    L = graph_laplacian(W, normalized=False)
    f = np.sin(X[:, 0]) + X[:, 1]
    Wd = W.toarray()
    pairs = sum(Wd[i, j] * (f[i] - f[j]) ** 2 for i in range(60) for j in range(i, 60))
    assert intrinsic_norm(f, L) == pytest.approx(pairs)
    assert np.allclose(L @ np.ones(60), 0)  # constants have zero intrinsic norm
    assert intrinsic_norm(np.ones(60), L) == pytest.approx(0, abs=1e-12)


def test_normalized_laplacian_and_its_power(X):
    W = knn_adjacency(X, n_neighbors=5)
    L = graph_laplacian(W, normalized=True)
    assert sp.issparse(L)
    assert np.allclose(L.diagonal(), 1)
    degrees = np.asarray(W.sum(axis=1)).ravel()
    assert np.allclose(L @ np.sqrt(degrees), 0)  # D^{1/2} 1 spans its null space
    eigenvalues = np.linalg.eigvalsh(L.toarray())
    assert eigenvalues.min() > -1e-10 and eigenvalues.max() <= 2 + 1e-10
    L3 = graph_laplacian(W, normalized=True, p=3)
    assert np.allclose(L3.toarray(), np.linalg.matrix_power(L.toarray(), 3))


def test_iterated_laplacian_is_the_power_without_forming_it(X):
    from s3vm_core.graph import IteratedLaplacian

    L = graph_laplacian(knn_adjacency(X, n_neighbors=5), normalized=True)
    L3 = graph_laplacian(knn_adjacency(X, n_neighbors=5), normalized=True, p=3)
    operator = IteratedLaplacian(L, 3)
    V = np.random.default_rng(0).normal(size=(60, 4))
    np.testing.assert_allclose(operator @ V, L3 @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(operator.sum(axis=1), np.asarray(L3.sum(axis=1)).ravel(),
                               atol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_the_kernels_distances_give_the_neighbours_of_the_search(X, kernel, monkeypatch):
    """The neighbours read off the distances a kernel matrix is computed from, in blocks of
    rows or at once, make the searched graph; the kernel is kernel_matrix's. An RBF kernel
    that underflows to 0 everywhere still has its distances."""
    from s3vm_core import kernels
    from s3vm_core.kernels import kernel_and_neighbors, kernel_matrix

    searched = knn_adjacency(X, n_neighbors=5)
    for block_bytes in (kernels.KERNEL_BLOCK_BYTES, 8 * 60 * 7):  # at once; 7 rows a block
        monkeypatch.setattr(kernels, "KERNEL_BLOCK_BYTES", block_bytes)
        for sigma in (1.0, 1e-3):
            K, neighbors = kernel_and_neighbors(X, kernel, sigma, n_neighbors=5)
            assert (knn_adjacency(X, n_neighbors=5, neighbors=neighbors) != searched).nnz == 0
            np.testing.assert_allclose(K, kernel_matrix(X, X, kernel, sigma), rtol=1e-12,
                                       atol=1e-12)
    with pytest.raises(ValueError, match="n_neighbors=5 indices for each of the 60 points"):
        knn_adjacency(X, n_neighbors=5, neighbors=neighbors[:, :4])


def test_bad_graph_parameters_are_explained(X):
    with pytest.raises(ValueError, match="n_neighbors=60 but there are only 60 points"):
        knn_adjacency(X, n_neighbors=60)
    with pytest.raises(ValueError, match="degree p must be a whole number >= 1"):
        graph_laplacian(knn_adjacency(X, 3), p=0)


def test_the_nearest_points_of_many_are_those_of_the_search(monkeypatch):
    """With more points than the neighbours' groups of 64 columns hold, the k smallest
    distances of each row are picked among the k groups with the smallest minima: the same
    neighbours as the search (their distances, where points tie), coincident points
    included."""
    from s3vm_core import kernels
    from s3vm_core.kernels import kernel_and_neighbors, squared_distances

    X = np.random.default_rng(5).normal(size=(700, 3))
    X[650:] = X[:50]  # 50 points twice: their nearest neighbour is at distance 0
    D2 = squared_distances(X, X)
    np.fill_diagonal(D2, np.inf)
    expected = np.sort(D2, axis=1)[:, :7]
    for block_bytes in (kernels.KERNEL_BLOCK_BYTES, 8 * 700 * 9):
        monkeypatch.setattr(kernels, "KERNEL_BLOCK_BYTES", block_bytes)
        _, neighbors = kernel_and_neighbors(X, "rbf", 1.0, n_neighbors=7)
        found = np.sort(np.take_along_axis(D2, neighbors, axis=1), axis=1)
        np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)  # round-off ties
        assert np.all(neighbors != np.arange(700)[:, None])
