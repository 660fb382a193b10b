"""Deterministic annealing: unknown labels become probabilities, frozen as the temperature falls."""

from functools import partial

import numpy as np
import streamlit as st

from s3vm_explorer.engine import lessons
from s3vm_explorer.engine.comparison import summarize
from s3vm_explorer.engine.figures.compare import compare_errors_figure
from s3vm_explorer.engine.figures.data import (
    boundary_multiples_figure,
    boundary_panel,
    soft_labels_figure,
)
from s3vm_explorer.engine.figures.teaching import annealing_curves_figure, effective_loss_figure
from s3vm_explorer.engine.guides import annealing_guide
from s3vm_explorer.engine.metrics import percent, unlabeled_error
from s3vm_explorer.engine.params import shown
from s3vm_explorer.engine.presets import sigma_caption
from s3vm_explorer.engine.registry import scalable_caption
from s3vm_explorer.ui import state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.forms import n_points, preset_choice, require_both_classes
from s3vm_explorer.ui.guide import lesson as guided
from s3vm_explorer.ui.guide import set_widget
from s3vm_explorer.ui.runs import computed
from s3vm_explorer.ui.sidebar import lesson_and_settings, start_teaching_page
from toy_data import UNLABELED

#: Fixed temperatures of the DA paper's Table 5 ("three fixed values of T with no annealing").
FIXED_T = (1.0, 0.1, 0.01, 0.001)
LOSSES = {"hinge": "hinge (DA l1)", "squared_hinge": "squared hinge (DA l2)",
          "squared": "squared (DA sqr)"}


data, labels, dataset = start_teaching_page(
    "Deterministic annealing",
    "Sindhwani, Keerthi & Chapelle (ICML 2006) replace each unknown label by a probability p "
    "and add an entropy term weighted by a temperature T to the objective (4). At high T the "
    "problem is easy (p stays near the class balance r); lowering T by R = 1.5 each time "
    "(Table 1, T0 = 10) slowly forces each p to 0 or 1, tracking the minimizer as it goes.",
    "the soft labels and the balance constraint")
state.keep_teaching_widgets(state.DA_LOSS, state.DA_FIXED_T)

# The guided lesson and the settings, folded away: at 1024 x 768 the effective loss is whole
# on the first screen, the verdict of section 4 under it.
lesson_button, lesson_box, settings = lesson_and_settings(
    "Settings: the parameters, the loss V, λ and the fixed temperatures")
with settings:
    left, middle, right = st.columns([1, 1, 1.5])  # room for the chosen temperatures
    # the preset on the sidebar's n, as the Watch page runs it
    preset, preset_params = preset_choice(left, state.DA_PRESET, dataset,
                                          "DeterministicAnnealingS3VM", n_points())
    sigma = preset_params.get("sigma")
    lam_key = state.keep_preset_widget(state.DA_LAM, dataset, preset, preset_params.get(
        "lam", state.TEACHING_DEFAULTS[state.DA_LAM]))
    left.radio("loss V", list(LOSSES), key=state.DA_LOSS, format_func=LOSSES.get,
               help="DA l1, l2 and sqr of §3.1. The squared hinge runs a Newton solve per step "
                    "and takes longest.")
    middle.select_slider("λ (weight of ‖f‖²)", options=[1e-4, 1e-3, 1e-2, 1e-1], key=lam_key,
                         format_func="{:g}".format, help="The grid of the paper's §4.")
    right.multiselect("fixed temperatures to compare", FIXED_T, key=state.DA_FIXED_T,
                      format_func="T = {:g}".format,
                      help="Table 5 runs DA at T = 0.1, 0.01, 0.001 without annealing.")
    st.caption(sigma_caption(dataset, "DeterministicAnnealingS3VM", preset, sigma))
st.header("1 · The effective loss of an unlabeled point")
st.caption("Drawn without any data: for a fixed output f of an unlabeled point, the best p "
           "gives the loss V'_T(f) (§3.2).")
loss_slot = st.empty()
lesson = st.empty()  # the verdict of section 4, filled in once it has run

if not {0, 1} <= set(labels[labels != UNLABELED].tolist()):
    chart(effective_loss_figure([10, 1, 0.1, 0.01, 0.0]), where=loss_slot,
          description="The effective loss at T = 10, 1, 0.1, 0.01 and 0 for each loss V")
require_both_classes(labels, "DA")

source, label_key = state.data_source(), tuple(labels.tolist())
loss, lam = st.session_state[state.DA_LOSS], float(st.session_state[lam_key])
model, states, seconds, grid = computed(lessons.annealing_run, source, label_key, loss, lam,
                                       sigma, what="Annealing…")

ends = [s for s in states if s.event == "stage_end"]
temperatures = [s.stage_value for s in ends]
if not 0 <= st.session_state.get(state.DA_T_INDEX, 0) < len(ends):
    st.session_state[state.DA_T_INDEX] = 0
state.keep_teaching_widgets(state.DA_T_INDEX)
st.select_slider("temperature T (each tick is one step T ← T / R of the run)",
                 options=list(range(len(ends))), key=state.DA_T_INDEX,
                 format_func=[f"{t:.3g}" for t in temperatures].__getitem__)
current = ends[st.session_state[state.DA_T_INDEX]]
shown_T = sorted({temperatures[i] for i in np.linspace(0, len(ends) - 1, 6).round().astype(int)}
                 | {0.0}, reverse=True)
with loss_slot.container():
    chart(effective_loss_figure(shown_T, current_T=current.stage_value), description=(
        "The effective loss for each loss V at T = " + ", ".join(f"{T:.3g}" for T in shown_T)
        + f"; the thick curve is the chosen T = {current.stage_value:.3g}"))
    st.caption(
        "Each panel is one loss V, each curve one temperature, shifted to minimum 0 (dark = "
        "hot, the lightest is "
        "T = 0, the hard loss min(V(f), V(−f)) of eq. (1)); the thickest curve is the T "
        "chosen below. At high T the hinge is flat inside the margin and the two squared "
        "losses have a single minimum at f = 0; as T falls a bump grows at f = 0 and the loss "
        "pushes outputs out of the margin — the non-convex S3VM loss appears only gradually."
    )

st.header("2 · Soft labels at the chosen temperature")
# one above the other: side by side at 1024 px the moons were squeezed into a tall empty box
soft = np.asarray(current.extras["p"], dtype=float)[labels == UNLABELED]
chart(soft_labels_figure(data.X2, labels, current.extras["p"],
                         f"p at T = {current.stage_value:.3g}"), description=(
    f"At T = {current.stage_value:.3g}, of the {soft.size} unlabeled points "
    f"{int(np.sum(soft >= 0.9))} have p ≥ 0.9 (class 1), {int(np.sum(soft <= 0.1))} have "
    f"p ≤ 0.1 (class 0) and {int(np.sum((soft > 0.1) & (soft < 0.9)))} are still undecided"))
st.caption(
    "Colour is p, the probability of class 1 (blue) against class 0 (vermillion); yellow is "
    "undecided (p = ½). Move the temperature: at T0 everything is near the class balance r, "
    "and each cluster turns to one colour as T falls."
)
entropies = [float(s.extras["entropy"]) for s in ends]
chart(annealing_curves_figure(temperatures, entropies, [s.objective for s in ends],
                              current.stage_value), description=(
    f"{len(ends)} temperatures from T = {temperatures[0]:.3g} to {temperatures[-1]:.3g}: the "
    f"entropy goes from {entropies[0]:.3g} to {entropies[-1]:.3g} nats and the objective J_T "
    f"from {ends[0].objective:.4g} to {ends[-1].objective:.4g}; the chosen T is "
    f"{current.stage_value:.3g}"))
st.caption(
    "Entropy S(p) and objective J_T at the end of each temperature; annealing reads left to "
    "right. DA lowers T until the entropy is below ε = 1e-6 (Table 1; within ε of the least "
    "entropy the balance (5) allows when it keeps one p fractional), then returns the state "
    "of lowest objective along the path (§3): it may come from a higher T, where p is still "
    "soft, and the table below shows that state's entropy. The dotted line is the chosen T."
)

cells = st.columns(4)
cells[0].metric("temperatures", len(ends))
cells[1].metric("f/p alternations", sum(s.event in ("iter", "stage_end") for s in states))
final_error = unlabeled_error(states[-1].train_decision, labels, data.y_true)
cells[2].metric("unlabeled error", percent(final_error))
cells[3].metric("run time", f"{seconds:.2f} s")

st.header("3 · Does the annealing matter? DA against fixed T")
fixed = sorted(st.session_state[state.DA_FIXED_T], reverse=True)
runs = [("DA (annealed)", states[-1], seconds)]
for T, final, took in computed(lessons.fixed_temperature_runs, source, label_key, loss, lam,
                               tuple(float(T) for T in fixed), sigma,
                               what="Running at fixed temperatures…"):
    runs.append((f"fixed T = {T:g}", final, took))
st.dataframe(
    [{"method": name,
      "unlabeled error": percent(unlabeled_error(s.train_decision, labels, data.y_true)),
      "objective E_p J (1)": shown(float(s.extras["expected_cost"]), digits=4),
      "entropy S(p)": shown(float(s.extras["entropy"]), digits=3), "time (s)": round(took, 3)}
     for name, s, took in runs],
    hide_index=True, width="stretch",
)
panels = [boundary_panel(name, s, grid) for name, s, _ in runs]
chart(boundary_multiples_figure(panels, data.X2, labels, grid), description="; ".join(
    f"{name}: {percent(unlabeled_error(s.train_decision, labels, data.y_true))} unlabeled error"
    for name, s, _ in runs))
st.caption(
    "The DA paper's Table 5 on your data: the same objective minimized from a single "
    "temperature, without annealing. Compare the objective column (lower is a better "
    "optimum; the paper finds annealing reaches lower values even where the error does not "
    "show it) and the boundaries: a cold start tends to freeze the first guess of p."
)

st.header(f"4 · The DA paper's Table 2: DA against ∇TSVM on {lessons.DRAWS} label draws")
contenders = lessons.annealing_against_gradient(loss, lam, sigma, len(labels))
bar = st.progress(0.0, text="Starting…")
rows = computed(lessons.label_draws, source, contenders,
                what=f"DA and ∇TSVM on {lessons.DRAWS} label draws…",
                progress=lambda done, total: bar.progress(
                    done / total, text=f"{done} of {total} fits finished"), parallel=True)
bar.empty()
summary = {s["solver"]: s for s in summarize(rows)}
verdict = " · ".join(
    f"**{name}**: {summary[name]['successes']}/{summary[name]['draws']} successes, "
    f"{percent(summary[name]['mean_error'])} mean unlabeled error, "
    f"{summary[name]['paired'].sentence('the SVM of the same kernel and C')}"
    for name in ("DA", "∇TSVM"))
chart(compare_errors_figure(rows, {"DA": f"DA ({loss.replace('_', ' ')})"}),
      description=verdict.replace("**", ""))
st.caption(
    f"Table 2 of the paper counts, over 10 random choices of 2 labeled points on 2MOONS and "
    f"2CIRCLES, the runs that classify the unlabeled points right: DA with the hinge loss 10 "
    f"and 10, ∇TSVM 3 and 2. Here both run on your data from the same {lessons.DRAWS} draws of "
    f"one label per class (the first is the labeling a new data set starts with), with the "
    f"same kernel and the same weights: ∇TSVM's C = 1/(λ l) and C* = λ'/(λ u) are the costs of "
    f"(4) divided by λ. Each line is one draw, from the error of the supervised SVM with their "
    f"kernel and C (grey circle; the same SVM for both: {summary['DA']['baseline_svm']}) to "
    f"the solver's (its shape); a draw counts as a success with at most 1 % of the unlabeled "
    f"points wrong. Why DA wins (§3.2): in ∇TSVM's effective loss an unlabeled point outside the "
    f"margin never moves the boundary, at any stage (the paper's Figure 3); in DA's, at high "
    f"T, it does (Figure 2, and section 1 above)."
)
st.caption(
    f"∇TSVM runs here with {lessons.run_settings(contenders, '∇TSVM')}, DA's weights. The "
    "Continuation page runs it with cS3VM's setting instead, C = C* (100 as in the cS3VM "
    "paper): a far heavier weight on the unlabeled points, so its count of good draws there "
    "differs from this one."
)
if forms := scalable_caption(rows, len(labels), {}):
    st.caption(forms)
lesson.info(f"The DA paper's Table 2 on your data (section 4): {verdict}.")
guided(annealing_guide(states, labels, [(name, s) for name, s, _ in runs], summary, data.y_true),
       lesson_button, lesson_box, on_step=partial(set_widget, state.DA_T_INDEX))
