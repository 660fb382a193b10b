"""Pure functions from data and solver runs to plotly figures (testable without a server).

Colours are the Okabe–Ito palette (colour-blind safe); labeled points also differ from unlabeled
ones by marker shape and size, so the picture reads in grey scale too.
"""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy.spatial import cKDTree

from toy_data import UNLABELED
from ui.presets import DEFAULT
from ui.solvers import SOLVERS

CLASS_COLORS = ("#D55E00", "#0072B2")        # vermillion = class 0 (f < 0), blue = class 1
CLASS_SYMBOLS = ("diamond", "square")
UNLABELED_COLOR = "#999999"
DECISION_SCALE = [[0.0, "#D55E00"], [0.5, "#FFFFFF"], [1.0, "#0072B2"]]
DECISION_RANGE = 2.0  # the colour scale saturates at |f| = 2, beyond the margins f = +-1
STAGE_NAMES = {"C_star": "C*", "gamma": "γ", "alpha": "α", "T": "T", "newton": "Newton step",
               "pcg": "PCG iteration", "fit": "fit"}


#: Point colours as numbers on one scale: 0 = class 0, 0.5 = unlabeled grey, 1 = class 1.
#: Numbers keep a film's frames cheap (plotly validates every colour string it is given).
POINT_SCALE = [[0.0, CLASS_COLORS[0]], [0.5, UNLABELED_COLOR], [1.0, CLASS_COLORS[1]]]
#: Classes 2, 3, ... of a data set with more than two (one-vs-rest): the rest of the
#: Okabe–Ito palette, and a marker shape each (labeled points differ by shape, not only colour).
MORE_CLASS_COLORS = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
MORE_CLASS_SYMBOLS = ("triangle-up", "cross", "star", "hexagon", "triangle-down", "pentagon")
#: Most classes the app draws apart.
MAX_CLASSES = len(CLASS_COLORS) + len(MORE_CLASS_COLORS)


def class_colors(n_classes: int) -> tuple[str, ...]:
    """The colour of each of ``n_classes`` classes."""
    return (CLASS_COLORS + MORE_CLASS_COLORS)[:n_classes]


def class_symbols(n_classes: int) -> tuple[str, ...]:
    """The marker of each of ``n_classes`` classes' labeled points."""
    return (CLASS_SYMBOLS + MORE_CLASS_SYMBOLS)[:n_classes]


def point_scale(n_classes: int = 2) -> list:
    """The colour scale of ``point_style``'s values: ``POINT_SCALE`` for two classes; for k
    classes a stepped scale, value c = class c and value k = unlabeled grey."""
    if n_classes <= 2:
        return POINT_SCALE
    colors = [*class_colors(n_classes), UNLABELED_COLOR]
    edges = np.linspace(0.0, 1.0, len(colors) + 1)
    return [[float(edge), color] for i, color in enumerate(colors)
            for edge in (edges[i], edges[i + 1])]


def predicted_classes(decisions) -> np.ndarray:
    """The class each decision picks: f > 0 (class 1) for one binary function (n,), the
    largest output for one-vs-rest's k functions (n, k)."""
    decisions = np.asarray(decisions)
    return (decisions > 0).astype(int) if decisions.ndim == 1 else np.argmax(decisions, axis=-1)


def n_classes_of(decisions) -> int:
    """2 for a binary decision (n,), k for one-vs-rest's (n, k)."""
    decisions = np.asarray(decisions)
    return 2 if decisions.ndim == 1 else decisions.shape[-1]


#: Weight of a class's colour over white in its region of a one-vs-rest figure.
REGION_WEIGHT = 0.35


def region_colors(n_classes: int) -> np.ndarray:
    """RGB (uint8, one row per class) of each class's region: its colour, light over white."""
    rgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in class_colors(n_classes)])
    return np.round(255 + REGION_WEIGHT * (rgb - 255)).astype(np.uint8)


def class_region_traces(grid_x, grid_y, decisions: np.ndarray) -> list:
    """One-vs-rest's k decision functions on the display grid, ``(k, ny, nx)``: a heatmap of
    the winning class (its region, in its light colour) and each problem's f = 0 in its
    class's colour."""
    k = len(decisions)
    colors = [f"rgb({r},{g},{b})" for r, g, b in region_colors(k)]
    edges = np.linspace(0.0, 1.0, k + 1)
    scale = [[float(edge), color] for i, color in enumerate(colors)
             for edge in (edges[i], edges[i + 1])]
    traces = [go.Heatmap(x=grid_x, y=grid_y, z=np.argmax(decisions, axis=0), zsmooth=False,
                         colorscale=scale, zmin=-0.5, zmax=k - 0.5, showscale=False,
                         hoverinfo="skip", name="winning class")]
    for c, color in enumerate(class_colors(k)):
        traces.append(go.Contour(
            x=grid_x, y=grid_y, z=np.round(decisions[c], 3), showscale=False, showlegend=False,
            contours={"coloring": "none", "start": 0, "end": 0, "size": 1},
            line={"width": 2, "color": color}, hoverinfo="skip",
            name=f"class {c} against the rest"))
    return traces


def point_style(labels: np.ndarray, predicted: np.ndarray | None = None, n_classes: int = 2):
    """Marker colour value (on ``point_scale(n_classes)``), symbol, size and outline per point.

    Labeled points are large filled diamonds (class 0) and squares (class 1) with a black
    outline (``class_symbols`` for more classes); unlabeled points are small circles, grey or
    coloured by ``predicted`` (0/1, or the class index for more than two classes).
    """
    labels = np.asarray(labels)
    labeled = labels != UNLABELED
    grey = 0.5 if n_classes <= 2 else float(n_classes)
    colors = (np.full(labels.shape, grey) if predicted is None
              else np.asarray(predicted, dtype=float))
    colors = np.where(labeled, labels, colors)
    symbols = np.where(labeled, np.asarray(class_symbols(max(n_classes, 2)),
                                           dtype=object)[labels.clip(0)], "circle")
    sizes = np.where(labeled, 14, 7)
    widths = np.where(labeled, 1.5, 0.0)
    return colors, symbols.tolist(), sizes, widths


def _points_trace(X2, labels, predicted=None, name="points", n_classes: int = 2) -> go.Scatter:
    colors, symbols, sizes, widths = point_style(labels, predicted, n_classes)
    return go.Scatter(
        x=X2[:, 0], y=X2[:, 1], mode="markers", name=name, customdata=np.arange(len(X2)),
        marker={"color": colors, "colorscale": point_scale(n_classes), "cmin": 0.0,
                "cmax": 1.0 if n_classes <= 2 else float(n_classes),
                # an array: plotly checks a list of symbol names one by one (0.08 s at
                # n = 2000, most of a running solver's preview figure), an array at once
                "symbol": np.asarray(symbols), "size": sizes,
                "line": {"color": OUTLINE_COLOR, "width": widths}},
        hovertemplate="point %{customdata}<extra></extra>", showlegend=False,
    )


def _square_axes(fig: go.Figure, row=None, col=None) -> None:
    fig.update_yaxes(scaleanchor="x", scaleratio=1, row=row, col=col)


def _empty_places(X2: np.ndarray, grid_x, grid_y) -> np.ndarray:
    """The nodes of the grid farther than one grid step from every point: a click near a point
    must select the point (plotly picks the nearest marker, and an invisible node right under
    the cursor would beat a point a few pixels away)."""
    xx, yy = np.meshgrid(grid_x, grid_y)
    nodes = np.column_stack([xx.ravel(), yy.ravel()])
    steps = np.array([grid_x[1] - grid_x[0], grid_y[1] - grid_y[0]])
    distance, _ = cKDTree(np.asarray(X2) / steps).query(nodes / steps)
    return nodes[distance > 1.0]


def labeling_figure(X2: np.ndarray, labels: np.ndarray, title: str = "",
                    empty_space: tuple | None = None, n_classes: int = 2) -> go.Figure:
    """The clickable scatter of the Data page: the points' trace, ``customdata`` = point index.

    ``empty_space`` = ``(grid_x, grid_y)`` adds a second trace of invisible markers on that
    grid, so that a click on empty space selects the grid point under it (plotly's selection
    reports clicks on markers only) and the page can add a point there.
    """
    fig = go.Figure(_points_trace(X2, labels, n_classes=n_classes))
    if empty_space is not None:
        places = _empty_places(X2, *empty_space)
        invisible = {"marker": {"opacity": 0}}
        fig.add_trace(go.Scatter(
            x=places[:, 0], y=places[:, 1], mode="markers", name="empty space",
            showlegend=False,
            marker={"size": 6, "opacity": 0, "color": "black"}, hoverinfo="none",
            selected=invisible, unselected=invisible))
    fig.update_layout(
        title=title, height=520, margin={"l": 10, "r": 10, "t": 40, "b": 10},
        plot_bgcolor="white", uirevision="labels",
    )
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    _square_axes(fig)
    return fig


#: Height of the film's figure (the player adds its title above and its controls below).
PLAYER_HEIGHT = 600


def stage_text(state, returned: bool = False) -> str:
    """The stage a state belongs to, as the film's title: "T = 0.26 · iteration 3". A final
    state that ``returned`` to an earlier one (``returned_state``) is named for what it is:
    "best state of the path, reached at T = 0.26"."""
    name = STAGE_NAMES.get(state.stage, state.stage)
    value = "" if math.isnan(state.stage_value) else f" = {state.stage_value:.3g}"
    if returned:
        return f"best state of the path, reached at {name}{value}"
    if not value:
        return f"{name} · iteration {state.iteration}"
    return f"{name}{value} · iteration {state.iteration}"


def returned_state(states) -> int | None:
    """Index of the earlier state the "final" state repeats when it is not where the path
    ended: deterministic annealing returns the state of lowest objective along its path
    (Sindhwani et al. 2006, §3), whose T is higher than the path's last. None when the final
    state is the path's last (every other solver)."""
    final = states[-1]
    for index in range(len(states) - 2, -1, -1):
        earlier = states[index]
        if (earlier.step < final.step and np.array_equal(earlier.intercept, final.intercept)
                and np.array_equal(earlier.coef, final.coef)):
            return None if index == len(states) - 2 else index
    return None


#: DECISION_SCALE as the fills of boundaries show it: at 0.5625 opacity over white.
DECISION_FILL = [[0.0, "rgb(231,164,112)"], [0.5, "#FFFFFF"], [1.0, "rgb(112,176,212)"]]
#: The fill's z is sent quantised to int8: f * FILL_STEPS, clipped at the scale's ends
#: (+-FILL_LIMIT).
FILL_STEPS = 60
FILL_LIMIT = int(DECISION_RANGE * FILL_STEPS)


def fill_values(decisions: np.ndarray) -> np.ndarray:
    """f on the grid as small integers for the heatmap fill (|f| >= DECISION_RANGE saturates)."""
    return np.clip(np.round(decisions * FILL_STEPS), -FILL_LIMIT, FILL_LIMIT).astype(np.int8)


#: The level lines drawn over a decision function: the boundary f = 0 and the margins f = +-1.
LEVEL_LINES = (-1, 0, 1)
LEVEL_LINE_COLOR = "rgba(0,0,0,0.75)"

# The film's other colours (figures.player_figure), named for DARK_COLORS.
BASELINE_COLOR = "#666666"      # the supervised SVM's dashed boundary
OBJECTIVE_COLOR = "#555555"     # the objective chart's line
NOTE_COLOR = "#777777"          # "no outer parameter"
ZERO_LABEL_COLOR = "#00694c"    # "α = 0" over a zero band
BEST_COLOR = "#CC79A7"          # the best state's marks (Okabe–Ito reddish purple)
BEST_LABEL_COLOR = "#A0527F"    # "best state" on the stage chart, darker to read as text
OUTLINE_COLOR = "black"         # the labeled points' outline

#: The film on a dark page (Streamlit's dark theme): each colour of the figure that would
#: vanish there, and the one the player draws instead.
DARK_COLORS = {LEVEL_LINE_COLOR: "rgba(255,255,255,0.8)", BASELINE_COLOR: "#B8B8B8",
               OBJECTIVE_COLOR: "#D0D0D0", NOTE_COLOR: "#A8A8A8",
               ZERO_LABEL_COLOR: "#62D6AB", BEST_LABEL_COLOR: "#F2A7D0", OUTLINE_COLOR: "white",
               # the points: the classes' lighter Okabe–Ito colours (orange, sky blue) stand
               # out from the dark fill, where vermillion and blue sink into it
               CLASS_COLORS[0]: "#E69F00", CLASS_COLORS[1]: "#56B4E9"}
#: On a dark page the decision function runs from the page's background (f = 0) to the
#: class colours at this opacity over it (f = ±DECISION_RANGE), as DECISION_FILL runs from
#: white; a lighter fill would hide the class-coloured points.
DARK_FILL_OPACITY = 0.4


def decision_traces(grid_x, grid_y, decisions: np.ndarray, lines: tuple = LEVEL_LINES) -> list:
    """A decision function on the display grid: a heatmap fill and a contour trace drawing only
    the level lines ``lines`` (evenly spaced). A contour trace's own fill interpolates every
    screen pixel at each redraw; a heatmap with ``zsmooth="fast"`` scales a grid-sized image.
    (The Watch page's player paints the same fill and lines itself: ``ui.player``.)"""
    step = lines[1] - lines[0] if len(lines) > 1 else 1
    return [
        go.Heatmap(x=grid_x, y=grid_y, z=fill_values(decisions), zsmooth="fast",
                   colorscale=DECISION_FILL, zmin=-FILL_LIMIT, zmax=FILL_LIMIT, showscale=False,
                   hoverinfo="skip", name="f"),
        go.Contour(x=grid_x, y=grid_y, z=np.round(decisions, 3), showscale=False,
                   showlegend=False,
                   contours={"coloring": "none", "start": lines[0], "end": lines[-1],
                             "size": step},
                   line={"width": 2, "color": LEVEL_LINE_COLOR},
                   hovertemplate="f = %{z:.2f}<extra></extra>", name="f"),
    ]


def _colored_points(X2, labels, decisions, colorbar_x: float) -> go.Scatter:
    """Points coloured by their decision value (data with d > 2: no grid to draw), with the
    colour bar at ``colorbar_x`` (paper coordinates)."""
    trace = _points_trace(X2, labels)
    trace.marker.update(color=np.round(decisions, 3), colorscale=DECISION_SCALE,
                        cmin=-DECISION_RANGE, cmax=DECISION_RANGE, showscale=True,
                        colorbar={"title": "f", "len": 0.5, "x": colorbar_x, "thickness": 15})
    # f = 0 is white: an outline keeps the undecided points visible on the white plot
    trace.marker.line.width = np.maximum(trace.marker.line.width, 0.5)
    return trace


def _positive(values) -> np.ndarray:
    """The finite positive values: what a log axis can show."""
    values = np.asarray(values, dtype=float).ravel()
    return values[np.isfinite(values) & (values > 0)]


def _spans_decades(values: np.ndarray) -> bool:
    """Whether a positive series covers two decades or more (then a log axis reads better)."""
    positive = _positive(values)
    return positive.size > 1 and positive.max() >= 100 * positive.min()


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(exponent: int, plain: bool) -> str:
    """10^exponent as a tick label: a plain number ("0.01", "100"), or 10 with a superscript
    exponent ("10⁻⁵"; 1 and 10 as themselves, as plotly writes them)."""
    if plain or exponent in (0, 1):
        return f"{10.0**exponent:g}"
    return "10" + str(exponent).translate(_SUPERSCRIPTS)


def _log_axis(fig: go.Figure, values: np.ndarray, row: int, col: int) -> None:
    """A log y axis labelled at powers of ten only (every one, or every few over many
    decades): plotly's own labels put "2, 5" between the decades, which crowd a small chart,
    and write small numbers with SI prefixes ("100µ" for 1e-4). Plain numbers while every
    label lies between 0.001 and 1000, powers of ten ("10⁻⁵") otherwise."""
    positive = _positive(values)
    # the powers of ten within the values (they span two decades or more: _spans_decades)
    low = math.ceil(math.log10(positive.min()) - 1e-9)
    high = math.floor(math.log10(positive.max()) + 1e-9)
    exponents = range(low, high + 1, max(1, math.ceil((high - low) / 5)))
    plain = -3 <= low and high <= 3
    fig.update_yaxes(type="log", tickmode="array", tickvals=[10.0**k for k in exponents],
                     ticktext=[_power_of_ten(k, plain) for k in exponents], row=row, col=col)


def _zero_bands(fig: go.Figure, steps, values: np.ndarray, name: str, row: int,
                col: int) -> None:
    """Shade and label the steps where a stage value on a log axis is 0 ("α = 0"): a log
    axis has no place for 0, and the chart must not look as if the path began later. The
    label stands inside the chart, from the band's edge towards the chart's middle: centred
    on a band at the chart's edge it ran into the axis's tick labels ("C*1= 0")."""
    zero = np.r_[False, values == 0, False]
    starts, ends = np.flatnonzero(~zero[:-1] & zero[1:]), np.flatnonzero(zero[:-1] & ~zero[1:])
    middle = (steps[0] + steps[-1]) / 2
    for first, last in zip(starts, ends - 1, strict=True):
        side = "left" if steps[first] < middle else "right"
        fig.add_vrect(x0=steps[first], x1=steps[last], row=row, col=col, line_width=0,
                      fillcolor="#009E73", opacity=0.15, layer="below",
                      annotation_text=f"{name} = 0", annotation_position=f"inside top {side}",
                      annotation_font={"color": ZERO_LABEL_COLOR, "size": 14})


#: The film's boundary plot takes this share of the figure's width; the objective and stage
#: charts share the rest (the boundary is what a class must see).
BOUNDARY_SHARE = 0.72


def player_figure(run, X2: np.ndarray, labels: np.ndarray,
                  baseline_decisions: np.ndarray | None = None) -> go.Figure:
    """The still part of the Watch page's film (``ui.player`` plays it): points, and linked
    charts of the objective and the stage value over the steps.

    The boundary plot takes ``BOUNDARY_SHARE`` of the width with equal scales on its axes (the
    player sets the figure's height to the data's aspect ratio); the two charts stand beside
    it, smaller, on one step axis. For 2-D data the points are coloured by the final state's
    predicted class and the main axes are fixed to the display grid, on which the player
    paints each frame's decision function beneath the (transparent) plot; for data with more
    dimensions the points are coloured by their decision value. ``baseline_decisions``
    (grid-shaped) adds the supervised SVM's f = 0 as a dashed line, named in a legend above
    the boundary plot. A final state that returned to an earlier one (``returned_state``:
    DA's best state of the path) is not joined to the path's lines, which would jump back up
    at the end, but marked apart and named on the stage chart. The 2-D view of data with more
    dimensions is its first two principal components (``toy_data.project_2d``): its axes say
    so.
    """
    on_grid = run.grid_decisions is not None
    stage = STAGE_NAMES.get(run.states[-1].stage, run.states[-1].stage)
    returned = returned_state(run.states)
    path = run.states if returned is None else run.states[:-1]
    steps = [s.step for s in path]
    objectives = np.array([s.objective for s in path])
    stage_values = np.array([s.stage_value for s in path])
    has_stages = bool(np.isfinite(stage_values).any())
    fig = make_subplots(
        rows=2, cols=2, column_widths=[BOUNDARY_SHARE, 1 - BOUNDARY_SHARE],
        # without a grid the decision's colour bar stands between the plot and the charts
        specs=[[{"rowspan": 2}, {}], [None, {}]], horizontal_spacing=0.06 if on_grid else 0.13,
        vertical_spacing=0.2, shared_xaxes=True,
        subplot_titles=("", "objective", f"{stage} (outer parameter)" if has_stages
                        else "stage value"),
    )
    final = run.point_decisions[-1]
    n_classes = n_classes_of(final)
    if on_grid:
        fig.add_trace(_points_trace(X2, labels, predicted_classes(final), n_classes=n_classes),
                      row=1, col=1)
        fig.update_xaxes(range=[run.grid_x[0], run.grid_x[-1]], row=1, col=1)
        fig.update_yaxes(range=[run.grid_y[0], run.grid_y[-1]], row=1, col=1)
        # the player paints the level lines: their legend entry has nothing else to draw
        lines = ([("f = 0 and f = ±1", LEVEL_LINE_COLOR)] if n_classes == 2 else
                 [(f"class {c} vs rest: f = 0", color)
                  for c, color in enumerate(class_colors(n_classes))])
        for name, color in lines:
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                     line={"width": 2, "color": color}), row=1, col=1)
    elif n_classes > 2:  # no grid: the points show the class one-vs-rest picks
        fig.add_trace(_points_trace(X2, labels, predicted_classes(final), n_classes=n_classes),
                      row=1, col=1)
    else:
        # the colour bar in the gap between the boundary plot and the charts
        fig.add_trace(_colored_points(X2, labels, run.point_decisions[-1],
                                      fig.layout.xaxis.domain[1] + 0.005), row=1, col=1)
    fig.add_trace(go.Scatter(x=steps, y=objectives, mode="lines", line={"color": OBJECTIVE_COLOR},
                             showlegend=False, name="objective"), row=1, col=2)
    fig.add_trace(go.Scatter(x=steps, y=stage_values, mode="lines", line={"color": "#009E73"},
                             showlegend=False, name="stage value"), row=2, col=2)
    finite_objectives = objectives[np.isfinite(objectives)]
    if np.all(finite_objectives > 0) and _spans_decades(objectives):
        _log_axis(fig, objectives, row=1, col=2)
    log_stage = _spans_decades(stage_values) and not np.any(stage_values < 0)
    if log_stage:
        _log_axis(fig, stage_values, row=2, col=2)
        _zero_bands(fig, steps, stage_values, stage, row=2, col=2)
    if returned is not None:
        _returned_marks(fig, run.states, returned, stage, log_stage)
    if not has_stages:
        fig.add_annotation(text="no outer parameter<br>(no γ, T, C* or α schedule)",
                           showarrow=False, xref="x3 domain", yref="y3 domain", x=0.5, y=0.5,
                           font={"color": NOTE_COLOR})
        fig.update_yaxes(showticklabels=False, row=2, col=2)
    if baseline_decisions is not None and on_grid:
        # f quantised like the fill (int8): an eighth of the bytes of floats, and the
        # same line f = 0 (one per class of a one-vs-rest baseline, (k, ny, nx))
        baseline_decisions = np.asarray(baseline_decisions)
        for c, decision in enumerate(baseline_decisions if baseline_decisions.ndim == 3
                                     else [baseline_decisions]):
            fig.add_trace(go.Contour(
                x=run.grid_x, y=run.grid_y, z=fill_values(decision),
                contours={"coloring": "none", "start": 0, "end": 0, "size": 1},
                line={"width": 2, "dash": "dash", "color": BASELINE_COLOR}, showscale=False,
                showlegend=c == 0, name="supervised SVM", hoverinfo="skip"), row=1, col=1)
    transparent = "rgba(0,0,0,0)"  # the player paints the decision function beneath
    # template "none": plotly.js's own axes, wherever the figure is built. The default
    # template is plotly's in a solver's process and Streamlit's wherever Streamlit is
    # imported; plotly's draws white grid lines, which vanish on the transparent plot.
    # 14 px type: tick labels read from the back of a room on a projector
    fig.update_layout(template="none", height=PLAYER_HEIGHT, font={"size": 14},
                      margin={"l": 48 if on_grid else 70, "r": 10, "t": 34, "b": 52},
                      plot_bgcolor=transparent, paper_bgcolor=transparent,
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1,
                              "yanchor": "bottom", "font": {"size": 14},
                              "bgcolor": transparent})
    # Equal scales shrink the plot area rather than widen the ranges: the grid fills it.
    fig.update_xaxes(showgrid=False, zeroline=False, constrain="domain", row=1, col=1)
    fig.update_yaxes(showgrid=False, zeroline=False, constrain="domain", constraintoward="top",
                     row=1, col=1)
    _square_axes(fig, row=1, col=1)
    # one step axis for both charts, over the whole path (a log axis drops zeros, and the
    # stage chart would otherwise start where its first positive value is)
    last = run.states[-1].step
    fig.update_xaxes(range=[steps[0], last], row=1, col=2)
    fig.update_xaxes(range=[steps[0], last], title_text="step", row=2, col=2)
    if not on_grid:
        fig.update_xaxes(title_text="PC 1", row=1, col=1)
        fig.update_yaxes(title_text="PC 2", row=1, col=1)
    return fig


def _returned_marks(fig: go.Figure, states, returned: int, stage: str, log_stage: bool) -> None:
    """The final state that returned to ``states[returned]`` on the film's charts: a dotted
    line at its value from where it was reached to the end of the path, a star at the end (the
    progress marker's place on the last frame), and on the stage chart its name."""
    reached, final = states[returned], states[-1]
    for row, value in ((1, final.objective), (2, final.stage_value)):
        if not math.isfinite(value):
            continue
        fig.add_trace(go.Scatter(
            x=[reached.step, final.step], y=[value, value], mode="lines+markers",
            line={"color": BEST_COLOR, "width": 2, "dash": "dot"},
            marker={"symbol": ["circle-open", "star"], "size": [9, 13], "color": BEST_COLOR,
                    "line": {"width": 2, "color": BEST_COLOR}},
            showlegend=False, name="best state of the path", cliponaxis=False,
            hovertemplate="best state of the path: step %{x}, %{y:.3g}<extra></extra>"),
            row=row, col=2)
    if math.isfinite(final.stage_value) and (final.stage_value > 0 or not log_stage):
        y = math.log10(final.stage_value) if log_stage else final.stage_value
        # above the dotted line, ending at the star: the path falls below it there
        fig.add_annotation(x=final.step, y=y, xref="x3", yref="y3", text="best state",
                           showarrow=False, xanchor="right", yanchor="bottom", yshift=3,
                           font={"color": BEST_LABEL_COLOR, "size": 14})


def running_figure(state, n_states: int, grid, decision, X2: np.ndarray,
                   labels: np.ndarray) -> go.Figure:
    """What the Watch page shows while a solver runs: the boundary of its latest state
    ``state`` (``decision`` on the display grid ``grid``, ``(grid_x, grid_y)``, or None), in
    the player's place and size, with the number of states so far."""
    title = (f"running… {stage_text(state)} · {n_states} state{'' if n_states == 1 else 's'} "
             "so far")
    fig = boundary_multiples_figure([(title, decision, state.train_decision)], X2, labels,
                                    grid, n_cols=1)
    fig.update_layout(template="none", height=PLAYER_HEIGHT)  # (see player_figure)
    return fig


def shipped(text: str) -> go.Figure:
    """A figure built elsewhere (a solver's process sends ``Figure.to_json()``), as a Figure
    that is not validated again: it was when it was built, and validating a figure of 2,000
    points holds the server's interpreter for a tenth of a second."""
    return go.Figure(json.loads(text), _validate=False)


# -- teaching pages (issue 9): continuation, annealing, early stopping, comparison -----------

from plotly.colors import sample_colorscale  # noqa: E402

TEACHING_HEIGHT = 420


def _sequence_colors(n: int) -> list[str]:
    """``n`` colours from dark (first = most smoothing / hottest) to light, colour-blind safe."""
    return sample_colorscale("Viridis", np.linspace(0.0, 0.9, n).tolist()) if n > 1 else [
        "#440154"]


def landscape_figure(ts: np.ndarray, curves, gamma0: float, gamma_end: float) -> go.Figure:
    """The smoothed objective ``L_γ`` along a 1-D slice, one curve per γ (cS3VM Figure 2).

    ``curves`` is a list of ``(gamma, values)``; ``gamma = 0`` is the unsmoothed objective (2),
    drawn in black. Each curve is shifted to its own minimum (the constant ``γ p / 2`` of (6)
    would otherwise separate them) and its minimum along the slice is a star.
    """
    fig = go.Figure()
    smoothed = [(g, v) for g, v in curves if g > 0]
    colors = _sequence_colors(len(smoothed))
    stars_x, stars_y = [], []
    for gamma, values in curves:
        values = np.asarray(values, dtype=float)
        shifted = values - values.min()
        if gamma == 0:
            name, color, width = "γ = 0 (objective (2))", "black", 3
        else:
            k = [g for g, _ in smoothed].index(gamma)
            tag = "γ0" if k == 0 else "γ_end" if k == len(smoothed) - 1 else f"γ{k}"
            name, color, width = f"{tag} = {gamma:.3g}", colors[k], 2
        fig.add_trace(go.Scatter(x=ts, y=shifted, mode="lines", name=name,
                                 line={"color": color, "width": width},
                                 hovertemplate=f"{name}<br>t = %{{x:.2f}}<br>"
                                               "L − min = %{y:.4g}<extra></extra>"))
        best = int(np.argmin(values))
        stars_x.append(ts[best])
        stars_y.append(0.0)
    fig.add_trace(go.Scatter(x=stars_x, y=stars_y, mode="markers", name="minimum along slice",
                             marker={"symbol": "star", "size": 13, "color": "#D55E00",
                                     "line": {"color": "black", "width": 1}}))
    fig.update_layout(
        height=TEACHING_HEIGHT, plot_bgcolor="white", margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title=f"L_γ along the slice (γ0 = {gamma0:.3g}, γ_end = {gamma_end:.3g})",
        legend={"font": {"size": 11}},
    )
    fig.update_xaxes(title_text="t (position along the slice)", zeroline=True,
                     zerolinecolor="#cccccc", showgrid=False)
    fig.update_yaxes(title_text="L_γ(w + t d) − its minimum", showgrid=True,
                     gridcolor="#eeeeee")
    return fig


def boundary_multiples_figure(panels, X2: np.ndarray, labels: np.ndarray, display_grid=None,
                              n_cols: int = 4) -> go.Figure:
    """Small multiples of a decision function: one panel per ``(title, grid, points)``.

    ``display_grid`` is ``ui.work.grid_features``'s ``(grid_x, grid_y, ...)``, or ``None``
    for data with more than two dimensions (then only the points are drawn). A panel's ``grid``
    is the decision on that grid, ``points`` the decision on the training points; each panel
    draws f as a heatmap with the line f = 0 and the points coloured by predicted class.
    """
    grid_x, grid_y = (None, None) if display_grid is None else display_grid[:2]
    n = len(panels)
    n_cols = max(1, min(n_cols, n))
    n_rows = math.ceil(n / n_cols)
    fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=[p[0] for p in panels],
                        horizontal_spacing=0.02, vertical_spacing=0.08)
    for k, (_, grid, points) in enumerate(panels):
        row, col = k // n_cols + 1, k % n_cols + 1
        if grid is not None and grid_x is not None:
            grid = np.asarray(grid, dtype=float)
            traces = (decision_traces(grid_x, grid_y, grid, (0,)) if grid.ndim == 2
                      else class_region_traces(grid_x, grid_y, grid))
            for trace in traces:
                fig.add_trace(trace, row=row, col=col)
            fig.update_xaxes(range=[grid_x[0], grid_x[-1]], row=row, col=col)
            fig.update_yaxes(range=[grid_y[0], grid_y[-1]], row=row, col=col)
        trace = _points_trace(X2, labels, predicted_classes(points), n_classes=n_classes_of(points))
        trace.marker.size = np.asarray(trace.marker.size) * 0.6
        fig.add_trace(trace, row=row, col=col)
        # Equal scales shrink a panel's domain, not its range (constrain="domain"), up to
        # its title (constraintoward="top"): a range widened to fit left each picture in the
        # middle of an empty cell, far below its title.
        hidden = {"showticklabels": False, "showgrid": False, "zeroline": False,
                  "ticks": "", "showline": False, "constrain": "domain"}
        fig.update_xaxes(**hidden, row=row, col=col)
        fig.update_yaxes(**hidden, constraintoward="top", row=row, col=col,
                         scaleanchor=f"x{'' if k == 0 else k + 1}", scaleratio=1)
    fig.update_layout(height=_multiples_row_height(X2, display_grid) * n_rows + 40,
                      plot_bgcolor="white", margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      showlegend=False)
    return fig


def _multiples_row_height(X2: np.ndarray, display_grid) -> int:
    """A row of small multiples: its title and a picture of the data's aspect ratio at the
    width of a panel of four in a 1400 px window (about 230 px), between 120 and 230 px."""
    if display_grid is not None:
        width, height = np.ptp(display_grid[0]), np.ptp(display_grid[1])
    else:
        width, height = np.ptp(np.asarray(X2, dtype=float)[:, :2], axis=0)
    aspect = width / height if height > 0 else 1.0
    return 30 + int(np.clip(230 / max(aspect, 1e-9), 120, 230))


def objective_path_figure(steps, smoothed, unsmoothed, stage_ends, stage_label="γ"):
    """Smoothed objective (what the solver minimizes) and the unsmoothed one along the path.

    ``stage_ends`` is a list of ``(step, value)``: a dotted vertical line where each stage
    ends. Both objectives are positive, so the y axis is logarithmic.
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=steps, y=smoothed, mode="lines", name="L_γ (minimized)",
                             line={"color": "#009E73", "width": 2}))
    fig.add_trace(go.Scatter(x=steps, y=unsmoothed, mode="lines", name="objective (2), γ = 0",
                             line={"color": "black", "width": 2, "dash": "dash"}))
    for step, _ in stage_ends:
        fig.add_vline(x=step, line={"color": "#bbbbbb", "width": 1, "dash": "dot"})
    positive = np.concatenate([np.asarray(smoothed, float), np.asarray(unsmoothed, float)])
    fig.update_layout(height=TEACHING_HEIGHT - 60, plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "y": 1.12})
    fig.update_xaxes(title_text=f"step (dotted: end of a {stage_label} stage)", showgrid=False)
    fig.update_yaxes(title_text="objective", showgrid=True, gridcolor="#eeeeee",
                     **(log_axis(positive) if np.all(positive > 0) else {"type": "linear"}))
    return fig


DA_LOSS_TITLES = {"hinge": "hinge  max(0, 1 − t)", "squared_hinge": "squared hinge",
                  "squared": "squared  (1 − t)²/2"}


def effective_loss_figure(temperatures, current_T: float | None = None,
                          t: np.ndarray | None = None) -> go.Figure:
    """The DA effective loss ``V'_T(f)`` of an unlabeled point for each loss (DA Figure 2).

    One panel per loss of ``s3vm_core.losses.DA_LOSSES``, one curve per temperature (dark =
    hot), and ``current_T`` (if given) as a thick black curve; T = 0 is the hard effective
    loss ``min(V(f), V(−f))`` of eq. (1). Each curve is shifted to minimum 0: the entropy term
    lowers ``V'_T`` by up to ``T log 2``, which would stack the hot curves far below the
    others and hide their shapes.
    """
    from s3vm_core.losses import DA_LOSSES
    from s3vm_core.losses import da_effective_loss as _loss

    def da_effective_loss(t, T, loss):
        values = _loss(t, T, loss)
        return values - values.min()

    t = np.linspace(-2.5, 2.5, 201) if t is None else np.asarray(t, dtype=float)
    temperatures = sorted({float(T) for T in temperatures}, reverse=True)
    colors = _sequence_colors(len(temperatures))
    fig = make_subplots(rows=1, cols=len(DA_LOSSES), horizontal_spacing=0.06,
                        subplot_titles=[DA_LOSS_TITLES.get(name, name) for name in DA_LOSSES])
    for col, loss in enumerate(DA_LOSSES, start=1):
        for color, T in zip(colors, temperatures, strict=True):
            fig.add_trace(go.Scatter(
                x=t, y=da_effective_loss(t, T, loss), mode="lines", name=f"T = {T:.3g}",
                legendgroup=f"T = {T:.3g}", showlegend=col == 1,
                line={"color": color, "width": 1.5},
                hovertemplate=f"T = {T:.3g}<br>f = %{{x:.2f}}<br>V'_T = %{{y:.3f}}<extra></extra>",
            ), row=1, col=col)
        if current_T is not None:
            fig.add_trace(go.Scatter(
                x=t, y=da_effective_loss(t, current_T, loss), mode="lines",
                name=f"current T = {current_T:.3g}", legendgroup="current",
                showlegend=col == 1, line={"color": "black", "width": 4},
            ), row=1, col=col)
        # One title for the three axes, under the middle one: three of them overlapped.
        fig.update_xaxes(title_text="f(x′) of an unlabeled point x′"
                         if col == (len(DA_LOSSES) + 1) // 2 else None, showgrid=False, row=1,
                         col=col)
    fig.update_yaxes(showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title_text="V'_T(f) − its minimum", row=1, col=1)
    fig.update_layout(height=TEACHING_HEIGHT - 40, plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


P_SCALE = [[0.0, CLASS_COLORS[0]], [0.5, "#F0E442"], [1.0, CLASS_COLORS[1]]]


def soft_labels_figure(X2: np.ndarray, labels: np.ndarray, p: np.ndarray,
                       title: str = "") -> go.Figure:
    """Points coloured by the DA soft label ``p = P(class 1)``: vermillion 0, yellow ½, blue 1.

    Labeled points keep their shapes (diamond / square) and a black outline.
    """
    trace = _points_trace(X2, labels)
    trace.marker.update(color=np.round(np.asarray(p, dtype=float), 3), colorscale=P_SCALE,
                        cmin=0.0, cmax=1.0, showscale=True,
                        colorbar={"title": "p", "tickvals": [0, 0.5, 1], "len": 0.8})
    trace.marker.size = np.maximum(trace.marker.size, 9)
    trace.hovertemplate = "point %{customdata}<br>p = %{marker.color:.3f}<extra></extra>"
    fig = go.Figure(trace)
    fig.update_layout(title=title, height=TEACHING_HEIGHT, plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    _square_axes(fig)
    return fig


def annealing_curves_figure(T, entropy, objective, current_T: float | None = None):
    """Entropy ``S(p)`` and objective ``J_T`` at the end of each temperature, against T.

    The T axis is logarithmic and reversed, so annealing (T decreasing) reads left to right;
    a dotted vertical line marks ``current_T``.
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("entropy S(p) (nats)", "objective J_T (4)"))
    for col, (values, color) in enumerate(((entropy, "#CC79A7"), (objective, "#009E73")),
                                          start=1):
        fig.add_trace(go.Scatter(x=T, y=values, mode="lines+markers", showlegend=False,
                                 line={"color": color}, marker={"size": 6}), row=1, col=col)
        if current_T is not None:
            # in data units: plotly.js places a shape on a log axis by its value, not its log
            fig.add_vline(x=current_T, line={"color": "black", "dash": "dot"}, row=1, col=col)
        fig.update_xaxes(**log_axis(T, decades=True), autorange="reversed",
                         title_text="T (annealing →)", showgrid=False, row=1, col=col)
    fig.update_yaxes(showgrid=True, gridcolor="#eeeeee")
    fig.update_layout(height=TEACHING_HEIGHT - 80, plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def log_axis(values, decades: bool = False) -> dict:
    """Settings of a log axis over ``values`` whose tick labels read as numbers.

    Left to itself plotly labels the 2 and the 5 of each decade with their first digit only
    ("5, 2, 1, 5, 2…"). Here: every digit of the decade under one decade, 1-2-5 steps written
    in full up to three decades, and powers of ten (10⁻³) over more. ``decades``: the powers
    of ten alone (0.01, 0.1, 1, 10), for a narrow panel.
    """
    positive = _positive(values)
    if positive.size == 0:
        return {"type": "log"}
    low, high = positive.min(), positive.max()
    span = math.log10(high / low)
    if span > 3:
        return {"type": "log", "dtick": math.ceil(span / 6), "exponentformat": "power"}
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    for digits in ((1,) if decades else (), range(1, 10) if span < 1 else (1, 2, 5)):
        ticks = [d * 10.0**k for k in range(first, last + 1) for d in digits]
        ticks = [t for t in ticks if low / 2 <= t <= high * 2]
        if len(ticks) >= 2:  # decades alone mark fewer than two ticks under a decade
            break
    return {"type": "log", "tickvals": ticks, "ticktext": [_tick_label(t) for t in ticks]}


def _tick_label(value: float) -> str:
    text = f"{value:.3g}"
    return text.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


CRITERION_COLORS = {
    "grad_norm": "#0072B2", "grad_norm_preconditioned": "#56B4E9", "mixed_product": "#009E73",
    "objective": "#E69F00", "stability": "#CC79A7", "validation": "#D55E00",
    "mixed": "#000000", "objective_normalized": "#999999",
}
CRITERION_TITLES = {
    "grad_norm": "‖∇‖", "grad_norm_preconditioned": "‖∇̂‖ (preconditioned)",
    "mixed_product": "√(∇̂ᵀ∇) (mixed product)", "objective": "relative objective decrease",
    "stability": "stability check τ (Alg. 2)", "validation": "validation error (Alg. 3)",
    "mixed": "mixed check (§4.1)", "objective_normalized": "obj / obj₀ (Figure 4)",
}
CLASSICAL = ("grad_norm", "grad_norm_preconditioned", "mixed_product", "objective")


def stopping_figure(iterations, classical: dict, checks: dict, stops: dict,
                    unlabeled_error=None) -> go.Figure:
    """PCG's goal conditions against the iteration (LapSVM Figure 4, and §4.1's checks).

    Left: the classical criteria normalized by their value at t = 0 (log scale): a curve per
    entry of ``classical`` (name -> values). Right: the data-based checks (``checks``, name ->
    values: stability τ, validation error) and, if given, the unlabeled error against the
    truth. ``stops`` maps every criterion to the first iteration where it says "stop" (or
    ``None``): one vertical marker trace named ``"stop: <criterion>"`` per criterion that
    fires, in the panel of its criterion.
    """
    # Two short lines each: on one line the two titles ran into each other below 1400 px.
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.08, subplot_titles=(
        "classical criteria,<br>normalized by t = 0",
        "checks on the classifier's<br>decisions (until they settle)"))
    iterations = np.asarray(iterations)
    for name, values in classical.items():
        fig.add_trace(go.Scatter(x=iterations, y=np.maximum(np.asarray(values, float), 1e-16),
                                 mode="lines", name=CRITERION_TITLES.get(name, name),
                                 line={"color": CRITERION_COLORS.get(name, "#555555")}),
                      row=1, col=1)
    for name, values in checks.items():
        fig.add_trace(go.Scatter(x=iterations, y=values, mode="lines",
                                 name=CRITERION_TITLES.get(name, name),
                                 line={"color": CRITERION_COLORS.get(name, "#555555")}),
                      row=1, col=2)
    if unlabeled_error is not None:
        fig.add_trace(go.Scatter(x=iterations, y=unlabeled_error, mode="lines",
                                 name="unlabeled error (true labels)",
                                 line={"color": "#999999", "dash": "dash"}), row=1, col=2)
    left = [np.asarray(v, float) for v in classical.values()]
    low = max(min((np.nanmin(np.maximum(v, 1e-16)) for v in left), default=1e-8), 1e-16)
    high = max((np.nanmax(v) for v in left), default=1.0)
    for name, at in stops.items():
        if at is None:
            continue
        col = 1 if name in CLASSICAL else 2
        y_range = [low, high] if col == 1 else [0.0, 1.0]
        fig.add_trace(go.Scatter(
            x=[at, at], y=y_range, mode="lines", name=f"stop: {CRITERION_TITLES.get(name, name)}",
            line={"color": CRITERION_COLORS.get(name, "#555555"), "width": 2, "dash": "dot"},
            hovertemplate=f"{name} stops at iteration {at}<extra></extra>",
        ), row=1, col=col)
    fig.update_yaxes(**log_axis(np.maximum(np.concatenate(left or [np.ones(1)]), 1e-16)),
                     row=1, col=1, showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(range=[0, 1.05], row=1, col=2, showgrid=True, gridcolor="#eeeeee")
    right = [*checks.values(), *([] if unlabeled_error is None else [unlabeled_error])]
    right_stops = [at for name, at in stops.items() if at is not None and name not in CLASSICAL]
    if iterations.size:
        end = max([settled_iteration(iterations, right), *right_stops])
        # a margin past the last change, so the flat end shows that nothing happens later
        end = min(iterations[-1], max(1.25 * end, end + 10))
        fig.update_xaxes(range=[iterations[0], end], row=1, col=2)
    fig.update_xaxes(title_text="PCG iteration", showgrid=False)
    fig.update_annotations(font={"size": 13})
    fig.update_layout(height=TEACHING_HEIGHT + 50, plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      legend={"orientation": "h", "y": -0.2})
    return fig


def settled_iteration(iterations, series) -> int:
    """The last iteration at which any of ``series`` still changes (NaNs, where a check was
    not made, are left out); the first iteration when none ever does."""
    iterations = np.asarray(iterations)
    last = 0
    for values in series:
        values = np.asarray(values, dtype=float)
        known = np.flatnonzero(np.isfinite(values))
        if known.size:
            moving = known[~np.isclose(values[known], values[known[-1]], rtol=0, atol=1e-9)]
            last = max(last, moving[-1] + 1 if moving.size else 0)
    return int(iterations[min(last, iterations.size - 1)])


#: The solvers' colours: one per solver of ``ui.solvers.SOLVERS``, in its order, the supervised
#: baseline black, so that a solver wears the same colour in every chart of a page whichever
#: solvers ran. Okabe–Ito without its yellow (faint on white, on a projector) and grey (the
#: unlabeled points' colour), with Tol's indigo, olive and wine instead (colour-blind safe too).
SOLVER_PALETTE = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#332288", "#0072B2", "#D55E00",
                  "#CC79A7", "#999933", "#882255")


def _solver_colors(names) -> dict:
    """Each run name's colour: a run of solver ``S`` (``"S"``, or ``"S:preset"`` when the
    Compare page runs both presets) wears ``S``'s colour of ``SOLVER_PALETTE``; a name outside
    the app's solvers (a lesson's "DA") takes the first colour none of ``names`` wears."""
    order = list(SOLVERS)
    fixed = {name: SOLVER_PALETTE[order.index(_solver_of(name)) % len(SOLVER_PALETTE)]
             for name in names if _solver_of(name) in order}
    free = iter([c for c in SOLVER_PALETTE if c not in fixed.values()] or SOLVER_PALETTE)
    return {name: fixed[name] if name in fixed else next(free, SOLVER_PALETTE[0])
            for name in names}


def _solver_of(name: str) -> str:
    """The solver of a run name (``"LDS:paper"`` -> ``"LDS"``)."""
    return name.partition(":")[0]


def _is_default_preset(name: str) -> bool:
    """Whether a run name is the generic-default half of the Compare page's "both"."""
    return name.partition(":")[2] == DEFAULT


def compare_errors_figure(rows, titles: dict | None = None) -> go.Figure:
    """Unlabeled error per solver over the label draws: one horizontal box (with its points)
    per solver, named on its left as the time chart names its bars, and the supervised
    baseline's mean error as a dashed vertical line. A generic-default run of the Compare
    page's "both" is drawn hollow in its solver's colour."""
    titles = titles or {}
    names = list(dict.fromkeys(r["solver"] for r in rows))
    colors = _solver_colors(names)
    fig = go.Figure()
    for name in names:
        errors = [100 * r["unlabeled_error"] for r in rows
                  if r["solver"] == name and not r["error"]]
        fig.add_trace(go.Box(x=errors, name=titles.get(name, name), boxpoints="all",
                             jitter=0.4, pointpos=0, orientation="h",
                             marker={"color": colors[name], "size": 6},
                             line={"color": colors[name]},
                             fillcolor="white" if _is_default_preset(name) else None,
                             showlegend=False))
    baseline = [100 * r["unlabeled_error"] for r in rows
                if r["solver"] == "SVMBaseline" and not r["error"]]
    if baseline:
        # Named in the legend: a label on the line itself would sit behind one of the boxes.
        dashed = {"color": "black", "dash": "dash"}
        fig.add_vline(x=float(np.mean(baseline)), line=dashed)
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=dashed,
                                 name="supervised SVM (mean)", showlegend=True))
    fig.update_layout(height=_bars_height(len(names)) + 30, plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"})
    fig.update_xaxes(title_text="unlabeled error (%)", rangemode="tozero", showgrid=True,
                     gridcolor="#eeeeee")
    fig.update_yaxes(autorange="reversed")  # the first solver on top, as in the table
    return fig


def _bars_height(n_bars: int) -> int:
    """Height of a chart of ``n_bars`` horizontal bars or boxes and an x axis title: 32 px a
    bar, at least 140 px of plot."""
    return 60 + max(32 * n_bars, 140)


#: Pixel sizes of the objective small multiples: a panel's plot area, a panel title's line
#: (12 px text), and what an x axis takes below a panel (ticks and title).
PANEL_HEIGHT, TITLE_LINE, X_AXIS_HEIGHT = 150, 17, 44
#: Characters of a panel title's line: four panels in a row, 20 characters of 12 px text (about
#: 115 px) fit a panel and its spacing in the narrowest chart (564 px wide, in a window 1024 px
#: wide: 100 px a panel, 30 px between panels).
PANEL_TITLE_WIDTH = 20


def compare_objective_figure(rows, titles: dict | None = None, n_cols: int = 4) -> go.Figure:
    """Objective against unlabeled error, one small panel per solver (cS3VM Figure 3).

    Each dot is one label draw; a filled circle is a success (at most 1 % of the unlabeled
    points wrong), an open one a failure. Objectives of different solvers are different
    functions, so each panel has its own x axis. The baseline (no objective over unlabeled
    points) is left out. Spacing is set in pixels (plotly's is a fraction of the height, which
    left tall gaps between the rows of a tall figure): each row's titles sit just below the
    row above's axis titles.
    """
    titles = titles or {}
    names = [n for n in dict.fromkeys(r["solver"] for r in rows) if n != "SVMBaseline"]
    names = [n for n in names if any(np.isfinite(r["objective"]) for r in rows
                                     if r["solver"] == n)]
    colors = _solver_colors(names)
    n_cols = max(1, min(n_cols, len(names)))
    n_rows = max(1, math.ceil(len(names) / n_cols))
    panel_titles = [_panel_title(titles.get(n, n)) for n in names] or [""]
    title_height = TITLE_LINE * max(t.count("<br>") + 1 for t in panel_titles) + 8
    gap = X_AXIS_HEIGHT + title_height
    plot_height = n_rows * PANEL_HEIGHT + (n_rows - 1) * gap
    fig = make_subplots(rows=n_rows, cols=n_cols, horizontal_spacing=0.06,
                        vertical_spacing=gap / plot_height if n_rows > 1 else 0.0,
                        subplot_titles=panel_titles)
    for k, name in enumerate(names):
        mine = [r for r in rows if r["solver"] == name and not r["error"]]
        fig.add_trace(go.Scatter(
            x=[r["objective"] for r in mine], y=[100 * r["unlabeled_error"] for r in mine],
            mode="markers", name=titles.get(name, name), showlegend=False,
            marker={"color": colors[name], "size": 9,
                    "symbol": ["circle" if r["success"] else "circle-open" for r in mine],
                    "line": {"color": colors[name], "width": 2}},
            customdata=[r["draw"] for r in mine],
            hovertemplate="draw %{customdata}<br>objective %{x:.4g}<br>error %{y:.1f} %"
                          "<extra></extra>",
        ), row=k // n_cols + 1, col=k % n_cols + 1)
    fig.update_xaxes(title_text="objective", title_standoff=4, showgrid=False, nticks=4)
    fig.update_yaxes(rangemode="tozero", showgrid=True, gridcolor="#eeeeee")
    for row in range(1, n_rows + 1):
        fig.update_yaxes(title_text="error (%)", row=row, col=1)
    fig.update_annotations(font={"size": 12}, yshift=2)  # the panel titles
    fig.update_layout(height=plot_height + title_height + X_AXIS_HEIGHT + 10,
                      plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": title_height, "b": X_AXIS_HEIGHT + 10})
    return fig


def _panel_title(title: str) -> str:
    """A run's title in lines of at most ``PANEL_TITLE_WIDTH`` characters, each part of
    "solver (what) — preset" on lines of its own ("LapSVM in the primal<br>(Newton / PCG)"):
    one line is wider than a panel of four in a row."""
    name, _, preset = title.partition(" — ")
    solver, bracket, rest = name.partition(" (")
    parts = [solver, f"({rest}" if bracket else "", preset]
    return "<br>".join(line for part in parts if part
                       for line in textwrap.wrap(part, PANEL_TITLE_WIDTH))


def compare_time_figure(summary, titles: dict | None = None) -> go.Figure:
    """Median fit time per solver (log scale): one horizontal bar per solver, a generic-default
    run of the Compare page's "both" hatched in its solver's colour."""
    titles = titles or {}
    names = [s["solver"] for s in summary]
    colors = _solver_colors(names)
    fig = go.Figure(go.Bar(
        y=[titles.get(name, name) for name in names],
        x=[s["median_seconds"] for s in summary], orientation="h",
        marker={"color": [colors[name] for name in names],
                "pattern": {"shape": ["/" if _is_default_preset(name) else ""
                                      for name in names], "fillmode": "replace"}},
        hovertemplate="%{y}: %{x:.3g} s<extra></extra>",
    ))
    fig.update_xaxes(**log_axis([s["median_seconds"] for s in summary]),
                     title_text="median fit time (s)", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(height=_bars_height(len(summary)), plot_bgcolor="white",
                      margin={"l": 10, "r": 10, "t": 20, "b": 10})
    return fig
