"""cS3VM speed and the paper's Uspst experiment in miniature.

Run with ``python -m benchmarks.bench_continuation`` (``--help`` for the options). Prints
three markdown tables:

1. the full trace (every state recorded) on two moons, n = 500, one label per class;
2. n = 2000 with all kernel principal components and with ``n_components`` (paper §5.2);
3. the digits 3-vs-8 pair (sklearn's 8x8 digits, 5 labels per class, the rest unlabeled)
   over 10 splits: transductive error of SVMBaseline, cS3VM and ∇TSVM with C = C* = 100
   (cS3VM paper Table 1 uses C = C* = 100; sigma is the median distance here, not 8, since the
   images are 8x8 in [0, 1] rather than USPS 16x16).

BLAS is limited to one thread: on this shared 2-core machine threaded BLAS on 500 x 500 matrices
is many times slower under load. Times are medians over repeats, in seconds.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks._timing import median_time, parser, timed
from s3vm_core.solvers.continuation import ContinuationS3VM
from s3vm_core.solvers.svm import SVMBaseline
from toy_data import digits_pair, pick_labeled, two_moons

#: (n, n_components, repeats) of the speed table
SPEED_CASES = [(500, None, 5), (2000, None, 3), (2000, 200, 3)]


def _trace(model, X, y):
    return model, list(model.trace(X, y))


def bench_speed(cases=SPEED_CASES, repeats=None):
    rows = []
    for n, n_components, case_repeats in cases:
        X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
        y_semi = pick_labeled(y, 1, random_state=0)
        model = ContinuationS3VM(sigma=0.3, n_components=n_components)
        seconds, (model, states) = median_time(lambda m=model, X=X, y=y_semi: _trace(m, X, y),
                                               repeats or case_repeats)
        u = y_semi == -1
        error = np.mean(model.transduction_[u] != y[u])
        rows.append(f"| two moons | {n} | {n_components} | {model.n_components_} | "
                    f"{sum(s.event == 'iter' for s in states)} | {len(states)} | {seconds:.3f} | "
                    f"{100 * error:.1f}% |")
    print("| data | n | n_components | p | iterations | states | time (s) | error |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


def bench_digits(n_splits=10, per_class=5):
    from s3vm_core.solvers.tsvm import GradientTSVM

    X, y = digits_pair(digits=(3, 8))
    solvers = {
        "SVMBaseline": lambda: SVMBaseline(C=100.0),
        "cS3VM": lambda: ContinuationS3VM(C=100.0, C_star=100.0),
        "∇TSVM": lambda: GradientTSVM(C=100.0, C_star=100.0),
    }
    errors = {name: [] for name in solvers}
    times = {name: [] for name in solvers}
    for split in range(n_splits):
        y_semi = pick_labeled(y, per_class, random_state=split)
        u = y_semi == -1
        for name, make in solvers.items():
            seconds, model = timed(lambda make=make, y_semi=y_semi: make().fit(X, y_semi))
            times[name].append(seconds)
            errors[name].append(np.mean(model.predict(X[u]) != y[u]))
    print(f"\ndigits 3 vs 8: n = {len(y)}, {per_class} labels per class, {n_splits} splits\n")
    print("| solver | mean error | std | median time (s) |")
    print("|---|---|---|---|")
    for name in solvers:
        e = 100 * np.array(errors[name])
        print(f"| {name} | {e.mean():.1f}% | {e.std():.1f} | {np.median(times[name]):.3f} |")


def main(argv=None):
    args = parser(__doc__, repeats=None).parse_args(argv)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if args.quick:
            bench_speed(SPEED_CASES[:1], repeats=1)
            bench_digits(n_splits=1)
        else:
            bench_speed(repeats=args.repeats)
            bench_digits()


if __name__ == "__main__":
    main()
