"""What the app's child processes compute (``ui.jobs`` runs these functions in them).

``trace_work`` records a solver's trace for the Watch page: every state as it comes, a preview
figure of the latest boundary every ``preview_every`` seconds, and at the end the frames the
player shows and the film itself (``ui.film``), computed here because the display grid's
features (n_grid x p) stay in the child and because the server's interpreter must stay free to
answer every visitor: building the film's figure there held it for a tenth of a second per
run, which forty sessions finishing together turned into seconds without an answer. Asked to
finish early, it hands over the path so far the same way. ``call_work`` runs any other
computation of a page and sends its result.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from s3vm_core import decision_on_grid
from toy_data import class_count, make_dataset, project_2d
from ui.figures import running_figure
from ui.film import Baseline, film_args
from ui.jobs import FINISHED, finish_requested
from ui.solvers import make_estimator

#: Most frames sent to the browser for client-side playback; together with GRID_SIZE this keeps
#: a film's payload small (about 0.25 MB).
MAX_FRAMES = 60
GRID_SIZE = 60


@dataclass(frozen=True)
class Run:
    """A trace ready to draw: the whole path, or the path so far when it ended early."""

    states: list
    seconds: float                  # the solver's own time, measured in its process
    frames: np.ndarray              # indices into states shown by the player
    grid_x: np.ndarray | None       # grid axes (2-D data only)
    grid_y: np.ndarray | None
    grid_decisions: np.ndarray | None  # (n_frames, len(grid_y), len(grid_x)), float32
    point_decisions: np.ndarray     # (n_frames, n_points): f on the training points
    ended: str = FINISHED           # or STOPPED / OUT_OF_TIME: the path so far
    budget: float = math.inf
    #: The player's arguments (``ui.film.film_args``, without the film's id), by whether the
    #: supervised SVM's boundary is drawn; empty for a run made outside the Watch page.
    films: dict = field(default_factory=dict, compare=False)

    def frame_of(self, state_index: int) -> int:
        """Position of the player frame closest to (at or before) a state."""
        return int(np.searchsorted(self.frames, state_index, side="right") - 1)

    @property
    def complete(self) -> bool:
        return self.ended == FINISHED


def build_dataset(name: str, n_samples: int, noise: float, seed: int, added: tuple = (),
                  upload=None):
    """``(X, y_true, X_2d)``: the data, its true labels and the 2-D view drawn on screen.

    ``added`` holds the points the user added by clicking, ``(x, y, true class)`` each; they
    come after the generated ones (2-D data sets only: a click gives two coordinates).
    ``upload`` (``ui.uploads.Upload``) replaces the generator: its ``y_true`` is the file's
    classes, ``-1`` where the file gives none.
    """
    if upload is not None:
        return upload.X, upload.y, project_2d(upload.X)
    X, y = make_dataset(name, n_samples, noise, random_state=seed)
    if added:
        if X.shape[1] != 2:
            raise ValueError(f"Points can be added to 2-D data sets only; {name} has "
                             f"{X.shape[1]} dimensions.")
        extra = np.asarray(added, dtype=float).reshape(-1, 3)
        X = np.vstack([X, extra[:, :2]])
        y = np.concatenate([y, extra[:, 2].astype(y.dtype)])
    return X, y, project_2d(X)


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


def grid_decisions(grid, states) -> np.ndarray:
    """The decision of each state on the display grid, ``(n_states, ny, nx)`` float32; for
    one-vs-rest states the k problems' decisions, ``(n_states, k, ny, nx)``."""
    grid_x, grid_y, features = grid
    values = decision_on_grid(features, states).astype(np.float32)
    if values.ndim == 3:  # (n_states, n_grid, k)
        return np.ascontiguousarray(values.transpose(0, 2, 1)).reshape(
            len(values), values.shape[2], len(grid_y), len(grid_x))
    return values.reshape(len(values), len(grid_y), len(grid_x))


def trace_work(pipe, data: tuple, labels: tuple, solver: str, params: tuple,
               preview_every: float) -> None:
    """Trace ``solver`` on the data set ``data`` (``build_dataset``'s arguments).

    Messages: ``("grid", grid_x, grid_y)`` once the trace has started (None, None for data
    with more than two dimensions); ``("state", state)`` for every state; ``("preview",
    index, figure JSON)`` of the latest state every ``preview_every`` seconds (2-D data); at
    the end ``("frames", frames, grid decisions, point decisions, solver seconds, films)``,
    the films the player shows without and with the supervised SVM's boundary. The solver
    runs in a thread of its own so that a request to finish is heard even inside a long C
    call.
    """
    X, y_true, X2 = build_dataset(*data)
    labels = np.asarray(labels)
    n_classes = class_count(y_true)
    estimator = make_estimator(solver, dict(params), n_classes)
    start = time.perf_counter()
    trace = estimator.trace(X, labels)  # bad input raises its ValueError here
    grid = grid_features(estimator, X, X2)
    pipe.send(("grid", *(grid[:2] if grid is not None else (None, None))))
    states, failure, solved = [], [], threading.Event()

    def solve():
        try:
            for state in trace:
                states.append(state)
        except BaseException as error:  # noqa: BLE001 - handed to the parent below
            failure.append(error)
        finally:
            solved.set()

    threading.Thread(target=solve, daemon=True).start()
    sent, previewed, previewed_at = 0, 0, time.perf_counter()
    while not (solved.is_set() and sent == len(states)):
        if finish_requested(pipe):
            break
        if sent == len(states):
            solved.wait(0.02)
        for state in states[sent:]:
            pipe.send(("state", state))
            sent += 1
        if (grid is not None and sent > previewed
                and time.perf_counter() - previewed_at >= preview_every):
            figure = running_figure(states[sent - 1], sent, grid[:2],
                                    grid_decisions(grid, [states[sent - 1]])[0], X2, labels)
            pipe.send(("preview", sent - 1, figure.to_json()))
            previewed, previewed_at = sent, time.perf_counter()
    seconds = time.perf_counter() - start
    if failure and solved.is_set():
        raise failure[0]
    recorded = states[:sent]
    if not recorded:
        return  # stopped before the first state: nothing to hand over
    frames = pick_frames(recorded)
    shown = [recorded[i] for i in frames]
    points = np.stack([s.train_decision for s in shown]).astype(np.float32)
    grids = grid_decisions(grid, shown) if grid is not None else None
    run = Run(recorded, seconds, frames, *(grid[:2] if grid else (None, None)), grids, points)
    baseline = supervised_baseline(X, X2, labels, n_classes)
    films = {shows: film_args(run, X2, labels, y_true, baseline if shows else None)
             for shows in (False, True)}
    pipe.send(("frames", frames, grids, points, seconds, films))


def supervised_baseline(X, X2, labels, n_classes: int = 2) -> Baseline:
    """The supervised SVM (the solvers' baseline, with its defaults; one-vs-rest for
    ``n_classes`` > 2) on the labeled points: its final f on the display grid and on the
    points."""
    model = make_estimator("SVMBaseline", {}, n_classes)
    last = list(model.trace(X, labels))[-1]
    grid = grid_features(model, X, X2)
    return Baseline(None if grid is None else grid_decisions(grid, [last])[0],
                    last.train_decision)


def call_work(pipe, function, args: tuple, with_progress: bool) -> None:
    """``function(*args)``, its result sent as ``("result", value)``; with ``with_progress``,
    ``function`` also gets ``progress=(done, total) -> None``, sent as ``("progress", done,
    total)``."""
    if with_progress:
        result = function(*args, progress=lambda done, total: pipe.send(
            ("progress", done, total)))
    else:
        result = function(*args)
    pipe.send(("result", result))
