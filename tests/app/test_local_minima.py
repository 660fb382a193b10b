"""The Local minima page (issue 35): every solver's local minimum against the exact global
one on small data, over label draws."""

from page_helpers import plotly_specs, shown

from s3vm_explorer.engine import lessons
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.ui import state


def test_the_page_places_each_local_minimum_against_the_global_one(app):
    at = app.run()
    at.session_state[state.MINIMA_N] = 30
    at.session_state[state.MINIMA_DRAWS] = 3
    at.switch_page("pages/local_minima.py").run()
    assert not at.exception and not at.error
    (spec,) = plotly_specs(at)
    names = {trace["name"] for trace in spec["data"] if trace.get("type") == "scatter"}
    assert {"cS3VM (continuation)", "DA (deterministic annealing)"} <= names
    assert "Supervised SVM (labeled points only)" not in names  # its gap would flatten the rest
    (table,) = at.table
    assert len(table.value) == 6  # the SVM, five local solvers
    said = shown(at.info[0].value)
    assert said.startswith("On 3 label draws of 30 points: the global optimum errs on")


def test_no_local_solver_is_below_the_global_minimum():
    """The exact solver's minimum is the least objective of all (its incumbent starts from the
    local solvers' answers, and the search only improves it)."""
    rows = lessons.local_minima(Generated("two_circles", 30, 0.05, 0), 2, None, 10.0, 0.25)
    assert all(r["proven"] for r in rows)
    assert all(r["gap"] >= -1e-9 for r in rows)
    # a basin's bottom is never above the solver's own point in it
    assert all(-1e-9 <= r["labeling_gap"] <= r["gap"] + 1e-9 for r in rows)
    assert len({r["solver"] for r in rows}) == 6 and {r["draw"] for r in rows} == {0, 1}


def test_a_smoothed_solver_in_the_right_basin_counts_as_finding_it():
    """cS3VM minimizes a smoothed loss, so its own objective stays above the global minimum even
    when its labeling of the unlabeled points is an optimal one: the page counts that labeling
    (a filled mark), not the surrogate's point."""
    rows = lessons.local_minima(Generated("two_moons", 30, 0.05, 0), 1, None, 10.0)
    (continuation,) = [r for r in rows if r["solver"] == "ContinuationS3VM"]
    assert continuation["gap"] > 1e-3 and continuation["found_basin"]
    assert continuation["error"] == continuation["global_error"]


def test_the_watch_page_films_the_exact_search_and_a_link_carries_it(app):
    """The exact solver like any other (issue 35, item 3): its film is the search, the
    incumbent's boundary changing while its gap to the bound closes."""
    from urllib.parse import unquote

    from page_helpers import film, new_session

    at = app.run()
    at.session_state[state.N_SAMPLES] = 40
    at.session_state[state.SOLVER] = "BranchAndBoundS3VM"
    at.switch_page("pages/watch.py").run()
    assert not at.exception and not at.error
    played = film(at)
    assert played["titles"][-1].startswith("gap to the global minimum = 0 ·")
    (link,) = [code.value for code in at.sidebar.code]
    shared = new_session()
    shared.query_params["scenario"] = unquote(link.split("?scenario=", 1)[1])
    shared.run()
    assert shared.session_state[state.SOLVER] == "BranchAndBoundS3VM" and not shared.warning
