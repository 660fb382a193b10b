"""Above a size the Watch page runs a method's scalable form and says so near the film
(issue 16)."""

from page_helpers import film, shown, type_number

from s3vm_explorer.engine.registry import SCALABLE_ABOVE, SOLVERS
from s3vm_explorer.ui import state

WATCH = "pages/watch.py"


def watch(at, solver, n_points):
    type_number(at.sidebar, state.N_SAMPLES, n_points).run()
    at.session_state[state.SOLVER] = solver
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    return at


def notes(at) -> list[str]:
    return [shown(c.value) for c in at.caption if c.value.startswith("Scalable form")]


def test_above_the_size_the_page_says_which_form_ran_and_why(app):
    at = watch(app.run(), "GradientTSVM", SCALABLE_ABOVE + 100)
    (note,) = notes(at)
    assert f"{SCALABLE_ABOVE + 100:,} points" in note and "kernel PCA of 300 random points" in note
    assert len(film(at)["states"]) > 10  # and the film is there
    # the graph methods name their sparse graph
    at.session_state[state.SOLVER] = "GraphKernelSVM"
    at.run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    (note,) = notes(at)
    assert "nearest-neighbour graph" in note


def test_at_the_default_size_the_exact_method_runs_without_a_note(app):
    at = watch(app.run(), "GradientTSVM", 200)
    assert notes(at) == []
    # a solver without a scalable form runs exactly at any size
    assert SOLVERS["LapSVM"].scalable is None
    assert notes(watch(at, "LapSVM", SCALABLE_ABOVE + 100)) == []


def test_compare_runs_the_scalable_forms_above_the_size_and_says_so(app):
    at = app.run()
    type_number(at.sidebar, state.N_SAMPLES, SCALABLE_ABOVE + 100).run()
    at.switch_page("pages/compare.py").run()
    at.multiselect(key=state.COMPARE_SOLVERS).set_value(["GraphKernelSVM", "QNS3VM"])
    type_number(at, state.COMPARE_DRAWS, 1)
    at.button[0].click().run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    forms = {r["solver"]: r["form"] for r in at.session_state[state.COMPARE_RESULTS]["rows"]}
    assert "nearest-neighbour graph" in forms["GraphKernelSVM"]
    assert forms["QNS3VM"] == forms["SVMBaseline"] == "exact"
    (note,) = [shown(c.value) for c in at.caption if c.value.startswith("Scalable forms")]
    assert f"{SCALABLE_ABOVE + 100:,} points" in note
    assert f"{SOLVERS['GraphKernelSVM'].title} ran on" in note and "QN" not in note


def test_the_continuation_page_runs_the_subset_form_above_the_size_and_says_so(app):
    at = app.run()
    type_number(at.sidebar, state.N_SAMPLES, SCALABLE_ABOVE + 100).run()
    at.switch_page("pages/continuation.py").run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    captions = [shown(c.value) for c in at.caption]
    (note,) = [c for c in captions if c.startswith("Scalable form:")]  # the traced run
    assert "kernel PCA of 300 random points" in note
    (forms,) = [c for c in captions if c.startswith("Scalable forms:")]  # the label draws
    assert "cS3VM ran on" in forms and "∇TSVM ran on" in forms
    assert {m.label for m in at.metric} >= {"γ0", "unlabeled error"}
