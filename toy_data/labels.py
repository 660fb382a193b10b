"""Choosing which points are labeled."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

UNLABELED = -1


def class_count(y_true) -> int:
    """The number of classes of a data set whose classes are 0 .. k-1 (``-1`` marks a point
    of unknown class), at least two."""
    return max(2, int(np.max(y_true, initial=0)) + 1)


def pick_labeled(y, n_per_class=1, random_state=None):
    """Hide all labels but ``n_per_class`` random ones per class.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class labels; ``-1`` marks a point of unknown class, never picked.
    n_per_class : int, default=1
    random_state : int, RandomState or None

    Returns
    -------
    ndarray of shape (n,)
        A copy of ``y`` with ``-1`` for unlabeled points; every class keeps exactly
        ``n_per_class`` labels.
    """
    y = np.asarray(y)
    if not isinstance(n_per_class, int | np.integer) or n_per_class < 1:
        raise ValueError(f"n_per_class must be a positive integer, got {n_per_class!r}.")
    rng = check_random_state(random_state)
    out = np.full_like(y, UNLABELED)
    for cls in np.unique(y[y != UNLABELED]):
        members = np.flatnonzero(y == cls)
        if members.size < n_per_class:
            raise ValueError(
                f"Class {cls!r} has only {members.size} point(s); cannot label {n_per_class} of "
                "them. Ask for fewer labels per class or generate more points."
            )
        chosen = rng.choice(members, n_per_class, replace=False)
        out[chosen] = y[chosen]
    return out


def pick_labeled_at_random(y, n_labeled, random_state=None):
    """Hide all labels but ``n_labeled`` drawn at random, at least one of each class.

    The splits of the LDS paper (§3.2: "We took care to include at least one point of each
    class in the labeled set"), reused by the cS3VM paper (§4.1), and of the LapSVM paper
    (§6.2: "at least one example per class"): one random point of every class, then the other
    ``n_labeled - k`` uniformly among the rest, so the classes keep their proportions only on
    average.

    Returns a copy of ``y`` with ``-1`` for unlabeled points.
    """
    y = np.asarray(y)
    classes = np.unique(y)
    if not isinstance(n_labeled, int | np.integer) or not classes.size <= n_labeled <= y.size:
        raise ValueError(
            f"n_labeled must be an integer between the number of classes ({classes.size}) and "
            f"the number of points ({y.size}), got {n_labeled!r}."
        )
    rng = check_random_state(random_state)
    chosen = [rng.choice(np.flatnonzero(y == cls)) for cls in classes]
    others = np.setdiff1d(np.arange(y.size), chosen)
    chosen = np.r_[chosen, rng.choice(others, n_labeled - classes.size, replace=False)]
    out = np.full_like(y, UNLABELED)
    out[chosen] = y[chosen]
    return out
