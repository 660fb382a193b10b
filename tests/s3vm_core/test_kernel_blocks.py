"""Large kernel matrices: computed in blocks of rows, stored in float32 if asked, and their
products; the integer power of the polynomial kernel."""

import numpy as np
import pytest

from s3vm_core import kernels
from s3vm_core.kernels import _integer_power, kernel_matrix, symmetric_product


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(300, 5))


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_a_matrix_in_blocks_is_the_whole_matrix(X, kernel, monkeypatch):
    whole = kernel_matrix(X, X, kernel, sigma=2.0, degree=3)
    monkeypatch.setattr(kernels, "KERNEL_BLOCK_BYTES", 8 * 300 * 7)  # blocks of 7 rows
    blocked = kernel_matrix(X, X, kernel, sigma=2.0, degree=3)
    np.testing.assert_allclose(blocked, whole, rtol=1e-13, atol=1e-13)
    if kernel == "rbf":  # a point is at distance exactly 0 from itself, in every block
        assert np.all(np.diag(blocked) == 1.0)
    other = kernel_matrix(X[:50], X, kernel, sigma=2.0, degree=3)
    np.testing.assert_allclose(other, whole[:50], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_float32_storage_rounds_each_value_once(X, kernel):
    exact = kernel_matrix(X, X, kernel, sigma=2.0, degree=3)
    stored = kernel_matrix(X, X, kernel, sigma=2.0, degree=3, dtype=np.float32)
    assert stored.dtype == np.float32
    np.testing.assert_allclose(stored, exact, rtol=2**-24)


def test_float32_product_is_the_float64_product_of_the_stored_values(X):
    """A float32 K is multiplied and summed in float64: the product is that of the float64
    matrix of its values, to float64's round-off, even where the terms cancel (a vector
    along K's smallest eigenvectors, whose product float32 sums lose entirely)."""
    K = kernel_matrix(X, X, "rbf", sigma=2.0)
    stored = K.astype(np.float32)
    values = stored.astype(np.float64)
    rng = np.random.default_rng(1)
    eigenvalues, eigenvectors = np.linalg.eigh(values)
    small = eigenvectors[:, :20] @ rng.normal(size=20)  # |K v| ~ 1e-6 |K| |v|
    for v in (rng.normal(size=300), 1e4 * small):
        product = symmetric_product(stored, v)
        assert product.dtype == np.float64
        exact = values @ v
        scale = np.abs(values) @ np.abs(v)  # the size of the terms
        np.testing.assert_allclose(product, exact, rtol=0, atol=1e-13 * scale.max())
        np.testing.assert_allclose(symmetric_product(stored.T.copy(order="F"), v), product,
                                   rtol=0, atol=1e-13 * scale.max())
    v = rng.normal(size=300)
    np.testing.assert_allclose(symmetric_product(K, v), K @ v, rtol=1e-12)


def test_float32_storage_is_checked_at_four_bytes_an_entry(X, monkeypatch):
    from s3vm_core import problem

    monkeypatch.setattr(problem, "MAX_DENSE_BYTES", 4 * 300 * 300)
    monkeypatch.setattr(kernels, "KERNEL_BLOCK_BYTES", 8 * 300 * 7)
    kernel_matrix(X, X, "rbf", sigma=2.0, dtype=np.float32)
    with pytest.raises(ValueError, match="300 x 300 kernel matrix needs"):
        kernel_matrix(X, X, "rbf", sigma=2.0)  # in float64, blocked: the whole result counts


@pytest.mark.parametrize("degree", [1, 2, 3, 8, 9, 10])
def test_integer_power_is_numpys(degree):
    base = np.random.default_rng(2).normal(size=(40, 40))
    np.testing.assert_allclose(_integer_power(base.copy(), degree), base**degree, rtol=1e-14)
