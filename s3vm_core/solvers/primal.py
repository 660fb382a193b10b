"""The primal S3VM machinery shared by ∇TSVM (LDS paper) and cS3VM (continuation paper).

Both papers minimize the same objective in the primal (cS3VM paper, footnote 2):

``L(w) = 1/2 ||w||^2 + C sum_labeled l(y_i f_i) + C* sum_unlabeled exp(-s f_i^2)``,
``f_i = <w, x_i> + b`` (cS3VM paper eq. (2) with the exp(-s t^2) surrogate of §3.1; LDS paper
eq. (4) with ``l`` the squared hinge),

over coordinates ``x_i`` of the points in a basis of the span of the training points in feature
space (cS3VM paper §2.3, the kernel-PCA map), centred on the mean of the unlabeled points so that
the balancing constraint (3) holds for every ``w`` once the bias is fixed to
``b = mean of the labeled labels`` (cS3VM paper §2.2, LDS paper eq. (5)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from s3vm_core.kernels import (
    FLAT_KERNEL,
    UnlabeledCentering,
    kernel_matrix,
    kernel_pca_map,
    unlabeled_mean,
)
from s3vm_core.losses import (
    hinge,
    hinge_grad,
    squared_hinge,
    squared_hinge_grad,
    symmetric_exp,
    symmetric_exp_grad,
)
from s3vm_core.problem import Problem, check_dense_memory

#: Eigenvalues of the centred kernel matrix below this fraction of the largest one are dropped:
#: they are round-off (eigh's absolute error is ~1e-16 lam_max) of a rank-deficient K
#: (cS3VM paper §2.3, footnote 1: "the same analysis can be followed when dim(E) < q").
EIGENVALUE_RTOL = 1e-10
#: The way out when the full kernel PCA would not fit: its subset form (§5.2).
SUBSET_ADVICE = ("Pass n_components=300 (the kernel PCA of 300 random points, cS3VM paper "
                 "§5.2), use kernel='linear', or use fewer points.")

#: Labeled losses l(t) of the objective: the paper's ``max(0, 1 - t)^p`` for p = 1 and p = 2.
LABELED_LOSSES = {
    "hinge": (hinge, hinge_grad),
    "squared_hinge": (squared_hinge, squared_hinge_grad),
}


class CentredRows:
    """``Z = diag(scale) (X - 1 shift^T)`` for the linear kernel, without forming Z.

    ``X`` is a dense array or a scipy.sparse CSR matrix and stays as it is (never densified,
    never copied): ``Z @ w`` and ``Z.T @ v`` cost one product with ``X`` (O(nnz)), the shift
    and the row scale are applied to the vectors. ``scale`` defaults to ones.
    """

    def __init__(self, X, shift, scale=None):
        self.X = X
        self.shift = np.asarray(shift, dtype=float)
        self.scale = scale

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def __matmul__(self, W):
        out = np.asarray(self.X @ W, dtype=float) - self.shift @ W
        if self.scale is None:
            return out
        return self.scale * out if out.ndim == 1 else self.scale[:, None] * out

    @property
    def T(self) -> _TransposedRows:
        return _TransposedRows(self)

    def rows(self, index, scale=None) -> CentredRows:
        """The rows ``index`` (mask or indices) of Z, each multiplied by ``scale``."""
        index = np.flatnonzero(index) if np.asarray(index).dtype == bool else index
        own = None if self.scale is None else self.scale[index]
        if scale is not None:
            own = scale if own is None else own * scale
        return CentredRows(self.X[index], self.shift, own)

    def row_norms(self) -> np.ndarray:
        """``||z_i||``: ``||x_i||^2 - 2 <x_i, shift> + ||shift||^2`` (clipped at 0)."""
        X = self.X
        squared = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
                   else np.einsum("ij,ij->i", X, X))
        squared = squared - 2.0 * np.asarray(X @ self.shift).ravel() + self.shift @ self.shift
        norms = np.sqrt(np.maximum(squared, 0.0))
        return norms if self.scale is None else np.abs(self.scale) * norms

    def toarray(self) -> np.ndarray:
        """Z as a dense array (small problems, tests)."""
        X = self.X.toarray() if sp.issparse(self.X) else np.asarray(self.X, dtype=float)
        Z = X - self.shift
        return Z if self.scale is None else self.scale[:, None] * Z


class _TransposedRows:
    """``Z^T`` of a ``CentredRows``: ``Z^T V = X^T (s V) - shift (1^T s V)``."""

    def __init__(self, rows: CentredRows):
        self.rows = rows

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows.shape[::-1]

    def __matmul__(self, V):
        V = np.asarray(V, dtype=float)
        rows = self.rows
        if rows.scale is not None:
            V = rows.scale * V if V.ndim == 1 else rows.scale[:, None] * V
        out = np.asarray(rows.X.T @ V, dtype=float)
        return out - (rows.shift * V.sum() if V.ndim == 1
                      else np.outer(rows.shift, V.sum(axis=0)))


def row_norms(Z) -> np.ndarray:
    """Euclidean norms of the rows of ``Z`` (an array or ``CentredRows``)."""
    return Z.row_norms() if isinstance(Z, CentredRows) else np.linalg.norm(Z, axis=1)


@dataclass(frozen=True, slots=True, eq=False)
class PrimalMap:
    """The feature map of cS3VM paper §2.2–2.3: centred kernel-PCA coordinates and fixed bias.

    Attributes
    ----------
    Z : ndarray of shape (n, p)
        Coordinates of the training points (caller's order), ``Z Z^T = K~``, the kernel matrix
        centred on the mean of the unlabeled points. For the linear kernel, ``X`` minus the
        unlabeled mean as ``CentredRows`` (no kernel matrix is formed, sparse X stays
        sparse).
    bias : float
        ``b = (1/n) sum_labeled y_i`` in the {-1, +1} coding (§2.2), so that
        ``mean_unlabeled f = b`` — the balancing constraint (3) — for every ``w``.
    """

    Z: np.ndarray
    bias: float
    kernel: str
    sigma_: float | None
    degree: int
    coef0: float
    X_fit: np.ndarray
    centering: UnlabeledCentering | None
    A: np.ndarray | None
    shift: np.ndarray | None

    @classmethod
    def fit(cls, X, problem: Problem, *, kernel: str, sigma_: float | None, degree: int = 3,
            coef0: float = 1.0, n_components: int | None = None,
            landmarks: np.ndarray | None = None) -> PrimalMap:
        """Build the map on the training points of ``problem``.

        Parameters
        ----------
        X : ndarray of shape (n, d)
            The training points (``problem.X``).
        problem : Problem
        kernel, sigma_, degree, coef0
            The kernel, ``sigma_`` already resolved (not None for "rbf").
        n_components : int or None
            Keep only the leading ``p`` kernel principal components (cS3VM paper §5.2); None
            keeps all with an eigenvalue above ``EIGENVALUE_RTOL * lam_max``. Ignored for the
            linear kernel, whose coordinates are the ``d`` input features.
        landmarks : ndarray of int or None
            Indices of a subset of q training points. When given, the leading components are
            approximated by the kernel PCA of these q points only (§5.2: "applying the kernel
            PCA to a subset of q > p points", cost O(q^3 + p q n) instead of O(n^3)); the
            coordinates ``k(x, X_q) A_q`` are then centred on their unlabeled mean, so the
            balancing constraint (3) still holds exactly.
        """
        if not sp.issparse(X):
            X = np.asarray(X, dtype=float)
        unlabeled = problem.unlabeled
        bias = float(problem.y[problem.labeled].mean())
        if kernel == "linear":
            shift = unlabeled_mean(X, unlabeled)
            return cls(Z=CentredRows(X, shift), bias=bias, kernel=kernel, sigma_=None,
                       degree=degree, coef0=coef0, X_fit=X, centering=None, A=None,
                       shift=shift)
        if landmarks is not None:
            X_q = X[np.asarray(landmarks)]
            K_q = kernel_matrix(X_q, X_q, kernel, sigma_, degree, coef0)
            _, A = kernel_pca_map(0.5 * (K_q + K_q.T), n_components, rtol=EIGENVALUE_RTOL)
            if A.shape[1] == 0:
                raise ValueError(FLAT_KERNEL)
            Z = kernel_matrix(X, X_q, kernel, sigma_, degree, coef0) @ A
            shift = unlabeled_mean(Z, unlabeled)
            return cls(Z=Z - shift, bias=bias, kernel=kernel, sigma_=sigma_, degree=degree,
                       coef0=coef0, X_fit=X_q, centering=None, A=A, shift=shift)
        check_dense_memory(X.shape[0], X.shape[0], "K, its centred copy and its eigenvectors",
                           count=3, advice=SUBSET_ADVICE)
        K = kernel_matrix(X, X, kernel, sigma_, degree, coef0)
        centering = None
        if np.any(unlabeled):
            # Without unlabeled points there is nothing to balance (and kernels.py's
            # UnlabeledCentering.transform cannot broadcast its scalar row mean then).
            centering = UnlabeledCentering.fit(K, unlabeled)
            K = centering.transform(K)
        K = 0.5 * (K + K.T)  # exact symmetry for eigh after the centring round-off
        Z, A = kernel_pca_map(K, n_components, rtol=EIGENVALUE_RTOL)
        if Z.shape[1] == 0:  # no direction left in feature space: every f is the bias
            raise ValueError(FLAT_KERNEL)
        return cls(Z=Z, bias=bias, kernel=kernel, sigma_=sigma_, degree=degree, coef0=coef0,
                   X_fit=X, centering=centering, A=A, shift=None)

    @property
    def n_components(self) -> int:
        """``p``, the number of coordinates."""
        return self.Z.shape[1]

    def transform(self, X_new):
        """Coordinates ``psi(x)`` of new points (§2.3): ``center(k(x, X_train)) A``; for the
        linear kernel ``x - shift`` as ``CentredRows``."""
        if self.kernel == "linear":
            return CentredRows(X_new, self.shift)
        X_new = np.asarray(X_new, dtype=float)
        K_new = kernel_matrix(X_new, self.X_fit, self.kernel, self.sigma_, self.degree,
                              self.coef0)
        if self.shift is not None:  # subset map of §5.2: centred coordinates
            return K_new @ self.A - self.shift
        if self.centering is not None:
            K_new = self.centering.transform(K_new)
        return K_new @ self.A


    def features(self, X_new):
        """What the estimator's ``features`` returns: the coordinates, except for the linear
        kernel, where it is ``X_new`` itself (the primal model of docs/architecture.md, sparse input
        stays sparse) and the shift goes into the intercept, see ``decision_parts``."""
        return X_new if self.kernel == "linear" else self.transform(X_new)

    def decision_parts(self, w) -> tuple[np.ndarray, float]:
        """``(coef, intercept)`` with ``f(x) = features(x) @ coef + intercept`` for ``w`` in
        the coordinates: ``<w, x - shift> + b`` is ``<w, x> + (b - <w, shift>)``."""
        if self.kernel == "linear":
            return w, self.bias - float(self.shift @ w)
        return w, self.bias


def s3vm_objective(w, Z, y, *, C: float, C_star: float, s: float = 3.0, bias: float,
                   loss: str = "squared_hinge") -> tuple[float, np.ndarray]:
    """Value and gradient in ``w`` of the primal S3VM objective.

    ``1/2 ||w||^2 + C sum_labeled l(y_i f_i) + C* sum_unlabeled exp(-s f_i^2)``, ``f = Z w + b``:
    LDS paper eq. (4) with ``l`` the squared hinge (default), cS3VM paper eq. (2) with the
    exp(-s t^2) surrogate of §3.1 (``loss="hinge"`` is the paper's p = 1; its gradient is then a
    subgradient).

    Parameters
    ----------
    w : ndarray of shape (p,)
    Z : ndarray of shape (n, p)
        ``PrimalMap.Z``.
    y : ndarray of shape (n,)
        Signed labels, 0 for unlabeled points.
    C, C_star : float
        Costs of the labeled and unlabeled losses.
    s : float, default=3.0
        Width of the unlabeled loss (s = 3 in both papers).
    bias : float
        The fixed ``b`` (``PrimalMap.bias``).
    loss : {"squared_hinge", "hinge"}
        The labeled loss ``max(0, 1 - t)^p`` with p = 2 or p = 1.

    Returns
    -------
    value : float
    grad : ndarray of shape (p,)
    """
    loss_fn, loss_grad = LABELED_LOSSES[loss]
    w = np.asarray(w, dtype=float)
    y = np.asarray(y, dtype=float)
    f = Z @ w + bias
    labeled = y != 0
    margin = y[labeled] * f[labeled]
    f_u = f[~labeled]
    value = (0.5 * w @ w + C * loss_fn(margin).sum() + C_star * symmetric_exp(f_u, s).sum())
    dfi = np.empty_like(f)
    dfi[labeled] = C * y[labeled] * loss_grad(margin)
    dfi[~labeled] = C_star * symmetric_exp_grad(f_u, s)
    return float(value), w + Z.T @ dfi
