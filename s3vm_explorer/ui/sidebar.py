"""The sidebar every page shares: ``start_page`` (each page's first call), the data settings
and the share link."""

from __future__ import annotations

import numpy as np
import streamlit as st

from s3vm_explorer.engine.data import Data
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.params import N_POINTS, SEED, noise_param, problems
from s3vm_explorer.engine.run.backends import warm_up
from s3vm_explorer.ui import state as keys
from s3vm_explorer.ui.counter import counting_button
from s3vm_explorer.ui.forms import (
    number_box,
    open_on_preset,
    read_number_boxes,
    require_two_classes,
    typed_value,
)
from s3vm_explorer.ui.navigation import enter_through_the_router
from s3vm_explorer.ui.runs import current_data, dataset
from s3vm_explorer.ui.share import open_link, share_box, show_link_notice
from toy_data import DATASETS, class_count


def start_page(uses_data: bool = True) -> None:
    """Initialise the session's state and draw the shared sidebar (first call of every page),
    then what a shared link could not set; stop a page that ``uses_data`` while the sidebar's
    data settings are invalid (nothing could be drawn from them)."""
    enter_through_the_router()
    warm_up()  # the solvers' process server starts while the first page is drawn
    keys.init()
    read_number_boxes()
    open_link()
    found = data_controls()
    show_link_notice()
    if found:
        st.error(f"The data settings in the sidebar are not valid: {literal(' '.join(found))} "
                 "Change them there: the pages show data again as soon as they are valid.")
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
        st.sidebar.info(f"The pages show your uploaded file {literal(upload.name)}; the "
                        "settings below apply once you go back to the generated data (Data & "
                        "labels page).")
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
    # the sidebar comes first: the labels are brought up to the data on screen before sharing
    share_box(found, lambda: keys.labels(dataset(keys.data_source()).y_true))
    return found


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
            seed = SEED.check(typed_value(SEED, keys.SEED)) + clicks - seen
        except ValueError:
            seed = SEED.default
        state[keys.SEED], state[keys.REGENERATED] = seed % (SEED.high + 1), clicks


def start_teaching_page(title: str, story: str, shows: str) -> tuple[Data, np.ndarray, str]:
    """The head of a teaching page: the sidebar, the title and the paper's story in a few
    sentences; then the session's data and labels, the page stopped with a sentence on data
    of more than two classes (it shows ``shows`` of one binary problem). Returns the data, the
    labels and the data set whose presets the page offers."""
    start_page()
    st.title(title)
    st.markdown(story)
    data, labels = current_data()
    require_two_classes(class_count(data.y_true), shows)
    return data, labels, keys.presets_data_set()


def lesson_and_settings(settings: str):
    """The row under a teaching page's story: its "Lesson" button (``ui.guide.lesson``) beside
    the expander of its settings, titled ``settings``, and the lesson's box under them. One
    row, not two: at 1024 x 768 the page's main chart stands whole on the first screen.
    Returns the button's place, the box's place and the expander."""
    button, folded = st.columns([1, 4], vertical_alignment="top")
    return button.container(), st.container(), folded.expander(settings)
