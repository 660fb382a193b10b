"""Features on different scales, found by their standard deviations and standardized
(``toy_data.scaling``, issue 42, item 1)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine

from toy_data import two_moons
from toy_data.scaling import (
    SCALE_RATIO,
    FeatureScalesWarning,
    Standardization,
    feature_scales,
    scale_ratio,
    scales_differ,
    scales_sentence,
    warn_if_scales_differ,
)


def test_wines_scales_differ_thousands_of_times_and_two_moons_do_not():
    wine = load_wine()
    assert scale_ratio(wine.data) == pytest.approx(2530, rel=0.01)  # proline over phenols
    assert scales_differ(wine.data)
    assert scales_sentence(wine.data, wine.feature_names) == (
        "standard deviations from 0.124 ('nonflavanoid_phenols') to 314 ('proline'), 2,530 "
        "times apart")
    X, _ = two_moons(200, noise=0.1, random_state=0)
    assert scale_ratio(X) < 2 and not scales_differ(X)


def test_a_constant_column_has_no_scale_and_a_mostly_zero_one_keeps_its_own():
    rng = np.random.default_rng(0)
    rare = (rng.random(200) < 0.05).astype(float)  # its interquartile range would be 0
    X = np.column_stack([rng.normal(0, 1, 200), np.full(200, 7.0), rare,
                         np.full(200, 1e9) + 1e-9 * rng.random(200)])  # a constant, rounded
    scales = feature_scales(X)
    assert np.isnan(scales[1]) and np.isnan(scales[3])
    assert scales[2] == pytest.approx(rare.std())
    assert scale_ratio(X) == pytest.approx(scales[0] / scales[2])
    # fewer than two varying features: nothing to compare
    assert scale_ratio(X[:, [0, 1]]) == 1.0 and not scales_differ(X[:, [1, 3]])


def test_the_threshold_is_ten_times():
    X = np.column_stack([np.arange(10.0), SCALE_RATIO * 0.99 * np.arange(10.0)])
    assert not scales_differ(X)
    X[:, 1] *= 1.02 / 0.99
    assert scales_differ(X)


def test_z_scores_have_mean_0_and_standard_deviation_1_and_a_constant_column_is_centred():
    X = np.column_stack([load_wine().data[:, [0, 12]], np.full(178, 3.0)])
    scaling = Standardization.of(X)
    Z = scaling.apply(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), [1, 1, 0], atol=1e-12)
    assert scaling.scale[2] == 1.0 and np.all(np.isfinite(Z))
    # new points take the same means and scales, not their own
    np.testing.assert_allclose(scaling.apply(X[:5]), Z[:5])


def test_sparse_data_are_divided_by_their_scales_and_stay_sparse():
    X = load_wine().data
    X[X < np.median(X, axis=0)] = 0
    S = sp.csr_matrix(X)
    np.testing.assert_allclose(feature_scales(S), feature_scales(X))
    scaled = Standardization.of(S).apply(S)
    assert sp.issparse(scaled) and scaled.nnz == S.nnz
    np.testing.assert_allclose(scaled.toarray(), X / X.std(axis=0))


@pytest.mark.parametrize(("mean", "scale", "said"), [
    ([0.0, 1.0], [1.0], "scale is not 2 finite numbers"),
    ([0.0, np.nan], [1.0, 1.0], "mean is not 2 finite numbers"),
    ([0.0, 0.0], [1.0, 0.0], "scale that is not positive"),
    (["a", "b"], [1.0, 1.0], "mean is not 2"),
])
def test_a_standardization_read_from_a_file_is_checked(mean, scale, said):
    with pytest.raises(ValueError, match=said):
        Standardization.checked(np.array(mean), np.array(scale), 2)


def test_the_warning_is_one_sentence_and_only_where_scales_differ():
    wine = load_wine()
    with pytest.warns(FeatureScalesWarning, match=r"^Standard deviations from 0\.124 .*"
                      r"largest; add --standardize\.$"):
        warn_if_scales_differ(wine.data, wine.feature_names, "; add --standardize")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_scales_differ(two_moons(100, noise=0.1, random_state=0)[0])
