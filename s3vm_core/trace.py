"""The optimization path: one ``SolverState`` per recorded step, and decisions on a grid.

Every estimator's ``trace(X, y)`` yields ``SolverState`` objects. Between ``features(X_new)``
(available as soon as the trace has started) and a state, the decision function is linear::

    f(X_new) = features(X_new) @ state.coef + state.intercept

except for the "setup" states that a long setup (LDS, the graph kernel) yields before the feature
map exists: they have no model yet, an empty ``coef`` and the decision 0 everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

#: The outer parameters of the solvers' paths; S4VM's are its steps: its local searches
#: ("candidate"), the candidates kept by the grouping ("group") and the safe choice ("safe").
STAGES = ("setup", "C_star", "gamma", "alpha", "T", "newton", "pcg", "fit", "bound",
          "candidate", "group", "safe")
EVENTS = ("init", "iter", "stage_end", "final")


def frozen(a) -> np.ndarray:
    """A read-only float copy. Optimizers reuse their buffers, so every state owns its arrays.

    The copy lives in an immutable ``bytes`` buffer, so its ``writeable`` flag cannot be set
    back to True (numpy refuses for an array that does not own writeable memory).
    """
    a = np.asarray(a, dtype=float)
    return np.frombuffer(np.ascontiguousarray(a).tobytes(), dtype=float).reshape(a.shape)


def _frozen_extra(value):
    return frozen(value) if isinstance(value, np.ndarray) else float(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class SolverState:
    """One recorded point of a solver's path (docs/architecture.md, "Tracing").

    Attributes
    ----------
    step : int
        Position in the whole unthinned trace: 0, 1, 2, ...
    stage : str
        The outer parameter being varied: one of ``STAGES``. ``"setup"``: a progress report
        of a long setup, before the solver's feature map and model exist; its ``coef`` is
        empty and its decision 0 everywhere (``intercept`` 0, ``train_decision`` zeros),
        ``stage_index`` is the setup's phase and ``extras["done"]`` of ``extras["total"]``
        how far that phase has come (the phases are documented per solver).
    stage_index : int
        Index of the stage (0 for the first C*, gamma, alpha or T).
    stage_value : float
        The outer parameter's value (``nan`` where there is none).
    iteration : int
        Inner iteration within the stage.
    event : str
        ``"init"``, ``"iter"``, ``"stage_end"`` or ``"final"``.
    coef, intercept
        The decision function in feature space: ``features(X) @ coef + intercept``.
    objective : float
        The objective minimized at this stage (smoothed L_gamma, J_T, ...).
    grad_norm : float
        Euclidean norm of its gradient (``nan`` where not defined).
    train_decision : ndarray
        f on the training points, in the caller's order.
    extras : Mapping
        Solver-specific values, documented per solver.
    """

    step: int = 0
    stage: str
    stage_index: int = 0
    stage_value: float = math.nan
    iteration: int = 0
    event: str = "iter"
    coef: np.ndarray
    intercept: float
    objective: float = math.nan
    grad_norm: float = math.nan
    train_decision: np.ndarray
    extras: Mapping[str, float | np.ndarray] = field(default_factory=dict)

    def __post_init__(self):
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, got {self.stage!r}")
        if self.event not in EVENTS:
            raise ValueError(f"event must be one of {EVENTS}, got {self.event!r}")
        set_ = object.__setattr__  # the dataclass is frozen; normalise once, here
        set_(self, "coef", frozen(self.coef))
        set_(self, "train_decision", frozen(self.train_decision))
        set_(self, "intercept", float(self.intercept))
        set_(self, "stage_value", float(self.stage_value))
        set_(self, "objective", float(self.objective))
        set_(self, "grad_norm", float(self.grad_norm))
        extras = {k: _frozen_extra(v) for k, v in self.extras.items()}
        set_(self, "extras", MappingProxyType(extras))

    def with_step(self, step: int) -> SolverState:
        return replace(self, step=step)

    def __reduce__(self):
        # A state crosses process boundaries (the app solves in child processes); the extras'
        # read-only mapping cannot be pickled, and rebuilding re-freezes the arrays.
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        fields["extras"] = dict(self.extras)
        return _rebuild_state, (fields,)


def _rebuild_state(fields: dict) -> SolverState:
    return SolverState(**fields)


def thin(states: Iterable[SolverState], every: int = 1):
    """Number the states 0, 1, 2, ... and keep every ``every``-th "iter" event.

    "init", "stage_end" and "final" events are always kept; ``step`` stays the position in the
    unthinned trace so thinned and full traces can be compared.
    """
    for step, state in enumerate(states):
        if state.event != "iter" or every <= 1 or state.iteration % every == 0:
            yield state.with_step(step)


def decision_on_grid(features: np.ndarray, states: Iterable) -> np.ndarray:
    """Decision values of every state at every row of ``features`` in one matrix product.

    Parameters
    ----------
    features : ndarray or sparse matrix of shape (n_points, p)
        ``estimator.features(X_points)``, computed once per fit.
    states : iterable of SolverState, or of OneVsRestState
        A ``OneVsRestState`` has one column of ``coef`` and one ``intercept`` per class.

    Returns
    -------
    ndarray of shape (n_states, n_points), or (n_states, n_points, k) for k classes
    """
    states = list(states)
    n = features.shape[0]
    # a "setup" state has no model yet: its decision is its intercept, 0
    with_model = [i for i, s in enumerate(states) if np.size(s.coef)]
    classes = np.shape(states[with_model[0]].intercept) if with_model else ()
    values = np.empty((len(states), n, *classes))
    for i, s in enumerate(states):
        values[i] = s.intercept
    if with_model:
        coefs = np.stack([states[i].coef for i in with_model], axis=1)  # (p, m) or (p, m, k)
        products = np.asarray(features @ coefs.reshape(coefs.shape[0], -1))
        values[with_model] += np.moveaxis(products.reshape(n, *coefs.shape[1:]), 0, 1)
    return values
