"""The app's run benchmark still runs what the Watch page's process runs (it reaches into the
engine, whose modules move)."""

from benchmarks import app_runs


def test_the_app_runs_benchmark_times_a_film(capsys):
    results = app_runs.main(["--n", "120", "--repeats", "1", "--solvers", "SVMBaseline"])
    ((seconds, cpu, states, error, form),) = results["SVMBaseline"]
    assert 0 < seconds < float("inf") and states >= 1 and 0 <= error <= 1 and form == "exact"
    assert "| SVMBaseline |" in capsys.readouterr().out
