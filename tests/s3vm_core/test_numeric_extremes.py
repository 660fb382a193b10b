"""Numeric extremes of issue 15 ("Silent NaN and raw errors"): each ends in a fit whose
decisions are finite, or in a sentence that names the parameter or the data scale to change."""

import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import s3vm_core
from s3vm_core import LDS, QNS3VM, LapRLSC, LapSVM, SVMBaseline
from s3vm_core.base import S3VMClassifier
from s3vm_core.kernels import kernel_matrix, rbf_kernel, squared_distances
from toy_data import pick_labeled, two_moons

ESTIMATORS = [getattr(s3vm_core, name) for name in s3vm_core.__all__
              if isinstance(getattr(s3vm_core, name), type)
              and issubclass(getattr(s3vm_core, name), S3VMClassifier)]
KERNEL_ESTIMATORS = [cls for cls in ESTIMATORS if "kernel" in cls().get_params()]
WIDTH_ESTIMATORS = [cls for cls in ESTIMATORS if "sigma" in cls().get_params()]


@pytest.fixture(scope="module")
def small():
    X, y = two_moons(40, noise=0.1, random_state=0)
    return X, pick_labeled(y, 2, random_state=0)


@pytest.fixture(autouse=True)
def _strict_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # from numpy and scipy too
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def _assert_finite_fit(model, X, labels):
    states = list(model.trace(X, labels))
    for state in states:
        assert np.all(np.isfinite(state.train_decision)) and np.isfinite(state.intercept)
    assert np.all(np.isfinite(model.decision_function(X)))
    assert set(model.predict(X)) <= set(model.classes_)


# -- kernel width ----------------------------------------------------------------------------


def test_extreme_widths_give_the_kernels_limits_never_nan():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 3.0]])
    for sigma in (1e-200, 1e-160, 5e-324):
        np.testing.assert_array_equal(rbf_kernel(X, X, sigma), np.eye(3))
    for sigma in (1e200, 2.0**63, 1.7e308):
        np.testing.assert_array_equal(rbf_kernel(X, X, sigma), np.ones((3, 3)))


@pytest.mark.parametrize("sigma", [1e-300, 1e-200, 1e-160], ids=str)
@pytest.mark.parametrize("cls", WIDTH_ESTIMATORS, ids=lambda c: c.__name__)
def test_a_tiny_width_is_refused_with_the_smallest_width_the_data_allow(small, cls, sigma):
    # K = I: the model would predict one class everywhere away from the training points
    X, labels = small
    nearest = np.sqrt(np.min(squared_distances(X, X)[~np.eye(len(X), dtype=bool)]))
    with pytest.raises(ValueError, match=rf"^sigma={sigma:.3g} is so much smaller than the "
                                         r"distance between the two closest points .* at least "
                                         r"(\S+) \(None") as error:
        cls(sigma=sigma).fit(X, labels)
    smallest = float(re.search(r"at least (\S+) ", str(error.value)).group(1))
    assert smallest == pytest.approx(nearest / 8.49, rel=1e-2)
    # just above that limit, the closest pair's kernel value is above round-off: a fit
    _assert_finite_fit(cls(sigma=1.01 * smallest), X, labels)


@pytest.mark.parametrize("sigma", [1e200, 2.0**63], ids=str)
@pytest.mark.parametrize("cls", WIDTH_ESTIMATORS, ids=lambda c: c.__name__)
def test_a_huge_width_is_named_as_the_reason_nothing_can_be_separated(small, cls, sigma):
    # not "zero variance" or "all points coincide": the points do not coincide
    with pytest.raises(ValueError, match=r"sigma=.* every kernel value rounds to 1") as error:
        cls(sigma=sigma).fit(*small)
    assert "coincide" not in str(error.value)


# -- the data scale -------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_data_too_large_for_floating_point_is_refused_naming_its_scale(small, cls):
    X, labels = small
    with pytest.raises(ValueError, match=r"X has values as large as 2\.\d+e\+160.*Rescale X"):
        cls().fit(X * 1e160, labels)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_tiny_data_is_not_called_coincident(small, cls):
    X, labels = small
    with pytest.raises(ValueError, match=r"largest absolute value in X is 2\.\d+e-200") as error:
        cls().fit(X * 1e-200, labels)
    assert "coincide (" not in str(error.value)


@pytest.mark.parametrize("scale", [1e45, 1e-45], ids=str)
@pytest.mark.parametrize("cls", [cls for cls in ESTIMATORS
                                 if cls not in (LDS, s3vm_core.GraphKernelSVM)],
                         ids=lambda c: c.__name__)
def test_data_at_the_edges_of_the_accepted_scale_fit(small, cls, scale):
    X, labels = small
    _assert_finite_fit(cls(), X * scale, labels)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_data_far_from_the_origin_fit_as_well_as_centred_data(small, cls):
    # ||x||^2 + ||z||^2 - 2 <x, z> around 1e6 once made the RBF kernel indefinite and QN-S3VM's
    # objective unbounded below (NaN after 133 steps).
    X, labels = small
    model = cls().fit(X + 1e6, labels)
    centred = cls().fit(X, labels)
    np.testing.assert_array_equal(model.predict(X + 1e6), centred.predict(X))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_new_points_far_outside_the_training_scale_are_refused(small, cls):
    X, labels = small
    model = cls().fit(X, labels)
    with pytest.raises(ValueError, match=r"X has values as large as 2\.\d+e\+155"):
        model.decision_function(X * 1e155)


def test_lds_on_new_points_at_a_large_but_accepted_scale_is_finite(small):
    X, labels = small
    model = LDS().fit(X, labels)
    assert np.all(np.isfinite(model.decision_function(X * 1e40)))


# -- the polynomial kernel -------------------------------------------------------------------


@pytest.mark.parametrize("cls", KERNEL_ESTIMATORS, ids=lambda c: c.__name__)
def test_a_polynomial_kernel_that_overflows_names_degree_and_coef0(small, cls):
    with pytest.raises(ValueError, match=r"degree=3 and coef0=1e\+300.*smaller degree or coef0"):
        cls(kernel="poly", coef0=1e300).fit(*small)


@pytest.mark.parametrize("cls", [QNS3VM, LapSVM, LapRLSC], ids=lambda c: c.__name__)
def test_a_huge_polynomial_degree_is_refused(small, cls):
    with pytest.raises(ValueError, match=r"'degree' parameter .* \[1, 100\] .*paper"):
        cls(kernel="poly", degree=10**6).fit(*small)


def test_kernel_matrix_stays_below_its_limit_or_says_why():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(kernel_matrix(X, X, "poly", degree=30, coef0=1e3)[0, 0],
                               1005.0**30)
    with pytest.raises(ValueError, match=r"degree=40 and coef0=1e\+03, and inner products "
                                         r"<x, z> up to 25, its values exceed 1e\+100"):
        kernel_matrix(X, X, "poly", degree=40, coef0=1e3)
    with pytest.raises(ValueError, match=r"inner products <x, z> of the points reach 2\.5e\+101"):
        kernel_matrix(X * 1e50, X * 1e50, "linear")


# -- coincident points and graphs ------------------------------------------------------------


def test_lapsvm_on_coincident_points_says_so(small):
    _, labels = small
    with pytest.raises(ValueError, match="All 40 points coincide"):
        LapSVM(sigma=1.0).fit(np.ones((40, 2)), labels)


def test_lapsvm_with_duplicated_points_keeps_their_edges(small):
    X, labels = small
    doubled = np.repeat(X, 2, axis=0)
    model = LapSVM(n_neighbors=1, graph_weights="binary").fit(doubled, np.repeat(labels, 2))
    # each point's only neighbour is its twin: the graph has one edge per pair
    W_degree = np.asarray(model.laplacian_.diagonal())
    assert np.all(W_degree > 0)
    with pytest.raises(ValueError, match="neighbours all coincide"):
        LapSVM(n_neighbors=1).fit(doubled, np.repeat(labels, 2))


def test_a_graph_width_too_small_for_any_edge_is_refused(small):
    with pytest.raises(ValueError, match=r"graph_sigma=1e-300 .* no edge left"):
        LapSVM(graph_sigma=1e-300).fit(*small)


# -- costs, alphas, rho ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "params", "name"),
    [
        (SVMBaseline, {"C": 1e300}, "C"),
        (s3vm_core.GradientTSVM, {"C": 1e300}, "C"),
        (s3vm_core.GradientTSVM, {"C_star": 1e300}, "C_star"),
        (s3vm_core.ContinuationS3VM, {"C": 1e300}, "C"),
        (s3vm_core.ContinuationS3VM, {"C_star": 1e300}, "C_star"),
        (LDS, {"C": 1e300}, "C"),
        (LapSVM, {"gamma_A": 1e300}, "gamma_A"),
    ],
)
def test_costs_beyond_float64_are_refused_with_the_reason(small, cls, params, name):
    with pytest.raises(ValueError, match=rf"'{name}' parameter .* 1e\+10\] .*round-off"):
        cls(**params).fit(*small)


def test_the_largest_accepted_costs_fit_with_finite_decisions(small):
    for model in (SVMBaseline(C=1e10), s3vm_core.GradientTSVM(C=1e10, C_star=1e10, max_iter=50),
                  s3vm_core.ContinuationS3VM(C=1e10, max_iter=50), LapSVM(gamma_I=1e10)):
        _assert_finite_fit(model, *small)


def test_qn_alphas_beyond_their_bound_are_refused(small):
    with pytest.raises(ValueError, match=r"alphas=\[1e\+300\] .* up to 10000"):
        QNS3VM(alphas=[1e300]).fit(*small)


def test_rho_too_large_is_reported_without_a_300_digit_number(small):
    with pytest.raises(ValueError, match=r"rho times the longest edge is 3\.\d+e\+300") as error:
        LDS(rho=1e300).fit(*small)
    assert not re.search(r"\d{20}", str(error.value))


# -- parameters and labels that are not what they seem ---------------------------------------


@pytest.mark.parametrize(
    ("cls", "name"),
    [(s3vm_core.GradientTSVM, "n_components"), (QNS3VM, "n_landmarks"), (LapSVM, "p"),
     (SVMBaseline, "C"), (s3vm_core.ContinuationS3VM, "n_gamma")],
)
def test_a_bool_is_not_taken_for_a_number(small, cls, name):
    with pytest.raises(TypeError, match=rf"'{name}' parameter .* must be a number, not the "
                                        "boolean True"):
        cls(**{name: True}).fit(*small)


@pytest.mark.parametrize(("cls", "name"), [(s3vm_core.ContinuationS3VM, "n_gamma"),
                                           (QNS3VM, "m")])
def test_two_to_the_63_is_refused_in_a_sentence(small, cls, name):
    with pytest.raises(ValueError, match=rf"The '{name}' parameter of {cls.__name__} must be an "
                                         "int in the range"):
        cls(**{name: 2**63}).fit(*small)


def test_a_validation_set_beyond_floating_point_is_refused(small):
    X, labels = small
    with pytest.raises(ValueError, match=r"X_val has values as large as 2\.\d+e\+160"):
        LapSVM(solver="pcg", stopping="validation").fit(X, labels, X_val=X * 1e160,
                                                         y_val=np.r_[[0, 1] * 20])


def test_the_landscape_slice_refuses_an_infinite_smoothing(small):
    model = s3vm_core.ContinuationS3VM().fit(*small)
    for gamma in (np.inf, np.nan, -1.0):
        with pytest.raises(ValueError, match="gamma is a smoothing variance"):
            s3vm_core.smoothed_objective_along_line(model, model.coef_, gamma=gamma)
    with pytest.raises(ValueError, match="ts and direction must hold finite numbers"):
        s3vm_core.smoothed_objective_along_line(model, model.coef_, ts=[0.0, 1e300])
    _, values = s3vm_core.smoothed_objective_along_line(model, model.coef_, gamma=1e-3)
    assert np.all(np.isfinite(values))
