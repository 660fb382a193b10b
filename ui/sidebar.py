"""The sidebar every page shares: ``start_page`` (each page's first call), the data settings
and the share link."""

from __future__ import annotations

from urllib.parse import quote

import streamlit as st

from toy_data import DATASETS
from ui import state as keys
from ui.counter import counting_button
from ui.forms import number_box, open_on_preset
from ui.jobs import warm_up
from ui.navigation import enter_through_the_router
from ui.params import N_POINTS, SEED, noise_param, problems
from ui.runs import dataset


def start_page(uses_data: bool = True) -> None:
    """Initialise the session's state and draw the shared sidebar (first call of every page),
    then what a shared link could not set; stop a page that ``uses_data`` while the sidebar's
    data settings are invalid (nothing could be drawn from them)."""
    enter_through_the_router()
    warm_up()  # the solvers' process server starts while the first page is drawn
    keys.init()
    found = data_controls()
    if notice := st.session_state.pop(keys.LINK_NOTICE, None):
        kind, text = notice
        (st.error if kind == "error" else st.warning)(text)
    if found:
        st.error(f"The data settings in the sidebar are not valid: {' '.join(found)} Change "
                 "them there: the pages show data again as soon as they are valid.")
        if uses_data:
            st.stop()


def data_controls() -> list[str]:
    """The shared sidebar: which data set, how many points, how noisy, which seed. Returns what
    is wrong with the settings, as sentences (empty when the data can be drawn)."""
    state = st.session_state
    _regenerate()  # before the seed's box, which shows the new seed
    st.sidebar.header("Data")
    st.sidebar.selectbox("data set", list(DATASETS), key=keys.DATASET,
                         format_func=lambda name: DATASETS[name].title,
                         on_change=_reset_data_defaults)
    spec = DATASETS[state[keys.DATASET]]
    if (upload := keys.uploaded()) is not None:
        st.sidebar.info(f"The pages show your uploaded file {upload.name}; the settings below "
                        "apply once you go back to the generated data (Data & labels page).")
    st.sidebar.caption(f"{spec.description} Dimension {spec.n_features}; assumption: "
                       f"{spec.assumption}.")
    if spec.fixed_size:  # its box is disabled: no other n could be changed back
        state[keys.N_SAMPLES] = spec.n_samples
    number_box(st.sidebar, N_POINTS, keys.N_SAMPLES, disabled=spec.fixed_size)
    if not problems([(N_POINTS, state[keys.N_SAMPLES])]):
        # before the share link: the solver's form holds its preset from the first page, and
        # a paper preset follows the data set and its n as soon as they change
        open_on_preset(keys.presets_data_set(), state[keys.SOLVER])
    noise = noise_param(spec)
    st.sidebar.slider(noise.label, min_value=noise.low, max_value=noise.high, step=0.01,
                      key=keys.NOISE, help=noise.help)
    number_box(st.sidebar, SEED, keys.SEED)
    counting_button(st.sidebar, "Regenerate", keys.REGENERATE, state.get(keys.REGENERATED, 0),
                    help="Draw a new data set from the same generator (the next seed, one per "
                         "click).")
    found = problems([(N_POINTS, state[keys.N_SAMPLES]), (noise, state[keys.NOISE]),
                      (SEED, state[keys.SEED])])
    with st.sidebar.expander("Share this scenario"):
        if found:
            st.caption("The link appears once the data settings above are valid.")
        elif (upload := keys.uploaded()) is not None:
            st.code(share_link(), language=None, wrap_lines=True)
            st.caption(f"The data set is your uploaded file {upload.name}, which a link cannot "
                       "carry: this link opens with the solver and its parameters, and asks "
                       "whoever opens it to upload the file.")
        else:
            st.code(share_link(), language=None, wrap_lines=True)
            st.caption("Copy this link (the icon at its right): it opens this page with the "
                       "same data, labels, added points, solver and parameters.")
    return found


def share_link() -> str:
    """The address of this page with the session's scenario in its query (relative when the
    browser's address is unknown, as in headless tests)."""
    try:  # the sidebar comes first: bring the labels up to the data on screen before sharing
        keys.labels(dataset(*keys.data_description())[1])
    except ValueError:
        pass  # the page says what is wrong with the data; the link keeps the settings
    return f"{st.context.url or ''}?scenario={quote(keys.scenario_text(), safe='')}"


def _reset_data_defaults() -> None:
    spec = DATASETS[st.session_state[keys.DATASET]]
    st.session_state[keys.N_SAMPLES] = spec.n_samples
    st.session_state[keys.NOISE] = spec.noise


def _regenerate() -> None:
    """Each click on Regenerate that the page has not seen yet moves the seed one on (from
    the first, 0, when the box holds no valid seed: the sidebar says why)."""
    state = st.session_state
    clicks, seen = state.get(keys.REGENERATE) or 0, state.get(keys.REGENERATED, 0)
    if clicks > seen:
        try:
            seed = SEED.check(keys.typed_value(SEED, keys.SEED)) + clicks - seen
        except ValueError:
            seed = SEED.default
        state[keys.SEED], state[keys.REGENERATED] = seed % (SEED.high + 1), clicks
