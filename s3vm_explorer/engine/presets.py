"""Named parameter presets of the solvers: "as in the paper" and "the generic default".

Plain data (no streamlit), so ``benchmarks/presets.py`` can check it against its experiment. A
paper preset is the setting a paper states for one of its own data sets, or the grid point
that the project's reproduction of a paper's table selects on that data set as the app
generates it (``python -m benchmarks.presets``; the table is in docs/benchmarks.md, "Presets
as in the paper"). Each cites its source. The generic default is every solver's own default:
the papers' data-independent rules, such as sigma = the median pairwise distance (LDS paper
§2.3.2), which suit no data set in particular (docs/deviations.md, "Defaults").

A paper preset is chosen at the data set's registry size; on another n the parameters that
count points (``SCALED_WITH_N``) are carried to it (``scaled``), and the page says so
(``scaled_caption``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.registry import SOLVERS
from toy_data import DATASETS

PAPER = "paper"
DEFAULT = "default"
#: Preset names as the app shows them.
TITLES = {PAPER: "as in the paper", DEFAULT: "the generic default"}
#: The Compare page's third choice: each solver with both presets, side by side.
BOTH = "both"
#: Its fourth: each solver's parameters chosen by cross-validation on the draw's own labels
#: (``engine.comparison.ChosenByCV``), the supervised SVM's the same way.
CHOSEN_BY_CV = "cv"
#: The Compare page's choices (the share link's "compare" field).
COMPARE_CHOICES = (PAPER, DEFAULT, BOTH, CHOSEN_BY_CV)


@dataclass(frozen=True)
class Preset:
    """Parameter values by the form's parameter names (the others keep their defaults) and
    where they come from."""

    params: dict = field(default_factory=dict)
    source: str = ""


_DA_GRID = ("the DA paper's Table 2 grid (§4), selected on this data set over 10 draws of one "
            "label per class (benchmarks/presets.py)")
_LDS_GRID = ("the LDS paper's Table 2 grid (§3.2; the graph kernel and LDS with σ = ∞), selected "
             "on this data set with 50 labels over 10 draws (benchmarks/presets.py)")
_QN_GRID = ("the QN-S3VM paper's grid with the linear kernel (§4.1.3, Table 1), selected on this "
            "data set with 24 labels over 10 draws (benchmarks/presets.py)")
_CS3VM_TABLE_1 = "the cS3VM paper's C = C* = 100, \"close to hard margin\" (Table 1)"
_G50C_ROW = ("the LapSVM paper's Table 8, G50C row (the width stays the median distance, for "
             "the paper's σ = 17.5 on its own scaling)")
_USPST_ROW = ("the LapSVM paper's Table 8, USPST(B) row (the width stays the median distance; "
              "USPS is replaced by scikit-learn's digits)")


def _toy(source, **presets):
    return {solver: Preset(params, source) for solver, params in presets.items()}


#: ``{(data set, solver): Preset}``; data set and solver are registry names
#: (``toy_data.DATASETS``, ``engine.registry.SOLVERS``). The measured effect of every one is in
#: docs/benchmarks.md ("Presets as in the paper, on the app's data").
PAPER_PRESETS: dict[tuple[str, str], Preset] = {
    (dataset, solver): preset
    for dataset, presets in {
        # the DA paper's 2MOONS and 2CIRCLES: its Table 2 grid, one label per class
        "two_moons": _toy(
            _DA_GRID, GradientTSVM={"sigma": 0.25}, LDS={"rho": 8.0},
            GraphKernelSVM={"rho": 32.0, "sigma": math.inf},
            LabelSwitchingTSVM={"sigma": 0.25}, ContinuationS3VM={"sigma": 0.25},
            QNS3VM={"lam": 2.0**-5, "sigma": 0.25},
            DeterministicAnnealingS3VM={"lam": 0.01, "sigma": 0.25},
            LapSVM={"gamma_I": 10.0, "sigma": 0.5}, LapRLSC={"gamma_I": 10.0, "sigma": 0.5}),
        "two_circles": _toy(
            _DA_GRID, GradientTSVM={"sigma": 0.125}, LDS={"rho": 32.0},
            GraphKernelSVM={"rho": 32.0, "sigma": math.inf},
            LabelSwitchingTSVM={"sigma": 0.125}, ContinuationS3VM={"sigma": 0.25},
            QNS3VM={"lam": 1.0, "sigma": 0.25},
            DeterministicAnnealingS3VM={"lam": 0.001, "sigma": 0.125},
            LapSVM={"gamma_I": 0.1, "sigma": 0.125}, LapRLSC={"gamma_I": 0.1, "sigma": 0.125}),
        # the LDS paper's g50c and g10n: its Table 2 grid, 50 labels; LapSVM's G50C row
        "g50c": {
            **_toy(_LDS_GRID, SVMBaseline={"C": 1.0},
                   GraphKernelSVM={"C": 1.0, "rho": 0.0, "sigma": math.inf},
                   GradientTSVM={"C": 1.0, "sigma": 20.3}, LDS={"C": 10.0, "rho": 0.0}),
            **_toy(_G50C_ROW,
                   LapSVM={"gamma_A": 0.1, "gamma_I": 10.0, "n_neighbors": 50, "p": 5},
                   LapRLSC={"gamma_A": 1e-6, "gamma_I": 0.01, "n_neighbors": 50, "p": 5}),
        },
        "g10n": _toy(_LDS_GRID, SVMBaseline={"C": 100.0, "sigma": 9.98},
                     GraphKernelSVM={"C": 1.0, "rho": 0.0, "sigma": math.inf},
                     GradientTSVM={"C": 100.0, "sigma": 9.98}, LDS={"C": 1.0, "rho": 0.0}),
        # the cS3VM paper's digit pairs (USPS there): its stated C = C* = 100
        "digits_3_8": {
            **_toy(_CS3VM_TABLE_1, ContinuationS3VM={"C": 100.0, "C_star": 100.0},
                   GradientTSVM={"C": 100.0, "C_star": 100.0},
                   LabelSwitchingTSVM={"C": 100.0, "C_star": 100.0},
                   SVMBaseline={"C": 100.0}),
            **_toy(_USPST_ROW,
                   LapSVM={"gamma_A": 1e-6, "gamma_I": 0.01, "n_neighbors": 10, "p": 2}),
        },
        "digits_2_5": _toy(_CS3VM_TABLE_1, ContinuationS3VM={"C": 100.0, "C_star": 100.0},
                           GradientTSVM={"C": 100.0, "C_star": 100.0},
                           LabelSwitchingTSVM={"C": 100.0, "C_star": 100.0},
                           SVMBaseline={"C": 100.0}),
        # the QN-S3VM paper's Gaussian2C and Gaussian4C (500-D): its grid, linear kernel
        "gaussian_2c": _toy(_QN_GRID, QNS3VM={"kernel": "linear", "lam": 2.0**10,
                                              "lam_u": 100.0}),
        "gaussian_4c": _toy(_QN_GRID, QNS3VM={"kernel": "linear", "lam": 2.0**-10,
                                              "lam_u": 0.01}),
    }.items()
    for solver, preset in presets.items()
}


#: Parameters of a paper preset that follow the number of points n, as the power of n / n0
#: they are multiplied by (n0: the data set's registry size, where the preset was chosen).
#: The graph of LapSVM and LapRLSC (LapSVM paper §2) is kept as it was at n0: k grows with n,
#: so that each point's neighbours stay within the same radius (with the same heat-kernel
#: width, the mean neighbour distance measured on the data, ``s3vm_core.graph``); the
#: intrinsic norm fᵀLf then sums over n times more points whose normalized degrees are the
#: same, so γ_I falls as 1/n to keep its balance with the loss of the labeled points -- the
#: normalization γ_I / (l + u)² of manifold regularization for the unnormalized Laplacian,
#: whose degrees also grow with n, that the LapSVM paper drops "for simplicity" (eq. (2)). A
#: fixed k at n = 2,000 shrinks the neighbourhoods: on two moons the boundary fragmented
#: (22.5 % unlabeled error against 1.2 % at n = 200; docs/benchmarks.md, "Presets at every
#: size").
SCALED_WITH_N = {"n_neighbors": 1, "gamma_I": -1}

#: The solvers whose paper preset's RBF width σ follows n (``width_power``). cS3VM's unlabeled
#: loss, C* times exp(-s f²) summed over the unlabeled points (cS3VM paper eq. (2)), is low
#: where the boundary crosses few of them: it measures the density of the unlabeled points at
#: the boundary through the kernel, as the LDS paper's Parzen window "with a Gaussian kernel of
#: width σ/√2" does (§2.1.1; "margin maximization on the unlabeled points ... enforces that the
#: decision boundary lies in low density regions", §4). A Parzen window's width narrows as
#: n^(-1/(d + 4)) (the rate of the smallest mean integrated squared error, Silverman 1986,
#: ch. 4): more points resolve a narrower valley. With the width chosen at n = 200 kept, 4, 5
#: and 3 of 40 label draws on two moons ended in the wrong local minimum at n = 500, 1,000 and
#: 2,000, a boundary through both moons (objective (2) 234 there against 61 at the moons' own
#: separation, n = 1,000, draw 1); with the narrower width 2, 2 and 2 of 40
#: (docs/benchmarks.md, "Presets at every size").
#:
#: QN-S3VM's loss measures the same density, but with the paper's short sequence
#: α = 0.01, 0.1, 1 (§4.1.3) its failures on two moons are of another kind, at every n: the
#: unlabeled term, switched on in steps of ten, cuts off a moon's end (13-31 % wrong) in a
#: quarter to a half of the draws, and the narrower width made that more frequent at n = 500
#: (20 of 40 draws within 1 % against 25). It keeps its width. ∇TSVM keeps its own: with the
#: rule it gained 0, 1 and 2 of 40 draws at n = 500, 1,000 and 2,000 (36, 36, 38 within 1 %),
#: within the spread of the draws. DA and label switching keep theirs: not measured with it.
WIDTH_WITH_N = frozenset({"ContinuationS3VM"})


def width_power(n_features: int) -> float:
    """The power of n / n0 by which a paper preset's RBF width follows n (``WIDTH_WITH_N``):
    -1 / (d + 4), the rate of a Parzen window's width in d dimensions (Silverman 1986, ch. 4)."""
    return -1.0 / (n_features + 4)


def _power(solver: str, param: str, value, n_features: int) -> float | None:
    """The power of n / n0 that parameter ``param`` of ``solver``'s paper preset follows, or
    None when it does not follow n (a width left to the data's median, or infinite, too)."""
    if param == "sigma":
        finite = isinstance(value, int | float) and math.isfinite(value)
        return width_power(n_features) if solver in WIDTH_WITH_N and finite else None
    return SCALED_WITH_N.get(param)


def _carried(name: str, value, ratio: float, power: float, n_points: int):
    """``value`` of parameter ``name`` carried from a preset's size to ``n_points``."""
    value = value * ratio**power
    if name == "n_neighbors":
        return int(min(max(round(value), 1), n_points - 1))
    return float(f"{value:.3g}")


def scaled(dataset: str, solver: str, n_points: int | None) -> dict:
    """``{parameter: (the paper preset's value, its value on n_points points)}`` for the
    parameters that follow n (``SCALED_WITH_N``, ``WIDTH_WITH_N``) and change; empty when the
    data set is at its preset's size (or has a fixed size, or ``n_points`` is None) or has no
    paper preset."""
    preset, spec = paper_preset(dataset, solver), DATASETS.get(dataset)
    if (preset is None or spec is None or spec.fixed_size or n_points is None
            or n_points == spec.n_samples):
        return {}
    changes = {}
    for param in SOLVERS[solver].params:
        value = preset.params.get(param.name, param.default)
        power = _power(solver, param.name, value, spec.n_features)
        if power is not None:
            carried = _carried(param.name, value, n_points / spec.n_samples, power, n_points)
            if carried != value:
                changes[param.name] = (value, carried)
    return changes


_GRAPH_KEPT = ("its graph is kept: k grows with n, so that each point's neighbours stay as "
               "near, and γ_I falls as 1/n, since fᵀLf then sums over that many more points "
               "(the 1/(l + u)² of manifold regularization). A fixed k fragments the boundary "
               "at larger n.")
#: Why each parameter that follows n does, as the page says it (``scaled_caption``).
_WHY_SCALED = {
    "n_neighbors": _GRAPH_KEPT, "gamma_I": _GRAPH_KEPT,
    "sigma": "the width narrows as n^(−1/(d + 4)), as a Parzen window's does (LDS paper "
             "§2.1.1): the unlabeled loss measures the density of the points at the boundary, "
             "and more points resolve a narrower gap. With the width chosen for fewer points, "
             "more label draws end in a wrong local minimum.",
}


def scaled_caption(dataset: str, solver: str, n_points: int | None) -> str | None:
    """One sentence on what the paper preset changed for ``n_points`` points and why, or None
    when it changed nothing."""
    changes = scaled(dataset, solver, n_points)
    if not changes:
        return None
    labels = {p.name: p.label for p in SOLVERS[solver].params}
    what = ", ".join(f"{labels[name]} {old:g} → {new:g}" for name, (old, new) in changes.items())
    why = " ".join(dict.fromkeys(_WHY_SCALED[name] for name in changes))
    return (f"Scaled to n = {n_points:,}: {what}. The paper's setting is for "
            f"{DATASETS[dataset].n_samples:,} points; {why}")


#: What the forms take as the data set of an uploaded file: no paper sets parameters for it, so
#: every form offers the generic defaults only.
UPLOADED = "uploaded file"


def presets_data_set(source) -> str:
    """The data set whose presets a data source (``engine.data``) is offered: its generator's,
    or ``UPLOADED``."""
    return source.dataset if isinstance(source, Generated) else UPLOADED


def paper_preset(dataset: str, solver: str) -> Preset | None:
    """The preset "as in the paper" of a solver on a data set, or None if no paper has one."""
    return PAPER_PRESETS.get((dataset, solver))


def first_preset(dataset: str, solver: str) -> str:
    """The preset a page opens on: the paper's where there is one, else the default."""
    return PAPER if paper_preset(dataset, solver) is not None else DEFAULT


def preset_params(dataset: str, solver: str, name: str, n_points: int | None = None) -> dict:
    """The parameters preset ``name`` sets (the others keep their defaults) on ``n_points``
    points (None: the data set's registry size); ``{}`` for the generic default, or for the
    paper's where the data set has none."""
    preset = paper_preset(dataset, solver) if name == PAPER else None
    if preset is None:
        return {}
    changes = scaled(dataset, solver, n_points)
    return {**preset.params, **{param: new for param, (_, new) in changes.items()}}


def preset_values(dataset: str, solver: str, name: str, n_points: int | None = None) -> dict:
    """Every form value of ``solver`` under preset ``name`` on ``dataset`` of ``n_points``
    points (``preset_params``)."""
    chosen = preset_params(dataset, solver, name, n_points)
    return {p.name: chosen.get(p.name, p.default) for p in SOLVERS[solver].params}


def matching_preset(dataset: str, solver: str, values: dict,
                    n_points: int | None = None) -> str | None:
    """The preset whose values on ``n_points`` points ``values`` (a whole form of ``solver``)
    are, the paper's first; None when they are the user's own."""
    for name in (PAPER, DEFAULT):
        if ((name == DEFAULT or paper_preset(dataset, solver) is not None)
                and values == preset_values(dataset, solver, name, n_points)):
            return name
    return None


def preset_caption(dataset: str, solver: str, chosen: str, shown_params: dict) -> str:
    """One line on what a preset set: ``shown_params`` (e.g. σ) and where they come from."""
    values = ", ".join(f"{label} = {value}" for label, value in shown_params.items())
    if chosen == PAPER and (preset := paper_preset(dataset, solver)):
        return f"{values}: the preset as in the paper, {preset.source}."
    return f"{values}: the generic default."


def sigma_caption(dataset: str, solver: str, chosen: str, sigma) -> str:
    """``preset_caption`` of a teaching page, whose preset sets the RBF width σ."""
    return preset_caption(dataset, solver, chosen,
                          {"σ": sigma if sigma is not None else "the median distance"})
