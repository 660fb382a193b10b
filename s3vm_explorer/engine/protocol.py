"""The messages between a run's process and the app, and the ``Run`` they assemble: one
definition that both sides use.

A job's work (``engine.jobs``) runs in a child process or on a Dask worker and sends these
messages in order through its channel; the app folds them into the job (``Job.receive``). The
app's one message the other way is ``FINISH``: hand over what you have, then end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

#: The app's request to a job's work: hand over what you have, then end.
FINISH = "finish"

#: How a job ended: its work was done, it was stopped, it reached its time budget, nobody
#: waited for it any more, or its process died. ``QUEUED`` and ``RUNNING`` are not final.
QUEUED, RUNNING = "queued", "running"
FINISHED, FAILED, STOPPED, OUT_OF_TIME, ABANDONED, CRASHED = (
    "finished", "failed", "stopped", "out of time", "abandoned", "crashed")
FINAL = (FINISHED, FAILED, STOPPED, OUT_OF_TIME, ABANDONED, CRASHED)


@dataclass(frozen=True)
class RunRequest:
    """What the Watch page asks a solver's process to trace: the data (``engine.data``
    source), the labels (``-1`` = unlabeled), the solver's name and its parameters as sorted
    ``(name, value)`` pairs. Hashable: it is the run's key in the shared cache of runs."""

    source: object
    labels: tuple
    solver: str
    params: tuple


@dataclass(frozen=True, slots=True)
class StateReached:
    """One state of the trace, as it comes."""

    state: object


@dataclass(frozen=True, slots=True)
class Preview:
    """The boundary of the latest state while the solver runs: ``figure`` is plotly JSON
    (built in the run's process), ``index`` the state's."""

    index: int
    figure: str


@dataclass(frozen=True, slots=True)
class Baseline:
    """The supervised SVM's answer beside a film: its f on the display grid and on the
    training points (one column per class one-vs-rest), and which SVM it is, in a line
    (``engine.metrics.fair_svm_sentence``)."""

    grid: np.ndarray
    decision: np.ndarray
    description: str = ""


@dataclass(frozen=True)
class RunFinished:
    """The end of a trace (complete, or the path so far when asked to finish): the states the
    player shows (``frames``, indices into the states), f at those states on the display grid
    ``(n_frames, ny, nx)`` (one-vs-rest: ``(n_frames, k, ny, nx)``) and on the points, the
    solver's own seconds, its warnings as sentences (once each), the supervised SVM's
    ``baseline`` and the player's arguments (``films``, by whether the baseline is drawn)."""

    frames: np.ndarray
    grid_x: np.ndarray
    grid_y: np.ndarray
    grid_decisions: np.ndarray
    point_decisions: np.ndarray
    seconds: float
    warnings: tuple[str, ...] = ()
    baseline: Baseline | None = None
    films: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Progress:
    """A computation's progress: ``done`` of ``total`` parts."""

    done: int
    total: int


@dataclass(frozen=True, slots=True)
class Result:
    """A computation's result."""

    value: object


@dataclass(frozen=True, slots=True)
class Failed:
    """The work failed: ``message`` says why, in a sentence for the page."""

    message: str


@dataclass(frozen=True, slots=True)
class Ended:
    """The work is over: nothing follows."""


@dataclass(frozen=True, kw_only=True)
class Run(RunFinished):
    """A trace ready to draw: its end (``RunFinished``) with every state that led there, and
    how it ended (``ended``: the whole path, or the path so far when it was stopped or ran out
    of its ``budget``)."""

    states: list
    ended: str = FINISHED           # or STOPPED / OUT_OF_TIME: the path so far
    budget: float = math.inf

    @classmethod
    def assemble(cls, states, finished: RunFinished, ended: str = FINISHED,
                 budget: float = math.inf) -> Run:
        """The run of ``states`` (every state the process recorded, in order) and its end:
        the one place a run is put together, in the app and in the run's process."""
        end = {f.name: getattr(finished, f.name) for f in fields(RunFinished)}
        return cls(**end, states=list(states), ended=ended, budget=float(budget))

    def frame_of(self, state_index: int) -> int:
        """Position of the player frame closest to (at or before) a state."""
        return int(np.searchsorted(self.frames, state_index, side="right") - 1)

    @property
    def complete(self) -> bool:
        return self.ended == FINISHED
