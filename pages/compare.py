"""Compare: every solver on the same data over several random label draws."""

import numpy as np
import streamlit as st

from s3vm_explorer.engine import lessons
from s3vm_explorer.engine.comparison import (
    BASELINE,
    FEWEST_DRAWS_FOR_A_VERDICT,
    REFERENCE,
    rows_to_csv,
    summarize,
    verdict_counts,
)
from s3vm_explorer.engine.figures.compare import (
    compare_errors_figure,
    compare_objective_figure,
    compare_time_figure,
)
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.params import LABEL_DRAWS, LABELS_PER_DRAW, problems
from s3vm_explorer.engine.presets import BOTH, CHOSEN_BY_CV, DEFAULT, PAPER, TITLES
from s3vm_explorer.engine.registry import SOLVERS, scalable_caption
from s3vm_explorer.engine.run.backends import SCHEDULER_VARIABLE, scheduler_address
from s3vm_explorer.ui import state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.forms import number_box
from s3vm_explorer.ui.runs import computed, current_data, forget_job, lesson_key
from s3vm_explorer.ui.sidebar import start_page
from s3vm_explorer.ui.verdicts import counts_line, in_words, key_numbers, verdict_table

DRAWS, PER_CLASS = LABEL_DRAWS, LABELS_PER_DRAW

start_page()
st.title("Compare solvers")
st.markdown(
    "One labeled example per class is a lottery: which points get labeled decides much of "
    "the outcome. So every solver runs here on the *same* data with the *same* k random label "
    "draws, as in the DA paper's Table 2 (10 draws of 2 labeled points on 2MOONS and 2CIRCLES, "
    "counting the runs that classify the unlabeled points right), with its parameters as in "
    "the paper, its generic defaults, both side by side, or chosen on each draw by "
    "cross-validation on its labels alone. Did the unlabeled points help? Each solver is "
    "measured against *its own* supervised SVM on the same draws — the same kernel, width and "
    "C on the same labeled points, or the SVM chosen by the same folds — and a difference is "
    "claimed only where the paired Wilcoxon test over the draws supports it (p < 0.05)."
)
data, labels = current_data()
titles = {name: spec.title for name, spec in SOLVERS.items()}
titles.update({f"{name}:{preset}": f"{spec.title} — {TITLES[preset]}"
               for name, spec in SOLVERS.items() for preset in (PAPER, DEFAULT)})
# The charts name a run of "both" by the solver's short name (before its parenthesis): the full
# title and the preset are wider than a chart's labels and panels can hold at 1024 px.
chart_titles = titles | {
    f"{name}:{preset}": f"{spec.title.partition(' (')[0]} — {TITLES[preset]}"
    for name, spec in SOLVERS.items() for preset in (PAPER, DEFAULT)}
PRESET_CHOICES = {PAPER: "as in the paper (where the data set is a paper's; else the default)",
                  DEFAULT: "the generic defaults", BOTH: "both, side by side",
                  CHOSEN_BY_CV: "chosen by cross-validation on your labels"}
choices = [name for name in SOLVERS if name != BASELINE]
if state.COMPARE_SOLVERS not in st.session_state:
    # (the exact solver is one click away: on the usual sizes it runs to its time limit)
    st.session_state[state.COMPARE_SOLVERS] = [c for c in choices if c != "BranchAndBoundS3VM"]
st.session_state[state.COMPARE_SOLVERS] = [
    s for s in st.session_state[state.COMPARE_SOLVERS] if s in choices]
state.keep_teaching_widgets(state.COMPARE_DRAWS, state.COMPARE_PER_CLASS, state.COMPARE_SOLVERS,
                           state.COMPARE_PRESET)

with st.form(state.COMPARE_FORM, border=False):
    first, second = st.columns(2)
    number_box(first, DRAWS, state.COMPARE_DRAWS)
    number_box(second, PER_CLASS, state.COMPARE_PER_CLASS)
    st.multiselect("solvers (each against its own supervised SVM; the supervised SVM at "
                   "its preset always runs as a reference)", choices,
                   key=state.COMPARE_SOLVERS, format_func=titles.get)
    st.radio("parameters", list(PRESET_CHOICES), key=state.COMPARE_PRESET,
             format_func=PRESET_CHOICES.get, horizontal=True,
             help="The presets of engine/presets.py: the setting each paper uses or selects on "
                  "its own data sets (docs/benchmarks.md, \"Presets\"), each solver's "
                  "data-independent defaults, or, as a user without the true classes would, "
                  "each solver's 3 x 3 grid searched by cross-validation on each draw's labels "
                  "(2 folds of held-out labels; the supervised SVM chosen the same way).")
    submitted = st.form_submit_button("Run the comparison", type="primary")

cluster = scheduler_address()
if cluster is not None:
    # The address comes from the server's environment only: a cluster returns pickled
    # results, so the page must not connect to an address a visitor typed.
    state.keep_teaching_widgets(state.COMPARE_ON_CLUSTER)
    st.sidebar.toggle("run the comparison on the Dask cluster", key=state.COMPARE_ON_CLUSTER,
                      help=f"The scheduler at {cluster} (set by {SCHEDULER_VARIABLE}); off: "
                           "two solver processes on this server.")
    st.sidebar.caption(f"Dask scheduler: `{cluster}`")
scheduler = cluster if st.session_state.get(state.COMPARE_ON_CLUSTER) else None

description = (state.data_source(), st.session_state[state.COMPARE_DRAWS],
               st.session_state[state.COMPARE_PER_CLASS],
               tuple(st.session_state[state.COMPARE_SOLVERS]),
               st.session_state[state.COMPARE_PRESET])
stored = st.session_state.get(state.COMPARE_RESULTS)
if submitted and (found := problems([(DRAWS, description[1]), (PER_CLASS, description[2])])):
    st.error(f"Nothing was run: {literal(' '.join(found))} Correct it and press **Run the "
             "comparison** again.")
    st.stop()
if submitted:
    forget_job(lesson_key(lessons.comparison, (*description, scheduler)))  # run it again
    st.session_state[state.COMPARE_RESULTS] = {"key": description, "scheduler": scheduler,
                                                "rows": None}
    stored = st.session_state[state.COMPARE_RESULTS]
if stored is not None and stored["rows"] is None:  # running, or interrupted by a rerun
    bar = st.progress(0.0, text="Starting the workers…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"{done} of {total} runs finished")

    where = "on the Dask cluster" if stored["scheduler"] else "in two solver processes"
    stored["rows"] = computed(lessons.comparison, *stored["key"], stored["scheduler"],
                              what=f"Comparing {where}…", progress=progress, parallel=True)
    bar.empty()

if stored is None:
    st.info("Choose k and the solvers, then press **Run the comparison**: every solver runs "
            "on k label draws, so the time grows with n and k.")
    st.stop()
if stored["key"] != description:
    st.warning("The data or the settings changed since these results: press **Run the "
               "comparison** to update them.")

rows = stored["rows"]
summary = summarize(rows)
st.header("Success rate and error")
verdict_table(summary, lambda solver: chart_titles.get(solver, solver).partition(" (")[0])
st.caption(
    "A success is a draw with at most 1 % of the unlabeled points wrong: the DA paper's Table 2 "
    "counts perfect draws, but at this app's noise a point or two lie across any sensible "
    "boundary. Errors are means over the draws ± the half-width of their 95 % confidence "
    "interval. The supervised SVM of the first row runs at its preset, a reference: no solver "
    "is measured against it, each against its own SVM."
)

st.header("Did the unlabeled points help?")
compared = [s for s in summary if s["verdict"] != REFERENCE]
counts = verdict_counts(compared)
draws = stored["key"][1]
if compared:
    st.markdown(counts_line(counts, len(compared), draws))
if draws < FEWEST_DRAWS_FOR_A_VERDICT:
    st.info(f"With {draws} draw{'s' if draws > 1 else ''} the paired test cannot reach "
            f"p < 0.05 even when every draw favours one side (its p is then "
            f"2 / 2^{draws} = {2 / 2 ** draws:.2g}): no solver can be called better or worse. "
            f"Choose k ≥ {FEWEST_DRAWS_FOR_A_VERDICT} (the DA paper's Table 2 uses 10).")
st.markdown("\n".join(in_words(s, titles.get(s["solver"], s["solver"])) for s in compared))
if stored["key"][4] == CHOSEN_BY_CV:
    # what a user without the true classes can know: the held-out labels' verdict
    did_not_help = [
        titles.get(name, name) for name in dict.fromkeys(r["solver"] for r in rows)
        if name != BASELINE and (mine := [r for r in rows if r["solver"] == name
                                          and not r["error"]])
        and np.mean([r["cv_error"] for r in mine]) >= np.mean(
            [r["baseline_cv_error"] for r in mine])]
    st.caption("Each solver's parameters were chosen on each draw by cross-validation on that "
               "draw's labels (2 folds of held-out labels), the supervised SVM's the same way: "
               "no true class was used to choose.")
    if did_not_help:
        st.warning("By the held-out labels, the unlabeled points did not help "
                   f"{', '.join(did_not_help)}: their cross-validation error is not below the "
                   "supervised SVM's, so on these labels a user would pick the supervised "
                   "model.")
if forms := scalable_caption(rows, len(labels), titles):
    st.caption(forms)
failures = [r for r in rows if r["error"]]
if failures:
    st.warning(f"{len(failures)} run(s) failed, e.g. {titles.get(failures[0]['solver'])}: "
               f"{literal(failures[0]['error'])}")

chart(compare_errors_figure(rows, chart_titles),
      description=key_numbers(summary, lambda solver: chart_titles.get(solver, solver)))
both = stored["key"][4] == BOTH
st.caption(
    "One band per solver, in its colour and shape on every chart of the page"
    + (" (open shapes: its generic defaults, beside its paper's setting)" if both else "")
    + "; in it each line is one label draw, from the error of the solver's own supervised SVM "
    "on that draw (grey circle) to the solver's (its shape). A line that goes left means the "
    "unlabeled points helped on that draw, a mark on its circle is a tie; marks spread wide mean "
    "the result depends on which points were labeled, marks at or near 0 are the successes."
)

st.header("Does a lower objective mean a lower error?")
chart(compare_objective_figure(rows, chart_titles),
      description="One panel per solver: each draw's objective against its unlabeled error, "
                  "a filled mark (the solver's shape) for a success")
st.caption(
    "The cS3VM paper's Figure 3, per solver: each mark is the local minimum one draw reached, "
    "filled for a success and open for a failure. Each solver minimizes its own objective, so "
    "compare within a panel: a rising cloud means a better optimum (lower objective) tends to "
    "classify better, which is why these papers care about escaping local minima."
)

st.header("Time")
timed = sorted(summary, key=lambda s: s["median_seconds"])
chart(compare_time_figure(summary, chart_titles), description=(
    f"Median fit times from {timed[0]['median_seconds']:.3g} s "
    f"({chart_titles.get(timed[0]['solver'], timed[0]['solver'])}) to "
    f"{timed[-1]['median_seconds']:.3g} s "
    f"({chart_titles.get(timed[-1]['solver'], timed[-1]['solver'])})"))
st.caption("Median wall-clock time of one fit over the draws (log scale), two fits at a time "
           "on this server" + ("; hatched: a solver's generic defaults." if both else "."))
st.download_button("Download every run as CSV", rows_to_csv(rows),
                   file_name="s3vm_comparison.csv", mime="text/csv")
