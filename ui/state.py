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
from ui.presets import BOTH, DEFAULT, PAPER

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
LINK_NOTICE = "link_notice"  # what the shared link could not set: (kind, text), shown once
PICK_RANDOM = "pick_random"  # button: k random labels per class
CLEAR_LABELS = "clear_labels"  # button: unlabel every point
REGENERATE = "regenerate"    # sidebar button: next seed
PARAMETER_FORM = "parameter_form"  # the Watch page's form of solver parameters
RUN_BUDGET = "run_budget"    # the Watch page's time budget of a run (seconds)
PRESET_APPLIED = "preset_applied"  # {solver: [data set, preset name]} last put in its form
WATCH_PRESET = "watch_preset"  # the Watch page's buttons that fill its form with a preset
SCRIPT_RUNS = "script_runs"  # how many times this session's pages have run
# The Watch page's film in class (issue 20); speed, loop and presentation travel in the link.
SHOWN_RUN = "shown_run"      # the film's run (``ui.player.film_id``): a new one opens at its end
FILM_SPEED = "film_speed"    # Play's speed, one of FILM_SPEEDS (set by the player)
FILM_LOOP = "film_loop"      # Play starts over after holding the last frame (set by the player)
PRESENTATION = "presentation"  # Watch page toggle: the film without the parameter form
FILM_SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)

#: Widget keys whose values must survive page switches (Streamlit drops the value of a widget
#: that is not drawn on the current page unless the key is re-assigned on every run).
PERSISTENT = (DATASET, N_SAMPLES, NOISE, SEED, BRUSH, K_PER_CLASS, SOLVER, SHOW_BASELINE,
              RUN_BUDGET, PRESENTATION)

DEFAULTS = {
    DATASET: "two_moons",
    N_SAMPLES: DATASETS["two_moons"].n_samples,
    NOISE: DATASETS["two_moons"].noise,
    SEED: 0,
    BRUSH: 1,
    K_PER_CLASS: 1,
    # The solver whose paper is about the default data: the DA paper's Table 2 is two moons
    # with one label per class (DA solved all ten draws).
    SOLVER: "DeterministicAnnealingS3VM",
    SHOW_BASELINE: True,
    RUN_BUDGET: 60,
    FILM_SPEED: 1.0,
    FILM_LOOP: False,
    PRESENTATION: False,
}

#: Largest data set the app draws; kernels of this size stay interactive.
MAX_POINTS = 2000
#: Range of a Watch page run's time budget (seconds).
MIN_BUDGET, MAX_BUDGET = 5, 600


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
    for key in PERSISTENT:
        state[key] = state[key]
    for key in [k for k in state if isinstance(k, str) and k.startswith(PARAMS_PREFIX)]:
        state[key] = state[key]


def fresh_page() -> bool:
    """Whether this is the session's first page run (the browser has just opened the app)."""
    return st.session_state.get(SCRIPT_RUNS, 0) <= 1


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
                 "budget": state[RUN_BUDGET], "speed": state[FILM_SPEED],
                 "loop": state[FILM_LOOP], "presentation": state[PRESENTATION]}
    described["compare"] = state.get(COMPARE_PRESET, TEACHING_DEFAULTS[COMPARE_PRESET])
    if points := added_points():
        described["points"] = points
    if params:
        from ui.widgets import current_preset

        if (preset := current_preset(name, state[SOLVER])) is not None:
            described["preset"] = preset
    return described


def scenario_query() -> str:
    return json.dumps(scenario(), separators=(",", ":"), sort_keys=True)


#: The fields of a scenario (``scenario()`` writes them all; a link may leave any out).
SCENARIO_FIELDS = ("dataset", "n", "noise", "seed", "labels", "points", "solver", "params",
                   "preset", "budget", "speed", "loop", "presentation", "compare")
#: Longest scenario text read (2,000 points, every one labeled, take about 25,000 characters).
MAX_SCENARIO_CHARS = 100_000
#: Deepest nesting of a scenario's JSON: an object of lists of ``[x, y, class]`` lists.
MAX_SCENARIO_DEPTH = 3
DEFAULT_LABELS = "the data set starts with one random label per class"


def load_scenario(text: str) -> list[str]:
    """Make a shared scenario the session's state; return sentences on what it could not use
    (see ``parse_scenario``, which raises ``ValueError`` when the text is no scenario)."""
    values, notes = parse_scenario(text)
    state = st.session_state
    labels, points = values.pop(LABELS, None), values.pop(ADDED)
    for key, value in values.items():
        state[key] = value
    state[ADDED], state[ADDED_FOR] = points, generated_description()
    if labels is not None:
        set_labels(labels)
    return notes


def parse_scenario(text: str) -> tuple[dict, list[str]]:
    """The session-state values a shared scenario sets, and sentences on what it could not use.

    The text is read as JSON only (never unpickled), and every field is held to what the
    widget that shows it accepts (``ui.widgets``: the sidebar's ``N_POINTS``, ``noise_param``
    and ``SEED``, each solver's ``Param``s). A field that fails keeps its default, and a
    sentence says so. Labels and added points are used only with the data they were made for:
    when a data setting fails, they are left out too and the data set starts with one random
    label per class, as a new data set does. A link without labels does the same.

    Raises ``ValueError`` when the text is no scenario at all (not JSON, not an object, too
    long or too deeply nested).
    """
    from ui import widgets  # (ui.widgets imports this module)

    data = _scenario_object(text)
    shown = widgets.shown
    notes = []
    if unknown := [key for key in data if key not in SCENARIO_FIELDS]:
        notes.append(f"{_plural(len(unknown), 'Unknown field')} {_listed(unknown)} ignored: a "
                     f"scenario has {', '.join(SCENARIO_FIELDS)}.")

    name = data.get("dataset", DEFAULTS[DATASET])
    as_shared = isinstance(name, str) and name in DATASETS
    if not as_shared:
        name = DEFAULTS[DATASET]
        notes.append(f"There is no data set {shown(data['dataset'])} (the data sets are "
                     f"{', '.join(DATASETS)}): {DATASETS[name].title} is shown, with its own "
                     "settings.")
    spec = DATASETS[name]
    values = {DATASET: name}
    settings = ((N_SAMPLES, "n", widgets.N_POINTS, spec.n_samples),
                (NOISE, "noise", widgets.noise_param(spec), spec.noise),
                (SEED, "seed", widgets.SEED, DEFAULTS[SEED]))
    for key, field, param, default in settings:
        values[key] = default
        if field not in data or name != data.get("dataset", name):
            continue
        if key == N_SAMPLES and spec.fixed_size:
            if data[field] != spec.n_samples:
                as_shared = False
                notes.append(f"{spec.title} has a fixed size: its {spec.n_samples} points are "
                             f"shown, not n = {shown(data[field])}.")
            continue
        try:
            values[key] = param.check(data[field])
        except ValueError as problem:
            as_shared = False
            notes.append(f"{problem} Using {param.label} = {shown(default)} instead.")

    values[ADDED] = []
    if as_shared and data.get("points") not in (None, []):
        try:
            values[ADDED] = _valid_points(data["points"], name, max_added(values[N_SAMPLES]))
        except ValueError as problem:
            as_shared = False
            notes.append(f"{problem} The added points were left out.")
    if not as_shared:
        if data.get("labels") or data.get("points"):
            notes.append("The link's labels and added points belong to the data it "
                         f"describes, which could not be shown as shared: {DEFAULT_LABELS}.")
    elif "labels" in data:
        labels, note = _valid_labels(data["labels"], values[N_SAMPLES] + len(values[ADDED]))
        if labels is not None:
            values[LABELS] = labels
        if note:
            notes.append(note)

    values.update(_solver_values(data, name, notes))
    if "budget" in data:
        try:
            values[RUN_BUDGET] = widgets.BUDGET.check(data["budget"])
        except ValueError as problem:
            notes.append(f"{problem} Using {widgets.BUDGET.label} = "
                         f"{shown(DEFAULTS[RUN_BUDGET])} instead.")
    values.update(_film_values(data, notes))
    if "compare" in data:
        if isinstance(data["compare"], str) and data["compare"] in COMPARE_PRESETS:
            values[COMPARE_PRESET] = data["compare"]
        else:
            notes.append(f"The Compare page's parameters must be one of "
                         f"{_listed(list(COMPARE_PRESETS))}, not {shown(data['compare'])}: "
                         f"it runs the presets as in the paper.")
    return values, notes


def _scenario_object(text: str) -> dict:
    """A scenario's text as a JSON object, or a ``ValueError`` saying why it is none."""
    if len(text) > MAX_SCENARIO_CHARS:
        raise ValueError(f"it is {len(text):,} characters long, more than a scenario can be "
                         f"({MAX_SCENARIO_CHARS:,}).")
    try:
        data = json.loads(text)
    except RecursionError:
        data = None  # nested far too deeply for the parser
    except ValueError as error:  # not JSON, or an integer of more than 4,300 digits
        raise ValueError("it is not valid JSON.") from error
    if data is None or _depth(data) > MAX_SCENARIO_DEPTH:
        raise ValueError("it is nested more deeply than a scenario is.")
    if not isinstance(data, dict):
        raise ValueError('it must describe a scenario as a JSON object, such as '
                         '{"dataset": "two_moons", "n": 200}.')
    return data


def _depth(value) -> int:
    """How deeply lists and objects nest in a JSON value (without recursion: any depth)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth <= MAX_SCENARIO_DEPTH:
                stack.extend((item, depth) for item in
                             (value.values() if isinstance(value, dict) else value))
    return deepest


def _film_values(data: dict, notes: list[str]) -> dict:
    """A scenario's film settings (Play's speed and loop, the presentation mode) as session
    values; one that is not valid keeps its default, and a sentence in ``notes`` says so."""
    from ui.widgets import shown

    values = {}
    speed = data.get("speed", DEFAULTS[FILM_SPEED])
    if isinstance(speed, int | float) and not isinstance(speed, bool) and speed in FILM_SPEEDS:
        values[FILM_SPEED] = float(speed)
    else:
        notes.append(f"Play's speed must be one of {', '.join(f'{s:g}' for s in FILM_SPEEDS)}, "
                     f"not {shown(speed)}: the film plays at 1x.")
    for key, field in ((FILM_LOOP, "loop"), (PRESENTATION, "presentation")):
        value = data.get(field, DEFAULTS[key])
        if isinstance(value, bool):
            values[key] = value
        else:
            notes.append(f"{field} must be true or false, not {shown(value)}: it is off.")
    return values


def _valid_points(points, name: str, most: int) -> list[list]:
    """A scenario's added points, checked: at most ``most`` of ``[x, y, class]``, finite, on a
    2-D data set."""
    if DATASETS[name].n_features != 2:
        raise ValueError(f"Points can be added to 2-D data sets only, not to {name}.")
    if not isinstance(points, list) or len(points) > most:
        raise ValueError(f"The added points must be a list of at most {most} [x, y, class] "
                         "triples here.")
    checked = []
    for point in points:
        if not (isinstance(point, list) and len(point) == 3
                and all(_is_number(v) and math.isfinite(v) and abs(v) <= 1e6
                        for v in point[:2]) and _is_class(point[2])):
            from ui.widgets import shown

            raise ValueError(f"The added point {shown(point)} is not [x, y, class 0 or 1].")
        checked.append([float(point[0]), float(point[1]), int(point[2])])
    return checked


def _valid_labels(raw, n_points: int) -> tuple[list[int] | None, str | None]:
    """A scenario's labels (``{"index": class}``) as a list over the ``n_points`` points, and a
    sentence on the entries left out; ``None`` labels when they are not a mapping at all."""
    from ui.widgets import shown

    if not isinstance(raw, dict):
        return None, (f"The labels {shown(raw)} must map point indices to classes 0 or 1, "
                      f'such as {{"3": 0, "17": 1}}: {DEFAULT_LABELS}.')
    labels, bad = [UNLABELED] * n_points, []
    for index, cls in raw.items():
        position = _point_index(index, n_points)
        if position is None or not _is_class(cls):
            bad.append(f"{shown(index, 20)}: {shown(cls, 20)}")
        else:
            labels[position] = int(cls)
    note = None
    if bad:
        note = (f"{_plural(len(bad), 'Label')} {_listed(bad, quote=False)} left out: a label "
                f"is a point index from 0 to {n_points - 1} with class 0 or 1.")
    return labels, note


def _solver_values(data: dict, dataset: str, notes: list[str]) -> dict:
    """The session-state values of a scenario's solver and parameters, each held to its
    widget (the defaults for those it does not give), or of its preset when it names one and
    gives no parameters; what is left out is added to ``notes``. A link with neither leaves
    the form to open on its preset as in the paper, as a new session's does."""
    from ui.presets import TITLES, paper_preset
    from ui.widgets import SOLVERS, preset_values, shown

    solver = data.get("solver", DEFAULTS[SOLVER])
    if not (isinstance(solver, str) and solver in SOLVERS):
        default = SOLVERS[DEFAULTS[SOLVER]].title
        notes.append(f"There is no solver {shown(solver)} (the solvers are "
                     f"{', '.join(SOLVERS)}): the Watch page opens on {default} with its "
                     "default parameters.")
        return {SOLVER: DEFAULTS[SOLVER]}
    values = {SOLVER: solver}
    preset = data.get("preset")
    if "preset" in data and not (isinstance(preset, str) and preset in TITLES):
        notes.append(f"There is no preset {shown(preset)} (the presets are "
                     f"{', '.join(TITLES)}): the parameters are the link's.")
    elif preset is not None and "params" not in data:
        if preset == PAPER and paper_preset(dataset, solver) is None:
            notes.append(f"{SOLVERS[solver].title} has no preset as in the paper on this data "
                         "set: it opens on the generic default.")
        for name, value in preset_values(dataset, solver, preset).items():
            values[solver_param_key(solver, name)] = value
        values[PRESET_APPLIED] = {solver: [dataset, preset]}
        return values
    if "params" not in data:
        return values  # the form opens on its preset (``ui.widgets.open_on_preset``)
    # The link's parameters are the form's: those it gives, the defaults for the rest.
    params = {param.name: param for param in SOLVERS[solver].params}
    values.update({solver_param_key(solver, name): param.default
                   for name, param in params.items()})
    raw = data["params"]
    if not isinstance(raw, dict):
        notes.append(f"The parameters {shown(raw)} must map names to values, such as "
                     f'{{"C": 10}}: {SOLVERS[solver].title} opens with its defaults.')
        return values
    unknown = [name for name in raw if name not in params]
    for name, value in raw.items():
        if name in params:
            try:
                values[solver_param_key(solver, name)] = params[name].check(value)
            except ValueError as problem:
                default = params[name].placeholder or shown(params[name].default)
                notes.append(f"{problem} Using its default ({default}) instead.")
    if unknown:
        notes.append(f"{SOLVERS[solver].title} has no {_plural(len(unknown), 'parameter')} "
                     f"{_listed(unknown)}; its parameters are {', '.join(params)}.")
    return values


def _point_index(text: str, n_points: int) -> int | None:
    """A label's point index (ASCII digits only: ``int`` would also read "٣", and refuse
    "²", which ``str.isdigit`` accepts), or None."""
    if text.isascii() and text.isdigit() and len(text) <= 6 and int(text) < n_points:
        return int(text)
    return None


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_class(value) -> bool:
    return _is_number(value) and value in (0, 1)


def _plural(count: int, noun: str) -> str:
    return f"{noun}s" if count > 1 else noun


def _listed(items, most: int = 3, quote: bool = True) -> str:
    """The first few of ``items`` (a link may hold thousands), quoted short unless ``quote`` is
    False (already quoted)."""
    from ui.widgets import shown

    quoted = [shown(item, 20) if quote else item for item in items[:most]]
    return ", ".join(quoted) + (f" and {len(items) - most} more" if len(items) > most else "")


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
CONT_PRESET = "cont_preset"        # Continuation page: cS3VM's preset (per data set)
DA_PRESET = "da_preset"            # Annealing page: DA's preset (per data set)
ES_PRESET = "es_preset"            # Early stopping page: LapSVM's preset (per data set)
COMPARE_DRAWS = "compare_draws"    # Compare page: number k of label draws
COMPARE_PER_CLASS = "compare_per_class"  # Compare page: labels per class in each draw
COMPARE_SOLVERS = "compare_solvers"      # Compare page: solvers compared (baseline always)
COMPARE_PRESET = "compare_preset"  # Compare page: parameters as in the paper, default, both
COMPARE_PRESETS = (PAPER, DEFAULT, BOTH)  # its choices, in the share link's "compare" field
COMPARE_RUN = "compare_run"        # Compare page: the run button
COMPARE_RESULTS = "compare_results"  # Compare page: {"key", "scheduler", "rows": [...]}
COMPARE_ON_CLUSTER = "compare_on_cluster"  # Compare page: sweep on the Dask cluster (if set)

TEACHING_DEFAULTS = {
    CONT_C: 100.0, CONT_DIRECTION: "path", CONT_SPAN: 1.0,
    DA_LOSS: "hinge", DA_LAM: 1e-2, DA_T_INDEX: 0, DA_FIXED_T: [0.1, 0.01, 0.001],
    ES_GAMMA_I: 1.0, ES_N_VAL: 20,
    COMPARE_DRAWS: 5, COMPARE_PER_CLASS: 1, COMPARE_SOLVERS: None, COMPARE_ON_CLUSTER: True,
    COMPARE_PRESET: PAPER,
}


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
COMPARE_FORM = "compare_form"      # Compare page: the form holding its controls
