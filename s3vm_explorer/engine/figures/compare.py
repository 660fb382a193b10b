"""The Compare page's figures: errors, objectives and times of every solver over label draws,
each solver in one colour on every chart."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from s3vm_explorer.engine.figures.palette import (
    BASELINE_COLOR,
    SOLVER_PALETTE,
    SOLVER_SYMBOLS,
)
from s3vm_explorer.engine.figures.theme import HEADING_SIZE, TEXT_SIZE
from s3vm_explorer.engine.figures.traces import log_axis
from s3vm_explorer.engine.presets import DEFAULT
from s3vm_explorer.engine.registry import SOLVERS


def _solver_styles(names) -> dict:
    """Each run name's colour and marker, ``(color, symbol)``: a run of solver ``S`` (``"S"``,
    or ``"S:preset"`` when the Compare page runs both presets) wears ``S``'s of
    ``SOLVER_PALETTE`` and ``SOLVER_SYMBOLS``; a name outside the app's solvers (a lesson's
    "DA") takes the first pair none of ``names`` wears."""
    order = list(SOLVERS)
    styles = list(zip(SOLVER_PALETTE, SOLVER_SYMBOLS, strict=True))
    fixed = {name: styles[order.index(_solver_of(name)) % len(styles)]
             for name in names if _solver_of(name) in order}
    free = iter([style for style in styles if style not in fixed.values()] or styles)
    return {name: fixed[name] if name in fixed else next(free, styles[0]) for name in names}


def _open(symbol: str) -> str:
    """A marker's open variant ("square" -> "square-open")."""
    return f"{symbol}-open"


def _solver_of(name: str) -> str:
    """The solver of a run name (``"LDS:paper"`` -> ``"LDS"``)."""
    return name.partition(":")[0]


def _is_default_preset(name: str) -> bool:
    """Whether a run name is the generic-default half of the Compare page's "both"."""
    return name.partition(":")[2] == DEFAULT


#: The errors chart's text size (px): readable on a projector and at 1024 x 768.
ERRORS_FONT = TEXT_SIZE
#: The reference SVM's run name (``engine.comparison.BASELINE``): its own SVM is itself.
_REFERENCE = "SVMBaseline"


def compare_errors_figure(rows, titles: dict | None = None) -> go.Figure:
    """Unlabeled error per solver over the label draws, each draw beside the solver's own
    supervised SVM on the same draw (``baseline_error``, ``engine.comparison.fair_baseline``).

    One band per solver, named on its left as the time chart names its bars; in it each draw
    is a line from its SVM's error (a grey open circle) to the solver's (its marker in its
    colour), one draw below the other: a line going left means the unlabeled points
    helped on that draw, a marker on its circle a tie — what the paired test counts. A
    generic-default run of the Compare page's "both" wears its solver's marker open; the
    reference SVM (``SVMBaseline``) has its marks only.
    """
    titles = titles or {}
    names = list(dict.fromkeys(r["solver"] for r in rows))
    styles = _solver_styles(names)
    draws = max([r["draw"] for r in rows], default=0) + 1
    fig = go.Figure()
    for band, name in enumerate(names):
        mine = [r for r in rows if r["solver"] == name and not r["error"]]
        # the draws one below the other within the band, the first on top
        heights = [band + _draw_offset(r["draw"], draws) for r in mine]
        errors = [100 * r["unlabeled_error"] for r in mine]
        svm = [100 * r.get("baseline_error", math.nan) for r in mine]
        title = titles.get(name, name)
        color, symbol = styles[name]
        if name != _REFERENCE:
            fig.add_trace(go.Scatter(
                x=[x for a, b in zip(svm, errors, strict=True) for x in (a, b, None)],
                y=[y for h in heights for y in (h, h, None)], mode="lines",
                line={"color": color, "width": 1.5}, opacity=0.6, hoverinfo="skip",
                showlegend=False))
            fig.add_trace(go.Scatter(
                x=svm, y=heights, mode="markers", name=f"{title}: its SVM", showlegend=False,
                marker={"color": BASELINE_COLOR, "size": 7, "symbol": "circle-open",
                        "line": {"width": 1.5}},
                customdata=[r["draw"] + 1 for r in mine],
                hovertemplate="draw %{customdata}: its supervised SVM %{x:.1f} %"
                              "<extra></extra>"))
        fig.add_trace(go.Scatter(
            x=errors, y=heights, mode="markers", name=title, showlegend=False,
            marker={"color": color, "size": 10, "line": {"color": color, "width": 1.5},
                    "symbol": _open(symbol) if _is_default_preset(name) else symbol},
            customdata=[[r["draw"] + 1, 100 * r.get("baseline_error", math.nan)]
                        for r in mine],
            hovertemplate=f"draw %{{customdata[0]}}: {title} %{{x:.1f}} %"
                          + ("" if name == _REFERENCE else
                             " (its SVM %{customdata[1]:.1f} %)") + "<extra></extra>"))
    for band in range(1, len(names)):  # a thin rule between two solvers' bands
        fig.add_hline(y=band - 0.5, line={"color": "rgba(128,128,128,0.35)", "width": 1})
    # The two kinds of marks named once, in the legend above the chart.
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="solver, one mark a draw",
                             marker={"color": "black", "size": 8}))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers",
                             name="its own supervised SVM on the same draw",
                             marker={"color": BASELINE_COLOR, "size": 7, "symbol": "circle-open",
                                     "line": {"width": 1.5}}))
    band_height = _band_height(draws)
    font = {"size": ERRORS_FONT}  # (the page's theme sets smaller ticks and legend otherwise)
    fig.update_layout(height=band_height * len(names) + 110, font=font,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom",
                              "font": font})
    largest = max([100 * r[key] for r in rows if not r["error"]
                   for key in ("unlabeled_error", "baseline_error")
                   if np.isfinite(r.get(key, math.nan))], default=100.0)
    pad = max(0.03 * largest, 0.5)  # a dot at 0 whole, not cut in half by the axis
    fig.update_xaxes(title_text="unlabeled error (%)", title_font=font, tickfont=font,
                     range=[-pad, largest + pad], showgrid=True, zeroline=False)
    fig.update_yaxes(tickvals=list(range(len(names))), tickfont=font,
                     ticktext=[titles.get(n, n) for n in names], showgrid=False,
                     zeroline=False, range=[len(names) - 0.5, -0.5])  # the first on top
    return fig


def _draw_offset(draw: int, draws: int) -> float:
    """Where draw ``draw`` of ``draws`` sits in its solver's band (of height 1, centred on the
    solver's tick): evenly from -0.35 (the first, on top) to 0.35."""
    return 0.0 if draws == 1 else -0.35 + 0.7 * draw / (draws - 1)


def _band_height(draws: int) -> int:
    """Pixels of one solver's band: 4 px a draw and room for the markers, between 44 px (a
    tick label's line and a little air) and 120 px (50 draws then lie 1.7 px apart)."""
    return int(min(max(12 + 4 * draws, 44), 120))


def _bars_height(n_bars: int) -> int:
    """Height of a chart of ``n_bars`` horizontal bars or boxes and an x axis title: 32 px a
    bar, at least 140 px of plot."""
    return 60 + max(32 * n_bars, 140)


#: Pixel sizes of the objective small multiples: a panel's plot area, a panel title's line
#: (14 px text, ``theme.HEADING_SIZE``), and what an x axis takes below a panel (ticks and
#: title).
PANEL_HEIGHT, TITLE_LINE, X_AXIS_HEIGHT = 150, 19, 48
#: Characters of a panel title's line: four panels in a row, 18 characters of 14 px text
#: (about 125 px) fit a panel and its spacing in the narrowest chart (564 px wide, in a
#: window 1024 px wide: 100 px a panel, 30 px between panels).
PANEL_TITLE_WIDTH = 18


def compare_objective_figure(rows, titles: dict | None = None, n_cols: int = 4) -> go.Figure:
    """Objective against unlabeled error, one small panel per solver (cS3VM Figure 3).

    Each marker (the solver's own) is one label draw; a filled one is a success (at most 1 %
    of the unlabeled points wrong), an open one a failure. Objectives of different solvers are
    different functions, so each panel has its own x axis. The baseline (no objective over unlabeled
    points) is left out. Spacing is set in pixels (plotly's is a fraction of the height, which
    left tall gaps between the rows of a tall figure): each row's titles sit just below the
    row above's axis titles.
    """
    titles = titles or {}
    names = [n for n in dict.fromkeys(r["solver"] for r in rows) if n != "SVMBaseline"]
    names = [n for n in names if any(np.isfinite(r["objective"]) for r in rows
                                     if r["solver"] == n)]
    styles = _solver_styles(names)
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
        color, symbol = styles[name]
        fig.add_trace(go.Scatter(
            x=[r["objective"] for r in mine], y=[100 * r["unlabeled_error"] for r in mine],
            mode="markers", name=titles.get(name, name), showlegend=False,
            marker={"color": color, "size": 10,
                    "symbol": [symbol if r["success"] else _open(symbol) for r in mine],
                    "line": {"color": color, "width": 2}},
            customdata=[r["draw"] for r in mine],
            hovertemplate="draw %{customdata}<br>objective %{x:.4g}<br>error %{y:.1f} %"
                          "<extra></extra>",
        ), row=k // n_cols + 1, col=k % n_cols + 1)
    fig.update_xaxes(title_text="objective", title_standoff=4, showgrid=False, nticks=4)
    fig.update_yaxes(rangemode="tozero", showgrid=True)
    for row in range(1, n_rows + 1):
        fig.update_yaxes(title_text="error (%)", row=row, col=1)
    fig.update_annotations(font={"size": HEADING_SIZE}, yshift=2)  # the panel titles
    fig.update_layout(height=plot_height + title_height + X_AXIS_HEIGHT + 10,
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
    colors = {name: color for name, (color, _) in _solver_styles(names).items()}
    fig = go.Figure(go.Bar(
        y=[titles.get(name, name) for name in names],
        x=[s["median_seconds"] for s in summary], orientation="h",
        marker={"color": [colors[name] for name in names],
                "pattern": {"shape": ["/" if _is_default_preset(name) else ""
                                      for name in names], "fillmode": "replace"}},
        hovertemplate="%{y}: %{x:.3g} s<extra></extra>",
    ))
    fig.update_xaxes(**log_axis([s["median_seconds"] for s in summary]),
                     title_text="median fit time (s)", showgrid=True)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(height=_bars_height(len(summary)),
                      margin={"l": 10, "r": 10, "t": 20, "b": 10})
    return fig


def minima_figure(rows, titles: dict | None = None) -> go.Figure:
    """How far each local minimum is from the global one, and what it costs in error (the
    continuation paper's Figure 3, against the exact minimum): one dot per (draw, solver), at
    its objective above the global minimum (% of it) and its unlabeled error minus the global
    optimum's (percentage points), each solver in its colour and marker, filled when it ended
    in the global minimum's basin (its labeling an optimal one). The supervised SVM, which ignores
    the unlabeled points' loss, is left out: its gap (often over 100 %) would flatten the rest."""
    titles = titles or {}
    shown = [r for r in rows if r["solver"] != "SVMBaseline"]
    names = list(dict.fromkeys(r["solver"] for r in shown))
    styles = _solver_styles(names)
    fig = go.Figure()
    for name in names:
        mine = [r for r in shown if r["solver"] == name]
        color, symbol = styles[name]
        fig.add_trace(go.Scatter(
            x=[100 * r["gap"] for r in mine],
            y=[100 * (r["error"] - r["global_error"]) for r in mine],
            mode="markers", name=titles.get(name, name),
            marker={"color": color, "size": 12, "line": {"color": color, "width": 1.5},
                    "symbol": [symbol if r["found_basin"] else _open(symbol) for r in mine]},
            customdata=[r["draw"] + 1 for r in mine],
            hovertemplate="draw %{customdata}<br>%{x:.2f} % above the global minimum<br>"
                          "%{y:+.1f} percentage points of error<extra></extra>"))
    for line in ("x", "y"):  # the global minimum's own place
        getattr(fig, f"add_{'v' if line == 'x' else 'h'}line")(
            **{line: 0}, line={"color": "#999999", "dash": "dot", "width": 1})
    # The legend at the foot of the figure, under the x axis' title: placed by the figure's
    # height, not the plot's, it stays clear of the title when the window is resized (a
    # legend under the plot in the plot's units met the title after a resize). 390 px: whole
    # on the first screen of the Local minima page at 1024 x 768, with 10 px to spare.
    fig.update_layout(height=390, margin={"l": 10, "r": 10, "t": 20, "b": 110},
                      legend={"orientation": "h", "x": 0, "y": 0, "yref": "container",
                              "yanchor": "bottom"})
    fig.update_xaxes(title_text="objective above the global minimum (%)", rangemode="tozero")
    fig.update_yaxes(title_text="error − the global optimum's (points)", zeroline=False)
    return fig
