"""The When unlabeled data hurt page (issue 41, item 4) headless: it runs within its budget, says
what its paired tests found and nothing more, and its settings travel in the share link.

Both tests run the page on the same small settings, so that the second finds the first one's
computation finished on the app's shelf (it is shared by every session of a server)."""

import json
import re
from urllib.parse import unquote

from page_helpers import new_session, plotly_specs, shown

from s3vm_core.metrics import ALPHA
from s3vm_explorer.engine import hurt, scenario
from s3vm_explorer.ui import state

PAGE = "pages/hurt.py"
#: The fewest points and draws with which the paired test can still give a verdict.
SMALL = {"n": 40, "draws": 6, "per_class": 2}


def open_small(at, **settings):
    for name, value in {**SMALL, **settings}.items():
        at.session_state[state.HURT[name]] = value
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]  # (a budget overrun is an error)
    return at


def verdicts_drawn(figure) -> dict[int, list[tuple[str, float]]]:
    """The verdict markers of the page's chart by panel (0 = the first data set): each
    solver's verdict, read from its marker, and the p its hover gives."""
    symbols = {"triangle-left": "better", "circle-open": "no significant difference",
               "triangle-right": "worse"}
    panels = {}
    for trace in figure["data"]:
        axis = trace.get("xaxis", "x")
        if trace.get("showlegend") is not False or axis in ("x", "x2", "x3", "x4"):
            continue  # the legend's marks, and the data sets' points in the top row
        p = float(re.search(r"p = ([0-9.e-]+)", trace["hovertemplate"]).group(1))
        panels.setdefault(int(axis[1:]) - 5, []).append((symbols[trace["marker"]["symbol"]], p))
    return panels


def test_the_page_runs_within_its_budget_and_says_only_what_its_tests_found():
    at = open_small(new_session())
    figure, draws = plotly_specs(at)
    drawn = verdicts_drawn(figure)
    assert sorted(drawn) == [0, 1, 2, 3] and all(len(v) == len(hurt.SOLVERS)
                                                 for v in drawn.values())
    for verdicts in drawn.values():  # a triangle only where the test found a difference
        assert all((verdict != "no significant difference") == (p < ALPHA)
                   for verdict, p in verdicts)
    # the lesson's words count the verdicts drawn, data set by data set
    lines = [line for m in at.markdown for line in shown(m.value).splitlines()
             if "of 7 solvers" in line]
    assert len(lines) == 4
    for panel, line in enumerate(lines):
        for verdict in ("better", "no significant difference", "worse"):
            said = int(re.search(rf"\*\*(\d+)\*\* {verdict}", line).group(1))
            assert said == sum(v == verdict for v, _ in drawn[panel]), (line, drawn[panel])
    (lesson,) = [shown(i.value) for i in at.info]
    # (the chart's caption: the settings' own, folded in their expander, come first on the page)
    assert any("on the same 6 draws of 2 labels a class" in c.value for c in at.caption)
    better_held = sum(v == "better" for v, _ in drawn[0])
    assert f"**{better_held} of 7** solvers are significantly better" in lesson
    s4vm = [drawn[panel][hurt.SOLVERS.index("S4VM")][0] for panel in range(4)]
    assert ("S4VM is significantly worse" in lesson) == ("worse" in s4vm)
    # the draws of the data set shown draw by draw, each solver in its band
    assert draws["layout"]["yaxis"]["ticktext"] == [hurt.solver_name(s) for s in hurt.SOLVERS]
    assert at.radio(key=state.HURT["shown"]).value == hurt.DEFAULTS["shown"]
    # its guided lesson: the first data set asked, then the tests' counts; each step shows it
    next(b for b in at.button if b.label == "Lesson").click().run()
    assert any(shown(m.value).startswith("**Lesson · step 1 of 5 · Two long clusters")
               for m in at.markdown)
    next(b for b in at.button if b.label == "Show the answer").click().run()
    assert any(lines[0].removeprefix("- ").replace("**", "") in shown(s.value)
               for s in at.success)


def test_the_share_link_carries_the_pages_settings_to_a_new_session():
    at = open_small(new_session(), shown="shares")
    (link,) = at.sidebar.code
    text = unquote(link.value.split("?scenario=", 1)[1])
    values, notes = scenario.parse(text)
    assert notes == [] and values["hurt"] == {**SMALL, "shown": "shares"}
    fresh = new_session()
    fresh.query_params["scenario"] = json.dumps(json.loads(text))
    fresh.switch_page(PAGE).run()
    assert not fresh.exception and not fresh.warning
    assert {name: fresh.select_slider(key=state.HURT[name]).value for name in SMALL} == SMALL
    assert fresh.radio(key=state.HURT["shown"]).value == "shares"
