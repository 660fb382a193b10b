"""The share link: the session described as a scenario in the page's address (the sidebar's
"Share this scenario" box), and a link read once when a session opens, with what it could not
use said on the page. The scenario's text is parsed and validated by ``engine.scenario``; what
the page echoes of it is escaped (``ui.text.literal``): a link carries no Markdown."""

from __future__ import annotations

from urllib.parse import quote

import streamlit as st

from s3vm_explorer.engine import scenario
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.ui import state as keys

#: The session key of each scenario field that is kept as it is read.
SCENARIO_KEYS = {"dataset": keys.DATASET, "n": keys.N_SAMPLES, "noise": keys.NOISE,
                 "seed": keys.SEED, "solver": keys.SOLVER, "budget": keys.RUN_BUDGET,
                 "speed": keys.FILM_SPEED, "loop": keys.FILM_LOOP,
                 "presentation": keys.PRESENTATION, "compare": keys.COMPARE_PRESET}


def scenario_text() -> str:
    """The session's scenario as the share link carries it (``engine.scenario.describe``)."""
    state = st.session_state
    generated, upload = keys.generated(), keys.uploaded()
    solver = state[keys.SOLVER]
    drawn = {p.name for p in SOLVERS[solver].params
             if keys.solver_param_key(solver, p.name) in state}
    form = keys.form_values(solver)
    return scenario.to_text(scenario.describe(
        dataset=generated.dataset, n=generated.n_samples, noise=generated.noise,
        seed=generated.seed, labels=state.get(keys.LABELS, []), points=keys.added_points(),
        solver=solver, params={name: form[name] for name in form if name in drawn}, form=form,
        budget=state[keys.RUN_BUDGET], speed=state[keys.FILM_SPEED], loop=state[keys.FILM_LOOP],
        presentation=state[keys.PRESENTATION],
        compare=state.get(keys.COMPARE_PRESET, keys.TEACHING_DEFAULTS[keys.COMPARE_PRESET]),
        uploaded=None if upload is None else upload.name,
        standardized=upload is not None and upload.standardized,
        hurt_settings={name: state.get(key, keys.TEACHING_DEFAULTS[key])
                       for name, key in keys.HURT.items()},
        lesson=state.get(keys.LESSON)))


def load_scenario(text: str) -> list[str]:
    """Make a shared scenario the session's state; return sentences on what it could not use
    (``engine.scenario.parse``, which raises ``ValueError`` when the text is no scenario)."""
    values, notes = scenario.parse(text)
    state = st.session_state
    for field, key in SCENARIO_KEYS.items():
        if field in values:
            state[key] = values[field]
    solver = values["solver"]
    keys.set_form_values(solver, values.get("params", {}))
    for name, value in values.get("hurt", {}).items():
        state[keys.HURT[name]] = value
    state[keys.LESSON] = values.get("lesson")
    if "preset" in values:
        state[keys.PRESET_APPLIED] = {solver: [values["dataset"], values["preset"], values["n"]]}
    state[keys.UPLOAD] = None
    # a link made from an uploaded file says whether to standardize it once it is uploaded
    state[keys.LINK_STANDARDIZE] = values.get("standardize")
    state[keys.ADDED], state[keys.ADDED_FOR] = values["points"], keys.data_key()
    if "labels" in values:
        keys.set_labels(values["labels"])
    return notes


def open_link() -> None:
    """Read the page address's scenario once per session (its first page run), and keep what
    it could not use to be said on the page (``show_link_notice``)."""
    state = st.session_state
    if state.get(keys.SCENARIO_LOADED):
        return
    state[keys.SCENARIO_LOADED] = True
    text = st.query_params.get("scenario")
    if not text:
        return
    try:
        notes = load_scenario(text)
    except ValueError as error:  # (a link's text is escaped: it carries no Markdown)
        state[keys.LINK_NOTICE] = ("error", f"The shared link could not be loaded: "
                                   f"{literal(error)} The app opens with its defaults.")
    else:
        if notes:
            state[keys.LINK_NOTICE] = ("warning", "Parts of the shared link could not be "
                                       "used:\n" + "\n".join(f"- {literal(n)}" for n in notes))


def show_link_notice() -> None:
    """What the shared link could not set, once, as an error or a warning."""
    if notice := st.session_state.pop(keys.LINK_NOTICE, None):
        kind, text = notice
        (st.error if kind == "error" else st.warning)(text)


def share_box(settings_problems: list[str], labels_now) -> None:
    """The sidebar's "Share this scenario" box: the link, or why there is none yet.
    ``labels_now()`` brings the labels up to the data on screen before the link is made."""
    with st.sidebar.expander("Share this scenario"):
        if settings_problems:
            st.caption("The link appears once the data settings above are valid.")
            return
        try:
            labels_now()
        except ValueError:
            pass  # the page says what is wrong with the data; the link keeps the settings
        st.code(f"{st.context.url or ''}?scenario={quote(scenario_text(), safe='')}",
                language=None, wrap_lines=True)
        if (upload := keys.uploaded()) is not None:
            scaled = ("standardized, as here" if upload.standardized
                      else "as they are, as here")
            st.caption(f"The data set is your uploaded file {literal(upload.name)}, which a link "
                       "cannot carry: this link opens with the solver and its parameters, and asks "
                       "whoever opens it to upload the file (its features then "
                       f"{scaled}).")
        else:
            st.caption("Copy this link (the icon at its right): it opens this page with the "
                       "same data, labels, added points, solver and parameters.")
