import json

import numpy as np
import plotly.io as pio
from run_helpers import high_dimensional_run, make_run

from s3vm_core import SVMBaseline
from s3vm_explorer.engine.data import Data, View
from s3vm_explorer.engine.figures.data import labeling_figure
from s3vm_explorer.engine.figures.film import player_figure
from s3vm_explorer.engine.figures.palette import CLASS_SYMBOLS, point_style
from s3vm_explorer.engine.run.process import pick_frames
from toy_data import pick_labeled, two_moons


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


def test_player_figure_holds_the_still_parts_of_the_film():
    X, y = two_moons(40, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    run = make_run(X, labels, SVMBaseline())
    spec = json.loads(pio.to_json(player_figure(run, X, labels, run.grid_decisions[-1])))
    points = spec["data"][0]  # the player colours the first trace's markers
    named = {trace["name"]: trace for trace in spec["data"]}
    baseline = named["supervised SVM"]
    assert points["customdata"] is not None and "frames" not in spec
    assert {"objective", "stage value"} <= named.keys()
    # the supervised SVM has no stage value: its chart says so instead of staying blank
    assert "no outer parameter" in spec["layout"]["annotations"][-1]["text"]
    assert baseline["line"]["dash"] == "dash"
    # the player paints the decision function beneath: the plot must let it through, and the
    # main axes end where the grid does
    assert spec["layout"]["plot_bgcolor"] == spec["layout"]["paper_bgcolor"] == "rgba(0,0,0,0)"
    assert spec["layout"]["xaxis"]["range"] == [run.grid_x[0], run.grid_x[-1]]
    # unlabeled points take the colour of the final state's predicted class
    colors = np.asarray(player_figure(run, X, labels).data[0].marker.color)
    unlabeled = labels == -1
    np.testing.assert_array_equal(colors[unlabeled], run.point_decisions[-1][unlabeled] > 0)


def test_high_dimensional_data_is_drawn_on_its_display_grid_like_the_plane():
    X, X2, labels, run = high_dimensional_run()
    spec = json.loads(pio.to_json(player_figure(run, X2, labels)))
    assert spec["data"][0]["type"] == "scatter"
    assert spec["layout"]["xaxis"]["range"] == [run.grid_x[0], run.grid_x[-1]]
    assert run.grid_decisions.shape[1:] == (len(run.grid_y), len(run.grid_x))


def test_frames_keep_milestones_and_are_capped():
    class S:
        def __init__(self, event):
            self.event = event

    states = [S("init")] + [S("iter")] * 500 + [S("stage_end"), S("final")]
    frames = pick_frames(states, max_frames=30)
    assert len(frames) <= 30
    assert {0, 501, 502} <= set(frames.tolist())


def test_empty_space_is_the_grid_away_from_the_points():
    X, y = two_moons(100, noise=0.1, random_state=0)
    grid_x, grid_y = Data(X, np.zeros(len(X)), View.of(X)).grid(60)
    spec = labeling_figure(X, np.full(100, -1), empty_space=(grid_x, grid_y))
    places = np.column_stack([spec.data[1].x, spec.data[1].y])
    steps = np.array([grid_x[1] - grid_x[0], grid_y[1] - grid_y[0]])
    nearest = np.min(np.linalg.norm((places[:, None] - X[None]) / steps, axis=2), axis=1)
    assert nearest.min() > 1.0  # a click on or next to a point selects the point
    assert 0.5 * 3600 < len(places) < 3600  # most of the view stays open for new points


def _contrast(color: str, background: str = "#0E1117") -> float:
    """WCAG contrast ratio of two ``#RRGGBB`` colours (the background: Streamlit's dark)."""
    def luminance(hex_color):
        channels = [int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted([luminance(color), luminance(background)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_solver_and_class_colour_stands_out_on_a_dark_page():
    """The Compare and Local minima pages' solver colours and the classes beyond two, after
    ``for_dark_page``: at least 3:1 against the dark theme's background (Tol's indigo was
    1.4:1, black 1:1)."""
    import plotly.graph_objects as go

    from s3vm_explorer.engine.figures.compare import SOLVER_PALETTE
    from s3vm_explorer.engine.figures.palette import MORE_CLASS_COLORS
    from s3vm_explorer.engine.figures.theme import for_dark_page

    colors = [*SOLVER_PALETTE, *MORE_CLASS_COLORS]
    figure = go.Figure([go.Bar(x=[0], y=[1], marker={"color": c}) for c in colors])
    shown = [trace.marker.color for trace in for_dark_page(figure).data]
    low = {before: after for before, after in zip(colors, shown, strict=True)
           if _contrast(after) < 3}
    assert not low, low
