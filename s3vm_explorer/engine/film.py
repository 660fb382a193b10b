"""The film of a solver run as the Watch page's player plays it (``ui.player``): its arguments,
and the player with its film as one page that plays offline (``film_page``).

Streamlit-free and shared: a run's process builds the app's film at the end of its run
(``engine.run.process.trace_work``), so that only bytes reach the server; the notebook's film
(``engine.notebook``) and the command line's ``fit --film`` build the same.

The numbers under the film (step, objective, gradient norm, unlabeled error and its difference
to the supervised SVM) travel with the film, a few strings per frame, and the player shows
those of the frame on screen: they move with the film while it plays, without a round trip to
the server per frame (a page rerun takes a few hundred milliseconds; a frame lasts 120 or
more).

Play's pace (``frame_durations``) follows the solver's outer steps: at 1x the inner iterations
pass quickly and the frame that ends each outer step (a γ, a T, a C*, an α) stays while a
lecturer says what it shows.

The frames travel as bytes, compressed (zlib; the browser inflates them with its own
DecompressionStream): the decision on the display grid quantised like the heatmaps
(``engine.figures.palette``: f * FILL_STEPS in int8, saturated at |f| = DECISION_RANGE) and a
colour value per point. A smooth decision function compresses about ninefold: 56 frames of a 60
x 60 grid are 191 KB raw and 21 KB compressed, which keeps the film's payload well under a
quarter of a megabyte with its numbers and the supervised SVM's boundary.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import zlib
from pathlib import Path

import numpy as np
import plotly
from plotly.colors import sample_colorscale, unlabel_rgb

from s3vm_core.metrics import unlabeled_error
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.figures.film import player_figure
from s3vm_explorer.engine.figures.palette import (
    CLASS_COLORS,
    DARK_COLORS,
    DARK_FILL_OPACITY,
    DECISION_FILL,
    DECISION_SCALE,
    FILL_LIMIT,
    FILL_STEPS,
    LEVEL_LINE_COLOR,
    LEVEL_LINES,
    class_colors,
    fill_values,
    point_style,
    region_colors,
)
from s3vm_explorer.engine.metrics import UNKNOWN, n_classes_of
from s3vm_explorer.engine.params import FILM_SPEEDS
from s3vm_explorer.engine.protocol import Run, RunRequest
from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.engine.stages import STAGE_NAMES, event_text, returned_state, stage_text
from toy_data import DATASETS, UNLABELED

#: The player's own files (the page, the GIF writer, the player), played by the Watch page's
#: component (``ui.player``) and saved as one page that plays offline (``film_page``).
PLAYER_FOLDER = Path(__file__).with_name("film_player")
PLAYER_FILES = ("index.html", "gif.js", "player.js")
#: The installed plotly package's own plotly.js, so the player and the package agree.
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: Play's pace at 1x (``frame_durations``), in milliseconds. An inner iteration's frame: the
#: boundary moves at about eight frames a second, a motion the eye follows.
FRAME_MS = 120
#: The frame that ends an outer step (and the start): about a sentence of a lecture, said over
#: the boundary of that γ, T, C* or α.
STEP_MS = 2500
#: A film of many outer steps (S4VM's candidates, DA's temperatures) lasts at most this long
#: at 1x: each step's frame then stays shorter, but at least ``SHORTEST_STEP_MS``.
LONGEST_FILM_MS = 45_000
SHORTEST_STEP_MS = 500
#: A film of one stage (Newton's or PCG's steps, branch and bound's bounds, a fit) is its
#: steps: they share this much time, each at least ``FRAME_MS`` and at most ``STEP_MS``.
ONE_STAGE_FILM_MS = 12_000
#: Time a looping film holds its last frame before it starts over: the result is what a
#: lecturer talks over.
HOLD_MS = 3000
#: Why the film shows no error: the sentence of its tooltip.
UNKNOWN_ERROR = ("Unknown: no unlabeled point has a known true class (an uploaded file's "
                 "unlabeled rows have none unless its truth column gives them), so the error "
                 "cannot be computed.")


def film_context(request: RunRequest, labels: np.ndarray) -> dict:
    """What a film is of, for what it saves (a PNG, a GIF, a page that plays offline): the
    solver and its paper, the data set with its size and labels, and a file name that says
    the same."""
    solver = SOLVERS[request.solver]
    source = request.source
    data = (DATASETS[source.dataset].title if isinstance(source, Generated)
            else f"your file {source.name}")
    n_labeled = int(np.sum(labels != UNLABELED))
    described = f"{data}, n = {len(labels)}, {n_labeled} labeled"
    name = "-".join(_slug(part) for part in (solver.title.partition(" (")[0], data,
                                               f"n{len(labels)}", f"{n_labeled} labeled"))
    return {"solver": solver.title, "paper": solver.paper, "data": described, "name": name}


def _slug(text: str) -> str:
    """Text as a piece of a file name: lower-case words joined by hyphens."""
    words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
    return "-".join(words)


def film_id(run_key: tuple) -> str:
    """The film's identity: a short digest of its run's cache key (data, labels, solver,
    parameters). A new one is a new run, which opens on its final state."""
    return hashlib.sha256(repr(run_key).encode()).hexdigest()[:16]


def _levels(colorscale) -> np.ndarray:
    """RGB (uint8, one row per level) of every quantised decision value -FILL_LIMIT …
    +FILL_LIMIT (see ``engine.figures.palette.fill_values``) on ``colorscale``."""
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
    supervised SVM's (``baseline``) as a note that says whether it is better."""
    shown = [run.states[i] for i in run.frames]
    step = {"label": "step", "values": [event_text(s) for s in shown]}
    returned = returned_state(run.states)
    if returned is not None:  # DA's last frame: the best state, not where the path ended
        reached = run.states[returned]
        step["notes"] = [""] * (len(shown) - 1) + [
            f"the best state of the path, from step {reached.step}"]
        step["better"] = [None] * len(shown)
        step["help"] = ("The solver returns the state of lowest objective along its path "
                        "(DA: Sindhwani et al. 2006, §3), not the path's last.")
    numbers = [
        step,
        {"label": "objective", "values": [_number(s.objective, ".4g") for s in shown]},
        _gradient_numbers(shown),
    ]
    if y_true is None:
        return numbers
    errors = np.array([unlabeled_error(s.train_decision, labels, y_true) for s in shown])
    if np.isnan(errors).all():
        return [*numbers, {"label": "unlabeled error", "values": [UNKNOWN] * len(shown),
                           "help": UNKNOWN_ERROR}]
    error = {"label": "unlabeled error", "values": [f"{100 * e:.1f} %" for e in errors],
             "help": "Against the true classes of the unlabeled points (the generator's, or an "
                     "uploaded file's truth column): did the unlabeled data help?"}
    if baseline is not None and np.any(labels == UNLABELED):
        if baseline.description:
            error["help"] += f" The reference is the {baseline.description}."
        reference = unlabeled_error(baseline.decision, labels, y_true)
        change = np.round(100 * (errors - reference), 1)
        error["notes"] = [f"{c:+.1f} percentage points vs supervised SVM" if c else
                          "as the supervised SVM" for c in change]
        error["better"] = [None if c == 0 else bool(c < 0) for c in change]
    return [*numbers, error]


#: What the gradient's number is, in its tooltip.
GRADIENT_HELP = (
    "The norm of the gradient of the objective the solver minimizes at this step (for cS3VM "
    "the smoothed L_γ of the current γ, for QN-S3VM F of the current α, for ∇TSVM the "
    "objective (4) of the current C*): near 0 where a stage has converged. A dash where the "
    "solver has no gradient to show: a direct solve, LIBSVM, or DA with the hinge loss, "
    "which has no derivative at the margin, where the SVM of its f-step puts its support "
    "vectors (any subgradient there is as good as another, and round-off picks one).")
#: What the gradient's number is on cS3VM's answer, whose objective is (2) itself.
UNSMOOTHED_GRADIENT_NOTE = "of objective (2), not L_γ"
UNSMOOTHED_GRADIENT_HELP = (
    " On cS3VM's answer the objective is (2) itself, the S3VM objective without smoothing, "
    "and so is the gradient: the answer minimizes the last smoothed L_γ (γ_end), a "
    "different function, so the gradient of (2) there is not 0. (2) is not smooth either "
    "(the labeled points' hinge has a kink at the margin); the number says how far the "
    "answer is from a stationary point of (2), not that the path failed to converge, whose "
    "measure is the gradient of L_γ on the frame before.")


def _gradient_numbers(shown) -> dict:
    """The gradient's norm of each frame, with what it is of: on cS3VM's answer (the final
    state, which reports the objective (2) itself, ``ContinuationS3VM``) a note under the
    number says so, and the tooltip says why it is not 0."""
    number = {"label": "‖gradient‖", "values": [_number(s.grad_norm, ".3g") for s in shown],
              "help": GRADIENT_HELP}
    last = shown[-1]
    first = last.states[0] if hasattr(last, "states") else last  # (a one-vs-rest state)
    if (last.event == "final" and first.stage == "gamma"
            and math.isfinite(last.grad_norm)):
        number["notes"] = [""] * (len(shown) - 1) + [UNSMOOTHED_GRADIENT_NOTE]
        number["better"] = [None] * len(shown)
        number["help"] += UNSMOOTHED_GRADIENT_HELP
    return number


def frame_durations(run) -> list[int]:
    """How long each frame of the film stays on screen while Play runs at 1x (ms).

    A film of several outer stages (γ, T, C*, α, S4VM's candidates) is paced by them: the
    start and the frame that ends each stage (the last of its frames) stay ``STEP_MS``, time
    to say what that stage did, and the inner iterations between pass at ``FRAME_MS``; a film
    of so many stages that it would outlast ``LONGEST_FILM_MS`` gives each stage's frame its
    share of that (at least ``SHORTEST_STEP_MS``). A film of one stage (Newton's or PCG's
    steps, branch and bound's bounds, a fit) spreads ``ONE_STAGE_FILM_MS`` over its frames,
    each between ``FRAME_MS`` and ``STEP_MS``. The setup's frames pass at ``FRAME_MS``. The
    last frame's time is that of a step (a looping film holds it ``HOLD_MS``).
    """
    shown = [run.states[i] for i in run.frames]
    solving = [k for k, s in enumerate(shown) if s.stage != "setup"]
    durations = [FRAME_MS] * len(shown)
    if not solving:
        return durations
    if len({shown[k].stage_index for k in solving}) == 1:  # one stage: its steps
        each = int(np.clip(ONE_STAGE_FILM_MS / len(solving), FRAME_MS, STEP_MS))
        for k in solving:
            durations[k] = each
        return durations
    # a stage ends where the next frame belongs to another stage (in one-vs-rest, the leading
    # problem's); the start is where the lecturer says what the film will show
    ends = [solving[0], *(k for k, after in zip(solving, solving[1:], strict=False)
                          if shown[after].stage_index != shown[k].stage_index)]
    ends = sorted(set(ends))
    inner = len(shown) - len(ends) - 1
    each = int(np.clip((LONGEST_FILM_MS - FRAME_MS * inner) / len(ends), SHORTEST_STEP_MS,
                       STEP_MS))
    for k in ends:
        durations[k] = each
    durations[-1] = max(durations[-1], each)
    return durations


def film_titles(run) -> list[str]:
    """The film's title over each frame: the stage (``engine.stages.stage_text``), and on the last
    frame of a solver that returned to an earlier state, what that state is."""
    last = len(run.states) - 1
    returned = returned_state(run.states) is not None
    return [stage_text(run.states[i], returned and i == last) for i in run.frames]


def film_sentences(titles: list[str], numbers: list[dict], points: np.ndarray,
                   labels: np.ndarray, n_classes: int = 2) -> list[str]:
    """Each frame of the film in a sentence, for a reader who does not see it (the player reads
    it out as the frame changes, and it is the film's accessible description): the frame's
    place in the film, its title (``film_titles``: the stage and its parameter, γ, T, C*, α or
    the iteration), its objective and unlabeled error as the numbers under the film show them
    (``film_numbers``; "unknown" where there is none), and how many unlabeled points changed
    side since the frame before (one-vs-rest: changed class), counted on ``points``, the class
    each point is painted in, frame by frame (``_binary_frames``, ``_one_vs_rest_frames``):
    an unlabeled point's is its predicted class.

    "Frame 3 of 56, γ = 0.5, iteration 2. Objective 41.7, unlabeled error 12.5 %. 4 unlabeled
    points changed side since the previous frame."
    """
    values = {number["label"]: number["values"] for number in numbers}
    n_frames = len(titles)

    def said(label: str, k: int) -> str:
        value = values[label][k] if label in values else UNKNOWN
        return UNKNOWN if value == "—" else value  # (a dash is for the eye)

    unlabeled = np.asarray(labels) == UNLABELED
    moved = np.diff(np.asarray(points)[:, unlabeled], axis=0) != 0
    changes = np.r_[0, np.sum(moved, axis=1)]
    what = "side" if n_classes == 2 else "class"
    sentences = []
    for k, title in enumerate(titles):
        if k == 0:
            change = "The film starts here."
        elif changes[k] == 0:
            change = f"No unlabeled point changed {what} since the previous frame."
        else:
            points_word = "point" if changes[k] == 1 else "points"
            change = (f"{changes[k]} unlabeled {points_word} changed {what} since the previous "
                      "frame.")
        sentences.append(f"Frame {k + 1} of {n_frames}, {title.replace(' · ', ', ')}. "
                         f"Objective {said('objective', k)}, unlabeled error "
                         f"{said('unlabeled error', k)}. {change}")
    return sentences


def film_label(run, n_classes: int, baseline: bool = False, context: dict | None = None) -> str:
    """The film's figure in words, its accessible name (the player's figure is an image to a
    screen reader; ``film_sentences`` describe its frames): what the film is of
    (``film_context``), how many frames, and what each part of the figure draws."""
    context = context or {}
    of = (f" of {context['solver']} on {context['data']}" if context.get("solver") else "")
    if n_classes == 2:
        drawn = ("the points over the colours of the decision function f, with the boundary "
                 "f = 0 and the margins f = ±1")
    else:
        drawn = (f"the points of {n_classes} classes over the colour of the class whose f is "
                 "largest, with each class's boundary f = 0 against the rest in its colour")
    if baseline:
        drawn += ", and the supervised SVM's boundary dashed"
    final = run.states[-1]
    stage = STAGE_NAMES.get(final.stage, final.stage)
    charts = ("the objective and the outer parameter " + stage
              if any(math.isfinite(s.stage_value) for s in run.states) else "the objective")
    return (f"The film{of}, {len(run.frames)} frames: {drawn}; and charts of {charts} over "
            "the solver's steps.")


def _aspect(run) -> float:
    """Width over height of the boundary plot's data ranges (its axes have equal scales)."""
    width, height = np.ptp(run.grid_x), np.ptp(run.grid_y)
    return float(np.clip(width / max(height, 1e-12), 0.25, 4.0))


def film_args(run: Run, X2: np.ndarray, labels: np.ndarray, y_true: np.ndarray | None = None,
              show_baseline: bool = False, identity: str = "", speed: float = 1.0,
              loop: bool = False, axis_titles: tuple[str, str] = ("", ""),
              context: dict | None = None) -> dict:
    """Everything the player needs to play ``run``, as component arguments: the still figure
    (plotly JSON) and, per frame, the grid's decision values and the point colours
    (zlib-compressed bytes), the stage text, the values the progress markers sit on, the
    numbers (``film_numbers``), its sentence (``film_sentences``) and how long it stays on screen
    at 1x (``frame_durations``); the figure's accessible name (``film_label``).
    With ``show_baseline`` the supervised SVM's f = 0 is a dashed line and its error the
    reference; ``identity`` is the film's id (``film_id``), ``speed``
    and ``loop`` Play's settings, ``axis_titles`` the view's (``engine.data.View``), ``context``
    what the film is of (``film_context``: what it saves carries it, and its file names).

    A one-vs-rest run (k > 2 classes) has the frames of k classes (``_one_vs_rest_frames``).
    """
    shown = [run.states[i] for i in run.frames]
    n_classes = n_classes_of(run.point_decisions[-1])
    frames = (_binary_frames(run, labels) if n_classes == 2
              else _one_vs_rest_frames(run, labels, n_classes))
    baseline = run.baseline if show_baseline else None
    baseline_grid = baseline.grid if baseline is not None else None
    titles = film_titles(run)
    numbers = film_numbers(run, labels, y_true, baseline)
    points = np.asarray(frames.pop("points"))
    return {
        "film": identity,
        "figure": player_figure(run, X2, labels, baseline_grid, axis_titles).to_json(),
        "aspect": _aspect(run),
        "grid": frames.pop("grid"),
        "fill": frames.pop("fill"),
        "fill_colors": _levels(DECISION_FILL).tobytes(),
        "fill_steps": FILL_STEPS,
        "lines": list(LEVEL_LINES),
        "line_color": LEVEL_LINE_COLOR,
        # on a dark page (Streamlit's dark theme) the player fades the scale's ends into the
        # page's background itself, and swaps the figure's colours
        "fill_ends": _levels(DECISION_SCALE)[[0, -1]].tolist(),
        "dark_fill_opacity": DARK_FILL_OPACITY,
        # (classes 4 and 5 of a one-vs-rest film are the lighter colours a dark page gives
        # classes 0 and 1: there the classes keep their own)
        "dark_colors": DARK_COLORS if n_classes <= 4 else {
            old: new for old, new in DARK_COLORS.items() if old not in CLASS_COLORS},
        "points": zlib.compress(points.astype(np.uint8).tobytes()),
        "point_colors": frames.pop("point_colors"),
        "n_points": len(labels),
        "points_trace": 0,
        "states": run.frames.tolist(),
        "titles": titles,
        "steps": [s.step for s in shown],
        "numbers": numbers,
        "sentences": film_sentences(titles, numbers, points, labels, n_classes),
        "label": film_label(run, n_classes, baseline is not None, context),
        "progress": [
            {"x": "xaxis2", "y": "yaxis2", "values": _finite(s.objective for s in shown)},
            {"x": "xaxis3", "y": "yaxis3", "values": _finite(s.stage_value for s in shown)},
        ],
        "frame_ms": frame_durations(run),
        "hold_ms": HOLD_MS,
        "speeds": list(FILM_SPEEDS),
        "speed": float(speed),
        "loop": bool(loop),
        "context": context or {},
        "name": (context or {}).get("name", "s3vm-film"),
        **frames,
    }


def _grid_args(run) -> dict:
    """The display grid's ends and size, as the player reads them."""
    return {"x": [float(run.grid_x[0]), float(run.grid_x[-1])],
            "y": [float(run.grid_y[0]), float(run.grid_y[-1])],
            "nx": len(run.grid_x), "ny": len(run.grid_y)}


def _binary_frames(run, labels: np.ndarray) -> dict:
    """A binary run's frames: f on the grid and each point's colour index (unlabeled points
    take the colour of their predicted class, labeled ones keep theirs)."""
    return {"grid": _grid_args(run),
            "fill": zlib.compress(fill_values(run.grid_decisions).tobytes()),
            "points": np.stack([point_style(labels, f > 0)[0] for f in run.point_decisions]),
            "point_colors": [CLASS_COLORS[0], CLASS_COLORS[1]]}


def _one_vs_rest_frames(run, labels: np.ndarray, n_classes: int) -> dict:
    """A one-vs-rest run's frames: the k problems' f on the display grid, quantised like the
    binary fill, ``(frames, k, ny, nx)`` int8 (the player paints each node in the light
    colour of the class whose f is largest, ``region_colors``, and each problem's f = 0 in
    its class's colour, ``class_lines``); each point's class, its label or the class it is
    predicted, an index into the class colours; ``classes`` = k."""
    labels = np.asarray(labels)
    palette = list(class_colors(n_classes))
    return {"classes": n_classes, "point_colors": palette, "grid": _grid_args(run),
            "fill": zlib.compress(fill_values(run.grid_decisions).tobytes()),
            "points": np.where(labels != UNLABELED, labels,
                               np.argmax(run.point_decisions, axis=-1)),
            "region_colors": region_colors(n_classes).tobytes(), "class_lines": palette}


@functools.cache
def player_sources() -> tuple[tuple[str, str], ...]:
    """The player's scripts as ``(file name, text)`` in the order the page runs them: the
    installed plotly.js, the GIF writer and the player."""
    return (("plotly.min.js", PLOTLY_JS.read_text(encoding="utf-8")),
            *((name, (PLAYER_FOLDER / name).read_text(encoding="utf-8"))
              for name in PLAYER_FILES[1:]))


@functools.cache
def player_digest() -> str:
    """A short digest of the player's scripts (``player_sources``): a film played with the
    scripts of another version of the player or of plotly.js would not be this film."""
    return hashlib.sha256(json.dumps(player_sources()).encode()).hexdigest()[:16]


def saved_film(args: dict, frame: int | None = None) -> str:
    """The film as the player's saved page reads it (``window.standaloneFilm``): its arguments
    (``film_args``; bytes in base64) opening on ``frame`` (the last by default), as JSON that
    can stand inside a ``<script>`` element (every "<" written as \\u003c, so no "</script>"
    or "<!--" can end or confuse it)."""
    saved = {"theme": None, "frame": len(args["states"]) - 1 if frame is None else int(frame),
             "args": {key: {"base64": base64.b64encode(value).decode("ascii")}
                      if isinstance(value, bytes) else value for key, value in args.items()}}
    return json.dumps(saved, allow_nan=False, separators=(",", ":")).replace("<", "\\u003c")


def script(text: str) -> str:
    """JavaScript as an inline ``<script>`` element: a "</script" in its strings, regular
    expressions or comments written "<\\/script", which reads the same in all three."""
    return "<script>" + text.replace("</script", "<\\/script") + "</script>"


def film_page(args: dict, frame: int | None = None) -> str:
    """The player and its film as one HTML page that plays offline: plotly.js, the GIF writer
    and the player inlined, the film's arguments (``saved_film``) in a script before the
    player's, opening on ``frame`` (the last by default). The page the player's "Save" row
    makes in the browser, made here for notebooks and the command line."""
    page = (PLAYER_FOLDER / "index.html").read_text(encoding="utf-8")
    for name, text in player_sources():
        inlined = script(text)
        if name == "player.js":  # the film first: the player reads it as it starts
            inlined = script(f"window.standaloneFilm = {saved_film(args, frame)};") + inlined
        page = page.replace(f'<script src="{name}"></script>', inlined)
    return page
