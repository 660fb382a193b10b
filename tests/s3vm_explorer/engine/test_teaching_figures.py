"""The teaching pages' figures contain what their captions promise."""

import math
import warnings

import numpy as np
import pytest

from s3vm_core.losses import da_loss
from s3vm_explorer.engine.figures.compare import (
    compare_errors_figure,
    compare_objective_figure,
    compare_time_figure,
)
from s3vm_explorer.engine.figures.data import boundary_multiples_figure, soft_labels_figure
from s3vm_explorer.engine.figures.palette import CLASS_SYMBOLS, SOLVER_SYMBOLS
from s3vm_explorer.engine.figures.teaching import (
    annealing_curves_figure,
    effective_loss_figure,
    landscape_figure,
    objective_path_figure,
    stopping_figure,
)
from s3vm_explorer.engine.presets import DEFAULT, PAPER, TITLES
from s3vm_explorer.engine.registry import SOLVERS


@pytest.fixture(scope="module")
def continuation():
    from s3vm_core.solvers.continuation import ContinuationS3VM, smoothed_objective_along_line
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(n_samples=80, noise=0.1, random_state=1)
    labels = pick_labeled(y, 1, random_state=1)
    model = ContinuationS3VM(sigma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = list(model.trace(X, labels))
    ts = np.linspace(-2, 2, 121)
    curves = [(g, smoothed_objective_along_line(model, states[-1], ts=ts, gamma=g)[1])
              for g in [*model.gammas_, 0.0]]
    return model, states, ts, curves, X, labels


def test_landscape_has_one_curve_per_gamma_and_a_star_on_each_minimum(continuation):
    model, _, ts, curves, _, _ = continuation
    fig = landscape_figure(ts, curves, model.gamma0_, model.gamma_end_)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == len(model.gammas_) + 1 == 12
    assert lines[0].name.startswith("γ0 = ") and lines[-2].name.startswith("γ_end = ")
    assert lines[-1].name.startswith("γ = 0") and lines[-1].line.color == "black"
    (stars,) = [t for t in fig.data if t.mode == "markers"]
    assert len(stars.x) == len(curves) and set(stars.y) == {0.0}
    for line, x_star in zip(lines, stars.x, strict=True):
        assert min(line.y) == 0.0 and ts[np.argmin(line.y)] == x_star


def test_the_most_smoothed_slice_is_convex_as_bound_9_promises(continuation):
    # cS3VM §3.2: L_gamma is convex for gamma >= gamma_0, so on any line its second
    # differences are non-negative; the unsmoothed objective (2) need not be.
    _, _, ts, curves, _, _ = continuation
    gamma0_values = curves[0][1]
    second = np.diff(gamma0_values, 2)
    assert np.all(second >= -1e-9 * np.abs(gamma0_values).max())


def test_boundary_small_multiples_draw_one_boundary_per_panel(continuation):
    model, states, _, _, X, labels = continuation
    gx = np.linspace(X[:, 0].min(), X[:, 0].max(), 15)
    gy = np.linspace(X[:, 1].min(), X[:, 1].max(), 12)
    xx, yy = np.meshgrid(gx, gy)
    features = model.features(np.column_stack([xx.ravel(), yy.ravel()]))
    ends = [s for s in states if s.event == "stage_end"][::4]
    panels = [(f"γ = {s.stage_value:.3g}", (features @ s.coef + s.intercept).reshape(12, 15),
               s.train_decision) for s in ends]
    fig = boundary_multiples_figure(panels, X, labels, (gx, gy, None), n_cols=2)
    contours = [t for t in fig.data if t.type == "contour"]
    assert len(contours) == len(panels) == 3
    assert all(c.contours.start == 0 == c.contours.end for c in contours)
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [p[0] for p in panels]
    points = [t for t in fig.data if t.type == "scatter"]
    assert CLASS_SYMBOLS[1] in points[0].marker.symbol
    # Without a grid (d > 2) only the points are drawn.
    flat = boundary_multiples_figure([(p[0], None, p[2]) for p in panels], X, labels)
    assert {t.type for t in flat.data} == {"scatter"}
    # Equal scales shrink each panel's domain towards its title, not the range: a widened
    # range left each picture far below its title (issue 29's screenshots).
    assert fig.layout.yaxis.constrain == "domain" and fig.layout.yaxis.constraintoward == "top"
    assert fig.layout.height < 2 * 260 + 40


def test_eight_small_multiples_keep_each_panel_readable_at_1024_px(continuation):
    """The Continuation page's eight γ panels were 130 px wide at 1024 px (issue 34, item 4):
    two a row, each at least 300 px of the about 700 px main area the sidebar leaves."""
    _, states, _, _, X, labels = continuation
    panels = [(f"panel {k}", None, states[-1].train_decision) for k in range(8)]
    fig = boundary_multiples_figure(panels, X, labels)
    layout = fig.layout
    axes = ["" if k == 1 else str(k) for k in range(1, 9)]
    widths = [layout[f"xaxis{a}"].domain[1] - layout[f"xaxis{a}"].domain[0] for a in axes]
    assert min(widths) * 700 >= 300
    assert len({round(layout[f"yaxis{a}"].domain[1], 6) for a in axes}) == 4  # rows of two


def test_effective_loss_panels_share_one_axis_title():
    # three titles "f(x') of an unlabeled point" ran into each other at 1024 px
    fig = effective_loss_figure([10.0, 0.0])
    titles = [fig.layout[f"xaxis{k}"].title.text for k in ("", 2, 3)]
    assert titles == [None, "f(x′) of an unlabeled point x′", None]


def test_objective_path_marks_every_stage_end(continuation):
    _, states, _, _, _, _ = continuation
    ends = [(s.step, s.stage_value) for s in states if s.event == "stage_end"]
    fig = objective_path_figure([s.step for s in states], [s.objective for s in states],
                                [s.extras["objective_unsmoothed"] for s in states], ends)
    assert [t.name for t in fig.data] == ["L_γ (minimized)", "objective (2), γ = 0"]
    assert len(fig.layout.shapes) == len(ends) == 11  # the eleven gammas of §3.2
    assert fig.layout.yaxis.type == "log"
    # ticks written as numbers: plotly's own read "2, 10k, 5, 2, 1000" on the Continuation page
    axis = fig.layout.yaxis
    labels = axis.ticktext or ()
    assert all(not label.isdigit() or float(label) == value
               for label, value in zip(labels, axis.tickvals or (), strict=True))
    assert labels or axis.exponentformat == "power"


def test_effective_loss_one_panel_per_loss_one_curve_per_temperature():
    fig = effective_loss_figure([10.0, 1.0, 0.1, 0.0], current_T=1.0)
    assert [a.text.split()[0] for a in fig.layout.annotations] == ["hinge", "squared", "squared"]
    per_panel = {}
    for trace in fig.data:
        per_panel.setdefault(trace.xaxis, []).append(trace)
    assert len(per_panel) == 3
    for traces in per_panel.values():
        assert [t.name for t in traces] == ["T = 10", "T = 1", "T = 0.1", "T = 0",
                                            "current T = 1"]
        assert traces[-1].line.color == "black"


def test_effective_loss_shapes_of_da_figure_2():
    fig = effective_loss_figure([10.0, 0.0])
    curves = {(t.xaxis, t.name): (np.asarray(t.x), np.asarray(t.y)) for t in fig.data}
    t, hot_sq = curves[("x3", "T = 10")]
    # High T: the squared losses are unimodal with their minimum at the decision boundary.
    assert abs(t[np.argmin(hot_sq)]) < 0.03
    _, hot_sqh = curves[("x2", "T = 10")]
    assert abs(t[np.argmin(hot_sqh)]) < 0.03
    # High T: the hinge is almost constant inside the margin, steep outside (§3.2).
    _, hot_hinge = curves[("x", "T = 10")]
    inner, outer = np.abs(t) <= 1, np.abs(t) >= 1.5
    assert np.ptp(hot_hinge[inner]) < 0.1 < np.ptp(hot_hinge[outer])
    # T = 0: the hard effective loss min(V(f), V(-f)) of eq. (1), with its bump at f = 0.
    _, cold_sqh = curves[("x2", "T = 0")]
    np.testing.assert_allclose(cold_sqh, np.minimum(da_loss(t, "squared_hinge"),
                                                    da_loss(-t, "squared_hinge")))
    assert cold_sqh[np.argmin(np.abs(t))] == cold_sqh.max()


def test_soft_labels_colour_is_p_and_labeled_points_keep_their_shape():
    X2 = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    labels = np.array([0, -1, -1, 1])
    p = np.array([0.0, 0.25, 0.5, 1.0])
    (trace,) = soft_labels_figure(X2, labels, p).data
    assert list(trace.marker.color) == [0.0, 0.25, 0.5, 1.0]
    assert (trace.marker.cmin, trace.marker.cmax) == (0.0, 1.0)
    assert list(trace.marker.symbol) == [CLASS_SYMBOLS[0], "circle", "circle", CLASS_SYMBOLS[1]]


def test_annealing_curves_read_left_to_right_as_t_falls():
    T = [10.0, 10 / 1.5, 10 / 2.25]
    fig = annealing_curves_figure(T, [5.0, 2.0, 0.1], [1.0, 0.8, 0.7], current_T=T[1])
    assert len(fig.data) == 2
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.autorange == "reversed"
    assert fig.layout.xaxis2.autorange == "reversed"
    assert len(fig.layout.shapes) == 2  # the chosen T in both panels
    # powers of ten on the narrow T axes, over the decades a run spans (plotly's own ticks
    # read "10 5 2 1 5 2 0.1 5 2")
    wide = annealing_curves_figure([10 / 1.5**k for k in range(16)], [1.0] * 16, [1.0] * 16)
    assert wide.layout.xaxis.ticktext == ("0.1", "1", "10")
    assert fig.layout.xaxis.ticktext  # under a decade: 1-2-5 steps, never a lone tick
    assert len(fig.layout.xaxis.ticktext) >= 2


def test_stopping_figure_has_one_marker_per_criterion_that_fires():
    iterations = np.arange(50)
    decay = np.exp(-iterations / 5.0)
    classical = {"grad_norm": decay, "mixed_product": decay**2}
    checks = {"stability": np.linspace(1, 0, 50), "validation": np.linspace(0.5, 0.1, 50)}
    stops = {"grad_norm": 40, "mixed_product": None, "stability": 12, "validation": 20,
             "mixed": 20}
    fig = stopping_figure(iterations, classical, checks, stops, unlabeled_error=decay / 2)
    markers = [t for t in fig.data if t.name.startswith("stop: ")]
    assert len(markers) == 4  # mixed_product never fired: no line
    assert {tuple(t.x) for t in markers} == {(40, 40), (12, 12), (20, 20)}
    by_name = {t.name: t for t in markers}
    assert by_name["stop: ‖∇‖"].xaxis == "x"                       # classical: left panel
    assert by_name["stop: stability check τ (Alg. 2)"].xaxis == "x2"  # checks: right panel
    assert fig.layout.yaxis.type == "log"
    curves = [t for t in fig.data if not t.name.startswith("stop: ")]
    assert len(curves) == 5


def test_stopping_checks_panel_ends_where_its_curves_settle():
    # The checks settle early in a long PCG run: drawn over all 600 iterations, everything of
    # interest was squeezed into the panel's first 30 (issue 20).
    iterations = np.arange(601)
    settled = np.minimum(iterations, 40)
    stability = np.where(iterations < 40, 0.5 * np.cos(iterations), 0.0)
    error = 0.3 - 0.005 * settled
    checks = {"stability": stability, "validation": np.full(601, np.nan)}
    checks["validation"][::20] = 0.1  # a check every 20 iterations, flat
    stops = {"grad_norm": 500, "stability": 25, "validation": 20}
    fig = stopping_figure(iterations, {"grad_norm": np.exp(-iterations / 50)}, checks, stops,
                          unlabeled_error=error)
    low, high = fig.layout.xaxis2.range
    assert low == 0 and 40 < high <= 60  # the last change, and a margin to show it is the last
    assert fig.layout.xaxis.range is None  # the classical criteria keep the whole run


def _rows():
    rows = []
    for draw in range(3):
        for solver, error, svm in (("SVMBaseline", 0.3, 0.3), ("LapSVM", 0.1 * draw, 0.25),
                                   ("QNS3VM", 0.2, 0.3 - 0.1 * draw)):
            rows.append({"solver": solver, "draw": draw, "success": error == 0,
                         "unlabeled_error": error, "baseline_error": svm,
                         "objective": 1.0 + error, "seconds": 0.1, "error": ""})
    return rows


def _marks(fig, name):
    """The dots of run ``name`` and the circles of its own SVM, as (x, y) pairs."""
    (dots,) = [t for t in fig.data if t.name == name]
    circles = [t for t in fig.data if t.name == f"{name}: its SVM"]
    return (list(zip(dots.x, dots.y, strict=True)),
            list(zip(circles[0].x, circles[0].y, strict=True)) if circles else [])


def test_compare_errors_put_each_draw_beside_the_solver_s_own_svm_on_that_draw():
    fig = compare_errors_figure(_rows(), {"LapSVM": "LapSVM title"})
    dots, circles = _marks(fig, "LapSVM title")
    assert [x for x, _ in dots] == [0.0, 10.0, 20.0]  # errors on x: long names read on the left
    assert [x for x, _ in circles] == [25.0, 25.0, 25.0]  # its SVM, draw by draw
    assert [y for _, y in dots] == [y for _, y in circles]  # a draw's two marks on one line
    qn_dots, qn_circles = _marks(fig, "QNS3VM")
    assert [x for x, _ in qn_circles] == pytest.approx([30.0, 20.0, 10.0])
    # one line per draw joins the two, in the solver's band (band k centred on y = k)
    lines = [t for t in fig.data if t.mode == "lines" and t.x and t.x[0] is not None]
    lap_line = lines[0]
    assert list(lap_line.x) == [25.0, 0.0, None, 25.0, 10.0, None, 25.0, 20.0, None]
    assert all(0.5 < y < 1.5 for y in lap_line.y if y is not None)
    assert all(1.5 < y < 2.5 for _, y in qn_dots)
    # the reference SVM is its own SVM: dots only, no line, no circle
    ref_dots, ref_circles = _marks(fig, "SVMBaseline")
    assert len(ref_dots) == 3 and ref_circles == [] and len(lines) == 2
    # the solvers on the axis, the first on top; text of at least 13 px
    assert list(fig.layout.yaxis.ticktext) == ["SVMBaseline", "LapSVM title", "QNS3VM"]
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]
    assert fig.layout.font.size >= 13
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert legend == ["solver, one mark a draw", "its own supervised SVM on the same draw"]


def test_compare_objective_small_multiples_skip_the_baseline_and_mark_successes():
    fig = compare_objective_figure(_rows())
    assert [a.text for a in fig.layout.annotations] == ["LapSVM", "QNS3VM"]


def test_compare_objective_panel_titles_fit_their_panels():
    # Four panels in a row: a solver's full title is wider than its panel and was clipped.
    titles = {"LapSVM": "LapSVM in the primal (Newton / PCG)",
              "QNS3VM": "QN-S3VM (quasi-Newton)"}
    fig = compare_objective_figure(_rows(), titles)
    texts = [a.text for a in fig.layout.annotations]
    assert texts == ["LapSVM in the<br>primal<br>(Newton / PCG)", "QN-S3VM<br>(quasi-Newton)"]
    assert all(len(line) <= 18 for text in texts for line in text.split("<br>"))
    assert fig.layout.margin.t >= 2 * fig.layout.annotations[0].font.size  # two lines fit
    lap = fig.data[0]
    lap_symbol = SOLVER_SYMBOLS[list(SOLVERS).index("LapSVM")]  # its own shape, open on failure
    assert list(lap.marker.symbol) == [lap_symbol, f"{lap_symbol}-open", f"{lap_symbol}-open"]
    assert list(lap.x) == [1.0, 1.1, 1.2]


def _both_rows():
    """A comparison of "both": each solver as in its paper and with its generic defaults."""
    rows = []
    for draw in range(2):
        rows.append({"solver": "SVMBaseline", "draw": draw, "success": False,
                     "unlabeled_error": 0.3, "baseline_error": 0.3, "objective": math.nan,
                     "seconds": 0.01, "error": "", "error_vs_baseline": 0.0})
        for solver in SOLVERS:
            if solver == "SVMBaseline":
                continue
            for preset in ("paper", "default"):
                rows.append({"solver": f"{solver}:{preset}", "draw": draw, "success": True,
                             "unlabeled_error": 0.0, "baseline_error": 0.3,
                             "objective": 1.0 + draw, "seconds": 0.1, "error": "",
                             "error_vs_baseline": -0.3})
    return rows


def _trace_colors(fig) -> dict:
    """Each trace's name -> its colour (a bar chart: each bar's)."""
    colors = {}
    for trace in fig.data:
        if trace.type == "bar":
            colors.update(zip(trace.y, trace.marker.color, strict=True))
        elif trace.name and trace.showlegend is not True:
            colors[trace.name] = trace.marker.color
    return colors


def test_a_solver_wears_one_colour_on_every_compare_chart_whichever_ran():
    # The colours were dealt in each chart's order: the objective panels (no baseline) shifted
    # every solver's colour by one, and a solver's two presets wore two colours (issue 29, 13).
    from s3vm_explorer.engine.comparison import summarize

    rows = _both_rows()
    titles = {name: name.partition(":")[0] for name in {r["solver"] for r in rows}}
    charts = [compare_errors_figure(rows, titles), compare_objective_figure(rows, titles),
              compare_time_figure(summarize(rows), titles)]
    colors = [_trace_colors(fig) for fig in charts]
    for solver in SOLVERS:
        worn = {c[solver] for c in colors if solver in c}
        assert len(worn) == 1, (solver, worn)
    by_solver = {solver: colors[0][solver] for solver in SOLVERS}
    assert len(set(by_solver.values())) == len(SOLVERS)  # no two solvers share a colour
    # ... and the same colour when fewer solvers ran
    few = [r for r in rows if r["solver"].partition(":")[0] in ("SVMBaseline", "LapSVM")]
    alone = _trace_colors(compare_objective_figure(few, titles))
    assert alone == {"LapSVM": by_solver["LapSVM"]}


def test_compare_defaults_are_open_shapes_and_hatched_bars():
    from s3vm_explorer.engine.comparison import summarize

    rows = _both_rows()
    dots = {t.name: t for t in compare_errors_figure(rows).data}
    lds = SOLVER_SYMBOLS[list(SOLVERS).index("LDS")]
    assert dots["LDS:default"].marker.symbol == f"{lds}-open"
    assert dots["LDS:paper"].marker.symbol == lds
    (bars,) = compare_time_figure(summarize(rows)).data
    hatched = dict(zip(bars.y, bars.marker.pattern.shape, strict=True))
    assert hatched["LDS:default"] == "/" and hatched["LDS:paper"] == ""


def test_compare_objective_rows_of_panels_sit_close_and_titles_fit_their_panels():
    # "both" gives 18 panels in 5 rows: the spacing was a fraction of the height (0.18), 245 px
    # between rows, and the titles "LDS (low density separation) — the generic default" ran
    # over their neighbours'.
    titles = {f"{s}:{p}": f"{spec.title.partition(' (')[0]} — {TITLES[p]}"
              for s, spec in SOLVERS.items() for p in (PAPER, DEFAULT)}
    fig = compare_objective_figure(_both_rows(), titles)
    layout = fig.layout
    plot_height = layout.height - layout.margin.t - layout.margin.b
    tops = sorted({round(layout[f"yaxis{k or ''}"].domain[1], 6) for k in range(19)
                   if layout[f"yaxis{k or ''}"] is not None}, reverse=True)
    assert len(tops) == 5
    bottoms = sorted({round(a.domain[0], 6) for a in (layout[f"yaxis{k or ''}"]
                                                     for k in range(19)) if a is not None},
                     reverse=True)
    font = layout.annotations[0].font.size
    most_lines = max(a.text.count("<br>") + 1 for a in layout.annotations)
    for bottom, top in zip(bottoms, tops[1:], strict=False):
        gap = (bottom - top) * plot_height  # px between a row and the next one's plot
        # room for the axis ticks and title above and the titles below, and not much more
        assert 30 + most_lines * font <= gap <= 70 + most_lines * 1.4 * font, gap
    assert layout.margin.t >= most_lines * font  # the first row's titles fit above it
    # each title line fits its panel and the spacing beside it in the narrowest chart (564 px
    # wide at a 1024 px window, 500 px of plots), at half an em a character (Source Sans)
    slots = [(a.domain[1] - a.domain[0] + 0.06) * 500 for a in
             (layout[f"xaxis{k or ''}"] for k in range(19)) if a is not None]
    longest = max(len(line) for a in layout.annotations for line in a.text.split("<br>"))
    assert longest * 0.5 * font <= min(slots)
    texts = [a.text for a in layout.annotations]
    assert "LDS<br>the generic<br>default" in texts
    assert "TSVM with label<br>switching<br>as in the paper" in texts


def test_compare_time_one_bar_per_solver():
    from s3vm_explorer.engine.comparison import summarize

    rows = [dict(r, error_vs_baseline=0.0) for r in _rows()]
    fig = compare_time_figure(summarize(rows))
    assert list(fig.data[0].y) == ["SVMBaseline", "LapSVM", "QNS3VM"]
    assert fig.layout.xaxis.type == "log"


@pytest.mark.parametrize(("values", "labels"), [
    ([0.02, 0.3, 2.0], ["0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2"]),
    ([0.03, 0.08], ["0.02", "0.03", "0.04", "0.05", "0.06", "0.07", "0.08", "0.09", "0.1"]),
])
def test_log_axes_label_their_ticks_in_full(values, labels):
    # Plotly's own labels of a log axis over a few decades read "5, 2, 1, 5, 2…" (issue 20):
    # here each tick is written as the number it marks.
    from s3vm_explorer.engine.figures.traces import log_axis

    axis = log_axis(values)
    assert axis["type"] == "log" and axis["ticktext"] == labels
    assert axis["tickvals"] == pytest.approx([float(label) for label in labels])


def test_log_axes_over_many_decades_mark_powers_of_ten():
    from s3vm_explorer.engine.figures.traces import log_axis

    axis = log_axis([1e-16, 1e-3, 1.0])
    assert axis == {"type": "log", "dtick": 3, "exponentformat": "power"}


def test_compare_time_axis_is_labeled_in_full():
    from s3vm_explorer.engine.comparison import summarize

    rows = [dict(r, error_vs_baseline=0.0, seconds=0.02 if r["solver"] == "SVMBaseline"
                 else 1.5) for r in _rows()]
    axis = compare_time_figure(summarize(rows)).layout.xaxis
    assert axis.ticktext == ("0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2")
