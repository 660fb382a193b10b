"""The Watch page's film of a run with more than two classes (one-vs-rest, issue 27)."""

import zlib

import numpy as np
import pytest
from run_helpers import Recorder

from s3vm_core.metrics import unlabeled_error
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.figures.palette import FILL_STEPS, class_colors, region_colors
from s3vm_explorer.engine.protocol import RunFinished, RunRequest, StateReached
from s3vm_explorer.engine.run.process import trace_work
from toy_data import UNLABELED, class_count, pick_labeled


def traced(source: Generated, labels, solver: str, params: tuple = ()) -> dict:
    channel = Recorder()
    trace_work(channel, RunRequest(source, tuple(int(v) for v in labels), solver, params))
    (end,) = channel.of(RunFinished)
    return {"states": [m.state for m in channel.of(StateReached)], "frames": end.frames,
            "grids": end.grid_decisions, "points": end.point_decisions, "films": end.films}


@pytest.fixture(scope="module")
def blobs_run():
    data = Generated("blobs_3", 90, 0.6, 0)
    y = data.build().y_true
    labels = pick_labeled(y, 2, random_state=0)
    return data, y, labels, traced(data, labels, "QNS3VM", (("sigma", 1.5),))


def test_a_three_class_run_films_the_three_problems_and_the_winning_class(blobs_run):
    _, y, labels, run = blobs_run
    n_frames = len(run["frames"])
    assert run["grids"].shape == (n_frames, 3, 60, 60)  # each problem's f on the grid
    assert run["points"].shape == (n_frames, len(y), 3)
    film = run["films"][False]
    assert film["classes"] == 3
    assert film["point_colors"] == list(class_colors(3))
    assert film["class_lines"] == list(class_colors(3))
    assert np.frombuffer(film["region_colors"], np.uint8).reshape(3, 3).tolist() == (
        region_colors(3).tolist())
    fill = np.frombuffer(zlib.decompress(film["fill"]), np.int8).reshape(n_frames, 3, 60, 60)
    np.testing.assert_allclose(fill / FILL_STEPS, np.clip(run["grids"], -2, 2),
                               atol=0.5 / FILL_STEPS + 1e-6)
    # the winning class is everywhere one of the three, and all three win somewhere at the end
    assert set(np.unique(np.argmax(fill[-1], axis=0))) == {0, 1, 2}
    points = np.frombuffer(zlib.decompress(film["points"]), np.uint8).reshape(n_frames, -1)
    unlabeled = labels == UNLABELED
    np.testing.assert_array_equal(points[-1][~unlabeled], labels[~unlabeled])
    np.testing.assert_array_equal(points[-1][unlabeled],
                                  np.argmax(run["points"][-1], axis=1)[unlabeled])


def test_the_film_numbers_score_the_winning_class_against_the_truth(blobs_run):
    _, y, labels, run = blobs_run
    numbers = {row["label"]: row for row in run["films"][True]["numbers"]}
    error = unlabeled_error(run["points"][-1], labels, y)
    assert error < 0.1  # three well separated blobs, two labels each
    assert numbers["unlabeled error"]["values"][-1] == f"{100 * error:.1f} %"
    assert "supervised SVM" in numbers["unlabeled error"]["notes"][-1]
    # the objective of k independent problems is their sum
    final = run["states"][-1]
    assert final.objective == pytest.approx(sum(s.objective for s in final.states))
    assert numbers["objective"]["values"][-1] == f"{final.objective:.4g}"


def test_the_binary_film_keeps_its_arguments():
    data = Generated("two_moons", 40, 0.1, 0)
    y = data.build().y_true
    film = traced(data, pick_labeled(y, 1, random_state=0), "SVMBaseline")["films"][False]
    assert not {"classes", "region_colors", "class_lines"} & set(film)


def test_class_count_reads_the_data_sets_classes():
    assert class_count(np.array([0, 1, 1])) == 2
    assert class_count(np.array([2, 0, -1, 1])) == 3
    assert unlabeled_error(np.array([[1.0, 0, 0], [0, 0, 1]]), [-1, -1], np.array([0, -1])) == 0
