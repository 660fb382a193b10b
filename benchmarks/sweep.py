"""The shared sweep runner: parameter grid x label draws, on joblib or a Dask cluster, resumable.

Every reproduction script describes its experiment as a list of *tasks* (JSON-serializable
dicts: data set, split, label draw, method, hyperparameters) and hands them to ``run_sweep``,
which

- skips the tasks whose results are already in ``<out>/results.jsonl`` (a sweep interrupted and
  restarted resumes where it stopped; ``--fresh`` starts over),
- runs the others through ``joblib.Parallel`` (``--n-jobs``), or on a Dask distributed cluster
  through joblib's Dask backend (``--scheduler ADDRESS``; the workers must be able to import
  this repository, e.g. started from its root),
- appends each result to the JSON-lines file as soon as it arrives (so nothing finished is lost),
  with a progress bar (tqdm's when it is installed: it comes with the test extra; otherwise a
  line on stderr every tenth of the way),
- writes every result of the sweep as ``results.csv`` and ``results.json``.

``evaluate(task)`` is the one task function: it builds the data, hides all labels but
``n_per_class`` per class with the task's draw as seed, fits the method (BLAS limited to one
thread: the parallelism is across tasks), and reports the error on the unlabeled points
(transductive, as all five papers report for their toy sets) and, when the task holds out a
test half, on that half too.

Selection rule (``select_best``): the papers mostly report the best value over a parameter
grid (DA paper §3.2 "best performance for each method over a grid of parameters"; LDS paper
Table 2 "by minimizing the test error for the other methods"; QN-S3VM §4.1.3 "non-realistic
scenario"). For each group (data set, method) we keep the grid point with the lowest mean
error over the draws, then report that point's mean (or successes) over the draws.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import json
import time
import traceback
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from s3vm_explorer.engine.comparison import compute_backend

RESULTS_ROOT = Path(__file__).resolve().parent / "results"
RESULTS_FILE = "results.jsonl"


# -- tasks ----------------------------------------------------------------------------------


def task_key(task: dict) -> str:
    """A stable identifier of a task: the hash of its canonical JSON (keys sorted)."""
    text = json.dumps(task, sort_keys=True, default=float)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def grid(**axes: Sequence) -> list[dict]:
    """The Cartesian product of parameter axes as a list of dicts (``grid(a=[1, 2], b=[3])``)."""
    points = [{}]
    for name, values in axes.items():
        points = [{**p, name: v} for p in points for v in values]
    return points


def make_tasks(datasets: dict[str, dict], methods: dict[str, Iterable[dict]],
               draws: int, **common) -> list[dict]:
    """Tasks for every data set x method x grid point x label draw.

    ``datasets`` maps a display name to the data description given to ``evaluate`` (``name``,
    generator keyword arguments, ``n_per_class``, optional ``n_test``); ``methods`` maps a
    method label to its grid of hyperparameter dicts (which must name the estimator under
    ``"estimator"``).
    """
    tasks = []
    for data_name, data in datasets.items():
        for method, points in methods.items():
            for params in points:
                for draw in range(draws):
                    tasks.append({"data_name": data_name, "data": data, "method": method,
                                  "params": dict(params), "draw": draw, **common})
    return tasks


# -- the task function ----------------------------------------------------------------------


def build_estimator(params: dict):
    """The estimator named by ``params["estimator"]`` (an ``s3vm_core`` class name, or
    scikit-learn's ``LabelSpreading`` with the RBF width ``sigma``), built with the other
    entries as its parameters, wrapped in ``OneVsRestS3VM`` when ``params["one_vs_rest"]`` is
    true."""
    params = dict(params)
    name = params.pop("estimator")
    if params.pop("one_vs_rest", False):
        from s3vm_core import OneVsRestS3VM

        return OneVsRestS3VM(build_estimator({"estimator": name, **params}))
    if name == "LabelSpreading":
        from sklearn.semi_supervised import LabelSpreading

        # the LDS paper's "manifold" column; sigma is turned into scikit-learn's gamma here only
        sigma = params.pop("sigma", 1.0)
        return LabelSpreading(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), **params)
    if name == "QNS3VM":
        from s3vm_core.solvers.qn import QNS3VM as cls
    elif name == "DeterministicAnnealingS3VM":
        from s3vm_core.solvers.annealing import DeterministicAnnealingS3VM as cls
    else:
        import s3vm_core

        cls = getattr(s3vm_core, name)
    return cls(**params)


def load_data(data: dict, draw: int):
    """``(X_train, y_train, y_semi, X_test, y_test)`` for a data description and a label draw.

    ``data``: ``{"name": generator of toy_data, "kwargs": {...}, "n_per_class": int,
    "n_test": int or absent, "data_seed": int or absent}``, or ``"n_labeled"`` in place of
    ``"n_per_class"``: that many labels drawn at random, at least one per class
    (``toy_data.pick_labeled_at_random``, the LDS paper's splits). Without ``data_seed`` each draw
    also draws a fresh data set (seed = draw), as the papers' random partitions do. With
    ``n_test`` the first ``n_test`` points (the generators shuffle) are the test set and the
    rest the training set (QN-S3VM §4.1.2 uses halves).
    """
    import toy_data

    kwargs = dict(data.get("kwargs", {}))
    if "digits" in kwargs:
        kwargs["digits"] = tuple(kwargs["digits"])
    seed = data.get("data_seed", draw)
    X, y = getattr(toy_data, data["name"])(random_state=seed, **kwargs)
    X_test = y_test = None
    n_test = data.get("n_test")
    if n_test:
        rng = np.random.default_rng(10_000 + draw)
        order = rng.permutation(len(y))
        X, y = X[order], y[order]
        X_test, y_test, X, y = X[:n_test], y[:n_test], X[n_test:], y[n_test:]
    if "n_labeled" in data:
        y_semi = toy_data.pick_labeled_at_random(y, data["n_labeled"], random_state=draw)
    else:
        y_semi = toy_data.pick_labeled(y, data.get("n_per_class", 1), random_state=draw)
    return X, y, y_semi, X_test, y_test


def evaluate(task: dict) -> dict:
    """Fit one task's method on one label draw; return the task with its measurements.

    A task whose ``params`` hold a ``cv_grid`` selects its estimator's parameters over that
    grid by ``cv_folds``-fold cross-validation on the labels (``cross_validated``) and records
    the ``selected`` parameters and their ``cv_error``.

    Measurements: ``error_unlabeled`` (fraction of unlabeled training points misclassified),
    ``success`` (``error_unlabeled == 0``, the DA paper's Table 2 criterion), ``error_test``
    (nan without a test set), ``seconds`` (fit wall time), ``n_iter`` (the estimator's
    ``n_iter_`` where it has one, summed over one-vs-rest's problems), ``status`` ("ok" or
    the exception's message: a failing grid point is recorded, not fatal).
    """
    from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
    from threadpoolctl import threadpool_limits

    out = {**task, "key": task_key(task), "error_unlabeled": float("nan"),
           "error_test": float("nan"), "success": False, "seconds": float("nan"),
           "n_iter": float("nan"), "status": "ok"}
    try:
        X, y, y_semi, X_test, y_test = load_data(task["data"], task["draw"])
        params = dict(task["params"])
        if "sigma_scale" in params:
            # grids of widths relative to the default (LDS paper §3.2: 2^-3 ... 2^3)
            from s3vm_core.kernels import default_sigma

            params["sigma"] = params.pop("sigma_scale") * default_sigma(X)
        cv_grid, cv_folds = params.pop("cv_grid", None), params.pop("cv_folds", 5)
        est = build_estimator(params)
        if cv_grid is not None:
            est = cross_validated(est, cv_grid, cv_folds, X, y_semi, task["draw"])
        fit_params = {}
        if task["params"].get("stopping") in ("validation", "mixed"):
            fit_params = _validation_set(task, X, y, y_semi)
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", FitFailedWarning)
            start = time.perf_counter()
            est.fit(X, y_semi, **fit_params)
            out["seconds"] = time.perf_counter() - start
        if cv_grid is not None:
            out["selected"] = {k.removeprefix("estimator__"): v
                               for k, v in est.best_params_.items()}
            out["cv_error"] = 1.0 - est.best_score_
        unlabeled = y_semi == -1
        predicted = est.transduction_ if hasattr(est, "transduction_") else est.predict(X)
        mistakes = int(np.sum(predicted[unlabeled] != y[unlabeled]))
        out["error_unlabeled"] = mistakes / max(int(unlabeled.sum()), 1)
        out["success"] = mistakes == 0
        if X_test is not None:
            out["error_test"] = float(np.mean(est.predict(X_test) != y_test))
        # one-vs-rest: the iterations of all k binary problems
        out["n_iter"] = float(np.sum(getattr(est, "n_iter_", np.nan)))
    except Exception as exc:  # noqa: BLE001 - a failing grid point must not stop the sweep
        out["status"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = traceback.format_exc(limit=3)
    return out


def cross_validated(estimator, grid: dict, folds: int, X, y_semi, draw: int):
    """``estimator`` selected by cross-validation on the split's labeled points over ``grid``
    (the LDS paper's §3.2 protocol: ``folds``-fold CV on the labels of each split, every point
    used as unlabeled; ``s3vm_core.S3VMGridSearchCV``, folds shuffled with the draw's seed).
    ``sigma_scale`` values are widths relative to the LDS paper's default for the number of
    labeled classes (§2.3.2); a one-vs-rest estimator's grid applies to its binary problems."""
    from s3vm_core import LabeledStratifiedKFold, OneVsRestS3VM, S3VMGridSearchCV
    from s3vm_core.kernels import default_sigma

    grid = dict(grid)
    wrapped = isinstance(estimator, OneVsRestS3VM)
    if "sigma_scale" in grid:
        classes = len(np.unique(y_semi[y_semi != -1])) if wrapped else 2
        width = default_sigma(X, n_classes=classes)
        grid["sigma"] = [scale * width for scale in grid.pop("sigma_scale")]
    if wrapped:
        grid = {f"estimator__{name}": values for name, values in grid.items()}
    splitter = LabeledStratifiedKFold(folds, shuffle=True, random_state=draw)
    return S3VMGridSearchCV(estimator, grid, cv=splitter, baseline=None)


def _validation_set(task, X, y, y_semi):
    """The LapSVM paper's validation set V (§4.1, Algorithm 3): ``n_validation`` labeled points
    drawn among the unlabeled ones (|V| = |L| in Table 2)."""
    rng = np.random.default_rng(20_000 + task["draw"])
    candidates = np.flatnonzero(y_semi == -1)
    size = task["data"].get("n_validation", int(np.sum(y_semi != -1)))
    rows = rng.choice(candidates, size=min(size, candidates.size), replace=False)
    return {"X_val": X[rows], "y_val": y[rows]}


# -- running --------------------------------------------------------------------------------


def read_results(path: Path) -> list[dict]:
    """Results already written (JSON lines; a truncated last line from a kill is ignored)."""
    if not path.exists():
        return []
    done = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            done.append(json.loads(line))
    return done


def run_sweep(tasks: list[dict], out: Path, *, n_jobs: int = 1, scheduler: str | None = None,
              progress: bool = True, fresh: bool = False,
              func: Callable[[dict], dict] = evaluate) -> list[dict]:
    """Run the tasks not yet in ``out/results.jsonl``; return the results of all ``tasks``.

    Parameters
    ----------
    tasks : list of dict
        JSON-serializable task descriptions (see ``make_tasks``).
    out : Path
        Folder of ``results.jsonl`` (appended as results arrive), ``results.csv`` and
        ``results.json`` (rewritten at the end with the results of ``tasks``).
    n_jobs : int
        joblib workers (``-1``: all cores). With ``scheduler`` the Dask cluster's workers run
        the tasks and ``n_jobs`` caps how many are in flight (``-1``: no cap).
    scheduler : str or None
        Address of a Dask scheduler (``tcp://host:8786``) or None for local joblib.
    fresh : bool
        Delete earlier results instead of resuming from them.
    func : callable
        The task function, importable by the workers (module level).
    """
    import joblib

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / RESULTS_FILE
    if fresh and jsonl.exists():
        jsonl.unlink()
    done = {r["key"]: r for r in read_results(jsonl) if "key" in r}
    keyed = {task_key(t): t for t in tasks}
    todo = [t for k, t in keyed.items() if k not in done]
    bar = progress_bar(len(keyed), initial=len(keyed) - len(todo), disable=not progress,
                       desc=out.name, unit="fit")
    with compute_backend(scheduler), jsonl.open("a") as sink:
        if todo:
            jobs = n_jobs if scheduler is None or n_jobs != 1 else -1
            parallel = joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")
            for result in parallel(joblib.delayed(func)(t) for t in todo):
                sink.write(json.dumps(result, default=_json_default) + "\n")
                sink.flush()
                done[result["key"]] = result
                bar.update()
    bar.close()
    results = [done[k] for k in keyed]
    write_tables(results, out)
    return results


class _Lines:
    """A progress bar without tqdm: a line on stderr at every tenth of the way."""

    def __init__(self, total: int, initial: int, disable: bool, desc: str, unit: str):
        self.total, self.done, self.disable = total, initial, disable
        self.desc, self.unit, self.shown = desc, unit, initial * 10 // max(total, 1)

    def update(self, n: int = 1) -> None:
        import sys

        self.done += n
        tenth = self.done * 10 // max(self.total, 1)
        if not self.disable and tenth > self.shown:
            self.shown = tenth
            print(f"{self.desc}: {self.done}/{self.total} {self.unit}s", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        pass


def progress_bar(total: int, *, initial: int = 0, disable: bool = False, desc: str = "",
                 unit: str = "fit"):
    """tqdm's progress bar when tqdm is installed (the test extra brings it), else a line on
    stderr at every tenth of the way: the benchmarks need only the project's own
    dependencies."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Lines(total, initial, disable, desc, unit)
    return tqdm(total=total, initial=initial, disable=disable, desc=desc, unit=unit,
                dynamic_ncols=True)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _flat(result: dict) -> dict:
    row = {k: v for k, v in result.items() if k not in ("params", "data", "traceback")}
    row.update({f"param_{k}": v for k, v in result.get("params", {}).items()})
    row.update({f"data_{k}": v for k, v in result.get("data", {}).items()})
    return row


def write_tables(results: list[dict], out: Path) -> None:
    """``results.json`` (the list) and ``results.csv`` (flattened: ``param_*``, ``data_*``)."""
    out = Path(out)
    (out / "results.json").write_text(json.dumps(results, default=_json_default, indent=1))
    rows = [_flat(r) for r in results]
    columns = sorted({c for row in rows for c in row})
    with (out / "results.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


# -- summaries ------------------------------------------------------------------------------


def params_label(params: dict) -> str:
    """Short text of a grid point (without the estimator name)."""
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in sorted(params.items()) if k != "estimator")


def select_best(results: list[dict], score: str = "error_unlabeled",
                group: tuple[str, ...] = ("data_name", "method")) -> dict[tuple, dict]:
    """The best grid point per group: lowest mean ``score`` over the draws (ties: fewer seconds).

    Returns ``{group values: summary}`` with ``params``, ``mean`` and ``std`` of ``score``,
    ``successes`` and ``draws`` (how many draws ran), ``seconds`` (median fit time),
    ``n_iter`` (median), ``failed`` (draws whose fit raised).
    """
    cells: dict[tuple, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        cells[tuple(r[g] for g in group)][json.dumps(r["params"], sort_keys=True)].append(r)
    best = {}
    for cell, points in cells.items():
        summaries = []
        for params, runs in points.items():
            ok = [r for r in runs if r["status"] == "ok"]
            values = np.array([r[score] for r in ok], dtype=float)
            summaries.append({
                "params": json.loads(params),
                "mean": float(values.mean()) if ok else np.inf,
                "std": float(values.std()) if ok else np.nan,
                "successes": int(sum(bool(r["success"]) for r in ok)),
                "draws": len(runs),
                "failed": len(runs) - len(ok),
                "seconds": float(np.median([r["seconds"] for r in ok])) if ok else np.nan,
                "n_iter": float(np.nanmedian([r["n_iter"] for r in ok]))
                if ok and not all(np.isnan(r["n_iter"]) for r in ok) else np.nan,
            })
        best[cell] = min(summaries, key=lambda s: (s["mean"], s["seconds"]))
    return best


def selected_table(results: list[dict], method: str) -> str:
    """What cross-validation chose for ``method`` (tasks with a ``cv_grid``): each selected
    grid point and on how many draws, per data set."""
    from collections import Counter

    rows = []
    for data in sorted({r["data_name"] for r in results if r["method"] == method}):
        chosen = Counter(params_label(r["selected"]) for r in results
                         if r["data_name"] == data and r["method"] == method
                         and r.get("selected"))
        rows.append([data, "; ".join(f"{point} ({n})" for point, n in chosen.most_common())])
    return markdown_table(["data set", f"{method}: selected (draws)"], rows)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A GitHub markdown table; floats printed with 3 significant digits."""
    def cell(v):
        if isinstance(v, float):
            return "–" if np.isnan(v) else f"{v:.3g}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def percent(summary: dict | None) -> str:
    """``mean ± std`` of an error summary in percent ("n/a" when the cell did not run)."""
    if summary is None or not np.isfinite(summary["mean"]):
        return "n/a"
    return f"{100 * summary['mean']:.1f} ± {100 * summary['std']:.1f}"


# -- command line ---------------------------------------------------------------------------


def parser(description: str, default_name: str) -> argparse.ArgumentParser:
    """The command-line options shared by every sweep script."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true",
                   help="reduced data sizes, grids and draws (what `make bench-quick` runs)")
    p.add_argument("--tiny", action="store_true",
                   help="a smoke-test configuration (seconds; what the tests run)")
    p.add_argument("--n-jobs", type=int, default=1,
                   help="parallel joblib workers (-1: all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on a Dask distributed scheduler, e.g. tcp://127.0.0.1:8786")
    p.add_argument("--out", type=Path, default=RESULTS_ROOT / default_name,
                   help="results folder (default: benchmarks/results/<name>[_quick])")
    p.add_argument("--fresh", action="store_true", help="ignore results already written")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def size(args: argparse.Namespace) -> str:
    """"full", "quick" or "tiny" from the options of ``parser``."""
    return "tiny" if args.tiny else "quick" if args.quick else "full"


def output_folder(args: argparse.Namespace, default_name: str) -> Path:
    """``--out``, or the default folder with ``_quick`` / ``_tiny`` appended."""
    if args.out == RESULTS_ROOT / default_name and size(args) != "full":
        return RESULTS_ROOT / f"{default_name}_{size(args)}"
    return args.out


def run_from_args(args: argparse.Namespace, tasks: list[dict], default_name: str) -> list[dict]:
    """``run_sweep`` with the options of ``parser``."""
    return run_sweep(tasks, output_folder(args, default_name), n_jobs=args.n_jobs,
                     scheduler=args.scheduler, progress=not args.no_progress, fresh=args.fresh)


def reproduce(argv, doc: str, name: str, tasks: Callable[[str], list[dict]],
              table: Callable[[list[dict]], str], title: str) -> list[dict]:
    """The ``main`` of a ``reproduce_*`` script: its command line (``parser``, described by
    the first line of its docstring ``doc``), the ``tasks`` of the chosen size run into the
    results folder ``name``, and the ``table`` of the results printed under
    ``### {title} ({size})``. Returns the results."""
    args = parser(doc.splitlines()[0], name).parse_args(argv)
    results = run_from_args(args, tasks(size(args)), name)
    print(f"\n### {title} ({size(args)})\n")
    print(table(results))
    return results
