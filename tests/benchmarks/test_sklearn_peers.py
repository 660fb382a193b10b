"""The evidence against scikit-learn's estimators, and the reproductions' selection by CV."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from benchmarks import sklearn_peers, sweep

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_tiny_run_prints_both_tables_with_every_method_by_default_and_by_cv(tmp_path, capsys):
    results = sklearn_peers.main(["--tiny", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    assert all(r["status"] == "ok" for r in results)
    assert {(r["method"], r["mode"]) for r in results} == {
        (m, mode) for m in ("∇TSVM", "SVC on the labels", "LabelSpreading (knn)")
        for mode in ("default", "cv")}
    cv = [r for r in results if r["mode"] == "cv"]
    assert all(0 <= r["cv_error"] <= 1 and r["selected"] for r in cv)
    assert "| ∇TSVM | CV on the labels |" in printed and "iris, l = 2" in printed
    assert "below / above SVC on the labels" in printed


def test_every_method_builds_with_its_defaults_first():
    X, y = sklearn_peers.load("breast cancer")
    labels = np.where(np.arange(y.size) % 50 == 0, y, -1)
    for method in sklearn_peers.METHODS:
        estimator, grid = sklearn_peers.build(method, X, y, labels)
        first = (grid[0] if isinstance(grid, list) else grid)
        for name, values in first.items():
            default = estimator.get_params().get(name)
            if name in ("sigma", "gamma", "estimator__gamma"):
                continue  # the widths: ours in both, the default is data-driven
            assert values[0] == default or name == "kernel", (method, name)


def test_the_sweep_selects_by_cross_validation_on_the_labels(tmp_path):
    data = {"moons": {"name": "two_moons", "kwargs": {"n_samples": 60, "noise": 0.1},
                      "n_per_class": 3, "data_seed": 0}}
    methods = {"LDS, CV": [{"estimator": "LDS", "cv_grid": {"rho": [1.0, 8.0], "C": [10.0]},
                            "cv_folds": 3}]}
    (result,) = sweep.run_sweep(sweep.make_tasks(data, methods, 1), tmp_path, progress=False)
    assert result["status"] == "ok" and result["selected"]["rho"] in (1.0, 8.0)
    assert 0 <= result["cv_error"] <= 1
    assert "LDS, CV: selected" in sweep.selected_table([result], "LDS, CV")


def test_the_sweep_runs_without_tqdm(tmp_path, monkeypatch, capsys):
    """The benchmarks need the project's own dependencies only (tqdm comes with the test
    extra): without it the progress is a line at every tenth."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    data = {"moons": {"name": "two_moons", "kwargs": {"n_samples": 30}, "n_per_class": 1,
                      "data_seed": 0}}
    tasks = sweep.make_tasks(data, {"SVM": [{"estimator": "SVMBaseline"}]}, 3)
    results = sweep.run_sweep(tasks, tmp_path, progress=True)
    assert [r["status"] for r in results] == ["ok"] * 3
    assert "3/3 fits" in capsys.readouterr().err
