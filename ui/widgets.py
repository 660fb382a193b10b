"""The solvers the app offers and a parameter form for each, in the papers' own symbols."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

import streamlit as st

from ui import state as keys


@dataclass(frozen=True)
class Param:
    """One hyperparameter as the form shows it.

    ``default=None`` with ``optional=True`` means "the paper's data-dependent default" (shown as
    an empty box with ``placeholder``).
    """

    name: str
    label: str
    default: object
    help: str
    low: float | None = None
    high: float | None = None
    options: tuple = ()
    integer: bool = False
    optional: bool = False
    placeholder: str = ""


@dataclass(frozen=True)
class Solver:
    name: str
    title: str
    target: str  # "module:Class"
    paper: str
    stage_label: str  # what the player's large number is
    params: tuple[Param, ...] = field(default_factory=tuple)


SIGMA = Param("sigma", "σ (RBF width)", None,
              "k(x, z) = exp(-‖x − z‖² / 2σ²). Empty: the median pairwise distance "
              "(LDS paper §2.3.2).", low=1e-3, high=1e3, optional=True, placeholder="median")
KERNEL = Param("kernel", "kernel", "rbf", "Kernel of the feature space.",
               options=("rbf", "linear", "poly"))

SOLVERS: dict[str, Solver] = {
    s.name: s
    for s in [
        Solver(
            "SVMBaseline", "Supervised SVM (labeled points only)",
            "s3vm_core.solvers.svm:SVMBaseline", "LIBSVM baseline of every paper", "fit",
            (
                Param("C", "C", None, "Misclassification cost. Empty: 1/s², the inverse "
                      "feature-space variance (LDS paper §2.3.2).", low=1e-4, high=1e6,
                      optional=True, placeholder="1/s²"),
                KERNEL, SIGMA,
            ),
        ),
    ]
}


def solver_class(name: str):
    module, cls = SOLVERS[name].target.split(":")
    return getattr(importlib.import_module(module), cls)


def make_estimator(name: str, params: dict):
    """An unfitted estimator of solver ``name`` with the given form values."""
    if name not in SOLVERS:
        raise ValueError(f"Unknown solver {name!r}; choose one of {', '.join(SOLVERS)}.")
    known = {p.name for p in SOLVERS[name].params}
    return solver_class(name)(**{k: v for k, v in params.items() if k in known})


def _valid(param: Param, value) -> bool:
    if value is None:
        return param.optional
    if param.options:
        return value in param.options
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return (param.low is None or value >= param.low) and (param.high is None or value <= param.high)


def parameter_form(name: str) -> dict:
    """Draw the parameter widgets of solver ``name``; return their values by parameter name."""
    values = {}
    for param in SOLVERS[name].params:
        key = keys.solver_param_key(name, param.name)
        if key in st.session_state and not _valid(param, st.session_state[key]):
            del st.session_state[key]  # e.g. a value from an edited link: fall back to default
        # A widget whose key is already in the session must not also get a default value.
        initial = {} if key in st.session_state else {"value": param.default}
        if param.options:
            if initial:
                initial = {"index": param.options.index(param.default)}
            values[param.name] = st.selectbox(
                param.label, param.options, key=key, help=param.help, **initial)
        elif param.integer:
            values[param.name] = st.number_input(
                param.label, min_value=int(param.low), max_value=int(param.high), step=1,
                key=key, help=param.help, **initial)
        else:
            values[param.name] = st.number_input(
                param.label, min_value=param.low, max_value=param.high, format="%g", key=key,
                help=param.help, placeholder=param.placeholder or None, **initial)
    return values


def start_page() -> None:
    """Initialise the session's state and draw the shared sidebar (first call of every page)."""
    keys.init()
    data_controls()


def data_controls() -> None:
    """The shared sidebar: which data set, how many points, how noisy, which seed."""
    from toy_data import DATASETS

    st.sidebar.header("Data")
    st.sidebar.selectbox("data set", list(DATASETS), key=keys.DATASET,
                         format_func=lambda name: DATASETS[name].title,
                         on_change=_reset_data_defaults)
    spec = DATASETS[st.session_state[keys.DATASET]]
    st.sidebar.caption(f"{spec.description} Dimension {spec.n_features}; assumption: "
                       f"{spec.assumption}.")
    st.sidebar.number_input("n (points)", min_value=10, max_value=keys.MAX_POINTS, step=10,
                            key=keys.N_SAMPLES, disabled=spec.fixed_size,
                            help="Number of points. Kernel solvers cost O(n²) memory.")
    st.sidebar.slider("noise", min_value=0.0, max_value=2.0 if spec.noise >= 0.5 else 0.5,
                      step=0.01, key=keys.NOISE, help="Standard deviation of the jitter.")
    st.sidebar.number_input("seed", min_value=0, max_value=2**31 - 1, step=1, key=keys.SEED)
    st.sidebar.button("Regenerate", on_click=_next_seed, key=keys.REGENERATE, width="stretch",
                      help="Draw a new data set from the same generator (next seed).")


def _reset_data_defaults() -> None:
    from toy_data import DATASETS

    spec = DATASETS[st.session_state[keys.DATASET]]
    st.session_state[keys.N_SAMPLES] = spec.n_samples
    st.session_state[keys.NOISE] = spec.noise


def _next_seed() -> None:
    st.session_state[keys.SEED] = int(st.session_state[keys.SEED]) + 1
