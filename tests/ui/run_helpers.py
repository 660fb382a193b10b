"""Small solver runs for the figure and player tests."""

import numpy as np

from s3vm_core import SVMBaseline, decision_on_grid
from toy_data import project_2d
from ui.work import Run, display_grid, pick_frames


def make_run(X, labels, estimator):
    states = list(estimator.trace(X, labels))
    frames = pick_frames(states)
    gx, gy = display_grid(X, size=20)
    xx, yy = np.meshgrid(gx, gy)
    grid = decision_on_grid(estimator.features(np.column_stack([xx.ravel(), yy.ravel()])),
                            [states[i] for i in frames]).reshape(len(frames), 20, 20)
    points = np.stack([states[i].train_decision for i in frames])
    return Run(states, 0.0, frames, gx, gy, grid, points)


def high_dimensional_run():
    """``(X_2d, labels, run)``: two Gaussians in 5-D, one label each, the supervised SVM's
    run; no display grid (the data are not 2-D)."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 1, (20, 5)), rng.normal(2, 1, (20, 5))]
    labels = np.full(40, -1)
    labels[[0, 39]] = [0, 1]
    model = SVMBaseline()
    states = list(model.trace(X, labels))
    run = Run(states, 0.0, np.arange(2), None, None, None,
              np.stack([s.train_decision for s in states]))
    return project_2d(X), labels, run
