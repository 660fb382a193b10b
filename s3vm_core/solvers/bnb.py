"""The exact global minimum of the common S3VM objective, by branch and bound (issue 35).

Chapelle, Sindhwani & Keerthi, "Branch and Bound for Semi-Supervised Support Vector Machines",
NIPS 2006. Every other solver of this library finds a local minimum of a non-convex objective.
The continuation paper leaves open "how well does the algorithm approximate the global
solution?" (Chapelle, Chi & Zien 2006, §1, quoting Joachims), and the DA paper calls the known
global methods "unrealistically slow" (Sindhwani, Keerthi & Chapelle 2006, §1).
``BranchAndBoundS3VM`` answers it on small data: the exact minimizer of the common objective
(``s3vm_core.objective``: the continuation paper's eq. (2) with the hinge, under its balance
constraint (3)), with a certified lower bound when a budget stops it.

Because ``max(0, 1 - |t|) = min over y = +-1 of max(0, 1 - y t)``, the minimum of (2) is the
minimum over the labelings ``y_U`` of a convex problem: an SVM on every point, with the balance
constraint (3) held exactly by centring feature space on the mean of the unlabeled points and
fixing ``b`` to the mean labeled label (the continuation paper's §2.2,
``solvers.primal.PrimalMap``). With the labels of a subset fixed, dropping the loss of the
other unlabeled points (it is >= 0) gives a convex problem whose minimum bounds every labeling
below it: the bound of a node of the search tree.
"""

from __future__ import annotations

import heapq
import math
import time
import warnings
from contextlib import contextmanager
from itertools import count
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

import s3vm_core.problem as problem_module
from s3vm_core.base import (
    KERNEL_CONSTRAINTS,
    Bounded,
    S3VMClassifier,
    cost,
    resolve_costs,
)
from s3vm_core.losses import hinge
from s3vm_core.memory import dense_memory_limit
from s3vm_core.objective import LOCAL_SOLVERS, matched_solvers
from s3vm_core.problem import check_dense_memory
from s3vm_core.solvers.primal import CentredRows, PrimalMap
from s3vm_core.trace import SolverState

# -- the convex problem of a node ---------------------------------------------------------
#
# With the labels y_S of a set S of points fixed (the labeled points and the unlabeled ones
# fixed so far) and b fixed by (3), the node's problem is a fixed-bias SVM,
#     min_w 1/2 ||w||^2 + sum_S c_i max(0, 1 - y_i (z_i^T w + b)),
# whose dual is a QP over a box, without the equality constraint of a free bias:
#     max_beta  sum_S beta_i (1 - y_i b) - 1/2 beta^T Q beta,  0 <= beta_i <= c_i,
# Q = diag(y) K~ diag(y), K~ = Z Z^T the centred kernel. Any feasible beta gives a lower bound
# (weak duality): the node's bound is certified however the solver stops, and
# w = Z^T (y * beta) gives an upper bound. Points outside S have c_i = 0.

#: KKT tolerance on the margins ``y_i f_i - 1`` of the node QP.
_KKT_TOL = 1e-10
#: Eigenvalues of a margin block below this fraction of its largest one are zero.
_NULL_RTOL = 1e-12
#: Iterations of a node's QP between two readings of the budget's clock: at 2,000 points an
#: iteration takes about a millisecond, so the budget is still seen within tens of them.
_CLOCK_EVERY = 32


class _QPResult(NamedTuple):
    beta: np.ndarray
    u: np.ndarray          # K~ (y * beta): f = u + b on every point
    dual: float            # the dual value: a certified lower bound of the node's problem
    converged: bool


def _dual_value(beta, u, y, b) -> float:
    """``sum beta_i (1 - y_i b) - 1/2 beta^T Q beta`` with ``Q beta = y u``."""
    return float(beta @ (1.0 - y * b) - 0.5 * (y * beta) @ u)


def _subspace_step(Kt, y, F, gF):
    """The step of the margin points ``F`` towards the minimum of the QP with the others
    held: ``Q_FF d = -g_F`` (Cholesky), or where ``Q_FF`` is singular, the least-squares step,
    or when the gradient has a part in its null space, the descent along that part (zero
    curvature: only a bound can stop it). Returns ``(d, largest step)``."""
    Q = Kt[np.ix_(F, F)] * np.outer(y[F], y[F])
    # LAPACK directly: the margin blocks are small and scipy.linalg's checks cost more
    L, info = scipy.linalg.lapack.dpotrf(Q, lower=1)
    if info == 0:
        pivots = np.diag(L)
        if pivots.min() ** 2 > 1e3 * _NULL_RTOL * pivots.max() ** 2:
            return -scipy.linalg.lapack.dpotrs(L, gF, lower=1)[0], 1.0
    lam, V = np.linalg.eigh(Q)
    keep = lam > _NULL_RTOL * max(lam[-1], np.finfo(float).tiny)
    c = V.T @ gF
    null = gF - V[:, keep] @ c[keep]
    if np.linalg.norm(null) > 1e-9 * max(1.0, np.linalg.norm(gF)):
        return -null, math.inf
    return -(V[:, keep] @ (c[keep] / lam[keep])), 1.0


def _solve_node(Kt, b, y, cap, beta, u, max_iter: int, out_of_time=None) -> _QPResult:
    """The node's box QP by a primal active-set method, warm-started at ``beta`` (feasible,
    with ``u = K~ (y beta)``): the margin points move to the minimum of the QP on their
    subspace unless a bound stops one first; at that minimum, the bound point whose margin
    violates its KKT condition the most is freed. Exact up to ``_KKT_TOL``; should the active
    set not settle within ``max_iter`` steps, or ``out_of_time()`` say that the fit's budget
    is spent, the dual value at the feasible point reached is still a valid bound
    (``converged`` False)."""
    beta = beta.copy()
    u = u.copy()
    free = (beta > 0.0) & (beta < cap)
    converged = False
    for iteration in range(max_iter):
        # the budget's clock is a system call, a tenth of a small iteration: read it sparingly
        if out_of_time is not None and iteration % _CLOCK_EVERY == 0 and out_of_time():
            break
        F = np.flatnonzero(free)
        g = y * (u + b) - 1.0
        if F.size and np.max(np.abs(g[F])) > _KKT_TOL:
            d, largest = _subspace_step(Kt, y, F, g[F])
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(d > 0, (cap[F] - beta[F]) / d,
                                np.where(d < 0, -beta[F] / d, math.inf))
            k = int(np.argmin(room))
            step = min(largest, max(float(room[k]), 0.0))
            if not math.isfinite(step):  # no curvature and no bound: nothing to move
                step = 0.0
            if step > 0.0:
                move = step * d
                beta[F] += move
                u += Kt[:, F] @ (y[F] * move)
            if room[k] <= largest:  # a bound stopped the step: that point leaves the margin
                i = F[k]
                beta[i] = cap[i] if d[k] > 0 else 0.0
                free[i] = False
            continue
        g = y * (u + b) - 1.0
        # a point at 0 needs a margin >= 1, a point at its cost a margin <= 1
        violation = np.where(free | (cap <= 0.0), 0.0, np.where(beta <= 0.0, -g, g))
        i = int(np.argmax(violation))
        if violation[i] <= _KKT_TOL:
            converged = True
            break
        free[i] = True
    support = np.flatnonzero(beta > 0.0)
    u = Kt[:, support] @ (y[support] * beta[support])  # afresh: no drift of the updates
    return _QPResult(beta, u, _dual_value(beta, u, y, b), converged)


# -- the search ----------------------------------------------------------------------------


class _Node(NamedTuple):
    """A node of the search tree: the labels of the points (+-1 labeled or fixed, 0 free),
    the dual point of its QP and its value, and its bound (>= dual: a parent's bound holds
    for every child)."""

    bound: float
    dual: float
    labels: np.ndarray     # int8
    beta: np.ndarray
    u: np.ndarray | None   # K~ (labels * beta); dropped while the node waits in the queue


class _Incumbent(NamedTuple):
    """The best solution found: its eq. (2) value, dual point and outputs, and where it came
    from."""

    value: float
    labels: np.ndarray
    beta: np.ndarray
    u: np.ndarray
    source: str


class _Search:
    """What every node shares: the centred kernel ``K~ = Z Z^T``, the fixed bias, the costs;
    and the small pure pieces of the search (solve, score, bound, branch). The loop is the
    generator of ``BranchAndBoundS3VM._iterate``. ``out_of_time``: a function that says
    when the fit's budget is spent (None: never); a QP then stops at the feasible point it has
    reached, and ``descend`` at the best solution so far: both stay valid."""

    def __init__(self, Kt, b, y, C, C_star, max_qp_iter, out_of_time=None):
        self.Kt, self.b = Kt, float(b)
        self.y = y.astype(np.int8)              # +-1 labeled, 0 unlabeled
        self.labeled = self.y != 0
        self.C, self.C_star = float(C), float(C_star)
        self.diag = np.maximum(np.diag(Kt).copy(), np.finfo(float).tiny)
        self.max_qp_iter = max_qp_iter
        self.out_of_time = out_of_time

    def caps(self, labels) -> np.ndarray:
        return np.where(self.labeled, self.C, np.where(labels != 0, self.C_star, 0.0))

    def solve(self, labels, beta, u, within_budget=True) -> _QPResult:
        """The node QP for these labels, warm-started at ``beta`` (feasible for them: 0 at the
        free points, at most the cost elsewhere) with ``u = K~ (labels * beta)``. A solve that
        does not settle still gives a valid bound (``_solve_node``), so the search goes on.
        ``within_budget=False``: to its end whatever the budget."""
        return _solve_node(self.Kt, self.b, labels.astype(float), self.caps(labels), beta, u,
                           self.max_qp_iter, self.out_of_time if within_budget else None)

    def outputs_of(self, labels, beta) -> np.ndarray:
        support = np.flatnonzero(beta > 0.0)
        return self.Kt[:, support] @ (labels[support] * beta[support])

    def value(self, labels, beta, u) -> float:
        """Eq. (2) with the hinge at ``w = Z^T (labels * beta)``, every unlabeled point at its
        better label."""
        f = u + self.b
        norm = float((labels * beta) @ u)
        return (0.5 * norm + self.C * float(hinge(self.y[self.labeled] * f[self.labeled]).sum())
                + self.C_star * float(hinge(np.abs(f[~self.labeled])).sum()))

    def labeled_value(self, labels, beta, u) -> float:
        """The node's own primal objective: each point of ``labels`` at its given label."""
        margins = labels * (u + self.b)
        return 0.5 * float((labels * beta) @ u) + float(self.caps(labels) @ hinge(margins))

    def leaf(self, signs, start_labels=None, start_beta=None):
        """The convex problem of one labeling of every unlabeled point (their ``signs``), warm
        started where the labels agree with ``start_labels``. Returns ``(eq. (2) value,
        QP result, labels)``."""
        labels = np.where(self.labeled, self.y, signs).astype(np.int8)
        beta = np.zeros(labels.size)
        if start_beta is not None:
            beta = np.where(labels == start_labels, start_beta, 0.0)
        result = self.solve(labels, beta, self.outputs_of(labels, beta))
        return self.value(labels, result.beta, result.u), result, labels

    def descend(self, labels, beta, u, value, source) -> _Incumbent:
        """From a solution, relabel every unlabeled point by the sign of its output and solve
        that labeling's problem, while eq. (2) decreases (each step can only lower it: the
        relabelled problem at the same w has the value of eq. (2)). A local search in the
        labels, like label switching with all swaps at once."""
        best = _Incumbent(value, labels, beta, u, source)
        while self.out_of_time is None or not self.out_of_time():
            signs = np.where(best.u + self.b >= 0.0, 1, -1)
            new_value, result, new_labels = self.leaf(signs, best.labels, best.beta)
            if not new_value < best.value - 1e-12 * max(1.0, abs(best.value)):
                return best
            best = _Incumbent(new_value, new_labels, result.beta, result.u, source)
        return best

    def single_increase(self, f, diag, sign):
        """For free points with outputs ``f`` and kernel diagonal ``diag``, a lower bound on
        how much the node's bound rises when the point joins with label ``sign``: with the
        other duals held and ``beta_j = t`` in ``[0, C*]``, the dual rises by
        ``t (1 - sign f) - t^2 K~_jj / 2``, at its best t."""
        gain = 1.0 - sign * f
        t = np.minimum(self.C_star, np.maximum(gain, 0.0) / diag)
        return t * gain - 0.5 * diag * t * t

    def band_increase(self, free, f) -> float:
        """A lower bound on the rise of the bound from every free point inside the margin
        band, whatever their labels: adding ``beta_j = t_j`` for them all raises the dual by
        ``sum t_j (1 - y_j f_j) - 1/2 (t y)^T K~_JJ (t y)``, which is at least
        ``sum t_j (1 - |f_j|) - lam_max ||t||^2 / 2`` for every labeling ``y``
        (``lam_max`` the largest eigenvalue of ``K~_JJ``); best at
        ``t_j = min(C*, (1 - |f_j|) / lam_max)``."""
        J = free[np.abs(f[free]) < 1.0]
        if J.size == 0:
            return 0.0
        gap = 1.0 - np.abs(f[J])
        block = self.Kt[np.ix_(J, J)]
        eigenvalues, _, _, _, info = scipy.linalg.lapack.dsyevr(
            block, compute_v=0, range="I", il=J.size, iu=J.size)
        # a failed eigensolver is no license to prune: the bound then adds nothing
        lam_max = float(eigenvalues[0]) if info == 0 else math.inf
        if not lam_max > 0.0:
            return 0.0
        t = np.minimum(self.C_star, gap / lam_max)
        return float(np.sum(t * gap - 0.5 * lam_max * t * t))

    def expand(self, node: _Node, threshold: float, branching: str) -> list[_Node]:
        """The children of a node worth exploring (bound below ``threshold``), the one to
        dive into first; none when the node is a leaf, is solved by its own QP, or its
        tightened bound reaches the threshold.

        A node whose free points all have ``|f| >= 1`` is solved: labelling each by its sign
        costs nothing, so its QP's optimum is that labeling's (the caller has scored it).
        Otherwise the bound is raised by ``single_increase`` (the best point, whatever its
        label) and ``band_increase``, and the node branches on one free point: the one whose
        two children's bounds rise the most together (``"balanced"``: the product of the two
        ``single_increase``), or the one of largest ``|f|`` (``"confident"``, NIPS 2006). A
        child whose label agrees with an output beyond the margin has its parent's QP
        solution; the other is solved from it, unless its ``single_increase`` already prunes
        it.
        """
        f = node.u + self.b
        free = np.flatnonzero(node.labels == 0)
        if free.size == 0 or np.all(np.abs(f[free]) >= 1.0):
            return []
        f_free, diag = f[free], self.diag[free]
        up = self.single_increase(f_free, diag, 1.0)
        down = self.single_increase(f_free, diag, -1.0)
        lift = max(float(np.max(np.minimum(up, down))), self.band_increase(free, f))
        bound = max(node.bound, node.dual + lift)
        if bound >= threshold:
            return []
        if branching == "confident":
            k = int(np.argmax(np.abs(f_free)))
        else:
            floor = 1e-12 * max(self.C_star, 1.0)
            k = int(np.argmax(np.maximum(up, floor) * np.maximum(down, floor)))
        j = free[k]
        children = []
        for sign, increase in ((1, up[k]), (-1, down[k])):
            labels = node.labels.copy()
            labels[j] = sign
            if sign * f[j] >= 1.0:
                children.append(_Node(bound, node.dual, labels, node.beta, node.u))
                continue
            if node.dual + increase >= threshold:
                continue
            result = self.solve(labels, node.beta, node.u)
            child_bound = max(bound, result.dual)
            if child_bound < threshold:
                children.append(_Node(child_bound, result.dual, labels, result.beta,
                                      result.u))
        children.sort(key=lambda child: child.bound)
        return children


class SeedWarning(UserWarning):
    """A local solver named in ``BranchAndBoundS3VM.init`` could not give its starting
    labeling (it refused its parameters or the data); the search started without it."""


class _Outcome(NamedTuple):
    lower_bound: float
    proven: bool
    n_nodes: int
    source: str


#: Bytes an open node takes beside its arrays (the tuples, the arrays' headers): 430 measured
#: with tracemalloc.
_NODE_OVERHEAD = 450

#: Share of the gap by which the certified bound must rise before the trace records it (the
#: incumbent's improvements are always recorded): enough states to film the gap closing,
#: a few hundred at most.
_BOUND_STEP = 0.02


class BranchAndBoundS3VM(S3VMClassifier):
    """The exact global minimum of the S3VM objective, by branch and bound on the labels.

    Minimizes eq. (2) of the continuation paper (Chapelle, Chi & Zien 2006) with the hinge
    (p = 1) under its balance constraint (3),

    ``1/2 ||w||^2 + C sum_L max(0, 1 - y_i f_i) + C* sum_U max(0, 1 - |f_j|)``,
    ``f = <w, phi(x) - mean_U phi(u)> + b``, ``b = mean_L y``,

    (the centring and the fixed b hold (3) for every w, §2.2; the model lives in the kernel-PCA
    coordinates of §2.3, ``solvers.primal.PrimalMap``, as cS3VM's and ∇TSVM's do). Since
    ``max(0, 1 - |t|)`` is the smaller of the two labels' hinge losses, the minimum is that of
    a convex problem (a fixed-bias SVM) over every labeling of the unlabeled points: the
    branch and bound of Chapelle, Sindhwani & Keerthi (NIPS 2006) searches that tree.

    * **Bound.** A node fixes the labels of some unlabeled points; the problem over the
      labeled and fixed points alone (the loss of the others dropped, it is >= 0) bounds
      every labeling below it. It is solved in the dual, a QP over a box (the bias is fixed),
      by an active set warm-started at the parent's solution; the dual value of any feasible
      point is a certified bound. It is tightened by what the free points must add whatever
      their labels: the best single point, and all points inside the margin band together
      (``_Search.band_increase``).
    * **Incumbent.** It starts from the best of the local solvers' answers (``init``, fitted
      with the same kernel, C and C* through ``matched_solvers``, and any ``start`` given to
      ``fit``): each one's labeling of the unlabeled points is solved exactly and improved
      by relabelling every point by its output's sign while eq. (2) decreases. Every node's
      own solution is scored on eq. (2) too, and improved the same way when it beats the
      incumbent.
    * **Search.** Best bound first, each node followed by a depth-first dive into its better
      child: the dives reach leaves (and better incumbents) quickly, as the depth-first
      search of NIPS 2006 does, while the lowest open bound, the certified lower bound of the
      global minimum, rises steadily. A node whose bound reaches the incumbent (within
      ``tol``) is pruned; one whose free points all lie beyond the margin is solved by its own
      QP.

    Sizes (docs/benchmarks.md, "The exact global minimum"): proven optimal within seconds on
    two moons with 30 unlabeled points; on 100-200 points a budget (``max_nodes``,
    ``max_time``) returns the incumbent and its certified gap, with a ``ConvergenceWarning``
    that says what stopped the search and where the seconds went.

    Parameters
    ----------
    C : float in [1e-10, 1e10] or None, default=None
        Cost of the labeled losses in eq. (2). ``None``: the inverse empirical variance of
        the data in feature space, ``1 / s^2`` (LDS paper §2.3.2), as ``GradientTSVM``.
    C_star : float in [1e-10, 1e10] or None, default=None
        Cost of the unlabeled losses; ``None``: ``C`` (cS3VM paper §4).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``; ``None`` takes the median
        pairwise distance (LDS paper §2.3.2 with c = 2 classes).
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    init : tuple of str, default=("cs3vm", "tsvm", "qn-s3vm", "da", "label-switching")
        The local solvers, by their names in ``s3vm_core.ESTIMATORS`` (these five and
        ``"svm"``), whose answers start the incumbent, each fitted on the same data with the
        same kernel and costs (``matched_solvers``); their own warnings are not repeated, and
        one that cannot run is skipped with a ``SeedWarning``. ``()`` starts from the
        supervised solution alone. They run within ``max_time``: one that the budget stops
        gives the labeling it had reached, and one that would start with less budget left
        than the setup took (its own setup costs about as much) is skipped.
    branching : {"balanced", "confident"}, default="balanced"
        The unlabeled point a node branches on: ``"balanced"``, the one whose two children's
        bounds rise the most together (the product of the two lower bounds of the rise);
        ``"confident"``, the one the node's solution is the most confident about (largest
        ``|f|``), NIPS 2006's rule. docs/benchmarks.md compares them: "confident" needs 4-10x
        fewer nodes on g50c; "balanced" proves two moons (u = 100) and two circles (u = 60)
        within seconds where "confident" stops at a minute's budget.
    max_nodes : int in [1, 1e8], default=100_000
        Nodes explored at most. The open nodes are kept in memory (a label and a dual value
        per point each, ``9 n`` bytes and some 450 more); should they fill the memory a fit
        may take (``s3vm_core.memory``: half of the memory available by default), the search
        stops there as at a budget.
    max_time : float > 0 or np.inf, default=60.0
        Budget of the whole fit in seconds of process CPU time (``time.process_time``), from
        the start of its setup: the kernel matrix and its kernel-PCA map, the local solvers
        of ``init``, the exact solutions of their labelings and the search. What the caller
        computes between two states of ``trace`` (drawing a frame) is not counted. CPU time,
        unlike the wall clock, leaves out the time the fit waits for a core while other
        processes load the machine, so on one BLAS thread the same fit stops at about the
        same point on a busy machine as on an idle one. It counts every thread of the
        process: BLAS threads computing together spend it up to their number of times faster
        than the clock, and threads that wait for each other spin and spend it too, the more
        so on a loaded machine (the setup runs with the caller's BLAS threads, the search and
        the local solvers with one: ``threadpoolctl.threadpool_limits(1)`` around the fit
        makes it all one); other threads of the calling process that compute meanwhile (a
        server's) spend it as well: run the fit in a process of its own for a budget that is
        the fit's alone. The budget is checked between the steps of the fit, down to the
        iterations of a node's QP; a step that cannot be interrupted (an eigendecomposition
        of the kernel matrix, seconds at 2,000 points) can carry the fit past it by that
        step. ``np.inf``: no limit.
    tol : float in [1e-12, 0.1], default=1e-9
        Relative optimality gap at which a node is pruned: the returned objective is proven
        within ``tol * max(1, objective)`` of the global minimum.

    Attributes
    ----------
    objective_ : float
        Eq. (2) at the returned solution (``common_objective`` gives the same value).
    lower_bound_ : float
        A certified lower bound of the global minimum; equal to ``objective_`` when the search
        ended (the minimum is proven to ``tol``), the lowest bound of the open nodes when a
        budget stopped it.
    gap_ : float
        ``objective_ - lower_bound_``.
    proven_ : bool
        Whether the search ended before its budget.
    n_nodes_ : int
        Nodes explored.
    incumbent_source_ : str
        Where the returned solution came from: ``"svm"`` (the supervised start), a name of
        ``init``, ``"start 0"``, ``"start 1"``... (the ``start`` arrays of ``fit``), or
        ``"search"`` when a node of the search found it.
    map_ : PrimalMap
        The centred kernel-PCA coordinates, ``features(X) = map_.features(X)``.
    coef_ : ndarray of shape (p,)
        ``w`` in those coordinates (over the input features for the linear kernel).
    C_, C_star_, sigma_, intercept_, classes_, transduction_, n_iter_

    Trace: stage ``"bound"``, ``stage_value`` the gap ``objective - lower bound``. "init" is
    the best starting solution with the root's bound; an "iter" state each time the
    incumbent improves or the certified bound rises by 2 % of the gap or more (``iteration``
    counts them); "final" the returned solution. ``objective`` is the incumbent's eq. (2),
    ``coef`` and ``train_decision`` its model. ``extras``: ``"lower_bound"``, ``"n_nodes"``
    (explored so far), ``"n_open"`` (waiting).
    """

    _sparse_kernels = ()
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "C": [cost("C"), None],
        "C_star": [cost("C*"), None],
        "init": [tuple, list],
        "branching": [StrOptions({"balanced", "confident"})],
        "max_nodes": [Bounded(Integral, 1, 10**8, closed="both",
                              why="every open node is kept in memory; beyond 1e8 they would "
                                  "not fit")],
        "max_time": [Interval(Real, 0, math.inf, closed="right")],
        "tol": [Bounded(Real, 1e-12, 0.1, closed="both",
                        why="below 1e-12 the node QPs' round-off keeps nodes open forever; "
                            "above 0.1 the answer is no longer near the optimum")],
    }

    def __init__(self, C=None, C_star=None, kernel="rbf", sigma=None, degree=3, coef0=1.0,
                 init=LOCAL_SOLVERS, branching="balanced", max_nodes=100_000, max_time=60.0,
                 tol=1e-9):
        self.C = C
        self.C_star = C_star
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.init = init
        self.branching = branching
        self.max_nodes = max_nodes
        self.max_time = max_time
        self.tol = tol

    # -- setup -----------------------------------------------------------------------------

    def _setup(self, problem, start=None):
        """``start``: decision values on the training points (a sequence of arrays of shape
        (n_samples,)), e.g. other solvers' ``decision_function(X)``: their signs on the
        unlabeled points are more starting labelings."""
        self._budget = _CpuBudget(self.max_time)
        X, n = problem.X, problem.y.size
        self._init_names = _check_init(self.init)
        self._start = _check_start(start, n)
        # the open nodes may take the memory a fit's dense matrices may (s3vm_core.memory):
        # a label and a dual value per point each, and Python's bookkeeping
        limit, self._memory_origin = dense_memory_limit(problem_module.MAX_DENSE_BYTES)
        self._max_open = max(limit // (9 * n + _NODE_OVERHEAD), 1)
        self._fit_kernel(X)
        self.C_, self.C_star_ = resolve_costs(self.C, self.C_star,
                                              lambda: self._sample_default_C(X))
        self.map_ = PrimalMap.fit(X, problem, kernel=self.kernel, sigma_=self.sigma_,
                                  degree=self.degree, coef0=self.coef0)
        Z = self.map_.Z
        if isinstance(Z, CentredRows):
            check_dense_memory(n, n, "centred kernel matrix")
            Z = Z.toarray()
        self._Z = Z
        self._Kt = Z @ Z.T
        self._X = X
        self._signed = problem.y
        # the caller holds the control until it draws the first state: not the fit's time
        self._budget.end_phase("setup")
        self._budget.pause()

    def labeling_objective(self, y) -> float:
        """The minimum of eq. (2) when the unlabeled points keep the labels of ``y``: the
        bottom of the convex piece (the "basin") that a labeling picks,
        ``min_w 1/2 ||w||^2 + C sum_L max(0, 1 - y_i f_i) + C* sum_U max(0, 1 - y_j f_j)``
        under (3). It is never below ``objective_`` once the minimum is proven, and equal to
        it when ``y`` labels the unlabeled points as an optimum does: pass a local solver's
        ``transduction_`` to see whether it found the global minimum's basin, whatever
        surrogate loss it minimized.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Class labels (``classes_``) of every training point; those of the labeled points
            are not read.

        Returns
        -------
        float
        """
        check_is_fitted(self, "coef_")
        y = np.asarray(y)
        n = self._signed.size
        if y.shape != (n,) or not np.all(np.isin(y, self.classes_)):
            raise ValueError(
                f"y must give one of the classes {list(self.classes_.tolist())} to each of "
                f"the {n} training points, e.g. another solver's transduction_."
            )
        search = _Search(self._Kt, self.map_.bias, self._signed, self.C_, self.C_star_,
                         max_qp_iter=10 * n + 100)
        signs = np.where(y == self.classes_[1], 1, -1)
        _, result, labels = search.leaf(signs)
        return search.labeled_value(labels, result.beta, result.u)

    def _features(self, X):
        return self.map_.features(X)

    def _postprocess(self, final, n_iter, outcome):
        super()._postprocess(final, n_iter, outcome)
        self.lower_bound_ = outcome.lower_bound
        self.gap_ = self.objective_ - outcome.lower_bound
        self.proven_ = outcome.proven
        self.n_nodes_ = outcome.n_nodes
        self.incumbent_source_ = outcome.source

    # -- the search: the generator below is the only loop ----------------------------------

    def _iterate(self, problem):
        budget = self._budget
        budget.resume()
        search = _Search(self._Kt, self.map_.bias, problem.y, self.C_, self.C_star_,
                         max_qp_iter=10 * problem.y.size + 100, out_of_time=budget.exhausted)
        labels = problem.y.astype(np.int8)
        # the root, the SVM on the labeled points alone (a QP of l points), is the least answer
        # the fit returns: solved whatever the budget, so that a model exists
        root = search.solve(labels, np.zeros(labels.size), np.zeros(labels.size),
                            within_budget=False)
        incumbent = self._best_start(search, problem, root, labels)
        budget.end_phase("starts")
        node = _Node(root.dual, root.dual, labels, root.beta, root.u)
        queue, order = [], count()
        n_nodes, reported, recorded = 0, root.dual, 0
        with budget.paused():
            yield self._state(search, incumbent, min(root.dual, incumbent.value), 0, 0, "init",
                              0)
        stopped = None
        while True:
            threshold = incumbent.value - self.tol * max(1.0, abs(incumbent.value))
            if node is None:
                if not queue or queue[0][0] >= threshold:
                    break  # every open node is pruned: the incumbent is optimal
                _, _, node = heapq.heappop(queue)
                node = node._replace(u=search.outputs_of(node.labels, node.beta))
            if node.bound >= threshold:
                node = None
                continue
            stopped = self._budget_reached(n_nodes, len(queue))
            if stopped is not None:
                heapq.heappush(queue, (node.bound, next(order), node))
                break
            n_nodes += 1
            improved = False
            value = search.value(node.labels, node.beta, node.u)
            if value < incumbent.value - 1e-12 * max(1.0, abs(incumbent.value)):
                incumbent = search.descend(node.labels, node.beta, node.u, value, "search")
                threshold = incumbent.value - self.tol * max(1.0, abs(incumbent.value))
                improved = True
            children = search.expand(node, threshold, self.branching)
            node = children[0] if children else None
            for child in children[1:]:
                heapq.heappush(queue, (child.bound, next(order), child._replace(u=None)))
            lower = min(incumbent.value, queue[0][0] if queue else math.inf,
                        node.bound if node is not None else math.inf)
            if improved or lower - reported >= _BOUND_STEP * (incumbent.value - reported):
                reported, recorded = lower, recorded + 1
                with budget.paused():
                    yield self._state(search, incumbent, lower, n_nodes, len(queue), "iter",
                                      recorded)
        budget.end_phase("search")
        if stopped is None:
            lower, proven = incumbent.value, True
        else:
            lower, proven = min(incumbent.value, queue[0][0]), False
            self._warn_budget(stopped, incumbent.value, lower, n_nodes, problem.y.size)
        yield self._state(search, incumbent, lower, n_nodes, len(queue), "final", recorded)
        return _Outcome(lower, proven, n_nodes, incumbent.source)

    def _best_start(self, search, problem, root, labels) -> _Incumbent:
        """The incumbent the search starts from: the best of the supervised solution (the
        root's) and of the starting labelings, each solved and improved by ``descend``."""
        self._starts = {}
        value = search.value(labels, root.beta, root.u)
        best = search.descend(labels, root.beta, root.u, value, "svm")
        if problem.n_unlabeled == 0:
            return best
        for source, decision in self._starting_decisions(problem):
            signs = np.where(decision >= 0.0, 1, -1)
            value, result, leaf_labels = search.leaf(signs)
            candidate = search.descend(leaf_labels, result.beta, result.u, value, source)
            if candidate.value < best.value:
                best = candidate
        return best

    def _starting_decisions(self, problem):
        """``(source, decision values on the training points)`` of each local solver of
        ``init`` and each ``start`` array, within the budget: a local solver runs through its
        ``trace`` and stops at the state where the budget is spent, giving that state's
        labeling; one that would start with less budget left than the setup took is skipped
        (its own setup, a kernel matrix of the same points and for cS3VM and ∇TSVM the same
        kernel-PCA map, costs about as much). What became of each is kept for the budget's
        warning (``self._starts``)."""
        budget = self._budget
        n_labeled, n_unlabeled = problem.n_labeled, problem.n_unlabeled
        solvers = matched_solvers(self.C_, self.C_star_, n_labeled, n_unlabeled,
                                  kernel=self.kernel, sigma=self.sigma_, degree=self.degree,
                                  coef0=self.coef0, names=self._init_names)
        # the local solvers see the classes as 0 and 1, -1 for unlabeled points
        y = np.where(problem.y > 0, 1, np.where(problem.y < 0, 0, -1))
        for name, solver in solvers.items():
            if budget.left() < budget.phases["setup"]:
                self._starts[name] = "skipped"
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # their warnings are about their own runs
                    decision, finished = _latest_decision(solver.trace(self._X, y), budget)
            except (ValueError, TypeError) as error:
                warnings.warn(f"The {name} start was skipped: {error}", SeedWarning,
                              stacklevel=5)
                self._starts[name] = "failed"
                continue
            if decision is None:
                self._starts[name] = "skipped"
                continue
            self._starts[name] = "done" if finished else "stopped"
            yield name, decision
        for index, decision in enumerate(self._start):
            if budget.exhausted():
                self._starts[f"start {index}"] = "skipped"
                continue
            self._starts[f"start {index}"] = "done"
            yield f"start {index}", decision

    def _state(self, search, incumbent: _Incumbent, lower, n_nodes, n_open, event, iteration):
        w = self._Z.T @ (incumbent.labels * incumbent.beta)
        coef, intercept = self.map_.decision_parts(np.asarray(w, dtype=float))
        return SolverState(
            stage="bound", stage_value=incumbent.value - lower, iteration=iteration, event=event,
            coef=coef, intercept=intercept, objective=incumbent.value,
            train_decision=incumbent.u + search.b,
            extras={"lower_bound": lower, "n_nodes": n_nodes, "n_open": n_open},
        )

    def _budget_reached(self, n_nodes, n_open) -> str | None:
        """Which budget stops the search now: ``"max_nodes"``, ``"max_time"``, ``"memory"``
        (the open nodes filled the memory allowed), or None."""
        if n_nodes >= self.max_nodes:
            return "max_nodes"
        if self._budget.exhausted():
            return "max_time"
        if n_open >= self._max_open:
            return "memory"
        return None

    def _warn_budget(self, stopped, value, lower, n_nodes, n_points) -> None:
        limit = {"max_nodes": f"max_nodes={self.max_nodes} nodes",
                 "max_time": f"max_time={self.max_time:g} s of process CPU time",
                 "memory": f"{self._max_open} open nodes, all the memory allowed "
                           f"({self._memory_origin})"}[stopped]
        advice = ("Allow more memory" if stopped == "memory" else f"Increase {stopped}")
        gap = value - lower
        warnings.warn(
            f"Branch and bound stopped at {limit} before proving the optimum; it spent "
            f"{self._spending(n_nodes, n_points)}. The returned objective {value:.6g} is at "
            f"most {gap:.3g} ({100 * gap / max(abs(value), np.finfo(float).tiny):.3g} %) "
            f"above the global minimum (certified lower bound {lower:.6g}). {advice}, or use "
            "fewer unlabeled points.", ConvergenceWarning, stacklevel=3,
        )

    def _spending(self, n_nodes, n_points) -> str:
        """Where the fit's CPU seconds went, in words: the setup, the starting solutions
        (what became of each local solver of ``init``), the search."""
        phases = self._budget.phases
        fates = {}
        for name, fate in self._starts.items():
            fates.setdefault(fate, []).append(name)
        words = {"done": "run", "stopped": "stopped by the budget", "failed": "failed",
                 "skipped": "skipped for want of budget"}
        starts = "; ".join(f"{', '.join(names)} {words[fate]}" for fate, names in fates.items())
        return (f"{sum(phases.values()):.2f} s of process CPU time: {phases['setup']:.2f} s "
                f"setting up the kernel of {n_points} points, {phases['starts']:.2f} s on the "
                f"starting solutions{' (' + starts + ')' if starts else ''}, "
                f"{phases['search']:.2f} s searching {n_nodes} nodes")


def _latest_decision(states, budget) -> tuple[np.ndarray | None, bool]:
    """Run a local solver's ``trace`` until its end or until the budget is spent: the
    decision values of its last state on the training points (None before its first, its
    "setup" states carry no model), and whether it ended."""
    decision = None
    for state in states:
        if state.stage != "setup":
            decision = state.train_decision
        if state.event == "final":
            return decision, True
        if budget.exhausted():
            states.close()
            return decision, False
    return decision, True


class _CpuBudget:
    """The process CPU seconds a fit spends (``time.process_time``, every thread of the
    process), against its ``max_time``, without those spent while it is paused: while the
    caller holds the control between two states of the trace. ``phases`` keeps the seconds
    of each part of the fit as it ends (``end_phase``)."""

    def __init__(self, seconds: float):
        self.seconds = float(seconds)
        self.phases = {}
        self._start = time.process_time()
        self._paused = 0.0
        self._paused_at = None
        self._phase_start = 0.0

    def spent(self) -> float:
        now = time.process_time() if self._paused_at is None else self._paused_at
        return now - self._start - self._paused

    def left(self) -> float:
        return self.seconds - self.spent()

    def exhausted(self) -> bool:
        return self.spent() >= self.seconds

    def end_phase(self, name: str) -> None:
        spent = self.spent()
        self.phases[name] = spent - self._phase_start
        self._phase_start = spent

    def pause(self) -> None:
        if self._paused_at is None:
            self._paused_at = time.process_time()

    def resume(self) -> None:
        if self._paused_at is not None:
            self._paused += time.process_time() - self._paused_at
            self._paused_at = None

    @contextmanager
    def paused(self):
        self.pause()
        try:
            yield
        finally:
            self.resume()


def _check_init(init) -> tuple[str, ...]:
    names = ("svm", *LOCAL_SOLVERS)
    values = list(init)
    bad = [value for value in values if not isinstance(value, str) or value not in names]
    if bad:
        raise ValueError(
            f"init={init!r} names {bad[0]!r}, which is not a local solver of the common "
            f"objective; give a tuple of names among {', '.join(map(repr, names))}, or () to "
            "start from the supervised solution alone."
        )
    return tuple(dict.fromkeys(values))


def _check_start(start, n: int) -> list[np.ndarray]:
    if start is None:
        return []
    arrays = [start] if isinstance(start, np.ndarray) and start.ndim == 1 else list(start)
    checked = []
    for index, values in enumerate(arrays):
        try:
            values = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            values = np.array([math.nan])
        if values.shape != (n,) or not np.all(np.isfinite(values)):
            raise ValueError(
                f"start[{index}] must hold one finite decision value per training point "
                f"({n}), e.g. another solver's decision_function(X); got shape "
                f"{values.shape}."
            )
        checked.append(values)
    return checked
