"""What a solver state means to a reader: its stage as the film's title, its event and its
solver's extras in words a student reads (with a glossary for the symbols), and the state a
solver returned to at the end of its path. No code name ("stage_end", "kl") and no "nan"
reaches the page."""

from __future__ import annotations

import math
import re

import numpy as np

STAGE_NAMES = {"C_star": "C*", "gamma": "γ", "alpha": "α", "T": "T", "newton": "Newton step",
               "pcg": "PCG iteration", "fit": "fit", "setup": "setting up",
               "bound": "gap to the global minimum", "candidate": "candidate",
               "group": "groups of candidates", "safe": "the safe choice"}
#: Each event of a trace (``s3vm_core.SolverState.event``) in words.
EVENT_WORDS = {"init": "start", "iter": "iteration", "stage_end": "end of a stage",
               "final": "the answer"}
#: The solvers' extras in words, with what each means (the glossary of the state details).
EXTRA_WORDS = {
    "entropy": ("entropy S(p)", "how undecided the soft labels p are: 0 when every p is 0 or 1 "
                "(DA paper, eq. (4))"),
    "kl": ("change of p", "KL(p, q), how far the soft labels moved in the last alternation "
           "(DA paper, §3.3)"),
    "nu": ("balance multiplier ν", "the Lagrange multiplier that keeps the mean of p at the "
           "class balance r (DA paper, eq. (8))"),
    "expected_cost": ("expected cost", "E_p J, the objective (4) without its entropy term"),
    "effective_cost": ("effective cost", "the S3VM objective at the hard labels p rounds to, "
                       "by which DA picks its answer (§3)"),
    "objective_unsmoothed": ("objective (2)", "the S3VM objective itself, without the "
                             "smoothing γ (cS3VM paper)"),
    "C_star": ("C*", "the current weight of the unlabeled points' loss"),
    "C_star_minus": ("C*₋", "the unlabeled loss's weight for the points labeled −1 (Joachims "
                     "1999)"),
    "C_star_plus": ("C*₊", "the unlabeled loss's weight for the points labeled +1"),
    "labeled_loss": ("labeled loss", "the labeled points' part of the objective"),
    "unlabeled_loss": ("unlabeled loss", "the unlabeled points' part of the objective"),
    "n_error_vectors": ("points in the loss", "labeled points whose hinge loss is positive "
                        "(LapSVM paper, §3)"),
    "validation_error": ("validation error", "the error on the labeled validation points "
                         "(LapSVM paper, Algorithm 3)"),
    "objective_normalized": ("objective / objective at start", "LapSVM paper, Figure 4"),
    "grad_norm_normalized": ("‖∇‖ / ‖∇‖ at start", "the gradient's norm against its first"),
    "grad_norm_preconditioned": ("‖∇̂‖ / ‖∇̂‖ at start", "the preconditioned gradient's norm "
                                 "against its first"),
    "mixed_product": ("√(∇̂ᵀ∇) / at start", "the mixed product of §4"),
    "objective_decrease": ("objective decrease", "the objective's relative decrease in the "
                           "last iteration"),
    "stability_tau": ("decisions changed τ", "the share of unlabeled decisions that changed "
                      "since the last check (LapSVM paper, Algorithm 2)"),
    "step_size": ("step size", "the line search's step"),
    "line_search_steps": ("line-search steps", "the line search's trials"),
    "n_swaps": ("labels swapped", "pairs of unlabeled points of opposite labels whose labels "
                "the last step exchanged (Joachims 1999)"),
    "lower_bound": ("lower bound", "no labeling of the unlabeled points reaches an objective "
                    "below it: the gap to it is what the search has left to prove"),
    "n_nodes": ("nodes searched", "labelings of part of the unlabeled points whose convex "
                "problem the search has solved"),
    "n_open": ("nodes open", "partial labelings still to search: their bound is below the "
               "best objective found"),
    "worst_case_gain": ("worst-case gain", "the chosen labeling's smallest gain in accuracy "
                        "over the SVM's labels, across the kept candidates (S4VM; 0 for the "
                        "SVM's own)"),
    "kept_svm": ("kept the SVM", "1 when no labeling gains over the SVM in the worst case, "
                 "so S4VM returns the SVM's labels"),
    "done": ("done", "the parts of the setup finished"),
    "total": ("of", "the parts of the setup"),
}


#: Stages whose name counts their iterations (one stage, each iteration a step of the
#: solver): the title says "Newton step 3", "after 4 Newton steps", not "Newton step ·
#: iteration 3".
COUNTED_STAGES = {"newton": ("Newton step", "Newton steps"),
                  "pcg": ("PCG iteration", "PCG iterations")}


def stage_text(state, returned: bool = False) -> str:
    """The stage a state belongs to, as the film's title: "T = 0.26 · iteration 3", with the
    iterations the state has done in its stage (0 at the start; a stage's end and the answer
    count those of their stage). A solver of one stage counts its own steps ("Newton step 2",
    "after 3 Newton steps"); a closed-form fit is "the fit". A final state that ``returned``
    to an earlier one (``returned_state``) is named for what it is: "best state of the path,
    reached at T = 0.26"."""
    name = STAGE_NAMES.get(state.stage, state.stage)
    n = state.iteration
    if state.stage == "safe":  # S4VM's answer: which labeling it kept
        return f"{name}: {safe_choice_text(state)}"
    if state.stage in COUNTED_STAGES:
        one, many = COUNTED_STAGES[state.stage]
        if state.event == "init":
            return f"start, before the first {one}"
        if state.event in ("stage_end", "final"):
            return f"after {n} {one if n == 1 else many}"
        return f"{one} {n}"
    if state.stage == "fit":
        return "before the fit" if state.event == "init" else "the fit"
    if state.stage == "setup":
        return name
    value = "" if math.isnan(state.stage_value) else f" = {state.stage_value:.3g}"
    if returned:
        return f"best state of the path, reached at {name}{value}"
    return f"{name}{value} · iteration {n}"


def safe_choice_text(state) -> str:
    """What S4VM's final state kept, in words: the SVM's own labels (no labeling gained in
    the worst case), a candidate, or the linear programme's labeling."""
    if state.extras.get("kept_svm", 0.0) == 1.0:
        return "the SVM's own labels"
    if not math.isnan(state.stage_value):
        return f"candidate {state.stage_value:.0f}"
    return "the labeling of best worst-case gain"


def returned_state(states) -> int | None:
    """Index of the earlier state the "final" state repeats when it is not where the path
    ended: deterministic annealing returns the state of lowest objective along its path
    (Sindhwani et al. 2006, §3), whose T is higher than the path's last. None when the final
    state is the path's last (every other solver)."""
    final = states[-1]
    for index in range(len(states) - 2, -1, -1):
        earlier = states[index]
        if (earlier.step < final.step and np.array_equal(earlier.intercept, final.intercept)
                and np.array_equal(earlier.coef, final.coef)):
            return None if index == len(states) - 2 else index
    return None


def event_text(state) -> str:
    """A state's step and event as the film's numbers show them: "164 · end of a stage"."""
    return f"{state.step} · {EVENT_WORDS.get(state.event, state.event)}"


def extras_text(extras) -> tuple[list[str], list[str]]:
    """A state's scalar extras in words, ``["entropy S(p) = 0.012", ...]``, and the glossary of
    the words used, ``["entropy S(p): how undecided ...", ...]``. Values that could not be
    computed (NaN) and the solvers' bookkeeping of stopping rules are left out."""
    shown, glossary = [], []
    for name, value in extras.items():
        if np.ndim(value) != 0 or name.startswith("stop_") or not math.isfinite(value):
            continue
        words, meaning = EXTRA_WORDS.get(name, (name.replace("_", " "), ""))
        shown.append(f"{words} = {value:.4g}")
        if meaning:
            glossary.append(f"{words}: {meaning}")
    return shown, glossary


#: Longest line that says what a run warned of (characters, with its "Warning: "): one line
#: beside the Watch page's title at 1400 px, two at 1024.
HEADLINE_CHARS = 90


def warnings_headline(sentences) -> tuple[str, str, bool]:
    """The line that stands on the Watch page's first screen for what a run warned of
    (``sentences``, each a warning's text), in parts: how many ("Warning", "2 warnings"), the
    first one's opening words (up to its first full stop or semicolon, cut at a word to keep
    the line within ``HEADLINE_CHARS``), and whether that is all that was said; the whole
    text is one click away."""
    what = "Warning" if len(sentences) == 1 else f"{len(sentences)} warnings"
    text = " ".join(sentences[0].split())
    opening = re.split(r"(?<=\.)\s|;\s", text, maxsplit=1)[0]
    room = HEADLINE_CHARS - len(what) - 4
    if len(opening) > room:
        opening = opening[:room].rsplit(" ", 1)[0]
    return what, opening, len(sentences) == 1 and opening == text
