"""What the app measures of a decision function: the class it predicts and its error on the
unlabeled points, which is unknown -- never 0 -- when no unlabeled point has a known class."""

from __future__ import annotations

import math

import numpy as np

from toy_data import UNLABELED

#: How the app writes a number it cannot compute.
UNKNOWN = "unknown"


def predicted_classes(decisions) -> np.ndarray:
    """The class each decision picks: f > 0 (class 1) for one binary function (n,), the
    largest output for one-vs-rest's k functions (n, k)."""
    decisions = np.asarray(decisions)
    return (decisions > 0).astype(int) if decisions.ndim == 1 else np.argmax(decisions, axis=-1)


def n_classes_of(decisions) -> int:
    """2 for a binary decision (n,), k for one-vs-rest's (n, k)."""
    decisions = np.asarray(decisions)
    return 2 if decisions.ndim == 1 else decisions.shape[-1]


def unlabeled_error(decision, labels, y_true) -> float:
    """Fraction of the unlabeled points whose predicted class (``predicted_classes``) is not
    their true class. Points whose true class is unknown (``y_true`` = -1: an uploaded file's
    rows without one) are left out; NaN -- shown as "unknown", never as 0 -- when no point is
    both unlabeled and of known class."""
    y_true = np.asarray(y_true)
    scored = (np.asarray(labels) == UNLABELED) & (y_true != UNLABELED)
    if not scored.any():
        return math.nan
    return float(np.mean(predicted_classes(np.asarray(decision)[scored]) != y_true[scored]))


def percent(value: float, digits: int = 1) -> str:
    """An error rate as the app writes it: "12.3 %", or "unknown" for NaN (no point to score)."""
    return UNKNOWN if math.isnan(value) else f"{100 * value:.{digits}f} %"
