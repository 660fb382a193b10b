"""The evidence against scikit-learn's estimators, and the reproductions' selection by CV."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from benchmarks import paired, sklearn_peers, sweep

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_tiny_run_pairs_every_method_with_its_svm_on_the_same_draws(tmp_path, capsys):
    results = sklearn_peers.main(["--tiny", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    assert all(r["status"] == "ok" for r in results)
    assert {(r["method"], r["mode"]) for r in results} == {
        (m, mode) for m in ("∇TSVM", "SVC on the labels", "LabelSpreading (knn)")
        for mode in ("default", "cv")}
    assert {r["draw"] for r in results} == {0, 1}
    cv = [r for r in results if r["mode"] == "cv"]
    assert all(0 <= r["cv_error"] <= 1 and r["selected"] for r in cv)
    # the solver beside its own SVM, scikit-learn's estimators beside its SVC on the labels
    tsvm = [r for r in results if r["method"] == "∇TSVM"]
    assert all(0 <= r["svm_error"] <= 1 for r in tsvm)
    assert all(np.isnan(r["svm_error"]) for r in results if r["method"] != "∇TSVM")
    assert all(r["seconds"] > 0 for r in results)
    assert "| ∇TSVM | defaults | its fair SVM |" in printed
    assert "| ∇TSVM | CV on the labels | the SVM by the same folds |" in printed
    assert "| LabelSpreading (knn) | defaults | SVC on the labels |" in printed
    assert "h of CPU" in printed and "no significant difference" in printed


def test_the_error_beside_a_solver_is_that_of_the_svm_at_its_width_and_cost():
    """∇TSVM's fair SVM is LIBSVM at its own width and C on the same labels: the error
    recorded beside it is that SVM's."""
    from s3vm_core import GradientTSVM, SVMBaseline
    from toy_data import pick_labeled

    task = {"experiment": "test", "dataset": "breast cancer", "digits_n": 300,
            "per_class": 2, "draw": 3, "method": "∇TSVM", "mode": "default", "folds": 3}
    result = sklearn_peers.evaluate(task)
    assert result["status"] == "ok"
    X, y = sklearn_peers.load("breast cancer")
    labels = pick_labeled(y, 2, random_state=3)
    solver = GradientTSVM().fit(X, labels)
    svm = SVMBaseline(C=solver.C_, sigma=solver.sigma_).fit(X, labels)
    unlabeled = labels == -1
    assert result["svm_error"] == np.mean(svm.predict(X[unlabeled]) != y[unlabeled])
    assert result["error_unlabeled"] == np.mean(solver.predict(X[unlabeled]) != y[unlabeled])


def test_a_cell_counts_as_better_or_worse_only_where_the_paired_test_says_so():
    """Draws are paired by their number, whatever the order of the results; a method far
    below its SVM on 12 draws is better, one that only ties is not, one above is worse."""
    rng = np.random.default_rng(0)
    results = []
    for draw in rng.permutation(12):
        svc = 0.2 + 0.01 * rng.random()
        for method, error, own in (("low", svc - 0.05, np.nan), ("same", svc, np.nan),
                                   ("solver", 0.3, 0.2), ("SVC", svc, np.nan)):
            results.append({"method": method, "mode": "default", "dataset": "d",
                            "per_class": 2, "draw": int(draw), "error_unlabeled": error,
                            "svm_error": own, "status": "ok"})
    results.append({"method": "low", "mode": "default", "dataset": "d", "per_class": 2,
                    "draw": 99, "error_unlabeled": np.nan, "svm_error": np.nan,
                    "status": "ValueError: failed"})
    cells = paired.paired_cells(results, reference="SVC")
    assert set(cells) == {("low", "default"), ("same", "default"), ("solver", "default")}
    low = cells[("low", "default")][("d", 2)]
    assert low.n == 12 and low.below == 12 and low.verdict == "better"
    assert cells[("same", "default")][("d", 2)].verdict == "no significant difference"
    assert cells[("solver", "default")][("d", 2)].verdict == "worse"
    assert paired.counts(cells[("low", "default")]) == {
        "better": 1, "no significant difference": 0, "worse": 0}
    assert "vs 20.4 ↓ p = 0.00049" in paired.cell_text(low)  # 2 / 2^12, exact


def test_every_method_builds_with_its_defaults_first():
    X, y = sklearn_peers.load("breast cancer")
    labels = np.where(np.arange(y.size) % 50 == 0, y, -1)
    for method in sklearn_peers.METHODS:
        estimator, grid = sklearn_peers.build(method, X, y, labels)
        if method in sklearn_peers.WITHOUT_GRID:
            assert grid is None
            continue
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
