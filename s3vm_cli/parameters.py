"""Each solver parameter's meaning, range and default, as ``s3vm fit --help`` says them.

One source each: the meaning is the first sentence of the parameter's entry in the estimator's
numpydoc docstring, the range is its ``_parameter_constraints`` (what ``set_params`` checks)
and the default is ``get_params()`` of a new estimator. Nothing here is written by hand, so the
help cannot drift from the library.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from numbers import Integral

from sklearn.utils._param_validation import Interval, StrOptions

#: Characters of a meaning shown (its first sentence, cut).
MEANING_CHARS = 150
_ENTRY = re.compile(r"^(\w+(?:\s*,\s*\w+)*)\s*:\s*(.*)$")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)}\]`'\"])\.(\s|$)")
#: Words whose period ends no sentence ("eq. (4)", "e.g. the").
_ABBREVIATIONS = ("eq", "Eq", "eqs", "e.g", "i.e", "al", "vs", "cf", "resp", "Fig", "Sec")


def meanings(cls) -> dict[str, str]:
    """The first sentence of each parameter's docstring entry (``"a, b : text"`` entries give
    ``text`` to both)."""
    doc = inspect.getdoc(cls) or ""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines[:-1])
                     if line.strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"})
    except StopIteration:
        return {}
    entries: dict[str, list[str]] = {}
    names: list[str] = []
    for line in lines[start + 2:]:
        if line and not line.startswith(" "):
            entry = _ENTRY.match(line)
            if entry is None or (line.strip() and set(line.strip()) == {"-"}):
                break
            names = [name.strip() for name in entry.group(1).split(",")]
            # "a, b : text" is the entry itself; "a : type, default=x" describes below
            inline = entry.group(2) if "," in entry.group(1) else ""
            for name in names:
                entries[name] = [inline] if inline else []
        elif line.startswith(" ") and names:
            for name in names:
                entries[name].append(line.strip())
        elif not line and names and entries[names[0]]:
            names = []  # a blank line ends the entry's first paragraph
    return {name: _first_sentence(" ".join(words)) for name, words in entries.items()}


def _first_sentence(text: str) -> str:
    """Up to the first period that ends a sentence: not an abbreviation's, not inside
    parentheses; cut at ``MEANING_CHARS``."""
    text = text.replace("``", "").strip()
    sentence = text
    for end in _SENTENCE_END.finditer(text):
        before = text[:end.start()]
        if before.endswith(_ABBREVIATIONS) or before.count("(") > before.count(")"):
            continue
        sentence = text[:end.start() + 1]
        break
    return sentence if len(sentence) <= MEANING_CHARS else (
        sentence[:MEANING_CHARS].rsplit(" ", 1)[0] + " ...")


def value_range(constraints) -> str:
    """The values a parameter takes, from its ``_parameter_constraints`` entry."""
    words = []
    for constraint in constraints:
        if constraint is None:
            words.append("None")
        elif isinstance(constraint, Interval):
            kind = "int" if constraint.type is Integral else "float"
            left = "[" if constraint.closed in ("left", "both") else "("
            right = "]" if constraint.closed in ("right", "both") else ")"
            low = "-inf" if constraint.left is None else _number(constraint.left)
            high = "inf" if constraint.right is None else _number(constraint.right)
            words.append(f"{kind} in {left}{low}, {high}{right}")
        elif isinstance(constraint, StrOptions):
            words.append("{" + ", ".join(sorted(constraint.options - constraint.deprecated))
                         + "}")
        elif constraint == "boolean":
            words.append("true or false")
        elif constraint == "random_state":
            words.append("an int (a seed) or None")
        else:
            words.append(str(constraint))
    return " or ".join(words)


def _number(value) -> str:
    return f"{value:g}".replace("e+", "e")


def parameter_help(short: str, cls, width: int = 98) -> str:
    """A solver's block in ``s3vm fit --help``: each parameter's name, range, default and
    meaning."""
    defaults = cls().get_params()
    order = [name for name in inspect.signature(cls.__init__).parameters if name in defaults]
    about = meanings(cls)
    constraints = getattr(cls, "_parameter_constraints", {})
    lines = [f"  {short} ({cls.__name__}):"]
    for name in order:
        kind = value_range(constraints.get(name, ()))
        meaning = about.get(name, "")
        if meaning and not meaning.endswith((".", "...")):
            meaning += "."
        text = f"{name} = {defaults[name]!r}" + (f"; {kind}" if kind else "") + (
            f": {meaning}" if meaning else "")
        lines.append(textwrap.fill(text, width, initial_indent="    ",
                                   subsequent_indent="        "))
    return "\n".join(lines)
