"""The app's jobs on a Dask cluster (``S3VM_SCHEDULER``): the same messages and the same film
as in local processes, and Stop and the time budget end them the same way."""

import time

import numpy as np
import pytest
from test_jobs import Recorder, follow, sleeper

from s3vm_explorer.engine import protocol
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.protocol import FINISHED, OUT_OF_TIME, STOPPED, RunRequest
from s3vm_explorer.engine.run import backends, lifecycle
from toy_data import pick_labeled

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """A cluster in this process (its workers are threads): quick to start, and the tests'
    own work functions are importable there; on TCP, the one transport the app takes."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as local:
        yield backends.DaskCluster(local.scheduler_address)


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    monkeypatch.setattr(lifecycle, "ABANDON_AFTER", 60.0)


def test_a_watch_film_on_the_cluster_is_the_film_of_a_local_run(cluster):
    source = Generated("two_moons", 80, 0.1, 0)
    labels = tuple(pick_labeled(source.build().y_true, 1, random_state=0).tolist())
    request = RunRequest(source, labels, "QNS3VM", ())
    here = lifecycle.TraceJob(request, 60)
    there = lifecycle.TraceJob(request, 60, backend=cluster)
    for job in (here, there):
        follow(job)
        assert job.status == FINISHED, job.error
    local, remote = here.result, there.result
    assert [s.step for s in remote.states] == [s.step for s in local.states]
    np.testing.assert_array_equal(remote.frames, local.frames)
    np.testing.assert_allclose(remote.grid_decisions, local.grid_decisions, atol=1e-5)
    assert remote.films[True]["numbers"] == local.films[True]["numbers"]
    assert remote.films[True]["fill"] == local.films[True]["fill"]


def test_the_budget_and_stop_end_work_on_the_cluster(cluster):
    timed = Recorder(sleeper, (30, True), budget=0.5, backend=cluster)
    stopped = Recorder(sleeper, (30, True), backend=cluster)
    while not any(m[0] == "pid" for m in stopped.messages):
        stopped.wait(0.1)
    stopped.stop()
    for job in (timed, stopped):
        follow(job, timeout=30)
    assert timed.status == OUT_OF_TIME and stopped.status == STOPPED
    # each handed over what it had done when asked
    assert all(0 < job.value("count") < 3000 for job in (timed, stopped))


def test_work_that_does_not_listen_is_given_up_after_its_grace(cluster, monkeypatch):
    monkeypatch.setattr(Recorder, "finish_grace", 0.3)
    job = Recorder(sleeper, (2, False), backend=cluster)
    start = time.monotonic()
    while not job.messages:
        job.wait(0.1)
    job.stop()
    follow(job, timeout=10)
    assert job.status == STOPPED and time.monotonic() - start < 2
    assert not any(m[0] == "count" for m in job.messages)


def test_a_cluster_that_does_not_answer_is_said_on_the_job():
    nobody = backends.DaskCluster("tcp://127.0.0.1:9", connect_seconds=2)
    job = Recorder(sleeper, (1, True), backend=nobody)
    follow(job, timeout=30)
    assert job.status == protocol.CRASHED and "did not answer" in job.error


@pytest.mark.parametrize("address", ["ucx://127.0.0.1:8786", "tls://127.0.0.1:8786",
                                     "inproc://", "tcp://127.0.0.1:abc", "tcp://127.0.0.1",
                                     "tcp://127.0.0.1:99999", "127.0.0.1:8786"])
def test_an_address_that_is_not_a_tcp_scheduler_is_refused_in_a_sentence(address):
    job = Recorder(sleeper, (1, True), backend=backends.DaskCluster(address, connect_seconds=2))
    follow(job, timeout=30)  # never left "queued"
    assert job.status == protocol.CRASHED
    assert job.error.startswith("S3VM_SCHEDULER must name a Dask scheduler as tcp://host:port")


def test_an_endpoint_that_answers_garbage_is_said_on_the_job():
    """A server that is not a Dask scheduler (here: one that answers every connection with
    bytes of nonsense) ends the job with a sentence, never a stuck one."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer_garbage():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"HTTP/1.1 200 OK\r\n\r\nnot a scheduler" * 50)

    threading.Thread(target=answer_garbage, daemon=True).start()
    try:
        job = Recorder(sleeper, (1, True), backend=backends.DaskCluster(
            f"tcp://127.0.0.1:{port}", connect_seconds=2))
        follow(job, timeout=60)
    finally:
        server.close()
    assert job.status == protocol.CRASHED and "did not answer as a scheduler" in job.error
