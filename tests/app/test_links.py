"""Shared links (``?scenario=``): a tampered one is said, never a traceback, on any page.

Every field of a link is held to what the widget showing it accepts (issue 15): what cannot be
used is said in a sentence and left at its default, and the app stays usable.
"""

import json
from urllib.parse import unquote

import pytest
from page_helpers import film, new_session

from toy_data import DATASETS
from ui import state
from ui.widgets import N_POINTS, PAGES, SEED, SOLVERS, noise_param

PAGE_FILES = [f"pages/{file}.py" for file, _, _ in PAGES]


def open_link(text, page="pages/data.py"):
    """A new session opening ``page`` with the scenario ``text`` in its address (its first run,
    as a browser opening the link would: not through the first page)."""
    at = new_session()
    at.query_params["scenario"] = text
    return at.switch_page(page).run()


def notices(at) -> list[str]:
    return [e.value for e in at.error] + [w.value for w in at.warning]


# -- issue 15, case by case ------------------------------------------------------------------

@pytest.mark.parametrize(("scenario", "said", "then"), [
    # above the slider's largest value: the page raised StreamlitValueAboveMaxError
    ({"noise": 0.6}, "noise = 0.6 is outside the allowed range 0 to 0.5. Using noise = 0.1",
     {state.NOISE: 0.1}),
    # wrong JSON types: TypeError (unhashable), AttributeError
    ({"dataset": ["two_moons"]}, "There is no data set ['two_moons']",
     {state.DATASET: "two_moons"}),
    ({"solver": "SVMBaseline", "params": [1]}, "The parameters [1] must map names to values",
     {state.SOLVER: "SVMBaseline"}),
    # a fixed-size data set: the disabled n box left the user stuck
    ({"dataset": "digits_3_8", "n": 2000}, "Digits 3 vs 8 has a fixed size: its 357 points",
     {state.DATASET: "digits_3_8", state.N_SAMPLES: 357}),
    # fell back silently
    ({"solver": "NoSuchSolver"}, "There is no solver 'NoSuchSolver'",
     {state.SOLVER: state.DEFAULTS[state.SOLVER]}),
    ({"n": 5}, "n (points) = 5 is outside the allowed range 10 to 2000",
     {state.N_SAMPLES: 200}),
    # Python's int() text; "٣" is a digit to int() too
    ({"labels": {"²": 1, "٣": 0, "4": 1}}, "Labels '²': 1, '٣': 0 left out: a label is a point "
     "index from 0 to 199 with class 0 or 1.", {}),
])
def test_each_tampered_link_of_issue_15_is_said_and_the_rest_is_loaded(scenario, said, then):
    at = open_link(json.dumps(scenario))
    assert not at.exception
    assert any(said in text for text in notices(at)), notices(at)
    for key, value in then.items():
        assert at.session_state[key] == value
    assert at.title[0].value == "Data & labels"  # the page went on


def test_labels_that_fit_are_kept_beside_those_left_out():
    at = open_link(json.dumps({"n": 60, "labels": {"²": 1, "3": 0, "7": 1}}))
    labels = at.session_state[state.LABELS]
    assert [i for i, c in enumerate(labels) if c != -1] == [3, 7]


def test_negative_zero_noise_is_zero_noise():
    # numpy refused it ("scale < 0"); the slider's own zero is the same noise
    at = open_link(json.dumps({"noise": -0.0}))
    assert not at.exception and not notices(at)
    assert str(at.session_state[state.NOISE]) == "0.0"
    assert at.metric  # the data is drawn


@pytest.mark.parametrize(("text", "said"), [
    ("[" * 5000, "nested more deeply than a scenario"),  # RecursionError
    ('{"params": {"C": ' + "[" * 50 + "]" * 50 + "}}", "nested more deeply than a scenario"),
    ("{not json", "not valid JSON"),
    ('{"n": 1' + "0" * 5000 + "}", "not valid JSON"),  # past Python's int digits limit
    ('"two_moons"', "must describe a scenario as a JSON object"),
    ("x" * 200_000, "more than a scenario can be"),
])
def test_a_link_that_is_no_scenario_is_said_and_the_app_opens_with_defaults(text, said):
    at = open_link(text)
    assert not at.exception
    assert said in at.error[0].value and "opens with its defaults" in at.error[0].value
    assert at.session_state[state.DATASET] == "two_moons"
    assert {m.label: m.value for m in at.metric}["class 1 labeled"] == "1"


def test_a_link_with_data_not_as_shared_leaves_its_labels_out_and_says_so():
    # labels and added points refer to points of the data the link described
    at = open_link(json.dumps({"n": 60, "noise": 9.0, "labels": {"0": 0, "1": 1},
                               "points": [[0.5, 1.3, 0]]}))
    assert any("labels and added points belong to the data it describes" in text
               for text in notices(at))
    assert len(at.session_state[state.LABELS]) == 60  # no added point
    assert {m.label: m.value for m in at.metric}["class 0 labeled"] == "1"  # one per class


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
# parse_scenario returns them): they differ only in their notice, which the sidebar writes the
# same way on every page, so they run on Watch, the one page that reads every field.
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
    # the page still works: the data set changes under it
    at.sidebar.number_input(key=state.SEED).set_value(at.session_state[state.SEED] + 1).run()
    assert not at.exception, at.exception
    assert at.title[0].value == title
    assert not [e.value for e in at.error if "could not" in e.value]  # said once


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


# -- every field, every wrong value, without a page ------------------------------------------

WRONG = [None, True, -1, 0.5, 1e308, float("inf"), float("nan"), "x" * 5000, "²", [], [1],
         {}, {"a": 1}]
#: Values of WRONG that a field does accept (the rest must be said).
ACCEPTED = {"noise": [0.5], "labels": [{}], "points": [None, []], "params": [{}],
            "speed": [0.5], "loop": [True], "presentation": [True]}


@pytest.mark.parametrize("field", state.SCENARIO_FIELDS)
def test_every_wrong_value_of_every_field_is_said_and_what_is_loaded_fits_the_widgets(field):
    base = {"dataset": "two_moons", "n": 60, "noise": 0.1, "seed": 1,
            "labels": {"0": 0, "1": 1}, "solver": "SVMBaseline", "params": {"C": 10}}
    for wrong in WRONG:
        text = json.dumps({**base, field: wrong})
        values, notes = state.parse_scenario(text)
        accepted = any(wrong == ok and type(wrong) is type(ok) for ok in ACCEPTED.get(field, []))
        assert bool(notes) != accepted, (field, wrong, notes)
        assert all(note.endswith(".") and len(note) < 500 for note in notes), notes
        spec = DATASETS[values[state.DATASET]]
        assert N_POINTS.check(values[state.N_SAMPLES]) == values[state.N_SAMPLES]
        assert noise_param(spec).check(values[state.NOISE]) == values[state.NOISE]
        assert SEED.check(values[state.SEED]) == values[state.SEED]
        solver = SOLVERS[values[state.SOLVER]]
        for param in solver.params:
            key = state.solver_param_key(solver.name, param.name)
            if key in values:
                assert param.check(values[key]) == values[key]
        n_points = values[state.N_SAMPLES] + len(values[state.ADDED])
        labels = values.get(state.LABELS, [-1] * n_points)
        assert len(labels) == n_points and set(labels) <= {-1, 0, 1}


def test_the_share_link_of_any_session_reads_back_without_a_word(app):
    at = app.run()
    (link,) = at.sidebar.code
    values, notes = state.parse_scenario(unquote(link.value.split("?scenario=", 1)[1]))
    assert notes == []
    assert values[state.SOLVER] == state.DEFAULTS[state.SOLVER]
