"""Render time of the teaching pages (headless AppTest) and of a solver comparison.

``python -m benchmarks.teaching_pages [--repeats 3]``: whole page runs with a cold cache (the
solver runs included) and warm (cached, what a user sees when moving a control back), median
over repeats, on the default data (two moons, n = 200, one label per class); then
``ui.comparison.compare_solvers`` over k = 5 draws for every solver of the registry.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--draws", type=int, default=5)
    args = parser.parse_args()
    print("| page | n | charts | cold render (s) | cached rerun (s) |")
    print("|---|---|---|---|---|")
    for page in PAGES:
        cold, warm, charts = page_times(page, args.repeats)
        print(f"| {page} | 200 | {charts} | {cold:.2f} | {warm:.2f} |")

    from toy_data import two_moons
    from ui.comparison import compare_solvers, summarize
    from ui.widgets import SOLVERS

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
