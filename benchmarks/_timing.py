"""What the speed benchmarks share: a whole run timed, the median over repeats, and the
options every one of them takes (``--repeats``, ``--quick``).

Times are wall-clock seconds of whole runs (``time.perf_counter``); a benchmark prints the
median over its repeats, which one slow run on a shared machine does not move.
"""

from __future__ import annotations

import argparse
import statistics
import time


def timed(run) -> tuple[float, object]:
    """``(seconds, result)`` of one call ``run()``."""
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def median_time(run, repeats: int) -> tuple[float, object]:
    """``(median seconds, result of the last call)`` over ``repeats`` calls ``run()``."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}.")
    times, result = [], None
    for _ in range(repeats):
        seconds, result = timed(run)
        times.append(seconds)
    return statistics.median(times), result


def parser(doc: str, *, repeats: int | None) -> argparse.ArgumentParser:
    """The command line of a speed benchmark, described by the first line of its ``doc``:
    ``--repeats`` (default ``repeats``; None leaves each case its own number) and
    ``--quick``, its smallest case of each table run once, to check that it runs (not the
    figures of docs/benchmarks.md)."""
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    default = "each case's own" if repeats is None else repeats
    p.add_argument("--repeats", type=_positive, default=repeats,
                   help=f"runs per case; the median is printed (default: {default})")
    p.add_argument("--quick", action="store_true",
                   help="the smallest case of each table, once: checks that the benchmark runs")
    return p


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
