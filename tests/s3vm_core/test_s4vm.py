"""S4VM, the safe semi-supervised SVM (Li & Zhou, ICML 2011; TPAMI 2015; issue 41, item 2)."""

import itertools
import warnings

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from s3vm_core import ESTIMATORS, S4VM, SVMBaseline
from s3vm_core.estimator_checks import expected_failed_checks
from s3vm_core.solvers.s4vm import (
    balance_bounds,
    group_labelings,
    local_search,
    safe_labeling,
    worst_case_gains,
)
from s3vm_core.trace import decision_on_grid
from toy_data import pick_labeled, two_moons


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # The machine is shared: threaded BLAS on small matrices is many times slower under load.
    with threadpool_limits(1):
        yield


def _moons(n=100, per_class=2, draw=0):
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, per_class, random_state=draw)


def _error(labels, y, semi) -> float:
    unlabeled = semi == -1
    return float(np.mean(labels[unlabeled] != y[unlabeled]))


def _assert_safe_choice_consistent(model):
    """worst_case_gain_'s sign and safe_choice_ say the same thing, and transduction_ is it."""
    gain, choice = model.worst_case_gain_, model.safe_choice_
    same_as_svm = np.array_equal(model.transduction_, model.svm_transduction_)
    if gain < 0:
        assert choice == "SVM"
    if gain > 0:
        assert choice != "SVM" and not same_as_svm
    assert (choice == "SVM") == same_as_svm
    assert np.isclose(model.kept_gains_.min(), 0.0 if choice == "SVM" else gain)


@parametrize_with_checks([S4VM()], expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_it_is_in_the_estimator_table():
    assert ESTIMATORS["s4vm"] is S4VM


# -- the trace contract -----------------------------------------------------------------------

def test_features_reproduce_every_state_and_the_stages_are_the_papers_steps():
    X, _, semi = _moons(n=60)
    model = S4VM(sample_time=20, random_state=0)
    states = list(model.trace(X, semi))
    F = model.features(X)
    np.testing.assert_allclose(decision_on_grid(F, states),
                               np.stack([s.train_decision for s in states]), atol=1e-8)
    assert [s.step for s in states] == list(range(len(states)))
    stages = [s.stage for s in states]
    n_candidates = len(model.candidate_labelings_)
    n_kept = len(model.kept_candidates_)
    assert stages == ["fit", "fit"] + ["candidate"] * n_candidates + ["group"] * n_kept + ["safe"]
    assert n_candidates == 21  # 20 samplings and the search from the SVM's labels
    assert [s.event for s in states[:2]] == ["init", "stage_end"]
    assert states[-1].event == "final"
    candidates = [s for s in states if s.stage == "candidate"]
    assert [s.stage_value for s in candidates] == list(range(n_candidates))
    assert [s.objective for s in candidates] == pytest.approx(model.candidate_objectives_)
    groups = [s for s in states if s.stage == "group"]
    assert [int(s.stage_value) for s in groups] == model.kept_candidates_.tolist()
    # the fitted model is the final state, on new points too
    grid = np.column_stack([np.linspace(-1.5, 2.5, 25), np.linspace(-1, 1.5, 25)])
    np.testing.assert_allclose(decision_on_grid(model.features(grid), states[-1:])[0],
                               model.decision_function(grid), atol=1e-10)
    # every state's arrays are read-only copies
    assert not states[-1].coef.flags.writeable and not states[-1].train_decision.flags.writeable
    assert np.array_equal(states[-1].extras["labels"] > 0, model.transduction_ == 1)


def test_the_first_candidate_arrives_before_the_others_are_searched():
    """The trace streams: the SVM, then each search's state as it ends (the app plays them)."""
    X, _, semi = _moons(n=60)
    trace = S4VM(sample_time=200, random_state=0).trace(X, semi)
    first_three = [next(trace) for _ in range(3)]
    assert [s.stage for s in first_three] == ["fit", "fit", "candidate"]
    trace.close()


# -- the four steps ---------------------------------------------------------------------------

def test_the_balance_constraint_holds_after_every_label_step_of_a_search():
    X, _, semi = _moons(n=80, per_class=3)
    y = np.where(semi == -1, 0.0, 2.0 * semi - 1.0)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * 0.3**2))
    u = int(np.sum(y == 0))
    low, high = balance_bounds(np.mean(y[y != 0] > 0), u, 0.1)
    assert (low, high) == (34, 40)  # 45 % to 55 % of the 74 unlabeled points positive
    svm_labels = np.ones(u)
    for seed, kind in itertools.product(range(4), ["uniform", "flipped"]):
        search = local_search(K, y, kind, svm_labels, seed, C1=100.0, C2=0.1,
                              bounds=(low, high), max_iter=200)
        assert search.converged
        assert np.all((search.positives >= low) & (search.positives <= high)), search.positives
        assert np.count_nonzero(search.labels[y == 0] > 0) == search.positives[-1]
        np.testing.assert_array_equal(search.labels[y != 0], y[y != 0])  # labels stay


def test_the_balance_holds_in_every_candidate_of_a_fit_with_unbalanced_labels():
    X, y, _ = _moons(n=100)
    semi = np.full(y.size, -1)
    semi[np.flatnonzero(y == 0)[:2]] = 0
    semi[np.flatnonzero(y == 1)[:4]] = 1  # mean label 1/3: 61.7 % to 71.7 % of 94 positive
    model = S4VM(sample_time=20, random_state=0).fit(X, semi)
    low, high = balance_bounds(np.mean(semi[semi != -1] == 1), 94, 0.1)
    assert (low, high) == (58, 67)
    positives = np.count_nonzero(model.candidate_labelings_[:, semi == -1] > 0, axis=1)
    assert np.all((positives >= low) & (positives <= high))


def _unbalanced_moons():
    """150 points, 100 of them positive, labeled 3 of each class (the labels' share 1/2)."""
    X, y = two_moons(n_samples=200, noise=0.1, random_state=0)
    keep = np.r_[np.flatnonzero(y == 0)[:50], np.flatnonzero(y == 1)]
    X, y = X[keep], y[keep]
    return X, y, pick_labeled(y, 3, random_state=0)


@pytest.mark.parametrize("r", ["svm", 0.62, "both"])
def test_r_centres_the_balance_of_the_candidates_instead_of_the_labels(r):
    X, y, semi = _unbalanced_moons()
    unlabeled = semi == -1
    model = S4VM(r=r, sample_time=20, random_state=0).fit(X, semi)
    svm_share = np.mean(model.svm_transduction_[unlabeled] == 1)
    centres = {"svm": [svm_share], "both": [0.5, svm_share]}.get(r, [r])
    positives = np.count_nonzero(model.candidate_labelings_[:, unlabeled] > 0, axis=1)
    # the searches take the centres in turn (the search from the SVM's labels first)
    for index, count in enumerate(positives):
        low, high = balance_bounds(centres[index % len(centres)], int(unlabeled.sum()), 0.1)
        assert low <= count <= high, (index, count, low, high)
    # the labels' share, one half, asks for 65 to 79 positives of the 144 (the truth: 97)
    assert balance_bounds(0.5, 144, 0.1) == (65, 79)
    assert r != "both" or np.any(positives > 79)


def test_the_balance_warning_of_labels_drawn_per_class_names_r():
    model = S4VM(sample_time=5, random_state=0)
    assert "r='both'" in model._balance_from_labels()
    assert S4VM(r="both")._balance_from_labels() is None


def test_k_medoids_keeps_apart_what_differs_and_together_what_does_not():
    rng = np.random.default_rng(0)
    centres = np.where(rng.random((3, 40)) < 0.5, -1, 1)
    # 30 labelings, each one of three with up to two labels flipped
    rows = []
    for k in range(30):
        row = centres[k % 3].copy()
        row[rng.choice(40, 2, replace=False)] *= -1
        rows.append(row)
    groups = group_labelings(np.array(rows), 3, np.random.default_rng(1))
    assert sorted(np.bincount(groups)) == [10, 10, 10]
    assert all(len(set(groups[k::3])) == 1 for k in range(3))
    # identical labelings are one group whatever the number asked for
    assert set(group_labelings(np.ones((5, 8)), 4, np.random.default_rng(0))) == {0}


def test_the_safe_choice_is_the_best_labeling_of_all_by_brute_force():
    """On small cases the linear programme's rounded answer (or a kept candidate) reaches the
    largest worst-case gain over all 2^u labelings, and its optimum bounds every one."""
    rng = np.random.default_rng(0)
    everything = np.array(list(itertools.product([-1.0, 1.0], repeat=9)))
    for _ in range(25):
        s = np.where(rng.random(9) < 0.5, -1.0, 1.0)
        kept = np.array([np.where(rng.random(9) < rng.uniform(0.05, 0.5), -s, s)
                         for _ in range(rng.integers(1, 6))])
        best = max(worst_case_gains(labels, kept, s, 3.0).min() for labels in everything)
        choice = safe_labeling(kept, s, 3.0)
        assert choice.lp_bound >= best - 1e-12
        found = worst_case_gains(choice.labels, kept, s, 3.0).min()
        assert found == pytest.approx(best)
        assert choice.worst_case_gain == pytest.approx(best)


def test_the_gain_counts_points_gained_less_lambda_times_points_lost():
    s = np.array([1, 1, -1, -1, 1.0])
    truth = np.array([1, -1, 1, -1, 1.0])    # the SVM is wrong on points 1 and 2
    labels = np.array([1, -1, -1, 1, -1.0])  # gains point 1, loses points 3 and 4
    assert worst_case_gains(labels, truth, s, 3.0)[0] == pytest.approx((1 - 3 * 2) / 5)


def test_candidates_that_contradict_each_other_leave_the_svms_labels():
    """Two candidates that each flip a different half of the SVM's labels: any change gains
    against one what it loses three times against the other, so nothing but the SVM's
    labels gains in the worst case."""
    s = np.where(np.arange(12) % 3 == 0, -1.0, 1.0)
    first, second = s.copy(), s.copy()
    first[:6] *= -1
    second[6:] *= -1
    choice = safe_labeling(np.array([first, second]), s, 3.0)
    assert choice.choice == "SVM"
    np.testing.assert_array_equal(choice.labels, s)
    assert choice.worst_case_gain <= 0.0 and choice.lp_bound == pytest.approx(0.0)


def test_candidates_that_agree_are_followed():
    s = np.ones(10)
    candidate = s.copy()
    candidate[:4] = -1
    choice = safe_labeling(np.array([candidate, candidate]), s, 3.0)
    assert choice.choice in ("LP", 0)
    np.testing.assert_array_equal(choice.labels, candidate)
    assert choice.worst_case_gain == pytest.approx(0.4)


# -- what a user sees -------------------------------------------------------------------------

@pytest.mark.parametrize("draw", range(3))
def test_on_two_moons_it_is_never_worse_than_the_svm_with_its_kernel_and_C1(draw):
    X, y, semi = _moons(n=100, per_class=2, draw=draw)
    model = S4VM(sigma=0.3, sample_time=40, random_state=0).fit(X, semi)
    svm = SVMBaseline(C=model.C1, sigma=0.3).fit(X, semi)
    np.testing.assert_array_equal(model.svm_transduction_[semi == -1],
                                  svm.transduction_[semi == -1])
    assert _error(model.transduction_, y, semi) <= _error(svm.transduction_, y, semi)
    _assert_safe_choice_consistent(model)


@pytest.mark.slow
def test_on_two_moons_at_the_defaults_over_ten_draws_it_is_never_worse_than_the_svm():
    """The paper's claim on a data set of the cluster assumption, with the moons' width and
    everything else at the paper's defaults (bench_s4vm --widths has the default width)."""
    wins = 0
    for draw in range(10):
        X, y, semi = _moons(n=200, per_class=2, draw=draw)
        model = S4VM(sigma=0.3, random_state=0).fit(X, semi)
        svm = SVMBaseline(C=model.C1, sigma=0.3).fit(X, semi)
        ours, theirs = _error(model.transduction_, y, semi), _error(svm.transduction_, y, semi)
        assert ours <= theirs, draw
        wins += ours < theirs
        _assert_safe_choice_consistent(model)
    assert wins >= 2


def test_where_the_cluster_assumption_fails_it_stays_close_to_the_svm():
    """Two heavily overlapping Gaussians (means 0.6 apart, unit variance): no low-density
    separator exists; over six draws S4VM errs no more than the SVM on average, and on no
    draw by more than 5 points."""
    rng = np.random.default_rng(0)
    differences = []
    for draw in range(6):
        y = np.repeat([0, 1], 50)
        X = rng.normal(size=(100, 2))
        X[:, 0] += np.where(y == 1, 0.3, -0.3)
        semi = pick_labeled(y, 3, random_state=draw)
        model = S4VM(sample_time=20, random_state=0).fit(X, semi)
        svm = SVMBaseline(C=model.C1, sigma=model.sigma_).fit(X, semi)
        differences.append(_error(model.transduction_, y, semi)
                           - _error(svm.transduction_, y, semi))
        _assert_safe_choice_consistent(model)
    assert np.mean(differences) <= 0.0 and max(differences) <= 0.05, differences


def test_with_many_different_local_minima_it_returns_the_svms_labels():
    """One label a class on two moons at the moons' width: the searches end in many different
    separators, none of which the others agree with, and S4VM keeps the SVM's labels."""
    X, _, semi = _moons(n=100, per_class=1, draw=0)
    model = S4VM(sigma=0.3, sample_time=40, random_state=0).fit(X, semi)
    assert len(model.kept_candidates_) >= 2
    assert model.safe_choice_ == "SVM"
    np.testing.assert_array_equal(model.transduction_, model.svm_transduction_)
    # the returned model is the SVM on the labels itself
    svm = SVMBaseline(C=model.C1, sigma=0.3).fit(X, semi)
    np.testing.assert_allclose(model.decision_function(X), svm.decision_function(X), atol=1e-8)


def test_kept_candidates_are_the_lowest_objective_of_their_group():
    X, _, semi = _moons(n=80)
    model = S4VM(sample_time=30, random_state=0).fit(X, semi)
    groups, objectives = model.candidate_groups_, model.candidate_objectives_
    assert len(model.kept_candidates_) == groups.max() + 1
    for g, kept in enumerate(model.kept_candidates_):
        assert groups[kept] == g and objectives[kept] == objectives[groups == g].min()


def test_n_jobs_and_a_joblib_backend_give_the_same_fit_as_one_process():
    X, _, semi = _moons(n=60)
    one = S4VM(sample_time=20, random_state=3).fit(X, semi)
    with joblib.parallel_backend("threading", n_jobs=2):  # what a Dask backend goes through
        two = S4VM(sample_time=20, random_state=3).fit(X, semi)
    np.testing.assert_array_equal(one.candidate_labelings_, two.candidate_labelings_)
    np.testing.assert_array_equal(one.transduction_, two.transduction_)
    np.testing.assert_allclose(one.coef_, two.coef_)
    assert one.safe_choice_ == two.safe_choice_


@pytest.mark.slow
def test_n_jobs_two_processes_give_the_same_fit_as_one():
    X, _, semi = _moons(n=100)
    one = S4VM(random_state=0).fit(X, semi)
    two = S4VM(random_state=0, n_jobs=2).fit(X, semi)
    np.testing.assert_array_equal(one.candidate_labelings_, two.candidate_labelings_)
    np.testing.assert_array_equal(one.transduction_, two.transduction_)
    np.testing.assert_allclose(one.decision_function(X), two.decision_function(X))


def test_without_unlabeled_points_it_is_the_svm():
    X, y, _ = _moons(n=40)
    model = S4VM().fit(X, y)
    assert model.safe_choice_ == "SVM" and np.isnan(model.worst_case_gain_)
    assert model.candidate_labelings_.shape == (0, 40)
    svm = SVMBaseline(C=100.0, sigma=model.sigma_).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), svm.decision_function(X), atol=1e-8)


def test_the_default_width_is_the_mean_distance_between_points():
    X, _, semi = _moons(n=50)
    model = S4VM(sample_time=5).fit(X, semi)
    distances = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))[np.triu_indices(50, 1)]
    assert model.sigma_ == pytest.approx(distances.mean())


def test_the_linear_kernel_far_from_the_origin_fits_as_near_it():
    X, _, semi = _moons(n=60)
    near = S4VM(kernel="linear", sample_time=10, random_state=0).fit(X, semi)
    far = S4VM(kernel="linear", sample_time=10, random_state=0).fit(X + 1e8, semi)
    np.testing.assert_array_equal(near.transduction_, far.transduction_)
    assert far.candidate_n_iter_.max() < 200


def test_bad_input_is_refused_with_a_sentence():
    X, _, semi = _moons(n=40)
    with pytest.raises(ValueError, match="n_jobs.*is 0, which would run no worker"):
        S4VM(n_jobs=0).fit(X, semi)
    with pytest.raises(TypeError, match="Sparse input is not supported by S4VM"):
        S4VM(kernel="linear").fit(sp.csr_matrix(X), semi)
    with pytest.raises(ValueError, match="'lam' parameter of S4VM must be a float in the range "
                                         r"\[0, 1e\+06\]"):
        S4VM(lam=1e300).fit(X, semi)


def test_one_vs_rest_takes_r_svm_or_both_in_each_problem_and_refuses_one_share_for_all():
    from sklearn.datasets import load_iris

    from s3vm_core import OneVsRestS3VM

    X, y = load_iris(return_X_y=True)
    semi = pick_labeled(y, 2, random_state=0)
    model = OneVsRestS3VM(S4VM(r="both", sample_time=6, random_state=0)).fit(X, semi)
    assert [e.r for e in model.estimators_] == ["both"] * 3
    assert np.mean(model.transduction_[semi == -1] == y[semi == -1]) > 0.8
    with pytest.raises(ValueError, match="same fraction"):
        OneVsRestS3VM(S4VM(r=0.3, sample_time=6)).fit(X, semi)
