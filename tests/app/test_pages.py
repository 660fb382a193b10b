"""Every page runs headless; its controls change what the user sees."""

import json
from urllib.parse import unquote

import numpy as np
import pytest
from page_helpers import (
    film,
    new_session,
    players,
    plotly_specs,
    shown,
    shown_numbers,
    type_number,
    values,
)
from streamlit.testing.v1 import AppTest

from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.ui import state
from toy_data import DATASETS

WATCH = "pages/watch.py"


def choose_data_set(at, name):
    # The selectbox shows titles; AppTest picks options by position.
    at.sidebar.selectbox(key=state.DATASET).select_index(list(DATASETS).index(name)).run()


def open_watch(at, solver="SVMBaseline"):
    """The Watch page with ``solver`` (the supervised SVM runs in a blink)."""
    at.session_state[state.SOLVER] = solver
    return at.switch_page(WATCH).run()


def test_data_page_draws_the_default_data_set_with_one_label_per_class(app):
    at = app.run()
    assert not at.exception
    assert at.title[0].value == "Data & labels"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"class 0 labeled": "1", "class 1 labeled": "1", "unlabeled": "198"}
    (spec,) = plotly_specs(at)
    assert len(spec["data"]) == 1 and spec["data"][0]["type"] == "scatter"


def test_a_first_visit_finds_the_data_ready_to_run_and_the_next_step(app):
    at = app.run()
    (ready,) = at.info
    assert ready.value.startswith("Ready to run: 2 labeled points")
    assert "DA (deterministic annealing)" in ready.value and "as in the paper" in ready.value
    (link,) = at.get("page_link")
    assert link.proto.label == "Open the Watch page" and "watch" in link.proto.page
    # a form the user changed is not called the paper's
    at.session_state[state.solver_param_key("DeterministicAnnealingS3VM", "lam")] = 0.5
    at.run()
    assert "with the parameters you set" in shown(at.info[0].value)
    # without a label of each class the line says what to do instead
    at.button(key=state.CLEAR_LABELS).click().run()
    assert "at least one point of each class" in shown(at.info[0].value)


def test_random_labels_and_clear(app):
    at = app.run()
    type_number(at, state.K_PER_CLASS, 4).run()
    at.button(key=state.PICK_RANDOM).click().run()
    labels = np.array(at.session_state[state.LABELS])
    assert [np.sum(labels == c) for c in (0, 1)] == [4, 4]
    at.button(key=state.CLEAR_LABELS).click().run()
    assert set(at.session_state[state.LABELS]) == {-1}
    assert {m.label: m.value for m in at.metric}["unlabeled"] == "200"


def test_changing_the_data_set_in_the_sidebar(app):
    at = app.run()
    choose_data_set(at, "clock")
    assert not at.exception
    assert at.session_state[state.N_SAMPLES] == 300
    assert len(at.session_state[state.LABELS]) == 300
    seed = at.session_state[state.SEED]
    # Regenerate counts its clicks in the browser (ui.counter): three arrived at once
    at.session_state[state.REGENERATE] = 3
    at.run()
    assert at.session_state[state.SEED] == seed + 3
    at.run()  # counted once
    assert at.session_state[state.SEED] == seed + 3


def test_high_dimensional_data_set_is_shown_projected(app):
    at = app.run()
    choose_data_set(at, "g50c")
    assert not at.exception
    (spec,) = plotly_specs(at)
    assert "principal components" in spec["layout"]["title"]["text"]


def test_a_first_visit_to_watch_opens_on_an_s3vm(app):
    # Issue 20: the supervised SVM has nothing to show in its objective and stage charts. The
    # default is DA, whose paper (Table 2) runs two moons, the default data, with one label
    # per class, the default labels.
    at = app.run()
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error
    assert at.selectbox(key=state.SOLVER).value == "DeterministicAnnealingS3VM"
    played = film(at)
    assert played["titles"][0].startswith("T = 10 ")  # Table 1: T0 = 10
    assert len(played["states"]) > 10


def test_watch_page_plays_the_baseline(app):
    at = open_watch(app.run())
    assert not at.exception and not at.error
    played = film(at)
    assert played["states"] == [0, 1] and played["titles"][-1].startswith("the fit")
    assert played["fill"].shape == (2, 60, 60)  # the decision function on the display grid
    assert np.ptp(played["fill"][-1]) > 0
    assert any(t.get("name") == "supervised SVM" for t in played["figure"]["data"])
    numbers = shown_numbers(at)
    assert numbers["step"] == "1 · the answer"
    assert numbers["unlabeled error"].endswith("%")


def test_one_class_labels_give_a_clear_message_and_keep_the_labels(app):
    at = app.run()
    labels = [-1] * 200
    labels[5] = 1
    at.session_state[state.LABELS] = labels
    at.switch_page(WATCH).run()
    assert not at.exception
    assert "Label at least one point of each class" in shown(at.error[0].value)
    assert at.session_state[state.LABELS] == labels


def test_solver_errors_become_messages_and_labels_survive(app):
    # The solver refuses its input in its own process; its sentence reaches the page.
    at = app.run()
    labels = list(at.session_state[state.LABELS])
    at.session_state[state.SOLVER] = "QNS3VM"
    at.session_state[state.solver_param_key("QNS3VM", "n_landmarks")] = 10_000
    at.switch_page(WATCH).run()
    assert not at.exception
    assert "n_landmarks=10000 is more than the 200 training points" in shown(at.error[0].value)
    assert at.session_state[state.LABELS] == labels


def test_jumping_to_a_state_shows_its_details(app):
    at = open_watch(app.run())
    at.select_slider(key=state.FRAME).set_value(0).run()
    at.run()  # the film follows the slider on the next run as well
    assert shown_numbers(at)["step"] == "0 · start"
    assert film(at)["frame"] == 0


def test_shared_scenario_in_the_url_restores_data_and_labels(app):
    scenario = {"dataset": "two_circles", "n": 120, "noise": 0.05, "seed": 7,
                "labels": {"3": 0, "10": 1, "11": 1}, "solver": "SVMBaseline",
                "params": {"C": 5.0}}
    app.query_params["scenario"] = json.dumps(scenario)
    at = app.run()
    assert not at.exception and not at.error
    labels = np.array(at.session_state[state.LABELS])
    assert labels.size == 120
    assert np.flatnonzero(labels != -1).tolist() == [3, 10, 11]
    assert at.session_state[state.solver_param_key("SVMBaseline", "C")] == 5.0


def test_the_share_link_carries_the_scenario_of_the_page(app):
    at = app.run()
    (link,) = at.sidebar.code  # on the first run, with the labels the page shows
    first = json.loads(unquote(link.value.split("?scenario=", 1)[1]))
    assert len(first["labels"]) == 2
    type_number(at, state.K_PER_CLASS, 2).run()
    at.button(key=state.PICK_RANDOM).click().run()
    (link,) = at.sidebar.code
    shared = json.loads(unquote(link.value.split("?scenario=", 1)[1]))
    labels = at.session_state[state.LABELS]
    assert shared["labels"] == {str(i): c for i, c in enumerate(labels) if c != -1}
    assert (shared["dataset"], shared["n"], shared["seed"]) == ("two_moons", 200, 0)
    # and the link loads back into a new session as it was
    fresh = new_session()
    fresh.query_params["scenario"] = json.dumps(shared)
    fresh.run()
    assert fresh.session_state[state.LABELS] == labels


def test_added_points_join_the_data_every_page_uses_and_can_be_removed(app):
    scenario = {"dataset": "two_moons", "n": 60, "noise": 0.1, "seed": 2,
                "labels": {"0": 0, "61": 1}, "points": [[0.5, 1.3, 0], [1.0, -0.9, 1]]}
    app.query_params["scenario"] = json.dumps(scenario)
    at = app.run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"class 0 labeled": "1", "class 1 labeled": "1", "unlabeled": "60"}
    (spec,) = plotly_specs(at)
    points = spec["data"][0]
    assert (values(points["x"])[-2:].tolist(), values(points["y"])[-2:].tolist()) == (
        [0.5, 1.0], [1.3, -0.9])
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error
    assert film(at)["n_points"] == 62  # the solver ran on the added points too
    at.switch_page("pages/data.py").run()
    at.button(key=state.REMOVE_ADDED).click().run()
    labels = at.session_state[state.LABELS]
    assert len(labels) == 60 and labels[0] == 0  # the generated points keep their labels
    assert len(values(plotly_specs(at)[0]["data"][0]["x"])) == 60


def test_added_points_belong_to_their_data_set(app):
    scenario = {"dataset": "two_moons", "n": 60, "noise": 0.1, "seed": 2,
                "points": [[0.5, 1.3, 0]]}
    app.query_params["scenario"] = json.dumps(scenario)
    at = app.run()
    assert len(at.session_state[state.LABELS]) == 61
    type_number(at.sidebar, state.SEED, 3).run()
    assert len(at.session_state[state.LABELS]) == 60
    type_number(at.sidebar, state.SEED, 2).run()  # back: they are gone
    assert len(at.session_state[state.LABELS]) == 60


def test_add_mode_lays_invisible_places_to_click_over_empty_space(app):
    at = app.run()
    at.selectbox(key=state.ADD_MODE).set_value((0, False)).run()
    (spec,) = plotly_specs(at)
    points, empty_space = spec["data"]
    assert empty_space["name"] == "empty space" and empty_space["marker"]["opacity"] == 0
    # the places cover the view beyond the points
    assert values(empty_space["x"]).min() < values(points["x"]).min()
    assert values(empty_space["y"]).max() > values(points["y"]).max()


def _adder():
    import streamlit as st

    from s3vm_explorer.ui import labelling, state
    from s3vm_explorer.ui.runs import current_data

    state.init()
    if st.button("add"):
        labelling.add_point(0.5, 1.3, 1, labeled=False)
        labelling.add_point(0.5, 1.3, 1, labeled=True)  # the same place again: nothing more
        labelling.add_point(-1.0, 0.2, 0, labeled=True)
    data, labels = current_data()
    st.write(f"{len(data.X2)} {data.y_true[-2:].tolist()} {labels[-2:].tolist()}")


def test_an_added_point_keeps_its_class_and_its_label_once():
    at = AppTest.from_function(_adder, default_timeout=60).run()
    at.button[0].click().run()
    assert shown(at.markdown[0].value) == "202 [1, 0] [-1, 0]"


#: The exact search runs its whole time limit at the default 200 points (the page says so
#: before it starts); its film is played on 40 (tests/app/test_local_minima.py).
@pytest.mark.parametrize("solver", [name for name in SOLVERS
                                    if name not in ("SVMBaseline", "BranchAndBoundS3VM")])
def test_every_solver_plays_on_the_default_data(app, solver):
    at = open_watch(app.run(), solver)
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    played = film(at)
    assert 2 <= len(played["states"]) <= 60
    assert played["fill"].shape[0] == played["points"].shape[0] == len(played["states"])
    # the path goes somewhere: the first and last boundaries differ
    assert not np.array_equal(played["fill"][0], played["fill"][-1])
    assert set(shown_numbers(at)) >= {"objective", "unlabeled error"}


def test_annealing_soft_labels_appear_at_the_chosen_state(app):
    at = app.run()
    at.switch_page(WATCH).run()
    solvers = list(SOLVERS)
    at.selectbox(key=state.SOLVER).select_index(solvers.index("DeterministicAnnealingS3VM")).run()
    unlabeled = np.array(at.session_state[state.LABELS]) == -1

    def soft_labels_at(step):
        at.select_slider(key=state.FRAME).set_value(step).run()
        (soft,) = plotly_specs(at)  # below the film
        assert "soft labels p" in soft["layout"]["title"]["text"]
        return values(soft["data"][0]["marker"]["color"])[unlabeled]

    frame_states = film(at)["states"]  # the details pick among the film's states
    early = soft_labels_at(frame_states[1])
    assert np.all((early > 0.05) & (early < 0.95))  # T = 10: every p near the balance r
    final = soft_labels_at(frame_states[-1])
    assert np.mean((final < 0.01) | (final > 0.99)) > 0.95  # annealed: hard labels


def test_parameter_form_runs_with_the_new_value_and_the_baseline_toggles(app):
    at = open_watch(app.run())
    first = film(at)
    type_number(at, state.solver_param_key("SVMBaseline", "sigma"), 0.2)
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and not at.error
    second = film(at)
    assert not np.array_equal(first["fill"], second["fill"])  # a narrower kernel, a new film
    at.toggle(key=state.SHOW_BASELINE).set_value(False).run()
    assert not any(t.get("name") == "supervised SVM" for t in film(at)["figure"]["data"])
    assert not any("notes" in number for number in film(at)["numbers"])


def test_noise_and_size_regenerate_the_data(app):
    at = app.run()
    at.sidebar.slider(key=state.NOISE).set_value(0.3).run()
    type_number(at.sidebar, state.N_SAMPLES, 120).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["unlabeled"] == "118"
    assert len(at.session_state[state.LABELS]) == 120


def test_the_class_radio_lists_the_classes_in_the_order_of_the_counters(app):
    at = app.run()
    brush = at.radio(key=state.BRUSH)
    counters = [m.label for m in at.metric]
    assert counters == ["class 0 labeled", "class 1 labeled", "unlabeled"]
    assert [option.split()[1:3] for option in brush.options] == [
        ["class", "0"], ["class", "1"], ["unlabel"]]
    assert brush.value == 1  # a click labels class 1, as before


def run_with(at, solver, name, value):
    type_number(at, state.solver_param_key(solver, name), value)
    return next(b for b in at.button if b.label == "Run").click().run()


@pytest.mark.parametrize(("name", "value", "message"), [
    ("C", -5.0, "C = -5 is outside the allowed range 0.0001 to 1e6"),
    ("sigma", 1e9, "σ (RBF width) = 1e9 is outside the allowed range 0.001 to 1000"),
])
def test_an_invalid_parameter_is_said_and_no_film_passes_for_its_run(app, name, value, message):
    # Issue 20 item 6: a bounded box turned red and Run showed the previous film.
    at = open_watch(app.run())
    before = film(at)["fill"]
    run_with(at, "SVMBaseline", name, value)
    assert not at.exception
    assert message in shown(at.error[0].value) and "Nothing was run" in shown(at.error[0].value)
    assert not players(at) and not at.metric  # no film, no numbers
    run_with(at, "SVMBaseline", name, 0.5)  # corrected: it runs
    assert not at.exception and not at.error
    assert not np.array_equal(film(at)["fill"], before)


def test_an_invalid_n_in_the_sidebar_is_said_on_the_page_and_the_labels_survive(app):
    at = open_watch(app.run())
    labels = list(at.session_state[state.LABELS])
    type_number(at.sidebar, state.N_SAMPLES, 99999).run()
    assert not at.exception
    assert "n (points) = 99999 is outside the allowed range 10 to 2000" in shown(at.error[0].value)
    assert not players(at)  # nothing drawn from data it did not make
    assert "appears once the data settings" in shown(at.sidebar.caption[-1].value)  # no share link
    at.switch_page("pages/about.py").run()  # a page without data still shows its text
    assert len(at.main.header) == 10 and "n (points)" in shown(at.error[0].value)
    type_number(at.sidebar, state.N_SAMPLES, 200).run()
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error
    assert film(at)["n_points"] == 200
    assert at.session_state[state.LABELS] == labels


def test_k_labels_per_class_out_of_range_is_said_and_changes_nothing(app):
    at = app.run()
    labels = list(at.session_state[state.LABELS])
    type_number(at, state.K_PER_CLASS, 99)
    at.button(key=state.PICK_RANDOM).click().run()
    assert not at.exception
    assert ("k labels per class = 99 is outside the allowed range 1 to 50"
            in shown(at.error[0].value))
    assert at.session_state[state.LABELS] == labels


def test_a_fixed_size_data_set_keeps_its_size(app):
    at = app.run()
    choose_data_set(at, "digits_3_8")
    at.session_state[state.N_SAMPLES] = 2000  # as an old session or a hand-made state might
    at.run()
    assert not at.exception and not at.error
    assert at.session_state[state.N_SAMPLES] == 357


@pytest.mark.parametrize(("where", "key", "typed", "said"), [
    # Streamlit's number input read "2e3" as 2, "1e9" as 1, an emptied box or 1e400 as 0
    ("watch", ("DeterministicAnnealingS3VM", "lam"), "", "λ needs a value."),
    ("watch", ("DeterministicAnnealingS3VM", "lam"), "1e400",
     "λ must be a number, not '1e400'. Allowed: 1e-8 to 10000."),
    ("watch", state.RUN_BUDGET, "1e9", "time budget (s) = 1e9 is outside the allowed range"),
    ("sidebar", state.SEED, "99999999999999999999",  # only turned the box red
     "seed = 99999999999999999999 is outside the allowed range 0 to 2147483647."),
    ("sidebar", state.N_SAMPLES, "a few", "n (points) must be a whole number, not 'a few'."),
])
def test_a_number_box_says_what_was_typed_when_it_cannot_use_it(app, where, key, typed, said):
    at = open_watch(app.run(), key[0] if isinstance(key, tuple) else "SVMBaseline")
    labels = list(at.session_state[state.LABELS])
    if where == "sidebar":
        type_number(at.sidebar, key, typed).run()
    else:
        key = state.solver_param_key(*key) if isinstance(key, tuple) else key
        type_number(at, key, typed)
        next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception
    assert any(said in shown(e.value) for e in at.error), [shown(e.value) for e in at.error]
    assert not players(at)  # no film passes for values it did not run
    assert at.session_state[state.LABELS] == labels


def test_scientific_notation_is_read_as_typed(app):
    at = open_watch(app.run(), "DeterministicAnnealingS3VM")
    type_number(at.sidebar, state.N_SAMPLES, "2e2").run()  # 200 points, not 2
    type_number(at, state.solver_param_key("DeterministicAnnealingS3VM", "lam"), "1E-2")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and not at.error
    assert at.session_state[state.N_SAMPLES] == 200 and film(at)["n_points"] == 200
    assert shown_numbers(at)["step"]  # the film of λ = 0.01


def test_undo_and_redo_the_last_labelling_actions(app):
    at = app.run()
    first = list(at.session_state[state.LABELS])
    undo, redo = (at.button(key=key) for key in (state.UNDO_LABELS, state.REDO_LABELS))
    assert undo.disabled and redo.disabled  # nothing done yet
    type_number(at, state.K_PER_CLASS, 3).run()
    at.button(key=state.PICK_RANDOM).click().run()
    picked = list(at.session_state[state.LABELS])
    at.button(key=state.CLEAR_LABELS).click().run()
    assert set(at.session_state[state.LABELS]) == {-1}
    at.button(key=state.UNDO_LABELS).click().run()
    assert at.session_state[state.LABELS] == picked
    at.button(key=state.UNDO_LABELS).click().run()
    assert at.session_state[state.LABELS] == first and at.button(key=state.UNDO_LABELS).disabled
    at.button(key=state.REDO_LABELS).click().run()
    assert at.session_state[state.LABELS] == picked
    at.button(key=state.REDO_LABELS).click().run()
    assert set(at.session_state[state.LABELS]) == {-1}
    assert at.button(key=state.REDO_LABELS).disabled
    # another data set: its own labels, nothing of the old one to undo
    type_number(at.sidebar, state.SEED, 7).run()
    assert at.button(key=state.UNDO_LABELS).disabled and not at.exception
