"""The teaching pages' and the Compare page's computations.

Each is a module-level function of the data description and the page's settings that returns
plain values, so that ``ui.runs.computed`` can run it in a child process (bounded, stoppable,
see ``engine.jobs``) and keep its result for every session.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from s3vm_core import (
    ESTIMATORS,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    LapSVM,
    compare_with_global_minimum,
)
from s3vm_core.metrics import unlabeled_error
from s3vm_core.solvers.continuation import smoothed_objective_along_line
from s3vm_explorer.engine import hurt
from s3vm_explorer.engine.comparison import BASELINE, compare_solvers, run_draws
from s3vm_explorer.engine.presets import (
    BOTH,
    CHOSEN_BY_CV,
    DEFAULT,
    PAPER,
    paper_preset,
    preset_params,
    presets_data_set,
)
from s3vm_explorer.engine.registry import SOLVERS, make_estimator, run_form, with_form_defaults
from toy_data import UNLABELED, pick_labeled

#: Resolution of the teaching pages' small boundary panels.
GRID = 40


#: Label draws of the teaching pages' comparisons (the DA paper's Table 2 uses 10).
DRAWS = 10
#: Above this much work (fits times points) the label draws run two at a time. Below, starting
#: the two worker processes costs more than it saves: the Annealing page's 30 fits on 200 points
#: (6,000) took 2.6–2.8 s in one process against 3.5–3.8 s in two; on 500 points (15,000) 5.5 s
#: against 4.6 s.
PARALLEL_ABOVE = 10_000


def continuation_run(source, labels: tuple, C: float, sigma: float | None = None):
    """Trace cS3VM (C* = C, §4) on the data of ``source`` (``engine.data``); the fitted
    model, its states, the time, the display grid's features and the sentence of
    ``engine.registry.run_form`` when its scalable form ran (None for the exact one)."""
    data = source.build()
    X = data.X
    params, form = run_form("ContinuationS3VM", len(X), {"C": C, "sigma": sigma})
    model = ContinuationS3VM(**params)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning still leaves a usable path
        states = list(model.trace(X, np.asarray(labels)))
    seconds = time.perf_counter() - start
    return model, states, seconds, data.grid_features(model, GRID), form


def slice_curves(model, states, direction: str, span: float):
    """``(ts, [(gamma, values)], description)``: L_γ on a line for every γ and γ = 0."""
    ends = [s for s in states if s.event == "stage_end"]
    start, final = np.asarray(ends[0].coef), np.asarray(states[-1].coef)
    along_path = final - start
    if direction == "path" and np.linalg.norm(along_path) > 1e-12:
        ts = np.linspace(-span, 1 + span, 241)
        origin, d = start, along_path
        text = "t = 0 is the γ0 minimizer, t = 1 the final solution"
    else:
        scale = max(float(np.linalg.norm(final)), 1.0)
        ts = np.linspace(-span * scale, span * scale, 241)
        origin, d = final, model.v_star_
        text = "t = 0 is the final solution; d = v*, the leading eigenvector of M (§3.3)"
    curves = [(float(g), smoothed_objective_along_line(model, origin, d, ts, gamma=float(g))[1])
              for g in [*model.gammas_, 0.0]]
    return ts, curves, text


def _anneal(X, labels, **params):
    model = DeterministicAnnealingS3VM(**params)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # Fixed T stops after one temperature by design, which the solver reports as a
        # ConvergenceWarning (entropy not yet below eps); the state is still the answer.
        warnings.simplefilter("ignore")
        states = list(model.trace(X, np.asarray(labels)))
    return model, states, time.perf_counter() - start


def annealing_run(source, labels: tuple, loss: str, lam: float,
                  sigma: float | None = None):
    """DA with Table 1's schedule (T0 = 10, R = 1.5): model, states, seconds, grid features."""
    data = source.build()
    model, states, seconds = _anneal(data.X, labels, loss=loss, lam=lam, sigma=sigma)
    return model, states, seconds, data.grid_features(model, GRID)


def fixed_temperature_runs(source, labels: tuple, loss: str, lam: float,
                           temperatures: tuple, sigma: float | None = None) -> list:
    """DA at each fixed temperature (Table 5: no annealing): ``(T, final state, seconds)``."""
    X = source.build().X
    runs = []
    for T in temperatures:
        _, states, seconds = _anneal(X, labels, loss=loss, lam=lam, sigma=sigma, T0=T,
                                     max_stages=1)
        runs.append((T, states[-1], seconds))
    return runs


def early_stopping_run(source, labels: tuple, gamma_I: float, n_val: int,
                       sigma: float | None = None, graph: tuple = ()) -> dict:
    """PCG run to the end with every criterion recorded, and the Newton optimum.

    ``graph`` holds the preset's other ``(parameter, value)`` pairs (its k, p and gamma_A:
    Table 8's on g50c, and k following n on the toy sets, ``engine.presets.scaled``). The
    validation set is ``n_val`` unlabeled training points with their true labels (drawn
    with the data's seed), the labeled validation set of Algorithm 3.
    """
    data = source.build()
    X, y_true = data.X, data.y_true
    labels = np.asarray(labels)
    # (an uploaded file's points of unknown class cannot validate)
    candidates = np.flatnonzero((labels == UNLABELED) & (y_true != UNLABELED))
    rng = np.random.default_rng(source.seed)
    chosen = rng.choice(candidates, min(n_val, candidates.size), replace=False)
    val = {"X_val": X[chosen], "y_val": y_true[chosen]} if chosen.size else {}
    pcg = LapSVM(solver="pcg", gamma_I=gamma_I, sigma=sigma, **dict(graph))
    states, times = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter without convergence is part of the story
        start = time.perf_counter()
        for s in pcg.trace(X, labels, **val):
            states.append(s)
            times.append(time.perf_counter() - start)
        newton = LapSVM(solver="newton", gamma_I=gamma_I, sigma=sigma, **dict(graph))
        start = time.perf_counter()
        newton_states = list(newton.trace(X, labels))
        newton_seconds = time.perf_counter() - start
    return {"states": states, "times": times, "stops": dict(pcg.stop_iterations_),
            "stopped_by": pcg.stopped_by_, "newton": newton_states[-1],
            "newton_steps": newton.n_iter_, "newton_seconds": newton_seconds,
            "grid": data.grid_features(pcg, GRID), "validation": chosen}


def continuation_against_gradient(C: float, sigma: float | None) -> tuple:
    """The Continuation page's comparison (``label_draws``'s ``runs``): cS3VM and ∇TSVM on the
    same kind of objective, kernel and costs C = C* (the cS3VM paper's Table 1). Each is
    measured against its own supervised SVM (``engine.comparison.fair_baseline``), here the
    same one for both: the SVM with their kernel and C."""
    same = (("C", C), ("C_star", C), ("sigma", sigma))
    return (("cS3VM", "ContinuationS3VM", same), ("∇TSVM", "GradientTSVM", same))


def annealing_against_gradient(loss: str, lam: float, sigma: float | None,
                               n_points: int) -> tuple:
    """The Annealing page's comparison (the DA paper's Table 2): DA and ∇TSVM with the same
    kernel and weights, for draws of one label per class, each against its own supervised
    SVM (the same one for both: C = 1/(λ l), the SVM of DA's labeled loss).

    (4) divided by λ is an SVM objective with C = 1/(λ l) on each of the l = 2 labeled points
    and C* = λ'/(λ u) (λ' = 1) on each of the u unlabeled ones."""
    n_labeled = 2
    return (("DA", "DeterministicAnnealingS3VM", (("loss", loss), ("lam", lam),
                                                  ("sigma", sigma))),
            ("∇TSVM", "GradientTSVM", (("C", 1 / (lam * n_labeled)),
                                       ("C_star", 1 / (lam * (n_points - n_labeled))),
                                       ("sigma", sigma))))


def run_settings(runs: tuple, name: str) -> str:
    """The parameters a run of ``runs`` (``label_draws``'s) sets, in words ("C = 50, C* =
    0.505, σ = 0.25"): a page says with which settings a solver ran, where two pages run it
    differently."""
    symbols = {"C_star": "C*", "sigma": "σ", "lam": "λ"}
    (params,) = [params for run, _, params in runs if run == name]
    return ", ".join(f"{symbols.get(key, key)} = {value:.3g}" if isinstance(value, float)
                     else f"{symbols.get(key, key)} = {value}"
                     for key, value in params if value is not None)


def _form(solver: str, n_points: int, params: dict) -> tuple[dict, str]:
    """``engine.registry.run_form``'s parameters, with the name of the form they select: "exact",
    or above the app's size for it the solver's scalable form, as the Watch page runs it."""
    params, note = run_form(solver, n_points, params)
    return params, "exact" if note is None else SOLVERS[solver].scalable.what


def _jobs(n_points: int, n_fits: int) -> int:
    """Worker processes for a sweep of ``n_fits`` fits on ``n_points`` points
    (``PARALLEL_ABOVE``)."""
    return 2 if n_points * n_fits > PARALLEL_ABOVE else 1


def label_draws(source, runs: tuple, k: int = DRAWS, progress=None) -> list[dict]:
    """Each of ``runs`` on the same ``k`` label draws of one point per class, as the DA
    paper's Table 2 (10 random choices of 2 labeled points).

    ``runs`` holds ``(name, solver, params)`` triples, ``params`` a tuple of ``(name, value)``
    pairs. Draw ``d`` labels ``pick_labeled(y, 1, random_state=seed + d)``, ``seed`` the data
    source's: the first is the labeling a new data set starts with. Returns one row per (run, draw),
    ``engine.comparison.run_draws``'s with ``"solver"`` the run's name: each row holds the error of
    the run's own supervised SVM on the same draw (``baseline_error``) and its verdict over the
    draws (``engine.comparison.summarize``); ``progress(done, total)`` after each fit (two at a time
    above ``PARALLEL_ABOVE`` points times fits). Above the app's size for it a solver runs its
    scalable form, as on the Watch and Compare pages, and each row's ``"form"`` says which ("exact"
    or the form's description).
    """
    data = source.build()
    X, y_true = data.X, data.y_true
    estimators, forms = {}, {}
    for name, solver, params in runs:
        params, forms[name] = _form(solver, len(X), dict(params))
        estimators[name] = make_estimator(solver, with_form_defaults(solver, params))
    rows = run_draws(X, y_true, estimators, [source.seed + draw for draw in range(k)],
                     n_jobs=_jobs(len(X), k * len(estimators)), progress=progress)
    for row in rows:
        row["form"] = forms[row["solver"]]
    return rows


def comparison(source, k: int, n_per_class: int, solvers: tuple, preset: str,
               scheduler: str | None = None, progress=None) -> list:
    """Every solver on the data of ``source`` over ``k`` label draws seeded by its seed
    (``engine.comparison.compare_solvers``), on the Dask cluster at ``scheduler`` if given.

    ``preset`` is ``engine.presets.PAPER`` or ``DEFAULT`` for every solver, ``BOTH``: a
    solver with a preset as in the paper on this data set then runs twice, as
    ``"<solver>:paper"`` and ``"<solver>:default"``, or ``CHOSEN_BY_CV``: every solver and the
    baseline with parameters chosen on each draw by cross-validation on its labels
    (``engine.comparison.ChosenByCV``). The supervised baseline runs once, as in the paper
    unless ``preset`` is ``DEFAULT``. Above the app's size for it a solver runs its scalable form
    (``engine.registry.run_form``), and each row's ``"form"`` says which form ran ("exact" or the
    scalable form's description)."""
    data = source.build()
    X, y_true = data.X, data.y_true
    dataset = presets_data_set(source)
    chosen_by_cv = preset == CHOSEN_BY_CV  # (its grids are around the generic defaults)
    single = PAPER if preset == BOTH else DEFAULT if chosen_by_cv else preset
    names, runs, forms = [], {}, {}
    params = {BASELINE: preset_params(dataset, BASELINE, single)}
    for solver in solvers:
        twice = preset == BOTH and paper_preset(dataset, solver) is not None
        for name in (PAPER, DEFAULT) if twice else (single,):
            run = f"{solver}:{name}" if twice else solver
            names.append(run)
            runs[run] = solver
            chosen = preset_params(dataset, solver, name, len(X))  # a paper's follows n
            params[run], forms[run] = _form(solver, len(X), chosen)
    rows = compare_solvers(X, y_true, names, k=k, n_per_class=n_per_class,
                           random_state=source.seed, params=params, runs=runs, progress=progress,
                           scheduler=scheduler, n_jobs=_jobs(len(X), k * (len(names) + 1)),
                           chosen_by_cv=chosen_by_cv)
    for row in rows:
        row["form"] = forms.get(row["solver"], "exact")
    return rows


#: The data sets of the Local minima page and the sizes it allows: the exact solver proves its
#: minimum within seconds up to about 60 points on two moons and two circles, fewer on g50c's
#: 50 dimensions (docs/benchmarks.md, "The exact global minimum: every solver against it").
MINIMA_DATA_SETS = ("two_moons", "two_circles", "g50c")
MINIMA_SIZES = (20, 60)


def local_minima(source, draws: int, C: float | None, max_time: float,
                 sigma: float | None = None, progress=None) -> list[dict]:
    """Every local solver and the exact one on the same kernel, C and C*
    (``s3vm_core.compare_with_global_minimum``) on ``draws`` label draws of one point per
    class (draw ``d`` seeded ``seed + d``, as ``label_draws``), the exact search stopped at
    ``max_time`` seconds a draw; ``sigma`` the RBF width of every solver (None: the median
    distance), C = C* (None: 1/s², LDS paper §2.3.2).

    One row per (draw, solver): ``gap`` its own objective above the global minimum (relative:
    0 at the minimum), ``labeling_gap`` the bottom of its basin (its labeling of the unlabeled
    points) above it and ``found_basin`` whether that is 0 within 1e-6 (cS3VM, ∇TSVM and
    QN-S3VM minimize a smooth surrogate, so their own ``gap`` stays above 0 even in the right
    basin), ``error`` its unlabeled error, ``global_error``
    the exact solution's and ``svm_error`` the supervised SVM's on the same draw, ``proven``
    whether the search ended before its time (else the minimum is the best found, within
    ``certified_gap`` of the bound). ``progress(done, total)`` after each draw.
    """
    data = source.build()
    X, y_true = data.X, data.y_true
    rows = []
    for draw in range(draws):
        labels = pick_labeled(y_true, 1, random_state=source.seed + draw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a local minimum's own warnings are the lesson
            compared = compare_with_global_minimum(X, labels, C=C, sigma=sigma,
                                                   max_time=max_time)
        exact = compared.exact
        errors = {name: unlabeled_error(solver.decision_function(X), labels, y_true)
                  for name, solver in compared.solvers.items()}
        global_error = unlabeled_error(exact.decision_function(X), labels, y_true)
        for name in compared.solvers:
            rows.append({"draw": draw, "solver": ESTIMATORS[name].__name__,
                         "gap": compared.gap(name),
                         "labeling_gap": compared.labeling_gap(name),
                         "found_basin": compared.found_basin(name),
                         "error": errors[name], "global_error": global_error,
                         "svm_error": errors["svm"], "proven": bool(exact.proven_),
                         "certified_gap": float(exact.gap_),
                         "seconds": compared.seconds[name]})
        if progress is not None:
            progress(draw + 1, draws)
    return rows


def unlabeled_hurt(n_points: int, draws: int, n_per_class: int, seed: int,
                   progress=None, n_jobs: int = 1) -> dict[str, list[dict]]:
    """Every solver of ``engine.hurt.SOLVERS`` against its own supervised SVM on each data set
    of ``engine.hurt.CASES`` (``n_points`` points drawn with ``seed``), over the same ``draws``
    label draws of ``n_per_class`` points per class: draw ``d`` labels
    ``pick_labeled(y, n_per_class, random_state=seed + d)``, as ``label_draws``.

    Each solver runs at its generic defaults as the Watch page runs it
    (``registry.with_form_defaults``: S4VM with its form's seed and balance centre), the same
    rules on every data set; each row holds its own fair SVM's error on the same draw
    (``engine.comparison.run_draws``). Returns the rows by data set name; ``progress(done,
    total)`` after each fit, the fits ``n_jobs`` at a time (one by default: the page's
    defaults take 8.3 s of one core, and two processes cost 6 s of CPU more to start;
    ``engine.hurt.SETTINGS``).
    """
    estimators = {solver: make_estimator(solver, with_form_defaults(solver, {}))
                  for solver in hurt.SOLVERS}
    seeds = [seed + draw for draw in range(draws)]
    each = draws * len(estimators)
    results, done = {}, 0
    for name, case in hurt.CASES.items():
        X, y_true = case.data(n_points, seed)
        report = None if progress is None else (
            lambda finished, _, before=done: progress(before + finished, each * len(hurt.CASES)))
        results[name] = run_draws(X, y_true, estimators, seeds, n_per_class=n_per_class,
                                  n_jobs=n_jobs, progress=report)
        done += each
    return results
