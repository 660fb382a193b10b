"""The pieces every figure is built of: points, decision functions and their level lines,
one-vs-rest regions, and axes that read (equal scales; logarithmic axes labelled in numbers)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from s3vm_explorer.engine.figures.palette import (
    DECISION_FILL,
    FILL_LIMIT,
    LEVEL_LINE_COLOR,
    LEVEL_LINES,
    OUTLINE_COLOR,
    class_colors,
    fill_values,
    point_scale,
    point_style,
    region_colors,
)


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


def points_trace(X2, labels, predicted=None, name="points", n_classes: int = 2) -> go.Scatter:
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


def square_axes(fig: go.Figure, row=None, col=None) -> None:
    fig.update_yaxes(scaleanchor="x", scaleratio=1, row=row, col=col)


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


def finite_positive(values) -> np.ndarray:
    """The finite positive values: what a log axis can show."""
    values = np.asarray(values, dtype=float).ravel()
    return values[np.isfinite(values) & (values > 0)]


def spans_decades(values: np.ndarray) -> bool:
    """Whether a positive series covers two decades or more (then a log axis reads better)."""
    positive = finite_positive(values)
    return positive.size > 1 and positive.max() >= 100 * positive.min()


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(exponent: int, plain: bool) -> str:
    """10^exponent as a tick label: a plain number ("0.01", "100"), or 10 with a superscript
    exponent ("10⁻⁵"; 1 and 10 as themselves, as plotly writes them)."""
    if plain or exponent in (0, 1):
        return f"{10.0**exponent:g}"
    return "10" + str(exponent).translate(_SUPERSCRIPTS)


def powers_of_ten_axis(fig: go.Figure, values: np.ndarray, row: int, col: int) -> None:
    """A log y axis labelled at powers of ten only (every one, or every few over many
    decades): plotly's own labels put "2, 5" between the decades, which crowd a small chart,
    and write small numbers with SI prefixes ("100µ" for 1e-4). Plain numbers while every
    label lies between 0.001 and 1000, powers of ten ("10⁻⁵") otherwise."""
    positive = finite_positive(values)
    # the powers of ten within the values (they span two decades or more: spans_decades)
    low = math.ceil(math.log10(positive.min()) - 1e-9)
    high = math.floor(math.log10(positive.max()) + 1e-9)
    exponents = range(low, high + 1, max(1, math.ceil((high - low) / 5)))
    plain = -3 <= low and high <= 3
    fig.update_yaxes(type="log", tickmode="array", tickvals=[10.0**k for k in exponents],
                     ticktext=[_power_of_ten(k, plain) for k in exponents], row=row, col=col)


def log_axis(values, decades: bool = False) -> dict:
    """Settings of a log axis over ``values`` whose tick labels read as numbers.

    Left to itself plotly labels the 2 and the 5 of each decade with their first digit only
    ("5, 2, 1, 5, 2…"). Here: every digit of the decade under one decade, 1-2-5 steps written
    in full up to three decades, and powers of ten (10⁻³) over more. ``decades``: the powers
    of ten alone (0.01, 0.1, 1, 10), for a narrow panel.
    """
    positive = finite_positive(values)
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
