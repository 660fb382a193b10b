"""rho-path distances, classical MDS with threshold (6) and their out-of-sample extension
(LDS paper §2.1, §2.3, Algorithm 1 steps 1-6)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.neighbors import kneighbors_graph
from threadpoolctl import threadpool_limits

from s3vm_core.graph import (
    classical_mds,
    mds_threshold,
    rho_path_distances,
    rho_path_distances_to,
)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # The machine is shared: threaded BLAS on small matrices only adds contention.
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(120, noise=0.08, random_state=0)
    return X, y


def test_rho_zero_on_full_graph_is_euclidean(moons):
    X, _ = moons
    np.testing.assert_allclose(rho_path_distances(X, 0.0), euclidean_distances(X), atol=1e-12)
    # and the limit rho -> 0 of the softened max (2) agrees with it
    np.testing.assert_allclose(rho_path_distances(X, 1e-7), euclidean_distances(X), atol=1e-5)


def test_rho_infinity_is_the_minimax_path_distance(moons):
    X, _ = moons
    P_inf = rho_path_distances(X, np.inf)
    P_big = rho_path_distances(X, 150.0)
    # smax^rho lies between the max edge and the max edge + log(n) / rho (eq. (2))
    assert np.all(P_big >= P_inf - 1e-9)
    assert np.all(P_big <= P_inf + np.log(X.shape[0]) / 150.0 + 1e-9)
    # minimax distance is an ultrametric: d(i, j) <= max(d(i, k), d(k, j))
    i, j, k = 3, 50, 97
    assert P_inf[i, j] <= max(P_inf[i, k], P_inf[k, j]) + 1e-12


def test_small_rho_on_knn_graph_is_isomap(moons):
    X, _ = moons
    G = kneighbors_graph(X, 6, mode="distance")
    geodesic = shortest_path(G.maximum(G.T), directed=False)
    np.testing.assert_allclose(rho_path_distances(X, 0.0, n_neighbors=6), geodesic, atol=1e-12)
    np.testing.assert_allclose(rho_path_distances(X, 1e-7, n_neighbors=6), geodesic, atol=1e-5)


def test_large_rho_squeezes_clusters_and_keeps_the_gap(moons):
    # §2.1.3 comment 2: distances within a cluster shrink, the gap between clusters dominates.
    X, y = moons
    same = y[:, None] == y[None, :]
    gap_ratio = []  # closest pair across the moons / farthest pair within a moon
    for rho in (0.0, 2.0, 8.0, np.inf):
        P = rho_path_distances(X, rho)
        gap_ratio.append(P[~same].min() / P[same].max())
    assert gap_ratio == sorted(gap_ratio)
    assert gap_ratio[0] < 0.2  # Euclidean: the moons' tips are closer than a moon is long
    assert gap_ratio[-1] > 1.0  # minimax: every cross-moon pair is farther than any same pair


@pytest.mark.parametrize("rho", [-1.0, np.nan])
def test_negative_rho_is_refused(moons, rho):
    with pytest.raises(ValueError, match="rho must be >= 0"):
        rho_path_distances(moons[0], rho)


def test_overflowing_rho_is_refused_with_advice(moons):
    with pytest.raises(ValueError, match="rho=np.inf"):
        rho_path_distances(moons[0] * 100, 10.0)


def test_disconnected_graph_gives_a_clear_message():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 50])
    with pytest.raises(ValueError, match="infinite"):
        rho_path_distances(X, 2.0, n_neighbors=3)
    with pytest.raises(ValueError, match="infinite"):
        rho_path_distances(X, np.inf, n_neighbors=3)


def test_threshold_6_on_a_known_spectrum():
    lam = np.array([10.0, 5.0, 1.0, 0.5, 0.1, -1.0])
    # mass: 10 + 5 = 15 >= 0.9 * 16.6 (p >= 2); lam_p <= 0.1 * 10 first at p = 3
    assert mds_threshold(lam, 0.1) == 3
    # a loose delta: 10 >= 0.5 * 16.6 and 5 <= 0.5 * 10 -> p = 2
    assert mds_threshold(lam, 0.5) == 2
    # a tight delta keeps every positive eigenvalue
    assert mds_threshold(lam, 1e-6) == 5


def test_mds_of_euclidean_distances_gives_back_the_centred_points():
    X = np.random.default_rng(1).normal(size=(40, 3)) * [3.0, 1.0, 0.5] + 7.0
    mds = classical_mds(euclidean_distances(X, squared=True), delta=1e-6)
    Xc = X - X.mean(axis=0)
    assert mds.embedding.shape == (40, 3)
    np.testing.assert_allclose(mds.embedding @ mds.embedding.T, Xc @ Xc.T, atol=1e-9)


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        classical_mds(np.ones((3, 3)) - np.eye(3), delta)


@pytest.mark.parametrize("rho", [0.0, 0.5, 4.0, np.inf])
def test_out_of_sample_reproduces_the_training_points(moons, rho):
    X, _ = moons
    P = rho_path_distances(X, rho)
    np.testing.assert_allclose(rho_path_distances_to(X, X, P, rho), P, atol=1e-6)
    mds = classical_mds(P**2, 0.1)
    np.testing.assert_allclose(mds.transform(rho_path_distances_to(X, X, P, rho) ** 2),
                               mds.embedding, atol=1e-5)


def test_out_of_sample_at_rho_zero_is_exact():
    X, _ = make_moons(80, noise=0.1, random_state=2)
    new = np.array([[0.3, 0.2], [2.5, -1.0]])
    P = rho_path_distances(X, 0.0)
    np.testing.assert_allclose(rho_path_distances_to(new, X, P, 0.0),
                               euclidean_distances(new, X), atol=1e-12)


def test_out_of_sample_is_close_to_refitting_with_the_point(moons):
    # The extension ignores shortcuts the new point would create; near the data it is tight.
    X, _ = moons
    new = X[:5] + 0.02
    P = rho_path_distances(X, 4.0)
    approx = rho_path_distances_to(new, X, P, 4.0)
    exact = rho_path_distances(np.vstack([X, new]), 4.0)[len(X):, :len(X)]
    assert np.all(approx >= exact - 1e-9)
    assert np.max(approx - exact) < 0.05 * exact.max()


@pytest.mark.parametrize("rho", [0.5, 4.0])
def test_sparse_graph_paths_are_the_shortest_paths_of_the_softened_edges(moons, rho):
    # On the k-NN graph the paths come from Dijkstra: the same as Floyd-Warshall on its edges.
    X, _ = moons
    graph = kneighbors_graph(X, 8, mode="distance")
    graph = graph.maximum(graph.T)
    graph.data = np.expm1(rho * graph.data)
    expected = np.log1p(shortest_path(graph, method="FW", directed=False)) / rho
    np.testing.assert_allclose(rho_path_distances(X, rho, n_neighbors=8), expected, atol=1e-10)


def test_truncated_mds_keeps_the_leading_components_of_the_full_one(moons):
    X, _ = moons
    D2 = rho_path_distances(X, 2.0) ** 2
    full = classical_mds(D2, 0.1)
    truncated = classical_mds(D2, 0.1, max_components=10)
    p = truncated.embedding.shape[1]
    assert 1 <= p <= full.embedding.shape[1]
    np.testing.assert_allclose(truncated.eigenvalues, full.eigenvalues[:p], rtol=1e-8)
    # the same embedding up to each component's sign
    signs = np.sign(np.sum(truncated.embedding * full.embedding[:, :p], axis=0))
    np.testing.assert_allclose(truncated.embedding * signs, full.embedding[:, :p], atol=1e-7)


def test_out_of_sample_to_some_columns_is_those_columns_of_all(moons):
    X, _ = moons
    new = np.random.default_rng(3).uniform(-1.0, 2.0, size=(30, 2))
    columns = np.array([0, 7, 50])
    for neighbors in (None, 8):
        P = rho_path_distances(X, 2.0, n_neighbors=neighbors)
        every = rho_path_distances_to(new, X, P, 2.0, n_neighbors=neighbors)
        some = rho_path_distances_to(new, X, P, 2.0, n_neighbors=neighbors, columns=columns)
        np.testing.assert_allclose(some, every[:, columns], atol=1e-12)


def test_bridged_pieces_are_joined_by_their_shortest_edge():
    # Two clusters 50 apart: the 3-NN graph falls apart, the bridge is the closest pair, and
    # the minimax distance across (rho = inf) is that gap, as on the paper's full graph.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 50])
    gap = euclidean_distances(X[:20], X[20:]).min()
    bridged = rho_path_distances(X, np.inf, n_neighbors=3, bridge=True)
    np.testing.assert_allclose(bridged[:20, 20:], gap, rtol=1e-12)
    np.testing.assert_allclose(bridged[:20, 20:], rho_path_distances(X, np.inf)[:20, 20:],
                               rtol=1e-12)
    finite = rho_path_distances(X, 0.1, n_neighbors=3, bridge=True)
    assert np.all(np.isfinite(finite)) and finite[:20, 20:].min() >= gap - 1e-9


def test_too_many_points_for_the_path_matrix_are_refused_with_what_to_do(moons, monkeypatch):
    # The n x n path matrix is estimated before it is built; the advice fits the rho-paths.
    from s3vm_core import problem

    X, _ = moons
    monkeypatch.setattr(problem, "MAX_DENSE_BYTES", 8 * 100 * 100)  # 100 points at most
    for neighbors in (None, 8):
        with pytest.raises(ValueError, match=r"120 x 120 path distance matrix .*use "
                                             r"n_landmarks with n_neighbors .* or fewer"):
            rho_path_distances(X, 2.0, n_neighbors=neighbors)


@pytest.mark.parametrize("rho", [0.0, 1.0, np.inf])
def test_coincident_points_keep_their_edge_and_bridged_pieces_join(rho):
    """Two equal rows are joined by an edge of length 0: it must stay an edge of the k-NN
    graph (else they fall into pieces of their own), and bridging the pieces must end."""
    X = np.random.default_rng(0).normal(size=(6, 2))
    X[5] = X[0]
    P = rho_path_distances(X, rho, n_neighbors=1, bridge=True)
    assert np.all(np.isfinite(P)) and P[0, 5] == 0.0
    assert np.count_nonzero(P == 0) == 6 + 2  # the diagonal and the twins only


@pytest.mark.parametrize("rho", [0.0, 1.0, 8.0, np.inf])
def test_path_distances_from_landmarks_are_rows_of_the_full_matrix(moons, rho):
    """The landmark form runs Dijkstra from the landmarks only (LDS paper §2.3.1); its rows are
    those of the all-pairs matrix on the same k-NN graph, rho = inf (minimax, by Kruskal's
    order) included."""
    from s3vm_core.graph import rho_path_distances_from

    X, _ = moons
    sources = np.array([0, 7, 33, 119])
    full = rho_path_distances(X, rho, n_neighbors=6, bridge=True)
    rows = rho_path_distances_from(X, rho, sources, n_neighbors=6, bridge=True)
    assert rows.shape == (4, X.shape[0])
    np.testing.assert_allclose(rows, full[sources], rtol=1e-12, atol=1e-12)


def test_minimax_from_landmarks_keeps_coincident_points_at_distance_zero():
    from s3vm_core.graph import rho_path_distances_from

    X = np.random.default_rng(0).normal(size=(30, 2))
    X[5] = X[4]
    rows = rho_path_distances_from(X, np.inf, [4, 9], n_neighbors=3, bridge=True)
    assert rows[0, 5] == 0.0 and rows[0, 4] == 0.0
    np.testing.assert_allclose(rows, rho_path_distances(X, np.inf, n_neighbors=3,
                                                        bridge=True)[[4, 9]], atol=1e-12)


def test_landmark_paths_need_the_knn_graph(moons):
    from s3vm_core.graph import rho_path_distances_from

    X, _ = moons
    with pytest.raises(ValueError, match="need the k-NN graph: set n_neighbors"):
        rho_path_distances_from(X, 1.0, [0, 1], n_neighbors=None)


@pytest.mark.parametrize("rho", [0.5, 4.0, 32.0])
def test_full_graph_paths_are_floyd_warshalls_without_the_beaten_edges(rho):
    """On the full graph the paths run on the edges no two-edge path beats: the lengths of
    Floyd-Warshall on every edge (coincident points at 0), from a fraction of the edges."""
    from scipy.sparse.csgraph import csgraph_from_dense

    from s3vm_core.graph import _nearest_others, _without_shortcut_edges
    from s3vm_core.kernels import distances

    X, _ = make_moons(300, noise=0.1, random_state=1)
    X[290:] = X[:10]  # ten points twice
    d = distances(X, X)
    np.fill_diagonal(d, 0.0)
    weights = np.expm1(rho * d)
    every_edge = csgraph_from_dense(weights, null_value=np.inf)  # length 0 is an edge
    expected = np.log1p(shortest_path(every_edge, method="FW", directed=False)) / rho
    paths = rho_path_distances(X, rho)
    np.testing.assert_allclose(paths, expected, rtol=1e-12, atol=1e-15)
    assert np.all(paths[np.arange(10), np.arange(290, 300)] < 1e-7)  # distances round-off
    kept = _without_shortcut_edges(weights, _nearest_others(d, 32))
    assert kept.nnz < 0.2 * 300 * 299
