"""The "When unlabeled data hurt" page: its data sets, its settings and its lesson in words.

An S3VM puts its boundary where the unlabeled points are sparse (the cluster assumption) and,
most of them, splits the unlabeled points in the labeled points' shares of the classes (their
balance constraints). Where either assumption is false of the data, the unlabeled points can
pull the boundary to the wrong place, and the S3VM errs more than the supervised SVM on the
labels alone. S4VM (Li & Zhou 2015) keeps the SVM's labels unless a labeling gains over them
whichever of its candidate low-density separators is right.

Four data sets in one plane, one where the cluster assumption holds and three where something
fails, each run by every solver at its generic defaults (the same data-independent rules on
every data set: only the data change) against its own supervised SVM over the same label draws
(``engine.lessons.unlabeled_hurt``). The lesson is what the paired tests say (``lesson_lines``),
not written in advance. Streamlit-free: the share link's parser reads the page's settings here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from s3vm_core.metrics import mean_interval
from s3vm_explorer.engine.params import Param, shown
from s3vm_explorer.engine.registry import SOLVERS as SOLVER_SPECS
from toy_data import (
    crossed_clusters,
    overlapping_gaussians,
    parallel_clusters,
    unbalanced_moons,
)


@dataclass(frozen=True)
class Case:
    """One data set of the page: how to draw it and what it does to the assumptions."""

    name: str
    title: str           # a chart's panel title
    generator: Callable  # ``toy_data`` generator: (n_samples, noise, random_state) -> X, y
    noise: float
    holds: bool          # whether the cluster assumption holds
    what: str            # what fails (or holds), in a few words
    tag: str             # the same in at most 18 characters, under its panel's title
    description: str     # why, in a sentence or two

    def data(self, n_points: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """The points and their true classes (deterministic for a seed)."""
        return self.generator(n_samples=n_points, noise=self.noise, random_state=seed)


#: The page's data sets, in the order of its panels: where the assumption holds, then where
#: it fails (overlapping classes, a structure that crosses the classes, a class ratio far from
#: the labels').
CASES: dict[str, Case] = {c.name: c for c in [
    Case("parallel", "Two long clusters", parallel_clusters, 0.2, True,
         "the cluster assumption holds", "assumption holds",
         "Two long parallel clusters, one a class, with a wide gap between them. A few labels "
         "tilt the supervised SVM's line with their heights along the clusters; the gap does "
         "not tilt."),
    Case("overlap", "Overlapping classes", overlapping_gaussians, 0.6, False,
         "no gap between the classes", "no gap",
         "Two Gaussians whose density has a single peak: no region of low density separates "
         "the classes (20 % Bayes error)."),
    Case("crossed", "Clusters across the classes", crossed_clusters, 0.3, False,
         "the gap separates no classes", "the wrong gap",
         "Two well separated clusters, labelled above or below their centres (the LDS paper's "
         "g10n in the plane): the class boundary runs through both clusters, and the gap "
         "between them is the wrong boundary."),
    Case("shares", "80 / 20 classes", unbalanced_moons, 0.1, False,
         "class shares far from the labels'", "labels 1:1",
         "Two moons, 80 % of the points in the upper one, and as many labels of each class: "
         "a balance constraint that takes the labels' 1:1 looks for a boundary through the "
         "larger moon. S4VM's candidate separators keep such a balance too (Li & Zhou's "
         "eq. (1)), in half its searches here, the other half the share its SVM predicts "
         "(r = both, this app's default)."),
]}

#: The solvers the page runs, each at its generic defaults as the Watch page runs it (S4VM with
#: its form's seed and balance centre): every S3VM of the five papers but LDS (∇TSVM on a
#: graph's embedding), label switching, LapSVM and S4VM.
SOLVERS = ("GradientTSVM", "ContinuationS3VM", "QNS3VM", "DeterministicAnnealingS3VM",
           "LapSVM", "LabelSwitchingTSVM", "S4VM")
#: The safe one, whose verdicts the lesson names on every data set.
SAFE = "S4VM"

#: The page's settings, as its widgets and the share link (field ``"hurt"``) hold them. The
#: computation (``engine.lessons.unlabeled_hurt``) takes 8.3 s of one core at the defaults, 8
#: draws of 50 points (about 1 s a draw for the 4 data sets x 7 solvers, whatever n up to 80:
#: a fit's time is its overheads at these sizes), since LIBSVM is called without
#: ``SVC.fit``'s checks; it had taken 24 s of CPU in two processes, 6 s of which started them.
#: The page runs it in one process: two would save a second or two of an idle machine's wall
#: time for 6 s more of CPU, which a class sharing a server pays. Fewer than 8 draws lose
#: verdicts the defaults show (with 6, seed 0: 6 of the 8 "worse" where the assumption fails).
SETTINGS = {
    "n": Param("n", "n (points of each data set)", 50, "More points take longer: every solver "
               "runs on each data set and draw.", options=(40, 50, 80, 120, 200)),
    "draws": Param("draws", "label draws", 8, "The DA paper's Table 2 uses 10; with fewer "
                   "than 6 the paired test cannot tell a solver from its SVM.",
                   options=(6, 8, 10, 20, 30)),
    "per_class": Param("per_class", "labels per class in each draw", 2, "As many of each "
                       "class: on the 80 / 20 data set the labels' shares are 1:1.",
                       options=(1, 2, 3, 5)),
    "shown": Param("shown", "data set shown draw by draw", "crossed", "", options=tuple(CASES)),
}
DEFAULTS = {name: param.default for name, param in SETTINGS.items()}


#: How the page names the solvers: short enough for its chart's labels at 1024 x 768. JTSVM is
#: Joachims' TSVM with label switching (SVMlight), as the DA and cS3VM papers name it.
SHORT_NAMES = {"GradientTSVM": "∇TSVM", "ContinuationS3VM": "cS3VM", "QNS3VM": "QN-S3VM",
               "DeterministicAnnealingS3VM": "DA", "LapSVM": "LapSVM",
               "LabelSwitchingTSVM": "JTSVM", "S4VM": "S4VM"}


def solver_name(solver: str) -> str:
    """A solver's name on the page: its ``SHORT_NAMES``, else its title before the bracket."""
    return SHORT_NAMES.get(solver) or SOLVER_SPECS[solver].title.partition(" (")[0]


def read_settings(raw) -> tuple[dict, list[str]]:
    """The page's settings from a share link's ``"hurt"`` object: each held to its widget's
    choices, the default for one that is not, and a sentence on each left out."""
    if not isinstance(raw, Mapping):
        return dict(DEFAULTS), [f"The settings of the page When unlabeled data hurt must map "
                                f"names to values, such as {{\"n\": 50}}, not {shown(raw)}: "
                                "it opens on its defaults."]
    values, notes = dict(DEFAULTS), []
    for name, value in raw.items():
        if name not in SETTINGS:
            notes.append(f"The page When unlabeled data hurt has no setting {shown(name)}; its "
                         f"settings are {', '.join(SETTINGS)}.")
            continue
        try:
            values[name] = SETTINGS[name].check(value)
        except ValueError as problem:
            notes.append(f"{problem} The page When unlabeled data hurt uses "
                         f"{shown(DEFAULTS[name])}.")
    return values, notes


def differences(rows: Sequence[dict]) -> dict[str, tuple[float, float, float]]:
    """Each solver's unlabeled error minus its own SVM's over the draws (``run_draws`` rows),
    its mean and 95 % interval (``s3vm_core.metrics.mean_interval``; NaN where unknown)."""
    out = {}
    for solver in dict.fromkeys(r["solver"] for r in rows):
        paired = [r["error_vs_baseline"] for r in rows if r["solver"] == solver
                  and not r["error"] and np.isfinite(r["error_vs_baseline"])]
        out[solver] = mean_interval(paired)
    return out


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def case_line(case: Case, summary: Sequence[dict]) -> str:
    """What the paired tests say on one data set (``engine.comparison.summarize``'s rows):
    how many solvers are better than, level with and worse than their own SVM, naming the
    better and the worse."""
    better = [solver_name(s["solver"]) for s in summary if s["verdict"] == "better"]
    worse = [solver_name(s["solver"]) for s in summary if s["verdict"] == "worse"]
    level = len(summary) - len(better) - len(worse)
    parts = [f"**{len(better)}** better" + (f" ({_listed(better)})" if better else ""),
             f"**{level}** no significant difference",
             f"**{len(worse)}** worse" + (f" ({_listed(worse)})" if worse else "")]
    return f"{case.title} ({case.what}): of {len(summary)} solvers, {', '.join(parts)}."


def safe_line(summaries: Mapping[str, Sequence[dict]]) -> str | None:
    """S4VM's verdicts over the data sets in a sentence (None when it did not run): whether
    it stayed at or below its SVM everywhere, and where it did not."""
    verdicts = {name: s["verdict"] for name, summary in summaries.items() for s in summary
                if s["solver"] == SAFE}
    if not verdicts:
        return None
    worse = [CASES[name].title for name, verdict in verdicts.items() if verdict == "worse"]
    better = [CASES[name].title for name, verdict in verdicts.items() if verdict == "better"]
    if worse:
        text = (f"**S4VM is significantly worse than its SVM on {_listed(worse)}**: its "
                "safety did not hold there")
    else:
        text = (f"**S4VM** is not significantly worse than its SVM on any of the "
                f"{len(verdicts)} data sets")
    if better:
        text += f"; it is better on {_listed(better)}"
    return text + "."


def headline(summaries: Mapping[str, Sequence[dict]]) -> str:
    """The lesson in two sentences: how many solvers are significantly better than their own
    SVM where the cluster assumption holds and how many significantly worse where it fails,
    data set by data set, then S4VM's verdicts (``safe_line``)."""
    def counted(name: str, verdict: str) -> str:
        summary = summaries[name]
        count = sum(s["verdict"] == verdict for s in summary)
        return f"**{count} of {len(summary)}**"

    held = [f"{counted(name, 'better')} solvers are significantly better than their own SVM "
            f"on {CASES[name].title.lower()}" for name in summaries if CASES[name].holds]
    failed = [f"{counted(name, 'worse')} on {CASES[name].title.lower()}"
              for name in summaries if not CASES[name].holds]
    parts = []
    if held:
        parts.append(f"Where the cluster assumption holds, {_listed(held)}")
    if failed:
        failed[0] = failed[0].replace(" on ", " are significantly worse on ", 1)
        parts.append(f"where it fails, {_listed(failed)}")
    text = "; ".join(parts)
    text = (text[:1].upper() + text[1:] + ".") if text else ""
    if (safe := safe_line(summaries)) is not None:
        text = f"{text} {safe}".strip()
    return text


def lesson_lines(summaries: Mapping[str, Sequence[dict]]) -> list[str]:
    """The lesson the tests show, one line per data set (``case_line``) and S4VM's
    (``safe_line``); ``summaries`` by data set name, as ``engine.comparison.summarize``
    returns them."""
    lines = [case_line(CASES[name], summary) for name, summary in summaries.items()]
    if (safe := safe_line(summaries)) is not None:
        lines.append(safe)
    return lines
