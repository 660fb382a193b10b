"""Solvers against their own supervised SVMs over label draws, as a page shows them: the table
of mean errors with their intervals, the paired test's p and verdict, the wins / ties / losses
in a line and each solver's comparison in words (``engine.comparison.summarize``'s rows). The
Compare page and the When unlabeled data hurt page show them alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from s3vm_explorer.engine.comparison import REFERENCE
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.engine.metrics import UNKNOWN

# Short headers and names, the rest in each column's tooltip and in the words below the table:
# with long ones the table was wider than the page below 1920 px, and a right-aligned number
# of a cut column did not show at all.
COLUMNS = {
    "successes": "Draws with at most 1 % of the unlabeled points wrong, of the draws that ran "
                 "(unknown without true classes to score).",
    "error (%)": "Mean unlabeled error over the draws ± the half-width of its 95 % confidence "
                 "interval (Student's t).",
    "its SVM (%)": "The same for the solver's own supervised SVM on the same draws: the same "
                   "kernel, width and C on the labeled points (or the SVM chosen by the same "
                   "folds), named below.",
    "p": "Two-sided Wilcoxon signed-rank test of the paired differences with its SVM over the "
         "draws (ties left out); the draws below and above it are counted below the table.",
    "verdict": "better or worse than its SVM where p < 0.05, else no significant difference.",
}
FAILED = "Runs that stopped with an error."


def interval(mean: float, low: float, high: float) -> str:
    """A mean error and its 95 % interval as "3.1 ± 1.9" (percent); the mean alone from one
    draw, "unknown" without one."""
    if np.isnan(mean):
        return UNKNOWN
    if np.isnan(low):
        return f"{100 * mean:.1f}"
    return f"{100 * mean:.1f} ± {50 * (high - low):.1f}"


def _row(s: dict, name: str, failed: bool) -> list:
    paired, reference = s["paired"], s["verdict"] == REFERENCE
    cells = [
        name,
        f"{s['successes']} / {s['scored']}" if s["scored"] else UNKNOWN,
        interval(paired.mean, paired.low, paired.high) if paired.n else interval(
            s["mean_error"], np.nan, np.nan),
        "—" if reference else interval(paired.baseline_mean, paired.baseline_low,
                                       paired.baseline_high),
        "—" if reference or np.isnan(paired.p_value) else f"{paired.p_value:.2g}",
        s["verdict"]]
    return cells + [s["failed"]] * failed


def verdict_table(summary: Sequence[dict], name: Callable[[str], str], where=st) -> None:
    """The table of ``summary`` (``engine.comparison.summarize``), a row per solver named
    ``name(solver)``, every row shown; a column of failed runs when any failed."""
    failed = any(s["failed"] for s in summary)
    columns = COLUMNS | ({"failed": FAILED} if failed else {})
    # An HTML table, whose cells wrap within the page: the data grid scrolled sideways at
    # 1024 x 768, its verdicts cut ("no significant" of the Compare page's "both").
    where.table(
        [dict(zip(["solver", *columns], _row(s, name(s["solver"]), failed), strict=True))
         for s in summary], hide_index=True)
    with where.expander("What the table's columns say"):
        st.markdown("\n".join(f"- **{header}**: {text}" for header, text in columns.items()))


def key_numbers(summary: Sequence[dict], name: Callable[[str], str]) -> str:
    """The chart's key numbers in words (its text alternative, ``ui.charts.chart``): each
    solver's mean error and its SVM's, with the verdict."""
    said = []
    for s in summary:
        paired = s["paired"]
        mean = interval(paired.mean, paired.low, paired.high)
        text = f"{name(s['solver'])}: {mean} % mean unlabeled error"
        if s["verdict"] != REFERENCE:
            svm = interval(paired.baseline_mean, paired.baseline_low, paired.baseline_high)
            text += f", its SVM {svm} %, {s['verdict']}"
        said.append(text)
    return "; ".join(said)


def counts_line(counts: dict[str, int], compared: int, draws: int) -> str:
    """The wins, ties and losses (``engine.comparison.verdict_counts``) of ``compared``
    solvers over ``draws`` draws, in a line."""
    return (f"Against each one's own supervised SVM on the same {draws} draws (paired Wilcoxon "
            f"test, p < 0.05): **{counts['better']}** of {compared} better, "
            f"**{counts['no significant difference']}** no significant difference, "
            f"**{counts['worse']}** worse.")


def in_words(s: dict, title: str) -> str:
    """A solver's paired comparison as a Markdown list item, its verdict in bold, and which
    SVM it is."""
    sentence = s["paired"].sentence("its SVM")
    said, colon, verdict = sentence.rpartition(": ")  # (no verdict: no draw could be scored)
    words = f"{literal(said)}: **{literal(verdict)}**" if colon else literal(sentence)
    return f"- **{literal(title)}**: {words}. Its SVM: {literal(s['baseline_svm'])}."
