"""Shared links (``?scenario=``): a tampered one is said, never a traceback, on any page.

Every field of a link is held to what the widget showing it accepts (issue 15; the sentences
field by field without a page: tests/ui/test_scenario.py): what cannot be used is said on the
page it opens, and the app stays usable.
"""

import json
from urllib.parse import unquote

import pytest
from page_helpers import film, new_session, shown, type_number

from s3vm_explorer.engine import scenario
from s3vm_explorer.ui import state
from s3vm_explorer.ui.navigation import PAGES

PAGE_FILES = [f"pages/{file}.py" for file, _, _ in PAGES]


def open_link(text, page="pages/data.py"):
    """A new session opening ``page`` with the scenario ``text`` in its address (its first run,
    as a browser opening the link would: not through the first page)."""
    at = new_session()
    at.query_params["scenario"] = text
    return at.switch_page(page).run()


def notices(at) -> list[str]:
    return [shown(e.value) for e in at.error] + [shown(w.value) for w in at.warning]


# -- what a link could not set is said on the page, which goes on ----------------------------

def test_a_tampered_field_is_said_and_the_rest_is_loaded():
    # the sentences themselves, field by field: tests/ui/test_scenario.py
    at = open_link(json.dumps({"n": 60, "budget": 9999, "labels": {"²": 1, "3": 0, "7": 1}}))
    assert not at.exception
    assert any("time budget (s) = 9999 is outside the allowed range 5 to 600" in text
               for text in notices(at)), notices(at)
    assert at.session_state[state.RUN_BUDGET] == 60 and at.session_state[state.N_SAMPLES] == 60
    labels = at.session_state[state.LABELS]
    assert [i for i, c in enumerate(labels) if c != -1] == [3, 7]
    assert at.title[0].value == "Data & labels"  # the page went on


def test_a_link_that_is_no_scenario_is_said_and_the_app_opens_with_defaults():
    at = open_link("{not json")
    assert not at.exception
    assert "not valid JSON" in shown(at.error[0].value)
    assert "opens with its defaults" in shown(at.error[0].value)
    assert at.session_state[state.DATASET] == "two_moons"
    assert {m.label: m.value for m in at.metric}["class 1 labeled"] == "1"


def test_a_valid_link_loads_without_a_word_and_fills_the_widgets_in_their_types():
    scenario = {"dataset": "two_moons", "n": 60.0, "noise": 0, "seed": 3,
                "labels": {"0": 0, "5": 1}, "solver": "LapSVM",
                "params": {"gamma_I": 2, "n_neighbors": 8.0, "stopping": None}}
    at = open_link(json.dumps(scenario), "pages/watch.py")
    assert not at.exception and not notices(at)
    n_points = at.session_state[state.N_SAMPLES]
    assert n_points == 60 and type(n_points) is int
    key = state.solver_param_key
    assert type(at.session_state[key("LapSVM", "gamma_I")]) is float
    assert at.session_state[key("LapSVM", "n_neighbors")] == 8
    assert film(at)["n_points"] == 60


# -- a bad link on every page ------------------------------------------------------------------

#: A family of tampered links: each field with wrong types, out of range, huge, or the text no
#: scenario at all. The data settings of the last are valid: its pages run on 60 points.
FAMILY = {
    "no scenario": "[" * 5000,
    "wrong types": json.dumps({"dataset": "two_moons", "n": "60", "noise": [0.1],
                               "seed": {"s": 1}, "labels": [1, 2], "points": "here",
                               "solver": ["LapSVM"], "params": 3, "extra": None}),
    "out of range": json.dumps({"dataset": "two_moons", "n": 99999, "noise": 1e308,
                                "seed": -1, "labels": {"99999": 1, "0": 7},
                                "points": [[1e9, 0, 1]], "solver": "DeterministicAnnealingS3VM",
                                "params": {"lam": -5, "T0": float("inf"), "loss": "cubic"}}),
    "huge strings": json.dumps({key: "x" * 10_000 for key in
                                ("dataset", "n", "noise", "seed", "labels", "solver", "params")}),
    "bad labels and parameters": json.dumps({
        "dataset": "two_moons", "n": 60, "seed": 1,
        "labels": {"0": 0, "1": 1, "1" * 9000: 1, "2": True}, "solver": "SVMBaseline",
        "params": {"C": True, "sigma": -1, "kernel": ["rbf"], "gamma": 1}}),
}


# Every page with a link refused whole and one used in part (its own 60 points and labels).
# The other three links load exactly the state of "no scenario" (the defaults, as
# engine.scenario.parse returns them): they differ only in their notice, which the sidebar
# writes the same way on every page, so they run on Watch, the one page that reads every field.
@pytest.mark.parametrize(("page", "link"), [
    *((page, link) for page in PAGE_FILES for link in ("no scenario", "bad labels and parameters")),
    *(("pages/watch.py", link) for link in ("wrong types", "out of range", "huge strings")),
])
def test_a_tampered_link_is_said_on_the_page_it_opens_and_the_page_works(page, link):
    # Caches are kept between these runs: the links fall back to the same few data sets.
    at = open_link(FAMILY[link], page)
    assert not at.exception, at.exception
    said = notices(at)
    assert said, "the link's problems must be said"
    link_notice = said[0]
    assert link_notice.startswith(("The shared link could not be loaded: ",
                                   "Parts of the shared link could not be used:"))
    assert link_notice.rstrip().endswith(".") and len(link_notice) < 3000  # huge strings cut
    title = at.title[0].value
    # the page still works: the data set changes under it (to seed 0, or to 1 from 0: a page's
    # computations are shared by every session, and the link before may have run the other)
    type_number(at.sidebar, state.SEED, int(at.session_state[state.SEED] == 0)).run()
    assert not at.exception, at.exception
    assert at.title[0].value == title
    assert not [shown(e.value) for e in at.error if "could not" in e.value]  # said once


def test_the_link_copied_on_watch_opens_watch():
    at = new_session()
    at.context = {"url": "http://localhost:8501/watch"}
    at.session_state[state.SOLVER] = "SVMBaseline"
    at.switch_page("pages/watch.py").run()
    (link,) = at.sidebar.code
    assert link.value.startswith("http://localhost:8501/watch?scenario=")
    copied = unquote(link.value.split("?scenario=", 1)[1])
    opened = open_link(copied, "pages/watch.py")
    assert not opened.exception and not notices(opened)
    assert film(opened)["figure"] == film(at)["figure"]


def test_the_share_link_of_any_session_reads_back_without_a_word(app):
    at = app.run()
    (link,) = at.sidebar.code
    values, notes = scenario.parse(unquote(link.value.split("?scenario=", 1)[1]))
    assert notes == []
    assert values["solver"] == state.DEFAULTS[state.SOLVER]
