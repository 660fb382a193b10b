"""Play's pace (issue 42, item 5): at 1x the whole cS3VM film (55 frames) played in about
3 s, 50 ms a frame. Now a film is paced by its solver's outer steps (``engine.film
.frame_durations``): each γ, T, C* or α ends on a frame that stays while a lecturer speaks, the
inner iterations pass quickly, and no film outlasts what a lecture can follow."""

import pytest
from run_helpers import make_run

from s3vm_core import ContinuationS3VM, DeterministicAnnealingS3VM, LapSVM, SVMBaseline
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.film import (
    FRAME_MS,
    LONGEST_FILM_MS,
    ONE_STAGE_FILM_MS,
    STEP_MS,
    film_args,
    frame_durations,
)
from toy_data import pick_labeled

#: (the solvers' warnings of an iteration limit are no part of these films' story)
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def moons():
    data = Generated("two_moons", 80, 0.1, 0).build()
    return data.X, data.y_true, pick_labeled(data.y_true, 1, random_state=0)


def test_play_holds_each_outer_step_and_passes_the_inner_iterations(moons):
    """At 1x the cS3VM film (55 frames) played in about 3 s: now each γ's end (and the start)
    stays STEP_MS, the iterations between pass at FRAME_MS."""
    X, _, labels = moons
    run = make_run(X, labels, ContinuationS3VM(sigma=0.4), size=5)
    durations = frame_durations(run)
    shown = [run.states[i] for i in run.frames]
    held = [k for k, ms in enumerate(durations[:-1]) if ms > FRAME_MS]
    stage_ends = [k for k, s in enumerate(shown[:-1])
                  if k == 0 or s.stage_index != shown[k + 1].stage_index]
    # the start and the end of every γ but the last (the answer's, where Play stops), held
    assert held == stage_ends and len(held) == len({s.stage_index for s in shown})
    assert {durations[k] for k in held} == {STEP_MS}
    assert 20_000 <= sum(durations[:-1]) <= LONGEST_FILM_MS  # a lecture's pace, not 3 s
    # the player plays them, and its GIF holds each frame as long
    assert film_args(run, X, labels)["frame_ms"] == durations


def test_a_film_of_many_stages_lasts_no_longer_than_a_lecture_allows(moons):
    X, _, labels = moons
    run = make_run(X, labels, DeterministicAnnealingS3VM(R=1.1), size=5)
    durations = frame_durations(run)
    assert len({s.stage_index for s in run.states}) > 20  # more steps than STEP_MS allows
    assert sum(durations[:-1]) <= LONGEST_FILM_MS
    assert min(d for d in durations if d > FRAME_MS) < STEP_MS


def test_a_film_of_one_stage_spreads_its_time_over_its_steps(moons):
    X, _, labels = moons
    newton = frame_durations(make_run(X, labels, LapSVM(gamma_I=10.0), size=5))
    assert newton == [STEP_MS] * len(newton)  # each Newton step is worth a sentence
    pcg = make_run(X, labels, LapSVM(gamma_I=10.0, solver="pcg", max_iter=100), size=5)
    durations = frame_durations(pcg)
    assert len(set(durations)) == 1 and FRAME_MS < durations[0] < STEP_MS
    assert sum(durations) == pytest.approx(ONE_STAGE_FILM_MS, rel=0.05)
    svm = frame_durations(make_run(X, labels, SVMBaseline(), size=5))
    assert svm == [STEP_MS, STEP_MS]
