"""Watch a solver: run it on the current data and labels, then play its optimization path."""

import numpy as np
import streamlit as st

from s3vm_explorer.engine.data import class_shares
from s3vm_explorer.engine.figures.data import soft_labels_figure
from s3vm_explorer.engine.figures.film import shipped
from s3vm_explorer.engine.film import film_id
from s3vm_explorer.engine.guides import watch_guide
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.params import BUDGET
from s3vm_explorer.engine.protocol import OUT_OF_TIME, STOPPED, RunRequest
from s3vm_explorer.engine.registry import SOLVERS, long_run_note, run_form, solver_title
from s3vm_explorer.engine.stages import (
    event_text,
    extras_text,
    returned_state,
    stage_text,
    warnings_headline,
)
from s3vm_explorer.ui import state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.forms import (
    number_box,
    parameter_form,
    preset_line,
    require_both_classes,
    require_valid_parameters,
    take_longer_path,
)
from s3vm_explorer.ui.guide import lesson
from s3vm_explorer.ui.labelling import label_in_proportion
from s3vm_explorer.ui.player import film, follow_film, jump_film, show_film_state
from s3vm_explorer.ui.runs import (
    FRESH_PAGE_SETTLE,
    again_button,
    current_data,
    follow_run,
    job_controls,
    start_run,
)
from s3vm_explorer.ui.sidebar import start_page
from toy_data import UNLABELED, class_count
from toy_data.files import counted

#: Presentation mode's page: the sidebar, Streamlit's header (its toolbar and menu) and the
#: wide page's margins make way for the film.
PRESENTATION_STYLE = """<style>
[data-testid="stSidebar"], [data-testid="stExpandSidebarButton"], [data-testid="stHeader"],
[data-testid="stToolbar"] { display: none !important; }
[data-testid="stMainBlockContainer"] { padding: 0.5rem 1rem 1rem !important;
                                       max-width: none !important; }
</style>"""

#: Labeled shares of the classes this far from the data's are said beside the film.
BALANCE_NOTE = 0.1


def shares_text(shares) -> str:
    return ", ".join(f"class {c} {100 * share:.0f} %" for c, share in enumerate(shares))


#: What Play does where the system asks for reduced motion (the player says it too, when it is
#: so: film_player/player.js).
REDUCED_MOTION = ("Where your system asks for reduced motion, nothing plays by itself: Play "
                  "shows one frame a press.")

#: Films of at most this many states are short: where the solver has a longer path, it is
#: offered.
SHORT_FILM = 6

start_page()
data, labels = current_data()
n_classes = class_count(data.y_true)

# The page's header: the solver and the toggles in one row above the film (in presentation mode
# with the form in a popover); otherwise the form stands below the film, which a lecturer
# projecting at 1024 x 768 sees on the first screen. The header and the film's place are a
# container each either way, so the player keeps its place on the page (a player drawn at
# another place would be a new one, loading plotly.js again).
presenting = st.session_state[state.PRESENTATION]
dataset = state.presets_data_set()  # an uploaded file has no paper preset
if presenting:
    # The film as large as the screen: no sidebar, no Streamlit header or toolbar, narrow page
    # margins (the presentation toggle above the film brings them back).
    st.html(PRESENTATION_STYLE)
with st.container():
    # What the solver warned of stands beside the title (under the film, a film that fills the
    # screen pushed it below the fold; above, it pushed the film's numbers off a 1024 x 768
    # screen); in presentation mode, without a title, above the film.
    if not presenting:
        title_column, warnings_place = st.columns([1.3, 2], vertical_alignment="top")
        title_column.title("Watch a solver")
    else:
        warnings_place = st.container()
    picker, baseline_column, presentation_column, lesson_column, *form_column = st.columns(
        [2.5, 2.2, 1.7, 1.1, 1.2] if presenting else [2.4, 1.9, 1.7, 1.1],
        vertical_alignment="center")
    # (the box's label gives its row's height to the film)
    solver = picker.selectbox("solver", list(SOLVERS), key=state.SOLVER,
                              format_func=solver_title, label_visibility="collapsed")
    show_baseline = baseline_column.toggle("supervised SVM", key=state.SHOW_BASELINE,
                                           help="The boundary (dashed) of the SVM trained on "
                                                "the labeled points alone, with the solver's own "
                                                "kernel, width and C, and its error beside "
                                                "the film's.")
    presentation_column.toggle("presentation", key=state.PRESENTATION,
                               help="The film as large as the window allows, for a projector: "
                                    "the parameters move into a button.")
    popover = form_column[0].popover("parameters", width="stretch") if presenting else None
lesson_place = st.container()  # the open lesson's step, above the film it speaks of
film_place = st.container()  # the film, what stops it, and the notes on what it shows
with popover or st.container():
    if not presenting:
        st.header(f"Parameters of {SOLVERS[solver].title}")
        st.caption(SOLVERS[solver].paper)
    with st.form(state.PARAMETER_FORM, border=False):
        params = parameter_form(solver, n_columns=3 if presenting else 4)
        run_column, budget_column, _ = st.columns([1, 2, 1], vertical_alignment="bottom")
        run_column.form_submit_button("Run", type="primary")
        number_box(budget_column, BUDGET, state.RUN_BUDGET)
    # which preset the form holds, with one click to the other
    preset_line(st.container(), dataset, solver)
details_place = st.container()  # below the form: the details of the state the film stopped on

with film_place:
    require_valid_parameters(solver, params, (BUDGET, st.session_state[state.RUN_BUDGET]))
    require_both_classes(labels, "any solver", n_classes)

solved_params, scalable_note = run_form(solver, len(labels), params)
this_run = RunRequest(state.data_source(), tuple(labels.tolist()), solver,
                      tuple(sorted(solved_params.items())))
budget = float(st.session_state[state.RUN_BUDGET])
job = start_run(this_run, budget)
# The running solver's latest boundary, then the player in its place. The placeholder is made
# at the first preview only: sent on every rerun, it would blank the player for a moment.
preview = []


def show_progress(live) -> None:
    if not preview:
        preview.append(film_place.empty())
    chart(shipped(live.preview), where=preview[0])


long_run = long_run_note(solver, len(labels), solved_params, scalable_note is not None, budget)
with film_place:
    controls, show_status = job_controls(job, this_run, note=long_run)
if not job.done:
    # At once, where the film will stand: a new run's first state can take seconds (a solver
    # process to start, its first step on the data), and an empty place looked idle.
    preview.append(film_place.empty())
    preview[0].info(f"Starting {SOLVERS[solver].title}: its boundary appears here as soon as "
                    "its first state arrives, and its film when it ends.",
                    icon=":material/hourglass_top:")

try:
    with film_place, st.spinner(f"Running {SOLVERS[solver].title}…", show_time=True):
        run = follow_run(job, preview=show_progress, status=show_status,
                         settle=FRESH_PAGE_SETTLE if state.fresh_page() else 0.0)
except ValueError as error:
    for place in [*preview, controls]:
        place.empty()
    film_place.error(literal(error))
    if job.status in (STOPPED, OUT_OF_TIME):
        again_button(this_run, film_place)
    st.stop()
controls.empty()
if not run.complete:
    why = ("It was stopped" if run.ended == STOPPED
           else f"It reached its time budget of {run.budget:g} s")
    notice, again = film_place.columns([5, 1], vertical_alignment="center")
    notice.warning(f"{why} after {run.seconds:.1f} s: the film shows the path so far "
                   f"({counted(len(run.states), 'state')}), not the solver's answer.")
    again_button(this_run, again)

n_states = len(run.states)
frame_states = run.frames.tolist()  # the states the film shows: the details pick among them
# a run is its cache key and how it ended: "Run again" after a Stop is a new run
shown_run = film_id((this_run, run.ended, n_states))
if (st.session_state.get(state.SHOWN_RUN) != shown_run
        or st.session_state.get(state.FRAME) not in frame_states):
    # a new run opens on its final state (and the player jumps there, even if its figure
    # happened to be the same)
    st.session_state[state.SHOWN_RUN] = shown_run
    st.session_state[state.FRAME] = frame_states[-1]
    st.session_state[state.FILM_JUMP] = st.session_state.get(state.FILM_JUMP, 0) + 1
chosen = st.session_state[state.FRAME]

# (The callbacks are the state module's: Streamlit keeps a widget's callback for the session,
# and a function defined here would keep this page's whole namespace, the run with it.)

# A guided lesson on this film: each step a question, then what the film did (engine.guides).
lesson(watch_guide(run, labels, data.y_true, SOLVERS[solver].stage_label,
                   SOLVERS[solver].title), lesson_column, lesson_place, on_step=show_film_state)
with preview[0] if preview else film_place:
    film(run.films[show_baseline], shown_run, run.frame_of(chosen),
         st.session_state[state.FILM_JUMP], st.session_state[state.FILM_SPEED],
         st.session_state[state.FILM_LOOP],
         key=state.FILM, on_change=follow_film,
         args=(frame_states,))
# Nothing silent: what the solver warned of, in its own words, once: its first words stand on
# the first screen (the film stays whole on it at 1024 x 768), a click opens every word.
if run.warnings:
    what, opening, complete = warnings_headline(run.warnings)
    more = "" if complete else "\u00a0…"  # (a no-break space: "…" never alone on a line)
    with warnings_place.expander(f":orange[**{what}:**] {literal(opening)}{more}",
                                 icon=":material/warning:", type="compact"):
        for sentence in run.warnings:
            st.warning(literal(sentence))
with film_place:
    if show_baseline and run.baseline is not None and run.baseline.description:
        st.caption(f"Dashed, and the error's reference: the {run.baseline.description}.")
    if scalable_note:
        st.caption(scalable_note)
    # A balance taken from labels picked by hand is the user's, not the data's: say so, with
    # the data's own shares and one click to labels in them.
    shares = class_shares(labels, data.y_true)
    if (state.labels_by_hand() and SOLVERS[solver].balance_from_labels and shares is not None
            and np.max(np.abs(shares[0] - shares[1])) > BALANCE_NOTE):
        note, take = st.columns([3, 1], vertical_alignment="center")
        note.info(f"{SOLVERS[solver].title} takes the class balance from your labels, picked "
                  f"by hand: {shares_text(shares[0])} of the labeled points, and it looks for "
                  "these shares among the unlabeled points. The data's own shares are "
                  f"{shares_text(shares[1])}.")
        take.button("Label in the data's proportions", on_click=label_in_proportion,
                    args=(int(np.sum(labels != UNLABELED)),), key="label_in_proportion",
                    width="stretch", help="As many labels as now, drawn at random in the "
                    "data's proportions (at least one a class).")
    path = SOLVERS[solver].longer_path
    if len(run.states) <= SHORT_FILM and path and not set(path) <= set(solved_params.items()):
        note, take = st.columns([3, 1], vertical_alignment="center")
        note.info(f"This solver reaches its answer in {len(run.states) - 1} steps, so the film "
                  f"has {len(run.states)} frames. The same problem solved by "
                  f"{SOLVERS[solver].longer_path_words} is a longer path to watch.")
        take.button("Film that path", on_click=take_longer_path, args=(solver,),
                    key="longer_path", width="stretch")
    if data.view.is_projection:
        st.caption(f"The data have {data.X.shape[1]} features: the colours are f on the plane "
                   "of their first two principal components through the data's mean (PC 1, "
                   "PC 2), and the points are projected onto that plane, so a point's colour "
                   "(its predicted class) can differ from the plane's beneath it.")
    elif data.view.is_line:
        st.caption("The data have one feature: the points lie on the line across the middle, "
                   "the colours are f along it (the same across the strip) and the line that "
                   "crosses it is the boundary, a point of the line.")
    if not presenting and n_classes > 2:
        st.caption(
            f"▶ Play runs the recorded path of the {n_classes} one-vs-rest problems in your "
            "browser, in lock step (the large title is the outer parameter of the first "
            "problem still running; the objective is the sum of the problems'). Each region "
            "takes the colour of the class whose f is largest; each coloured line is one "
            "problem's f = 0 (its class against the rest); unlabeled points take the colour of "
            f"their predicted class. {REDUCED_MOTION}")
    elif not presenting:
        st.caption(
            "▶ Play runs the recorded path in your browser (the large title is the outer "
            f"parameter: {SOLVERS[solver].stage_label}); the numbers under it are those of the "
            "frame on screen. Colours show f; the solid lines are f = 0 (the boundary) and "
            "the margins f = ±1; unlabeled points take the colour of their predicted class. Where "
            f"the film stops, its state's details follow below the parameters. {REDUCED_MOTION}")

with details_place:
    st.header("The state on screen")
    if len(frame_states) > 1:
        st.select_slider("state details", frame_states, key=state.FRAME,
                         on_change=jump_film, format_func="state {}".format,
                         label_visibility="collapsed",
                         help="Pick a state of the film to see its details below; the film "
                              "above jumps to it.")
    shown = run.states[chosen]
    # DA's last state is the best of its path, named as in the film's title
    best_of_path = chosen == n_states - 1 and returned_state(run.states) is not None
    extras, glossary = extras_text(shown.extras)
    st.caption(" · ".join([f"state {chosen}: step {event_text(shown)}, "
                           f"{stage_text(shown, best_of_path)}", *extras]),
               help="  \n".join(glossary) or None)
    if "p" in shown.extras:
        chart(soft_labels_figure(data.X2, labels, shown.extras["p"],
                                 f"soft labels p at step {shown.step} (T = "
                                 f"{shown.stage_value:.3g})"))
        st.caption("Deterministic annealing keeps a probability p of class 1 for every "
                   "unlabeled point. At high T all p sit near the class balance r (yellow); as "
                   "T falls they harden to 0 (vermillion) or 1 (blue). Play the film, or move "
                   "the state slider, to watch it.")
    st.caption(f"Run time {run.seconds:.2f} s (the solver's own) · {n_states} states "
               f"recorded, {len(frame_states)} in the film.")
