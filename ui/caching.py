"""Cached data generation and solver runs: one solver run per (data, labels, solver, parameters).

A run keeps every state of the trace, the feature map of the display grid (computed once per
fit) and the decision values of the frames the player shows. It is recorded in time slices
(``LiveRun``), so the Watch page can show the boundary moving while the solver works.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import streamlit as st
from threadpoolctl import threadpool_limits

from s3vm_core import decision_on_grid
from toy_data import make_dataset, project_2d
from ui.widgets import make_estimator

#: Most frames sent to the browser for client-side playback; together with GRID_SIZE this keeps
#: a figure under ~2 MB.
MAX_FRAMES = 60
GRID_SIZE = 60


@st.cache_data(max_entries=16, show_spinner=False)
def dataset(name: str, n_samples: int, noise: float, seed: int, added: tuple = ()):
    """``(X, y_true, X_2d)``: the data, its true labels and the 2-D view drawn on screen.

    ``added`` holds the points the user added by clicking, ``(x, y, true class)`` each; they
    come after the generated ones (2-D data sets only: a click gives two coordinates).
    """
    X, y = make_dataset(name, n_samples, noise, random_state=seed)
    if added:
        if X.shape[1] != 2:
            raise ValueError(f"Points can be added to 2-D data sets only; {name} has "
                             f"{X.shape[1]} dimensions.")
        extra = np.asarray(added, dtype=float).reshape(-1, 3)
        X = np.vstack([X, extra[:, :2]])
        y = np.concatenate([y, extra[:, 2].astype(y.dtype)])
    return X, y, project_2d(X)


@dataclass(frozen=True)
class Run:
    """A finished trace, ready to draw."""

    states: list
    estimator: object
    seconds: float
    frames: np.ndarray              # indices into states shown by the player
    grid_x: np.ndarray | None       # grid axes (2-D data only)
    grid_y: np.ndarray | None
    grid_decisions: np.ndarray | None  # (n_frames, len(grid_y), len(grid_x)), float32
    point_decisions: np.ndarray     # (n_frames, n_points): f on the training points

    def frame_of(self, state_index: int) -> int:
        """Position of the player frame closest to (at or before) a state."""
        return int(np.searchsorted(self.frames, state_index, side="right") - 1)


def pick_frames(states, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """Evenly spread frames over the trace, always keeping stage ends and the final state."""
    n = len(states)
    if n <= max_frames:
        return np.arange(n)
    milestones = [i for i, s in enumerate(states) if s.event in ("init", "stage_end", "final")]
    if len(milestones) >= max_frames:
        keep = np.linspace(0, len(milestones) - 1, max_frames).round().astype(int)
        return np.unique(np.asarray(milestones)[keep])
    spread = np.linspace(0, n - 1, max_frames - len(milestones)).round().astype(int)
    return np.unique(np.r_[milestones, spread])


def display_grid(X2: np.ndarray, size: int = GRID_SIZE):
    """Axes of a square grid covering the points with a 10% margin."""
    low, high = X2.min(axis=0), X2.max(axis=0)
    pad = 0.1 * np.maximum(high - low, 1e-9)
    return (np.linspace(low[0] - pad[0], high[0] + pad[0], size),
            np.linspace(low[1] - pad[1], high[1] + pad[1], size))


def grid_features(estimator, X, X2, size: int = GRID_SIZE):
    """``(grid_x, grid_y, features)`` of a display grid for 2-D data, else None.

    The features are computed once per fit; every state's decision on the grid is then one
    matrix-vector product (``decision_on_grid``).
    """
    if X.shape[1] != 2:
        return None
    grid_x, grid_y = display_grid(X2, size)
    xx, yy = np.meshgrid(grid_x, grid_y)
    return grid_x, grid_y, estimator.features(np.column_stack([xx.ravel(), yy.ravel()]))


def boundary_panel(title: str, state, grid):
    """``(title, decision on the grid or None, decision on the points)`` of one state, for
    ``figures.boundary_multiples_figure``; ``grid`` comes from ``grid_features``."""
    if grid is None:
        return title, None, state.train_decision
    grid_x, grid_y, features = grid
    decision = decision_on_grid(features, [state])[0].reshape(len(grid_y), len(grid_x))
    return title, decision, state.train_decision


#: Solver time between two previews of a running solver on the Watch page (seconds).
PREVIEW_EVERY = 0.5
#: The first slice is short, so even a slow solver shows its starting boundary at once.
FIRST_PREVIEW = 0.05


class LiveRun:
    """One solver run, recorded in time slices so the page can draw it while it runs.

    ``start_run`` caches it per (data, labels, solver, parameters): a rerun in the middle of a
    solve (a widget touched meanwhile) picks the trace up where it stopped, and sessions asking
    for the same run share it; the lock lets one of them record at a time.
    """

    def __init__(self, data: tuple, labels: tuple, solver: str, params: tuple):
        X, _, X2 = dataset(*data)
        self.estimator = make_estimator(solver, dict(params))
        # trace() validates and sets the feature map up before its first state: bad input
        # raises its ValueError here, and the display grid's features can be computed now.
        self._trace = self.estimator.trace(X, np.asarray(labels))
        self.grid = grid_features(self.estimator, X, X2)
        self.states: list = []
        self.seconds = 0.0
        self.result: Run | None = None
        self._error: ValueError | None = None
        self._lock = threading.Lock()

    def advance(self, seconds: float) -> Run | None:
        """Record states for about ``seconds`` of solver time; the finished ``Run`` once the
        trace is exhausted, else None."""
        with self._lock:
            if self._error is not None:
                raise self._error
            if self.result is not None:
                return self.result
            finished = False
            start = time.perf_counter()
            # One BLAS thread: the app's matrices are small, and the browser drawing the last
            # film shares the cores; threaded BLAS then spends its time waiting for them.
            try:
                with threadpool_limits(limits=1):
                    for state in self._trace:
                        self.states.append(state)
                        if time.perf_counter() - start >= seconds:
                            break
                    else:
                        finished = True
            except ValueError as error:
                self._error = error
                raise
            finally:
                self.seconds += time.perf_counter() - start
            if finished:
                self.result = self._finish()
                self._trace = None
            return self.result

    def latest_panel(self, title: str):
        """``boundary_panel`` of the last recorded state."""
        return boundary_panel(title, self.states[-1], self.grid)

    def _finish(self) -> Run:
        frames = pick_frames(self.states)
        shown = [self.states[i] for i in frames]
        point_decisions = np.stack([s.train_decision for s in shown]).astype(np.float32)
        grid_x = grid_y = grid_decisions = None
        if self.grid is not None:
            grid_x, grid_y, features = self.grid
            grid_decisions = decision_on_grid(features, shown).astype(np.float32)
            grid_decisions = grid_decisions.reshape(len(shown), len(grid_y), len(grid_x))
        return Run(self.states, self.estimator, self.seconds, frames, grid_x, grid_y,
                   grid_decisions, point_decisions)


@st.cache_resource(max_entries=16, show_spinner=False)
def start_run(data: tuple, labels: tuple, solver: str, params: tuple) -> LiveRun:
    """The (cached) run of ``solver`` on the data set ``data`` with ``labels`` (``-1`` =
    unlabeled). Raises the solver's ``ValueError`` unchanged; failures are not cached."""
    return LiveRun(data, labels, solver, params)


def run_solver(data: tuple, labels: tuple, solver: str, params: tuple,
               preview: Callable[[LiveRun], None] | None = None) -> Run:
    """The finished run of ``solver`` (see ``start_run``), computed once per arguments.

    ``preview(live)`` is called between time slices while the solver runs, with at least one
    new state recorded since the last call.
    """
    live = start_run(data, labels, solver, params)
    budget = FIRST_PREVIEW
    while (run := live.advance(budget)) is None:
        if preview is not None:
            preview(live)
        budget = PREVIEW_EVERY
    return run


def current_data():
    """``(X, y_true, X_2d, labels)`` of the session's data set; on bad settings, an error
    message and a stopped page (the labels are kept)."""
    from ui import state

    try:
        X, y_true, X2 = dataset(*state.data_description())
    except ValueError as error:
        st.error(f"{error} Change the data settings in the sidebar.")
        st.stop()
    return X, y_true, X2, state.labels(y_true)
