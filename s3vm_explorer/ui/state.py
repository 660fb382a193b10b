"""Every session-state key of the app, with a comment each, and the small functions that
read them and set them: nothing else (what the pages do with them is in the other ui modules).

Two browser sessions never share this state (Streamlit keeps one ``st.session_state`` per
session). The data set is described by a few values (``data_source``, an ``engine.data``
source) and built through a cache; the labels are a list of class indices (``-1`` =
unlabeled).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from s3vm_explorer.engine import hurt, presets, scenario
from s3vm_explorer.engine.data import DataSource, Generated
from s3vm_explorer.engine.params import BUDGET, K_LABELS, LABEL_DRAWS, LABELS_PER_DRAW, N_POINTS
from s3vm_explorer.engine.params import SEED as SEED_PARAM
from s3vm_explorer.engine.registry import SOLVERS
from toy_data import DATASETS, pick_labeled

# -- keys ----------------------------------------------------------------------------------
DATASET = "dataset"          # registry name (sidebar selectbox)
N_SAMPLES = "n_samples"      # sidebar number input
NOISE = "noise"              # sidebar slider
SEED = "seed"                # sidebar number input
LABELS = "labels"            # list[int], -1 = unlabeled, in data order
LABELS_FOR = "labels_for"    # the data description the labels belong to
LABELS_BY_HAND = "labels_by_hand"  # the labels were picked by hand (brush, box, a click):
                                   # their classes' shares are the user's, not the data's
LABEL_HISTORY = "label_history"  # before each labelling action: (data, added points, labels)
LABEL_FUTURE = "label_future"    # the same, of the actions undone (for redo)
UNDO_LABELS = "undo_labels"  # Data page button: undo the last labelling action
REDO_LABELS = "redo_labels"  # Data page button: redo it
ADDED = "added_points"       # points added by clicking empty space: [x, y, true class] each
ADDED_FOR = "added_for"      # the generated data set the added points belong to
ADD_MODE = "add_mode"        # what a click on empty space of the Data page's chart adds
UPLOAD = "upload"            # the data set uploaded on the Data page (engine.data.Upload) or None
UPLOADER = "uploader"        # the Data page's file uploader
STANDARDIZE = "standardize"  # Data page toggle: the uploaded file's features as z-scores
LINK_STANDARDIZE = "link_standardize"  # a link's say on standardizing the next upload, or None
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
LESSON = "lesson"            # the lesson open: {"page", "step", "revealed"} (ui.guide) or None
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
MINIMA_DATA = "minima_data"        # Local minima page: its small data set
MINIMA_N = "minima_n"              # Local minima page: its number of points
MINIMA_DRAWS = "minima_draws"      # Local minima page: its label draws
MINIMA_SIGMA = "minima_sigma"      # Local minima page: the kernel width, "paper" or "median"
#: When unlabeled data hurt page: its controls by the share link's names (``engine.hurt``)
HURT = {name: f"hurt_{name}" for name in hurt.SETTINGS}

TEACHING_DEFAULTS = {
    CONT_C: 100.0, CONT_DIRECTION: "path", CONT_SPAN: 1.0,
    DA_LOSS: "hinge", DA_LAM: 1e-2, DA_T_INDEX: 0, DA_FIXED_T: [0.1, 0.01, 0.001],
    ES_GAMMA_I: 1.0, ES_N_VAL: 20,
    COMPARE_DRAWS: LABEL_DRAWS.default, COMPARE_PER_CLASS: 1, COMPARE_SOLVERS: None,
    COMPARE_ON_CLUSTER: True,
    COMPARE_PRESET: scenario.DEFAULTS["compare"],
    MINIMA_DATA: "two_moons", MINIMA_N: 40, MINIMA_DRAWS: 5, MINIMA_SIGMA: "paper",
    **{HURT[name]: value for name, value in hurt.DEFAULTS.items()},
}


#: The number boxes outside the solvers' forms: the key of their value and its spec.
NUMBER_BOXES = {N_SAMPLES: N_POINTS, SEED: SEED_PARAM, RUN_BUDGET: BUDGET,
                K_PER_CLASS: K_LABELS, COMPARE_DRAWS: LABEL_DRAWS,
                COMPARE_PER_CLASS: LABELS_PER_DRAW}

#: Widget keys whose values must survive page switches (Streamlit drops the value of a widget
#: that is not drawn on the current page unless the key is re-assigned on every run).
PERSISTENT = (DATASET, N_SAMPLES, NOISE, SEED, BRUSH, K_PER_CLASS, SOLVER, SHOW_BASELINE,
              RUN_BUDGET, PRESENTATION)

#: A new session's values: a shared link's defaults (``engine.scenario.DEFAULTS``) and the rest.
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
    """Fill missing keys with defaults and keep widget values (first thing on every page,
    then ``ui.forms.read_number_boxes``, before ``ui.share.open_link``)."""
    state = st.session_state
    state[SCRIPT_RUNS] = state.get(SCRIPT_RUNS, 0) + 1
    for key, value in DEFAULTS.items():
        state.setdefault(key, value)
    for key in PERSISTENT:
        state[key] = state[key]
    for key in [k for k in state if isinstance(k, str)
                and (k.startswith(PARAMS_PREFIX) or k.endswith(TYPED))]:
        state[key] = state[key]


def fresh_page() -> bool:
    """Whether this is the session's first page run (the browser has just opened the app)."""
    return st.session_state.get(SCRIPT_RUNS, 0) <= 1


def generated() -> Generated:
    """The generator's data set in the sidebar's settings, with no added points."""
    state = st.session_state
    return Generated(state[DATASET], int(state[N_SAMPLES]), float(state[NOISE]),
                     int(state[SEED]))


def uploaded():
    """The data set uploaded on the Data page (``engine.data.Upload``), or None: the
    generator's."""
    return st.session_state.get(UPLOAD)


def presets_data_set() -> str:
    """The data set whose presets the forms offer: the generator's, or ``presets.UPLOADED`` for
    an uploaded file (no paper's setting is meant for it)."""
    return presets.presets_data_set(data_source())


def data_key() -> DataSource:
    """What the labels, added points and undo steps belong to: the generator settings, or
    the uploaded file."""
    upload = uploaded()
    return generated() if upload is None else upload


def added_points() -> list[list]:
    """The points added by clicking, ``[x, y, true class]`` each; none once the generated
    data set has changed (they belonged to the old one, and are dropped), none on uploaded
    data."""
    state = st.session_state
    if state.get(ADDED_FOR) != data_key():
        state[ADDED] = []
    return list(state.get(ADDED, []))


def data_source() -> DataSource:
    """Where the current data set comes from (hashable, for caches): the generator's settings
    with the added points, or the uploaded file."""
    if (upload := uploaded()) is not None:
        return upload
    return dataclasses.replace(generated(), added=tuple(tuple(p) for p in added_points()))


def labels(y_true: np.ndarray) -> np.ndarray:
    """The labels of the current data set.

    When the data set changes, the labels start over with one random label per class, so every
    page has something to show without configuration.
    """
    state = st.session_state
    if state.get(LABELS_FOR) != data_source() or len(state.get(LABELS, [])) != len(y_true):
        upload = uploaded()
        set_labels(pick_labeled(y_true, 1, random_state=int(state[SEED])) if upload is None
                   else upload.y)
    return np.asarray(state[LABELS], dtype=int)


def set_labels(values, by_hand: bool = False) -> None:
    """The labels of the current data set (``-1`` unlabeled); ``by_hand`` when a user picked
    them point by point (their shares of the classes are then the user's)."""
    st.session_state[LABELS] = [int(v) for v in values]
    st.session_state[LABELS_FOR] = data_source()
    st.session_state[LABELS_BY_HAND] = by_hand


def labels_by_hand() -> bool:
    return bool(st.session_state.get(LABELS_BY_HAND))


def typed_key(key: str) -> str:
    """The key of the box in which the number under ``key`` is typed (``ui.forms.number_box``):
    the text as typed, beside the value it stands for."""
    return f"{key}{TYPED}"


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


