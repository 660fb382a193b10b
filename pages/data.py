"""Data & labels: generate or upload a data set, label points by clicking them, add points."""

import numpy as np
import streamlit as st

from s3vm_explorer.engine.data import FORMATS_HELP, LIMITS
from s3vm_explorer.engine.figures.data import labeling_figure
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.params import K_LABELS
from s3vm_explorer.engine.presets import DEFAULT, PAPER
from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.ui import labelling, state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.forms import current_preset, number_box
from s3vm_explorer.ui.keyboard import labelling_keys
from s3vm_explorer.ui.runs import current_data
from s3vm_explorer.ui.sidebar import start_page
from toy_data import UNLABELED, class_count
from toy_data.files import counted
from toy_data.scaling import SCALE_RATIO, scales_sentence

#: Spacing of the places a click on empty space can add a point at: 1/60 of the view.
ADD_GRID = 60
#: Each class as the brush and the counters name it: its marker and colour
#: (``engine.figures.palette``'s class_symbols and class_colors).
CLASS_NAMES = ("◆ class 0 (vermillion)", "■ class 1 (blue)", "▲ class 2 (bluish green)",
               "✚ class 3 (reddish purple)", "★ class 4 (orange)", "⬢ class 5 (sky blue)",
               "▼ class 6 (yellow)", "⬟ class 7 (black)")


def brushes(n_classes: int) -> dict:
    """What a click gives, in the order of the counters beside (the classes, unlabeled)."""
    return {**dict(enumerate(CLASS_NAMES[:n_classes])), UNLABELED: "○ unlabel"}


def additions(n_classes: int) -> dict:
    """What a click on empty space adds: (true class, labeled), or nothing."""
    return {None: "nothing",
            **{(c, True): f"{CLASS_NAMES[c].split()[0]} a labeled point of class {c}"
               for c in range(n_classes)},
            **{(c, False): f"an unlabeled point of class {c}" for c in range(n_classes)}}


def scaling_line(upload) -> str:
    """The uploaded file's scales in one line: whether its features are standardized, and why
    (``toy_data.scaling``)."""
    spread = literal(scales_sentence(upload.X, upload.feature_names))
    if upload.standardized:
        return f"**Standardized** to z-scores on every page: {spread}."
    if upload.scale_ratio > SCALE_RATIO:
        return f"**As the file writes them**: {spread}; a kernel sees mostly the largest."
    return f"As the file writes them: {spread}."


# (The callbacks are the state module's: Streamlit keeps a widget's callback for the session,
# and a function defined here would keep this page's whole namespace.)

start_page()
st.title("Data & labels")
data, labels = current_data()
X, y_true = data.X, data.y_true
upload = state.uploaded()
n_classes = class_count(y_true)

if message := state.take_error():
    st.error(literal(message))

with st.expander("Your own data: upload a file", expanded=upload is not None):
    st.file_uploader("a CSV, TSV or svmlight file", type=["csv", "tsv", "tab", "txt", "svm",
                                                          "svmlight", "libsvm", "light"],
                     key=state.UPLOADER, on_change=labelling.use_upload, help=FORMATS_HELP)
    st.caption(f"{LIMITS} The labels in the file are the labeled points; more than two "
               "features are shown on the plane of their first two principal components, one "
               "feature on a line. The "
               "upload stays in this browser session only: nothing is written to disk, and a "
               "share link cannot carry it.")
    if upload is not None:
        names = ", ".join(f"{c} = {literal(name)}" for c, name in enumerate(upload.classes))
        shown_file, back = st.columns([3, 1], vertical_alignment="center")
        shown_file.success(f"In use: **{literal(upload.name)}**, {counted(len(y_true), 'point')}, "
                           f"{counted(X.shape[1], 'feature')}, "
                           f"{counted(n_classes, 'class', 'classes')} ({names}).")
        back.button("Back to the generated data", on_click=labelling.drop_upload,
                    key=state.DROP_UPLOAD, width="stretch")
        # Their scales in one line, with one click between z-scores and the file's own values
        scales, scaling = st.columns([3, 1], vertical_alignment="center")
        st.session_state[state.STANDARDIZE] = upload.standardized
        scaling.toggle("standardized", key=state.STANDARDIZE, on_change=labelling.set_standardized,
                       help="On: each feature as a z-score (minus its mean, over its standard "
                            "deviation), on by default when the standard deviations differ by "
                            f"more than {SCALE_RATIO:g} times. Off: as the file writes them. The "
                            "labels and true classes stay the file's.")
        scales.caption(scaling_line(upload))
        for note in upload.notes:  # what the reader warned of (a header row with numbers...)
            st.warning(literal(note))
        scored = int(np.sum((labels == UNLABELED) & (y_true != UNLABELED)))
        unlabeled = int(np.sum(labels == UNLABELED))
        st.caption(f"{scored} of the {counted(unlabeled, 'unlabeled point')} "
                   f"{'has' if unlabeled == 1 else 'have'} a true class in the file (its `truth` "
                   "column): the error on the unlabeled points is measured on those." if scored else
                   "No unlabeled point has a true class in the file: the error on the "
                   "unlabeled points is unknown. A column named `truth` gives them.")

# What a click does, the counts, then the chart: at 1024 x 768 the whole chart is on the first
# screen, the box for the keyboard under it.
counts = [int(np.sum(labels == c)) for c in range(n_classes)]
flat = X.shape[1] == 2
BRUSHES, ADDITIONS = brushes(n_classes), additions(n_classes)
if st.session_state[state.BRUSH] not in BRUSHES:  # a class of the data set shown before
    st.session_state[state.BRUSH] = 1
if st.session_state.get(state.ADD_MODE) not in ADDITIONS:
    st.session_state[state.ADD_MODE] = None
st.radio("A click or a box / lasso selection gives points:", list(BRUSHES), key=state.BRUSH,
         format_func=BRUSHES.get, horizontal=True)
add_column, count_column = st.columns([2, 3], vertical_alignment="bottom")
if flat and upload is None:
    add_column.selectbox("A click on empty space adds", list(ADDITIONS), key=state.ADD_MODE,
                         format_func=ADDITIONS.get,
                         help="Grow a cluster or fill a gap, and watch how the solvers react. "
                              "New points sit on a fine grid; an unlabeled one keeps its class "
                              "for the error against the truth.")
for column, (name, count) in zip(
        count_column.columns(n_classes + 1),
        [*((f"class {c} labeled", counts[c]) for c in range(n_classes)),
         ("unlabeled", int(np.sum(labels == UNLABELED)))], strict=True):
    column.metric(name, count)

title = "" if flat else (f"first two principal components of {X.shape[1]}-D data"
                         if data.view.is_projection else
                         f"the line of 1-D data: {literal(data.view.titles[0])}")
adding = flat and upload is None and st.session_state.get(state.ADD_MODE)
empty_space = data.grid(ADD_GRID) if adding else None
n_unlabeled = int(np.sum(labels == UNLABELED))
chart(labeling_figure(data.X2, labels, title, empty_space, n_classes), toolbar=True,
      key=state.LABEL_CHART, on_select=labelling.label_chart_selected,
      selection_mode=("points", "box", "lasso"),
      description=f"{len(labels)} points: " + ", ".join(
          f"{count} labeled class {c}" for c, count in enumerate(counts))
      + f", {n_unlabeled} unlabeled")
# The same labelling by keyboard, in a box under the chart (ui/keyboard.py)
labelling_keys(data.X2, labels, n_classes, on_change=labelling.apply_keys)
st.caption(
    f"Large shapes are labeled points ({', '.join(CLASS_NAMES[:n_classes])}); small grey "
    "circles are unlabeled. Click a point to give it the chosen class (or, by keyboard, in the "
    "box under the chart: the arrow keys move, a number key labels); to label many at once, "
    "pick the box or lasso tool in the chart's toolbar; to add points, choose what a click on "
    "empty space adds. Semi-supervised SVMs use the unlabeled points too: the boundary should "
    "pass through the low-density gaps between them."
    # (an uploaded file's picture fills its chart: engine.data.View.filling)
    + (f" The points spread so much less along one axis that it is drawn as "
       f"{literal(data.view.stretched)}, to fill the chart." if data.view.stretched else "")
)

left, middle, right = st.columns([1.4, 2.6, 2], vertical_alignment="bottom")
number_box(left, K_LABELS, state.K_PER_CLASS)
middle.button("Pick k random labels per class", on_click=labelling.pick_random_labels,
              args=(y_true,), key=state.PICK_RANDOM, width="stretch")
right.button("Clear all labels", on_click=labelling.clear_labels, key=state.CLEAR_LABELS,
             width="stretch")
undo, redo, _ = st.columns([1, 1, 4])
undo.button("↶ Undo", on_click=labelling.undo_labels, key=state.UNDO_LABELS, width="stretch",
            disabled=not labelling.can_step_back(state.LABEL_HISTORY),
            help="Undo the last labelling: a click, a box, random labels, clearing, an added "
                 "point.")
redo.button("↷ Redo", on_click=labelling.redo_labels, key=state.REDO_LABELS, width="stretch",
            disabled=not labelling.can_step_back(state.LABEL_FUTURE), help="Redo what was undone.")
if n_added := len(state.added_points()):
    st.button(f"Remove the {n_added} added point{'s' if n_added > 1 else ''}",
              on_click=labelling.remove_added_points, key=state.REMOVE_ADDED)

if min(counts) > 0:
    solver = st.session_state[state.SOLVER]
    how = {PAPER: "with its parameters as in the paper", DEFAULT: "with its default parameters",
           None: "with the parameters you set"}[
        current_preset(state.presets_data_set(), solver)]
    next_step, go = st.columns([2.6, 1.4], vertical_alignment="center")
    next_step.info(f"Ready to run: {sum(counts)} labeled points (the large shapes) and "
                   f"{n_unlabeled} unlabeled {'one' if n_unlabeled == 1 else 'ones'}. Next, "
                   "**Watch a solver** "
                   f"runs {SOLVERS[solver].title} on them {how}; or click points above to change "
                   "the labels first.")
    go.page_link("pages/watch.py", label="Open the Watch page", icon=":material/play_circle:")
else:
    every = "both" if n_classes == 2 else f"each of the {n_classes} classes"
    st.info("Give at least one point of each class a label (choose the class above, then "
            f"click a point): a classifier needs an example of {every} before it can run.")
if n_classes > 2:
    st.caption(f"{n_classes} classes: the solvers run one-vs-rest, one binary problem per class "
               "(its labeled points against the other labeled points; the unlabeled points stay "
               "unlabeled in each), as the LDS and cS3VM papers do for multi-class sets.")

