"""Features on different scales: found, and standardized to z-scores.

A data file's features come in their own units: wine's proline is in the thousands, its hue
below one. A Gaussian kernel has one width for every feature (the LDS paper's default sigma,
§2.3.2, is one quantile of the pairwise distances), and a linear kernel weighs the features by
their size, so both see little else than the largest feature: on the wine data as the file
comes, deterministic annealing errs on about a third of the unlabeled points; standardized, on
a few per cent (tests/s3vm_explorer/engine/test_scaling.py).

A feature's *scale* is its standard deviation over all the points, labeled and unlabeled
(the solvers see them all). A constant column has none (its standard deviation is 0, or below
``CONSTANT_BELOW`` times its largest magnitude, rounding noise): it takes no part in the
comparison, and is centred but not divided. The scales *differ* when the largest over the
smallest is more than ``SCALE_RATIO``. The standard deviation, not a range, in which one
outlier is the whole scale; nor an interquartile range, which is 0 for a feature that is
mostly one value (a 0 / 1 column with a few ones).

Standardizing subtracts each feature's mean and divides by its scale (a z-score).
``Standardization`` keeps both arrays, so that a fitted model applies the same to new points
(``s3vm predict``); a sparse matrix is divided only (centring would fill it), as scikit-learn's
``StandardScaler(with_mean=False)`` does.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

#: Largest over smallest scale beyond which the features are said to differ in scale, and a file
#: is standardized (the app by default, the command line with ``--standardize``).
SCALE_RATIO = 10.0
#: A column whose standard deviation is below this times its largest magnitude is constant.
CONSTANT_BELOW = 1e-12


class FeatureScalesWarning(UserWarning):
    """The features of a data file differ in scale by more than ``SCALE_RATIO`` and are used as
    they are: a kernel of one width sees mostly the largest."""


def feature_scales(X) -> np.ndarray:
    """Each feature's standard deviation over the rows of ``X`` (dense or sparse), ``nan`` for
    a constant column."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=float)
        mean = np.asarray(X.mean(axis=0)).ravel()
        variance = np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2
        largest = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        X = np.asarray(X, dtype=float)
        variance, largest = X.var(axis=0), np.abs(X).max(axis=0, initial=0.0)
    scales = np.sqrt(np.maximum(variance, 0.0))
    return np.where(scales > CONSTANT_BELOW * largest, scales, np.nan)


def scale_ratio(X) -> float:
    """The largest feature scale over the smallest, constant columns left out; 1 when fewer
    than two features vary."""
    scales = feature_scales(X)
    scales = scales[np.isfinite(scales)]
    return float(scales.max() / scales.min()) if scales.size >= 2 else 1.0


def scales_differ(X) -> bool:
    """Whether the features' scales differ by more than ``SCALE_RATIO``."""
    return scale_ratio(X) > SCALE_RATIO


def scales_sentence(X, names=None) -> str:
    """The features' scales in words: the smallest and the largest standard deviation, which
    features they are (by ``names``, else their column numbers), and their ratio."""
    scales = feature_scales(X)
    varying = np.flatnonzero(np.isfinite(scales))
    if varying.size < 2:
        return "fewer than two features vary"
    low, high = varying[np.argmin(scales[varying])], varying[np.argmax(scales[varying])]

    def name(j):
        return f"'{names[j]}'" if names else f"feature {j + 1}"

    ratio = scales[high] / scales[low]
    return (f"standard deviations from {scales[low]:.3g} ({name(low)}) to {scales[high]:.3g} "
            f"({name(high)}), {f'{ratio:,.0f}' if ratio >= 10 else f'{ratio:.2g}'} times apart")


@dataclass(frozen=True, eq=False)
class Standardization:
    """Each feature's ``mean`` and ``scale`` (its standard deviation; 1 for a constant column),
    as they were on the data they were taken from: ``apply`` makes z-scores of any points."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def of(cls, X) -> Standardization:
        """The standardization of the data ``X`` (n, d); of a sparse ``X``, its scales only
        (``mean`` 0: centring would fill the matrix)."""
        scales = feature_scales(X)
        mean = (np.zeros(X.shape[1]) if sp.issparse(X)
                else np.asarray(X, dtype=float).mean(axis=0))
        return cls(mean, np.where(np.isfinite(scales), scales, 1.0))

    @classmethod
    def checked(cls, mean, scale, n_features: int) -> Standardization:
        """A standardization read from a file: two arrays of ``n_features`` finite numbers, the
        scales positive; a ``ValueError`` saying which is not."""
        arrays = {"mean": mean, "scale": scale}
        for name, values in arrays.items():
            values = np.asarray(values)
            if values.shape != (n_features,) or values.dtype.kind not in "fiu" or not np.all(
                    np.isfinite(values)):
                raise ValueError(f"its standardization's {name} is not {n_features} finite "
                                 "numbers, one a feature")
        if np.any(np.asarray(scale) <= 0):
            raise ValueError("its standardization has a scale that is not positive")
        return cls(np.asarray(mean, dtype=float), np.asarray(scale, dtype=float))

    def apply(self, X):
        """``X`` in z-scores: minus the means, over the scales (a sparse ``X`` stays sparse)."""
        if sp.issparse(X):
            return sp.csr_matrix(sp.csr_matrix(X, dtype=float) @ sp.diags(1.0 / self.scale))
        return (np.asarray(X, dtype=float) - self.mean) / self.scale


def warn_if_scales_differ(X, names=None, how: str = "") -> None:
    """Warn (``FeatureScalesWarning``, one sentence) when the features of ``X`` differ in scale
    by more than ``SCALE_RATIO``; ``how`` says how to standardize them."""
    if scales_differ(X):
        warnings.warn(FeatureScalesWarning(
            f"{scales_sentence(X, names).capitalize()}: a kernel of one width sees mostly the "
            f"largest{how}."), stacklevel=2)
