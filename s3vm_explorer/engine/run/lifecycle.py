"""A run's life as the app sees it: a ``Job`` waits for a free place on its backend
(``engine.run.backends``), runs, folds the messages of its work into its state, and ends when
its work is done, when it is stopped, when its time budget is spent, or when nobody has asked
about it for ``ABANDON_AFTER`` seconds (the tab was closed, or the user went to another page).
A stopped or timed-out job's work is first asked to hand over what it has (``FINISH``) and
ended ``finish_grace`` seconds later whatever it is doing; an abandoned one is ended at once.

``Shelf`` keeps the app's jobs by key, shared by every session, so that sessions asking for the
same run share it and a rerun of a page in the middle of a solve finds it still running.

Nothing here imports Streamlit: pages wait on a job between their own drawing (``ui.runs``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from s3vm_explorer.engine.protocol import (
    ABANDONED,
    CRASHED,
    FAILED,
    FINAL,
    FINISHED,
    OUT_OF_TIME,
    QUEUED,
    RUNNING,
    STOPPED,
    Ended,
    Failed,
    Preview,
    Progress,
    Result,
    Run,
    RunFinished,
    RunRequest,
    StateReached,
)
from s3vm_explorer.engine.run.backends import TICK, Gone, default_backend
from s3vm_explorer.engine.run.process import call_work, trace_work

#: A job nobody has touched for this long (seconds) is abandoned and its work ended.
ABANDON_AFTER = 3.0
#: Most jobs a ``Shelf`` keeps (finished or not), and most bytes their results may hold
#: together (their arrays and films, ``nbytes_of``); older finished ones are forgotten first.
#: A class of 40, each student following a run of their own, keeps every run: DA's at n = 400
#: holds about 2 MB with its film, at n = 2,000 about 10 MB. (A run forgotten while its page
#: is open is run again on the page's next rerun.)
KEPT_RUNS = 64
KEPT_BYTES = 512 * 2**20


class Job:
    """``work(channel, *args)`` on a backend, within ``budget`` seconds of running time.

    ``work`` is a module-level function (the other side imports it by name). It sends
    ``engine.protocol`` messages with ``channel.send``; a long-running one polls
    ``channel.finish_requested()`` between its own steps and hands over what it has.
    Subclasses fold the messages into their state in ``receive`` (called with the job's lock
    held). A failure of ``work`` becomes the job's ``error`` (``run_work``).
    """

    #: Seconds a work asked to ``FINISH`` may take before it is ended anyway.
    finish_grace = 5.0

    def __init__(self, work: Callable, args: tuple, budget: float, parallel: bool = False,
                 backend=None):
        self.work, self.args, self.budget = work, args, float(budget)
        #: A local daemonic child cannot start worker processes of its own (joblib would
        #: then run its loops one task at a time): a parallel job's child is not daemonic.
        self.parallel = parallel
        self.status = QUEUED
        self.error: str | None = None
        self.seconds = 0.0           # running time so far (not counting the wait for a slot)
        self.version = 0             # counts the messages received: pages redraw when it moves
        self.nbytes = 0              # what its result holds, once it has one (ui.runs' bound)
        self._stop_reason: str | None = None
        self._touched = time.monotonic()
        self._changed = threading.Condition()
        self._backend = backend or default_backend()
        threading.Thread(target=self._live, daemon=True, name=f"job-{work.__name__}").start()

    # -- what pages call ------------------------------------------------------------------

    def touch(self) -> None:
        """Someone is still waiting for this job (see ``ABANDON_AFTER``)."""
        self._touched = time.monotonic()

    def wait(self, timeout: float) -> None:
        """Until a message arrives or the job ends, at most ``timeout`` seconds; touches it."""
        self.touch()
        with self._changed:
            seen = self.version
            self._changed.wait_for(lambda: self.version != seen or self.done, timeout)

    def stop(self) -> None:
        """End the job early: its work hands over what it has (``STOPPED``)."""
        self._stop_reason = self._stop_reason or STOPPED

    @property
    def done(self) -> bool:
        return self.status in FINAL

    def ahead(self) -> int:
        """Jobs waiting in line before this one (0 once it runs)."""
        return self._backend.ahead_of(self) if self.status == QUEUED else 0

    def abandoned(self) -> bool:
        return time.monotonic() - self._touched > ABANDON_AFTER

    # -- to be written by subclasses ------------------------------------------------------

    def receive(self, message) -> None:
        """Fold one message of the work into the job's state."""

    # -- the job's life, in its own thread ------------------------------------------------

    def _live(self) -> None:
        try:
            handle = self._backend.start(self)
        except ValueError as error:  # the backend's own sentence (no cluster, a bad address)
            self._set(status=CRASHED, error=str(error))
            return
        except Exception as error:  # noqa: BLE001 - no process, no task: said, never stuck
            why = f"{type(error).__name__}: {error}"
            self._set(status=CRASHED, error=f"The solver could not be started ({why}).")
            return
        if handle is None:
            self._set(status=ABANDONED)
            return
        self._set(status=RUNNING)  # its time counts once its work has started
        try:
            status, error = self._converse(handle, time.monotonic())
        finally:  # its process ends before the job does: a page that sees it done may rely
            handle.end()
            self._backend.release()
        self._set(status=status, error=error)

    def _converse(self, handle, start: float) -> tuple[str, str | None]:
        """Receive the work's messages until it ends or must be ended: how the job ends."""
        asked_at = None
        while True:
            now = time.monotonic()
            self.seconds = now - start
            if self.abandoned():
                return ABANDONED, None
            if self._stop_reason is None and self.seconds > self.budget:
                self._stop_reason = OUT_OF_TIME
            if self._stop_reason is not None and asked_at is None:
                asked_at = now
                handle.ask_to_finish()
            if asked_at is not None and now - asked_at > self.finish_grace:
                return self._stop_reason, None  # it did not hand over in time
            try:
                message = handle.receive(TICK)
            except Gone as gone:
                return CRASHED, str(gone)
            if message is None:
                continue
            if isinstance(message, Failed):
                return FAILED, message.message
            if isinstance(message, Ended):
                return self._stop_reason or FINISHED, None
            with self._changed:
                self.receive(message)
                self.version += 1
                self._changed.notify_all()

    def _set(self, **attributes) -> None:
        with self._changed:
            for name, value in attributes.items():
                setattr(self, name, value)
            self.version += 1
            self._changed.notify_all()


class TraceJob(Job):
    """A solver's trace for the Watch page (``engine.run.process.trace_work``), as the page sees it
    while it runs: the ``states`` so far, the latest ``preview`` figure (JSON) and, once it
    ends, the ``result`` (``engine.protocol.Run``)."""

    def __init__(self, request: RunRequest, budget: float, backend=None):
        self.request = request
        self.states: list = []
        self.preview: str | None = None
        self.result: Run | None = None
        super().__init__(trace_work, (request,), budget, backend=backend)

    def receive(self, message) -> None:
        if isinstance(message, StateReached):
            self.states.append(message.state)
        elif isinstance(message, RunFinished):
            # the channel keeps order: every state the work recorded has arrived before this
            self.result = Run.assemble(self.states, message, self._stop_reason or FINISHED,
                                       self.budget)
            self.nbytes = nbytes_of(self.result)
        elif isinstance(message, Preview):
            self.preview = message.figure


class CallJob(Job):
    """Any other computation of a page (``call_work``): its ``result`` and, for a function
    that reports it, its ``progress`` ``(done, total)``."""

    finish_grace = 0.0  # nothing to hand over: a stopped computation ends at once

    def __init__(self, function: Callable, args: tuple, budget: float,
                 with_progress: bool = False, parallel: bool = False, backend=None):
        self.result = None
        self.progress: tuple[int, int] | None = None
        super().__init__(call_work, (function, args, with_progress), budget, parallel,
                         backend)

    def receive(self, message) -> None:
        if isinstance(message, Progress):
            self.progress = (message.done, message.total)
        elif isinstance(message, Result):
            self.result = message.value
            self.nbytes = nbytes_of(self.result)


def nbytes_of(value, depth: int = 6) -> int:
    """About how many bytes ``value`` holds in arrays, strings and bytes (a run's states,
    frames and film; a lesson's fitted models and rows), looking ``depth`` containers deep."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, str | bytes):
        return len(value)
    if depth == 0:
        return 0
    if isinstance(value, dict):
        value = list(value.values())
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        value = list(vars(value).values())
    elif hasattr(value, "__slots__"):
        value = [getattr(value, name, None) for name in value.__slots__]
    if isinstance(value, list | tuple):
        return sum(nbytes_of(item, depth - 1) for item in value)
    return 0


class Shelf:
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
