"""The share link: a scenario described as JSON, and a shared one parsed and validated.

A scenario is what a teacher shares: the data set (generator, n, noise, seed, added points;
or the name of an uploaded file and whether its features are standardized), the labels, the
solver with its parameters or preset, the Watch page's budget and film settings, the
Compare page's choice of presets and the When unlabeled data hurt page's settings.
``describe`` writes one from plain values; ``parse`` reads one from a link's text, as JSON only
(never unpickled), holding every field to what the widget that shows it accepts.
Streamlit-free: ``ui.state`` moves the values between a scenario and the session.
"""

from __future__ import annotations

import json

from s3vm_explorer.engine import hurt
from s3vm_explorer.engine.guides import read_lesson
from s3vm_explorer.engine.params import (
    BUDGET,
    FILM_SPEEDS,
    N_POINTS,
    SEED,
    max_added,
    noise_param,
    shown,
)
from s3vm_explorer.engine.presets import (
    COMPARE_CHOICES,
    PAPER,
    TITLES,
    matching_preset,
    paper_preset,
    preset_values,
)
from s3vm_explorer.engine.registry import DEFAULT_SOLVER, SOLVERS
from toy_data import DATASETS, UNLABELED

#: The fields of a scenario (``describe`` writes them all; a link may leave any out).
FIELDS = ("dataset", "n", "noise", "seed", "labels", "points", "solver", "params", "preset",
          "budget", "speed", "loop", "presentation", "compare", "file", "standardize", "hurt",
          "lesson")
#: The ``dataset`` of a link made from an uploaded file (named by ``file``, with whether its
#: features were standardized, ``standardize``): the data cannot travel in a link, so it opens
#: on the default data set, says so, and standardizes the file as the link says once it is
#: uploaded.
UPLOADED = "uploaded"
#: What a field takes when a link leaves it out or gives a value that cannot be used (the
#: data set's own n and noise are its registry entry's).
DEFAULTS = {"dataset": "two_moons", "seed": SEED.default, "solver": DEFAULT_SOLVER,
            "budget": BUDGET.default, "speed": 1.0, "loop": False, "presentation": False,
            "compare": PAPER, "hurt": hurt.DEFAULTS}
#: Longest scenario text read. The address a link opens is at most about 128,000 bytes long
#: for the server (Tornado's request header limit; beyond it the browser shows a bare "HTTP
#: ERROR 400"), and JSON takes up to three times its length in an address, where quotes,
#: braces and colons are percent-encoded: any text the app refuses still reaches it, and its
#: refusal is a sentence. A scenario of 2,000 points, every one labeled, with 200 added points
#: takes about 25,000 characters (tests/ui/test_scenario.py).
MAX_CHARS = 40_000
#: Deepest nesting of a scenario's JSON: an object of lists of ``[x, y, class]`` lists.
MAX_DEPTH = 3
DEFAULT_LABELS = "the data set starts with one random label per class"


def describe(*, dataset: str, n: int, noise: float, seed: int, labels, points,
             solver: str, params: dict, form: dict, budget, speed: float, loop: bool,
             presentation: bool, compare: str, uploaded: str | None = None,
             standardized: bool = False, hurt_settings: dict | None = None,
             lesson: dict | None = None) -> dict:
    """A JSON-able scenario. ``labels`` are the class indices of every point (``-1`` =
    unlabeled), ``params`` the solver's parameters set in the session (none when its form was
    never drawn) and ``form`` all its form's values, by which the scenario names its preset.
    ``uploaded`` names the uploaded file the session shows instead of the generator's data:
    the scenario then carries its name only (dataset ``UPLOADED``), no data and no labels, and
    whether its features are ``standardized`` (z-scores). ``hurt_settings`` are the When unlabeled
    data hurt page's (``engine.hurt.SETTINGS``), carried as the field ``"hurt"``; ``lesson`` the
    guided lesson open (``ui.guide``: its page and step), carried as ``{"page", "step"}``
    with the step counted from 1, so that a slide can link to step 3."""
    if uploaded is not None:
        dataset, labels, points, params = UPLOADED, [], [], {}
    described = {"dataset": dataset, "n": n, "noise": noise, "seed": seed,
                 "labels": {str(i): c for i, c in enumerate(labels) if c != UNLABELED},
                 "solver": solver, "params": params, "budget": budget, "speed": speed,
                 "loop": loop, "presentation": presentation, "compare": compare}
    if points:
        described["points"] = [list(point) for point in points]
    if hurt_settings is not None:
        described["hurt"] = dict(hurt_settings)
    if lesson is not None:
        described["lesson"] = {"page": lesson["page"], "step": lesson["step"] + 1}
    if uploaded is not None:
        described = {key: value for key, value in described.items()
                     if key not in ("n", "noise", "seed", "labels")}
        described["file"] = uploaded
        described["standardize"] = bool(standardized)
    if params and (preset := matching_preset(dataset, solver, form, n)) is not None:
        described["preset"] = preset
    return described


def to_text(described: dict) -> str:
    """A scenario as the link carries it (compact JSON, keys sorted)."""
    return json.dumps(described, separators=(",", ":"), sort_keys=True)


def parse(text: str) -> tuple[dict, list[str]]:
    """The values a shared scenario sets, by field, and sentences on what it could not use.

    The values hold ``dataset``, ``n``, ``noise``, ``seed`` and ``points`` always; ``labels``
    (a class index per point) when the link's labels can be used; ``solver``, and with it
    ``params`` (every value of its form) when the link sets them, and ``preset`` (the name of
    the preset they are) when it names one; ``budget``, ``speed``, ``loop``, ``presentation``
    and ``compare`` when valid; ``hurt``, the When unlabeled data hurt page's settings
    (``engine.hurt.read_settings``), when the link gives them; ``standardize`` when a link
    made from an uploaded file says whether its features were standardized. A field that
    fails keeps its default, and a sentence says so. Labels and added points are used only
    with the data they were made for: when a data setting fails, they are left out too and
    the data set starts with one random label per class, as a new data set does. A link
    without labels does the same.

    Raises ``ValueError`` when the text is no scenario at all (not JSON, not an object, too
    long or too deeply nested).
    """
    data, repeated = _scenario_object(text)
    notes = []
    if repeated:
        notes.append(f"{_listed(repeated)} {'is' if len(repeated) == 1 else 'are'} given more "
                     f"than once: the last value {'is' if len(repeated) == 1 else 'of each is'} "
                     "used.")
    if unknown := [key for key in data if key not in FIELDS]:
        notes.append(f"{_plural(len(unknown), 'Unknown field')} {_listed(unknown)} ignored: a "
                     f"scenario has {', '.join(FIELDS)}.")

    name = data.get("dataset", DEFAULTS["dataset"])
    as_shared = isinstance(name, str) and name in DATASETS
    standardize = _standardize_value(data, notes) if "standardize" in data else None
    if name == UPLOADED:
        name = DEFAULTS["dataset"]
        how = {True: " (its features will be standardized, as in the link)",
               False: " (its features will be used as they are, as in the link)"}.get(
            standardize, "")
        notes.append(f"This link was made from the uploaded file {shown(data.get('file', '?'))}, "
                     "and a link cannot carry an uploaded data set: Upload it on the Data & labels "
                     f"page to see it{how}; meanwhile {DATASETS[name].title} is shown, with its "
                     "own settings and labels.")
    elif not as_shared:
        name = DEFAULTS["dataset"]
        notes.append(f"There is no data set {shown(data['dataset'])} (the data sets are "
                     f"{', '.join(DATASETS)}): {DATASETS[name].title} is shown, with its own "
                     "settings.")
    if "file" in data and data.get("dataset") != UPLOADED:
        notes.append(f"The file {shown(data['file'])} was ignored: a link names a file only when "
                     "it was made from an uploaded data set.")
    spec = DATASETS[name]
    values = {"dataset": name}
    if standardize is not None:
        values["standardize"] = standardize
    settings = (("n", N_POINTS, spec.n_samples), ("noise", noise_param(spec), spec.noise),
                ("seed", SEED, DEFAULTS["seed"]))
    for field, param, default in settings:
        values[field] = default
        if field not in data or name != data.get("dataset", name):
            continue
        if field == "n" and spec.fixed_size:
            if data[field] != spec.n_samples:
                as_shared = False
                notes.append(f"{spec.title} has a fixed size: its {spec.n_samples} points are "
                             f"shown, not n = {shown(data[field])}.")
            continue
        try:
            values[field] = param.check(data[field])
        except ValueError as problem:
            as_shared = False
            notes.append(f"{problem} Using {param.label} = {shown(default)} instead.")

    values["points"] = []
    if as_shared and data.get("points") not in (None, []):
        try:
            values["points"] = _valid_points(data["points"], name, max_added(values["n"]),
                                             spec.n_classes)
        except ValueError as problem:
            as_shared = False
            notes.append(f"{problem} The added points were left out.")
    if not as_shared:
        if data.get("labels") or data.get("points"):
            notes.append("The link's labels and added points belong to the data it "
                         f"describes, which could not be shown as shared: {DEFAULT_LABELS}.")
    elif "labels" in data:
        labels, note = _valid_labels(data["labels"], values["n"] + len(values["points"]),
                                     spec.n_classes)
        if labels is not None:
            values["labels"] = labels
        if note:
            notes.append(note)

    values.update(_solver_values(data, name, values["n"], notes))
    if "budget" in data:
        try:
            values["budget"] = BUDGET.check(data["budget"])
        except ValueError as problem:
            notes.append(f"{problem} Using {BUDGET.label} = {shown(DEFAULTS['budget'])} "
                         "instead.")
    values.update(_film_values(data, notes))
    if "compare" in data:
        if isinstance(data["compare"], str) and data["compare"] in COMPARE_CHOICES:
            values["compare"] = data["compare"]
        else:
            choices = _listed(list(COMPARE_CHOICES), most=len(COMPARE_CHOICES))
            notes.append(f"The Compare page's parameters must be one of {choices}, "
                         f"not {shown(data['compare'])}: it runs the presets as in the paper.")
    if "hurt" in data:
        values["hurt"], hurt_notes = hurt.read_settings(data["hurt"])
        notes += hurt_notes
    if "lesson" in data:
        lesson, lesson_notes = read_lesson(data["lesson"])
        if lesson is not None:
            values["lesson"] = lesson
        notes += lesson_notes
    return values, notes


def _scenario_object(text: str) -> tuple[dict, list[str]]:
    """A scenario's text as a JSON object, with the names any of its objects gives more than
    once; a ``ValueError`` saying why it is none."""
    if len(text) > MAX_CHARS:
        raise ValueError(f"it is {len(text):,} characters long, more than a scenario can be "
                         f"({MAX_CHARS:,}).")
    repeated = []
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, repeated))
    except RecursionError:
        raise ValueError("it is nested more deeply than a scenario is.") from None
    except ValueError as error:  # not JSON, or an integer of more than 4,300 digits
        raise ValueError("it is not valid JSON.") from error
    if not isinstance(data, dict):
        raise ValueError(f"it is {_json_text(data)}, not a scenario: a scenario is a JSON "
                         'object such as {"dataset": "two_moons", "n": 200}.')
    if _depth(data) > MAX_DEPTH:
        raise ValueError("it is nested more deeply than a scenario is.")
    return data, repeated


def _json_text(value, width: int = 40) -> str:
    """A JSON value as the link wrote it (null, true, a list...), cut to ``width``."""
    text = json.dumps(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def _object(pairs: list, repeated: list) -> dict:
    """A JSON object from its ``pairs``; a name given twice is added to ``repeated`` (the
    last value is the one used, as JSON readers do)."""
    seen = set()
    for name, _ in pairs:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return dict(pairs)


def _depth(value) -> int:
    """How deeply lists and objects nest in a JSON value (without recursion: any depth)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((item, depth) for item in
                             (value.values() if isinstance(value, dict) else value))
    return deepest


def _standardize_value(data: dict, notes: list[str]) -> bool | None:
    """Whether a link made from an uploaded file standardizes it, or None (and a sentence in
    ``notes``) when the link's value cannot be used."""
    value = data["standardize"]
    if data.get("dataset") != UPLOADED:
        notes.append(f"standardize = {shown(value)} was ignored: a link says it only of an "
                     "uploaded file, and generated data sets are used as they are.")
        return None
    if not isinstance(value, bool):
        notes.append(f"standardize must be true or false, not {shown(value)}: the uploaded "
                     "file's features will be standardized if their scales differ by more "
                     "than ten times.")
        return None
    return value


def _film_values(data: dict, notes: list[str]) -> dict:
    """A scenario's film settings (Play's speed and loop, the presentation mode); one that is
    not valid keeps its default, and a sentence in ``notes`` says so."""
    values = {}
    speed = data.get("speed", DEFAULTS["speed"])
    if isinstance(speed, int | float) and not isinstance(speed, bool) and speed in FILM_SPEEDS:
        values["speed"] = float(speed)
    else:
        notes.append(f"Play's speed must be one of {', '.join(f'{s:g}' for s in FILM_SPEEDS)}, "
                     f"not {shown(speed)}: the film plays at 1x.")
    for field in ("loop", "presentation"):
        value = data.get(field, DEFAULTS[field])
        if isinstance(value, bool):
            values[field] = value
        else:
            notes.append(f"{field} must be true or false, not {shown(value)}: it is off.")
    return values


def _valid_points(points, name: str, most: int, n_classes: int = 2) -> list[list]:
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
                and all(_is_number(v) and abs(v) <= 1e6 for v in point[:2])
                and _is_class(point[2], n_classes)):
            raise ValueError(f"The added point {shown(point)} is not [x, y, "
                             f"{_classes(n_classes)}].")
        checked.append([float(point[0]), float(point[1]), int(point[2])])
    return checked


def _valid_labels(raw, n_points: int, n_classes: int = 2) -> tuple[list[int] | None, str | None]:
    """A scenario's labels (``{"index": class}``) as a list over the ``n_points`` points, and a
    sentence on the entries left out; ``None`` labels when they are not a mapping at all."""
    if not isinstance(raw, dict):
        return None, (f"The labels {shown(raw)} must map point indices to classes "
                      f"{'0 or 1' if n_classes == 2 else f'from 0 to {n_classes - 1}'}, "
                      f'such as {{"3": 0, "17": 1}}: {DEFAULT_LABELS}.')
    labels, bad = [UNLABELED] * n_points, []
    for index, cls in raw.items():
        position = _point_index(index, n_points)
        if position is None or not _is_class(cls, n_classes):
            bad.append(f"{shown(index, 20)}: {shown(cls, 20)}")
        else:
            labels[position] = int(cls)
    note = None
    if bad:
        note = (f"{_plural(len(bad), 'Label')} {_listed(bad, quote=False)} left out: a label "
                f"is a point index from 0 to {n_points - 1} with {_classes(n_classes)}.")
    return labels, note


def _solver_values(data: dict, dataset: str, n_points: int, notes: list[str]) -> dict:
    """A scenario's solver and its parameters, each held to its widget (the defaults for those
    it does not give), or its preset's when it names one and gives no parameters; what is
    left out is added to ``notes``. A link with neither leaves the form to open on its preset
    as in the paper, as a new session's does."""
    solver = data.get("solver", DEFAULTS["solver"])
    if not (isinstance(solver, str) and solver in SOLVERS):
        default = SOLVERS[DEFAULTS["solver"]].title
        notes.append(f"There is no solver {shown(solver)} (the solvers are "
                     f"{', '.join(SOLVERS)}): the Watch page opens on {default} with its "
                     "default parameters.")
        return {"solver": DEFAULTS["solver"]}
    values = {"solver": solver}
    preset = data.get("preset")
    if "preset" in data and not (isinstance(preset, str) and preset in TITLES):
        notes.append(f"There is no preset {shown(preset)} (the presets are "
                     f"{', '.join(TITLES)}): the parameters are the link's.")
    elif preset is not None and "params" not in data:
        if preset == PAPER and paper_preset(dataset, solver) is None:
            notes.append(f"{SOLVERS[solver].title} has no preset as in the paper on this data "
                         "set: it opens on the generic default.")
        values["params"] = preset_values(dataset, solver, preset, n_points)
        values["preset"] = preset
        return values
    if "params" not in data:
        return values  # the form opens on its preset (``ui.forms.open_on_preset``)
    # The link's parameters are the form's: those it gives, the defaults for the rest.
    params = {param.name: param for param in SOLVERS[solver].params}
    values["params"] = {name: param.default for name, param in params.items()}
    raw = data["params"]
    if not isinstance(raw, dict):
        notes.append(f"The parameters {shown(raw)} must map names to values, such as "
                     f'{{"C": 10}}: {SOLVERS[solver].title} opens with its defaults.')
        return values
    unknown = [name for name in raw if name not in params]
    for name, value in raw.items():
        if name in params:
            try:
                values["params"][name] = params[name].check(value)
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


def _is_class(value, n_classes: int = 2) -> bool:
    return _is_number(value) and value in range(n_classes)


def _classes(n_classes: int) -> str:
    """"class 0 or 1", "a class from 0 to 4": the classes a data set's labels take."""
    return "class 0 or 1" if n_classes == 2 else f"a class from 0 to {n_classes - 1}"


def _plural(count: int, noun: str) -> str:
    return f"{noun}s" if count > 1 else noun


def _listed(items, most: int = 3, quote: bool = True) -> str:
    """The first few of ``items`` (a link may hold thousands), quoted short unless ``quote`` is
    False (already quoted)."""
    quoted = [shown(item, 20) if quote else item for item in items[:most]]
    return ", ".join(quoted) + (f" and {len(items) - most} more" if len(items) > most else "")
