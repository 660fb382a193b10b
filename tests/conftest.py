"""Suite-wide settings, and the tiers: the ``app`` and ``e2e`` markers follow the folder."""

from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
#: every test in these folders runs the app: headless sessions (AppTest) or Chromium
TIER_OF_FOLDER = {HERE / "app": "app", HERE / "e2e": "e2e"}


@pytest.hookimpl(tryfirst=True)  # before tests/e2e's hook looks for the e2e marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        for folder, marker in TIER_OF_FOLDER.items():
            if item.path.is_relative_to(folder):
                item.add_marker(marker)


@pytest.fixture(autouse=True, scope="session")
def one_blas_thread():
    # The solvers' matrices are small (n of a few hundred): threaded BLAS spends more time
    # synchronising than computing on two cores, and the tests' numbers should not depend on it.
    with threadpool_limits(limits=1):
        yield
