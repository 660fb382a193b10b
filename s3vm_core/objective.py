"""One yardstick for every kernel solver: the common S3VM objective (docs/architecture.md,
"Common objective"), and the supervised SVM that is fair beside each solver.

Every solver of this library finds a local minimum of a non-convex objective, each its own
(a smoothed loss, a surrogate, an annealed one). To say how good a minimum is, they are all
scored here on the continuation paper's eq. (2) with the hinge (p = 1) and its balance
constraint (3) (Chapelle, Chi & Zien 2006),

``1/2 ||w||^2 + C sum_L max(0, 1 - y_i f_i) + C* sum_U max(0, 1 - |f_j|)``,
``(1/m) sum_U f_j = (1/n) sum_L y_i``                                                    (3)

at the solver's own f on the training points, with ``||w||^2`` in the solver's own RKHS:

* ``common_objective`` scores a fitted solver (``CommonObjective``), from ``solver_costs``
  (the C and C* its own objective corresponds to) and ``rkhs_norm_squared``;
* ``matched_solvers`` sets the local solvers up so that each one's own objective is eq. (2)
  with the same C and C* (or, for those that smooth it, its surrogate), as the yardstick
  compares them.

The exact minimizer of eq. (2) under (3) is ``s3vm_core.solvers.bnb.BranchAndBoundS3VM``;
``s3vm_core.local_minima.compare_with_global_minimum`` puts every solver beside it.

Did the unlabeled points help? Only against a supervised SVM that has the solver's own kernel,
width and C (the papers' comparisons): ``fair_svm`` maps each solver's costs to LIBSVM's C as
``solver_costs`` maps them to eq. (2)'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np

from s3vm_core.kernels import kernel_matrix
from s3vm_core.losses import hinge
from s3vm_core.problem import encode_labels
from s3vm_core.solvers.annealing import DeterministicAnnealingS3VM
from s3vm_core.solvers.continuation import ContinuationS3VM
from s3vm_core.solvers.lapsvm import LapRLSC, LapSVM
from s3vm_core.solvers.qn import QNS3VM
from s3vm_core.solvers.svm import SVMBaseline
from s3vm_core.solvers.tsvm import LDS, GradientTSVM, GraphKernelSVM, LabelSwitchingTSVM

#: The local solvers the yardstick applies to, by their names in ``s3vm_core.ESTIMATORS``.
LOCAL_SOLVERS = ("cs3vm", "tsvm", "qn-s3vm", "da", "label-switching")

#: The refusals of ``common_objective``: solvers whose model is not a function of the kernel's
#: RKHS plus a bias, each with the reason in a sentence.
_REFUSED = (
    (LDS, "LDS's model is linear in its MDS embedding of graph path distances, a different "
          "feature space for every rho, so its norm is not the kernel's ||w||^2 of eq. (2)"),
    (GraphKernelSVM, "the graph-kernel SVM's kernel is built from graph path distances, so "
                     "its norm is not the RKHS norm of eq. (2)'s kernel"),
    ((LapSVM, LapRLSC), "LapSVM and LapRLSC minimize the ambient norm plus the graph "
                        "Laplacian's intrinsic norm, not eq. (2); the yardstick would "
                        "measure them on an objective that they do not minimize"),
)


@dataclass(frozen=True, slots=True)
class CommonObjective:
    """A fitted solver scored on the continuation paper's eq. (2) with the hinge (p = 1).

    Attributes
    ----------
    value : float
        ``1/2 ||w||^2 + C labeled_loss + C* unlabeled_loss`` at the solver's f.
    norm_squared : float
        ``||w||^2`` in the solver's own RKHS (see ``rkhs_norm_squared``).
    labeled_loss : float
        ``sum_L max(0, 1 - y_i f_i)``.
    unlabeled_loss : float
        ``sum_U max(0, 1 - |f_j|)``, each unlabeled point at its better label.
    balance_residual : float
        ``mean_U f - mean_L y`` (labels in {-1, +1}): 0 when the balance constraint (3) holds
        (cS3VM, ∇TSVM, QN-S3VM and the exact solver hold it exactly by centring); ``nan``
        without unlabeled points.
    balanced_value : float
        ``value`` at ``f - balance_residual``: the same ``w`` with the bias moved so that (3)
        holds. This is the number to compare with the exact solver's ``objective_``, the
        minimum under (3): it is never below it.
    C, C_star : float
        The costs used.
    """

    value: float
    norm_squared: float
    labeled_loss: float
    unlabeled_loss: float
    balance_residual: float
    balanced_value: float
    C: float
    C_star: float


def _refusal(estimator) -> str | None:
    for classes, reason in _REFUSED:
        if isinstance(estimator, classes):
            return reason
    return None


def _check_scored(estimator) -> None:
    reason = _refusal(estimator)
    if reason is not None:
        raise TypeError(f"The common objective does not apply to {type(estimator).__name__}: "
                        f"{reason}.")
    scored = (SVMBaseline, *_primal_solvers(), QNS3VM, DeterministicAnnealingS3VM,
              LabelSwitchingTSVM)
    if not isinstance(estimator, scored):
        names = ", ".join(cls.__name__ for cls in scored)
        raise TypeError(
            f"The common objective scores one binary kernel solver of s3vm_core ({names}); "
            f"got {type(estimator).__name__}. For a one-vs-rest model, score each of its "
            "binary estimators."
        )
    if not hasattr(estimator, "coef_"):
        raise ValueError(f"This {type(estimator).__name__} is not fitted yet: call fit first, "
                         "then score it on the data it was fitted on.")


def _primal_solvers() -> tuple[type, ...]:
    """The solvers whose ``coef_`` is ``w`` in the kernel-PCA coordinates of
    ``solvers.primal.PrimalMap``: cS3VM, ∇TSVM and the exact solver (imported here, when
    called: its module imports this one)."""
    from s3vm_core.solvers.bnb import BranchAndBoundS3VM

    return ContinuationS3VM, GradientTSVM, BranchAndBoundS3VM


def solver_costs(estimator, n_labeled: int, n_unlabeled: int) -> tuple[float, float]:
    """The ``(C, C*)`` of eq. (2) that a fitted solver's own objective corresponds to.

    * ``SVMBaseline``, ``GradientTSVM``, ``ContinuationS3VM``, ``LabelSwitchingTSVM``,
      ``BranchAndBoundS3VM``: their ``C`` and ``C*`` (the baseline has no unlabeled loss; its
      ``C*`` is taken equal to its ``C``, the S3VMs' default).
    * ``QNS3VM``, eq. (5) divided by ``2 lam``: ``C = 1 / (2 lam l)``,
      ``C* = lam_u / (2 lam u)``.
    * ``DeterministicAnnealingS3VM``, eq. (1) of the DA paper divided by ``lam``:
      ``C = 1 / (lam l)``, ``C* = lam_u / (lam u)``.
    """
    l, u = max(int(n_labeled), 1), max(int(n_unlabeled), 1)
    if isinstance(estimator, QNS3VM):
        lam = float(estimator.lam)
        return 1.0 / (2 * lam * l), float(estimator.lam_u) / (2 * lam * u)
    if isinstance(estimator, DeterministicAnnealingS3VM):
        lam = float(estimator.lam)
        return 1.0 / (lam * l), float(estimator.lam_u) / (lam * u)
    if isinstance(estimator, SVMBaseline):
        return float(estimator.C_), float(estimator.C_)
    if isinstance(estimator, ContinuationS3VM):
        return float(estimator.C), float(estimator.C_star_)
    return float(estimator.C_), float(estimator.C_star_)


#: The solvers whose kernel is built from every point, labeled or not (the rho-path distances of
#: the LDS paper §2.1): an SVM on the labeled points alone cannot have it, so their fair SVM
#: has the Gaussian kernel of the input space at the width rule of §2.3.2, as the LDS paper's
#: Table 2 sets the SVM beside them.
KERNELS_OF_ALL_POINTS = (LDS, GraphKernelSVM)


def fair_svm(estimator, y):
    """The supervised SVM that is fair beside a fitted ``estimator`` on labels ``y`` (``-1``
    unlabeled): LIBSVM (``SVMBaseline``, unfitted) on the labeled points with the solver's own
    kernel, width and C (docs/architecture.md, "Fair comparison"); for ``OneVsRestS3VM`` the
    one-vs-rest of it. The C of the solver's objective, as each paper writes it:

    * ``SVMBaseline``, ``GradientTSVM``, ``ContinuationS3VM``, ``LabelSwitchingTSVM``,
      ``BranchAndBoundS3VM``, ``LDS``, ``GraphKernelSVM``: their ``C`` (resolved, the LDS
      paper's §2.3.2 default where it was None);
    * ``QNS3VM``: ``1 / (2 lam l)`` (eq. (5) divided by ``2 lam``); ``DeterministicAnnealingS3VM``:
      ``1 / (lam l)`` (the DA paper's eq. (1) divided by ``lam``), as ``solver_costs``;
    * ``LapSVM``, ``LapRLSC``: ``1 / (2 gamma_A)`` -- the LapSVM paper's problem (4) divided by
      ``2 gamma_A``, which with ``gamma_I = 0`` is the SVM (its §2);
    * ``S4VM``: its ``C1``, the cost of the labeled points (Li & Zhou, eq. (1)).

    The kernel and its width are the solver's own (its resolved ``sigma_``), except for
    ``KERNELS_OF_ALL_POINTS``, whose fair SVM has the Gaussian kernel at the default width.
    """
    from s3vm_core.multiclass import OneVsRestS3VM

    if isinstance(estimator, OneVsRestS3VM):
        return OneVsRestS3VM(fair_svm(estimator.estimators_[0], y))
    y = np.asarray(y)
    n_labeled = int(np.sum(y != -1))
    if isinstance(estimator, KERNELS_OF_ALL_POINTS):
        return SVMBaseline(C=_resolved(estimator, "C"), kernel="rbf", sigma=None)
    if isinstance(estimator, LapSVM | LapRLSC):
        C = 1.0 / (2.0 * float(estimator.gamma_A))
    elif isinstance(estimator, QNS3VM | DeterministicAnnealingS3VM):
        C = solver_costs(estimator, n_labeled, int(np.sum(y == -1)))[0]
    elif hasattr(estimator, "C1"):
        C = float(estimator.C1)
    else:
        C = _resolved(estimator, "C")
    params = estimator.get_params()
    kernel = params.get("kernel", "rbf")
    sigma = getattr(estimator, "sigma_", None) if kernel == "rbf" else None
    return SVMBaseline(C=C, kernel=kernel, sigma=sigma if sigma is not None else
                       params.get("sigma"), degree=params.get("degree", 3),
                       coef0=params.get("coef0", 1.0))


def fair_svm_sentence(svm, estimator, n_labeled: int) -> str:
    """Which supervised SVM stands beside ``estimator`` (``fair_svm``, fitted as ``svm``), in
    one line for a page or a summary: "supervised SVM, same kernel σ = 0.25 and C = 100, on the 4
    labeled points"."""
    from s3vm_core.multiclass import OneVsRestS3VM

    if isinstance(svm, OneVsRestS3VM):
        svm, estimator = svm.estimators_[0], estimator.estimators_[0]
    cost = f"C = {svm.C_:.3g}"
    own = ("" if type(estimator).__name__ == "SVMBaseline"
           else " (its cost of the labeled points)")
    if isinstance(estimator, KERNELS_OF_ALL_POINTS):
        kernel = (f"Gaussian kernel at the default width σ = {svm.sigma_:.3g} (the solver's "
                  "kernel is built through the unlabeled points)")
        own = ""
    elif svm.kernel == "rbf":
        kernel = f"same kernel σ = {svm.sigma_:.3g}"
    else:
        kernel = f"same {svm.kernel} kernel"
    points = f"{n_labeled} labeled point{'' if n_labeled == 1 else 's'}"
    return f"supervised SVM, {kernel} and {cost}{own}, on the {points}"


def _resolved(estimator, name: str):
    """A fitted cost: its resolved value (``C_``) where the solver keeps one, else the
    parameter (None: the SVM's own default, the same rule)."""
    value = getattr(estimator, f"{name}_", None)
    return float(value) if value is not None else getattr(estimator, name)


def rkhs_norm_squared(estimator) -> float:
    """``||w||^2`` of a fitted solver's model in its own feature space.

    * ``ContinuationS3VM``, ``GradientTSVM``, ``BranchAndBoundS3VM``: ``coef_`` is ``w`` in an
      orthonormal basis of the span of the training points (the kernel-PCA map of the
      continuation paper §2.3, also its §5.2 subset form), or in the input space for the
      linear kernel: ``w^T w``.
    * ``SVMBaseline``, ``DeterministicAnnealingS3VM``, ``LabelSwitchingTSVM``, ``QNS3VM``:
      ``coef_`` expands f over the points ``X_fit_`` (the labeled points, every training
      point, or QN-S3VM's landmarks, eqs. (4), (9)): ``coef^T K coef`` with ``K`` the kernel
      among them; QN-S3VM's centring only moves the bias. With the linear kernel their
      ``coef_`` is ``w`` itself (``w^T w``).
    """
    coef = np.asarray(estimator.coef_, dtype=float)
    primal = (isinstance(estimator, _primal_solvers())
              or estimator.kernel == "linear"
              and not (isinstance(estimator, QNS3VM) and estimator.landmarks_ is not None))
    if primal:
        return float(coef @ coef)
    centers = estimator.X_fit_
    K = kernel_matrix(centers, centers, estimator.kernel, estimator.sigma_, estimator.degree,
                      estimator.coef0)
    return float(coef @ K @ coef)


def common_objective(estimator, X, y, *, C=None, C_star=None) -> CommonObjective:
    """Score a fitted solver on eq. (2) of the continuation paper with the hinge (p = 1).

    ``1/2 ||w||^2 + C sum_L max(0, 1 - y_i f_i) + C* sum_U max(0, 1 - |f_j|)`` at the
    solver's decision values ``f`` on its training points, with ``||w||^2`` in its own RKHS
    (``rkhs_norm_squared``) and the residual of the balance constraint (3). The same kernel,
    C and C* for every solver make this the one yardstick of docs/architecture.md ("Common
    objective"): the exact solver ``BranchAndBoundS3VM`` minimizes it under (3).

    Applies to ``ContinuationS3VM`` (which minimizes it with the unlabeled loss replaced by
    exp(-s t^2), §3.1), ``GradientTSVM`` (the same with the squared hinge on the labeled
    points, LDS paper eq. (4)), ``QNS3VM`` (smooth surrogates of both losses, eq. (5)),
    ``DeterministicAnnealingS3VM`` (with ``loss="hinge"`` its Eqn. 1 is eq. (2) up to the
    balance constraint; with another loss the yardstick scores its f on a loss it did not
    minimize), ``LabelSwitchingTSVM`` (eq. (2) with a label-count balance instead of (3)),
    ``SVMBaseline`` (the labeled term only) and ``BranchAndBoundS3VM``. Refused, with the
    reason: ``LDS`` and ``GraphKernelSVM`` (graph distances: another feature space) and
    ``LapSVM``, ``LapRLSC`` (another regularizer).

    Parameters
    ----------
    estimator : fitted estimator
    X : array-like of shape (n_samples, n_features)
        The points it was fitted on.
    y : array-like of shape (n_samples,)
        Their labels as given to ``fit``, ``-1`` for unlabeled points.
    C, C_star : float or None
        The costs of eq. (2). ``None``: the solver's own (``solver_costs``); give the same
        values for every solver to compare them.

    Returns
    -------
    CommonObjective
    """
    _check_scored(estimator)
    signed, classes = encode_labels(y)
    if not np.array_equal(classes, estimator.classes_):
        raise ValueError(
            f"The labeled classes of y ({', '.join(map(str, classes.tolist()))}) are not the "
            f"ones the {type(estimator).__name__} was fitted on; score it on the data it was "
            "fitted on."
        )
    f = np.asarray(estimator.decision_function(X), dtype=float)
    if f.shape != signed.shape or signed.size != estimator.transduction_.size:
        raise ValueError(
            f"X and y have {signed.size} points but the {type(estimator).__name__} was fitted "
            f"on {estimator.transduction_.size}; score it on the data it was fitted on."
        )
    labeled = signed != 0
    own_C, own_C_star = solver_costs(estimator, labeled.sum(), (~labeled).sum())
    C = own_C if C is None else _checked_cost(C, "C")
    C_star = own_C_star if C_star is None else _checked_cost(C_star, "C_star")
    norm = rkhs_norm_squared(estimator)

    def value(outputs):
        labeled_loss = float(hinge(signed[labeled] * outputs[labeled]).sum())
        unlabeled_loss = float(hinge(np.abs(outputs[~labeled])).sum())
        return 0.5 * norm + C * labeled_loss + C_star * unlabeled_loss, labeled_loss, \
            unlabeled_loss

    total, labeled_loss, unlabeled_loss = value(f)
    if labeled.all():
        residual, balanced = math.nan, total
    else:
        residual = float(f[~labeled].mean() - signed[labeled].mean())
        balanced = value(f - residual)[0]
    return CommonObjective(value=total, norm_squared=norm, labeled_loss=labeled_loss,
                           unlabeled_loss=unlabeled_loss, balance_residual=residual,
                           balanced_value=balanced, C=C, C_star=C_star)


def _checked_cost(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not (
            0 < float(value) < math.inf):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}.")
    return float(value)


def matched_solvers(C: float, C_star: float, n_labeled: int, n_unlabeled: int, *,
                    kernel: str = "rbf", sigma=None, degree: int = 3, coef0: float = 1.0,
                    names=LOCAL_SOLVERS) -> dict:
    """The local solvers set up to minimize eq. (2) with these C and C* (or their surrogate
    of it), on the same kernel: each one's parameters in its own paper's symbols.

    ``"cs3vm"``, ``"tsvm"``, ``"label-switching"``, ``"svm"``: ``C`` and ``C_star`` as they
    are. ``"qn-s3vm"``: ``lam = 1 / (2 l C)``, ``lam_u = u C* / (l C)`` (eq. (5) times
    ``1 / (2 lam)``). ``"da"``: the hinge, ``lam = 1 / (l C)``, ``lam_u = u C* / (l C)`` (the
    DA paper's Eqn. 1 times ``1 / lam``). ``l`` and ``u`` are the numbers of labeled and
    unlabeled points. A solver whose translated parameters leave its own range refuses them
    when it is fitted, naming the parameter. ``names``: one of these names, or a sequence of
    them.

    Returns
    -------
    dict
        Name -> unfitted estimator, in the order of ``names``.
    """
    C, C_star = _checked_cost(C, "C"), _checked_cost(C_star, "C_star")
    l, u = max(int(n_labeled), 1), max(int(n_unlabeled), 1)
    kernel_params = {"kernel": kernel, "sigma": sigma, "degree": degree, "coef0": coef0}
    makers = {
        "svm": lambda: SVMBaseline(C=C, **kernel_params),
        "cs3vm": lambda: ContinuationS3VM(C=C, C_star=C_star, **kernel_params),
        "tsvm": lambda: GradientTSVM(C=C, C_star=C_star, **kernel_params),
        "label-switching": lambda: LabelSwitchingTSVM(C=C, C_star=C_star, **kernel_params),
        "qn-s3vm": lambda: QNS3VM(lam=1.0 / (2 * l * C), lam_u=u * C_star / (l * C),
                                  **kernel_params),
        "da": lambda: DeterministicAnnealingS3VM(lam=1.0 / (l * C), lam_u=u * C_star / (l * C),
                                                 loss="hinge", **kernel_params),
    }
    names = _solver_names(names, makers)
    return {name: makers[name]() for name in names}


def _solver_names(names, known) -> tuple[str, ...]:
    """``names`` as a tuple of names among ``known``: a string is one name (not its letters),
    and anything else must be a sequence of names; refused otherwise, with the names known."""
    choices = ", ".join(map(repr, known))
    if isinstance(names, str):
        names = (names,)
    try:
        names = tuple(names)
    except TypeError:
        raise TypeError(f"names must be a solver's name or a sequence of names among "
                        f"{choices}; got {names!r}.") from None
    unknown = [name for name in names if not isinstance(name, str) or name not in known]
    if unknown:
        raise ValueError(f"Unknown solver name {unknown[0]!r}; choose among {choices}.")
    return names
