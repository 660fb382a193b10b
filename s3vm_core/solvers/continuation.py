"""cS3VM: the continuation method of Chapelle, Chi & Zien (ICML 2006).

The S3VM objective (2) is non-convex. Convolving it with an isotropic Gaussian of variance gamma
in ``w`` gives ``L_gamma`` (eqs. (5)-(8)), convex for gamma >= gamma_0 (bound (9)). cS3VM
minimizes ``L_gamma`` for 11 geometrically decreasing gammas (§3.2), each minimization
warm-started from the previous minimizer (Algorithm 1), in the centred kernel-PCA coordinates of
§2.2-2.3 (``s3vm_core.solvers.primal.PrimalMap``).

Correction to the printed paper (the numerics decide, see tests/s3vm_core/test_continuation.py):
(5) and Algorithm 1 print the smoothing kernel ``(pi gamma)^(-d/2) exp(-||t||^2 / gamma)``
(variance gamma/2), but the closed forms (6)-(8), the bound (9), gamma_0 and gamma_end all belong
to variance gamma, ``(2 pi gamma)^(-d/2) exp(-||t||^2 / (2 gamma))``: the constant of (6) is
``gamma d / 2`` and ``a_i = 1 + 2 gamma s ||x_i||^2``. We use variance gamma throughout, and read
(7) as ``sqrt(gamma) ||x_i|| / sqrt(2) [...]`` with
``e_i = (y_i f_i - 1) / (sqrt(2 gamma) ||x_i||)`` (the printed ``gamma ||x_i|| / sqrt(2)`` and
``sqrt(2 gamma ||x_i||)`` are transcription errors). In (9) the Hessian factor is
``(1 - 2 s f_i^2 / a_i)`` (printed ``s / a_i``) and the bound ``-C* / (sqrt(2 s) gamma^(3/2)
||x_i||^3)`` (printed ``sqrt(2 s gamma^(3/2))``); gamma_0 as printed follows from the former.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from s3vm_core.base import (
    COST_RANGE,
    KERNEL_CONSTRAINTS,
    UNLABELED_WIDTH,
    Bounded,
    S3VMClassifier,
    cost,
    iteration_limit,
    resolve_costs,
)
from s3vm_core.diagnostics import LABEL_PROPORTIONS, LBFGS_TOL, SMALL_COST, WIDE_KERNEL
from s3vm_core.kernels import FLAT_KERNEL, select_landmarks
from s3vm_core.losses import (
    gaussian_smoothed_hinge,
    gaussian_smoothed_hinge_grad,
    gaussian_smoothed_squared_hinge,
    gaussian_smoothed_squared_hinge_grad,
    gaussian_smoothed_symmetric_exp,
    gaussian_smoothed_symmetric_exp_grad,
)
from s3vm_core.solvers.lbfgs import lbfgs_schedule
from s3vm_core.solvers.primal import (
    SUBSET_ADVICE,
    CentredRows,
    PrimalMap,
    row_norms,
    s3vm_objective,
)
from s3vm_core.trace import SolverState

SMOOTHED_LOSSES = {
    "hinge": (gaussian_smoothed_hinge, gaussian_smoothed_hinge_grad),
    "squared_hinge": (gaussian_smoothed_squared_hinge, gaussian_smoothed_squared_hinge_grad),
}

#: Largest number of smoothing values: the paper takes eleven steps (§3.2), and each one is a
#: full L-BFGS minimization warm-started at the last, so more only repeats near-identical work.
MAX_N_GAMMA = 100

#: Below this size the leading eigenvalue of M (§3.2) is taken from a dense eigendecomposition.
_DENSE_EIG = 300


def smoothed_objective(w, Z, y, *, C: float, C_star: float, s: float = 3.0, bias: float,
                       gamma: float, loss: str = "hinge",
                       norms: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Value and gradient in ``w`` of the smoothed objective ``L_gamma`` (eqs. (6)-(8)).

    ``L_gamma(w) = E_t[L(w - t)]``, ``t ~ N(0, gamma I_p)``, for the objective (2) ``L`` of
    ``s3vm_core.solvers.primal.s3vm_objective``::

        1/2 ||w||^2 + gamma p / 2                                                   (6)
        + C sum_labeled   ls(y_i f_i; sqrt(gamma) ||x_i||)                          (7)
        + C* sum_unlabeled exp(-s f_i^2 / a_i) / sqrt(a_i),  a_i = 1 + 2 gamma s ||x_i||^2  (8)

    with ``f = Z w + b`` and ``ls`` the Gaussian-smoothed labeled loss
    (``losses.gaussian_smoothed_hinge`` for the paper's p = 1). ``gamma = 0`` gives ``L``.

    Parameters
    ----------
    w : ndarray of shape (p,)
    Z : ndarray of shape (n, p)
        Centred kernel-PCA coordinates (``PrimalMap.Z``).
    y : ndarray of shape (n,)
        Signed labels, 0 for unlabeled points.
    C, C_star, s, bias : as in eq. (2); ``bias`` is the fixed b of §2.2.
    gamma : float
        Smoothing variance (>= 0).
    loss : {"hinge", "squared_hinge"}
    norms : ndarray of shape (n,), optional
        ``||x_i||`` (rows of Z), to avoid recomputing them.

    Returns
    -------
    value : float
    grad : ndarray of shape (p,)
        The gradient of §3.1, ``w - C/2 sum erfc(e_i) y_i x_i - C* sum 2 s f_i / a_i^(3/2) ...``.
    """
    w = np.asarray(w, dtype=float)
    y = np.asarray(y, dtype=float)
    if norms is None:
        norms = row_norms(Z)
    loss_fn, loss_grad = SMOOTHED_LOSSES[loss]
    scale = math.sqrt(gamma) * norms
    f = Z @ w + bias
    labeled = y != 0
    margin = y[labeled] * f[labeled]
    f_u = f[~labeled]
    value = (0.5 * w @ w + 0.5 * gamma * w.size
             + C * loss_fn(margin, scale[labeled]).sum()
             + C_star * gaussian_smoothed_symmetric_exp(f_u, scale[~labeled], s).sum())
    dfi = np.empty_like(f)
    dfi[labeled] = C * y[labeled] * loss_grad(margin, scale[labeled])
    dfi[~labeled] = C_star * gaussian_smoothed_symmetric_exp_grad(f_u, scale[~labeled], s)
    return float(value), w + Z.T @ dfi


def smoothed_objective_along_line(model, coef, direction=None, ts=None, gamma: float = 0.0):
    """``L_gamma(w + t d)`` for each ``t`` in ``ts``: the landscape slice of paper Figure 2.

    Parameters
    ----------
    model : ContinuationS3VM
        Fitted, or with its trace started (``primal_map_`` exists after the first ``trace``
        call).
    coef : SolverState or ndarray of shape (p,)
        The point ``w`` the slice goes through (a state's ``coef``, or ``model.coef_``).
    direction : ndarray of shape (p,), optional
        ``d``. Default: ``model.v_star_``, the leading eigenvector of
        ``M = sum_unlabeled x_i x_i^T / ||x_i||^3`` — the direction the gamma_0 problem leaves
        unpenalized (§3.3), i.e. roughly the first kernel principal component.
    ts : array-like, optional
        Offsets ``t`` (default 201 values in [-3, 3]; ``w + t d`` with unit ``d`` moves by t).
    gamma : float, default=0.0
        Smoothing variance; 0 gives the unsmoothed objective (2) (with the exp(-s t^2) loss).
        Use the values in ``model.gammas_`` for the continuation path.

    Returns
    -------
    ts : ndarray of shape (n_t,)
    values : ndarray of shape (n_t,)
    """
    pm = model.primal_map_
    w = np.asarray(getattr(coef, "coef", coef), dtype=float)
    d = model.v_star_ if direction is None else np.asarray(direction, dtype=float)
    if d.shape != w.shape:
        raise ValueError(
            f"direction has shape {d.shape} but the model has {w.size} coordinates; give one "
            "value per coordinate of features()."
        )
    if not (isinstance(gamma, Real) and 0 <= gamma < np.inf):
        raise ValueError(f"gamma is a smoothing variance and must be a finite number >= 0, got "
                         f"{gamma!r}.")
    ts = np.linspace(-3.0, 3.0, 201) if ts is None else np.asarray(ts, dtype=float).ravel()
    if not (np.all(np.abs(ts) <= 1e100) and np.all(np.abs(d) <= 1e100)):
        raise ValueError("ts and direction must hold finite numbers of at most 1e100 (the "
                         "objective squares them).")
    Z, y = pm.Z, model._y
    norms = model._norms
    scale = math.sqrt(gamma) * norms
    loss_fn = SMOOTHED_LOSSES[model.loss][0]
    # smoothed_objective at every w + t d at once (one matrix product instead of a loop over
    # t); tests/s3vm_core/test_continuation.py checks the two agree.
    f = (Z @ w + pm.bias)[None, :] + ts[:, None] * (Z @ d)[None, :]
    labeled = y != 0
    margin = y[labeled] * f[:, labeled]
    values = (0.5 * (w @ w + 2 * ts * (w @ d) + ts**2 * (d @ d)) + 0.5 * gamma * w.size
              + model.C * loss_fn(margin, scale[labeled]).sum(axis=1)
              + model.C_star_ * gaussian_smoothed_symmetric_exp(
                  f[:, ~labeled], scale[~labeled], model.s).sum(axis=1))
    return ts, values


def _leading_eigenpair(B) -> tuple[float, np.ndarray]:
    """Largest eigenvalue of ``B^T B`` and its unit eigenvector (via the smaller Gram matrix).

    ``B`` is an array or, for the linear kernel, ``CentredRows``: then ``B^T B`` is applied
    as an operator (two products with the data) for sparse data or many features, so nothing
    of size n x n or d x d is formed and sparse data stay sparse.
    """
    m, p = B.shape
    if m == 0:
        return 0.0, np.eye(p)[0]
    if isinstance(B, CentredRows):
        if p > 1 and (p > _DENSE_EIG or sp.issparse(B.X)):
            gram = LinearOperator((p, p), matvec=lambda v: B.T @ (B @ np.ravel(v)),
                                  dtype=float)
            lam, U = eigsh(gram, k=1, which="LA")
            return max(float(lam[-1]), 0.0), U[:, -1] / np.linalg.norm(U[:, -1])
        B = B.toarray()  # dense data with few features: a copy of their size
    small = B @ B.T if m <= p else B.T @ B
    if small.shape[0] <= _DENSE_EIG:
        lam, U = scipy.linalg.eigh(small, subset_by_index=(small.shape[0] - 1,) * 2)
    else:
        lam, U = eigsh(small, k=1, which="LA")
    lam, u = float(lam[-1]), U[:, -1]
    v = B.T @ u if m <= p else u
    norm = np.linalg.norm(v)
    return max(lam, 0.0), (v / norm if norm > 0 else np.eye(p)[0])


def _scaled_rows(Z, rows, scale):
    """``Z[rows] * scale[:, None]`` for an array or ``CentredRows``."""
    if isinstance(Z, CentredRows):
        return Z.rows(rows, scale)
    return Z[rows] * scale[:, None]


class ContinuationS3VM(S3VMClassifier):
    """cS3VM: minimize the S3VM objective (2) by Gaussian continuation (Chapelle et al., 2006).

    In the centred kernel-PCA coordinates ``x_i`` of §2.2-2.3 (so the balancing constraint (3)
    holds with ``b`` fixed to the mean labeled label), minimize for ``gamma_0 > ... > gamma_end``
    (§3.2) the smoothed objective (eqs. (6)-(8), ``smoothed_objective``)::

        L_gamma(w) = E[L(w - t)], t ~ N(0, gamma I),
        L(w) = 1/2 ||w||^2 + C sum_labeled max(0, 1 - y_i f_i)^p + C* sum_unlabeled exp(-s f_i^2)

    each from the previous minimizer (Algorithm 1), by L-BFGS.

    Parameters
    ----------
    C : float in [1e-10, 1e10], default=100.0
        Labeled cost; the paper uses C = 100 ("close to hard margin", Table 1). The bounds are
        those of every cost (``base.COST_RANGE``): beyond them float64 round-off swamps the
        regularizer.
    C_star : float in [0, 1e10] or None, default=None
        Unlabeled cost; None sets ``C* = C`` as in all of §4 ("we set C* in (2) to C").
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``; None takes the median
        pairwise distance (LDS paper §2.3.2, c = 2 classes).
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    s : float in [1e-3, 1e3], default=3.0
        Width of the unlabeled loss ``exp(-s t^2)`` (§3.1, s = 3 as in Chapelle & Zien 2005);
        outside the bounds the loss is flat or a spike over outputs of order 1.
    n_gamma : int in [2, 100], default=11
        Number of smoothing values: "eleven steps on a geometric scale between gamma_0 and
        gamma_end" (§3.2), ``gamma_i = (gamma_end / gamma_0)^(i / 10) gamma_0``. Each is one
        L-BFGS minimization, hence the bound (``MAX_N_GAMMA``).
    finish_unsmoothed : bool, default=False
        After the ``n_gamma`` stages, minimize the objective (2) itself (gamma = 0) from the
        gamma_end minimizer: the last ``gamma_p = 0`` of Algorithm 1's general sequence. The
        paper's cS3VM stops at gamma_end, where ``L_gamma`` and (2) are already close (§3.2,
        "we choose the final value of gamma such that a_i ~ 1"), so the default is False.
    n_components : int or None, default=None
        p. None keeps every kernel principal component whose eigenvalue exceeds ``1e-10`` times
        the largest (``primal.EIGENVALUE_RTOL``: smaller ones are round-off of a rank-deficient
        K). An integer p < n approximates the leading p components by the kernel PCA of q = p
        random training points, as in the paper's §5.2 experiment (p = q): O(p^3 + p^2 n)
        instead of O(n^3). Ignored by the linear kernel (the coordinates are then the input
        features, centred).
    loss : {"hinge", "squared_hinge"}, default="hinge"
        Labeled loss ``max(0, 1 - t)^p``: the paper takes p = 1 (§2.1, smoothed in (7));
        "squared_hinge" (p = 2) is the objective (4) of ∇TSVM (LDS paper).
    max_iter : int, default=1000
        L-BFGS iterations per gamma (the paper only asks for a local minimizer); a
        ``ConvergenceWarning`` is raised when a stage hits it. At most
        ``base.ITERATION_LIMIT``.
    tol : float, default=1e-5
        L-BFGS-B ``gtol`` (largest gradient component) for each stage.
    random_state : int, RandomState or None, default=None
        Draws the q = p points of the ``n_components`` map (§5.2).

    Attributes
    ----------
    gamma0_ : float
        ``(C* lambda_max)^(2/3) / (2s)^(1/3)`` with ``lambda_max`` the largest eigenvalue of
        ``M = sum_unlabeled x_i x_i^T / ||x_i||^3`` (§3.2, from bound (9)): ``L_gamma`` is
        convex for every ``gamma >= gamma0_``.
    gamma_end_ : float
        ``1 / (10 * 2s * max_i ||x_i||^2)`` (§3.2), where ``a_i ~ 1``.
    gammas_ : ndarray
        The path ``geomspace(gamma0_, gamma_end_, n_gamma)``. When ``gamma0_ <= gamma_end_``
        (e.g. no unlabeled point or C* = 0) ``L_gamma_end`` is already convex by (9) and the
        path is the single value ``gamma_end_``.
    v_star_ : ndarray of shape (p,)
        Leading eigenvector of M (§3.3), the default direction of
        ``smoothed_objective_along_line``.
    primal_map_ : PrimalMap
        ``features(X) = primal_map_.transform(X)``; ``intercept_ = primal_map_.bias``.
    C_star_, sigma_, n_components_ (p) : the values used.
    coef_ : ndarray of shape (p,)
        ``w`` in the coordinates of ``features``.
    objective_ : float
        The unsmoothed objective (2) at ``coef_`` (compare with ∇TSVM).

    Trace: stage ``"gamma"``, ``stage_value`` = gamma; an "init" state (w = 0, the start
    ``x_0`` of Algorithm 1, any point will do since ``L_gamma_0`` is convex), an "iter" state per
    L-BFGS iteration, a "stage_end" state per gamma, with ``finish_unsmoothed`` one more stage
    with gamma = 0 (``stage_index = len(gammas_)``), and the "final" state, which repeats the
    last stage's ``w`` and ``stage_value``. ``objective`` is ``L_gamma`` (the unsmoothed (2) in
    a gamma = 0 stage and in "final", the fitted model's objective ``objective_``);
    ``extras["objective_unsmoothed"]`` is (2) at the state's ``w``.
    """

    _degenerate_causes = {"tol": LBFGS_TOL, "C": SMALL_COST, "sigma": WIDE_KERNEL}
    _too_large = SUBSET_ADVICE
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "C": [cost("C")],
        "C_star": [Bounded(Real, 0, COST_RANGE[1], closed="both",
                           why="0 drops the unlabeled loss; beyond the upper bound the "
                               "regularizer is lost in float64 round-off"), None],
        "s": [UNLABELED_WIDTH],
        "n_gamma": [Bounded(Integral, 2, MAX_N_GAMMA, closed="both",
                            why="the paper takes 11 steps; every step is one more L-BFGS "
                                "minimization")],
        "finish_unsmoothed": ["boolean"],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "max_iter": [iteration_limit(1000)],
        "tol": [Interval(Real, 0, np.inf, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, C=100.0, C_star=None, kernel="rbf", sigma=None, degree=3, coef0=1.0,
                 s=3.0, n_gamma=11, finish_unsmoothed=False, n_components=None, loss="hinge",
                 max_iter=1000, tol=1e-5, random_state=None):
        self.C = C
        self.C_star = C_star
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.s = s
        self.n_gamma = n_gamma
        self.finish_unsmoothed = finish_unsmoothed
        self.n_components = n_components
        self.loss = loss
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # -- setup: the map of §2.2-2.3 and the gamma path of §3.2 ----------------------------

    def _setup(self, problem):
        n = problem.y.size
        if self.n_components is not None and self.n_components > n and self.kernel != "linear":
            raise ValueError(
                f"n_components={self.n_components} but there are only {n} training points, and "
                f"the kernel-PCA map has at most one component per point. Use n_components <= "
                f"{n}, or None to keep them all."
            )
        self._fit_kernel(problem.X)
        _, self.C_star_ = resolve_costs(self.C, self.C_star)
        landmarks = None
        if self.n_components is not None and self.n_components < n:
            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
            landmarks = select_landmarks(n, self.n_components, seed)
        pm = PrimalMap.fit(problem.X, problem, kernel=self.kernel, sigma_=self.sigma_,
                           degree=self.degree, coef0=self.coef0, n_components=self.n_components,
                           landmarks=landmarks)
        self.primal_map_ = pm
        self.n_components_ = pm.n_components
        self._y = problem.y.astype(float)
        self._norms = row_norms(pm.Z)
        max_norm2 = float(np.max(self._norms)) ** 2
        if max_norm2 <= 0:  # the points are distinct (problem.check_distinct)
            raise ValueError(FLAT_KERNEL)
        # Bound (9): points at the origin have a constant loss and drop out of M.
        u = problem.unlabeled & (self._norms > 1e-12 * math.sqrt(max_norm2))
        lam_max, self.v_star_ = _leading_eigenpair(_scaled_rows(pm.Z, u, self._norms[u] ** -1.5))
        self.gamma0_ = (self.C_star_ * lam_max) ** (2 / 3) / (2 * self.s) ** (1 / 3)
        self.gamma_end_ = 1.0 / (10 * 2 * self.s * max_norm2)
        if self.gamma0_ > self.gamma_end_:
            self.gammas_ = np.geomspace(self.gamma0_, self.gamma_end_, self.n_gamma)
        else:
            self.gammas_ = np.array([self.gamma_end_])

    def _features(self, X):
        return self.primal_map_.features(X)

    def _balance_from_labels(self):
        return ("The balance constraint (3) sets the mean output on the unlabeled points to the "
                f"mean label. {LABEL_PROPORTIONS}")

    # -- the continuation path (Algorithm 1) ----------------------------------------------

    def _objective(self, gamma):
        pm = self.primal_map_
        kw = dict(Z=pm.Z, y=self._y, C=float(self.C), C_star=self.C_star_, s=float(self.s),
                  bias=pm.bias, loss=self.loss)
        if gamma is None:
            return lambda w: s3vm_objective(w, **kw)
        return lambda w: smoothed_objective(w, gamma=gamma, norms=self._norms, **kw)

    def _state(self, w, value, grad, **fields):
        unsmoothed = self._objective(None)(w)[0]
        coef, intercept = self.primal_map_.decision_parts(w)
        return SolverState(
            stage="gamma", coef=coef, intercept=intercept, objective=value,
            grad_norm=float(np.linalg.norm(grad)), train_decision=self.primal_map_.Z @ w
            + self.primal_map_.bias, extras={"objective_unsmoothed": unsmoothed}, **fields,
        )

    def _iterate(self, problem):
        stages = [*self.gammas_, 0.0] if self.finish_unsmoothed else self.gammas_
        end = yield from lbfgs_schedule(
            # a gamma = 0 stage minimizes the objective (2) itself
            stages, lambda gamma: self._objective(gamma or None), np.zeros(self.n_components_),
            lambda p: self._state(p.x, *p.evaluation, event=p.event, stage_index=p.stage_index,
                                  stage_value=p.stage_value, iteration=p.iteration),
            solver="cS3VM", parameter="gamma", max_iter=self.max_iter, tol=self.tol)
        # The fitted model reports the objective (2) it was built to minimize (also after
        # stopping at gamma_end), so objective_ compares with ∇TSVM's.
        yield self._state(end.x, *self._objective(None)(end.x), event="final",
                          stage_index=end.stage_index, stage_value=end.stage_value,
                          iteration=end.iteration)
