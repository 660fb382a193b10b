"""The "When unlabeled data hurt" page's figure: each data set above what every solver's
unlabeled points did to its error, against its own supervised SVM."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from s3vm_explorer.engine.figures.palette import CLASS_COLORS
from s3vm_explorer.engine.figures.theme import TEXT_SIZE

#: Text size of the figure (px): readable at 1024 x 768 and on a projector.
FONT = TEXT_SIZE
#: Pixel heights: the data sets' row, one solver's line of the verdicts' row, what the panel
#: titles take above, and what the x axis and the legend take below (at 1024 x 768 the chart
#: stands on the first screen under the page's story and lesson).
DATA_HEIGHT, SOLVER_HEIGHT, TOP, BOTTOM = 76, 24, 44, 68
#: The paired test's verdicts (``s3vm_core.metrics.PairedComparison.verdict``): their marker,
#: colour and legend. Left is a lower error, so a better solver points left; shapes tell them
#: apart without colour, Okabe–Ito colours with it.
VERDICT_STYLE = {
    "better": ("triangle-left", "#009E73", "better than its SVM"),
    "no significant difference": ("circle-open", "#777777", "no significant difference"),
    "worse": ("triangle-right", "#D55E00", "worse than its SVM"),
}


def hurt_figure(panels, solver_titles: dict) -> go.Figure:
    """One column per data set: its points coloured by class on top, and below, each
    solver's unlabeled error minus its own SVM's on the same draws, in percentage points (the
    mean and its 95 % interval), marked by the paired test's verdict.

    ``panels`` holds one dict per data set: ``title`` and ``tag`` (its panel title's two
    lines), ``X`` and ``y`` (its points and true classes), ``summary``
    (``engine.comparison.summarize``'s rows) and ``differences``
    (``engine.hurt.differences``). One x range for every column, so that a point at the
    same place means the same in each; 0 (the dotted line) is the solver's own SVM.
    """
    solvers = list(dict.fromkeys(s["solver"] for p in panels for s in p["summary"]))
    n_cols = max(len(panels), 1)
    plot_height = SOLVER_HEIGHT * max(len(solvers), 1)
    fig = make_subplots(
        rows=2, cols=n_cols, row_heights=[DATA_HEIGHT, plot_height], shared_yaxes="rows",
        horizontal_spacing=0.03, vertical_spacing=18 / (DATA_HEIGHT + plot_height + 18),
        subplot_titles=[f"<b>{p['title']}</b><br>{p['tag']}" for p in panels]
        + [""] * n_cols)
    bounds = []
    for col, panel in enumerate(panels, start=1):
        X, y = np.asarray(panel["X"]), np.asarray(panel["y"])
        fig.add_trace(go.Scatter(
            x=X[:, 0], y=X[:, 1], mode="markers", showlegend=False, hoverinfo="skip",
            marker={"size": 4, "color": [CLASS_COLORS[int(c)] for c in y]}), row=1, col=col)
        fig.update_xaxes(visible=False, row=1, col=col)
        fig.update_yaxes(visible=False, scaleanchor=f"x{col}", row=1, col=col)
        for s in panel["summary"]:
            mean, low, high = panel["differences"][s["solver"]]
            if not math.isfinite(mean):
                continue
            low, high = (low, high) if math.isfinite(low) else (mean, mean)
            bounds += [100 * low, 100 * high]
            symbol, color, _ = VERDICT_STYLE[s["verdict"]]
            p = s["paired"].p_value
            name = solver_titles.get(s["solver"], s["solver"])
            fig.add_trace(go.Scatter(
                x=[100 * mean], y=[solvers.index(s["solver"])], mode="markers",
                showlegend=False, marker={"symbol": symbol, "size": 12, "color": color,
                                          "line": {"width": 2, "color": color}},
                error_x={"type": "data", "symmetric": False, "array": [100 * (high - mean)],
                         "arrayminus": [100 * (mean - low)], "color": color, "thickness": 1.5,
                         "width": 4},
                hovertemplate=(f"{name} on {panel['title']}: %{{x:+.1f}} points "
                               f"(95 % interval {100 * low:+.1f} to {100 * high:+.1f}), "
                               + ("p unknown" if math.isnan(p) else f"p = {p:.2g}")
                               + f": {s['verdict']}<extra></extra>")), row=2, col=col)
        fig.add_vline(x=0, line={"color": "#999999", "dash": "dot", "width": 1.5}, row=2,
                      col=col)
    for symbol, color, label in VERDICT_STYLE.values():  # the legend, once
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=label,
                                 marker={"symbol": symbol, "size": 11, "color": color,
                                         "line": {"width": 2, "color": color}}),
                      row=2, col=1)
    largest = max([abs(b) for b in bounds], default=10.0)
    pad = max(0.08 * largest, 1.0)
    font = {"size": FONT}
    fig.update_xaxes(range=[-largest - pad, largest + pad], zeroline=False, showgrid=True,
                     tickfont=font, row=2)
    fig.update_xaxes(title_text="error − its SVM's (points)", title_font=font,
                     title_standoff=4, row=2)
    fig.update_yaxes(tickvals=list(range(len(solvers))),
                     ticktext=[solver_titles.get(s, s) for s in solvers], tickfont=font,
                     range=[len(solvers) - 0.5, -0.5], showgrid=False, zeroline=False, row=2)
    fig.update_annotations(font=font)  # the panel titles
    fig.update_layout(
        height=TOP + DATA_HEIGHT + 18 + plot_height + BOTTOM, font=font,
        margin={"l": 10, "r": 10, "t": TOP, "b": BOTTOM},
        legend={"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom",
                "font": font})
    return fig
