"""Value specs of the app's settings (``Param``), how a message quotes a value, and the limits.

Streamlit-free: the share link's parser (``engine.scenario``), the solver registry
(``engine.registry``) and the widgets (``ui.forms``, ``ui.sidebar``) hold values to the same specs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

#: Largest data set the app draws; kernels of this size stay interactive.
MAX_POINTS = 2000
#: Most points a user may add by clicking (and the data set stays within MAX_POINTS).
MAX_ADDED = 200
#: Range of a Watch page run's time budget (seconds), and the budget a session starts with.
MIN_BUDGET, MAX_BUDGET, DEFAULT_BUDGET = 5, 600, 60
#: Play's speeds on the Watch page's player.
FILM_SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


#: What a selectbox holds for the option None ("none", "median"): Streamlit reads a widget
#: value of None as no choice at all, and the box showed "Choose an option".
NO_VALUE = "(none)"


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
        if option is None or option == NO_VALUE:
            return self.placeholder or "none"
        if isinstance(option, float) and math.isinf(option):
            return "∞"
        return str(option)

    def to_widget(self, value):
        """``value`` as the widget holds it in the session (``NO_VALUE`` for a selectbox's
        None)."""
        return NO_VALUE if self.options and value is None else value

    def from_widget(self, value):
        """The value a widget's session value stands for (``to_widget``'s inverse)."""
        return None if self.options and value == NO_VALUE else value

    def parse(self, text: str):
        """The value a number box's ``text`` stands for: a whole number or a number (scientific
        notation too: "2e3" is 2000), None when it is empty, or the text itself when it is no
        number, so that ``check`` quotes exactly what was typed."""
        text = text.strip()
        if not text:
            return None
        for kind in (int, float):
            try:
                value = kind(text)
            except ValueError:
                continue
            if isinstance(value, float) and not math.isfinite(value):
                return text  # 1e400, inf, nan: said as typed
            # (an integer's 2e3 stays 2000.0 here, as typed; ``check`` gives the int)
            return value if self.integer else float(value)
        return text

    def text(self, value) -> str:
        """How a number box shows ``value`` (``parse``'s inverse for the values it gives)."""
        if value is None:
            return ""
        if isinstance(value, float) and math.isfinite(value):
            return f"{value:.12g}"
        return str(value)

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
            raise ValueError(f"{self.label} must be {kind}, not {shown(value)}"
                             + (f".{self.allowed}" if isinstance(value, str) else "."))
        # (an int is finite at any size; math.isfinite would convert it to a float, which a
        # JSON integer of 310 digits overflows)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{self.label} must be a finite number, not {shown(value)}.")
        if self.integer and value != int(value):
            raise ValueError(f"{self.label} must be {kind}, not {shown(value)}.")
        if not ((self.low is None or value >= self.low)
                and (self.high is None or value <= self.high)):
            raise ValueError(f"{self.label} = {shown(value)} is outside the allowed range "
                             f"{shown(self.low)} to {shown(self.high)}.")
        return int(value) if self.integer else float(value) + 0.0  # + 0.0: no -0.0

    @property
    def allowed(self) -> str:
        """" Allowed: low to high." for a help text, or "" when the range is open."""
        if self.low is None or self.high is None:
            return ""
        return f" Allowed: {shown(self.low)} to {shown(self.high)}."


def shown(value, width: int = 40, digits: int = 6) -> str:
    """A value as a message or a table quotes it: numbers short, to ``digits`` significant
    digits (1e-8, 2000, 9.8e-173), anything else as its ``repr`` cut to ``width`` characters
    (a link may hold a string of any length)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) < 10**21:  # (a seed of 20 digits is quoted as it was typed)
            return str(value)
        # a JSON integer may have thousands of digits (float() overflows at 310)
        mantissa, exponent = f"{Decimal(value):.{digits}g}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    if isinstance(value, float) and math.isfinite(value):
        text = f"{value:.{digits}g}"
        return text.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    text = repr(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def problems(checks) -> list[str]:
    """What ``Param.check`` says of each ``(param, value)`` whose value its widget refuses."""
    found = []
    for param, value in checks:
        try:
            param.check(value)
        except ValueError as problem:
            found.append(str(problem))
    return found


#: The sidebar's number settings; a shared link is held to the same (``engine.scenario``).
N_POINTS = Param("n", "n (points)", None, "Number of points. Kernel solvers cost O(n²) memory.",
                 low=10, high=MAX_POINTS, integer=True)
#: No help text: a "Help for seed" button would share the box's accessible name.
SEED = Param("seed", "seed", 0, "", low=0, high=2**31 - 1, integer=True)
#: The Data page's "k random labels per class". No help text: a "Help for k labels per class"
#: button would share the box's accessible name.
K_LABELS = Param("k", "k labels per class", 1, "", low=1, high=50, integer=True)
#: The Compare page's number of label draws and labels per class in each: 10, the DA paper's
#: Table 2, and the fewest draws whose paired test can reach p < 0.01 (with 5, no test can go
#: below p = 2/2^5 = 0.0625, so no verdict could ever be more than "no significant difference").
LABEL_DRAWS = Param("k", "k (label draws)", 10, "The DA paper's Table 2 uses 10; with fewer "
                    "than 6 the paired test cannot tell a solver from its SVM.", low=1, high=50,
                    integer=True)
LABELS_PER_DRAW = Param("per_class", "labels per class in each draw", 1, "The DA paper's Table "
                        "2 labels one point per class.", low=1, high=20, integer=True)
#: The Watch page's time budget of a run.
BUDGET = Param("budget", "time budget (s)", DEFAULT_BUDGET,
               "A run ends after this much solver time and plays the path so far.",
               low=MIN_BUDGET, high=MAX_BUDGET, integer=True)


def noise_param(spec) -> Param:
    """The sidebar's noise slider for data set ``spec`` (a registry entry of ``toy_data``)."""
    return Param("noise", "noise", spec.noise, "Standard deviation of the jitter.", low=0.0,
                 high=2.0 if spec.noise >= 0.5 else 0.5)


def max_added(n_generated: int) -> int:
    """How many points may be added by clicking to ``n_generated`` generated ones."""
    return max(0, min(MAX_ADDED, MAX_POINTS - n_generated))
