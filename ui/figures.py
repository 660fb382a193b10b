"""Pure functions from data and solver runs to plotly figures (testable without a server).

Colours are the Okabe–Ito palette (colour-blind safe); labeled points also differ from unlabeled
ones by marker shape and size, so the picture reads in grey scale too.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from toy_data import UNLABELED

CLASS_COLORS = ("#D55E00", "#0072B2")        # vermillion = class 0 (f < 0), blue = class 1
CLASS_SYMBOLS = ("diamond", "square")
UNLABELED_COLOR = "#999999"
DECISION_SCALE = [[0.0, "#D55E00"], [0.5, "#FFFFFF"], [1.0, "#0072B2"]]
DECISION_RANGE = 2.0  # the colour scale saturates at |f| = 2, beyond the margins f = +-1
STAGE_NAMES = {"C_star": "C*", "gamma": "γ", "alpha": "α", "T": "T", "newton": "Newton step",
               "pcg": "PCG iteration", "fit": "fit"}


def point_style(labels: np.ndarray, predicted: np.ndarray | None = None):
    """Marker colour, symbol, size and outline per point.

    Labeled points are large filled diamonds (class 0) and squares (class 1) with a black
    outline; unlabeled points are small circles, grey or coloured by ``predicted`` (0/1).
    """
    labels = np.asarray(labels)
    labeled = labels != UNLABELED
    if predicted is None:
        colors = np.where(labeled, "", UNLABELED_COLOR).astype(object)
    else:
        colors = np.asarray(CLASS_COLORS, dtype=object)[np.asarray(predicted, dtype=int)]
    colors[labeled] = np.asarray(CLASS_COLORS, dtype=object)[labels[labeled]]
    symbols = np.where(labeled, np.asarray(CLASS_SYMBOLS, dtype=object)[labels.clip(0)],
                       "circle")
    sizes = np.where(labeled, 14, 7)
    widths = np.where(labeled, 1.5, 0.0)
    return colors.tolist(), symbols.tolist(), sizes.tolist(), widths.tolist()


def _points_trace(X2, labels, predicted=None, name="points") -> go.Scatter:
    colors, symbols, sizes, widths = point_style(labels, predicted)
    return go.Scatter(
        x=X2[:, 0], y=X2[:, 1], mode="markers", name=name, customdata=np.arange(len(X2)),
        marker={"color": colors, "symbol": symbols, "size": sizes,
                "line": {"color": "black", "width": widths}},
        hovertemplate="point %{customdata}<extra></extra>", showlegend=False,
    )


def _square_axes(fig: go.Figure, row=None, col=None) -> None:
    fig.update_yaxes(scaleanchor="x", scaleratio=1, row=row, col=col)


def labeling_figure(X2: np.ndarray, labels: np.ndarray, title: str = "") -> go.Figure:
    """The clickable scatter of the Data page: one trace, ``customdata`` = point index."""
    fig = go.Figure(_points_trace(X2, labels))
    fig.update_layout(
        title=title, height=520, margin={"l": 10, "r": 10, "t": 40, "b": 10},
        plot_bgcolor="white", uirevision="labels",
    )
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    _square_axes(fig)
    return fig


def _stage_text(state) -> str:
    name = STAGE_NAMES.get(state.stage, state.stage)
    if math.isnan(state.stage_value):
        return f"{name} · iteration {state.iteration}"
    return f"{name} = {state.stage_value:.3g} · iteration {state.iteration}"


def _decision_trace(run, frame: int) -> go.Contour:
    # One contour trace per frame: heatmap colouring plus the lines f = -1, 0, +1.
    return go.Contour(
        x=run.grid_x, y=run.grid_y, z=np.round(run.grid_decisions[frame], 3),
        colorscale=DECISION_SCALE, zmin=-DECISION_RANGE, zmax=DECISION_RANGE,
        contours={"coloring": "heatmap", "start": -1, "end": 1, "size": 1,
                  "showlabels": True, "labelfont": {"size": 10}},
        line={"width": 2, "color": "black"}, opacity=0.75, showscale=False,
        hovertemplate="f = %{z:.2f}<extra></extra>", name="f",
    )


def _colored_points(X2, labels, decisions) -> go.Scatter:
    """Points coloured by their decision value (data with d > 2: no grid to draw)."""
    trace = _points_trace(X2, labels)
    trace.marker.update(color=np.round(decisions, 3), colorscale=DECISION_SCALE,
                        cmin=-DECISION_RANGE, cmax=DECISION_RANGE, showscale=True,
                        colorbar={"title": "f", "len": 0.5, "x": 0.58})
    return trace


def player_figure(run, X2: np.ndarray, labels: np.ndarray, frame: int = -1,
                  baseline_decisions: np.ndarray | None = None) -> go.Figure:
    """The Watch page's film: decision function, points, and linked objective / stage charts.

    Frames hold one decision trace, the point colours and the two progress markers each, so
    Play, Pause and the slider run in the browser without a server round trip.
    ``baseline_decisions`` (grid-shaped) adds the supervised SVM's f = 0 as a dashed line.
    """
    frame = frame % len(run.frames)
    states = run.states
    fig = make_subplots(
        rows=2, cols=2, column_widths=[0.62, 0.38], specs=[[{"rowspan": 2}, {}], [None, {}]],
        subplot_titles=("", "objective", "stage value"), horizontal_spacing=0.08,
        vertical_spacing=0.15,
    )
    on_grid = run.grid_decisions is not None

    def frame_traces(k: int) -> list:
        state = states[run.frames[k]]
        predicted = (run.point_decisions[k] > 0).astype(int)
        main = (_decision_trace(run, k) if on_grid
                else _colored_points(X2, labels, run.point_decisions[k]))
        points = _points_trace(X2, labels, predicted)
        objective = go.Scatter(x=[state.step], y=[state.objective], mode="markers",
                               marker={"size": 11, "color": "black"}, showlegend=False)
        stage = go.Scatter(x=[state.step], y=[state.stage_value], mode="markers",
                           marker={"size": 11, "color": "black"}, showlegend=False)
        return [main, points, objective, stage] if on_grid else [main, objective, stage]

    steps = [s.step for s in states]
    initial = frame_traces(frame)
    positions = [(1, 1), (1, 1), (1, 2), (2, 2)] if on_grid else [(1, 1), (1, 2), (2, 2)]
    for trace, (row, col) in zip(initial, positions, strict=True):
        fig.add_trace(trace, row=row, col=col)
    moving = list(range(len(initial)))
    fig.add_trace(go.Scatter(x=steps, y=[s.objective for s in states], mode="lines",
                             line={"color": "#555555"}, showlegend=False), row=1, col=2)
    stage_values = np.array([s.stage_value for s in states])
    fig.add_trace(go.Scatter(x=steps, y=stage_values, mode="lines", line={"color": "#009E73"},
                             showlegend=False), row=2, col=2)
    if baseline_decisions is not None and on_grid:
        fig.add_trace(go.Contour(
            x=run.grid_x, y=run.grid_y, z=np.round(baseline_decisions, 3),
            contours={"coloring": "none", "start": 0, "end": 0, "size": 1},
            line={"width": 2, "dash": "dash", "color": "#666666"}, showscale=False,
            name="supervised SVM", hoverinfo="skip"), row=1, col=1)
    if np.all(np.isfinite(stage_values)) and np.all(stage_values > 0) and np.ptp(stage_values):
        fig.update_yaxes(type="log", row=2, col=2)

    fig.frames = [
        go.Frame(data=frame_traces(k), traces=moving, name=str(k),
                 layout={"title": {"text": _stage_text(states[run.frames[k]])}})
        for k in range(len(run.frames))
    ]
    slider_steps = [
        {"method": "animate", "label": str(states[i].step),
         "args": [[str(k)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                             "transition": {"duration": 0}}]}
        for k, i in enumerate(run.frames)
    ]
    fig.update_layout(
        title={"text": _stage_text(states[run.frames[frame]]), "font": {"size": 24}},
        height=560, margin={"l": 10, "r": 10, "t": 70, "b": 10}, plot_bgcolor="white",
        updatemenus=[{
            "type": "buttons", "direction": "left", "x": 0.0, "y": -0.02, "xanchor": "left",
            "yanchor": "top", "showactive": False,
            "buttons": [
                {"label": "▶ Play", "method": "animate",
                 "args": [None, {"frame": {"duration": 100, "redraw": True},
                                 "fromcurrent": True, "transition": {"duration": 0}}]},
                {"label": "❚❚ Pause", "method": "animate",
                 "args": [[None], {"mode": "immediate", "frame": {"duration": 0,
                                                                   "redraw": False}}]},
            ],
        }],
        sliders=[{"active": frame, "steps": slider_steps, "x": 0.18, "len": 0.8, "y": -0.02,
                  "currentvalue": {"prefix": "step "}, "pad": {"t": 0}}],
    )
    fig.update_xaxes(showgrid=False, zeroline=False, row=1, col=1)
    fig.update_yaxes(showgrid=False, zeroline=False, row=1, col=1)
    _square_axes(fig, row=1, col=1)
    fig.update_xaxes(title_text="step", row=2, col=2)
    return fig
