"""The library's parallel work on a Dask cluster: joblib's Dask backend, chosen by the caller
(``joblib.parallel_config(backend="dask")`` with a ``distributed.Client``), sends the grid
search's groups of fits and S4VM's candidate searches to the cluster's workers, with the
results of a local run."""

import warnings

import numpy as np
import pytest
from joblib import parallel_config

from s3vm_core import S4VM, GradientTSVM, S3VMGridSearchCV
from toy_data import pick_labeled, two_moons

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def data():
    X, y_true = two_moons(n_samples=80, noise=0.1, random_state=0)
    return X, pick_labeled(y_true, 3, random_state=0)


def _on_cluster(client, run):
    """``run()`` under joblib's Dask backend; its result and the tasks the workers ran."""
    with distributed.get_task_stream(client) as stream, parallel_config(backend="dask"):
        result = run()
    return result, stream.data


def test_a_grid_search_on_the_cluster_is_the_local_one(client, data):
    X, y = data
    grid = {"sigma": [0.3, 1.0], "C": [1.0, 10.0]}

    def search(**kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the data may say the unlabeled points did not help
            return S3VMGridSearchCV(GradientTSVM(), grid, cv=2, **kwargs).fit(X, y)

    local = search()
    remote, tasks = _on_cluster(client, search)  # n_jobs=None: every worker of the cluster
    assert len(tasks) >= 2  # the two groups of sigma, at least
    for key in ("params", "mean_test_score", "split0_test_score", "split1_test_score"):
        assert list(remote.cv_results_[key]) == list(local.cv_results_[key])
    assert remote.best_params_ == local.best_params_
    assert remote.comparison_ == local.comparison_
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))


def test_s4vms_candidates_run_on_the_cluster(client, data):
    """S4VM runs its candidate searches through joblib.Parallel(n_jobs): the caller's Dask
    backend takes them to the workers, and the safe prediction is the one of a run in this
    process (the same for any n_jobs)."""
    X, y = data
    local = S4VM(sample_time=6).fit(X, y)
    remote, tasks = _on_cluster(client, lambda: S4VM(sample_time=6, n_jobs=2).fit(X, y))
    assert len(tasks) >= 1
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))
    np.testing.assert_array_equal(remote.transduction_, local.transduction_)
