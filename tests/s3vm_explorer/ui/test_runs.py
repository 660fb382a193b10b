"""The Watch page's solver runs: solved in a child process, previewed while they run, kept once,
stopped or cut at their budget with the path so far."""

import base64
import json
import threading
import time

import numpy as np
import pytest

from s3vm_core import decision_on_grid
from s3vm_explorer.engine import protocol
from s3vm_explorer.engine import registry as solvers
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.figures.film import shipped
from s3vm_explorer.engine.protocol import OUT_OF_TIME, STOPPED, RunRequest
from s3vm_explorer.engine.registry import make_estimator
from s3vm_explorer.engine.run import lifecycle, process
from s3vm_explorer.ui import runs

MOONS = Generated("two_moons", 120, 0.1, 3)
#: Deterministic annealing with the hinge loss takes seconds here (1.7 s of CPU for its 208
#: states; at 800 points 0.45 s): long enough to stop.
SLOW = (Generated("two_moons", 2000, 0.1, 3), "DeterministicAnnealingS3VM", ())
#: Its squared hinge (a Newton solve per step) needs minutes there: a run that cannot end
#: within a budget of seconds, and reaches its first state at once.
SLOWER = (SLOW[0], SLOW[1], (("loss", "squared_hinge"),))


@pytest.fixture(autouse=True)
def fresh_runs(monkeypatch):
    runs._shelf.clear()
    monkeypatch.setattr(lifecycle, "ABANDON_AFTER", 60.0)  # these tests look away at times
    yield
    runs._shelf.clear()


def one_label_per_class(data=MOONS):
    y = runs.dataset(data).y_true
    labels = np.full(y.size, -1)
    for cls in (0, 1):
        labels[np.flatnonzero(y == cls)[0]] = cls
    return tuple(labels.tolist())


def grid_of(solver, labels, data=MOONS, params=()):
    """The states of a run computed here, and the display grid's features."""
    built = runs.dataset(data)
    estimator = make_estimator(solver, dict(params))
    trace = estimator.trace(built.X, np.asarray(labels))
    grid = built.grid_features(estimator)
    return list(trace), grid


def request(data, labels, solver, params=()):
    return RunRequest(data, labels, solver, params)


def test_a_run_brings_every_state_its_frames_and_the_solvers_own_time():
    labels = one_label_per_class()
    start = time.perf_counter()
    run = runs.run_solver(request(MOONS, labels, "QNS3VM", ()))
    wall = time.perf_counter() - start
    states, (_, _, features) = grid_of("QNS3VM", labels)
    assert run.complete and run.states[-1].event == "final"
    assert [s.step for s in run.states] == [s.step for s in states]
    assert run.frames[-1] == len(run.states) - 1
    shown = [run.states[i] for i in run.frames]
    expected = decision_on_grid(features, shown).reshape(len(shown), 60, 60)
    np.testing.assert_allclose(run.grid_decisions, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(run.point_decisions[-1], states[-1].train_decision, rtol=1e-5,
                               atol=1e-5)
    assert 0 < run.seconds < wall  # the solver's time, not the wait for the page
    assert runs.run_solver(request(MOONS, labels, "QNS3VM", ())) is run  # kept, not recomputed


def figure_array(spec) -> np.ndarray:
    """An array of a figure's JSON (plotly writes numpy arrays as base64 typed arrays)."""
    if isinstance(spec, dict) and "bdata" in spec:
        data = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=spec["dtype"])
        shape = [int(size) for size in str(spec.get("shape", len(data))).split(",")]
        return data.reshape(shape)
    return np.asarray(spec, dtype=float)


def test_previews_show_the_boundary_of_a_recorded_state_while_it_runs(monkeypatch):
    monkeypatch.setattr(process, "PREVIEW_EVERY", 0.0)  # a preview whenever a state comes
    # a run of about a second (DA's squared hinge, 400 points), so that the page, looking
    # every 0.25 s, finds it running several times
    data, params = Generated("two_moons", 400, 0.1, 3), (("loss", "squared_hinge"),)
    labels = one_label_per_class(data)
    seen = []
    runs.run_solver(request(data, labels, "DeterministicAnnealingS3VM", params),
                    preview=lambda live: seen.append(live.preview))
    assert len(seen) >= 2
    states, (_, _, features) = grid_of("DeterministicAnnealingS3VM", labels, data, params)
    figure = json.loads(seen[1])  # built in the solver's process: only its JSON came
    title = figure["layout"]["annotations"][0]["text"]
    assert title.startswith("running… ") and title.endswith(" states so far")
    n_so_far = int(title.rsplit(" · ", 1)[1].split()[0])
    fill, lines = figure["data"][:2]
    assert fill["type"] == "heatmap" and lines["type"] == "contour"
    assert lines["contours"]["start"] == 0 == lines["contours"]["end"]
    # the latest state recorded when it was drawn
    expected = decision_on_grid(features, [states[n_so_far - 1]])[0].reshape(60, 60)
    np.testing.assert_allclose(figure_array(lines["z"]), expected, atol=2e-3)
    assert shipped(seen[1]).layout.annotations[0].text == title


def test_a_rerun_in_the_middle_of_a_solve_finds_it_running():
    data, solver, params = SLOW
    labels = one_label_per_class(data)
    job = runs.start_run(request(data, labels, solver, params))
    while not job.states:
        job.wait(0.1)
    assert runs.start_run(request(data, labels, solver, params)) is job and not job.done
    run = runs.follow_run(job)
    assert run.complete and len(run.states) > 1


def test_two_sessions_share_one_run_without_racing():
    labels = one_label_per_class()
    results, errors = [], []

    def session():
        try:
            results.append(runs.run_solver(request(MOONS, labels,
                                                   "DeterministicAnnealingS3VM")))
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=session) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results[0] is results[1]
    steps = [s.step for s in results[0].states]
    assert steps == sorted(set(steps))  # no state recorded twice or out of order


def test_bad_parameters_raise_the_solvers_sentence():
    labels = one_label_per_class()
    with pytest.raises(ValueError, match="lam"):
        runs.run_solver(request(MOONS, labels, "QNS3VM", (("lam", -1.0),)))
    run = runs.run_solver(request(MOONS, labels, "QNS3VM", (("lam", 1.0),)))
    assert run.states[-1].event == "final"


def test_stop_hands_over_the_path_so_far_and_frees_the_cpu():
    data, solver, params = SLOW
    labels = one_label_per_class(data)
    job = runs.start_run(request(data, labels, solver, params))
    while len(job.states) < 3:
        job.wait(0.1)
    runs.stop_job(request(data, labels, solver, params))
    run = runs.follow_run(job)
    assert run.ended == STOPPED and not run.complete
    assert 3 <= len(run.states) and run.states[-1].event != "final"
    assert run.frames[-1] == len(run.states) - 1
    assert run.grid_decisions.shape[0] == len(run.frames) == run.point_decisions.shape[0]
    # asked for again, the stopped run is what the page shows, until it is forgotten
    assert runs.start_run(request(data, labels, solver, params)) is job
    runs.forget_job(request(data, labels, solver, params))
    fresh = runs.start_run(request(data, labels, solver, params))
    assert fresh is not job
    fresh.stop()


def test_a_run_ends_at_its_budget_with_the_path_so_far():
    data, solver, params = SLOWER
    labels = one_label_per_class(data)
    start = time.perf_counter()
    run = runs.run_solver(request(data, labels, solver, params), budget=3.0)
    assert run.ended == OUT_OF_TIME and run.budget == 3.0
    assert time.perf_counter() - start < 3.0 + 6.0  # the budget, then at most the hand-over
    assert len(run.states) >= 1


def test_an_abandoned_run_starts_anew_when_asked_for_again(monkeypatch):
    monkeypatch.setattr(lifecycle, "ABANDON_AFTER", 0.5)
    data, solver, params = SLOW
    labels = one_label_per_class(data)
    job = runs.start_run(request(data, labels, solver, params))
    deadline = time.monotonic() + 10
    while not job.done:
        assert time.monotonic() < deadline
        time.sleep(0.1)  # the page has gone: nobody waits
    assert job.status == protocol.ABANDONED
    again = runs.start_run(request(data, labels, solver, params))
    assert again is not job
    again.stop()


def test_a_long_run_is_announced_before_it_starts():
    assert solvers.expected_seconds("LDS", 2000) > solvers.LONG_RUN
    assert solvers.expected_seconds("LapSVM", 200) < 0.1
    # the scalable form the Watch page runs at 2,000 points is not long
    assert solvers.expected_seconds("LDS", 2000, scalable=True) < solvers.LONG_RUN
    assert "about 15 s at n = 2000" in solvers.long_run_note("LDS", 2000, {}, False, 120.0)
    assert solvers.long_run_note("LDS", 2000, {}, True, 120.0) is None


def test_the_exact_search_on_more_than_small_data_says_it_will_stop_at_its_limit():
    """Exponential in the points: at the app's default 200 points it runs its whole time
    limit (20 s, unproven); at 60 it proves the minimum in about a second."""
    note = solvers.long_run_note("BranchAndBoundS3VM", 200, {"max_time": 20.0}, False, 120.0)
    assert "at n = 200 it will most likely stop at its time limit of 20 s" in note
    assert "stop at its time limit of 5 s" in solvers.long_run_note(
        "BranchAndBoundS3VM", 200, {"max_time": 20.0}, False, 5.0)  # the run's budget is less
    assert solvers.long_run_note("BranchAndBoundS3VM", 60, {"max_time": 20.0}, False, 120.0) \
        is None


def test_a_run_stopped_before_its_first_state_says_so():
    data, solver, params = SLOW
    labels = one_label_per_class(data)
    job = runs.start_run(request(data, labels, solver, params))
    job.stop()  # at once: the solver has not produced a state yet
    with pytest.raises(ValueError, match="before the solver reached its first state"):
        runs.follow_run(job)
    assert job.status == protocol.STOPPED


class _Finished:
    """A job that has ended, holding ``nbytes`` (what the shelf sees of a job)."""

    status, done = protocol.FINISHED, True

    def __init__(self, nbytes: int):
        self.nbytes = nbytes


def test_the_kept_runs_are_bounded_in_number_and_in_bytes_oldest_first(monkeypatch):
    monkeypatch.setattr(lifecycle, "KEPT_RUNS", 5)
    monkeypatch.setattr(lifecycle, "KEPT_BYTES", 100)
    shelf = lifecycle.Shelf()
    for key in range(8):
        shelf.get(key, lambda: _Finished(10))
    assert list(shelf._jobs) == [3, 4, 5, 6, 7]  # the five most recent
    shelf.get(4, lambda: _Finished(10))  # asked for again: kept longest
    shelf.get("big", lambda: _Finished(80))
    # 5 + 80 + 10 * 3 > 100 bytes: the oldest go first, never the one just asked for
    assert list(shelf._jobs) == [7, 4, "big"]
    assert sum(job.nbytes for job in shelf._jobs.values()) <= 100


def test_what_a_run_holds_is_counted_in_its_arrays_and_film():
    labels = one_label_per_class()
    run = runs.run_solver(request(MOONS, labels, "QNS3VM", ()))
    arrays = sum(s.coef.nbytes + s.train_decision.nbytes for s in run.states)
    films = sum(len(args["figure"]) for args in run.films.values())
    held = lifecycle.nbytes_of(run)
    assert arrays + films < held < 2 * (arrays + films) + run.grid_decisions.nbytes
