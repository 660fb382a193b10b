"""The 5 x 5 x 3 grid search and S4VM at n = 2,000 in one process and on a 2-worker Dask cluster.

    python -m benchmarks.bench_grid_dask [--solvers tsvm,lapsvm,s4vm] [--repeats 3] [--workers 2]

The grid of ``benchmarks.bench_model_selection`` (5 widths x 5 costs, 3 folds of the labels,
75 fits, two moons, 5 labels a class, ``reuse=True``) runs (a) in this process, one fit after
another (``n_jobs=None``), and (b) on a ``distributed.LocalCluster`` of ``--workers`` worker
processes of one thread each, through joblib's Dask backend, as a user sends it to a cluster::

    from dask.distributed import Client
    from joblib import parallel_config

    with Client("tcp://scheduler:8786"), parallel_config(backend="dask"):
        search.fit(X, y)

Every process has one BLAS thread. Reported: the median wall-clock seconds of the whole search,
its CPU seconds (this process's, plus the workers' on the cluster), the CPU of its critical
path (this process's plus the busiest worker's: the wall-clock time with a core for each
process, which a shared machine does not give), the load average beside them, and a check that
both select the same point with the same scores. The search sends one task per width: the
fits of a width share its kernel, kernel-PCA maps and graph (``s3vm_core.reuse``). The cluster
is started once, outside the timings.

The workers run with glibc's allocator settings of ``WORKER_MALLOC`` (``--nanny-defaults``:
Dask's, whose ``MALLOC_TRIM_THRESHOLD_=65536`` hands freed memory back to the system at once,
so that every large temporary of a fit is new memory, page-faulted in again).

``s4vm`` is one S4VM fit at its defaults (100 local searches, ``random_state=0``) on two moons
with one label a class, its searches sent as tasks (``n_jobs=-1``: every worker); the check
is that its labels and decision values are those of the fit in one process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

from benchmarks.bench_model_selection import GRIDS, NAMES, SIGMA_FACTORS, data
from toy_data import pick_labeled

ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS")}
#: The workers' glibc settings instead of Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` (which also
#: fixes the threshold above which each allocation is a fresh ``mmap``, 128 KB): freed memory
#: up to 128 MB is kept for the next allocation, and only blocks from 32 MB on are mapped
#: apart. S4VM's searches on 2 workers page-faulted 390,000 times a worker with Dask's and
#: 3,000 with these (40 searches at n = 2,000), the workers' CPU 1.6 times that of one process
#: against 1.04 times.
WORKER_MALLOC = {"MALLOC_TRIM_THRESHOLD_": 2**27, "MALLOC_MMAP_THRESHOLD_": 2**25}


def search(solver: str, X, labels):
    from s3vm_core import S3VMGridSearchCV
    from s3vm_core.kernels import default_sigma

    cls, cost, values = GRIDS[solver]
    grid = {"sigma": [f * default_sigma(X) for f in SIGMA_FACTORS], cost: list(values)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return S3VMGridSearchCV(cls(), grid, cv=3, baseline=None, refit=False).fit(X, labels)


def fit_s4vm(X, labels, n_jobs=None):
    from s3vm_core import S4VM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return S4VM(random_state=0, n_jobs=n_jobs).fit(X, labels)


def work(solver: str, X, labels, on_cluster: bool):
    """What is timed: the grid search of ``solver``, or S4VM's fit (its searches on every
    worker of the cluster)."""
    if solver == "s4vm":
        return lambda: fit_s4vm(X, labels, n_jobs=-1 if on_cluster else None)
    return lambda: search(solver, X, labels)


def outcome(solver: str, result, X):
    """What must be the same in one process and on the cluster: the selected point and every
    score; S4VM's choice, labels and decision values."""
    if solver == "s4vm":
        return ({"safe_choice": result.safe_choice_},
                [result.transduction_.tolist(), result.decision_function(X).tolist()])
    return result.best_params_, list(result.cv_results_["mean_test_score"])


def _cpu_seconds() -> float:
    return time.process_time()


def timed(run, client=None):
    """``(wall, CPU, critical, result)`` of ``run()``: the CPU of this process and the
    cluster's workers, and ``critical``, this process's CPU plus the busiest worker's, the
    wall-clock time the search would take with a core for each (on this shared machine the
    workers and the other work share 2 cores)."""
    def workers():
        return client.run(_cpu_seconds) if client else {}

    before, wall, cpu = workers(), time.perf_counter(), time.process_time()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    spent = [t - before[w] for w, t in workers().items()]
    return wall, cpu + sum(spent), cpu + max(spent, default=0.0), result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", default="tsvm,lapsvm,s4vm")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--nanny-defaults", action="store_true",
                        help="the workers with Dask's allocator settings, not WORKER_MALLOC")
    args = parser.parse_args(argv)
    os.environ.update(ONE_THREAD)  # the workers inherit it
    import dask
    from distributed import Client, LocalCluster
    from joblib import parallel_config
    from threadpoolctl import threadpool_limits

    if not args.nanny_defaults:
        environ = dask.config.get("distributed.nanny.pre-spawn-environ")
        dask.config.set({"distributed.nanny.pre-spawn-environ": {**environ, **WORKER_MALLOC}})

    X, y, labels = data("moons")
    one_label = pick_labeled(y, 1, random_state=0)
    settings = "Dask's allocator settings" if args.nanny_defaults else "WORKER_MALLOC"
    print(f"\n### The 5 x 5 x 3 grid and S4VM at n = {X.shape[0]}: one process against "
          f"{args.workers} Dask workers, {settings} (median of {args.repeats})\n")
    print("| solver | where | wall (s) | CPU (s) | CPU of the critical path (s) | one process / "
          "cluster, wall | one process / cluster, a core each | load | selected | same results |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with threadpool_limits(1), LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                            processes=True, protocol="tcp", host="127.0.0.1",
                                            dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("s3vm_core"))  # imports outside the timings
        for solver in args.solvers.split(","):
            runs = {"one process": [], "cluster": []}
            loads = {"one process": [], "cluster": []}
            chosen = {}
            for _ in range(args.repeats):  # interleaved: the load changes as they run
                for where in runs:
                    loads[where].append(os.getloadavg()[0])
                    run = work(solver, X, one_label if solver == "s4vm" else labels,
                               where == "cluster")
                    if where == "cluster":
                        with parallel_config(backend="dask"):
                            wall, cpu, critical, result = timed(run, client)
                    else:
                        wall, cpu, critical, result = timed(run)
                    runs[where].append((wall, cpu, critical))
                    chosen[where] = outcome(solver, result, X)
            same = chosen["one process"] == chosen["cluster"]
            medians = {w: tuple(statistics.median(column) for column in zip(*r, strict=True))
                       for w, r in runs.items()}
            params = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                               for k, v in chosen["cluster"][0].items())
            alone = medians["one process"]
            for where, (wall, cpu, critical) in medians.items():
                ratios = ((f"{alone[0] / wall:.2f}", f"{alone[2] / critical:.2f}")
                          if where == "cluster" else ("", ""))
                print(f"| {NAMES.get(solver, 'S4VM (one fit)')} | {where} | {wall:.1f} | "
                      f"{cpu:.1f} | {critical:.1f} | "
                      f"{ratios[0]} | {ratios[1]} | "
                      f"{min(loads[where]):.1f}–{max(loads[where]):.1f} | {params} | "
                      f"{'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
