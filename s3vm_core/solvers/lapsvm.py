"""Laplacian SVM trained in the primal (Newton, PCG) and LapRLSC (Melacci & Belkin, JMLR 2011).

The primal problem (7) over ``z = [b, alpha]``, ``f = K alpha + 1 b``::

    obj(z) = 1/2 ( sum_{i in L} max(1 - y_i f_i, 0)^2 + gamma_A alpha^T K alpha
                   + gamma_I f^T L f )

with the graph Laplacian ``L`` of a k-NN graph over labeled and unlabeled points (§2,
``s3vm_core.graph``). The intrinsic norm is eq. (1), ``f^T L f`` on the whole ``f``, bias
included: for the Laplacian ``D - W`` (``L 1 = 0``) it equals (7)'s ``alpha^T K L K alpha``; for
the normalized Laplacian ``L 1 != 0`` and the bias must enter it, as footnote 1 of §3 warns
(leaving it out lets ``b`` alone decide the sign far from the labels: it mislabels the rim of
the clock of Figure 1). LapRLSC (§5, eq. (14)) replaces the squared hinge by the squared loss
``(y_i - f_i)^2`` on every labeled point; its objective is reported halved, as (7).

Notation of the code: ``g`` is the preconditioned gradient ``grad_hat = P^{-1} grad`` with
``P = diag(1, K)`` (§3.2): ``g_b = sum_E (f_i - y_i) + gamma_I 1^T L f``, ``g_alpha =
I_E (f - y) + gamma_A alpha + gamma_I L f``, and the gradient (9) is
``grad = (g_b, K g_alpha)``. The error vectors ``E`` are the labeled points with
``y_i f_i < 1`` (all labeled points for LapRLSC).

With the linear kernel ``K = X X^T`` PCG never forms K: its one product per iteration is
``X (X^T v)``, O(nnz(X)) instead of O(n^2) (§3.2.2: the cost falls with the number of non-zeros
of K and L), so it runs on sparse data and at n where K would not fit in memory. The model is
then the primal ``w = X^T alpha`` (docs/architecture.md, "Sparse input"); Newton's and the
direct solve's systems are n x n by nature (§3.1) and form K.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing, check_array
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted

from s3vm_core.base import KERNEL_CONSTRAINTS, Bounded, S3VMClassifier, cost, iteration_limit
from s3vm_core.diagnostics import LARGE_NORM_WEIGHT, WIDE_KERNEL
from s3vm_core.graph import (
    IteratedLaplacian,
    check_n_neighbors,
    graph_laplacian,
    knn_adjacency,
)
from s3vm_core.kernels import kernel_and_neighbors, symmetric_product
from s3vm_core.losses import squared_hinge_line_search
from s3vm_core.problem import (
    check_dense_memory,
    check_finite,
    check_known_labels,
    check_label_kinds,
    check_scale,
    numbers_only,
)
from s3vm_core.stopping import (
    CRITERIA,
    Progress,
    make_all_criteria,
    make_criterion,
)
from s3vm_core.trace import SolverState

#: PCG's own stop (``stopping=None``): it has converged when the gradient norm ||grad|| of §4,
#: relative to its value at t = 0, falls below the "grad_norm" criterion's default threshold 1e-8
#: (the authors' lapsvmp value), or the exact line search returns s* = 0. The gradient (9) is (g_b,
#: K g_hat_alpha), so it measures what a step can still change of f = K alpha + b; the
#: preconditioned gradient norm also counts the part of g_hat in the numerical null space of an RBF
#: K, which moves f by nothing and shrinks only at the rate gamma_A (§3.2 discusses the singular K).
#: Measured on two moons (noise 0.1, defaults, docs/benchmarks.md): with 2 labels per class it fires
#: after 583, 689 and 675 iterations at n = 2000, 4000 and 8000, with 1 label per class after 531,
#: 749 and 877, every time with Newton's error and decisions within 9e-6 of Newton's; the mixed
#: product at the same 1e-8 took 728, 717, 1103 and 776, 973, 1084 iterations (past max_iter at n =
#: 8000) for changes below 1e-6.
_PCG_CONVERGED = "grad_norm"


# -- the objective (7), its gradient (9) and generalized Hessian -----------------------------


def _error_set(f, y, hinge: bool) -> np.ndarray:
    labeled = y != 0
    return labeled & (y * f < 1.0) if hinge else labeled


def lapsvm_objective(z, K, L, y, gamma_A, gamma_I, hinge: bool = True) -> float:
    """The primal objective (7) at ``z = [b, alpha]`` (LapRLSC's (14) halved if ``hinge=False``).

    ``y`` holds -1/+1 for labeled points and 0 for unlabeled ones.
    """
    b, alpha = z[0], z[1:]
    Kalpha = K @ alpha
    f = Kalpha + b
    E = _error_set(f, y, hinge)
    r = f[E] - y[E]
    return 0.5 * float(r @ r + gamma_A * alpha @ Kalpha + gamma_I * f @ (L @ f))


def lapsvm_gradient(z, K, L, y, gamma_A, gamma_I, hinge: bool = True) -> np.ndarray:
    """Gradient (9) of the objective (7) with respect to ``z = [b, alpha]``."""
    b, alpha = z[0], z[1:]
    f = K @ alpha + b
    g_b, g_alpha = _preconditioned_gradient(alpha, f, L @ f, y, gamma_A, gamma_I, hinge)
    return np.concatenate([[g_b], K @ g_alpha])


def lapsvm_hessian(z, K, L, y, gamma_A, gamma_I, hinge: bool = True) -> np.ndarray:
    """The generalized Hessian of (7) (§3.1, after eq. (9)): the squared hinge contributes as
    a squared loss on the error vectors ``E`` of ``z`` (its second derivative is set to 0 at the
    break point)."""
    b, alpha = z[0], z[1:]
    E = _error_set(K @ alpha + b, y, hinge).astype(float)
    n = K.shape[0]
    ell = np.asarray(L.sum(axis=1)).ravel()  # L 1
    H = np.empty((n + 1, n + 1))
    KE = K * E  # K I_E
    H[0, 0] = E.sum() + gamma_I * ell.sum()
    H[0, 1:] = H[1:, 0] = K @ (E + gamma_I * ell)
    H[1:, 1:] = KE @ K + gamma_A * K + gamma_I * K @ (L @ K)
    return H


def _preconditioned_gradient(alpha, f, Lf, y, gamma_A, gamma_I, hinge):
    """``grad_hat = P^{-1} grad`` (§3.2): ``(g_b, g_alpha)`` with ``grad = (g_b, K g_alpha)``."""
    E = _error_set(f, y, hinge)
    residual = np.where(E, f - y, 0.0)
    return (float(residual.sum() + gamma_I * Lf.sum()),
            residual + gamma_A * alpha + gamma_I * Lf)


# -- Newton's method (§3.1) ---------------------------------------------------------------------


def _newton_solution(K, LK_reg, gamma_I_ell, y, E):
    """Minimizer of the quadratic model whose error vectors are ``E``: update (11) with s = 1.

    Solves ``grad_hat = 0`` for fixed ``E``, i.e. the system (12) multiplied by ``P^{-1}``,
    with ``l = L 1``::

        [ 1^T I_E 1 + g_I 1^T l   (1^T I_E + g_I l^T) K         ] [b    ]   [ 1^T I_E y ]
        [ I_E 1 + g_I l           I_E K + g_A I + g_I L K       ] [alpha] = [ I_E y     ]

    For the Laplacian ``D - W`` (``l = 0``) this is exactly eq. (11); ``l`` is the bias's share
    of the intrinsic norm for the normalized one. ``LK_reg`` is ``gamma_A I + gamma_I L K`` and
    ``gamma_I_ell`` is ``gamma_I L 1``.
    """
    n = K.shape[0]
    Ef = E.astype(float)
    A = np.empty((n + 1, n + 1))
    A[0, 0] = Ef.sum() + gamma_I_ell.sum()
    A[0, 1:] = K @ (Ef + gamma_I_ell)
    A[1:, 0] = Ef + gamma_I_ell
    A[1:, 1:] = LK_reg
    A[1:, 1:][E] += K[E]
    rhs = np.concatenate([[y[E].sum()], np.where(E, y, 0.0)])
    try:
        # numpy's LU solve, not scipy's: scipy adds a LinAlgWarning for every ill-conditioned
        # A, and A is often ill-conditioned here (an RBF K is numerically singular, §3.2) with
        # an accurate solution all the same; a non-finite one is refused by the estimator.
        z = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        # No error vector left (E empty) makes the bias undetermined; take the least-norm one.
        z = scipy.linalg.lstsq(A, rhs, check_finite=False)[0]
    return float(z[0]), z[1:]


def newton_path(K, L, y, gamma_A: float, gamma_I: float, *, hinge: bool = True,
                bias_in_intrinsic_norm: bool = True, max_iter: int = 1000):
    """Newton's method for the primal problem (7) (§3.1): update (11) with s = 1, from z = 0.

    Each step takes the error vectors ``E`` of the current iterate (the labeled points with
    ``y_i f_i < 1``; every labeled point for LapRLSC) and solves the linear system of the
    quadratic problem they define (``_newton_solution``). The method has converged when ``E``
    stops changing (Table 5: at most 5 steps on MNIST3VS8); LapRLSC's ``E`` never changes, so
    its one solve is exact (§5, system (15)). ``LapSVM(solver="newton")`` and
    ``LapRLSC(solver="direct")`` run this path.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel matrix of all (labeled and unlabeled) points.
    L : scipy.sparse matrix, ndarray or graph.IteratedLaplacian of shape (n, n)
        The graph Laplacian of the intrinsic norm (``LapSVM.laplacian_``, or ``L^p`` as p
        products by ``L``).
    y : ndarray of shape (n,)
        -1 or +1 for labeled points, 0 for unlabeled ones.
    gamma_A, gamma_I : float
        The weights of the ambient and intrinsic norms in (7).
    hinge : bool, default=True
        LapSVM's squared hinge; False is LapRLSC's squared loss (14).
    bias_in_intrinsic_norm : bool, default=True
        The intrinsic norm of the whole ``f = K alpha + b`` (footnote 1 of §3, as the
        estimators); False leaves the bias out, (7) as printed, ``alpha^T K L K alpha``,
        which differs for the normalized Laplacian (``L 1 != 0``).
    max_iter : int, default=1000
        Most Newton steps; a ``ConvergenceWarning`` when ``E`` still changes after them.

    Yields
    ------
    (b, alpha) : tuple of float and ndarray of shape (n,)
        The bias and the expansion coefficients after each step, ``f = K alpha + b``.
    """
    n = y.size
    LK_reg = L @ K  # Newton may form L K (§3.1.1); PCG never does
    LK_reg *= gamma_I
    LK_reg[np.diag_indices(n)] += gamma_A
    ell = np.asarray(L.sum(axis=1)).ravel() if bias_in_intrinsic_norm else np.zeros(n)
    alpha, b = np.zeros(n), 0.0
    E_previous = None
    for _ in range(max_iter):
        E = _error_set(K @ alpha + b, y, hinge)
        if E_previous is not None and np.array_equal(E, E_previous):
            return  # §3.1: converged when the error vectors stop changing
        E_previous = E
        b, alpha = _newton_solution(K, LK_reg, gamma_I * ell, y, E)
        yield b, alpha
        if not hinge:
            return  # LapRLSC: E = L is fixed, one solve is exact
    if not np.array_equal(_error_set(K @ alpha + b, y, hinge), E_previous):
        warnings.warn(
            f"Newton's method did not converge in max_iter={max_iter} steps (the set of "
            "error vectors still changes); increase max_iter.",
            ConvergenceWarning, stacklevel=2,
        )


# -- PCG (§3.2, Algorithm 1) with the exact line search of §3.2.1 ----------------------------


def exact_line_search(a0, a1, residual, fd, y, hinge: bool = True):
    """Exact minimizer ``s* >= 0`` of ``obj(z + s d)`` along a PCG direction (§3.2.1, eq. (13)).

    The derivative ``psi(s) = a0 + a1 s + sum_{i in E(s)} (r_i + s fd_i) fd_i`` is piecewise
    linear; it changes slope where a labeled point enters or leaves ``E`` (the break points
    ``s_i``, visited in increasing order as in the paper; one point switches per break point,
    ``nu = -1`` leaving Q1, ``+1`` entering from Q2). For LapRLSC (``hinge=False``) there are no
    break points and ``s* = -grad^T d / d^T H d`` in closed form (§5).

    Parameters
    ----------
    a0, a1 : float
        Regularizer part of ``psi``: ``gamma_A alpha^T K d + gamma_I alpha^T K L K d`` and
        ``gamma_A d^T K d + gamma_I d^T K L K d``.
    residual, fd, y : ndarray over the labeled points
        ``f - y``, ``f_d = K d_alpha + d_b`` and the labels.

    Returns
    -------
    (s, n_intervals) : the step and the number of linear pieces examined.
    """
    if not hinge:
        slope = a1 + fd @ fd
        return (max(0.0, -(a0 + residual @ fd) / slope) if slope > 0 else 0.0), 1
    # residual . fd = -(1 - y f) (y fd): the squared hinge of the margins 1 - y f at rate y fd
    return squared_hinge_line_search(a0, a1, 1.0 - y * (residual + y), y * fd)


class _PCGState(NamedTuple):
    """Everything PCG carries between iterations (one K matrix-vector product each)."""

    t: int
    alpha: np.ndarray
    b: float
    Kalpha: np.ndarray
    LKalpha: np.ndarray      # so that L f = LKalpha + b L 1
    g_alpha: np.ndarray      # preconditioned gradient
    g_b: float
    Kg: np.ndarray           # K g_alpha, so grad = (g_b, Kg)
    d_alpha: np.ndarray      # search direction
    d_b: float
    Kd: np.ndarray
    step_size: float
    line_search_steps: int


class _Problem(NamedTuple):
    K: object                # ndarray, or _LinearKernel (PCG with the linear kernel)
    L: object                # scipy.sparse matrix
    y: np.ndarray            # float, 0 for unlabeled
    labeled: np.ndarray
    gamma_A: float
    gamma_I: float
    hinge: bool
    ell: np.ndarray          # L 1 (zero for the Laplacian D - W)


class _LinearKernel:
    """``K = X X^T`` of the linear kernel, never formed: ``K @ v`` is ``X (X^T v)``."""

    def __init__(self, X):
        self.X = X

    def __matmul__(self, v) -> np.ndarray:
        return np.asarray(self.X @ (self.X.T @ v)).ravel()


def _pcg_init(pb: _Problem) -> _PCGState:
    """Algorithm 1, first line: z = 0, E = L, d = -grad_hat (a steepest-descent first step)."""
    n = pb.y.size
    zeros = np.zeros(n)
    g_b, g_alpha = _preconditioned_gradient(zeros, zeros, zeros, pb.y, pb.gamma_A, pb.gamma_I,
                                            pb.hinge)
    Kg = symmetric_product(pb.K, g_alpha)
    return _PCGState(0, zeros, 0.0, zeros, zeros, g_alpha, g_b, Kg, -g_alpha, -g_b, -Kg,
                     math.nan, 0)


def _pcg_step(pb: _Problem, st: _PCGState) -> _PCGState:
    """One iteration of Algorithm 1: exact line search, update, Polak-Ribiere direction."""
    LKd = pb.L @ st.Kd
    lab = pb.labeled
    f = st.Kalpha + st.b
    Lf = st.LKalpha + st.b * pb.ell
    fd = st.Kd + st.d_b              # f_d of §3.2.1 on every point
    Lfd = LKd + st.d_b * pb.ell
    a0 = pb.gamma_A * st.alpha @ st.Kd + pb.gamma_I * Lf @ fd
    a1 = pb.gamma_A * st.d_alpha @ st.Kd + pb.gamma_I * fd @ Lfd
    s, ls_steps = exact_line_search(a0, a1, f[lab] - pb.y[lab], fd[lab], pb.y[lab], pb.hinge)
    alpha = st.alpha + s * st.d_alpha
    b = st.b + s * st.d_b
    Kalpha = st.Kalpha + s * st.Kd
    LKalpha = st.LKalpha + s * LKd
    g_b, g_alpha = _preconditioned_gradient(alpha, Kalpha + b, LKalpha + b * pb.ell, pb.y,
                                            pb.gamma_A, pb.gamma_I, pb.hinge)
    Kg = symmetric_product(pb.K, g_alpha)  # the one O(n^2) product of the iteration (§3.2.2)
    # Polak-Ribiere with automatic restart (rho = 0 means a steepest-descent step), P-inner
    # products: g^T P h = g_b h_b + g_alpha^T K h_alpha.
    denominator = st.Kg @ st.g_alpha + st.g_b**2
    numerator = Kg @ (g_alpha - st.g_alpha) + g_b * (g_b - st.g_b)
    rho = max(0.0, numerator / denominator) if denominator > 0 else 0.0
    return _PCGState(st.t + 1, alpha, b, Kalpha, LKalpha, g_alpha, g_b, Kg,
                     -g_alpha + rho * st.d_alpha, -g_b + rho * st.d_b, -Kg + rho * st.Kd,
                     float(s), ls_steps)


def _pcg_measures(pb: _Problem, st: _PCGState):
    """Objective (7) and the three gradient norms of §4 at the current iterate."""
    f = st.Kalpha + st.b
    E = _error_set(f, pb.y, pb.hinge)
    r = f[E] - pb.y[E]
    objective = 0.5 * float(r @ r + pb.gamma_A * st.alpha @ st.Kalpha
                            + pb.gamma_I * f @ (st.LKalpha + st.b * pb.ell))
    grad = math.sqrt(st.Kg @ st.Kg + st.g_b**2)
    grad_hat = math.sqrt(st.g_alpha @ st.g_alpha + st.g_b**2)
    # K may be numerically singular: clip the round-off that makes g^T K g slightly negative.
    mixed = math.sqrt(max(float(st.g_alpha @ st.Kg), 0.0) + st.g_b**2)
    return objective, grad, grad_hat, mixed, int(E.sum())


# -- the estimators ----------------------------------------------------------------------------


class _Stop(NamedTuple):
    """Why a solver stopped (``stopped_by_``) and, for PCG, where every recorded criterion
    first said "stop" (``stop_iterations_``)."""

    stopped_by: str
    stop_iterations: dict | None


#: Largest Laplacian degree p: Table 8 uses 1 to 5, and L^p is built one sparse product at a
#: time while it fills in towards a dense n x n matrix (two moons, k = 6, n = 2000: L^10 takes
#: 0.2 s and 14 % of n^2 entries, L^20 1.8 s and 34 %).
MAX_LAPLACIAN_DEGREE = 10

_LAPLACIAN_CONSTRAINTS = {
    **KERNEL_CONSTRAINTS,
    "gamma_A": [cost("gamma_A")],
    "gamma_I": [cost("gamma_I")],
    "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    "p": [Bounded(Integral, 1, MAX_LAPLACIAN_DEGREE, closed="both",
                  why="Table 8 uses 1 to 5; L^p is built one sparse product at a time and "
                      "fills in towards a dense n x n matrix")],
    "normalized": ["boolean"],
    "graph_weights": [StrOptions({"gaussian", "binary"})],
    "graph_sigma": [Interval(Real, 0, np.inf, closed="neither"), None],
    "stopping": [StrOptions(set(CRITERIA)), None],
    "tol": [Interval(Real, 0, np.inf, closed="neither"), None],
    "check_every": [Interval(Integral, 1, None, closed="left"), None],
    "max_iter": [iteration_limit(1000)],
    "kernel_dtype": [StrOptions({"auto", "float64", "float32"})],
}

#: ``kernel_dtype="auto"`` stores PCG's K in float32 from this size of its float64 form on
#: (2 GiB, n > 16,384): K is then most of the fit's memory and its product most of PCG's time.
FLOAT32_FROM_BYTES = 2**31

#: Bytes of kernel rows ``decision_function`` holds at once (a block of new points).
_PREDICTION_BLOCK_BYTES = 2**26


class _LaplacianKernelMachine(S3VMClassifier):
    """Shared by LapSVM and LapRLSC: kernel, graph Laplacian, validation set, PCG trace."""

    _hinge = True
    _degenerate_causes = {
        "gamma_I": "a large gamma_I makes f constant along the data's graph",
        "gamma_A": LARGE_NORM_WEIGHT,
        "sigma": WIDE_KERNEL,
    }
    _too_large = "Use fewer points, or kernel='linear' with solver='pcg', which never forms K."

    # -- setup --------------------------------------------------------------------------------

    def _setup(self, problem, X_val=None, y_val=None):
        X = problem.X
        check_n_neighbors(self.n_neighbors, X.shape[0])  # before the kernel is built
        self._check_validation(X_val, y_val, X.shape[1], problem.classes)
        if self.solver == "pcg" and self.stopping in ("validation", "mixed") and X_val is None:
            raise ValueError(
                f"stopping={self.stopping!r} needs a labeled validation set, and none was given. "
                "Pass one to fit/trace: fit(X, y, X_val=..., y_val=...), or choose "
                "stopping='stability'."
            )
        self._primal = self.kernel == "linear"
        pcg = self.solver == "pcg"
        if not pcg:  # K is checked by _kernel; Newton and the direct solve also hold L K and
            n = X.shape[0]  # their (n+1)^2 system
            check_dense_memory(n, n, "K, L K and the Newton system", count=3, advice=(
                "Use fewer points, solver='pcg' (K alone), or kernel='linear' with "
                "solver='pcg', which never forms K."))
        self._fit_kernel(X)
        n = X.shape[0]
        neighbors = None  # the graph's neighbours: searched unless read off K's distances
        if self._primal and pcg:
            self._K = _LinearKernel(X)
        elif sp.issparse(X):  # the linear kernel's Newton or direct solve
            self._K = self._kernel(X)
        else:  # K and the neighbours from the same distances, computed once
            dtype = self._storage_dtype(n) if pcg else np.float64
            check_dense_memory(n, n, advice=self._too_large, itemsize=np.dtype(dtype).itemsize)
            self._K, neighbors = kernel_and_neighbors(X, self.kernel, self.sigma_, self.degree,
                                                      self.coef0, self.n_neighbors, dtype)
        self.kernel_dtype_ = (self._K.dtype.name if isinstance(self._K, np.ndarray)
                              else "float64")
        W = knn_adjacency(X, self.n_neighbors, self.graph_weights, self.graph_sigma,
                          neighbors)
        self.laplacian_ = graph_laplacian(W, normalized=self.normalized, p=self.p)
        # the products by L^p (one a PCG step, Newton's L K) are p products by L
        self._L = (self.laplacian_ if self.p == 1 else
                   IteratedLaplacian(graph_laplacian(W, normalized=self.normalized), self.p))
        self._val_features = None if X_val is None else self._features(self._X_val)

    def _storage_dtype(self, n: int):
        """How PCG stores K: ``kernel_dtype``, or for "auto" float32 from
        ``FLOAT32_FROM_BYTES`` of float64 on."""
        if self.kernel_dtype != "auto":
            return np.dtype(self.kernel_dtype)
        return np.dtype(np.float32 if 8 * n * n >= FLOAT32_FROM_BYTES else np.float64)

    def decision_function(self, X) -> np.ndarray:
        """Signed distance-like score; positive means ``classes_[1]``.

        New points are taken in blocks: their kernel rows ``k(X_block, X_train)`` (64 MB at
        a time) instead of all at once (1.3 GB for 7,000 test points against 24,000
        training points, the LapSVM paper's FACEMIT).
        """
        check_is_fitted(self, "coef_")
        n_train = self.X_fit_.shape[0]
        rows = max(1, _PREDICTION_BLOCK_BYTES // (8 * n_train))
        if self._primal or sp.issparse(X) or _num_samples(X) <= rows:
            return super().decision_function(X)
        return np.concatenate([
            super(_LaplacianKernelMachine, self).decision_function(
                _safe_indexing(X, slice(start, start + rows)))
            for start in range(0, _num_samples(X), rows)
        ])

    def _check_validation(self, X_val, y_val, n_features, classes):
        if (X_val is None) != (y_val is None):
            raise ValueError(
                "Give both X_val and y_val (the validation points and their labels), or neither."
            )
        if X_val is None:
            self._X_val = self._y_val = None
            return
        with numbers_only("X_val"):
            X_val = check_array(X_val, dtype=np.float64, ensure_all_finite=False,
                                input_name="X_val",
                                accept_sparse="csr" if self.kernel == "linear" else False)
        check_finite(X_val, "X_val")
        check_scale(X_val, "X_val", training=False)
        y_val = np.asarray(y_val)
        check_label_kinds(y_val, "y_val")
        if X_val.shape[1] != n_features:
            raise ValueError(
                f"X_val has {X_val.shape[1]} features but X has {n_features}; the validation "
                "points must live in the same space as the training points."
            )
        if y_val.shape != (X_val.shape[0],):
            raise ValueError(
                f"y_val must hold one label per validation point ({X_val.shape[0]}), got shape "
                f"{y_val.shape}."
            )
        check_known_labels(y_val, classes)
        self._X_val = X_val
        self._y_val = np.where(y_val == classes[1], 1.0, -1.0)

    def _features(self, X):
        return X if self._primal else self._kernel(X)

    def _postprocess(self, final, n_iter, outcome: _Stop):
        super()._postprocess(final, n_iter, outcome)
        self.stopped_by_ = outcome.stopped_by
        if outcome.stop_iterations is not None:
            self.stop_iterations_ = outcome.stop_iterations

    def _coef(self, alpha) -> np.ndarray:
        """The state's coefficients over ``features``: alpha, or the primal ``w = X^T alpha``."""
        return np.asarray(self.X_fit_.T @ alpha).ravel() if self._primal else alpha

    def _problem(self, problem) -> _Problem:
        y = problem.y.astype(float)
        ell = np.asarray(self.laplacian_.sum(axis=1)).ravel()
        return _Problem(self._K, self._L, y, problem.labeled, float(self.gamma_A),
                        float(self.gamma_I), self._hinge, ell)

    def _validation_error(self, alpha, b) -> float:
        if self._val_features is None:
            return math.nan
        decision = self._val_features @ self._coef(alpha) + b
        return float(np.mean(np.sign(decision) != self._y_val))

    # -- the direct / Newton solution ---------------------------------------------------------

    def _iterate_newton(self, problem, stage: str):
        pb = self._problem(problem)
        state = self._newton_state(pb, stage, 0, "init", np.zeros(pb.y.size), 0.0)
        yield state
        path = newton_path(pb.K, pb.L, pb.y, pb.gamma_A, pb.gamma_I, hinge=pb.hinge,
                           max_iter=self.max_iter)
        for t, (b, alpha) in enumerate(path, start=1):
            state = self._newton_state(pb, stage, t, "iter", alpha, b)
            yield state
        yield _with_event(state, "stage_end")
        yield _with_event(state, "final")
        return _Stop("converged", None)

    def _newton_state(self, pb, stage, t, event, alpha, b):
        z = np.concatenate([[b], alpha])
        objective = lapsvm_objective(z, pb.K, pb.L, pb.y, pb.gamma_A, pb.gamma_I, pb.hinge)
        grad = lapsvm_gradient(z, pb.K, pb.L, pb.y, pb.gamma_A, pb.gamma_I, pb.hinge)
        decision = pb.K @ alpha + b
        extras = {
            "n_error_vectors": float(_error_set(decision, pb.y, pb.hinge).sum()),
            "validation_error": self._validation_error(alpha, b),
        }
        return SolverState(
            stage=stage, iteration=t, event=event, coef=self._coef(alpha), intercept=b,
            objective=objective,
            grad_norm=float(np.linalg.norm(grad)), train_decision=decision, extras=extras,
        )

    # -- PCG ------------------------------------------------------------------------------------

    def _iterate_pcg(self, problem):
        pb = self._problem(problem)
        recorded, chosen, converged = self._criteria(pb.y.size)
        unlabeled = ~pb.labeled
        first_stops, stopped_by = dict.fromkeys(recorded), None
        st = _pcg_init(pb)
        progress = first = self._progress(pb, st, unlabeled)
        for criterion in [*recorded.values(), converged, *([chosen] if chosen else [])]:
            criterion.start(progress)
        extras = self._pcg_extras(st, progress, first, math.nan, {}, recorded,
                                  int(pb.labeled.sum()))
        state = self._pcg_state(st, progress, extras, "init")
        yield state
        while st.t < self.max_iter and stopped_by is None:
            st = _pcg_step(pb, st)
            previous_objective = progress.objective
            progress = self._progress(pb, st, unlabeled)
            flags = {name: criterion.check(progress) for name, criterion in recorded.items()}
            for name, (_, fired) in flags.items():
                if fired and first_stops[name] is None:
                    first_stops[name] = st.t
            stopped_by = self._pcg_stop(st, progress, chosen, converged)
            n_error_vectors = _error_set(st.Kalpha + st.b, pb.y, pb.hinge).sum()
            extras = self._pcg_extras(st, progress, first, previous_objective, flags, recorded,
                                      n_error_vectors)
            state = self._pcg_state(st, progress, extras, "iter")
            yield state
        if stopped_by is None:
            warnings.warn(
                f"PCG stopped at max_iter={self.max_iter} iterations before "
                f"{'its stopping check fired' if self.stopping else 'converging'}; increase "
                "max_iter.", ConvergenceWarning, stacklevel=2,
            )
        yield _with_event(state, "stage_end")
        yield _with_event(state, "final")
        return _Stop(stopped_by or "max_iter", first_stops)

    def _criteria(self, n: int):
        """The checks of §4: every one that can run (recorded at each iteration), the chosen
        ``stopping`` one (or None) and PCG's own convergence test, at ``tol`` when the chosen
        check is that test's criterion (else a tighter ``tol`` would never be reached: the
        test at its default would stop PCG first)."""
        n_val = 0 if self._y_val is None else self._y_val.size
        recorded = make_all_criteria(n=n, check_every=self.check_every, n_validation=n_val,
                                     tols={self.stopping: self.tol} if self.stopping else None)
        chosen = (None if self.stopping is None else
                  make_criterion(self.stopping, n=n, tol=self.tol, check_every=self.check_every,
                                 n_validation=n_val))
        own_tol = self.tol if self.stopping == _PCG_CONVERGED else None
        return recorded, chosen, make_criterion(_PCG_CONVERGED, n=n, tol=own_tol)

    def _pcg_stop(self, st, progress, chosen, converged) -> str | None:
        """What stops PCG at this iteration: the chosen check, else its own convergence (or
        a zero step of the exact line search); None to go on."""
        if chosen is not None and chosen.check(progress)[1]:
            return self.stopping
        if st.step_size == 0.0 or converged.check(progress)[1]:
            return "converged"
        return None

    def _progress(self, pb, st, unlabeled) -> Progress:
        objective, grad, grad_hat, mixed, _ = _pcg_measures(pb, st)
        return Progress(
            iteration=st.t, objective=objective, grad_norm=grad, grad_norm_preconditioned=grad_hat,
            mixed_product=mixed, unlabeled_decision=(st.Kalpha + st.b)[unlabeled],
            validation_error=self._validation_error(st.alpha, st.b),
        )

    @staticmethod
    def _pcg_extras(st, progress, first, previous_objective, flags, recorded, n_error_vectors):
        def ratio(name):
            start = getattr(first, name)
            return getattr(progress, name) / start if start > 0 else 0.0

        extras = {
            "objective_normalized": ratio("objective"),
            "grad_norm_normalized": ratio("grad_norm"),
            "grad_norm_preconditioned": ratio("grad_norm_preconditioned"),
            "mixed_product": ratio("mixed_product"),
            "objective_decrease": (
                (previous_objective - progress.objective) / abs(previous_objective)
                if previous_objective != 0.0 and not math.isnan(previous_objective)
                else math.nan
            ),
            "stability_tau": flags["stability"][0] if "stability" in flags else math.nan,
            "validation_error": progress.validation_error,
            "step_size": st.step_size,
            "line_search_steps": float(st.line_search_steps),
            "n_error_vectors": float(n_error_vectors),
        }
        for name in recorded:
            extras[f"stop_{name}"] = float(flags[name][1]) if name in flags else 0.0
        return extras

    def _pcg_state(self, st, progress, extras, event):
        return SolverState(
            stage="pcg", iteration=st.t, event=event, coef=self._coef(st.alpha), intercept=st.b,
            objective=progress.objective, grad_norm=progress.grad_norm,
            train_decision=st.Kalpha + st.b, extras=extras,
        )


def _with_event(state: SolverState, event: str) -> SolverState:
    return replace(state, event=event)


_PARAMETERS_DOC = """
    gamma_A : float in [1e-10, 1e10], default=1e-6
        Weight of the ambient (RKHS) norm ``alpha^T K alpha`` in (7). The default and
        ``gamma_I`` are the pair the paper's cross-validation selected most often (Table 8,
        grid {1e-6, 1e-4, 1e-2, 0.1, 1, 10, 100} and 1e-8, §6.3); beyond the bounds (those of
        every cost, ``base.COST_RANGE``) float64 round-off swamps the other terms.
    gamma_I : float in [1e-10, 1e10], default=1.0
        Weight of the intrinsic norm ``f^T L f`` (1), ``f = K alpha + b`` (never forming L K
        in PCG).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        With ``"linear"`` the input may be scipy.sparse CSR, and ``solver="pcg"`` never forms
        the n x n kernel matrix (one ``X (X^T v)`` per iteration).
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` (§6.3); ``None`` takes the
        median pairwise distance (LDS paper §2.3.2 with c = 2, the project's default).
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    n_neighbors : int, default=6
        Neighbours per point of the k-NN graph (the paper's ``nn``; Table 8 uses 2 to 50 per
        data set, 6 is its FACEMIT value).
    p : int in [1, 10], default=1
        Degree of the Laplacian: the intrinsic norm uses ``L^p`` (Table 8 uses 1 to 5 per
        data set). At most ``MAX_LAPLACIAN_DEGREE = 10``: ``L^p`` is built one sparse product
        at a time and fills in towards a dense matrix.
    normalized : bool, default=True
        Normalized Laplacian ``I - D^{-1/2} W D^{-1/2}``, as in all experiments (§6.3).
    graph_weights : {"gaussian", "binary"}, default="gaussian"
        Edge weights; exponential weights make L converge to the Laplace-Beltrami operator (§2).
    graph_sigma : float or None, default=None
        Width of the Gaussian edge weights; ``None``: mean k-NN distance.
    max_iter : int, default=1000
        Most Newton steps or PCG iterations (t_max of §4); a ``ConvergenceWarning`` when hit.
        At most ``base.ITERATION_LIMIT``.
    """

_PCG_DOC = """
    stopping : {None, "stability", "validation", "mixed", "grad_norm", \
"grad_norm_preconditioned", "mixed_product", "objective"}, default=None
        PCG goal condition (``s3vm_core.stopping``). ``None`` runs to convergence: the
        gradient norm ||grad|| of §4 falls to 1e-8 of its start (the "grad_norm" criterion at
        its default), or the exact line search returns s* = 0.
        "stability" is Algorithm 2 (eta = 1.5 %, theta = sqrt(n)/2), "validation"
        Algorithm 3 (eta = 1/|V|) and "mixed" both at once (§4.1); they need
        ``X_val, y_val`` passed to ``fit``/``trace`` for the validation ones. The others are
        the classical conditions of §4 on values normalized by t = 0 (thresholds 1e-8, or 1e-6
        for the relative objective decrease). Ignored by the direct and Newton solvers.
    tol : float or None, default=None
        Threshold of the chosen criterion (``eta`` or ``tau``); ``None``: its default.
    check_every : int or None, default=None
        theta, the period of the data-based checks; ``None``: ``round(sqrt(n)/2)``.
    kernel_dtype : {"auto", "float64", "float32"}, default="auto"
        How PCG stores K (not a choice of the paper, whose Matlab code keeps float64):
        ``"float32"`` halves its memory, 2.1 GiB instead of 4.3 at 24,000 points; each
        value is rounded once, and the product by K is multiplied and summed in float64
        (``kernels.symmetric_product``), as are the preconditioned gradient, the residual
        ``f - y`` and every iterate, so PCG runs in float64 on the rounded K. ``"auto"``
        takes float32 when K in float64 would take ``FLOAT32_FROM_BYTES`` (2 GiB,
        n > 16,384) or more, float64 below. Converged, the two give the same fit: on the
        FACEMIT shape of ``benchmarks.lapsvm_large`` (23,975 points) run to a gradient norm of
        1e-10 (``stopping="grad_norm", tol=1e-10``) the objectives (7) agree to 2e-9 and the
        training decisions but for 0.004 %. A stop short of the optimum lands where each path
        has got to: at PCG's own 1e-8 there, 9e-7 and 0.14 % (both sit on plateaus of a flat
        objective); and on the MNIST3VS8 shape (polynomial kernel of degree 9, the stability
        check) the stopped objective moves with K itself, by about 2e6 times a relative
        change of K (n = 3,000: 1.7e-5 for a change of 1e-11 of a float64 K, 1e-2 for
        float32's 6e-8), which is why "auto" keeps float64 below 2 GiB (docs/benchmarks.md,
        "The LapSVM paper's largest runs on one core"). Ignored by the direct and Newton
        solvers (float64).

    Fit parameters
    --------------
    X_val, y_val : optional labeled validation set (class labels, no -1) for the validation and
        mixed checks; when given, every state records its validation error.

    Trace
    -----
    Stage ``"pcg"``: an "init" state at z = 0, one "iter" state per PCG iteration, then
    "stage_end" and "final" (the last iterate). ``features(X) = k(X, X_train)`` and
    ``coef = alpha`` (with the linear kernel ``features(X) = X`` and ``coef = w = X^T alpha``),
    ``intercept = b``; ``objective`` is (7), ``grad_norm`` is ``||grad||``.
    ``extras`` of every PCG state (values "normalized" are divided by their t = 0 value, as in
    Figures 4, 13 and 14):

    - ``"objective_normalized"``: obj_t / obj_0
    - ``"grad_norm_normalized"``: ||grad_t|| / ||grad_0||
    - ``"grad_norm_preconditioned"``: ||grad_hat_t|| / ||grad_hat_0||
    - ``"mixed_product"``: sqrt(grad_hat_t^T grad_t) / sqrt(grad_hat_0^T grad_0)
    - ``"objective_decrease"``: (obj_{t-1} - obj_t) / |obj_{t-1}| (nan at t = 0)
    - ``"stability_tau"``: tau of Algorithm 2 (fraction of u; against the last check's d_old)
    - ``"validation_error"``: error rate on the validation set (nan without one)
    - ``"stop_<name>"`` for every criterion name of ``s3vm_core.stopping.CRITERIA`` that can run
      (the validation ones only with a validation set): 1.0 if that criterion says "stop" at
      this iteration, else 0.0, whichever criterion actually stops the run
    - ``"step_size"`` (s* of the line search, nan at t = 0), ``"line_search_steps"`` (linear
      pieces examined, §3.2.1), ``"n_error_vectors"`` (|E|)
    """

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    coef_ : ndarray of shape (n_samples,) or (n_features,)
        The expansion coefficients alpha of (3) over the training points; with the linear
        kernel the primal weights ``w = X^T alpha``.
    intercept_ : float
        The bias b.
    laplacian_ : scipy.sparse.csr_matrix
        The (normalized, iterated) graph Laplacian used in the intrinsic norm.
    sigma_, classes_, transduction_, objective_ (eq. (7)), n_iter_ (Newton steps or PCG
    iterations).
    kernel_dtype_ : str
        How K was stored, "float64" or "float32" (``kernel_dtype``; "float64" for the linear
        kernel's PCG, which never forms K).
    stopped_by_ : str
        Why the solver stopped: a criterion name, "converged" or "max_iter".
    stop_iterations_ : dict
        PCG only: for every recorded criterion, the first iteration at which it said "stop"
        (``None`` if it never did), so one run shows where each would have stopped.
    """


def _laplacian_init(default_solver: str):
    """The ``__init__`` of LapSVM and LapRLSC (scikit-learn's rule: it stores its arguments
    and nothing else); the two differ only in their default ``solver``."""

    def __init__(self, gamma_A=1e-6, gamma_I=1.0, kernel="rbf", sigma=None, degree=3,
                 coef0=1.0, n_neighbors=6, p=1, normalized=True, graph_weights="gaussian",
                 graph_sigma=None, solver=default_solver, stopping=None, tol=None,
                 check_every=None, max_iter=1000, kernel_dtype="auto"):
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.p = p
        self.normalized = normalized
        self.graph_weights = graph_weights
        self.graph_sigma = graph_sigma
        self.solver = solver
        self.stopping = stopping
        self.tol = tol
        self.check_every = check_every
        self.max_iter = max_iter
        self.kernel_dtype = kernel_dtype

    return __init__


class LapSVM(_LaplacianKernelMachine):
    __doc__ = f"""Laplacian SVM trained in the primal (Melacci & Belkin 2011, §3).

    Minimizes the primal problem (7): the squared hinge loss on the labeled points plus the
    ambient norm and the intrinsic norm (1) of a k-NN graph over all points, with a bias b not
    penalized by the ambient norm. The intrinsic norm is ``f^T L f`` of the whole
    ``f = K alpha + b``: equal to (7)'s ``alpha^T K L K alpha`` for the Laplacian ``D - W``, and
    the correction footnote 1 of §3 asks for with the normalized Laplacian (``L 1 != 0``).

    ``solver="newton"`` (§3.1) iterates update (11) with s = 1: each step solves the linear
    system of the current error vectors E, and the method has converged when E stops changing
    (at most 5 steps in Table 5, MNIST3VS8). Its cost is O(n^3) and it forms ``L K``.
    ``solver="pcg"`` (§3.2, Algorithm 1) runs conjugate gradient preconditioned by
    ``P = diag(1, K)`` with the Polak-Ribiere update and automatic restart, and the exact
    piecewise-linear line search of §3.2.1. It uses one product by K per iteration and never
    forms L K or K L K; early stopping (§4) makes it several times faster than Newton.

    Parameters
    ----------{_PARAMETERS_DOC}
    solver : {{"newton", "pcg"}}, default="newton"
{_PCG_DOC}
    Newton trace: stage ``"newton"``, "init" at z = 0, one "iter" state per Newton step,
    "stage_end" and "final"; extras ``"n_error_vectors"`` and ``"validation_error"``.
{_ATTRIBUTES_DOC}"""

    _parameter_constraints = {**_LAPLACIAN_CONSTRAINTS,
                              "solver": [StrOptions({"newton", "pcg"})]}
    _hinge = True

    __init__ = _laplacian_init("newton")

    def _iterate(self, problem):
        if self.solver == "newton":
            return self._iterate_newton(problem, "newton")
        return self._iterate_pcg(problem)


class LapRLSC(_LaplacianKernelMachine):
    __doc__ = f"""Laplacian Regularized Least Squares Classifier (Melacci & Belkin 2011, §5).

    Minimizes (14): the squared loss ``(y_i - f(x_i))^2`` on every labeled point plus the
    ambient and intrinsic norms, i.e. LapSVM's (7) with the error vectors fixed to all labeled
    points (reported halved, like (7)). ``solver="direct"`` solves the linear system (15),
    simplified by ``P^{{-1}}`` as §5 suggests; ``solver="pcg"`` runs the PCG of LapSVM, whose
    line search is then in closed form, ``s* = -grad^T d / d^T H d`` (§5), with the same early
    stopping checks.

    Parameters
    ----------{_PARAMETERS_DOC}
    solver : {{"direct", "pcg"}}, default="direct"
{_PCG_DOC}
    Direct trace: stage ``"fit"``, "init" at z = 0, one "iter" (the solution), "stage_end",
    "final"; extras ``"n_error_vectors"`` and ``"validation_error"``.
{_ATTRIBUTES_DOC}"""

    _parameter_constraints = {**_LAPLACIAN_CONSTRAINTS,
                              "solver": [StrOptions({"direct", "pcg"})]}
    _hinge = False

    __init__ = _laplacian_init("direct")

    def _iterate(self, problem):
        if self.solver == "direct":
            return self._iterate_newton(problem, "fit")
        return self._iterate_pcg(problem)
