"""The Watch page's film: a solver run played in the browser by a small custom component.

plotly's own animation (frames and ``Plotly.animate``) redraws the whole figure for every frame,
which held Play at about 8 frames per second in a browser without a GPU. This player
(``player_frontend/``) lets plotly.js draw ``figures.player_figure`` once and then, per frame,
paints the decision function and its level lines on a canvas beneath the plot, sets the
points' colours on plotly's markers (a plotly restyle would redraw the figure) and moves the
progress markers of the objective and stage-value charts.

The frames travel as bytes: the decision on the display grid quantised like the heatmaps of
``figures`` (f * FILL_STEPS in int8, saturated at |f| = DECISION_RANGE) and a colour value per
point. The component returns the state the user paused, stepped or scrubbed to (``{"state":
index into run.states, "report": a count}``), so that the page can show that state's details.
"""

from __future__ import annotations

import atexit
import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import plotly
import streamlit.components.v1 as components
from plotly.colors import sample_colorscale, unlabel_rgb

from ui.figures import (
    CLASS_COLORS,
    DECISION_FILL,
    DECISION_SCALE,
    FILL_LIMIT,
    FILL_STEPS,
    LEVEL_LINE_COLOR,
    LEVEL_LINES,
    fill_values,
    player_figure,
    point_style,
    stage_text,
)

FRONTEND = Path(__file__).with_name("player_frontend")
#: The installed plotly package's own plotly.js, so the player and the package agree.
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: Time a frame stays on screen while playing: Play runs at up to 20 frames per second.
FRAME_MS = 50


def _served_folder() -> Path:
    """A new temporary folder holding the player's page, its script and the installed
    plotly.min.js, removed when the process ends: the folder Streamlit serves the player from.

    Streamlit serves a component's files from one folder and refuses links that lead out of it
    (symbolic links included), and the page needs plotly.js beside it. Copying plotly.js into
    ``FRONTEND`` would write into the app's own source tree while it runs: Streamlit's file
    watcher then offers to rerun ("File change"), and a read-only install cannot be written at
    all. (A change to ``player_frontend/`` therefore shows after a restart of the server.)
    """
    folder = Path(tempfile.mkdtemp(prefix="s3vm-explorer-player-"))  # this process's own
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for source in (FRONTEND / "index.html", FRONTEND / "player.js", PLOTLY_JS):
        shutil.copyfile(source, folder / source.name)
    return folder


_film_player = components.declare_component("film_player", path=str(_served_folder()))


def _levels(colorscale) -> np.ndarray:
    """RGB (uint8, one row per level) of every quantised decision value -FILL_LIMIT …
    +FILL_LIMIT (see ``figures.fill_values``) on ``colorscale``."""
    colors = sample_colorscale(colorscale, np.linspace(0.0, 1.0, 2 * FILL_LIMIT + 1).tolist())
    return np.round([unlabel_rgb(color) for color in colors]).astype(np.uint8)


def _finite(values) -> list:
    """JSON numbers: NaN and infinities (a stage without a value) become null."""
    return [float(v) if math.isfinite(v) else None for v in values]


def film_args(run, X2: np.ndarray, labels: np.ndarray,
              baseline_decisions: np.ndarray | None = None) -> dict:
    """Everything the player needs to play ``run`` (a ``ui.caching.Run``), as component
    arguments: the still figure (plotly JSON) and, per frame, the grid's decision values, the
    point colours, the stage text and the values the progress markers sit on."""
    shown = [run.states[i] for i in run.frames]
    if run.grid_decisions is not None:
        # unlabeled points take the colour of their predicted class, labeled ones keep theirs
        palette = [CLASS_COLORS[0], CLASS_COLORS[1]]
        points = np.stack([point_style(labels, f > 0)[0] for f in run.point_decisions])
        grid = {"x": [float(run.grid_x[0]), float(run.grid_x[-1])],
                "y": [float(run.grid_y[0]), float(run.grid_y[-1])],
                "nx": len(run.grid_x), "ny": len(run.grid_y)}
        fill = fill_values(run.grid_decisions).tobytes()
    else:  # no grid to paint: the points show their decision value, quantised like the fill
        palette = [f"rgb({r}, {g}, {b})" for r, g, b in _levels(DECISION_SCALE)]
        points = fill_values(run.point_decisions).astype(int) + len(palette) // 2
        grid, fill = None, b""
    steps = [s.step for s in shown]
    return {
        "figure": player_figure(run, X2, labels, baseline_decisions).to_json(),
        "grid": grid,
        "fill": fill,
        "fill_colors": _levels(DECISION_FILL).tobytes(),
        "fill_steps": FILL_STEPS,
        "lines": list(LEVEL_LINES),
        "line_color": LEVEL_LINE_COLOR,
        "points": np.asarray(points).astype(np.uint8).tobytes(),
        "point_colors": palette,
        "n_points": len(labels),
        "points_trace": 0,
        "states": run.frames.tolist(),
        "titles": [stage_text(s) for s in shown],
        "steps": steps,
        "progress": [
            {"x": "xaxis2", "y": "yaxis2", "values": _finite(s.objective for s in shown)},
            {"x": "xaxis3", "y": "yaxis3", "values": _finite(s.stage_value for s in shown)},
        ],
        "frame_ms": FRAME_MS,
    }


def film(run, X2: np.ndarray, labels: np.ndarray, frame: int, jump: int = 0,
         baseline_decisions: np.ndarray | None = None, key: str | None = None,
         on_change=None):
    """Draw the player for ``run``; it shows frame ``frame`` when the film is new or ``jump``
    has changed since its last call (the page asks it to jump). Returns the state the user last
    paused, stepped or scrubbed to, ``{"state": index, "report": count}`` (None before any)."""
    return _film_player(**film_args(run, X2, labels, baseline_decisions), frame=int(frame),
                        jump=jump, key=key, on_change=on_change, default=None)
