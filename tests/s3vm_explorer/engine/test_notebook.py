"""The film of a trace in a notebook (``engine.notebook``): the app's player as one page,
inline in Jupyter and saved to play offline (issue 36, item 5); in a notebook the player's
scripts travel once, with the first film, and a film is small (issue 40, item 8). The browser
plays them in tests/e2e/test_notebook_films.py."""

import base64
import html
import json
import re
import zlib

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from s3vm_core import QNS3VM, ContinuationS3VM, OneVsRestS3VM, SVMBaseline
from s3vm_explorer.engine import notebook
from s3vm_explorer.engine.film import PLAYER_FOLDER, PLOTLY_JS
from s3vm_explorer.engine.notebook import film, player_scripts
from toy_data import pick_labeled, two_moons

#: The element of a notebook's output that carries the player's scripts.
CARRIER = re.compile(r'<script type="text/plain" data-s3vm-player="(\w+)">([^<]*)</script>')


def film_args_of(page: str) -> dict:
    """The film a page carries (``window.standaloneFilm``), as the player reads it."""
    saved = re.search(r"window\.standaloneFilm = (\{.*?\});</script>", page, re.S).group(1)
    return json.loads(saved)


def shown_film(output: str) -> dict:
    """The film a notebook's output carries beside its frame, as the frame reads it."""
    (data,) = re.findall(r'<script type="application/json" data-s3vm-film>(.*?)</script>',
                         output, re.S)
    assert re.search(r'<iframe srcdoc="[^"]*" title="[^"]*"', output)
    return json.loads(data)


@pytest.fixture
def new_kernel(monkeypatch):
    """A kernel that has shown no film yet, in a notebook that names no cell."""
    monkeypatch.setattr(notebook, "_CARRIED", {})
    monkeypatch.setattr(notebook, "_running", lambda: (None, None))
    return monkeypatch


@pytest.fixture(scope="module")
def moons():
    X, y = two_moons(60, noise=0.1, random_state=0)
    return X, y, pick_labeled(y, 1, random_state=0)


def test_a_film_is_the_players_page_with_its_film_inside(moons, tmp_path, new_kernel):
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
    # inline in a notebook: a frame of its own, its film beside it, the same as the page's
    assert shown_film(made._repr_html_()) == saved


def test_the_first_film_carries_the_players_scripts_and_a_film_is_small(new_kernel):
    """150 points, 55 and 57 frames: a film was 5.7 MB in a notebook's output (plotly.js and
    the player inlined and escaped in every film's srcdoc). The first film carries them once,
    compressed; a film after it is its film and the player's page, under a quarter of a MB."""
    X, y = two_moons(150, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    films = [film(model, X, labels, y_true=y) for model in (QNS3VM(sigma=0.3),
                                                             ContinuationS3VM(sigma=0.3))]
    assert [len(f.args["states"]) for f in films] == [57, 55]
    first, second = (f._repr_html_() for f in films)
    assert len(first.encode()) < 2.5e6 and len(json.dumps(first)) < 2.5e6  # (as in a .ipynb)
    assert len(second.encode()) < 0.25e6 and len(json.dumps(second)) < 0.25e6
    assert not CARRIER.search(second) and "Plotly" not in second
    (digest, packed), = CARRIER.findall(first)
    scripts = dict(json.loads(zlib.decompress(base64.b64decode(packed))))
    # the installed plotly.js and the player's own, in the order the page runs them
    assert list(scripts) == ["plotly.min.js", "gif.js", "player.js"]
    assert scripts["plotly.min.js"] == PLOTLY_JS.read_text(encoding="utf-8")
    assert scripts["player.js"] == (PLAYER_FOLDER / "player.js").read_text(encoding="utf-8")
    # every film's frame looks for these scripts, by their digest
    for output in (first, second):
        frame = html.unescape(re.search(r'srcdoc="([^"]*)"', output).group(1))
        assert f'data-player="{digest}"' in frame and "function drawPicture" not in frame
    assert shown_film(second)["args"]["states"] == films[1].args["states"]


def test_the_scripts_go_again_with_a_new_run_of_their_cell_with_scripts_true_or_on_request(
        new_kernel):
    X, y = two_moons(30, random_state=0)
    shown = film(SVMBaseline(), X, pick_labeled(y, 1, random_state=0))

    def shows_scripts(cell, run):
        new_kernel.setattr(notebook, "_running", lambda: (cell, run))
        return bool(CARRIER.search(shown._repr_html_()))

    assert shows_scripts("cell 1", "run 1")
    assert not shows_scripts("cell 1", "run 1")  # a second film of the same run
    # the same cell run again (its output replaced) carries them again, another cell does not
    assert shows_scripts("cell 1", "run 2")
    assert not shows_scripts("cell 2", "run 3")
    shown.scripts = True  # film(..., scripts=True)
    assert shows_scripts("cell 2", "run 3")
    shown.scripts = False
    assert shows_scripts("cell 2", "run 4")  # cell 2 carried them last
    new_kernel.setattr(notebook, "_running", lambda: ("cell 3", "run 5"))
    again = player_scripts()._repr_html_()
    assert CARRIER.search(again) and "MB" in again
    assert not shows_scripts("cell 2", "run 6")
    assert shows_scripts("cell 3", "run 7")  # the cell that carried them last
    # where the notebook does not say which cell runs (nbclient), the first film only
    assert not shows_scripts(None, "run 8")


def test_text_of_the_film_cannot_end_its_script_element(new_kernel):
    X, y = two_moons(30, random_state=0)
    title = "</script><script>alert(1)</script> <!-- a film"
    shown = film(SVMBaseline(), X, pick_labeled(y, 1, random_state=0), title=title)
    assert shown_film(shown._repr_html_())["args"]["context"]["solver"] == title
    assert film_args_of(shown.page)["args"]["context"]["solver"] == title


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
    """A notebook run headless, as Jupyter runs it: each cell's output is the player, and the
    first carries the player's scripts."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in (
        "from s3vm_explorer.engine.notebook import film\n"
        "from s3vm_core import SVMBaseline\n"
        "from toy_data import pick_labeled, two_moons\n"
        "X, y = two_moons(40, random_state=0)\n"
        "film(SVMBaseline(), X, pick_labeled(y, 1, random_state=0), y_true=y)",
        "film(SVMBaseline(), X, pick_labeled(y, 2, random_state=0), y_true=y)")])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    (first,), (second,) = (cell.outputs for cell in notebook.cells)
    first, second = (output["data"]["text/html"] for output in (first, second))
    assert CARRIER.search(first) and not CARRIER.search(second)
    assert shown_film(first)["args"]["context"]["data"] == "n = 40, 2 labeled, 2 features"
    assert shown_film(second)["args"]["context"]["data"] == "n = 40, 4 labeled, 2 features"
