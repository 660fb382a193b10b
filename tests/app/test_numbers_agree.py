"""A figure a page states twice reads the same twice (issue 42, item 4): the pages as
rendered, their numbers parsed from what they show."""

import re

from page_helpers import film, plotly_specs, shown

from s3vm_explorer.engine import presets
from s3vm_explorer.ui import state

EARLY_STOPPING = "pages/early_stopping.py"
WATCH = "pages/watch.py"
PERCENT = r"(\d+(?:\.\d+)? %)"


def test_the_early_stopping_page_writes_each_error_once_in_the_text_the_panels_and_the_table(
        app):
    """The text said "Newton's optimum errs on 0.5 %", its panel "1 %": the panels wrote whole
    percents. On the generic default with γ_I = 10 Newton errs on 4.5 %, which whole percents
    write "5 %" (measured)."""
    at = app.run()
    at.switch_page(EARLY_STOPPING).run()
    at.radio(key=state.preset_widget_key(state.ES_PRESET, "two_moons")).set_value(
        presets.DEFAULT).run()
    gamma_I = state.preset_widget_key(state.ES_GAMMA_I, "two_moons", presets.DEFAULT)
    at.select_slider(key=gamma_I).set_value(10.0).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    text = shown(at.info[0].value)
    stop_error, newton_error = re.search(
        rf"with \*\*{PERCENT}\*\* of the unlabeled points wrong; Newton's optimum errs on "
        rf"\*\*{PERCENT}\*\*", text).groups()
    assert newton_error == "4.5 %"  # (a figure whose rounding the panels changed)
    multiples = next(spec for spec in plotly_specs(at) if any(
        a["text"].startswith("Newton optimum") for a in spec["layout"]["annotations"]))
    titles = [a["text"] for a in multiples["layout"]["annotations"]]
    assert titles[-1] == f"Newton optimum · {newton_error}"
    table = at.dataframe[0].value
    errors = dict(zip(table["stopping rule"], table["unlabeled error there"], strict=True))
    assert errors["Newton's method (§3.1)"] == newton_error
    stability = next(rule for rule in errors if rule.startswith("stability"))
    assert errors[stability] == stop_error
    # each PCG panel's error is written as the table writes an error: one digit
    assert all(re.fullmatch(rf"PCG t = \d+ · {PERCENT}", title) for title in titles[:-1])


def test_the_film_and_the_state_details_say_the_same_stage_and_step(app):
    """The Watch page opens on the run's answer: the details below say its step and stage in
    the film's words (DA on two moons, the best state of its path)."""
    at = app.run()
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error
    played = film(at)
    step = {n["label"]: n for n in played["numbers"]}["step"]["values"][-1]
    details = next(shown(c.value) for c in at.main.caption if c.value.startswith("state "))
    assert details.startswith(f"state {played['states'][-1]}: step {step}, "
                              f"{played['titles'][-1]}")
    # and the titles count what they say: the iteration of each frame's stage
    assert all(not re.search(r"iteration 0$", title) for title in played["titles"][1:])
