"""How well a decision function classifies the unlabeled points: the transductive error that
every paper reports, on the points whose true class is known.

One definition for the library's users, the app (its film, the Compare page, the teaching
pages) and the command line. A number that cannot be computed -- no unlabeled point has a
known true class, as in an uploaded file without a truth column -- is NaN (said "unknown"),
never 0.
"""

from __future__ import annotations

import math

import numpy as np

#: The label of an unlabeled point, and the true class of a point whose class is unknown.
UNLABELED = -1


def predicted_classes(decision) -> np.ndarray:
    """The class index each decision picks: ``f > 0`` (class 1) for one binary function
    ``(n,)``, the largest output for one-vs-rest's k functions ``(n, k)``."""
    decision = np.asarray(decision)
    return (decision > 0).astype(int) if decision.ndim == 1 else np.argmax(decision, axis=-1)


def unlabeled_error(decision, y, y_true) -> float:
    """The fraction of the unlabeled points (``y == -1``) of known true class (``y_true`` not
    -1) whose predicted class (``predicted_classes``) is not their true class; NaN when there
    is no such point.

    Classes are indices ``0 .. k-1`` (``classes_[0]`` is f < 0 for a binary decision).

    Examples
    --------
    >>> unlabeled_error([1.0, -2.0, 0.5], y=[1, -1, -1], y_true=[1, 0, 0])
    0.5
    >>> unlabeled_error([1.0, -2.0], y=[1, -1], y_true=[1, -1])
    nan
    """
    y_true = np.asarray(y_true)
    scored = (np.asarray(y) == UNLABELED) & (y_true != UNLABELED)
    if not scored.any():
        return math.nan
    return float(np.mean(predicted_classes(np.asarray(decision)[scored]) != y_true[scored]))
