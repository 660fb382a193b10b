"""LapSVM training time: Newton vs PCG with early stopping (LapSVM paper, Table 3 / Table 6).

Two moons, two labeled points per class, whole runs (kernel, graph and training), median over
repeats; peak memory of one run measured separately with tracemalloc (numpy reports its
allocations to it). Run with ``python -m benchmarks.bench_lapsvm`` (``--help`` for the options).
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np

from benchmarks._timing import median_time, parser
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


def _data(n):
    X, y = two_moons(n_samples=n, noise=0.05, random_state=0)
    return X, y, pick_labeled(y, 2, random_state=0)


def run(X, y, yl, solver, stopping):
    """One whole fit: ``(iterations, error)``."""
    model = LapSVM(solver=solver, stopping=stopping, **PARAMS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, yl)
    return model.n_iter_, float(np.mean(model.transduction_ != y))


def peak_memory(data, solver, stopping):
    tracemalloc.start()
    run(*data, solver, stopping)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv=None):
    args = parser(__doc__, repeats=REPEATS).parse_args(argv)
    cases, repeats = CASES, args.repeats
    if args.quick:  # the smallest size's Newton and stability rows, at 500 points
        cases, repeats = [(500, solver, stopping) for n, solver, stopping in CASES
                          if n == CASES[0][0] and (solver, stopping) != ("pcg", None)], 1
    print(f"| n | solver | stopping | time (s, median of {repeats}) | iterations | error | "
          "peak MiB |")
    print("|---|---|---|---|---|---|---|")
    times = {}
    for n, solver, stopping in cases:
        data = _data(n)
        seconds, (iterations, error) = median_time(
            lambda data=data, solver=solver, stopping=stopping: run(*data, solver, stopping),
            repeats)
        times[(n, solver, stopping)] = seconds
        memory = peak_memory(data, solver, stopping)
        print(f"| {n} | {solver} | {stopping or 'converge'} | {seconds:.2f} | {iterations} | "
              f"{error:.3f} | {memory:.0f} |")
    for n in sorted({n for n, _, _ in cases}):
        ratio = times[(n, "newton", None)] / times[(n, "pcg", "stability")]
        print(f"\nNewton / PCG+stability at n = {n}: {ratio:.1f}x (paper, Table 3: 4-25x)")


if __name__ == "__main__":
    main()
