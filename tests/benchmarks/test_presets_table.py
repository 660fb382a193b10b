"""``python -m benchmarks.presets`` builds its tasks from the reproductions' grids: a renamed
reproduction row must not break the presets table, whose full run takes an hour."""

from __future__ import annotations

import pytest

from benchmarks import presets
from s3vm_explorer.engine.registry import SOLVERS


@pytest.mark.parametrize("size", ["full", "quick"])
def test_every_experiment_of_the_presets_table_builds_its_tasks(size):
    tasks = presets.tasks(size)
    solvers = {t["method"] for t in tasks}
    assert solvers <= set(SOLVERS) | {"SVMBaseline"}
    data = {t["data_name"] for t in tasks}
    assert {"two_moons", "two_circles"} <= data
    if size == "full":
        assert {"g50c", "g10n", "digits_3_8", "gaussian_2c"} <= data
        lds = [t for t in tasks if t["method"] == "LDS" and t["data_name"] == "g50c"]
        assert any("rho" in t["params"] for t in lds)  # the grid, not only the default


def test_the_presets_at_every_size_build_their_tasks_at_each_size():
    tasks = presets.size_tasks([200, 2000], 1)
    assert {t["n"] for t in tasks} == {200, 2000}
    assert all(t["data"]["kwargs"]["n_samples"] == t["n"] for t in tasks)
