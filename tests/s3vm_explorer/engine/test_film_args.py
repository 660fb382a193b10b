"""The film player's arguments: what the browser plays must be the run, frame by frame."""

import filecmp
import json
import shutil
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from run_helpers import high_dimensional_run, make_run, with_baseline

from s3vm_core import QNS3VM, ContinuationS3VM, SVMBaseline
from s3vm_core.metrics import unlabeled_error
from s3vm_explorer.engine.data import View
from s3vm_explorer.engine.figures.palette import CLASS_COLORS, DECISION_RANGE, FILL_STEPS
from s3vm_explorer.engine.film import PLAYER_FILES as FRONTEND_FILES
from s3vm_explorer.engine.film import PLOTLY_JS, film_args, film_id
from s3vm_explorer.engine.notebook import LOADER
from s3vm_explorer.ui.player import FRONTEND
from toy_data import pick_labeled, two_moons

ROOT = Path(__file__).resolve().parents[3]


def frames(data: bytes, dtype) -> np.ndarray:
    """Per-frame bytes as the player receives them (zlib-compressed), as numbers."""
    return np.frombuffer(zlib.decompress(data), dtype=dtype)


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
    fill = frames(args["fill"], np.int8).reshape(n_frames, ny, nx) / FILL_STEPS
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
    colors = frames(args["points"], np.uint8).reshape(len(run.frames), len(X))
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


def test_high_dimensional_films_draw_f_on_the_plane_of_the_principal_components():
    """docs/architecture.md, Watch: on data of more than two features the heatmap is f on the
    plane of the first two principal components through the data's mean."""
    X, X2, labels, run = high_dimensional_run()
    args = film_args(run, X2, labels)
    ny, nx = len(run.grid_y), len(run.grid_x)
    fill = frames(args["fill"], np.int8).reshape(-1, ny, nx)[-1] / FILL_STEPS
    view = View.of(X)
    xx, yy = np.meshgrid(run.grid_x, run.grid_y)
    # f of the solver at the grid's nodes lifted back into the 5-D input space
    nodes = view.lift(np.column_stack([xx.ravel(), yy.ravel()]))
    expected = SVMBaseline().fit(X, labels).decision_function(nodes).reshape(ny, nx)
    np.testing.assert_allclose(fill, np.clip(expected, -DECISION_RANGE, DECISION_RANGE),
                               atol=0.5 / FILL_STEPS + 1e-6)
    # the plane passes through the mean, and the boundary crosses it between the clusters
    assert np.allclose(view.lift(np.zeros((1, 2))), X.mean(axis=0))
    assert expected.min() < 0 < expected.max()


def test_the_player_is_served_from_outside_the_source_tree_and_writes_nothing_into_it():
    """Streamlit's watcher reports a file written into the app's folder ("File change —
    Rerun"), and a read-only install cannot be written: the player's files are copied out."""
    from s3vm_explorer.ui import player

    stray = FRONTEND / PLOTLY_JS.name  # what the player used to write there
    stray.unlink(missing_ok=True)
    before = sorted(p.name for p in FRONTEND.iterdir())
    folder = player._served_folder()
    # (the notebook's loader beside them: a film in a notebook, not in the app)
    assert sorted(p.name for p in FRONTEND.iterdir()) == before == sorted(
        (*FRONTEND_FILES, LOADER.name))
    assert Path(tempfile.gettempdir()) in folder.parents
    assert ROOT not in folder.parents
    assert filecmp.cmp(folder / PLOTLY_JS.name, PLOTLY_JS, shallow=False)
    page = (folder / "index.html").read_text()
    for name in (PLOTLY_JS.name, *FRONTEND_FILES[1:]):
        assert f'src="{name}"' in page and (folder / name).is_file()


def test_a_read_only_install_serves_the_player(monkeypatch, tmp_path):
    from s3vm_explorer.ui import player

    installed = tmp_path / "film_player"
    shutil.copytree(FRONTEND, installed, ignore=shutil.ignore_patterns(PLOTLY_JS.name))
    installed.chmod(0o555)  # (not enforced for root: the listing below still shows it)
    monkeypatch.setattr(player, "FRONTEND", installed)
    try:
        folder = player._served_folder()
    finally:
        installed.chmod(0o755)
    for name in FRONTEND_FILES:
        assert (folder / name).read_bytes() == (FRONTEND / name).read_bytes()
    assert (folder / PLOTLY_JS.name).stat().st_size == PLOTLY_JS.stat().st_size
    assert sorted(p.name for p in installed.iterdir()) == sorted((*FRONTEND_FILES, LOADER.name))


def test_the_numbers_under_the_film_are_those_of_each_frame(moons_run):
    X, labels, run = moons_run
    y_true = two_moons(60, noise=0.1, random_state=0)[1]
    baseline = make_run(X, labels, SVMBaseline())
    numbers = {n["label"]: n for n in film_args(with_baseline(run, X, labels), X, labels,
                                                y_true, show_baseline=True)["numbers"]}
    shown = [run.states[i] for i in run.frames]
    assert numbers["step"]["values"][-1] == f"{shown[-1].step} · the answer"
    assert numbers["step"]["values"][0] == "0 · start"
    assert numbers["objective"]["values"] == [f"{s.objective:.4g}" for s in shown]
    errors = [100 * unlabeled_error(s.train_decision, labels, y_true) for s in shown]
    assert numbers["unlabeled error"]["values"] == [f"{e:.1f} %" for e in errors]
    # the difference to the supervised SVM, frame by frame, and whether it is better
    svm = 100 * unlabeled_error(baseline.states[-1].train_decision, labels, y_true)
    for error, note, better in zip(errors, numbers["unlabeled error"]["notes"],
                                   numbers["unlabeled error"]["better"], strict=True):
        change = round(error - svm, 1)
        if change:
            # an error rate's difference is in percentage points, not "points"
            assert note == f"{change:+.1f} percentage points vs supervised SVM"
            assert better == (change < 0)
        else:
            assert note == "as the supervised SVM" and better is None


def test_the_supervised_svm_shows_a_dash_for_its_gradient_and_no_error_without_truth():
    X, y = two_moons(40, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    numbers = film_args(make_run(X, labels, SVMBaseline()), X, labels)["numbers"]
    assert [n["label"] for n in numbers] == ["step", "objective", "‖gradient‖"]
    assert numbers[2]["values"] == ["—", "—"]  # LIBSVM reports no gradient


def test_play_settings_and_the_films_identity_travel_with_the_film(moons_run):
    X, labels, run = moons_run
    args = film_args(run, X, labels, identity="abc", speed=0.5, loop=True)
    assert (args["film"], args["speed"], args["loop"]) == ("abc", 0.5, True)
    assert args["speeds"] == [0.25, 0.5, 1.0, 2.0, 4.0] and args["hold_ms"] >= 1000
    assert film_id(("moons", (0, 1), "QNS3VM", ())) != film_id(("moons", (1, 0), "QNS3VM", ()))
    # the boundary plot's aspect ratio is the grid's: equal scales on its axes
    assert args["aspect"] == pytest.approx(np.ptp(run.grid_x) / np.ptp(run.grid_y))


def film_figure(run, X, labels, show_baseline=False) -> dict:
    if show_baseline:
        run = with_baseline(run, X, labels)
    return json.loads(film_args(run, X, labels, show_baseline=show_baseline)["figure"])


def test_the_alpha_zero_stage_of_qn_s3vm_is_shown_not_cut_off():
    """QN-S3VM starts with α = 0 (Algorithm 1), which a log axis cannot show: the stage chart
    still starts at step 0, with the α = 0 steps shaded and labelled."""
    X, y = two_moons(60, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    run = make_run(X, labels, QNS3VM())
    alphas = np.array([s.stage_value for s in run.states])
    last_zero = run.states[np.flatnonzero(alphas == 0)[-1]].step
    assert last_zero > 10  # the α = 0 stage is a good part of the path
    layout = film_figure(run, X, labels)["layout"]
    assert layout["yaxis3"]["type"] == "log"
    assert layout["xaxis3"]["range"] == [0, run.states[-1].step]
    (band,) = [shape for shape in layout["shapes"] if shape["xref"] == "x3"]
    assert (band["x0"], band["x1"]) == (0, last_zero)
    assert any(note["text"] == "α = 0" for note in layout["annotations"])


def test_log_axes_label_powers_of_ten_only():
    X, y = two_moons(60, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    # γ falls over decades, then 0 (the optional minimization of (2) itself after them)
    run = make_run(X, labels, ContinuationS3VM(sigma=0.4, finish_unsmoothed=True))
    layout = film_figure(run, X, labels)["layout"]
    stage_axis = layout["yaxis3"]
    # labels on powers of ten, none between ("2, 5"), in plain numbers over these decades
    assert stage_axis["type"] == "log"
    exponents = np.log10(stage_axis["tickvals"])
    np.testing.assert_allclose(exponents, np.round(exponents))
    assert stage_axis["ticktext"] == [f"{v:g}" for v in stage_axis["tickvals"]]
    (zero,) = [note for note in layout["annotations"] if note["text"] == "γ = 0"]
    # the band is at the path's end: its label reads leftwards from the chart's right side
    assert (zero["xanchor"], zero["yanchor"], zero["y"]) == ("right", "top", 1)


def test_label_switching_c_star_chart_reads_in_powers_of_ten_beside_its_zero_band():
    """C* grows from 0 through 1e-5 to C (Sindhwani & Keerthi 2006, §2.2): the tick labels
    were "100µ" (plotly's SI prefixes) and the "C* = 0" label sat on the "1" tick."""
    from s3vm_core import LabelSwitchingTSVM

    X, y = two_moons(60, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    run = make_run(X, labels, LabelSwitchingTSVM())
    layout = film_figure(run, X, labels)["layout"]
    stage_axis = layout["yaxis3"]
    assert stage_axis["ticktext"] == ["10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹", "1"]
    np.testing.assert_allclose(stage_axis["tickvals"], 10.0 ** np.arange(-5, 1))
    (zero,) = [note for note in layout["annotations"] if note["text"] == "C* = 0"]
    # inside the chart, from the band's left edge (the axis) rightwards: clear of the ticks
    assert zero["xref"] == "x3" and zero["x"] == run.states[0].step
    assert (zero["xanchor"], zero["yanchor"], zero["y"]) == ("left", "top", 1)


def da_film(seed):
    """A DA film on 40 two-moons points: with seed 0 the state of lowest objective is at a
    higher T than the path's end, with seed 1 it is the path's end."""
    from s3vm_core import DeterministicAnnealingS3VM

    X, y = two_moons(40, noise=0.1, random_state=seed)
    labels = pick_labeled(y, 1, random_state=seed)
    run = make_run(X, labels, DeterministicAnnealingS3VM())
    return run, film_args(run, X, labels, y)


def test_da_film_ends_on_the_best_state_of_its_path_and_says_so():
    """DA returns the state of lowest objective along its path (paper §3): its film's last
    frame jumps back up in T, and the title, the numbers and the T chart say why."""
    run, args = da_film(seed=0)
    final, ended = run.states[-1], run.states[-2]
    assert final.stage_value > 5 * ended.stage_value  # back up in T
    reached = next(s for s in run.states[:-1] if np.array_equal(s.coef, final.coef))
    assert args["titles"][-1] == f"best state of the path, reached at T = {final.stage_value:.3g}"
    assert args["titles"][-2].startswith(f"T = {run.states[args['states'][-2]].stage_value:.3g}")
    step = args["numbers"][0]
    assert step["notes"][-1] == f"the best state of the path, from step {reached.step}"
    assert set(step["notes"][:-1]) == {""}
    figure = json.loads(args["figure"])
    stage_line = next(t for t in figure["data"] if t.get("name") == "stage value")
    # the path's line ends where the path ended, without the jump back up
    assert stage_line["x"][-1] == ended.step
    marks = [t for t in figure["data"] if t.get("name") == "best state of the path"]
    assert sorted(t["yaxis"] for t in marks) == ["y2", "y3"]
    stage_mark = next(t for t in marks if t["yaxis"] == "y3")
    assert list(stage_mark["x"]) == [reached.step, final.step]
    assert list(stage_mark["y"]) == [final.stage_value] * 2
    assert any(note["text"] == "best state" and note["xref"] == "x3"
               for note in figure["layout"]["annotations"])


def test_a_da_film_that_ends_where_its_path_ends_is_titled_as_usual():
    run, args = da_film(seed=1)
    assert args["titles"][-1].startswith("T = ")
    assert "notes" not in args["numbers"][0]
    figure = json.loads(args["figure"])
    assert not any(t.get("name") == "best state of the path" for t in figure["data"])


def test_high_dimensional_films_name_their_principal_component_axes():
    X, X2, labels, run = high_dimensional_run()
    layout = json.loads(film_args(run, X2, labels, axis_titles=View.of(X).titles)["figure"])[
        "layout"]
    # the 2-D view of 5-D data is its first two principal components (engine.data.View)
    assert layout["xaxis"]["title"]["text"] == "PC 1"
    assert layout["yaxis"]["title"]["text"] == "PC 2"


def test_the_boundary_plot_is_the_largest_and_carries_the_baseline_legend(moons_run):
    X, labels, run = moons_run
    spec = film_figure(run, X, labels, show_baseline=True)
    layout = spec["layout"]
    boundary = layout["xaxis"]["domain"]
    assert boundary[1] - boundary[0] >= 0.6  # most of the width
    for chart in ("xaxis2", "xaxis3"):
        assert layout[chart]["domain"][1] - layout[chart]["domain"][0] < 0.35
    assert layout["yaxis"]["scaleanchor"] == "x"  # equal scales: the data's own shape
    (dashed,) = [t for t in spec["data"] if t.get("name") == "supervised SVM"]
    assert dashed["showlegend"] is True and dashed["xaxis"] == "x"
    # the legend stands above the boundary plot, not beside the charts on the right
    legend = layout["legend"]
    assert legend["x"] <= boundary[0] + 0.05 and legend["y"] >= 1
    assert legend["orientation"] == "h"


def test_every_colour_of_the_film_is_one_a_dark_page_can_show():
    """On a dark page the player swaps the figure's colours that would vanish there
    (palette.DARK_COLORS): every colour of a film's figure is either swapped or one that reads
    on both backgrounds, and every swap is of a colour the films use."""
    import re

    from s3vm_core import LabelSwitchingTSVM
    from s3vm_explorer.engine.figures.palette import BEST_COLOR, DARK_COLORS, UNLABELED_COLOR

    # the stage line (bluish green), the best state's marks, grey, and transparency
    both = {"#009E73", BEST_COLOR, UNLABELED_COLOR, "rgba(0,0,0,0)"}
    X, y = two_moons(40, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    da_run, _ = da_film(seed=0)
    runs = [da_run, make_run(X, labels, LabelSwitchingTSVM()), make_run(X, labels, SVMBaseline())]
    used = set()
    for run in runs:
        args = film_args(with_baseline(run, X, labels), X, labels, y, show_baseline=True)
        assert args["dark_colors"] == DARK_COLORS
        text = args["figure"]
        used |= set(re.findall(r'"(#[0-9A-Fa-f]{6}|rgba?\([0-9., ]+\)|black|white)"', text))
        used |= set(args["point_colors"])
    assert used - set(DARK_COLORS) <= both, used - set(DARK_COLORS)
    assert set(DARK_COLORS) <= used, set(DARK_COLORS) - used


def test_what_a_film_saves_names_its_solver_paper_data_and_labels():
    """The PNG's title, the GIF and the offline page's names (issue 34, item 7): the solver,
    its paper, the data set with n and the labels, and a file name that reads the same."""
    from s3vm_explorer.engine.data import Generated, read_upload
    from s3vm_explorer.engine.film import film_context
    from s3vm_explorer.engine.protocol import RunRequest

    labels = np.full(200, -1)
    labels[[3, 150]] = [0, 1]
    request = RunRequest(Generated("two_moons", 200, 0.1, 0), tuple(labels), "ContinuationS3VM",
                         ())
    context = film_context(request, labels)
    assert context["solver"].startswith("cS3VM") and "Chapelle" in context["paper"]
    assert context["data"] == "Two moons, n = 200, 2 labeled"
    assert context["name"] == "cs3vm-two-moons-n200-2-labeled"
    upload = read_upload("my data.csv", b"x,y,label\n0,0,a\n1,1,b\n2,2,\n")
    context = film_context(RunRequest(upload, (0, 1, -1), "SVMBaseline", ()), np.array([0, 1, -1]))
    assert context["data"] == "your file my data.csv, n = 3, 2 labeled"
    assert context["name"].startswith("supervised-svm-your-file-my-data-csv-n3")


def told_changes(sentences: list[str], what: str) -> list[int]:
    """How many unlabeled points each frame's sentence says changed ``what`` (side, class)."""
    import re

    counts = []
    for sentence in sentences[1:]:
        if f"No unlabeled point changed {what} since the previous frame." in sentence:
            counts.append(0)
            continue
        (count,) = re.findall(rf"(\d+) unlabeled points? changed {what} since the previous "
                              r"frame\.$", sentence)
        counts.append(int(count))
    return counts


def test_each_frame_is_told_in_a_sentence_of_its_title_numbers_and_moved_points(moons_run):
    """The film in words (issue 44): a frame's sentence says its stage as its title does, its
    objective and unlabeled error as the numbers under the film do, and how many unlabeled
    points changed side since the frame before, which must be the run's own count."""
    X, labels, run = moons_run
    y_true = two_moons(60, noise=0.1, random_state=0)[1]
    args = film_args(with_baseline(run, X, labels), X, labels, y_true, show_baseline=True)
    sentences, titles = args["sentences"], args["titles"]
    numbers = {n["label"]: n["values"] for n in args["numbers"]}
    n_frames = len(run.frames)
    assert len(sentences) == n_frames
    for k, sentence in enumerate(sentences):
        assert sentence.startswith(f"Frame {k + 1} of {n_frames}, "
                                   f"{titles[k].replace(' · ', ', ')}. "), sentence
        assert (f"Objective {numbers['objective'][k]}, unlabeled error "
                f"{numbers['unlabeled error'][k]}. ") in sentence
    assert sentences[0].endswith("The film starts here.")
    # the points whose predicted class (the sign of f) differs from the frame before
    unlabeled = labels == -1
    sides = run.point_decisions[:, unlabeled] > 0
    moved = np.sum(sides[1:] != sides[:-1], axis=1).tolist()
    assert told_changes(sentences, "side") == moved
    assert max(moved) > 0 and 0 in moved  # the film has both kinds of frame
    # the figure's accessible name says what it draws
    assert "decision function f" in args["label"] and "supervised SVM" in args["label"]
    assert f"{n_frames} frames" in args["label"] and "γ" in args["label"]


def test_a_one_vs_rest_film_tells_how_many_points_changed_class():
    from s3vm_core.multiclass import OneVsRestS3VM
    from s3vm_explorer.engine.data import Generated

    data = Generated("blobs_3", 45, 0.6, 0).build()
    labels = pick_labeled(data.y_true, 2, random_state=0)
    run = make_run(data.X, labels, OneVsRestS3VM(QNS3VM(sigma=1.5)), size=12)
    args = film_args(run, data.X, labels, data.y_true)
    classes = np.argmax(run.point_decisions[:, labels == -1], axis=-1)
    moved = np.sum(classes[1:] != classes[:-1], axis=1).tolist()
    assert told_changes(args["sentences"], "class") == moved and max(moved) > 0
    assert "3 classes" in args["label"]


def test_a_number_the_film_cannot_give_is_said_unknown_never_a_dash():
    X, y = two_moons(40, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    context = {"solver": "Supervised SVM", "data": "Two moons, n = 40, 2 labeled"}
    args = film_args(make_run(X, labels, SVMBaseline()), X, labels, context=context)
    assert [s.split(". ")[0] for s in args["sentences"]] == [
        "Frame 1 of 2, before the fit", "Frame 2 of 2, the fit"]
    for sentence in args["sentences"]:  # no truth given: no error to say
        assert "unlabeled error unknown." in sentence
        assert "—" not in sentence and "nan" not in sentence
    assert args["label"].startswith("The film of Supervised SVM on Two moons, n = 40")
    assert "outer parameter" not in args["label"]  # a fit has none
