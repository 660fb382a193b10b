"""The layout every chart of the app shares: text readable from the back of a lecture hall
(``readable``), and a figure for a dark page.

A figure for a dark page: the app's figures are drawn for a light page, and Streamlit's dark
theme (the browser's setting, or its menu) would leave their white fills, black lines and
light-page colours as bright patches and vanishing lines. ``for_dark_page`` swaps each of them
for the colour the film's player uses on a dark page (``palette.DARK_COLORS``); backgrounds and
grids are the theme's own (the figures set none)."""

from __future__ import annotations

import plotly.graph_objects as go

from s3vm_explorer.engine.figures.palette import (
    CLASS_COLORS,
    DARK_COLORS,
    DARK_FILL_OPACITY,
    DECISION_FILL,
    REGION_WEIGHT,
    SOLVER_PALETTE,
    SOLVER_PALETTE_DARK,
)

TRANSPARENT = "rgba(0,0,0,0)"
#: Colours of a light page that vanish or glare on a dark one, beyond the film's.
_SWAPS = {**DARK_COLORS, "black": "#E8E8E8", "#000000": "#E8E8E8", "white": TRANSPARENT,
          "#FFFFFF": TRANSPARENT, "#ffffff": TRANSPARENT,
          # the solvers' colours: a palette of their own on a dark page, as far apart there
          **dict(zip(SOLVER_PALETTE, SOLVER_PALETTE_DARK, strict=True))}


def _rgba(color: str, alpha: float) -> str:
    red, green, blue = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


#: DECISION_FILL on a dark page: from the page itself (f = 0) to the class colours at
#: DARK_FILL_OPACITY, as the film's player paints it.
DARK_DECISION_FILL = [[0.0, _rgba(CLASS_COLORS[0], DARK_FILL_OPACITY)], [0.5, TRANSPARENT],
                      [1.0, _rgba(CLASS_COLORS[1], DARK_FILL_OPACITY)]]


def _swapped(value):
    if isinstance(value, str):
        return _SWAPS.get(value, value)
    if isinstance(value, dict):
        return {key: _swapped(item) for key, item in value.items()}
    if isinstance(value, list | tuple) and not (value and isinstance(value[0], int | float)):
        return [_swapped(item) for item in value]
    return value


def _dark_colorscale(scale):
    """A heatmap's colour scale on a dark page: the decision fill, or a one-vs-rest region
    scale (each class's colour light over white) as that colour over the page."""
    if [list(step) for step in scale] == [list(step) for step in DECISION_FILL]:
        return DARK_DECISION_FILL
    return [[edge, _region_over_dark(color)] for edge, color in scale]


def _region_over_dark(color: str) -> str:
    """``palette.region_colors``' colour (a class's over white) as that class's over a dark
    page: the same weight, the page showing through."""
    if not color.startswith("rgb("):
        return color
    red, green, blue = (int(v) for v in color[4:-1].split(","))
    # undo "255 + w (c - 255)" to find the class's colour, then lay it over the page
    base = [round(255 + (v - 255) / REGION_WEIGHT) for v in (red, green, blue)]
    return f"rgba({base[0]},{base[1]},{base[2]},{REGION_WEIGHT})"


def for_dark_page(figure: go.Figure) -> go.Figure:
    """``figure`` with its light-page colours swapped for a dark page (a new figure)."""
    spec = figure.to_plotly_json()
    data = []
    for trace in spec["data"]:
        trace = _swapped(trace)
        if trace.get("type") == "heatmap" and trace.get("colorscale") is not None:
            trace["colorscale"] = _dark_colorscale(trace["colorscale"])
        data.append(trace)
    layout = _swapped(spec["layout"])
    layout.pop("template", None)  # the theme's: Streamlit's dark one
    return go.Figure({"data": data, "layout": layout}, skip_invalid=True)


#: The least size (px) of a chart's text: tick labels, axis titles, notes, hover labels,
#: seen at 1024 x 768 on a projector from the back row.
TEXT_SIZE = 13
#: The least size (px) of what names a chart's parts: its title, its panels' titles, its
#: axes' titles and its legend.
HEADING_SIZE = 14


def _at_least(font: dict | None, size: int) -> dict:
    """``font`` with its size raised to ``size`` (a larger one kept)."""
    font = dict(font or {})
    font["size"] = max(font.get("size") or 0, size)
    return font


def _title_at_least(title, size: int):
    """A title (a string, or plotly's ``{"text", "font"}``) with its font at least ``size``."""
    title = {"text": title} if isinstance(title, str) else dict(title or {})
    title["font"] = _at_least(title.get("font"), size)
    return title


def _colorbar_readable(colorbar: dict | None) -> dict:
    colorbar = dict(colorbar or {})
    colorbar["tickfont"] = _at_least(colorbar.get("tickfont"), TEXT_SIZE)
    colorbar["title"] = _title_at_least(colorbar.get("title"), HEADING_SIZE)
    return colorbar


def _panel_title(annotation: dict) -> bool:
    """Whether an annotation is a panel's title (``make_subplots``' or an own one above a
    panel): placed on the paper, its text standing above its point."""
    return (annotation.get("xref") == "paper" and annotation.get("yref") == "paper"
            and annotation.get("yanchor") == "bottom" and not annotation.get("showarrow"))


def _axis_key(reference: str) -> str:
    return f"{reference[0]}axis{reference[1:]}"


def readable_spec(spec: dict) -> dict:
    """``readable`` on a figure's JSON (``Figure.to_plotly_json()``), changed in place.

    Every text is given its size: a theme's template (Streamlit's draws ticks and legends at
    12 px) sets what a figure leaves unset."""
    layout = spec.setdefault("layout", {})
    layout["font"] = _at_least(layout.get("font"), TEXT_SIZE)
    layout["hoverlabel"] = {**(layout.get("hoverlabel") or {}),
                            "font": _at_least((layout.get("hoverlabel") or {}).get("font"),
                                              TEXT_SIZE)}
    if layout.get("title"):
        layout["title"] = _title_at_least(layout["title"], HEADING_SIZE)
    legend = dict(layout.get("legend") or {})
    legend["font"] = _at_least(legend.get("font"), HEADING_SIZE)
    if legend.get("title"):
        legend["title"] = _title_at_least(legend["title"], HEADING_SIZE)
    layout["legend"] = legend
    axes = {"xaxis", "yaxis"} | {key for key in layout
                                 if key[:5] in ("xaxis", "yaxis") and key[5:].isdigit()}
    axes |= {_axis_key(trace.get(side) or side[0])  # a trace's "x2" is the layout's "xaxis2"
             for trace in spec.get("data", []) for side in ("xaxis", "yaxis")}
    for key in axes:
        axis = dict(layout.get(key) or {})
        axis["tickfont"] = _at_least(axis.get("tickfont"), TEXT_SIZE)
        if axis.get("title"):
            axis["title"] = _title_at_least(axis["title"], HEADING_SIZE)
        layout[key] = axis
    layout["annotations"] = [
        {**note, "font": _at_least(note.get("font"),
                                   HEADING_SIZE if _panel_title(note) else TEXT_SIZE)}
        for note in layout.get("annotations") or []]
    for name in [key for key in layout if key.startswith("coloraxis")]:
        if layout[name].get("colorbar") is not None or layout[name].get("showscale"):
            layout[name] = {**layout[name],
                            "colorbar": _colorbar_readable(layout[name].get("colorbar"))}
    for trace in spec.get("data", []):
        if trace.get("textfont") is not None or trace.get("text") is not None:
            trace["textfont"] = _at_least(trace.get("textfont"), TEXT_SIZE)
        marker = trace.get("marker")
        if isinstance(marker, dict) and marker.get("showscale"):
            trace["marker"] = {**marker, "colorbar": _colorbar_readable(marker.get("colorbar"))}
        if trace.get("showscale") and trace.get("type") in ("heatmap", "contour"):
            trace["colorbar"] = _colorbar_readable(trace.get("colorbar"))
    return spec


def readable(figure: go.Figure) -> go.Figure:
    """``figure`` with every text at least ``TEXT_SIZE`` px and its titles and legend at least
    ``HEADING_SIZE`` (a new figure; larger sizes kept): what every chart of the app is drawn
    with (``ui.charts.chart``)."""
    # not validated again: only sizes are added, and validating a figure of 2,000 points takes
    # a fifth of a second at each of the Data page's clicks
    return go.Figure(readable_spec(figure.to_plotly_json()), _validate=False)
