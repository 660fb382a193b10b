"""s3vm_core: instrumented semi-supervised SVM solvers that yield their optimization path.

Every estimator follows scikit-learn (``fit``, ``predict``, ``decision_function``,
``transduction_``) and adds ``trace(X, y)``, a generator of ``SolverState``, and
``features(X_new)`` so that ``f(X_new) = features(X_new) @ state.coef + state.intercept``.
Unlabeled points are marked ``-1`` in ``y``.
"""

from s3vm_core.solvers.svm import SVMBaseline
from s3vm_core.trace import SolverState, decision_on_grid

__all__ = ["SVMBaseline", "SolverState", "decision_on_grid"]
