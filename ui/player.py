"""The Watch page's film: a solver run played in the browser by a small custom component.

plotly's own animation (frames and ``Plotly.animate``) redraws the whole figure for every frame,
which held Play at about 8 frames per second in a browser without a GPU. This player
(``player_frontend/``) lets plotly.js draw ``figures.player_figure`` once and then, per frame,
paints the decision function and its level lines on a canvas beneath the plot, sets the
points' colours on plotly's markers (a plotly restyle would redraw the figure), moves the
progress markers of the objective and stage-value charts and shows the frame's numbers.

The numbers under the film (step, objective, gradient norm, unlabeled error and its difference
to the supervised SVM) travel with the film, a few strings per frame, and the player shows
those of the frame on screen: they move with the film while it plays, without a round trip to
the server per frame (a page rerun takes a few hundred milliseconds; a frame lasts 50). The
page shows the details of the state the film stopped on (Pause, Step, the scrubber, the end of
Play): the component returns ``{"film": its id, "state": index into run.states or None,
"speed", "loop", "report": a count}``; ``state`` is None when only the speed or the loop
changed.

The frames travel as bytes, compressed (zlib; the browser inflates them with its own
DecompressionStream): the decision on the display grid quantised like the heatmaps of
``figures`` (f * FILL_STEPS in int8, saturated at |f| = DECISION_RANGE) and a colour value per
point. A smooth decision function compresses about ninefold: 56 frames of a 60 x 60 grid are
191 KB raw and 21 KB compressed, which keeps the film's payload well under a quarter of a
megabyte with its numbers and the supervised SVM's boundary.
"""

from __future__ import annotations

import atexit
import hashlib
import math
import shutil
import tempfile
import zlib
from collections import OrderedDict
from pathlib import Path

import numpy as np
import plotly
import streamlit.components.v1 as components
from plotly.colors import sample_colorscale, unlabel_rgb

from toy_data import UNLABELED
from ui.comparison import unlabeled_error
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
from ui.params import FILM_SPEEDS

FRONTEND = Path(__file__).with_name("player_frontend")
#: The installed plotly package's own plotly.js, so the player and the package agree.
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: Time a frame stays on screen while playing at 1x: Play runs at up to 20 frames per second.
FRAME_MS = 50
#: Time a looping film holds its last frame before it starts over: the result is what a
#: lecturer talks over.
HOLD_MS = 3000


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


def film_id(run_key: tuple) -> str:
    """The film's identity: a short digest of its run's cache key (data, labels, solver,
    parameters). A new one is a new run, which opens on its final state."""
    return hashlib.sha256(repr(run_key).encode()).hexdigest()[:16]


def _levels(colorscale) -> np.ndarray:
    """RGB (uint8, one row per level) of every quantised decision value -FILL_LIMIT …
    +FILL_LIMIT (see ``figures.fill_values``) on ``colorscale``."""
    colors = sample_colorscale(colorscale, np.linspace(0.0, 1.0, 2 * FILL_LIMIT + 1).tolist())
    return np.round([unlabel_rgb(color) for color in colors]).astype(np.uint8)


def _finite(values) -> list:
    """JSON numbers: NaN and infinities (a stage without a value) become null."""
    return [float(v) if math.isfinite(v) else None for v in values]


def _number(value: float, spec: str) -> str:
    """A number as the film shows it; a dash where a solver has none (the gradient of a
    direct solve)."""
    return format(value, spec) if math.isfinite(value) else "—"


def film_numbers(run, labels: np.ndarray, y_true: np.ndarray | None = None,
                 baseline=None) -> list[dict]:
    """The numbers under the film, one string per frame each: step, objective, gradient norm
    and, given the true labels ``y_true``, the unlabeled error, with its difference to the
    supervised SVM's (``baseline``, its run) as a note that says whether it is better."""
    shown = [run.states[i] for i in run.frames]
    numbers = [
        {"label": "step", "values": [f"{s.step} ({s.event})" for s in shown]},
        {"label": "objective", "values": [_number(s.objective, ".4g") for s in shown]},
        {"label": "‖gradient‖", "values": [_number(s.grad_norm, ".3g") for s in shown]},
    ]
    if y_true is None:
        return numbers
    errors = np.array([unlabeled_error(s.train_decision, labels, y_true) for s in shown])
    error = {"label": "unlabeled error", "values": [f"{100 * e:.1f} %" for e in errors],
             "help": "Against the generator's true labels: did the unlabeled data help?"}
    if baseline is not None and np.any(labels == UNLABELED):
        reference = unlabeled_error(baseline.states[-1].train_decision, labels, y_true)
        change = np.round(100 * (errors - reference), 1)
        error["notes"] = [f"{c:+.1f} points vs supervised SVM" if c else
                          "as the supervised SVM" for c in change]
        error["better"] = [None if c == 0 else bool(c < 0) for c in change]
    return [*numbers, error]


def _aspect(run, X2: np.ndarray) -> float:
    """Width over height of the boundary plot's data ranges (its axes have equal scales)."""
    if run.grid_x is not None:
        width, height = np.ptp(run.grid_x), np.ptp(run.grid_y)
    else:
        width, height = np.ptp(X2[:, 0]), np.ptp(X2[:, 1])
    return float(np.clip(width / max(height, 1e-12), 0.25, 4.0))


def film_args(run, X2: np.ndarray, labels: np.ndarray, y_true: np.ndarray | None = None,
              baseline=None, identity: str = "", speed: float = 1.0, loop: bool = False) -> dict:
    """Everything the player needs to play ``run`` (a ``ui.runs.Run``), as component
    arguments: the still figure (plotly JSON) and, per frame, the grid's decision values and
    the point colours (zlib-compressed bytes), the stage text, the values the progress
    markers sit on and the numbers (``film_numbers``). ``baseline`` is the supervised SVM's
    run (its f = 0 as a dashed line, its error as the reference), ``identity`` the film's id
    (``film_id``), ``speed`` and ``loop`` Play's settings."""
    shown = [run.states[i] for i in run.frames]
    if run.grid_decisions is not None:
        # unlabeled points take the colour of their predicted class, labeled ones keep theirs
        palette = [CLASS_COLORS[0], CLASS_COLORS[1]]
        points = np.stack([point_style(labels, f > 0)[0] for f in run.point_decisions])
        grid = {"x": [float(run.grid_x[0]), float(run.grid_x[-1])],
                "y": [float(run.grid_y[0]), float(run.grid_y[-1])],
                "nx": len(run.grid_x), "ny": len(run.grid_y)}
        fill = zlib.compress(fill_values(run.grid_decisions).tobytes())
    else:  # no grid to paint: the points show their decision value, quantised like the fill
        palette = [f"rgb({r}, {g}, {b})" for r, g, b in _levels(DECISION_SCALE)]
        points = fill_values(run.point_decisions).astype(int) + len(palette) // 2
        grid, fill = None, b""
    baseline_grid = (baseline.grid_decisions[-1] if baseline is not None
                     and baseline.grid_decisions is not None else None)
    return {
        "film": identity,
        "figure": player_figure(run, X2, labels, baseline_grid).to_json(),
        "aspect": _aspect(run, X2),
        "grid": grid,
        "fill": fill,
        "fill_colors": _levels(DECISION_FILL).tobytes(),
        "fill_steps": FILL_STEPS,
        "lines": list(LEVEL_LINES),
        "line_color": LEVEL_LINE_COLOR,
        "points": zlib.compress(np.asarray(points).astype(np.uint8).tobytes()),
        "point_colors": palette,
        "n_points": len(labels),
        "points_trace": 0,
        "states": run.frames.tolist(),
        "titles": [stage_text(s) for s in shown],
        "steps": [s.step for s in shown],
        "numbers": film_numbers(run, labels, y_true, baseline),
        "progress": [
            {"x": "xaxis2", "y": "yaxis2", "values": _finite(s.objective for s in shown)},
            {"x": "xaxis3", "y": "yaxis3", "values": _finite(s.stage_value for s in shown)},
        ],
        "frame_ms": FRAME_MS,
        "hold_ms": HOLD_MS,
        "speeds": list(FILM_SPEEDS),
        "speed": float(speed),
        "loop": bool(loop),
    }


def film(run, X2: np.ndarray, labels: np.ndarray, y_true: np.ndarray, frame: int,
         jump: int = 0, baseline=None, identity: str = "", speed: float = 1.0,
         loop: bool = False, key: str | None = None, on_change=None):
    """Draw the player for ``run``; it shows frame ``frame`` when the film is new or ``jump``
    has changed since its last call (the page asks it to jump). Returns the player's last
    report (None before any): see the module's docstring."""
    kept = (identity, baseline is not None)
    args = _KEPT_FILMS.get(kept) if identity else None
    if args is None:
        args = film_args(run, X2, labels, y_true, baseline, identity)
        if identity:
            _KEPT_FILMS[kept] = args
            while len(_KEPT_FILMS) > KEPT_FILMS:
                _KEPT_FILMS.popitem(last=False)
    else:
        _KEPT_FILMS.move_to_end(kept)
    return _film_player(**{**args, "speed": float(speed), "loop": bool(loop)}, frame=int(frame),
                        jump=jump, key=key, on_change=on_change, default=None)


#: How many films' arguments are kept, by film id and whether the supervised SVM's line is
#: drawn (the id names the run, hence its data, labels and baseline): a rerun of the page
#: (Pause, Step, the scrubber, Play's speed) sends its film again without building it anew,
#: which took 0.08-0.12 s at n = 2000.
KEPT_FILMS = 16
_KEPT_FILMS: OrderedDict = OrderedDict()
