"""Bad input of docs/architecture.md "Errors": each raises with a sentence that says what to do."""

import numpy as np
import pytest

import s3vm_core
from s3vm_core import LapRLSC, LapSVM, SVMBaseline
from s3vm_core.base import S3VMClassifier
from s3vm_core.problem import DATA_SCALE, check_dense_memory, encode_labels
from toy_data import pick_labeled, two_moons


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.full(20, -1)
    y[:2] = [0, 1]
    return X, y


def test_labels_are_mapped_to_signs_and_unlabeled_to_zero():
    signed, classes = encode_labels(np.array(["b", "a", "b"]))
    np.testing.assert_array_equal(classes, ["a", "b"])
    np.testing.assert_array_equal(signed, [1, -1, 1])
    signed, classes = encode_labels(np.array([3, -1, 7, -1]))
    np.testing.assert_array_equal(signed, [-1, 0, 1, 0])


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ([-1] * 20, "No point is labeled"),
        ([0, 0] + [-1] * 18, "each class"),
        ([0, 1, 2] + [-1] * 17, "OneVsRestS3VM"),
        ([0.5, 1.5] + [-1] * 18, "continuous"),
    ],
)
def test_label_errors(data, labels, message):
    X, _ = data
    with pytest.raises(ValueError, match=message):
        SVMBaseline().fit(X, np.array(labels))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_refused(data, bad):
    X, y = data
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN or infinite value"):
        SVMBaseline().fit(X, y)


def test_shape_mismatch(data):
    X, y = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples|one label"):
        SVMBaseline().fit(X, y[:10])


def test_huge_kernel_is_refused_before_allocation():
    with pytest.raises(ValueError, match=r"GiB of memory.*fewer points"):
        check_dense_memory(100_000, 100_000)


@pytest.mark.parametrize("params", [{"C": -1.0}, {"C": 0}, {"sigma": 0.0}, {"kernel": "cubic"},
                                    {"degree": 0}])
def test_hyperparameters_out_of_range(data, params):
    X, y = data
    with pytest.raises(ValueError, match="parameter of SVMBaseline must be"):
        SVMBaseline(**params).fit(X, y)


def test_identical_points_cannot_define_a_kernel_width():
    X = np.ones((5, 2))
    with pytest.raises(ValueError, match="coincide"):
        SVMBaseline().fit(X, np.array([0, 1, -1, -1, -1]))


def test_a_single_labeled_class_is_named_as_the_user_wrote_it(data):
    X, _ = data
    labels = np.full(20, -1)
    labels[:3] = 0
    with pytest.raises(ValueError, match=r"^Only class 0 has labeled points"):
        SVMBaseline().fit(X, labels.astype(np.int64))


def test_the_string_minus_one_gets_a_hint_that_only_the_number_means_unlabeled(data):
    X, labels = data
    text = np.array([str(v) for v in labels])
    with pytest.raises(ValueError, match=r"the string '-1'.*only the number -1 marks an "
                                         "unlabeled point"):
        SVMBaseline().fit(X, text)
    # the number -1 among class names (an object array, scikit-learn's convention) does work
    named = np.array([-1 if v == -1 else "ab"[v] for v in labels], dtype=object)
    model = SVMBaseline().fit(X, named)
    assert list(model.classes_) == ["a", "b"]


@pytest.mark.parametrize("factor", [1e160, 1e-200])
def test_data_beyond_what_floating_point_can_square_is_refused(data, factor):
    X, y = data
    with pytest.raises(ValueError, match=r"Rescale X .* within 1e-50 \.\. 1e\+50") as error:
        SVMBaseline().fit(X * factor, y)
    assert "coincide" not in str(error.value)  # tiny points are not the same point


def test_data_at_the_edges_of_the_scale_fit(data):
    X, y = data
    low, high = DATA_SCALE
    for factor in (low, high / 10):
        scaled = X / np.max(np.abs(X)) * factor
        model = SVMBaseline().fit(scaled, y)
        assert np.all(np.isfinite(model.decision_function(scaled)))


# -- issue 26, item 7: messages that named internals or misled ------------------------------

ESTIMATORS = [getattr(s3vm_core, name) for name in s3vm_core.__all__
              if isinstance(getattr(s3vm_core, name), type)
              and issubclass(getattr(s3vm_core, name), S3VMClassifier)]


@pytest.mark.parametrize("labeled", [[0, 1, "a"], ["b", "a", 0], [0, "a"]],
                         ids=["numbers first", "strings first", "one of each"])
def test_labels_mixing_numbers_and_strings_are_named_so(data, labeled):
    X, _ = data
    labels = np.array(labeled + [-1] * (20 - len(labeled)), dtype=object)
    with pytest.raises(ValueError, match=r"^The labels in y mix numbers and strings .* all as "
                                         "numbers or all as strings"):
        SVMBaseline().fit(X, labels)


@pytest.mark.parametrize("method", ["fit", "trace"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_an_unknown_fit_keyword_names_the_method_and_what_it_takes(data, cls, method):
    X, y = data
    with pytest.raises(TypeError) as error:
        getattr(cls(), method)(X, y, sample_weight=np.ones(20))
    message = str(error.value)
    assert message.startswith(f"{cls.__name__}.{method}() got an unexpected keyword argument "
                              "'sample_weight': it takes X")
    assert "_setup" not in message and "_Laplacian" not in message
    assert ("X_val and y_val only" in message) == (cls in (LapSVM, LapRLSC))


def test_a_validation_set_with_nan_names_x_val_and_y_val(data):
    X, y = data
    X_val = X[:4].copy()
    X_val[1, 0] = np.nan
    model = LapSVM(solver="pcg", stopping="validation")
    with pytest.raises(ValueError, match=r"^X_val contains 1 NaN"):
        model.fit(X, y, X_val=X_val, y_val=[0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"^y_val contains labels \[nan\]"):
        model.fit(X, y, X_val=X[:4], y_val=[0.0, np.nan, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"^The labels in y_val mix numbers and strings"):
        model.fit(X, y, X_val=X[:4], y_val=np.array([0, "a", 0, 1], dtype=object))


def test_score_counts_the_labeled_points_only():
    X, truth = two_moons(200, noise=0.1, random_state=0)
    labels = pick_labeled(truth, 5, random_state=0)
    model = SVMBaseline().fit(X, labels)
    right = model.predict(X) == truth
    # the training labels: the ten labeled points are scored, not the 190 marked -1 (counted
    # as a third class, they would put the score below 10/200)
    labeled = labels != -1
    assert model.score(X, labels) == pytest.approx(right[labeled].mean())
    assert model.score(X, labels) >= 0.8
    # true labels with some points marked -1: the accuracy on the others
    partial = np.where(np.arange(200) % 2 == 0, truth, -1)
    assert model.score(X, partial) == pytest.approx(right[::2].mean())
    weights = np.linspace(1, 2, 200)
    assert model.score(X, partial, sample_weight=weights) == pytest.approx(
        np.average(right[::2], weights=weights[::2]))
    with pytest.raises(ValueError, match="Every label in y is -1"):
        model.score(X, np.full(200, -1))
