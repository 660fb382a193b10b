"""LapSVM training time: Newton vs PCG with early stopping (LapSVM paper, Table 3 / Table 6).

Two moons, two labeled points per class, whole runs (kernel, graph and training), median over
repeats; peak memory of one run measured separately with tracemalloc (numpy reports its
allocations to it). Run with ``python -m benchmarks.bench_lapsvm``.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
import warnings

import numpy as np

from s3vm_core.solvers.lapsvm import LapSVM
from toy_data import pick_labeled, two_moons

PARAMS = dict(sigma=0.2, gamma_A=1e-2, gamma_I=1.0)
CASES = [
    (2000, "newton", None),
    (2000, "pcg", "stability"),
    (2000, "pcg", None),
    (5000, "newton", None),
    (5000, "pcg", "stability"),
]
REPEATS = 3


def run(n, solver, stopping):
    X, y = two_moons(n_samples=n, noise=0.05, random_state=0)
    yl = pick_labeled(y, 2, random_state=0)
    model = LapSVM(solver=solver, stopping=stopping, **PARAMS)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, yl)
    seconds = time.perf_counter() - start
    return seconds, model.n_iter_, float(np.mean(model.transduction_ != y))


def peak_memory(n, solver, stopping):
    tracemalloc.start()
    run(n, solver, stopping)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main():
    print("| n | solver | stopping | time (s, median of 3) | iterations | error | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    times = {}
    for n, solver, stopping in CASES:
        results = [run(n, solver, stopping) for _ in range(REPEATS)]
        seconds = statistics.median(r[0] for r in results)
        times[(n, solver, stopping)] = seconds
        _, iterations, error = results[0]
        memory = peak_memory(n, solver, stopping)
        print(f"| {n} | {solver} | {stopping or 'converge'} | {seconds:.2f} | {iterations} | "
              f"{error:.3f} | {memory:.0f} |")
    for n in (2000, 5000):
        ratio = times[(n, "newton", None)] / times[(n, "pcg", "stability")]
        print(f"\nNewton / PCG+stability at n = {n}: {ratio:.1f}x (paper, Table 3: 4-25x)")


if __name__ == "__main__":
    main()
