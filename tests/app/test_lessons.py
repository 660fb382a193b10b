"""Issue 17: every teaching page opens, on the app's default data and labels, on a setting
where its lesson is visible — in the page's own numbers."""

import re

import pytest
from page_helpers import plotly_specs, shown

from s3vm_explorer.engine import presets
from s3vm_explorer.ui import runs, state

CONTINUATION = "pages/continuation.py"
ANNEALING = "pages/annealing.py"
EARLY_STOPPING = "pages/early_stopping.py"


@pytest.fixture(autouse=True)
def _room_to_compute(monkeypatch):
    # The lessons are timed in benchmarks/teaching_pages.py; here they must finish even on a
    # machine busy with other tests.
    monkeypatch.setattr(runs, "LESSON_BUDGET", 900.0)


def open_with_defaults(app, page):
    """The page as a first visitor sees it: two moons, n = 200, one label per class."""
    at = app.run()
    at.default_timeout = 600  # ten label draws of DA take a while on a busy machine
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def verdict(at, name: str) -> tuple[float, int, int]:
    """``(mean error %, successes, draws)`` of run ``name`` in the page's summary line."""
    text = shown(at.info[0].value)
    mean = re.search(rf"\*\*{re.escape(name)}\*\*: [^·]*?([\d.]+) % mean", text)
    successes = re.search(rf"\*\*{re.escape(name)}\*\*: [^·]*?(\d+)/(\d+)", text)
    return float(mean.group(1)), int(successes.group(1)), int(successes.group(2))


def test_continuation_page_opens_where_cs3vm_beats_gradient_tsvm(app):
    at = open_with_defaults(app, CONTINUATION)
    # the preset as in the paper is in use, and says where it comes from
    assert at.radio(key=state.preset_widget_key(state.CONT_PRESET, "two_moons")).value == (
        presets.PAPER)
    assert "σ = 0.25: the preset as in the paper" in shown(at.main.caption[0].value)
    cs3vm, tsvm = verdict(at, "cS3VM"), verdict(at, "∇TSVM")
    # Measured: cS3VM 0.5 % (10/10), ∇TSVM 13.1 % (4/10) with C = C* = 100 and sigma = 0.25.
    assert cs3vm[2] == tsvm[2] == 10
    assert cs3vm[0] < tsvm[0]
    assert cs3vm[1] > tsvm[1]
    draws = plotly_specs(at)[-1]["data"]
    dots = [t for t in draws if t.get("mode") == "markers" and t.get("showlegend") is False]
    assert [len(d["x"]) for d in dots] == [10] * 4  # each solver's draws and its SVM's
    # Measured: beside the SVM of their σ and C (the nearest-label rule with one label a
    # class), cS3VM is below it in 10 of 10 draws (p = 0.002), ∇TSVM in 7 (p = 0.064).
    text = shown(at.info[0].value)
    assert re.search(r"\*\*cS3VM\*\*: [^·]*p = [\d.]+: better", text)
    assert re.search(r"\*\*∇TSVM\*\*: [^·]*: (no significant difference|better)", text)


def test_annealing_page_opens_on_table_2_where_da_succeeds_and_gradient_tsvm_fails(app):
    at = open_with_defaults(app, ANNEALING)
    da, tsvm = verdict(at, "DA"), verdict(at, "∇TSVM")
    # The DA paper's Table 2 story: DA (hinge) 10/10; ∇TSVM with the same kernel and weights
    # fails on some draws (measured 7/10).
    assert da[1] == da[2] == 10
    assert tsvm[1] < da[1]
    assert da[0] < tsvm[0]


def test_early_stopping_page_opens_where_pcg_stops_early_at_the_newton_error(app):
    at = open_with_defaults(app, EARLY_STOPPING)
    text = shown(at.info[0].value)
    stop, stop_error, newton_error, pcg_end = (float(v) for v in re.search(
        r"after \*\*(\d+)\*\* iterations with \*\*([\d.]+) %\*\*.*errs on \*\*([\d.]+) %\*\*"
        r".*after (\d+) iterations", text).groups())
    assert stop_error == newton_error  # measured: 0.0 % at iteration 21, and Newton 0.0 %
    assert stop <= pcg_end / 10  # PCG left alone runs to its limit of 1000 iterations
    table = at.dataframe[0].value
    stability = table[table["stopping rule"].str.startswith("stability")]
    assert int(stability["stops at iteration"].iloc[0]) == stop
