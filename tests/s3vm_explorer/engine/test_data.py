"""The data on screen (``engine.data``): where it comes from, and the plane it is drawn in for
any number of features."""

import numpy as np
import pytest

from s3vm_core import SVMBaseline
from s3vm_explorer.engine.data import Data, Generated, View, read_upload
from toy_data import gaussian_2c, two_moons


def test_two_dimensional_data_is_drawn_as_it_is():
    X, _ = two_moons(50, random_state=0)
    view = View.of(X)
    np.testing.assert_array_equal(view.project(X), X)
    np.testing.assert_array_equal(view.lift(X), X)
    assert not view.is_projection and not view.is_line


def test_more_features_are_drawn_on_the_plane_of_the_first_two_principal_components():
    X, _ = gaussian_2c(200, n_features=20, random_state=0)
    view = View.of(X)
    points = view.project(X)
    assert points.shape == (200, 2) and view.titles == ("PC 1", "PC 2")
    # The first principal component is the axis that separates the Gaussians.
    assert abs(np.corrcoef(points[:, 0], X[:, 0])[0, 1]) > 0.9
    # the plane passes through the mean, and a point of the plane maps back onto itself
    np.testing.assert_allclose(view.lift(np.zeros((1, 2)))[0], X.mean(axis=0))
    on_plane = view.lift(points)
    np.testing.assert_allclose(view.project(on_plane), points, atol=1e-10)
    # the same data gives the same picture (no sign flips between two regenerations)
    np.testing.assert_array_equal(View.of(X.copy()).project(X), points)


def test_one_feature_is_a_line_in_a_strip_whose_boundary_is_a_point():
    """One-dimensional data (the density gap on a line, the classic S3VM picture) is drawn as
    points on a line in a strip of the plane: f along the axis, the same across it."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 0.5, 30), rng.normal(2, 0.5, 30)][:, None]
    labels = np.full(60, -1)
    labels[[0, 59]] = [0, 1]
    data = Data(X, np.r_[np.zeros(30), np.ones(30)].astype(int), View.of(X))
    assert data.view.is_line and np.all(data.X2[:, 1] == 0)
    np.testing.assert_array_equal(data.X2[:, 0], X[:, 0])
    grid_x, grid_y = data.grid(30)
    f = SVMBaseline().fit(X, labels).decision_function(data.view.lift(np.column_stack(
        [np.tile(grid_x, 30), np.repeat(grid_y, 30)]))).reshape(30, 30)
    assert np.allclose(f, f[0])  # the same across the strip
    crossings = np.flatnonzero(np.diff(np.sign(f[0])))
    assert len(crossings) == 1 and -1 < grid_x[crossings[0]] < 1  # one point, in the gap
    assert np.ptp(grid_y) == pytest.approx(0.25 * np.ptp(grid_x))


def test_a_generated_source_builds_its_points_and_the_ones_added_by_clicking():
    source = Generated("two_moons", 40, 0.1, 3, added=((0.5, 1.3, 1),))
    data = source.build()
    assert data.X.shape == (41, 2) and data.y_true[-1] == 1
    assert source == Generated("two_moons", 40, 0.1, 3, added=((0.5, 1.3, 1),))
    with pytest.raises(ValueError, match="2-D data sets only"):
        Generated("g50c", 40, 1.0, 0, added=((0.0, 0.0, 1),)).build()


def test_a_one_feature_file_is_a_data_set_of_the_app():
    upload = read_upload("line.csv", b"x,label\n-2,a\n-1.8,\n2,b\n2.1,\n")
    data = upload.build()
    assert data.X.shape == (4, 1) and data.view.is_line

    # the line is titled by its column's name, not "x" (issue 42, item 7)
    assert data.view.titles == ("x", "")
    named = read_upload("alcohol.csv", b"alcohol,label\n12.1,a\n13.9,\n14.2,b\n").build()
    assert named.view.titles == ("alcohol", "")


# -- issue 42, item 1: an uploaded file's picture fills its chart ------------------------------

def spread(data: Data) -> float:
    """Width over height of the picture (its display grid's ranges)."""
    grid_x, grid_y = data.grid()
    return np.ptp(grid_x) / np.ptp(grid_y)


def test_a_plane_whose_points_spread_far_more_one_way_is_stretched_the_other_by_a_round_factor():
    rng = np.random.default_rng(0)
    X = rng.normal(0, 1, (100, 5)) * [300, 14, 1, 0.5, 0.1]  # as wine's raw spreads
    plain, filled = View.of(X), View.of(X, fill=True)
    width, height = np.ptp(plain.project(X), axis=0)
    assert width / height > 15  # to scale: a strip
    # the smallest of 1, 2, 5, 10, 20 ... that brings it within MAX_ASPECT = 2
    factor = filled.stretch[1]
    assert factor in (10, 20) and width / height / factor <= 2 < width / height / (factor / 2)
    assert filled.titles == ("PC 1", f"PC 2 × {factor:g}") == ("PC 1", filled.stretched)
    assert plain.stretched == "" and filled.stretch[0] == 1
    np.testing.assert_allclose(filled.project(X), plain.project(X) * [1, factor])
    data = Data(X, np.zeros(100, dtype=int), filled)
    assert 1 <= spread(data) <= 2  # at most MAX_ASPECT wide
    # the plane still maps back onto itself: the film draws f where the points are
    points = data.X2
    np.testing.assert_allclose(filled.project(filled.lift(points)), points, atol=1e-9)
    np.testing.assert_allclose(filled.lift(points), plain.lift(plain.project(X)), atol=1e-9)


def test_a_tall_two_feature_file_is_stretched_across_and_named_by_its_columns():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(0, 1, 80), rng.normal(0, 60, 80)])
    view = View.of(X, ("hue", "magnesium"), fill=True)
    assert view.titles == ("hue × 50", "magnesium") and view.stretch.tolist() == [50.0, 1.0]
    assert 0.5 <= spread(Data(X, np.zeros(80, dtype=int), view)) <= 1
    assert View.of(X, ("hue", "magnesium")).titles == ("hue", "magnesium")


def test_a_picture_within_the_limit_or_on_a_line_is_drawn_to_scale():
    X, _ = two_moons(200, noise=0.1, random_state=0)  # twice as wide as high: kept
    assert View.of(X, fill=True).stretch.tolist() == [1.0, 1.0]
    flat = np.column_stack([np.arange(10.0), np.zeros(10)])  # no stretch would widen it
    assert View.of(flat, fill=True).stretched == ""


@pytest.mark.parametrize("name", ["two_moons", "gaussian_2c_2d", "blobs_3", "g50c"])
def test_a_generated_data_set_keeps_its_geometry(name):
    """A click adds a point where it lands on a generated data set's plane: it is never
    stretched, even where its points spread unevenly (tight Gaussians at low noise)."""
    data = Generated(name, 100, 0.02, 0).build()
    assert data.view.stretched == "" and np.all(data.view.stretch == 1)
