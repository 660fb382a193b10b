"""The teaching pages run headless with their default controls and after changing each one."""

import base64
import json
import re
from urllib.parse import unquote

import numpy as np
import pytest
from page_helpers import new_session, plotly_specs, shown, type_number

from s3vm_explorer.ui import state

CONTINUATION = "pages/continuation.py"
ANNEALING = "pages/annealing.py"
EARLY_STOPPING = "pages/early_stopping.py"
COMPARE = "pages/compare.py"
ABOUT = "pages/about.py"


def open_page(app, page, n_samples=100):
    # 100 two-moons points keep each solver run well under a second.
    at = app.run()
    at.session_state[state.N_SAMPLES] = n_samples
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def array(value) -> np.ndarray:
    """A figure JSON array: plotly writes numpy arrays as base64 typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def lines(spec) -> list[dict]:
    return [t for t in spec["data"] if t.get("mode") == "lines"]


def test_every_teaching_page_refuses_one_class_labels_with_a_clear_message(app):
    at = app.run()
    at.session_state[state.N_SAMPLES] = 100
    at.run()
    labels = [-1] * 100
    labels[3] = 1
    at.session_state[state.LABELS] = labels
    for page in (CONTINUATION, ANNEALING, EARLY_STOPPING):
        at.switch_page(page).run()
        assert not at.exception
        assert "Label at least one point of each class" in shown(at.error[0].value)
        assert at.session_state[state.LABELS] == labels


def test_continuation_page_shows_the_landscape_for_every_gamma(app):
    at = open_page(app, CONTINUATION)
    landscape, multiples, path, draws = plotly_specs(at)
    curves = lines(landscape)
    assert len(curves) == 12  # the 11 gammas of §3.2, and gamma = 0 (the objective (2))
    assert curves[0]["name"].startswith("γ0 = ") and curves[-1]["name"].startswith("γ = 0")
    assert f"γ0 = {metrics(at)['γ0']}" in landscape["layout"]["title"]["text"]
    assert 2 <= sum(t["type"] == "contour" for t in multiples["data"]) <= 8
    assert len(path["layout"]["shapes"]) == 11  # a dotted line per stage end
    # each solver's draws beside its own SVM's (the SVM of their kernel and C), no other SVM
    assert draws["layout"]["yaxis"]["ticktext"] == ["cS3VM", "∇TSVM"]
    assert [t["name"] for t in draws["data"] if t.get("mode") == "markers"
            and t.get("showlegend") is False] == ["cS3VM: its SVM", "cS3VM", "∇TSVM: its SVM",
                                                  "∇TSVM"]
    # The slice runs from before the gamma_0 minimizer (t = 0) to past the final one (t = 1).
    x = array(curves[0]["x"])
    assert x[0] == -1.0 and x[-1] == 2.0
    # the preset on the sidebar's 100 points, as the Watch page runs it: cS3VM's width follows
    # n (engine.presets.WIDTH_WITH_N), and the page says so
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "σ = 0.281: the preset as in the paper" in captions
    assert "Scaled to n = 100: σ (RBF width) 0.25 → 0.281." in captions


def test_continuation_gamma0_follows_its_formula_when_c_changes(app):
    # §3.2: gamma_0 = (C* lambda_max)^(2/3) / (2s)^(1/3), with C* = C: dividing C by 10
    # divides gamma_0 by 10^(2/3).
    at = open_page(app, CONTINUATION)
    before = float(metrics(at)["γ0"])
    at.select_slider(key=state.CONT_C).set_value(10.0).run()
    assert not at.exception and not at.error
    after = float(metrics(at)["γ0"])
    # both shown to 3 significant digits: each may be off by half a unit of the last digit
    assert after == pytest.approx(before / 10 ** (2 / 3), rel=1e-2)


def test_continuation_slice_direction_and_span(app):
    at = open_page(app, CONTINUATION)
    at.radio(key=state.CONT_DIRECTION).set_value("v*").run()
    assert not at.exception
    x = array(lines(plotly_specs(at)[0])[0]["x"])
    assert x[0] == pytest.approx(-x[-1])
    assert "d = v*" in " ".join(shown(c.value) for c in at.main.caption)
    at.select_slider(key=state.CONT_SPAN).set_value(4.0).run()
    wider = array(lines(plotly_specs(at)[0])[0]["x"])
    assert wider[-1] == pytest.approx(4 * x[-1])


def test_annealing_page_defaults(app):
    at = open_page(app, ANNEALING)
    losses, soft, curves, multiples, draws = plotly_specs(at)
    panels = {t["xaxis"] for t in losses["data"]}
    assert panels == {"x", "x2", "x3"}  # hinge, squared hinge, squared
    assert any(t["name"].startswith("current T = 10") for t in losses["data"])
    assert soft["data"][0]["marker"]["cmin"] == 0 and soft["data"][0]["marker"]["cmax"] == 1
    table = at.dataframe[0].value
    assert list(table["method"]) == ["DA (annealed)", "fixed T = 0.1", "fixed T = 0.01",
                                     "fixed T = 0.001"]
    assert sum(t["type"] == "contour" for t in multiples["data"]) == 4
    assert curves["layout"]["xaxis"]["autorange"] == "reversed"
    assert draws["layout"]["yaxis"]["ticktext"] == ["DA (hinge)", "∇TSVM"]
    # the two pages run ∇TSVM with different settings, and each says so
    assert any("∇TSVM runs here with C = 50, C* = 1.02, σ" in shown(c.value)
               and "The Continuation page runs it with" in shown(c.value) for c in at.caption)


def test_annealing_soft_labels_harden_as_t_falls(app):
    at = open_page(app, ANNEALING)
    hot = array(plotly_specs(at)[1]["data"][0]["marker"]["color"])
    slider = at.select_slider(key=state.DA_T_INDEX)
    slider.set_value(slider.options[-1] if isinstance(slider.options[-1], int)
                     else len(slider.options) - 1).run()
    assert not at.exception
    cold = array(plotly_specs(at)[1]["data"][0]["marker"]["color"])
    undecided = lambda p: np.mean((p > 0.05) & (p < 0.95))  # noqa: E731
    assert undecided(cold) < 0.02 < undecided(hot)


def test_annealing_loss_lambda_and_fixed_temperatures(app):
    at = open_page(app, ANNEALING)
    at.radio(key=state.DA_LOSS).set_value("squared").run()
    assert not at.exception and not at.error
    # λ starts from the preset as in the paper on two moons (0.01) and is kept per preset
    lam = state.preset_widget_key(state.DA_LAM, "two_moons", "paper")
    assert at.select_slider(key=lam).value == 1e-2
    at.select_slider(key=lam).set_value(1e-3).run()
    assert not at.exception and not at.error
    at.multiselect(key=state.DA_FIXED_T).set_value([0.001, 0.1]).run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table["method"]) == ["DA (annealed)", "fixed T = 0.1", "fixed T = 0.001"]
    # numbers readable in a narrow column: an entropy of 9.8e-173 printed as a long run of
    # zeros before (issue 29, item 16)
    for column in ("objective E_p J (1)", "entropy S(p)"):
        assert all(len(text) <= 9 and float(text) >= 0 for text in table[column]), table


def test_early_stopping_page_marks_where_each_rule_stops(app):
    at = open_page(app, EARLY_STOPPING)
    multiples, stopping = plotly_specs(at)
    assert sum(t["type"] == "contour" for t in multiples["data"]) == 6  # 5 PCG + Newton
    assert multiples["layout"]["annotations"][-1]["text"].startswith("Newton optimum")
    table = at.dataframe[0].value
    fired = table[table["stops at iteration"] != "never"]
    markers = [t for t in stopping["data"] if t["name"].startswith("stop: ")]
    assert len(markers) == len(fired) - 2  # minus "PCG to the end" and "Newton" rows
    assert len(table) == 7 + 2  # seven rules of §4 (validation ones included), PCG end, Newton
    assert stopping["layout"]["yaxis"]["type"] == "log"
    # issue 20: no cell reads "None" (a rule that never fired has no time or error there), and
    # the Newton row counts its steps in words that agree with the number
    assert not table.isna().any().any() and "None" not in table.to_string()
    assert re.fullmatch(r"1 Newton step|\d+ Newton steps", table["stops at iteration"].iloc[-1])
    # the checks' panel ends where its curves settle, not at the last of many PCG iterations
    last_iteration = int(table["stops at iteration"].iloc[-2])
    assert stopping["layout"]["xaxis2"]["range"][1] < last_iteration


def test_early_stopping_controls(app):
    at = open_page(app, EARLY_STOPPING)
    # the preset as in the paper on the sidebar's 100 points, as the Watch page runs it: the
    # 200-point setting's graph kept (k 6 -> 3, gamma_I 10 -> 20), and the caption says so
    gamma_I = state.preset_widget_key(state.ES_GAMMA_I, "two_moons", "paper:100")
    assert at.select_slider(key=gamma_I).value == 20.0
    assert 20.0 in at.select_slider(key=gamma_I).options or "20" in at.select_slider(
        key=gamma_I).options
    assert any("Scaled to n = 100: γ_I 10 → 20, k (neighbours) 6 → 3." in shown(c.value)
               for c in at.caption)
    at.select_slider(key=gamma_I).set_value(1.0).run()
    assert not at.exception and not at.error
    at.select_slider(key=state.ES_N_VAL).set_value(5).run()
    assert not at.exception and not at.error
    assert "|V| = 5" in shown(at.main.caption[-1].value)


def test_compare_page_runs_on_demand_and_offers_a_csv(app):
    at = open_page(app, COMPARE)
    assert "Run the comparison" in shown(at.info[0].value)
    at.multiselect(key=state.COMPARE_SOLVERS).set_value(["LapSVM", "GraphKernelSVM"])
    type_number(at, state.COMPARE_DRAWS, 2)
    at.button[0].click().run()
    assert not at.exception and not at.error
    rows = at.session_state[state.COMPARE_RESULTS]["rows"]
    assert len(rows) == 2 * 3
    summary = at.table[0].value
    assert len(summary) == 3 and summary["successes"].str.endswith("/ 2").all()
    assert list(summary.columns) == ["solver", "successes", "error (%)", "its SVM (%)", "p",
                                     "verdict"]
    # the supervised SVM of the first row is a reference, nobody's yardstick
    assert list(summary["verdict"])[0] == "reference"
    # two draws cannot carry a verdict, and the page says why instead of claiming one
    assert list(summary["verdict"])[1:] == ["no significant difference"] * 2
    assert any("cannot reach p < 0.05" in shown(i.value) for i in at.info)
    errors, objective, timing = plotly_specs(at)
    assert len(errors["layout"]["yaxis"]["ticktext"]) == 3
    assert [a["text"] for a in objective["layout"]["annotations"]][0].startswith("LapSVM")
    assert len(timing["data"][0]["y"]) == 3
    assert at.get("download_button")
    type_number(at, state.COMPARE_PER_CLASS, 2)
    at.button[0].click().run()
    assert not at.error
    assert {r["draw"] for r in at.session_state[state.COMPARE_RESULTS]["rows"]} == {0, 1}
    # New data (another seed in the sidebar) marks the results as stale.
    type_number(at.sidebar, state.SEED, 5).run()
    assert "settings changed" in shown(at.warning[0].value)


def test_compare_page_says_in_words_what_the_paired_test_supports(app):
    """Issue 41: each solver against its own SVM on the same draws, in words; "better" only
    where p < 0.05, "no significant difference" wherever p >= 0.05."""
    at = open_page(app, COMPARE, n_samples=80)
    at.multiselect(key=state.COMPARE_SOLVERS).set_value(["LDS", "QNS3VM"])
    type_number(at, state.COMPARE_DRAWS, 6)
    at.button[0].click().run()
    assert not at.exception and not at.error
    said = {}
    for markdown in at.markdown:
        for line in shown(markdown.value).splitlines():
            found = re.match(r"- \*\*(.+?)\*\*: below its SVM in (\d+) of (\d+) draws.*?"
                             r"p = ([\d.e-]+): \*\*(.+?)\*\*\. Its SVM: (.+)\.$", line)
            if found:
                said[found.group(1)] = found.groups()[1:]
    assert set(said) == {"LDS (low density separation)", "QN-S3VM (quasi-Newton)"}
    table = at.table[0].value.set_index("solver")  # (short names: the table is narrow)
    for name, (below, n, p, verdict, svm) in said.items():
        assert n == "6" and svm.startswith("supervised SVM, ") and "σ = " in svm
        if float(p) >= 0.05:
            assert verdict == "no significant difference"
        else:
            assert verdict in ("better", "worse")
        short = name.partition(" (")[0]
        assert table.loc[short, "verdict"] == verdict and table.loc[short, "p"] == p
        assert int(below) <= int(n)
    # measured: LDS below its SVM in 6 of 6 draws (p = 0.031), QN-S3VM in 4 (above in 2,
    # p = 0.31); the counts say it
    assert said["LDS (low density separation)"][3] == "better"
    assert said["QN-S3VM (quasi-Newton)"][3] == "no significant difference"
    counts = next(shown(m.value) for m in at.markdown
                  if shown(m.value).startswith("Against each one's own supervised SVM"))
    better = sum(v[3] == "better" for v in said.values())
    assert f"**{better}** of 2 better" in counts


def test_compare_page_says_an_invalid_number_of_draws_and_runs_nothing(app):
    at = open_page(app, COMPARE)
    type_number(at, state.COMPARE_DRAWS, 0)
    at.button[0].click().run()
    assert not at.exception
    assert "k (label draws) = 0 is outside the allowed range 1 to 50" in shown(at.error[0].value)
    assert state.COMPARE_RESULTS not in at.session_state


def test_about_page_names_each_paper(app):
    at = open_page(app, ABOUT)
    assert len(at.main.header) == 10
    captions = [shown(c.value) for c in at.main.caption if c.value.startswith("Paper: ")]
    assert len(captions) == 10 and all("Shown on: " in c for c in captions)
    # every solver can be watched and compared (DA's entry left Watch out: issue 20)
    assert all("Watch a solver" in c and "Compare solvers" in c for c in captions)
    (da,) = [c for c in captions if "Deterministic Annealing" in c]
    assert "Deterministic annealing" in da.split("Shown on: ")[1]
    assert any("Melacci" in c and "2011" in c for c in captions)


def test_about_page_links_each_solver_to_its_deviations_and_its_reproduced_table(app):
    at = open_page(app, ABOUT)
    labels = [e.label for e in at.expander]
    assert labels.count("Where the code departs from the paper") == 10
    assert labels.count("The paper's table, reproduced") == 9  # LapRLSC: its presets
    by_label = {}
    for expander in at.expander:
        by_label.setdefault(expander.label, []).append(expander)
    # each expander holds its document's section and names where it comes from
    for expander in by_label["Where the code departs from the paper"]:
        assert expander.markdown[0].value and "docs/deviations.md" in expander.caption[0].value
    for expander in by_label["The paper's table, reproduced"]:
        assert "\n|---" in expander.markdown[0].value  # a markdown table (after its protocol)
        assert "docs/benchmarks.md" in expander.caption[0].value
    qn = [e.markdown[0].value for e in by_label["Where the code departs from the paper"]
          if "balancing" in e.markdown[0].value.lower() and "qns3vm.py" in e.markdown[0].value]
    assert qn  # QN-S3VM's section: balancing by centring, as the authors' program does


def test_compare_page_runs_each_solver_as_in_the_paper_and_by_default_side_by_side(app):
    at = open_page(app, COMPARE)
    assert at.radio(key=state.COMPARE_PRESET).value == "paper"
    at.multiselect(key=state.COMPARE_SOLVERS).set_value(["LDS", "LapSVM"])
    type_number(at, state.COMPARE_DRAWS, 2)
    at.radio(key=state.COMPARE_PRESET).set_value("both")
    at.button[0].click().run()
    assert not at.exception and not at.error
    runs = [r["solver"] for r in at.session_state[state.COMPARE_RESULTS]["rows"]]
    assert sorted(set(runs)) == ["LDS:default", "LDS:paper", "LapSVM:default", "LapSVM:paper",
                                 "SVMBaseline"]
    assert len(runs) == 5 * 2
    shown = list(at.table[0].value["solver"])
    assert "LDS — as in the paper" in shown and "LDS — the generic default" in shown

    # one colour per solver on the whole page: its two presets' boxes, panels and bars
    errors, objective, timing = plotly_specs(at)
    worn = {}
    for trace in errors["data"] + objective["data"]:
        # (the legend's marks, and every solver's own SVM in grey, are no solver's colour)
        if trace.get("showlegend") is not False or trace.get("name", "").endswith(
                ": its SVM"):
            continue
        if trace["type"] in ("box", "scatter") and trace.get("marker", {}).get("color"):
            worn.setdefault(trace["name"].split(" — ")[0], set()).add(trace["marker"]["color"])
    for name, color in zip(timing["data"][0]["y"], timing["data"][0]["marker"]["color"],
                           strict=True):
        worn.setdefault(name.split(" — ")[0], set()).add(color)
    assert set(worn) == {"Supervised SVM (labeled points only)", "LDS", "LapSVM in the primal"}
    assert all(len(colors) == 1 for colors in worn.values()), worn
    assert len({c for colors in worn.values() for c in colors}) == 3
    # the objective panels' titles: short lines, and the rows close together
    texts = [a["text"] for a in objective["layout"]["annotations"]]
    assert texts[:2] == ["LDS<br>as in the paper", "LDS<br>the generic<br>default"]
    assert all(len(line) <= 20 for text in texts for line in text.split("<br>"))
    assert objective["layout"]["margin"]["t"] >= 2 * 12  # two lines of 12 px above the panels

    # the choice travels in the share link, and a new session opens Compare on it
    (link,) = at.sidebar.code
    shared = json.loads(unquote(link.value.split("?scenario=", 1)[1]))
    assert shared["compare"] == "both"
    fresh = new_session()
    fresh.query_params["scenario"] = json.dumps(shared)
    fresh.run()
    fresh.switch_page(COMPARE).run()
    assert not fresh.exception and fresh.radio(key=state.COMPARE_PRESET).value == "both"


def test_a_link_with_an_unknown_compare_choice_says_so_and_runs_the_paper_presets(app):
    app.query_params["scenario"] = json.dumps({"dataset": "two_moons", "compare": "best"})
    at = app.run()
    assert not at.exception
    assert any("The Compare page's parameters must be one of 'paper', 'default', 'both', "
               "'cv', not 'best'" in shown(w.value) for w in at.warning)
    at.switch_page(COMPARE).run()
    assert at.radio(key=state.COMPARE_PRESET).value == "paper"


def test_compare_chooses_parameters_by_cross_validation_on_the_labels(app):
    """Issue 36, item 4: "chosen by cross-validation on your labels" beside the presets, and
    the page says when the held-out labels find a solver no better than the supervised SVM."""
    at = app.run()
    at.session_state[state.N_SAMPLES] = 80
    at.switch_page("pages/compare.py").run()
    at.multiselect(key=state.COMPARE_SOLVERS).set_value(["LapSVM", "GradientTSVM"])
    type_number(at, state.COMPARE_DRAWS, 2)
    type_number(at, state.COMPARE_PER_CLASS, 2)
    at.radio(key=state.COMPARE_PRESET).set_value("cv")
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    rows = at.session_state[state.COMPARE_RESULTS]["rows"]
    assert all(0 <= r["cv_error"] <= 1 and 0 <= r["baseline_cv_error"] <= 1 for r in rows)
    assert any("chosen on each draw by cross-validation" in shown(c.value) for c in at.caption)
    # each solver against the SVM chosen by the same folds, and the page says so
    assert all("chosen by the same folds" in r["baseline_svm"] for r in rows)
    assert any("Its SVM: supervised SVM chosen by the same folds" in shown(m.value)
               for m in at.markdown)
    # one label a class leaves no fold to hold out: the page says so, nothing runs
    type_number(at, state.COMPARE_PER_CLASS, 1)
    at.button[0].click().run()
    assert any("needs at least 2 labels per class" in shown(e.value) for e in at.error)
