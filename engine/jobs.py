"""The app's work away from the server: every job is bounded, can be stopped, frees its CPU.

A solver never runs in the server's own threads:

- a LIBSVM call cannot be interrupted from Python (a deadline checked between two states does
  not fire during a nine-minute solve), while a process can be ended at once;
- solver threads in the server share its interpreter and its cores: with 20 sessions solving,
  the server took 11-13 s to answer a health check.

A ``Job`` is one piece of work as a page sees it: the messages its work sends
(``engine.protocol``: states, previews, progress, a result) and its life. It waits for a free
place, runs, and ends when its work is done, when it is stopped, when its time budget is
spent, or when nobody has asked about it for ``ABANDON_AFTER`` seconds (the tab was closed, or
the user went to another page). A stopped or timed-out job's work is first asked to hand over
what it has (``FINISH``) and ended ``finish_grace`` seconds later whatever it is doing; an
abandoned one is ended at once.

Two backends run the work, with the same messages both ways:

- ``LocalProcesses`` (the default): child processes of the server, at a lower priority
  (``NICE``), at most ``MAX_RUNNING`` at a time, so that the server answers first;
- ``DaskCluster``, when the environment variable ``S3VM_SCHEDULER`` names a Dask scheduler
  (``tcp://host:8786``): the workers of the cluster a department already runs, when a lecture
  hall outgrows one server. The messages travel through a queue on the scheduler; a work that
  does not hand over in time is cancelled (a Dask worker cannot end a thread inside a C call:
  the job ends at once for the page, the worker's thread when its call returns).

Nothing here imports Streamlit: pages poll a job between their own drawing (``ui.runs``).
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
import os
import pickle
import signal
import threading
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from engine.film import film_work
from engine.protocol import (
    ABANDONED,
    CRASHED,
    FAILED,
    FINAL,
    FINISH,
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

#: Niceness of the local children (the server's own process keeps 0 and is scheduled first).
NICE = 10
#: Local children computing at once; more jobs wait in line, first come first served.
MAX_RUNNING = max(2, os.cpu_count() or 1)
#: A job nobody has touched for this long (seconds) is abandoned and its work ended.
ABANDON_AFTER = 3.0
#: How often (seconds) a waiting job looks at its clock when no message arrives.
TICK = 0.05
#: The environment variable naming the Dask scheduler the app's jobs run on (unset: locally).
SCHEDULER_VARIABLE = "S3VM_SCHEDULER"


class Gone(Exception):
    """The work's side has ended without a last message; the exception's text says how."""


# -- the work's side: the same on both backends --------------------------------------------


def run_work(channel, work: Callable, args: tuple) -> None:
    """``work(channel, *args)``, then ``Ended``; a failure becomes ``Failed`` with a sentence:
    the library's own for a ``ValueError`` or ``TypeError``, a short one otherwise."""
    try:
        work(channel, *args)
        channel.send(Ended())
    except (ValueError, TypeError) as error:
        channel.send(Failed(str(error)))
    except MemoryError:
        channel.send(Failed("The computation needs more memory than this server can give it; "
                            "try fewer points."))
    except Exception as error:  # noqa: BLE001 - any failure becomes a sentence on the page
        channel.send(Failed(f"The solver failed unexpectedly ({type(error).__name__}: "
                            f"{error})."))


def call_work(channel, function: Callable, args: tuple, with_progress: bool) -> None:
    """``function(*args)``, its value sent as ``Result``; with ``with_progress``, ``function``
    also gets ``progress=(done, total) -> None``, sent as ``Progress``."""
    if with_progress:
        value = function(*args, progress=lambda done, total: channel.send(
            Progress(done, total)))
    else:
        value = function(*args)
    channel.send(Result(value))


# -- local child processes ----------------------------------------------------------------

# The children are forked from a small server process that has imported the solvers once:
# forking the Streamlit server itself (threads, locks, an event loop) is unsafe, and starting
# a fresh interpreter per run would cost a second of imports.
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["numpy", "scipy.linalg", "sklearn.svm", "plotly.graph_objects",
                                 "s3vm_core", "toy_data", "engine.jobs", "engine.film"])
_warming = threading.Lock()


def warm_up() -> None:
    """Start the process the local children are forked from, in the background: it imports
    the solvers once (a few seconds), better spent before the first Run than after it. Only
    the first call in a process does anything."""
    if _warming.acquire(blocking=False):
        threading.Thread(target=multiprocessing.forkserver.ensure_running, daemon=True).start()


class _PipeChannel:
    """A local child's end of its pipe to the app."""

    def __init__(self, pipe):
        self._pipe = pipe

    def send(self, message) -> None:
        self._pipe.send(message)

    def finish_requested(self) -> bool:
        return self._pipe.poll() and self._pipe.recv() == FINISH


def _child(pipe, work: Callable, args: tuple) -> None:
    """A local child's whole life: its own process group (so that ``end`` ends what it starts,
    such as joblib workers), a lower priority, one BLAS thread (several children share the
    cores), and a watch on its parent, whose end ends it."""
    os.setpgid(0, 0)
    os.nice(NICE)
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch_parent, daemon=True).start()
    try:
        with threadpool_limits(limits=1):
            run_work(_PipeChannel(pipe), work, args)
    finally:
        pipe.close()
        os._exit(0)  # the solver's thread may still be inside a C call: do not wait for it


class _Child:
    """The app's handle on one local child process."""

    def __init__(self, work: Callable, args: tuple, daemon: bool):
        self._pipe, theirs = _CONTEXT.Pipe()
        self._process = _CONTEXT.Process(target=_child, args=(theirs, work, args),
                                         daemon=daemon)
        _LIVE.add(self)
        self._process.start()
        theirs.close()

    def receive(self, timeout: float):
        """The next message, or None when none came within ``timeout`` seconds."""
        try:
            if not self._pipe.poll(timeout):
                return None
            return self._pipe.recv()
        except (EOFError, OSError):
            self._process.join(timeout=1.0)
            code = self._process.exitcode
            raise Gone("The solver's process ended unexpectedly"
                       + (f" (signal {-code})" if code is not None and code < 0 else "")
                       + ": it may have run out of memory. Try fewer points.") from None

    def ask_to_finish(self) -> None:
        try:
            self._pipe.send(FINISH)
        except OSError:
            pass  # the child has just ended; its last messages are still readable

    def end(self) -> None:
        """End the child and everything it started (its own process group), at once."""
        process = self._process
        if process.pid is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # not yet in its own group, or already gone: the process itself, below
            if process.is_alive():
                process.kill()
            process.join(timeout=1.0)
        self._pipe.close()
        _LIVE.discard(self)


#: Local children that may be alive: ended with the server (a non-daemonic child would
#: otherwise keep the server from exiting until its budget is spent).
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _end_all() -> None:
    for child in list(_LIVE):
        child.end()


class LocalProcesses:
    """Work in the server's child processes: at most ``size`` at a time, the others waiting
    in line in arrival order."""

    def __init__(self, size: int):
        self.size = size
        self._line: deque = deque()
        self._running = 0
        self._changed = threading.Condition()

    def start(self, job: Job):
        """Wait for a slot, then start ``job``'s work in a child; None if the job was abandoned
        while it waited (no slot taken)."""
        with self._changed:
            self._line.append(job)
            try:
                while self._line[0] is not job or self._running >= self.size:
                    if job.abandoned():
                        return None
                    self._changed.wait(TICK * 4)
                self._running += 1
            finally:
                self._line.remove(job)
                self._changed.notify_all()
        try:
            return _Child(job.work, job.args, daemon=not job.parallel)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        with self._changed:
            self._running -= 1
            self._changed.notify_all()

    def ahead_of(self, job: Job) -> int:
        """How many jobs wait in line before ``job``."""
        with self._changed:
            return self._line.index(job) if job in self._line else 0


# -- a Dask cluster -----------------------------------------------------------------------


class _QueueChannel:
    """A Dask task's channel to the app: a queue on the scheduler (its messages pickled: the
    scheduler carries bytes) and an event the app sets to ask it to finish."""

    def __init__(self, queue_name: str, event_name: str):
        from dask.distributed import Event, Queue

        self._queue, self._finish = Queue(queue_name), Event(event_name)

    def send(self, message) -> None:
        self._queue.put(pickle.dumps(message))

    def finish_requested(self) -> bool:
        return self._finish.is_set()

    def close(self) -> None:
        self._queue.close()  # (the scheduler forgets a queue once both ends have closed it)


def _on_worker(work: Callable, args: tuple, queue_name: str, event_name: str) -> None:
    """A job's work as a Dask task (the worker imports this project, as the app's children
    do)."""
    channel = _QueueChannel(queue_name, event_name)
    try:
        run_work(channel, work, args)
    finally:
        channel.close()


class _Task:
    """The app's handle on one job's task on the cluster."""

    def __init__(self, client, work: Callable, args: tuple):
        from dask.distributed import Event, Queue

        name = f"s3vm-{uuid.uuid4().hex}"
        self._queue = Queue(f"{name}-messages", client=client)
        self._finish = Event(f"{name}-finish", client=client)
        self._future = client.submit(_on_worker, work, args, self._queue.name,
                                     self._finish.name, pure=False, key=name)

    def receive(self, timeout: float):
        try:
            return pickle.loads(self._queue.get(timeout=timeout))
        except TimeoutError:
            pass
        if self._future.done() and self._queue.qsize() == 0:
            status = self._future.status
            why = (f"({self._future.exception()})" if status == "error" else f"({status})")
            raise Gone(f"The solver's task on the Dask cluster ended unexpectedly {why}: a "
                       "worker may have run out of memory or left. Try fewer points.")
        return None

    def ask_to_finish(self) -> None:
        self._finish.set()

    def end(self) -> None:
        self._future.cancel()
        self._queue.close()
        self._finish.clear()  # (a cleared event nobody waits on is forgotten)


class DaskCluster:
    """Work on the workers of the Dask cluster whose scheduler is at ``address``; the cluster
    schedules it (no line of its own here). A scheduler that has not answered within
    ``connect_seconds`` is said on the job."""

    def __init__(self, address: str, connect_seconds: float = 10.0):
        self.address = address
        self.connect_seconds = connect_seconds
        self._client = None
        self._connecting = threading.Lock()

    def client(self):
        with self._connecting:
            if self._client is None:
                try:
                    from dask.distributed import Client
                except ImportError as error:
                    raise ValueError("Running on a Dask cluster needs the project's 'dask' "
                                     "extra: pip install \"s3vm-explorer[dask]\" (from a clone: "
                                     f"pip install \".[dask]\"), or unset {SCHEDULER_VARIABLE}."
                                     ) from error
                try:
                    self._client = Client(self.address, timeout=self.connect_seconds,
                                          set_as_default=False)
                except OSError as error:
                    raise ValueError(f"The Dask scheduler at {self.address} did not answer "
                                     f"({error}); check {SCHEDULER_VARIABLE}.") from error
            return self._client

    def start(self, job: Job):
        return _Task(self.client(), job.work, job.args)

    def release(self) -> None:
        pass

    def ahead_of(self, job: Job) -> int:
        return 0


_LOCAL = LocalProcesses(MAX_RUNNING)
_CLUSTERS: dict[str, DaskCluster] = {}


def cluster(address: str) -> DaskCluster:
    """The Dask cluster whose scheduler is at ``address``: one client per process."""
    return _CLUSTERS.setdefault(address, DaskCluster(address))


def scheduler_address() -> str | None:
    """The Dask scheduler the environment names (``S3VM_SCHEDULER``), or None."""
    return os.environ.get(SCHEDULER_VARIABLE) or None


def default_backend():
    """Where jobs run: the Dask cluster ``S3VM_SCHEDULER`` names, else local processes."""
    address = scheduler_address()
    return _LOCAL if address is None else cluster(address)


# -- the job, as the app sees it ----------------------------------------------------------


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
        except (OSError, ValueError) as error:  # no process could be started; no cluster
            self._set(status=CRASHED, error=f"The solver could not be started: {error}"
                      if isinstance(error, OSError) else str(error))
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
    """A solver's trace for the Watch page (``engine.film.film_work``), as the page sees it
    while it runs: the ``states`` so far, the latest ``preview`` figure (JSON) and, once it
    ends, the ``result`` (``engine.protocol.Run``)."""

    def __init__(self, request: RunRequest, budget: float, backend=None):
        self.request = request
        self.states: list = []
        self.preview: str | None = None
        self.result: Run | None = None
        super().__init__(film_work, (request,), budget, backend=backend)

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
