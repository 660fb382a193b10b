"""Figures of the data: the Data page's clickable scatter, small multiples of boundaries and
the soft labels of deterministic annealing."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy.spatial import cKDTree

from s3vm_core import decision_on_grid
from s3vm_core.metrics import predicted_classes
from s3vm_explorer.engine.figures.palette import P_SCALE
from s3vm_explorer.engine.figures.traces import (
    class_region_traces,
    decision_traces,
    points_trace,
    square_axes,
)
from s3vm_explorer.engine.metrics import n_classes_of


def _empty_places(X2: np.ndarray, grid_x, grid_y) -> np.ndarray:
    """The nodes of the grid farther than one grid step from every point: a click near a point
    must select the point (plotly picks the nearest marker, and an invisible node right under
    the cursor would beat a point a few pixels away)."""
    xx, yy = np.meshgrid(grid_x, grid_y)
    nodes = np.column_stack([xx.ravel(), yy.ravel()])
    steps = np.array([grid_x[1] - grid_x[0], grid_y[1] - grid_y[0]])
    distance, _ = cKDTree(np.asarray(X2) / steps).query(nodes / steps)
    return nodes[distance > 1.0]


#: Height (px) of the Data page's chart to label.
LABELING_HEIGHT = 400


def labeling_figure(X2: np.ndarray, labels: np.ndarray, title: str = "",
                    empty_space: tuple | None = None, n_classes: int = 2) -> go.Figure:
    """The clickable scatter of the Data page: the points' trace, ``customdata`` = point index.

    ``empty_space`` = ``(grid_x, grid_y)`` adds a second trace of invisible markers on that
    grid, so that a click on empty space selects the grid point under it (plotly's selection
    reports clicks on markers only) and the page can add a point there.
    """
    fig = go.Figure(points_trace(X2, labels, n_classes=n_classes))
    if empty_space is not None:
        places = _empty_places(X2, *empty_space)
        invisible = {"marker": {"opacity": 0}}
        fig.add_trace(go.Scatter(
            x=places[:, 0], y=places[:, 1], mode="markers", name="empty space",
            showlegend=False,
            marker={"size": 6, "opacity": 0, "color": "black"}, hoverinfo="none",
            selected=invisible, unselected=invisible))
    # 400 px: whole on the Data page's first screen at 1024 x 768 (as wide as two moons at
    # equal scales there); room above for a title only when there is one
    fig.update_layout(
        title=title, height=LABELING_HEIGHT, margin={"l": 10, "r": 10, "t": 40 if title else 10,
                                                     "b": 10}, uirevision="labels",
    )
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    square_axes(fig)
    return fig


#: Width (px) of a small multiple's panel in the narrowest window of a projector, 1024 px with
#: the sidebar open: two panels a row (four were 130 px wide there, too small to read).
PANEL_WIDTH = 330


def boundary_multiples_figure(panels, X2: np.ndarray, labels: np.ndarray, display_grid=None,
                              n_cols: int = 2) -> go.Figure:
    """Small multiples of a decision function: one panel per ``(title, grid, points)``.

    ``display_grid`` is ``engine.data.Data.grid_features``'s ``(grid_x, grid_y, ...)``, or
    ``None`` (then only the points are drawn). A panel's ``grid`` is the decision on that grid,
    ``points`` the decision on the training points; each panel draws f as a heatmap with the
    line f = 0 and the points coloured by predicted class. Two panels a row: each stays
    readable (about ``PANEL_WIDTH`` px) in the narrowest window of a projector.
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
        trace = points_trace(X2, labels, predicted_classes(points), n_classes=n_classes_of(points))
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
    panel_width = 2 * PANEL_WIDTH / n_cols  # (the width of two panels a row, shared)
    fig.update_layout(height=_multiples_row_height(X2, display_grid, panel_width) * n_rows + 40,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10}, showlegend=False)
    return fig


def _aspect(X2: np.ndarray, display_grid=None) -> float:
    """Width over height of the picture of the data (its display grid's, else its points')."""
    if display_grid is not None:
        width, height = np.ptp(display_grid[0]), np.ptp(display_grid[1])
    else:
        width, height = np.ptp(np.asarray(X2, dtype=float)[:, :2], axis=0)
    return width / height if height > 0 else 1.0


def _multiples_row_height(X2: np.ndarray, display_grid, panel_width: float = PANEL_WIDTH) -> int:
    """A row of small multiples: its title and a picture of the data's aspect ratio at
    ``panel_width``, between 120 and ``panel_width`` px tall."""
    aspect = _aspect(X2, display_grid)
    return 30 + int(np.clip(panel_width / max(aspect, 1e-9), 120, panel_width))


def soft_labels_figure(X2: np.ndarray, labels: np.ndarray, p: np.ndarray,
                       title: str = "") -> go.Figure:
    """Points coloured by the DA soft label ``p = P(class 1)``: vermillion 0, yellow ½, blue 1.

    Labeled points keep their shapes (diamond / square) and a black outline.
    """
    trace = points_trace(X2, labels)
    trace.marker.update(color=np.round(np.asarray(p, dtype=float), 3), colorscale=P_SCALE,
                        cmin=0.0, cmax=1.0, showscale=True,
                        colorbar={"title": "p", "tickvals": [0, 0.5, 1], "len": 0.8})
    trace.marker.size = np.maximum(trace.marker.size, 9)
    trace.hovertemplate = "point %{customdata}<br>p = %{marker.color:.3f}<extra></extra>"
    fig = go.Figure(trace)
    # as tall as the data's picture at the width of a page's main column (about 650 px)
    height = 60 + int(np.clip(650 / max(_aspect(X2), 1e-9), 200, 460))
    fig.update_layout(title=title, height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    square_axes(fig)
    return fig


def boundary_panel(title: str, state, grid):
    """``(title, decision on the grid, decision on the points)`` of one state, for
    ``boundary_multiples_figure``; ``grid`` is ``engine.data.Data.grid_features``'s."""
    grid_x, grid_y, features = grid
    decision = decision_on_grid(features, [state])[0].reshape(len(grid_y), len(grid_x))
    return title, decision, state.train_decision
