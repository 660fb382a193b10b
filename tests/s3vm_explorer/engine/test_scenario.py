"""The share link's scenario, read from text without a page (``engine.scenario.parse``).

Every field of a link is held to what the widget showing it accepts (issue 15): what cannot be
used is said in a sentence and left at its default. The pages' side (the sentence on screen,
the page still working) is in tests/app/test_links.py.
"""

import json

import pytest

from s3vm_explorer.engine import scenario
from s3vm_explorer.engine.params import N_POINTS, SEED, noise_param
from s3vm_explorer.engine.presets import preset_values
from s3vm_explorer.engine.registry import SOLVERS
from toy_data import DATASETS


def parse(fields: dict) -> tuple[dict, list[str]]:
    return scenario.parse(json.dumps(fields))


def said(notes: list[str], text: str) -> bool:
    return any(text in note for note in notes)


# -- issue 15, case by case ------------------------------------------------------------------

@pytest.mark.parametrize(("fields", "sentence", "then"), [
    # above the slider's largest value: the page raised StreamlitValueAboveMaxError
    ({"noise": 0.6}, "noise = 0.6 is outside the allowed range 0 to 0.5. Using noise = 0.1",
     {"noise": 0.1}),
    # wrong JSON types: TypeError (unhashable), AttributeError
    ({"dataset": ["two_moons"]}, "There is no data set ['two_moons']", {"dataset": "two_moons"}),
    ({"solver": "SVMBaseline", "params": [1]}, "The parameters [1] must map names to values",
     {"solver": "SVMBaseline"}),
    # a fixed-size data set: the disabled n box left the user stuck
    ({"dataset": "digits_3_8", "n": 2000}, "Digits 3 vs 8 has a fixed size: its 357 points",
     {"dataset": "digits_3_8", "n": 357}),
    # fell back silently
    ({"solver": "NoSuchSolver"}, "There is no solver 'NoSuchSolver'",
     {"solver": scenario.DEFAULTS["solver"]}),
    ({"n": 5}, "n (points) = 5 is outside the allowed range 10 to 2000", {"n": 200}),
    # Python's int() text; "٣" is a digit to int() too
    ({"labels": {"²": 1, "٣": 0, "4": 1}}, "Labels '²': 1, '٣': 0 left out: a label is a point "
     "index from 0 to 199 with class 0 or 1.", {}),
])
def test_each_tampered_field_of_issue_15_is_said_and_the_rest_is_read(fields, sentence, then):
    values, notes = parse(fields)
    assert said(notes, sentence), notes
    for field, value in then.items():
        assert values[field] == value


def test_labels_that_fit_are_kept_beside_those_left_out():
    values, _ = parse({"n": 60, "labels": {"²": 1, "3": 0, "7": 1}})
    assert [i for i, c in enumerate(values["labels"]) if c != -1] == [3, 7]


def test_negative_zero_noise_is_zero_noise():
    # numpy refused it ("scale < 0"); the slider's own zero is the same noise
    values, notes = parse({"noise": -0.0})
    assert notes == [] and str(values["noise"]) == "0.0"


@pytest.mark.parametrize(("text", "sentence"), [
    ("[" * 5000, "nested more deeply than a scenario"),  # RecursionError
    ('{"params": {"C": ' + "[" * 50 + "]" * 50 + "}}", "nested more deeply than a scenario"),
    ("{not json", "not valid JSON"),
    ('{"n": 1' + "0" * 5000 + "}", "not valid JSON"),  # past Python's int digits limit
    ('"two_moons"', 'it is "two_moons", not a scenario: a scenario is a JSON object'),
    ("null", "it is null, not a scenario"),  # was "nested more deeply than a scenario is"
    ("[1, 2]", "it is \\[1, 2\\], not a scenario"),
    ("x" * 200_000, "more than a scenario can be"),
])
def test_a_text_that_is_no_scenario_is_refused_with_a_sentence(text, sentence):
    with pytest.raises(ValueError, match=sentence):
        scenario.parse(text)


def test_labels_and_points_of_data_not_as_shared_are_left_out_and_said():
    # labels and added points refer to points of the data the link described
    values, notes = parse({"n": 60, "noise": 9.0, "labels": {"0": 0, "1": 1},
                           "points": [[0.5, 1.3, 0]]})
    assert said(notes, "labels and added points belong to the data it describes")
    assert "labels" not in values and values["points"] == []


def test_a_valid_scenario_is_read_without_a_word_in_the_widgets_types():
    values, notes = parse({"dataset": "two_moons", "n": 60.0, "noise": 0, "seed": 3,
                           "labels": {"0": 0, "5": 1}, "solver": "LapSVM",
                           "params": {"gamma_I": 2, "n_neighbors": 8.0, "stopping": None}})
    assert notes == []
    assert values["n"] == 60 and type(values["n"]) is int
    assert type(values["params"]["gamma_I"]) is float and values["params"]["n_neighbors"] == 8
    # the parameters the link leaves out take their defaults: the form is the link's
    assert values["params"]["gamma_A"] == SOLVERS["LapSVM"].params[0].default
    assert [i for i, c in enumerate(values["labels"]) if c != -1] == [0, 5]


def test_a_named_preset_without_parameters_fills_the_form_with_it():
    values, notes = parse({"dataset": "two_moons", "solver": "LDS", "preset": "paper"})
    assert notes == [] and values["preset"] == "paper"
    assert values["params"] == preset_values("two_moons", "LDS", "paper")


# -- every field, every wrong value ----------------------------------------------------------

WRONG = [None, True, -1, 0.5, 1e308, float("inf"), float("nan"), "x" * 5000, "²", [], [1],
         {}, {"a": 1}]
#: Values of WRONG that a field does accept (the rest must be said).
ACCEPTED = {"noise": [0.5], "labels": [{}], "points": [None, []], "params": [{}],
            "speed": [0.5], "loop": [True], "presentation": [True], "hurt": [{}]}


@pytest.mark.parametrize("field", scenario.FIELDS)
def test_every_wrong_value_of_every_field_is_said_and_what_is_read_fits_the_widgets(field):
    base = {"dataset": "two_moons", "n": 60, "noise": 0.1, "seed": 1,
            "labels": {"0": 0, "1": 1}, "solver": "SVMBaseline", "params": {"C": 10}}
    for wrong in WRONG:
        values, notes = parse({**base, field: wrong})
        accepted = any(wrong == ok and type(wrong) is type(ok) for ok in ACCEPTED.get(field, []))
        assert bool(notes) != accepted, (field, wrong, notes)
        assert all(note.endswith(".") and len(note) < 500 for note in notes), notes
        spec = DATASETS[values["dataset"]]
        assert N_POINTS.check(values["n"]) == values["n"]
        assert noise_param(spec).check(values["noise"]) == values["noise"]
        assert SEED.check(values["seed"]) == values["seed"]
        solver = SOLVERS[values["solver"]]
        for param in solver.params:
            if param.name in values.get("params", {}):
                assert param.check(values["params"][param.name]) == values["params"][param.name]
        n_points = values["n"] + len(values["points"])
        labels = values.get("labels", [-1] * n_points)
        assert len(labels) == n_points and set(labels) <= {-1, 0, 1}


def test_a_described_scenario_reads_back_as_it_was_described():
    form = preset_values("two_moons", "LDS", "paper")
    described = scenario.describe(
        dataset="two_moons", n=60, noise=0.1, seed=4, labels=[0, -1, 1] + [-1] * 58,
        points=[[0.5, 0.25, 1]], solver="LDS", params=form, form=form, budget=30, speed=2.0,
        loop=True, presentation=True, compare="both")
    assert described["preset"] == "paper"
    values, notes = scenario.parse(scenario.to_text(described))
    assert notes == []
    assert values["labels"] == [0, -1, 1] + [-1] * 58 and values["points"] == [[0.5, 0.25, 1]]
    assert values["params"] == form
    assert {f: values[f] for f in ("n", "seed", "budget", "speed", "loop", "presentation",
                                   "compare")} == {"n": 60, "seed": 4, "budget": 30,
                                                   "speed": 2.0, "loop": True,
                                                   "presentation": True, "compare": "both"}


# -- issue 26: numbers of any size, repeated names, the longest link -------------------------

HUGE = int("1" + "0" * 320)  # a JSON integer of 321 digits: float() overflows


@pytest.mark.parametrize(("fields", "sentence"), [
    ({"seed": HUGE}, "seed = 1e320 is outside the allowed range 0 to 2147483647"),
    ({"n": HUGE}, "n (points) = 1e320 is outside the allowed range 10 to 2000"),
    ({"noise": -HUGE}, "noise = -1e320 is outside the allowed range 0 to 0.5"),
    ({"budget": HUGE}, "time budget (s) = 1e320 is outside the allowed range 5 to 600"),
    ({"solver": "SVMBaseline", "params": {"C": HUGE}}, "C = 1e320 is outside the allowed range"),
    ({"points": [[HUGE, 0, 1]]}, "is not [x, y, class 0 or 1]"),
    ({"speed": HUGE}, "Play's speed must be one of"),
])
def test_an_integer_of_hundreds_of_digits_is_said_not_raised(fields, sentence):
    # was "OverflowError: int too large to convert to float", a traceback on every page
    _, notes = parse({"dataset": "two_moons", **fields})
    assert said(notes, sentence), notes


def test_a_name_given_twice_is_said_and_the_last_value_is_used():
    values, notes = scenario.parse('{"n": 5000, "n": 50}')  # was taken silently
    assert values["n"] == 50
    assert notes == ["'n' is given more than once: the last value is used."]
    values, notes = scenario.parse('{"n": 60, "labels": {"3": 0, "3": 1, "4": 0, "4": 1}}')
    assert values["labels"][3] == 1
    assert notes == ["'3', '4' are given more than once: the last value of each is used."]


def test_the_largest_scenario_the_app_shares_fits_its_limit_and_the_servers():
    from urllib.parse import quote

    n = 1800
    described = scenario.describe(
        dataset="two_moons", n=n, noise=0.1, seed=2**31 - 1, labels=[1] * (n + 200),
        points=[[-12.3456, 98.7654, 1]] * 200, solver="LapSVM",
        params={"gamma_A": 1e-6, "gamma_I": 1.0}, form={}, budget=600, speed=0.25,
        loop=False, presentation=False, compare="both")
    text = scenario.to_text(described)
    assert len(text) <= scenario.MAX_CHARS
    # the address as the share box writes it, within what the server reads (128,000 bytes)
    assert len(f"http://localhost:8501/watch?scenario={quote(text, safe='')}") < 100_000


# -- issue 27: k classes and uploaded data ----------------------------------------------------

def test_a_k_class_data_set_takes_labels_of_each_class_and_refuses_others():
    values, notes = parse({"dataset": "blobs_5", "n": 50,
                           "labels": {"1": 0, "2": 4, "3": 3, "4": 5, "6": -2}})
    assert [(i, c) for i, c in enumerate(values["labels"]) if c != -1] == [(1, 0), (2, 4),
                                                                            (3, 3)]
    assert said(notes, "Labels '4': 5, '6': -2 left out: a label is a point index from 0 to 49 "
                       "with a class from 0 to 4.")
    # a two-class data set still takes classes 0 and 1 only
    values, notes = parse({"dataset": "two_moons", "labels": {"1": 2}})
    assert said(notes, "with class 0 or 1") and set(values["labels"]) == {-1}


def test_a_scenario_of_an_uploaded_file_names_it_and_carries_no_data():
    described = scenario.describe(
        dataset="two_moons", n=200, noise=0.1, seed=3, labels=[0, -1, 1], points=[],
        solver="SVMBaseline", params={}, form={}, budget=60, speed=1.0, loop=False,
        presentation=False, compare="paper", uploaded="mine.csv")
    assert described["dataset"] == scenario.UPLOADED and described["file"] == "mine.csv"
    assert not {"labels", "n", "noise", "seed", "points"} & set(described)
    values, notes = scenario.parse(scenario.to_text(described))
    assert values["dataset"] == scenario.DEFAULTS["dataset"] and "labels" not in values
    assert said(notes, "made from the uploaded file 'mine.csv'")


# -- issue 42: whether an uploaded file is standardized travels with its name ------------------

@pytest.mark.parametrize("standardized", [True, False])
def test_a_link_of_an_uploaded_file_carries_whether_it_was_standardized(standardized):
    described = scenario.describe(
        dataset="two_moons", n=200, noise=0.1, seed=3, labels=[0, -1, 1], points=[],
        solver="SVMBaseline", params={}, form={}, budget=60, speed=1.0, loop=False,
        presentation=False, compare="paper", uploaded="wine.csv", standardized=standardized)
    assert described["standardize"] is standardized
    values, notes = scenario.parse(scenario.to_text(described))
    assert values["standardize"] is standardized
    how = "standardized" if standardized else "used as they are"
    assert said(notes, f"Upload it on the Data & labels page to see it (its features will be "
                       f"{how}, as in the link)")


def test_a_generated_data_sets_link_says_nothing_of_standardizing():
    described = scenario.describe(
        dataset="two_moons", n=200, noise=0.1, seed=3, labels=[0, -1, 1], points=[],
        solver="SVMBaseline", params={}, form={}, budget=60, speed=1.0, loop=False,
        presentation=False, compare="paper")
    assert "standardize" not in described
    values, notes = parse({"dataset": "two_moons", "standardize": True})
    assert "standardize" not in values
    assert said(notes, "standardize = True was ignored: a link says it only of an uploaded file")


@pytest.mark.parametrize("wrong", [None, 1, "yes", [True], {}])
def test_a_standardize_that_is_not_true_or_false_is_said_and_left_to_the_files_scales(wrong):
    values, notes = parse({"dataset": scenario.UPLOADED, "file": "wine.csv",
                           "standardize": wrong})
    assert "standardize" not in values
    assert said(notes, "standardize must be true or false, not ")
    assert said(notes, "standardized if their scales differ by more than ten times.")


# -- issue 41: the When unlabeled data hurt page's settings travel in the link ----------------

def test_the_hurt_pages_settings_read_back_as_they_were_described():
    settings = {"n": 80, "draws": 20, "per_class": 3, "shown": "shares"}
    described = scenario.describe(
        dataset="two_moons", n=200, noise=0.1, seed=3, labels=[0, -1, 1], points=[],
        solver="SVMBaseline", params={}, form={}, budget=60, speed=1.0, loop=False,
        presentation=False, compare="paper", hurt_settings=settings)
    values, notes = scenario.parse(scenario.to_text(described))
    assert notes == [] and values["hurt"] == settings


def test_a_hurt_setting_a_link_cannot_use_is_said_and_the_rest_is_read():
    values, notes = parse({"dataset": "two_moons", "hurt": {"n": 80, "draws": 7}})
    assert values["hurt"] == {**scenario.DEFAULTS["hurt"], "n": 80}
    assert notes == ["label draws must be one of 6, 8, 10, 20, 30, not 7. The page When "
                     "unlabeled data hurt uses 8."]
    assert "hurt" not in parse({"dataset": "two_moons"})[0]  # a link without it sets nothing


def test_a_link_opens_a_lesson_at_its_step_and_a_bad_one_is_said():
    values, notes = parse({"lesson": {"page": "annealing", "step": 3}})
    assert not notes and values["lesson"] == {"page": "annealing", "step": 2, "revealed": False,
                                              "jump": True}
    for wrong in ({"page": "nowhere", "step": 1}, {"page": "watch", "step": 0},
                  {"page": "watch", "step": 2.5}, {"page": "watch", "step": True}, "watch:3"):
        values, notes = parse({"lesson": wrong})
        assert "lesson" not in values and len(notes) == 1 and "stays closed" in notes[0]
    described = scenario.describe(
        dataset="two_moons", n=200, noise=0.1, seed=0, labels=[], points=[], solver="LDS",
        params={}, form={}, budget=30.0, speed=1.0, loop=False, presentation=False,
        compare="paper", lesson={"page": "watch", "step": 1, "revealed": True})
    assert described["lesson"] == {"page": "watch", "step": 2}  # counted from 1, as shown
