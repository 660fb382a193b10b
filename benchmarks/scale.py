"""Speed and scale: fit time and peak memory of every solver against n, with growth exponents.

For each solver and n (two moons, one label per class, BLAS on one thread; the linear forms'
rows on sparse text, ``benchmarks.sparse_text``, 25 labels per class) one whole fit is
timed (median over ``--repeats``), its peak traced memory measured (``tracemalloc``: numpy
registers its allocations there), and a profiled fit splits the time into the share spent in
kernel-matrix products (``s3vm_core.kernels.kernel_matrix`` and its helpers, BLAS-bound
``X @ Z.T``) and in dense linear algebra (eigendecompositions, factorizations, solves: the
``numpy.linalg`` / ``scipy.linalg`` / LIBSVM calls). The growth exponent is the slope of
log(time) against log(n) (least squares). A solver stops growing n once its next fit,
extrapolated with the growth measured so far, would take longer than ``--max-seconds``.
Measurements run one after another (never in parallel: they are timings).

Each row also records the unlabeled error of the fit (in the table: one figure per measured n),
so that a scalable form's rows can be read next to its exact method's.

Run ``python -m benchmarks.scale [--quick] [--sizes 250 500 1000 2000 4000 8000]``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from benchmarks.sweep import RESULTS_ROOT, markdown_table

SOLVERS = {
    "SVMBaseline": {"estimator": "SVMBaseline", "sigma": 0.25},
    "GradientTSVM": {"estimator": "GradientTSVM", "sigma": 0.25},
    "GradientTSVM (p=300 subset)": {"estimator": "GradientTSVM", "sigma": 0.25,
                                    "n_components": 300},
    "LDS": {"estimator": "LDS", "rho": 8.0},
    "LDS (10-NN graph, 20 MDS components)": {"estimator": "LDS", "rho": 8.0, "n_neighbors": 10,
                                             "max_components": 20},
    # the landmark forms (issue 28): paths from 200 points, O(n m) memory
    "LDS (10-NN graph, 200 landmarks)": {"estimator": "LDS", "rho": 8.0, "n_neighbors": 10,
                                         "bridge": True, "n_landmarks": 200},
    "GraphKernelSVM": {"estimator": "GraphKernelSVM", "rho": 8.0},
    "GraphKernelSVM (10-NN graph)": {"estimator": "GraphKernelSVM", "rho": 8.0,
                                     "n_neighbors": 10},
    "GraphKernelSVM (10-NN graph, 200 landmarks)": {"estimator": "GraphKernelSVM", "rho": 8.0,
                                                    "n_neighbors": 10, "bridge": True,
                                                    "n_landmarks": 200},
    "LabelSwitchingTSVM": {"estimator": "LabelSwitchingTSVM", "sigma": 0.25},
    "ContinuationS3VM": {"estimator": "ContinuationS3VM", "sigma": 0.25},
    "ContinuationS3VM (p=300 subset)": {"estimator": "ContinuationS3VM", "sigma": 0.25,
                                        "n_components": 300, "random_state": 0},
    "QNS3VM": {"estimator": "QNS3VM", "sigma": 0.25, "lam": 2.0**-5},
    "QNS3VM (r=200 landmarks)": {"estimator": "QNS3VM", "sigma": 0.25, "lam": 2.0**-5,
                                 "n_landmarks": 200, "random_state": 0},
    "DA (hinge)": {"estimator": "DeterministicAnnealingS3VM", "sigma": 0.25},
    "LapSVM (Newton)": {"estimator": "LapSVM", "sigma": 0.25},
    "LapSVM (PCG, stability)": {"estimator": "LapSVM", "sigma": 0.25, "solver": "pcg",
                                "stopping": "stability"},
    "LapSVM (PCG, stability, float32 K)": {"estimator": "LapSVM", "sigma": 0.25,
                                           "solver": "pcg", "stopping": "stability",
                                           "kernel_dtype": "float32"},
    "LapRLSC": {"estimator": "LapRLSC", "sigma": 0.25},
    "LapRLSC (PCG, stability, float32 K)": {"estimator": "LapRLSC", "sigma": 0.25,
                                            "solver": "pcg", "stopping": "stability",
                                            "kernel_dtype": "float32"},
    # the linear forms, on sparse text (a linear kernel on two moons teaches nothing)
    "LapSVM (linear PCG, stability), text": {"estimator": "LapSVM", "kernel": "linear",
                                             "solver": "pcg", "stopping": "stability",
                                             "data": "text"},
    "DA (squared loss, linear), text": {"estimator": "DeterministicAnnealingS3VM",
                                        "kernel": "linear", "loss": "squared", "lam": 1e-3,
                                        "data": "text"},
    "DA (squared hinge, linear), text": {"estimator": "DeterministicAnnealingS3VM",
                                         "kernel": "linear", "loss": "squared_hinge",
                                         "lam": 1e-3, "data": "text"},
    "LapRLSC (linear PCG, stability), text": {"estimator": "LapRLSC", "kernel": "linear",
                                              "solver": "pcg", "stopping": "stability",
                                              "data": "text"},
    "LabelSwitchingTSVM (linear, squared hinge, multi-switch), text": {
        "estimator": "LabelSwitchingTSVM", "kernel": "linear", "loss": "squared_hinge",
        "switching": "multi", "data": "text"},
}
#: the smoke test's solvers (seconds in total)
TINY = ["SVMBaseline", "GradientTSVM", "LapSVM (PCG, stability)"]
KERNEL_FUNCTIONS = {"kernel_matrix", "squared_distances", "rbf_kernel", "linear_kernel",
                    "polynomial_kernel"}
LINALG_WORDS = ("eigh", "eig", "cholesky", "cho_solve", "cho_factor", "solve", "lstsq", "svd",
                "inv", "fit", "libsvm", "qr")


def _data(n, data="moons"):
    """``(X, labels, y)``: two moons with one label per class, or sparse text (10,000 words,
    25 labels per class) for the linear forms."""
    from toy_data import pick_labeled, two_moons

    if data == "text":
        from benchmarks.sparse_text import sparse_text_problem

        X, y, labels = sparse_text_problem(n)
        return X, labels, y
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    return X, pick_labeled(y, 1, random_state=0), y


def _fit(params, X, y):
    from sklearn.exceptions import ConvergenceWarning

    from benchmarks.sweep import build_estimator

    est = build_estimator({k: v for k, v in params.items() if k != "data"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    return est


def _shares(params, X, y):
    """Fractions of a profiled fit's time in kernel products and in dense linear algebra."""
    profile = cProfile.Profile()
    profile.enable()
    _fit(params, X, y)
    profile.disable()
    stats = pstats.Stats(profile).stats
    total = sum(tt for (_, _, _, tt, _) in stats.values())
    kernel = sum(ct for (path, _, name), (_, _, _, ct, _) in stats.items()
                 if name in KERNEL_FUNCTIONS and path.endswith("kernels.py"))
    # "ct" of the outermost kernel function already contains the inner ones: keep the largest
    kernel = max((ct for (path, _, name), (_, _, _, ct, _) in stats.items()
                  if name == "kernel_matrix" and path.endswith("kernels.py")), default=kernel)
    linalg = sum(tt for (path, _, name), (_, _, tt, _, _) in stats.items()
                 if ("linalg" in path or "libsvm" in name or path == "~")
                 and any(w in name.lower() for w in LINALG_WORDS))
    return kernel / total if total else np.nan, linalg / total if total else np.nan


def measure(name, params, n, repeats, profile=True):
    X, y, truth = _data(n, params.get("data", "moons"))
    for subset in ("n_landmarks", "n_components"):  # a subset of at most half the points
        if subset in params:
            params = {**params, subset: min(params[subset], n // 2)}
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        est = _fit(params, X, y)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    _fit(params, X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    kernel_share, linalg_share = _shares(params, X, y) if profile else (np.nan, np.nan)
    unlabeled = y == -1
    error = float(np.mean(est.transduction_[unlabeled] != truth[unlabeled]))
    return {"solver": name, "n": n, "seconds": float(np.median(times)),
            "peak_mb": peak / 2**20, "n_iter": float(getattr(est, "n_iter_", np.nan)),
            "kernel_share": kernel_share, "linalg_share": linalg_share,
            "unlabeled_error": error}


def growth_exponent(rows):
    """Slope of log(seconds) against log(n) over the measured sizes (nan with fewer than 2)."""
    pts = [(r["n"], r["seconds"]) for r in rows if r["seconds"] > 0]
    if len(pts) < 2:
        return float("nan")
    n, t = np.log(np.array(pts)).T
    return float(np.polyfit(n, t, 1)[0])


def run(sizes, solvers, repeats, max_seconds, out: Path, progress=True, profile=True):
    from threadpoolctl import threadpool_limits

    from benchmarks.sweep import progress_bar

    out.mkdir(parents=True, exist_ok=True)
    rows = []
    bar = progress_bar(len(sizes) * len(solvers), disable=not progress, desc="scale")
    # Rows are appended as they are measured, so an interrupted run keeps what it measured.
    with threadpool_limits(1), (out / "results.jsonl").open("w") as log:
        for name in solvers:  # imports and first calls outside the timings
            X, y, _ = _data(100, SOLVERS[name].get("data", "moons"))
            _fit({k: v for k, v in SOLVERS[name].items()
                  if k not in ("n_components", "n_landmarks")}, X, y)
        for name in solvers:
            mine = []
            for k, n in enumerate(sizes):
                try:
                    row = measure(name, SOLVERS[name], n, repeats, profile)
                except (ValueError, MemoryError) as refusal:  # e.g. an n x n matrix too large
                    print(f"\n{name} at n = {n}: {refusal}")
                    bar.update(len(sizes) - k)
                    break
                rows.append(row)
                mine.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                bar.update()
                # Stop growing n once the next fit, extrapolated with the growth measured so
                # far (cubic before there are two sizes), would exceed max_seconds.
                exponent = growth_exponent(mine) if len(mine) > 1 else 3.0
                following = sizes[k + 1] if k + 1 < len(sizes) else None
                if following is not None and (
                        row["seconds"] * (following / n) ** max(exponent, 1.0) > max_seconds):
                    bar.update(len(sizes) - k - 1)
                    break
    bar.close()
    (out / "results.json").write_text(json.dumps(rows, indent=1))
    with (out / "results.csv").open("w") as handle:
        handle.write(",".join(rows[0]) + "\n")
        handle.writelines(",".join(str(v) for v in r.values()) + "\n" for r in rows)
    return rows


def table(rows) -> str:
    by_solver = {}
    for r in rows:
        by_solver.setdefault(r["solver"], []).append(r)
    sizes = sorted({r["n"] for r in rows})
    header = ["solver", *[f"n={n} (s)" for n in sizes], "growth exponent",
              "peak MB at largest n", "kernel share", "linalg share", "iterations",
              "unlabeled error at each n, %"]
    body = []
    for name, rs in by_solver.items():
        at = {r["n"]: r for r in rs}
        last = rs[-1]
        body.append([name, *[at[n]["seconds"] if n in at else float("nan") for n in sizes],
                     growth_exponent(rs), f"{last['peak_mb']:.0f} (n={last['n']})",
                     _percent(last["kernel_share"]), _percent(last["linalg_share"]),
                     last["n_iter"],
                     " / ".join(f"{100 * r['unlabeled_error']:.1f}"
                                if "unlabeled_error" in r else "–" for r in rs)])
    return markdown_table(header, body)


def _percent(share) -> str:
    return "–" if np.isnan(share) else f"{100 * share:.0f}%"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--tiny", action="store_true", help="a smoke test (seconds)")
    p.add_argument("--sizes", type=int, nargs="+", default=None)
    p.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=list(SOLVERS),
                   metavar="SOLVER")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--max-seconds", type=float, default=None,
                   help="stop growing n for a solver once a fit takes longer")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-profile", action="store_true",
                   help="skip the profiled fit (kernel and linalg shares), one fit less a row")
    args = p.parse_args(argv)
    size = "tiny" if args.tiny else "quick" if args.quick else "full"
    sizes = args.sizes or {"full": [250, 500, 1000, 2000, 4000, 8000], "quick": [200, 400, 800],
                           "tiny": [40, 80]}[size]
    repeats = args.repeats or {"full": 3, "quick": 1, "tiny": 1}[size]
    max_seconds = args.max_seconds or {"full": 60.0, "quick": 5.0, "tiny": 5.0}[size]
    solvers = args.solvers if size != "tiny" or args.solvers != list(SOLVERS) else TINY
    out = args.out or RESULTS_ROOT / ("scale" if size == "full" else f"scale_{size}")
    rows = run(sizes, solvers, repeats, max_seconds, out, progress=not args.no_progress,
               profile=not args.no_profile)
    print(f"\n### Fit time against n ({size})\n")
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
