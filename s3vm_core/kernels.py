"""Kernels, their default widths, centring on the unlabeled mean and the kernel-PCA map.

The RBF kernel is parameterised by its width ``sigma`` as in all five papers,
``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``. ``gamma`` is never a kernel parameter here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances

from s3vm_core.problem import check_dense_memory

KERNELS = ("rbf", "linear", "poly")

#: Points used to estimate the default sigma and C; the median of ~500k pairwise distances and
#: the feature-space variance are already stable to a fraction of a percent.
_DEFAULT_SAMPLE = 1000


def squared_distances(X, Z) -> np.ndarray:
    """Squared Euclidean distances ``||x_i - z_j||^2``, clipped at zero against round-off."""
    check_dense_memory(X.shape[0], Z.shape[0], "distance matrix")
    D2 = euclidean_distances(X, Z, squared=True)
    return np.maximum(D2, 0.0, out=D2)


def rbf_kernel(X, Z, sigma: float) -> np.ndarray:
    """Gaussian kernel ``exp(-||x - z||^2 / (2 sigma^2))``."""
    K = squared_distances(X, Z)
    K *= -0.5 / sigma**2
    return np.exp(K, out=K)


def linear_kernel(X, Z) -> np.ndarray:
    """Inner products ``<x, z>`` (dense result, sparse inputs allowed)."""
    check_dense_memory(X.shape[0], Z.shape[0])
    K = X @ Z.T
    return K.toarray() if sp.issparse(K) else np.asarray(K, dtype=float)


def polynomial_kernel(X, Z, degree: int = 3, coef0: float = 1.0) -> np.ndarray:
    """Polynomial kernel ``(<x, z> + coef0)^degree``."""
    return (linear_kernel(X, Z) + coef0) ** degree


def kernel_matrix(X, Z, kernel: str, sigma: float | None = None, degree: int = 3,
                  coef0: float = 1.0) -> np.ndarray:
    """Dispatch to the kernel named ``kernel`` (one of ``KERNELS``)."""
    if kernel == "rbf":
        return rbf_kernel(X, Z, sigma)
    if kernel == "linear":
        return linear_kernel(X, Z)
    if kernel == "poly":
        return polynomial_kernel(X, Z, degree, coef0)
    raise ValueError(f"Unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}.")


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


def default_sigma(X, n_classes: int = 2) -> float:
    """The LDS paper's default sigma (section 2.3.2) for Euclidean distances, estimated on
    ``default_sample`` rows."""
    X = X[default_sample(X.shape[0])]
    return quantile_sigma(np.sqrt(squared_distances(X, X)), n_classes)


def default_C(K: np.ndarray) -> float:
    """Default C of the LDS paper, section 2.3.2: the inverse empirical variance in feature space.

    ``s^2 = (1/n) sum_i K_ii - (1/n^2) sum_ij K_ij`` and ``C = 1 / s^2``; pass the kernel matrix
    of the ``default_sample`` rows.
    """
    return _inverse_variance(float(np.mean(np.diag(K)) - np.mean(K)))


def _inverse_variance(variance: float) -> float:
    if variance <= 0:
        raise ValueError(
            "The data have zero variance in feature space (all points coincide), so there is "
            "nothing to separate. Give distinct points or set C explicitly."
        )
    return 1.0 / variance


def sample_default_C(X, kernel: str, sigma: float | None = None, degree: int = 3,
                     coef0: float = 1.0) -> float:
    """``default_C`` on the ``default_sample`` rows of ``X``.

    For the linear kernel the feature-space variance is ``mean ||x_i||^2 - ||mean x||^2``,
    computed from the rows themselves (sparse rows stay sparse, no Gram matrix).
    """
    S = X[default_sample(X.shape[0])]
    if kernel != "linear":
        return default_C(kernel_matrix(S, S, kernel, sigma, degree, coef0))
    squared_norms = S.multiply(S).sum() if sp.issparse(S) else np.einsum("ij,ij->", S, S)
    mean = np.asarray(S.mean(axis=0)).ravel()
    variance = float(squared_norms) / S.shape[0] - float(mean @ mean)
    return _inverse_variance(variance)


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
