"""The common objective (docs/architecture.md): every kernel solver scored on eq. (2) of the
continuation paper with the hinge and its balance (3), each solver's norm in its own RKHS."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from s3vm_core import (
    LDS,
    QNS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    GraphKernelSVM,
    LabelSwitchingTSVM,
    LapSVM,
    OneVsRestS3VM,
    SVMBaseline,
    common_objective,
    matched_solvers,
)
from s3vm_core.losses import hinge, symmetric_exp
from s3vm_core.objective import solver_costs
from toy_data import pick_labeled, two_moons


def _moons(n, per_class=1, seed=0):
    X, y = two_moons(n, noise=0.1, random_state=seed)
    return X, y, pick_labeled(y, per_class, random_state=seed)


def _signed(labels):
    return np.where(labels == -1, 0, np.where(labels == 1, 1, -1))


@pytest.fixture(scope="module")
def moons():
    X, y, labels = _moons(40, per_class=2, seed=0)
    return X, labels


def test_the_norm_of_a_kernel_expansion_over_the_labeled_points(moons):
    # SVMBaseline's own objective is 1/2 ||w||^2 + C sum_L hinge: the yardstick's first terms
    X, labels = moons
    svm = SVMBaseline(C=3.0, sigma=0.5).fit(X, labels)
    score = common_objective(svm, X, labels)
    assert 0.5 * score.norm_squared + 3.0 * score.labeled_loss == pytest.approx(svm.objective_)
    assert abs(score.balance_residual) > 1e-3  # the baseline does not hold (3) ...
    centred = svm.decision_function(X) - score.balance_residual
    assert np.mean(centred[labels == -1]) == pytest.approx(  # ... its balanced value does
        np.mean(_signed(labels)[labels != -1]))


def test_the_norm_in_the_kernel_pca_coordinates(moons):
    # cS3VM's objective_ is eq. (2) with exp(-3 t^2) for the unlabeled loss
    X, labels = moons
    model = ContinuationS3VM(C=10.0, sigma=0.5).fit(X, labels)
    score = common_objective(model, X, labels)
    f = model.decision_function(X)
    rest = (10.0 * hinge(_signed(labels)[labels != -1] * f[labels != -1]).sum()
            + 10.0 * symmetric_exp(f[labels == -1]).sum())
    assert 0.5 * score.norm_squared == pytest.approx(model.objective_ - rest, rel=1e-6)
    assert abs(score.balance_residual) < 1e-10 and score.balanced_value == score.value


def test_da_with_the_hinge_is_scored_on_its_own_effective_cost(moons):
    # the DA paper's Eqn. 1 (effective loss) times 1 / lam is eq. (2) with C = 1 / (l lam),
    # C* = lam_u / (u lam): the number DA monitors
    X, labels = moons
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = DeterministicAnnealingS3VM(lam=0.01, sigma=0.5, R=3.0)
        final = list(model.trace(X, labels))[-1]
    score = common_objective(model, X, labels)
    assert (score.C, score.C_star) == pytest.approx((1 / (4 * 0.01), 1 / (36 * 0.01)))
    assert score.value * 0.01 == pytest.approx(final.extras["effective_cost"], rel=1e-9)


def test_qn_s3vm_norm_over_its_landmarks(moons):
    # F = labeled mean + lam_u unlabeled mean + lam ||f||^2 (eq. (5)): ||f||^2 from the rest
    X, labels = moons
    for kwargs in ({}, {"n_landmarks": 15, "random_state": 0}, {"kernel": "linear"}):
        model = QNS3VM(lam=0.1, **kwargs)
        final = list(model.trace(X, labels))[-1]
        norm = (final.objective - final.extras["labeled_loss"]
                - final.extras["unlabeled_loss"]) / 0.1
        assert common_objective(model, X, labels).norm_squared == pytest.approx(norm,
                                                                                rel=1e-9)


def test_label_switching_scores_at_most_its_own_objective(moons):
    # its objective uses the putative labels; the yardstick gives each point its better one
    X, labels = moons
    model = LabelSwitchingTSVM(C=5.0, sigma=0.5).fit(X, labels)
    score = common_objective(model, X, labels)
    assert score.value <= model.objective_ * (1 + 1e-9)


def test_matched_costs_translate_back():
    solvers = matched_solvers(7.0, 3.0, 4, 36, sigma=0.5)
    X, _, labels = _moons(40, per_class=2)
    for name in ("qn-s3vm", "da"):
        estimator = solvers[name]
        assert solver_costs(estimator, 4, 36) == pytest.approx((7.0, 3.0)), name
    assert solvers["cs3vm"].get_params()["C_star"] == 3.0


@pytest.mark.parametrize(("estimator", "words"), [
    (LDS(), "LDS's model is linear in its MDS embedding"),
    (GraphKernelSVM(), "graph path distances"),
    (LapSVM(), "intrinsic norm"),
    (OneVsRestS3VM(SVMBaseline()), "score each of its binary estimators"),
])
def test_solvers_whose_model_lives_elsewhere_are_refused_with_the_reason(moons, estimator,
                                                                          words):
    X, labels = moons
    with pytest.raises(TypeError, match=words):
        common_objective(estimator, X, labels)


def test_scoring_needs_a_fit_on_the_same_data(moons):
    X, labels = moons
    with pytest.raises(ValueError, match="not fitted yet"):
        common_objective(SVMBaseline(), X, labels)
    model = SVMBaseline().fit(X, labels)
    with pytest.raises(ValueError, match="fitted on 40"):
        common_objective(model, X[:30], labels[:30])
