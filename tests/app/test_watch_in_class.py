"""The Watch page in front of a class (issue 20): every run opens on its result with that
result's numbers, Play's speed and loop and the presentation mode travel in the share link."""

import json
from urllib.parse import unquote

from page_helpers import film, new_session, shown, shown_numbers, type_number

from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.ui import state

WATCH = "pages/watch.py"


def choose_solver(at, name):
    at.selectbox(key=state.SOLVER).select_index(list(SOLVERS).index(name)).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]


def assert_opens_on_its_final_state(at):
    played = film(at)
    last = len(played["states"]) - 1
    assert played["frame"] == last
    assert at.session_state[state.FRAME] == played["states"][last]
    assert shown_numbers(at)["step"].endswith("· the answer")
    assert at.select_slider(key=state.FRAME).value == played["states"][last]


def test_every_new_run_opens_on_its_final_state_whatever_was_shown_before(app):
    """The lecturer's sequence: each solver in turn, after looking at an early state of the
    one before. The chosen state used to be kept whenever it was in range of the new run
    (DA opened on state 111 after ∇TSVM, cS3VM on state 3 after LapSVM)."""
    at = app.run()
    at.switch_page(WATCH).run()
    for solver in ("ContinuationS3VM", "LapSVM", "ContinuationS3VM", "GradientTSVM",
                   "DeterministicAnnealingS3VM"):
        choose_solver(at, solver)
        assert_opens_on_its_final_state(at)
        frames = film(at)["states"]
        at.select_slider(key=state.FRAME).set_value(frames[min(3, len(frames) - 2)]).run()
        assert film(at)["frame"] == min(3, len(frames) - 2)


def test_new_parameters_are_a_new_run_and_the_baseline_toggle_is_not(app):
    at = app.run()
    at.switch_page(WATCH).run()
    choose_solver(at, "ContinuationS3VM")
    early = film(at)["states"][2]
    at.select_slider(key=state.FRAME).set_value(early).run()
    at.toggle(key=state.SHOW_BASELINE).set_value(False).run()
    assert at.session_state[state.FRAME] == early  # the same run: the same state
    assert film(at)["frame"] == 2
    type_number(at, state.solver_param_key("ContinuationS3VM", "n_gamma"), 5)
    next(b for b in at.button if b.label == "Run").click().run()
    assert_opens_on_its_final_state(at)


def share_link(at) -> dict:
    (link,) = at.sidebar.code
    return json.loads(unquote(link.value.split("?scenario=", 1)[1]))


def test_speed_loop_and_presentation_travel_in_the_share_link(app):
    at = app.run()
    at.switch_page(WATCH).run()
    shared = share_link(at)
    assert (shared["speed"], shared["loop"], shared["presentation"]) == (1.0, False, False)
    at.session_state[state.FILM_SPEED] = 0.5  # as the player reports them
    at.session_state[state.FILM_LOOP] = True
    at.toggle(key=state.PRESENTATION).set_value(True).run()
    shared = share_link(at)
    assert (shared["speed"], shared["loop"], shared["presentation"]) == (0.5, True, True)
    played = film(at)
    assert (played["speed"], played["loop"]) == (0.5, True)

    fresh = new_session()
    fresh.query_params["scenario"] = json.dumps(shared)
    fresh.run()
    fresh.switch_page(WATCH).run()
    assert not fresh.exception and not fresh.error
    played = film(fresh)
    assert (played["speed"], played["loop"]) == (0.5, True)
    assert fresh.toggle(key=state.PRESENTATION).value is True


def test_a_link_with_an_unknown_speed_says_so_and_plays_at_1x(app):
    app.query_params["scenario"] = json.dumps({"dataset": "two_moons", "speed": 3,
                                               "loop": "yes"})
    at = app.run()
    assert not at.exception
    said = " ".join(shown(w.value) for w in at.warning)
    assert "Play's speed must be one of 0.25, 0.5, 1, 2, 4, not 3" in said
    assert "loop must be true or false" in said
    assert (at.session_state[state.FILM_SPEED], at.session_state[state.FILM_LOOP]) == (1.0, False)


def test_presentation_mode_keeps_the_film_and_puts_the_form_away(app):
    at = app.run()
    at.switch_page(WATCH).run()
    assert at.title[0].value == "Watch a solver"
    before = film(at)
    at.toggle(key=state.PRESENTATION).set_value(True).run()
    assert not at.exception and not at.title  # the film moves up to the top
    (popover,) = at.get("popover")
    assert popover.proto.popover.label == "parameters"
    # the parameters stay (in the popover) and the film is the same run
    solver = at.session_state[state.SOLVER]
    first = state.solver_param_key(solver, SOLVERS[solver].params[0].name)
    assert at.text_input(key=state.typed_key(first))
    assert film(at)["figure"] == before["figure"]
