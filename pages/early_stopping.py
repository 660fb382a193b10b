"""LapSVM early stopping: when is preconditioned conjugate gradient done enough?"""

import numpy as np
import streamlit as st

from s3vm_explorer.engine import lessons
from s3vm_explorer.engine.figures.data import boundary_multiples_figure, boundary_panel
from s3vm_explorer.engine.figures.teaching import CRITERION_TITLES, stopping_figure
from s3vm_explorer.engine.guides import early_stopping_guide
from s3vm_explorer.engine.metrics import percent, unlabeled_error
from s3vm_explorer.engine.presets import PAPER, scaled_caption, sigma_caption
from s3vm_explorer.ui import state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.forms import n_points, preset_choice, require_both_classes
from s3vm_explorer.ui.guide import lesson as guided
from s3vm_explorer.ui.runs import computed
from s3vm_explorer.ui.sidebar import lesson_and_settings, start_teaching_page

#: PCG iterates drawn beside the Newton optimum (the paper's Figure 3 b-e).
SNAPSHOTS = (1, 2, 5, 10, 20)


data, labels, dataset = start_teaching_page(
    "LapSVM early stopping",
    "Melacci & Belkin (JMLR 2011) train the Laplacian SVM in the primal by preconditioned "
    "conjugate gradient (PCG). The classifier is often right long before PCG has converged, so "
    "*when to stop* matters more than how fast each iteration is. Here PCG runs to the end "
    "while every stopping rule of §4 is recorded; each one's verdict is marked where it fires.",
    "the PCG iterates and their stopping rules")
state.keep_teaching_widgets(state.ES_N_VAL)

# The guided lesson and the settings, folded away: at 1024 x 768 the PCG iterates are on the
# first screen.
lesson_button, lesson_box, settings = lesson_and_settings(
    "Settings: the parameters, γ_I and the validation set")
with settings:
    left, middle, right = st.columns(3)
    # the preset on the sidebar's n, as the Watch page runs it (k and γ_I follow n)
    preset, preset_params = preset_choice(left, state.ES_PRESET, dataset, "LapSVM",
                                          n_points())
    scaling = preset == PAPER and scaled_caption(dataset, "LapSVM", n_points())
    sigma, initial_gamma_I = preset_params.get("sigma"), preset_params.get(
        "gamma_I", state.TEACHING_DEFAULTS[state.ES_GAMMA_I])
    graph = tuple(sorted((name, value) for name, value in preset_params.items()
                         if name not in ("sigma", "gamma_I")))
    # a preset scaled to n starts γ_I at its own value, kept apart from the other sizes'
    gamma_key = state.keep_preset_widget(state.ES_GAMMA_I, dataset,
                                         f"{preset}:{n_points()}" if scaling else preset,
                                         initial_gamma_I)
    middle.select_slider("γ_I (weight of the intrinsic norm)",
                         options=sorted({0.01, 0.1, 1.0, 10.0, 100.0, initial_gamma_I}),
                         key=gamma_key, format_func="{:g}".format,
                         help="Table 8's grid, and the preset's value; γ_A, k and p are the "
                              "preset's (γ_A 1e-6, k 6 and p 1 by default).")
    right.select_slider("validation set |V| (points)", options=[5, 10, 20, 50],
                        key=state.ES_N_VAL, help="Unlabeled points whose true labels the "
                        "validation check (Algorithm 3) may see.")
    st.caption(sigma_caption(dataset, "LapSVM", preset, sigma)
               + (f" {scaling}" if scaling else ""))

require_both_classes(labels, "LapSVM")

run = computed(lessons.early_stopping_run, state.data_source(), tuple(labels.tolist()),
               float(st.session_state[gamma_key]), int(st.session_state[state.ES_N_VAL]),
               sigma, graph, what="Running PCG and Newton…")

states = [s for s in run["states"] if s.event in ("init", "iter")]
times = [t for s, t in zip(run["states"], run["times"], strict=True)
         if s.event in ("init", "iter")]
iterations = np.array([s.iteration for s in states])


def error_of(decision) -> float:
    return unlabeled_error(decision, labels, data.y_true)


errors = np.array([error_of(s.train_decision) for s in states])
optimum_error = error_of(run["newton"].train_decision)
st.header("1 · PCG iterates against the Newton optimum")
grid = run["grid"]


# Each error is written once, as the text above and the table below write it (one digit
# after the point: whole percents wrote 0.5 % as "1 %" beside the text's "0.5 %").
position = {s.iteration: k for k, s in enumerate(states)}
panels = [boundary_panel(f"PCG t = {t} · {percent(errors[k])}", states[k], grid)
          for t in SNAPSHOTS if (k := position.get(t)) is not None]
panels.append(boundary_panel(f"Newton optimum · {percent(optimum_error)}", run["newton"],
                             grid))
# three a row: the iterates and the optimum in two rows, whole on the first screen
chart(boundary_multiples_figure(panels, data.X2, labels, grid, n_cols=3), description=(
    "The boundary and its unlabeled error after " + ", ".join(p[0] for p in panels)))
st.caption(
    "The paper's Figure 3 on your data: the LapSVM boundary after a few PCG iterations and "
    "the exact optimum from Newton's method (last panel); each title gives the unlabeled "
    "error. Look for how early the boundary already follows the data, and compare each error "
    "with the optimum's: an early iterate is often as good — sometimes better — which is what "
    "early stopping exploits."
)
# the stopping rule's verdict under the iterates (the iterates whole on the first screen)
stability_stop = run["stops"].get("stability")
if stability_stop is not None:
    stop_error = errors[list(iterations).index(stability_stop)]
    st.info(
        f"The stability check (Algorithm 2) stops PCG after **{stability_stop}** iterations "
        f"with **{percent(stop_error)}** of the unlabeled points wrong; Newton's optimum "
        f"errs on **{percent(optimum_error)}**; PCG left to run stops after "
        f"{int(iterations[-1])} iterations ("
        f"{'converged' if run['stopped_by'] == 'converged' else 'its iteration limit'})."
    )
else:
    st.info(f"The stability check never fired within the {int(iterations[-1])} PCG iterations: "
            "the decisions kept changing. Try the preset as in the paper, or another γ_I.")

st.header("2 · Where each stopping rule would stop")
extras = {name: np.array([s.extras[name] for s in states], dtype=float)
          for name in states[-1].extras}
classical = {
    "grad_norm": extras["grad_norm_normalized"],
    "grad_norm_preconditioned": extras["grad_norm_preconditioned"],
    "mixed_product": extras["mixed_product"],
    "objective_normalized": extras["objective_normalized"],
    "objective": extras["objective_decrease"],
}
checks = {"stability": extras["stability_tau"]}
if np.isfinite(extras["validation_error"]).any():
    checks["validation"] = extras["validation_error"]
stops = run["stops"]
chart(stopping_figure(iterations, classical, checks, stops, errors), description=(
    f"{int(iterations[-1])} PCG iterations; the unlabeled error goes from "
    f"{percent(errors[0])} to {percent(errors[-1])}; "
    + "; ".join(f"{CRITERION_TITLES.get(name, name)} "
                + (f"stops at iteration {at}" if at is not None else "never stops")
                for name, at in stops.items())))
st.caption(
    "Left, the paper's Figure 4: the classical goal conditions, each divided by its value at "
    "t = 0 (log scale). They fall smoothly for hundreds of iterations and say nothing about "
    "when the *classifier* stops changing. Right: the checks of §4.1 — the stability τ "
    "(fraction of unlabeled decisions changed since the last check) and the validation error "
    "— beside the true unlabeled error (dashed), up to where they stop changing. Each dotted "
    "vertical line is one rule's first 'stop'; a rule with no line never fired within the run."
)



def table_row(rule: str, stops_at: str, seconds: float | None, error: float | None) -> dict:
    """A row of the table; a rule that never fired has no time and no error there ("—"). (The
    optimum's error is the last row's: a column of it cut the table at 1024 px.)"""
    return {"stopping rule": rule, "stops at iteration": stops_at,
            "time (s)": "—" if seconds is None else f"{seconds:.4f}",
            "unlabeled error there": "—" if error is None else percent(error)}


rows = []
for name, at in stops.items():
    k = position.get(at) if at is not None else None
    rows.append(table_row(CRITERION_TITLES.get(name, name), "never" if k is None else str(at),
                          None if k is None else times[k], None if k is None else errors[k]))
rows.append(table_row(f"PCG to the end ({run['stopped_by']})", str(int(iterations[-1])),
                      times[-1], errors[-1]))
steps = run["newton_steps"]
rows.append(table_row("Newton's method (§3.1)", f"{steps} Newton step{'' if steps == 1 else 's'}",
                      run["newton_seconds"], optimum_error))
st.dataframe(rows, hide_index=True, width="stretch")
guided(early_stopping_guide(iterations, errors, times, stops, CRITERION_TITLES, optimum_error,
                            run["newton_steps"], run["stopped_by"]), lesson_button, lesson_box)
st.caption(
    f"Thresholds: τ < 1.5 % for stability (Algorithm 2), one more validation point right per "
    f"check for validation (Algorithm 3, |V| = {len(run['validation'])}), both at once for "
    "mixed; 1e-8 for the normalized norms and 1e-6 for the relative objective decrease (the "
    "defaults of the authors' Matlab library lapsvmp that the paper links; the paper argues no "
    "threshold suits every problem). Checks happen every θ = √n / 2 iterations. Times are "
    "cumulative from the start of PCG."
)
