"""LabelSwitchingTSVM's options for Sindhwani & Keerthi's multi-switch TSVM as their svmlin runs
it (issue 40): a given positive fraction ``r`` of the unlabeled points, at most ``max_switches``
pairs swapped a retraining, C* from 1e-5 of the labeled points' weight by 1.5 a round
(``schedule="svmlin"``), and the bias as a regularized constant feature
(``intercept="regularized"``). Their defaults keep Joachims' TSVM (tests/s3vm_core/test_tsvm.py);
tests/s3vm_cli/test_svmlin_peer.py holds the whole against svmlin itself."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from s3vm_core import LabelSwitchingTSVM
from toy_data import pick_labeled, two_moons

X, Y = two_moons(300, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 5, random_state=0)
UNLABELED = LABELS == -1
N_LABELED, N_UNLABELED = int((~UNLABELED).sum()), int(UNLABELED.sum())  # 10 and 290
#: svmlin -A 2 -W 0.001 -U 1 on these points (s3vm_cli.svmlin's mapping)
SVMLIN_COSTS = {"C": 1 / (2 * N_LABELED * 1e-3), "C_star": 1 / (2 * N_UNLABELED * 1e-3)}


def svmlin_tsvm(**params):
    settings = {"kernel": "linear", "loss": "squared_hinge", "switching": "multi",
                "schedule": "svmlin", "intercept": "regularized", **SVMLIN_COSTS}
    return LabelSwitchingTSVM(**settings | params)


def swaps_per_retraining(states):
    return np.diff([s.extras["n_swaps"] for s in states])


@pytest.mark.parametrize("r, positives", [(0.5, 145), (0.3, 87), (0.9, 262)])
def test_r_fixes_the_unlabeled_points_positive_count_through_every_swap(r, positives):
    # svmlin's count, u - floor((1 - r) u) of u = 290 ((1 - 0.9) 290 is 28.999999999999993 in
    # float64, so 262 for r = 0.9, as svmlin counts); the 5 + 5 labels would give 145
    states = list(svmlin_tsvm(r=r).trace(X, LABELS))
    counts = {int(np.sum(s.extras["labels"][UNLABELED] > 0)) for s in states[2:]}
    assert counts == {positives}
    assert sum(swaps_per_retraining(states)) >= 1  # the count held while labels moved


def test_max_switches_caps_the_pairs_swapped_per_retraining():
    uncapped = svmlin_tsvm(r=0.5)
    assert swaps_per_retraining(list(uncapped.trace(X, LABELS))).max() == 2
    capped = svmlin_tsvm(r=0.5, max_switches=1)
    states = list(capped.trace(X, LABELS))
    assert swaps_per_retraining(states).max() == 1 and capped.n_swaps_ >= 2
    frozen = svmlin_tsvm(r=0.5, max_switches=0).fit(X, LABELS)
    assert frozen.n_swaps_ == 0


def test_svmlin_schedule_raises_one_c_star_by_1_5_from_1e_5_of_the_labeled_weight():
    est = svmlin_tsvm(r=0.5)
    rounds = [s for s in est.trace(X, LABELS) if s.event == "stage_end"]
    plus = np.array([s.extras["C_star_plus"] for s in rounds])
    minus = np.array([s.extras["C_star_minus"] for s in rounds])
    np.testing.assert_array_equal(plus, minus)  # svmlin weighs both putative classes alike
    # the unlabeled points together weigh 1e-5 of the labeled ones: svmlin's lambda' = 1e-5
    assert plus[0] * N_UNLABELED == pytest.approx(1e-5 * est.C_ * N_LABELED, rel=1e-12)
    np.testing.assert_allclose(plus[1:-1] / plus[:-2], 1.5, rtol=1e-12)
    assert plus[-1] == est.C_star_ and plus[-1] / plus[-2] <= 1.5
    assert len(plus) == int(np.ceil(np.log(1e5) / np.log(1.5))) + 1  # lambda_u = 1: 30 rounds


def test_a_regularized_intercept_minimizes_the_objective_with_the_bias_in_the_norm():
    est = svmlin_tsvm(r=0.5)
    labels = list(est.trace(X, LABELS))[-1].extras["labels"]  # the final putative labels
    costs = np.where(UNLABELED, est.C_star_, est.C_)
    Z = np.column_stack([X, np.ones(len(X))])

    def objective(v):  # 1/2 ||[w, b]||^2 + sum_e C_e max(0, 1 - y_e f_e)^2, apart from ours
        slack = np.maximum(0.0, 1.0 - labels * (Z @ v))
        return 0.5 * v @ v + costs @ slack**2, v - 2 * Z.T @ (costs * labels * slack)

    best = minimize(objective, np.zeros(3), jac=True, method="BFGS", options={"gtol": 1e-9}).x
    np.testing.assert_allclose(np.r_[est.coef_, est.intercept_], best, rtol=1e-6, atol=1e-8)
    assert est.objective_ == pytest.approx(objective(best)[0], rel=1e-9)
    np.testing.assert_allclose(est.decision_function(X), Z @ best, rtol=1e-6, atol=1e-6)


def test_a_regularized_intercept_on_sparse_input_is_the_dense_fit():
    dense = svmlin_tsvm(r=0.5).fit(X, LABELS)
    sparse = svmlin_tsvm(r=0.5).fit(sp.csr_matrix(X), LABELS)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-10)
    assert sparse.intercept_ == pytest.approx(dense.intercept_, rel=1e-7, abs=1e-10)


@pytest.mark.parametrize("params, words", [
    ({"intercept": "regularized", "kernel": "linear"}, "intercept='regularized'"),
    ({"r": 1.0}, "'r'"),
    ({"max_switches": -1}, "'max_switches'"),
    ({"schedule": "doubling"}, "'schedule'"),
])
def test_bad_svmlin_options_are_refused_clearly(params, words):
    with pytest.raises(ValueError, match=words):
        LabelSwitchingTSVM(**params).fit(X, LABELS)
