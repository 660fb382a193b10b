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


def test_the_presets_at_every_size_can_be_measured_on_other_draws_of_other_data():
    # a rule scaled with n is checked on draws it was not chosen on
    tasks = presets.size_tasks([1000], 3, datasets=["two_moons"], solvers=["ContinuationS3VM"],
                               first_draw=100, data_seed=1)
    assert {t["draw"] for t in tasks} == {100, 101, 102}
    assert {t["data"]["data_seed"] for t in tasks} == {1}
    assert {t["data_name"] for t in tasks} == {"two_moons"}
    # the preset as the app runs it at 1,000 points, and as chosen at 200 beside it
    cs3vm = "ContinuationS3VM"
    assert {t["method"] for t in tasks} == {cs3vm, cs3vm + presets.UNSCALED}
    widths = {t["method"]: t["params"]["sigma"] for t in tasks}
    assert widths[cs3vm] < widths[cs3vm + presets.UNSCALED] == 0.25
