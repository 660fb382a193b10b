"""The supervised baseline of every paper: an SVM trained on the labeled points only.

Also LIBSVM's shared pieces: ``fit_libsvm`` with its iteration cap, and the two forms of a
model f that LIBSVM trains, ``KernelDesign`` (a kernel expansion) and ``LinearDesign`` (the
primal linear model), which every LIBSVM caller uses alike.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, _libsvm
from sklearn.utils import check_random_state

from s3vm_core.base import KERNEL_CONSTRAINTS, S3VMClassifier, cost, resolve_costs
from s3vm_core.diagnostics import SMALL_COST, WIDE_KERNEL
from s3vm_core.kernels import symmetric_product
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
    which suggests rescaling the data, is silenced here). ``svm`` is a fitted ``SVC``, or for
    a dense precomputed kernel with two classes a ``PrecomputedFit`` with the attributes the
    callers read (``_precomputed_fit``: the same numbers without ``SVC.fit``'s checks).
    """
    max_iter = max(_LIBSVM_MIN_ITER, LIBSVM_ITER_PER_POINT * K.shape[0])
    if sp.issparse(K):
        K = _with_int32_indices(K)
    svm = SVC(C=C, kernel=kernel, tol=tol, max_iter=max_iter)
    classes, codes = np.unique(labels, return_inverse=True)
    try:
        if (kernel == "precomputed" and isinstance(K, np.ndarray) and classes.size == 2
                and K.shape == (labels.shape[0],) * 2):  # else SVC.fit says what is wrong
            svm = _precomputed_fit(svm, K, codes, sample_weight)
        else:
            # the inputs are ours and already checked: skip scikit-learn's per-call validation
            with (warnings.catch_warnings(), config_context(assume_finite=True,
                                                            skip_parameter_validation=True)):
                warnings.filterwarnings("ignore", "Solver terminated early", ConvergenceWarning)
                svm.fit(K, labels, sample_weight=sample_weight)
    except ValueError as error:  # scikit-learn: "The dual coefficients ... are not finite"
        if "not finite" not in str(error):
            raise
        raise ValueError(
            f"LIBSVM found no finite solution: the kernel values reach "
            f"{abs(K).max():.3g}, too large for its solver. Choose kernel parameters "
            "that keep them of order 1 (sigma, or degree and coef0 of the polynomial "
            "kernel), or rescale X."
        ) from error
    return svm, svm.fit_status_ == 0


#: LIBSVM's cache of kernel columns, in MB, on a precomputed kernel (SVC's default: 200). The
#: cache is memory LIBSVM allocates afresh at every fit, and a column of a precomputed K is a
#: read of K, so a large cache saves little and costs page faults: at n = 4,000 (two moons,
#: random labels, C = 0.1 on all but two points, 2,105 iterations) a fit took 178 ms with
#: 200 MB (13,900 page faults) and 73 ms with 4 MB; a harder one (sigma / 10, C = 100,
#: 37,844 iterations) 182 and 184 ms, where 1 MB took 216 ms. The results are the same.
PRECOMPUTED_CACHE_MB = 4


class PrecomputedFit(NamedTuple):
    """What the callers of ``fit_libsvm`` read of a fitted ``SVC``, under its names."""

    support_: np.ndarray      # indices of the support vectors
    dual_coef_: np.ndarray    # shape (1, n_support): y_i alpha_i, in SVC's sign
    intercept_: np.ndarray    # shape (1,), in SVC's sign
    fit_status_: int          # 0, or 1 when the iteration cap stopped LIBSVM


def _precomputed_fit(svm: SVC, K, codes, sample_weight) -> PrecomputedFit:
    """LIBSVM on the dense precomputed kernel ``K`` with two classes (``codes`` 0 and 1, the
    labels' indices into ``np.unique(labels)``), called as ``svm.fit`` calls it, with
    ``svm``'s parameters: the same support, coefficients and intercept to the bit
    (``test_svm.py`` checks it against ``SVC``).

    ``SVC.fit`` checks its input again at every call (``validate_data``, the targets' type
    and classes, by way of narwhals' data frame checks), about 1 ms a fit: S4VM's retrainings
    (1,343 at n = 2,000, 7.6 ms of LIBSVM each), label switching's and DA's repeat it. Three
    of S4VM's local searches at n = 2,000 (71 fits) took 0.75 s of CPU through ``SVC.fit``
    and 0.67 s without (``python -m benchmarks.bench_s4vm --calls``). The labels are coded as
    ``SVC`` codes them (``codes``, each class of weight 1); the seed is drawn from NumPy's
    global generator as ``SVC`` draws it (LIBSVM uses it for probabilities only), so that the
    global stream advances as before.
    """
    weights = np.asarray([] if sample_weight is None else sample_weight, dtype=np.float64)
    seed = check_random_state(svm.random_state).randint(np.iinfo("i").max)
    _libsvm.set_verbosity_wrap(0)
    support, _, _, dual_coef, intercept, _, _, status, _ = _libsvm.fit(
        np.ascontiguousarray(K, dtype=np.float64), codes.astype(np.float64),
        svm_type=0, sample_weight=weights, class_weight=np.ones(2),
        kernel="precomputed", C=svm.C, nu=svm.nu, probability=False, degree=svm.degree,
        shrinking=svm.shrinking, tol=svm.tol, cache_size=PRECOMPUTED_CACHE_MB, coef0=svm.coef0,
        gamma=0.0, epsilon=svm.epsilon, max_iter=svm.max_iter, random_seed=seed)
    if not (np.isfinite(intercept).all() and np.isfinite(dual_coef).all()):
        raise ValueError("The dual coefficients or intercepts are not finite.")
    # SVC reports the binary model with the sign of classes[1] positive
    return PrecomputedFit(support, -dual_coef, -intercept, int(status))


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


class KernelDesign:
    """A kernel expansion on the training points: ``f = K coef``, ``||f||^2 = coef^T K coef``.

    ``K`` is ``k(X_train, X_train[centers])``: the square matrix of every training point
    (``centers=None``, eq. (6) of the DA paper) or its columns of the expansion points
    ``centers`` (training indices in increasing order, e.g. the labeled points of
    ``SVMBaseline``). LIBSVM sees it as a precomputed kernel.
    """

    libsvm_kernel = "precomputed"

    def __init__(self, K, centers=None):
        self.K = K
        self.centers = centers

    @property
    def n_coef(self) -> int:
        return self.K.shape[1]

    def decision(self, coef) -> np.ndarray:
        return symmetric_product(self.K, coef) if self.centers is None else self.K @ coef

    def norm_squared(self, coef) -> float:
        """``coef^T K_cc coef``, ``K_cc`` the kernel among the expansion points."""
        return coef @ (self.K if self.centers is None else self.K[self.centers]) @ coef

    def norm_and_gradient(self, coef, products, lam, v):
        """``||f||^2`` and the gradient in the coefficients of ``lam/2 ||f||^2 + sum_i v_i f_i``,
        given ``products = decision(coef)`` (at hand with the outputs): ``alpha^T K alpha`` and
        ``K (lam alpha + v)``, one product by K where the two terms apart took two (square K
        only)."""
        return float(coef @ products), symmetric_product(self.K, lam * coef + v)

    def libsvm_data(self, rows) -> np.ndarray:
        """LIBSVM's input for the expansion points at the training indices ``rows`` (a point
        may appear twice): their kernel matrix."""
        return self.K[np.ix_(rows, self._columns(rows))]

    def coef(self, svm: SVC, rows) -> np.ndarray:
        """The expansion coefficients of an ``SVC`` fitted on ``libsvm_data(rows)``: the signed
        dual coefficients, summed over the copies of a point."""
        return np.bincount(self._columns(rows)[svm.support_], weights=svm.dual_coef_[0],
                           minlength=self.n_coef)

    def _columns(self, rows):
        return rows if self.centers is None else np.searchsorted(self.centers, rows)


class LinearDesign:
    """The primal linear model (the DA paper's linear case, §3.1 after Eqn. 6): ``f(x) = w^T x``
    and ``||f||^2 = ||w||^2``; ``X`` dense or scipy.sparse, never densified, and LIBSVM computes
    the inner products it needs from the rows (no n x n matrix)."""

    libsvm_kernel = "linear"

    def __init__(self, X):
        self.X = X

    @property
    def n_coef(self) -> int:
        return self.X.shape[1]

    def decision(self, coef) -> np.ndarray:
        return decision(self.X, coef)

    def norm_squared(self, coef) -> float:
        return coef @ coef

    def norm_and_gradient(self, coef, products, lam, v):
        """As ``KernelDesign.norm_and_gradient``: ``||w||^2`` and ``lam w + X^T v``."""
        return float(coef @ coef), lam * coef + np.asarray(self.X.T @ v, dtype=float).ravel()

    def libsvm_data(self, rows):
        """LIBSVM's input for the training indices ``rows``: those rows of ``X``."""
        return self.X[rows]

    def coef(self, svm: SVC, rows) -> np.ndarray:
        """``w`` of an ``SVC`` fitted on ``libsvm_data(rows)``."""
        return linear_svc_weights(svm)


def as_design(K):
    """A kernel matrix is the expansion (6) over every training point; a design is used as
    it is."""
    return K if isinstance(K, KernelDesign | LinearDesign) else KernelDesign(K)


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

    _degenerate_causes = {"C": SMALL_COST, "sigma": WIDE_KERNEL}
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
        self.C_, _ = resolve_costs(self.C, default_C=lambda: self._sample_default_C(X))
        if self.kernel != "linear":
            self._K_train = self._kernel(X)

    def _features(self, X):
        return X if self.kernel == "linear" else self._kernel(X)

    def _iterate(self, problem):
        if self.kernel == "linear":
            return svm_states(LinearDesign(problem.X), problem, self.C_)
        return svm_states(KernelDesign(self._K_train, np.flatnonzero(problem.labeled)),
                          problem, self.C_)


def linear_svc_weights(svm: SVC) -> np.ndarray:
    """``w = sum_i alpha_i y_i x_i`` of an ``SVC`` fitted with the linear kernel, as a dense
    vector also when it was fitted on scipy.sparse rows."""
    w = svm.dual_coef_ @ svm.support_vectors_
    return (w.toarray() if sp.issparse(w) else np.asarray(w)).ravel()


def svm_states(design, problem, C: float):
    """The two states of a LIBSVM fit on the labeled points: "init" (f = 0) and "final".

    ``design`` is the model on the training points: a ``KernelDesign`` of
    ``k(X_train, X_labeled)`` (the coefficients are the signed dual coefficients over the
    labeled points) or a ``LinearDesign`` (``w``, no kernel matrix formed). The objective is
    the primal ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i f(x_i))``.
    """
    labeled = problem.labeled
    rows = np.flatnonzero(labeled)
    y = problem.y[labeled].astype(float)
    yield SolverState(
        stage="fit", event="init", coef=np.zeros(design.n_coef), intercept=0.0,
        objective=C * y.size, train_decision=np.zeros(problem.y.size),
    )
    svm, converged = fit_libsvm(design.libsvm_data(rows), y, C=C, kernel=design.libsvm_kernel)
    if not converged:
        warn_libsvm_cap("the SVM on the labeled points", f"A smaller C (here {C:.3g}) converges "
                        "faster.", stacklevel=4)
    coef = design.coef(svm, rows)
    intercept = float(svm.intercept_[0])
    outputs = design.decision(coef) + intercept
    objective = 0.5 * design.norm_squared(coef) + C * hinge(y * outputs[labeled]).sum()
    yield SolverState(
        stage="fit", event="final", coef=coef, intercept=intercept, objective=objective,
        train_decision=outputs,
    )
