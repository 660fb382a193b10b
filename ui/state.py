"""Every session-state key of the app, and the small functions that read and change them.

Two browser sessions never share this state (Streamlit keeps one ``st.session_state`` per
session). The data set is described by a few numbers and regenerated through a cache; the
labels are a list of class indices (``-1`` = unlabeled).
"""

from __future__ import annotations

import json
import math

import numpy as np
import streamlit as st

from toy_data import DATASETS, UNLABELED, pick_labeled

# -- keys ----------------------------------------------------------------------------------
DATASET = "dataset"          # registry name (sidebar selectbox)
N_SAMPLES = "n_samples"      # sidebar number input
NOISE = "noise"              # sidebar slider
SEED = "seed"                # sidebar number input
LABELS = "labels"            # list[int], -1 = unlabeled, in data order
LABELS_FOR = "labels_for"    # the data description the labels belong to
ADDED = "added_points"       # points added by clicking empty space: [x, y, true class] each
ADDED_FOR = "added_for"      # the generated data set the added points belong to
ADD_MODE = "add_mode"        # what a click on empty space of the Data page's chart adds
REMOVE_ADDED = "remove_added"  # button: remove the added points
BRUSH = "brush"              # what a click does: 0 or 1 labels with that class, -1 unlabels
K_PER_CLASS = "k_per_class"  # "k random labels per class"
LABEL_CHART = "label_chart"  # the clickable scatter of the Data page (selection state)
SOLVER = "solver"            # the solver picked on the Watch page
PARAMS_PREFIX = "param:"     # one widget key per solver parameter: "param:<solver>:<name>"
FRAME = "frame"              # the state shown in detail on the Watch page
FILM = "film"                # the Watch page's player: the state it was paused or stepped to
FILM_JUMP = "film_jump"      # counts the details slider's moves: each makes the player jump
SHOW_BASELINE = "show_baseline"
SCENARIO_LOADED = "scenario_loaded"  # the URL scenario was read once for this session
ERROR = "error"              # message of the last failed action, shown on the next run
PICK_RANDOM = "pick_random"  # button: k random labels per class
CLEAR_LABELS = "clear_labels"  # button: unlabel every point
REGENERATE = "regenerate"    # sidebar button: next seed
PARAMETER_FORM = "parameter_form"  # the Watch page's form of solver parameters
# The Watch page's film in class (issue 20); speed, loop and presentation travel in the link.
SHOWN_RUN = "shown_run"      # the film's run (``ui.player.film_id``): a new one opens at its end
FILM_SPEED = "film_speed"    # Play's speed, one of FILM_SPEEDS (set by the player)
FILM_LOOP = "film_loop"      # Play starts over after holding the last frame (set by the player)
PRESENTATION = "presentation"  # Watch page toggle: the film without the parameter form
FILM_SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)

#: Widget keys whose values must survive page switches (Streamlit drops the value of a widget
#: that is not drawn on the current page unless the key is re-assigned on every run).
PERSISTENT = (DATASET, N_SAMPLES, NOISE, SEED, BRUSH, K_PER_CLASS, SOLVER, SHOW_BASELINE,
              PRESENTATION)

DEFAULTS = {
    DATASET: "two_moons",
    N_SAMPLES: DATASETS["two_moons"].n_samples,
    NOISE: DATASETS["two_moons"].noise,
    SEED: 0,
    BRUSH: 1,
    K_PER_CLASS: 1,
    SOLVER: "SVMBaseline",
    SHOW_BASELINE: True,
    FILM_SPEED: 1.0,
    FILM_LOOP: False,
    PRESENTATION: False,
}

#: Largest data set the app draws; kernels of this size stay interactive.
MAX_POINTS = 2000


def init() -> None:
    """Fill missing keys with defaults, read a shared scenario once, keep widget values."""
    state = st.session_state
    for key, value in DEFAULTS.items():
        state.setdefault(key, value)
    if not state.get(SCENARIO_LOADED):
        state[SCENARIO_LOADED] = True
        text = st.query_params.get("scenario")
        if text:
            try:
                load_scenario(text)
            except ValueError as error:
                state[ERROR] = f"The shared link could not be loaded: {error}"
    for key in PERSISTENT:
        state[key] = state[key]
    for key in [k for k in state if isinstance(k, str) and k.startswith(PARAMS_PREFIX)]:
        state[key] = state[key]


def generated_description() -> tuple[str, int, float, int]:
    """The generator settings of the current data set: name, n, noise, seed."""
    state = st.session_state
    return (state[DATASET], int(state[N_SAMPLES]), float(state[NOISE]), int(state[SEED]))


def added_points() -> list[list]:
    """The points added by clicking, ``[x, y, true class]`` each; none once the generated
    data set has changed (they belonged to the old one, and are dropped)."""
    state = st.session_state
    if state.get(ADDED_FOR) != generated_description():
        state[ADDED] = []
    return list(state.get(ADDED, []))


def data_description() -> tuple:
    """The description of the current data set (hashable, for caches): the generator settings
    and the added points (``ui.caching.dataset``'s arguments)."""
    return (*generated_description(), tuple(tuple(point) for point in added_points()))


#: Most points a user may add by clicking (and the data set stays within MAX_POINTS).
MAX_ADDED = 200


def max_added(n_generated: int) -> int:
    return max(0, min(MAX_ADDED, MAX_POINTS - n_generated))


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
    state[ADDED], state[ADDED_FOR] = [*points, point], generated_description()
    set_labels([*current, point[2] if labeled else UNLABELED])


def remove_added_points() -> None:
    """Back to the generated data set; the generated points keep their labels."""
    n_added = len(added_points())
    current = list(st.session_state.get(LABELS, []))
    st.session_state[ADDED] = []
    set_labels(current[:len(current) - n_added])


def labels(y_true: np.ndarray) -> np.ndarray:
    """The labels of the current data set.

    When the data set changes, the labels start over with one random label per class, so every
    page has something to show without configuration.
    """
    state = st.session_state
    if state.get(LABELS_FOR) != data_description() or len(state.get(LABELS, [])) != len(y_true):
        set_labels(pick_labeled(y_true, 1, random_state=int(state[SEED])))
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
    set_labels(updated)


def solver_param_key(solver: str, name: str) -> str:
    return f"{PARAMS_PREFIX}{solver}:{name}"


def take_error() -> str | None:
    """The message of a failed action (from a callback), once."""
    return st.session_state.pop(ERROR, None)


def report_error(message: str) -> None:
    st.session_state[ERROR] = message


# -- shareable scenario ------------------------------------------------------------------


def scenario() -> dict:
    """A JSON-able description of what is on screen: data set, labels, solver."""
    state = st.session_state
    name, n_samples, noise, seed = generated_description()
    labeled = {str(i): c for i, c in enumerate(state.get(LABELS, [])) if c != UNLABELED}
    params = {
        key.rsplit(":", 1)[1]: state[key]
        for key in state
        if isinstance(key, str) and key.startswith(f"{PARAMS_PREFIX}{state[SOLVER]}:")
    }
    described = {"dataset": name, "n": n_samples, "noise": noise, "seed": seed,
                 "labels": labeled, "solver": state[SOLVER], "params": params,
                 "speed": state[FILM_SPEED], "loop": state[FILM_LOOP],
                 "presentation": state[PRESENTATION]}
    if points := added_points():
        described["points"] = points
    return described


def scenario_query() -> str:
    return json.dumps(scenario(), separators=(",", ":"), sort_keys=True)


def load_scenario(text: str) -> None:
    """Validate a scenario's JSON and make it the session's state (never unpickled)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError("it is not valid JSON.") from error
    if not isinstance(data, dict):
        raise ValueError("it must describe a scenario as a JSON object.")
    name = data.get("dataset", DEFAULTS[DATASET])
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}.")
    n = data.get("n", DATASETS[name].n_samples)
    noise = data.get("noise", DATASETS[name].noise)
    seed = data.get("seed", 0)
    if not (isinstance(n, int) and 4 <= n <= MAX_POINTS):
        raise ValueError(f"n must be an integer between 4 and {MAX_POINTS}.")
    if not (isinstance(noise, int | float) and 0 <= noise <= 10):
        raise ValueError("noise must be a number between 0 and 10.")
    if not (isinstance(seed, int) and 0 <= seed < 2**31):
        raise ValueError("seed must be a non-negative integer.")
    points = _valid_points(data.get("points", []), name, max_added(n))
    film = _valid_film(data)
    raw_labels = data.get("labels", {})
    if not isinstance(raw_labels, dict):
        raise ValueError("labels must map point indices to classes 0 or 1.")
    values = [UNLABELED] * (n + len(points))
    for index, cls in raw_labels.items():
        if not (str(index).isdigit() and int(index) < len(values) and cls in (0, 1)):
            raise ValueError(f"label {index!r}: {cls!r} is not a point index with class 0 or 1.")
        values[int(index)] = cls
    state = st.session_state
    state[DATASET], state[N_SAMPLES], state[NOISE], state[SEED] = name, n, float(noise), seed
    state[ADDED], state[ADDED_FOR] = points, generated_description()
    set_labels(values)
    state.update(film)
    solver = data.get("solver")
    if isinstance(solver, str):
        state[SOLVER] = solver
        for key, value in (data.get("params") or {}).items():
            if isinstance(value, int | float | str | bool):
                state[solver_param_key(solver, str(key))] = value


def _valid_film(data: dict) -> dict:
    """A scenario's film settings (speed, loop, presentation), checked, as session values."""
    speed = data.get("speed", DEFAULTS[FILM_SPEED])
    if isinstance(speed, bool) or speed not in FILM_SPEEDS:
        raise ValueError(f"speed must be one of {', '.join(f'{s:g}' for s in FILM_SPEEDS)}.")
    film = {FILM_SPEED: float(speed)}
    for key, name in ((FILM_LOOP, "loop"), (PRESENTATION, "presentation")):
        film[key] = data.get(name, DEFAULTS[key])
        if not isinstance(film[key], bool):
            raise ValueError(f"{name} must be true or false.")
    return film


def _valid_points(points, name: str, most: int) -> list[list]:
    """A scenario's added points, checked: at most ``most`` of ``[x, y, class]``, finite, on a
    2-D data set."""
    if not points:
        return []
    if DATASETS[name].n_features != 2:
        raise ValueError(f"points can be added to 2-D data sets only, not to {name}.")
    if not isinstance(points, list) or len(points) > most:
        raise ValueError(f"points must be a list of at most {most} [x, y, class] triples here.")
    checked = []
    for point in points:
        if not (isinstance(point, list) and len(point) == 3
                and all(isinstance(v, int | float) and math.isfinite(v) and abs(v) <= 1e6
                        for v in point[:2]) and point[2] in (0, 1)):
            raise ValueError(f"added point {point!r} is not [x, y, class 0 or 1].")
        checked.append([float(point[0]), float(point[1]), int(point[2])])
    return checked


# -- teaching pages (issue 9) --------------------------------------------------------------
CONT_C = "cont_C"                  # Continuation page: C (= C*) of cS3VM
CONT_DIRECTION = "cont_direction"  # Continuation page: direction of the 1-D slice
CONT_SPAN = "cont_span"            # Continuation page: half-width of the slice (in ‖w‖ units)
DA_LOSS = "da_loss"                # Annealing page: the loss V of the run
DA_LAM = "da_lam"                  # Annealing page: lambda of eq. (4)
DA_T_INDEX = "da_t_index"          # Annealing page: the temperature shown (index on the path)
DA_FIXED_T = "da_fixed_t"          # Annealing page: the fixed temperatures run beside DA
ES_GAMMA_I = "es_gamma_I"          # Early stopping page: gamma_I of LapSVM
ES_N_VAL = "es_n_val"              # Early stopping page: size of the validation set
COMPARE_DRAWS = "compare_draws"    # Compare page: number k of label draws
COMPARE_PER_CLASS = "compare_per_class"  # Compare page: labels per class in each draw
COMPARE_SOLVERS = "compare_solvers"      # Compare page: solvers compared (baseline always)
COMPARE_RUN = "compare_run"        # Compare page: the run button
COMPARE_RESULTS = "compare_results"  # Compare page: {"key": description, "rows": [...]}

TEACHING_DEFAULTS = {
    CONT_C: 100.0, CONT_DIRECTION: "path", CONT_SPAN: 1.0,
    DA_LOSS: "hinge", DA_LAM: 1e-3, DA_T_INDEX: 0, DA_FIXED_T: [0.1, 0.01, 0.001],
    ES_GAMMA_I: 1.0, ES_N_VAL: 20,
    COMPARE_DRAWS: 5, COMPARE_PER_CLASS: 1, COMPARE_SOLVERS: None,
}


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
COMPARE_FORM = "compare_form"      # Compare page: the form holding its controls
