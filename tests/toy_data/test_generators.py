import numpy as np
import pytest

from toy_data import (
    DATASETS,
    blobs,
    clock,
    crossed_clusters,
    digits_pair,
    g10n,
    g50c,
    gaussian_2c,
    gaussian_4c,
    make_dataset,
    overlapping_gaussians,
    parallel_clusters,
    pick_labeled,
    two_circles,
    two_moons,
    unbalanced_moons,
)


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_registered_data_set_is_deterministic_with_its_classes(name):
    spec = DATASETS[name]
    X1, y1 = make_dataset(name, random_state=3)
    X2, y2 = make_dataset(name, random_state=3)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert X1.shape == (spec.n_samples, spec.n_features)
    assert set(np.unique(y1)) == set(range(spec.n_classes))
    assert np.all(np.isfinite(X1))
    if not spec.fixed_size:
        X3, _ = make_dataset(name, random_state=4)
        assert not np.array_equal(X1, X3)


def test_at_least_one_registered_data_set_has_three_or_more_classes():
    assert any(spec.n_classes >= 3 and spec.n_features == 2 for spec in DATASETS.values())


def test_blobs_are_k_equal_clusters_around_their_means():
    X, y = blobs(n_samples=500, noise=0.0, random_state=0, n_classes=5)
    assert np.bincount(y).tolist() == [100] * 5
    centres = np.array([X[y == c][0] for c in range(5)])
    np.testing.assert_allclose(np.linalg.norm(centres, axis=1), 3.0)
    with pytest.raises(ValueError, match="n_classes"):
        blobs(n_classes=1)


def test_clock_classes_are_rim_and_hands():
    X, y = clock(n_samples=600, noise=0.0, random_state=0)
    radius = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(radius[y == 0], 1.0)
    assert radius[y == 1].max() <= 0.75 + 1e-12
    # The hands point at ten and two o'clock: every hand point lies on one of two rays.
    hands = X[y == 1]
    angles = np.degrees(np.arctan2(hands[:, 1], hands[:, 0]))
    assert np.all(np.isclose(angles, 150) | np.isclose(angles, 30) | (radius[y == 1] < 1e-9))
    assert 0.55 <= np.mean(y == 0) <= 0.65


def test_moons_and_circles_geometry():
    X, y = two_moons(400, noise=0.0, random_state=0)
    assert X[y == 0, 1].min() >= -1e-9  # upper moon
    assert X[y == 1, 1].max() <= 0.5 + 1e-9  # lower moon
    X, y = two_circles(400, noise=0.0, random_state=0)
    np.testing.assert_allclose(np.linalg.norm(X[y == 0], axis=1), 1.0)
    np.testing.assert_allclose(np.linalg.norm(X[y == 1], axis=1), 0.5)


def test_gaussian_2c_and_4c_means_follow_the_qn_paper():
    X, y = gaussian_2c(n_samples=4000, n_features=5, random_state=0)
    np.testing.assert_allclose(X[y == 0].mean(axis=0), [-2.5, 0, 0, 0, 0], atol=0.1)
    np.testing.assert_allclose(X[y == 1].mean(axis=0), [2.5, 0, 0, 0, 0], atol=0.1)
    X, y = gaussian_4c(n_samples=4000, n_features=3, random_state=0)
    # Class 0 has x1 near -2.5 and two clusters at x2 = +-5: the misleading structure.
    assert abs(X[y == 0, 0].mean() + 2.5) < 0.1 and abs(X[y == 1, 0].mean() - 2.5) < 0.1
    assert np.mean(np.abs(X[:, 1]) > 2.5) > 0.9


def test_g50c_has_five_percent_bayes_error():
    X, y = g50c(n_samples=40000, random_state=0)
    # The Bayes rule is the sign of the projection on the mean direction.
    bayes = (X.sum(axis=1) > 0).astype(int)
    assert abs(np.mean(bayes != y) - 0.05) < 0.005


def test_g10n_labels_cut_through_both_clusters():
    X, y = g10n(n_samples=2000, random_state=0)
    assert X.shape[1] == 10
    np.testing.assert_array_equal(y, (X[:, 1] + X[:, 2] > 0).astype(int))
    for cluster in (X[:, 0] < 0, X[:, 0] > 0):
        assert 0.4 < y[cluster].mean() < 0.6  # each cluster holds both classes


def test_digits_pair_scaled_and_subsampled():
    X, y = digits_pair(digits=(3, 8))
    assert X.shape[1] == 64 and 0 <= X.min() and X.max() <= 1
    assert set(np.unique(y)) == {0, 1}
    Xs, ys = digits_pair(n_samples=100, random_state=0, digits=(2, 5))
    assert Xs.shape == (100, 64)
    with pytest.raises(ValueError, match="two different digits"):
        digits_pair(digits=(3, 3))
    with pytest.raises(ValueError, match="at most"):
        digits_pair(n_samples=5000)


@pytest.mark.parametrize("bad", [{"n_samples": 2}, {"n_samples": 2.5}, {"noise": -1.0},
                                 {"noise": float("nan")}])
def test_generators_reject_bad_settings(bad):
    with pytest.raises(ValueError, match="n_samples|noise"):
        two_moons(**{"n_samples": 100, "noise": 0.1, **bad})


def test_pick_labeled_keeps_k_per_class_and_is_reproducible():
    _, y = two_moons(100, random_state=0)
    labeled = pick_labeled(y, 3, random_state=1)
    for cls in (0, 1):
        assert np.sum(labeled == cls) == 3
    assert np.all((labeled == -1) | (labeled == y))
    np.testing.assert_array_equal(labeled, pick_labeled(y, 3, random_state=1))
    with pytest.raises(ValueError, match="only"):
        pick_labeled(y, 60)
    with pytest.raises(ValueError, match="positive"):
        pick_labeled(y, 0)


# -- the data sets of the When unlabeled data hurt page (issue 41) ------------------------------

@pytest.mark.parametrize("generator", [parallel_clusters, overlapping_gaussians, crossed_clusters,
                                       unbalanced_moons])
def test_the_hurt_pages_data_sets_are_deterministic_planes_of_two_classes(generator):
    X1, y1 = generator(n_samples=101, random_state=3)
    X2, y2 = generator(n_samples=101, random_state=3)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert X1.shape == (101, 2) and set(np.unique(y1)) == {0, 1}
    assert not np.array_equal(X1, generator(n_samples=101, random_state=4)[0])
    with pytest.raises(ValueError, match="n_samples"):
        generator(n_samples=2)


def test_parallel_clusters_are_separated_by_a_gap_along_which_they_stretch():
    X, y = parallel_clusters(n_samples=4000, random_state=0)
    assert np.bincount(y).tolist() == [2000, 2000]
    assert X[y == 0, 0].max() < -0.6 + 5 * 0.2 and X[y == 1, 0].min() > 0.6 - 5 * 0.2
    # the gap: between the clusters a twentieth of the density at their centres
    assert np.sum(np.abs(X[:, 0]) < 0.1) < 0.05 * np.sum(np.abs(X[:, 0] - 0.6) < 0.1)
    assert X[:, 1].std() > 4 * X[y == 0, 0].std()  # long along it


def test_overlapping_gaussians_have_no_dip_between_the_classes():
    X, y = overlapping_gaussians(n_samples=20000, random_state=0)
    counts, edges = np.histogram(X[:, 0], bins=np.linspace(-0.6, 0.6, 7))
    # the density along the classes' axis peaks in the middle, where the boundary lies
    assert counts[2:4].sum() >= counts[:2].sum() and counts[2:4].sum() >= counts[4:].sum()
    bayes = np.mean((X[:, 0] > 0) != (y == 1))
    assert bayes == pytest.approx(0.20, abs=0.01)  # Phi(-0.5 / 0.6)


def test_crossed_clusters_hold_both_classes_in_each_cluster():
    X, y = crossed_clusters(n_samples=4000, random_state=0)
    left = X[:, 0] < 0
    # a gap between the clusters: a twentieth of the density at their centres
    assert np.sum(np.abs(X[:, 0]) < 0.1) < 0.05 * np.sum(np.abs(X[:, 0] - 1.0) < 0.1)
    for cluster in (left, ~left):
        assert np.mean(y[cluster]) == pytest.approx(0.5, abs=0.05)
    np.testing.assert_array_equal(y, X[:, 1] > 0)


def test_unbalanced_moons_put_the_share_in_the_upper_moon():
    X, y = unbalanced_moons(n_samples=200, noise=0.0, random_state=0)
    assert np.bincount(y).tolist() == [160, 40]
    np.testing.assert_allclose(np.linalg.norm(X[y == 0], axis=1), 1.0)  # the upper moon
    assert np.bincount(unbalanced_moons(n_samples=100, share=0.5, random_state=0)[1]).tolist() \
        == [50, 50]
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        unbalanced_moons(share=1.0)
    with pytest.raises(ValueError, match="leaves a moon empty"):
        unbalanced_moons(n_samples=10, share=0.98)
