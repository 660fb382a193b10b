"""Issue 17: the presets "as in the paper" and "the generic default" (ui/presets.py)."""

from __future__ import annotations

import math

import pytest

from toy_data import DATASETS
from ui import presets
from ui.presets import preset_values
from ui.solvers import SOLVERS


@pytest.mark.parametrize(("dataset", "solver"), sorted(presets.PAPER_PRESETS))
def test_every_paper_preset_is_a_setting_the_watch_form_can_hold(dataset, solver):
    preset = presets.PAPER_PRESETS[dataset, solver]
    assert dataset in DATASETS and solver in SOLVERS
    assert preset.source and preset.params
    params = {p.name: p for p in SOLVERS[solver].params}
    for name, value in preset.params.items():
        assert params[name].check(value) == value  # the form shows it as it is
    # and with the form's other values at their defaults it builds the solver's estimator
    values = preset_values(dataset, solver, presets.PAPER)
    assert {k: values[k] for k in preset.params} == preset.params
    assert all(values[p.name] == p.default for p in SOLVERS[solver].params
               if p.name not in preset.params)


def test_the_default_data_set_has_a_paper_preset_for_every_semi_supervised_solver():
    # A first visitor's Watch page (two moons) opens on the paper's setting whatever the S3VM.
    for solver in SOLVERS:
        if solver != "SVMBaseline":
            assert presets.first_preset("two_moons", solver) == presets.PAPER
    assert presets.paper_preset("two_moons", "DeterministicAnnealingS3VM").params == {
        "lam": 0.01, "sigma": 0.25}  # the DA Table 2 grid point selected on two moons


def test_the_generic_default_sets_nothing_and_a_missing_paper_preset_falls_back_to_it():
    assert presets.preset_params("two_moons", "LDS", presets.DEFAULT) == {}
    assert presets.paper_preset("clock", "LDS") is None  # the LapSVM paper's clock: no setting
    assert presets.first_preset("clock", "LDS") == presets.DEFAULT
    assert presets.preset_params("clock", "LDS", presets.PAPER) == {}
    assert preset_values("clock", "LDS", presets.PAPER) == preset_values(
        "clock", "LDS", presets.DEFAULT)


def test_the_graph_kernel_preset_is_the_papers_linear_kernel():
    # LDS paper §3.2: "we here fix the linear kernel (sigma = inf)", offered as ∞ in the form.
    sigma = presets.paper_preset("g50c", "GraphKernelSVM").params["sigma"]
    assert math.isinf(sigma)
    param = next(p for p in SOLVERS["GraphKernelSVM"].params if p.name == "sigma")
    assert param.option_text(sigma) == "∞" and param.option_text(None) == "median"
