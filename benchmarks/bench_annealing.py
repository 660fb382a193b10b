"""DA speed: the full trace on two moons for each loss, at n = 400 and growing to n = 1000.

Run with ``python -m benchmarks.bench_annealing [--repeats 3]`` (``--help`` for the
options). Two moons (noise 0.05, data seed 0), one label per class (draw 0), the Table-2
setting of the tests (lambda = 0.01, lambda' = 1, sigma = 0.2) and the paper's schedule
(T0 = 10, R = 1.5, eps = 1e-6). Every state is recorded (``every=1``). Targets (issue 6):
under 2 s at n = 400 for the squared and squared-hinge losses, under 5 s for the hinge.

BLAS is limited to one thread: on this shared 2-core machine threaded BLAS on a few hundred
points is slower under load. Times are medians over the repeats, in seconds.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks._timing import median_time, parser
from s3vm_core.solvers.annealing import DeterministicAnnealingS3VM
from toy_data import pick_labeled, two_moons

LOSSES = ("squared", "squared_hinge", "hinge")
SIZES = (400, 700, 1000)


def run_once(X, y, y_semi, loss: str):
    model = DeterministicAnnealingS3VM(loss=loss, lam=1e-2, lam_u=1.0, sigma=0.2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        states = list(model.trace(X, y_semi))
    unlabeled = y_semi == -1
    return {
        "alternations": sum(s.event in ("iter", "stage_end") for s in states),
        "stages": sum(s.event == "stage_end" for s in states),
        "error": float(np.mean(model.transduction_[unlabeled] != y[unlabeled])),
        "warnings": len(caught),
    }


def main(argv=None):
    p = parser(__doc__, repeats=3)
    p.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    args = p.parse_args(argv)
    sizes, repeats = (args.sizes[:1], 1) if args.quick else (args.sizes, args.repeats)
    print("| loss | n | time (s), median | alternations | T stages | error | warnings |")
    print("|---|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for loss in LOSSES:
            for n in sizes:
                X, y = two_moons(n_samples=n, noise=0.05, random_state=0)
                y_semi = pick_labeled(y, 1, random_state=0)
                seconds, last = median_time(lambda X=X, y=y, y_semi=y_semi, loss=loss:
                                            run_once(X, y, y_semi, loss), repeats)
                print(f"| {loss} | {n} | {seconds:.2f} | "
                      f"{last['alternations']} | {last['stages']} | "
                      f"{100 * last['error']:.1f}% | {last['warnings']} |", flush=True)


if __name__ == "__main__":
    main()
