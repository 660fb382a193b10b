"""The benchmark runner: the quick benchmark's code paths, resuming, and a Dask cluster."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import quick, sweep

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _tasks(draws=2):
    data = {"moons": {"name": "two_moons", "kwargs": {"n_samples": 40, "noise": 0.05},
                      "n_per_class": 1, "data_seed": 0}}
    methods = {"SVM": sweep.grid(estimator=["SVMBaseline"], sigma=[0.25, 4.0]),
               "LapSVM": [{"estimator": "LapSVM", "sigma": 0.25, "n_neighbors": 5}]}
    return sweep.make_tasks(data, methods, draws, experiment="test")


def test_tiny_quick_benchmark_prints_every_table(tmp_path, capsys):
    results = quick.main(["--tiny", "--n-jobs", "1", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    for title in ("DA paper Table 2", "LDS paper Table 2", "cS3VM paper Table 1",
                  "QN-S3VM paper Table 1", "LapSVM paper Tables 6-7", "Fit time against n",
                  "Multi-class, one-vs-rest"):
        assert title in printed
    assert set(results) == {*quick.REPRODUCTIONS, "scale"}
    for name in quick.REPRODUCTIONS:
        rows = results[name]
        assert rows and all(r["status"] == "ok" for r in rows), name
        folder = tmp_path / f"{name}_tiny"
        assert len(json.loads((folder / "results.json").read_text())) == len(rows)
        assert (folder / "results.csv").read_text().count("\n") == len(rows) + 1
    # the paper's DA(l1) row appears beside ours
    assert "| DA (l1, hinge) |" in printed and "10/10" in printed


def test_interrupted_sweep_resumes_without_refitting(tmp_path):
    tasks = _tasks()
    calls = []

    def counting(task):
        calls.append(task["method"])
        return sweep.evaluate(task)

    first = sweep.run_sweep(tasks[:3], tmp_path, progress=False, func=counting)
    assert len(calls) == 3
    # a kill while writing leaves a truncated last line: it is ignored, not fatal
    with (tmp_path / sweep.RESULTS_FILE).open("a") as sink:
        sink.write('{"key": "trunc')
    calls.clear()
    everything = sweep.run_sweep(tasks, tmp_path, progress=False, func=counting)
    assert len(calls) == len(tasks) - 3
    assert [r["key"] for r in everything] == [sweep.task_key(t) for t in tasks]
    assert [r["seconds"] for r in everything[:3]] == [r["seconds"] for r in first]
    calls.clear()
    sweep.run_sweep(tasks, tmp_path, progress=False, func=counting, fresh=True)
    assert len(calls) == len(tasks)


def test_best_grid_point_is_selected_by_mean_error(tmp_path):
    results = sweep.run_sweep(_tasks(), tmp_path, progress=False)
    best = sweep.select_best(results)
    svm = [r for r in results if r["method"] == "SVM"]
    means = {s: np.mean([r["error_unlabeled"] for r in svm if r["params"]["sigma"] == s])
             for s in (0.25, 4.0)}
    chosen = best[("moons", "SVM")]
    assert chosen["mean"] == pytest.approx(min(means.values()))
    assert means[chosen["params"]["sigma"]] == min(means.values())  # ties: either point
    assert chosen["draws"] == 2 and chosen["failed"] == 0


def test_failing_grid_point_is_recorded_not_fatal(tmp_path):
    data = {"moons": {"name": "two_moons", "kwargs": {"n_samples": 30}, "n_per_class": 1}}
    tasks = sweep.make_tasks(data, {"bad": [{"estimator": "SVMBaseline", "C": -1.0}]}, 1)
    (result,) = sweep.run_sweep(tasks, tmp_path, progress=False)
    assert result["status"].startswith("InvalidParameterError")
    assert sweep.select_best([result])[("moons", "bad")]["failed"] == 1


def test_sweep_runs_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    tasks = _tasks(draws=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        results = sweep.run_sweep(tasks, tmp_path, scheduler=cluster.scheduler_address,
                                  progress=False)
    local = sweep.run_sweep(tasks, tmp_path / "local", progress=False)
    assert all(r["status"] == "ok" for r in results)
    assert [r["error_unlabeled"] for r in results] == [r["error_unlabeled"] for r in local]
