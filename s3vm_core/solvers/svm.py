"""The supervised baseline of every paper: an SVM trained on the labeled points only."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from s3vm_core.base import KERNEL_CONSTRAINTS, S3VMClassifier, cost
from s3vm_core.kernels import sample_default_C
from s3vm_core.losses import hinge
from s3vm_core.solvers.finite_newton import decision
from s3vm_core.trace import SolverState

#: LIBSVM iterations allowed per training point in one solve (at least ``_LIBSVM_MIN_ITER``).
#: On the papers' parameter ranges a solve takes a few iterations per point (DA on two moons,
#: lam = 1e-4: at most 67); hard margins (huge C, tiny lam) make SMO crawl for minutes, so it
#: stops here with a ``ConvergenceWarning`` instead.
LIBSVM_ITER_PER_POINT = 100
_LIBSVM_MIN_ITER = 10_000


def fit_libsvm(K, labels, *, C: float = 1.0, sample_weight=None, tol: float = 1e-3,
               kernel: str = "precomputed"):
    """LIBSVM (scikit-learn's ``SVC``) on a precomputed kernel, with an iteration cap.

    With ``kernel="linear"``, ``K`` is the data itself (dense or scipy.sparse rows): LIBSVM
    computes the inner products it needs, and no kernel matrix is formed.

    The cap is ``max(10_000, LIBSVM_ITER_PER_POINT * n)`` iterations for ``n`` training rows.
    Returns ``(svm, converged)``; ``converged`` is False when the cap stopped LIBSVM, and the
    caller warns with a sentence that names its own parameter (scikit-learn's own warning,
    which suggests rescaling the data, is silenced here).
    """
    max_iter = max(_LIBSVM_MIN_ITER, LIBSVM_ITER_PER_POINT * K.shape[0])
    if sp.issparse(K):
        K = _with_int32_indices(K)
    svm = SVC(C=C, kernel=kernel, tol=tol, max_iter=max_iter)
    # the inputs are ours and already checked: skip scikit-learn's per-call validation
    with (warnings.catch_warnings(), config_context(assume_finite=True,
                                                    skip_parameter_validation=True)):
        warnings.filterwarnings("ignore", "Solver terminated early", ConvergenceWarning)
        try:
            svm.fit(K, labels, sample_weight=sample_weight)
        except ValueError as error:  # scikit-learn: "The dual coefficients ... are not finite"
            raise ValueError(
                f"LIBSVM found no finite solution: the kernel values reach "
                f"{abs(K).max():.3g}, too large for its solver. Choose kernel parameters "
                "that keep them of order 1 (sigma, or degree and coef0 of the polynomial "
                "kernel), or rescale X."
            ) from error
    return svm, svm.fit_status_ == 0


def _with_int32_indices(X):
    """``X`` (CSR) with 32-bit indices, the only ones LIBSVM reads (a copy of the index arrays
    when scipy made them 64-bit; the values are shared)."""
    X = sp.csr_matrix(X)
    if X.indices.dtype == np.int32 and X.indptr.dtype == np.int32:
        return X
    if X.nnz >= 2**31 or X.shape[1] >= 2**31:
        raise ValueError(
            f"X has {X.nnz} stored values, more than the 2^31 that LIBSVM can index. Use "
            "loss='squared_hinge' (the primal finite Newton solver), or fewer points."
        )
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                         shape=X.shape)


def warn_libsvm_cap(what: str, advice: str, stacklevel: int = 3) -> None:
    """The ``ConvergenceWarning`` of a LIBSVM solve stopped by ``fit_libsvm``'s cap."""
    warnings.warn(
        f"LIBSVM stopped at its iteration cap ({LIBSVM_ITER_PER_POINT} iterations per training "
        f"point) before converging in {what}. {advice}",
        ConvergenceWarning, stacklevel=stacklevel,
    )


class SVMBaseline(S3VMClassifier):
    """LIBSVM (scikit-learn's ``SVC``) on a precomputed kernel over the labeled points only.

    This is the "SVM" column of every paper's results tables: the unlabeled points are ignored
    except that they enter the default kernel width and C. It solves

    ``min_w 1/2 ||w||^2 + C sum_i max(0, 1 - y_i f(x_i))``

    Parameters
    ----------
    C : float in [1e-10, 1e10] or None, default=None
        Misclassification cost. ``None`` takes the LDS paper's default (§2.3.2): the inverse of
        the empirical variance of the data in feature space, ``1 / s^2``. The bounds are those
        of every cost (``base.COST_RANGE``). LIBSVM stops at ``fit_libsvm``'s iteration cap,
        with a ``ConvergenceWarning``, on a margin too hard to converge.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``; ``None`` takes the median
        pairwise distance of all points (LDS paper §2.3.2 with c = 2 classes).
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.

    Attributes
    ----------
    C_, sigma_ : the values used.
    coef_ : ndarray of shape (n_labeled,)
        Signed dual coefficients over the labeled points, ``features(X) = k(X, X_labeled)``.
        With ``kernel="linear"`` the model lives in the primal: ``coef_`` is ``w`` of shape
        (n_features,), ``features(X) = X``, and scipy.sparse input stays sparse.
    intercept_, classes_, transduction_, objective_ (the primal objective above).

    Trace: stage ``"fit"``; an "init" state (f = 0) and the "final" SVM.
    """

    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "C": [cost("C"), None],
    }

    def __init__(self, C=None, kernel="rbf", sigma=None, degree=3, coef0=1.0):
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0

    def _setup(self, problem):
        X = problem.X
        self._fit_kernel(X, centers=X[problem.labeled])
        if self.C is None:
            self.C_ = sample_default_C(X, self.kernel, self.sigma_, self.degree, self.coef0)
        else:
            self.C_ = float(self.C)
        if self.kernel != "linear":
            self._K_train = self._kernel(X)

    def _features(self, X):
        return X if self.kernel == "linear" else self._kernel(X)

    def _iterate(self, problem):
        if self.kernel == "linear":
            return linear_svm_states(problem.X, problem, self.C_)
        return svm_states(self._K_train, problem, self.C_)


def linear_svc_weights(svm: SVC) -> np.ndarray:
    """``w = sum_i alpha_i y_i x_i`` of an ``SVC`` fitted with the linear kernel, as a dense
    vector also when it was fitted on scipy.sparse rows."""
    w = svm.dual_coef_ @ svm.support_vectors_
    return (w.toarray() if sp.issparse(w) else np.asarray(w)).ravel()


def linear_svm_states(X, problem, C: float):
    """``svm_states`` in the primal: LIBSVM's linear kernel on the labeled rows of ``X``
    (dense or sparse), ``f(x) = w^T x + b``; no kernel matrix is formed."""
    labeled = problem.labeled
    y = problem.y[labeled].astype(float)
    n_labeled = y.size
    yield SolverState(
        stage="fit", event="init", coef=np.zeros(X.shape[1]), intercept=0.0,
        objective=C * n_labeled, train_decision=np.zeros(problem.y.size),
    )
    svm, converged = fit_libsvm(X[np.flatnonzero(labeled)], y, C=C, kernel="linear")
    if not converged:
        warn_libsvm_cap("the SVM on the labeled points", f"A smaller C (here {C:.3g}) converges "
                        "faster.", stacklevel=4)
    w = linear_svc_weights(svm)
    intercept = float(svm.intercept_[0])
    outputs = decision(X, w, intercept)
    objective = 0.5 * w @ w + C * hinge(y * outputs[labeled]).sum()
    yield SolverState(
        stage="fit", event="final", coef=w, intercept=intercept, objective=objective,
        train_decision=outputs,
    )


def svm_states(K_train: np.ndarray, problem, C: float):
    """The two states of a LIBSVM fit on the labeled points: "init" (f = 0) and "final".

    ``K_train`` is ``k(X_train, X_labeled)``; the coefficients are the signed dual coefficients
    over the labeled points and the objective is the primal
    ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i f(x_i))``.
    """
    labeled = problem.labeled
    y = problem.y[labeled].astype(float)
    K_labeled = K_train[labeled]
    n_labeled = y.size
    yield SolverState(
        stage="fit", event="init", coef=np.zeros(n_labeled), intercept=0.0,
        objective=C * n_labeled, train_decision=np.zeros(problem.y.size),
    )
    svm, converged = fit_libsvm(K_labeled, y, C=C)
    if not converged:
        warn_libsvm_cap("the SVM on the labeled points", f"A smaller C (here {C:.3g}) converges "
                        "faster.", stacklevel=4)
    coef = np.zeros(n_labeled)
    coef[svm.support_] = svm.dual_coef_[0]
    intercept = float(svm.intercept_[0])
    decision = K_train @ coef + intercept
    objective = 0.5 * coef @ K_labeled @ coef + C * hinge(y * decision[labeled]).sum()
    yield SolverState(
        stage="fit", event="final", coef=coef, intercept=intercept, objective=objective,
        train_decision=decision,
    )
