"""Solvers run their iterations on one BLAS thread and give the caller its setting back.

Threaded BLAS on the small products of an iteration is many times slower on a shared
2-core machine (docs/benchmarks.md); the estimators limit it inside their loop only, as
scikit-learn's KMeans does, and never change what the caller set between states.
"""

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from s3vm_core import QNS3VM
from s3vm_core.solvers import qn
from toy_data import pick_labeled, two_moons


def _blas_threads():
    return {info["filepath"]: info["num_threads"] for info in threadpool_info()
            if info["user_api"] == "blas"}


def test_iterations_run_on_one_blas_thread_and_the_callers_setting_holds_between_states(
        monkeypatch):
    X, y = two_moons(n_samples=120, noise=0.1, random_state=0)
    labels = pick_labeled(y, 3, random_state=0)
    seen_inside = []
    evaluate = qn._Surrogate.__call__

    def recording(self, c):
        seen_inside.append(set(_blas_threads().values()))
        return evaluate(self, c)

    monkeypatch.setattr(qn._Surrogate, "__call__", recording)
    with threadpool_limits(limits=2, user_api="blas"):
        callers = _blas_threads()
        states = []
        for state in QNS3VM(sigma=0.3).trace(X, labels):
            assert _blas_threads() == callers  # the caller's code runs with its own setting
            states.append(state)
        assert _blas_threads() == callers
    assert len(states) > 10 and seen_inside
    assert all(threads == {1} for threads in seen_inside)
    assert np.isfinite(states[-1].objective)
