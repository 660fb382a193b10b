"""Small solver runs for the figure and player tests."""

import numpy as np

from s3vm_core import decision_on_grid
from ui.caching import Run, display_grid, pick_frames


def make_run(X, labels, estimator):
    states = list(estimator.trace(X, labels))
    frames = pick_frames(states)
    gx, gy = display_grid(X, size=20)
    xx, yy = np.meshgrid(gx, gy)
    grid = decision_on_grid(estimator.features(np.column_stack([xx.ravel(), yy.ravel()])),
                            [states[i] for i in frames]).reshape(len(frames), 20, 20)
    points = np.stack([states[i].train_decision for i in frames])
    return Run(states, estimator, 0.0, frames, gx, gy, grid, points)
