"""Bad input of DESIGN.md "Errors": each raises with a sentence that says what to do."""

import numpy as np
import pytest

from s3vm_core import SVMBaseline
from s3vm_core.problem import DATA_SCALE, check_dense_memory, encode_labels


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
