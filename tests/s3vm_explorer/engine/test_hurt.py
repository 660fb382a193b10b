"""The When unlabeled data hurt page's computation and words (``engine.lessons.unlabeled_hurt``,
``engine.hurt``): each solver beside its own supervised SVM on the same draws, and a lesson that
says only what the paired tests support."""

import re
import warnings

import numpy as np
import pytest

from s3vm_core import fair_svm
from s3vm_core.metrics import ALPHA, unlabeled_error
from s3vm_explorer.engine import hurt, lessons
from s3vm_explorer.engine.comparison import run_draws, summarize
from s3vm_explorer.engine.registry import make_estimator
from toy_data import pick_labeled


def test_the_page_runs_every_solver_the_issue_names():
    assert set(hurt.SOLVERS) == {"GradientTSVM", "ContinuationS3VM", "QNS3VM",
                                 "DeterministicAnnealingS3VM", "LapSVM", "LabelSwitchingTSVM",
                                 "S4VM"}
    assert [case.holds for case in hurt.CASES.values()] == [True, False, False, False]


def test_each_row_is_its_solver_beside_its_own_fair_svm_on_the_same_draw(monkeypatch):
    # two quick solvers on two data sets keep the test short; the pairing is the same for all
    monkeypatch.setattr(hurt, "SOLVERS", ("QNS3VM", "LapSVM"))
    monkeypatch.setattr(hurt, "CASES", {name: hurt.CASES[name] for name in ("parallel", "shares")})
    results = lessons.unlabeled_hurt(40, 2, 2, 5, n_jobs=1)
    assert list(results) == ["parallel", "shares"]
    for name, rows in results.items():
        X, y = hurt.CASES[name].data(40, 5)
        assert len(rows) == 2 * 2
        # every solver on the same draws, seeded seed + d
        assert {s: [r["seed"] for r in rows if r["solver"] == s] for s in hurt.SOLVERS} == {
            "QNS3VM": [5, 6], "LapSVM": [5, 6]}
        for row in rows:
            labels = pick_labeled(y, 2, random_state=row["seed"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make_estimator(row["solver"], {}).fit(X, labels)
                svm = fair_svm(model, labels).fit(X, labels)
            assert row["unlabeled_error"] == unlabeled_error(model.decision_function(X),
                                                             labels, y)
            assert row["baseline_error"] == unlabeled_error(svm.decision_function(X), labels, y)
            assert row["error_vs_baseline"] == row["unlabeled_error"] - row["baseline_error"]
            assert "same kernel" in row["baseline_svm"] and "4 labeled points" in row[
                "baseline_svm"]


def test_s4vm_runs_as_on_the_watch_page_and_is_not_worse_on_80_20_at_the_defaults(monkeypatch):
    # The page's S4VM is the Watch page's: its form's balance centre "both", not the library's
    # labels' share (the paper's), which the 1:1 labels of the 80 / 20 classes set at one half.
    # At the page's defaults (seed 0) the paper's centre is significantly worse than its SVM
    # there (37 % against 26 %), the app's level with it.
    monkeypatch.setattr(hurt, "SOLVERS", ("S4VM",))
    monkeypatch.setattr(hurt, "CASES", {"shares": hurt.CASES["shares"]})
    settings = (hurt.DEFAULTS["n"], hurt.DEFAULTS["draws"], hurt.DEFAULTS["per_class"], 0)
    (app,) = summarize(lessons.unlabeled_hurt(*settings)["shares"])
    assert app["verdict"] != "worse", app
    X, y = hurt.CASES["shares"].data(hurt.DEFAULTS["n"], 0)
    paper = make_estimator("S4VM", {"r": None, "random_state": 0})
    (labels_share,) = summarize(run_draws(X, y, {"S4VM": paper}, range(8), n_per_class=2))
    assert labels_share["verdict"] == "worse", labels_share


def rows_of(solver: str, errors, svm_errors) -> list[dict]:
    """``run_draws``-like rows of one solver over the draws."""
    return [{"solver": solver, "draw": d, "error": "", "success": False, "unlabeled_error": e,
             "baseline_error": b, "error_vs_baseline": e - b, "seconds": 0.1,
             "baseline_svm": "supervised SVM, same kernel"}
            for d, (e, b) in enumerate(zip(errors, svm_errors, strict=True))]


SVM = [0.30, 0.32, 0.28, 0.35, 0.31, 0.29, 0.33, 0.30]
#: Lower on five draws only (p = 0.0625 with the other three tied), lower on all eight
#: (p = 0.0078), higher on all eight.
LEVEL_BUT_LOWER = [e - 0.1 for e in SVM[:5]] + SVM[5:]
LOWER = [e - 0.1 for e in SVM]
HIGHER = [e + 0.1 for e in SVM]


def summaries(**cases) -> dict[str, list[dict]]:
    return {name: summarize([r for solver, errors in runs.items()
                             for r in rows_of(solver, errors, SVM)])
            for name, runs in cases.items()}


def said_counts(line: str) -> dict[str, tuple[int, list[str]]]:
    """The counts and names a ``case_line`` says: {"better": (k, [names])...}."""
    found = {}
    for verdict in ("better", "no significant difference", "worse"):
        match = re.search(rf"\*\*(\d+)\*\* {verdict}(?: \(([^)]*)\))?", line)
        names = re.split(r", | and ", match.group(2)) if match.group(2) else []
        found[verdict] = (int(match.group(1)), names)
    return found


def test_the_words_claim_a_difference_only_where_the_test_finds_one():
    computed = summaries(
        parallel={"GradientTSVM": LOWER, "QNS3VM": LEVEL_BUT_LOWER, "S4VM": SVM},
        shares={"GradientTSVM": HIGHER, "QNS3VM": LEVEL_BUT_LOWER, "S4VM": HIGHER})
    lower_p = {s["solver"]: s["paired"].p_value for s in computed["parallel"]}["QNS3VM"]
    assert lower_p >= ALPHA  # below its SVM on 5 of 8 draws: not enough to be called better
    lines = hurt.lesson_lines(computed)
    for name, line in zip(computed, lines, strict=False):
        said = said_counts(line)
        for verdict, (count, names) in said.items():
            meant = [s for s in computed[name] if s["verdict"] == verdict]
            assert count == len(meant)
            if verdict != "no significant difference":
                assert names == [hurt.solver_name(s["solver"]) for s in meant]
                assert all(s["paired"].p_value < ALPHA for s in meant)
    assert said_counts(lines[0])["better"] == (1, ["∇TSVM"])  # not QN-S3VM, p = 0.0625
    assert said_counts(lines[1])["worse"] == (2, ["∇TSVM", "S4VM"])
    assert lines[2] == ("**S4VM is significantly worse than its SVM on 80 / 20 classes**: its "
                        "safety did not hold there.")
    assert hurt.headline(computed) == (
        "Where the cluster assumption holds, **1 of 3** solvers are significantly better than "
        "their own SVM on two long clusters; where it fails, **2 of 3** are significantly worse "
        "on 80 / 20 classes. " + lines[2])


def test_s4vm_at_or_below_its_svm_everywhere_is_said_so():
    computed = summaries(parallel={"S4VM": LOWER}, crossed={"S4VM": SVM})
    assert hurt.safe_line(computed) == ("**S4VM** is not significantly worse than its SVM on any "
                                        "of the 2 data sets; it is better on Two long clusters.")
    assert hurt.safe_line(summaries(crossed={"QNS3VM": SVM})) is None  # it did not run


def test_the_differences_are_each_solvers_mean_and_interval_against_its_own_svm():
    rows = rows_of("QNS3VM", LOWER, SVM) + rows_of("S4VM", SVM, SVM)
    differences = hurt.differences(rows)
    mean, low, high = differences["QNS3VM"]
    assert mean == pytest.approx(-0.1) and low == pytest.approx(-0.1)  # no spread: no width
    assert differences["S4VM"] == (0.0, 0.0, 0.0)
    rows[0]["error"] = "failed"  # a failed run is left out, not counted as 0
    assert np.isfinite(hurt.differences(rows)["QNS3VM"][0])


@pytest.mark.parametrize(("raw", "sentence"), [
    ({"n": 7}, "n (points of each data set) must be one of 40, 50, 80, 120, 200, not 7."),
    ({"draws": "10"}, "label draws must be one of 6, 8, 10, 20, 30, not '10'."),
    ({"shown": "moons"}, "data set shown draw by draw must be one of parallel, overlap, "
                         "crossed, shares, not 'moons'."),
    ({"speed": 2}, "The page When unlabeled data hurt has no setting 'speed'"),
    ([50, 10], "must map names to values"),
])
def test_a_bad_setting_of_a_link_is_said_and_left_at_its_default(raw, sentence):
    values, notes = hurt.read_settings(raw)
    assert any(sentence in note for note in notes), notes
    assert values == hurt.DEFAULTS


def test_the_settings_of_a_link_are_read_in_their_widgets_types():
    values, notes = hurt.read_settings({"n": 80, "draws": 20, "per_class": 3, "shown": "shares"})
    assert notes == []
    assert values == {"n": 80, "draws": 20, "per_class": 3, "shown": "shares"}


def test_the_chart_marks_each_verdict_on_one_range_readable_at_1024_by_768():
    from s3vm_explorer.engine.figures.hurt import FONT, hurt_figure

    computed = summaries(parallel={"QNS3VM": LOWER, "S4VM": SVM},
                         shares={"QNS3VM": HIGHER, "S4VM": LEVEL_BUT_LOWER})
    panels = [{"title": hurt.CASES[name].title, "tag": hurt.CASES[name].tag,
               "X": np.zeros((4, 2)), "y": np.array([0, 1, 0, 1]), "summary": summary,
               "differences": {s["solver"]: (-0.1, -0.2, 0.0) for s in summary}}
              for name, summary in computed.items()]
    figure = hurt_figure(panels, {"QNS3VM": "QN-S3VM", "S4VM": "S4VM"}).to_plotly_json()
    marks = [(t["xaxis"], t["marker"]["symbol"]) for t in figure["data"]
             if t.get("showlegend") is False and t["xaxis"] not in ("x", "x2")]
    assert marks == [("x3", "triangle-left"), ("x3", "circle-open"),
                     ("x4", "triangle-right"), ("x4", "circle-open")]
    assert [t["name"] for t in figure["data"] if t.get("showlegend") is not False] == [
        "better than its SVM", "no significant difference", "worse than its SVM"]
    layout = figure["layout"]
    assert layout["xaxis3"]["range"] == layout["xaxis4"]["range"] == [-21.6, 21.6]
    assert layout["yaxis3"]["ticktext"] == ["QN-S3VM", "S4VM"]
    assert [a["text"] for a in layout["annotations"]][:2] == [
        "<b>Two long clusters</b><br>assumption holds", "<b>80 / 20 classes</b><br>labels 1:1"]
    assert all(len(case.tag) <= 18 for case in hurt.CASES.values())
    assert FONT >= 13 and layout["font"]["size"] == FONT
    assert all(a["font"]["size"] >= 13 for a in layout["annotations"])
    assert len(layout["shapes"]) == 2  # its own SVM, a dotted line in each panel


def test_the_guided_lesson_asks_of_each_data_set_then_says_its_tests_counts():
    from s3vm_explorer.engine.guides import hurt_guide

    computed = summaries(
        parallel={"GradientTSVM": LOWER, "QNS3VM": LEVEL_BUT_LOWER, "S4VM": SVM},
        shares={"GradientTSVM": HIGHER, "QNS3VM": LEVEL_BUT_LOWER, "S4VM": HIGHER})
    guide = hurt_guide(computed)
    assert [step.frame for step in guide.steps[:-1]] == list(computed)
    for step, (name, summary) in zip(guide.steps, computed.items(), strict=False):
        assert step.question.endswith("?")
        assert step.answer == hurt.case_line(hurt.CASES[name], summary).replace("**", "")
    assert guide.steps[-1].answer.startswith("S4VM is significantly worse than its SVM on "
                                             "80 / 20 classes")
