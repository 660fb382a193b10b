"""Work in child processes: bounded by a budget, stoppable, ended when abandoned, niced."""

import os
import time

import pytest

from s3vm_explorer.engine import protocol
from s3vm_explorer.engine.run import backends, lifecycle


def sleeper(channel, seconds: float, cooperative: bool) -> None:
    """A computation of ``seconds`` that hands over its count when asked (``cooperative``) or
    ignores the request, like a solver inside a long C call."""
    channel.send(("pid", os.getpid()))
    start = time.monotonic()
    count = 0
    while time.monotonic() - start < seconds:
        time.sleep(0.01)
        count += 1
        if cooperative and channel.finish_requested():
            break
    channel.send(("count", count))


def failing(channel, kind: str) -> None:
    if kind == "value":
        raise ValueError("sigma is too small for these data; try sigma = 0.3.")
    raise ZeroDivisionError("division by zero")


def with_grandchild(channel) -> None:
    """Starts a process of its own (as joblib's workers are) and waits forever."""
    import subprocess

    child = subprocess.Popen(["sleep", "600"])
    channel.send(("pid", child.pid))
    time.sleep(600)


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """Nobody touches these jobs while a test looks at them: abandonment only where tested."""
    monkeypatch.setattr(lifecycle, "ABANDON_AFTER", 60.0)


class Recorder(lifecycle.Job):
    def __init__(self, work, args, budget=30.0, backend=None):
        self.messages = []
        super().__init__(work, args, budget, backend=backend)

    def receive(self, message):
        self.messages.append(message)

    def value(self, name):
        return next(m[1] for m in self.messages if m[0] == name)


def wait_until(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def follow(job, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not job.done:
        assert time.monotonic() < deadline, "timed out"
        job.wait(0.1)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is not computing
        return stat.read().split(")")[1].split()[0] != "Z"


def pid_of(job):
    wait_until(lambda: job.touch() or any(m[0] == "pid" for m in job.messages))
    return job.value("pid")


def test_work_runs_in_a_niced_child_and_finishes():
    job = Recorder(sleeper, (0.2, True))
    pid = pid_of(job)
    assert pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, pid) >= backends.NICE
    follow(job)
    assert job.status == protocol.FINISHED and job.value("count") > 0 and job.error is None
    assert not alive(pid)


def test_the_budget_ends_a_run_and_its_work_is_handed_over():
    job = Recorder(sleeper, (60, True), budget=0.5)
    pid = pid_of(job)
    follow(job)
    assert job.status == protocol.OUT_OF_TIME
    assert 0 < job.value("count") < 6000  # what it had done when asked
    assert not alive(pid)


def test_stop_ends_work_that_does_not_listen_after_its_grace(monkeypatch):
    monkeypatch.setattr(Recorder, "finish_grace", 0.3)
    job = Recorder(sleeper, (60, False))
    pid = pid_of(job)
    job.stop()
    follow(job, timeout=10)
    assert job.status == protocol.STOPPED
    assert not any(m[0] == "count" for m in job.messages)
    assert not alive(pid)


def test_an_abandoned_job_frees_its_cpu_at_once(monkeypatch):
    monkeypatch.setattr(lifecycle, "ABANDON_AFTER", 0.5)
    job = Recorder(sleeper, (60, False))
    pid = pid_of(job)  # nobody waits for it from here on
    wait_until(lambda: job.done, timeout=10)
    assert job.status == protocol.ABANDONED
    assert not alive(pid)


def test_ending_a_job_ends_the_processes_it_started(monkeypatch):
    monkeypatch.setattr(Recorder, "finish_grace", 0.3)  # the work does not listen: killed after
    job = Recorder(with_grandchild, ())
    grandchild = pid_of(job)
    assert alive(grandchild)
    job.stop()
    follow(job, timeout=15)
    wait_until(lambda: not alive(grandchild), timeout=5)


@pytest.mark.parametrize(("kind", "message"), [
    ("value", "sigma is too small for these data; try sigma = 0.3."),
    ("other", "The solver failed unexpectedly (ZeroDivisionError: division by zero)."),
])
def test_failures_become_sentences(kind, message):
    job = Recorder(failing, (kind,))
    follow(job)
    assert job.status == protocol.FAILED and job.error == message


def test_a_child_that_dies_is_reported_not_waited_for():
    job = Recorder(sleeper, (60, False))
    os.kill(pid_of(job), 9)  # as the kernel's out-of-memory killer would
    follow(job, timeout=10)
    assert job.status == protocol.CRASHED
    assert "ended unexpectedly (signal 9)" in job.error and "fewer points" in job.error


def test_jobs_wait_in_line_for_a_free_slot(monkeypatch):
    monkeypatch.setattr(backends, "_LOCAL", backends.LocalProcesses(1))
    first = Recorder(sleeper, (60, True))
    pid_of(first)
    second, third = Recorder(sleeper, (0.1, True)), Recorder(sleeper, (0.1, True))
    wait_until(lambda: third.ahead() == 1)
    assert second.status == third.status == protocol.QUEUED and second.ahead() == 0
    first.stop()
    for job in (first, second, third):
        follow(job)
    assert [j.status for j in (first, second, third)] == [protocol.STOPPED, protocol.FINISHED,
                                                          protocol.FINISHED]


def test_a_queued_job_nobody_waits_for_never_starts(monkeypatch):
    monkeypatch.setattr(backends, "_LOCAL", backends.LocalProcesses(1))
    monkeypatch.setattr(lifecycle, "ABANDON_AFTER", 0.3)
    first = Recorder(sleeper, (60, True))
    pid_of(first)
    queued = Recorder(sleeper, (0.1, True))
    wait_until(lambda: first.touch() or queued.done, timeout=5)  # the first is watched
    assert queued.status == protocol.ABANDONED and queued.messages == []
    first.stop()
