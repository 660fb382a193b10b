"""Fit times of QN-S3VM on its three paths (Gieseke et al. 2012, §3.3 and §4.2.4).

Run with ``python -m benchmarks.bench_qn`` (``--help`` for the options). Whole fits (``fit``
exhausts the trace, every L-BFGS iterate recorded as a state); the median over repeats is
printed as markdown.

* dense kernel expansion (Lemma 1, O(n^2) per evaluation): two moons, n = 1000, RBF;
* subset of regressors with r = 500 landmarks (Lemma 2, O(nr)): two moons, n = 2000 ... 10000;
* linear kernel on a sparse 1000 x 20 000 matrix (Lemma 4, O(nnz)), text-like data;
* Gaussian2C of Table 1 (d = 500, 12 labels per class, t = 250, linear kernel, 5 splits).

BLAS is limited to one thread: on this shared 2-core machine threaded BLAS on these
matrix-vector products is several times slower under load.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks._timing import median_time, parser
from s3vm_core.solvers.qn import QNS3VM
from s3vm_core.solvers.svm import SVMBaseline
from toy_data import gaussian_2c, pick_labeled, two_moons

REPEATS = 3


def _median_fit(make, X, y, repeats=REPEATS):
    """Median time of ``make().fit(X, y)`` over ``repeats`` fits, and the last model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return median_time(lambda: make().fit(X, y), repeats)


def _row(path, n, p, seconds, model, error):
    print(f"| {path} | {n} | {p} | {model.n_iter_} | {seconds:.3f} | {error:.3f} |")


def _moons(n):
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    labels = pick_labeled(y, 5, random_state=0)
    return X, y, labels, labels == -1


def bench_kernel_paths(dense_n=1000, landmark_sizes=(2000, 5000, 10000), r=500,
                       repeats=REPEATS):
    print("\n### Two moons, RBF (sigma = 0.2, lam = 2^-10, lam_u = 1), 5 labels per class\n")
    print("| path | n | parameters | states | median time (s) | unlabeled error |")
    print("|---|---|---|---|---|---|")
    X, y, labels, u = _moons(dense_n)
    seconds, model = _median_fit(lambda: QNS3VM(sigma=0.2, lam=2**-10), X, labels, repeats)
    _row("dense (Lemma 1)", dense_n, dense_n, seconds, model,
         np.mean(model.transduction_[u] != y[u]))
    for n in landmark_sizes:
        X, y, labels, u = _moons(n)

        def make():
            return QNS3VM(sigma=0.2, lam=2**-10, n_landmarks=r, random_state=0)

        seconds, model = _median_fit(make, X, labels, repeats if n <= 5000 else 1)
        _row(f"landmarks r = {r} (Lemma 2)", n, r, seconds, model,
             np.mean(model.transduction_[u] != y[u]))


def bench_sparse(n=1000, d=20_000, words_per_doc=50, repeats=REPEATS):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    # a bag of words: common words shared by both classes, a few class-specific ones
    rows = np.repeat(np.arange(n), words_per_doc)
    cols = rng.integers(0, d, n * words_per_doc)
    specific = rng.random(n * words_per_doc) < 0.3
    cols[specific] = y[rows[specific]] * 100 + rng.integers(0, 100, specific.sum())
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1))))
    labels = pick_labeled(y, 10, random_state=0)
    u = labels == -1
    print(f"\n### Sparse linear kernel (Lemma 4): {n} x {d}, nnz = {X.nnz}, 10 labels per "
          "class\n")
    print("| path | n | parameters | states | median time (s) | unlabeled error |")
    print("|---|---|---|---|---|---|")
    seconds, model = _median_fit(lambda: QNS3VM(kernel="linear", lam=2**-6), X, labels, repeats)
    _row("sparse linear", n, n, seconds, model, np.mean(model.transduction_[u] != y[u]))
    seconds, model = _median_fit(lambda: QNS3VM(kernel="linear", lam=2**-6), X.toarray(),
                                 labels, 1)
    _row("same data, dense linear (Lemma 3)", n, n, seconds, model,
         np.mean(model.transduction_[u] != y[u]))


def bench_gaussian2c(seeds=range(5)):
    print("\n### Gaussian2C, Table 1 protocol (d = 500, l = 12 + 12, u = 226, t = 250), "
          "linear kernel\n")
    print("| model | median time (s) | mean test error | per split |")
    print("|---|---|---|---|")
    results = {"QN-S3VM (lam = 4, lam_u = 1)": [], "SVMBaseline (default C)": []}
    times = {name: [] for name in results}
    for seed in seeds:
        X, y = gaussian_2c(n_samples=500, n_features=500, random_state=seed)
        labels = pick_labeled(y[:250], 12, random_state=seed)  # as tests/s3vm_core/test_qn.py
        for name, make in [
            ("QN-S3VM (lam = 4, lam_u = 1)", lambda: QNS3VM(kernel="linear", lam=4.0, lam_u=1.0)),
            ("SVMBaseline (default C)", lambda: SVMBaseline(kernel="linear")),
        ]:
            seconds, model = _median_fit(make, X[:250], labels, 1)
            times[name].append(seconds)
            results[name].append(np.mean(model.predict(X[250:]) != y[250:]))
    for name, errors in results.items():
        print(f"| {name} | {np.median(times[name]):.3f} | {np.mean(errors):.3f} | "
              f"{', '.join(f'{e:.3f}' for e in errors)} |")


def main(argv=None):
    args = parser(__doc__, repeats=REPEATS).parse_args(argv)
    with threadpool_limits(1):
        if args.quick:
            bench_kernel_paths(dense_n=300, landmark_sizes=(1000,), r=100, repeats=1)
            bench_sparse(n=300, d=2000, repeats=1)
            bench_gaussian2c(seeds=range(1))
        else:
            bench_kernel_paths(repeats=args.repeats)
            bench_sparse(repeats=args.repeats)
            bench_gaussian2c()


if __name__ == "__main__":
    main()
