"""One-vs-rest over every solver: k classes, unlabeled points kept unlabeled, a filmable trace."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.svm import SVC
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from s3vm_core import (
    LDS,
    QNS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    GradientTSVM,
    GraphKernelSVM,
    LabelSwitchingTSVM,
    LapRLSC,
    LapSVM,
    OneVsRestS3VM,
    OneVsRestState,
    SVMBaseline,
    decision_on_grid,
)
from s3vm_core.estimator_checks import expected_failed_checks
from s3vm_core.kernels import default_sigma
from s3vm_core.multiclass import one_vs_rest_targets
from toy_data import pick_labeled

SOLVERS = [SVMBaseline(), GradientTSVM(), LDS(), ContinuationS3VM(), QNS3VM(),
           DeterministicAnnealingS3VM(), LapSVM(), LapRLSC(), LabelSwitchingTSVM(),
           GraphKernelSVM()]


def three_blobs(seed=0):
    X, y = make_blobs(150, centers=[[0, 0], [4, 0], [2, 3.5]], cluster_std=0.8,
                      random_state=seed)
    return X, y, pick_labeled(y, 2, random_state=seed)


def three_moons(n=300, noise=0.1, seed=0):
    """Three interleaving half circles: scikit-learn's two moons and a third, the first one
    shifted right by 2, hooked into the second."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    t = rng.uniform(0, np.pi, n)
    X = np.column_stack([np.cos(t), np.sin(t)])
    X[y == 1] = np.column_stack([1 - np.cos(t[y == 1]), 0.5 - np.sin(t[y == 1])])
    X[y == 2] += [2.0, 0.0]
    return X + noise * rng.standard_normal(X.shape), y


def unlabeled_error(model, y, labels):
    unlabeled = labels == -1
    return np.mean(model.transduction_[unlabeled] != y[unlabeled])


@pytest.fixture(autouse=True)
def quiet_convergence():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


# -- what a user sees ------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS, ids=lambda s: type(s).__name__)
def test_every_solver_separates_three_blobs_from_two_labels_each(solver):
    X, y, labels = three_blobs()
    model = OneVsRestS3VM(solver).fit(X, labels)
    assert unlabeled_error(model, y, labels) <= 0.05
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert len(model.estimators_) == 3


def test_the_graph_solvers_follow_three_moons_where_the_svm_cannot():
    # One-vs-rest makes "the rest" of the middle moon two moons: the cS3VM paper's §5.3
    # explanation of why its S3VMs fail in 1-vs-rest. The Laplacian follows each moon anyway.
    X, y = three_moons()
    labels = pick_labeled(y, 2, random_state=0)
    svm = unlabeled_error(OneVsRestS3VM(SVMBaseline()).fit(X, labels), y, labels)
    for solver in (LapSVM(), LapRLSC()):
        error = unlabeled_error(OneVsRestS3VM(solver).fit(X, labels), y, labels)
        assert error <= 0.1 and error < svm / 3


def test_unlabeled_points_stay_unlabeled_in_every_binary_problem():
    X, y, labels = three_blobs()
    model = OneVsRestS3VM(RecordingSVM()).fit(X, labels)
    unlabeled = labels == -1
    for c, estimator in enumerate(model.estimators_):
        seen = estimator.training_labels
        np.testing.assert_array_equal(seen[unlabeled], -1)  # never "rest"
        np.testing.assert_array_equal(seen[~unlabeled], labels[~unlabeled] == c)
        np.testing.assert_array_equal(estimator.classes_, [0, 1])
    for c, target in enumerate(one_vs_rest_targets(labels, model.classes_)):
        np.testing.assert_array_equal(target, model.estimators_[c].training_labels)


class RecordingSVM(SVMBaseline):
    """SVMBaseline that keeps the labels of its binary problem."""

    def trace(self, X, y, **kwargs):
        self.training_labels = np.asarray(y).copy()
        return super().trace(X, y, **kwargs)


def test_predict_is_the_class_of_the_largest_output():
    X, _, labels = three_blobs()
    model = OneVsRestS3VM(GradientTSVM()).fit(X, labels)
    grid = np.random.default_rng(0).uniform(-2, 6, size=(200, 2))
    outputs = model.decision_function(grid)
    assert outputs.shape == (200, 3)
    for c, estimator in enumerate(model.estimators_):
        np.testing.assert_allclose(outputs[:, c], estimator.decision_function(grid), atol=1e-10)
    np.testing.assert_array_equal(model.predict(grid), model.classes_[outputs.argmax(axis=1)])
    np.testing.assert_array_equal(model.transduction_, model.predict(X))


def test_two_classes_give_one_decision_column_like_scikit_learn_binary_classifiers():
    X, y, labels = three_blobs()
    keep = y < 2
    X, labels = X[keep], labels[keep]
    model = OneVsRestS3VM(GradientTSVM()).fit(X, labels)
    decision = model.decision_function(X)
    assert decision.shape == (keep.sum(),)
    np.testing.assert_array_equal(model.predict(X), model.classes_[(decision > 0).astype(int)])
    # the two problems are mirror images, so this is the binary solver's own output
    binary = clone(model.estimators_[1]).fit(X, labels)
    np.testing.assert_allclose(decision, binary.decision_function(X), atol=1e-9)
    assert (model.features(X) @ model.coef_ + model.intercept_).shape == (keep.sum(), 2)


def test_string_class_names():
    X, y, labels = three_blobs()
    names = np.array(["circle", "square", "star"], dtype=object)[y]
    given = names.copy()
    given[labels == -1] = -1
    model = OneVsRestS3VM(LapSVM()).fit(X, given)
    assert list(model.classes_) == ["circle", "square", "star"]
    unlabeled = labels == -1
    assert np.mean(model.transduction_[unlabeled] != names[unlabeled]) <= 0.05


def test_the_default_width_is_the_lds_papers_for_k_classes():
    X, _, labels = three_blobs()
    model = OneVsRestS3VM(GradientTSVM()).fit(X, labels)
    expected = default_sigma(X, n_classes=3)  # LDS paper §2.3.2: the 1/c quantile
    assert all(e.sigma_ == pytest.approx(expected) for e in model.estimators_)
    assert expected < default_sigma(X)  # a binary fit takes the median
    chosen = OneVsRestS3VM(GradientTSVM(sigma=1.5)).fit(X, labels)
    assert all(e.sigma_ == 1.5 for e in chosen.estimators_)


# -- the trace -------------------------------------------------------------------------------


def test_the_trace_advances_the_problems_in_lock_step_and_ends_on_the_fitted_model():
    X, _, labels = three_blobs()
    model = OneVsRestS3VM(DeterministicAnnealingS3VM())
    states = list(model.trace(X, labels))
    paths = [list(clone(e).trace(X, t)) for e, t in
             zip(model.estimators_, one_vs_rest_targets(labels, model.classes_), strict=True)]
    assert len(states) == max(len(p) for p in paths)
    assert all(isinstance(s, OneVsRestState) for s in states)
    assert [s.step for s in states] == list(range(len(states)))
    assert states[0].event == "init" and states[-1].event == "final"
    assert all(s.event != "final" for s in states[:-1])
    for i in (0, len(states) // 2, len(states) - 1):
        for c, path in enumerate(paths):
            expected = path[min(i, len(path) - 1)]  # a finished problem keeps its last state
            np.testing.assert_allclose(states[i].states[c].coef, expected.coef)
    grid = np.random.default_rng(1).uniform(-2, 6, size=(300, 2))
    frames = decision_on_grid(model.features(grid), states)
    assert frames.shape == (len(states), 300, 3)
    np.testing.assert_allclose(frames[-1], model.features(grid) @ model.coef_ + model.intercept_)
    np.testing.assert_array_equal(model.classes_[frames[-1].argmax(axis=1)], model.predict(grid))
    middle = states[len(states) // 2]
    for c, estimator in enumerate(model.estimators_):  # each column is problem c's own frame
        own = decision_on_grid(estimator.features(grid), [middle.states[c]])[0]
        np.testing.assert_allclose(frames[len(states) // 2][:, c], own, atol=1e-10)
    np.testing.assert_allclose(states[-1].train_decision.argmax(axis=1),
                               np.searchsorted(model.classes_, model.transduction_))
    assert states[-1].objective == pytest.approx(sum(e.objective_ for e in model.estimators_))


def test_features_work_before_the_first_state():
    X, _, labels = three_blobs()
    model = OneVsRestS3VM(LapSVM())
    with pytest.raises(NotFittedError):
        model.features(X)
    trace = model.trace(X, labels)
    F = model.features(X[:5])
    first = next(trace)
    assert (F @ first.coef + first.intercept).shape == (5, 3)


def test_problems_with_their_own_feature_maps_sit_side_by_side():
    X, _, labels = three_blobs()
    # landmarks drawn anew for each problem: three different maps
    model = OneVsRestS3VM(QNS3VM(n_landmarks=30))
    states = list(model.trace(X, labels))
    assert not model.shared_features_
    grid = np.random.default_rng(2).uniform(-2, 6, size=(100, 2))
    F = model.features(grid)
    assert F.shape == (100, 90) and model.coef_.shape == (90, 3)
    frames = decision_on_grid(F, states)
    for c, estimator in enumerate(model.estimators_):
        np.testing.assert_allclose(frames[-1][:, c], estimator.decision_function(grid),
                                   atol=1e-10)
    seeded = OneVsRestS3VM(QNS3VM(n_landmarks=30, random_state=0)).fit(X, labels)
    assert seeded.shared_features_ and seeded.coef_.shape == (30, 3)


def test_a_state_pickles_for_the_apps_worker_processes():
    X, _, labels = three_blobs()
    state = list(OneVsRestS3VM(GradientTSVM()).trace(X, labels))[-1]
    copy = pickle.loads(pickle.dumps(state))
    np.testing.assert_array_equal(copy.coef, state.coef)
    assert copy.event == "final" and not copy.coef.flags.writeable


def test_parallel_and_sequential_fits_agree():
    X, _, labels = three_blobs()
    sequential = OneVsRestS3VM(ContinuationS3VM())
    parallel = OneVsRestS3VM(ContinuationS3VM(), n_jobs=2)
    grid = np.random.default_rng(3).uniform(-2, 6, size=(100, 2))
    states = [list(sequential.trace(X, labels)), list(parallel.trace(X, labels))]
    assert len(states[0]) == len(states[1])
    np.testing.assert_allclose(decision_on_grid(sequential.features(grid), states[0]),
                               decision_on_grid(parallel.features(grid), states[1]), atol=1e-8)
    fitted = OneVsRestS3VM(ContinuationS3VM(), n_jobs=2).fit(X, labels)
    np.testing.assert_array_equal(fitted.predict(grid), sequential.predict(grid))
    np.testing.assert_array_equal(fitted.transduction_, sequential.transduction_)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_a_fit_passes_on_each_problems_warnings_naming_the_problem(n_jobs):
    # a worker's warnings are said in the calling process; in either case each names its
    # problem in the user's classes (issue 42, item 6)
    X, _, labels = three_blobs()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        OneVsRestS3VM(GradientTSVM(max_iter=1), n_jobs=n_jobs).fit(X, labels)
    said = sorted(str(w.message) for w in caught if w.category is ConvergenceWarning)
    assert len(said) == 3, said
    for c, message in enumerate(said):
        assert message.startswith(f'In the one-vs-rest problem "class {c} against the '
                                  'others": GradientTSVM stopped L-BFGS at max_iter=1')


def test_a_validation_set_is_split_class_by_class():
    X, y, labels = three_blobs()
    rows = np.flatnonzero(labels == -1)[:15]
    model = OneVsRestS3VM(LapSVM(solver="pcg", stopping="validation"))
    model.fit(X, labels, X_val=X[rows], y_val=y[rows])
    assert unlabeled_error(model, y, labels) <= 0.05


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_a_validation_set_with_unlabeled_points_is_refused_as_by_the_binary_lapsvm(n_jobs):
    # issue 33, item 7: -1 in y_val became "rest" in every problem; the binary LapSVM
    # refuses it, and one-vs-rest now says the same sentence
    X, y, labels = three_blobs()
    rows = np.flatnonzero(labels == -1)[:15]
    y_val = y[rows].copy()
    y_val[0] = -1
    binary = np.where(y_val == 2, 1, y_val)  # two classes, the same -1
    with pytest.raises(ValueError) as binary_error:
        LapSVM(solver="pcg", stopping="validation").fit(
            X[labels != 2], np.where(labels == 2, -1, labels)[labels != 2],
            X_val=X[rows], y_val=binary)
    with pytest.raises(ValueError) as error:
        OneVsRestS3VM(LapSVM(solver="pcg", stopping="validation"), n_jobs=n_jobs).fit(
            X, labels, X_val=X[rows], y_val=y_val)
    expected = ("y_val contains labels [-1] that are not among the training classes {}; every "
                "validation point must be labeled with one of them (no -1).")
    assert str(binary_error.value) == expected.format([0, 1])
    assert str(error.value) == expected.format([0, 1, 2])


def test_sparse_input_with_the_linear_kernel():
    X, y, labels = three_blobs()
    model = OneVsRestS3VM(GradientTSVM(kernel="linear")).fit(sp.csr_matrix(X), labels)
    assert sp.issparse(model.features(sp.csr_matrix(X)))
    assert unlabeled_error(model, y, labels) <= 0.05


# -- scikit-learn and messages ----------------------------------------------------------------


@parametrize_with_checks(
    [OneVsRestS3VM(SVMBaseline()), OneVsRestS3VM(LapSVM()),
     OneVsRestS3VM(GradientTSVM(kernel="linear"))],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("labels, message", [
    ([-1] * 30, "No point is labeled"),
    ([0] * 3 + [-1] * 27, "Only class 0 has labeled points. Label at least one point of each"),
    (["-1", "a", "b"] + [-1] * 27, "the string '-1'"),
    (["-1", "a"] + [-1] * 28, "the string '-1'"),
    ([0.5, 1.5, 2.25] + [-1] * 27, "0.5, 1.5, 2.25, which are not whole numbers"),
])
def test_bad_labels_get_a_sentence(labels, message):
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match=message):
        OneVsRestS3VM(SVMBaseline()).fit(X, np.array(labels, dtype=object if isinstance(
            labels[0], str) else None))


def test_a_binary_solver_given_three_classes_names_the_one_vs_rest_estimator():
    X, _, labels = three_blobs()
    with pytest.raises(ValueError, match=r"3 classes \(0, 1, 2\).*OneVsRestS3VM"):
        GradientTSVM().fit(X, labels)


def test_a_fixed_positive_fraction_is_refused():
    X, _, labels = three_blobs()
    with pytest.raises(ValueError, match="leave r=None"):
        OneVsRestS3VM(DeterministicAnnealingS3VM(r=0.3)).fit(X, labels)


def test_an_estimator_without_a_trace_is_refused():
    X, _, labels = three_blobs()
    with pytest.raises(InvalidParameterError, match="estimator"):
        OneVsRestS3VM(SVC()).fit(X, labels)


def test_a_binary_problems_error_reaches_the_caller():
    X, _, labels = three_blobs()
    with pytest.raises(ValueError, match="n_neighbors"):
        OneVsRestS3VM(LapSVM(n_neighbors=500)).fit(X, labels)
    with pytest.raises(ValueError, match="n_neighbors"):
        OneVsRestS3VM(LapSVM(n_neighbors=500), n_jobs=2).fit(X, labels)
