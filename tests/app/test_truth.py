"""The pages tell the truth (issue 33): a run's warnings stand with its film (issue 42: on the
first screen), an error that cannot be computed is "unknown", data of any number of features is
filmed with its boundary, and text from a link or a file never becomes a link, an image or
HTML."""

import json

import numpy as np
import pytest
from markdown_it import MarkdownIt
from page_helpers import film, new_session, shown, shown_numbers

from s3vm_explorer.engine.data import read_upload
from s3vm_explorer.ui import state

PAGES = ("pages/data.py", "pages/watch.py", "pages/continuation.py", "pages/annealing.py",
         "pages/early_stopping.py", "pages/compare.py", "pages/about.py")


def warnings_under_the_film(at) -> list[str]:
    return [shown(w.value) for w in at.warning]


def da_warnings_under_the_film(app, parameter: str, value: float) -> list[str]:
    """The warnings under the film of DA on 80 points of the moons with ``parameter`` set."""
    at = app.run()
    at.session_state[state.N_SAMPLES] = 80
    at.session_state[state.SOLVER] = "DeterministicAnnealingS3VM"
    at.session_state[state.solver_param_key("DeterministicAnnealingS3VM", parameter)] = value
    at.switch_page("pages/watch.py").run()
    assert not at.exception and not at.error
    return warnings_under_the_film(at)


def test_a_solver_that_reaches_its_limit_says_so_under_the_film(app):
    """DA at R = 1.01 stops at its 60-temperature limit (max_stages): the ConvergenceWarning
    that used to stay in the server's terminal is on the page, once."""
    said = da_warnings_under_the_film(app, "R", 1.01)
    assert len(said) == len(set(said)) >= 1
    assert any("temperature" in text.lower() for text in said), said


def test_a_fit_that_ends_constant_names_the_setting_under_the_film(app):
    """DA with λ = 1e4 (the largest the form allows) returns a constant f: the
    DegenerateFitWarning that names lam stands under the film (issue 33, item 5)."""
    said = da_warnings_under_the_film(app, "lam", 1e4)
    assert any("ended with" in text and "lam=10000" in text for text in said), said
    # the preset's width (0.25, narrower than the default) is not named as a likely cause
    assert not any("sigma=0.25" in text for text in said), said


def test_data_of_many_features_is_filmed_on_the_plane_of_its_principal_components(app):
    at = app.run()
    at.sidebar.selectbox(key=state.DATASET).set_value("digits_3_8").run()
    at.session_state[state.SOLVER] = "SVMBaseline"
    at.switch_page("pages/watch.py").run()
    assert not at.exception and not at.error
    played = film(at)
    assert played["grid"] is not None and played["fill"].size > 0  # a field, not only points
    figure = played["figure"]["layout"]
    assert figure["xaxis"]["title"]["text"] == "PC 1"
    assert any("first two principal components through the data's mean" in c.value
               for c in at.caption)


ONE_FEATURE = "x,label\n" + "\n".join(
    [f"{x:.2f},{'a' if i == 0 else ''}" for i, x in enumerate(np.linspace(-3, -1, 20))]
    + [f"{x:.2f},{'b' if i == 0 else ''}" for i, x in enumerate(np.linspace(1, 3, 20))])


def test_a_one_feature_file_is_filmed_as_a_line_on_every_page(app):
    at = app.run()
    at.session_state[state.UPLOAD] = read_upload("line.csv", ONE_FEATURE.encode())
    at.session_state[state.SOLVER] = "SVMBaseline"
    at.run()
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, page
    at.switch_page("pages/watch.py").run()
    played = film(at)
    fill = played["fill"][-1].astype(float)
    assert np.all(fill == fill[0])  # f along the line, the same across the strip
    assert np.count_nonzero(np.diff(np.sign(fill[0]))) == 1  # the boundary is one point
    assert any("one feature" in shown(c.value) for c in at.caption)


def test_an_uploaded_file_without_true_classes_shows_its_error_as_unknown(app):
    at = app.run()
    at.session_state[state.UPLOAD] = read_upload("line.csv", ONE_FEATURE.encode())
    at.session_state[state.SOLVER] = "SVMBaseline"
    at.switch_page("pages/watch.py").run()
    numbers = shown_numbers(at)
    assert numbers["unlabeled error"] == "unknown"
    (row,) = [n for n in film(at)["numbers"] if n["label"] == "unlabeled error"]
    assert "no unlabeled point has a known true class" in row["help"]
    assert "notes" not in row  # no "as the supervised SVM" beside an unknown number
    at.switch_page("pages/early_stopping.py").run()
    assert not at.exception
    assert "%" not in " ".join(shown(i.value) for i in at.info)  # no invented number
    assert "unknown" in " ".join(shown(i.value) for i in at.info)


#: Markdown a hostile link or file name could carry: an image fetched when the page opens, a
#: link, raw HTML, a code span, Streamlit's own directives and a formula.
PAYLOADS = ("![x](http://attacker.example/pixel.png)", "[click me](http://attacker.example/)",
            "<img src=x onerror=alert(1)>", "`code`", ":red[alarm] :material/warning:",
            "$x^2$", "**bold**")


def assert_shown_as_text(text: str, payload: str) -> None:
    """A page's Markdown ``text`` that echoes ``payload`` shows it as written: never verbatim
    (escaped), rendering no link, image, HTML or code, and no address a renderer might turn
    into a link by itself."""
    assert payload not in text, text
    if payload[:8] in text.replace("\\", ""):  # (a long payload may be shown cut)
        tokens = MarkdownIt("commonmark").parse(text)
        kinds = {c.type for t in tokens for c in (t.children or [])} | {t.type for t in tokens}
        assert not kinds & {"link_open", "image", "html_inline", "html_block", "code_inline"}
        assert "://" not in text, text


def every_text(at) -> list[str]:
    texts = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success"):
        texts += [element.value for element in at.get(kind)]
        texts += [element.value for element in at.sidebar.get(kind)]
    return texts


@pytest.mark.parametrize("payload", PAYLOADS)
def test_text_from_a_link_never_reaches_markdown(payload):
    scenario = {"dataset": "uploaded", "file": payload, "solver": payload, "seed": payload}
    at = new_session()
    at.query_params["scenario"] = json.dumps(scenario)
    at.run()
    assert not at.exception
    texts = every_text(at)
    assert any(payload[:8] in text.replace("\\", "") for text in texts), texts  # echoed
    for text in texts:
        assert_shown_as_text(text, payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_file_name_and_class_names_never_reach_markdown(app, payload):
    at = app.run()
    rows = f"x,y,label\n0,0,{payload.replace(',', ' ')}\n1,1,b\n2,2,\n"
    at.session_state[state.UPLOAD] = read_upload(f"{payload}.csv", rows.encode())
    at.session_state[state.SOLVER] = "SVMBaseline"
    for page in ("pages/data.py", "pages/watch.py"):
        at.switch_page(page).run()
        assert not at.exception
        texts = every_text(at)
        for text in texts:
            assert_shown_as_text(text, payload)
    at.switch_page("pages/data.py").run()
    assert any(payload in shown(t) for t in every_text(at))  # the name is shown


def test_a_truth_column_lets_the_film_show_the_error_of_an_uploaded_file(app):
    with_truth = ONE_FEATURE.replace("x,label", "x,label,truth")
    rows = with_truth.splitlines()
    rows = [rows[0]] + [row + ("," + ("a" if float(row.split(",")[0]) < 0 else "b"))
                        for row in rows[1:]]
    at = app.run()
    at.session_state[state.UPLOAD] = read_upload("line.csv", "\n".join(rows).encode())
    at.session_state[state.SOLVER] = "SVMBaseline"
    at.run()
    assert any("38 of the 38 unlabeled points have a true class" in shown(c.value)
               for c in at.caption)
    at.switch_page("pages/watch.py").run()
    error = shown_numbers(at)["unlabeled error"]
    assert error.endswith(" %") and float(error.removesuffix(" %")) < 5  # a number, measured


def test_a_film_of_a_few_newton_steps_says_so_and_offers_the_pcg_path(app):
    """LapSVM's default (Newton, §3.1) reaches its optimum in a few steps: the film says so and
    films the PCG path (§3.2) one click away (issue 34, item 9)."""
    at = app.run()
    at.session_state[state.SOLVER] = "LapSVM"
    at.switch_page("pages/watch.py").run()
    assert not at.exception and not at.error
    short = len(film(at)["states"])
    assert short <= 6 and any("reaches its answer in" in shown(i.value) for i in at.info)
    at.button(key="longer_path").click().run()
    assert not at.exception and not at.error
    assert at.session_state[state.solver_param_key("LapSVM", "solver")] == "pcg"
    assert len(film(at)["states"]) > 3 * short
    assert not any("reaches its answer in" in shown(i.value) for i in at.info)


def test_a_balance_taken_from_labels_picked_by_hand_is_said_with_the_datas_own(app):
    """Three blobs, a label a class, then a box of many points of one class: the solvers with
    a balance constraint look for the labels' shares among the unlabeled points. The page says
    so beside the film, with the data's shares and one click to labels in them (issue 33,
    item 4)."""
    at = app.run()
    at.sidebar.selectbox(key=state.DATASET).set_value("blobs_3").run()
    labels = np.array(at.session_state[state.LABELS])
    boxed = set(np.flatnonzero(labels == -1)[:27].tolist())  # (the first points: class 0)
    # what the brush's callback leaves after a box over 27 points (ui.labelling.apply_brush)
    at.session_state[state.LABELS] = [0 if i in boxed else int(v) for i, v in enumerate(labels)]
    at.session_state[state.LABELS_BY_HAND] = True
    at.session_state[state.SOLVER] = "DeterministicAnnealingS3VM"
    at.switch_page("pages/watch.py").run()
    assert not at.exception and not at.error
    said = [shown(i.value) for i in at.info if "takes the class balance from your labels" in
            shown(i.value)]
    assert said and "class 0 93 %" in said[0] and "class 0 33 %" in said[0]
    at.button(key="label_in_proportion").click().run()
    relabeled = np.array(at.session_state[state.LABELS])
    assert (relabeled != -1).sum() == 30  # as many labels as before, in the data's shares
    assert not any("takes the class balance from your labels" in shown(i.value)
                   for i in at.info)
