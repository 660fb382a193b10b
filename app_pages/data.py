"""Data & labels: generate a data set and label points by clicking them."""

import numpy as np
import streamlit as st

from toy_data import UNLABELED, pick_labeled
from ui import state
from ui.caching import current_data
from ui.figures import labeling_figure
from ui.widgets import start_page

BRUSHES = {1: "■ class 1 (blue)", 0: "◆ class 0 (vermillion)", UNLABELED: "○ unlabel"}


def on_select() -> None:
    # Runs before the script body; applying the brush twice to the same points changes nothing.
    selection = st.session_state[state.LABEL_CHART]["selection"]
    indices = [point["customdata"] for point in selection["points"] if "customdata" in point]
    indices = [i[0] if isinstance(i, list) else i for i in indices]
    state.apply_brush(indices)


def pick_random(y_true) -> None:
    try:
        state.set_labels(pick_labeled(y_true, int(st.session_state[state.K_PER_CLASS]),
                                      random_state=int(np.random.default_rng().integers(2**31))))
    except ValueError as error:
        state.report_error(str(error))


start_page()
st.title("Data & labels")
X, y_true, X2, labels = current_data()

if message := state.take_error():
    st.error(message)

brush_column, count_column = st.columns([3, 2])
with brush_column:
    st.radio("A click or a box / lasso selection gives points:", list(BRUSHES), key=state.BRUSH,
             format_func=BRUSHES.get, horizontal=True)
with count_column:
    counts = [int(np.sum(labels == c)) for c in (0, 1)]
    first, second, third = st.columns(3)
    first.metric("class 0 labeled", counts[0])
    second.metric("class 1 labeled", counts[1])
    third.metric("unlabeled", int(np.sum(labels == UNLABELED)))

title = "" if X.shape[1] == 2 else f"first two principal components of {X.shape[1]}-D data"
st.plotly_chart(
    labeling_figure(X2, labels, title), key=state.LABEL_CHART, on_select=on_select,
    selection_mode=("points", "box", "lasso"), width="stretch",
    config={"displaylogo": False},
)
st.caption(
    "Large shapes are labeled points (◆ class 0 in vermillion, ■ class 1 in blue); small grey "
    "circles are unlabeled. Click a point to give it the chosen class; to label many at once, "
    "pick the box or lasso tool in the chart's toolbar. Semi-supervised SVMs use the unlabeled "
    "points too: the boundary should pass through the low-density gaps between them."
)

left, middle, right = st.columns([2, 2, 2])
left.number_input("k labels per class", min_value=1, max_value=50, key=state.K_PER_CLASS)
middle.button("Pick k random labels per class", on_click=pick_random, args=(y_true,),
              key=state.PICK_RANDOM,
              width="stretch")
right.button("Clear all labels", on_click=state.set_labels, key=state.CLEAR_LABELS,
             args=([UNLABELED] * len(labels),), width="stretch")
