"""A figure for a dark page: the app's figures are drawn for a light page, and Streamlit's dark
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
)

TRANSPARENT = "rgba(0,0,0,0)"
#: Colours of a light page that vanish or glare on a dark one, beyond the film's.
_SWAPS = {**DARK_COLORS, "black": "#E8E8E8", "#000000": "#E8E8E8", "white": TRANSPARENT,
          "#FFFFFF": TRANSPARENT, "#ffffff": TRANSPARENT,
          # Tol's indigo and wine among the solvers' colours (``compare.SOLVER_PALETTE``) are
          # too dark to see on a dark page: lighter tones of the same hues
          "#332288": "#8877DD", "#882255": "#DD6699"}


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
