"""Two-dimensional views of data sets with more than two features."""

from __future__ import annotations

import numpy as np


def project_2d(X) -> np.ndarray:
    """The data itself when 2-D, else its first two principal components.

    The app draws points with d > 2 in this view; since no grid of the projected plane maps back
    to input space, their decision values are shown as point colours instead of a heatmap.
    """
    X = np.asarray(X, dtype=float)
    if X.shape[1] == 2:
        return X
    centred = X - X.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    view = centred @ components[:2].T
    # Fix the sign of each axis so a regenerated data set does not flip its picture.
    signs = np.sign(view[np.argmax(np.abs(view), axis=0), [0, 1]])
    return view * np.where(signs == 0, 1, signs)
