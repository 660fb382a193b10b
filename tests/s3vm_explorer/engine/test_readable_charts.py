"""Every chart readable from the back row of a lecture hall (issue 42, item 2): its text at
least 13 px, its titles and legend at least 14 px, whatever a theme's template would set
(``theme.readable``, which ``ui.charts.chart`` draws every chart with)."""

import functools
import importlib
import inspect
import pkgutil
import types

import numpy as np
import pytest
from run_helpers import make_run

from s3vm_core import SVMBaseline
from s3vm_explorer.engine import figures
from s3vm_explorer.engine.figures.compare import (
    compare_errors_figure,
    compare_objective_figure,
    compare_time_figure,
    minima_figure,
)
from s3vm_explorer.engine.figures.data import (
    boundary_multiples_figure,
    labeling_figure,
    soft_labels_figure,
)
from s3vm_explorer.engine.figures.film import player_figure, running_figure
from s3vm_explorer.engine.figures.hurt import hurt_figure
from s3vm_explorer.engine.figures.teaching import (
    annealing_curves_figure,
    effective_loss_figure,
    landscape_figure,
    objective_path_figure,
    stopping_figure,
)
from s3vm_explorer.engine.figures.theme import HEADING_SIZE, TEXT_SIZE, readable
from toy_data import pick_labeled, two_moons

X, Y = two_moons(40, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 2, random_state=0)


def _rows():
    return [{"solver": solver, "draw": draw, "success": draw == 0, "unlabeled_error": 0.1 * draw,
             "baseline_error": 0.2, "objective": 1.0 + draw, "seconds": 0.1, "error": ""}
            for draw in range(3) for solver in ("SVMBaseline", "TSVM", "QNS3VM", "LapSVM")]


def _minima_rows():
    return [{"solver": solver, "draw": draw, "gap": 0.01 * draw, "error": 0.1 * draw,
             "global_error": 0.05, "found_basin": draw == 0}
            for draw in range(3) for solver in ("TSVM", "QNS3VM", "LapSVM")]


@functools.cache
def _figures() -> dict:
    """One figure of each builder of ``engine.figures`` the pages draw with ``ui.charts``."""
    rows = _rows()
    grid_x, grid_y = np.linspace(-1, 2, 5), np.linspace(-1, 1, 4)
    decision = np.zeros((4, 5))
    ts = np.linspace(-1, 1, 9)
    iterations = np.arange(10)
    summary = [{"solver": solver, "verdict": verdict,
                "paired": types.SimpleNamespace(p_value=0.01)}
               for solver, verdict in (("TSVM", "better"), ("QNS3VM", "worse"))]
    panel = {"title": "Two long clusters", "tag": "assumption holds", "X": X, "y": Y,
             "summary": summary, "differences": {"TSVM": (-0.1, -0.2, 0.0),
                                                 "QNS3VM": (0.1, 0.0, 0.2)}}
    run = make_run(X, LABELS, SVMBaseline())
    grid = (run.grid_x, run.grid_y)
    return {
        "labeling_figure": labeling_figure(X, LABELS, "labels"),
        "boundary_multiples_figure": boundary_multiples_figure(
            [("γ = 1", decision, np.ones(40)), ("γ = 2", decision, -np.ones(40))], X, LABELS,
            (grid_x, grid_y)),
        "soft_labels_figure": soft_labels_figure(X, LABELS, np.full(40, 0.5), "p at T = 1"),
        "compare_errors_figure": compare_errors_figure(rows),
        "compare_objective_figure": compare_objective_figure(rows),
        "compare_time_figure": compare_time_figure(
            [{"solver": "TSVM", "median_seconds": 0.5},
             {"solver": "QNS3VM", "median_seconds": 0.01}]),
        "minima_figure": minima_figure(_minima_rows()),
        "hurt_figure": hurt_figure([panel, panel], {"TSVM": "∇TSVM"}),
        "landscape_figure": landscape_figure(ts, [(0.0, ts**2), (1.0, ts**2 + 1),
                                                  (0.1, ts**4)], 1.0, 0.1),
        "objective_path_figure": objective_path_figure([0, 1, 2], [3, 2, 1], [4, 3, 2],
                                                       [(1, 2)]),
        "effective_loss_figure": effective_loss_figure([1.0, 0.1], current_T=0.1),
        "annealing_curves_figure": annealing_curves_figure([10, 1, 0.1], [0.6, 0.3, 0.1],
                                                           [3, 2, 1], 1.0),
        "stopping_figure": stopping_figure(iterations, {"grad_norm": np.exp(-iterations)},
                                           {"stability": np.linspace(1, 0, 10)},
                                           {"grad_norm": 4}, unlabeled_error=np.full(10, 0.1)),
        "running_figure": running_figure(run.states[-1], 3, grid, run.grid_decisions[-1], X,
                                         LABELS),
    }


#: The film's still figure: drawn by the film's player, not by ``ui.charts`` (its own test).
PLAYED = {"player_figure"}


def _builders() -> set:
    """Every ``*_figure`` function of the modules of ``engine.figures``."""
    found = set()
    for module in pkgutil.iter_modules(figures.__path__):
        loaded = importlib.import_module(f"{figures.__name__}.{module.name}")
        found |= {name for name, value in vars(loaded).items() if name.endswith("_figure")
                  and inspect.isfunction(value) and value.__module__ == loaded.__name__}
    return found


def test_every_figure_of_the_app_is_checked():
    assert _builders() - PLAYED == set(_figures())


def _size(font) -> float:
    """A font's size as set in the figure; 0 when unset (a theme's template would choose)."""
    return (font or {}).get("size") or 0


def text_sizes(spec: dict) -> tuple[dict, dict]:
    """The sizes set for a figure's text and for its titles and legend: ``{what: size}``."""
    layout = spec["layout"]
    text, headings = {"font": _size(layout.get("font"))}, {}
    headings["legend"] = _size(layout.get("legend", {}).get("font"))
    if (layout.get("title") or {}).get("text"):
        headings["title"] = _size(layout["title"].get("font"))
    for key, axis in layout.items():
        if key[:5] in ("xaxis", "yaxis"):
            text[f"{key} ticks"] = _size(axis.get("tickfont"))
            if (axis.get("title") or {}).get("text"):
                headings[f"{key} title"] = _size(axis["title"].get("font"))
    for note in layout.get("annotations", []):
        text[f"note {note['text']!r}"] = _size(note.get("font"))
    for k, trace in enumerate(spec["data"]):
        colorbar = (trace.get("marker") or {}).get("colorbar")
        if colorbar is not None:
            text[f"trace {k} colour bar"] = _size(colorbar.get("tickfont"))
    return text, headings


@pytest.mark.parametrize("name", sorted(_builders() - PLAYED))
def test_every_chart_s_text_is_drawn_at_13_px_and_its_titles_and_legend_at_14(name):
    spec = readable(_figures()[name]).to_plotly_json()
    text, headings = text_sizes(spec)
    small = {what: size for what, size in text.items() if size < TEXT_SIZE}
    small |= {what: size for what, size in headings.items() if size < HEADING_SIZE}
    assert not small, small
    assert TEXT_SIZE >= 13 and HEADING_SIZE >= 14


def test_readable_keeps_larger_text_and_the_data_and_leaves_the_figure_as_it_was():
    figure = compare_errors_figure(_rows())
    figure.update_annotations(font={"size": 20})
    figure.add_annotation(text="large", font={"size": 20})
    before = figure.to_plotly_json()
    shown = readable(figure).to_plotly_json()
    assert figure.to_plotly_json() == before  # a page's cached figure is not changed
    assert shown["layout"]["annotations"][-1]["font"]["size"] == 20
    assert shown["layout"]["legend"]["font"]["size"] == HEADING_SIZE
    assert [t["x"] for t in shown["data"]] == [t["x"] for t in before["data"]]


def test_the_film_s_figure_sets_its_text_at_14_px_for_the_player():
    run = make_run(X, LABELS, SVMBaseline())
    spec = player_figure(run, X, LABELS, run.grid_decisions[-1]).to_plotly_json()
    # the player draws it with plotly's own template ("none"): unset sizes are the font's
    assert "font" not in spec["layout"]["template"].get("layout", {})
    assert spec["layout"]["font"]["size"] >= HEADING_SIZE
    text, headings = text_sizes(spec)
    set_smaller = {what: size for what, size in {**text, **headings}.items()
                   if 0 < size < HEADING_SIZE}
    assert not set_smaller, set_smaller
