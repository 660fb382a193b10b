import json

import numpy as np
import plotly.io as pio

from s3vm_core import SVMBaseline
from toy_data import pick_labeled, project_2d, two_moons
from ui.caching import Run, display_grid, pick_frames
from ui.figures import (
    CLASS_SYMBOLS,
    FILL_STEPS,
    labeling_figure,
    player_figure,
    point_style,
)


def make_run(X, labels, estimator):
    from s3vm_core import decision_on_grid

    states = list(estimator.trace(X, labels))
    frames = pick_frames(states)
    gx, gy = display_grid(X, size=20)
    xx, yy = np.meshgrid(gx, gy)
    grid = decision_on_grid(estimator.features(np.column_stack([xx.ravel(), yy.ravel()])),
                            [states[i] for i in frames]).reshape(len(frames), 20, 20)
    points = np.stack([states[i].train_decision for i in frames])
    return Run(states, estimator, 0.0, frames, gx, gy, grid, points)


def test_labeled_points_differ_by_shape_not_only_colour():
    labels = np.array([-1, 0, 1, -1])
    colors, symbols, sizes, _ = point_style(labels)
    assert symbols == ["circle", CLASS_SYMBOLS[0], CLASS_SYMBOLS[1], "circle"]
    assert sizes[1] > sizes[0]
    np.testing.assert_array_equal(colors, [0.5, 0, 1, 0.5])  # grey, class 0, class 1, grey
    colors, *_ = point_style(labels, predicted=np.array([1, 1, 1, 0]))
    np.testing.assert_array_equal(colors, [1, 0, 1, 0])  # labeled points keep their class


def test_labeling_figure_is_one_trace_with_point_indices():
    X, y = two_moons(30, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    fig = labeling_figure(X, labels)
    assert len(fig.data) == 1
    assert fig.data[0].customdata.tolist() == list(range(30))


def test_player_figure_has_a_frame_per_shown_state_with_the_zero_contour():
    X, y = two_moons(40, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    run = make_run(X, labels, SVMBaseline())
    fig = player_figure(run, X, labels, frame=0, baseline_decisions=run.grid_decisions[-1])
    spec = json.loads(pio.to_json(fig))
    assert len(spec["frames"]) == len(run.frames) == 2
    fill, contour = spec["data"][:2]
    assert fill["type"] == "heatmap" and fill["zsmooth"] == "fast"
    assert contour["type"] == "contour" and contour["contours"]["coloring"] == "none"
    assert (contour["contours"]["start"], contour["contours"]["end"]) == (-1, 1)
    # the fill is the decision function, quantised; each frame carries fill, lines and points
    fill_z = np.asarray(fig.data[0].z, dtype=float) / FILL_STEPS
    np.testing.assert_allclose(fill_z, np.clip(run.grid_decisions[0], -2, 2), atol=0.5 / 60)
    assert [t.type for t in fig.frames[0].data[:3]] == ["heatmap", "contour", "scatter"]
    assert any(t.get("name") == "supervised SVM" and t["line"]["dash"] == "dash"
               for t in spec["data"])
    labels_in_buttons = [b["label"] for b in spec["layout"]["updatemenus"][0]["buttons"]]
    assert any("Play" in b for b in labels_in_buttons) and any("Pause" in b for b in
                                                              labels_in_buttons)
    # Unlabeled points take the colour of their predicted class in the final frame.
    final_points = np.asarray(fig.frames[-1].data[2].marker.color)
    unlabeled = labels == -1
    np.testing.assert_array_equal(final_points[unlabeled],
                                  run.point_decisions[-1][unlabeled] > 0)


def test_high_dimensional_data_is_coloured_by_decision_instead_of_a_grid():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 1, (20, 5)), rng.normal(2, 1, (20, 5))]
    labels = np.full(40, -1)
    labels[[0, 39]] = [0, 1]
    model = SVMBaseline()
    states = list(model.trace(X, labels))
    run = Run(states, model, 0.0, np.arange(2), None, None, None,
              np.stack([s.train_decision for s in states]))
    spec = json.loads(pio.to_json(player_figure(run, project_2d(X), labels)))
    assert spec["data"][0]["type"] == "scatter"
    assert spec["data"][0]["marker"]["showscale"] is True


def test_frames_keep_milestones_and_are_capped():
    class S:
        def __init__(self, event):
            self.event = event

    states = [S("init")] + [S("iter")] * 500 + [S("stage_end"), S("final")]
    frames = pick_frames(states, max_frames=30)
    assert len(frames) <= 30
    assert {0, 501, 502} <= set(frames.tolist())
