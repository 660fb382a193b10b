"""Render time of the teaching pages (headless AppTest) and of a solver comparison.

``python -m benchmarks.teaching_pages [--repeats 3]``: whole page runs with a cold cache (the
solver runs included) and warm (cached, what a user sees when moving a control back), median
over repeats, on the default data (two moons, n = 200, one label per class); then the
teaching pages' live comparisons over 10 label draws (``engine.lessons.label_draws`` with the
pages' default settings, two fits at a time, as the pages run them); then
``engine.comparison.compare_solvers`` over k = 5 draws for every solver of the registry.
``--lessons-only`` times the live comparisons alone.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGES = ["pages/continuation.py", "pages/annealing.py", "pages/early_stopping.py",
         "pages/compare.py", "pages/about.py"]


def page_times(page: str, repeats: int) -> tuple[float, float, int]:
    cold, warm, charts = [], [], 0
    for _ in range(repeats):
        st.cache_data.clear()
        st.cache_resource.clear()
        at = AppTest.from_file(APP, default_timeout=600)
        at.run()
        start = time.perf_counter()
        at.switch_page(page).run()
        cold.append(time.perf_counter() - start)
        assert not at.exception and not at.error, (page, at.exception, at.error)
        start = time.perf_counter()
        at.run()
        warm.append(time.perf_counter() - start)
        charts = len(at.get("plotly_chart"))
    return statistics.median(cold), statistics.median(warm), charts


def lesson_times(repeats: int) -> None:
    """Median time of each teaching page's comparison over 10 label draws, with its result."""
    from s3vm_explorer.engine import lessons, presets
    from s3vm_explorer.engine.data import Generated

    data = Generated("two_moons", 200, 0.1, 0)
    cs3vm_sigma = presets.preset_params("two_moons", "ContinuationS3VM", presets.PAPER)["sigma"]
    da = presets.preset_params("two_moons", "DeterministicAnnealingS3VM", presets.PAPER)
    comparisons = {
        "Continuation: cS3VM vs ∇TSVM": lessons.continuation_against_gradient(
            100.0, cs3vm_sigma),
        "Annealing: DA (hinge) vs ∇TSVM": lessons.annealing_against_gradient(
            "hinge", da["lam"], da["sigma"], 200),
    }
    print("| live comparison (10 draws, n = 200) | median time (s) | successes (≤ 1 %) |")
    print("|---|---|---|")
    for title, runs in comparisons.items():
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            rows = lessons.label_draws(data, runs)
            times.append(time.perf_counter() - start)
        wins = {name: sum(r["success"] for r in rows if r["solver"] == name)
                for name, _, _ in runs if name != "SVMBaseline"}
        print(f"| {title} | {statistics.median(times):.1f} | "
              f"{', '.join(f'{n} {w}/10' for n, w in wins.items())} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--lessons-only", action="store_true")
    args = parser.parse_args()
    lesson_times(args.repeats)
    if args.lessons_only:
        return
    print("| page | n | charts | cold render (s) | cached rerun (s) |")
    print("|---|---|---|---|---|")
    for page in PAGES:
        cold, warm, charts = page_times(page, args.repeats)
        print(f"| {page} | 200 | {charts} | {cold:.2f} | {warm:.2f} |")

    from s3vm_explorer.engine.comparison import compare_solvers, summarize
    from s3vm_explorer.engine.registry import SOLVERS
    from toy_data import two_moons

    X, y = two_moons(n_samples=200, noise=0.1, random_state=0)
    solvers = [s for s in SOLVERS if s != "SVMBaseline"]
    runs = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        rows = compare_solvers(X, y, solvers, k=args.draws, n_jobs=2)
        runs.append(time.perf_counter() - start)
    print()
    print(f"compare_solvers: {len(solvers) + 1} solvers x {args.draws} draws, n = 200, "
          f"n_jobs = 2: median {statistics.median(runs):.1f} s over {args.repeats} repeats")
    print()
    print("| solver | successes | mean error (%) | median fit time (s) |")
    print("|---|---|---|---|")
    for s in summarize(rows):
        print(f"| {s['solver']} | {s['successes']}/{s['draws']} | "
              f"{100 * s['mean_error']:.1f} | {s['median_seconds']:.3f} |")


if __name__ == "__main__":
    main()
