"""The schedule of L-BFGS paths shared by cS3VM, QN-S3VM and ∇TSVM (``solvers/lbfgs.py``)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from s3vm_core.solvers.lbfgs import PathPoint, lbfgs_schedule

#: Stage v minimizes ||x - v c||^2 / 2 + sum(x^4) / 4: a unique minimizer that moves with v.
CENTRE = np.array([1.0, -2.0, 0.5])


def _objective(v):
    def evaluate(x):
        r = x - v * CENTRE
        return 0.5 * r @ r + 0.25 * np.sum(x**4), r + x**3
    return evaluate


def _run(values, **options):
    """The points (``record`` keeps them as they are) and the returned last stage end."""
    schedule = lbfgs_schedule(values, _objective, np.zeros(3), lambda point: point,
                              solver="Test", parameter="v", tol=1e-10, **options)
    points = []
    while True:
        try:
            points.append(next(schedule))
        except StopIteration as stop:
            return points, stop.value


def test_each_stage_starts_where_the_last_one_ended_and_ends_at_its_minimizer():
    values = [0.5, 1.0, 2.0]
    points, end = _run(values, max_iter=200)
    assert points[0].event == "init" and points[0].stage_value == 0.5
    assert np.array_equal(points[0].x, np.zeros(3))
    ends = [p for p in points if p.event == "stage_end"]
    assert [p.stage_value for p in ends] == values
    assert end is ends[-1]
    for p in ends:
        # the gradient of the stage's objective vanishes at its minimizer (to scipy's default
        # ftol, which stops these runs first)
        assert np.max(np.abs(p.evaluation[1])) < 1e-5
        assert p.iteration == sum(q.event == "iter" and q.stage_index == p.stage_index
                                  for q in points)
    # warm start: a later stage needs fewer iterations than a cold start of the same objective
    cold, _ = _run([2.0], max_iter=200)
    assert ends[-1].iteration < cold[-1].iteration
    # every recorded evaluation is the objective at its point
    for p in points:
        value, grad = _objective(p.stage_value)(p.x)
        assert p.evaluation[0] == pytest.approx(value) and np.allclose(p.evaluation[1], grad)


def test_an_iteration_limit_gives_one_warning_naming_the_stages_it_stopped():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, end = _run([0.5, 3.0], max_iter=1)
    messages = [str(w.message) for w in caught if w.category is ConvergenceWarning]
    assert len(messages) == 1
    assert "Test stopped L-BFGS at max_iter=1" in messages[0]
    assert "2 of its 2 stages (v = 0.5, 3)" in messages[0]
    assert isinstance(end, PathPoint) and end.stage_index == 1
