"""The global-optimum benchmark (issue 35, item 4): its code paths on a tiny configuration."""

from __future__ import annotations

from benchmarks import global_optimum


def test_tiny_run_prints_every_table_and_scores_every_solver(tmp_path, capsys):
    results = global_optimum.main(["--tiny", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    for title in ("Local minima against the global minimum", "Gap in objective against gap "
                  "in error", "How far the exact solver goes", "Branching rules"):
        assert title in printed
    assert results and all(r["status"] == "ok" for r in results)
    minima = [r for r in results if r["part"] == "minima"]
    assert {r["data_name"] for r in minima} == set(global_optimum.DATASETS)
    for r in minima:
        assert r["global"]["proven"]
        # the exact minimum under (3) is never above a local solver's balanced objective
        for solver, score in r["solvers"].items():
            assert r["global"]["objective"] <= score["balanced"] * (1 + 1e-9), solver
            # and never above the bottom of the basin the solver's labeling picks
            assert r["global"]["objective"] <= score["labeling"] * (1 + 1e-9), solver
    assert "| two moons | **global minimum (B&B)** | 1 / 1 | 0 | 0 |" in printed
