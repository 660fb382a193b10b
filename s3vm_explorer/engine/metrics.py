"""How the app measures and writes what it measures: an error rate, or "unknown" when it
cannot be computed. The measures themselves are the library's (``s3vm_core.metrics``), handed
on here so that the pages, which only draw, read them from the engine."""

from __future__ import annotations

import math

import numpy as np

from s3vm_core.metrics import unlabeled_error

__all__ = ["UNKNOWN", "n_classes_of", "percent", "unlabeled_error"]

#: How the app writes a number it cannot compute.
UNKNOWN = "unknown"


def n_classes_of(decisions) -> int:
    """2 for a binary decision (n,), k for one-vs-rest's (n, k)."""
    decisions = np.asarray(decisions)
    return 2 if decisions.ndim == 1 else decisions.shape[-1]


def percent(value: float, digits: int = 1) -> str:
    """An error rate as the app writes it: "12.3 %", or "unknown" for NaN (no point to score)."""
    return UNKNOWN if math.isnan(value) else f"{100 * value:.{digits}f} %"
