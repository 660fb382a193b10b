"""The solvers the app offers, each with its paper, its parameters in the paper's own symbols
and its scalable form; ``make_estimator`` and ``run_form`` build what a run fits.

Built on the library's estimator table (``s3vm_core.ESTIMATORS``: a test holds the two to the
same solvers). The runs' processes, the forms and the share link read it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from s3vm_core import (
    LDS,
    QNS3VM,
    S4VM,
    BranchAndBoundS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    GradientTSVM,
    GraphKernelSVM,
    LabelSwitchingTSVM,
    LapRLSC,
    LapSVM,
    OneVsRestS3VM,
    SVMBaseline,
)
from s3vm_explorer.engine.params import Param


@dataclass(frozen=True)
class ScalableForm:
    """The method's own scalable form, which the app runs above ``SCALABLE_ABOVE`` points.

    ``params`` are estimator parameters (beyond the form's) that select it; ``what`` names it
    in the sentence the page shows near the film (``run_form``).
    """

    params: tuple[tuple[str, object], ...]
    what: str
    #: For the rho-path methods: the form at rho = 0, where the path distances are the
    #: Euclidean ones (LDS paper eq. (2)) and need no graph, or None when the method then has
    #: no O(n^3) step left. (A k-NN graph's shortest paths are not the Euclidean distances:
    #: on g50c and g10n, whose presets set rho = 0, the graph form lost the lesson at 2,000
    #: points.)
    at_rho_zero: ScalableForm | None = None
    uses_paths: bool = False


@dataclass(frozen=True)
class Solver:
    name: str
    title: str
    estimator: type  # its class in s3vm_core
    paper: str
    stage_label: str  # what the player's large number is
    params: tuple[Param, ...] = field(default_factory=tuple)
    scalable: ScalableForm | None = None
    #: Where the default reaches its answer in a few steps, the form values of the same
    #: problem solved along a longer path, and what that path is (the Watch page offers it).
    longer_path: tuple[tuple[str, object], ...] = ()
    longer_path_words: str = ""
    #: The estimator's parameters from the form's values, where a form value is not one of
    #: them as it is (QN-S3VM's α₁ and τ give its ``alphas``); None: the same names.
    to_estimator: Callable[[dict], dict] | None = None

    def estimator_params(self, params: dict) -> dict:
        """The parameters of the solver's estimator for the form values ``params``."""
        return dict(params) if self.to_estimator is None else self.to_estimator(params)

    @property
    def balance_from_labels(self) -> bool:
        """Whether the solver looks for the labeled points' shares of the classes among the
        unlabeled points (``BALANCE_FROM_LABELS``)."""
        return self.name in BALANCE_FROM_LABELS


#: The solvers that take the class balance from the labeled points: the balance constraint of
#: ∇TSVM and LDS (LDS paper eq. (5)) and of cS3VM (its eq. (3)), QN-S3VM's offset (§3.1), DA's
#: r = None (DA paper eq. (5)) and label switching's num+ (Joachims 1999, step 1).
BALANCE_FROM_LABELS = frozenset({"GradientTSVM", "LDS", "ContinuationS3VM", "QNS3VM",
                                 "DeterministicAnnealingS3VM", "LabelSwitchingTSVM"})
#: Points above which a solver with an O(n^3) step runs its scalable form in the app: at 2,000
#: points the exact forms kept the film waiting 3-30 s (``benchmarks.app_runs``). So does S4VM,
#: whose cost is its local searches, each some 30 SVM solves of O(n^2).
SCALABLE_ABOVE = 1000
#: S4VM's local searches above ``SCALABLE_ABOVE`` points, of the paper's 100: 13.3 s of one core
#: with 100 at n = 2,000 (docs/benchmarks.md, "Fit time against n"); 2.6, 3.5 and 5.2 s with 20
#: on three label draws of the two moons (load 5-6). The safe choice's worst-case gain over the
#: kept candidates is never negative however many they are (the SVM's own labels gain 0;
#: ``s3vm_core.solvers.s4vm``): fewer searches find fewer low-density separators, so the true
#: labeling is less often among them, which is what the guarantee assumes.
S4VM_SEARCHES = 20
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
#: cS3VM draws the points with its random_state: seeded, so that a run (and a shared link) is
#: the same run every time (∇TSVM seeds its own).
_SEEDED_KERNEL_PCA_SUBSET = ScalableForm(
    (*_KERNEL_PCA_SUBSET.params, ("random_state", 0)), _KERNEL_PCA_SUBSET.what)
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
#: Up to 500: a paper preset's k grows with n (``engine.presets.SCALED_WITH_N``), to 182 for g50c's
#: 50 at n = 2,000.
NEIGHBORS = Param("n_neighbors", "k (neighbours)", 6, "Neighbours per point of the k-NN graph "
                  "(LapSVM paper Table 8: nn).", low=1, high=500, integer=True)
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

#: QN-S3VM's annealing sequence 0 < α_1 < … < α_τ (Algorithm 1) as its form gives it: the
#: first α and how many, in equal ratios up to α_τ = 1, where the unlabeled term has its full
#: weight λ'. The paper's "short sequence of annealing steps" α = 0.01, 0.1, 1 (§4.1.3) is the
#: default; a longer one switches the unlabeled term on more gently (docs/benchmarks.md,
#: "Presets at every size": with α = 0.01, 0.1, 1 a moon's end was cut off on a quarter to a
#: half of the two-moons draws).
ALPHA_1 = Param("alpha_1", "α₁ (first α)", 0.01,
                "First weight α₁ λ' of the unlabeled loss (Algorithm 1); α then grows in equal "
                "ratios to 1. The paper: α = 0.01, 0.1, 1, \"a short sequence of annealing "
                "steps\" (§4.1.3).", low=1e-6, high=0.5)
N_ALPHAS = Param("n_alphas", "τ (number of α)", 3,
                 "How many α from α₁ to 1 (Algorithm 1's α_1 < … < α_τ; the paper: 3, §4.1.3). "
                 "More steps switch the unlabeled loss on more gently; each is one more L-BFGS "
                 "run.", low=2, high=50, integer=True)


def qn_alphas(alpha_1: float, n_alphas: int) -> tuple[float, ...]:
    """The α sequence of QN-S3VM's form: ``n_alphas`` values in equal ratios from ``alpha_1``
    to 1 (to 12 digits, so that 0.01 and 3 give the paper's 0.01, 0.1, 1 exactly)."""
    ratios = np.geomspace(alpha_1, 1.0, n_alphas)
    return tuple(float(f"{alpha:.12g}") for alpha in ratios)


def _qn_estimator_params(params: dict) -> dict:
    """QN-S3VM's form values as its estimator's parameters: α₁ and τ become ``alphas``."""
    params = dict(params)
    alpha_1 = params.pop(ALPHA_1.name, ALPHA_1.default)
    n_alphas = params.pop(N_ALPHAS.name, N_ALPHAS.default)
    return {**params, "alphas": qn_alphas(alpha_1, n_alphas)}


SOLVERS: dict[str, Solver] = {
    s.name: s
    for s in [
        Solver("SVMBaseline", "Supervised SVM (labeled points only)",
               SVMBaseline, "LIBSVM baseline of every paper", "fit",
               (C_LDS, KERNEL, SIGMA)),
        Solver("GradientTSVM", "∇TSVM (gradient descent TSVM)",
               GradientTSVM,
               "Chapelle & Zien, Semi-Supervised Classification by Low Density Separation, "
               "AISTATS 2005", "C*", (C_LDS, C_STAR_LDS, KERNEL, SIGMA), _KERNEL_PCA_SUBSET),
        Solver("LDS", "LDS (low density separation)", LDS,
               "Chapelle & Zien, AISTATS 2005: ∇TSVM on an MDS embedding of ρ-path distances",
               "C*", (C_LDS, RHO, Param("delta", "δ", 0.1, "MDS threshold (6): keep components "
                                        "until λ_p ≤ δ λ_1 (§2.3.2: 0.1).", low=1e-3,
                                        high=0.999), C_STAR_LDS),
               ScalableForm((("n_neighbors", GRAPH_NEIGHBORS), ("bridge", True),
                             ("max_components", MDS_COMPONENTS)),
                            f"{_SPARSE_PATHS} (§2.1) and the leading {MDS_COMPONENTS} MDS "
                            "components by a truncated eigensolver, instead of the full graph "
                            "and the full eigendecomposition",
                            ScalableForm((("max_components", MDS_COMPONENTS),),
                                         f"the leading {MDS_COMPONENTS} MDS components by a "
                                         "truncated eigensolver instead of the full "
                                         "eigendecomposition"), uses_paths=True)),
        Solver("GraphKernelSVM", "Graph-kernel SVM", GraphKernelSVM,
               "Chapelle & Zien, AISTATS 2005: an SVM on exp(−D^ρ / 2σ²) (the 'graph' method)",
               "fit", (C_LDS, RHO, GRAPH_SIGMA),
               ScalableForm((("n_neighbors", GRAPH_NEIGHBORS), ("bridge", True)),
                            f"{_SPARSE_PATHS} (§2.1) instead of the full graph",
                            uses_paths=True)),
        Solver("LabelSwitchingTSVM", "TSVM with label switching (SVMlight)",
               LabelSwitchingTSVM,
               "Joachims, ICML 1999 — the JTSVM baseline of the DA and cS3VM papers", "C*",
               (C_LDS, C_STAR_LDS, KERNEL, SIGMA)),
        Solver("ContinuationS3VM", "cS3VM (continuation)",
               ContinuationS3VM,
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
               ), _SEEDED_KERNEL_PCA_SUBSET),
        Solver("QNS3VM", "QN-S3VM (quasi-Newton)", QNS3VM,
               "Gieseke, Airola, Pahikkala & Kramer, Sparse Quasi-Newton Optimization for "
               "Semi-Supervised SVMs, ICPRAM 2012", "α", (
                   Param("lam", "λ", 1e-3, "Weight of the RKHS norm (QN-S3VM eq. (5)).",
                         low=1e-8, high=1e4),
                   Param("lam_u", "λ'", 1.0, "Final weight of the unlabeled loss, reached "
                         "through α λ' (Algorithm 1); the library refuses 0.", low=1e-8,
                         high=1e4),
                   KERNEL, SIGMA,
                   Param("n_landmarks", "r (landmarks)", None, "Subset of regressors with r "
                         "random landmarks (eq. (9)–(10)). Empty: all points.", low=2,
                         high=10_000, integer=True, optional=True, placeholder="all"),
                   ALPHA_1, N_ALPHAS,
               ), to_estimator=_qn_estimator_params),
        Solver("DeterministicAnnealingS3VM", "DA (deterministic annealing)",
               DeterministicAnnealingS3VM,
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
               LapSVM,
               "Melacci & Belkin, Laplacian Support Vector Machines Trained in the Primal, "
               "JMLR 2011", "iteration", (
                   GAMMA_A, GAMMA_I, SIGMA, NEIGHBORS, DEGREE_P,
                   Param("solver", "solver", "newton", "Newton (§3.1) or preconditioned "
                         "conjugate gradient (§3.2).", options=("newton", "pcg")),
                   STOPPING,
               ), longer_path=(("solver", "pcg"),),
               longer_path_words="preconditioned conjugate gradient (§3.2), one iteration a "
                                 "frame"),
        Solver("BranchAndBoundS3VM", "Exact S3VM (branch and bound)", BranchAndBoundS3VM,
               "Chapelle, Sindhwani & Keerthi, Branch and Bound for Semi-Supervised SVMs, NIPS "
               "2006: the global minimum of the cS3VM paper's eq. (2) under its balance (3), "
               "for small data", "gap", (
                   C_LDS, C_STAR_LDS, KERNEL, SIGMA,
                   Param("max_time", "time limit (s)", 20.0, "Seconds of computation (CPU) "
                         "for the whole fit, its starting solutions included: then the best "
                         "solution found, with its certified gap to the global minimum. Below "
                         "about 60 points the minimum is usually proven within seconds "
                         "(docs/benchmarks.md).", low=1.0, high=600.0),
               )),
        Solver("LapRLSC", "LapRLSC (Laplacian RLS)", LapRLSC,
               "Melacci & Belkin, JMLR 2011, §5: the squared-loss relative of LapSVM",
               "iteration", (
                   GAMMA_A, GAMMA_I, SIGMA, NEIGHBORS, DEGREE_P,
                   Param("solver", "solver", "direct", "The linear system (15) solved "
                         "directly or by PCG.", options=("direct", "pcg")),
               ), longer_path=(("solver", "pcg"),),
               longer_path_words="preconditioned conjugate gradient, one iteration a frame"),
        Solver("S4VM", "S4VM (safe semi-supervised SVM)", S4VM,
               "Li & Zhou, Towards Making Unlabeled Data Never Hurt, ICML 2011 / TPAMI 2015: "
               "of many low-density separators, the labeling whose worst-case gain over the "
               "SVM is largest, or the SVM's own", "candidate", (
                   Param("C1", "C₁", 100.0, "Cost of the labeled points (eq. (1); the "
                         "authors' code: 100).", low=1e-4, high=1e6),
                   Param("C2", "C₂", 0.1, "Cost of the unlabeled points (eq. (1); the "
                         "authors' code: 0.1).", low=1e-4, high=1e6),
                   KERNEL,
                   Param("sigma", "σ (RBF width)", None, "k(x, z) = exp(-‖x − z‖² / 2σ²). "
                         "Empty: the mean pairwise distance (the paper's rule).", low=1e-3,
                         high=1e3, optional=True, placeholder="mean"),
                   Param("sample_time", "candidate searches", 100, "Local searches from "
                         "random labelings (the paper: 100).", low=1, high=1000,
                         integer=True),
                   Param("lam", "λ", 3.0, "Weight of a loss against a gain in the safe "
                         "choice (the paper: 3).", low=0.0, high=1e6),
                   # the app's labels are clicked or drawn a few of each class, which puts
                   # the labels' share at one half whatever the data's: "both" by default
                   Param("r", "balance centre", "both", "The share of positives the balance "
                         "constraint asks of the unlabeled points. labels' share: the paper's. "
                         "svm: the share the SVM on the labels predicts. both (this app's "
                         "default): half the searches each, so that the safe choice follows "
                         "only what both agree on, since labels clicked a few of each class "
                         "say nothing of the data's ratio.", options=(None, "svm", "both"),
                         placeholder="labels' share"),
                   Param("random_state", "seed", 0, "Seed of the searches' random starts: "
                         "the same seed, the same film.", low=0, high=2**31 - 1,
                         integer=True),
               ), ScalableForm((("sample_time", S4VM_SEARCHES),),
                               f"{S4VM_SEARCHES} of the paper's 100 local searches")),
    ]
}


def solver_title(name: str) -> str:
    """How the app names solver ``name`` (a selectbox's ``format_func``)."""
    return SOLVERS[name].title


def make_estimator(name: str, params: dict, n_classes: int = 2):
    """An unfitted estimator of solver ``name`` with the given form values; for data with
    ``n_classes`` > 2, the one-vs-rest estimator over it (``s3vm_core.OneVsRestS3VM``: one
    binary problem per class, the unlabeled points unlabeled in each). A name that is not
    one of the solver's parameters (its form's, or its scalable form's) is a ``ValueError``:
    a value the form never offered must not vanish on its way to the solver."""
    if n_classes > 2:
        return OneVsRestS3VM(make_estimator(name, params))
    if name not in SOLVERS:
        raise ValueError(f"Unknown solver {name!r}; choose one of {', '.join(SOLVERS)}.")
    spec = SOLVERS[name]
    known = {p.name for p in spec.params}
    if spec.scalable is not None:
        known |= {name for name, _ in spec.scalable.params}
    if unknown := sorted(set(params) - known):
        raise ValueError(f"{spec.title} has no parameter {', '.join(map(repr, unknown))}; its "
                         f"parameters are {', '.join(sorted(known))}.")
    return spec.estimator(**spec.estimator_params(params))


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


def with_form_defaults(name: str, params: dict) -> dict:
    """``params`` with the defaults of solver ``name``'s form where they do not set them: the
    solver as the Watch page runs it. The form's defaults are its estimator's but for the
    app's own choices: S4VM's seed (unseeded, its safe choice on a draw of two moons changed
    from run to run, 32.8 % one time and 50 % the next) and its balance centre ``"both"``
    (the app's labels are a few of each class), and the exact solver's time limit."""
    return {p.name: p.default for p in SOLVERS[name].params} | dict(params)


def run_form(name: str, n_points: int, params: dict) -> tuple[dict, str | None]:
    """The parameters solver ``name`` runs with on ``n_points`` points, and a sentence saying
    which form of the method ran and why when it is not the exact one (None otherwise).

    Above ``SCALABLE_ABOVE`` points a solver with an O(n^3) step runs its scalable form; the
    linear kernel has no n x n step, so it always runs exactly, and the rho-path methods at
    rho = 0 use Euclidean distances (``ScalableForm.at_rho_zero``).
    """
    form = SOLVERS[name].scalable
    if form is not None and form.uses_paths and params.get("rho", 1.0) == 0:
        form = form.at_rho_zero
    if form is None or n_points <= SCALABLE_ABOVE or params.get("kernel") == "linear":
        return dict(params), None
    return {**params, **dict(form.params)}, (
        f"Scalable form: at {n_points:,} points (more than {SCALABLE_ABOVE:,}) this run used "
        f"{form.what}, so that it runs in seconds.")


#: The solver a new session's Watch page opens on: the one whose paper is about the default
#: data (the DA paper's Table 2 is two moons with one label per class; DA solved all ten draws).
DEFAULT_SOLVER = "DeterministicAnnealingS3VM"

#: A run expected to take longer than this (seconds) is announced before it starts.
LONG_RUN = 10.0
#: Rough solver time at n = 1000 (seconds) and its growth exponent in n, with the default
#: parameters, from the "Fit time against n" tables of docs/benchmarks.md (one BLAS thread;
#: label switching and DA from the scale section of issue 16, where their hinge SVMs became
#: warm-started active sets: DA's time hardly grows on two moons, 3.6-8 s from n = 500 to 2000):
#: enough to warn before a long run.
COST = {
    "SVMBaseline": (0.01, 1.0), "GradientTSVM": (0.22, 2.4), "LDS": (1.9, 3.0),
    "GraphKernelSVM": (1.4, 3.0), "LabelSwitchingTSVM": (0.6, 2.3),
    "ContinuationS3VM": (0.46, 2.0), "QNS3VM": (1.2, 1.6),
    "DeterministicAnnealingS3VM": (3.0, 1.0), "LapSVM": (0.06, 2.4), "LapRLSC": (0.05, 2.2),
    "S4VM": (3.1, 2.1),
}
#: The same for the scalable forms the app runs above ``SCALABLE_ABOVE`` points
#: (``run_form``), from their rows of the scale section.
SCALABLE_COST = {
    "GradientTSVM": (0.3, 1.0), "LDS": (0.4, 2.25), "GraphKernelSVM": (0.35, 2.2),
    "ContinuationS3VM": (0.4, 1.3), "S4VM": (0.8, 2.1),
}


def expected_seconds(solver: str, n_points: int, scalable: bool = False) -> float:
    """About how long ``solver`` (its scalable form with ``scalable``) takes on ``n_points``
    points (``COST``, ``SCALABLE_COST``)."""
    at_1000, growth = (SCALABLE_COST if scalable else COST).get(solver, (0.0, 1.0))
    return at_1000 * (n_points / 1000) ** growth


#: Points up to which the exact solver proves the global minimum within about a second on the
#: app's two moons (0.9 s at 60 points, 20 s and unproven at 200: ``benchmarks.app_runs --n``;
#: docs/benchmarks.md, "The exact global minimum: every solver against it").
EXACT_PROVEN_UP_TO = 60


def long_run_note(solver: str, n_points: int, params: dict, scalable: bool,
                  budget: float) -> str | None:
    """The sentence that announces a long run before it starts, or None for a short one: the
    exact search grows exponentially with the points and runs to its time limit above
    ``EXACT_PROVEN_UP_TO``; the other solvers by ``expected_seconds``."""
    if solver == "BranchAndBoundS3VM":
        if n_points <= EXACT_PROVEN_UP_TO:
            return None
        limit = min(float(params.get("max_time", 20.0)), budget)
        return (f"The exact search is for small data: at n = {n_points:,} it will most likely "
                f"stop at its time limit of {limit:g} s with the best solution found and its "
                f"certified gap to the global minimum. Up to about {EXACT_PROVEN_UP_TO} points "
                "(the sidebar's number of points) it proves the minimum within seconds.")
    expected = expected_seconds(solver, n_points, scalable)
    if expected <= LONG_RUN:
        return None
    return (f"This run may take about {expected:.0f} s at n = {n_points} (the scale table of "
            f"docs/benchmarks.md); it ends at its time budget of {budget:g} s, and Stop ends it "
            "at once, keeping the path so far.")
