"""Where a run's work computes: child processes of the server, or a Dask cluster. Both carry
the same messages (``engine.protocol``) through a channel with ``send`` and
``finish_requested``, and give the job (``engine.run.lifecycle``) a handle with ``receive``,
``ask_to_finish`` and ``end``.

- ``LocalProcesses`` (the default): child processes of the server, at a lower priority
  (``NICE``), at most ``MAX_RUNNING`` at a time, so that the server answers first;
- ``DaskCluster``, when the environment variable ``S3VM_SCHEDULER`` names a Dask scheduler
  (``tcp://host:8786``): the workers of the cluster a department already runs, when a lecture
  hall outgrows one server. The messages travel through a queue on the scheduler; a work that
  does not hand over in time is cancelled (a Dask worker cannot end a thread inside a C call:
  the job ends at once for the page, the worker's thread when its call returns).

Why a solver never runs in the server's own threads: a LIBSVM call cannot be interrupted from
Python (a deadline checked between two states does not fire during a nine-minute solve), while
a process can be ended at once; and solver threads in the server share its interpreter and its
cores (with 20 sessions solving, the server took 11-13 s to answer a health check).
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
import os
import pickle
import re
import signal
import threading
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable

from threadpoolctl import threadpool_limits

from s3vm_explorer.engine.protocol import FINISH
from s3vm_explorer.engine.run.process import run_work

#: Niceness of the local children (the server's own process keeps 0 and is scheduled first).
NICE = 10
#: Local children computing at once; more jobs wait in line, first come first served.
MAX_RUNNING = max(2, os.cpu_count() or 1)
#: How often (seconds) a waiting job looks at its clock when no message arrives.
TICK = 0.05
#: The environment variable naming the Dask scheduler the app's jobs run on (unset: locally).
SCHEDULER_VARIABLE = "S3VM_SCHEDULER"
#: The scheduler addresses the app can use: Dask's TCP transport, ``tcp://host:port`` (TLS
#: needs certificates the app has no setting for; UCX and inproc are not for a server's runs).
SCHEDULER_ADDRESS = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")


class Gone(Exception):
    """The work's side has ended without a last message; the exception's text says how."""


# -- local child processes ----------------------------------------------------------------

# The children are forked from a small server process that has imported the solvers once:
# forking the Streamlit server itself (threads, locks, an event loop) is unsafe, and starting
# a fresh interpreter per run would cost a second of imports.
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["numpy", "scipy.linalg", "sklearn.svm", "plotly.graph_objects",
                                 "s3vm_core", "toy_data", "s3vm_explorer.engine.run.backends",
                                 "s3vm_explorer.engine.run.process"])
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

    def start(self, job):
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

    def ahead_of(self, job) -> int:
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
        """The connected client; ``ValueError`` with a sentence for the page when the address
        is not a Dask TCP address, the extra is missing or the scheduler does not answer as
        one."""
        with self._connecting:
            if self._client is None:
                check_scheduler_address(self.address)
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
                except Exception as error:  # noqa: BLE001 - refused, timed out, not a scheduler
                    raise ValueError(f"The Dask scheduler at {self.address} did not answer as "
                                     f"a scheduler ({type(error).__name__}: {error}); check "
                                     f"{SCHEDULER_VARIABLE}.") from error
            return self._client

    def start(self, job):
        return _Task(self.client(), job.work, job.args)

    def release(self) -> None:
        pass

    def ahead_of(self, job) -> int:
        return 0


_LOCAL = LocalProcesses(MAX_RUNNING)
_CLUSTERS: dict[str, DaskCluster] = {}


def cluster(address: str) -> DaskCluster:
    """The Dask cluster whose scheduler is at ``address``: one client per process."""
    return _CLUSTERS.setdefault(address, DaskCluster(address))


def check_scheduler_address(address: str) -> None:
    """Refuse, in a sentence, an address that is not ``tcp://host:port`` (``SCHEDULER_ADDRESS``)
    before Dask parses it: its own errors name its internals, and some transports (inproc,
    ucx) would wait for a scheduler that cannot come."""
    match = SCHEDULER_ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match[2]) < 65536:
        raise ValueError(f"{SCHEDULER_VARIABLE} must name a Dask scheduler as tcp://host:port "
                         f"(like tcp://10.0.0.5:8786), not {address[:80]!r}; or unset it to "
                         "run on this server.")


def scheduler_address() -> str | None:
    """The Dask scheduler the environment names (``S3VM_SCHEDULER``), or None."""
    return os.environ.get(SCHEDULER_VARIABLE) or None


def default_backend():
    """Where jobs run: the Dask cluster ``S3VM_SCHEDULER`` names, else local processes."""
    address = scheduler_address()
    return _LOCAL if address is None else cluster(address)
