"""The teaching pages' and the Compare page's computations.

Each is a module-level function of the data description and the page's settings that returns
plain values, so that ``ui.caching.computed`` can run it in a child process (bounded, stoppable,
see ``ui.jobs``) and keep its result for every session.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from toy_data import UNLABELED
from ui.work import build_dataset, grid_features

#: Resolution of the teaching pages' small boundary panels.
GRID = 40


def continuation_run(data: tuple, labels: tuple, C: float):
    """Trace cS3VM (C* = C, §4) on the data; the fitted model, its states, the time and the
    display grid's features."""
    from s3vm_core.solvers.continuation import ContinuationS3VM

    X, _, X2 = build_dataset(*data)
    model = ContinuationS3VM(C=C)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning still leaves a usable path
        states = list(model.trace(X, np.asarray(labels)))
    seconds = time.perf_counter() - start
    return model, states, seconds, grid_features(model, X, X2, GRID)


def _anneal(X, labels, **params):
    from s3vm_core.solvers.annealing import DeterministicAnnealingS3VM

    model = DeterministicAnnealingS3VM(**params)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # Fixed T stops after one temperature by design, which the solver reports as a
        # ConvergenceWarning (entropy not yet below eps); the state is still the answer.
        warnings.simplefilter("ignore")
        states = list(model.trace(X, np.asarray(labels)))
    return model, states, time.perf_counter() - start


def annealing_run(data: tuple, labels: tuple, loss: str, lam: float):
    """DA with Table 1's schedule (T0 = 10, R = 1.5): model, states, seconds, grid features."""
    X, _, X2 = build_dataset(*data)
    model, states, seconds = _anneal(X, labels, loss=loss, lam=lam)
    return model, states, seconds, grid_features(model, X, X2, GRID)


def fixed_temperature_runs(data: tuple, labels: tuple, loss: str, lam: float,
                           temperatures: tuple) -> list:
    """DA at each fixed temperature (Table 5: no annealing): ``(T, final state, seconds)``."""
    X, _, _ = build_dataset(*data)
    runs = []
    for T in temperatures:
        _, states, seconds = _anneal(X, labels, loss=loss, lam=lam, T0=T, max_stages=1)
        runs.append((T, states[-1], seconds))
    return runs


def early_stopping_run(data: tuple, labels: tuple, gamma_I: float, n_val: int) -> dict:
    """PCG run to the end with every criterion recorded, and the Newton optimum.

    The validation set is ``n_val`` unlabeled training points with their true labels (drawn
    with the data's seed), the labeled validation set of Algorithm 3.
    """
    from s3vm_core import LapSVM

    X, y_true, X2 = build_dataset(*data)
    labels = np.asarray(labels)
    candidates = np.flatnonzero(labels == UNLABELED)
    rng = np.random.default_rng(data[3])
    chosen = rng.choice(candidates, min(n_val, candidates.size), replace=False)
    val = {"X_val": X[chosen], "y_val": y_true[chosen]} if chosen.size else {}
    pcg = LapSVM(solver="pcg", gamma_I=gamma_I)
    states, times = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter without convergence is part of the story
        start = time.perf_counter()
        for s in pcg.trace(X, labels, **val):
            states.append(s)
            times.append(time.perf_counter() - start)
        newton = LapSVM(solver="newton", gamma_I=gamma_I)
        start = time.perf_counter()
        newton_states = list(newton.trace(X, labels))
        newton_seconds = time.perf_counter() - start
    return {"states": states, "times": times, "stops": dict(pcg.stop_iterations_),
            "stopped_by": pcg.stopped_by_, "newton": newton_states[-1],
            "newton_steps": newton.n_iter_, "newton_seconds": newton_seconds,
            "grid": grid_features(pcg, X, X2, GRID), "validation": chosen}


def comparison(data: tuple, k: int, n_per_class: int, solvers: tuple,
               scheduler: str | None = None, progress=None) -> list:
    """Every solver on the data set ``data`` over ``k`` label draws seeded by the data's seed
    (``ui.comparison.compare_solvers``), on the Dask cluster at ``scheduler`` if given."""
    from ui.comparison import compare_solvers

    X, y_true, _ = build_dataset(*data)
    return compare_solvers(X, y_true, solvers, k=k, n_per_class=n_per_class,
                           random_state=data[3], progress=progress, scheduler=scheduler)
