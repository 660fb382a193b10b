"""s3vm_core: instrumented semi-supervised SVM solvers that yield their optimization path.

Every estimator follows scikit-learn (``fit``, ``predict``, ``decision_function``,
``transduction_``) and adds ``trace(X, y)``, a generator of ``SolverState``, and
``features(X_new)`` so that ``f(X_new) = features(X_new) @ state.coef + state.intercept``.
Unlabeled points are marked ``-1`` in ``y``. ``OneVsRestS3VM`` takes any of them to k >= 2
classes. A fit that ends degenerate warns with ``DegenerateFitWarning`` (constant, or one class
for every point) or ``BalanceWarning`` (a class balance taken from the labels that the data
contradict), an iteration limit with scikit-learn's ``ConvergenceWarning``.
"""

#: The release of the distribution ``s3vm-explorer`` (library, command line and app), as
#: CHANGELOG.md lists them; pyproject.toml reads it from here.
__version__ = "0.2.0"

from s3vm_core.diagnostics import BalanceWarning, DegenerateFitWarning
from s3vm_core.estimator_checks import expected_failed_checks
from s3vm_core.local_minima import GlobalComparison, compare_with_global_minimum
from s3vm_core.metrics import PairedComparison, paired_comparison
from s3vm_core.model_selection import (
    LabeledStratifiedKFold,
    S3VMGridSearchCV,
    UnlabeledDidNotHelpWarning,
    default_grid,
    estimate_positive_fraction,
)
from s3vm_core.multiclass import OneVsRestS3VM, OneVsRestState
from s3vm_core.objective import (
    KERNELS_OF_ALL_POINTS,
    CommonObjective,
    common_objective,
    fair_svm,
    fair_svm_sentence,
    matched_solvers,
)
from s3vm_core.solvers.annealing import DeterministicAnnealingS3VM
from s3vm_core.solvers.bnb import BranchAndBoundS3VM
from s3vm_core.solvers.continuation import ContinuationS3VM, smoothed_objective_along_line
from s3vm_core.solvers.lapsvm import LapRLSC, LapSVM
from s3vm_core.solvers.qn import QNS3VM
from s3vm_core.solvers.s4vm import S4VM
from s3vm_core.solvers.svm import SVMBaseline
from s3vm_core.solvers.tsvm import LDS, GradientTSVM, GraphKernelSVM, LabelSwitchingTSVM
from s3vm_core.trace import SolverState, decision_on_grid

#: Every binary estimator by its short name (the papers' names): the one table that the
#: command line and the app's solver registry read. ``OneVsRestS3VM`` wraps any of them.
ESTIMATORS = {
    "svm": SVMBaseline,
    "tsvm": GradientTSVM,
    "lds": LDS,
    "cs3vm": ContinuationS3VM,
    "qn-s3vm": QNS3VM,
    "da": DeterministicAnnealingS3VM,
    "lapsvm": LapSVM,
    "laprlsc": LapRLSC,
    "label-switching": LabelSwitchingTSVM,
    "graph": GraphKernelSVM,
    "bnb": BranchAndBoundS3VM,
    "s4vm": S4VM,
}

__all__ = [
    "ESTIMATORS",
    "BranchAndBoundS3VM",
    "CommonObjective",
    "GlobalComparison",
    "LDS",
    "BalanceWarning",
    "ContinuationS3VM",
    "DegenerateFitWarning",
    "DeterministicAnnealingS3VM",
    "GradientTSVM",
    "GraphKernelSVM",
    "LabelSwitchingTSVM",
    "LabeledStratifiedKFold",
    "LapRLSC",
    "LapSVM",
    "OneVsRestS3VM",
    "OneVsRestState",
    "QNS3VM",
    "S4VM",
    "S3VMGridSearchCV",
    "SVMBaseline",
    "SolverState",
    "common_objective",
    "fair_svm",
    "paired_comparison",
    "PairedComparison",
    "fair_svm_sentence",
    "KERNELS_OF_ALL_POINTS",
    "compare_with_global_minimum",
    "decision_on_grid",
    "matched_solvers",
    "UnlabeledDidNotHelpWarning",
    "default_grid",
    "estimate_positive_fraction",
    "expected_failed_checks",
    "smoothed_objective_along_line",
]
