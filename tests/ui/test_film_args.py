"""The film player's arguments: what the browser plays must be the run, frame by frame."""

import filecmp
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from run_helpers import high_dimensional_run, make_run

from s3vm_core import ContinuationS3VM, SVMBaseline
from toy_data import pick_labeled, two_moons
from ui.figures import CLASS_COLORS, DECISION_RANGE, FILL_STEPS
from ui.player import FRONTEND, PLOTLY_JS, film_args

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def moons_run():
    X, y = two_moons(60, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    run = make_run(X, labels, ContinuationS3VM(sigma=0.4, n_gamma=4))
    return X, labels, run


def test_every_frame_carries_the_decision_function_on_the_grid(moons_run):
    X, labels, run = moons_run
    args = film_args(run, X, labels)
    n_frames, ny, nx = run.grid_decisions.shape
    assert args["grid"]["nx"] == nx and args["grid"]["ny"] == ny
    assert args["grid"]["x"] == [run.grid_x[0], run.grid_x[-1]]
    fill = np.frombuffer(args["fill"], dtype=np.int8).reshape(n_frames, ny, nx) / FILL_STEPS
    # quantised to 1/FILL_STEPS and saturated beyond the colour scale's ends
    expected = np.clip(run.grid_decisions, -DECISION_RANGE, DECISION_RANGE)
    np.testing.assert_allclose(fill, expected, atol=0.5 / FILL_STEPS + 1e-6)
    assert args["states"] == run.frames.tolist()
    assert len(args["titles"]) == len(args["steps"]) == n_frames
    assert args["titles"][0].startswith("γ = ")  # the stage value, in the title's large type


def test_fill_colours_run_from_vermillion_through_white_to_blue(moons_run):
    X, labels, run = moons_run
    colors = np.frombuffer(film_args(run, X, labels)["fill_colors"], dtype=np.uint8)
    colors = colors.reshape(-1, 3)
    assert len(colors) == 2 * DECISION_RANGE * FILL_STEPS + 1  # one per quantised level
    assert colors[len(colors) // 2].tolist() == [255, 255, 255]  # f = 0
    assert colors[0, 0] > colors[0, 2] and colors[-1, 2] > colors[-1, 0]


def test_unlabeled_points_take_their_predicted_class_and_labels_keep_theirs(moons_run):
    X, labels, run = moons_run
    args = film_args(run, X, labels)
    assert args["point_colors"] == list(CLASS_COLORS)
    colors = np.frombuffer(args["points"], dtype=np.uint8).reshape(len(run.frames), len(X))
    unlabeled = labels == -1
    for frame, decisions in enumerate(run.point_decisions):
        np.testing.assert_array_equal(colors[frame][unlabeled], decisions[unlabeled] > 0)
        np.testing.assert_array_equal(colors[frame][~unlabeled], labels[~unlabeled])


def test_progress_markers_follow_the_objective_and_skip_missing_stage_values():
    X, y = two_moons(40, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    run = make_run(X, labels, SVMBaseline())  # its stage ("fit") has no value
    args = film_args(run, X, labels)
    objective, stage = args["progress"]
    assert objective["values"] == pytest.approx([run.states[i].objective for i in run.frames])
    assert stage["values"] == [None] * len(run.frames)
    json.dumps({k: v for k, v in args.items() if not isinstance(v, bytes)}, allow_nan=False)


def test_high_dimensional_points_are_coloured_by_their_decision_value():
    X2, labels, run = high_dimensional_run()
    decisions = run.point_decisions
    args = film_args(run, X2, labels)
    assert args["grid"] is None and args["fill"] == b""
    index = np.frombuffer(args["points"], dtype=np.uint8).reshape(2, 40).astype(int)
    middle = len(args["point_colors"]) // 2
    np.testing.assert_allclose((index - middle) / FILL_STEPS,
                               np.clip(decisions, -DECISION_RANGE, DECISION_RANGE),
                               atol=0.5 / FILL_STEPS + 1e-6)
    assert args["point_colors"][middle] == "rgb(255, 255, 255)"  # f = 0 on DECISION_SCALE


def test_the_player_is_served_from_outside_the_source_tree_and_writes_nothing_into_it():
    """Streamlit's watcher reports a file written into the app's folder ("File change —
    Rerun"), and a read-only install cannot be written: the player's files are copied out."""
    import ui.player

    stray = FRONTEND / PLOTLY_JS.name  # what the player used to write there
    stray.unlink(missing_ok=True)
    before = sorted(p.name for p in FRONTEND.iterdir())
    folder = ui.player._served_folder()
    assert sorted(p.name for p in FRONTEND.iterdir()) == before == ["index.html", "player.js"]
    assert Path(tempfile.gettempdir()) in folder.parents
    assert ROOT not in folder.parents
    assert filecmp.cmp(folder / PLOTLY_JS.name, PLOTLY_JS, shallow=False)
    page = (folder / "index.html").read_text()
    assert 'src="plotly.min.js"' in page and 'src="player.js"' in page


def test_a_read_only_install_serves_the_player(monkeypatch, tmp_path):
    import ui.player

    installed = tmp_path / "player_frontend"
    shutil.copytree(FRONTEND, installed, ignore=shutil.ignore_patterns(PLOTLY_JS.name))
    installed.chmod(0o555)  # (not enforced for root: the listing below still shows it)
    monkeypatch.setattr(ui.player, "FRONTEND", installed)
    try:
        folder = ui.player._served_folder()
    finally:
        installed.chmod(0o755)
    for name in ("index.html", "player.js"):
        assert (folder / name).read_bytes() == (FRONTEND / name).read_bytes()
    assert (folder / PLOTLY_JS.name).stat().st_size == PLOTLY_JS.stat().st_size
    assert sorted(p.name for p in installed.iterdir()) == ["index.html", "player.js"]
