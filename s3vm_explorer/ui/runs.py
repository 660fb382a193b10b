"""The session's side of the app's jobs: the data set built once per source, and waiting on
a run or a computation (``engine.run``) while the page shows its progress, a Stop button and,
for a solver, its latest boundary. Streamlit only: the jobs, their shelf and their lives are
the engine's.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from s3vm_explorer.engine.data import Data, Generated, Upload
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.params import DEFAULT_BUDGET
from s3vm_explorer.engine.protocol import (
    FINISHED,
    OUT_OF_TIME,
    QUEUED,
    STOPPED,
    Run,
    RunRequest,
)
from s3vm_explorer.engine.run.lifecycle import CallJob, Job, Shelf, TraceJob
from s3vm_explorer.ui import state

#: Budget of a teaching page's computation (seconds).
LESSON_BUDGET = 120.0
#: Seconds a page opened afresh waits before it draws a running solver's preview. A plotly chart
#: arriving with a new page's first elements kept the browser from loading its widgets (they
#: stayed grey placeholders, Stop included, for as long as previews came; seen when a second
#: visitor opened a link to a run in progress).
FRESH_PAGE_SETTLE = 4.0


# An upload is hashed by its key (its digest, and whether it is standardized), not by its
# arrays (megabytes, on every rerun).
@st.cache_data(max_entries=16, show_spinner=False,
               hash_funcs={Upload: lambda upload: upload.key})
def dataset(source: Generated | Upload) -> Data:
    """The data of ``source``, built once per source for every session."""
    return source.build()


@st.cache_resource(show_spinner=False)
def _shelf() -> Shelf:
    """The app's jobs (``engine.run.lifecycle.Shelf``), one shelf for every session."""
    return Shelf()


def start_run(request: RunRequest, budget: float = DEFAULT_BUDGET) -> TraceJob:
    """The (shared) run ``request`` (its own key), started if it is not running or kept
    already."""
    return _shelf().get(request, lambda: TraceJob(request, budget))


def stop_job(key) -> None:
    """Stop the job ``key`` (a run's: the page gets the path so far)."""
    if (job := _shelf().find(key)) is not None:
        job.stop()


def forget_job(key) -> None:
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


def _wait(job: Job, each: Callable[[Job, float], None]) -> None:
    """Wait for ``job`` to end, calling ``each(job, seconds waited)`` after every message or
    quarter of a second; Streamlit's Stop while it waits stops the job."""
    started = time.monotonic()
    with _stopped_with_the_script(job):
        while not job.done:
            job.wait(0.25)
            each(job, time.monotonic() - started)


def follow_run(job: TraceJob, preview: Callable[[TraceJob], None] | None = None,
               status: Callable[[Job], None] | None = None, settle: float = 0.0) -> Run:
    """Wait for ``job``'s run; between its messages ``preview(job)`` is called when a new
    preview has arrived (not in the first ``settle`` seconds) and ``status(job)`` at least
    every quarter of a second (a page that draws something there can be interrupted by a
    click). Raises the solver's ``ValueError``."""
    shown = None

    def each(live: TraceJob, waited: float) -> None:
        nonlocal shown
        if (preview is not None and waited >= settle and live.preview is not None
                and live.preview is not shown):
            shown = live.preview
            preview(live)
        if status is not None and not live.done:
            status(live)

    _wait(job, each)
    if job.error is not None:
        raise ValueError(job.error)
    if job.result is None:
        raise ValueError("The run ended before the solver reached its first state: there is "
                         "no path to show. Press Run again, with a longer time budget.")
    return job.result


def run_solver(request: RunRequest, preview: Callable[[TraceJob], None] | None = None,
               budget: float = DEFAULT_BUDGET) -> Run:
    """The run ``request`` (see ``start_run``), waited for; a finished run is computed once
    per request."""
    return follow_run(start_run(request, budget), preview)


def lesson_key(function: Callable, args: tuple) -> tuple:
    return ("call", function.__module__, function.__qualname__, args)


def start_lesson(function: Callable, args: tuple, with_progress: bool = False,
                 parallel: bool = False) -> CallJob:
    """``function(*args)`` (a ``engine.lessons`` function) in a child process within
    ``LESSON_BUDGET``, shared and kept like the runs."""
    return _shelf().get(lesson_key(function, args), lambda: CallJob(
        function, args, LESSON_BUDGET, with_progress, parallel))


def follow_lesson(job: CallJob, progress: Callable[[int, int], None] | None = None,
                  status: Callable[[Job], None] | None = None):
    """Wait for ``job`` and return its result, reporting ``progress(done, total)`` as it
    comes; raises ``ValueError`` with a sentence when it failed or ended early."""
    reported = None

    def each(live: CallJob, _waited: float) -> None:
        nonlocal reported
        if progress is not None and live.progress is not None and live.progress != reported:
            reported = live.progress
            progress(*reported)
        if status is not None and not live.done:
            status(live)

    _wait(job, each)
    if job.status == FINISHED:
        return job.result
    if job.status in (STOPPED, OUT_OF_TIME):
        reason = ("it was stopped" if job.status == STOPPED
                  else f"it reached its time budget of {job.budget:g} s")
        raise ValueError(f"This computation ended early: {reason}. Press Run again to start "
                         "it over, or try fewer points.")
    raise ValueError(job.error or "The computation ended unexpectedly.")


def job_controls(job: Job, key, note: str | None = None):
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


def again_button(key, where=st) -> None:
    """"Run again": forget the job ``key`` so that the page starts it over."""
    where.button("Run again", icon=":material/replay:", on_click=forget_job, args=(key,),
                 key=f"again:{hash(key)}", help="Start this computation over.")


def computed(function: Callable, *args, what: str,
             progress: Callable[[int, int], None] | None = None, parallel: bool = False):
    """The result of a teaching page's computation ``function(*args)`` (``engine.lessons``),
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
        st.error(literal(error))
        if job.status in (STOPPED, OUT_OF_TIME):
            again_button(key)
        st.stop()
    place.empty()
    return result


def current_data() -> tuple[Data, object]:
    """The session's data set (``engine.data.Data``) and its labels; on bad settings, an error
    message and a stopped page (the labels are kept)."""
    try:
        data = dataset(state.data_source())
    except ValueError as error:
        st.error(f"{literal(error)} Change the data settings in the sidebar.")
        st.stop()
    return data, state.labels(data.y_true)
