"""The state details a student reads (issue 34, item 6): every event and every extra of every
solver's trace in words, none of the code names ("stage_end", "iter", "kl", "nu",
"expected_cost") and no "nan"."""

import re

import pytest

from s3vm_core import ESTIMATORS, LapSVM
from s3vm_explorer.engine.stages import (
    EVENT_WORDS,
    EXTRA_WORDS,
    HEADLINE_CHARS,
    event_text,
    extras_text,
    stage_text,
    warnings_headline,
)
from toy_data import pick_labeled, two_moons

X, Y = two_moons(40, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 2, random_state=0)
#: Each solver as the app can run it; LapSVM also on its PCG path, whose extras are the
#: stopping rules' quantities.
SOLVERS = {**{name: ESTIMATORS[name] for name in ESTIMATORS if name != "bnb"},
           "lapsvm-pcg": lambda: LapSVM(solver="pcg", stopping="stability"),
           "bnb": lambda: ESTIMATORS["bnb"](max_time=2.0)}
CODE_NAMES = re.compile(r"\b(stage_end|iter|kl|nu|expected_cost|nan)\b")


@pytest.mark.parametrize("name", list(SOLVERS))
def test_every_state_of_every_solver_is_said_in_words(name):
    states = list(SOLVERS[name]().trace(X, LABELS))
    for state in states:
        assert state.event in EVENT_WORDS, state.event
        extras = {k: v for k, v in state.extras.items() if not k.startswith("stop_")}
        shown, glossary = extras_text(extras)
        for key, value in extras.items():
            if isinstance(value, int | float):
                assert key in EXTRA_WORDS, (name, key)
        for text in [stage_text(state), event_text(state), *shown, *glossary]:
            assert not CODE_NAMES.search(text), (name, text)


def test_a_value_that_could_not_be_computed_is_left_out_not_shown_as_nan():
    shown, glossary = extras_text({"validation_error": float("nan"), "kl": 0.25})
    assert shown == ["change of p = 0.25"]
    assert glossary == [f"change of p: {EXTRA_WORDS['kl'][1]}"]


def test_the_line_of_a_runs_warnings_names_their_number_and_the_first_ones_opening():
    """The Watch page's line beside its title (issue 42, item 6): a line, its words the
    warning's own from its start, and whether that is all of it."""
    ovr = ('In the one-vs-rest problem "class 1 against the others": GradientTSVM took the '
           "class balance from the labels: 62% of the labeled points are class 1. More.")
    what, opening, complete = warnings_headline([ovr])
    assert (what, complete) == ("Warning", False)
    assert ovr.startswith(opening) and '"class 1 against the others"' in opening
    assert len(f"{what}: {opening} …") <= HEADLINE_CHARS
    assert warnings_headline(["Short.", "Other."]) == ("2 warnings", "Short.", False)
    assert warnings_headline(["One; and more."]) == ("Warning", "One", False)
    assert warnings_headline(["All of it."]) == ("Warning", "All of it.", True)
