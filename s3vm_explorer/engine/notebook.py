"""The Watch page's film of a trace, in a notebook: ``film(model, X, y)`` plays inline in
Jupyter (``_repr_html_``) and saves as one page that plays offline (``Film.save``), the
same player and page as the app's "Save the film as a page".

    from s3vm_core import ContinuationS3VM
    from s3vm_explorer.engine.notebook import film

    model = ContinuationS3VM(sigma=0.3)
    film(model, X, y, y_true=y_true)       # the last line of a cell: the player
    film(model, X, y).save("cs3vm.html")   # a page that plays in any browser, offline

It draws data of any dimension as the app does (``engine.data.View``: the data's plane, the
line of 1-D data, or the plane of its first two principal components through the mean).
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np

from s3vm_core import OneVsRestS3VM
from s3vm_core.metrics import UNLABELED
from s3vm_explorer.engine.data import Data, View
from s3vm_explorer.engine.film import film_args, film_page
from s3vm_explorer.engine.protocol import Baseline, Run, RunFinished
from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.engine.run.process import grid_decisions, pick_frames, supervised_baseline

#: Height (px) of the player's frame in a notebook's output.
HEIGHT = 820


class Film:
    """A film as one HTML page (``page``): shown inline by Jupyter, saved by ``save``."""

    def __init__(self, page: str, title: str):
        self.page, self.title = page, title

    def _repr_html_(self) -> str:
        # A frame of its own: the player's page keeps its ids, styles and scripts apart from
        # the notebook's (and from another film's in the same notebook).
        return (f'<iframe srcdoc="{html.escape(self.page, quote=True)}" '
                f'title="{html.escape(self.title)}" '
                f'style="width: 100%; height: {HEIGHT}px; border: none;"></iframe>')

    def save(self, path) -> Path:
        """Write the page (a file that plays offline, in any browser) to ``path``."""
        path = Path(path)
        path.write_text(self.page, encoding="utf-8")
        return path

    def __repr__(self) -> str:
        return f"Film({self.title!r})"


def _codes(labels, classes) -> np.ndarray:
    """Labels in the caller's classes as indices 0 .. k-1 of ``classes``, -1 elsewhere."""
    labels = np.asarray(labels, dtype=object)
    codes = np.full(len(labels), UNLABELED)
    for code, name in enumerate(classes):
        codes[labels == name] = code
    return codes


def film(estimator, X, y, states=None, *, y_true=None, baseline: bool = True,
         title: str | None = None) -> Film:
    """The film of ``estimator``'s trace on ``(X, y)`` (``y`` with -1 for unlabeled points).

    ``states`` is the trace already run (``list(estimator.trace(X, y))``), else it is run
    here; either way the estimator is fitted afterwards. ``y_true`` (the true classes, -1
    where unknown) adds the unlabeled error frame by frame; with ``baseline`` the supervised
    SVM's boundary is drawn dashed and its error is the reference. ``title`` names the film
    (by default the estimator and the data's size).
    """
    X = np.asarray(X, dtype=float)
    if states is None:
        states = list(estimator.trace(X, y))
    classes = estimator.classes_
    labels = _codes(y, classes)
    truth = None if y_true is None else np.where(np.asarray(y_true) == UNLABELED, UNLABELED,
                                                 _codes(y_true, classes))
    data = Data(X, labels if truth is None else truth, View.of(X))
    grid = data.grid_features(estimator)
    frames = pick_frames(states)
    shown = [states[i] for i in frames]
    reference = _baseline(estimator, data, y) if baseline else None
    finished = RunFinished(
        frames=frames, grid_x=grid[0], grid_y=grid[1], grid_decisions=grid_decisions(grid, shown),
        point_decisions=np.stack([s.train_decision for s in shown]).astype(np.float32),
        seconds=math.nan, baseline=reference)
    run = Run.assemble(states, finished)
    solver = _solver_of(estimator)
    name = title or (solver.title if solver else type(estimator).__name__)
    n_labeled = int(np.sum(labels != UNLABELED))
    context = {"solver": name, "paper": solver.paper if solver else "",
               "data": f"n = {len(X)}, {n_labeled} labeled, {X.shape[1]} features",
               "name": "-".join("".join(c if c.isalnum() else " " for c in name.lower())
                                .split()) or "s3vm-film"}
    args = film_args(run, data.X2, labels, truth, show_baseline=baseline,
                     axis_titles=data.view.titles, context=context)
    return Film(film_page({**args, "film": "notebook"}), name)


def _solver_of(estimator):
    """The app's entry of ``estimator``'s solver (its title and paper), if it has one."""
    inner = estimator.estimator if isinstance(estimator, OneVsRestS3VM) else estimator
    return next((s for s in SOLVERS.values() if s.estimator is type(inner)), None)


def _baseline(estimator, data: Data, y) -> Baseline:
    """The supervised SVM that is fair beside ``estimator``, as on the Watch page
    (``engine.run.process.supervised_baseline``)."""
    return supervised_baseline(data, y, estimator)
