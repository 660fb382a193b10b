"""The unlabeled error every paper reports: on the unlabeled points of known class only, and
unknown -- never 0 -- when there is none."""

import math

import numpy as np

from s3vm_core.metrics import predicted_classes, unlabeled_error


def test_the_error_counts_the_unlabeled_points_of_known_class_only():
    decision = np.array([2.0, -1.0, 0.5, -0.5, 3.0])
    y = np.array([1, -1, -1, -1, -1])          # the first point is labeled
    y_true = np.array([0, 0, 0, -1, 1])         # the fourth one's class is unknown
    # scored: points 1 (right), 2 (wrong), 4 (right); the labeled one's mistake is not counted
    assert unlabeled_error(decision, y, y_true) == 1 / 3


def test_nothing_to_score_is_unknown_not_zero():
    assert math.isnan(unlabeled_error([1.0, -1.0], [1, -1], [1, -1]))
    assert math.isnan(unlabeled_error([1.0, -1.0], [1, 0], [1, 0]))  # every point labeled


def test_one_vs_rest_decisions_pick_their_largest_output():
    decision = np.array([[0.1, 0.9, -1.0], [2.0, 0.0, 0.1], [-1.0, -1.0, 0.0]])
    np.testing.assert_array_equal(predicted_classes(decision), [1, 0, 2])
    assert unlabeled_error(decision, [-1, -1, -1], [1, 2, 2]) == 1 / 3
