"""Toy and real data sets of the five papers, and a registry the app reads.

Every generator returns ``(X, y)`` with ``y`` in {0, 1} (the registry's ``n_classes``: in
0 .. k-1) and takes ``n_samples``, ``noise`` and ``random_state``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from toy_data.generators import (
    blobs,
    clock,
    crossed_clusters,
    digits,
    digits_pair,
    g10n,
    g50c,
    gaussian_2c,
    gaussian_4c,
    overlapping_gaussians,
    parallel_clusters,
    two_circles,
    two_moons,
    unbalanced_moons,
)
from toy_data.labels import UNLABELED, class_count, pick_labeled, pick_labeled_at_random


@dataclass(frozen=True)
class Dataset:
    """A registry entry: how to make a data set and what it is good for."""

    name: str
    title: str
    generator: callable
    description: str
    n_features: int
    assumption: str  # "cluster", "manifold", "cluster + manifold" or "violated"
    n_samples: int = 200
    noise: float = 0.1
    fixed_size: bool = False  # True when n_samples is limited by a real data set
    n_classes: int = 2  # more than two: the app solves one-vs-rest (s3vm_core.multiclass)
    extra: dict = field(default_factory=dict)

    def make(self, n_samples=None, noise=None, random_state=None):
        return self.generator(
            n_samples=self.n_samples if n_samples is None else n_samples,
            noise=self.noise if noise is None else noise,
            random_state=random_state,
        )


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset("two_moons", "Two moons", two_moons,
                "Two interleaving half circles (DA paper 2MOONS, LapSVM Figure 3).", 2,
                "cluster + manifold", 200, 0.1),
        Dataset("two_circles", "Two circles", two_circles,
                "Two concentric circles (DA paper 2CIRCLES).", 2, "cluster + manifold", 200,
                0.05),
        Dataset("clock", "Clock", clock,
                "Rim of a clock face vs its hour and minute hands (LapSVM Figure 1).", 2,
                "manifold", 300, 0.02),
        Dataset("gaussian_2c_2d", "Gaussian2C (2-D)", partial(gaussian_2c, n_features=2),
                "Two Gaussians at (+-2.5, 0) (QN-S3VM §4.1.2) in the plane.", 2, "cluster",
                200, 1.0),
        Dataset("gaussian_4c_2d", "Gaussian4C (2-D)", partial(gaussian_4c, n_features=2),
                "Four Gaussians at (+-2.5, +-5); classes split along x1 — a misleading "
                "structure (QN-S3VM §4.1.2).", 2, "violated", 200, 1.0),
        Dataset("blobs_3", "Three blobs (3 classes)", partial(blobs, n_classes=3),
                "Three Gaussian blobs in the plane: one binary problem per class "
                "(one-vs-rest, as the LDS and cS3VM papers solve multi-class sets).", 2,
                "cluster", 300, 0.6, n_classes=3),
        Dataset("blobs_5", "Five blobs (5 classes)", partial(blobs, n_classes=5),
                "Five Gaussian blobs on a circle, neighbours closer than in three blobs: "
                "one binary problem per class (one-vs-rest).", 2, "cluster", 300, 0.6,
                n_classes=5),
        Dataset("gaussian_2c", "Gaussian2C (500-D)", gaussian_2c,
                "The QN-S3VM paper's Gaussian2C: two Gaussians in 500 dimensions.", 500,
                "cluster", 500, 1.0),
        Dataset("gaussian_4c", "Gaussian4C (500-D)", gaussian_4c,
                "The QN-S3VM paper's Gaussian4C in 500 dimensions.", 500, "violated", 500, 1.0),
        Dataset("g50c", "g50c", g50c,
                "Two unit Gaussians in 50-D with 5% Bayes error (LDS paper §3.1).", 50,
                "cluster", 550, 1.0),
        Dataset("g10n", "g10n", g10n,
                "Two Gaussian clusters in 10-D whose labels cut through both centres (LDS paper "
                "§3.1): the cluster assumption fails.", 10, "violated", 550, 1.0),
        Dataset("digits_3_8", "Digits 3 vs 8", partial(digits_pair, digits=(3, 8)),
                "scikit-learn's 8x8 handwritten 3s and 8s (64-D).", 64, "cluster + manifold",
                357, 0.0, fixed_size=True),
        Dataset("digits_2_5", "Digits 2 vs 5", partial(digits_pair, digits=(2, 5)),
                "scikit-learn's 8x8 handwritten 2s and 5s (64-D).", 64, "cluster + manifold",
                359, 0.0, fixed_size=True),
    ]
}


def make_dataset(name, n_samples=None, noise=None, random_state=None):
    """Generate the registered data set ``name``; see ``DATASETS``."""
    if name not in DATASETS:
        raise ValueError(f"Unknown data set {name!r}; choose one of {', '.join(DATASETS)}.")
    return DATASETS[name].make(n_samples, noise, random_state)


__all__ = [
    "DATASETS", "Dataset", "UNLABELED", "blobs", "class_count", "clock", "crossed_clusters",
    "digits", "digits_pair", "g10n", "g50c", "gaussian_2c", "gaussian_4c", "make_dataset",
    "overlapping_gaussians", "parallel_clusters", "pick_labeled", "pick_labeled_at_random",
    "two_circles", "two_moons", "unbalanced_moons",
]
