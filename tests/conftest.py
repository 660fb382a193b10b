"""Suite-wide settings."""

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True, scope="session")
def one_blas_thread():
    # The solvers' matrices are small (n of a few hundred): threaded BLAS spends more time
    # synchronising than computing on two cores, and the tests' numbers should not depend on it.
    with threadpool_limits(limits=1):
        yield
