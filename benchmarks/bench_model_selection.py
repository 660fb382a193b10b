"""The grid search by labeled folds, with and without the reuse of kernels, maps and graphs.

A 5 x 5 grid x 3 folds (``S3VMGridSearchCV``, the LDS paper's protocol: held-out labels stay as
unlabeled points) at n = 2,000 for ∇TSVM (sigma x C) and LapSVM (sigma x gamma_I), 5 labels a
class. Each search runs whole with ``reuse=False`` (every fit computes its kernel matrix,
kernel-PCA map and graph: the loop of fits as scikit-learn's ``GridSearchCV`` would run it) and
``reuse=True`` (``s3vm_core.reuse``: the kernel once per sigma, the kernel-PCA map once per
sigma and fold, the graph once), in turn, ``--repeats`` times in one process with one BLAS
thread ("one core"); the table gives the medians of the wall-clock and CPU seconds of the
whole search and their ratio. CPU seconds are what the search itself did, whatever else the
shared machine ran. Both settings select the same grid point with the same errors (checked).

Run ``python -m benchmarks.bench_model_selection [--data moons|g50c] [--repeats 3]
[--solvers tsvm,lapsvm]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

from threadpoolctl import threadpool_limits

from s3vm_core import GradientTSVM, LapSVM, S3VMGridSearchCV
from s3vm_core.kernels import default_sigma
from toy_data import g50c, pick_labeled, two_moons

#: Widths relative to the LDS paper's default (§3.2 searches 2^-3 .. 2^3 of it).
SIGMA_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
GRIDS = {
    "tsvm": (GradientTSVM, "C", (0.1, 1.0, 10.0, 100.0, 1000.0)),
    "lapsvm": (LapSVM, "gamma_I", (0.01, 0.1, 1.0, 10.0, 100.0)),
}
NAMES = {"tsvm": "∇TSVM", "lapsvm": "LapSVM (Newton)"}


def data(name: str, n: int = 2000):
    X, y = (two_moons(n, noise=0.1, random_state=0) if name == "moons"
            else g50c(n_samples=n, random_state=0))
    return X, y, pick_labeled(y, 5, random_state=0)


def search(solver: str, X, labels, reuse: bool):
    cls, cost, values = GRIDS[solver]
    grid = {"sigma": [f * default_sigma(X) for f in SIGMA_FACTORS], cost: list(values)}
    wall, cpu = time.perf_counter(), time.process_time()
    result = S3VMGridSearchCV(cls(), grid, cv=3, baseline=None, reuse=reuse,
                              refit=False).fit(X, labels)
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("moons", "g50c"), default="moons")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--solvers", default="tsvm,lapsvm")
    args = parser.parse_args(argv)
    X, _, labels = data(args.data)
    print(f"\n### Grid search, 5 x 5 grid x 3 folds, {args.data} n = {X.shape[0]}, "
          f"5 labels a class, one BLAS thread, median of {args.repeats}\n")
    print("| solver | reuse | wall (s) | CPU (s) | CPU before / after | selected | CV error |")
    print("|---|---|---|---|---|---|---|")
    for solver in args.solvers.split(","):
        times = {False: [], True: []}
        chosen = {}
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(args.repeats):
                for reuse in (False, True):
                    wall, cpu, result = search(solver, X, labels, reuse)
                    times[reuse].append((wall, cpu))
                    chosen[reuse] = (result.best_params_, result.cv_results_["mean_test_error"])
        if chosen[False] != chosen[True]:
            raise AssertionError(f"{solver}: the reuse changed the search's results")
        median = {r: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
                  for r, t in times.items()}
        best, errors = chosen[True]
        params = ", ".join(f"{k}={v:.3g}" for k, v in best.items())
        for reuse in (False, True):
            ratio = f"{median[False][1] / median[True][1]:.1f}" if reuse else ""
            print(f"| {NAMES[solver]} | {'yes' if reuse else 'no'} | {median[reuse][0]:.1f} | "
                  f"{median[reuse][1]:.1f} | {ratio} | {params} | {100 * min(errors):.1f} % |")


if __name__ == "__main__":
    main()
