"""Every session-state key of the app, and the small functions that read and change them.

Two browser sessions never share this state (Streamlit keeps one ``st.session_state`` per
session). The data set is described by a few numbers and regenerated through a cache; the
labels are a list of class indices (``-1`` = unlabeled).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from toy_data import DATASETS, UNLABELED, pick_labeled
from ui import scenario
from ui.params import (
    BUDGET,
    FILM_SPEEDS,
    K_LABELS,
    LABEL_DRAWS,
    LABELS_PER_DRAW,
    MAX_ADDED,
    MAX_POINTS,
    N_POINTS,
    max_added,
)
from ui.params import SEED as SEED_PARAM
from ui.presets import UPLOADED
from ui.solvers import SOLVERS

# -- keys ----------------------------------------------------------------------------------
DATASET = "dataset"          # registry name (sidebar selectbox)
N_SAMPLES = "n_samples"      # sidebar number input
NOISE = "noise"              # sidebar slider
SEED = "seed"                # sidebar number input
LABELS = "labels"            # list[int], -1 = unlabeled, in data order
LABELS_FOR = "labels_for"    # the data description the labels belong to
LABEL_HISTORY = "label_history"  # before each labelling action: (data, added points, labels)
LABEL_FUTURE = "label_future"    # the same, of the actions undone (for redo)
UNDO_LABELS = "undo_labels"  # Data page button: undo the last labelling action
REDO_LABELS = "redo_labels"  # Data page button: redo it
ADDED = "added_points"       # points added by clicking empty space: [x, y, true class] each
ADDED_FOR = "added_for"      # the generated data set the added points belong to
ADD_MODE = "add_mode"        # what a click on empty space of the Data page's chart adds
UPLOAD = "upload"            # the data set uploaded on the Data page (ui.uploads.Upload) or None
UPLOADER = "uploader"        # the Data page's file uploader
DROP_UPLOAD = "drop_upload"  # Data page button: back to the generated data set
REMOVE_ADDED = "remove_added"  # button: remove the added points
BRUSH = "brush"              # what a click does: 0 or 1 labels with that class, -1 unlabels
K_PER_CLASS = "k_per_class"  # "k random labels per class"
LABEL_CHART = "label_chart"  # the clickable scatter of the Data page (selection state)
SOLVER = "solver"            # the solver picked on the Watch page
PARAMS_PREFIX = "param:"     # one widget key per solver parameter: "param:<solver>:<name>"
TYPED = ":typed"             # a number box's text: "<key>:typed" beside the value under <key>
FRAME = "frame"              # the state shown in detail on the Watch page
FILM = "film"                # the Watch page's player: the state it was paused or stepped to
FILM_JUMP = "film_jump"      # counts the details slider's moves: each makes the player jump
SHOW_BASELINE = "show_baseline"
SCENARIO_LOADED = "scenario_loaded"  # the URL scenario was read once for this session
ERROR = "error"              # message of the last failed action, shown on the next run
LINK_NOTICE = "link_notice"  # what the shared link could not set: (kind, text), shown once
PICK_RANDOM = "pick_random"  # button: k random labels per class
CLEAR_LABELS = "clear_labels"  # button: unlabel every point
REGENERATE = "regenerate"    # sidebar button: its clicks so far (ui.counter), a seed each
REGENERATED = "regenerated"  # the clicks on Regenerate the seed has moved by
PARAMETER_FORM = "parameter_form"  # the Watch page's form of solver parameters
RUN_BUDGET = "run_budget"    # the Watch page's time budget of a run (seconds)
PRESET_APPLIED = "preset_applied"  # {solver: [data set, preset name, n]} last put in its form
WATCH_PRESET = "watch_preset"  # the Watch page's buttons that fill its form with a preset
SCRIPT_RUNS = "script_runs"  # how many times this session's pages have run
# The Watch page's film in class (issue 20); speed, loop and presentation travel in the link.
SHOWN_RUN = "shown_run"      # the film's run (``ui.player.film_id``): a new one opens at its end
FILM_SPEED = "film_speed"    # Play's speed, one of FILM_SPEEDS (set by the player)
FILM_LOOP = "film_loop"      # Play starts over after holding the last frame (set by the player)
PRESENTATION = "presentation"  # Watch page toggle: the film without the parameter form

# -- the teaching pages' and the Compare page's keys -----------------------------------------
CONT_C = "cont_C"                  # Continuation page: C (= C*) of cS3VM
CONT_DIRECTION = "cont_direction"  # Continuation page: direction of the 1-D slice
CONT_SPAN = "cont_span"            # Continuation page: half-width of the slice (in ‖w‖ units)
DA_LOSS = "da_loss"                # Annealing page: the loss V of the run
DA_LAM = "da_lam"                  # Annealing page: lambda of eq. (4)
DA_T_INDEX = "da_t_index"          # Annealing page: the temperature shown (index on the path)
DA_FIXED_T = "da_fixed_t"          # Annealing page: the fixed temperatures run beside DA
ES_GAMMA_I = "es_gamma_I"          # Early stopping page: gamma_I of LapSVM
ES_N_VAL = "es_n_val"              # Early stopping page: size of the validation set
CONT_PRESET = "cont_preset"        # Continuation page: cS3VM's preset (per data set)
DA_PRESET = "da_preset"            # Annealing page: DA's preset (per data set)
ES_PRESET = "es_preset"            # Early stopping page: LapSVM's preset (per data set)
COMPARE_DRAWS = "compare_draws"    # Compare page: number k of label draws
COMPARE_PER_CLASS = "compare_per_class"  # Compare page: labels per class in each draw
COMPARE_SOLVERS = "compare_solvers"      # Compare page: solvers compared (baseline always)
COMPARE_PRESET = "compare_preset"  # Compare page: parameters as in the paper, default, both
COMPARE_RUN = "compare_run"        # Compare page: the run button
COMPARE_RESULTS = "compare_results"  # Compare page: {"key", "scheduler", "rows": [...]}
COMPARE_ON_CLUSTER = "compare_on_cluster"  # Compare page: sweep on the Dask cluster (if set)
COMPARE_FORM = "compare_form"      # Compare page: the form holding its controls

TEACHING_DEFAULTS = {
    CONT_C: 100.0, CONT_DIRECTION: "path", CONT_SPAN: 1.0,
    DA_LOSS: "hinge", DA_LAM: 1e-2, DA_T_INDEX: 0, DA_FIXED_T: [0.1, 0.01, 0.001],
    ES_GAMMA_I: 1.0, ES_N_VAL: 20,
    COMPARE_DRAWS: 5, COMPARE_PER_CLASS: 1, COMPARE_SOLVERS: None, COMPARE_ON_CLUSTER: True,
    COMPARE_PRESET: scenario.DEFAULTS["compare"],
}


#: The number boxes outside the solvers' forms: the key of their value and its spec.
NUMBER_BOXES = {N_SAMPLES: N_POINTS, SEED: SEED_PARAM, RUN_BUDGET: BUDGET,
                K_PER_CLASS: K_LABELS, COMPARE_DRAWS: LABEL_DRAWS,
                COMPARE_PER_CLASS: LABELS_PER_DRAW}

#: Widget keys whose values must survive page switches (Streamlit drops the value of a widget
#: that is not drawn on the current page unless the key is re-assigned on every run).
PERSISTENT = (DATASET, N_SAMPLES, NOISE, SEED, BRUSH, K_PER_CLASS, SOLVER, SHOW_BASELINE,
              RUN_BUDGET, PRESENTATION)

#: A new session's values: a shared link's defaults (``ui.scenario.DEFAULTS``) and the rest.
DEFAULTS = {
    **{key: scenario.DEFAULTS[field] for field, key in (
        ("dataset", DATASET), ("seed", SEED), ("solver", SOLVER), ("budget", RUN_BUDGET),
        ("speed", FILM_SPEED), ("loop", FILM_LOOP), ("presentation", PRESENTATION))},
    N_SAMPLES: DATASETS[scenario.DEFAULTS["dataset"]].n_samples,
    NOISE: DATASETS[scenario.DEFAULTS["dataset"]].noise,
    BRUSH: 1,
    K_PER_CLASS: 1,
    SHOW_BASELINE: True,
}


def init() -> None:
    """Fill missing keys with defaults, read a shared scenario once, keep widget values."""
    state = st.session_state
    state[SCRIPT_RUNS] = state.get(SCRIPT_RUNS, 0) + 1
    for key, value in DEFAULTS.items():
        state.setdefault(key, value)
    if not state.get(SCENARIO_LOADED):
        state[SCENARIO_LOADED] = True
        text = st.query_params.get("scenario")
        if text:
            try:
                notes = load_scenario(text)
            except ValueError as error:
                state[LINK_NOTICE] = ("error", f"The shared link could not be loaded: {error} "
                                      "The app opens with its defaults.")
            else:
                if notes:
                    state[LINK_NOTICE] = ("warning", "Parts of the shared link could not be "
                                          "used:\n" + "\n".join(f"- {n}" for n in notes))
    read_number_boxes()
    for key in PERSISTENT:
        state[key] = state[key]
    for key in [k for k in state if isinstance(k, str)
                and (k.startswith(PARAMS_PREFIX) or k.endswith(TYPED))]:
        state[key] = state[key]


def fresh_page() -> bool:
    """Whether this is the session's first page run (the browser has just opened the app)."""
    return st.session_state.get(SCRIPT_RUNS, 0) <= 1


def generated_description() -> tuple[str, int, float, int]:
    """The generator settings of the current data set: name, n, noise, seed."""
    state = st.session_state
    return (state[DATASET], int(state[N_SAMPLES]), float(state[NOISE]), int(state[SEED]))


def uploaded():
    """The data set uploaded on the Data page (``ui.uploads.Upload``), or None: the
    generator's."""
    return st.session_state.get(UPLOAD)


def presets_data_set() -> str:
    """The data set whose presets the forms offer: the generator's, or ``presets.UPLOADED`` for
    an uploaded file (no paper's setting is meant for it)."""
    return st.session_state[DATASET] if uploaded() is None else UPLOADED


def _data_key() -> tuple:
    """What the labels, added points and undo steps belong to: the generator settings, or
    the uploaded file."""
    upload = uploaded()
    return generated_description() if upload is None else ("upload", upload.digest)


def added_points() -> list[list]:
    """The points added by clicking, ``[x, y, true class]`` each; none once the generated
    data set has changed (they belonged to the old one, and are dropped), none on uploaded
    data."""
    state = st.session_state
    if state.get(ADDED_FOR) != _data_key():
        state[ADDED] = []
    return list(state.get(ADDED, []))


def data_description() -> tuple:
    """The description of the current data set (hashable, for caches): the generator settings
    and the added points, or the uploaded data set (``ui.runs.dataset``'s arguments)."""
    if (upload := uploaded()) is not None:
        return ("upload", 0, 0.0, 0, (), upload)
    return (*generated_description(), tuple(tuple(point) for point in added_points()))


def use_upload() -> None:
    """The Data page's uploader has a new file: read it and make it the data set, its labels
    the labeled points; a file that cannot be read leaves the data and labels as they are,
    and the reason is shown. A callback."""
    from ui.uploads import read_upload

    state = st.session_state
    file = state.get(UPLOADER)
    if file is None:
        return
    try:
        upload = read_upload(file.name, file.getvalue())
    except ValueError as error:
        report_error(f"{error} Your data and labels are unchanged.")
        return
    state[UPLOAD] = upload
    set_labels(upload.y)


def drop_upload() -> None:
    """Back to the generated data set (the Data page's button)."""
    st.session_state[UPLOAD] = None


def add_point(x: float, y: float, true_class: int, labeled: bool) -> None:
    """Add a point of class ``true_class`` at (x, y), labeled or not; its label goes with it.
    A point already there is not added twice (a repeated selection event adds nothing)."""
    state = st.session_state
    points = added_points()
    point = [round(float(x), 4), round(float(y), 4), int(true_class)]
    if any(p[:2] == point[:2] for p in points):
        return
    if len(points) >= max_added(int(state[N_SAMPLES])):
        report_error(f"No more points can be added: at most {MAX_ADDED}, and {MAX_POINTS} in "
                     "all. Remove the added points, or choose a smaller n.")
        return
    current = list(state.get(LABELS, []))
    remember_labels()
    state[ADDED], state[ADDED_FOR] = [*points, point], _data_key()
    set_labels([*current, point[2] if labeled else UNLABELED])


def remove_added_points() -> None:
    """Back to the generated data set; the generated points keep their labels."""
    n_added = len(added_points())
    current = list(st.session_state.get(LABELS, []))
    remember_labels()
    st.session_state[ADDED] = []
    set_labels(current[:len(current) - n_added])


def labels(y_true: np.ndarray) -> np.ndarray:
    """The labels of the current data set.

    When the data set changes, the labels start over with one random label per class, so every
    page has something to show without configuration.
    """
    state = st.session_state
    if state.get(LABELS_FOR) != data_description() or len(state.get(LABELS, [])) != len(y_true):
        upload = uploaded()
        set_labels(pick_labeled(y_true, 1, random_state=int(state[SEED])) if upload is None
                   else upload.y)
    return np.asarray(state[LABELS], dtype=int)


def set_labels(values) -> None:
    st.session_state[LABELS] = [int(v) for v in values]
    st.session_state[LABELS_FOR] = data_description()


def apply_brush(indices) -> None:
    """Give the selected points the brush's class (or unlabel them). Idempotent."""
    current = st.session_state.get(LABELS)
    if current is None:
        return
    updated = list(current)
    for index in indices:
        if 0 <= int(index) < len(updated):
            updated[int(index)] = int(st.session_state[BRUSH])
    if updated != current:  # (a repeated selection event is no new action to undo)
        remember_labels()
        set_labels(updated)


def clear_labels() -> None:
    """Unlabel every point (the Data page's button)."""
    remember_labels()
    set_labels([UNLABELED] * len(st.session_state.get(LABELS, [])))


#: Labelling actions a session can undo.
UNDO_STEPS = 50


def _snapshot() -> tuple:
    state = st.session_state
    return _data_key(), list(added_points()), list(state.get(LABELS, []))


def remember_labels() -> None:
    """Before a labelling action (a click, a box, random labels, clearing, adding points):
    keep what it changes, so that Undo brings it back."""
    state = st.session_state
    state[LABEL_HISTORY] = [*state.get(LABEL_HISTORY, [])[1 - UNDO_STEPS:], _snapshot()]
    state[LABEL_FUTURE] = []


def _step_back(source: str, target: str) -> None:
    """Undo (from the history to the future) or redo (the other way): the latest snapshot of
    this data set in ``source`` replaces labels and added points; what it replaced goes to
    ``target``. Snapshots of another data set (the seed or n changed since) are dropped."""
    state = st.session_state
    generated = _data_key()
    kept = [s for s in state.get(source, []) if s[0] == generated]
    if not kept:
        state[source] = []
        return
    *state[source], (_, added, labels) = kept
    state[target] = [*state.get(target, []), _snapshot()]
    state[ADDED], state[ADDED_FOR] = added, generated
    set_labels(labels)


def undo_labels() -> None:
    _step_back(LABEL_HISTORY, LABEL_FUTURE)


def redo_labels() -> None:
    _step_back(LABEL_FUTURE, LABEL_HISTORY)


def can_step_back(source: str) -> bool:
    """Whether ``source`` (``LABEL_HISTORY``: undo, ``LABEL_FUTURE``: redo) has a step for the
    data set on screen."""
    generated = _data_key()
    return any(s[0] == generated for s in st.session_state.get(source, []))


def follow_film(frame_states: list[int]) -> None:
    """The Watch page's player stopped on a state (Pause, Step, the scrubber, the end of Play):
    its details are shown (one of ``frame_states``, the film's); or its speed or loop changed:
    they are kept (the share link carries them). A callback of the player."""
    state = st.session_state
    report = state[FILM]
    if report is None or report.get("film") != state.get(SHOWN_RUN):
        return  # a report of a film no longer shown
    if report.get("state") in frame_states:
        state[FRAME] = report["state"]
    if report.get("speed") in FILM_SPEEDS:
        state[FILM_SPEED] = float(report["speed"])
    state[FILM_LOOP] = bool(report.get("loop"))


def jump_film() -> None:
    """The details slider moved: the player jumps to its state."""
    st.session_state[FILM_JUMP] = st.session_state.get(FILM_JUMP, 0) + 1


def label_chart_selected() -> None:
    """The Data page's chart reports a selection (a click, a box, a lasso): the selected points
    take the brush's class, and a single click on empty space adds the point chosen there.
    Runs before the page; the same selection twice changes nothing (``apply_brush`` and
    ``add_point`` are idempotent)."""
    selection = st.session_state[LABEL_CHART]["selection"]
    points, empty_space = [], []
    for point in selection["points"]:
        (points if point.get("curve_number", 0) == 0 else empty_space).append(point)
    indices = [point["customdata"] for point in points if "customdata" in point]
    apply_brush([i[0] if isinstance(i, list) else i for i in indices])
    addition = st.session_state.get(ADD_MODE)
    # a single click only: a box or a lasso over empty space would add a point per grid node
    if addition and len(empty_space) == 1 and not (selection.get("box") or selection.get("lasso")):
        true_class, labeled = addition
        add_point(empty_space[0]["x"], empty_space[0]["y"], true_class, labeled)


def pick_random_labels(y_true) -> None:
    """k random labels per class (the Data page's box), or the reason none were picked."""
    try:
        k = K_LABELS.check(typed_value(K_LABELS, K_PER_CLASS))
        remember_labels()
        set_labels(pick_labeled(y_true, k,
                                random_state=int(np.random.default_rng().integers(2**31))))
    except ValueError as error:
        report_error(f"{error} No labels were picked.")


def typed_key(key: str) -> str:
    """The key of the box in which the number under ``key`` is typed (``ui.forms.number_box``):
    the text as typed, beside the value it stands for."""
    return f"{key}{TYPED}"


def typed_value(param, key: str):
    """The value of a number box (``ui.forms.number_box``) as typed, for a callback: it runs
    before the page, which reads the box again, so a box changed in the same rerun as a click
    would still hold its old value under ``key``."""
    state = st.session_state
    return param.parse(state[typed_key(key)]) if typed_key(key) in state else state.get(key)


def read_number_boxes() -> None:
    """What was typed into a number box (``ui.forms.number_box``) since it was last read
    becomes its value, first thing in a run: the sidebar (its share link) and the page read
    the values before the boxes are drawn again."""
    state = st.session_state
    for key in [k for k in state if isinstance(k, str) and k.endswith(TYPED)]:
        value_key = key.removesuffix(TYPED)
        if (param := box_param(value_key)) is not None:
            typed = param.parse(state[key])
            if state.get(read_key(value_key), typed) != typed:
                state[value_key] = state[read_key(value_key)] = typed


def box_param(key: str):
    """The ``Param`` of the number box of the value under ``key`` (None for no box)."""
    if key.startswith(PARAMS_PREFIX):
        solver, name = key.removeprefix(PARAMS_PREFIX).split(":", 1)
        return next((p for p in SOLVERS[solver].params if p.name == name), None)
    return NUMBER_BOXES.get(key)


def read_key(key: str) -> str:
    """The key of the value ``ui.forms.number_box`` last read from its box: when the value
    under ``key`` differs, it was set elsewhere, and the box shows it anew."""
    return f"{key}:read"


def solver_param_key(solver: str, name: str) -> str:
    return f"{PARAMS_PREFIX}{solver}:{name}"


def take_error() -> str | None:
    """The message of a failed action (from a callback), once."""
    return st.session_state.pop(ERROR, None)


def report_error(message: str) -> None:
    st.session_state[ERROR] = message


def preset_widget_key(name: str, dataset: str, preset: str | None = None) -> str:
    """The key of a teaching page's control whose starting value depends on the data set (and
    on the preset chosen for it), e.g. "da_lam:two_moons:paper": another data set or preset
    starts from its own value, and each keeps what the user set there."""
    return ":".join([name, dataset, *([preset] if preset else [])])


def keep_preset_widget(name: str, dataset: str, preset: str | None, initial) -> str:
    """``preset_widget_key``'s key, given ``initial`` the first time (and kept across reruns
    like ``keep_teaching_widgets``)."""
    state = st.session_state
    key = preset_widget_key(name, dataset, preset)
    state.setdefault(key, initial)
    state[key] = state[key]
    return key


def keep_teaching_widgets(*names: str) -> None:
    """Give the teaching pages' widgets their defaults through the session state.

    The widgets are then created without ``value=`` (no "default and Session State" warning).
    Streamlit forgets a widget's value when a page without it runs, so after a page switch
    these controls start from ``TEACHING_DEFAULTS`` again (only ``PERSISTENT`` keys survive).
    """
    state = st.session_state
    for name in names:
        if name not in state and TEACHING_DEFAULTS.get(name) is not None:
            state[name] = TEACHING_DEFAULTS[name]
        if name in state:
            state[name] = state[name]


# -- shareable scenario ------------------------------------------------------------------


def form_values(solver: str) -> dict:
    """The values of ``solver``'s form in the session (its defaults where it was not drawn)."""
    state = st.session_state
    return {p.name: p.from_widget(state.get(solver_param_key(solver, p.name), p.default))
            for p in SOLVERS[solver].params}


def set_form_values(solver: str, values: dict) -> None:
    """Put ``values`` (by parameter name) into ``solver``'s form in the session."""
    params = {p.name: p for p in SOLVERS[solver].params}
    for name, value in values.items():
        st.session_state[solver_param_key(solver, name)] = params[name].to_widget(value)


def scenario_text() -> str:
    """The session's scenario as the share link carries it (``ui.scenario.describe``)."""
    state = st.session_state
    name, n_samples, noise, seed = generated_description()
    solver = state[SOLVER]
    drawn = {p.name for p in SOLVERS[solver].params if solver_param_key(solver, p.name) in state}
    params = {name: value for name, value in form_values(solver).items() if name in drawn}
    return scenario.to_text(scenario.describe(
        dataset=name, n=n_samples, noise=noise, seed=seed, labels=state.get(LABELS, []),
        points=added_points(), solver=solver, params=params, form=form_values(solver),
        budget=state[RUN_BUDGET], speed=state[FILM_SPEED], loop=state[FILM_LOOP],
        presentation=state[PRESENTATION],
        compare=state.get(COMPARE_PRESET, TEACHING_DEFAULTS[COMPARE_PRESET]),
        uploaded=None if uploaded() is None else uploaded().name))


#: The session key of each scenario field that is kept as it is read.
_SCENARIO_KEYS = {"dataset": DATASET, "n": N_SAMPLES, "noise": NOISE, "seed": SEED,
                  "solver": SOLVER, "budget": RUN_BUDGET, "speed": FILM_SPEED,
                  "loop": FILM_LOOP, "presentation": PRESENTATION, "compare": COMPARE_PRESET}


def load_scenario(text: str) -> list[str]:
    """Make a shared scenario the session's state; return sentences on what it could not use
    (``ui.scenario.parse``, which raises ``ValueError`` when the text is no scenario)."""
    values, notes = scenario.parse(text)
    state = st.session_state
    for field, key in _SCENARIO_KEYS.items():
        if field in values:
            state[key] = values[field]
    solver = values["solver"]
    set_form_values(solver, values.get("params", {}))
    if "preset" in values:
        state[PRESET_APPLIED] = {solver: [values["dataset"], values["preset"], values["n"]]}
    state[UPLOAD] = None
    state[ADDED], state[ADDED_FOR] = values["points"], _data_key()
    if "labels" in values:
        set_labels(values["labels"])
    return notes
