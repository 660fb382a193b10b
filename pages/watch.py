"""Watch a solver: run it on the current data and labels, then play its optimization path."""

from contextlib import nullcontext

import numpy as np
import streamlit as st

from toy_data import UNLABELED
from ui import state
from ui.caching import (
    FRESH_PAGE_SETTLE,
    LONG_RUN,
    again_button,
    current_data,
    expected_seconds,
    follow_run,
    job_controls,
    run_key,
    run_solver,
    start_run,
)
from ui.comparison import unlabeled_error
from ui.figures import running_figure, soft_labels_figure
from ui.jobs import OUT_OF_TIME, STOPPED
from ui.player import film
from ui.widgets import (
    BUDGET,
    SOLVERS,
    number_box,
    parameter_form,
    require_both_classes,
    require_valid_parameters,
    start_page,
)

start_page()
st.title("Watch a solver")
X, y_true, X2, labels = current_data()

picker, form_column = st.columns([1, 3])
with picker:
    solver = st.selectbox("solver", list(SOLVERS), key=state.SOLVER,
                          format_func=lambda name: SOLVERS[name].title)
    st.caption(SOLVERS[solver].paper)
    show_baseline = st.toggle("supervised SVM boundary (dashed)", key=state.SHOW_BASELINE)
with form_column, st.form(state.PARAMETER_FORM, border=False):
    params = parameter_form(solver)
    run_column, budget_column = st.columns([1, 2], vertical_alignment="bottom")
    run_column.form_submit_button("Run", type="primary")
    number_box(budget_column, BUDGET, state.RUN_BUDGET, step=5)

require_valid_parameters(solver, params, (BUDGET, st.session_state[state.RUN_BUDGET]))
require_both_classes(labels, "any solver")

data = state.data_description()
label_key = tuple(labels.tolist())
run_params = tuple(sorted(params.items()))
budget = float(st.session_state[state.RUN_BUDGET])
job = start_run(data, label_key, solver, run_params, budget)
this_run = run_key(data, label_key, solver, run_params)
# The running solver's latest boundary, then the player in its place. The placeholder is made
# at the first preview only: sent on every rerun, it would blank the player for a moment.
preview = []


def show_progress(live) -> None:
    if not preview:
        preview.append(st.empty())
    preview[0].plotly_chart(running_figure(live, X2, labels), width="stretch",
                            config={"displaylogo": False})


expected = expected_seconds(solver, len(labels))
long_run = (f"This run may take about {expected:.0f} s at n = {len(labels)} (the scale table "
            f"of docs/benchmarks.md); it ends at its time budget of {budget:g} s, and Stop "
            "ends it at once, keeping the path so far." if expected > LONG_RUN else None)
controls, show_status = job_controls(job, this_run, note=long_run)

try:
    with st.spinner(f"Running {SOLVERS[solver].title}…", show_time=True):
        run = follow_run(job, preview=show_progress, status=show_status,
                         settle=FRESH_PAGE_SETTLE if state.fresh_page() else 0.0)
        baseline = (run_solver(data, label_key, "SVMBaseline", ()) if show_baseline
                    else None)
except ValueError as error:
    for place in [*preview, controls]:
        place.empty()
    st.error(f"{error}")
    if job.status in (STOPPED, OUT_OF_TIME):
        again_button(this_run)
    st.stop()
controls.empty()
if not run.complete:
    why = ("It was stopped" if run.ended == STOPPED
           else f"It reached its time budget of {run.budget:g} s")
    notice, again = st.columns([5, 1], vertical_alignment="center")
    notice.warning(f"{why} after {run.seconds:.1f} s: the film shows the path so far "
                   f"({len(run.states)} states), not the solver's answer.")
    again_button(this_run, again)

n_states = len(run.states)
if not 0 <= st.session_state.get(state.FRAME, -1) < n_states:
    st.session_state[state.FRAME] = n_states - 1  # a new run starts on its final state
chosen = st.session_state[state.FRAME]
frame = run.frame_of(chosen)
baseline_grid = (baseline.grid_decisions[-1] if baseline is not None
                 and baseline.grid_decisions is not None else None)


def follow_player() -> None:
    """The player paused, stepped or scrubbed to a state: show that state's details."""
    st.session_state[state.FRAME] = st.session_state[state.FILM]["state"]


def jump_player() -> None:
    """The details slider moved: the player jumps to its state."""
    st.session_state[state.FILM_JUMP] = st.session_state.get(state.FILM_JUMP, 0) + 1


with preview[0] if preview else nullcontext():
    film(run, X2, labels, frame, st.session_state.get(state.FILM_JUMP, 0), baseline_grid,
         key=state.FILM, on_change=follow_player)
st.caption(
    "▶ Play runs the recorded path in your browser (the large title is the outer parameter: "
    f"{SOLVERS[solver].stage_label}). Colours show f; black lines are f = 0 (the boundary) and "
    "the margins f = ±1; unlabeled points take the colour of their predicted class. Pause, "
    "step or scrub to a state to see its numbers below."
)
if n_states > 1:
    st.slider("state details", 0, n_states - 1, key=state.FRAME, on_change=jump_player,
              help="Pick a state to see its numbers below; the film above jumps to it.")

shown = run.states[chosen]
unlabeled = labels == UNLABELED
cells = st.columns(5)
cells[0].metric("step", f"{shown.step} ({shown.event})")
cells[1].metric("objective", f"{shown.objective:.4g}")
cells[2].metric("‖gradient‖", f"{shown.grad_norm:.3g}")
error_now = unlabeled_error(shown.train_decision, labels, y_true)
delta = None
if baseline is not None and unlabeled.any():
    change = error_now - unlabeled_error(baseline.states[-1].train_decision, labels, y_true)
    delta = f"{100 * change:+.1f} points vs supervised SVM"
cells[3].metric("unlabeled error", f"{100 * error_now:.1f} %", delta, delta_color="inverse",
                help="Against the generator's true labels: did the unlabeled data help?")
cells[4].metric("run time", f"{run.seconds:.2f} s",
                help=f"The solver's own time; {n_states} states recorded")
scalars = {k: v for k, v in shown.extras.items() if np.ndim(v) == 0}
if scalars:
    st.caption(" · ".join(f"{k} = {v:.4g}" for k, v in scalars.items()))
if "p" in shown.extras:
    st.plotly_chart(
        soft_labels_figure(X2, labels, shown.extras["p"],
                           f"soft labels p at step {shown.step} (T = {shown.stage_value:.3g})"),
        width="stretch")
    st.caption("Deterministic annealing keeps a probability p of class 1 for every unlabeled "
               "point. At high T all p sit near the class balance r (yellow); as T falls they "
               "harden to 0 (vermillion) or 1 (blue). Move the state slider to watch it.")
