"""Graphs over the data: rho-path distances and MDS (LDS paper), k-NN graph Laplacians
(LapSVM paper). Sparse wherever the method allows."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import sklearn

from s3vm_core.kernels import distances, gaussian
from s3vm_core.reuse import reusable


def check_n_neighbors(n_neighbors: int, n: int) -> None:
    """Refuse a k-NN graph that cannot be built: each point needs k other points."""
    if not 1 <= n_neighbors < n:
        raise ValueError(
            f"n_neighbors={n_neighbors} but there are only {n} points: each point needs "
            f"n_neighbors other points to connect to. Use 1 <= n_neighbors <= {n - 1}."
        )


def knn_distance_graph(X, n_neighbors: int) -> sp.csr_matrix:
    """Symmetric k-NN graph weighted by Euclidean distances: i ~ j when either is among the
    other's ``n_neighbors`` nearest neighbours (LapSVM paper §2; LDS paper §2.1, footnote 1)."""
    rows, cols, lengths = _knn_edges(X, n_neighbors)
    return _edges_graph(rows, cols, lengths, X.shape[0])


def _edges_graph(rows, cols, lengths, n: int) -> sp.csr_matrix:
    """The graph of these edges, an edge of length 0 (coincident points) kept as an explicitly
    stored zero, which scipy.sparse.csgraph reads as an edge (arithmetic on sparse matrices,
    such as ``maximum``, would drop it)."""
    return sp.csr_matrix((np.asarray(lengths, dtype=float), (rows, cols)), shape=(n, n))


#: Edges whose lengths are computed together in ``_knn_edges``.
_EDGE_BLOCK = 4096
#: Largest block of distances (MB) the neighbour search holds at once.
_NEIGHBOUR_BLOCK_MB = 64


def _knn_edges(X, n_neighbors: int, neighbors=None):
    """The edges ``(rows, cols, distances)`` of the symmetric k-NN graph, both directions.

    Built from the neighbour pattern rather than from a distance matrix, so that an edge
    between two coincident points (distance 0, the strongest Gaussian weight) stays an edge.
    ``neighbors`` (see ``knn_adjacency``) gives the pattern without a search.
    """
    from sklearn.neighbors import kneighbors_graph

    n = X.shape[0]
    check_n_neighbors(n_neighbors, n)
    if neighbors is not None:
        neighbors = np.asarray(neighbors)
        if neighbors.shape != (n, n_neighbors):
            raise ValueError(
                f"neighbors must hold n_neighbors={n_neighbors} indices for each of the {n} "
                f"points, shape ({n}, {n_neighbors}); got shape {neighbors.shape}."
            )
        pattern = sp.csr_matrix((np.ones(neighbors.size),
                                 (np.repeat(np.arange(n), n_neighbors), neighbors.ravel())),
                                shape=(n, n))
    else:
        # scikit-learn takes the distances in blocks of rows of up to working_memory MB (1 GB
        # by default: 2 GB at the peak for LapSVM on 20,000 sparse texts); with 64 MB blocks
        # the fit peaked at 142 MB and took 12.8 s instead of 15.9 s (benchmarks.scale)
        block_mb = min(sklearn.get_config()["working_memory"], _NEIGHBOUR_BLOCK_MB)
        with sklearn.config_context(working_memory=block_mb):
            pattern = kneighbors_graph(X, n_neighbors, mode="connectivity",
                                       include_self=False)
    rows, cols = sp.triu(pattern.maximum(pattern.T), k=1).nonzero()
    lengths = np.empty(rows.size)
    # a block of edges at a time: the differences of all k n edges at once would hold k
    # copies of the data (sparse text at n = 50,000 and k = 6: over 1 GB); each edge once,
    # both directions below (the lengths took 2.7 of 10 s of a 20-NN graph of 6,000 images)
    for start in range(0, rows.size, _EDGE_BLOCK):
        block = slice(start, start + _EDGE_BLOCK)
        differences = X[rows[block]] - X[cols[block]]
        lengths[block] = (np.sqrt(np.asarray(differences.power(2).sum(axis=1)).ravel())
                          if sp.issparse(differences)
                          else np.linalg.norm(differences, axis=1))
    return np.r_[rows, cols], np.r_[cols, rows], np.r_[lengths, lengths]


@reusable
def knn_adjacency(X, n_neighbors: int = 6, weights: str = "gaussian",
                  graph_sigma: float | None = None, neighbors=None) -> sp.csr_matrix:
    """Symmetric k-nearest-neighbour adjacency matrix W of the data graph (LapSVM paper §2).

    Points i and j are joined when either is among the ``n_neighbors`` nearest (Euclidean)
    neighbours of the other. Edge weights are 1 (``weights="binary"``) or the exponential
    weights ``w_ij = exp(-||x_i - x_j||^2 / (2 graph_sigma^2))`` (``"gaussian"``), the choice
    under which the graph Laplacian converges to the Laplace-Beltrami operator (§2).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    n_neighbors : int
        Neighbours per point (the paper's ``nn``); must be smaller than ``n``.
    weights : {"gaussian", "binary"}
    graph_sigma : float or None
        Width of the Gaussian weights; ``None`` takes the mean distance of the points to their
        ``n_neighbors`` nearest neighbours, so the typical edge weight is about exp(-1/2) — this
        project's default: the paper tunes the width per data set.
    neighbors : ndarray of shape (n, n_neighbors) of int, or None
        Each point's nearest other points, found already (``kernels.kernel_and_neighbors``
        reads them off the distances LapSVM's kernel is computed from) instead of a search
        over all pairs' distances, as costly as the kernel itself (34 of 111 s of the setup
        of a FACEMIT-sized LapSVM, 24,000 points of 361 features). The edges' lengths are
        computed from ``X`` in either case.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n), symmetric, zero diagonal.
    """
    if weights not in ("gaussian", "binary"):
        raise ValueError(f"weights must be 'gaussian' or 'binary', got {weights!r}.")
    n = X.shape[0]
    rows, cols, distances = _knn_edges(X, n_neighbors, neighbors)
    if weights == "binary":
        values = np.ones_like(distances)
    else:
        mean_distance = float(np.mean(distances))
        width = mean_distance if graph_sigma is None else float(graph_sigma)
        if not width > 0:
            raise ValueError(
                "The neighbours all coincide (zero distances), so no Gaussian weight width can "
                "be derived. Remove duplicate points, set graph_sigma, or use binary weights."
            )
        values = gaussian(distances**2, width)
        if not np.any(values > 0):
            raise ValueError(
                f"graph_sigma={width:.3g} is so much smaller than the distances between "
                f"neighbours (mean {mean_distance:.3g}) that every edge weight "
                "exp(-d^2 / (2 graph_sigma^2)) is 0: the graph has no edge left. Choose a "
                "larger graph_sigma, or None for the mean neighbour distance."
            )
    W = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    W.eliminate_zeros()  # weights that underflow to 0 are no edges
    return W


@reusable
def graph_laplacian(W, normalized: bool = True, p: int = 1) -> sp.csr_matrix:
    """Graph Laplacian ``L = D - W`` (LapSVM paper §2), optionally normalized and iterated.

    ``normalized=True`` gives ``D^{-1/2} (D - W) D^{-1/2} = I - D^{-1/2} W D^{-1/2}`` (the form
    used in all experiments, §6.3); ``p`` is the degree ``p`` of Table 8: the returned operator
    is ``L^p``, kept sparse (its fill-in grows with ``p``).
    """
    if int(p) != p or p < 1:
        raise ValueError(
            f"The Laplacian degree p must be a whole number >= 1 (L is raised to the power p), "
            f"got {p!r}."
        )
    W = sp.csr_matrix(W, dtype=float)
    degrees = np.asarray(W.sum(axis=1)).ravel()
    L = (sp.diags(degrees) - W).tocsr()
    if normalized:
        # An isolated point has no neighbours: its row of the normalized Laplacian stays zero.
        inv_sqrt = np.zeros_like(degrees)
        np.divide(1.0, np.sqrt(degrees), out=inv_sqrt, where=degrees > 0)
        scale = sp.diags(inv_sqrt)
        L = (scale @ L @ scale).tocsr()
    result = L
    for _ in range(int(p) - 1):
        result = (result @ L).tocsr()
    result.eliminate_zeros()
    return result


class IteratedLaplacian:
    """The operator ``L^p`` as ``p`` products by the sparse ``L`` (LapSVM paper Table 8's
    degree ``p``), never formed.

    ``L^p`` fills in with ``p`` (a 20-NN graph of 6,000 images, p = 3: 1,350 entries a row
    against 40 in ``L``), so ``p`` products by ``L`` cost a fraction of one by ``L^p``: PCG's
    product a step (§3.2.2) and Newton's ``L K`` (§3.1.1, where the paper finds most of its time)
    take ``p nnz(L)`` instead of ``nnz(L^p)`` operations per column.
    """

    def __init__(self, L, p: int):
        self.base = sp.csr_matrix(L)
        self.p = int(p)
        self.shape = self.base.shape

    def __matmul__(self, v):
        for _ in range(self.p):
            v = self.base @ v
        return v

    def sum(self, axis=None):
        """Row sums ``L^p 1`` (``axis=1``; the operator is symmetric, so also its column
        sums)."""
        if axis not in (0, 1):
            raise ValueError("IteratedLaplacian sums along axis 0 or 1 only.")
        return self @ np.ones(self.shape[0])


def intrinsic_norm(f, L) -> float:
    """The intrinsic norm of eq. (1), ``||f||_I^2 = f^T L f``.

    For the unnormalized Laplacian this is ``sum_{i<j} w_ij (f(x_i) - f(x_j))^2``: small when
    ``f`` varies little between neighbouring points of the graph.
    """
    f = np.asarray(f, dtype=float)
    return float(f @ (L @ f))


# --- rho-path distances and classical MDS (LDS paper §2.1, §2.3, Algorithm 1) -------------------

#: Largest exponent ``rho * d`` allowed: exp(690) times ~1e8 edges of a path stays below
#: float64's largest number, exp(709.7).
_RHO_EXP_LIMIT = 690.0

#: Nearest training points through which a new point's paths may leave (out-of-sample extension).
RHO_PATH_OOS_NEIGHBORS = 10


def _check_rho(rho) -> float:
    rho = float(rho)
    if not rho >= 0:  # also catches NaN
        raise ValueError(
            f"rho must be >= 0 (0 gives Euclidean distances, np.inf the minimax path distance); "
            f"got {rho!r}."
        )
    return rho


def _check_connected(G) -> None:
    from scipy.sparse.csgraph import connected_components

    n_components, _ = connected_components(G, directed=False)
    if n_components > 1:
        raise ValueError(
            f"The nearest-neighbour graph falls into {n_components} separate pieces, so the "
            "path distance between points of different pieces is infinite. Increase "
            "n_neighbors, join the pieces by their shortest edges (bridge=True), or use the "
            "fully connected graph (n_neighbors=None) as the LDS paper does."
        )


def bridge_pieces(G, X) -> sp.csr_matrix:
    """``G`` with its pieces joined: each piece gets the shortest edge from its points to the
    others' (Borůvka's round of a minimum spanning tree of the full graph), until one is left.

    These are edges the fully connected graph of the LDS paper has, and the ones its minimax
    paths (rho = inf) cross between the pieces; each round at least halves the pieces and costs
    one nearest-point search per piece, O(n^2 d) at most, without an n x n matrix.
    """
    from scipy.sparse.csgraph import connected_components
    from sklearn.metrics import pairwise_distances_argmin_min

    edges = sp.coo_matrix(G)
    rows, cols, lengths = list(edges.row), list(edges.col), list(edges.data)
    while True:
        G = _edges_graph(rows, cols, lengths, X.shape[0])
        n_pieces, piece = connected_components(G, directed=False)
        if n_pieces == 1:
            return G
        bridges = {}  # two pieces may choose the same bridge: each is added once
        for c in range(n_pieces):
            inside, outside = np.flatnonzero(piece == c), np.flatnonzero(piece != c)
            nearest, gap = pairwise_distances_argmin_min(X[inside], X[outside])
            best = int(np.argmin(gap))
            i, j = int(inside[best]), int(outside[nearest[best]])
            bridges[min(i, j), max(i, j)] = float(gap[best])
        for (i, j), length in bridges.items():
            rows += [i, j]
            cols += [j, i]
            lengths += [length, length]


def _path_graph(X, n_neighbors: int, bridge: bool) -> sp.csr_matrix:
    """The k-NN graph of the rho-paths: refused when it falls into pieces, unless ``bridge``."""
    G = knn_distance_graph(X, n_neighbors)
    if bridge:
        return bridge_pieces(G, X)
    _check_connected(G)
    return G


def _minimax_distances(X, n_neighbors: int | None, bridge: bool = False) -> np.ndarray:
    """rho = inf: the minimax path distance of eq. (1), i.e. the largest edge on the path of the
    minimum spanning tree — the cophenetic distance of single linkage (an ultrametric)."""
    from scipy.cluster.hierarchy import cophenet, linkage
    from scipy.spatial.distance import squareform
    if n_neighbors is None:
        d = distances(X, X)
    else:
        G = _path_graph(X, n_neighbors, bridge)
        # Non-edges get a length no spanning tree of the connected graph will use.
        big = 2.0 * float(G.data.max(initial=0.0)) + 1.0
        d = np.full((X.shape[0],) * 2, big)
        edges = G.tocoo()  # explicit zeros (coincident points) included
        d[edges.row, edges.col] = edges.data
    d = 0.5 * (d + d.T)
    np.fill_diagonal(d, 0.0)
    return squareform(cophenet(linkage(squareform(d, checks=False), "single")))


def rho_path_distances(X, rho: float, *, n_neighbors: int | None = None,
                       bridge: bool = False) -> np.ndarray:
    """Minimal rho-path distances between all points (LDS paper Algorithm 1, steps 1–3).

    Step 1 builds a graph with edge lengths ``exp(rho d(i, j)) - 1`` (fully connected when
    ``n_neighbors`` is None, the paper's ``k = n + m`` of §2.3.2; else the symmetric k-NN graph
    of §2.1); step 2 takes all-pairs shortest path lengths ``d_SP`` (n runs of Dijkstra, on
    the full graph without the edges a two-edge path beats, ``_without_shortcut_edges``: the
    same lengths as Floyd–Warshall's O(n^3), at O(n^2 log n) for the few edges left); step 3
    returns ``(1/rho) log(1 + d_SP)``, the softened max ``smax^rho`` of eq. (2) minimized over
    paths. ``rho_path_distance_steps`` is the same computation, reporting its progress.

    The limits are handled as §2.3.3 says: ``rho = 0`` is the shortest path on ``d`` itself
    (Euclidean distances on the full graph, Isomap on a k-NN graph); ``rho = inf`` the minimax
    path distance of eq. (1). A ``rho * max d`` beyond 690, where ``exp`` overflows, is refused
    with a clear message (use ``rho=np.inf`` there).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    rho : float in [0, inf]
    n_neighbors : int or None, default=None
    bridge : bool, default=False
        A k-NN graph in pieces is refused (some distances would be infinite); with ``bridge``
        its pieces are joined by their shortest edges instead (``bridge_pieces``).

    Returns
    -------
    P : ndarray of shape (n, n)
        Path distances (not squared): the paper's ``D^rho`` is ``P**2``.
    """
    steps = rho_path_distance_steps(X, rho, n_neighbors=n_neighbors, bridge=bridge)
    for _ in steps:
        pass
    return steps.result


class Steps:
    """A long computation that reports its progress: iterating it runs it, yielding
    ``(done, total)`` after each of its ``total`` steps; ``result`` is there once it has run.

    Input is checked and the quick parts are done when it is made (so bad input fails at the
    call, before any step), the long part only as it is iterated.
    """

    def __init__(self, steps):
        self._steps = steps
        self.result = None

    def __iter__(self):
        self.result = yield from self._steps

    @classmethod
    def finished(cls, value):
        """The steps of a computation that needed none: ``value`` is already its result."""
        return cls(_done(value))


def _done(value):
    return value
    yield  # a generator that yields nothing


#: Sources per step of Dijkstra (one progress report each): at n = 4,000 a step takes about
#: a second.
_PATH_BLOCK = 128
#: Nearest points of a point through which ``_without_shortcut_edges`` looks for a two-edge
#: path shorter than the direct edge (at n = 2000, rho = 1: 16 candidates left 23 edges a
#: point, 32 left 18.5 and took 0.2 s more).
_SHORTCUT_CANDIDATES = 32
#: Points whose edges ``_without_shortcut_edges`` checks together.
_SHORTCUT_ROWS = 32


@reusable(steps=True)
def rho_path_distance_steps(X, rho: float, *, n_neighbors: int | None = None,
                            bridge: bool = False) -> Steps:
    """``rho_path_distances`` as ``Steps``: the input and the graph (k-NN neighbours, pieces,
    the float64 range of ``exp(rho d)``) are checked at the call; the shortest paths run as
    the steps are iterated, in blocks of ``_PATH_BLOCK`` sources of Dijkstra. The result is
    the same to the bit."""
    from s3vm_core.problem import check_dense_memory

    rho = _check_rho(rho)
    X = np.asarray(X, dtype=float)
    check_dense_memory(
        X.shape[0], X.shape[0], "path distance matrix",
        "LDS and the graph kernel keep every pair's path distance, on the full or the k-NN "
        "graph alike: use n_landmarks with n_neighbors (the path distances from landmark "
        "points only), or fewer points.")
    if np.isinf(rho):
        return Steps.finished(_minimax_distances(X, n_neighbors, bridge))
    if n_neighbors is None:
        if rho == 0.0:  # the direct edge is shortest (triangle inequality)
            return Steps.finished(distances(X, X))
        d = distances(X, X)
        np.fill_diagonal(d, 0.0)
        G = None
    else:
        G = _path_graph(X, n_neighbors, bridge)
        if rho == 0.0:
            return Steps(_dijkstra_steps(G))
        d = G.data
    _check_edge_exponent(rho, d)
    weights = np.expm1(rho * d)
    if G is None:
        # the full graph without the edges a two-edge path beats (the undirected graph's edge
        # is the shorter of the two directions, as scipy's undirected shortest_path takes it),
        # then n Dijkstra runs on what is left, as on the sparse k-NN graph
        weights = np.minimum(weights, weights.T)
        near = _nearest_others(d, _SHORTCUT_CANDIDATES)
        del d
        return Steps(_soften(_full_graph_steps(weights, near), rho))
    graph = G.copy()
    graph.data = weights
    return Steps(_soften(_dijkstra_steps(graph), rho))


def _soften(shortest, rho: float):
    """Step 3 of Algorithm 1 on the shortest path lengths that the steps ``shortest`` return:
    ``(1/rho) log(1 + d_SP)``, symmetric, zero on the diagonal."""
    P = np.log1p((yield from shortest)) / rho
    P = 0.5 * (P + P.T)
    np.fill_diagonal(P, 0.0)
    return np.maximum(P, 0.0, out=P)


def _check_edge_exponent(rho: float, lengths) -> None:
    """Refuse edge lengths ``exp(rho d) - 1`` that overflow (``rho * max d`` above 690)."""
    largest = rho * float(np.max(lengths, initial=0.0))
    if largest > _RHO_EXP_LIMIT:
        raise ValueError(
            f"rho times the longest edge is {largest:.3g}: the edge lengths exp(rho d) - 1 of "
            "the LDS paper would be infinite in floating point (above exp(690)). Use a smaller "
            "rho, rescale X, or rho=np.inf, the limit the paper handles exactly (minimax path "
            "distance)."
        )


def _dijkstra_paths(G, rho: float, sources=None) -> np.ndarray:
    """rho-path distances on the k-NN graph ``G`` (finite rho) from ``sources`` (all points by
    default) to every point: Dijkstra on the edge lengths ``exp(rho d) - 1`` (on ``d`` itself
    for rho = 0), then ``(1/rho) log(1 + d_SP)`` (Algorithm 1, steps 1-3).

    ``G`` is symmetric: ``directed=True`` gives the same paths 1.5-3x faster (scipy does not
    build its undirected copy).
    """
    from scipy.sparse.csgraph import shortest_path

    if rho == 0.0:
        return shortest_path(G, method="D", directed=True, indices=sources)
    _check_edge_exponent(rho, G.data)
    graph = G.copy()
    graph.data = np.expm1(rho * G.data)
    return np.log1p(shortest_path(graph, method="D", directed=True, indices=sources)) / rho


def _minimax_paths_from(G, sources) -> np.ndarray:
    """rho = inf from ``sources``: the largest edge on the path of the minimum spanning tree
    (eq. (1)), for every point, without the n x n matrix of ``_minimax_distances``.

    Kruskal's order: the tree's edges join pieces from the shortest up, and the edge that
    joins two pieces is the minimax distance between every point of one and every point of
    the other. Each source's row is written once per piece it meets, O(m n) in all; the
    smaller piece's lists join the larger's.
    """
    from scipy.sparse.csgraph import minimum_spanning_tree

    n = G.shape[0]
    G = G.copy()
    # scipy's tree drops edges of length 0 (coincident points): the smallest positive
    # length keeps them, and is read back as 0
    G.data = np.maximum(G.data, np.finfo(float).smallest_subnormal)
    tree = minimum_spanning_tree(G).tocoo()
    out = np.full((len(sources), n), np.inf)
    out[np.arange(len(sources)), sources] = 0.0
    root = np.arange(n)
    members = {i: [i] for i in range(n)}
    rows = {i: [] for i in range(n)}
    for row, source in enumerate(sources):
        rows[int(source)].append(row)

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for k in np.argsort(tree.data, kind="stable"):
        a, b = find(tree.row[k]), find(tree.col[k])
        if a == b:
            continue
        if len(members[a]) < len(members[b]):
            a, b = b, a
        length = tree.data[k] if tree.data[k] > np.finfo(float).smallest_subnormal else 0.0
        if rows[a]:
            out[np.ix_(rows[a], members[b])] = length
        if rows[b]:
            out[np.ix_(rows[b], members[a])] = length
        root[b] = a
        members[a] += members.pop(b)
        rows[a] += rows.pop(b)
    return out


def rho_path_distances_from(X, rho: float, sources, *, n_neighbors: int,
                            bridge: bool = False) -> np.ndarray:
    """rho-path distances from the points ``sources`` to every point, on the k-NN graph.

    The scalable form of ``rho_path_distances``: one Dijkstra run from each source, as the
    LDS paper computes them (§2.3.1: O(|E| log(n + m)) a source), so ``len(sources) x n``
    distances, O(n m) memory instead of O(n^2). The rows are those of
    ``rho_path_distances(X, rho, n_neighbors=n_neighbors)`` at ``sources`` (up to the
    round-off of its symmetrization), for every rho including 0 and inf. The fully connected
    graph (``n_neighbors=None``) has n^2 edges and is refused.

    Returns
    -------
    ndarray of shape (len(sources), n)
    """
    from s3vm_core.problem import check_dense_memory

    rho = _check_rho(rho)
    if n_neighbors is None:
        raise ValueError(
            "Path distances from landmark points (n_landmarks) need the k-NN graph: set "
            "n_neighbors (for example 10). On the fully connected graph every pair of points is "
            "an edge, n^2 of them, which is what the landmarks avoid."
        )
    X = np.asarray(X, dtype=float)
    sources = np.asarray(sources, dtype=int)
    check_dense_memory(
        len(sources), X.shape[0], "matrix of path distances from the landmarks",
        "Use fewer landmarks (n_landmarks) or fewer points.")
    G = _path_graph(X, n_neighbors, bridge)
    if np.isinf(rho):
        return _minimax_paths_from(G, sources)
    return np.maximum(_dijkstra_paths(G, rho, sources), 0.0)


def _dijkstra_steps(graph):
    """All-pairs shortest paths of a sparse symmetric graph by Dijkstra, ``_PATH_BLOCK``
    sources a step (each source's row is computed alone, so the blocks change nothing). On the
    symmetric k-NN graph directed=True gives the same paths 1.5-3x faster (scipy does not
    build its undirected copy)."""
    from scipy.sparse.csgraph import shortest_path

    n = graph.shape[0]
    SP = np.empty((n, n))
    starts = range(0, n, _PATH_BLOCK)
    for step, start in enumerate(starts, start=1):
        sources = np.arange(start, min(start + _PATH_BLOCK, n))
        SP[sources] = shortest_path(graph, method="D", directed=True, indices=sources)
        yield step, len(starts)
    return SP


def _full_graph_steps(weights, near):
    """Shortest paths of the full graph of edge lengths ``weights`` (``exp(rho d) - 1``) as
    Dijkstra's steps on the edges that ``_without_shortcut_edges`` keeps: the same path
    lengths, to round-off, as Floyd–Warshall on the full graph."""
    return (yield from _dijkstra_steps(_without_shortcut_edges(weights, near)))


def _nearest_others(d, m: int) -> np.ndarray:
    """The ``m`` nearest other points of every point (rows of the distance matrix ``d``), in
    no particular order."""
    n = d.shape[0]
    m = min(m, n - 1)
    near = np.empty((n, m), dtype=np.intp)
    for start in range(0, n, _SHORTCUT_ROWS):
        rows = np.array(d[start:start + _SHORTCUT_ROWS])
        own = np.arange(rows.shape[0])
        rows[own, start + own] = np.inf  # a point is not its own neighbour
        near[start:start + rows.shape[0]] = np.argpartition(rows, m - 1, axis=1)[:, :m]
    return near


def _without_shortcut_edges(weights, near) -> sp.csr_matrix:
    """The full graph of edge lengths ``weights`` without the edges that a path of two edges
    through one of an end's nearest points (``near``, ``_SHORTCUT_CANDIDATES`` a point)
    beats.

    Shortest path lengths are unchanged: an edge (i, j) goes only when ``w_ik + w_kj < w_ij``
    for some k, and then both ``w_ik`` and ``w_kj``, hence ``d_ik`` and ``d_kj`` (w grows with
    d), are below ``w_ij`` and ``d_ij``: by induction on d, every edge that goes has a path of
    kept edges no longer than it. The edge lengths ``exp(rho d) - 1`` of the LDS paper (eq.
    (2)) are convex in d and 0 at 0, so a path of short hops beats a long edge: at n = 2000
    (two moons, rho = 1) 18.5 edges a point are left of 1,999, and the n Dijkstra runs on
    them (``O(n E log n)``) took 1.2 s where Floyd–Warshall on the full graph (``O(n^3)``)
    took 6.5 s, the check itself 0.6 s (``O(n^2)`` per candidate). Edges of length 0
    (coincident points) are kept, as explicit zeros.
    """
    n = weights.shape[0]
    shortcut = np.zeros((n, n), dtype=bool)
    for start in range(0, n, _SHORTCUT_ROWS):
        rows = np.arange(start, min(start + _SHORTCUT_ROWS, n))
        hops = near[rows]
        via = (weights[rows[:, None], hops][:, :, None] + weights[hops]).min(axis=1)
        shortcut[rows] = via < weights[rows]
    kept = ~(shortcut | shortcut.T)
    np.fill_diagonal(kept, False)
    rows, cols = np.nonzero(kept)
    return _edges_graph(rows, cols, weights[rows, cols], n)


def _rho_join(a, b, rho: float):
    """Path distance of a path made of two pieces with distances ``a`` and ``b`` (eq. (2)):
    ``(1/rho) log(exp(rho a) + exp(rho b) - 1)``, computed without overflow; ``a + b`` at
    rho = 0 and ``max(a, b)`` at rho = inf."""
    if rho == 0.0:
        return a + b
    if np.isinf(rho):
        return np.maximum(a, b)
    hi = np.maximum(a, b)
    lo = np.minimum(a, b)
    # exp(rho lo) + exp(rho hi) - 1 = exp(rho hi) (1 + expm1(rho (lo - hi)) - expm1(-rho hi)):
    # no overflow, and no cancellation for small rho.
    inner = np.expm1(rho * (lo - hi)) - np.expm1(-rho * hi)
    return hi + np.log1p(inner) / rho


def rho_path_distances_to(X_new, X, P, rho: float, *, n_neighbors: int | None = None,
                          n_hops: int = RHO_PATH_OOS_NEIGHBORS, chunk: int = 128,
                          columns=None) -> np.ndarray:
    """Out-of-sample rho-path distances from new points to the training points.

    A new point ``x`` is joined to the training graph by edges to its ``n_hops`` nearest
    training points ``k`` (and, on the fully connected graph, by the direct edge to every
    training point ``j``); its distance to ``j`` is the best of the direct edge and the paths
    ``x -> k`` followed by the training shortest path ``k -> j`` (``P``):

    ``P(x, j) = min(d(x, j), min_k smax^rho(d(x, k), P(k, j)))``.

    Approximation (documented for the app): paths that leave ``x`` by an edge to a training
    point farther than its ``n_hops`` nearest ones, and shortcuts that ``x`` would create
    between training points, are ignored. It is exact at rho = 0 on the full graph and for every
    training point (whose own distance row is reproduced exactly, since it is its own nearest
    neighbour), and for large rho a long first edge is never on a shortest path anyway.

    Parameters
    ----------
    X_new : ndarray of shape (n_new, d)
    X : ndarray of shape (n, d)
        Training points.
    P : ndarray of shape (n, n) or (n, len(columns))
        ``rho_path_distances(X, rho, n_neighbors=n_neighbors)``, or only its ``columns``
        (the transposed rows of ``rho_path_distances_from``).
    rho, n_neighbors : as for ``rho_path_distances``.
    columns : index array, boolean mask or None
        Only the distances to these training points (all by default): an SVM on the labeled
        points, or landmark MDS, needs no more, and the cost falls from O(n_new n) to
        O(n_new len(columns)) (the hops' distances to all training points excepted).

    Returns
    -------
    ndarray of shape (n_new, n), or (n_new, len(columns))
    """
    rho = _check_rho(rho)
    X_new = np.asarray(X_new, dtype=float)
    n = X.shape[0]
    hops = min(n_hops if n_neighbors is None else n_neighbors, n)
    if columns is not None:
        columns = np.flatnonzero(columns) if np.asarray(columns).dtype == bool else columns
        if P.shape[1] != len(columns):  # else P holds these columns only
            P = P[:, columns]
    out = np.empty((X_new.shape[0], P.shape[1]))
    # smax^rho is (1/rho) log(1 + expm1(rho a) + expm1(rho b)), increasing in its argument:
    # the min over the hops is taken on the sums, with expm1(rho P) computed once, where
    # nothing overflows (the grid of the app: 0.4 s instead of 3.7 s at n = 2000). Chunks of
    # 128 new points keep the gathered rows (128 x hops x n) near the cache: 512 took 3x longer.
    P_exp = (np.expm1(rho * P) if 0.0 < rho < np.inf and rho * float(P.max(initial=0.0))
             < _RHO_EXP_LIMIT else None)
    for start in range(0, X_new.shape[0], chunk):
        d = distances(X_new[start:start + chunk], X)
        near = np.argpartition(d, hops - 1, axis=1)[:, :hops]
        d_near = np.take_along_axis(d, near, axis=1)
        if P_exp is not None and rho * float(d_near.max(initial=0.0)) < _RHO_EXP_LIMIT:
            sums = (np.expm1(rho * d_near)[:, :, None] + P_exp[near]).min(axis=1)
            via = np.log1p(sums) / rho
        else:
            via = _rho_join(d_near[:, :, None], P[near], rho).min(axis=1)
        direct = d if columns is None else d[:, columns]
        out[start:start + chunk] = np.minimum(direct, via) if n_neighbors is None else via
    return out


class MDSMap:
    """Classical MDS of squared distances with the eigenvalue threshold (6) of the LDS paper.

    Attributes
    ----------
    embedding : ndarray of shape (n, p)
        ``U_k sqrt(lam_k)``, Algorithm 1 step 6.
    eigenvalues : ndarray of shape (p,)
        The kept eigenvalues ``lam_1 >= ... >= lam_p > 0``.
    components : ndarray of shape (n, p)
        The eigenvectors ``U``.
    column_means : ndarray of shape (n,)
        Mean squared distance from each training point (for the out-of-sample formula).
    """

    __slots__ = ("embedding", "eigenvalues", "components", "column_means")

    def __init__(self, embedding, eigenvalues, components, column_means):
        self.embedding = embedding
        self.eigenvalues = eigenvalues
        self.components = components
        self.column_means = column_means

    def transform(self, D2_new) -> np.ndarray:
        """Landmark-MDS projection of new points (de Silva & Tenenbaum's out-of-sample formula).

        ``x~ = 1/2 Lambda^{-1/2} U^T (column_means - delta_x)`` with ``delta_x`` the squared
        distances of ``x`` to the training points. For a training point (``delta_x`` a row of
        ``D``) it returns exactly its embedding, because ``U^T 1 = 0``.
        """
        D2_new = np.asarray(D2_new, dtype=float)
        return 0.5 * (self.column_means[None, :] - D2_new) @ (
            self.components / np.sqrt(self.eigenvalues))


def mds_threshold(eigenvalues, delta: float) -> int:
    """Number ``p`` of MDS components kept by the LDS paper's threshold (6).

    The smallest ``p`` with ``sum_{i<=p} lam_i >= (1 - delta) sum_i max(0, lam_i)`` and
    ``lam_p <= delta lam_1`` (eigenvalues decreasing), capped at the number of positive ones.
    """
    lam = np.asarray(eigenvalues, dtype=float)
    # Eigenvalues within round-off of zero (a rank-deficient D) are not positive directions.
    positive = lam[lam > 1e-10 * max(lam[0], 0.0)]
    if positive.size == 0:
        raise ValueError(
            "The distance matrix has no positive MDS eigenvalue (all points coincide); there is "
            "no embedding to learn on. Give distinct points."
        )
    cumulative = np.cumsum(positive)
    p_mass = int(np.searchsorted(cumulative, (1.0 - delta) * cumulative[-1] * (1 - 1e-12))) + 1
    small = np.flatnonzero(positive <= delta * positive[0])
    p_small = int(small[0]) + 1 if small.size else positive.size
    return min(max(p_mass, p_small), positive.size)


@reusable
def classical_mds(D2, delta: float = 0.1, max_components: int | None = None) -> MDSMap:
    """Classical MDS of a squared-distance matrix ``D2`` (LDS paper Algorithm 1, steps 4–6).

    ``U Lambda U^T = -1/2 H D H`` with ``H = I - 11^T / (n + m)``; the leading ``p``
    components by threshold (6) (eigenvalues below 1e-10 lam_1 count as zero) give
    ``x~_ik = U_ik sqrt(lam_k)``. The factor 1/2 is classical MDS's
    (Cox & Cox, the paper's ref. [8], and the ``K = -1/2 H D H`` of §2.1.2 step 3), so that
    Euclidean distances give back the centred points; Algorithm 1 writes ``-HDH``, which only
    scales the embedding by sqrt(2) — compensated exactly by the default C of §2.3.2.

    ``max_components`` (the scalable form): only the leading ``max_components`` eigenpairs, by
    Lanczos iterations (``scipy.sparse.linalg.eigsh``, a few hundred products with ``B``
    instead of the O(n^3) full eigendecomposition). The mass part of (6) is then measured
    against ``trace(B)``, the sum of all eigenvalues, which equals the positive mass when the
    squared distances are Euclidean and is below it otherwise (so fewer components may be kept);
    at most ``max_components`` are kept.
    """
    import scipy.linalg

    if not 0.0 < delta < 1.0:
        raise ValueError(
            f"delta must lie strictly between 0 and 1 (the fraction of the MDS spectrum that may "
            f"be dropped, eq. (6); the paper uses 0.1); got {delta!r}."
        )
    D2 = np.asarray(D2, dtype=float)
    column_means = D2.mean(axis=0)
    B = -0.5 * (D2 - column_means[None, :] - D2.mean(axis=1)[:, None] + D2.mean())
    B = 0.5 * (B + B.T)
    if max_components is None or max_components >= B.shape[0] - 1:
        # threshold (6) needs every eigenvalue, the embedding only the p kept eigenvectors:
        # the eigenvalues alone, then those eigenpairs (two tridiagonal reductions) took 1.1 s
        # at n = 2000 where every eigenvector took 1.7 s (p = 5, two moons, one core)
        n = B.shape[0]
        p = mds_threshold(scipy.linalg.eigh(B, eigvals_only=True)[::-1], delta)
        lam, U = scipy.linalg.eigh(B, subset_by_index=(n - p, n - 1))
        lam, U = lam[::-1], U[:, ::-1]
    else:
        lam, U = _leading_eigenpairs(B, max_components)
        # The unknown rest of the spectrum enters (6) through the trace as one last eigenvalue.
        rest = max(float(np.trace(B)) - float(lam[lam > 0].sum()), 0.0)
        p = min(mds_threshold(np.r_[lam, rest], delta), lam.size)
    lam, U = lam[:p], U[:, :p]
    return MDSMap(embedding=U * np.sqrt(lam), eigenvalues=lam, components=U,
                  column_means=column_means)


def _leading_eigenpairs(B, k: int):
    """The ``k`` largest eigenvalues of the symmetric ``B`` and their eigenvectors, decreasing
    (Lanczos; a fixed start vector keeps fits reproducible)."""
    from scipy.sparse.linalg import eigsh

    start = np.random.default_rng(0).standard_normal(B.shape[0])  # not 1: B 1 = 0
    lam, U = eigsh(B, k=k, which="LA", v0=start)
    order = np.argsort(lam)[::-1]
    return lam[order], U[:, order]
