"""Every local solver against the exact global minimum, on one problem (issue 35).

``compare_with_global_minimum`` fits the local solvers of ``s3vm_core.objective`` set up on the
same kernel, C and C* (``matched_solvers``) and the exact solver
(``s3vm_core.solvers.bnb.BranchAndBoundS3VM``), and scores them all on the common objective:
the continuation paper's Figure 3 and its open question, "how well does the algorithm
approximate the global solution?" (Chapelle, Chi & Zien 2006, §1 and §6). The Local minima
page and ``benchmarks/global_optimum.py`` run it over label draws; ``GlobalComparison`` holds
one problem's answers and reads them as gaps to the minimum and basins found.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from s3vm_core.objective import (
    LOCAL_SOLVERS,
    _solver_names,
    common_objective,
    matched_solvers,
)
from s3vm_core.problem import encode_labels
from s3vm_core.solvers.bnb import BranchAndBoundS3VM


@dataclass(frozen=True)
class GlobalComparison:
    """Every local solver and the exact one on one problem (``compare_with_global_minimum``).

    Attributes
    ----------
    exact : BranchAndBoundS3VM
        Fitted; ``exact.objective_`` is the global minimum when ``exact.proven_``.
    solvers : dict
        Name -> the fitted local solver.
    scores : dict
        Name -> its ``CommonObjective`` with the exact solver's C and C*.
    seconds : dict
        Name -> fit time in seconds of the wall clock; ``"exact"`` for the branch and bound
        (the local solvers' time not included: their answers are given to it as starts).
    labelings : dict
        Name -> the minimum of eq. (2) for the labels the solver gives the unlabeled points
        (``BranchAndBoundS3VM.labeling_objective`` of its ``transduction_``): the bottom of
        the basin it ended in.
    """

    exact: BranchAndBoundS3VM
    solvers: dict
    scores: dict
    seconds: dict
    labelings: dict

    def _relative(self, value: float) -> float:
        optimum = self.exact.objective_
        return (value - optimum) / max(abs(optimum), np.finfo(float).tiny)

    def _check_name(self, name) -> None:
        if not isinstance(name, str) or name not in self.scores:
            compared = ", ".join(map(repr, self.scores)) or "no local solver"
            raise ValueError(f"No solver named {name!r} was compared; this comparison holds "
                             f"{compared} (the exact solver is its .exact).")

    def gap(self, name: str) -> float:
        """The solver's own objective above the global minimum, relative to it:
        ``(balanced_value - objective_) / |objective_|`` (0 at the minimum; with a budget,
        relative to the incumbent, and possibly negative). The solvers that minimize a
        smooth surrogate (cS3VM, ∇TSVM, QN-S3VM) stay above 0 even in the right basin: see
        ``labeling_gap``."""
        self._check_name(name)
        return self._relative(self.scores[name].balanced_value)

    def reached(self, name: str, rtol: float = 1e-6) -> bool:
        """Whether the solver's own f is at the global minimum, within ``rtol`` relative."""
        return self.gap(name) <= rtol

    def labeling_gap(self, name: str) -> float:
        """The bottom of the solver's basin above the global minimum, relative to it: 0 when
        its labeling of the unlabeled points is an optimal one, whatever loss it minimized
        (docs/benchmarks.md: cS3VM's is on two moons in 17 draws of 20)."""
        self._check_name(name)
        return self._relative(self.labelings[name])

    def found_basin(self, name: str, rtol: float = 1e-6) -> bool:
        """Whether the solver ended in the global minimum's basin: its labeling's minimum is
        the global minimum, within ``rtol`` relative."""
        return self.labeling_gap(name) <= rtol


def compare_with_global_minimum(X, y, *, C=None, C_star=None, kernel="rbf", sigma=None,
                                degree=3, coef0=1.0, names=("svm", *LOCAL_SOLVERS),
                                branching="balanced", max_nodes=100_000,
                                max_time=60.0) -> GlobalComparison:
    """Fit every local solver of ``names`` and the exact solver on the same kernel, C and C*,
    and score them all on the common objective (issue 35; the continuation paper's Figure 3
    and open question, §1 and §6).

    The kernel width and costs left as None are resolved as ``BranchAndBoundS3VM`` resolves
    them (LDS paper §2.3.2), then given to every solver (``matched_solvers``); the local
    solvers' decision values start the exact solver's incumbent (its ``start``), so it does
    not refit them. The local solvers' own warnings pass through; the exact solver warns when
    its budget stops it before the proof (``exact.proven_`` False: its ``objective_`` is then
    the best found, ``lower_bound_`` certified).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels, ``-1`` for unlabeled points.
    C, C_star, kernel, sigma, degree, coef0, branching, max_nodes
        As ``BranchAndBoundS3VM`` takes them, for every solver.
    names : str or sequence of str, default=("svm", "cs3vm", "tsvm", "qn-s3vm", "da",
            "label-switching")
        The local solvers to compare (``matched_solvers``): one name, or several.
    max_time : float > 0 or np.inf, default=60.0
        The exact solver's budget in seconds of process CPU time (``BranchAndBoundS3VM``);
        the local solvers run to their ends before it, outside it.

    Returns
    -------
    GlobalComparison
    """
    names = _solver_names(names, ("svm", *LOCAL_SOLVERS))  # before the setup's seconds
    exact = BranchAndBoundS3VM(C=C, C_star=C_star, kernel=kernel, sigma=sigma, degree=degree,
                               coef0=coef0, init=(), branching=branching, max_nodes=max_nodes,
                               max_time=max_time)
    exact.trace(X, y)  # the setup only (validation, sigma_, C_, C_star_): no state drawn
    signed, _ = encode_labels(np.asarray(y))
    solvers = matched_solvers(exact.C_, exact.C_star_, int(np.sum(signed != 0)),
                              int(np.sum(signed == 0)), kernel=kernel, sigma=exact.sigma_,
                              degree=degree, coef0=coef0, names=names)
    exact.set_params(C=exact.C_, C_star=exact.C_star_, sigma=exact.sigma_)
    scores, seconds, starts = {}, {}, []
    for name, solver in solvers.items():
        start = time.perf_counter()
        solver.fit(X, y)
        seconds[name] = time.perf_counter() - start
        scores[name] = common_objective(solver, X, y, C=exact.C_, C_star=exact.C_star_)
        starts.append(solver.decision_function(X))
    start = time.perf_counter()
    exact.fit(X, y, start=starts)
    seconds["exact"] = time.perf_counter() - start
    labelings = {name: exact.labeling_objective(solver.transduction_)
                 for name, solver in solvers.items()}
    return GlobalComparison(exact=exact, solvers=solvers, scores=scores, seconds=seconds,
                            labelings=labelings)
