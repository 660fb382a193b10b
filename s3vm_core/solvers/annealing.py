"""Deterministic annealing for semi-supervised kernel machines (DA).

Sindhwani, Keerthi & Chapelle, *Deterministic Annealing for Semi-supervised Kernel Machines*,
ICML 2006 (``../shared/papers/003_b236491ce9866969.txt``). The unknown labels become
probabilities ``p_j = P(y'_j = +1)``; for a temperature ``T`` the objective (4)

``J_T(f, p) = lam/2 ||f||_K^2 + 1/l sum_i V(y_i f(x_i))
+ lam_u/u sum_j [p_j V(f(x'_j)) + (1 - p_j) V(-f(x'_j))]
+ T/u sum_j [p_j log p_j + (1 - p_j) log(1 - p_j)]``

is minimized under the balance constraint (5), ``mean_j p_j = r``, by alternating an f-step
(a weighted supervised problem) and a p-step (eq. (8)), while ``T`` is lowered (Table 1).

Every loss writes as per-point weights on the two labels: point ``i`` contributes
``c_plus[i] V(f_i) + c_minus[i] V(-f_i)``, with ``(c_plus, c_minus) = (1/l, 0)`` or ``(0, 1/l)``
for a labeled point of class +1 or -1 and ``(lam_u p_j / u, lam_u (1 - p_j) / u)`` for an
unlabeled one. The f-steps below all work on these weights.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from numbers import Real
from typing import NamedTuple

import numpy as np
import scipy.linalg
from scipy.special import entr, expit, log_expit, logit
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from s3vm_core.base import KERNEL_CONSTRAINTS, Bounded, S3VMClassifier, iteration_limit
from s3vm_core.diagnostics import (
    LABEL_PROPORTIONS,
    LARGE_NORM_WEIGHT,
    WIDE_KERNEL,
    class_phrases,
)
from s3vm_core.kernels import symmetric_product
from s3vm_core.losses import DA_LOSSES, da_effective_loss, da_loss, da_loss_grad
from s3vm_core.problem import check_dense_memory
from s3vm_core.solvers.finite_newton import (
    newton_squared_hinge,
    squared_hinge_mfn,
    squared_row_norms,
    weighted_ridge,
)
from s3vm_core.solvers.svm import (
    KernelDesign,
    LinearDesign,
    as_design,
    fit_libsvm,
    warn_libsvm_cap,
)
from s3vm_core.solvers.weighted_hinge import (
    DualStart,
    KernelColumns,
    WeightedHingeDual,
    seeded_start,
)
from s3vm_core.trace import SolverState

#: Stopping tolerance of LIBSVM in the hinge f-step (KKT violation); scikit-learn's default
#: 1e-3 leaves p visibly noisy at low T.
_SVC_TOL = 1e-5
#: ``cgls`` tolerance of the squared loss's f-step on the linear path: the closed form (7) of the
#: kernel path is exact, and p reacts to f with a factor 1/T, so the one solve per alternation
#: is taken to near machine accuracy (a few more iterations).
_RIDGE_TOL = 1e-12
#: log10 of the lowest temperature allowed: (nu - g) / T of eq. (8) must stay finite.
_LOWEST_LOG10_T = -250.0
#: The balance (5) is enforced to this absolute tolerance on ``mean(p) - r``.
_BALANCE_TOL = 1e-12


# -- the objective (4) and its pieces: small pure functions --------------------------------------


def label_weights(y, p, lam_u):
    """Per-point weights ``(c_plus, c_minus)`` of ``V(f)`` and ``V(-f)`` in objective (4).

    ``y`` holds signed labels (0 = unlabeled); ``p`` the probabilities of the unlabeled points
    in the order they appear in ``y``.
    """
    labeled = y != 0
    n_labeled, n_unlabeled = int(labeled.sum()), int((~labeled).sum())
    c_plus = np.where(y > 0, 1.0 / max(n_labeled, 1), 0.0)
    c_minus = np.where(y < 0, 1.0 / max(n_labeled, 1), 0.0)
    if n_unlabeled:
        c_plus[~labeled] = lam_u * p / n_unlabeled
        c_minus[~labeled] = lam_u * (1.0 - p) / n_unlabeled
    return c_plus, c_minus


def total_entropy(p) -> float:
    """``S(p) = -sum_j [p_j log p_j + (1 - p_j) log(1 - p_j)]`` in nats (0 log 0 = 0)."""
    return float(np.sum(entr(p) + entr(1.0 - p)))


def _objective_and_gradient(alpha, intercept, p, design, y, T, lam, lam_u, loss, f):
    """``J_T`` of eq. (4), its gradient in ``alpha`` and in the intercept at the outputs
    ``f = design.decision(alpha) + intercept`` (computed once, by the caller), and
    ``||f||^2``."""
    c_plus, c_minus = label_weights(y, p, lam_u)
    dloss = c_plus * da_loss_grad(f, loss) - c_minus * da_loss_grad(-f, loss)
    norm_squared, grad_alpha = design.norm_and_gradient(alpha, f - intercept, lam, dloss)
    value = 0.5 * lam * norm_squared
    value += c_plus @ da_loss(f, loss) + c_minus @ da_loss(-f, loss)
    n_unlabeled = p.size
    if n_unlabeled:
        value -= T / n_unlabeled * total_entropy(p)
    return float(value), grad_alpha, float(dloss.sum()), norm_squared


def effective_cost(norm_squared, y, f, lam, lam_u, loss) -> float:
    """Eqn. 1 as a continuous problem over f (§2): ``lam/2 ||f||^2 + 1/l sum_i V(y_i f_i)
    + lam_u/u sum_j V'(f_j)`` with the effective loss ``V'(t) = min(V(t), V(-t))`` of an
    unlabeled point at its better label (``da_effective_loss`` at T = 0); ``norm_squared`` is
    ``||f||^2`` (from ``_objective_and_gradient``, which has it from the outputs)."""
    labeled = y != 0
    value = 0.5 * lam * norm_squared
    if labeled.any():
        value += float(da_loss(y[labeled] * f[labeled], loss).mean())
    if not labeled.all():
        value += lam_u * float(da_effective_loss(f[~labeled], 0.0, loss).mean())
    return value


def da_objective(alpha, intercept, p, K, y, T, lam, lam_u, loss):
    """The DA objective ``J_T`` of eq. (4) with ``f = K alpha + intercept``.

    ``y`` holds signed labels (0 = unlabeled) and ``p`` the probabilities of the unlabeled
    points in their order in ``y``. ``K`` is the kernel matrix, or a ``LinearDesign`` for the
    primal linear model ``f = X w + intercept`` (then ``alpha`` is ``w``). (The paper's f has
    no intercept; the hinge f-step adds the unregularized bias of LIBSVM.)
    """
    design = as_design(K)
    f = design.decision(alpha) + intercept
    return _objective_and_gradient(alpha, intercept, p, design, y, T, lam, lam_u, loss, f)[0]


def da_gradient(alpha, intercept, p, K, y, T, lam, lam_u, loss):
    """Gradient of ``da_objective`` in ``(alpha, intercept, p)`` (a subgradient for the hinge).

    Returns ``(grad_alpha, grad_intercept, grad_p)``; ``grad_p`` is the unconstrained partial
    derivative ``lam_u/u (V(f_j) - V(-f_j)) + T/u logit(p_j)`` whose zero, shifted by the
    multiplier ``nu/u`` of the balance constraint, gives eq. (8).
    """
    design = as_design(K)
    f = design.decision(alpha) + intercept
    _, grad_alpha, grad_intercept, _ = _objective_and_gradient(
        alpha, intercept, p, design, y, T, lam, lam_u, loss, f)
    unlabeled = y == 0
    n_unlabeled = p.size
    grad_p = np.zeros(n_unlabeled)
    if n_unlabeled:
        fu = f[unlabeled]
        grad_p = (lam_u * (da_loss(fu, loss) - da_loss(-fu, loss)) + T * logit(p)) / n_unlabeled
    return grad_alpha, grad_intercept, grad_p


# -- the p-step: eq. (8) with the multiplier nu of the balance constraint (5) ---------------------


def solve_p(g, T, r, nu0=None):
    """The p-step of §3.1: ``p_j = 1 / (1 + exp((g_j - nu) / T))`` with ``mean(p) = r``.

    ``nu`` is the root of the monotone equation ``mean_j expit((nu - g_j) / T) = r``, found by
    Newton-Raphson safeguarded by bisection (as in the paper) inside the bracket
    ``[min g + T logit r, max g + T logit r]``, where the mean is below and above ``r``. The
    starting point is ``nu0`` (the previous root) when it lies in the bracket. Whatever float
    resolution leaves of the residual is then spread over the points in proportion to
    ``p_j (1 - p_j)`` (the first-order effect of ``nu``), so the balance holds to 1e-12.

    Returns ``(p, nu, logits)`` with ``logits = (nu - g) / T``.
    """
    g = np.asarray(g, dtype=float)
    if g.size == 0:
        return np.empty(0), 0.0, np.empty(0)
    shift = T * float(logit(r))
    lo, hi = float(g.min()) + shift, float(g.max()) + shift
    nu = nu0 if nu0 is not None and lo < nu0 < hi else 0.5 * (lo + hi)

    def residual(nu):
        p = expit((nu - g) / T)
        return float(p.mean() - r), float(np.mean(p * (1.0 - p))) / T

    for _ in range(200):
        res, slope = residual(nu)
        if abs(res) <= 0.1 * _BALANCE_TOL:
            break
        if res > 0:
            hi = nu
        else:
            lo = nu
        step = nu - res / slope if slope > 0 else math.nan
        nu = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 4 * np.spacing(max(abs(lo), abs(hi))):
            break
    logits = (nu - g) / T
    p = expit(logits)
    weight = p * (1.0 - p)
    excess = r * g.size - p.sum()
    if weight.sum() > 0 and excess != 0.0:
        p = np.clip(p + excess * weight / weight.sum(), 0.0, 1.0)
    return p, float(nu), logits


def kl_divergence(logits_p, logits_q) -> float:
    """``KL(p, q) = sum_j [p_j log(p_j/q_j) + (1-p_j) log((1-p_j)/(1-q_j))]`` from the logits.

    Working with logits keeps it finite when a probability underflows to exactly 0 or 1.
    With ``a, b`` the logits of p and q, ``log(1 - p) = log p - a``, so the sum is
    ``[log p - log q] - (1 - p)(a - b)``: two ``log_expit`` instead of four (a tenth of DA's
    time on sparse text at n = 2,000 went to them).
    """
    log_ratio = log_expit(logits_p) - log_expit(logits_q)
    kl = log_ratio - expit(-logits_p) * (logits_p - logits_q)
    return float(max(kl.sum(), 0.0))


# -- the f-steps for fixed p ---------------------------------------------------------------------


class Copies(NamedTuple):
    """The weighted SVM's copies of the points: which copies have a weight (``keep``, label
    +1 copies then label -1 copies) and LIBSVM's input for them."""

    keep: np.ndarray
    data: object


def weighted_svm(K, lam, c_plus, c_minus, copies: Copies | None = None):
    """The f-step for the hinge: a weighted SVM on copies of the points (§3.1, DA(l1)).

    Each point appears with label +1 and weight ``c_plus`` and with label -1 and weight
    ``c_minus`` (copies of zero weight are left out; an unlabeled point appears twice).
    Dividing (4) by ``lam`` gives LIBSVM's ``1/2 ||f||^2 + sum_e C_e xi_e`` with
    ``C_e = c_e / lam``. LIBSVM adds an unregularized bias.

    ``K`` is the kernel matrix, or a ``LinearDesign`` for the primal linear model (LIBSVM's
    linear kernel on the rows of ``X``, dense or sparse CSR, so no n x n matrix is formed);
    the coefficients are then ``w``. ``copies`` are the last call's: LIBSVM's input changes
    only when a weight becomes exactly 0, and building it (2n x 2n for a kernel) would
    otherwise cost as much as the SVM solve.

    Returns ``(coef, intercept, converged, copies)``; ``converged`` is False when LIBSVM
    stopped at its iteration cap (``svm.fit_libsvm``), which small ``lam`` or large ``lam_u``
    cause.
    """
    design = as_design(K)
    n = c_plus.size
    points = np.r_[np.arange(n), np.arange(n)]
    labels = np.r_[np.ones(n), -np.ones(n)]
    weights = np.r_[c_plus, c_minus] / lam
    keep = weights > 0
    points = points[keep]
    if copies is None or not np.array_equal(copies.keep, keep):
        copies = Copies(keep, design.libsvm_data(points))
    svm, converged = fit_libsvm(copies.data, labels[keep], sample_weight=weights[keep],
                                tol=_SVC_TOL, kernel=design.libsvm_kernel)
    return design.coef(svm, points), float(svm.intercept_[0]), converged, copies


# -- the estimator -------------------------------------------------------------------------------


class _DAState(NamedTuple):
    """What Table 1 carries from one alternation to the next. The steps return a new state
    and change nothing else (the warm starts of the hinge f-step travel here too)."""

    alpha: np.ndarray             # coefficients of f: alpha of (6), or w on the linear path
    intercept: float              # the hinge f-step's LIBSVM bias (0 otherwise)
    f: np.ndarray                 # outputs on the training points
    p: np.ndarray                 # probabilities of the unlabeled points, eq. (8)
    logits: np.ndarray            # (nu - g) / T, p = expit(logits)
    nu: float                     # multiplier of the balance constraint (5)
    kl: float                     # KL(p, q) to the previous alternation's p
    entropy: float                # S(p)
    f_converged: bool             # False when LIBSVM's cap stopped the hinge f-step
    hinge_start: DualStart | None  # where the kernel hinge f-step's active set ended
    copies: Copies | None         # LIBSVM's copies of the points (hinge f-step)



class DeterministicAnnealingS3VM(S3VMClassifier):
    """Semi-supervised kernel machine by deterministic annealing (DA; Sindhwani et al. 2006).

    Minimizes ``J_T(f, p)`` of eq. (4) under the balance constraint (5) for a decreasing
    sequence of temperatures, following Table 1: ``p = (r, ..., r)``, ``T = T0``; for each T,
    alternate the f-step (minimize (4) over ``f`` for fixed ``p``) and the p-step (eq. (8)) until
    ``KL(p, q) < eps`` between consecutive ``p``; then ``T <- T / R``, until the entropy
    ``S(p) < eps``. As the paper prescribes (§3, "we monitor the value of the objective
    function"), the returned model is the state of the path with the lowest objective; the
    objective compared across temperatures is that of Eqn. 1 in its continuous form (§2), each
    unlabeled point at its better label: ``lam/2 ||f||^2 + 1/l sum_i V(y_i f_i)
    + lam_u/u sum_j V'(f_j)`` with the effective loss ``V'(t) = min(V(t), V(-t))``. This is
    the cost the authors' svmlin monitors, so both return the same state of the same path.

    ``f(x) = sum_i alpha_i k(x, x_i)`` over all training points (eq. (6)); with
    ``kernel="linear"``, ``f(x) = w^T x`` in the primal (§3.1, after Eqn. 6), and scipy.sparse
    input stays sparse.

    Parameters
    ----------
    lam : float in [1e-8, 1e4], default=1e-3
        ``lambda``, weight of ``||f||_K^2`` in (4); §4 searches ``{1e-4, 1e-3, 1e-2, 1e-1}``.
        The bounds lie four decades beyond that grid: the hinge f-step's LIBSVM costs are
        ``C_e = c_e / lam`` (up to ``1 / (l lam)``), and below 1e-8 the solves only run into
        their iteration cap (``svm.fit_libsvm``).
    lam_u : float in [1e-8, 1e4], default=1.0
        ``lambda'``, weight of the unlabeled loss; §4 fixes ``lambda' = 1``; four decades
        either side of it (the unlabeled costs are ``lam_u p / (u lam)``).
    loss : {"hinge", "squared_hinge", "squared"}, default="hinge"
        ``V`` of §3.1: ``max(0, 1-t)`` (DA(l1), the paper's best on Table 2),
        ``max(0, 1-t)^2/2`` (DA(l2)), or ``(1-t)^2/2`` (DA(sqr), regularized least squares).
        f-steps: hinge, a weighted SVM whose unlabeled points appear twice, solved in the dual
        by an active set warm-started at the previous alternation's (``weighted_hinge``; the
        paper's "seeding", §3.1), and by LIBSVM (scikit-learn's ``SVC``, precomputed kernel,
        ``sample_weight``) on the copies where it does not settle; squared hinge, primal
        finite Newton with exact line search (Keerthi & DeCoste 2005), warm-started;
        squared, the closed form (7) ``alpha = (G + lam C)^{-1} Y`` with ``G + lam C``
        Cholesky-factorized once per fit.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``; ``None`` takes the median
        pairwise distance (LDS paper §2.3.2, c = 2); §4 searches multiples 1/8 ... 8 of a
        default.
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    r : float in (0, 1) or None, default=None
        Fraction of unlabeled points of the positive class ``classes_[1]`` in constraint (5);
        ``None`` estimates it from the labeled points ("It may also be estimated from the
        labeled examples", §3), right when they were drawn at random from the data; labels
        picked as "k of each class" make it 1/2 whatever the data's ratio (see
        ``estimate_positive_fraction`` and docs/deviations.md, "Defaults against an SVM on
        scikit-learn's data").
    T0 : float in (0, 1e6], default=10
        Initial temperature (Table 1). Above 1e6 the entropy term swamps every loss the
        bounded costs allow, so only more stages of ``p = r`` would follow.
    R : float > 1, default=1.5
        Annealing rate, ``T <- T / R`` (Table 1). ``T0``, ``R`` and ``max_stages`` must keep the
        last temperature ``T0 / R^(max_stages - 1)`` above 1e-250, where ``(nu - g) / T`` in
        eq. (8) still fits in floating point.
    eps : float >= 1e-10, default=1e-6
        Threshold of both loops of Table 1: KL divergence between consecutive p (inner) and
        entropy of p (outer). Entropy and KL are totals over the unlabeled points, in nats.
        Below 1e-10 they are within the f-step's tolerance and round-off: on two moons
        (n = 200) eps = 1e-12 already ends temperatures at ``max_iter`` instead of KL < eps.
        When ``r u`` is not an integer the balance forces one point to keep a fractional
        probability, so the outer loop stops when ``S(p)`` is within ``eps`` of that point's
        least entropy ``h(frac(r u))`` (``h`` the binary entropy).
    max_iter : int, default=100
        Safeguard (not in the paper): alternations per temperature. A temperature also ends
        when its hinge f-step stops at LIBSVM's iteration cap (that f-step is no minimizer, so
        further alternations cannot settle p); a ``ConvergenceWarning`` says so.
    max_stages : int, default=60
        Safeguard (not in the paper): number of temperatures (``T0 / R^60 ~ 3e-10``). Both
        safeguards are at most ``base.ITERATION_LIMIT``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_samples,)
        ``alpha`` of eq. (6), ``features(X) = k(X, X_train)``.
    intercept_ : float
        0 for the squared and squared-hinge losses (the paper's f has no bias); LIBSVM's
        unregularized bias for the hinge.
    p_ : ndarray of shape (n_samples,)
        Probability of the positive class at the returned state, in the caller's order;
        labeled points hold their label as 0 or 1.
    r_, sigma_, T_ (temperature of the returned state), nu_, objective_ (``J_T`` there),
    classes_, transduction_, n_iter_.

    Trace: stage ``"T"`` (``stage_value`` = T). "init" has ``f = 0`` and ``p = r``; each
    alternation (f-step then p-step) is an "iter" state, the one that meets ``KL < eps`` is the
    "stage_end" of its temperature; "final" repeats the state of lowest effective cost.
    ``iteration`` counts the alternations of the state's temperature (from 1). ``objective``
    is ``J_T`` (4), ``grad_norm`` the norm of its gradient in ``alpha`` at the new p, for the
    smooth losses; NaN (unknown) for the hinge, whose kink at the margin, where the f-step
    puts its support vectors, leaves only a subgradient that round-off chooses. ``extras``:
    ``"p"`` (as ``p_``), ``"entropy"`` ``S(p)``, ``"kl"`` ``KL(p, q)``, ``"nu"`` (multiplier of
    (5)), ``"expected_cost"`` ``E_p J(f, y')``, ``"effective_cost"`` (Eqn. 1 with the
    effective loss, the monitored value).
    """

    _degenerate_causes = {"lam": LARGE_NORM_WEIGHT, "sigma": WIDE_KERNEL}
    _too_large = ("Use kernel='linear' (the primal, the paper's linear case; sparse input "
                  "allowed), or fewer points.")
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "lam": [Bounded(Real, 1e-8, 1e4, closed="both",
                        why="the paper searches 1e-4 .. 1e-1; below 1e-8 the hinge f-step's "
                            "LIBSVM costs 1 / (l lam) only run into its iteration cap")],
        "lam_u": [Bounded(Real, 1e-8, 1e4, closed="both",
                          why="the paper fixes lam_u = 1; beyond these bounds the unlabeled "
                              "costs lam_u p / (u lam) are lost in round-off or only slow "
                              "LIBSVM down")],
        "loss": [StrOptions(set(DA_LOSSES))],
        "r": [Interval(Real, 0, 1, closed="neither"), None],
        "T0": [Bounded(Real, 0, 1e6, closed="right",
                       why="Table 1 starts at 10; above 1e6 the entropy term swamps every loss")],
        "R": [Interval(Real, 1, np.inf, closed="neither")],
        "eps": [Bounded(Real, 1e-10, np.inf, closed="left",
                        why="Table 1 uses 1e-6; below 1e-10 KL and entropy are within the "
                            "f-step's tolerance and round-off, and the loops only run into "
                            "max_iter")],
        "max_iter": [iteration_limit(100)],
        "max_stages": [iteration_limit(60)],
    }

    def __init__(self, lam=1e-3, lam_u=1.0, loss="hinge", kernel="rbf", sigma=None, degree=3,
                 coef0=1.0, r=None, T0=10.0, R=1.5, eps=1e-6, max_iter=100, max_stages=60):
        self.lam = lam
        self.lam_u = lam_u
        self.loss = loss
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.r = r
        self.T0 = T0
        self.R = R
        self.eps = eps
        self.max_iter = max_iter
        self.max_stages = max_stages

    # -- skeleton hooks ----------------------------------------------------------------------

    def _setup(self, problem):
        X, y = problem.X, problem.y
        last_T = math.log10(self.T0) - (self.max_stages - 1) * math.log10(self.R)
        if last_T < _LOWEST_LOG10_T:
            raise ValueError(
                f"With T0={self.T0:g}, R={self.R:g} and max_stages={self.max_stages}, the last "
                f"temperature T0 / R^(max_stages - 1) would be 1e{last_T:.0f}, below the 1e-250 "
                "at which eq. (8) still fits in floating point. Use fewer max_stages or a "
                "smaller R."
            )
        if self.r is None:
            self.r_ = float(np.mean(y[problem.labeled] > 0))
        else:
            self.r_ = float(self.r)
        n, n_unlabeled = y.size, problem.n_unlabeled
        self._fit_kernel(X)
        self._hinge = None
        if self.kernel == "linear":
            # §3.1, after Eqn. 6: f(x) = w^T x, updated in the primal (no n x n matrix)
            self._K, self._design = None, LinearDesign(X)
            self._row_norms = squared_row_norms(X)  # for every f-step's inner solves
            return
        if self.loss == "hinge":
            # the weighted SVM sees every unlabeled point twice
            check_dense_memory(n + n_unlabeled, n + n_unlabeled, "doubled kernel matrix",
                               advice=self._too_large)
        self._K = self._kernel(X)
        self._design = KernelDesign(self._K)
        if self.loss == "hinge":
            # the hinge f-step: the warm-started dual active set, LIBSVM where it does not settle
            self._hinge = WeightedHingeDual(KernelColumns(self._K), self.lam)
        if self.loss == "squared":
            # eq. (7): G + lam C with C = diag(l on labeled, u / lam_u on unlabeled), once per fit
            c = np.where(problem.labeled, problem.n_labeled, n_unlabeled / self.lam_u)
            self._rls_factor = scipy.linalg.cho_factor(self._K + self.lam * np.diag(c))

    def _features(self, X):
        return X if self.kernel == "linear" else self._kernel(X)

    def _balance_from_labels(self):
        if self.r is not None:
            return None
        if getattr(self, "_one_vs_rest", None) is not None:  # where r cannot be set
            return LABEL_PROPORTIONS
        return (f"Set r to the share of {class_phrases(self)[1]} you expect among the "
                "unlabeled points (r=None takes it from the labels).")

    def _postprocess(self, final, n_iter, outcome):
        super()._postprocess(final, n_iter, outcome)
        self.p_ = np.array(final.extras["p"])
        self.T_ = final.stage_value
        self.nu_ = final.extras["nu"]

    # -- Table 1: the generator below is the only loop; the steps change nothing but the state

    def _iterate(self, problem):
        state = self._init(problem)
        yield self._record(state, problem, "init")
        best, capped_temperatures = None, 0
        for stage in range(self.max_stages):
            T = self.T0 / self.R**stage
            for iteration in range(self.max_iter):
                state = self._step(state, problem, T)
                # An f-step that LIBSVM's cap stopped is no minimizer, so alternating further
                # cannot settle p: that temperature ends there (counted, and warned below).
                settled = state.kl < self.eps or not state.f_converged
                capped_temperatures += not state.f_converged
                event = "stage_end" if settled or iteration == self.max_iter - 1 else "iter"
                # (iteration counts the alternations of this temperature from 1; 0 is the start)
                recorded = self._record(state, problem, event, stage, T, iteration + 1)
                if best is None or recorded.extras["effective_cost"] <= (
                    best.extras["effective_cost"]
                ):
                    best = recorded
                yield recorded
                if settled:
                    break
            else:
                self._warn_unsettled(T)
            if self._terminate(state, problem):
                break
        else:
            self._warn_entropy(state)
        if capped_temperatures:
            self._warn_capped(capped_temperatures)
        yield replace(best, event="final")

    def _init(self, problem) -> _DAState:
        """Table 1, "Initialize": ``p = (r, ..., r)``, ``f = 0``."""
        n_unlabeled = problem.n_unlabeled
        p = np.full(n_unlabeled, self.r_)
        logits = np.full(n_unlabeled, float(logit(self.r_)))
        n_coef = problem.X.shape[1] if self.kernel == "linear" else problem.y.size
        return _DAState(alpha=np.zeros(n_coef), intercept=0.0, f=np.zeros(problem.y.size),
                        p=p, logits=logits, nu=0.0, kl=0.0, entropy=total_entropy(p),
                        f_converged=True, hinge_start=None, copies=None)

    def _step(self, state: _DAState, problem, T) -> _DAState:
        """One alternation of Table 1: the f-step for fixed p, then ``q = p`` and eq. (8)."""
        return self._p_step(self._f_step(state, problem), problem, T)

    def _terminate(self, state: _DAState, problem) -> bool:
        """Table 1, outer loop: stop once ``S(p) < eps`` (up to the forced fractional point)."""
        fraction = self.r_ * problem.n_unlabeled % 1.0
        floor = float(entr(fraction) + entr(1.0 - fraction))
        return state.entropy < self.eps + floor

    def _p_step(self, state: _DAState, problem, T) -> _DAState:
        """Eq. (8) at the new f under the balance (5), and ``KL(p, q)`` to the previous p."""
        fu = state.f[problem.unlabeled]
        g = self.lam_u * (da_loss(fu, self.loss) - da_loss(-fu, self.loss))
        p, nu, logits = solve_p(g, T, self.r_, nu0=state.nu)
        return state._replace(p=p, logits=logits, nu=nu, kl=kl_divergence(logits, state.logits),
                              entropy=total_entropy(p))

    def _f_step(self, state: _DAState, problem) -> _DAState:
        """Minimize (4) over f for fixed p: the state with the new f (``f_converged`` False
        when LIBSVM's cap stopped the hinge f-step)."""
        c_plus, c_minus = label_weights(problem.y, state.p, self.lam_u)
        if self.loss == "hinge":
            return self._hinge_f_step(state, c_plus, c_minus)
        if self.kernel == "linear":
            alpha, f = self._linear_f_step(state, c_plus, c_minus, problem.X)
        else:
            if self.loss == "squared":
                Y = np.where(problem.labeled, problem.y,
                             2.0 * self._p_full(state.p, problem) - 1.0)
                alpha = scipy.linalg.cho_solve(self._rls_factor, Y)
            else:
                alpha, _ = newton_squared_hinge(self._K, state.alpha, self.lam, c_plus, c_minus)
            f = symmetric_product(self._K, alpha)
        return state._replace(alpha=alpha, intercept=0.0, f=f, f_converged=True)

    def _hinge_f_step(self, state: _DAState, c_plus, c_minus) -> _DAState:
        """The hinge f-step: with a kernel, the dual active set of ``weighted_hinge`` started
        where the last one ended; LIBSVM on the point copies (``weighted_svm``) where it does
        not settle, and on the linear path."""
        if self._hinge is not None:
            solution = self._hinge.solve(c_plus, c_minus, state.hinge_start)
            if solution.converged:
                return state._replace(alpha=solution.alpha, intercept=solution.intercept,
                                      f=solution.outputs, f_converged=True,
                                      hinge_start=solution.start)
        alpha, intercept, converged, copies = weighted_svm(self._design, self.lam, c_plus,
                                                           c_minus, state.copies)
        start = (None if self._hinge is None
                 else seeded_start(alpha * self.lam, c_plus, c_minus))
        return state._replace(alpha=alpha, intercept=intercept,
                              f=self._design.decision(alpha) + intercept,
                              f_converged=converged, hinge_start=start, copies=copies)

    def _linear_f_step(self, state: _DAState, c_plus, c_minus, X):
        """The smooth f-steps in the primal, ``f = X w``: L2-SVM-MFN (Sindhwani & Keerthi 2006)
        for the squared hinge, warm-started at the current w, and one ridge solve for the
        squared loss (each point's two weighted squared losses are one, centred on
        ``(c_plus - c_minus) / (c_plus + c_minus)``, which is ``2 p - 1`` for an unlabeled
        point). Returns ``(w, f)``."""
        if self.loss == "squared_hinge":
            result = squared_hinge_mfn(X, c_plus, c_minus, self.lam, state.alpha,
                                       outputs=state.f, row_norms=self._row_norms)
            if not result.converged:
                warnings.warn(
                    f"The squared-hinge Newton f-step did not converge in "
                    f"{result.newton_steps} steps.", ConvergenceWarning, stacklevel=4,
                )
            return result.w, result.outputs
        weights = c_plus + c_minus
        solution = weighted_ridge(X, weights, (c_plus - c_minus) / weights, self.lam,
                                  state.alpha, tol=_RIDGE_TOL, outputs=state.f,
                                  row_norms=self._row_norms)
        return solution.w, solution.outputs

    def _p_full(self, p, problem):
        out = (problem.y > 0).astype(float)
        out[problem.unlabeled] = p
        return out

    def _record(self, state: _DAState, problem, event, stage=0, T=None, iteration=0):
        T = self.T0 if T is None else T
        objective, grad_alpha, _, norm_squared = _objective_and_gradient(
            state.alpha, state.intercept, state.p, self._design, problem.y, T, self.lam,
            self.lam_u, self.loss, state.f)
        n_unlabeled = max(state.p.size, 1)
        # The hinge has no derivative at t = 1, where the f-step's SVM puts its free support
        # vectors: its "gradient" there is whichever subgradient round-off picks, and moves by
        # a factor of two when X moves by 1e-14 (wine, one-vs-rest): no number to show.
        grad_norm = math.nan if self.loss == "hinge" else float(np.linalg.norm(grad_alpha))
        return SolverState(
            stage="T", stage_index=stage, stage_value=T, iteration=iteration, event=event,
            coef=state.alpha, intercept=state.intercept, objective=objective,
            grad_norm=grad_norm, train_decision=state.f,
            extras={"p": self._p_full(state.p, problem), "entropy": state.entropy,
                    "kl": state.kl, "nu": state.nu,
                    "expected_cost": objective + T / n_unlabeled * state.entropy,
                    "effective_cost": effective_cost(norm_squared, problem.y, state.f,
                                                     self.lam, self.lam_u, self.loss)},
        )

    # -- the sentences of the safeguards --------------------------------------------------

    def _warn_unsettled(self, T) -> None:
        _warn(f"At T = {T:.3g} the alternation of f- and p-steps did not reach KL < eps = "
              f"{self.eps:g} in max_iter = {self.max_iter} iterations; moving on to the next "
              "temperature. Increase max_iter or eps.")

    def _warn_entropy(self, state: _DAState) -> None:
        _warn(f"The entropy of p is still {state.entropy:.3g} > eps after max_stages = "
              f"{self.max_stages} temperatures; returning the best state found. Increase "
              "max_stages or eps.")

    def _warn_capped(self, capped_temperatures: int) -> None:
        warn_libsvm_cap(
            f"the hinge f-step at {capped_temperatures} temperature(s); each of them ended "
            "there, without KL < eps",
            f"Its costs are c_e / lam: a larger lam (here {self.lam:g}) or a smaller lam_u "
            f"(here {self.lam_u:g}) converges faster.", stacklevel=4)


def _warn(message: str) -> None:
    """A ``ConvergenceWarning`` from a safeguard of the annealing loop."""
    warnings.warn(message, ConvergenceWarning, stacklevel=4)
