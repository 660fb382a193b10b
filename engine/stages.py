"""What a solver state's stage means to a reader: the film's title, and the state a solver
returned to at the end of its path."""

from __future__ import annotations

import math

import numpy as np

STAGE_NAMES = {"C_star": "C*", "gamma": "γ", "alpha": "α", "T": "T", "newton": "Newton step",
               "pcg": "PCG iteration", "fit": "fit"}


def stage_text(state, returned: bool = False) -> str:
    """The stage a state belongs to, as the film's title: "T = 0.26 · iteration 3". A final
    state that ``returned`` to an earlier one (``returned_state``) is named for what it is:
    "best state of the path, reached at T = 0.26"."""
    name = STAGE_NAMES.get(state.stage, state.stage)
    value = "" if math.isnan(state.stage_value) else f" = {state.stage_value:.3g}"
    if returned:
        return f"best state of the path, reached at {name}{value}"
    if not value:
        return f"{name} · iteration {state.iteration}"
    return f"{name}{value} · iteration {state.iteration}"


def returned_state(states) -> int | None:
    """Index of the earlier state the "final" state repeats when it is not where the path
    ended: deterministic annealing returns the state of lowest objective along its path
    (Sindhwani et al. 2006, §3), whose T is higher than the path's last. None when the final
    state is the path's last (every other solver)."""
    final = states[-1]
    for index in range(len(states) - 2, -1, -1):
        earlier = states[index]
        if (earlier.step < final.step and np.array_equal(earlier.intercept, final.intercept)
                and np.array_equal(earlier.coef, final.coef)):
            return None if index == len(states) - 2 else index
    return None
