"""Data & labels: generate a data set, label points by clicking them, add points."""

import numpy as np
import streamlit as st

from toy_data import UNLABELED
from ui import state
from ui.figures import labeling_figure
from ui.forms import current_preset, number_box
from ui.params import K_LABELS
from ui.presets import DEFAULT, PAPER
from ui.runs import current_data
from ui.sidebar import start_page
from ui.solvers import SOLVERS
from ui.work import display_grid

#: Spacing of the places a click on empty space can add a point at: 1/60 of the view.
ADD_GRID = 60
#: What a click gives, in the order of the counters beside (class 0, class 1, unlabeled).
BRUSHES = {0: "◆ class 0 (vermillion)", 1: "■ class 1 (blue)", UNLABELED: "○ unlabel"}
#: What a click on empty space adds: (true class, labeled), or nothing.
ADDITIONS = {None: "nothing", (1, True): "■ a labeled point of class 1",
             (0, True): "◆ a labeled point of class 0", (1, False): "an unlabeled point of class 1",
             (0, False): "an unlabeled point of class 0"}

# (The callbacks are the state module's: Streamlit keeps a widget's callback for the session,
# and a function defined here would keep this page's whole namespace.)

start_page()
st.title("Data & labels")
X, y_true, X2, labels = current_data()

if message := state.take_error():
    st.error(message)

counts = [int(np.sum(labels == c)) for c in (0, 1)]
if min(counts) > 0:
    solver = st.session_state[state.SOLVER]
    how = {PAPER: "with its parameters as in the paper", DEFAULT: "with its default parameters",
           None: "with the parameters you set"}[
        current_preset(st.session_state[state.DATASET], solver)]
    next_step, go = st.columns([3, 1], vertical_alignment="center")
    next_step.info(f"Ready to run: {sum(counts)} labeled points (the large shapes) and "
                   f"{int(np.sum(labels == UNLABELED))} unlabeled ones. Next, **Watch a solver** "
                   f"runs {SOLVERS[solver].title} on them {how}; or click points below to change "
                   "the labels first.")
    go.page_link("pages/watch.py", label="Open the Watch page", icon=":material/play_circle:")
else:
    st.info("Give at least one point of each class a label (choose the class below, then "
            "click a point): a classifier needs an example of both before it can run.")

brush_column, count_column = st.columns([3, 2])
flat = X.shape[1] == 2
with brush_column:
    st.radio("A click or a box / lasso selection gives points:", list(BRUSHES), key=state.BRUSH,
             format_func=BRUSHES.get, horizontal=True)
    if flat:
        st.selectbox("A click on empty space adds", list(ADDITIONS), key=state.ADD_MODE,
                     format_func=ADDITIONS.get,
                     help="Grow a cluster or fill a gap, and watch how the solvers react. New "
                          "points sit on a fine grid; an unlabeled one keeps its class for "
                          "the error against the truth.")
with count_column:
    first, second, third = st.columns(3)
    first.metric("class 0 labeled", counts[0])
    second.metric("class 1 labeled", counts[1])
    third.metric("unlabeled", int(np.sum(labels == UNLABELED)))

title = "" if flat else f"first two principal components of {X.shape[1]}-D data"
empty_space = display_grid(X2, ADD_GRID) if flat and st.session_state.get(state.ADD_MODE) else None
st.plotly_chart(
    labeling_figure(X2, labels, title, empty_space), key=state.LABEL_CHART,
    on_select=state.label_chart_selected, selection_mode=("points", "box", "lasso"),
    width="stretch", config={"displaylogo": False},
)
st.caption(
    "Large shapes are labeled points (◆ class 0 in vermillion, ■ class 1 in blue); small grey "
    "circles are unlabeled. Click a point to give it the chosen class; to label many at once, "
    "pick the box or lasso tool in the chart's toolbar; to add points, choose what a click on "
    "empty space adds. Semi-supervised SVMs use the unlabeled points too: the boundary should "
    "pass through the low-density gaps between them."
)

left, middle, right = st.columns([2, 2, 2])
number_box(left, K_LABELS, state.K_PER_CLASS)
middle.button("Pick k random labels per class", on_click=state.pick_random_labels,
              args=(y_true,), key=state.PICK_RANDOM, width="stretch")
right.button("Clear all labels", on_click=state.clear_labels, key=state.CLEAR_LABELS,
             width="stretch")
undo, redo, _ = st.columns([1, 1, 4])
undo.button("↶ Undo", on_click=state.undo_labels, key=state.UNDO_LABELS, width="stretch",
            disabled=not state.can_step_back(state.LABEL_HISTORY),
            help="Undo the last labelling: a click, a box, random labels, clearing, an added "
                 "point.")
redo.button("↷ Redo", on_click=state.redo_labels, key=state.REDO_LABELS, width="stretch",
            disabled=not state.can_step_back(state.LABEL_FUTURE), help="Redo what was undone.")
if n_added := len(state.added_points()):
    st.button(f"Remove the {n_added} added point{'s' if n_added > 1 else ''}",
              on_click=state.remove_added_points, key=state.REMOVE_ADDED)
