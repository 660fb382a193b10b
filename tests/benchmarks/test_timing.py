"""The speed benchmarks' shared timing (benchmarks/_timing.py) and their command line."""

import runpy
import sys

import pytest

from benchmarks import _timing


def test_median_time_is_the_median_of_whole_runs_and_returns_the_last_result(monkeypatch):
    # a clock that the three runs advance by 5, 2 and 1 seconds: the median is 2 (the mean
    # 2.67, the last run 1)
    durations = iter([5.0, 2.0, 1.0])
    clock = {"t": 0.0}

    def perf_counter():
        return clock["t"]

    def run():
        clock["t"] += next(durations)
        return clock["t"]

    monkeypatch.setattr(_timing.time, "perf_counter", perf_counter)
    seconds, last = _timing.median_time(run, 3)
    assert seconds == 2.0
    assert last == 8.0  # the result of the third call
    with pytest.raises(ValueError, match="repeats must be at least 1"):
        _timing.median_time(run, 0)


@pytest.mark.parametrize("name", ["bench_annealing", "bench_continuation", "bench_finite_newton",
                                  "bench_lapsvm", "bench_qn", "bench_tsvm"])
def test_every_speed_benchmark_answers_help_without_running(name, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module(f"benchmarks.{name}", run_name="__main__")
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--repeats" in out and "--quick" in out
