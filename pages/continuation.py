"""Continuation (cS3VM): watch the smoothed objective L_γ lose its smoothing, γ by γ."""

import numpy as np
import streamlit as st

from s3vm_explorer.engine import lessons
from s3vm_explorer.engine.comparison import summarize
from s3vm_explorer.engine.figures.compare import compare_errors_figure
from s3vm_explorer.engine.figures.data import boundary_multiples_figure, boundary_panel
from s3vm_explorer.engine.figures.teaching import landscape_figure, objective_path_figure
from s3vm_explorer.engine.guides import continuation_guide
from s3vm_explorer.engine.metrics import percent, unlabeled_error
from s3vm_explorer.engine.presets import sigma_caption
from s3vm_explorer.engine.registry import scalable_caption
from s3vm_explorer.ui import state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.forms import preset_choice, require_both_classes
from s3vm_explorer.ui.guide import lesson as guided
from s3vm_explorer.ui.runs import computed
from s3vm_explorer.ui.sidebar import lesson_and_settings, start_teaching_page
from toy_data.files import counted

#: Most boundaries drawn side by side; enough to see the boundary settle, small enough to read.
MAX_PANELS = 6


data, labels, dataset = start_teaching_page(
    "Continuation (cS3VM)",
    "The S3VM objective (2) has many local minima. Chapelle, Chi & Zien (ICML 2006) convolve it "
    "with a Gaussian of variance γ: for γ ≥ γ0 the smoothed objective L_γ is convex (bound (9)), "
    "so its minimum is the global one. cS3VM then lowers γ in eleven geometric steps to γ_end "
    "(§3.2), where L_γ is close to the objective itself, each time starting from the previous "
    "minimizer.", "the smoothed objective")
state.keep_teaching_widgets(state.CONT_C, state.CONT_DIRECTION, state.CONT_SPAN)

# The guided lesson and the settings, folded away: at 1024 x 768 the landscape is whole on the
# first screen, the comparison's verdict under it.
lesson_button, lesson_box, settings = lesson_and_settings(
    "Settings: the parameters, C = C* and the slice of the landscape")
with settings:
    left, middle, right = st.columns(3)
    preset, preset_params = preset_choice(left, state.CONT_PRESET, dataset, "ContinuationS3VM")
    sigma = preset_params.get("sigma")
    middle.select_slider("C (= C*, §4)", options=[1.0, 10.0, 100.0, 1000.0], key=state.CONT_C,
                         help="Cost of the labeled and unlabeled losses; the paper's C = 100 "
                              "is close to a hard margin (Table 1).")
    right.radio("slice direction", ["path", "v*"], key=state.CONT_DIRECTION, horizontal=True,
                format_func={"path": "γ0 minimizer → final", "v*": "v* (§3.3)"}.get,
                help="The 1-D line through weight space on which L_γ is drawn.")
    right.select_slider("slice extends beyond by", options=[0.25, 0.5, 1.0, 2.0, 4.0],
                        key=state.CONT_SPAN, help="How far the slice goes past its two ends "
                                                  "(in units of the distance between them).")
    st.caption(sigma_caption(dataset, "ContinuationS3VM", preset, sigma))

require_both_classes(labels, "cS3VM")

C = float(st.session_state[state.CONT_C])
model, states, seconds, grid, form = computed(
    lessons.continuation_run, state.data_source(), tuple(labels.tolist()), C, sigma,
    what="Running cS3VM…")

st.header("1 · The landscape flattens, then sharpens")
ts, curves, slice_text = lessons.slice_curves(model, states, st.session_state[state.CONT_DIRECTION],
                                      float(st.session_state[state.CONT_SPAN]))
final = states[-1]
error = unlabeled_error(final.train_decision, labels, data.y_true)
minima = {gamma: ts[int(np.argmin(values))] for gamma, values in curves}
chart(landscape_figure(ts, curves, model.gamma0_, model.gamma_end_), description=(
    f"{len(model.gammas_)} values of γ from γ0 = {model.gamma0_:.3g} to γ_end = "
    f"{model.gamma_end_:.3g} ({slice_text}); the minimum along the slice lies at t = "
    f"{minima[max(minima)]:.2f} for γ0 and at t = {minima[min(minima)]:.2f} for the "
    "unsmoothed objective (2)"))
st.caption(
    f"One curve per γ of the schedule, darkest = γ0, the thick one = the unsmoothed objective (2) "
    f"({slice_text}); each curve is shifted so its minimum is 0 and the star marks it. Look "
    "for the single wide valley at γ0 turning into the bumpy thick curve: the stars drift "
    "from one curve to the next instead of jumping, which is how continuation avoids poor "
    "local minima (the paper's Figure 2, here on your data)."
)
lesson = st.empty()  # the comparison's verdict, filled in once section 4 has run
cells = st.columns(5)
cells[0].metric("γ0", f"{model.gamma0_:.3g}", help="From γ0 on, L_γ is convex (bound (9)).")
cells[1].metric("γ_end", f"{model.gamma_end_:.3g}")
cells[2].metric("γ stages", f"{len(model.gammas_)}")
cells[3].metric("unlabeled error", percent(error))
cells[4].metric("run time", f"{seconds:.2f} s", help=f"{counted(len(states), 'state')} recorded")
if form:
    st.caption(form)

st.header("2 · The boundary at several γ")
ends = [s for s in states if s.event == "stage_end"]
picked = np.unique(np.linspace(0, len(ends) - 1, min(MAX_PANELS, len(ends))).round().astype(int))
panels = []
for index in picked:
    s = ends[index]
    panels.append(boundary_panel(f"γ = {s.stage_value:.3g}", s, grid))
chart(boundary_multiples_figure(panels, data.X2, labels, grid), description=(
    f"The boundary at {len(panels)} values of γ, from {panels[0][0]} to {panels[-1][0]}; the "
    f"final model errs on {percent(error)} of the unlabeled points"))
st.caption(
    "The minimizer of each L_γ, from the most smoothed (left) to γ_end (right). At large γ "
    "every unlabeled point weighs almost the same and the boundary is close to the supervised "
    "one; as γ shrinks the unlabeled points push it into the gap "
    "between clusters. Unlabeled points take the colour of their predicted class."
)

st.header("3 · What is minimized, and what it costs in the end")
steps = [s.step for s in states]
stage_ends = [(s.step, s.stage_value) for s in ends]
unsmoothed = [s.extras["objective_unsmoothed"] for s in states]
chart(objective_path_figure(steps, [s.objective for s in states], unsmoothed, stage_ends),
      description=f"Over {len(steps)} steps in {len(stage_ends)} stages L_γ goes from "
                  f"{states[0].objective:.4g} to {states[-1].objective:.4g}, and the objective "
                  f"(2) from {unsmoothed[0]:.4g} to {unsmoothed[-1]:.4g}")
st.caption(
    "Green: L_γ, the smoothed objective each stage minimizes (it jumps down when γ drops, as "
    "the smoothing constant γ p / 2 of (6) shrinks). Dashed: the original objective "
    "(2) at the same weights. The two come close at γ_end, where every a_i of (8) is at most "
    "1.1 (§3.2), and the fitted model's objective is (2); the dashed curve need not decrease "
    "within a stage, because the solver is not minimizing it yet."
)

st.header(f"4 · Does continuation find better minima? {lessons.DRAWS} label draws")
contenders = lessons.continuation_against_gradient(C, sigma)
rows = computed(lessons.label_draws, state.data_source(), contenders,
                what=f"cS3VM and ∇TSVM on {lessons.DRAWS} label draws…", parallel=True)
summary = {s["solver"]: s for s in summarize(rows)}
titles = {}
verdict = " · ".join(
    f"**{name}**: {percent(summary[name]['mean_error'])} mean unlabeled error, "
    f"{summary[name]['successes']}/{summary[name]['draws']} draws with at most 1 % wrong, "
    f"{summary[name]['paired'].sentence('the SVM of the same kernel and C')}"
    for name in ("cS3VM", "∇TSVM"))
chart(compare_errors_figure(rows, titles), description=verdict.replace("**", ""))
st.caption(
    f"The cS3VM paper's Table 1 in miniature: cS3VM and ∇TSVM (the LDS paper's gradient "
    f"descent) minimize the same kind of objective with the same kernel and C = C* = {C:g}, "
    f"from the same {lessons.DRAWS} draws of one label per class (the first is the labeling a "
    "new data set starts with). Each line is one draw, from the error of the supervised SVM "
    "with their kernel and C (grey circle; the same SVM for both: "
    f"{summary['cS3VM']['baseline_svm']}) to the solver's (its shape). Gradient descent keeps the "
    "local minimum its annealing of C* leads it to; continuation starts from the convex L_γ0 "
    "and follows its minimum, so it lands in a poor one less often (the paper: 2.9 % against "
    "4.6 % on USPS)."
)
st.caption(
    f"∇TSVM runs here with {lessons.run_settings(contenders, '∇TSVM')}, cS3VM's own setting. "
    "The Deterministic annealing page runs it with DA's weights instead (C = 1/(λ l) and "
    "C* = 1/(λ u), the costs of the DA paper's (4) divided by λ): a far lighter weight on the "
    "unlabeled points, so its count of good draws there differs from this one."
)
if forms := scalable_caption(rows, len(labels), titles):
    st.caption(forms)
lesson.info(f"Over {lessons.DRAWS} label draws (section 4): {verdict}.")
guided(continuation_guide(model, states, labels, curves, summary), lesson_button, lesson_box)
