"""The app's colours: the Okabe–Ito palette (colour-blind safe) for classes, marker shapes
that tell labeled points apart in grey scale too, the decision function's colour scale and
its quantised levels, and the colours a dark page swaps in."""

from __future__ import annotations

import numpy as np

from toy_data import UNLABELED

CLASS_COLORS = ("#D55E00", "#0072B2")        # vermillion = class 0 (f < 0), blue = class 1
CLASS_SYMBOLS = ("diamond", "square")
UNLABELED_COLOR = "#999999"
DECISION_SCALE = [[0.0, "#D55E00"], [0.5, "#FFFFFF"], [1.0, "#0072B2"]]
DECISION_RANGE = 2.0  # the colour scale saturates at |f| = 2, beyond the margins f = +-1
#: Point colours as numbers on one scale: 0 = class 0, 0.5 = unlabeled grey, 1 = class 1.
#: Numbers keep a film's frames cheap (plotly validates every colour string it is given).
POINT_SCALE = [[0.0, CLASS_COLORS[0]], [0.5, UNLABELED_COLOR], [1.0, CLASS_COLORS[1]]]
#: Classes 2, 3, ... of a data set with more than two (one-vs-rest): the rest of the
#: Okabe–Ito palette, and a marker shape each (labeled points differ by shape, not only colour).
MORE_CLASS_COLORS = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
MORE_CLASS_SYMBOLS = ("triangle-up", "cross", "star", "hexagon", "triangle-down", "pentagon")


def class_colors(n_classes: int) -> tuple[str, ...]:
    """The colour of each of ``n_classes`` classes."""
    return (CLASS_COLORS + MORE_CLASS_COLORS)[:n_classes]


def class_symbols(n_classes: int) -> tuple[str, ...]:
    """The marker of each of ``n_classes`` classes' labeled points."""
    return (CLASS_SYMBOLS + MORE_CLASS_SYMBOLS)[:n_classes]


def point_scale(n_classes: int = 2) -> list:
    """The colour scale of ``point_style``'s values: ``POINT_SCALE`` for two classes; for k
    classes a stepped scale, value c = class c and value k = unlabeled grey."""
    if n_classes <= 2:
        return POINT_SCALE
    colors = [*class_colors(n_classes), UNLABELED_COLOR]
    edges = np.linspace(0.0, 1.0, len(colors) + 1)
    return [[float(edge), color] for i, color in enumerate(colors)
            for edge in (edges[i], edges[i + 1])]


#: The solvers' colours and markers: one per solver of ``engine.registry.SOLVERS``, in its
#: order, so that a solver wears the same colour and marker in every chart of a page whichever
#: solvers ran: SVMBaseline, ∇TSVM, LDS, graph-kernel SVM, label-switching TSVM, cS3VM,
#: QN-S3VM, DA, LapSVM, branch and bound, LapRLSC, S4VM. Chosen so that any two differ by at
#: least 20 in CIEDE2000 and by 10 as seen with deuteranopia or protanopia (Machado et al.
#: 2009), and stand at 3:1 or more against the page (white here; ``SOLVER_PALETTE_DARK`` on a
#: dark page): tests/s3vm_explorer/engine/test_solver_colours.py. The supervised baseline is
#: black (light grey on a dark page). No solver is grey: the grey open circle is each
#: solver's own SVM (``BASELINE_COLOR``).
SOLVER_PALETTE = ("#000000", "#0088FF", "#11AA66", "#995500", "#662255", "#880000", "#5533FF",
                  "#EE0088", "#008888", "#115533", "#FF5544", "#AA88BB")
#: ``SOLVER_PALETTE`` on a dark page (``theme.for_dark_page`` swaps each colour for the one
#: here), each of about its light colour's hue, with the same distances.
SOLVER_PALETTE_DARK = ("#E8E8E8", "#5588FF", "#77FFAA", "#EEEE00", "#CC0077", "#BB2200",
                       "#7722FF", "#FF7777", "#0099AA", "#227744", "#AA8800", "#FFAAFF")
#: Each solver's marker, in ``SOLVER_PALETTE``'s order: shapes tell the solvers apart without
#: colour (a grey-scale print, a colour-blind eye). Each has an open variant ("square-open"),
#: which the charts use for a draw that failed or missed the global minimum's basin.
SOLVER_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "star", "x",
                  "hexagon", "pentagon", "cross", "hourglass", "star-diamond")


#: Weight of a class's colour over white in its region of a one-vs-rest figure.
REGION_WEIGHT = 0.35


def region_colors(n_classes: int) -> np.ndarray:
    """RGB (uint8, one row per class) of each class's region: its colour, light over white."""
    rgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in class_colors(n_classes)])
    return np.round(255 + REGION_WEIGHT * (rgb - 255)).astype(np.uint8)


def point_style(labels: np.ndarray, predicted: np.ndarray | None = None, n_classes: int = 2):
    """Marker colour value (on ``point_scale(n_classes)``), symbol, size and outline per point.

    Labeled points are large filled diamonds (class 0) and squares (class 1) with a black
    outline (``class_symbols`` for more classes); unlabeled points are small circles, grey or
    coloured by ``predicted`` (0/1, or the class index for more than two classes).
    """
    labels = np.asarray(labels)
    labeled = labels != UNLABELED
    grey = 0.5 if n_classes <= 2 else float(n_classes)
    colors = (np.full(labels.shape, grey) if predicted is None
              else np.asarray(predicted, dtype=float))
    colors = np.where(labeled, labels, colors)
    symbols = np.where(labeled, np.asarray(class_symbols(max(n_classes, 2)),
                                           dtype=object)[labels.clip(0)], "circle")
    sizes = np.where(labeled, 14, 7)
    widths = np.where(labeled, 1.5, 0.0)
    return colors, symbols.tolist(), sizes, widths


#: DECISION_SCALE as the fills of boundaries show it: at 0.5625 opacity over white.
DECISION_FILL = [[0.0, "rgb(231,164,112)"], [0.5, "#FFFFFF"], [1.0, "rgb(112,176,212)"]]
#: The fill's z is sent quantised to int8: f * FILL_STEPS, clipped at the scale's ends
#: (+-FILL_LIMIT).
FILL_STEPS = 60
FILL_LIMIT = int(DECISION_RANGE * FILL_STEPS)


def fill_values(decisions: np.ndarray) -> np.ndarray:
    """f on the grid as small integers for the heatmap fill (|f| >= DECISION_RANGE saturates)."""
    return np.clip(np.round(decisions * FILL_STEPS), -FILL_LIMIT, FILL_LIMIT).astype(np.int8)


#: The level lines drawn over a decision function: the boundary f = 0 and the margins f = +-1.
LEVEL_LINES = (-1, 0, 1)
LEVEL_LINE_COLOR = "rgba(0,0,0,0.75)"
# The film's other colours (``engine.figures.film.player_figure``), named for DARK_COLORS.
BASELINE_COLOR = "#666666"      # the supervised SVM's dashed boundary
OBJECTIVE_COLOR = "#555555"     # the objective chart's line
NOTE_COLOR = "#777777"          # "no outer parameter"
ZERO_LABEL_COLOR = "#00694c"    # "α = 0" over a zero band
BEST_COLOR = "#CC79A7"          # the best state's marks (Okabe–Ito reddish purple)
BEST_LABEL_COLOR = "#A0527F"    # "best state" on the stage chart, darker to read as text
OUTLINE_COLOR = "black"         # the labeled points' outline
#: The film on a dark page (Streamlit's dark theme): each colour of the figure that would
#: vanish there, and the one the player draws instead.
DARK_COLORS = {LEVEL_LINE_COLOR: "rgba(255,255,255,0.8)", BASELINE_COLOR: "#B8B8B8",
               OBJECTIVE_COLOR: "#D0D0D0", NOTE_COLOR: "#A8A8A8",
               ZERO_LABEL_COLOR: "#62D6AB", BEST_LABEL_COLOR: "#F2A7D0", OUTLINE_COLOR: "white",
               # the points: the classes' lighter Okabe–Ito colours (orange, sky blue) stand
               # out from the dark fill, where vermillion and blue sink into it
               CLASS_COLORS[0]: "#E69F00", CLASS_COLORS[1]: "#56B4E9"}


#: On a dark page the decision function runs from the page's background (f = 0) to the
#: class colours at this opacity over it (f = ±DECISION_RANGE), as DECISION_FILL runs from
#: white; a lighter fill would hide the class-coloured points.
DARK_FILL_OPACITY = 0.4
P_SCALE = [[0.0, CLASS_COLORS[0]], [0.5, "#F0E442"], [1.0, CLASS_COLORS[1]]]
