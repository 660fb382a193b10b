"""The solvers the app offers and a parameter form for each, in the papers' own symbols."""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from ui import presets
from ui import state as keys
from ui.jobs import warm_up


@dataclass(frozen=True)
class Param:
    """One setting as its widget shows it, and the values the widget accepts (``check``).

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

    def option_text(self, option) -> str:
        """How a selectbox shows one of ``options``: None as the placeholder (the paper's
        data-dependent default) or "none", infinity as ∞."""
        if option is None:
            return self.placeholder or "none"
        if isinstance(option, float) and math.isinf(option):
            return "∞"
        return str(option)

    def check(self, value):
        """``value`` as the widget holds it (an int or a float); a ``ValueError`` saying what
        is wrong and what is allowed when the widget does not accept it.

        The number boxes have no bounds of their own (a box refuses an out-of-range value
        in the browser, turns red and keeps sending its old one, so the page could not tell
        that the value on screen was not used): this is where a value is held to them.
        """
        if self.options:
            if value not in self.options or isinstance(value, bool):
                allowed = ", ".join("none" if o is None else str(o) for o in self.options)
                raise ValueError(f"{self.label} must be one of {allowed}, not {shown(value)}.")
            return value
        if value is None:
            if self.optional:
                return None
            raise ValueError(f"{self.label} needs a value.")
        kind = "a whole number" if self.integer else "a number"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{self.label} must be {kind}, not {shown(value)}.")
        if not math.isfinite(value):
            raise ValueError(f"{self.label} must be a finite number, not {shown(value)}.")
        if self.integer and value != int(value):
            raise ValueError(f"{self.label} must be {kind}, not {shown(value)}.")
        if not ((self.low is None or value >= self.low)
                and (self.high is None or value <= self.high)):
            raise ValueError(f"{self.label} = {shown(value)} is outside the allowed range "
                             f"{shown(self.low)} to {shown(self.high)}.")
        return int(value) if self.integer else float(value) + 0.0  # + 0.0: no -0.0


def shown(value, width: int = 40) -> str:
    """A value as a message quotes it: numbers short (1e-8, 2000), anything else as its
    ``repr`` cut to ``width`` characters (a link may hold a string of any length)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**15:
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        text = f"{value:.6g}"
        return text.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    text = repr(value)
    return text if len(text) <= width else text[:width - 1] + "…"


@dataclass(frozen=True)
class ScalableForm:
    """The method's own scalable form, which the app runs above ``SCALABLE_ABOVE`` points.

    ``params`` are estimator parameters (beyond the form's) that select it; ``what`` names it
    in the sentence the page shows near the film (``run_form``).
    """

    params: tuple[tuple[str, object], ...]
    what: str


@dataclass(frozen=True)
class Solver:
    name: str
    title: str
    target: str  # "module:Class"
    paper: str
    stage_label: str  # what the player's large number is
    params: tuple[Param, ...] = field(default_factory=tuple)
    scalable: ScalableForm | None = None


#: Points above which a solver with an O(n^3) step runs its scalable form in the app: at 2,000
#: points the exact forms kept the film waiting 3-30 s (``benchmarks.app_runs``).
SCALABLE_ABOVE = 1000
#: Random training points whose kernel PCA gives the leading components (cS3VM paper §5.2).
PCA_POINTS = 300
#: Neighbours of the sparse graph of the rho-path distances (LDS paper §2.1) in the app; its
#: pieces, if any (two circles, clock at 2,000 points), are joined by their shortest edges.
GRAPH_NEIGHBORS = 10
#: Leading MDS components computed by the truncated eigensolver (LDS's threshold (6) keeps
#: fewer on the app's 2-D data sets).
MDS_COMPONENTS = 20

_KERNEL_PCA_SUBSET = ScalableForm(
    (("n_components", PCA_POINTS),),
    f"the kernel PCA of {PCA_POINTS} random points (cS3VM paper §5.2) instead of all points")
_SPARSE_PATHS = f"ρ-path distances on the {GRAPH_NEIGHBORS}-nearest-neighbour graph"


SIGMA = Param("sigma", "σ (RBF width)", None,
              "k(x, z) = exp(-‖x − z‖² / 2σ²). Empty: the median pairwise distance "
              "(LDS paper §2.3.2).", low=1e-3, high=1e3, optional=True, placeholder="median")
KERNEL = Param("kernel", "kernel", "rbf", "Kernel of the feature space.",
               options=("rbf", "linear", "poly"))
C_LDS = Param("C", "C", None, "Cost of the labeled losses. Empty: 1/s², the inverse "
              "feature-space variance (LDS paper §2.3.2).", low=1e-4, high=1e6, optional=True,
              placeholder="1/s²")
C_STAR_LDS = Param("C_star", "C*", None, "Final cost of the unlabeled losses, reached by the "
                   "annealing C* = 2^(i−10) C (LDS paper, Algorithm 1). Empty: C.", low=1e-4,
                   high=1e6, optional=True, placeholder="C")
RHO = Param("rho", "ρ", 1.0, "Softening of the path distance (LDS paper eq. (2)): 0 gives "
            "Euclidean distances, large ρ the minimax path distance. The paper picks ρ from "
            "{0, 1, 2, 4, 8, 16, ∞} by cross-validation.", low=0.0, high=64.0)
GAMMA_A = Param("gamma_A", "γ_A", 1e-6, "Weight of the ambient RKHS norm (LapSVM paper eq. (7); "
                "Table 8 default).", low=1e-8, high=1e3)
GAMMA_I = Param("gamma_I", "γ_I", 1.0, "Weight of the intrinsic norm fᵀLf (LapSVM paper eq. (1); "
                "Table 8 default; the library refuses 0).", low=1e-8, high=1e3)
NEIGHBORS = Param("n_neighbors", "k (neighbours)", 6, "Neighbours per point of the k-NN graph "
                  "(LapSVM paper Table 8: nn).", low=1, high=100, integer=True)
DEGREE_P = Param("p", "p (Laplacian degree)", 1, "The intrinsic norm uses Lᵖ (LapSVM paper "
                 "Table 8).", low=1, high=10, integer=True)
GRAPH_SIGMA = Param("sigma", "σ (kernel width)", None,
                    "Width of exp(−D^ρ / 2σ²). median: the median path distance (LDS paper "
                    "§2.3.2); ∞: the linear kernel −½HDH of the path distances, the paper's "
                    "experiments (§2.1.2, §3.2).", options=(None, math.inf), placeholder="median")
STOPPING = Param("stopping", "early stopping", None, "PCG goal condition (LapSVM paper §4): "
                 "none runs to convergence; stability is Algorithm 2.",
                 options=(None, "stability", "grad_norm", "grad_norm_preconditioned",
                          "mixed_product", "objective"))

SOLVERS: dict[str, Solver] = {
    s.name: s
    for s in [
        Solver("SVMBaseline", "Supervised SVM (labeled points only)",
               "s3vm_core.solvers.svm:SVMBaseline", "LIBSVM baseline of every paper", "fit",
               (C_LDS, KERNEL, SIGMA)),
        Solver("GradientTSVM", "∇TSVM (gradient descent TSVM)",
               "s3vm_core.solvers.tsvm:GradientTSVM",
               "Chapelle & Zien, Semi-Supervised Classification by Low Density Separation, "
               "AISTATS 2005", "C*", (C_LDS, C_STAR_LDS, KERNEL, SIGMA), _KERNEL_PCA_SUBSET),
        Solver("LDS", "LDS (low density separation)", "s3vm_core.solvers.tsvm:LDS",
               "Chapelle & Zien, AISTATS 2005: ∇TSVM on an MDS embedding of ρ-path distances",
               "C*", (C_LDS, RHO, Param("delta", "δ", 0.1, "MDS threshold (6): keep components "
                                        "until λ_p ≤ δ λ_1 (§2.3.2: 0.1).", low=1e-3,
                                        high=0.999), C_STAR_LDS),
               ScalableForm((("n_neighbors", GRAPH_NEIGHBORS), ("bridge", True),
                             ("max_components", MDS_COMPONENTS)),
                            f"{_SPARSE_PATHS} (§2.1) and the leading {MDS_COMPONENTS} MDS "
                            "components by a truncated eigensolver, instead of the full graph "
                            "and the full eigendecomposition")),
        Solver("GraphKernelSVM", "Graph-kernel SVM", "s3vm_core.solvers.tsvm:GraphKernelSVM",
               "Chapelle & Zien, AISTATS 2005: an SVM on exp(−D^ρ / 2σ²) (the 'graph' method)",
               "fit", (C_LDS, RHO, GRAPH_SIGMA),
               ScalableForm((("n_neighbors", GRAPH_NEIGHBORS), ("bridge", True)),
                            f"{_SPARSE_PATHS} (§2.1) instead of the full graph")),
        Solver("LabelSwitchingTSVM", "TSVM with label switching (SVMlight)",
               "s3vm_core.solvers.tsvm:LabelSwitchingTSVM",
               "Joachims, ICML 1999 — the JTSVM baseline of the DA and cS3VM papers", "C*",
               (C_LDS, C_STAR_LDS, KERNEL, SIGMA)),
        Solver("ContinuationS3VM", "cS3VM (continuation)",
               "s3vm_core.solvers.continuation:ContinuationS3VM",
               "Chapelle, Chi & Zien, A Continuation Method for Semi-Supervised SVMs, ICML 2006",
               "γ", (
                   Param("C", "C", 100.0, "Labeled cost; the paper uses C = 100 (Table 1).",
                         low=1e-4, high=1e6),
                   Param("C_star", "C*", None, "Unlabeled cost. Empty: C (§4).", low=1e-4,
                         high=1e6, optional=True, placeholder="C"),
                   Param("s", "s", 3.0, "Width of the unlabeled loss exp(−s t²) (§3.1).",
                         low=0.1, high=100.0),
                   Param("n_gamma", "number of γ", 11, "Geometric steps from γ0 to γ_end "
                         "(§3.2: eleven).", low=2, high=50, integer=True),
                   Param("loss", "labeled loss", "hinge", "p = 1 (hinge, the paper) or p = 2.",
                         options=("hinge", "squared_hinge")),
                   KERNEL, SIGMA,
               ), _KERNEL_PCA_SUBSET),
        Solver("QNS3VM", "QN-S3VM (quasi-Newton)", "s3vm_core.solvers.qn:QNS3VM",
               "Gieseke, Airola, Pahikkala & Kramer, Sparse Quasi-Newton Optimization for "
               "Semi-Supervised SVMs, ICPRAM 2012", "α", (
                   Param("lam", "λ", 1.0, "Weight of the RKHS norm (QN-S3VM eq. (5)).",
                         low=1e-8, high=1e4),
                   Param("lam_u", "λ'", 1.0, "Final weight of the unlabeled loss, reached "
                         "through α λ' (Algorithm 1); the library refuses 0.", low=1e-8,
                         high=1e4),
                   KERNEL, SIGMA,
                   Param("n_landmarks", "r (landmarks)", None, "Subset of regressors with r "
                         "random landmarks (eq. (9)–(10)). Empty: all points.", low=2,
                         high=10_000, integer=True, optional=True, placeholder="all"),
               )),
        Solver("DeterministicAnnealingS3VM", "DA (deterministic annealing)",
               "s3vm_core.solvers.annealing:DeterministicAnnealingS3VM",
               "Sindhwani, Keerthi & Chapelle, Deterministic Annealing for Semi-supervised "
               "Kernel Machines, ICML 2006", "T", (
                   Param("lam", "λ", 1e-3, "Weight of the RKHS norm (DA paper eq. (4)).",
                         low=1e-8, high=1e4),
                   Param("lam_u", "λ'", 1.0, "Weight of the unlabeled loss (eq. (4)); the "
                         "library refuses 0.", low=1e-8, high=1e4),
                   Param("loss", "loss", "hinge", "Hinge (l1, the paper's best), squared "
                         "hinge (l2) or squared loss (RLS, closed form (7)).",
                         options=("hinge", "squared_hinge", "squared")),
                   KERNEL, SIGMA,
                   Param("T0", "T₀", 10.0, "Starting temperature (Table 1: 10).", low=1e-3,
                         high=1e4),
                   Param("R", "R", 1.5, "Annealing rate T ← T / R (Table 1: 1.5).",
                         low=1.01, high=100.0),
               )),
        Solver("LapSVM", "LapSVM in the primal (Newton / PCG)",
               "s3vm_core.solvers.lapsvm:LapSVM",
               "Melacci & Belkin, Laplacian Support Vector Machines Trained in the Primal, "
               "JMLR 2011", "iteration", (
                   GAMMA_A, GAMMA_I, SIGMA, NEIGHBORS, DEGREE_P,
                   Param("solver", "solver", "newton", "Newton (§3.1) or preconditioned "
                         "conjugate gradient (§3.2).", options=("newton", "pcg")),
                   STOPPING,
               )),
        Solver("LapRLSC", "LapRLSC (Laplacian RLS)", "s3vm_core.solvers.lapsvm:LapRLSC",
               "Melacci & Belkin, JMLR 2011, §5: the squared-loss relative of LapSVM",
               "iteration", (
                   GAMMA_A, GAMMA_I, SIGMA, NEIGHBORS, DEGREE_P,
                   Param("solver", "solver", "direct", "The linear system (15) solved "
                         "directly or by PCG.", options=("direct", "pcg")),
               )),
    ]
}


def solver_class(name: str):
    module, cls = SOLVERS[name].target.split(":")
    return getattr(importlib.import_module(module), cls)


def make_estimator(name: str, params: dict):
    """An unfitted estimator of solver ``name`` with the given form values."""
    if name not in SOLVERS:
        raise ValueError(f"Unknown solver {name!r}; choose one of {', '.join(SOLVERS)}.")
    spec = SOLVERS[name]
    known = {p.name for p in spec.params}
    if spec.scalable is not None:
        known |= {name for name, _ in spec.scalable.params}
    return solver_class(name)(**{k: v for k, v in params.items() if k in known})


def number_box(container, param: Param, key: str, **options):
    """A number input for ``param`` under ``key``, without bounds of its own: the page holds its
    value to ``param`` (``Param.check``) and says what is wrong, where a bounded box would turn
    red in the browser and go on sending its previous value. Its help gives the range."""
    kind = {"step": 1} if param.integer else {"format": "%g"}
    # A widget whose key is already in the session must not also get a default value.
    initial = {} if key in st.session_state else {"value": param.default}
    allowed = ("" if param.low is None or param.high is None
               else f" Allowed: {shown(param.low)} to {shown(param.high)}.")
    return container.number_input(
        param.label, key=key, help=param.help + allowed if param.help else None,
        placeholder=param.placeholder or None, **{**kind, **initial, **options})


def problems(checks) -> list[str]:
    """What ``Param.check`` says of each ``(param, value)`` whose value its widget refuses."""
    found = []
    for param, value in checks:
        try:
            param.check(value)
        except ValueError as problem:
            found.append(str(problem))
    return found


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
            values[param.name] = column.selectbox(
                param.label, param.options, key=key, help=param.help,
                format_func=param.option_text, **initial)
        else:
            values[param.name] = number_box(column, param, key)
    return values


def preset_values(dataset: str, solver: str, name: str) -> dict:
    """Every form value of ``solver`` under preset ``name`` (``ui.presets``) on ``dataset``."""
    chosen = presets.preset_params(dataset, solver, name)
    return {p.name: chosen.get(p.name, p.default) for p in SOLVERS[solver].params}


def form_values(solver: str) -> dict:
    """The values of ``solver``'s form in the session (its defaults where it was not drawn)."""
    state = st.session_state
    return {p.name: state.get(keys.solver_param_key(solver, p.name), p.default)
            for p in SOLVERS[solver].params}


def current_preset(dataset: str, solver: str) -> str | None:
    """The preset whose values the form holds (the paper's first), or None when the user has
    changed them."""
    values = form_values(solver)
    for name in (presets.PAPER, presets.DEFAULT):
        if ((name == presets.DEFAULT or presets.paper_preset(dataset, solver) is not None)
                and values == preset_values(dataset, solver, name)):
            return name
    return None


def apply_preset(dataset: str, solver: str, name: str) -> None:
    """Fill ``solver``'s form with preset ``name`` (a button's callback, or before the form is
    drawn) and remember it was applied for this data set."""
    state = st.session_state
    for param_name, value in preset_values(dataset, solver, name).items():
        state[keys.solver_param_key(solver, param_name)] = value
    state[keys.PRESET_APPLIED] = {**state.get(keys.PRESET_APPLIED, {}),
                                  solver: [dataset, name]}


def open_on_preset(dataset: str, solver: str) -> None:
    """On every page, before the Watch page's form is drawn: a solver's form opens on its
    preset as in the paper where the data set has one (the generic default elsewhere); when
    the data set has changed since a preset was applied and the form still holds it, the new
    data set's preset replaces it. Values the user typed, or a shared link set, are left
    alone."""
    state = st.session_state
    drawn = any(keys.solver_param_key(solver, p.name) in state for p in SOLVERS[solver].params)
    applied = state.get(keys.PRESET_APPLIED, {}).get(solver)
    if not drawn:
        apply_preset(dataset, solver, presets.first_preset(dataset, solver))
    elif (applied is not None and applied[0] != dataset
          and form_values(solver) == preset_values(applied[0], solver, applied[1])):
        apply_preset(dataset, solver, presets.first_preset(dataset, solver))


#: The Watch page's buttons that fill the form with a preset.
PRESET_BUTTONS = {presets.PAPER: "Use the setting as in the paper",
                  presets.DEFAULT: "Use the generic default"}


def preset_line(container, dataset: str, solver: str) -> None:
    """Under the Watch page's form: which preset its values are (and where the paper's comes
    from), with one click to the other, or to either once the user has changed them."""
    from toy_data import DATASETS

    current = current_preset(dataset, solver)
    paper = presets.paper_preset(dataset, solver)
    where = DATASETS[dataset].title.lower() if dataset in DATASETS else dataset
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
    line, *places = container.columns([4, *[2] * len(others)], vertical_alignment="center")
    line.caption(text)
    for place, name in zip(places, others, strict=True):
        place.button(PRESET_BUTTONS[name], key=f"{keys.WATCH_PRESET}:{name}",
                     on_click=apply_preset, args=(dataset, solver, name), width="stretch",
                     help="Fill the form with this preset and run it.")


def preset_choice(container, name: str, dataset: str, solver: str) -> tuple[str, dict]:
    """A teaching page's radio between ``solver``'s presets on ``dataset`` (only the default
    where the data set has no paper preset), under the page's key ``name``; returns the preset
    chosen and its parameters (``ui.presets.preset_params``). It opens on the paper's."""
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
    return chosen, presets.preset_params(dataset, solver, chosen)


def preset_caption(dataset: str, solver: str, chosen: str, shown_params: dict) -> str:
    """One line on what a preset set: ``shown_params`` (e.g. σ) and where they come from."""
    values = ", ".join(f"{label} = {value}" for label, value in shown_params.items())
    if chosen == presets.PAPER and (preset := presets.paper_preset(dataset, solver)):
        return f"{values}: the preset as in the paper, {preset.source}."
    return f"{values}: the generic default."


def sigma_caption(dataset: str, solver: str, chosen: str, sigma) -> str:
    """``preset_caption`` of a teaching page, whose preset sets the RBF width σ."""
    return preset_caption(dataset, solver, chosen,
                          {"σ": sigma if sigma is not None else "the median distance"})


def require_valid_parameters(name: str, values: dict, *more) -> None:
    """Stop the page before solver ``name`` runs when a parameter (or one of the ``(param,
    value)`` pairs ``more``) is outside what its box accepts, saying which and what is
    allowed: the previous film must not pass for a run of the values on screen."""
    checks = [(param, values.get(param.name)) for param in SOLVERS[name].params]
    if found := problems([*checks, *more]):
        st.error(f"Nothing was run: {' '.join(found)} Correct it and press **Run** again.")
        st.stop()


def require_both_classes(labels, solver: str = "a solver") -> None:
    """Stop the page with a clear message unless both classes have a labeled point."""
    from toy_data import UNLABELED

    if not {0, 1} <= set(np.asarray(labels)[np.asarray(labels) != UNLABELED].tolist()):
        st.error("Label at least one point of each class on the **Data & labels** page: a "
                 f"classifier needs an example of both classes before {solver} can run.")
        st.stop()


def start_page(uses_data: bool = True) -> None:
    """Initialise the session's state and draw the shared sidebar (first call of every page),
    then what a shared link could not set; stop a page that ``uses_data`` while the sidebar's
    data settings are invalid (nothing could be drawn from them)."""
    _enter_through_the_router()
    warm_up()  # the solvers' process server starts while the first page is drawn
    keys.init()
    # before the sidebar's share link: the solver's form holds its preset from the first page
    open_on_preset(st.session_state[keys.DATASET], st.session_state[keys.SOLVER])
    found = data_controls()
    if notice := st.session_state.pop(keys.LINK_NOTICE, None):
        kind, text = notice
        (st.error if kind == "error" else st.warning)(text)
    if found:
        st.error(f"The data settings in the sidebar are not valid: {' '.join(found)} Change "
                 "them there: the pages show data again as soon as they are valid.")
        if uses_data:
            st.stop()


PAGE_CONFIG = {"page_title": "S3VM Explorer", "page_icon": "◆", "layout": "wide"}
#: The app's pages: file in ``pages/``, title, Material icon. The first is the default page.
PAGES = [
    ("data", "Data & labels", "edit"),
    ("watch", "Watch a solver", "play_circle"),
    ("continuation", "Continuation (cS3VM)", "timeline"),
    ("annealing", "Deterministic annealing", "thermostat"),
    ("early_stopping", "LapSVM early stopping", "timer"),
    ("compare", "Compare solvers", "leaderboard"),
    ("about", "About the solvers", "menu_book"),
]


def app_pages() -> list:
    """The router's pages (``st.navigation``'s argument)."""
    return [st.Page(f"pages/{file}.py", title=title, icon=f":material/{icon}:",
                    default=index == 0)
            for index, (file, title, icon) in enumerate(PAGES)]


#: Whether ``route`` has run in this server process (see ``_enter_through_the_router``).
_routed = False


def route() -> None:
    """The router (``app.py``): page configuration, then the page the address names (or the
    first page, saying so, when the address names no page)."""
    global _routed
    _routed = True
    st.set_page_config(**PAGE_CONFIG)
    page = st.navigation(app_pages())
    if missing := _unknown_page():
        path = missing if len(missing) <= 60 else f"{missing[:59]}…"
        st.warning(f"This app has no page “/{path}”: here is its first page, {page.title}. "
                   "The sidebar lists every page.")
    page.run()


def _unknown_page() -> str | None:
    """The page name of the address when it names no page of the router (Streamlit then runs
    the first page), else None. Only the first run of a session asks by name: later ones ask
    for a page by its hash."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    manager = context.pages_manager if context is not None else None
    if manager is None or manager.intended_page_script_hash or not manager.intended_page_name:
        return None
    known = {info.get("url_pathname") for info in manager.get_pages().values()}
    return None if manager.intended_page_name in known else manager.intended_page_name


def _enter_through_the_router() -> None:
    """Give the router's page list to a page Streamlit started without the router.

    Until ``st.navigation`` has run once in the server process, Streamlit takes a ``pages/``
    folder beside the main script for old-style pages: a deep link such as ``/watch``, opened
    first on a freshly started server, runs the page alone under an automatic list of file
    names. Calling ``st.navigation`` here replaces that list with the router's and ends the
    old-style mode for the process; the page goes on as the router would have run it. (AppTest
    resets Streamlit's flag before every run, after its first run went through the router: it
    is left alone then.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    if not _routed and getattr(PagesManager, "uses_pages_directory", False):
        st.set_page_config(**PAGE_CONFIG)
        st.navigation(app_pages())


#: The sidebar's number settings; a shared link is held to the same (``ui.state``).
N_POINTS = Param("n", "n (points)", None, "Number of points. Kernel solvers cost O(n²) memory.",
                 low=10, high=keys.MAX_POINTS, integer=True)
#: The Watch page's time budget of a run.
BUDGET = Param("budget", "time budget (s)", keys.DEFAULTS[keys.RUN_BUDGET],
               "A run ends after this much solver time and plays the path so far.",
               low=keys.MIN_BUDGET, high=keys.MAX_BUDGET, integer=True)
#: No help text: a "Help for seed" button would share the box's accessible name.
SEED = Param("seed", "seed", 0, "", low=0, high=2**31 - 1, integer=True)


def noise_param(spec) -> Param:
    """The sidebar's noise slider for data set ``spec`` (a registry entry of ``toy_data``)."""
    return Param("noise", "noise", spec.noise, "Standard deviation of the jitter.", low=0.0,
                 high=2.0 if spec.noise >= 0.5 else 0.5)


def data_controls() -> list[str]:
    """The shared sidebar: which data set, how many points, how noisy, which seed. Returns what
    is wrong with the settings, as sentences (empty when the data can be drawn)."""
    from toy_data import DATASETS

    state = st.session_state
    st.sidebar.header("Data")
    st.sidebar.selectbox("data set", list(DATASETS), key=keys.DATASET,
                         format_func=lambda name: DATASETS[name].title,
                         on_change=_reset_data_defaults)
    spec = DATASETS[state[keys.DATASET]]
    st.sidebar.caption(f"{spec.description} Dimension {spec.n_features}; assumption: "
                       f"{spec.assumption}.")
    if spec.fixed_size:  # its box is disabled: no other n could be changed back
        state[keys.N_SAMPLES] = spec.n_samples
    number_box(st.sidebar, N_POINTS, keys.N_SAMPLES, step=10, disabled=spec.fixed_size)
    noise = noise_param(spec)
    st.sidebar.slider(noise.label, min_value=noise.low, max_value=noise.high, step=0.01,
                      key=keys.NOISE, help=noise.help)
    number_box(st.sidebar, SEED, keys.SEED)
    st.sidebar.button("Regenerate", on_click=_next_seed, key=keys.REGENERATE, width="stretch",
                      help="Draw a new data set from the same generator (next seed).")
    found = problems([(N_POINTS, state[keys.N_SAMPLES]), (noise, state[keys.NOISE]),
                      (SEED, state[keys.SEED])])
    with st.sidebar.expander("Share this scenario"):
        if found:
            st.caption("The link appears once the data settings above are valid.")
        else:
            st.code(share_link(), language=None, wrap_lines=True)
            st.caption("Copy this link (the icon at its right): it opens this page with the "
                       "same data, labels, added points, solver and parameters.")
    return found


def share_link() -> str:
    """The address of this page with the session's scenario in its query (relative when the
    browser's address is unknown, as in headless tests)."""
    from urllib.parse import quote

    from ui.caching import dataset

    try:  # the sidebar comes first: bring the labels up to the data on screen before sharing
        keys.labels(dataset(*keys.data_description())[1])
    except ValueError:
        pass  # the page says what is wrong with the data; the link keeps the settings
    return f"{st.context.url or ''}?scenario={quote(keys.scenario_query(), safe='')}"


def _reset_data_defaults() -> None:
    from toy_data import DATASETS

    spec = DATASETS[st.session_state[keys.DATASET]]
    st.session_state[keys.N_SAMPLES] = spec.n_samples
    st.session_state[keys.NOISE] = spec.noise


def _next_seed() -> None:
    st.session_state[keys.SEED] = int(st.session_state[keys.SEED]) + 1


def scalable_caption(rows, n_points: int, titles: dict) -> str | None:
    """One line naming the scalable forms that ran in a comparison's ``rows`` (their
    ``"form"``), or None when every solver ran exactly."""
    scaled = {titles.get(r["solver"], r["solver"]): r["form"] for r in rows
              if r.get("form", "exact") != "exact"}
    if not scaled:
        return None
    return (f"Scalable forms: at {n_points:,} points " + "; ".join(
        f"{title} ran on {form}" for title, form in scaled.items()) +
        ", as the Watch page runs them, so that the comparison takes seconds.")


def run_form(name: str, n_points: int, params: dict) -> tuple[dict, str | None]:
    """The parameters solver ``name`` runs with on ``n_points`` points, and a sentence saying
    which form of the method ran and why when it is not the exact one (None otherwise).

    Above ``SCALABLE_ABOVE`` points a solver with an O(n^3) step runs its scalable form; the
    linear kernel has no n x n step, so it always runs exactly.
    """
    form = SOLVERS[name].scalable
    if form is None or n_points <= SCALABLE_ABOVE or params.get("kernel") == "linear":
        return dict(params), None
    return {**params, **dict(form.params)}, (
        f"Scalable form: at {n_points:,} points (more than {SCALABLE_ABOVE:,}) this run used "
        f"{form.what}, so that it runs in seconds.")
