"""Cached data generation and solver runs: one run per (data, labels, solver, parameters).

Every run is a ``ui.jobs.Job``: the solver works in a child process within a time budget, can
be stopped, and is ended when nobody waits for it any more. A Watch page run (``TraceJob``)
receives every state of the trace as it comes and a preview of the latest boundary, then the
frames the player shows; sessions asking for the same run share it, and a rerun of the page in
the middle of a solve (a widget touched) finds it still running.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from ui import state
from ui.jobs import ABANDONED, CRASHED, FINISHED, OUT_OF_TIME, QUEUED, STOPPED, Job
from ui.params import DEFAULT_BUDGET
from ui.work import Run, build_dataset, call_work, trace_work

#: Budget of a teaching page's computation (seconds).
LESSON_BUDGET = 120.0
#: Seconds between two previews of a running solver on the Watch page.
PREVIEW_EVERY = 0.5
#: Above this many points previews come less often, in proportion to n (2 s at n = 2000).
PREVIEW_POINTS = 500
#: Seconds a page opened afresh waits before it draws a running solver's preview. A plotly chart
#: arriving with a new page's first elements kept the browser from loading its widgets (they
#: stayed grey placeholders, Stop included, for as long as previews came; seen when a second
#: visitor opened a link to a run in progress).
FRESH_PAGE_SETTLE = 4.0
#: Most jobs kept (finished or not), and most bytes their results may hold together (their
#: arrays and films, ``nbytes_of``); older finished ones are forgotten first. A class of 40,
#: each student following a run of their own, keeps every run: DA's at n = 400 holds about
#: 2 MB with its film, at n = 2,000 about 10 MB. (A run forgotten while its page is open is
#: run again on the page's next rerun.)
KEPT_RUNS = 64
KEPT_BYTES = 512 * 2**20


dataset = st.cache_data(max_entries=16, show_spinner=False)(build_dataset)


class TraceJob(Job):
    """A solver's trace in a child process (``ui.work.trace_work``), as the Watch page sees
    it while it runs: ``states`` so far, the display grid's axes and the latest preview."""

    def __init__(self, data: tuple, labels: tuple, solver: str, params: tuple, budget: float):
        self.states: list = []
        self.grid: tuple | None = None       # (grid_x, grid_y) once the trace has started
        self.preview: str | None = None      # the latest preview's figure (JSON)
        self.result: Run | None = None
        # A preview's cost in the browser grows with n: at n = 2000, previews every 0.5 s
        # kept a busy browser (software rendering, loaded cores) from loading a new page.
        every = PREVIEW_EVERY * max(1.0, len(labels) / PREVIEW_POINTS)
        super().__init__(trace_work, (data, labels, solver, params, every), budget)

    def receive(self, message: tuple) -> None:
        kind = message[0]
        if kind == "grid":
            self.grid = None if message[1] is None else message[1:]
        elif kind == "state":
            self.states.append(message[1])
        elif kind == "preview":
            self.preview = message[2]
        elif kind == "frames":
            frames, grids, points, seconds, films = message[1:]
            grid_x, grid_y = self.grid if self.grid is not None else (None, None)
            # the pipe keeps order: every state the child recorded has arrived before this
            self.result = Run(list(self.states), seconds, frames, grid_x, grid_y, grids, points,
                              self._stop_reason or FINISHED, self.budget, films)
            self.nbytes = nbytes_of(self.result)


class CallJob(Job):
    """Any other computation of a page in a child process (``ui.work.call_work``): its
    ``result`` and, for a function that reports it, its ``progress`` ``(done, total)``."""

    finish_grace = 0.0  # nothing to hand over: a stopped computation ends at once

    def __init__(self, function: Callable, args: tuple, budget: float,
                 with_progress: bool = False, parallel: bool = False):
        self.result = None
        self.progress: tuple[int, int] | None = None
        self.daemon = not parallel
        super().__init__(call_work, (function, args, with_progress), budget)

    def receive(self, message: tuple) -> None:
        if message[0] == "progress":
            self.progress = message[1:]
        elif message[0] == "result":
            self.result = message[1]
            self.nbytes = nbytes_of(self.result)


class _Shelf:
    """The app's jobs by key, shared by every session; the most recently asked for are kept
    (``KEPT_RUNS``, ``KEPT_BYTES``).

    A job that was abandoned or whose process crashed is not kept: asked for again, it starts
    anew. A failed one is kept (the same input fails the same way).
    """

    def __init__(self):
        self._jobs: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, make: Callable[[], Job]) -> Job:
        with self._lock:
            job = self._jobs.get(key)
            if job is None or job.status in (ABANDONED, CRASHED):
                job = self._jobs[key] = make()
            self._jobs.move_to_end(key)
            held = sum(j.nbytes for j in self._jobs.values())
            for old in [k for k, j in self._jobs.items() if j.done and k != key]:
                if len(self._jobs) <= KEPT_RUNS and held <= KEPT_BYTES:
                    break
                held -= self._jobs.pop(old).nbytes
            return job

    def find(self, key) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def forget(self, key) -> None:
        with self._lock:
            job = self._jobs.pop(key, None)
        if job is not None:
            job.stop()


def nbytes_of(value, depth: int = 6) -> int:
    """About how many bytes ``value`` holds in arrays, strings and bytes (a run's states,
    frames and film; a lesson's fitted models and rows), looking ``depth`` containers deep."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, str | bytes):
        return len(value)
    if depth == 0:
        return 0
    if isinstance(value, Mapping):
        value = list(value.values())
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        value = list(vars(value).values())
    elif hasattr(value, "__slots__"):
        value = [getattr(value, name, None) for name in value.__slots__]
    if isinstance(value, list | tuple):
        return sum(nbytes_of(item, depth - 1) for item in value)
    return 0


@st.cache_resource(show_spinner=False)
def _shelf() -> _Shelf:
    return _Shelf()


def run_key(data: tuple, labels: tuple, solver: str, params: tuple) -> tuple:
    return ("trace", data, labels, solver, params)


def start_run(data: tuple, labels: tuple, solver: str, params: tuple,
              budget: float = DEFAULT_BUDGET) -> TraceJob:
    """The (shared) run of ``solver`` on the data set ``data`` with ``labels`` (``-1`` =
    unlabeled), started if it is not running or kept already."""
    return _shelf().get(run_key(data, labels, solver, params),
                        lambda: TraceJob(data, labels, solver, params, budget))


def stop_job(key: tuple) -> None:
    """Stop the job ``key`` (a run's: the page gets the path so far)."""
    if (job := _shelf().find(key)) is not None:
        job.stop()


def forget_job(key: tuple) -> None:
    """Forget the job ``key``, so that asking for it again runs it anew."""
    _shelf().forget(key)


@contextlib.contextmanager
def _stopped_with_the_script(job: Job):
    """Stop ``job`` when Streamlit's own Stop (top right) ends the page's script while it
    waits: as the page's Stop button would, so that the solver's process ends and the next
    run of the page shows the path so far. (A click on a widget meanwhile is a rerun, which
    finds the job still running: the app runs without fast reruns, .streamlit/config.toml.)"""
    try:
        yield
    except StopException:
        job.stop()
        raise


def follow_run(job: TraceJob, preview: Callable[[TraceJob], None] | None = None,
               status: Callable[[Job], None] | None = None, settle: float = 0.0) -> Run:
    """Wait for ``job``'s run; between its messages ``preview(job)`` is called when a new
    preview has arrived (not in the first ``settle`` seconds) and ``status(job)`` at least
    every quarter of a second (a page that draws something there can be interrupted by a
    click). Raises the solver's ``ValueError``."""
    shown, started = None, time.monotonic()
    with _stopped_with_the_script(job):
        while not job.done:
            job.wait(0.25)
            settled = time.monotonic() - started >= settle
            if (settled and preview is not None and job.preview is not None
                    and job.preview is not shown):
                shown = job.preview
                preview(job)
            if status is not None and not job.done:
                status(job)
    if job.error is not None:
        raise ValueError(job.error)
    if job.result is None:
        raise ValueError("The run ended before the solver reached its first state: there is "
                         "no path to show. Press Run again, with a longer time budget.")
    return job.result


def run_solver(data: tuple, labels: tuple, solver: str, params: tuple,
               preview: Callable[[TraceJob], None] | None = None,
               budget: float = DEFAULT_BUDGET) -> Run:
    """The run of ``solver`` (see ``start_run``), waited for; a finished run is computed once
    per arguments."""
    return follow_run(start_run(data, labels, solver, params, budget), preview)


def lesson_key(function: Callable, args: tuple) -> tuple:
    return ("call", function.__module__, function.__qualname__, args)


def start_lesson(function: Callable, args: tuple, with_progress: bool = False,
                 parallel: bool = False) -> CallJob:
    """``function(*args)`` (a ``ui.lessons`` function) in a child process within
    ``LESSON_BUDGET``, shared and kept like the runs."""
    return _shelf().get(lesson_key(function, args), lambda: CallJob(
        function, args, LESSON_BUDGET, with_progress, parallel))


def follow_lesson(job: CallJob, progress: Callable[[int, int], None] | None = None,
                  status: Callable[[Job], None] | None = None):
    """Wait for ``job`` and return its result, reporting ``progress(done, total)`` as it
    comes; raises ``ValueError`` with a sentence when it failed or ended early."""
    reported = None
    with _stopped_with_the_script(job):
        while not job.done:
            job.wait(0.25)
            if progress is not None and job.progress is not None and job.progress != reported:
                reported = job.progress
                progress(*reported)
            if status is not None and not job.done:
                status(job)
    if job.status == FINISHED:
        return job.result
    if job.status in (STOPPED, OUT_OF_TIME):
        reason = ("it was stopped" if job.status == STOPPED
                  else f"it reached its time budget of {job.budget:g} s")
        raise ValueError(f"This computation ended early: {reason}. Press Run again to start "
                         "it over, or try fewer points.")
    raise ValueError(job.error or "The computation ended unexpectedly.")


def job_controls(job: Job, key: tuple, note: str | None = None):
    """A Stop button and a status line (and ``note`` below them) for a job that is still
    running: ``(place, show_status)``. ``place.empty()`` removes them; ``show_status(job)``
    keeps the line current (and lets a click on Stop interrupt the page's wait)."""
    place = st.empty()
    if job.done:  # drawn at once: no Stop to flash by
        return place, lambda _: None
    with place.container():
        stop, line = st.columns([1, 5], vertical_alignment="center")
        stop.button("Stop", icon=":material/stop_circle:", on_click=stop_job, args=(key,),
                    key=f"stop:{hash(key)}", help="End this computation now.")
        status = line.empty()
        if note:
            st.info(note)

    shown = None

    def show_status(live: Job) -> None:
        nonlocal shown
        if live.status == QUEUED:
            ahead = live.ahead()
            text = (f"Waiting for a free solver process ({ahead} "
                    f"computation{'' if ahead == 1 else 's'} ahead of this one)…")
        else:
            text = f"{live.seconds:.0f} s of its {live.budget:g} s time budget"
            if isinstance(live, TraceJob):
                n = len(live.states)
                text += f" · {n} state{'' if n == 1 else 's'} so far"
        if text != shown:  # a message to the browser only when the line changes
            shown = text
            status.caption(text)

    return place, show_status


def again_button(key: tuple, where=st) -> None:
    """"Run again": forget the job ``key`` so that the page starts it over."""
    where.button("Run again", icon=":material/replay:", on_click=forget_job, args=(key,),
                 key=f"again:{hash(key)}", help="Start this computation over.")


def computed(function: Callable, *args, what: str,
             progress: Callable[[int, int], None] | None = None, parallel: bool = False):
    """The result of a teaching page's computation ``function(*args)`` (``ui.lessons``),
    with a spinner, a Stop button and its time while it runs; when it fails or ended early,
    the page shows why (with "Run again") and stops there, keeping the user's labels."""
    key = lesson_key(function, args)
    job = start_lesson(function, args, with_progress=progress is not None, parallel=parallel)
    place, show_status = job_controls(job, key)
    try:
        with st.spinner(what, show_time=True):
            result = follow_lesson(job, progress, show_status)
    except ValueError as error:
        place.empty()
        st.error(f"{error}")
        if job.status in (STOPPED, OUT_OF_TIME):
            again_button(key)
        st.stop()
    place.empty()
    return result


def boundary_panel(title: str, state, grid):
    """``(title, decision on the grid or None, decision on the points)`` of one state, for
    ``figures.boundary_multiples_figure``; ``grid`` comes from ``ui.work.grid_features``."""
    from s3vm_core import decision_on_grid

    if grid is None:
        return title, None, state.train_decision
    grid_x, grid_y, features = grid
    decision = decision_on_grid(features, [state])[0].reshape(len(grid_y), len(grid_x))
    return title, decision, state.train_decision


def current_data():
    """``(X, y_true, X_2d, labels)`` of the session's data set; on bad settings, an error
    message and a stopped page (the labels are kept)."""
    try:
        X, y_true, X2 = dataset(*state.data_description())
    except ValueError as error:
        st.error(f"{error} Change the data settings in the sidebar.")
        st.stop()
    return X, y_true, X2, state.labels(y_true)
