"""QN-S3VM: quasi-Newton optimization of a smooth S3VM surrogate.

Gieseke, Airola, Pahikkala, Kramer. *Sparse Quasi-Newton Optimization for Semi-Supervised
Support Vector Machines*. ICPRAM 2012 (``papers/002``). Section references below are to it.

The decision function is linear in the coefficients ``c`` in three ways, one per "path":

* dense kernel expansion over all training points, eq. (4), O(n^2) per evaluation (Lemma 1);
* subset of regressors over ``r`` landmarks, eq. (9)-(10), O(nr) per evaluation (Lemma 2);
* linear kernel without forming ``K = X X^T``, eq. (11), O(nd) or O(nnz) (Lemmas 3-4).

Each path is a small object with ``forward(c) -> (f, q)``, ``penalty(c, q)`` and
``backward(a, q, lam)``; the objective (5) and gradient (6) are written once on top of them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from s3vm_core.base import (
    KERNEL_CONSTRAINTS,
    UNLABELED_WIDTH,
    Bounded,
    S3VMClassifier,
    iteration_limit,
)
from s3vm_core.diagnostics import LABEL_PROPORTIONS, LARGE_NORM_WEIGHT, LBFGS_TOL, WIDE_KERNEL
from s3vm_core.kernels import KERNELS, select_landmarks, unlabeled_mean
from s3vm_core.losses import (
    modified_logistic,
    modified_logistic_grad,
    symmetric_exp,
    symmetric_exp_grad,
)
from s3vm_core.solvers.lbfgs import lbfgs_schedule
from s3vm_core.trace import SolverState

#: The relative-decrease threshold of the authors' qns3vm.py: L-BFGS-B's ``factr = 1e12``
#: scaled by ``0.000488288`` on 64-bit systems, times the machine epsilon.
REFERENCE_FTOL = 1e12 * 0.000488288 * float(np.finfo(float).eps)

#: Largest L-BFGS memory m: the paper uses m = 50, the top of the 3 .. 50 that Nocedal and
#: Wright recommend (§3.3.1); every correction pair stores two vectors of all coefficients.
MAX_MEMORY = 500

#: Largest value in ``alphas``: the weights alpha lam' of Algorithm 1 end at lam' (alpha = 1);
#: beyond 1e4 lam' they leave the range of ``lam_u``.
MAX_ALPHA = 1e4

#: Longest ``alphas`` sequence: the paper's has three values (§4.1.3), and every value is one
#: more L-BFGS run of up to ``max_iter`` iterations.
MAX_STAGES = 100

# -- the three hypothesis spaces (§3.3) -----------------------------------------------------


class _KernelExpansion:
    """``f(x) = sum_k c_k (k(x_{j_k}, x) - m_k) + b`` with ``||f||^2 = c^T K_RR c``.

    Eq. (4) when the landmarks ``R`` are all training points, eq. (9) otherwise. ``m_k`` is the
    mean of ``k(x_{j_k}, u)`` over the unlabeled points ``u``: the hypothesis is
    ``<w, phi(x) - mean_u phi(u)> + b``, so ``mean_u f(u) = b`` for every ``c`` (balancing by
    centring, cS3VM paper §2.2). ``K_RR c`` is read off ``K_XR c`` (``K_RR`` = rows ``R`` of
    ``K_XR``), so one evaluation costs two products with the n x r matrix: O(nr), Lemma 2.
    """

    def __init__(self, K_XR: np.ndarray, landmarks: np.ndarray, unlabeled: np.ndarray):
        self.K = K_XR
        self.landmarks = landmarks
        self.m = unlabeled_mean(K_XR, unlabeled)

    @property
    def n_params(self) -> int:
        return self.K.shape[1]

    def forward(self, c):
        Kc = self.K @ c
        return Kc - self.m @ c, Kc[self.landmarks]

    def penalty(self, c, q) -> float:
        return float(c @ q)

    def backward(self, a, q, lam):
        # eq. (10): K_R a + 2 lam K_RR c, with the centring term of m.
        return self.K.T @ a - self.m * a.sum() + 2.0 * lam * q

    def coef_intercept(self, c, q, b):
        return c, b - float(self.m @ c)


class _LinearKernel:
    """Linear kernel without ``K``: ``f(x) = <w, x - mu_u> + b``, ``w = X^T c`` (eq. (11)).

    ``Kc = X (X^T c)`` and ``c^T K c = ||w||^2``; with scipy.sparse ``X`` every product costs
    O(nnz) (Lemma 4), with dense ``X`` O(nd) (Lemma 3). ``mu_u`` is the unlabeled mean, for the
    same balancing as ``_KernelExpansion``. ``X`` is never densified or centred in memory.
    """

    def __init__(self, X, unlabeled: np.ndarray):
        self.X = X
        self.mu = unlabeled_mean(X, unlabeled)

    @property
    def n_params(self) -> int:
        return self.X.shape[0]

    def forward(self, c):
        w = np.asarray(self.X.T @ c).ravel()
        return np.asarray(self.X @ w).ravel() - self.mu @ w, w

    def penalty(self, c, q) -> float:
        return float(q @ q)

    def backward(self, a, q, lam):
        v = np.asarray(self.X.T @ a).ravel() - self.mu * a.sum() + 2.0 * lam * q
        return np.asarray(self.X @ v).ravel()

    def coef_intercept(self, c, q, b):
        # q = X^T c = w from forward: no product needed
        return q, b - float(self.mu @ q)


# -- the surrogate objective (5) and its gradient (6) --------------------------------------


@dataclass(frozen=True, slots=True)
class _Evaluation:
    x: np.ndarray
    q: np.ndarray  # the model's by-product of forward (K_RR c, or w = X^T c)
    value: float
    grad: np.ndarray
    decision: np.ndarray
    labeled_loss: float
    unlabeled_loss: float


@dataclass(frozen=True, slots=True)
class _Surrogate:
    """``F_{lam_u}(c)`` of eq. (5) on one hypothesis space, with the fixed offset ``b``."""

    model: object
    y: np.ndarray  # signed labels of the labeled points
    labeled: np.ndarray  # indices
    unlabeled: np.ndarray  # indices
    b: float
    lam: float
    lam_u: float
    sharpness: float
    s: float

    def __call__(self, c) -> _Evaluation:
        f, q = self.model.forward(c)
        f += self.b
        margins = self.y * f[self.labeled]
        labeled_loss = float(modified_logistic(margins, self.sharpness).mean())
        a = np.zeros_like(f)
        # eq. (6): a_i = (1/l) dL/df for labeled points ...
        a[self.labeled] = self.y * modified_logistic_grad(margins, self.sharpness) / margins.size
        unlabeled_loss = 0.0
        if self.unlabeled.size:
            f_u = f[self.unlabeled]
            unlabeled_loss = float(symmetric_exp(f_u, self.s).mean())
            # ... and (lam'/u) d/df exp(-s f^2) = -(2 s lam'/u) f exp(-s f^2) for unlabeled ones.
            a[self.unlabeled] = self.lam_u * symmetric_exp_grad(f_u, self.s) / f_u.size
        value = labeled_loss + self.lam_u * unlabeled_loss + self.lam * self.model.penalty(c, q)
        grad = self.model.backward(a, q, self.lam)
        return _Evaluation(np.array(c, copy=True), q, value, grad, f, labeled_loss,
                           unlabeled_loss)


# -- the estimator -------------------------------------------------------------------------


class QNS3VM(S3VMClassifier):
    """Semi-supervised SVM by L-BFGS on a smooth surrogate (QN-S3VM, Gieseke et al. 2012).

    Minimizes the surrogate objective of eq. (5),

    ``F_{lam'}(c) = 1/l sum_i (1/gamma) log(1 + exp(gamma (1 - y_i f(x_i)))``
    ``+ lam'/u sum_j exp(-s f(u_j)^2) + lam ||f||^2``,

    with gradient eq. (6), ``K a + 2 lam K c``. Algorithm 1: the supervised solution
    (``lam' = 0``) first, then one L-BFGS run (scipy's L-BFGS-B, as in §4.1.1) for each
    ``alpha_i lam'`` of the sequence ``0 < alpha_1 < ... < alpha_tau``, each warm-started at the
    previous solution.

    Class balancing (not in the QN-S3VM paper, whose model has no offset, footnote 1): as for
    cS3VM (Chapelle et al. 2006, §2.2, eq. (3)) feature space is centred on the mean of the
    unlabeled points and the offset is fixed to the mean labeled label ``b = mean_i y_i``:
    ``f(x) = <w, phi(x) - mean_j phi(u_j)> + b``, so ``mean_j f(u_j) = mean_i y_i`` holds for
    every ``w`` and the unlabeled term cannot push all points to one class.

    Parameters
    ----------
    lam : float in [1e-8, 1e4], default=1e-3
        ``lambda`` of eq. (5), weight of the RKHS norm. The paper tunes it over ``2^-10, ...,
        2^10`` (§4.1.3) and fixes 1 only to time its runs (§4.2.4). Its labeled loss is a mean
        over the l labels, so ``lam`` is an SVM's ``C = 1 / (2 lam l)``: 1e-3 is the near-hard
        margin of the other S3VM papers (the cS3VM paper's C = 100 at l = 5), where 1 would be
        C = 0.1, a margin so soft that the labels barely count. On scikit-learn's iris, wine,
        breast cancer and digits with 2 to 10 labels a class, 1e-3 errs less than 1 in all 12
        cells (docs/deviations.md, "Defaults against an SVM on scikit-learn's data"). The
        bounds leave five decades below and one above, beyond which round-off swamps the norm
        or the losses.
    lam_u : float in [1e-8, 1e4], default=1.0
        ``lambda'`` of eq. (5), weight of the unlabeled term. Default 1 as in §4.2.4 (tuned over
        ``{0.01, 1, 100}`` in §4.1.3).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        ``"linear"`` without ``n_landmarks`` never forms the kernel matrix (§3.3.3, eq. (11))
        and accepts scipy.sparse input in O(nnz) per evaluation (Lemma 4).
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``; ``None`` takes the median
        pairwise distance (LDS paper §2.3.2 with c = 2 classes).
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    alphas : sequence of float, default=(0.01, 0.1, 1.0)
        The annealing sequence of Algorithm 1, at most 100 values strictly increasing in
        (0, 1e4] (each is one more L-BFGS run); the default is the paper's (§4.1.3).
    n_landmarks : int or None, default=None
        ``r`` of the subset of regressors method, eq. (9)-(10): the expansion uses ``r``
        training points drawn uniformly at random ("randomly selected basis vectors", §4.2.4),
        O(nr) time and memory per evaluation (Lemma 2). ``None`` uses all points, eq. (4).
    sharpness : float in [0.01, 1e4], default=20.0
        ``gamma`` of the modified logistic loss in eq. (5) (``gamma = 20``, Figure 2a). Below
        0.01 the loss is the constant ``log(2) / gamma``, above 1e4 the hinge up to round-off.
    s : float in [1e-3, 1e3], default=3.0
        Width of the unlabeled loss ``exp(-s t^2)`` (``s = 3``, eq. (5) and Figure 2b).
    m : int in [1, 500], default=50
        L-BFGS memory, the number of stored correction pairs (§3.3.1; ``m = 50`` in §4.1.1, the
        top of Nocedal and Wright's 3 to 50; each pair stores two vectors of all coefficients).
    max_iter : int, default=500
        L-BFGS iterations per stage, the "user-defined number" of §3.2 (at most
        ``base.ITERATION_LIMIT``).
    tol : float, default=1e-5
        The stopping rule of §3.2: a stage iterates "as long as ||grad F(c_k)|| > eps" (or
        until ``max_iter``). The paper leaves the norm open; as in scipy's L-BFGS-B, which the
        paper used (§4.1.1), it is the largest entry of the gradient (scipy's ``gtol``). The
        default is the authors' qns3vm.py value (``pgtol = 1e-5``).
    ftol : float in [0, 1], default=1.0842e-7
        Not in the paper: a stage also ends when an iteration lowers ``F`` by at most this
        fraction of ``max(|F|, 1)`` (scipy's ``ftol``). The default is the authors' qns3vm.py
        setting, ``factr = 1e12 * 0.000488288`` times the machine epsilon; scipy's own default
        (2.2e-9) takes 2 to 5 times as many evaluations for no visible change of the model,
        and ``ftol=0`` leaves the paper's rule alone.
    random_state : int, RandomState or None, default=None
        Seeds the choice of landmarks.

    Attributes
    ----------
    coef_ : ndarray
        Coefficients over ``features(X)``: one per landmark (all training points when
        ``n_landmarks`` is None), or one per input feature for the linear-kernel path.
    intercept_ : float
    landmarks_ : ndarray of int
        Training indices of the expansion points (kernel paths only).
    sigma_ : float or None
    offset_ : float
        ``b``, the mean labeled label in {-1, +1} coding.
    classes_, transduction_, objective_, n_iter_

    Notes
    -----
    ``features(X)`` is ``k(X, landmarks)`` for the kernel paths and ``X`` itself (sparse stays
    sparse) for the linear path; the centring is folded into ``intercept``.

    Trace: stage ``"alpha"``. Stage 0 is the supervised start (``stage_value = 0``, Algorithm 1
    line 1), stages 1..tau the ``alphas``; "init" is ``c = 0``, one "iter" state per accepted
    L-BFGS iterate, a "stage_end" per stage, and "final". ``objective`` and ``grad_norm`` are
    those of the current stage's ``F_{alpha lam'}``. Extras: ``"labeled_loss"`` and
    ``"unlabeled_loss"``, the two unweighted data means of eq. (5).
    """

    _degenerate_causes = {"lam": LARGE_NORM_WEIGHT, "tol": LBFGS_TOL, "sigma": WIDE_KERNEL}
    _sparse_kernels = KERNELS  # kernel rows of sparse points are dense

    _too_large = ("Pass n_landmarks=200 (the subset of regressors, eq. (9)-(10)), or use "
                  "kernel='linear'.")
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "lam": [Bounded(Real, 1e-8, 1e4, closed="both",
                        why="the paper tunes lam over 2^-10 .. 2^10; beyond these bounds the "
                            "norm or the losses are lost in float64 round-off")],
        "lam_u": [Bounded(Real, 1e-8, 1e4, closed="both",
                          why="the paper tunes lam' over 0.01 .. 100; beyond these bounds the "
                              "unlabeled term or the others are lost in float64 round-off")],
        "alphas": ["array-like"],
        "n_landmarks": [Interval(Integral, 1, None, closed="left"), None],
        "sharpness": [Bounded(Real, 1e-2, 1e4, closed="both",
                              why="the paper's gamma is 20; below 0.01 the loss is the constant "
                                  "log(2) / gamma, above 1e4 the hinge up to round-off")],
        "s": [UNLABELED_WIDTH],
        "m": [Bounded(Integral, 1, MAX_MEMORY, closed="both",
                      why="the paper uses 50 from Nocedal and Wright's 3 .. 50; L-BFGS keeps "
                          "2 m vectors of all coefficients")],
        "max_iter": [iteration_limit(500)],
        "tol": [Interval(Real, 0, np.inf, closed="left")],
        "ftol": [Bounded(Real, 0, 1, closed="both",
                         why="a relative decrease of F: at 1 every stage ends after its first "
                             "iteration")],
        "random_state": ["random_state"],
    }

    def __init__(self, lam=1e-3, lam_u=1.0, kernel="rbf", sigma=None, degree=3, coef0=1.0,
                 alphas=(0.01, 0.1, 1.0), n_landmarks=None, sharpness=20.0, s=3.0, m=50,
                 max_iter=500, tol=1e-5, ftol=REFERENCE_FTOL, random_state=None):
        self.lam = lam
        self.lam_u = lam_u
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.alphas = alphas
        self.n_landmarks = n_landmarks
        self.sharpness = sharpness
        self.s = s
        self.m = m
        self.max_iter = max_iter
        self.tol = tol
        self.ftol = ftol
        self.random_state = random_state

    # -- setup ----------------------------------------------------------------------------

    def _setup(self, problem):
        X, n = problem.X, problem.y.size
        self._alphas = _check_alphas(self.alphas)
        unlabeled = np.flatnonzero(problem.unlabeled)
        if self.n_landmarks is not None and self.n_landmarks > n:
            raise ValueError(
                f"n_landmarks={self.n_landmarks} is more than the {n} training points; the "
                f"landmarks are training points, so choose at most {n} (or None for the full "
                "kernel expansion)."
            )
        self._linear_path = self.kernel == "linear" and self.n_landmarks is None
        if self._linear_path:
            self.sigma_ = None
            self.landmarks_ = None
            self._model = _LinearKernel(X, unlabeled)
        else:
            if self.n_landmarks is None:
                self.landmarks_ = np.arange(n)
            else:
                self.landmarks_ = select_landmarks(n, self.n_landmarks, self.random_state)
            self._fit_kernel(X, centers=X[self.landmarks_])
            self._model = _KernelExpansion(self._kernel(X), self.landmarks_, unlabeled)
        self.offset_ = float(problem.y[problem.labeled].mean())

    def _features(self, X):
        return X if self._linear_path else self._kernel(X)

    def _balance_from_labels(self):
        return ("The offset b is the mean label, the mean output on the unlabeled points "
                f"(class balancing). {LABEL_PROPORTIONS}")

    # -- Algorithm 1 ----------------------------------------------------------------------

    def _surrogate(self, problem, lam_u) -> _Surrogate:
        labeled = np.flatnonzero(problem.labeled)
        return _Surrogate(
            model=self._model, y=problem.y[labeled].astype(float), labeled=labeled,
            unlabeled=np.flatnonzero(problem.unlabeled), b=self.offset_, lam=float(self.lam),
            lam_u=lam_u, sharpness=float(self.sharpness), s=float(self.s),
        )

    def _state(self, ev: _Evaluation, *, event, stage_index, stage_value, iteration):
        coef, intercept = self._model.coef_intercept(ev.x, ev.q, self.offset_)
        return SolverState(
            stage="alpha", stage_index=stage_index, stage_value=stage_value,
            iteration=iteration, event=event, coef=coef, intercept=intercept,
            objective=ev.value, grad_norm=float(np.linalg.norm(ev.grad)),
            train_decision=ev.decision,
            extras={"labeled_loss": ev.labeled_loss, "unlabeled_loss": ev.unlabeled_loss},
        )

    def _iterate(self, problem):
        # Algorithm 1, line 1: the supervised model is (5) with lam' = 0, stage value 0.
        schedule = [0.0, *self._alphas]
        end = yield from lbfgs_schedule(
            schedule, lambda alpha: self._surrogate(problem, alpha * float(self.lam_u)),
            np.zeros(self._model.n_params),
            lambda p: self._state(p.evaluation, event=p.event, stage_index=p.stage_index,
                                  stage_value=p.stage_value, iteration=p.iteration),
            solver="QN-S3VM", parameter="alpha", max_iter=self.max_iter, tol=self.tol,
            ftol=self.ftol, memory=self.m, split=lambda ev: (ev.value, ev.grad))
        yield self._state(end.evaluation, event="final", stage_index=end.stage_index,
                          stage_value=end.stage_value, iteration=end.iteration)


def _check_alphas(alphas) -> list[float]:
    """Algorithm 1 requires ``0 < alpha_1 < ... < alpha_tau``."""
    try:
        values = np.asarray(alphas, dtype=float).ravel()
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer beyond float64
        values = np.array([math.nan])
    if (values.size == 0 or values.size > MAX_STAGES or not np.all(np.isfinite(values))
            or np.any(values <= 0) or np.any(values > MAX_ALPHA) or np.any(np.diff(values) <= 0)):
        raise ValueError(
            f"alphas={_short_repr(alphas)} is not a valid annealing sequence: give 1 to "
            f"{MAX_STAGES} positive, strictly increasing numbers up to {MAX_ALPHA:g}, e.g. "
            "(0.01, 0.1, 1.0) (Algorithm 1 of the QN-S3VM paper; each value is one more L-BFGS "
            "run)."
        )
    return values.tolist()




def _short_repr(value, limit: int = 60) -> str:
    # an integer beyond float64 would fill the message with its digits
    text = re.sub(r"\d{16,}", lambda m: f"<an integer of {len(m.group())} digits>", repr(value))
    return text if len(text) <= limit else text[:limit] + "..."
