"""The app's solver work in child processes: every run is bounded, can be stopped, frees its CPU.

A solver never runs in the server's own threads:

- a LIBSVM call cannot be interrupted from Python (a deadline checked between two states does
  not fire during a nine-minute solve), while a process can be ended at once;
- solver threads in the server share its interpreter and its cores: with 20 sessions solving,
  the server took 11-13 s to answer a health check. The children run at a lower priority
  (``NICE``) and at most ``MAX_RUNNING`` at a time, so the server answers first.

A ``Job`` is one child's work as a page sees it: the messages the child sends (states, previews,
progress, a result) and its life. It waits for a free slot, runs, and ends when its work is
done, when it is stopped, when its time budget is spent, or when nobody has asked about it for
``ABANDON_AFTER`` seconds (the tab was closed, or the user went to another page). A stopped or
timed-out child is first asked to hand over what it has (``FINISH``) and ended ``FINISH_GRACE``
seconds later whatever it is doing; an abandoned one is ended at once.

Nothing here imports Streamlit: pages poll a job between their own drawing.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable

from threadpoolctl import threadpool_limits

#: Niceness of the children (the server's own process keeps 0 and is scheduled first).
NICE = 10
#: Children computing at once; more jobs wait in line, first come first served.
MAX_RUNNING = max(2, os.cpu_count() or 1)
#: A job nobody has touched for this long (seconds) is abandoned and its process ended.
ABANDON_AFTER = 3.0
#: The parent's message to a child asked to stop: hand over what you have, then end.
FINISH = "finish"
#: How often (seconds) a waiting job looks at its clock when no message arrives.
TICK = 0.05

#: Statuses of a job; all but the first two are final.
QUEUED, RUNNING = "queued", "running"
FINISHED, FAILED, STOPPED, OUT_OF_TIME, ABANDONED, CRASHED = (
    "finished", "failed", "stopped", "out of time", "abandoned", "crashed")
FINAL = (FINISHED, FAILED, STOPPED, OUT_OF_TIME, ABANDONED, CRASHED)

# The children are forked from a small server process that has imported the solvers once:
# forking the Streamlit server itself (threads, locks, an event loop) is unsafe, and starting
# a fresh interpreter per run would cost a second of imports.
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["numpy", "scipy.linalg", "sklearn.svm", "s3vm_core",
                                 "toy_data", "ui.jobs", "ui.work", "ui.solvers"])


_warming = threading.Lock()


def warm_up() -> None:
    """Start the process the children are forked from, in the background: it imports the
    solvers once (a few seconds), better spent before the first Run than after it. Only the
    first call in a process does anything."""
    if _warming.acquire(blocking=False):
        threading.Thread(target=multiprocessing.forkserver.ensure_running, daemon=True).start()


class _Slots:
    """At most ``MAX_RUNNING`` jobs computing; the others wait in line in arrival order."""

    def __init__(self, size: int):
        self.size = size
        self._line: deque = deque()
        self._running = 0
        self._changed = threading.Condition()

    def acquire(self, job: Job) -> bool:
        """Wait for a slot; False if ``job`` was abandoned while waiting (no slot taken)."""
        with self._changed:
            self._line.append(job)
            try:
                while self._line[0] is not job or self._running >= self.size:
                    if job.abandoned():
                        return False
                    self._changed.wait(TICK * 4)
                self._running += 1
                return True
            finally:
                self._line.remove(job)
                self._changed.notify_all()

    def release(self) -> None:
        with self._changed:
            self._running -= 1
            self._changed.notify_all()

    def ahead_of(self, job: Job) -> int:
        """How many jobs wait in line before ``job``."""
        with self._changed:
            return self._line.index(job) if job in self._line else 0


_SLOTS = _Slots(MAX_RUNNING)


class Job:
    """``work(channel, *args)`` in a child process, within ``budget`` seconds of running time.

    ``work`` is a module-level function (the child imports it by name). It sends messages,
    tuples whose first item names them, with ``channel.send``; a long-running one polls
    ``channel`` for ``FINISH`` between its own steps and hands over what it has. Subclasses
    fold the messages into their state in ``receive`` (called with the job's lock held).
    An exception in ``work`` becomes the job's ``error``: the library's own sentence for a
    ``ValueError`` or ``TypeError``, a short sentence otherwise.
    """

    #: Seconds a child asked to ``FINISH`` may take before it is ended anyway.
    finish_grace = 5.0
    #: A daemonic child cannot start worker processes of its own (joblib would then run its
    #: loops one task at a time); the app's parallel comparison turns this off.
    daemon = True

    def __init__(self, work: Callable, args: tuple, budget: float):
        self.work, self.args, self.budget = work, args, float(budget)
        self.status = QUEUED
        self.error: str | None = None
        self.seconds = 0.0           # running time so far (not counting the wait for a slot)
        self.version = 0             # counts the messages received: pages redraw when it moves
        self.nbytes = 0              # what its result holds, once it has one (ui.runs' bound)
        self._stop_reason: str | None = None
        self._touched = time.monotonic()
        self._process = None
        self._changed = threading.Condition()
        self._slots = _SLOTS
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
        """End the job early: the child hands over what it has (``STOPPED``)."""
        self._stop_reason = self._stop_reason or STOPPED

    @property
    def done(self) -> bool:
        return self.status in FINAL

    def ahead(self) -> int:
        """Jobs waiting in line before this one (0 once it runs)."""
        return self._slots.ahead_of(self) if self.status == QUEUED else 0

    def abandoned(self) -> bool:
        return time.monotonic() - self._touched > ABANDON_AFTER

    # -- to be written by subclasses ------------------------------------------------------

    def receive(self, message: tuple) -> None:
        """Fold one message of the child into the job's state."""

    # -- the job's life, in its own thread ------------------------------------------------

    def _live(self) -> None:
        slots = self._slots
        if not slots.acquire(self):
            self._end(ABANDONED)
            return
        ours, theirs = _CONTEXT.Pipe()
        self._set(status=RUNNING)  # its time counts once its process has started
        try:
            self._process = _CONTEXT.Process(target=_child, args=(theirs, self.work, self.args),
                                             daemon=self.daemon)
            _LIVE.add(self)
            self._process.start()
            theirs.close()
            self._converse(ours, time.monotonic())
        except OSError as error:  # no process could be started (out of memory, too many)
            self._end(CRASHED, f"The solver could not be started: {error}.")
        finally:
            ours.close()
            self._kill()
            slots.release()

    def _converse(self, pipe, start: float) -> None:
        """Receive the child's messages until it ends; end it when it must."""
        asked_at = None
        while True:
            now = time.monotonic()
            self.seconds = now - start
            if self.abandoned():
                self._end(ABANDONED)
                return
            if self._stop_reason is None and self.seconds > self.budget:
                self._stop_reason = OUT_OF_TIME
            if self._stop_reason is not None and asked_at is None:
                asked_at = now
                try:
                    pipe.send(FINISH)
                except OSError:
                    pass  # the child has just ended; its last messages are still readable
            if asked_at is not None and now - asked_at > self.finish_grace:
                self._end(self._stop_reason)  # it did not hand over in time: what we have
                return
            try:
                if not pipe.poll(TICK):
                    continue
                message = pipe.recv()
            except (EOFError, OSError):
                self._process.join(timeout=1.0)
                code = self._process.exitcode
                self._end(CRASHED, "The solver's process ended unexpectedly"
                          + (f" (signal {-code})" if code is not None and code < 0 else "")
                          + ": it may have run out of memory. Try fewer points.")
                return
            kind = message[0]
            if kind == "error":
                self._end(FAILED, message[1])
                return
            if kind == "end":
                self._end(self._stop_reason or FINISHED)
                return
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

    def _end(self, status: str, error: str | None = None) -> None:
        self._kill()
        self._set(status=status, error=error)

    def _kill(self) -> None:
        """End the child and everything it started (its own process group), at once."""
        process = self._process
        if process is None or process.pid is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # not yet in its own group, or already gone: the process itself, below
        if process.is_alive():
            process.kill()
        process.join(timeout=1.0)
        _LIVE.discard(self)


#: Jobs whose child may be alive: ended with the server (a non-daemonic child would otherwise
#: keep the server from exiting until its budget is spent).
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _end_all() -> None:
    for job in list(_LIVE):
        job._kill()


def _child(pipe, work: Callable, args: tuple) -> None:
    """A child's whole life: its own process group (so ``Job._kill`` ends what it starts, such
    as joblib workers), a lower priority, one BLAS thread (several children share the cores),
    and a watch on its parent, whose end ends it."""
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
            work(pipe, *args)
        pipe.send(("end",))
    except (ValueError, TypeError) as error:
        pipe.send(("error", str(error)))
    except MemoryError:
        pipe.send(("error", "The computation needs more memory than this server can give it; "
                            "try fewer points."))
    except Exception as error:  # noqa: BLE001 - any failure becomes a sentence on the page
        pipe.send(("error", f"The solver failed unexpectedly ({type(error).__name__}: "
                            f"{error})."))
    finally:
        pipe.close()
        os._exit(0)  # the solver's thread may still be inside a C call: do not wait for it


def finish_requested(pipe) -> bool:
    """In a child: has the parent asked it to hand over what it has?"""
    return pipe.poll() and pipe.recv() == FINISH
