"""Every loss once, as value and derivative with respect to the margin or output t.

Shared by the solvers and by the app's loss plots. Functions are vectorised over numpy arrays
and written so they cannot overflow (``scipy.special``).
"""

from __future__ import annotations

import numpy as np


def hinge(t):
    """Hinge loss ``max(0, 1 - t)`` of the margin ``t = y f(x)``."""
    return np.maximum(0.0, 1.0 - np.asarray(t, dtype=float))


def hinge_grad(t):
    """A subgradient of the hinge loss: -1 where ``t < 1``, else 0."""
    return -(np.asarray(t, dtype=float) < 1.0).astype(float)


def squared_hinge(t):
    """Squared hinge ``max(0, 1 - t)^2`` (the L2-SVM loss)."""
    return hinge(t) ** 2


def squared_hinge_grad(t):
    """Derivative of the squared hinge, ``-2 max(0, 1 - t)``."""
    return -2.0 * hinge(t)


def symmetric_exp(t, s: float = 3.0):
    """The unlabeled loss ``exp(-s t^2)`` of the LDS (s = 3) and cS3VM papers."""
    t = np.asarray(t, dtype=float)
    return np.exp(-s * t * t)


def symmetric_exp_grad(t, s: float = 3.0):
    """Derivative of ``exp(-s t^2)``: ``-2 s t exp(-s t^2)``."""
    t = np.asarray(t, dtype=float)
    return -2.0 * s * t * np.exp(-s * t * t)
