"""Kernels, their default widths, centring on the unlabeled mean and the kernel-PCA map.

The RBF kernel is parameterised by its width ``sigma`` as in all five papers,
``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``. ``gamma`` is never a kernel parameter here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.sparsefuncs import mean_variance_axis

from s3vm_core.problem import check_dense_memory
from s3vm_core.reuse import reusable

KERNELS = ("rbf", "linear", "poly")

#: Largest kernel value accepted. The solvers square and sum kernel values (norms, quadratic
#: forms ``alpha^T K alpha``, the products ``K L K`` of LapSVM's Newton step), and that must
#: stay far below float64's largest number, about 1e308.
KERNEL_LIMIT = 1e100

#: Points used to estimate the default sigma and C; the median of ~500k pairwise distances and
#: the feature-space variance are already stable to a fraction of a percent.
_DEFAULT_SAMPLE = 1000


def squared_distances(X, Z) -> np.ndarray:
    """Squared Euclidean distances ``||x_i - z_j||^2``, clipped at zero against round-off.

    Dense points are first moved so that ``Z``'s mean is the origin: distances do not change,
    but ``||x||^2 + ||z||^2 - 2 <x, z>`` would lose the digits of an offset far from the origin
    (data around 1e6 get errors of 1e-4 in ``||x - z||^2``, enough to make an RBF kernel
    indefinite and QN-S3VM's objective unbounded below).
    """
    check_dense_memory(X.shape[0], Z.shape[0], "distance matrix")
    same = X is Z  # then scikit-learn sets the diagonal to exactly 0
    if not (sp.issparse(X) or sp.issparse(Z)):
        center = np.mean(Z, axis=0)
        X = X - center
        Z = X if same else Z - center
    D2 = euclidean_distances(X, None if same else Z, squared=True)
    return np.maximum(D2, 0.0, out=D2)


def distances(X, Z) -> np.ndarray:
    """Euclidean distances ``||x_i - z_j||`` (see ``squared_distances``)."""
    return np.sqrt(squared_distances(X, Z))


def gaussian(D2, sigma: float, out=None) -> np.ndarray:
    """``exp(-D2 / (2 sigma^2))`` of squared distances ``D2``, for any sigma > 0.

    Dividing by sigma twice (not by ``sigma**2``, which overflows or underflows to 0 for
    extreme widths) keeps ``0 / sigma^2 = 0`` exact: a tiny sigma gives the identity matrix and
    a huge one a matrix of ones, the kernel's true limits, never NaN. ``out`` may be ``D2``.
    """
    with np.errstate(over="ignore", under="ignore"):  # exp(-inf) = 0 is the exact limit
        K = np.divide(D2, sigma, out=out)
        K /= -2.0 * sigma
        return np.exp(K, out=K)


def rbf_kernel(X, Z, sigma: float) -> np.ndarray:
    """Gaussian kernel ``exp(-||x - z||^2 / (2 sigma^2))`` (see ``gaussian``)."""
    D2 = squared_distances(X, Z)
    return gaussian(D2, sigma, out=D2)


def linear_kernel(X, Z) -> np.ndarray:
    """Inner products ``<x, z>`` (dense result, sparse inputs allowed).

    Within ``problem.DATA_SCALE`` they stay finite; ``kernel_matrix`` refuses any beyond
    ``KERNEL_LIMIT``.
    """
    check_dense_memory(X.shape[0], Z.shape[0])
    K = X @ Z.T
    return K.toarray() if sp.issparse(K) else np.asarray(K, dtype=float)


def symmetric_product(K, v) -> np.ndarray:
    """``K @ v`` for a symmetric kernel matrix, from one triangle, in float64 arithmetic.

    The solvers' iterations that take one product by K per step (LapSVM's PCG, §3.2.2; DA's
    f-step and its gradient) are bound at n in the thousands by reading K from memory, and
    ``dsymv`` reads half of it: n = 4000, one BLAS thread, 6.2 ms against 10.3 ms for
    ``K @ v``. A C-ordered K is passed as its transpose, the same matrix in Fortran order, so
    nothing is copied. A float32 K (``kernel_matrix(..., dtype=np.float32)``) is read as
    float32 and multiplied and summed in float64 (``_float32_symmetric_product``): the
    product is that of the float64 matrix of its rounded values, to float64's round-off. BLAS
    ``ssymv``, which sums in float32, was four times faster but lost the digits PCG needs:
    its error, about 1e-5 of the sum of the terms' sizes, is new at every product, and on
    the MNIST3VS8 shape (n = 8,000, ``benchmarks.lapsvm_large``) it moved the early-stopped
    objective by 5.3e-2 where float64 sums on the same float32 K move it by 6.5e-3
    (docs/benchmarks.md). Anything else (an operator) is ``K @ v``.
    """
    if not isinstance(K, np.ndarray):
        return K @ v
    F = K.T if K.flags.c_contiguous else K
    if not F.flags.f_contiguous or F.dtype not in (np.float64, np.float32):
        return K @ v
    if F.dtype == np.float32:
        return _float32_symmetric_product(F.T, np.asarray(v, dtype=np.float64))
    return scipy.linalg.blas.dsymv(1.0, F, v)


#: Rows of a float32 K converted to float64 at once by ``symmetric_product`` (a strip of
#: 32 rows: 6 MB at n = 24,000, read again at once from the cache).
_PRODUCT_STRIP = 32


def _float32_symmetric_product(K, v) -> np.ndarray:
    """``K @ v`` for a symmetric, C-ordered float32 ``K`` in float64 arithmetic: strips of
    the upper triangle's rows converted to float64, each entry once, each strip used twice,
    for its rows and (transposed) for the columns below the diagonal."""
    n = K.shape[0]
    out = np.zeros(n)
    buffer = np.empty((min(_PRODUCT_STRIP, n), n))
    for start in range(0, n, _PRODUCT_STRIP):
        stop = min(start + _PRODUCT_STRIP, n)
        strip = buffer[:stop - start, :n - start]
        np.copyto(strip, K[start:stop, start:])
        out[start:stop] += strip @ v[start:]
        out[stop:] += v[start:stop] @ strip[:, stop - start:]
    return out


def polynomial_kernel(X, Z, degree: int = 3, coef0: float = 1.0, *,
                      by_squaring: bool = False) -> np.ndarray:
    """Polynomial kernel ``(<x, z> + coef0)^degree``.

    Raises ``ValueError`` naming ``degree``, ``coef0`` and the data scale when its values pass
    ``KERNEL_LIMIT``. ``by_squaring`` raises to the power by repeated squaring
    (``_integer_power``: a few units in the last place from ``**``, 11 times faster);
    ``kernel_matrix`` takes it for a matrix it computes in blocks (large, or float32).
    """
    K = linear_kernel(X, Z)
    K += coef0
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below, as a sentence
        if by_squaring:
            K = _integer_power(K, int(degree))
        else:
            K **= int(degree)
    if not np.all(np.abs(K) <= KERNEL_LIMIT):
        largest = float(np.max(np.abs(linear_kernel(X, Z)), initial=0.0))
        raise ValueError(
            f"The polynomial kernel (<x, z> + coef0)^degree is too large for floating point: "
            f"with degree={int(degree)} and coef0={coef0:.3g}, and inner products <x, z> up "
            f"to {largest:.3g}, its values exceed {KERNEL_LIMIT:g}. Choose a smaller degree or "
            "coef0, or rescale X so that its inner products are of order 1."
        )
    return K


#: Bytes of float64 rows a large kernel matrix is computed in at once (``kernel_matrix``,
#: ``kernel_and_neighbors``), and the size from which it is: a block's seven passes (products,
#: distances, neighbours, kernel values) stay near the processor's cache and BLAS still runs
#: at full speed. At 12,000 points of 361 features, one thread, blocks of 8 to 256 MB took
#: the same 3.5 s of CPU, 2 MB blocks 5.3 s; 32 MB is 2.6 x 10^6 entries (n > 1,448 fills it).
KERNEL_BLOCK_BYTES = 2**25


def _integer_power(K, degree: int) -> np.ndarray:
    """``K ** degree`` by repeated squaring, overwriting ``K``: four products for degree 9
    (the LapSVM paper's MNIST3VS8 kernel, §6.3) where numpy's ``**`` calls ``pow`` on every
    entry, 11 times slower (5.4 of 11.6 s of a 6,000 x 6,000 kernel)."""
    result = None
    while True:
        if degree & 1:
            result = K.copy() if result is None else np.multiply(result, K, out=result)
        degree >>= 1
        if not degree:
            return result
        np.multiply(K, K, out=K)


@reusable
def kernel_matrix(X, Z, kernel: str, sigma: float | None = None, degree: int = 3,
                  coef0: float = 1.0, dtype=np.float64) -> np.ndarray:
    """Dispatch to the kernel named ``kernel`` (one of ``KERNELS``).

    The result is always finite and at most ``KERNEL_LIMIT`` in absolute value: a kernel
    beyond it is a ``ValueError`` that names the parameter or the data scale to change.

    A matrix larger than ``KERNEL_BLOCK_BYTES`` in float64, or one stored as
    ``dtype=np.float32``, is computed in blocks of rows written into the result
    (``_dense_in_blocks``): the distances of a whole matrix would take two more of its size at
    once (scikit-learn's ``euclidean_distances`` scales a full copy of ``X Z^T``), 13.8 GB at
    the peak instead of the result's 4.6 GB at n = 24,000 (2.3 GB in float32). Each block is
    computed in float64 and rounded once when stored; its values are those of the whole
    matrix at once to a few units of float64's round-off (the polynomial kernel's power is
    taken by squaring, ``polynomial_kernel``).
    """
    dtype = np.dtype(dtype)
    n, m = X.shape[0], Z.shape[0]
    rows = max(1, KERNEL_BLOCK_BYTES // (8 * max(m, 1)))
    if dtype == np.float64 and rows >= n:
        return _kernel_rows(X, Z, kernel, sigma, degree, coef0)
    check_dense_memory(n, m, itemsize=dtype.itemsize)
    K = np.empty((n, m), dtype=dtype)
    if not (sp.issparse(X) or sp.issparse(Z)):
        return _dense_in_blocks(X, Z, kernel, sigma, degree, coef0, K, rows)
    for start in range(0, n, rows):
        block = slice(start, min(start + rows, n))
        K[block] = _kernel_rows(X[block], Z, kernel, sigma, degree, coef0, blocked=True)
    return K


@reusable
def kernel_and_neighbors(X, kernel: str, sigma: float | None = None, degree: int = 3,
                         coef0: float = 1.0, n_neighbors: int = 6,
                         dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """The kernel matrix of the dense points ``X`` and each point's ``n_neighbors`` nearest
    other points, from one pass over their distances.

    LapSVM needs both (its K and its k-NN graph, Melacci & Belkin 2011, §2), and both come
    from the inner products ``X X^T``: the squared distances are ``||x||^2 + ||z||^2 - 2 <x, z>``
    (on points centred on their mean, see ``squared_distances``), the RBF kernel a function of
    them, the polynomial and linear ones functions of ``<x, z>``. Computed once, in blocks of
    rows (``_dense_in_blocks``), their ``n^2 d`` products (4 x 10^11 at 24,000 points of 361
    features, most of the setup) are paid once instead of twice, and no ``n x n`` matrix
    other than K is held. The neighbours are those of ``graph.knn_adjacency``'s search, but
    among points at exactly the same distance, which may be picked in another order.

    Returns
    -------
    K : ndarray of shape (n, n), of ``dtype`` (float64 or float32, see ``kernel_matrix``)
    neighbors : ndarray of shape (n, n_neighbors) of int
        The indices of each point's nearest other points, in no particular order.
    """
    from s3vm_core.graph import check_n_neighbors  # graph builds on this module

    dtype = np.dtype(dtype)
    n = X.shape[0]
    check_n_neighbors(n_neighbors, n)
    check_dense_memory(n, n, itemsize=dtype.itemsize)
    K = np.empty((n, n), dtype=dtype)
    neighbors = np.empty((n, n_neighbors), dtype=np.intp)
    rows = max(1, KERNEL_BLOCK_BYTES // (8 * n))
    _dense_in_blocks(X, X, kernel, sigma, degree, coef0, K, rows, neighbors)
    return K, neighbors


#: Rows whose nearest points are picked at once (``_nearest_in_rows``): the partition's index
#: array is 64 x n integers.
_SELECT_ROWS = 64


def _dense_in_blocks(X, Z, kernel, sigma, degree, coef0, K, rows, neighbors=None):
    """``K = k(X, Z)`` of dense points written into ``K``, ``rows`` rows at a time, and, when
    ``neighbors`` (an ``n x k`` integer array, ``X`` is ``Z``) is given, each point's ``k``
    nearest other points written into it.

    The arithmetic is ``squared_distances``'s (centred on Z's mean, scikit-learn's ``-2 <x, z>
    + ||x||^2 + ||z||^2``, clipped at 0, a point's own distance 0), done in place on K's own
    rows (float64) or on one float64 buffer (float32 K): no copy of a block, no temporary the
    size of one (they were 32 of the 76 s of a 24,000-point kernel). The polynomial and linear
    kernels take ``<x, z>`` back from the centred products, ``<x_c, z_c> + <x_c, m> + <m, z_c>
    + <m, m>`` (m the mean), as precise as the product of the points themselves; they need a
    second buffer for the distances only when the neighbours are asked for.
    """
    from sklearn.utils.extmath import row_norms

    same = X is Z
    center = np.mean(Z, axis=0)
    Xc = X - center
    Zc = Xc if same else Z - center
    XX = row_norms(Xc, squared=True)
    ZZ = XX if same else row_norms(Zc, squared=True)
    if kernel != "rbf":
        Xm = Xc @ center
        Zm = Xm if same else Zc @ center
        mm = float(center @ center)
    n, m = K.shape
    height = min(rows, n)
    in_place = K.dtype == np.float64
    products = None if in_place else np.empty((height, m))
    distances = (np.empty((height, m)) if kernel != "rbf" and neighbors is not None
                 else None)
    for start in range(0, n, rows):
        block = slice(start, min(start + rows, n))
        G = K[block] if in_place else products[:block.stop - start]
        np.matmul(Xc[block], Zc.T, out=G)
        D2 = G if kernel == "rbf" else (distances[:block.stop - start] if neighbors is not None
                                         else None)
        if D2 is not None:
            if D2 is not G:
                np.copyto(D2, G)
            D2 *= -2.0
            D2 += XX[block, None]
            D2 += ZZ[None, :]
            np.maximum(D2, 0.0, out=D2)
            if same:
                own = np.arange(block.stop - start)
                D2[own, start + own] = 0.0
            if neighbors is not None:
                _nearest_in_rows(D2, start, neighbors[block])
        if kernel == "rbf":
            gaussian(D2, sigma, out=G)
        else:
            G += Xm[block, None]
            G += Zm[None, :]
            G += mm
            _kernel_of_products(G, kernel, degree, coef0, X[block], Z)
        if not in_place:
            K[block] = G
    return K


#: Columns of a row whose smallest distance is taken together in ``_nearest_in_rows``.
_NEAREST_GROUP = 64


def _nearest_in_rows(D2, start, out) -> None:
    """Write into ``out`` the columns of the ``k = out.shape[1]`` smallest entries of each row
    of ``D2`` (squared distances of the points ``start, start + 1, ...`` to all points), a
    point itself left out; ``D2`` is left as it was.

    The row is cut into groups of ``_NEAREST_GROUP`` columns and each group's smallest entry
    taken (one vectorized pass): a group that holds one of the k smallest entries has its
    smallest entry at most the k-th smallest, so the k groups with the smallest minima hold
    them all, and the k smallest are picked among those ``64 k`` entries. ``np.argpartition``
    of whole rows took 10 ns an entry, 1.5 s of the 7.6 s setup of 12,000 points.
    """
    k = out.shape[1]
    height, m = D2.shape
    width = _NEAREST_GROUP
    full = m - m % width
    n_groups = full // width + (full < m)
    for top in range(0, height, _SELECT_ROWS):
        rows = D2[top:top + _SELECT_ROWS]
        h = rows.shape[0]
        own = np.arange(h)
        rows[own, start + top + own] = np.inf  # a point is not its own neighbour
        if n_groups <= k:
            out[top:top + h] = np.argpartition(rows, k - 1, axis=1)[:, :k]
        else:
            minima = np.empty((h, n_groups))
            np.min(rows[:, :full].reshape(h, -1, width), axis=2, out=minima[:, :full // width])
            if full < m:
                np.min(rows[:, full:], axis=1, out=minima[:, -1])
            groups = np.argpartition(minima, k - 1, axis=1)[:, :k]
            columns = (groups[:, :, None] * width + np.arange(width)).reshape(h, -1)
            outside = columns >= m  # the last group's columns past the row's end
            np.minimum(columns, m - 1, out=columns)
            candidates = np.take_along_axis(rows, columns, axis=1)
            candidates[outside] = np.inf
            nearest = np.argpartition(candidates, k - 1, axis=1)[:, :k]
            out[top:top + h] = np.take_along_axis(columns, nearest, axis=1)
        rows[own, start + top + own] = 0.0


def _kernel_of_products(G, kernel, degree, coef0, X, Z) -> None:
    """The polynomial or linear kernel from the inner products ``G = <x, z>`` of the rows
    ``X`` and ``Z``, in place; values beyond ``KERNEL_LIMIT`` are refused with the message of
    ``_kernel_rows``."""
    if kernel == "poly":
        G += coef0
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            power = _integer_power(G, int(degree))
        G[...] = power
    elif kernel != "linear":
        raise ValueError(f"Unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}.")
    if not np.all(np.abs(G) <= KERNEL_LIMIT):
        _kernel_rows(X, Z, kernel, None, degree, coef0, blocked=True)  # raises, in words
        raise ValueError(  # the products of the centred points reach it, those of X just not
            f"The {kernel} kernel's values exceed {KERNEL_LIMIT:g}, too large for the "
            "solvers. Rescale X so that its inner products are of order 1.")


def _kernel_rows(X, Z, kernel, sigma, degree, coef0, blocked=False) -> np.ndarray:
    """The kernel between the rows ``X`` and ``Z`` (see ``kernel_matrix``); ``blocked``: a
    block of a large matrix, whose polynomial power is taken by squaring."""
    if kernel == "rbf":
        return rbf_kernel(X, Z, sigma)
    if kernel == "poly":
        return polynomial_kernel(X, Z, degree, coef0, by_squaring=blocked)
    if kernel != "linear":
        raise ValueError(f"Unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}.")
    K = linear_kernel(X, Z)
    if not np.all(np.abs(K) <= KERNEL_LIMIT):
        raise ValueError(
            f"The inner products <x, z> of the points reach {np.max(np.abs(K)):.3g}, too "
            f"large for the solvers (above {KERNEL_LIMIT:g}). Rescale X (for example "
            "standardize each feature) so that its values are of order 1."
        )
    return K


#: Why a kernel matrix can give every pair of (distinct) points the same value.
FLAT_KERNEL = (
    "The kernel gives every pair of points the same value (zero variance in feature space), so "
    "there is nothing to separate: its parameters wash out the distances between the points. "
    "Choose a smaller sigma (None takes the median pairwise distance), or for the polynomial "
    "kernel a smaller coef0 or degree."
)


def check_kernel_spread(K, kernel: str, sigma: float | None = None, degree: int = 3,
                        coef0: float = 1.0) -> None:
    """Refuse a kernel matrix of distinct training points whose entries are all equal.

    A Gaussian width far larger than the data's spread rounds every value to 1, and a
    polynomial offset far larger than the inner products makes every value the same: no
    solver can tell the points apart then, and each would silently predict one class.
    """
    if np.ptp(K) > 0:
        return
    if kernel == "rbf":
        raise ValueError(
            f"sigma={sigma:.3g} is so much larger than the distances between the points that "
            "every kernel value rounds to 1, so the kernel cannot tell the points apart. Choose "
            "a smaller sigma (None takes the median pairwise distance)."
        )
    if kernel == "poly":
        raise ValueError(
            f"coef0={coef0:.3g} is so much larger than the inner products <x, z> that every "
            f"kernel value (<x, z> + coef0)^{degree} is the same, so the kernel cannot tell the "
            "points apart. Choose a smaller coef0, or rescale X."
        )
    raise ValueError(FLAT_KERNEL)


#: A kernel value below this is lost in round-off beside the value 1 of a point with itself
#: (float64's machine epsilon).
_ROUND_OFF = float(np.finfo(float).eps)


def check_rbf_width(D2, sigma: float) -> None:
    """Refuse a Gaussian width at either degenerate end, from squared distances ``D2``
    between sample points (the ``default_sample`` rows of the training data).

    Too large, every kernel value rounds to 1 (``check_kernel_spread``). Too small, the value
    of the two closest distinct points, ``exp(-d_min^2 / (2 sigma^2))``, is below float64's
    round-off beside the 1 of a point with itself: the kernel matrix is the identity to
    working precision, each point sees only itself, and away from the training points the
    decision function is its constant intercept (one class everywhere). The limit,
    ``d_min / sqrt(2 ln(1 / eps))`` (about ``d_min / 8.5``), comes from the data as the large
    end does. Coincident points (``D2 = 0``) are the same point and set no limit.
    """
    positive = D2[D2 > 0]
    if positive.size:
        nearest = float(np.sqrt(positive.min()))
        smallest = nearest / np.sqrt(-2.0 * np.log(_ROUND_OFF))
        if sigma < smallest:
            raise ValueError(
                f"sigma={sigma:.3g} is so much smaller than the distance between the two "
                f"closest points ({nearest:.3g}) that the kernel value of every pair of "
                "distinct points rounds to 0 beside the value 1 of a point with itself: each "
                "point sees only itself, and away from the training points the model would "
                f"predict one class everywhere. Choose sigma of at least {smallest:.3g} (None "
                "takes the median pairwise distance)."
            )
    check_kernel_spread(gaussian(D2, sigma), "rbf", sigma)


def quantile_sigma(distances: np.ndarray, n_classes: int = 2) -> float:
    """Default kernel width of the LDS paper, section 2.3.2.

    "In a c-class problem, we use the 1/c quantile of the pairwise distances D_ij of all data
    points as the default for sigma." For c = 2 this is the median pairwise distance.
    ``distances`` holds pairwise distances (any shape; the diagonal zeros are ignored).
    """
    d = np.asarray(distances, dtype=float).ravel()
    d = d[d > 0]
    if d.size == 0:
        raise ValueError(
            "All points coincide, so no kernel width can be derived from their distances. "
            "Give distinct points or set sigma explicitly."
        )
    return float(np.quantile(d, 1.0 / n_classes))


def default_sample(n: int, random_state: int = 0) -> np.ndarray:
    """Rows on which data-dependent defaults (sigma, C) are estimated: all of them up to 1000,
    else a fixed random subset of 1000, so the defaults cost O(1) in n."""
    if n <= _DEFAULT_SAMPLE:
        return np.arange(n)
    return np.sort(np.random.default_rng(random_state).choice(n, _DEFAULT_SAMPLE, replace=False))


@reusable
def default_sigma(X, n_classes: int = 2) -> float:
    """The LDS paper's default sigma (section 2.3.2) for Euclidean distances, estimated on
    ``default_sample`` rows."""
    X = X[default_sample(X.shape[0])]
    return quantile_sigma(distances(X, X), n_classes)


def default_C(K: np.ndarray) -> float:
    """Default C of the LDS paper, section 2.3.2: the inverse empirical variance in feature space.

    ``s^2 = (1/n) sum_i K_ii - (1/n^2) sum_ij K_ij`` and ``C = 1 / s^2``; pass the kernel matrix
    of the ``default_sample`` rows.
    """
    return _inverse_variance(float(np.mean(np.diag(K)) - np.mean(K)))


def _inverse_variance(variance: float) -> float:
    C = 1.0 / variance if variance > 0 else np.inf
    if not np.isfinite(C):  # the points are distinct (problem.check_distinct): the kernel is flat
        raise ValueError(FLAT_KERNEL)
    return C


def sample_default_C(X, kernel: str, sigma: float | None = None, degree: int = 3,
                     coef0: float = 1.0) -> float:
    """``default_C`` on the ``default_sample`` rows of ``X``.

    For the linear kernel the feature-space variance ``mean ||x_i||^2 - ||mean x||^2`` is the
    sum of the features' variances, computed from the rows themselves (sparse rows stay
    sparse, no Gram matrix).
    """
    S = X[default_sample(X.shape[0])]
    if kernel != "linear":
        return default_C(kernel_matrix(S, S, kernel, sigma, degree, coef0))
    # the sum of the features' variances, each from its centred values (data far from the
    # origin would lose it to cancellation in mean ||x||^2 - ||mean x||^2)
    if sp.issparse(S):
        variances = mean_variance_axis(sp.csr_matrix(S), axis=0)[1]
    else:
        variances = np.var(S, axis=0)
    return _inverse_variance(float(np.sum(variances)))


def select_landmarks(n: int, n_landmarks: int, random_state=None) -> np.ndarray:
    """Indices of ``n_landmarks`` distinct training points drawn uniformly at random."""
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n, size=n_landmarks, replace=False))


def unlabeled_mean(M, unlabeled) -> np.ndarray:
    """Mean of the rows of ``M`` (dense or scipy.sparse) at the unlabeled points, zeros when
    there are none: the point that balancing by centring (cS3VM paper §2.2) moves to the
    origin. ``unlabeled`` is a boolean mask or an index array."""
    rows = np.flatnonzero(unlabeled) if np.asarray(unlabeled).dtype == bool else unlabeled
    if len(rows) == 0:
        return np.zeros(M.shape[1])
    return np.asarray(M[rows].mean(axis=0), dtype=float).ravel()


@dataclass(frozen=True, slots=True)
class UnlabeledCentering:
    """Centre feature space on the mean of the unlabeled points.

    With ``phi~(x) = phi(x) - mean_j phi(u_j)`` the balancing constraint of the cS3VM paper
    (section 2.2, eq. (3)), ``mean_j f(u_j) = mean_i y_i``, holds for every ``w`` once the bias
    is fixed to the mean labeled label, because ``sum_j <w, phi~(u_j)> = 0``.

    ``column_means[i] = mean_j k(x_i, u_j)`` over training points ``x_i`` and ``grand_mean`` is
    the mean of ``k(u_j, u_k)``.
    """

    unlabeled: np.ndarray
    column_means: np.ndarray
    grand_mean: float

    @classmethod
    def fit(cls, K: np.ndarray, unlabeled: np.ndarray) -> UnlabeledCentering:
        if not np.any(unlabeled):
            # Without unlabeled points there is nothing to balance: leave the kernel alone.
            return cls(unlabeled, np.zeros(K.shape[0]), 0.0)
        column_means = K[:, unlabeled].mean(axis=1)
        return cls(unlabeled, column_means, float(column_means[unlabeled].mean()))

    def transform(self, K_new: np.ndarray) -> np.ndarray:
        """Centre ``K_new = K(X_new, X_train)`` (for the training set itself, pass K)."""
        if not np.any(self.unlabeled):
            return K_new.copy()
        row_means = K_new[:, self.unlabeled].mean(axis=1)
        return K_new - row_means[:, None] - self.column_means[None, :] + self.grand_mean


@reusable
def kernel_pca_map(K: np.ndarray, n_components: int | None = None,
                   rtol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of the training points in a basis of the kernel's span (cS3VM paper §2.3).

    With ``K = U diag(lam) U^T``, the training points get coordinates ``Z = U sqrt(lam)`` so that
    ``Z Z^T = K``, and a new point with kernel row ``k(x, X)`` gets ``k(x, X) A`` with
    ``A = U / sqrt(lam)``. Eigenvalues below ``rtol * lam_max`` are dropped (they are round-off
    for a rank-deficient K); ``n_components`` keeps only the leading ones (§5.2).

    Returns ``(Z, A)``.
    """
    n = K.shape[0]
    if n_components is None or n_components >= n:
        lam, U = scipy.linalg.eigh(K)
    else:
        lam, U = scipy.linalg.eigh(K, subset_by_index=(n - n_components, n - 1))
    lam, U = lam[::-1], U[:, ::-1]
    keep = lam > rtol * max(lam[0], np.finfo(float).tiny)
    lam, U = lam[keep], U[:, keep]
    root = np.sqrt(lam)
    return U * root, U / root
