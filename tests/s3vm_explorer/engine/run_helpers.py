"""Small solver runs for the figure and player tests, put together as the app does
(``engine.worker`` and ``engine.protocol.Run.assemble``)."""

import dataclasses

import numpy as np

from s3vm_core import SVMBaseline
from s3vm_explorer.engine.data import Data, View
from s3vm_explorer.engine.protocol import Baseline, Run, RunFinished
from s3vm_explorer.engine.run.process import grid_decisions, pick_frames


def make_run(X, labels, estimator, size=20, baseline=None):
    """``estimator``'s run on ``(X, labels)`` with a ``size`` x ``size`` display grid; with
    ``baseline`` (another run), its last state is the supervised SVM beside the film."""
    data = Data(np.asarray(X, dtype=float), np.asarray(labels), View.of(X))
    states = list(estimator.trace(X, labels))
    frames = pick_frames(states)
    grid = data.grid_features(estimator, size)
    shown = [states[i] for i in frames]
    finished = RunFinished(
        frames=frames, grid_x=grid[0], grid_y=grid[1], grid_decisions=grid_decisions(grid, shown),
        point_decisions=np.stack([s.train_decision for s in shown]), seconds=0.0,
        baseline=None if baseline is None else Baseline(baseline.grid_decisions[-1],
                                                        baseline.states[-1].train_decision))
    return Run.assemble(states, finished)


def with_baseline(run, X, labels):
    """``run`` with the supervised SVM's answer beside it."""
    svm = make_run(X, labels, SVMBaseline(), size=len(run.grid_x))
    return dataclasses.replace(run, baseline=Baseline(svm.grid_decisions[-1],
                                                      svm.states[-1].train_decision))


def high_dimensional_run():
    """``(X, X_2d, labels, run)``: two Gaussians in 5-D, one label each, the supervised SVM's
    run, drawn on the plane of the first two principal components through the mean."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 1, (20, 5)), rng.normal(2, 1, (20, 5))]
    labels = np.full(40, -1)
    labels[[0, 39]] = [0, 1]
    run = make_run(X, labels, SVMBaseline())
    return X, View.of(X).project(X), labels, run


class Recorder:
    """A run's channel in the tests: it keeps what is sent and never asks to finish."""

    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(message)

    def finish_requested(self):
        return False

    def of(self, kind):
        return [m for m in self.sent if isinstance(m, kind)]
