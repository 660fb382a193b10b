"""Fit times of ∇TSVM, LDS, the graph-kernel SVM and label switching; all-pairs rho-distances.

Run with ``python -m benchmarks.bench_tsvm`` (``--help`` for the options). Whole fits exhaust
the full trace (every state recorded) on two moons with one label per class; the median over
repeats is printed as markdown.
BLAS is limited to one thread: on this shared 2-core machine threaded BLAS on 500 x 500
matrices is many times slower under load.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks._timing import median_time, parser
from s3vm_core.graph import rho_path_distances
from s3vm_core.solvers.tsvm import LDS, GradientTSVM, GraphKernelSVM, LabelSwitchingTSVM
from toy_data import pick_labeled, two_moons

REPEATS = 3


def bench_solvers(n=500, repeats=REPEATS):
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    y_semi = pick_labeled(y, 1, random_state=0)
    unlabeled = y_semi == -1
    solvers = {
        "GradientTSVM (rbf, sigma=0.25)": GradientTSVM(sigma=0.25),
        "LDS (rho=8)": LDS(rho=8.0),
        "GraphKernelSVM (rho=8)": GraphKernelSVM(rho=8.0),
        "LabelSwitchingTSVM (rbf, sigma=0.25)": LabelSwitchingTSVM(sigma=0.25),
    }
    print(f"\n### Fit with full trace, two moons n = {n}, one label per class\n")
    print("| solver | n | states | iterations | median time (s) | unlabeled error |")
    print("|---|---|---|---|---|---|")
    for name, est in solvers.items():
        def run(est=est):
            return list(est.trace(X, y_semi))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            seconds, states = median_time(run, repeats)
        n_iter = sum(s.event == "iter" for s in states)
        error = np.mean(est.transduction_[unlabeled] != y[unlabeled])
        print(f"| {name} | {n} | {len(states)} | {n_iter} | {seconds:.3f} | {error:.3f} |")


def bench_distances(sizes=(500, 1000, 2000), rhos=(2.0, np.inf), repeats=REPEATS):
    print("\n### All-pairs rho-path distances (Floyd-Warshall; rho = inf: single linkage)\n")
    print("| n | rho | median time (s) |")
    print("|---|---|---|")
    for n in sizes:
        X, _ = two_moons(n_samples=n, noise=0.1, random_state=0)
        for rho in rhos:
            seconds, _ = median_time(lambda X=X, rho=rho: rho_path_distances(X, rho), repeats)
            print(f"| {n} | {rho} | {seconds:.3f} |")


def main(argv=None):
    args = parser(__doc__, repeats=REPEATS).parse_args(argv)
    with threadpool_limits(1):
        if args.quick:
            bench_solvers(200, repeats=1)
            bench_distances(sizes=(200,), repeats=1)
        else:
            for n in (500, 1000):
                bench_solvers(n, repeats=args.repeats)
            bench_distances(repeats=args.repeats)


if __name__ == "__main__":
    main()
