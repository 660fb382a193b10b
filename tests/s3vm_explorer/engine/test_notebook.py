"""The film of a trace in a notebook (``engine.notebook``): the app's player as one page,
inline in Jupyter and saved to play offline (issue 36, item 5)."""

import json
import re

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from s3vm_core import QNS3VM, OneVsRestS3VM, SVMBaseline
from s3vm_explorer.engine.notebook import film
from toy_data import pick_labeled, two_moons


def film_args_of(page: str) -> dict:
    """The film a page carries (``window.standaloneFilm``), as the player reads it."""
    saved = re.search(r"window\.standaloneFilm = (\{.*?\});</script>", page, re.S).group(1)
    return json.loads(saved)


@pytest.fixture(scope="module")
def moons():
    X, y = two_moons(60, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, 1, random_state=0)


def test_a_film_is_the_players_page_with_its_film_inside(moons, tmp_path):
    X, y, labels = moons
    model = QNS3VM(sigma=0.3)
    states = list(model.trace(X, labels))
    made = film(model, X, labels, states, y_true=y)
    saved = film_args_of(made.page)
    args = saved["args"]
    assert args["states"][-1] == len(states) - 1 and saved["frame"] == len(args["states"]) - 1
    assert "plotly" in made.page and "function drawPicture" in made.page  # inlined, offline
    assert not re.search(r'<script src="[^$]', made.page)  # nothing to fetch
    assert args["context"]["solver"] == "QN-S3VM (quasi-Newton)"
    assert "Gieseke" in args["context"]["paper"] and "n = 60, 2 labeled" in args["context"]["data"]
    numbers = {n["label"]: n for n in args["numbers"]}
    assert numbers["unlabeled error"]["values"][-1].endswith(" %")
    assert "supervised SVM" in numbers["unlabeled error"]["notes"][-1]
    path = made.save(tmp_path / "qn.html")
    assert path.read_text(encoding="utf-8") == made.page
    # inline in a notebook: a frame of its own, the page in it
    shown = made._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and "standaloneFilm" in shown


def test_class_names_any_dimension_and_one_vs_rest_are_filmed():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 0.5, (15, 3)), rng.normal(2, 0.5, (15, 3)),
              rng.normal([2, -2, 0], 0.5, (15, 3))]
    truth = np.repeat(np.array(["a", "b", "c"], dtype=object), 15)
    y = np.full(45, -1, dtype=object)
    y[[0, 15, 30]] = ["a", "b", "c"]
    args = film_args_of(film(OneVsRestS3VM(SVMBaseline()), X, y, y_true=truth).page)["args"]
    assert args["classes"] == 3 and args["grid"]["nx"] > 0
    errors = {n["label"]: n for n in args["numbers"]}["unlabeled error"]["values"]
    assert errors[-1] == "0.0 %"  # three well-separated clusters


def test_a_notebook_shows_the_player_in_its_output():
    """A notebook run headless, as Jupyter runs it: the cell's output is the player."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from s3vm_explorer.engine.notebook import film\n"
        "from s3vm_core import SVMBaseline\n"
        "from toy_data import pick_labeled, two_moons\n"
        "X, y = two_moons(40, random_state=0)\n"
        "film(SVMBaseline(), X, pick_labeled(y, 1, random_state=0), y_true=y)")])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    (output,) = notebook.cells[0].outputs
    shown = output["data"]["text/html"]
    assert shown.startswith("<iframe srcdoc=") and "standaloneFilm" in shown
