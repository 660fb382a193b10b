"""Guided lessons: a few steps through what a page shows, each a question asked before its
answer and the answer computed from the run on screen, never written in advance.

A ``Guide`` is 4-8 ``Step``s. A step names the frame of the film (a state of the run) or the
setting of the page's chart it is about, asks "what do you expect?" and then says what the run
did, in numbers read off the run itself: a step that says "the boundary settles at γ = 0.52"
found γ = 0.52 in the states. Streamlit-free: ``ui.guide`` draws a guide, a test checks every
sentence against the run it was made from.

Each page builds its guide from what it has computed already (its run's states, its draws'
rows); nothing here runs a solver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from s3vm_core.metrics import predicted_classes, unlabeled_error
from s3vm_explorer.engine.stages import STAGE_NAMES
from toy_data import UNLABELED
from toy_data.files import counted

#: The pages that have a lesson, by the name a share link gives them, and the most steps a
#: lesson has.
LESSONS = ("watch", "continuation", "annealing", "early_stopping", "local_minima", "hurt")
MOST_STEPS = 8


def read_lesson(raw) -> tuple[dict | None, list[str]]:
    """A share link's ``lesson`` field, ``{"page": name, "step": k}`` (k counted from 1, as
    the lesson shows it), as the session holds it (step from 0, the answer not yet shown),
    and sentences on what could not be used (the lesson then stays closed)."""
    if not isinstance(raw, dict) or set(raw) - {"page", "step"}:
        return None, ['The lesson must be given as {"page": ..., "step": ...}: it stays closed.']
    page, step = raw.get("page"), raw.get("step", 1)
    if page not in LESSONS:
        return None, [f"There is no lesson on the page {str(page)[:40]!r} (the lessons are on "
                      f"{', '.join(LESSONS)}): it stays closed."]
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= MOST_STEPS:
        return None, [f"A lesson's step is a whole number from 1 to {MOST_STEPS}, not "
                      f"{str(step)[:20]!r}: the lesson stays closed."]
    return {"page": page, "step": step - 1, "revealed": False, "jump": True}, []


@dataclass(frozen=True)
class Step:
    """One step of a lesson: its ``title``, the ``question`` asked before the reveal, the
    ``answer`` computed from the run, and what the page shows while it stands: the state
    ``frame`` of the film or chart (an index into the run's states, or the value of the page's
    chart setting, such as a data set's name), or None for the page as it is."""

    title: str
    question: str
    answer: str
    frame: object = None


@dataclass(frozen=True)
class Guide:
    """A page's lesson: its ``name`` (the share link's, e.g. "watch"), ``title`` and
    ``steps``."""

    name: str
    title: str
    steps: tuple[Step, ...]


def _percent(value: float) -> str:
    return "unknown" if math.isnan(value) else f"{100 * value:.1f} %"


def _value(state, symbol: str) -> str:
    """The stage's parameter at ``state`` as the film's title says it ("γ = 0.52"), or the
    iteration where a stage has no value ("PCG iteration 18")."""
    if math.isnan(state.stage_value):
        return f"{symbol} {state.iteration}"
    return f"{symbol} = {state.stage_value:.3g}"


def outer_frames(shown) -> np.ndarray:
    """The positions, among the film's frames ``shown`` (states), of its outer steps: the end
    of each stage (each γ, T, C*, α) and the answer, for a solver whose stages have values;
    else every frame after the start (the iterations of PCG or Newton). The lesson compares
    these, not the inner iterations within one stage."""
    ends = [i for i, s in enumerate(shown)
            if s.event in ("stage_end", "final") and not math.isnan(s.stage_value)]
    if len(ends) >= 3:
        return np.asarray(ends)
    return np.asarray([i for i, s in enumerate(shown) if s.event != "init"] or [0])


def side_changes(decisions, unlabeled: np.ndarray) -> np.ndarray:
    """How many unlabeled points change their predicted class from each frame to the next:
    ``(n_frames - 1,)`` for frames' decisions ``(n_frames, n)`` (one-vs-rest: ``(n_frames, n,
    k)``)."""
    classes = np.array([predicted_classes(d) for d in decisions])[:, unlabeled]
    return np.sum(classes[1:] != classes[:-1], axis=1)


def watch_guide(run, labels, y_true, symbol: str, solver: str) -> Guide | None:
    """The Watch page's lesson on a film (``engine.protocol.Run``): the start, the frame where
    the unlabeled points move the boundary most, where it stops moving, and the answer beside
    the supervised SVM of the same kernel and C (``run.baseline``). ``symbol`` is the outer
    parameter's ("γ", "T", "C*", "α", "iteration"), ``solver`` the solver's title. None for a
    film of fewer than three frames (nothing moves to ask about) or without unlabeled
    points."""
    labels = np.asarray(labels)
    unlabeled = labels == UNLABELED
    outer = outer_frames([run.states[i] for i in run.frames])
    if outer.size < 3 or not unlabeled.any():
        return None
    frames = np.asarray(run.frames)[outer]
    shown = [run.states[i] for i in frames]
    name = STAGE_NAMES.get(shown[0].stage, symbol)
    decisions = np.asarray(run.point_decisions)[outer]
    changes = side_changes(decisions, unlabeled)
    errors = np.array([unlabeled_error(d, labels, y_true) if y_true is not None else math.nan
                       for d in decisions])
    n_unlabeled = int(unlabeled.sum())
    steps = [_start_step(run, frames, shown, decisions, unlabeled, errors, name, solver,
                         n_unlabeled)]

    biggest = int(np.argmax(changes))
    before, after = shown[biggest], shown[biggest + 1]
    moved = (f"Between {_value(before, name)} and {_value(after, name)}: "
             f"{counted(int(changes[biggest]), 'unlabeled point')} of {n_unlabeled} "
             f"{'changes' if changes[biggest] == 1 else 'change'} side, the largest move of the "
             "film")
    if not np.isnan(errors[[biggest, biggest + 1]]).any():
        moved += (f", and the unlabeled error goes from {_percent(errors[biggest])} to "
                  f"{_percent(errors[biggest + 1])}")
    steps.append(Step("The biggest move", f"At which {name} do you expect the unlabeled "
                      "points to move the boundary most?", moved + ".", int(frames[biggest + 1])))

    steps.append(_settling_step(shown, changes, name, frames))
    steps.append(_answer_step(run, labels, y_true, errors, solver, int(frames[-1])))
    return Guide("watch", f"A guided look at {solver}", tuple(steps))


def _settling_step(shown, changes, name: str, frames) -> Step:
    """Where the last unlabeled point changes side along the outer steps ``shown`` (states,
    ``changes`` between consecutive ones, ``frames`` their indices in the run)."""
    moving = np.flatnonzero(changes)
    if moving.size == 0:
        return Step("The boundary settles", "When will the boundary stop moving?",
                    "No unlabeled point changes side along the whole path: the boundary only "
                    "sharpens.", int(frames[-1]))
    last = int(moving[-1]) + 1
    rest = len(shown) - 1 - last
    unit = "iteration" if math.isnan(shown[last].stage_value) else "stage"
    settled = (f"The last unlabeled point changes side at {_value(shown[last], name)}"
               + (f"; the {counted(rest, unit)} after it only "
                  f"{'sharpens' if rest == 1 else 'sharpen'} the margin." if rest
                  else ", the last step: the solver ends still moving."))
    return Step("The boundary settles", "When will the boundary stop moving?", settled,
                int(frames[last]))


def _start_step(run, frames, shown, decisions, unlabeled, errors, name, solver,
                n_unlabeled) -> Step:
    """The first outer step beside the supervised SVM: how many unlabeled points the two
    classify differently."""
    answer = f"At {_value(shown[0], name)}, where the film's path starts"
    if run.baseline is not None:
        differ = int(np.sum(predicted_classes(decisions[0])[unlabeled]
                            != predicted_classes(run.baseline.decision)[unlabeled]))
        answer += (f", {solver} and the supervised SVM disagree on "
                   f"{counted(differ, 'unlabeled point')} of {n_unlabeled}")
    if not math.isnan(errors[0]):
        answer += f"; its unlabeled error is {_percent(errors[0])}"
    return Step("Where it starts", "Before the unlabeled points have had their say, where do "
                "you expect the boundary to lie?", answer + ".", int(frames[0]))


def _answer_step(run, labels, y_true, errors, solver, frame) -> Step:
    """The answer's error beside the fair supervised SVM's, on this one labeling."""
    question = "Did the unlabeled points help, against the SVM of the same kernel and C?"
    if y_true is None or math.isnan(errors[-1]):
        return Step("The answer", question, "Unknown: no unlabeled point has a known true "
                    "class, so the error cannot be computed.", frame)
    answer = f"{solver} errs on {_percent(errors[-1])} of the unlabeled points"
    if run.baseline is not None:
        svm = unlabeled_error(run.baseline.decision, labels, y_true)
        difference = 100 * (errors[-1] - svm)
        answer += (f"; the {run.baseline.description or 'supervised SVM'} errs on "
                   f"{_percent(svm)}: " + (
                       "the same" if round(difference, 1) == 0 else
                       f"{abs(difference):.1f} percentage points "
                       f"{'fewer' if difference < 0 else 'more'}"))
    answer += (". One labeling says little: the Compare page repeats it over label draws with a "
               "paired test.")
    return Step("The answer", question, answer, frame)


def _minima(values) -> int:
    """The local minima of a sampled curve (interior points below both neighbours, and an
    end below its neighbour), plateaus counted once."""
    values = np.asarray(values, dtype=float)
    values = values[np.r_[True, np.diff(values) != 0]]  # a flat run counts as one point
    if values.size < 2:
        return 1
    left = np.r_[True, values[1:] < values[:-1]]
    right = np.r_[values[:-1] < values[1:], True]
    return int(np.sum(left & right))


def _draws_step(summary: dict, names: tuple[str, ...], question: str) -> Step:
    """What the page's label draws say, each solver beside its own SVM, in the paired
    test's words (``PairedComparison.sentence``)."""
    said = "; ".join(f"{name}: mean unlabeled error {_percent(summary[name]['mean_error'])}, "
                     f"{summary[name]['paired'].sentence('its SVM')}" for name in names)
    return Step("Over label draws", question, said + ".")


def continuation_guide(model, states, labels, curves, summary: dict) -> Guide:
    """The Continuation page's lesson: the convex start (the minima of L_γ0 and of (2) along
    the page's slice, ``curves`` = ``[(γ, values)]`` with γ = 0 last), the boundary settling
    over the γ stages, the smoothed objective meeting (2) at γ_end, and the page's label
    draws (``summary``: ``engine.comparison.summarize`` by solver name)."""
    (_, first), (_, unsmoothed) = curves[0], curves[-1]
    n_start, n_end = _minima(first), _minima(unsmoothed)
    steps = [Step(
        "The convex start", f"At γ0 = {model.gamma0_:.3g}, how many valleys do you expect "
        "the smoothed objective L_γ0 to have along the slice?",
        f"{n_start} along this slice, as the bound (9) promises; the objective (2) itself, "
        f"the thick curve, has {n_end}" + (
            f": the smoothing hid {n_end - n_start} of them." if n_end > n_start else "."))]
    ends = [i for i, s in enumerate(states) if s.event == "stage_end"]
    shown = [states[i] for i in ends]
    changes = side_changes([s.train_decision for s in shown], np.asarray(labels) == UNLABELED)
    steps.append(_settling_step(shown, changes, "γ", ends))
    final = states[-1]
    smoothed, plain = float(states[ends[-1]].objective), float(
        final.extras["objective_unsmoothed"])
    steps.append(Step(
        "Smoothing gone", f"At γ_end = {model.gamma_end_:.3g}, how close do you expect L_γ to "
        "be to the objective (2)?",
        f"L_γ_end = {smoothed:.4g} and (2) = {plain:.4g} at the same weights, "
        f"{abs(smoothed - plain) / max(abs(plain), 1e-12):.1%} apart: what cS3VM minimized "
        "last is nearly the S3VM objective itself. Its gradient there is the smoothed one's; "
        "(2) has kinks, so its own gradient need not vanish at the answer."))
    steps.append(_draws_step(summary, ("cS3VM", "∇TSVM"), "Over label draws, do you expect "
                             "continuation to find better minima than gradient descent?"))
    return Guide("continuation", "A guided look at continuation", tuple(steps))


#: A soft label p counts as decided below this or above one minus it.
DECIDED = 0.1


def annealing_guide(states, labels, fixed_runs, summary: dict, y_true=None) -> Guide:
    """The Annealing page's lesson over the temperatures of a DA run (``states``): the soft
    labels at T0, the temperature where half the unlabeled points have decided (p within
    ``DECIDED`` of 0 or 1) and whether they lie far from the boundary, the temperature where
    all have, annealing against the fixed temperatures of ``fixed_runs`` (``[(name, final
    state)]``, DA's first), and the label draws (``summary`` by solver name). A step's
    ``frame`` is the index of its temperature among the stage ends (the page's slider)."""
    unlabeled = np.asarray(labels) == UNLABELED
    ends = [s for s in states if s.event == "stage_end"]
    p = np.array([np.asarray(s.extras["p"])[unlabeled] for s in ends])
    f = np.array([np.asarray(s.train_decision)[unlabeled] for s in ends])
    decided = (p < DECIDED) | (p > 1 - DECIDED)
    share = decided.mean(axis=1)
    steps = [Step(
        "A hot start", f"At T0 = {ends[0].stage_value:.3g}, what do you expect the soft labels "
        "p of the unlabeled points to be?",
        f"Every p lies between {p[0].min():.2f} and {p[0].max():.2f} (their mean "
        f"{p[0].mean():.2f} is the class balance r): {decided[0].sum()} of {unlabeled.sum()} "
        "unlabeled points have decided. Hot, the entropy term keeps the labels soft.", 0)]
    half = int(np.argmax(share >= 0.5)) if share.max() >= 0.5 else len(ends) - 1
    near, far = np.abs(f[half][~decided[half]]), np.abs(f[half][decided[half]])
    where = (f"; the decided ones lie at |f| = {far.mean():.2f} on average, the undecided at "
             f"{near.mean():.2f}: " + ("the points far from the boundary decide first."
                                       if far.mean() > near.mean() else
                                       "here the points near the boundary decided first.")
             if near.size and far.size else ".")
    steps.append(Step(
        "The first decisions", "As T falls, which unlabeled points do you expect to decide "
        "first?", f"At T = {ends[half].stage_value:.3g}, {decided[half].sum()} of "
        f"{unlabeled.sum()} have decided (p below {DECIDED:g} or above {1 - DECIDED:g})" + where,
        half))
    frozen = int(np.argmax(share == 1.0)) if share.max() == 1.0 else len(ends) - 1
    steps.append(Step(
        "Frozen", "At which temperature do you expect every label to be decided?",
        (f"At T = {ends[frozen].stage_value:.3g} every unlabeled point has decided"
         if share[frozen] == 1.0 else
         f"Even at the last temperature, T = {ends[-1].stage_value:.3g}, "
         f"{(~decided[-1]).sum()} stay undecided") +
        f"; DA stops after {len(ends)} temperatures, when the entropy falls below ε (Table 1).",
        frozen))
    (name, annealed), *fixed = fixed_runs
    if fixed:
        cost = float(annealed.extras["expected_cost"])
        lower = [n for n, s in fixed if float(s.extras["expected_cost"]) < cost - 1e-9]
        said = ", ".join(f"{n}: {float(s.extras['expected_cost']):.4g}" for n, s in fixed)
        answer = (f"The annealed run reaches E_p J = {cost:.4g}; {said}. " + (
            f"{' and '.join(lower)} found a lower objective: annealing is no guarantee."
            if lower else "No fixed temperature found a lower objective: annealing tracked a "
            "better minimum."))
        if y_true is not None:
            errors = [f"{n} {_percent(unlabeled_error(s.train_decision, labels, y_true))}"
                      for n, s in fixed_runs]
            answer += f" Unlabeled error: {', '.join(errors)}."
        steps.append(Step("Annealing or a cold start?", "Would one fixed, cold temperature "
                          "reach as low an objective as annealing?", answer))
    steps.append(_draws_step(summary, ("DA", "∇TSVM"), "Over label draws, do you expect DA "
                             "to beat ∇TSVM, as the DA paper's Table 2 found?"))
    return Guide("annealing", "A guided look at deterministic annealing", tuple(steps))


def local_minima_guide(rows, titles: dict) -> Guide:
    """The Local minima page's lesson on its rows (``engine.lessons.local_minima``): the
    global optimum against the supervised SVM, the local solvers closest to and farthest from
    it, and whether a better optimum classifies better (Spearman's rank correlation of the
    objective's gap and the error's excess over the global optimum's, over every dot)."""
    from scipy import stats

    from s3vm_core.metrics import paired_comparison

    reference = [r for r in rows if r["solver"] == "SVMBaseline"]
    global_errors = [r["global_error"] for r in reference]
    compared = paired_comparison(global_errors, [r["svm_error"] for r in reference])
    steps = [Step(
        "The global optimum", "Does the exact global minimum of (2) classify the unlabeled "
        "points better than the supervised SVM?",
        f"It errs on {_percent(compared.mean)} on average, the SVM on "
        f"{_percent(compared.baseline_mean)}: {compared.sentence('the SVM')}.")]
    local = [r for r in rows if r["solver"] != "SVMBaseline"]
    names = list(dict.fromkeys(r["solver"] for r in local))
    gap = {n: float(np.mean([r["labeling_gap"] for r in local if r["solver"] == n]))
           for n in names}
    found = {n: sum(r["found_basin"] for r in local if r["solver"] == n) for n in names}
    best, worst = min(names, key=gap.get), max(names, key=gap.get)
    draws = len(reference)
    steps.append(Step(
        "Closest to the optimum", "Which local solver do you expect to land closest to the "
        "global minimum?", f"{titles.get(best, best)}: its labeling's best is "
        f"{gap[best]:.2%} above the minimum on average, and it found the optimal labeling on "
        f"{found[best]} of {draws} draws."))
    steps.append(Step(
        "Farthest from it", "And which farthest?", f"{titles.get(worst, worst)}: "
        f"{gap[worst]:.2%} above on average, the optimal labeling on {found[worst]} of "
        f"{draws} draws."))
    gaps = [r["gap"] for r in local]
    excess = [r["error"] - r["global_error"] for r in local]
    if np.ptp(gaps) > 0 and np.ptp(excess) > 0:
        rho, p = stats.spearmanr(gaps, excess)
        said = (f"Spearman's ρ = {rho:.2f} between the objective's gap and the error's excess "
                f"over the {len(local)} dots, p = {p:.2g}: " + (
                    ("better optima classify better here, the continuation paper's conjecture."
                     if rho > 0 else "here better optima classify worse.") if p < 0.05 else
                    "no significant relation on these draws."))
    else:
        said = "Every dot has the same gap or the same error: nothing to relate on these draws."
    steps.append(Step("Do better optima classify better?", "Do you expect the solvers that "
                      "reach a lower objective to err less?", said))
    unproven = draws - sum(r["proven"] for r in reference)
    steps.append(Step(
        "Proven?", "Is every global minimum here proven, or only the best found?",
        "Every one is proven: the search ended before its time limit." if not unproven else
        f"On {counted(unproven, 'draw')} the search reached its time limit: the minimum there "
        "is the best found, within its certified gap."))
    return Guide("local_minima", "A guided look at local minima", tuple(steps))


def early_stopping_guide(iterations, errors, times, stops: dict, titles: dict,
                         optimum_error: float, newton_steps: int, stopped_by: str) -> Guide:
    """The LapSVM early-stopping page's lesson on its PCG run: how long the run to the end
    takes, from which iteration its unlabeled error no longer changes, which rule fires first,
    and what the stability check (Algorithm 2) saves. ``iterations``, ``errors`` and ``times``
    are the run's per iteration, ``stops`` each rule's first stop (None: never), ``titles``
    the rules' names on the page."""
    iterations, errors = np.asarray(iterations), np.asarray(errors, dtype=float)
    position = {int(t): k for k, t in enumerate(iterations)}
    last = int(iterations[-1])
    ended = "converged" if stopped_by == "converged" else "reached its iteration limit"
    steps = [Step(
        "To the end", "How many PCG iterations do you expect the run to the optimum to take?",
        f"PCG {ended} after {counted(last, 'iteration')} ({times[-1]:.3f} s) with "
        f"{_percent(errors[-1])} of the unlabeled points wrong; Newton's method took "
        f"{counted(newton_steps, 'step')}, its optimum errs on {_percent(optimum_error)}.")]
    question = ("After how many iterations do you expect the unlabeled error to reach its "
                "final value?")
    if np.isnan(errors).any():
        steps.append(Step("The error settles", question, "Unknown: the unlabeled points' true "
                          "classes are not known, so their error cannot be followed."))
    else:
        changed = np.flatnonzero(errors != errors[-1])
        settled = int(iterations[0 if changed.size == 0 else int(changed[-1]) + 1])
        steps.append(Step(
            "The error settles", question, f"From iteration {settled} on the error stays at "
            f"{_percent(errors[-1])}: {settled / max(last, 1):.0%} of the run; the rest only "
            "polishes a classifier that no longer changes."))
    fired = {name: at for name, at in stops.items() if at is not None and at in position}
    if fired:
        first = min(fired, key=fired.get)
        silent = [titles.get(n, n) for n, at in stops.items() if n not in fired]
        answer = (f"{titles.get(first, first)}, at iteration {fired[first]}, with "
                  f"{_percent(errors[position[fired[first]]])} wrong"
                  + (f"; {', '.join(silent)} never fired." if silent else "."))
    else:
        answer = "None fired within the run: every rule waited for the end."
    steps.append(Step("The first to stop", "Which stopping rule do you expect to fire first?",
                      answer))
    stability = fired.get("stability")
    if stability is None:
        said = ("The stability check never fired: the unlabeled decisions kept changing by "
                "more than its threshold.")
    else:
        k = position[stability]
        said = (f"It stops at iteration {stability}, after {times[k]:.3f} s, "
                f"{times[k] / max(times[-1], 1e-12):.0%} of the time to the end, with "
                f"{_percent(errors[k])} wrong against the optimum's {_percent(optimum_error)}.")
    steps.append(Step("What stability saves", "What do you expect the stability check "
                      "(Algorithm 2) to save, and to cost in error?", said))
    return Guide("early_stopping", "A guided look at early stopping", tuple(steps))


def hurt_guide(summaries: dict) -> Guide:
    """The When unlabeled data hurt page's lesson: one step a data set (``engine.hurt.CASES``,
    in the page's order), asking how the S3VMs will fare against their own SVMs there and
    answering with the paired tests' counts (``engine.hurt.case_line``), then S4VM's verdicts
    (``engine.hurt.safe_line``). A step's ``frame`` is its data set's name (the page's draw by
    draw view shows it)."""
    from s3vm_explorer.engine.hurt import CASES, case_line, safe_line

    steps = []
    for name, summary in summaries.items():
        case = CASES[name]
        question = (f"{case.title}: {case.description} Do you expect the S3VMs to beat their "
                    "own SVMs here, or to lose to them?")
        steps.append(Step(case.title, question, case_line(case, summary).replace("**", ""),
                          name))
    if (safe := safe_line(summaries)) is not None:
        steps.append(Step("S4VM", "S4VM picks, of many separators, the labeling whose "
                          "worst-case gain over the SVM is largest. Do you expect it ever to "
                          "be worse than its SVM?", safe.replace("**", "")))
    return Guide("hurt", "A guided look at when unlabeled data hurt", tuple(steps))
