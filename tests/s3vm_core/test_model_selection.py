"""Model selection with few labels: the labeled-only folds, the search beside the SVM, the reuse."""

import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)

from s3vm_core import (
    LDS,
    QNS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    GradientTSVM,
    GraphKernelSVM,
    LabeledStratifiedKFold,
    LabelSwitchingTSVM,
    LapRLSC,
    LapSVM,
    OneVsRestS3VM,
    S3VMGridSearchCV,
    SVMBaseline,
    UnlabeledDidNotHelpWarning,
    estimate_positive_fraction,
    expected_failed_checks,
)
from s3vm_core.kernels import kernel_matrix
from s3vm_core.reuse import reuse_setups
from toy_data import g10n, pick_labeled, two_moons


def moons(n=150, per_class=4, seed=1):
    X, y = two_moons(n, noise=0.1, random_state=seed)
    return X, y, pick_labeled(y, per_class, random_state=seed)


def three_blobs(n=150, per_class=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 3.5]])[y] + 0.8 * rng.standard_normal((n, 2))
    return X, y, pick_labeled(y, per_class, random_state=seed)


# -- the splitter ------------------------------------------------------------------------------


@pytest.mark.parametrize("per_class, n_splits", [(2, 2), (2, 3), (2, 4), (5, 3), (7, 5)])
def test_folds_hold_out_labeled_points_only_and_train_on_every_unlabeled_one(per_class,
                                                                            n_splits):
    X, _, labels = moons(per_class=per_class)
    unlabeled = np.flatnonzero(labels == -1)
    held_out = []
    for train, test in LabeledStratifiedKFold(n_splits).split(X, labels):
        assert np.all(labels[test] != -1)
        assert np.isin(unlabeled, train).all()
        assert np.intersect1d(train, test).size == 0 and train.size + test.size == labels.size
        # every training fold keeps both classes, also with two labels a class
        assert set(labels[train][labels[train] != -1]) == {0, 1}
        held_out.extend(test)
    # each labeled point is held out once
    np.testing.assert_array_equal(np.sort(held_out), np.flatnonzero(labels != -1))


def test_folds_are_stratified_when_every_class_fills_them():
    X, _, labels = moons(per_class=6)
    for _, test in LabeledStratifiedKFold(3, shuffle=True, random_state=0).split(X, labels):
        assert np.bincount(labels[test]).tolist() == [2, 2]


def test_shuffled_folds_follow_the_seed():
    X, _, labels = moons(per_class=6)

    def tests(seed):
        splitter = LabeledStratifiedKFold(3, shuffle=True, random_state=seed)
        return [test.tolist() for _, test in splitter.split(X, labels)]

    assert tests(0) == tests(0) and tests(0) != tests(1)


def test_scikit_learns_splitter_would_test_on_unlabeled_points():
    """The reason for the splitter: StratifiedKFold takes -1 as a class."""
    X, _, labels = moons()
    tested = np.concatenate([test for _, test in StratifiedKFold(3).split(X, labels)])
    assert np.any(labels[tested] == -1)


def test_the_only_label_of_a_class_trains_in_every_fold():
    labels = np.array([0, 1, 1, 2, 2, 2] + [-1] * 20)
    X = np.random.default_rng(0).normal(size=(labels.size, 2))
    folds = list(LabeledStratifiedKFold(2).split(X, labels))
    assert all(0 in train and 0 not in test for train, test in folds)
    assert sorted(np.concatenate([test for _, test in folds]).tolist()) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("labels, n_splits, message", [
    ([0, 1, 2] + [-1] * 20, 2, "Every class has a single labeled point"),
    ([0, 1, 1, 2, 2] + [-1] * 20, 5, "only 4 labeled points can be held out"),
    ([0, 0] + [-1] * 20, 2, "at least two classes"),
    ([0, 0, 1, 1] + [-1] * 20, 1, "at least 2"),
])
def test_impossible_folds_get_a_sentence(labels, n_splits, message):
    X = np.random.default_rng(0).normal(size=(len(labels), 2))
    with pytest.raises(ValueError, match=message):
        list(LabeledStratifiedKFold(n_splits).split(X, np.array(labels)))


def test_grid_search_cv_with_the_splitter_scores_held_out_labels():
    X, y, labels = moons()
    search = GridSearchCV(SVMBaseline(sigma=0.3), {"C": [0.01, 10.0]},
                          cv=LabeledStratifiedKFold(4)).fit(X, labels)
    # C = 0.01 is too soft a margin for 6 labels: it misses a held-out point in 3 of 4 folds
    scores = search.cv_results_["mean_test_score"]
    assert search.best_params_ == {"C": 10.0} and scores[1] == 0.875 > scores[0] == 0.625


def test_cross_val_score_and_cross_validate_fit_with_the_unlabeled_points():
    X, y, labels = moons()
    splitter = LabeledStratifiedKFold(4)
    expected = []
    for train, test in splitter.split(X, labels):
        model = LapSVM().fit(X[train], labels[train])
        expected.append(np.mean(model.predict(X[test]) == labels[test]))
    np.testing.assert_array_equal(cross_val_score(LapSVM(), X, labels, cv=splitter), expected)
    result = cross_validate(LapSVM(), X, labels, cv=splitter, return_train_score=True)
    np.testing.assert_array_equal(result["test_score"], expected)
    # the training score counts the training fold's labels only, not its -1 points
    assert np.all(result["train_score"] == 1.0)


# -- score counts labeled points only ----------------------------------------------------------


def test_one_vs_rest_score_leaves_unlabeled_points_out():
    """Issue 36: ClassifierMixin.score counted -1 as a class (0.08 where the labels score 1)."""
    X, y, labels = three_blobs()
    model = OneVsRestS3VM(LapSVM()).fit(X, labels)
    assert model.score(X, labels) == 1.0
    assert model.score(X, y) == np.mean(model.predict(X) == y)
    with pytest.raises(ValueError, match="nothing to score"):
        model.score(X, np.full_like(labels, -1))


def test_grid_search_over_one_vs_rest_no_longer_picks_the_first_point():
    X, y, labels = three_blobs(per_class=4)
    grid = {"estimator__sigma": [0.02, 1.0]}  # 0.02: each point sees only itself
    search = GridSearchCV(OneVsRestS3VM(SVMBaseline()), grid, cv=LabeledStratifiedKFold(3))
    search.fit(X, labels)
    assert search.best_params_ == {"estimator__sigma": 1.0}


def test_no_estimator_has_predict_proba():
    for model in (GradientTSVM(), LapSVM(), OneVsRestS3VM(LapSVM()), S3VMGridSearchCV(
            LapSVM(), {})):
        assert not hasattr(model, "predict_proba")


def test_expected_failed_checks_are_public():
    assert set(expected_failed_checks(GradientTSVM())) == {"check_classifiers_classes"}
    assert expected_failed_checks(OneVsRestS3VM(LapSVM())) == expected_failed_checks(LDS())
    assert expected_failed_checks(GridSearchCV(LapSVM(), {})) == {}


# -- the search --------------------------------------------------------------------------------


def test_removed_protocol_is_scikit_learns_cross_validate_with_the_splitter():
    X, y, labels = moons()
    grid = {"sigma": [0.2, 0.5], "C": [1.0, 100.0]}
    search = S3VMGridSearchCV(GradientTSVM(), grid, cv=4, held_out="removed",
                              baseline=None, refit=False).fit(X, labels)
    for i, params in enumerate(search.cv_results_["params"]):
        scores = cross_validate(GradientTSVM(**params), X, labels,
                                cv=LabeledStratifiedKFold(4))["test_score"]
        ours = [search.cv_results_[f"split{k}_test_score"][i] for k in range(4)]
        np.testing.assert_array_equal(ours, scores)


def test_unlabeled_protocol_keeps_the_held_out_points_as_unlabeled_training_points():
    X, y, labels = moons()
    search = S3VMGridSearchCV(LapSVM(), {"gamma_I": [0.1, 10.0]}, cv=4, baseline=None,
                              refit=False).fit(X, labels)
    for i, params in enumerate(search.cv_results_["params"]):
        mistakes = 0
        for _, test in LabeledStratifiedKFold(4).split(X, labels):
            hidden = labels.copy()
            hidden[test] = -1
            model = LapSVM(**params).fit(X, hidden)
            mistakes += np.sum(model.predict(X[test]) != labels[test])
        assert search.cv_results_["mean_test_error"][i] == mistakes / np.sum(labels != -1)


def test_the_search_selects_refits_and_says_the_unlabeled_points_helped():
    X, y, labels = moons(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnlabeledDidNotHelpWarning)
        search = S3VMGridSearchCV(LapSVM(), {"gamma_I": [0.1, 1.0]}, cv=4).fit(X, labels)
    comparison = search.comparison_
    assert comparison.helped and comparison.estimator_error < comparison.baseline_error
    assert comparison.n_held_out == 8 and "helped" in comparison.message
    best = LapSVM(**search.best_params_).fit(X, labels)
    np.testing.assert_array_equal(search.predict(X), best.predict(X))
    assert search.score(X, labels) == 1.0
    assert isinstance(search.baseline_best_estimator_, SVMBaseline)
    models = {row["model"] for row in search.table()}
    assert models == {"LapSVM", "SVMBaseline"}
    assert sum(row["selected"] for row in search.table()) == 2


def test_the_search_warns_when_the_unlabeled_points_do_not_help():
    """g10n breaks the cluster assumption (LDS paper §3.1): a graph that dominates loses."""
    X, y = g10n(n_samples=150, random_state=1)
    labels = pick_labeled(y, 4, random_state=1)
    with pytest.warns(UnlabeledDidNotHelpWarning, match="did not help"):
        search = S3VMGridSearchCV(LapSVM(gamma_I=1e4), {"gamma_A": [1e-6]}, cv=4).fit(
            X, labels)
    assert not search.comparison_.helped
    assert search.comparison_.estimator_error > search.comparison_.baseline_error


def test_the_baseline_takes_the_estimators_kernel_and_the_grids_values():
    X, y, labels = moons()
    grid = {"sigma": [0.2, 0.5], "C_star": [1.0]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlabeledDidNotHelpWarning)
        search = S3VMGridSearchCV(GradientTSVM(kernel="rbf"), grid, cv=4).fit(X, labels)
    sigmas = {p["sigma"] for p in search.baseline_cv_results_["params"]}
    Cs = {p["C"] for p in search.baseline_cv_results_["params"]}
    assert sigmas == {0.2, 0.5} and Cs == {None, 0.1, 100.0}


def test_one_vs_rest_search_compares_with_one_vs_rest_svms():
    X, y, labels = three_blobs(per_class=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlabeledDidNotHelpWarning)
        search = S3VMGridSearchCV(OneVsRestS3VM(LapSVM()), {"estimator__gamma_I": [0.1, 1.0]},
                                  cv=3).fit(X, labels)
    assert isinstance(search.baseline_best_estimator_, OneVsRestS3VM)
    assert search.comparison_.n_held_out == 9
    assert search.best_score_ > 0.8


def test_failing_grid_points_score_nan_and_warn_once():
    X, y, labels = moons()
    with pytest.warns(FitFailedWarning, match="4 of the 8 cross-validation fits"):
        search = S3VMGridSearchCV(SVMBaseline(), {"sigma": [1e-9, 0.3]}, cv=4,
                                  baseline=None).fit(X, labels)
    assert np.isnan(search.cv_results_["mean_test_score"][0])
    assert search.best_params_ == {"sigma": 0.3}


def test_warnings_of_the_cross_validation_fits_come_once_per_kind():
    X, y, labels = moons()
    with pytest.warns(ConvergenceWarning) as caught:
        S3VMGridSearchCV(GradientTSVM(max_iter=1), {"C": [1.0, 10.0]}, cv=4, baseline=None,
                         refit=False).fit(X, labels)
    assert sum("cross-validation fits" in str(w.message) for w in caught) == 1


def test_a_splitter_that_tests_unlabeled_points_is_refused():
    X, y, labels = moons()
    with pytest.raises(ValueError, match="holds unlabeled points"):
        S3VMGridSearchCV(LapSVM(), {}, cv=StratifiedKFold(3)).fit(X, labels)


# -- the reuse ---------------------------------------------------------------------------------

#: Every solver, with a grid over the parameters its reuse concerns and a cost beside them.
GRIDS = [
    (SVMBaseline(), {"sigma": [0.3, 0.6], "C": [1.0, 10.0]}),
    (GradientTSVM(), {"sigma": [0.3, 0.6], "C": [1.0, 10.0]}),
    (ContinuationS3VM(), {"sigma": [0.3, 0.6], "C": [1.0, 10.0]}),
    (QNS3VM(), {"sigma": [0.3, 0.6], "lam": [1e-3, 1.0]}),
    (DeterministicAnnealingS3VM(), {"sigma": [0.3, 0.6], "lam": [1e-3, 1e-1]}),
    (LapSVM(), {"n_neighbors": [5, 8], "gamma_I": [0.1, 1.0]}),
    (LapRLSC(), {"sigma": [0.3, 0.6], "gamma_A": [1e-4, 1e-2]}),
    (LabelSwitchingTSVM(), {"sigma": [0.3, 0.6], "C": [1.0, 10.0]}),
    (LDS(), {"rho": [1.0, 4.0], "C": [1.0, 10.0]}),
    (GraphKernelSVM(), {"rho": [1.0, 4.0], "C": [1.0, 10.0]}),
    (OneVsRestS3VM(GradientTSVM()), {"estimator__sigma": [0.3, 0.6],
                                     "estimator__C": [1.0, 10.0]}),
]


@pytest.mark.parametrize("estimator, grid", GRIDS, ids=lambda v: type(v).__name__
                         if not isinstance(v, dict) else "grid")
def test_reuse_changes_no_fit_and_saves_setups(estimator, grid):
    X, y, labels = moons(n=90, per_class=3)
    if isinstance(estimator, OneVsRestS3VM):
        X, y, labels = three_blobs(n=90, per_class=3)
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for reuse in (False, True):
            search = S3VMGridSearchCV(estimator, grid, cv=3, baseline=None, reuse=reuse,
                                      refit=False).fit(X, labels)
            results[reuse] = search
    keys = [k for k in results[False].cv_results_ if k.startswith("split")]
    for key in keys:
        np.testing.assert_array_equal(results[True].cv_results_[key],
                                      results[False].cv_results_[key])
    assert results[True].reuse_stats_.hits > 0
    # the fits themselves: one inside the context after the grid's first (a remembered setup)
    # equals one outside, to the bit
    params = {name: values[-1] for name, values in grid.items()}
    plain = clone(estimator).set_params(**params).fit(X, labels)
    with warnings.catch_warnings(), reuse_setups() as stats:
        warnings.simplefilter("ignore")
        clone(estimator).set_params(**params).fit(X, labels)
        again = clone(estimator).set_params(**params).fit(X, labels)
        assert stats().hits > 0
    np.testing.assert_array_equal(again.decision_function(X), plain.decision_function(X))


def test_remembered_results_are_read_only_and_the_context_ends():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with reuse_setups() as stats:
        K = kernel_matrix(X, X, "rbf", 1.0)
        assert kernel_matrix(X, X.copy(), "rbf", 1.0) is not K  # not the same call: X is Z
        assert kernel_matrix(X, X, "rbf", 1.0) is K and stats().hits == 1
        with pytest.raises(ValueError, match="read-only"):
            K[0, 0] = 2.0
    assert kernel_matrix(X, X, "rbf", 1.0) is not K and kernel_matrix(X, X, "rbf", 1.0).flags[
        "WRITEABLE"]


def test_the_budget_drops_the_least_recently_used():
    X = np.random.default_rng(0).normal(size=(40, 2))  # a 40 x 40 kernel: 12,800 bytes
    with reuse_setups(budget=30_000) as stats:
        first = kernel_matrix(X, X, "rbf", 1.0)
        kernel_matrix(X, X, "rbf", 2.0)
        kernel_matrix(X, X, "rbf", 3.0)  # the budget holds two: sigma = 1 goes
        assert kernel_matrix(X, X, "rbf", 1.0) is not first
        assert stats().bytes_held <= 30_000


# -- the class ratio ---------------------------------------------------------------------------


def test_the_class_ratio_from_the_baseline_is_closer_to_the_data_than_the_labels():
    rng = np.random.default_rng(0)
    y = (rng.uniform(size=400) < 0.75).astype(int)  # 75 % positive
    X = np.where(y[:, None] == 1, 1.5, -1.5) + rng.standard_normal((400, 2))
    labels = pick_labeled(y, 5, random_state=0)  # the labels say 50 %
    truth = np.mean(y[labels == -1])
    estimate = estimate_positive_fraction(X, labels)
    assert abs(estimate - truth) < 0.05 < abs(0.5 - truth)
    model = DeterministicAnnealingS3VM(r=estimate).fit(X, labels)
    assert model.r_ == estimate


def test_the_class_ratio_stays_a_valid_r():
    X = np.r_[np.zeros((2, 1)), np.ones((2, 1)), np.full((10, 1), 5.0)]
    labels = np.r_[[0, 0, 1, 1], [-1] * 10]
    estimate = estimate_positive_fraction(X, labels)  # every unlabeled point is class 1
    assert 0.9 < estimate < 1.0
    with pytest.raises(ValueError, match="no unlabeled point"):
        estimate_positive_fraction(X[:4], labels[:4])


# -- the default grids -------------------------------------------------------------------------


def test_default_grids_start_at_the_defaults_and_search_them():
    X, y, labels = moons()
    from s3vm_core import default_grid
    from s3vm_core.kernels import default_sigma

    grid = default_grid(GradientTSVM(), X)
    assert grid == {"sigma": [default_sigma(X), default_sigma(X) / 2, 2 * default_sigma(X)],
                    "C": [None, 0.1, 100.0]}
    assert list(default_grid(LDS(), X)) == ["rho", "C"]
    assert list(default_grid(GradientTSVM(kernel="linear"), X)) == ["C"]
    Xb, yb, lb = three_blobs()
    ovr = default_grid(OneVsRestS3VM(LapSVM()), Xb, lb)
    # one-vs-rest: the LDS paper's default width for 3 classes, the 1/3 quantile
    assert ovr["estimator__sigma"][0] == default_sigma(Xb, n_classes=3)
    assert ovr["estimator__gamma_I"] == [1.0, 0.01, 10.0]
    with pytest.raises(ValueError, match="no default grid"):
        default_grid(GridSearchCV(LapSVM(), {}), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlabeledDidNotHelpWarning)
        search = S3VMGridSearchCV(LapSVM(), default_grid(LapSVM(), X), cv=4).fit(X, labels)
    assert len(search.cv_results_["params"]) == 9


def test_the_folds_warnings_count_fits_not_one_vs_rest_problems():
    """A one-vs-rest fit warns once a problem; the summary counts the fits that warned."""
    from sklearn.datasets import make_blobs

    from s3vm_core import DegenerateFitWarning

    X, y = make_blobs(90, centers=3, random_state=0)
    labels = pick_labeled(y, 3, random_state=0)
    search = S3VMGridSearchCV(OneVsRestS3VM(GradientTSVM(tol=10)), {"estimator__C": [1.0]},
                              cv=3, baseline=None, refit=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, labels)
    (said,) = [str(w.message) for w in caught if issubclass(w.category, DegenerateFitWarning)]
    assert said.startswith("3 of the 3 cross-validation fits of OneVsRestS3VM(GradientTSVM) "
                           "warned"), said


# -- bad input: one sentence each (issue 40, item 3) --------------------------------------------


def _fitted_search(**params):
    X, y, labels = moons(n=60, per_class=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return S3VMGridSearchCV(SVMBaseline(), {"C": [1.0]}, **params).fit(X, labels), X, labels


@pytest.mark.parametrize("params, message", [
    ({"param_grid": []}, r"param_grid is empty \(\[\]\), so there is nothing to cross-validate: "
                         r"give the values to try"),
    ({"baseline_grid": []}, r"baseline_grid is empty \(\[\]\).* or None for the estimator's "
                            "kernel values and C"),
    ({"n_jobs": 0}, r"The 'n_jobs' parameter of S3VMGridSearchCV must be an int in the range "
                    r"\[1, inf\), an int in the range \(-inf, -1\] or None. Got 0 instead"),
    ({"n_jobs": True}, "The 'n_jobs' parameter of S3VMGridSearchCV must be a number, not the "
                       "boolean True"),
    ({"cv": True}, "The 'cv' parameter of S3VMGridSearchCV must be a number, not the boolean"),
    ({"verbose": -1}, "The 'verbose' parameter of S3VMGridSearchCV must be"),
])
def test_a_bad_search_parameter_is_one_sentence(params, message):
    X, y, labels = moons(n=60, per_class=3)
    params = {"param_grid": {"C": [1.0]}, **params}
    search = S3VMGridSearchCV(SVMBaseline(), **params)
    for call in (search.fit, search.plan):
        with pytest.raises(ValueError, match=message) as raised:
            call(X, labels)
        assert "\n" not in str(raised.value)


def test_refit_false_keeps_no_model_and_says_what_to_do():
    search, X, labels = _fitted_search(refit=False)
    assert search.best_params_ == {"C": 1.0}
    for use in (lambda: search.predict(X), lambda: search.decision_function(X),
                lambda: search.score(X, labels), lambda: search.classes_,
                lambda: search.transduction_):
        with pytest.raises(ValueError, match=r"fitted with refit=False, which keeps the "
                                             r"cross-validation results .* but no model to "
                                             r"predict with: fit it with refit=True, or "):
            use()
    # a fit with refit=False after one with refit=True keeps none of the earlier model
    search.set_params(refit=True).fit(X, labels)
    assert hasattr(search, "best_estimator_")
    search.set_params(refit=False, param_grid={"C": [10.0]}).fit(X, labels)
    assert not hasattr(search, "best_estimator_") and not hasattr(
        search, "baseline_best_estimator_")


@pytest.mark.parametrize("params, message", [
    ({"shuffle": "yes"}, r"shuffle must be True or False, got 'yes'\."),
    ({"shuffle": True, "random_state": -1}, r"random_state must be a whole number from 0 to "
                                            r"2\*\*32 - 1, a numpy RandomState or None, got -1"),
    ({"shuffle": True, "random_state": 1.5}, "random_state must be a whole number"),
    ({"shuffle": True, "random_state": True}, "random_state must be a whole number"),
    ({"random_state": 3}, r"random_state=3 has no effect with shuffle=False .* leave it None, "
                          "or set shuffle=True"),
])
def test_a_bad_splitter_parameter_is_one_sentence(params, message):
    X, y, labels = moons(n=60, per_class=3)
    with pytest.raises(ValueError, match=message):
        list(LabeledStratifiedKFold(3, **params).split(X, labels))
    # a seed as numpy's RandomState is taken
    folds = LabeledStratifiedKFold(3, shuffle=True, random_state=np.random.RandomState(0))
    assert len(list(folds.split(X, labels))) == 3


# -- the size of a search and its progress (issue 40, item 4) -----------------------------------


def test_the_plan_counts_every_fit_and_verbose_says_them(capsys):
    X, y, labels = moons(n=90, per_class=3)
    search = S3VMGridSearchCV(GradientTSVM(), {"C": [1.0, 10.0], "sigma": [0.3, 0.5]}, cv=3,
                              verbose=2)
    plan = search.plan(X, labels)
    # 4 grid points x 3 folds, the baseline's (the grid's C and sigma) x 3 folds, a refit of
    # each
    assert (plan.n_candidates, plan.n_baseline_candidates, plan.n_splits, plan.n_refits) == (
        4, 4, 3, 2)
    assert plan.n_fits == 26 and str(plan) == (
        "26 fits on 90 points: 4 grid points of GradientTSVM on 3 folds, 4 of SVMBaseline on "
        "the same folds, 2 refits on all the points")
    assert capsys.readouterr().err == ""  # planning fits nothing and says nothing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, labels)
    lines = capsys.readouterr().err.splitlines()
    assert all(line.startswith("[S3VMGridSearchCV] ") for line in lines)
    assert lines[0] == f"[S3VMGridSearchCV] {plan}."
    fits = [line for line in lines if line.startswith("[S3VMGridSearchCV] fit ")]
    assert len(fits) == 26 and fits[-1].startswith("[S3VMGridSearchCV] fit 26/26: "
                                                   "SVMBaseline with ")
    assert "GradientTSVM with C=1.0, sigma=0.3, fold 1 of 3: " in fits[0]
    assert fits[-2].endswith("on all the points: " + fits[-2].rsplit(": ", 1)[1])
    assert re.fullmatch(r"\[S3VMGridSearchCV\] The first fit took \S+ s: about .+ left at its "
                        r"pace, less as the next fits reuse its setup \(not counting the 12 "
                        r"quick fits of SVMBaseline on the labeled points alone\)\.", lines[2])
    assert sum(re.fullmatch(r"\[S3VMGridSearchCV\] \d+/26 fits in .+; about .+ left.*", line)
               is not None for line in lines) == 9  # at each tenth but the last
    assert re.fullmatch(r"\[S3VMGridSearchCV\] 26 fits in \S+ s\.", lines[-1])
    # and nothing without verbose
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.set_params(verbose=0).fit(X, labels)
    assert capsys.readouterr().err == ""


def test_workers_report_every_fit_and_fit_as_one_process_does(capsys):
    from joblib import parallel_config

    X, y, labels = moons(n=90, per_class=3)
    grid = {"C": [1.0, 10.0], "sigma": [0.3, 0.5]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = S3VMGridSearchCV(GradientTSVM(), grid, baseline=None).fit(X, labels)
        with parallel_config(backend="threading"):
            workers = S3VMGridSearchCV(GradientTSVM(), grid, baseline=None, n_jobs=2,
                                       verbose=1).fit(X, labels)
    assert workers.cv_results_["mean_test_score"] == alone.cv_results_["mean_test_score"]
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("[S3VMGridSearchCV] 13 fits on 90 points") and lines[-1] \
        .startswith("[S3VMGridSearchCV] 13 fits in ")
