"""The synthetic images of the LapSVM paper's large data sets' shapes."""

import numpy as np
import pytest

from toy_data.images import FACE_FRACTION, faces, strokes_3vs8


def test_threes_and_eights_are_784_pixels_of_unit_length():
    X, y = strokes_3vs8(400, random_state=0)
    assert X.shape == (400, 784) and set(y) == {0, 1}
    assert 0.4 < y.mean() < 0.6
    assert X.min() >= 0.0
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    # the polynomial kernel of MNIST3VS8 (degree 9, §6.3) stays between 1 and 2^9
    K = (X @ X.T + 1.0) ** 9
    assert K.min() >= 1.0 and K.max() <= 512.0 + 1e-9


def test_faces_are_rare_histogram_equalized_361_pixel_images():
    X, y = faces(3000, random_state=0)
    assert X.shape == (3000, 361)
    assert y.mean() == pytest.approx(FACE_FRACTION, abs=0.01)
    # equalized: every image's pixels are the ranks 0, 1/360, ..., 1
    np.testing.assert_allclose(np.sort(X[0]), np.linspace(0, 1, 361))


@pytest.mark.parametrize("generator", [strokes_3vs8, faces])
def test_the_images_are_fixed_by_the_seed(generator):
    X1, y1 = generator(50, random_state=3)
    X2, y2 = generator(50, random_state=3)
    X3, _ = generator(50, random_state=4)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    assert not np.array_equal(X1, X3)


@pytest.mark.parametrize(("generator", "options", "share"), [
    (strokes_3vs8, {}, 0.9), (faces, {"face_fraction": 0.5}, 0.8)])
def test_each_class_is_a_cluster_of_neighbours(generator, options, share):
    """The cluster assumption LapSVM's graph relies on: most of a point's 6 nearest neighbours
    are of its class (at n = 3000: threes and eights 96 %, faces and clutter 84 %; the
    share grows with n as the manifolds fill in)."""
    from sklearn.neighbors import NearestNeighbors

    X, y = generator(3000, random_state=0, **options)
    neighbours = NearestNeighbors(n_neighbors=7).fit(X).kneighbors(
        X, return_distance=False)[:, 1:]
    assert np.mean(y[neighbours] == y[:, None]) > share


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="n_samples must be an integer"):
        strokes_3vs8(2)
    with pytest.raises(ValueError, match="face_fraction must lie between 0 and 1"):
        faces(100, face_fraction=1.5)
