"""The papers' toy data sets. Each generator returns ``(X, y)`` with ``y`` in {0, 1} (``digits``:
the ten digits 0 .. 9; ``blobs``: classes 0 .. k-1).

All take ``n_samples``, ``noise`` and ``random_state`` and are deterministic for a fixed seed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri
from sklearn.datasets import make_circles, make_moons
from sklearn.utils import check_random_state


def _check_common(n_samples, noise, minimum=4):
    if not isinstance(n_samples, int | np.integer) or n_samples < minimum:
        raise ValueError(f"n_samples must be an integer of at least {minimum}, got {n_samples!r}.")
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a non-negative number, got {noise!r}.")


def _shuffled(X, y, rng):
    order = rng.permutation(len(y))
    return X[order], y[order]


def two_moons(n_samples=200, noise=0.1, random_state=None):
    """Two interleaving half circles (the DA paper's 2MOONS, §4; LapSVM paper Figure 3).

    Class 0 is the upper moon (unit radius, centred at the origin), class 1 the lower moon
    shifted to (1, 0.5); ``noise`` is the standard deviation of Gaussian jitter.
    """
    _check_common(n_samples, noise)
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=random_state)
    return X, y.astype(int)


def two_circles(n_samples=200, noise=0.05, random_state=None):
    """Two concentric circles (the DA paper's 2CIRCLES): class 0 on the outer circle of radius 1,
    class 1 on the inner circle of radius 0.5; ``noise`` is the Gaussian jitter."""
    _check_common(n_samples, noise)
    X, y = make_circles(n_samples=n_samples, noise=noise, factor=0.5, random_state=random_state)
    return X, y.astype(int)


def clock(n_samples=300, noise=0.02, random_state=None):
    """The "clock" of the LapSVM paper, Figure 1.

    Class 0 is the circular rim of the clock face (radius 1, 60% of the points); class 1 the two
    hands drawn from the centre, the hour hand (length 0.5, pointing at ten o'clock) and the
    minute hand (length 0.75, pointing at two), the points spread along them in proportion to
    their length. The hands stop short of the rim, so the classes are separated by a gap of 0.25
    that only the manifold reveals; ``noise`` is isotropic Gaussian jitter.
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    n_rim = int(round(0.6 * n_samples))
    angle = rng.uniform(0, 2 * np.pi, n_rim)
    rim = np.column_stack([np.cos(angle), np.sin(angle)])
    n_hands = n_samples - n_rim
    lengths = np.array([0.5, 0.75])
    directions = np.deg2rad([150.0, 30.0])  # ten o'clock and two o'clock
    n_hour = int(round(n_hands * lengths[0] / lengths.sum()))
    which = np.r_[np.zeros(n_hour, int), np.ones(n_hands - n_hour, int)]
    radius = rng.uniform(0, 1, n_hands) * lengths[which]
    hands = radius[:, None] * np.column_stack([np.cos(directions[which]),
                                              np.sin(directions[which])])
    X = np.vstack([rim, hands]) + noise * rng.standard_normal((n_samples, 2))
    y = np.r_[np.zeros(n_rim, int), np.ones(n_hands, int)]
    return _shuffled(X, y, rng)


def _gaussian_clusters(means, labels, n_samples, noise, rng):
    counts = np.full(len(means), n_samples // len(means))
    counts[: n_samples % len(means)] += 1
    which = np.repeat(np.arange(len(means)), counts)
    X = np.asarray(means)[which] + noise * rng.standard_normal((n_samples, len(means[0])))
    return _shuffled(X, np.asarray(labels)[which], rng)


def gaussian_2c(n_samples=500, n_features=500, noise=1.0, random_state=None):
    """Gaussian2C of the QN-S3VM paper, §4.1.2: two Gaussians N(m_i, noise^2 I) in d dimensions,
    ``m_1 = (-2.5, 0, ..., 0)`` (class 0) and ``m_2 = (+2.5, 0, ..., 0)`` (class 1), n/2 each."""
    _check_common(n_samples, noise)
    if n_features < 1:
        raise ValueError(f"n_features must be at least 1, got {n_features!r}.")
    rng = check_random_state(random_state)
    means = np.zeros((2, n_features))
    means[:, 0] = [-2.5, 2.5]
    return _gaussian_clusters(means, [0, 1], n_samples, noise, rng)


def gaussian_4c(n_samples=500, n_features=500, noise=1.0, random_state=None):
    """Gaussian4C of the QN-S3VM paper, §4.1.2, the "misleading structure" set: four Gaussians
    N(m_i, noise^2 I) with means ``(-2.5, -5)``, ``(-2.5, +5)`` (class 0) and ``(+2.5, -5)``,
    ``(+2.5, +5)`` (class 1) in the first two coordinates, n/4 each. The widest gap runs along
    the second coordinate, but the classes are split along the first."""
    _check_common(n_samples, noise)
    if n_features < 2:
        raise ValueError(f"Gaussian4C needs n_features of at least 2, got {n_features!r}.")
    rng = check_random_state(random_state)
    means = np.zeros((4, n_features))
    means[:, :2] = [[-2.5, -5.0], [-2.5, 5.0], [2.5, -5.0], [2.5, 5.0]]
    return _gaussian_clusters(means, [0, 0, 1, 1], n_samples, noise, rng)


def blobs(n_samples=300, noise=0.6, random_state=None, n_classes=3):
    """k Gaussian blobs in the plane for one-vs-rest (classes 0 .. k-1, n/k points each).

    The multi-class toy of the app, in the spirit of the papers' multi-class sets (LDS paper
    §3.2 Coil20 and Uspst, "one-against-rest"; DA paper §4 COIL6): the k means sit evenly on a
    circle of radius 3, so neighbouring clusters are ``6 sin(pi / k)`` apart, and ``noise`` is
    each cluster's standard deviation. The cluster assumption holds while ``noise`` stays well
    below that distance.
    """
    _check_common(n_samples, noise, minimum=2 * n_classes)
    if not isinstance(n_classes, int | np.integer) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer of at least 2, got {n_classes!r}.")
    rng = check_random_state(random_state)
    angles = np.pi / 2 + 2 * np.pi * np.arange(n_classes) / n_classes
    means = 3.0 * np.column_stack([np.cos(angles), np.sin(angles)])
    return _gaussian_clusters(means, np.arange(n_classes), n_samples, noise, rng)


#: Half distance between the g50c means that gives a 5% Bayes error with unit variance:
#: the error is Phi(-m), so m = Phi^{-1}(0.95) = 1.645.
G50C_HALF_DISTANCE = float(ndtri(0.95))


def g50c(n_samples=550, n_features=50, noise=1.0, random_state=None):
    """g50c of the LDS paper, §3.1: two standard normal Gaussians in 50 dimensions whose means
    ``+-m (1, ..., 1) / sqrt(d)`` lie ``2 m`` apart with ``m = Phi^{-1}(0.95)``, so the Bayes error
    is 5% (for ``noise = 1``; ``noise`` is the clusters' standard deviation). Labels are the
    Gaussians. The cluster assumption holds."""
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    direction = np.ones(n_features) / np.sqrt(n_features)
    means = np.outer([-G50C_HALF_DISTANCE, G50C_HALF_DISTANCE], direction)
    return _gaussian_clusters(means, [0, 1], n_samples, noise, rng)


def g10n(n_samples=550, n_features=10, noise=1.0, random_state=None):
    """g10n of the LDS paper, §3.1: two Gaussian clusters in 10 dimensions whose labels violate
    the cluster assumption.

    The clusters ``N(+-2 e_1, noise^2 I)`` are well separated along the first coordinate, but the
    label is the deterministic ``x_2 + x_3 > 0``: the linear decision function depends on two input
    dimensions only and traverses both cluster centres, so each cluster holds both classes.
    """
    _check_common(n_samples, noise)
    if n_features < 3:
        raise ValueError(f"g10n needs n_features of at least 3, got {n_features!r}.")
    rng = check_random_state(random_state)
    means = np.zeros((2, n_features))
    means[:, 0] = [-2.0, 2.0]
    X, _ = _gaussian_clusters(means, [0, 1], n_samples, noise, rng)
    return X, (X[:, 1] + X[:, 2] > 0).astype(int)


#: Half the distance between the two classes of ``parallel_clusters``, of
#: ``overlapping_gaussians`` and of the two clusters of ``crossed_clusters``: the data sets of the
#: "When unlabeled data hurt" page, each in a plane of about two moons' size.
PARALLEL_HALF_DISTANCE = 0.6
OVERLAP_HALF_DISTANCE = 0.5
CROSSED_HALF_DISTANCE = 1.0


def parallel_clusters(n_samples=200, noise=0.2, random_state=None):
    """Two long parallel clusters, one a class: N((-/+0.6, 0), diag(noise^2, 1)), n/2 each.

    The classes are separated by a wide gap (six standard deviations across at the default
    noise), along which the clusters stretch: the cluster assumption holds. A few labels
    mislead the supervised SVM here, since the line halfway between two labeled points tilts
    with their heights along the clusters; the gap does not.
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    y = np.arange(n_samples) % 2
    across = np.where(y == 1, PARALLEL_HALF_DISTANCE, -PARALLEL_HALF_DISTANCE)
    X = np.column_stack([across + noise * rng.standard_normal(n_samples),
                         rng.standard_normal(n_samples)])
    return _shuffled(X, y, rng)


def overlapping_gaussians(n_samples=200, noise=0.6, random_state=None):
    """Two heavily overlapping classes in the plane: N((-/+0.5, 0), noise^2 I), n/2 each.

    Two equal Gaussians whose means lie ``2 m`` apart have a density with a single peak,
    no dip between the means, when their standard deviation is at least ``m`` (here
    ``m = 0.5``): with the default ``noise = 0.6`` no region of low density separates the
    classes, and the cluster assumption fails. The Bayes error is ``Phi(-m / noise)``, 20 %.
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    means = [[-OVERLAP_HALF_DISTANCE, 0.0], [OVERLAP_HALF_DISTANCE, 0.0]]
    return _gaussian_clusters(means, [0, 1], n_samples, noise, rng)


def crossed_clusters(n_samples=200, noise=0.3, random_state=None):
    """g10n of the LDS paper (§3.1) in the plane: two clusters N((-/+1, 0), noise^2 I), n/2
    each, well separated along the first coordinate (their centres almost seven standard
    deviations apart at the default noise), labelled ``x_2 > 0``.

    The class boundary runs through both cluster centres, where the density is highest, and
    the gap between the clusters separates no classes: the cluster assumption fails.
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    means = [[-CROSSED_HALF_DISTANCE, 0.0], [CROSSED_HALF_DISTANCE, 0.0]]
    X, _ = _gaussian_clusters(means, [0, 1], n_samples, noise, rng)
    return X, (X[:, 1] > 0).astype(int)


def unbalanced_moons(n_samples=200, noise=0.1, random_state=None, share=0.8):
    """Two moons (``two_moons``) with ``share`` of the points in class 0, the upper moon, and
    the rest in the lower one.

    The moons keep their gap (the cluster assumption holds), but a draw of as many labels of
    each class says 1:1: the solvers that take the class shares of the unlabeled points from
    the labeled ones (their balance constraints) look for a boundary that splits the data in
    halves, through the larger moon.
    """
    _check_common(n_samples, noise)
    if not 0 < share < 1:
        raise ValueError(f"share must be strictly between 0 and 1, got {share!r}.")
    upper = int(round(share * n_samples))
    if not 0 < upper < n_samples:
        raise ValueError(f"A share of {share!r} of {n_samples} points leaves a moon empty: "
                         "give more points or a share nearer 0.5.")
    X, y = make_moons(n_samples=(upper, n_samples - upper), noise=noise,
                      random_state=random_state)
    return X, y.astype(int)


def digits_pair(n_samples=None, noise=0.0, random_state=None, digits=(3, 8)):
    """A pair of classes of scikit-learn's bundled handwritten digits (8x8 images, 64-d).

    The real data set of the app, in the spirit of the USPS pairs of the cS3VM, LDS and QN-S3VM
    papers. Pixels are scaled to [0, 1] as in the QN-S3VM paper §4.1.2; class 0 is
    ``digits[0]``, class 1 ``digits[1]``. ``n_samples`` (None: all, about 360) draws a random
    subset; ``noise`` adds Gaussian pixel noise.
    """
    first, second = digits
    if first == second or not {first, second} <= set(range(10)):
        raise ValueError(f"digits must be two different digits between 0 and 9, got {digits!r}.")
    X, y = _scaled_digits()
    keep = np.isin(y, digits)
    X, y = X[keep], (y[keep] == second).astype(int)
    return _some_digits(X, y, n_samples, noise, random_state, f"The digits {first} and {second}")


def digits(n_samples=None, noise=0.0, random_state=None):
    """All ten classes of scikit-learn's bundled handwritten digits: 1797 8x8 images (64-d),
    class = the digit.

    The stand-in for USPST, the 10-class handwritten digits of the LDS paper (Table 2), the
    cS3VM paper (Table 4, 1-vs-rest) and the LapSVM paper (Table 4): 2007 16x16 images there.
    Pixels are scaled to [0, 1] as in ``digits_pair``; ``n_samples`` (None: all) draws a random
    subset; ``noise`` adds Gaussian pixel noise.
    """
    X, y = _scaled_digits()
    return _some_digits(X, y, n_samples, noise, random_state, "The ten digits")


def _scaled_digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.data / 16.0, data.target.astype(int)


def _some_digits(X, y, n_samples, noise, random_state, what):
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a non-negative number, got {noise!r}.")
    rng = check_random_state(random_state)
    if n_samples is not None:
        _check_common(n_samples, noise)
        if n_samples > len(y):
            raise ValueError(f"{what} have {len(y)} images; ask for at most that many.")
        rows = rng.choice(len(y), n_samples, replace=False)
        X, y = X[rows], y[rows]
    if noise > 0:
        X = X + noise * rng.standard_normal(X.shape)
    return X, y
