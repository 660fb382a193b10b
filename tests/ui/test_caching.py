"""The Watch page's solver runs: recorded in slices, previewed while they run, cached once."""

import threading

import numpy as np
import pytest

from ui import caching
from ui.figures import running_figure

MOONS = ("two_moons", 120, 0.1, 3)


@pytest.fixture(autouse=True)
def fresh_cache():
    caching.start_run.clear()
    yield
    caching.start_run.clear()


def one_label_per_class():
    _, y, _ = caching.dataset(*MOONS)
    labels = np.full(y.size, -1)
    for cls in (0, 1):
        labels[np.flatnonzero(y == cls)[0]] = cls
    return tuple(labels.tolist())


def test_a_running_solver_is_previewed_state_by_state_then_cached(monkeypatch):
    monkeypatch.setattr(caching, "FIRST_PREVIEW", 0.0)  # one state per slice
    monkeypatch.setattr(caching, "PREVIEW_EVERY", 0.0)
    labels = one_label_per_class()
    seen = []
    run = caching.run_solver(MOONS, labels, "QNS3VM", (), preview=lambda live: seen.append(
        (len(live.states), live.latest_panel("now"))))

    counts = [count for count, _ in seen]
    assert counts == list(range(1, len(run.states) + 1))  # every state was shown as it came
    title, grid, points = seen[0][1]
    assert title == "now" and grid.shape == (caching.GRID_SIZE, caching.GRID_SIZE)
    np.testing.assert_array_equal(points, run.states[0].train_decision)
    assert run.states[-1].event == "final"

    again = []
    assert caching.run_solver(MOONS, labels, "QNS3VM", (), preview=again.append) is run
    assert again == []  # a finished run is not recomputed, nor previewed again


def test_the_preview_figure_shows_the_latest_boundary_and_progress():
    live = caching.start_run(MOONS, one_label_per_class(), "ContinuationS3VM", ())
    assert live.advance(0.0) is None
    fig = running_figure(live, caching.dataset(*MOONS)[2], np.array(one_label_per_class()))
    assert "running" in fig.layout.annotations[0].text
    assert "1 state so far" in fig.layout.annotations[0].text
    fill, lines = fig.data[:2]
    assert fill.type == "heatmap" and np.asarray(fill.z).shape == (60, 60)
    assert lines.type == "contour" and lines.contours.start == 0 == lines.contours.end


def test_an_interrupted_run_resumes_where_it_stopped():
    labels = one_label_per_class()
    live = caching.start_run(MOONS, labels, "GradientTSVM", ())
    live.advance(0.0)
    live.advance(0.0)
    assert len(live.states) == 2
    # the page was rerun (a widget touched): the same run comes back from the cache
    assert caching.start_run(MOONS, labels, "GradientTSVM", ()) is live
    run = caching.run_solver(MOONS, labels, "GradientTSVM", ())
    fresh = caching.LiveRun(MOONS, labels, "GradientTSVM", ())
    while fresh.advance(10.0) is None:
        pass
    assert len(run.states) == len(fresh.result.states)
    assert run.states[-1].objective == pytest.approx(fresh.result.states[-1].objective)


def test_two_sessions_share_one_run_without_racing():
    labels = one_label_per_class()
    results, errors = [], []

    def session():
        try:
            results.append(caching.run_solver(MOONS, labels, "DeterministicAnnealingS3VM", ()))
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


def test_bad_parameters_raise_and_are_not_cached():
    labels = one_label_per_class()
    with pytest.raises(ValueError, match="lam"):
        caching.run_solver(MOONS, labels, "QNS3VM", (("lam", -1.0),))
    run = caching.run_solver(MOONS, labels, "QNS3VM", (("lam", 1.0),))
    assert run.states[-1].event == "final"
