"""LapSVM at the sizes of the LapSVM paper's Table 3: FACEMIT and MNIST3VS8 shapes, PCG with the
stability check, Newton for the ratio, and float32 against float64 storage of K.

The data are drawn here (``toy_data.images``, fixed seeds, nothing downloaded), of the shapes of
the paper's Tables 1-2 with its labeled counts and the parameters its Tables 8-9 selected:

* FACEMIT: ``faces``, 19 x 19 = 361 pixels, 1.96 % faces; 2 labeled (one per class) and 23,973
  unlabeled training points, 6,997 test points. RBF kernel sigma = 4.3, a 6-NN graph, p = 1,
  gamma_A = 1e-6, gamma_I = 1e-8. Errors are macro error rates, 1 - (TP + TN) / 2, as the
  paper reports them for this unbalanced set (§6.2).
* MNIST3VS8: ``strokes_3vs8``, 28 x 28 = 784 pixels; 80 labeled (40 per class) and 11,822
  unlabeled training points, 1,984 test points. Polynomial kernel (<x, z> + 1)^9, a 20-NN
  graph, p = 3, gamma_A = 1e-6 and gamma_I = 0.1 (Table 9, PCG with the stability check; the
  Newton row uses the same values, so that the two objectives are comparable).

* FACEMIT, independent data (``facemit-independent``): the same shape, sizes and parameters,
  drawn by scikit-learn's ``make_classification`` (40 informative features, 3 clusters a
  class, 1.96 % positives) and histogram-equalized image by image as the CBCL images are
  (pixels uniform in [0, 1]), so that no property of our own image generator helps.

PCG stops by the stability check (Algorithm 2: eta = 1.5 %, theta = sqrt(n)/2), K stored as
``kernel_dtype="auto"`` does (float64 up to 2 GiB, float32 beyond: the FACEMIT runs);
``--precision`` compares float32 with float64 storage at n = 8,000 (both shapes, the same
points as the first 8,000 of the full runs' generator). Every run is a fresh process with
one BLAS thread (``--threads``): its peak RSS is its own (``resource.getrusage``, data and
interpreter included), read after the fit and again after the predictions on the test
points. The times are split as ``trace()`` makes them: the setup (K, the k-NN graph and its
Laplacian; the paper's Table 3 precomputes both, footnote 5) and the solver itself; then the
predictions. The load average (1 minute) is read when a run starts and when it ends.

``--code DIR`` runs the library of another checkout (``git archive COMMIT | tar -x -C DIR``)
under this harness, for a before/after comparison; ``--label`` names the rows.

Run ``python -m benchmarks.lapsvm_large`` (all rows, about 15 minutes), or ``--cases facemit
mnist`` for some, ``--scale 0.1`` for a smoke run at a tenth of the sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS_ROOT = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent

#: The paper's Table 3 training times (s; Matlab 7.6, a 2.33 GHz machine with 6 GB, K and L
#: precomputed) and Table 6's PCG iterations.
PAPER = {
    "facemit": {"pcg": 35.728, "pcg_iterations": 3},
    "mnist3vs8": {"dual": 2064.18, "newton": 2824.174, "pcg": 114.441, "pcg_iterations": 110},
}

SHAPES = {
    "facemit": {"generator": "faces", "n_labeled_per_class": 1, "n_train": 23_975,
                "n_test": 6_997, "macro": True,
                "params": {"kernel": "rbf", "sigma": 4.3, "n_neighbors": 6, "p": 1,
                           "gamma_A": 1e-6, "gamma_I": 1e-8}},
    "facemit-independent": {"generator": "independent", "n_labeled_per_class": 1,
                            "n_train": 23_975, "n_test": 6_997, "macro": True,
                            "params": {"kernel": "rbf", "sigma": 4.3, "n_neighbors": 6, "p": 1,
                                       "gamma_A": 1e-6, "gamma_I": 1e-8}},
    "mnist3vs8": {"generator": "strokes_3vs8", "n_labeled_per_class": 40, "n_train": 11_902,
                  "n_test": 1_984, "macro": False,
                  "params": {"kernel": "poly", "degree": 9, "coef0": 1.0, "n_neighbors": 20,
                             "p": 3, "gamma_A": 1e-6, "gamma_I": 0.1}},
}
PCG = {"solver": "pcg", "stopping": "stability"}

#: name -> (shape, solver settings, training size or None for the paper's)
CASES = {
    "facemit": ("facemit", PCG, None),
    "facemit-independent": ("facemit-independent", PCG, None),
    "mnist": ("mnist3vs8", PCG, None),
    "mnist-newton": ("mnist3vs8", {"solver": "newton"}, None),
}
PRECISION_N = 8_000
PRECISION = {
    f"{shape}-8000-{dtype}": (shape, {**PCG, "kernel_dtype": dtype}, PRECISION_N)
    for shape in ("facemit", "mnist3vs8") for dtype in ("float64", "float32")
}
#: The FACEMIT runs with K in float64 (4.3 GiB) for the float32 runs' answer to be read against,
#: and both run to a gradient norm of 1e-10 of its start instead of PCG's own 1e-8: at 1e-8 each
#: stops on one of the plateaus of this weakly regularized problem (gamma_A = 1e-6, gamma_I =
#: 1e-8, two labels), not at its optimum.
CONVERGED = {"solver": "pcg", "stopping": "grad_norm", "tol": 1e-10}
FULL_FLOAT64 = {
    **{f"{shape}-float64": (shape, {**PCG, "kernel_dtype": "float64"}, None)
       for shape in ("facemit", "facemit-independent")},
    **{f"{shape}-converged-{dtype}": (shape, {**CONVERGED, "kernel_dtype": dtype}, None)
       for shape in ("facemit", "facemit-independent") for dtype in ("auto", "float64")},
}
SEED = 0


def make_data(shape: str, n_train: int, n_test: int):
    """``(X, y_true, y_labeled, X_test, y_test)`` of a shape (the first ``n_train`` points of
    its generator train, the next ``n_test`` test)."""
    from toy_data import images, pick_labeled

    spec = SHAPES[shape]
    generator = (independent_faces if spec["generator"] == "independent"
                 else getattr(images, spec["generator"]))
    X, y = generator(n_samples=n_train + n_test, random_state=SEED)
    labeled = pick_labeled(y[:n_train], spec["n_labeled_per_class"], random_state=SEED)
    return X[:n_train], y[:n_train], labeled, X[n_train:], y[n_train:]


def independent_faces(n_samples: int, random_state: int = 0):
    """FACEMIT's shape from scikit-learn's ``make_classification`` (361 features, 1.96 %
    positives, 40 informative features in 3 clusters a class), each image histogram-equalized:
    its pixels replaced by their ranks in [0, 1], as the CBCL images are equalized."""
    from sklearn.datasets import make_classification

    from toy_data.images import FACE_FRACTION

    X, y = make_classification(n_samples=n_samples, n_features=361, n_informative=40,
                               n_redundant=40, n_clusters_per_class=3,
                               weights=[1 - FACE_FRACTION], flip_y=0.0, class_sep=2.0,
                               random_state=random_state)
    ranks = np.argsort(np.argsort(X, axis=1), axis=1)
    return ranks / (X.shape[1] - 1.0), y


def error_rate(truth, predicted, macro: bool) -> float:
    """The error rate, or the macro error 1 - (TP rate + TN rate) / 2 (the paper's FACEMIT)."""
    if not macro:
        return float(np.mean(truth != predicted))
    rates = [np.mean(predicted[truth == c] == c) for c in (0, 1)]
    return float(1.0 - np.mean(rates))


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30  # kB on Linux


def cpu_seconds() -> float:
    """CPU seconds of this process so far (user and system, all its threads): what a run
    costs whatever else the machine runs at the time."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_case(shape: str, settings: dict, n_train: int | None, scale: float = 1.0) -> dict:
    """One fit and its test predictions in this process: times, peak RSS, objective,
    iterations and errors."""
    from sklearn.exceptions import ConvergenceWarning

    from s3vm_core import LapSVM

    load_start = os.getloadavg()[0]
    spec = SHAPES[shape]
    n_train = int((n_train or spec["n_train"]) * scale)
    n_test = int(spec["n_test"] * scale)
    X, y, labeled, X_test, y_test = make_data(shape, n_train, n_test)
    rss_data = peak_rss_gib()
    model = LapSVM(**spec["params"], **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start, cpu_start = time.perf_counter(), cpu_seconds()
        states = model.trace(X, labeled)  # the setup runs here: K, the graph, its Laplacian
        setup, setup_cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
        for _ in states:
            pass
        seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    rss_fit = peak_rss_gib()
    start, cpu_start = time.perf_counter(), cpu_seconds()
    predicted = model.predict(X_test)
    predict_seconds, predict_cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    unlabeled = labeled == -1
    macro = spec["macro"]
    return {
        "shape": shape, "n": n_train, "n_labeled": int((~unlabeled).sum()), "d": X.shape[1],
        **settings, "kernel_dtype_": getattr(model, "kernel_dtype_", settings.get(
            "kernel_dtype", "float64")),
        "seconds": seconds, "setup_seconds": setup, "solver_seconds": seconds - setup,
        "predict_seconds": predict_seconds, "n_test": n_test, "cpu_seconds": cpu,
        "setup_cpu_seconds": setup_cpu, "predict_cpu_seconds": predict_cpu,
        "peak_rss_gib": rss_fit, "peak_rss_predict_gib": peak_rss_gib(),
        "rss_after_data_gib": rss_data,
        "objective": float(model.objective_), "n_iter": int(model.n_iter_),
        "stopped_by": model.stopped_by_,
        "error_unlabeled": error_rate(y[unlabeled], model.transduction_[unlabeled], macro),
        "error_test": error_rate(y_test, predicted, macro),
        "transduction": model.transduction_.astype(int).tolist(),
        "load": load_start, "load_end": os.getloadavg()[0],
        "blas_threads": int(os.environ.get("OPENBLAS_NUM_THREADS", "0")),
    }


def perturbation(shape: str = "mnist3vs8", n_train: int = 3000,
                 sizes=(1e-15, 1e-13, 1e-11, 1e-9, 6e-8), seeds=(1, 2)) -> list[dict]:
    """How far the early-stopped fit moves when K moves: the objective (7) and the unlabeled
    decisions of PCG with the stability check on K (float64) times ``1 + eps E``, E a random
    symmetric matrix of entries in [-1, 1], against the fit on K itself (in this process,
    one BLAS thread). Float32 storage rounds K by up to 6e-8 of each value."""
    import s3vm_core.solvers.lapsvm as lapsvm
    from s3vm_core import LapSVM

    X, _, labeled, _, _ = make_data(shape, n_train, 10)
    unlabeled = labeled == -1
    exact = lapsvm.kernel_and_neighbors

    def fit(eps=0.0, seed=0):
        def perturbed(*args, **kwargs):
            K, neighbors = exact(*args, **kwargs)
            E = np.random.default_rng(seed).uniform(-1.0, 1.0, K.shape)
            return K * (1.0 + eps * 0.5 * (E + E.T)), neighbors

        lapsvm.kernel_and_neighbors = perturbed if eps else exact
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return LapSVM(**SHAPES[shape]["params"], **PCG,
                              kernel_dtype="float64").fit(X, labeled)
        finally:
            lapsvm.kernel_and_neighbors = exact

    base = fit()
    rows = []
    for eps in sizes:
        for seed in seeds:
            moved = fit(eps, seed)
            rows.append({"shape": shape, "n": n_train, "eps": eps, "seed": seed,
                         "iterations": f"{base.n_iter_} / {moved.n_iter_}",
                         "objective_change": abs(moved.objective_ / base.objective_ - 1.0),
                         "decisions_changed": float(np.mean(
                             moved.transduction_[unlabeled] != base.transduction_[unlabeled]))})
    return rows


def run_in_fresh_process(name: str, scale: float, threads: int = 1, code: Path | None = None,
                         label: str = "") -> dict:
    """``run_case`` in a child process with ``threads`` BLAS threads, so that its peak RSS is
    its own; ``code``: the library of another checkout."""
    command = [sys.executable, "-m", "benchmarks.lapsvm_large", "--child", name,
               "--scale", str(scale)]
    if code is not None:
        command += ["--code", str(code)]
    threads_env = {name: str(threads) for name in
                   ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **threads_env})
    if done.returncode != 0:
        return {"case": name, "label": label, "failed": done.stderr.strip().splitlines()[-1:]}
    return {"case": name, "label": label, **json.loads(done.stdout.strip().splitlines()[-1])}


def table(rows) -> str:
    """The Table 3 rows: ours beside the paper's."""
    from benchmarks.sweep import markdown_table

    body = []
    for r in rows:
        if "failed" in r or r["n"] < 10_000:
            continue
        paper = PAPER[r["shape"].split("-")[0]]
        solver = (f"PCG [{r['stopping']}{' ' + format(r['tol'], 'g') if r.get('tol') else ''}]"
                  if r["solver"] == "pcg" else "Newton")
        paper_seconds = paper.get("pcg" if r["solver"] == "pcg" else "newton")
        data = f"{r['shape'].upper()} (n = {r['n']:,}, l = {r['n_labeled']}, d = {r['d']})"
        cpu = r.get("cpu_seconds", float("nan"))
        body.append([data, r.get("label", ""), solver, paper_seconds, r["seconds"], cpu,
                     r["setup_seconds"], r["solver_seconds"], r["n_iter"],
                     r.get("kernel_dtype_", "float64"), r["peak_rss_gib"],
                     r.get("predict_seconds", float("nan")),
                     r.get("peak_rss_predict_gib", float("nan")), r["objective"],
                     100 * r["error_unlabeled"], 100 * r["error_test"],
                     f"{r['load']:.1f}–{r.get('load_end', r['load']):.1f}"])
    header = ["data (paper's shape)", "code", "solver", "paper's time, s (K, L precomputed)",
              "our fit, s", "its CPU, s", "of which K and L, s", "of which solver, s",
              "iterations",
              "K stored", "peak RSS of the fit, GiB", "test predictions, s",
              "peak RSS with them, GiB", "objective (7)", "error U, %", "error T, %", "load"]
    return markdown_table(header, body)


def precision_table(rows) -> str:
    """float32 against float64 storage: the rows at n = 8,000, and the full runs of a shape
    with ``kernel_dtype`` float64 against those that stored K in float32."""
    from benchmarks.sweep import markdown_table

    by_shape = {}
    for r in rows:
        if "failed" not in r and r["solver"] == "pcg" and "transduction" in r:
            key = (f"{r['shape']}, n = {r['n']:,}, {r['stopping']}"
                   + (f" {r['tol']:g}" if r.get("tol") else "")
                   + (f" ({r['label']})" if r.get("label") else ""))
            by_shape.setdefault(key, {})[r["kernel_dtype_"]] = r
    body = []
    for shape, pair in by_shape.items():
        if set(pair) != {"float32", "float64"}:
            continue
        a, b = pair["float64"], pair["float32"]
        same = np.mean(np.array(a["transduction"]) == np.array(b["transduction"]))
        body.append([shape, a["objective"], b["objective"],
                     abs(b["objective"] - a["objective"]) / abs(a["objective"]),
                     f"{a['n_iter']} / {b['n_iter']}",
                     f"{100 * a['error_unlabeled']:.2f} / {100 * b['error_unlabeled']:.2f}",
                     100 * (1 - same), f"{a['seconds']:.1f} / {b['seconds']:.1f}",
                     f"{a['peak_rss_gib']:.2f} / {b['peak_rss_gib']:.2f}"])
    header = ["shape", "objective, float64", "objective, float32",
              "relative difference", "iterations 64 / 32", "error U, % 64 / 32",
              "training decisions that differ, %", "fit s 64 / 32", "peak RSS GiB 64 / 32"]
    return markdown_table(header, body)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", nargs="+", default=None,
                   choices=[*CASES, *PRECISION, *FULL_FLOAT64])
    p.add_argument("--precision", action="store_true",
                   help="only the float32 / float64 comparison at n = 8,000")
    p.add_argument("--scale", type=float, default=1.0, help="a fraction of every size")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads of each run")
    p.add_argument("--code", type=Path, default=None,
                   help="run the library (s3vm_core, toy_data) of this checkout instead")
    p.add_argument("--label", default="", help="the name of these rows (e.g. before, after)")
    p.add_argument("--perturbation", type=int, default=None, metavar="N",
                   help="only how the early-stopped MNIST3VS8-shape fit at N points moves when "
                        "K is perturbed (float64, random relative changes of 1e-15 to 6e-8)")
    p.add_argument("--report", action="store_true",
                   help="only print the tables of the runs logged in --out")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=RESULTS_ROOT / "lapsvm_large")
    args = p.parse_args(argv)
    if args.child:
        if args.code is not None:  # before anything of the library is imported
            sys.path.insert(0, str(args.code.resolve()))
        shape, settings, n_train = {**CASES, **PRECISION, **FULL_FLOAT64}[args.child]
        print(json.dumps(run_case(shape, settings, n_train, args.scale)))
        return None
    if args.perturbation:
        from benchmarks.sweep import markdown_table

        rows = perturbation(n_train=args.perturbation)
        print(markdown_table(["shape", "n", "relative change of K", "seed", "iterations",
                              "objective (7) moves by", "unlabeled decisions changed, %"],
                             [[r["shape"], r["n"], r["eps"], r["seed"], r["iterations"],
                               r["objective_change"], 100 * r["decisions_changed"]]
                              for r in rows]))
        return rows
    names = args.cases or (list(PRECISION) if args.precision else [*CASES, *PRECISION])
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    if args.report:
        names = []
        rows = [json.loads(line) for line in (args.out / "results.jsonl").open()]
    with (args.out / "results.jsonl").open("a") as log:
        for name in names:  # one after another: they are timings, and each takes GBs
            row = run_in_fresh_process(name, args.scale, args.threads, args.code, args.label)
            rows.append(row)
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(json.dumps({k: v for k, v in row.items() if k != "transduction"}),
                  flush=True)
    print("\n### LapSVM at the paper's sizes (Table 3)\n")
    print(table(rows))
    print("\n### float32 against float64 storage of K\n")
    print(precision_table(rows))
    return rows


if __name__ == "__main__":
    main()
