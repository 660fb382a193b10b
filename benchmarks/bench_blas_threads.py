"""Why the solvers run their iterations on one BLAS thread (``s3vm_core.base.one_blas_thread``).

numpy and scipy each load their own OpenBLAS, each with a pool of as many threads as cores.
A solver's iteration is a chain of small products, alternating between the two libraries
(numpy's ``@``, scipy's L-BFGS-B, LAPACK). This script measures, with each pool at one or
two threads (threadpoolctl, selected by library):

1. the time of one 1000 x 1000 matrix-vector product with numpy, and of a numpy product
   followed by scipy's BLAS ``dgemv`` on the same matrix (the two pools taking turns);
2. ``QNS3VM(sigma=0.3).fit`` on two moons (n = 1000, 5 labels per class), with the library's
   own limit switched off (what a fit cost before it) and on (what it costs now).

Medians over repeats, runs interleaved. Run ``python -m benchmarks.bench_blas_threads``.
"""

from __future__ import annotations

import contextlib
import statistics
import time
import warnings

import numpy as np
import scipy.linalg.blas as blas
from threadpoolctl import ThreadpoolController

import s3vm_core.base
from s3vm_core import QNS3VM
from toy_data import pick_labeled, two_moons

REPEATS = 3


def _pools():
    controller = ThreadpoolController()
    found = {}
    for library in controller.select(user_api="blas").lib_controllers:
        owner = "numpy" if "numpy" in library.filepath else "scipy"
        found[owner] = controller.select(filepath=library.filepath)
    return found


@contextlib.contextmanager
def _threads(pools, numpy_threads, scipy_threads):
    with pools["numpy"].limit(limits=numpy_threads), pools["scipy"].limit(limits=scipy_threads):
        yield


def _per_call(function, calls=400) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - start) / calls


def products(pools):
    rng = np.random.default_rng(0)
    K = rng.normal(size=(1000, 1000))
    c = rng.normal(size=1000)
    K_fortran = K.T  # F-ordered view: scipy's dgemv with trans=1 computes K @ v, no copy

    def alternate():
        blas.dgemv(1.0, K_fortran, K @ c, trans=1)

    print("| numpy pool | scipy pool | numpy gemv (ms) | numpy gemv + scipy dgemv (ms) |")
    print("|---|---|---|---|")
    for numpy_threads, scipy_threads in ((1, 1), (2, 1), (1, 2), (2, 2)):
        with _threads(pools, numpy_threads, scipy_threads):
            alone = statistics.median(_per_call(lambda: K @ c) for _ in range(REPEATS))
            pair = statistics.median(_per_call(alternate) for _ in range(REPEATS))
        print(f"| {numpy_threads} | {scipy_threads} | {1000 * alone:.2f} | {1000 * pair:.2f} |",
              flush=True)


def fits(pools):
    X, y = two_moons(n_samples=1000, noise=0.1, random_state=0)
    labels = pick_labeled(y, 5, random_state=0)

    def fit():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            QNS3VM(sigma=0.3).fit(X, labels)
        return time.perf_counter() - start

    settings = {"both pools 2 threads (default)": (2, 2), "numpy 1, scipy 2": (1, 2),
                "numpy 2, scipy 1": (2, 1), "both 1": (1, 1)}
    times = {(name, limited): [] for name in settings for limited in (False, True)}
    original = s3vm_core.base.one_blas_thread
    for _ in range(REPEATS):
        for (name, limited), out in times.items():
            s3vm_core.base.one_blas_thread = original if limited else (lambda states: states)
            try:
                with _threads(pools, *settings[name]):
                    out.append(fit())
            finally:
                s3vm_core.base.one_blas_thread = original
    print("\n| BLAS threads around the fit | QNS3VM fit without the library's limit (s) | "
          "with it (s) |")
    print("|---|---|---|")
    for name in settings:
        print(f"| {name} | {statistics.median(times[name, False]):.2f} | "
              f"{statistics.median(times[name, True]):.2f} |")


def main():
    pools = _pools()
    if set(pools) != {"numpy", "scipy"}:
        print(f"Found the BLAS pools {sorted(pools)}, not numpy's and scipy's: nothing to "
              "compare on this installation.")
        return
    products(pools)
    fits(pools)


if __name__ == "__main__":
    main()
