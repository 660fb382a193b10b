"""Where PCG's goal conditions fire on two moons, against Newton's optimum (LapSVM paper §4).

One PCG run per case (LapSVM defaults: gamma_A = 1e-6, gamma_I = 1, 6 neighbours, sigma the
median distance; two moons with noise 0.1), traced state by state. For the gradient norm and
the mixed product of §4, normalized by their value at t = 0, the table gives the first
iteration at which each falls below 1e-6 ... 1e-10, with the unlabeled error there and the
largest difference to Newton's decision values; and where the stability check (Algorithm 2)
fires. This is the measurement behind the default stop of ``LapSVM(solver="pcg")``.

Run ``python -m benchmarks.bench_pcg_stop [--sizes 2000 4000 8000] [--labels 1 2]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from s3vm_core import LapSVM
from toy_data import pick_labeled, two_moons

THRESHOLDS = (1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
CRITERIA = {"gradient norm": "grad_norm_normalized", "mixed product": "mixed_product"}


def run(n: int, per_class: int, max_iter: int) -> None:
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    labels = pick_labeled(y, per_class, random_state=0)
    unlabeled = labels == -1
    newton = LapSVM().fit(X, labels)
    f_newton = newton.decision_function(X)
    newton_error = np.mean((f_newton[unlabeled] > 0) != (y[unlabeled] == 1))
    pcg = LapSVM(solver="pcg", max_iter=max_iter)
    first = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for state in pcg.trace(X, labels):
            if state.event != "iter":
                continue
            f = state.train_decision
            where = (state.iteration, np.mean((f[unlabeled] > 0) != (y[unlabeled] == 1)),
                     np.max(np.abs(f - f_newton)))
            for name, key in CRITERIA.items():
                for threshold in THRESHOLDS:
                    if state.extras[key] < threshold and (name, threshold) not in first:
                        first[name, threshold] = where
    print(f"\nn = {n}, {per_class} label(s) per class: Newton's error "
          f"{100 * newton_error:.1f}%; the stability check fires at iteration "
          f"{pcg.stop_iterations_['stability']}\n")
    print("| criterion | threshold | iteration | error | max abs(f - f_Newton) |")
    print("|---|---|---|---|---|")
    for (name, threshold), (iteration, error, gap) in sorted(first.items()):
        print(f"| {name} | {threshold:g} | {iteration} | {100 * error:.1f}% | {gap:.1e} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000, 8000])
    parser.add_argument("--labels", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--max-iter", type=int, default=3000)
    args = parser.parse_args(argv)
    with threadpool_limits(limits=1, user_api="blas"):
        for n in args.sizes:
            for per_class in args.labels:
                run(n, per_class, args.max_iter)


if __name__ == "__main__":
    main()
