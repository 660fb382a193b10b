"""A figure stated twice reads the same twice (issue 42, item 4): the app's film and the
command line's film of one run, the film's numbers whatever the last bit of the data, the
iterations a title counts, and the gradient on cS3VM's answer."""

import json
import re

import numpy as np
import pytest
from run_helpers import Recorder, make_run

from s3vm_cli import main
from s3vm_core import (
    LDS,
    QNS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    GradientTSVM,
    LapSVM,
)
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.film import UNSMOOTHED_GRADIENT_NOTE, film_numbers
from s3vm_explorer.engine.protocol import RunFinished, RunRequest
from s3vm_explorer.engine.run.process import trace_work
from s3vm_explorer.engine.stages import returned_state, stage_text
from toy_data import pick_labeled

MOONS = Generated("two_moons", 80, 0.1, 0)
#: (the solvers' warnings of an iteration limit are no part of these films' story)
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def moons():
    data = MOONS.build()
    return data.X, data.y_true, pick_labeled(data.y_true, 1, random_state=0)


def saved_film(path) -> dict:
    """The film's arguments in a page that plays offline (``engine.film.film_page``)."""
    page = path.read_text(encoding="utf-8")
    return json.loads(page.split("window.standaloneFilm = ", 1)[1].split(";</script>", 1)[0])


def test_the_app_and_the_command_line_film_one_run_with_the_same_numbers(moons, tmp_path,
                                                                        monkeypatch):
    """DA's gradient read 0.906 in the app and 0.89 in ``s3vm fit --film``: the Watch page's
    film, made where the app makes it (``trace_work``), and the command line's, from a file
    of the same points, agree on every title and number."""
    X, y, labels = moons
    channel = Recorder()
    trace_work(channel, RunRequest(MOONS, tuple(labels.tolist()),
                                   "DeterministicAnnealingS3VM", ()))
    (finished,) = channel.of(RunFinished)
    app = finished.films[False]
    rows = ["x1,x2,label,truth"] + [f"{a!r},{b!r},{'' if label == -1 else label},{truth}"
                                    for (a, b), label, truth in zip(X.tolist(), labels, y,
                                                                    strict=True)]
    (tmp_path / "moons.csv").write_text("\n".join(rows) + "\n")
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "moons.csv", "-s", "da", "--film", "moons.html", "-q"]) == 0
    command_line = saved_film(tmp_path / "moons.html")["args"]
    for key in ("states", "titles"):
        assert command_line[key] == app[key], key
    by_label = {number["label"]: number for number in command_line["numbers"]}
    for number in app["numbers"]:
        assert by_label[number["label"]]["values"] == number["values"], number["label"]


def test_the_films_numbers_do_not_hang_on_the_last_bit_of_the_data(moons):
    """The cause of 0.906 against 0.89: DA's "gradient" with the hinge loss was a subgradient
    that round-off chose at the support vectors on the margin (yf = 1): a change of 1e-14 in
    X moved it from 0.0100 to 0.0434 on two moons. The film shows the numbers that a change
    of the last bits leaves as they are, and a dash where there is no gradient to show."""
    X, y, labels = moons
    rng = np.random.default_rng(1)
    nudged = X * (1 + 1e-14 * rng.standard_normal(X.shape))
    shown = []
    for points in (X, nudged):
        run = make_run(points, labels, DeterministicAnnealingS3VM(), size=5)
        shown.append({n["label"]: n["values"][-1] for n in film_numbers(run, labels, y)})
    assert shown[0] == shown[1]
    assert shown[0]["‖gradient‖"] == "—"


#: Which events of each solver's trace are iterations of its stage (DA's "stage_end" is the
#: alternation that settles p; an L-BFGS or Newton "stage_end" repeats the last iterate).
COUNTED = {"cS3VM": {"iter"}, "∇TSVM": {"iter"}, "LDS": {"iter"}, "QN-S3VM": {"iter"},
           "DA": {"iter", "stage_end"}, "LapSVM Newton": {"iter"}, "LapSVM PCG": {"iter"}}
SOLVERS = {"cS3VM": lambda: ContinuationS3VM(sigma=0.4, n_gamma=4),
           "∇TSVM": lambda: GradientTSVM(sigma=0.4), "LDS": lambda: LDS(rho=8.0),
           "QN-S3VM": lambda: QNS3VM(sigma=0.4), "DA": lambda: DeterministicAnnealingS3VM(),
           "LapSVM Newton": lambda: LapSVM(gamma_I=10.0),
           "LapSVM PCG": lambda: LapSVM(gamma_I=10.0, solver="pcg", max_iter=40)}


@pytest.mark.parametrize("name", list(SOLVERS))
def test_every_title_counts_the_iterations_its_stage_has_done(name, moons):
    """∇TSVM's answer read "C* = 1.09 · iteration 0" after 14 iterations of that C*; DA
    counted its first alternation as iteration 0, like its start; LapSVM's answer read
    "Newton step · iteration 1" at step 3. Each title now counts the iterations of its stage
    done by that state."""
    X, _, labels = moons
    states = list(SOLVERS[name]().trace(X, labels))
    done, stage = 0, None
    returned = returned_state(states) is not None
    for index, state in enumerate(states):
        if state.stage_index != stage and state.event != "final":
            done, stage = 0, state.stage_index
        done += state.event in COUNTED[name]
        title = stage_text(state, returned and index == len(states) - 1)
        if title.startswith("best state of the path"):
            continue  # (DA's answer names the earlier state it returned to instead)
        count = re.search(r"iteration (\d+)$|Newton step (\d+)$|PCG iteration (\d+)$"
                          r"|after (\d+) \w+|before the first", title)
        assert count, title
        said = next((int(g) for g in count.groups() if g is not None), 0)
        assert said == done, (index, state.event, title, done)


def test_the_answer_of_cs3vm_says_its_gradient_is_of_objective_2(moons):
    """cS3VM's answer showed ‖gradient‖ 3.11 with no word: its objective is (2) itself, not
    the last L_γ the path minimized, and so is its gradient. The number says so under it, its
    tooltip says why it is not 0, and the frame before (the last stage's end) shows the small
    gradient of L_γ that the path did bring down."""
    X, y, labels = moons
    run = make_run(X, labels, ContinuationS3VM(sigma=0.4, n_gamma=4), size=5)
    gradient = {n["label"]: n for n in film_numbers(run, labels, y)}["‖gradient‖"]
    assert gradient["notes"] == [""] * (len(run.frames) - 1) + [UNSMOOTHED_GRADIENT_NOTE]
    assert "γ_end" in gradient["help"] and "not 0" in gradient["help"]
    answer, stage_end = float(gradient["values"][-1]), float(gradient["values"][-2])
    assert answer > 100 * stage_end  # (2)'s gradient at L_γ's minimizer is no small number


def test_a_film_without_such_an_answer_has_no_note_under_its_gradient(moons):
    X, y, labels = moons
    run = make_run(X, labels, GradientTSVM(sigma=0.4), size=5)
    gradient = {n["label"]: n for n in film_numbers(run, labels, y)}["‖gradient‖"]
    assert "notes" not in gradient and "dash" in gradient["help"]
