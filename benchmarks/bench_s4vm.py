"""Fit times of S4VM at its defaults, its SVM solver, its kernel width and its safe choice.

Run with ``python -m benchmarks.bench_s4vm`` (``--help`` for the options). Whole fits exhaust
the full trace on two moons (noise 0.1) with one label per class, at the defaults (C1 = 100,
C2 = 0.1, 100 samplings, 10 groups, lambda = 3); the median over repeats is printed as
markdown beside the supervised SVM (same kernel and C1) timed in the same process. BLAS is
limited to one thread, the speed targets' setting (n = 200 within 3 s, n = 2,000 within 30 s).

``--calls`` times S4VM's local searches with LIBSVM called as ``svm.fit_libsvm`` calls it
(without ``SVC.fit``'s checks, a kernel cache of ``PRECOMPUTED_CACHE_MB``) against
``SVC.fit`` (200 MB), in the same process, and checks that they give the same searches.
``--solvers`` times one local search with LIBSVM (the solver S4VM uses) against the
warm-started dual active set of ``weighted_hinge``; ``--widths`` compares the default kernel
width with the authors' formula on two moons and g50c over label draws, and counts what the
safe choice returned (docs/deviations.md, "S4VM").
"""

from __future__ import annotations

import contextlib
import time
from unittest import mock

import numpy as np
from sklearn import config_context
from threadpoolctl import threadpool_limits

from benchmarks._timing import median_time, parser
from s3vm_core import S4VM, SVMBaseline
from s3vm_core.kernels import rbf_kernel
from s3vm_core.solvers import s4vm
from s3vm_core.solvers.weighted_hinge import KernelColumns, WeightedHingeDual
from toy_data import make_dataset, pick_labeled, two_moons

REPEATS = 3
DRAWS = 10


def _moons(n, per_class=1, draw=0):
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, per_class, random_state=draw)


def _error(labels, y, semi) -> float:
    unlabeled = semi == -1
    return float(np.mean(labels[unlabeled] != y[unlabeled]))


def _cpu_timed(run, cpu_times):
    """``run`` that also appends the process's CPU seconds of each call to ``cpu_times``: on a
    shared machine the wall clock counts the other processes' turns, the CPU time does not."""
    def timed():
        start = time.process_time()
        result = run()
        cpu_times.append(time.process_time() - start)
        return result
    return timed


def bench_fit(sizes=(200, 2000), repeats=REPEATS):
    print("\n### Whole fits at the defaults, two moons, one label per class\n")
    print("| n | states | SVM fits | median time (s) | median CPU time (s) | SVM's time (s) "
          "| ratio | safe choice | unlabeled error (S4VM / SVM) | predict != transduction_ |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        X, y, semi = _moons(n)
        model, cpu = S4VM(random_state=0), []
        seconds, states = median_time(_cpu_timed(
            lambda model=model, X=X, semi=semi: list(model.trace(X, semi)), cpu), repeats)
        svm = SVMBaseline(C=model.C1, sigma=model.sigma_)
        svm_seconds, _ = median_time(lambda svm=svm, X=X, semi=semi: svm.fit(X, semi), repeats)
        print(f"| {n} | {len(states)} | {model.n_iter_} | {seconds:.2f} | "
              f"{np.median(cpu):.2f} | {svm_seconds:.4f} | {seconds / svm_seconds:.0f} | "
              f"{model.safe_choice_} | {_error(model.transduction_, y, semi):.3f} / "
              f"{_error(svm.transduction_, y, semi):.3f} | "
              f"{_error(model.predict(X), model.transduction_, semi):.3f} |")


class _ActiveSet:
    """``s4vm.weighted_svm`` by the dual active set of ``weighted_hinge``, each solve of a
    search warm-started where the previous one ended (LabelSwitchingTSVM's and DA's way)."""

    def __init__(self):
        self.start = None

    def __call__(self, K, labels, costs):
        c_plus = np.where(labels > 0, costs, 0.0)
        c_minus = np.where(labels < 0, costs, 0.0)
        solution = WeightedHingeDual(KernelColumns(K), 1.0).solve(c_plus, c_minus, self.start)
        if not solution.converged:
            return s4vm.weighted_svm(K, labels, costs)
        self.start = solution.start
        return s4vm._Fit(solution.alpha, solution.intercept, solution.outputs, False)


def bench_solvers(sizes=(200, 2000), searches=5, sigma=0.3):
    print(f"\n### One local search (the mean of {searches} from uniform starts), two moons, "
          f"sigma = {sigma}\n")
    print("| n | SVM solver | alternations | median time per search (s) |")
    print("|---|---|---|---|")
    for n in sizes:
        X, _, semi = _moons(n, per_class=2)
        y = np.where(semi == -1, 0.0, 2.0 * semi - 1.0)
        K = rbf_kernel(X, X, sigma)
        bounds = s4vm.balance_bounds(np.mean(y[y != 0] > 0), int(np.sum(y == 0)), 0.1)
        svm_u = np.ones(int(np.sum(y == 0)))
        for name in ("LIBSVM", "active set"):
            times, iterations = [], []
            for seed in range(searches):
                patch = (mock.patch.object(s4vm, "weighted_svm", _ActiveSet())
                         if name == "active set" else contextlib.nullcontext())
                with patch:
                    start = time.perf_counter()
                    search = s4vm.local_search(K, y, "uniform", svm_u, seed, C1=100.0, C2=0.1,
                                               bounds=bounds, max_iter=200)
                    times.append(time.perf_counter() - start)
                iterations.append(search.n_iter)
            print(f"| {n} | {name} | {np.mean(iterations):.1f} | {np.median(times):.3f} |")


def _through_svc(svm, K, codes, sample_weight):
    """``svm.fit_libsvm``'s LIBSVM call made by ``SVC.fit`` itself, its checks included."""
    with config_context(assume_finite=True, skip_parameter_validation=True):
        svm.fit(K, codes, sample_weight=sample_weight)
    return svm


def bench_calls(sizes=(2000, 4000), searches=3, repeats=REPEATS):
    """S4VM's local searches (at its defaults, uniform starts) with LIBSVM called three ways,
    one after another ``repeats`` times: the median CPU seconds of each, and its ratio to
    ``SVC.fit``'s."""
    from s3vm_core.solvers import svm as svm_module

    ways = {
        "SVC.fit, 200 MB cache (before)": {"_precomputed_fit": _through_svc},
        "LIBSVM directly, 200 MB cache": {"PRECOMPUTED_CACHE_MB": 200},
        f"LIBSVM directly, {svm_module.PRECOMPUTED_CACHE_MB:g} MB cache (fit_libsvm)": {},
    }
    print(f"\n### {searches} local searches of S4VM, two moons, one label a class, its "
          "defaults\n")
    print("| n | LIBSVM called by | SVM fits | median CPU s | ratio to SVC.fit | "
          "same searches |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        X, _, semi = _moons(n)
        y = np.where(semi == -1, 0.0, 2.0 * semi - 1.0)
        K = rbf_kernel(X, X, s4vm.mean_distance_sigma(X))
        bounds = s4vm.balance_bounds(np.mean(y[y != 0] > 0), int(np.sum(y == 0)), 0.1)
        svm_u = np.ones(int(np.sum(y == 0)))
        times = {way: [] for way in ways}
        found = {}
        for _ in range(repeats):
            for way, patches in ways.items():
                with contextlib.ExitStack() as stack:
                    for name, value in patches.items():
                        stack.enter_context(mock.patch.object(svm_module, name, value))
                    start = time.process_time()
                    found[way] = [s4vm.local_search(K, y, "uniform", svm_u, seed, C1=100.0,
                                                    C2=0.1, bounds=bounds, max_iter=200)
                                  for seed in range(searches)]
                    times[way].append(time.process_time() - start)
        baseline = np.median(times[next(iter(ways))])
        first = found[next(iter(ways))]
        for way in ways:
            same = all(np.array_equal(a.labels, b.labels) and np.array_equal(a.decision,
                                                                              b.decision)
                       for a, b in zip(first, found[way], strict=True))
            print(f"| {n} | {way} | {sum(1 + s.n_iter for s in found[way])} | "
                  f"{np.median(times[way]):.2f} | {np.median(times[way]) / baseline:.2f} | "
                  f"{'yes' if same else 'NO'} |")


def _width_rules(X):
    """The kernel widths compared: the default and the authors' formula, LIBSVM's
    ``gamma = 1 / d`` for the mean distance d, i.e. sigma = sqrt(d / 2), on X as it is and on
    features scaled to [0, 1] as the paper scales them."""
    d = s4vm.mean_distance_sigma(X)
    scaled = (X - X.min(axis=0)) / np.ptp(X, axis=0)
    return {
        "default: sigma = d (mean distance)": (X, d),
        "S4VM.m: gamma = 1/d on X": (X, np.sqrt(d / 2.0)),
        "S4VM.m: gamma = 1/d on X scaled to [0, 1]": (
            scaled, np.sqrt(s4vm.mean_distance_sigma(scaled) / 2.0)),
    }


def bench_widths(draws=DRAWS, moons_n=200, data_sets=("two moons", "g50c")):
    """The width rules on the app's two moons (2-D, n = 200) and on g50c (50-D, n = 550)."""
    print(f"\n### Kernel width rules, {draws} label draws\n")
    print("| data | width | sigma | labels a class | error S4VM | error SVM | S4VM worse / "
          "better | largest loss | safe choice (SVM / LP / a candidate) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for data_name in data_sets:
        if data_name == "two moons":
            X, y, _ = _moons(moons_n)
            label_counts = (1, 2)
        else:
            X, y = make_dataset(data_name)[:2]
            label_counts = (4,)
        for name, (data, sigma) in _width_rules(X).items():
            for per_class in label_counts:
                _width_row(data_name, name, data, y, sigma, per_class, draws)


def _width_row(data_name, name, X, y, sigma, per_class, draws):
    rows, chosen = [], {"SVM": 0, "LP": 0, "candidate": 0}
    for draw in range(draws):
        semi = pick_labeled(y, per_class, random_state=draw)
        model = S4VM(sigma=sigma, random_state=0).fit(X, semi)
        svm = SVMBaseline(C=model.C1, sigma=sigma).fit(X, semi)
        rows.append((_error(model.transduction_, y, semi), _error(svm.transduction_, y, semi)))
        choice = model.safe_choice_
        chosen[choice if isinstance(choice, str) else "candidate"] += 1
    r = np.array(rows)
    print(f"| {data_name} | {name} | {sigma:.3f} | {per_class} | {r[:, 0].mean():.3f} | "
          f"{r[:, 1].mean():.3f} | {np.sum(r[:, 0] > r[:, 1])} / {np.sum(r[:, 0] < r[:, 1])} | "
          f"{max(0.0, (r[:, 0] - r[:, 1]).max()):.3f} | "
          f"{chosen['SVM']} / {chosen['LP']} / {chosen['candidate']} |")


def main(argv=None):
    p = parser(__doc__, repeats=REPEATS)
    p.add_argument("--calls", action="store_true",
                   help="LIBSVM called directly against SVC.fit, in S4VM's local searches")
    p.add_argument("--solvers", action="store_true",
                   help="one local search: LIBSVM against the warm-started active set")
    p.add_argument("--widths", action="store_true",
                   help="the default kernel width against the authors' formula, over draws")
    args = p.parse_args(argv)
    with threadpool_limits(1):
        if args.quick:
            bench_fit(sizes=(200,), repeats=1)
            bench_solvers(sizes=(200,), searches=1)
            bench_widths(draws=1, moons_n=100, data_sets=("two moons",))
        elif args.calls:
            bench_calls(repeats=args.repeats)
        elif args.solvers:
            bench_solvers()
        elif args.widths:
            bench_widths()
        else:
            bench_fit(repeats=args.repeats)


if __name__ == "__main__":
    main()
