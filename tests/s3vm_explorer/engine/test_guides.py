"""Guided lessons: every step's sentence is computed from the run it speaks of."""

import re

import numpy as np
import pytest
from run_helpers import Recorder

from s3vm_core import SVMBaseline
from s3vm_core.metrics import unlabeled_error
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.guides import outer_frames, side_changes, watch_guide
from s3vm_explorer.engine.protocol import Run, RunFinished, RunRequest
from s3vm_explorer.engine.run.process import trace_work
from toy_data import pick_labeled

MOONS = Generated("two_moons", 200, 0.1, 0)


@pytest.fixture(scope="module")
def cs3vm_run():
    """The cS3VM preset on two moons (σ = 0.25, C = 100), two labels a class, as the Watch
    page runs it."""
    data = MOONS.build()
    labels = pick_labeled(data.y_true, 2, random_state=0)
    channel = Recorder()
    trace_work(channel, RunRequest(MOONS, tuple(labels.tolist()), "ContinuationS3VM",
                                   (("C", 100.0), ("sigma", 0.25))))
    states = [m.state for m in channel.sent if hasattr(m, "state")]
    (finished,) = channel.of(RunFinished)
    return data, labels, Run.assemble(states, finished)


def numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text.replace(",", ""))]


def test_the_watch_lesson_asks_before_it_tells_and_each_step_stands_on_a_frame(cs3vm_run):
    data, labels, run = cs3vm_run
    guide = watch_guide(run, labels, data.y_true, "γ", "cS3VM")
    assert 4 <= len(guide.steps) <= 8
    for step in guide.steps:
        assert step.question.endswith("?") and step.answer and step.frame in run.frames
        assert step.answer not in step.question


def test_the_biggest_move_is_the_film_s_own(cs3vm_run):
    data, labels, run = cs3vm_run
    unlabeled = labels == -1
    # the ends of the γ stages, recomputed from the states themselves
    ends = [s for s in run.states if s.event in ("stage_end", "final")]
    shown = [run.states[i] for i in np.asarray(run.frames)[outer_frames(
        [run.states[i] for i in run.frames])]]
    assert [s.step for s in shown] == [s.step for s in ends]
    sides = np.array([s.train_decision > 0 for s in shown])[:, unlabeled]
    moves = np.sum(sides[1:] != sides[:-1], axis=1)
    decisions = np.array([s.train_decision for s in shown])
    np.testing.assert_array_equal(moves, side_changes(decisions, unlabeled))
    step = watch_guide(run, labels, data.y_true, "γ", "cS3VM").steps[1]
    biggest = int(np.argmax(moves))
    assert run.states[step.frame].step == shown[biggest + 1].step
    assert f"{moves[biggest]} unlabeled point" in step.answer
    assert f"γ = {shown[biggest].stage_value:.3g} and γ = {shown[biggest + 1].stage_value:.3g}" \
        in step.answer


def test_the_answer_stands_beside_the_svm_of_the_same_kernel_and_c(cs3vm_run):
    data, labels, run = cs3vm_run
    answer = watch_guide(run, labels, data.y_true, "γ", "cS3VM").steps[-1].answer
    svm = SVMBaseline(sigma=0.25, C=100.0).fit(data.X, labels)
    svm_error = unlabeled_error(svm.decision_function(data.X), labels, data.y_true)
    final = unlabeled_error(run.states[-1].train_decision, labels, data.y_true)
    assert f"cS3VM errs on {100 * final:.1f} %" in answer
    assert f"errs on {100 * svm_error:.1f} %" in answer
    assert f"{abs(100 * (final - svm_error)):.1f} percentage points" in answer


def test_without_true_classes_the_answer_is_unknown_never_zero(cs3vm_run):
    data, labels, run = cs3vm_run
    answer = watch_guide(run, labels, None, "γ", "cS3VM").steps[-1].answer
    assert answer.startswith("Unknown") and "0.0 %" not in answer


@pytest.fixture(scope="module")
def moons_one_label():
    data = MOONS.build()
    return data, pick_labeled(data.y_true, 1, random_state=MOONS.seed)


def test_the_continuation_lesson_counts_the_valleys_of_the_curves_on_the_page(moons_one_label):
    from s3vm_explorer.engine import lessons
    from s3vm_explorer.engine.comparison import summarize
    from s3vm_explorer.engine.guides import continuation_guide

    data, labels = moons_one_label
    model, states, _, _, _ = lessons.continuation_run(MOONS, tuple(labels.tolist()), 100.0, 0.25)
    ts, curves, _ = lessons.slice_curves(model, states, "path", 1.0)
    rows = lessons.label_draws(MOONS, lessons.continuation_against_gradient(100.0, 0.25), k=3)
    summary = {s["solver"]: s for s in summarize(rows)}
    guide = continuation_guide(model, states, labels, curves, summary)
    first, plain = curves[0][1], curves[-1][1]

    def valleys(values):  # interior strict minima and ends below their neighbour
        v = np.asarray(values)
        inner = np.sum((v[1:-1] < v[:-2]) & (v[1:-1] < v[2:]))
        return int(inner + (v[0] < v[1]) + (v[-1] < v[-2]))

    convex = guide.steps[0].answer
    assert convex.startswith(f"{valleys(first)} along this slice")
    assert f"has {valleys(plain)}" in convex
    assert f"cS3VM: mean unlabeled error {100 * summary['cS3VM']['mean_error']:.1f} %" in \
        guide.steps[-1].answer
    assert summary["cS3VM"]["paired"].sentence("its SVM") in guide.steps[-1].answer


def test_the_annealing_lesson_reads_the_soft_labels_of_the_run(moons_one_label):
    from s3vm_explorer.engine import lessons
    from s3vm_explorer.engine.comparison import summarize
    from s3vm_explorer.engine.guides import DECIDED, annealing_guide

    data, labels = moons_one_label
    key = tuple(labels.tolist())
    model, states, _, _ = lessons.annealing_run(MOONS, key, "hinge", 0.01, 0.25)
    fixed = [(f"fixed T = {T:g}", s) for T, s, _ in
             lessons.fixed_temperature_runs(MOONS, key, "hinge", 0.01, (0.01,), 0.25)]
    rows = lessons.label_draws(MOONS, lessons.annealing_against_gradient("hinge", 0.01, 0.25,
                                                                          len(labels)), k=3)
    summary = {s["solver"]: s for s in summarize(rows)}
    guide = annealing_guide(states, labels, [("DA", states[-1]), *fixed], summary, data.y_true)
    ends = [s for s in states if s.event == "stage_end"]
    unlabeled = labels == -1
    p0 = np.asarray(ends[0].extras["p"])[unlabeled]
    assert f"between {p0.min():.2f} and {p0.max():.2f}" in guide.steps[0].answer
    half = guide.steps[1].frame
    p = np.asarray(ends[half].extras["p"])[unlabeled]
    decided = int(np.sum((p < DECIDED) | (p > 1 - DECIDED)))
    assert decided >= unlabeled.sum() / 2
    assert f"At T = {ends[half].stage_value:.3g}, {decided} of" in guide.steps[1].answer
    cost = float(states[-1].extras["expected_cost"])
    assert f"E_p J = {cost:.4g}" in guide.steps[3].answer


def test_the_local_minima_lesson_names_the_solver_closest_to_the_global_minimum():
    from s3vm_explorer.engine import lessons
    from s3vm_explorer.engine.guides import local_minima_guide

    source = Generated("two_moons", 30, 0.1, 0)
    rows = lessons.local_minima(source, 2, None, 5.0, 0.3)
    guide = local_minima_guide(rows, {})
    local = [r for r in rows if r["solver"] != "SVMBaseline"]
    means = {}
    for r in local:
        means.setdefault(r["solver"], []).append(r["labeling_gap"])
    best = min(means, key=lambda n: np.mean(means[n]))
    assert guide.steps[1].answer.startswith(f"{best}: its labeling's best is "
                                            f"{np.mean(means[best]):.2%}")
    assert 4 <= len(guide.steps) <= 8


def test_the_early_stopping_lesson_finds_where_the_error_stops_changing(moons_one_label):
    from s3vm_explorer.engine import lessons
    from s3vm_explorer.engine.guides import early_stopping_guide

    data, labels = moons_one_label
    run = lessons.early_stopping_run(MOONS, tuple(labels.tolist()), 10.0, 20, 0.5)
    kept = [(s, t) for s, t in zip(run["states"], run["times"], strict=True)
            if s.event in ("init", "iter")]
    iterations = [s.iteration for s, _ in kept]
    errors = [unlabeled_error(s.train_decision, labels, data.y_true) for s, _ in kept]
    optimum = unlabeled_error(run["newton"].train_decision, labels, data.y_true)
    guide = early_stopping_guide(iterations, errors, [t for _, t in kept], run["stops"], {},
                                 optimum, run["newton_steps"], run["stopped_by"])
    # the first iteration from which every later error is the final one, found by hand
    settled = next(i for i, _ in enumerate(errors) if all(e == errors[-1] for e in errors[i:]))
    assert guide.steps[1].answer.startswith(f"From iteration {iterations[settled]} on")
    fired = {n: at for n, at in run["stops"].items() if at is not None}
    if fired:
        assert guide.steps[2].answer.startswith(f"{min(fired, key=fired.get)}, at iteration "
                                                f"{min(fired.values())}")
    assert f"{100 * optimum:.1f} %" in guide.steps[0].answer


def test_a_lesson_on_data_without_true_classes_says_unknown_and_never_zero():
    from s3vm_explorer.engine.guides import early_stopping_guide

    nan = float("nan")
    guide = early_stopping_guide([0, 1, 2], [nan, nan, nan], [0.0, 0.1, 0.2],
                                 {"stability": 2}, {}, nan, 3, "converged")
    assert guide.steps[1].answer.startswith("Unknown")
    assert all("0.0 %" not in step.answer for step in guide.steps)
    assert "unknown" in guide.steps[0].answer
