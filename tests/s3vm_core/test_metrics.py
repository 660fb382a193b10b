"""The unlabeled error every paper reports: on the unlabeled points of known class only, and
unknown -- never 0 -- when there is none; and errors over draws against the SVM's, with their
interval and paired test."""

import math

import numpy as np
import pytest

from s3vm_core.metrics import (
    mean_interval,
    paired_comparison,
    predicted_classes,
    unlabeled_error,
)


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


def test_a_method_below_the_svm_on_every_one_of_six_draws_is_better_at_p_one_in_32():
    # the exact two-sided signed-rank test: 2 of the 2^6 sign patterns are this extreme
    compared = paired_comparison([0.1, 0.0, 0.05, 0.02, 0.0, 0.01],
                                 [0.3, 0.2, 0.25, 0.2, 0.1, 0.2])
    assert compared.p_value == pytest.approx(2 / 2**6)
    assert (compared.below, compared.equal, compared.above) == (6, 0, 0)
    assert compared.verdict == "better"
    assert compared.sentence() == "below the supervised SVM in 6 of 6 draws, p = 0.031: better"


def test_equal_errors_are_no_difference_and_a_few_draws_claim_nothing():
    same = paired_comparison([0.2, 0.1, 0.3], [0.2, 0.1, 0.3])
    assert same.p_value == 1.0 and same.verdict == "no significant difference"
    few = paired_comparison([0.4, 0.5], [0.1, 0.2])  # worse twice: too few draws to say so
    assert few.above == 2 and few.p_value >= 0.05 and few.verdict == "no significant difference"


def test_worse_on_most_draws_is_worse_and_unknown_draws_are_left_out():
    rng = np.random.default_rng(0)
    svm = rng.uniform(0.05, 0.2, 30)
    compared = paired_comparison(np.r_[svm + 0.05, math.nan], np.r_[svm, 0.1])
    assert compared.n == 30 and compared.above == 30 and compared.verdict == "worse"
    assert compared.low < compared.mean < compared.high
    assert compared.mean - compared.baseline_mean == pytest.approx(0.05)


def test_the_interval_of_one_draw_is_unknown_not_zero_width():
    mean, low, high = mean_interval([0.25])
    assert mean == 0.25 and math.isnan(low) and math.isnan(high)
    assert paired_comparison([], []).sentence() == "no draw could be scored"
