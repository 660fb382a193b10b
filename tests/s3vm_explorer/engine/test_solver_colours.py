"""Colour is never the only cue (issue 42, item 3): the solvers' colours stay apart for every
eye on both pages, light and dark, and each solver has a marker of its own.

Colour difference is CIEDE2000 (``colour_helpers.delta_e_2000``) between CIE L*a*b* (D65)
colours; deuteranopia and protanopia are simulated at severity 1.0 with Machado, Oliveira &
Fernandes (2009)."""

import plotly.graph_objects as go
import pytest
from colour_helpers import contrast, lab, nearest_pair, simulated

from s3vm_explorer.engine.figures.compare import compare_errors_figure, minima_figure
from s3vm_explorer.engine.figures.palette import (
    BASELINE_COLOR,
    DARK_COLORS,
    SOLVER_PALETTE,
    SOLVER_PALETTE_DARK,
    SOLVER_SYMBOLS,
)
from s3vm_explorer.engine.figures.theme import for_dark_page
from s3vm_explorer.engine.registry import SOLVERS

#: Least CIEDE2000 difference between two solvers' colours as a trichromat sees them...
APART = 20.0
#: ... and as a dichromat does (deuteranopia, protanopia): still told apart at a glance.
APART_SIMULATED = 10.0
#: Least contrast of a solver's colour against its page (WCAG 1.4.11, graphical objects).
CONTRAST = 3.0
#: The pages' backgrounds: white, and Streamlit's dark theme's.
BACKGROUND = {"light": "#FFFFFF", "dark": "#0E1117"}
#: What each theme draws: the light palette, and what ``for_dark_page`` makes of it.
PALETTES = {"light": SOLVER_PALETTE, "dark": SOLVER_PALETTE_DARK}
SEEN = {"normal vision": lab,
        "deuteranopia": lambda color: lab(simulated(color, "deuteranopia")),
        "protanopia": lambda color: lab(simulated(color, "protanopia"))}


def test_every_solver_has_a_colour_and_a_marker_of_its_own():
    assert len(SOLVER_PALETTE) == len(SOLVER_PALETTE_DARK) == len(SOLVER_SYMBOLS) == len(SOLVERS)
    assert len(set(SOLVER_SYMBOLS)) == len(SOLVERS)
    for palette in PALETTES.values():
        assert len(set(palette)) == len(SOLVERS)


@pytest.mark.parametrize("theme", list(PALETTES))
@pytest.mark.parametrize("eye", list(SEEN))
def test_any_two_solver_colours_stay_apart(theme, eye):
    least = APART if eye == "normal vision" else APART_SIMULATED
    difference, first, second = nearest_pair(list(PALETTES[theme]), SEEN[eye])
    assert difference >= least, (theme, eye, first, second, round(difference, 1))


@pytest.mark.parametrize("theme", list(PALETTES))
def test_every_solver_colour_stands_out_on_its_page_and_from_the_grey_of_its_own_svm(theme):
    background = BACKGROUND[theme]
    low = {c: round(contrast(c, background), 2) for c in PALETTES[theme]
           if contrast(c, background) < CONTRAST}
    assert not low, low
    # the grey open circle of each solver's own SVM (the baseline itself has none)
    grey = BASELINE_COLOR if theme == "light" else DARK_COLORS[BASELINE_COLOR]
    for eye, seen in SEEN.items():
        least = APART if eye == "normal vision" else APART_SIMULATED
        difference, *pair = nearest_pair([grey, *PALETTES[theme][1:]], seen)
        assert difference >= least or grey not in pair, (theme, eye, pair, difference)


def test_a_dark_page_draws_the_dark_palette():
    """``for_dark_page`` swaps each solver's colour for its own dark one: a solver colour that
    is also another swapped colour (a class's vermillion) would become that one's swap (two
    solvers came out the same orange)."""
    figure = go.Figure([go.Scatter(x=[0], y=[1], marker={"color": c}) for c in SOLVER_PALETTE])
    shown = tuple(trace.marker.color for trace in for_dark_page(figure).data)
    assert shown == SOLVER_PALETTE_DARK


def test_the_charts_that_tell_solvers_apart_give_each_its_colour_and_marker():
    names = list(SOLVERS)
    rows = [{"solver": name, "draw": 0, "unlabeled_error": 0.1, "baseline_error": 0.2,
             "error": ""} for name in names]
    marks = {t.name: t.marker for t in compare_errors_figure(rows).data
             if t.showlegend is False and t.mode == "markers" and t.name in names}
    assert {name: (m.color, m.symbol) for name, m in marks.items()} == dict(
        zip(names, zip(SOLVER_PALETTE, SOLVER_SYMBOLS, strict=True), strict=True))
    minima = [{"solver": name, "draw": draw, "gap": 0.01, "error": 0.2, "global_error": 0.1,
               "found_basin": draw == 0} for name in names[1:] for draw in range(2)]
    for trace in minima_figure(minima).data:
        k = names.index(trace.name)
        assert trace.marker.color == SOLVER_PALETTE[k]
        assert list(trace.marker.symbol) == [SOLVER_SYMBOLS[k], f"{SOLVER_SYMBOLS[k]}-open"]


def test_the_stopping_criteria_differ_by_line_pattern_within_each_panel():
    """LapSVM early stopping's criteria are told apart by colour and by their lines' pattern."""
    import numpy as np

    from s3vm_explorer.engine.figures.teaching import CLASSICAL, stopping_figure

    iterations = np.arange(5)
    classical = {name: np.linspace(1, 0.1, 5) for name in CLASSICAL}
    checks = {name: np.linspace(1, 0, 5) for name in ("stability", "validation", "mixed")}
    figure = stopping_figure(iterations, classical, checks, {}, unlabeled_error=np.zeros(5))
    for panel in ("x", "x2"):
        dashes = [t.line.dash for t in figure.data if t.xaxis == panel]
        assert len(dashes) == len(set(dashes)), (panel, dashes)
