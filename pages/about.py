"""About: each solver in three sentences, its paper, and where the app shows it."""

import streamlit as st

from s3vm_explorer.engine.docs import BENCHMARKS, DEVIATIONS, section
from s3vm_explorer.ui.navigation import PAGES
from s3vm_explorer.ui.sidebar import start_page

TITLES = {file: title for file, title, _ in PAGES}
#: The pages that offer every solver; a teaching page takes one apart (listed per solver).
EVERY_SOLVER = ("watch", "compare")
#: (name, three sentences, paper, the teaching page that shows it, by file name in ``pages/``)
SOLVERS = [
    ("Supervised SVM (SVMBaseline)",
     "A standard SVM trained on the labeled points alone, ignoring the unlabeled ones. Every "
     "paper compares with it: a semi-supervised method is only useful if it beats this line. "
     "With one label per class its boundary is roughly the perpendicular bisector of the two "
     "labeled points.",
     "Chang & Lin, *LIBSVM: a library for support vector machines*, 2001 (the baseline of all "
     "five papers)", []),
    ("∇TSVM (GradientTSVM)",
     "The transductive SVM objective — a margin on the labeled points and a penalty for "
     "unlabeled points inside the margin — minimized by gradient descent on a smooth "
     "surrogate. The cost C* of the unlabeled points is raised geometrically, C* = 2^(i−10) C, so "
     "the problem starts nearly supervised. A balancing constraint keeps the classes in the "
     "labeled proportion.",
     "O. Chapelle, A. Zien, *Semi-Supervised Classification by Low Density Separation*, "
     "AISTATS 2005", []),
    ("LDS (low density separation)",
     "∇TSVM run on a new representation of the data: distances along ρ-softened paths through "
     "dense regions, embedded by multidimensional scaling. Points connected by a dense path "
     "become close, so clusters and manifolds become easy to separate. ρ interpolates between "
     "Euclidean (ρ = 0) and the minimax path distance (ρ → ∞).",
     "O. Chapelle, A. Zien, *Semi-Supervised Classification by Low Density Separation*, "
     "AISTATS 2005", []),
    ("Graph-kernel SVM (GraphKernelSVM)",
     "A supervised SVM with the kernel exp(−D^ρ / 2σ²) built on the same path distances D as "
     "LDS. It uses the unlabeled points only through the kernel, not through the loss. The "
     "LDS paper reports it as the 'graph' method.",
     "O. Chapelle, A. Zien, *Semi-Supervised Classification by Low Density Separation*, "
     "AISTATS 2005", []),
    ("TSVM with label switching (LabelSwitchingTSVM)",
     "Joachims' SVMlight transductive SVM: guess labels for the unlabeled points, then "
     "repeatedly swap pairs of labels that lower the objective while C* grows. It is the JTSVM "
     "baseline of the DA and cS3VM papers. Its discrete swaps make it prone to poor local "
     "minima on data like two moons.",
     "T. Joachims, *Transductive Inference for Text Classification using Support Vector "
     "Machines*, ICML 1999", []),
    ("cS3VM (ContinuationS3VM)",
     "Minimizes the S3VM objective after convolving it with a Gaussian of variance γ, convex "
     "for γ ≥ γ0. It lowers γ in eleven geometric steps to γ_end, warm-starting each L-BFGS "
     "minimization from the last. The balancing constraint is met by centring the kernel-PCA "
     "coordinates on the unlabeled mean.",
     "O. Chapelle, M. Chi, A. Zien, *A Continuation Method for Semi-Supervised SVMs*, ICML "
     "2006", ["continuation"]),
    ("QN-S3VM (QNS3VM)",
     "A smooth S3VM objective with a logistic surrogate of the hinge and exp(−s t²) for the "
     "unlabeled points, minimized by L-BFGS. The unlabeled weight is raised by a sequence α λ' "
     "(Algorithm 1). A subset of r random landmarks (sparse kernel expansion) makes it scale.",
     "F. Gieseke, A. Airola, T. Pahikkala, O. Kramer, *Sparse Quasi-Newton Optimization for "
     "Semi-Supervised Support Vector Machines*, ICPRAM 2012", []),
    ("DA (DeterministicAnnealingS3VM)",
     "Treats each unknown label as a probability p and adds an entropy term weighted by a "
     "temperature T. Starting hot (T = 10) the problem is convex; T is divided by 1.5 until "
     "every p is 0 or 1, alternating an ordinary weighted SVM / RLS fit with a closed-form "
     "update of p. Hinge, squared hinge and squared losses are available.",
     "V. Sindhwani, S. S. Keerthi, O. Chapelle, *Deterministic Annealing for Semi-supervised "
     "Kernel Machines*, ICML 2006", ["annealing"]),
    ("LapSVM (Newton / PCG)",
     "A convex method: the SVM loss on the labeled points plus an intrinsic norm fᵀLf that "
     "asks f to vary slowly along a k-NN graph of all points. Trained in the primal by "
     "Newton's method or preconditioned conjugate gradient. PCG can stop early, once the "
     "classifier's decisions are stable.",
     "S. Melacci, M. Belkin, *Laplacian Support Vector Machines Trained in the Primal*, JMLR "
     "2011", ["early_stopping"]),
    ("LapRLSC",
     "LapSVM's relative with the squared loss on the labeled points instead of the squared "
     "hinge. Its optimum is one linear system, so it is exact in a single solve. It shares "
     "LapSVM's graph and stopping rules.",
     "S. Melacci, M. Belkin, *Laplacian Support Vector Machines Trained in the Primal*, JMLR "
     "2011, §5", []),
]

#: Where each solver's departures from its paper are (a heading of docs/deviations.md) and the
#: table of its paper the project reproduces (a heading of docs/benchmarks.md), by name above.
_CS3VM, _LDS, _LABEL_SWITCHING = (
    "## cS3VM (Chapelle, Chi & Zien, ICML 2006)",
    "## ∇TSVM, LDS and the graph kernel (Chapelle & Zien, AISTATS 2005)",
    "## Label-switching TSVM (Joachims 1999, the papers' baseline)")
_QN, _DA, _LAPSVM = (
    "## QN-S3VM (Gieseke et al., ICPRAM 2012)",
    "## Deterministic annealing (Sindhwani, Keerthi & Chapelle, ICML 2006)",
    "## LapSVM and LapRLSC (Melacci & Belkin, JMLR 2011)")
_DA_TABLE = "### DA paper Table 2: successes out of the label draws (full)"
_LDS_TABLE = "### LDS paper Table 2: error on the unlabeled points, % (full)"
_CS3VM_TABLE = "### cS3VM paper Table 1: one-vs-one digit pairs, C = C* = 100 (full)"
_QN_TABLE = "### QN-S3VM paper Table 1: test error, non-realistic selection (full)"
_LAPSVM_TABLE = "### LapSVM paper Tables 6-7: Newton vs early-stopped PCG (full)"
_PRESETS = "### Presets as in the paper, on the app's data (full)"
DOCUMENTED = {
    "Supervised SVM (SVMBaseline)": ("## Defaults (every solver)", _LDS_TABLE),
    "∇TSVM (GradientTSVM)": (_LDS, _LDS_TABLE),
    "LDS (low density separation)": (_LDS, _LDS_TABLE),
    "Graph-kernel SVM (GraphKernelSVM)": (_LDS, _LDS_TABLE),
    "TSVM with label switching (LabelSwitchingTSVM)": (_LABEL_SWITCHING, _DA_TABLE),
    "cS3VM (ContinuationS3VM)": (_CS3VM, _CS3VM_TABLE),
    "QN-S3VM (QNS3VM)": (_QN, _QN_TABLE),
    "DA (DeterministicAnnealingS3VM)": (_DA, _DA_TABLE),
    "LapSVM (Newton / PCG)": (_LAPSVM, _LAPSVM_TABLE),
    "LapRLSC": (_LAPSVM, _PRESETS),  # no table of the paper reproduces LapRLSC
}

start_page(uses_data=False)
st.title("About the solvers")
st.markdown(
    "Semi-supervised SVMs use unlabeled points to place the boundary in a low-density gap "
    "(the *cluster assumption*) or to make it follow a manifold. Their objectives are "
    "non-convex (except the Laplacian methods'), so each paper is also a strategy to find a "
    "good minimum: annealing a cost, smoothing, cooling a temperature. Start on **Data & "
    "labels**, then watch any solver; the teaching pages take one idea each apart."
)
for name, sentences, paper, pages in SOLVERS:
    st.header(name)
    st.markdown(sentences)
    shown_on = ", ".join(TITLES[file] for file in (*EVERY_SOLVER, *pages))
    st.caption(f"Paper: {paper}. Shown on: {shown_on}.")
    deviations, table = DOCUMENTED[name]
    # one under the other, each the page's width: side by side at 1024 px a table was cut at
    # its right and its numbers wrapped on three lines
    with st.expander("Where the code departs from the paper"):
        st.markdown(section(DEVIATIONS, deviations))
        st.caption(f"From docs/deviations.md, “{deviations.lstrip('# ')}”.")
    label = ("Its presets, measured on the app's data" if table == _PRESETS
             else "The paper's table, reproduced")
    with st.expander(label):
        st.markdown(section(BENCHMARKS, table))
        st.caption(f"From docs/benchmarks.md, “{table.lstrip('# ')}”: the command that "
                   "makes it and how to read it are there.")
