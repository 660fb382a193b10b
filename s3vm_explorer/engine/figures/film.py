"""The Watch page's figures: the film's still part (the player paints the frames on it) and
the latest boundary while a solver runs."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from s3vm_core.metrics import predicted_classes
from s3vm_explorer.engine.figures.data import boundary_multiples_figure
from s3vm_explorer.engine.figures.palette import (
    BASELINE_COLOR,
    BEST_COLOR,
    BEST_LABEL_COLOR,
    LEVEL_LINE_COLOR,
    NOTE_COLOR,
    OBJECTIVE_COLOR,
    ZERO_LABEL_COLOR,
    fill_values,
)
from s3vm_explorer.engine.figures.traces import (
    points_trace,
    powers_of_ten_axis,
    spans_decades,
    square_axes,
)
from s3vm_explorer.engine.metrics import n_classes_of
from s3vm_explorer.engine.stages import STAGE_NAMES, returned_state, stage_text

#: Height of the film's figure (the player adds its title above and its controls below).
PLAYER_HEIGHT = 600
#: The film's boundary plot takes this share of the figure's width; the objective and stage
#: charts share the rest (the boundary is what a class must see). On a narrow screen the
#: player stacks the charts under the boundary plot instead (``film_player/player.js``,
#: ``STACK_BELOW``), and moves their titles, which it finds by their ``name``: ``CHART_TITLES``.
BOUNDARY_SHARE = 0.72
#: The names of the side charts' title annotations, by the y axis of the chart each titles.
CHART_TITLES = {"yaxis2": "yaxis2 title", "yaxis3": "yaxis3 title"}


def player_figure(run, X2: np.ndarray, labels: np.ndarray,
                  baseline_decisions: np.ndarray | None = None,
                  axis_titles: tuple[str, str] = ("", "")) -> go.Figure:
    """The still part of the Watch page's film (``ui.player`` plays it): points, and linked
    charts of the objective and the stage value over the steps.

    The boundary plot takes ``BOUNDARY_SHARE`` of the width with equal scales on its axes (the
    player sets the figure's height to the data's aspect ratio); the two charts stand beside
    it, smaller, on one step axis. The points are coloured by the final state's predicted
    class and the main axes are fixed to the display grid, on which the player paints each
    frame's decision function beneath the (transparent) plot. ``baseline_decisions``
    (grid-shaped) adds the supervised SVM's f = 0 as a dashed line, named in a legend above
    the boundary plot. A final state that returned to an earlier one (``returned_state``:
    DA's best state of the path) is not joined to the path's lines, which would jump back up
    at the end, but marked apart and named on the stage chart. ``axis_titles`` name the
    view's axes (``engine.data.View``: "PC 1" and "PC 2" for a projection).
    """
    stage = STAGE_NAMES.get(run.states[-1].stage, run.states[-1].stage)
    returned = returned_state(run.states)
    path = run.states if returned is None else run.states[:-1]
    steps = [s.step for s in path]
    objectives = np.array([s.objective for s in path])
    stage_values = np.array([s.stage_value for s in path])
    has_stages = bool(np.isfinite(stage_values).any())
    fig = make_subplots(
        rows=2, cols=2, column_widths=[BOUNDARY_SHARE, 1 - BOUNDARY_SHARE],
        specs=[[{"rowspan": 2}, {}], [None, {}]], horizontal_spacing=0.06,
        vertical_spacing=0.2, shared_xaxes=True,
        subplot_titles=("", "objective", f"{stage} (outer parameter)" if has_stages
                        else "stage value"),
    )
    for annotation, name in zip(fig.layout.annotations, CHART_TITLES.values(), strict=True):
        annotation.name = name
    final = run.point_decisions[-1]
    n_classes = n_classes_of(final)
    fig.add_trace(points_trace(X2, labels, predicted_classes(final), n_classes=n_classes),
                  row=1, col=1)
    fig.update_xaxes(range=[run.grid_x[0], run.grid_x[-1]], row=1, col=1)
    fig.update_yaxes(range=[run.grid_y[0], run.grid_y[-1]], row=1, col=1)
    # the player paints the level lines: their legend entry has nothing else to draw (one
    # entry for the k lines of one-vs-rest, each in its class's colour: an entry a class ran
    # over the charts' titles at 1024 px)
    name = ("f = 0 and f = ±1" if n_classes == 2
            else "f = 0 of each class against the rest, in its colour")
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                             line={"width": 2, "color": LEVEL_LINE_COLOR}), row=1, col=1)
    fig.add_trace(go.Scatter(x=steps, y=objectives, mode="lines", line={"color": OBJECTIVE_COLOR},
                             showlegend=False, name="objective"), row=1, col=2)
    fig.add_trace(go.Scatter(x=steps, y=stage_values, mode="lines", line={"color": "#009E73"},
                             showlegend=False, name="stage value"), row=2, col=2)
    finite_objectives = objectives[np.isfinite(objectives)]
    if np.all(finite_objectives > 0) and spans_decades(objectives):
        powers_of_ten_axis(fig, objectives, row=1, col=2)
    log_stage = spans_decades(stage_values) and not np.any(stage_values < 0)
    if log_stage:
        powers_of_ten_axis(fig, stage_values, row=2, col=2)
        _zero_bands(fig, steps, stage_values, stage, row=2, col=2)
    if returned is not None:
        _returned_marks(fig, run.states, returned, stage, log_stage)
    if not has_stages:
        fig.add_annotation(text="no outer parameter<br>(no γ, T, C* or α schedule)",
                           showarrow=False, xref="x3 domain", yref="y3 domain", x=0.5, y=0.5,
                           font={"color": NOTE_COLOR})
        fig.update_yaxes(showticklabels=False, row=2, col=2)
    if baseline_decisions is not None:
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
                      margin={"l": 70 if axis_titles[1] else 48, "r": 10, "t": 34, "b": 52},
                      plot_bgcolor=transparent, paper_bgcolor=transparent,
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1,
                              "yanchor": "bottom", "font": {"size": 14},
                              "bgcolor": transparent})
    # Equal scales shrink the plot area rather than widen the ranges: the grid fills it.
    fig.update_xaxes(showgrid=False, zeroline=False, constrain="domain", row=1, col=1)
    fig.update_yaxes(showgrid=False, zeroline=False, constrain="domain", constraintoward="top",
                     row=1, col=1)
    square_axes(fig, row=1, col=1)
    # one step axis for both charts, over the whole path (a log axis drops zeros, and the
    # stage chart would otherwise start where its first positive value is)
    last = run.states[-1].step
    fig.update_xaxes(range=[steps[0], last], row=1, col=2)
    fig.update_xaxes(range=[steps[0], last], title_text="step", row=2, col=2)
    fig.update_xaxes(title_text=axis_titles[0] or None, row=1, col=1)
    fig.update_yaxes(title_text=axis_titles[1] or None, row=1, col=1)
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
