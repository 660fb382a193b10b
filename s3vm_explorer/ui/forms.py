"""The solvers' parameter forms, the preset buttons, and the messages that stop a page before
a run whose input is not valid."""

from __future__ import annotations

import numpy as np
import streamlit as st

from s3vm_explorer.engine import presets
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.params import Param, problems
from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.ui import state as keys
from toy_data import DATASETS, UNLABELED


def typed_value(param, key: str):
    """The value of a number box (``ui.forms.number_box``) as typed, for a callback: it runs
    before the page, which reads the box again, so a box changed in the same rerun as a click
    would still hold its old value under ``key``."""
    state, text_key = st.session_state, keys.typed_key(key)
    return param.parse(state[text_key]) if text_key in state else state.get(key)


def read_number_boxes() -> None:
    """What was typed into a number box (``ui.forms.number_box``) since it was last read
    becomes its value, first thing in a run: the sidebar (its share link) and the page read
    the values before the boxes are drawn again."""
    state = st.session_state
    for key in [k for k in state if isinstance(k, str) and k.endswith(keys.TYPED)]:
        value_key = key.removesuffix(keys.TYPED)
        if (param := box_param(value_key)) is not None:
            typed = param.parse(state[key])
            if state.get(keys.read_key(value_key), typed) != typed:
                state[value_key] = state[keys.read_key(value_key)] = typed


def box_param(key: str):
    """The ``Param`` of the number box of the value under ``key`` (None for no box)."""
    if key.startswith(keys.PARAMS_PREFIX):
        solver, name = key.removeprefix(keys.PARAMS_PREFIX).split(":", 1)
        return next((p for p in SOLVERS[solver].params if p.name == name), None)
    return keys.NUMBER_BOXES.get(key)


def number_box(container, param: Param, key: str, **options):
    """A box for the number ``param`` whose value the session holds under ``key``: what is
    typed there, as ``Param.parse`` reads it (the page holds it to ``param`` with
    ``Param.check`` and says what is wrong). Returns that value.

    A text box, not Streamlit's number input: that one read "2e3" as 2 and an emptied box as 0
    in the browser, and turned red on a value out of its range while it sent its previous one,
    so that the page could not say what was typed. Its help gives the range.
    """
    state = st.session_state
    text_key, read_key = keys.typed_key(key), keys.read_key(key)
    value = state.get(key, param.default)
    if text_key not in state or read_key not in state or state[read_key] != value:
        state[text_key] = param.text(value)  # set elsewhere since (a link, a preset, a reset)
    typed = container.text_input(
        param.label, key=text_key, help=param.help + param.allowed if param.help else None,
        placeholder=param.placeholder or None, **options)
    state[key] = state[read_key] = param.parse(typed)
    return state[key]


def parameter_form(name: str, n_columns: int = 3) -> dict:
    """Draw the parameter widgets of solver ``name`` in ``n_columns`` columns; return their
    values by parameter name (``require_valid_parameters`` holds them to their ranges)."""
    values = {}
    columns = st.columns(n_columns)
    for index, param in enumerate(SOLVERS[name].params):
        column = columns[index % n_columns]
        key = keys.solver_param_key(name, param.name)
        if param.options:
            initial = ({} if key in st.session_state
                       else {"index": param.options.index(param.default)})
            values[param.name] = param.from_widget(column.selectbox(
                param.label, [param.to_widget(o) for o in param.options], key=key,
                help=param.help, format_func=param.option_text, **initial))
        else:
            values[param.name] = number_box(column, param, key)
    return values


def n_points() -> int | None:
    """The number of points the sidebar generates, which a paper preset follows
    (``engine.presets.scaled``); None before the sidebar has set it."""
    n = st.session_state.get(keys.N_SAMPLES)
    return None if n is None else int(n)


def current_preset(dataset: str, solver: str) -> str | None:
    """The preset whose values the form holds (the paper's first, on the session's n), or
    None when the user has changed them."""
    return presets.matching_preset(dataset, solver, keys.form_values(solver), n_points())


def apply_preset(dataset: str, solver: str, name: str) -> None:
    """Fill ``solver``'s form with preset ``name`` on the session's n (a button's callback, or
    before the form is drawn) and remember it was applied for this data set and n."""
    state = st.session_state
    keys.set_form_values(solver, presets.preset_values(dataset, solver, name, n_points()))
    state[keys.PRESET_APPLIED] = {**state.get(keys.PRESET_APPLIED, {}),
                                  solver: [dataset, name, n_points()]}


def open_on_preset(dataset: str, solver: str) -> None:
    """On every page, before the Watch page's form is drawn: a solver's form opens on its
    preset as in the paper where the data set has one (the generic default elsewhere); when
    the data set or its n has changed since a preset was applied and the form still holds
    it, the preset for the new data replaces it (a paper preset follows n,
    ``engine.presets.scaled``). Values the user typed, or a shared link set, are left alone."""
    state = st.session_state
    drawn = any(keys.solver_param_key(solver, p.name) in state for p in SOLVERS[solver].params)
    applied = state.get(keys.PRESET_APPLIED, {}).get(solver)
    if not drawn:
        apply_preset(dataset, solver, presets.first_preset(dataset, solver))
        return
    if applied is None:
        return
    applied_to, name, applied_n = (*applied, None)[:3]  # a link's entry may lack its n
    if (applied_to, applied_n) != (dataset, n_points()) and keys.form_values(solver) == (
            presets.preset_values(applied_to, solver, name, applied_n)):
        apply_preset(dataset, solver, name if applied_to == dataset
                     else presets.first_preset(dataset, solver))


def take_longer_path(solver: str) -> None:
    """Fill ``solver``'s form with the values of its longer path (``Solver.longer_path``): a
    button's callback, the page then films that path."""
    keys.set_form_values(solver, dict(SOLVERS[solver].longer_path))


#: The Watch page's buttons that fill the form with a preset.
PRESET_BUTTONS = {presets.PAPER: "Use the setting as in the paper",
                  presets.DEFAULT: "Use the generic default"}


def preset_line(container, dataset: str, solver: str) -> None:
    """Under the Watch page's form: which preset its values are (and where the paper's comes
    from), with one click to the other, or to either once the user has changed them."""
    current = current_preset(dataset, solver)
    paper = presets.paper_preset(dataset, solver)
    where = DATASETS[dataset].title.lower() if dataset in DATASETS else f"your {dataset}"
    if current == presets.PAPER:
        text, others = (f"Parameters **as in the paper** for {where}: {paper.source}.",
                        [presets.DEFAULT])
    elif current == presets.DEFAULT:
        text = "Parameters: **the generic default** (the papers' data-independent rules)."
        if paper is None:
            text += f" No paper gives {SOLVERS[solver].title} a setting for {where}."
        others = [presets.PAPER] if paper is not None else []
    else:
        text = "Parameters: your own."
        others = [presets.PAPER, presets.DEFAULT] if paper is not None else [presets.DEFAULT]
    if current == presets.PAPER and (why := presets.scaled_caption(dataset, solver,
                                                                    n_points())):
        text += " " + why
    line, *places = container.columns([4, *[2] * len(others)], vertical_alignment="center")
    line.caption(text)
    for place, name in zip(places, others, strict=True):
        place.button(PRESET_BUTTONS[name], key=f"{keys.WATCH_PRESET}:{name}",
                     on_click=apply_preset, args=(dataset, solver, name), width="stretch",
                     help="Fill the form with this preset and run it.")


def preset_choice(container, name: str, dataset: str, solver: str,
                  n_points: int | None = None) -> tuple[str, dict]:
    """A teaching page's radio between ``solver``'s presets on ``dataset`` (only the default
    where the data set has no paper preset), under the page's key ``name``; returns the preset
    chosen and its parameters on ``n_points`` points (``engine.presets.preset_params``: the
    paper's follow n as the Watch page's do; None, the data set's own size). It opens on the
    paper's."""
    options = [presets.PAPER, presets.DEFAULT]
    if presets.paper_preset(dataset, solver) is None:
        options = [presets.DEFAULT]
    key = keys.keep_preset_widget(name, dataset, None, options[0])
    if st.session_state[key] not in options:
        st.session_state[key] = options[0]
    container.radio("parameters", options, key=key, format_func=presets.TITLES.get,
                    horizontal=True, help="The preset as in the paper is the setting the "
                    "papers use or select on this data set (docs/benchmarks.md, \"Presets\"); "
                    "the generic default is the solver's data-independent default, e.g. σ = "
                    "the median distance.")
    chosen = st.session_state[key]
    return chosen, presets.preset_params(dataset, solver, chosen, n_points)


def require_valid_parameters(name: str, values: dict, *more) -> None:
    """Stop the page before solver ``name`` runs when a parameter (or one of the ``(param,
    value)`` pairs ``more``) is outside what its box accepts, saying which and what is
    allowed: the previous film must not pass for a run of the values on screen."""
    checks = [(param, values.get(param.name)) for param in SOLVERS[name].params]
    if found := problems([*checks, *more]):
        st.error(f"Nothing was run: {literal(' '.join(found))} Correct it and press **Run** "
                 "again.")
        st.stop()


def require_both_classes(labels, solver: str = "a solver", n_classes: int = 2) -> None:
    """Stop the page with a clear message unless each of the ``n_classes`` classes has a
    labeled point."""
    if not set(range(n_classes)) <= set(np.asarray(labels)[np.asarray(labels) != UNLABELED]
                                        .tolist()):
        every = "both classes" if n_classes == 2 else f"each of the {n_classes} classes"
        st.error("Label at least one point of each class on the **Data & labels** page: a "
                 f"classifier needs an example of {every} before {solver} can run.")
        st.stop()


def require_two_classes(n_classes: int, what: str) -> None:
    """Stop a page that teaches a binary method's workings on data with more classes, saying
    why (``what``: what it shows that has no one-vs-rest form)."""
    if n_classes > 2:
        st.info(f"This page shows {what} of one binary problem, so it works on data with two "
                f"classes; this data set has {n_classes}. Choose a two-class data set in the "
                "sidebar (or upload one); the **Watch** and **Compare** pages solve "
                f"{n_classes}-class data one-vs-rest.")
        st.stop()
