"""L-BFGS paths, and the schedule of them that cS3VM, QN-S3VM and ∇TSVM share.

Three papers minimize a sequence of objectives, each from the last one's minimizer, by a
quasi-Newton method: cS3VM the smoothed objectives ``L_gamma`` for decreasing gamma
(continuation paper, Algorithm 1), QN-S3VM ``F_{alpha lam'}`` for increasing alpha (QN-S3VM
paper, Algorithm 1), ∇TSVM the objective (4) for C* doubling up to its final value (LDS
paper, Algorithm 1, lines 7-9). ``lbfgs_path`` is one such minimization with every accepted
iterate recorded; ``lbfgs_schedule`` is the sequence, the warm starts and the warning when an
iteration limit stopped a stage, written once.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning


def lbfgs_path(evaluate, x0, *, max_iter: int, tol: float, memory: int = 10,
               split=lambda out: out, ftol: float | None = None):
    """One L-BFGS-B run that records every accepted iterate (∇TSVM, cS3VM, QN-S3VM stages).

    The run stops when the largest entry of the gradient is at most ``tol`` (scipy's
    ``gtol``), when the relative decrease of the objective is at most ``ftol`` (scipy's own
    default when None), or after ``max_iter`` iterations.

    ``evaluate(x)`` returns anything from which ``split`` takes ``(value, gradient)``; the
    evaluation scipy already made at an accepted iterate is reused rather than repeated.

    Returns ``(path, x, hit_limit)``: ``path`` lists ``(x_k, evaluate(x_k))`` for the accepted
    iterates k = 1, 2, ..., ``x`` is the minimizer found and ``hit_limit`` tells whether the
    iteration limit stopped the run (scipy's status 1).
    """
    last = {}

    def fun(x):
        last["x"], last["out"] = np.array(x, copy=True), evaluate(x)
        return split(last["out"])

    path = []

    def record(intermediate_result):
        x = np.array(intermediate_result.x, copy=True)  # scipy reuses its iterate buffer
        same = "x" in last and np.array_equal(last["x"], x)
        path.append((x, last["out"] if same else evaluate(x)))

    options = {"maxcor": int(memory), "maxiter": int(max_iter), "gtol": tol}
    if ftol is not None:
        options["ftol"] = ftol
    result = minimize(fun, np.array(x0, dtype=float), jac=True, method="L-BFGS-B",
                      callback=record, options=options)
    return path, np.array(result.x, copy=True), result.status == 1


@dataclass(frozen=True, slots=True)
class PathPoint:
    """A point of a schedule of L-BFGS paths, for the solver to turn into a ``SolverState``.

    ``event`` is "init" (the start, evaluated with the first stage's objective), "iter" (an
    accepted iterate; ``iteration`` counts them from 1 within the stage) or "stage_end" (the
    stage's minimizer; ``iteration`` is the number of its iterates). ``evaluation`` is what the
    stage's objective returned at ``x``.
    """

    event: str
    stage_index: int
    stage_value: float
    iteration: int
    x: np.ndarray
    evaluation: object


def lbfgs_schedule(values: Iterable[float], objective: Callable, x0, record: Callable, *,
                   solver: str, parameter: str, max_iter: int, tol: float, memory: int = 10,
                   split=lambda out: out, ftol: float | None = None):
    """Minimize ``objective(v)`` for each ``v`` of ``values`` in turn, each stage by
    ``lbfgs_path`` from the previous stage's minimizer (the first from ``x0``), and yield
    ``record(point)`` for every ``PathPoint``: the solver's ``SolverState``.

    Parameters
    ----------
    values : iterable of float
        The stage values (gamma, alpha, C* ...), in the order of the schedule.
    objective : callable
        ``objective(v)`` is the stage's ``evaluate`` for ``lbfgs_path``.
    x0 : ndarray
        The start.
    record : callable
        ``record(point: PathPoint) -> SolverState``.
    solver, parameter : str
        Names for the warning: the estimator and its stage parameter.
    max_iter, tol, memory, split, ftol
        As for ``lbfgs_path``, the same for every stage.

    Yields
    ------
    SolverState
        ``record`` of "init", then of each stage's "iter" points and its "stage_end".

    Returns
    -------
    PathPoint
        The last "stage_end": the schedule's minimizer, from which the solver builds its
        "final" state. When the iteration limit stopped any
        stage, one ``ConvergenceWarning`` names those stages.
    """
    values = [float(v) for v in values]
    x = np.array(x0, dtype=float)
    yield record(PathPoint("init", 0, values[0], 0, x, objective(values[0])(x)))
    limited = []
    for index, value in enumerate(values):
        evaluate = objective(value)
        path, x, hit_limit = lbfgs_path(evaluate, x, max_iter=max_iter, tol=tol, memory=memory,
                                        split=split, ftol=ftol)
        for iteration, (x_k, out) in enumerate(path, start=1):
            yield record(PathPoint("iter", index, value, iteration, x_k, out))
        if hit_limit:
            limited.append(value)
        # the minimizer is the last accepted iterate, already evaluated on the path
        end = path[-1][1] if path and np.array_equal(path[-1][0], x) else evaluate(x)
        last = PathPoint("stage_end", index, value, len(path), x, end)
        yield record(last)
    if limited:
        warnings.warn(
            f"{solver} stopped L-BFGS at max_iter={max_iter} iterations before it converged "
            f"in {len(limited)} of its {len(values)} stages ({parameter} = "
            f"{', '.join(f'{v:.3g}' for v in limited)}); increase max_iter, or tol.",
            ConvergenceWarning, stacklevel=2,
        )
    return last
