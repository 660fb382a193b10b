"""PCG early stopping criteria (LapSVM paper §4, Algorithms 2 and 3)."""

import math

import numpy as np
import pytest

from s3vm_core.stopping import (
    CRITERIA,
    Progress,
    default_check_every,
    make_all_criteria,
    make_criterion,
)


def progress(t, decisions=(1.0, -1.0), validation_error=math.nan, **norms):
    values = dict(objective=1.0, grad_norm=1.0, grad_norm_preconditioned=1.0, mixed_product=1.0)
    values.update(norms)
    return Progress(iteration=t, unlabeled_decision=np.asarray(decisions, float),
                    validation_error=validation_error, **values)


def test_theta_is_half_the_square_root_of_n():
    assert default_check_every(200) == 7  # sqrt(200)/2 = 7.07
    assert default_check_every(2000) == 22
    assert default_check_every(1) == 1


def test_stability_check_needs_two_checks_and_stable_decisions():
    check = make_criterion("stability", n=16)  # theta = 2
    u = np.ones(200)
    check.start(progress(0, u * 0))
    assert check.check(progress(1, u)) == (1.0, False)        # not a check iteration
    assert check.check(progress(2, u)) == (1.0, False)        # first check: d_old = 0, tau = 1
    flipped = u.copy()
    flipped[:2] = -1                                         # 1 % of decisions flip
    tau, stop = check.check(progress(4, flipped))
    assert tau == pytest.approx(2 * 2 / 200) and not stop    # each flip counts |1 - (-1)| = 2
    tau, stop = check.check(progress(6, flipped))
    assert tau == 0 and stop


def test_validation_check_requires_one_more_correct_example_per_check():
    check = make_criterion("validation", n=4, n_validation=10)  # theta = 1, eta = 1/10
    check.start(progress(0))
    assert check.check(progress(1, validation_error=0.5)) == (0.5, False)
    assert check.check(progress(2, validation_error=0.4)) == (0.4, False)
    assert check.check(progress(3, validation_error=0.35)) == (0.35, True)  # < one example


def test_mixed_check_stops_only_when_both_agree():
    check = make_criterion("mixed", n=4, n_validation=10)
    u = np.ones(50)
    check.start(progress(0, u * 0))
    assert not check.check(progress(1, u, validation_error=0.5))[1]
    assert not check.check(progress(2, u, validation_error=0.2))[1]  # stable, still improving
    assert check.check(progress(3, u, validation_error=0.2))[1]      # stable and no progress


@pytest.mark.parametrize("name", ["grad_norm", "grad_norm_preconditioned", "mixed_product"])
def test_classical_norms_are_normalized_by_their_value_at_t0(name):
    check = make_criterion(name, n=100, tol=1e-3)
    check.start(progress(0, **{name: 50.0}))
    value, stop = check.check(progress(1, **{name: 0.5}))
    assert value == pytest.approx(1e-2) and not stop
    value, stop = check.check(progress(2, **{name: 0.01}))
    assert value == pytest.approx(2e-4) and stop


def test_relative_objective_decrease():
    check = make_criterion("objective", n=100, tol=1e-3)
    check.start(progress(0, objective=2.0))
    assert check.check(progress(1, objective=1.0)) == (0.5, False)
    value, stop = check.check(progress(2, objective=0.9995))
    assert value == pytest.approx(5e-4) and stop


def test_every_criterion_can_be_built_and_validation_ones_need_a_set():
    assert set(make_all_criteria(n=50, n_validation=5)) == set(CRITERIA)
    assert "validation" not in make_all_criteria(n=50)
    with pytest.raises(ValueError, match="needs a labeled validation set"):
        make_criterion("validation", n=50)
    with pytest.raises(ValueError, match="Unknown stopping criterion 'often'"):
        make_criterion("often", n=50)
