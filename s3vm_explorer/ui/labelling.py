"""The Data page's actions on the session's labels and points: the brush (a click, a box or a
lasso labels points with the current class), points added by clicking empty space, random
labels, clearing, an uploaded file, and undo / redo of every one of them. Callbacks of the
page's widgets: they run before the page, and the same event twice changes nothing. The
keyboard's actions (``ui.keyboard``) are the same actions, point by point."""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from s3vm_explorer.engine.data import read_upload
from s3vm_explorer.engine.params import K_LABELS, MAX_ADDED, MAX_POINTS, max_added
from s3vm_explorer.ui import state as keys
from s3vm_explorer.ui.forms import typed_value
from s3vm_explorer.ui.keyboard import new_actions
from s3vm_explorer.ui.runs import dataset
from toy_data import UNLABELED, pick_labeled, pick_labeled_at_random


def use_upload() -> None:
    """The Data page's uploader has a new file: read it and make it the data set, its labels
    the labeled points; a file that cannot be read leaves the data and labels as they are,
    and the reason is shown. A callback."""
    state = st.session_state
    file = state.get(keys.UPLOADER)
    if file is None:
        return
    try:
        # standardized when its features' scales differ, unless a shared link said otherwise
        upload = read_upload(file.name, file.getvalue(), state.get(keys.LINK_STANDARDIZE))
    except ValueError as error:
        keys.report_error(f"{error} Your data and labels are unchanged.")
        return
    state[keys.LINK_STANDARDIZE] = None  # said of one file: the next is judged by its scales
    state[keys.UPLOAD] = upload
    keys.set_labels(upload.y)


def drop_upload() -> None:
    """Back to the generated data set (the Data page's button)."""
    st.session_state[keys.UPLOAD] = None


def set_standardized() -> None:
    """The Data page's toggle: the uploaded file's features as z-scores, or as the file writes
    them. The labels, and the labelling steps to undo and redo, stay with the file. A
    callback."""
    state = st.session_state
    upload, on = keys.uploaded(), bool(state.get(keys.STANDARDIZE))
    if upload is None or upload.standardized == on:
        return
    scaled = dataclasses.replace(upload, standardized=on)
    for steps in (keys.LABEL_HISTORY, keys.LABEL_FUTURE):
        state[steps] = [(scaled if step[0] == upload else step[0], *step[1:])
                        for step in state.get(steps, [])]
    labels, by_hand = list(state.get(keys.LABELS, [])), keys.labels_by_hand()
    state[keys.UPLOAD] = scaled
    keys.set_labels(labels, by_hand)


def add_point(x: float, y: float, true_class: int, labeled: bool) -> None:
    """Add a point of class ``true_class`` at (x, y), labeled or not; its label goes with it.
    A point already there is not added twice (a repeated selection event adds nothing)."""
    state = st.session_state
    points = keys.added_points()
    point = [round(float(x), 4), round(float(y), 4), int(true_class)]
    if any(p[:2] == point[:2] for p in points):
        return
    if len(points) >= max_added(int(state[keys.N_SAMPLES])):
        keys.report_error(f"No more points can be added: at most {MAX_ADDED}, and {MAX_POINTS} in "
                     "all. Remove the added points, or choose a smaller n.")
        return
    current = list(state.get(keys.LABELS, []))
    remember_labels()
    state[keys.ADDED], state[keys.ADDED_FOR] = [*points, point], keys.data_key()
    keys.set_labels([*current, point[2] if labeled else UNLABELED],
                    by_hand=labeled or keys.labels_by_hand())


def remove_added_points() -> None:
    """Back to the generated data set; the generated points keep their labels."""
    n_added = len(keys.added_points())
    current = list(st.session_state.get(keys.LABELS, []))
    remember_labels()
    st.session_state[keys.ADDED] = []
    keys.set_labels(current[:len(current) - n_added])


def apply_brush(indices, label: int | None = None) -> None:
    """Give the selected points the brush's class, or ``label`` (``UNLABELED`` unlabels them).
    Idempotent."""
    current = st.session_state.get(keys.LABELS)
    if current is None:
        return
    label = int(st.session_state[keys.BRUSH]) if label is None else int(label)
    updated = list(current)
    for index in indices:
        if 0 <= int(index) < len(updated):
            updated[int(index)] = label
    if updated != current:  # (a repeated selection event is no new action to undo)
        remember_labels()
        keys.set_labels(updated, by_hand=True)


def clear_labels() -> None:
    """Unlabel every point (the Data page's button)."""
    remember_labels()
    keys.set_labels([UNLABELED] * len(st.session_state.get(keys.LABELS, [])))


#: Labelling actions a session can undo.
UNDO_STEPS = 50


def _snapshot() -> tuple:
    state = st.session_state
    return keys.data_key(), list(keys.added_points()), list(state.get(keys.LABELS, []))


def remember_labels() -> None:
    """Before a labelling action (a click, a box, random labels, clearing, adding points):
    keep what it changes, so that Undo brings it back."""
    state = st.session_state
    state[keys.LABEL_HISTORY] = [*state.get(keys.LABEL_HISTORY, [])[1 - UNDO_STEPS:], _snapshot()]
    state[keys.LABEL_FUTURE] = []


def _step_back(source: str, target: str) -> None:
    """Undo (from the history to the future) or redo (the other way): the latest snapshot of
    this data set in ``source`` replaces labels and added points; what it replaced goes to
    ``target``. Snapshots of another data set (the seed or n changed since) are dropped."""
    state = st.session_state
    generated = keys.data_key()
    kept = [s for s in state.get(source, []) if s[0] == generated]
    if not kept:
        state[source] = []
        return
    *state[source], (_, added, labels) = kept
    state[target] = [*state.get(target, []), _snapshot()]
    state[keys.ADDED], state[keys.ADDED_FOR] = added, generated
    keys.set_labels(labels)


def undo_labels() -> None:
    _step_back(keys.LABEL_HISTORY, keys.LABEL_FUTURE)


def redo_labels() -> None:
    _step_back(keys.LABEL_FUTURE, keys.LABEL_HISTORY)


def can_step_back(source: str) -> bool:
    """Whether ``source`` (``LABEL_HISTORY``: undo, ``LABEL_FUTURE``: redo) has a step for the
    data set on screen."""
    generated = keys.data_key()
    return any(s[0] == generated for s in st.session_state.get(source, []))


def label_chart_selected() -> None:
    """The Data page's chart reports a selection (a click, a box, a lasso): the selected points
    take the brush's class, and a single click on empty space adds the point chosen there.
    Runs before the page; the same selection twice changes nothing (``apply_brush`` and
    ``add_point`` are idempotent)."""
    selection = st.session_state[keys.LABEL_CHART]["selection"]
    points, empty_space = [], []
    for point in selection["points"]:
        (points if point.get("curve_number", 0) == 0 else empty_space).append(point)
    indices = [point["customdata"] for point in points if "customdata" in point]
    apply_brush([i[0] if isinstance(i, list) else i for i in indices])
    addition = st.session_state.get(keys.ADD_MODE)
    # a single click only: a box or a lasso over empty space would add a point per grid node
    if addition and len(empty_space) == 1 and not (selection.get("box") or selection.get("lasso")):
        true_class, labeled = addition
        add_point(empty_space[0]["x"], empty_space[0]["y"], true_class, labeled)


def apply_keys() -> None:
    """The Data page's keyboard labelling (``ui.keyboard``) reports its actions: each one not
    applied yet labels or unlabels a point, or undoes or redoes, in the order of the keys. A
    callback."""
    n_points = len(st.session_state.get(keys.LABELS, []))
    for action in new_actions():
        if action.get("action") == "undo":
            undo_labels()
        elif action.get("action") == "redo":
            redo_labels()
        elif action.get("action") == "label" and 0 <= int(action.get("point", -1)) < n_points:
            label = int(action.get("label", UNLABELED))
            apply_brush([int(action["point"])], UNLABELED if label < 0 else label)


def pick_random_labels(y_true) -> None:
    """k random labels per class (the Data page's box), or the reason none were picked."""
    try:
        k = K_LABELS.check(typed_value(K_LABELS, keys.K_PER_CLASS))
        remember_labels()
        keys.set_labels(pick_labeled(y_true, k,
                                random_state=int(np.random.default_rng().integers(2**31))))
    except ValueError as error:
        keys.report_error(f"{error} No labels were picked.")


def label_in_proportion(n_labeled: int) -> None:
    """As many labels as now, drawn at random in the data's own proportions of the classes
    (at least one of each): the balance the solvers take from the labels is then the data's.
    The Watch page's offer beside labels picked by hand."""
    y_true = dataset(keys.data_source()).y_true
    remember_labels()
    keys.set_labels(pick_labeled_at_random(
        y_true, n_labeled, random_state=int(np.random.default_rng().integers(2**31))))
