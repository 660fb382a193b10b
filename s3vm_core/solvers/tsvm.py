"""Transductive SVMs of the LDS paper (Chapelle & Zien, AISTATS 2005) and Joachims' baseline.

* ``GradientTSVM`` (∇TSVM): objective (4) minimized in the primal by gradient descent, under the
  balancing constraint (5), with C* annealed as in Algorithm 1, lines 7–9.
* ``LDS``: rho-path distances (Algorithm 1, steps 1–3), classical MDS with threshold (6)
  (steps 4–6), then ∇TSVM on the embedding (steps 7–10).
* ``GraphKernelSVM``: the paper's "graph" method, an SVM on ``K = exp(-D^rho / 2 sigma^2)``.
* ``LabelSwitchingTSVM``: Joachims' TSVM (SVMlight), the "TSVM" column of the LDS paper's
  Table 2, which alternately raises C* and swaps pairs of putative labels.

The primal objective and its feature map live in ``s3vm_core.solvers.primal`` (shared with
cS3VM); the graph distances and MDS in ``s3vm_core.graph``.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from s3vm_core.base import (
    KERNEL_CONSTRAINTS,
    S3VMClassifier,
    cost,
    iteration_limit,
    resolve_costs,
)
from s3vm_core.diagnostics import LABEL_PROPORTIONS, LBFGS_TOL, SMALL_COST, WIDE_KERNEL
from s3vm_core.graph import (
    Steps,
    classical_mds,
    rho_path_distance_steps,
    rho_path_distances_from,
    rho_path_distances_to,
)
from s3vm_core.kernels import (
    check_rbf_width,
    default_C,
    default_sample,
    gaussian,
    quantile_sigma,
    sample_default_C,
    select_landmarks,
)
from s3vm_core.losses import hinge
from s3vm_core.solvers.finite_newton import squared_hinge_mfn, squared_row_norms
from s3vm_core.solvers.lbfgs import lbfgs_schedule
from s3vm_core.solvers.primal import SUBSET_ADVICE, PrimalMap, s3vm_objective
from s3vm_core.solvers.svm import (
    KernelDesign,
    LinearDesign,
    fit_libsvm,
    svm_states,
    warn_libsvm_cap,
)
from s3vm_core.solvers.weighted_hinge import (
    DualStart,
    KernelColumns,
    WeightedHingeDual,
    seeded_start,
)
from s3vm_core.trace import SolverState

#: Seed of the landmark points of ``GradientTSVM(n_components=p)``: a fit is reproducible.
LANDMARK_SEED = 0
#: Width of the unlabeled loss ``L*(t) = exp(-3 t^2)`` of eq. (4); fixed by the paper.
S_UNLABELED = 3.0

#: Number of C* stages of Algorithm 1, lines 7–9: ``C* = 2^(i-10) C`` for i = 0..10.
N_C_STAR_STAGES = 11

#: Joachims' starting value of C*_- (SVMlight's TSVM, his Figure 2), doubled every round.
_JOACHIMS_C_STAR_START = 1e-5
_JOACHIMS_C_STAR_RATE = 2.0
#: Sindhwani & Keerthi's (2006) multi-switch TSVM, as their svmlin runs it: the unlabeled
#: points start at 1e-5 of the labeled points' total weight (svmlin's ``TSVM_LAMBDA_SMALL``,
#: lambda' = 1e-5 against the labeled points' 1), raised by 1.5 every round
#: (``TSVM_ANNEALING_RATE``).
_SVMLIN_C_STAR_START = 1e-5
_SVMLIN_C_STAR_RATE = 1.5


class GradientTSVM(S3VMClassifier):
    """∇TSVM: the TSVM objective (4) of the LDS paper minimized by gradient descent in the primal.

    Minimizes, for each C* of the schedule,

    ``1/2 ||w||^2 + C sum_labeled max(0, 1 - y_i f_i)^2 + C* sum_unlabeled exp(-3 f_i^2)``

    (eq. (4)) with ``f_i = <w, x~_i> + b`` under the balancing constraint (5),
    ``mean_unlabeled f = mean_labeled y``. As in the cS3VM paper §2.2, the constraint is enforced
    exactly by centring the points on the mean of the unlabeled ones in feature space and fixing
    ``b`` to the mean labeled label; a non-linear kernel enters through the kernel-PCA
    coordinates ``x~`` (LDS paper §2.2, last paragraph; cS3VM paper §2.3), see
    ``s3vm_core.solvers.primal.PrimalMap``.

    C* is annealed as ``C* = 2^(i-10) C_star`` for i = 0..10 (Algorithm 1, lines 7–9, with the
    final value ``C_star = C`` of the paper), each stage warm-started at the previous minimizer,
    the first at ``w = 0``.

    Minimization: scipy's L-BFGS-B (no bounds). The paper used Rasmussen's conjugate gradient
    (§2.3, footnote 3); L-BFGS is its quasi-Newton counterpart for the same smooth objective,
    needs fewer gradient evaluations here, and its Wolfe line search makes the objective decrease
    at every recorded iteration, which the trace shows. A stage stops when the projected
    gradient's largest entry is below ``tol`` or after ``max_iter`` iterations
    (``ConvergenceWarning``).

    Parameters
    ----------
    C : float in [1e-10, 1e10] or None, default=None
        Cost of the labeled losses. ``None``: the inverse empirical variance of the data in
        feature space, ``1 / s^2`` (LDS paper §2.3.2). The bounds are those of every cost
        (``base.COST_RANGE``), as for ``C_star``.
    C_star : float or None, default=None
        Final cost of the unlabeled losses. ``None``: ``C`` (Algorithm 1, line 8).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    sigma : float or None, default=None
        RBF width; ``None`` is the median pairwise distance (LDS paper §2.3.2, c = 2).
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    n_components : int or None, default=None
        Keep only the leading ``p`` kernel principal components (all by default). As in the
        cS3VM paper §5.2 (and ``ContinuationS3VM``), they come from the kernel PCA of ``p``
        training points drawn at random (seeded: the same points at every fit), O(p^3 + p^2 n)
        instead of the O(n^3) eigendecomposition of the whole kernel matrix.
    max_iter : int, default=500
        L-BFGS iterations per C* stage (at most ``base.ITERATION_LIMIT``).
    tol : float, default=1e-6
        L-BFGS-B's ``gtol`` for each stage.

    Attributes
    ----------
    C_, C_star_, sigma_ : the values used.
    map_ : PrimalMap
        The centred kernel-PCA coordinates and the fixed bias ``b``.
    coef_ : ndarray of shape (p,)
        ``w`` in those coordinates; ``features(X) = map_.transform(X)``. With
        ``kernel="linear"``, ``features(X) = X`` (scipy.sparse input stays sparse and no
        n x n matrix is formed) and ``coef_`` is ``w`` over the input features.
    intercept_ : float
        ``b``, the mean labeled label in the {-1, +1} coding (minus ``<w, unlabeled mean>``
        for the linear kernel, whose centring is folded into the intercept).
    classes_, transduction_, objective_, n_iter_

    Trace: stage ``"C_star"`` (stage_value is C*), one "iter" state per L-BFGS iteration,
    "stage_end" at each stage's minimizer; "init" is ``w = 0``; "final" repeats the last
    stage's end (its C* and its number of iterations). ``extras["C_star"]`` repeats C*.
    """

    _degenerate_causes = {"tol": LBFGS_TOL, "C": SMALL_COST, "sigma": WIDE_KERNEL}
    _too_large = SUBSET_ADVICE
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "C": [cost("C"), None],
        "C_star": [cost("C*"), None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [iteration_limit(500)],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, C=None, C_star=None, kernel="rbf", sigma=None, degree=3, coef0=1.0,
                 n_components=None, max_iter=500, tol=1e-6):
        self.C = C
        self.C_star = C_star
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol

    # -- setup: the representation, then the primal map ----------------------------------

    def _setup(self, problem):
        X = problem.X
        self._fit_kernel(X)
        self.C_, self.C_star_ = resolve_costs(self.C, self.C_star,
                                              lambda: self._sample_default_C(X))
        n, landmarks = X.shape[0], None  # X may be scipy.sparse (linear kernel)
        if self.n_components is not None and self.n_components < n and self.kernel != "linear":
            landmarks = select_landmarks(n, self.n_components, LANDMARK_SEED)
        self.map_ = PrimalMap.fit(X, problem, kernel=self.kernel, sigma_=self.sigma_,
                                  degree=self.degree, coef0=self.coef0,
                                  n_components=self.n_components, landmarks=landmarks)

    def _features(self, X):
        return self.map_.features(X)

    def _balance_from_labels(self):
        return ("The balance constraint (5) sets the mean output on the unlabeled points to the "
                f"mean label. {LABEL_PROPORTIONS}")

    # -- the C* schedule (Algorithm 1, lines 7-9) -----------------------------------------

    def _iterate(self, problem):
        Z, bias = self.map_.Z, self.map_.bias
        y = problem.y.astype(float)
        schedule = self.C_star_ * 2.0 ** (np.arange(N_C_STAR_STAGES) - (N_C_STAR_STAGES - 1))

        def evaluate(c_star):
            return lambda w: s3vm_objective(w, Z, y, C=self.C_, C_star=c_star, s=S_UNLABELED,
                                            bias=bias)

        def state(w, value_grad, index, c_star, iteration, event):
            value, grad = value_grad
            coef, intercept = self.map_.decision_parts(w)
            return SolverState(
                stage="C_star", stage_index=index, stage_value=c_star, iteration=iteration,
                event=event, coef=coef, intercept=intercept, objective=value,
                grad_norm=float(np.linalg.norm(grad)), train_decision=Z @ w + bias,
                extras={"C_star": c_star},
            )

        end = yield from lbfgs_schedule(
            schedule, evaluate, np.zeros(Z.shape[1]),
            lambda p: state(p.x, p.evaluation, p.stage_index, p.stage_value, p.iteration,
                            p.event),
            solver=type(self).__name__, parameter="C*", max_iter=self.max_iter, tol=self.tol)
        # the answer is the last stage's minimizer, reached after that stage's iterations
        yield state(end.x, end.evaluation, end.stage_index, end.stage_value, end.iteration,
                    "final")


#: Constraints of the rho-path graph (LDS paper §2.1): rho in [0, inf], k-NN or full graph.
_GRAPH_CONSTRAINTS = {
    "rho": [Interval(Real, 0, np.inf, closed="both")],
    "n_neighbors": [Interval(Integral, 1, None, closed="left"), None],
    "bridge": ["boolean"],
    "n_landmarks": [Interval(Integral, 2, None, closed="left"), None],
}


def _landmark_paths(estimator, X, extra_sources=()):
    """The landmark form's path distances: ``landmarks`` (``n_landmarks`` training points
    drawn at random, seeded, all of them when there are fewer) and the distances from
    ``extra_sources`` and the landmarks to every point, as columns (n x sources)."""
    n = X.shape[0]
    landmarks = select_landmarks(n, min(estimator.n_landmarks, n), LANDMARK_SEED)
    sources = np.r_[np.asarray(extra_sources, dtype=int), landmarks]
    P = rho_path_distances_from(X, estimator.rho, sources, n_neighbors=estimator.n_neighbors,
                                bridge=estimator.bridge)
    return landmarks, np.ascontiguousarray(P.T)


class LDS(GradientTSVM):
    """Low Density Separation: ∇TSVM on the MDS embedding of rho-path distances.

    Algorithm 1 of the LDS paper: (1–3) the minimal rho-path distances
    ``(1/rho) log(1 + d_SP)`` on the fully connected graph with edge lengths
    ``exp(rho d) - 1`` (``s3vm_core.graph.rho_path_distances``); (4–6) classical MDS of their
    squares keeping ``p`` components by threshold (6) (``s3vm_core.graph.classical_mds``);
    (7–10) ``GradientTSVM`` with the linear kernel on that embedding — the paper fixes
    ``sigma = inf``, ``k = n + m`` and ``delta = 0.1`` (§2.3.2).

    ``features(X_new)`` needs the embedding of points that were not in the graph. It uses the
    out-of-sample extension documented in ``s3vm_core.graph.rho_path_distances_to`` (paths leave
    a new point through the direct edge or one of its 10 nearest training points) followed by
    the landmark-MDS formula (``MDSMap.transform``). For the training points both steps are
    exact, so the drawn boundary passes through the training decisions; between them it is an
    approximation of what a refit with the new point would give.

    Parameters
    ----------
    C : float or None, default=None
        Cost of the labeled losses; ``None``: ``1 / s^2``, the inverse empirical variance of the
        embedding (§2.3.2).
    rho : float in [0, inf], default=1.0
        Softening of the max in eq. (2); 0 gives Euclidean distances (then LDS is ∇TSVM with a
        linear kernel on the centred, PCA-rotated data), ``np.inf`` the minimax path distance
        of eq. (1). The paper selects it by cross-validation from {0, 1, 2, 4, 8, 16, inf}
        (§3.2); ``rho * max distance`` must stay below 690 (float64 range).
    delta : float in (0, 1), default=0.1
        The MDS threshold (6): at least a fraction ``1 - delta`` of the positive spectrum is
        kept and components are added until ``lam_p <= delta lam_1`` (§2.3.2: 0.1).
    C_star : float or None, default=None
        Final C*; ``None``: ``C`` (Algorithm 1, line 8).
    n_neighbors : int or None, default=None
        ``None``: the fully connected graph of Algorithm 1 (``k = n + m``). An integer builds
        the symmetric k-NN graph of §2.1 instead (faster shortest paths, may disconnect).
    bridge : bool, default=False
        With ``n_neighbors``: join the pieces of a disconnected k-NN graph by their shortest
        edges (``s3vm_core.graph.bridge_pieces``) instead of refusing it.
    max_components : int or None, default=None
        ``None``: the full eigendecomposition of Algorithm 1, step 5. An integer computes only
        that many leading MDS components by a truncated eigensolver (the scalable form, see
        ``s3vm_core.graph.classical_mds``); threshold (6) then chooses among them.
    n_landmarks : int or None, default=None
        ``None``: every pair's path distance (Algorithm 1, steps 1-3), an n x n matrix. An
        integer m is the landmark form, O(n m) memory: Dijkstra runs from m training points
        drawn at random (seeded) on the k-NN graph (it needs ``n_neighbors``; one run a
        source, as the paper's §2.3.1 counts them), classical MDS with threshold (6) of the
        m x m landmark distances, and every point placed by landmark MDS (de Silva and
        Tenenbaum 2004), the out-of-sample formula of ``MDSMap.transform`` that
        ``features`` uses for new points. The departure (docs/deviations.md): the paper
        embeds all points by one eigendecomposition; here the landmarks fix the axes and
        the other points are triangulated from their distances to them, exact when the
        squared path distances are Euclidean in the kept dimensions. Two moons at n = 400
        (tests): the same transduction as the exact form on the same k-NN graph with 100
        landmarks.
    max_iter, tol : as for ``GradientTSVM`` (per C* stage).

    Attributes
    ----------
    path_distances_ : ndarray of shape (n, n), or (n, n_landmarks)
        The rho-path distances ``P`` (the paper's ``D^rho`` is ``P**2``); in the landmark
        form those to the landmarks.
    landmarks_ : ndarray of shape (n_landmarks,)
        The landmark form only: the indices of the landmark points.
    mds_ : MDSMap
        The embedding, its eigenvalues and the out-of-sample projection (the landmarks'
        MDS in the landmark form).
    n_components_ : int
        ``p`` chosen by threshold (6).
    C_, C_star_, map_, coef_, intercept_, classes_, transduction_, objective_, n_iter_
        As for ``GradientTSVM`` (``map_`` acts on the MDS coordinates).

    Trace: from ``base.SETUP_PROGRESS_FROM`` points (1,000) on, first the "setup" states of
    its long steps (no model yet, decision 0): phase
    (``stage_index``) 0 reports the path distances after each block of 128 sources of
    Dijkstra (on the full graph's unbeaten edges or the k-NN graph), ``extras["done"]``
    of ``extras["total"]`` blocks; phase 1 comes once, before the MDS eigendecomposition.
    ``features()`` called before them runs the setup at once, and the trace then has none.
    Then as ``GradientTSVM`` (stage ``"C_star"``).
    """

    _degenerate_causes = {"tol": LBFGS_TOL, "C": SMALL_COST}
    _sparse_kernels = ()  # rho-path distances and MDS work on dense points
    _too_large = ("Use n_landmarks with n_neighbors (path distances from landmark points "
                  "only), or fewer points: LDS keeps the path distance of every pair of points.")
    _parameter_constraints = {
        **_GRAPH_CONSTRAINTS,
        "C": [cost("C"), None],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "max_components": [Interval(Integral, 1, None, closed="left"), None],
        "C_star": [cost("C*"), None],
        "max_iter": [iteration_limit(500)],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, C=None, rho=1.0, delta=0.1, C_star=None, n_neighbors=None,
                 bridge=False, max_components=None, n_landmarks=None, max_iter=500, tol=1e-6):
        self.C = C
        self.bridge = bridge
        self.max_components = max_components
        self.n_landmarks = n_landmarks
        self.rho = rho
        self.delta = delta
        self.C_star = C_star
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol

    def _setup(self, problem):
        X = problem.X
        self.X_fit_ = X
        if self.n_landmarks is None:
            paths = rho_path_distance_steps(X, self.rho, n_neighbors=self.n_neighbors,
                                            bridge=self.bridge)
        else:  # from the landmarks only, O(n m): quick, in one step
            self.landmarks_, P = _landmark_paths(self, X)
            paths = Steps.finished(P)
        return self._embedding(problem, paths)

    def _embedding(self, problem, paths):
        """Algorithm 1, steps 1-6, reporting progress: phase 0 the path distances (``done``
        of ``total`` blocks of sources of Dijkstra), phase 1 the MDS (one report
        before its eigendecomposition, which gives none of its own). The landmark form embeds
        the landmarks by MDS and every point by the out-of-sample formula."""
        for done, total in paths:
            yield 0, done, total
        self.path_distances_ = paths.result
        yield 1, 0, 1
        if self.n_landmarks is None:
            self.mds_ = classical_mds(self.path_distances_**2, self.delta, self.max_components)
            E = self.mds_.embedding
        else:
            self.mds_ = classical_mds(self.path_distances_[self.landmarks_] ** 2, self.delta,
                                      self.max_components)
            E = self.mds_.transform(self.path_distances_**2)
        self.n_components_ = E.shape[1]
        self.C_, self.C_star_ = resolve_costs(self.C, self.C_star,
                                              lambda: sample_default_C(E, "linear"))
        self.map_ = PrimalMap.fit(E, problem, kernel="linear", sigma_=None)

    def embed(self, X) -> np.ndarray:
        """MDS coordinates of new points (out-of-sample extension; exact for training points)."""
        self._finish_setup()
        P_new = rho_path_distances_to(X, self.X_fit_, self.path_distances_, self.rho,
                                      n_neighbors=self.n_neighbors,
                                      columns=getattr(self, "landmarks_", None))
        return self.mds_.transform(P_new**2)

    def _features(self, X):
        return self.map_.features(self.embed(X))


class GraphKernelSVM(S3VMClassifier):
    """The LDS paper's "graph" method: an SVM with the rho-path kernel ``exp(-D^rho / 2 sigma^2)``.

    Steps 1–4 of §2.1.2: rho-path distances over all (labeled and unlabeled) points, the kernel
    ``K_ij = exp(-D^rho_ij / (2 sigma^2))`` with ``D^rho`` the squared path distances, and a
    standard SVM (scikit-learn's ``SVC``, LIBSVM, precomputed kernel) on the labeled points. The
    unlabeled points act only through the distances. ``K`` need not be positive definite for
    0 < rho < inf (Table 1); LIBSVM still converges in practice, as the paper reports.

    ``sigma=np.inf`` is the linear case the paper's experiments use (§2.1.2 step 3, §3.2:
    "we here fix the linear kernel (sigma = inf)"): ``K = -1/2 H^n D^rho H^{n+m}``, the squared
    path distances double-centred on the labeled points,
    ``K(x, j) = -1/2 (D(x, j) - mean_k D(x, k) - mean_k D(k, j) + mean_kl D(k, l))`` with k, l
    over the labeled points. It needs only the distances to the labeled points, and it is
    positive semi-definite for rho = 0 and rho = inf (§2.1.2, remark 3).

    Parameters
    ----------
    C : float in [1e-10, 1e10] or None, default=None
        ``None``: ``1 / s^2`` from the kernel matrix (§2.3.2). LIBSVM stops at
        ``svm.fit_libsvm``'s iteration cap, with a ``ConvergenceWarning``.
    rho : float in [0, inf], default=1.0
        As for ``LDS``; ``rho = 0`` is the plain RBF SVM (or, with ``sigma = inf``, the linear
        SVM).
    sigma : float in (0, inf] or None, default=None
        ``None``: the median of the pairwise path distances (§2.3.2, "the 1/c quantile of the
        pairwise distances D^rho", c = 2). ``np.inf``: the linear kernel above, the paper's
        setting (§3.2).
    n_neighbors, bridge : as for ``LDS``.
    n_landmarks : int or None, default=None
        ``None``: every pair's path distance, an n x n matrix. An integer m is the scalable
        form the paper itself points to (§2.3.1: "for graph an n x (n+m) part is
        sufficient"): Dijkstra runs on the k-NN graph (it needs ``n_neighbors``) from the
        labeled points, which is all the SVM and ``features`` use, and from m training
        points drawn at random (seeded), on which the defaults are estimated: sigma as the
        median of the m x n path distances from them (§2.3.2's quantile, of a sample of the
        pairs), C from the kernel among them (as the exact form does on its
        ``default_sample``). O(n (l + m)) memory; with sigma and C given, the model is the
        exact form's on the same graph. The departure (docs/deviations.md): the defaults
        come from a sample of the pairs.

    Attributes
    ----------
    path_distances_ : ndarray of shape (n, n), or (n, n_labeled)
        The rho-path distances; in the landmark form those to the labeled points.
    landmarks_ : ndarray of shape (n_landmarks,)
        The landmark form only: the indices of the landmark points.
    sigma_, C_
    coef_ : ndarray of shape (n_labeled,)
        Signed dual coefficients; ``features(X) = exp(-P(X, labeled)^2 / (2 sigma^2))`` (or its
        centred linear counterpart) with the out-of-sample path distances of
        ``s3vm_core.graph.rho_path_distances_to``.
    intercept_, classes_, transduction_, objective_

    Trace: from 1,000 points on, first the "setup" states of the path distances, as for
    ``LDS`` (phase 0 only);
    then stage ``"fit"``: "init" (f = 0) and the "final" SVM.
    """

    _degenerate_causes = {"C": SMALL_COST, "sigma": WIDE_KERNEL}
    _sparse_kernels = ()
    _parameter_constraints = {
        **_GRAPH_CONSTRAINTS,
        "C": [cost("C"), None],
        "sigma": [Interval(Real, 0, np.inf, closed="right"), None],
    }

    def __init__(self, C=None, rho=1.0, sigma=None, n_neighbors=None, bridge=False,
                 n_landmarks=None):
        self.C = C
        self.bridge = bridge
        self.n_landmarks = n_landmarks
        self.rho = rho
        self.sigma = sigma
        self.n_neighbors = n_neighbors

    def _setup(self, problem):
        X = problem.X
        self.X_fit_ = X
        self._labeled = np.flatnonzero(problem.labeled)
        if self.n_landmarks is None:
            paths = rho_path_distance_steps(X, self.rho, n_neighbors=self.n_neighbors,
                                            bridge=self.bridge)
        else:
            # from the labeled points, then from the landmarks: n x (l + m), quick, in one step
            self.landmarks_, P = _landmark_paths(self, X, self._labeled)
            paths = Steps.finished(P)
        return self._graph_kernel_steps(paths)

    def _graph_kernel_steps(self, paths):
        """Steps 1-3 of §2.1.2, reporting progress: phase 0 the path distances (``done`` of
        ``total`` blocks of sources of Dijkstra)."""
        for done, total in paths:
            yield 0, done, total
        labeled = self._labeled
        P = paths.result
        if self.n_landmarks is None:
            self.path_distances_ = P
            rows = default_sample(len(P))
            self.sigma_ = quantile_sigma(P) if self.sigma is None else float(self.sigma)
            P_labeled, P_sample = P[:, labeled], P[rows][:, rows]
        else:
            rows = self.landmarks_
            P_labeled, P_rows = P[:, :labeled.size], P[:, labeled.size:]
            self.path_distances_ = P_labeled
            self.sigma_ = quantile_sigma(P_rows) if self.sigma is None else float(self.sigma)
            P_sample = P_rows[rows]
        D_labeled = P_labeled[labeled] ** 2
        # The centring of the linear case: mean_k D(k, j) over labeled k, and the grand mean.
        self._labeled_means = D_labeled.mean(axis=0)
        self._labeled_grand_mean = float(D_labeled.mean())
        K_sample = self._graph_kernel(P_sample, P_labeled[rows], P_labeled[rows])
        if np.isfinite(self.sigma_):
            check_rbf_width(P_sample**2, self.sigma_)
        self.C_, _ = resolve_costs(self.C, default_C=lambda: default_C(K_sample))
        self._K_train = self._graph_kernel(P_labeled, P_labeled)

    def _graph_kernel(self, P, P_rows_labeled, P_cols_labeled=None):
        """The kernel between two sets of points from their path distances ``P`` (rows x
        columns) and the distances of the rows (and of the columns, when they are not the
        labeled points themselves) to the labeled points."""
        if np.isfinite(self.sigma_):
            return gaussian(P**2, self.sigma_)
        row_means = (P_rows_labeled**2).mean(axis=1)
        col_means = (self._labeled_means if P_cols_labeled is None
                     else (P_cols_labeled**2).mean(axis=1))
        return -0.5 * (P**2 - row_means[:, None] - col_means[None, :]
                       + self._labeled_grand_mean)

    def _features(self, X):
        P_new = rho_path_distances_to(X, self.X_fit_, self.path_distances_, self.rho,
                                      n_neighbors=self.n_neighbors, columns=self._labeled)
        return self._graph_kernel(P_new, P_new)  # the columns are the labeled points

    def _iterate(self, problem):
        return svm_states(KernelDesign(self._K_train, np.flatnonzero(problem.labeled)), problem,
                          self.C_)


class _SwitchState(NamedTuple):
    """What label switching carries from one SVM retraining to the next. The steps of
    ``LabelSwitchingTSVM`` return a new state and change nothing else."""

    coef: np.ndarray
    intercept: float
    decision: np.ndarray          # f on every training point
    labels: np.ndarray            # the labels, putative ones on the unlabeled points
    costs: np.ndarray             # C on the labeled points, C*_+ or C*_- by putative label
    c_minus: float                # C*_- and C*_+ of the current round
    c_plus: float
    stage: int                    # index of the C* round
    iteration: int                # retrainings in this round
    retrainings: int              # in all, the supervised SVM of step 1 included
    n_swaps: int                  # label pairs swapped so far
    capped_solves: int            # LIBSVM solves stopped at their iteration cap
    dual_start: DualStart | None  # where the kernel hinge SVM's active set ended


class LabelSwitchingTSVM(S3VMClassifier):
    """Joachims' transductive SVM (SVMlight's TSVM, ICML 1999, his Figure 2): label switching.

    1. Train an SVM on the labeled points; label the unlabeled ones by its outputs so that the
       class ratio of the labeled set is kept (the ``num+`` largest outputs become positive).
    2. Start with ``C*_- = 1e-5`` and ``C*_+ = 1e-5 num+ / (m - num+)``. Retrain the SVM on all
       points (labeled cost C, unlabeled cost C*_+ or C*_- by putative label) and, while a
       positive and a negative unlabeled point both have slack and their slacks sum to more than
       2, swap their labels and retrain. Then double C*_- and C*_+ (capped at C*) and repeat;
       the last round runs at ``C*_- = C*_+ = C*``.

    ``switching="single"`` swaps one pair per retraining, the pair with the largest slacks
    (Joachims allows any violating pair): this is SVMlight, the "TSVM" column of the LDS paper's
    Table 2, the JTSVM of the DA paper's Table 2 and the S3VM^light of the cS3VM paper; it
    commits to a labeling at the first step and gets stuck in local minima.
    ``switching="multi"`` swaps, per retraining, every pair that pairs the k-th largest
    positive slack with the k-th largest negative one while their sum exceeds 2 (the
    multi-switch TSVM of Sindhwani & Keerthi 2006, the DA paper's linear reference): far fewer
    retrainings on large data. A swap of such a pair lowers the objective for either loss.

    Sindhwani & Keerthi's multi-switch TSVM (*Large Scale Semi-supervised Linear SVMs*, SIGIR
    2006; their program svmlin, ``-A 2``) differs from Joachims' in four choices, each an
    option here: the positive fraction of the unlabeled points is given (``r``, svmlin's
    ``-R``) rather than taken from the labels; at most ``max_switches`` pairs are swapped per
    retraining (``-S``); C*, the same for both putative classes, starts where the unlabeled
    points together weigh 1e-5 of the labeled ones and grows by 1.5 a round
    (``schedule="svmlin"``); and the bias is the weight of a constant feature, regularized with
    ``w`` (``intercept="regularized"``). ``LabelSwitchingTSVM(kernel="linear",
    loss="squared_hinge", switching="multi", r=R, max_switches=S, schedule="svmlin",
    intercept="regularized", C=1/(2 l W), C_star=U/(2 u W))`` minimizes svmlin's
    ``W/2 ||[w, b]||^2 + 1/(2l) sum_L max(0, 1 - y o)^2 + U/(2u) sum_U max(0, 1 - y o)^2``
    (divided by W) along svmlin's path (``s3vm svmlin -A 2``).

    The retraining is LIBSVM (scikit-learn's ``SVC``, precomputed kernel, sample weights) for
    the hinge loss; with ``kernel="linear"`` it works in the primal on ``X`` itself (LIBSVM's
    linear kernel for the hinge, L2-SVM-MFN for the squared hinge, see
    ``s3vm_core.solvers.finite_newton``), warm-started at the previous ``w``, and accepts
    scipy.sparse input without densifying it.

    Parameters
    ----------
    C : float in [1e-10, 1e10] or None, default=None
        ``None``: ``1 / s^2`` (LDS paper §2.3.2).
    C_star : float in [1e-10, 1e10] or None, default=None
        Final unlabeled cost; ``None``: ``C`` (as ∇TSVM, LDS paper §2.2).
    kernel, sigma, degree, coef0 : as for ``GradientTSVM`` (default sigma: median distance).
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The SVM's loss: ``max(0, 1 - t)`` as in SVMlight, or ``max(0, 1 - t)^2`` (the L2-SVM of
        Sindhwani & Keerthi 2006), which needs ``kernel="linear"``. The objective is
        ``1/2 ||w||^2 + C sum_labeled loss + sum_unlabeled C*_(+/-) loss`` with an
        unregularized bias in both cases.
    switching : {"single", "multi"}, default="single"
        One swapped pair per retraining (Joachims, the papers' baseline) or all violating
        pairs at once (Sindhwani & Keerthi 2006).
    r : float in (0, 1) or None, default=None
        Fraction of the unlabeled points given the positive class ``classes_[1]`` in step 1,
        which every swap keeps: the ``u - floor((1 - r) u)`` largest outputs become positive,
        as svmlin's ``-R`` (Sindhwani & Keerthi 2006). ``None``: the labeled points' class
        ratio, ``num+ = round(u l+ / l)`` (Joachims' Figure 2).
    max_switches : int >= 0 or None, default=None
        With ``switching="multi"``: most pairs swapped per retraining, the largest slacks
        first (svmlin's ``-S``, 10,000 there; 0 keeps the labels of step 1). ``None``: every
        qualifying pair.
    schedule : {"joachims", "svmlin"}, default="joachims"
        The C* rounds. "joachims": ``C*_- = 1e-5``, ``C*_+ = 1e-5 num+ / (u - num+)``,
        doubled every round (his Figure 2). "svmlin": ``C*_- = C*_+ = 1e-5 C l / u`` (the
        unlabeled points together weigh 1e-5 of the labeled ones: svmlin's lambda' = 1e-5),
        times 1.5 every round (Sindhwani & Keerthi 2006, svmlin's ``TSVM_LAMBDA_SMALL`` and
        ``TSVM_ANNEALING_RATE``), starting at C* if that is smaller. Both end with a round
        at ``C*_- = C*_+ = C*``.
    intercept : {"free", "regularized"}, default="free"
        "free": an unregularized bias, as LIBSVM's. "regularized": the bias is the weight of
        a constant feature 1 appended to every point, inside ``1/2 ||w||^2`` (svmlin's bias,
        Sindhwani & Keerthi 2006); it needs ``loss="squared_hinge"``. ``coef_`` stays over the
        input features and ``intercept_`` is that weight.
    max_iter : int, default=2000
        Largest number of SVM retrainings (``ConvergenceWarning`` when reached; at most
        ``base.ITERATION_LIMIT``). Each retraining stops at ``svm.fit_libsvm``'s iteration
        cap, and one ``ConvergenceWarning`` counts those that did.

    Attributes
    ----------
    C_, C_star_, sigma_
    coef_ : ndarray of shape (n,) or (n_features,)
        Signed dual coefficients over all training points, ``features(X) = k(X, X_train)``;
        with ``kernel="linear"``, ``w`` and ``features(X) = X``.
    intercept_, classes_, transduction_, objective_ (the TSVM objective (3) with the loss)
    n_swaps_ : int
        Label pairs swapped.

    Trace: stage ``"C_star"`` (stage_value is ``max(C*_-, C*_+)``; extras ``"C_star_minus"``,
    ``"C_star_plus"``, ``"n_swaps"``, ``"labels"`` the putative labels). "init" is f = 0, every
    retraining an "iter" state, the end of each C* round a "stage_end".
    """

    _degenerate_causes = {"C": SMALL_COST, "C_star": SMALL_COST, "sigma": WIDE_KERNEL}
    _too_large = "Use kernel='linear' (the primal; sparse input allowed), or fewer points."
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "C": [cost("C"), None],
        "C_star": [cost("C*"), None],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "switching": [StrOptions({"single", "multi"})],
        "r": [Interval(Real, 0, 1, closed="neither"), None],
        "max_switches": [Interval(Integral, 0, None, closed="left"), None],
        "schedule": [StrOptions({"joachims", "svmlin"})],
        "intercept": [StrOptions({"free", "regularized"})],
        "max_iter": [iteration_limit(2000)],
    }

    def __init__(self, C=None, C_star=None, kernel="rbf", sigma=None, degree=3, coef0=1.0,
                 loss="hinge", switching="single", r=None, max_switches=None,
                 schedule="joachims", intercept="free", max_iter=2000):
        self.C = C
        self.C_star = C_star
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.loss = loss
        self.switching = switching
        self.r = r
        self.max_switches = max_switches
        self.schedule = schedule
        self.intercept = intercept
        self.max_iter = max_iter

    def _setup(self, problem):
        X = problem.X
        if self.loss == "squared_hinge" and self.kernel != "linear":
            raise ValueError(
                f"loss='squared_hinge' is the primal L2-SVM of the linear TSVM and needs "
                f"kernel='linear', got kernel={self.kernel!r}. Use loss='hinge' with this "
                "kernel."
            )
        if self.intercept == "regularized" and self.loss != "squared_hinge":
            raise ValueError(
                "intercept='regularized' (svmlin's bias, a constant feature) needs "
                f"loss='squared_hinge' and kernel='linear', got loss={self.loss!r}: LIBSVM's "
                "bias is free. Use intercept='free' with this loss."
            )
        self._fit_kernel(X)
        self._X, self._row_norms = X, None
        if self.intercept == "regularized":  # the constant feature, last (sparse stays sparse)
            ones = np.ones((X.shape[0], 1))
            self._X = sp.hstack([X, ones], format="csr") if sp.issparse(X) else np.hstack(
                [X, ones])
        self._K = None if self.kernel == "linear" else self._kernel(X)
        self._design = LinearDesign(X) if self._K is None else KernelDesign(self._K)
        # the kernel hinge SVM's warm-started dual (1/2 ||w||^2: lambda = 1)
        self._dual = (WeightedHingeDual(KernelColumns(self._K), 1.0)
                      if self._K is not None and self.loss == "hinge" else None)
        self.C_, self.C_star_ = resolve_costs(self.C, self.C_star,
                                              lambda: self._sample_default_C(X))

    def _features(self, X):
        return X if self.kernel == "linear" else self._kernel(X)

    def _balance_from_labels(self):
        if self.r is not None:
            return None
        return ("Step 1 gives the unlabeled points the labeled points' class ratio (num+). "
                f"{LABEL_PROPORTIONS}")

    def _postprocess(self, final, n_iter, outcome):
        super()._postprocess(final, n_iter, outcome)
        self.n_swaps_ = outcome.n_swaps

    # -- Joachims' Figure 2: the generator below is the only loop; the steps change nothing
    # -- but the state

    def _iterate(self, problem):
        state = self._init(problem)
        yield self._record(state, "init")
        # Step 1: the supervised SVM, and putative labels keeping the labeled class ratio.
        state = self._retrain(state, problem)
        yield self._record(state, "iter")
        if problem.n_unlabeled == 0:
            yield self._record(state, "final")
            return state
        state = self._putative_labels(state, problem)
        while True:
            state = self._retrain(state, problem)
            yield self._record(state, "iter")
            swapped = None if self._out_of_retrainings(state) else self._swap(state, problem)
            if swapped is not None:
                state = swapped
                continue
            yield self._record(state, "stage_end")
            if self._terminate(state):
                break
            state = self._next_round(state)
        self._warn(state)
        yield self._record(state, "final")
        return state

    def _init(self, problem) -> _SwitchState:
        """f = 0; the labeled points with cost C, the unlabeled ones without labels or cost."""
        y = problem.y.astype(float)
        n_coef = self._X.shape[1] if self.kernel == "linear" else y.size
        return _SwitchState(coef=np.zeros(n_coef), intercept=0.0, decision=np.zeros(y.size),
                            labels=y, costs=np.where(problem.labeled, self.C_, 0.0),
                            c_minus=0.0, c_plus=0.0, stage=0, iteration=0, retrainings=0,
                            n_swaps=0, capped_solves=0, dual_start=None)

    def _putative_labels(self, state: _SwitchState, problem) -> _SwitchState:
        """Step 1 (Figure 2): the ``num+`` largest outputs of the unlabeled points positive,
        the others negative (``num+`` from the labels, or ``u - floor((1 - r) u)``, svmlin's
        count); the first C* of the schedule."""
        idx_u = np.flatnonzero(problem.unlabeled)
        m = idx_u.size
        if self.r is None:
            num_plus = int(round(m * np.mean(problem.y[problem.labeled] > 0)))
        else:
            num_plus = m - int((1.0 - self.r) * m)
        order = np.argsort(-state.decision[idx_u], kind="stable")
        labels = state.labels.copy()
        labels[idx_u] = -1.0
        labels[idx_u[order[:num_plus]]] = 1.0
        if self.schedule == "svmlin":
            start = min(_SVMLIN_C_STAR_START * self.C_ * problem.n_labeled / m, self.C_star_)
            c_minus = c_plus = start
        else:
            c_minus = _JOACHIMS_C_STAR_START
            c_plus = _JOACHIMS_C_STAR_START * max(num_plus, 1) / max(m - num_plus, 1)
        return state._replace(labels=labels, iteration=0, c_minus=c_minus, c_plus=c_plus)

    def _retrain(self, state: _SwitchState, problem) -> _SwitchState:
        """Retrain the SVM with the unlabeled costs following the current putative labels (also
        after a swap: Joachims' solve_svm_qp gives C*_+ to positive, C*_- to negative
        examples)."""
        idx_u = np.flatnonzero(problem.unlabeled)
        costs = state.costs.copy()
        costs[idx_u] = np.where(state.labels[idx_u] > 0, state.c_plus, state.c_minus)
        trained = self._train(state, costs)
        return trained._replace(costs=costs, iteration=state.iteration + 1,
                                retrainings=state.retrainings + 1)

    def _out_of_retrainings(self, state: _SwitchState) -> bool:
        return state.retrainings >= self.max_iter  # the SVM of step 1 counts as one

    def _swap(self, state: _SwitchState, problem) -> _SwitchState | None:
        """Swap the labels of the violating pairs (``_swaps``); None when there is none."""
        pos, neg = self._swaps(state.labels, state.decision, np.flatnonzero(problem.unlabeled))
        if pos.size == 0:
            return None
        labels = state.labels.copy()
        labels[pos], labels[neg] = -1.0, 1.0
        return state._replace(labels=labels, n_swaps=state.n_swaps + pos.size)

    def _terminate(self, state: _SwitchState) -> bool:
        """The last round ran at ``C*_- = C*_+ = C*`` (or the retrainings ran out)."""
        return self._out_of_retrainings(state) or (
            state.c_minus >= self.C_star_ and state.c_plus >= self.C_star_)

    def _next_round(self, state: _SwitchState) -> _SwitchState:
        """Raise ``C*_-`` and ``C*_+`` by the schedule's rate (2 or 1.5), capped at C*."""
        rate = _SVMLIN_C_STAR_RATE if self.schedule == "svmlin" else _JOACHIMS_C_STAR_RATE
        return state._replace(c_minus=min(rate * state.c_minus, self.C_star_),
                              c_plus=min(rate * state.c_plus, self.C_star_),
                              stage=state.stage + 1, iteration=0)

    def _train(self, state: _SwitchState, costs) -> _SwitchState:
        """One SVM retraining on the points of nonzero cost, warm-started on the linear path
        at the state's ``w``; returns the state with the new model and its outputs on every
        training point.

        With a kernel and the hinge, a swap changes the costs of two points only: the SVM is
        solved by the dual active set of ``weighted_hinge`` started where the previous
        retraining's ended (LIBSVM would start from zero each time; it is the fallback where
        the active set does not settle).
        """
        labels = state.labels
        if self.kernel == "linear" and self.loss == "squared_hinge":
            # 1/2 ||w||^2 + sum C_e max(0, 1 - y_e f_e)^2 is finite_newton's form with lam = 1
            # and weights 2 C_e on the label's side
            c_plus = np.where(labels > 0, 2.0 * costs, 0.0)
            c_minus = np.where(labels < 0, 2.0 * costs, 0.0)
            if self._row_norms is None:  # once per fit, for every retraining's inner solves
                self._row_norms = squared_row_norms(self._X)
            result = squared_hinge_mfn(self._X, c_plus, c_minus, 1.0, state.coef,
                                       state.intercept,
                                       fit_intercept=self.intercept == "free",
                                       row_norms=self._row_norms)
            return state._replace(coef=result.w, intercept=result.b, decision=result.outputs)
        dual_start = state.dual_start
        if self._dual is not None:
            costs_plus = np.where(labels > 0, costs, 0.0)
            costs_minus = np.where(labels < 0, costs, 0.0)
            solution = self._dual.solve(costs_plus, costs_minus, dual_start)
            if solution.converged:
                return state._replace(coef=solution.alpha, intercept=solution.intercept,
                                      decision=solution.outputs, dual_start=solution.start)
        rows = np.flatnonzero(costs > 0)
        svm, converged = fit_libsvm(self._design.libsvm_data(rows), labels[rows],
                                    sample_weight=costs[rows],
                                    kernel=self._design.libsvm_kernel)
        coef = self._design.coef(svm, rows)
        intercept = float(svm.intercept_[0])
        if self._dual is not None:
            dual_start = seeded_start(coef, costs_plus, costs_minus)
        return state._replace(coef=coef, intercept=intercept,
                              decision=self._design.decision(coef) + intercept,
                              capped_solves=state.capped_solves + (not converged),
                              dual_start=dual_start)

    def _record(self, state: _SwitchState, event: str) -> SolverState:
        coef, intercept = state.coef, state.intercept
        if self.intercept == "regularized":  # the constant feature's weight is the bias
            coef, intercept = coef[:-1], float(coef[-1])
        return SolverState(
            stage="C_star", stage_index=state.stage,
            stage_value=max(state.c_minus, state.c_plus), iteration=state.iteration,
            event=event, coef=coef, intercept=intercept,
            objective=self._objective(state), train_decision=state.decision,
            extras={"C_star_minus": state.c_minus, "C_star_plus": state.c_plus,
                    "n_swaps": state.n_swaps, "labels": state.labels},
        )

    def _objective(self, state: _SwitchState) -> float:
        """``1/2 ||w||^2 + sum_e C_e loss(y_e f_e)`` (eq. (3) with the chosen loss); with a
        kernel ``||w||^2 = coef^T K coef`` is read off the outputs ``K coef + intercept``; a
        regularized intercept is in ``w``."""
        coef = state.coef
        norm2 = coef @ (coef if self._K is None else state.decision - state.intercept)
        loss = hinge(state.labels * state.decision)
        if self.loss == "squared_hinge":
            loss = loss**2
        return float(0.5 * norm2 + state.costs @ loss)

    def _swaps(self, labels, decision_values, idx_u):
        """The unlabeled pairs to swap: (positive, negative) index arrays (empty if none)."""
        slack = hinge(labels[idx_u] * decision_values[idx_u])
        positive = labels[idx_u] > 0
        pos, neg = idx_u[positive], idx_u[~positive]
        if pos.size == 0 or neg.size == 0:
            return pos[:0], neg[:0]
        # largest slacks first; a pair qualifies when both slacks are positive and sum to > 2
        pos_order = np.argsort(-slack[positive], kind="stable")
        neg_order = np.argsort(-slack[~positive], kind="stable")
        count = 1 if self.switching == "single" else min(pos.size, neg.size)
        if self.max_switches is not None:
            count = min(count, self.max_switches)
        xi_pos = slack[positive][pos_order[:count]]
        xi_neg = slack[~positive][neg_order[:count]]
        ok = (xi_pos > 0) & (xi_neg > 0) & (xi_pos + xi_neg > 2)
        k = int(np.argmin(ok)) if not ok.all() else ok.size  # the leading qualifying pairs
        return pos[pos_order[:k]], neg[neg_order[:k]]

    def _warn(self, state: _SwitchState) -> None:
        if self._out_of_retrainings(state):
            warnings.warn(
                f"LabelSwitchingTSVM stopped after max_iter={self.max_iter} SVM retrainings "
                "before C* reached its final value; increase max_iter.",
                ConvergenceWarning, stacklevel=4,
            )
        if state.capped_solves:
            warn_libsvm_cap(f"{state.capped_solves} of the SVM retrainings",
                            f"Smaller costs (C={self.C_:.3g}, C*={self.C_star_:.3g}) converge "
                            "faster.", stacklevel=4)
