"""Fit time against n for every solver of the app, log-log, with each algorithm's slope beside it.

    python -m benchmarks.fit_time_curve [--sizes 500 1000 2000 4000 8000 20000]
                                        [--max-seconds 60] [--repeats 3] [--solvers ...]

Every solver of the app (``engine.registry.SOLVERS``, the exact search left out) is fitted with
the parameters its form opens on (the generic defaults) on the app's default data, two moons
(noise 0.1, seed 0) with one label per class, in two forms: the library's exact method, and
the scalable form the app runs above 1,000 points (``engine.registry.run_form``) where it has
one. Each fit runs in a fresh process with one BLAS thread, which reports its CPU seconds
(user and system: what the fit costs whatever else the machine runs; the wall-clock seconds
and the load average are kept beside them), its peak RSS (``resource.getrusage``, the data and
the interpreter included) and its unlabeled error. The median CPU time over ``--repeats`` fits
is used (one fit from 10 s on). A form stops growing n once its next fit, extrapolated with
the slope measured so far (3 before two sizes), would pass ``--max-seconds``, or once a fit
passed 4 GiB or was refused by the memory check.

The slope is the least-squares slope of log(CPU seconds) against log(n) over the sizes from
1,000 on (below, the fixed costs of a fit flatten the curve); ``EXPECTED_SLOPE`` is what each
algorithm's dominant step should give. ``largest_n`` reads off the curve where a form reaches
``--max-seconds``: the largest size measured within it, or, past the last measured size, the
fitted line's value (marked as extrapolated).

The table goes to stdout and the log-log chart to ``--svg`` (docs/fit_time_vs_n.svg).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS_ROOT = Path(__file__).resolve().parent / "results"

#: The slope of log(time) against log(n) each form's dominant step should have, and that step.
EXPECTED_SLOPE = {
    ("SVMBaseline", "exact"): (1.0, "the labeled points' SVM is fixed; K(X, labeled) is n l"),
    ("GradientTSVM", "exact"): (3.0, "the kernel PCA map's eigendecomposition, n^3"),
    ("GradientTSVM", "app"): (1.0, "kernel PCA of 300 points: n 300^2 for the map"),
    ("LDS", "exact"): (3.0, "MDS's eigendecomposition n^3; the paths n^2 log n"),
    ("LDS", "app"): (2.0, "Dijkstra on the 10-NN graph, n^2 log n; Lanczos MDS n^2 per step"),
    ("GraphKernelSVM", "exact"): (2.0, "Dijkstra on the unbeaten edges, n^2 log n"),
    ("GraphKernelSVM", "app"): (2.0, "Dijkstra on the 10-NN graph, n^2 log n"),
    ("LabelSwitchingTSVM", "exact"): (2.0, "a dual SVM on n points, n^2 a retraining"),
    ("ContinuationS3VM", "exact"): (3.0, "the kernel PCA map's eigendecomposition, n^3"),
    ("ContinuationS3VM", "app"): (1.0, "kernel PCA of 300 points: n 300^2 for the map"),
    ("QNS3VM", "exact"): (2.0, "one product by K an L-BFGS step, n^2"),
    ("DeterministicAnnealingS3VM", "exact"): (2.0, "products by K in every alternation, n^2"),
    ("LapSVM", "exact"): (3.0, "Newton's (n+1)^2 system, n^3"),
    ("LapRLSC", "exact"): (3.0, "the direct solve of system (15), n^3"),
    ("S4VM", "exact"): (2.0, "100 local searches of LIBSVM solves on K, n^2 each"),
}

#: The limits of docs/scale.md: one core, a minute and 4 GiB.
LIMIT_SECONDS = 60.0
LIMIT_GIB = 4.0


def run_fit(solver: str, form: str, n: int, preset: str = "default") -> dict:
    """One fit in this process: CPU and wall seconds, peak RSS, unlabeled error; ``preset``
    "paper" takes the two moons preset as in the paper (``engine.presets``) over the
    defaults."""
    from s3vm_core.metrics import unlabeled_error
    from s3vm_explorer.engine.presets import preset_params
    from s3vm_explorer.engine.registry import SOLVERS, make_estimator, run_form
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    params = {p.name: p.default for p in SOLVERS[solver].params}
    params.update(preset_params("two_moons", solver, preset, n))
    if form == "app":
        params = run_form(solver, n, params)[0]
    estimator = make_estimator(solver, params)
    load = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, labels)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30
    decision = estimator.decision_function(X)
    return {"solver": solver, "form": form, "n": n, "preset": preset,
            "cpu_seconds": cpu, "seconds": seconds,
            "peak_rss_gib": peak, "load": load, "load_end": os.getloadavg()[0],
            "unlabeled_error": float(unlabeled_error(decision, labels, y))}


def in_fresh_process(solver: str, form: str, n: int, preset: str = "default") -> dict:
    """``run_fit`` in a child process with one BLAS thread; a refusal or a crash is a row
    with ``failed``."""
    one_thread = {name: "1" for name in
                  ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.fit_time_curve", "--child", solver, form, str(n),
         preset], capture_output=True, text=True, cwd=ROOT, env={**os.environ, **one_thread})
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"solver": solver, "form": form, "n": n, "preset": preset, "failed": last}
    return json.loads(done.stdout.strip().splitlines()[-1])


def forms(solvers) -> list[tuple[str, str]]:
    """(solver, form) pairs: the exact method of each, and its app form above 1,000 points
    where that differs."""
    from s3vm_explorer.engine.registry import SOLVERS, run_form

    pairs = []
    for solver in solvers:
        pairs.append((solver, "exact"))
        params = {p.name: p.default for p in SOLVERS[solver].params}
        if run_form(solver, 10_000, params)[1] is not None:
            pairs.append((solver, "app"))
    return pairs


def slope(rows, from_n: int = 1000) -> float:
    """Least-squares slope of log(CPU seconds) against log(n), sizes from ``from_n`` on (all
    of them when fewer than two are)."""
    points = [(r["n"], r["cpu_seconds"]) for r in rows if r["cpu_seconds"] > 0]
    large = [p for p in points if p[0] >= from_n]
    points = large if len(large) >= 2 else points
    if len(points) < 2:
        return math.nan
    x, t = np.log(np.array(points, dtype=float)).T
    return float(np.polyfit(x, t, 1)[0])


def largest_n(rows, seconds: float = LIMIT_SECONDS, gib: float = LIMIT_GIB):
    """``(n, how)``: where a form reaches ``seconds`` of CPU or ``gib`` of RSS, whichever
    comes first. Between the largest size measured within both and the next one measured
    beyond, the log-log lines through the two fits give it ("interpolated"); past the last
    size measured, the fitted lines: the time's slope, and the slope of the RSS above the
    smallest fit's (the interpreter and the libraries) against n ("extrapolated"); when no
    larger size was measured or fitted, the largest within both ("measured")."""
    rows = sorted(rows, key=lambda r: r["n"])
    within = [r for r in rows if r["cpu_seconds"] <= seconds and r["peak_rss_gib"] <= gib]
    if not within:
        return None, "none measured"
    best = within[-1]
    base = min(r["peak_rss_gib"] for r in rows)
    beyond = [r for r in rows if r["n"] > best["n"]]
    if beyond:
        following = beyond[0]
        span = math.log(following["n"] / best["n"])
        time_slope = math.log(following["cpu_seconds"] / best["cpu_seconds"]) / span
        grown = (best["peak_rss_gib"] - base, following["peak_rss_gib"] - base)
        memory_slope = (math.log(grown[1] / grown[0]) / span if min(grown) > 0.01
                        else math.nan)
        how = "interpolated"
    else:
        time_slope = slope(rows)
        growth = [{"n": r["n"], "cpu_seconds": r["peak_rss_gib"] - base} for r in rows]
        memory_slope = slope([g for g in growth if g["cpu_seconds"] > 0.01])
        how = "extrapolated"
    if not time_slope > 0:
        return best["n"], "measured"
    by_time = best["n"] * (seconds / best["cpu_seconds"]) ** (1.0 / time_slope)
    by_memory = (best["n"] * ((gib - base) / (best["peak_rss_gib"] - base)) ** (1.0 / memory_slope)
                 if memory_slope > 0 and best["peak_rss_gib"] - base > 0.01 else math.inf)
    return int(min(by_time, by_memory)), f"{how}, {'time' if by_time <= by_memory else 'memory'}"


def measure(pairs, sizes, repeats: int, max_seconds: float, out: Path) -> list[dict]:
    """Every form at growing sizes, one fit after another, logged as they come."""
    rows = []
    with (out / "results.jsonl").open("a") as log:
        for solver, form in pairs:
            mine = []
            for k, n in enumerate(sizes):
                fits = [in_fresh_process(solver, form, n)]
                if "failed" not in fits[0] and fits[0]["cpu_seconds"] < 10:
                    fits += [in_fresh_process(solver, form, n) for _ in range(repeats - 1)]
                failed = [f for f in fits if "failed" in f]
                if failed:
                    print(f"{solver} ({form}) at n = {n}: {failed[0]['failed']}", flush=True)
                    log.write(json.dumps(failed[0]) + "\n")
                    break
                row = dict(fits[-1])
                row["cpu_seconds"] = statistics.median(f["cpu_seconds"] for f in fits)
                row["seconds"] = statistics.median(f["seconds"] for f in fits)
                row["repeats"] = len(fits)
                rows.append(row)
                mine.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                print(json.dumps(row), flush=True)
                following = sizes[k + 1] if k + 1 < len(sizes) else None
                growth = slope(mine) if len(mine) > 1 else 3.0
                if row["peak_rss_gib"] > LIMIT_GIB or following is None:
                    break
                if row["cpu_seconds"] * (following / n) ** max(growth, 1.0) > max_seconds:
                    break
    return rows


def _latest(rows) -> list[dict]:
    """The rows measured, the last of each (solver, form, n): a form measured again replaces
    its earlier rows."""
    latest = {(r["solver"], r["form"], r["n"]): r for r in rows if "failed" not in r}
    return list(latest.values())


def table(rows) -> str:
    from benchmarks.sweep import markdown_table

    done = _latest(rows)
    sizes = sorted({r["n"] for r in done})
    body = []
    for solver, form in dict.fromkeys((r["solver"], r["form"]) for r in done):
        mine = sorted((r for r in done if (r["solver"], r["form"]) == (solver, form)),
                      key=lambda r: r["n"])
        at = {r["n"]: r for r in mine}
        expected, why = EXPECTED_SLOPE.get((solver, form), (math.nan, ""))
        n_max, how = largest_n(mine)
        if n_max and n_max > 5 * mine[-1]["n"]:  # a line is not trusted that far out
            n_max, how = 5 * mine[-1]["n"], "more: extrapolated past 5x the largest size"
        loads = [r["load"] for r in mine]
        body.append([f"{solver} ({'exact' if form == 'exact' else 'app form'})",
                     *[at[n]["cpu_seconds"] if n in at else math.nan for n in sizes],
                     slope(mine), expected, why,
                     f"{mine[-1]['peak_rss_gib']:.2f} (n={mine[-1]['n']})",
                     f"{n_max:,} ({how})" if n_max else how,
                     f"{min(loads):.1f}–{max(loads):.1f}"])
    header = ["solver (form)", *[f"n={n} CPU s" for n in sizes], "fitted slope",
              "algorithm's slope", "its dominant step", "peak RSS GiB at largest n",
              f"largest n in {LIMIT_SECONDS:g} s", "load"]
    return markdown_table(header, body)


def svg(rows, path: Path) -> None:
    """The log-log chart of CPU seconds against n, one line per form, as a small SVG."""
    done = [r for r in _latest(rows) if r["cpu_seconds"] > 0]
    series = {}
    for r in sorted(done, key=lambda r: r["n"]):
        series.setdefault(f"{r['solver']} ({r['form']})", []).append((r["n"], r["cpu_seconds"]))
    width, height, left, bottom, top, right = 900, 560, 70, 50, 20, 330
    ns = [n for points in series.values() for n, _ in points]
    ts = [t for points in series.values() for _, t in points]
    x0, x1 = math.log10(min(ns)), math.log10(max(ns))
    y0, y1 = math.floor(math.log10(min(ts))), math.ceil(math.log10(max(ts)))

    def at(n, t):
        x = left + (math.log10(n) - x0) / max(x1 - x0, 1e-9) * (width - left - right)
        y = height - bottom - (math.log10(t) - y0) / (y1 - y0) * (height - top - bottom)
        return x, y

    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
               "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             'font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    for e in range(y0, y1 + 1):
        _, y = at(min(ns), 10.0**e)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" '
                     'stroke="#ddd"/>')
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">'
                     f'{10.0**e:g} s</text>')
    for n in sorted(set(ns)):
        x, _ = at(n, 10.0**y0)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" '
                     'stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">'
                     f'{n:,}</text>')
    parts.append(f'<text x="{(width - right + left) / 2:.0f}" y="{height - 10}" '
                 'text-anchor="middle">n (two moons, one label a class; both axes log)</text>')
    for k, (name, points) in enumerate(series.items()):
        colour = colours[k % len(colours)]
        dash = "" if name.endswith("(exact)") else ' stroke-dasharray="5,3"'
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (at(n, t) for n, t in points))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" '
                     f'stroke-width="2"{dash}/>')
        y = top + 14 + 16 * k
        parts.append(f'<line x1="{width - right + 12}" y1="{y - 4}" x2="{width - right + 36}" '
                     f'y2="{y - 4}" stroke="{colour}" stroke-width="2"{dash}/>')
        label = name.replace("(app)", "(app form)")
        parts.append(f'<text x="{width - right + 42}" y="{y}">{label}</text>')
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n")


def at_one_size(solvers, n: int, repeats: int, out: Path) -> list[dict]:
    """Every solver at ``n`` with the generic defaults and the two moons preset as in the
    paper, exact and app form: the median CPU seconds of ``repeats`` fresh processes."""
    rows = []
    with (out / "presets.jsonl").open("a") as log:
        for solver, form in forms(solvers):
            for preset in ("default", "paper"):
                fits = [in_fresh_process(solver, form, n, preset) for _ in range(repeats)]
                if any("failed" in f for f in fits):
                    row = next(f for f in fits if "failed" in f)
                else:
                    row = dict(fits[-1], repeats=repeats,
                               cpu_seconds=statistics.median(f["cpu_seconds"] for f in fits),
                               seconds=statistics.median(f["seconds"] for f in fits))
                rows.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                print(json.dumps(row), flush=True)
    return rows


def presets_table(rows) -> str:
    from benchmarks.sweep import markdown_table

    body = {}
    for r in rows:
        cells = body.setdefault((r["solver"], r["form"]), {})
        cells[r["preset"]] = ("failed" if "failed" in r else
                              f"{r['cpu_seconds']:.2f} ({r['seconds']:.1f}; "
                              f"{100 * r['unlabeled_error']:.1f} %; load {r['load']:.0f})")
    header = ["solver (form)", "generic defaults: CPU s (wall s; unlabeled error; load)",
              "two moons preset as in the paper: the same"]
    return markdown_table(header, [[f"{s} ({'exact' if f == 'exact' else 'app form'})",
                                    c.get("default", "–"), c.get("paper", "–")]
                                   for (s, f), c in body.items()])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+",
                   default=[500, 1000, 2000, 4000, 8000, 20000])
    p.add_argument("--solvers", nargs="+", default=None)
    p.add_argument("--forms", nargs="+", choices=("exact", "app"), default=("exact", "app"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--max-seconds", type=float, default=LIMIT_SECONDS)
    p.add_argument("--out", type=Path, default=RESULTS_ROOT / "fit_time_curve")
    p.add_argument("--svg", type=Path, default=None)
    p.add_argument("--report", action="store_true",
                   help="only the table and chart of the fits logged in --out")
    p.add_argument("--at", type=int, default=None, metavar="N",
                   help="instead of the curve: every solver at N points with the generic "
                        "defaults and the two moons preset, exact and app form")
    p.add_argument("--child", nargs="+", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        solver, form, n, *preset = args.child
        print(json.dumps(run_fit(solver, form, int(n), *preset)))
        return None
    from s3vm_explorer.engine.registry import SOLVERS

    args.out.mkdir(parents=True, exist_ok=True)
    if args.at is not None:
        solvers = args.solvers or [s for s in SOLVERS if s != "BranchAndBoundS3VM"]
        rows = ([json.loads(line) for line in (args.out / "presets.jsonl").open()]
                if args.report else at_one_size(solvers, args.at, args.repeats, args.out))
        print(f"\n### Every solver at n = {args.at}, one core\n")
        print(presets_table(rows))
        return rows
    if args.report:
        rows = [json.loads(line) for line in (args.out / "results.jsonl").open()]
    else:
        solvers = args.solvers or [s for s in SOLVERS if s != "BranchAndBoundS3VM"]
        pairs = [pair for pair in forms(solvers) if pair[1] in args.forms]
        rows = measure(pairs, sorted(args.sizes), args.repeats, args.max_seconds, args.out)
    print("\n### Fit time against n (CPU seconds, one core)\n")
    print(table(rows))
    if args.svg is not None:
        svg(rows, args.svg)
    return rows


if __name__ == "__main__":
    main()
