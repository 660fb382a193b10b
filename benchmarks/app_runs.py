"""A Watch page run of every solver at the app's largest size, without the browser.

    python -m benchmarks.app_runs [--n 2000] [--repeats 3] [--budget 120] [--preset paper]

For each solver of the app (``ui.solvers.SOLVERS``) with the parameters a fresh form opens on
(``--preset paper``: the preset as in the paper where the data set has one, as the Watch page
opens; ``--preset default``: the generic defaults; ``--preset sigma``: the generic defaults
with the RBF width changed as a teacher would, to half the median pairwise distance, the
default width; the graph kernel, whose form offers the median or ∞, gets ∞, and a solver
without σ (LDS) is left out), on the app's default data (two moons,
noise 0.1, seed 0, one label per class, as ``ui.state.labels`` picks them), it times what
the Watch page's child process does between Run and the film:
``ui.work.trace_work`` — data, the solver's whole trace, the display grid's features, the
previews and the frames' decisions — in a process of its own (one BLAS thread, as the app's
children compete for two cores), ended at ``--budget`` seconds. The browser's share (drawing
the film, 0.05–0.2 s at n = 300 in ``benchmarks.app_speed``) is not included.

Reported per solver: the median seconds over ``--repeats`` (interleaved: every solver once,
then again), the median CPU seconds of the child (all its threads: on a machine shared with
other work the wall-clock time grows with the load, the CPU time much less), the number of
states, the form that ran (``ui.solvers.run_form``: the exact
method, or its scalable form and why) and the unlabeled error of the final state.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import time

MOONS = ("two_moons", 2000, 0.1, 0)
#: The changed-σ case of ``--preset``.
SIGMA = "sigma"


def has_sigma(solver: str) -> bool:
    from ui.solvers import SOLVERS

    return any(p.name == "sigma" for p in SOLVERS[solver].params)


def changed_sigma(solver: str, X) -> float:
    """Half the median pairwise distance (``kernels.default_sigma``, the default width); ∞
    where the form offers only the median and ∞ (the graph kernel)."""
    from s3vm_core.kernels import default_sigma
    from ui.solvers import SOLVERS

    spec = next(p for p in SOLVERS[solver].params if p.name == "sigma")
    return math.inf if spec.options else 0.5 * default_sigma(X)


class _Pipe:
    """Stands for the parent's end of the pipe: keeps what the child sends, never asks it to
    finish."""

    def __init__(self):
        self.messages = []

    def send(self, message):
        self.messages.append(message)

    def poll(self, timeout=0.0):
        return False


def _one_run(data, solver, preset, queue):
    from threadpoolctl import threadpool_limits

    from toy_data import pick_labeled
    from ui.comparison import unlabeled_error
    from ui.presets import preset_params
    from ui.solvers import SOLVERS, run_form
    from ui.work import build_dataset, trace_work

    _, y, _ = build_dataset(*data)
    labels = pick_labeled(y, 1, random_state=data[3])
    params = {p.name: p.default for p in SOLVERS[solver].params}
    if preset == SIGMA:
        params["sigma"] = changed_sigma(solver, build_dataset(*data)[0])
    else:
        params.update(preset_params(data[0], solver, preset))
    run_params, note = run_form(solver, len(y), params)
    pipe = _Pipe()
    with threadpool_limits(1):
        start, cpu = time.perf_counter(), time.process_time()
        trace_work(pipe, data, tuple(labels.tolist()), solver,
                   tuple(sorted(run_params.items())), 0.5)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    states = [m[1] for m in pipe.messages if m[0] == "state"]
    error = unlabeled_error(states[-1].train_decision, labels, y)
    queue.put((seconds, cpu, len(states), error, note or "exact"))


def measure(data, solver, preset: str, budget: float):
    """``(seconds, CPU seconds, states, unlabeled error, form)`` of one run; seconds is inf past
    the budget."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_one_run, args=(data, solver, preset, queue))
    process.start()
    process.join(budget)
    if process.is_alive():
        process.kill()
        process.join()
        return float("inf"), float("inf"), 0, float("nan"), "out of time"
    return queue.get(timeout=5)


def main(argv=None):
    from ui.solvers import SOLVERS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=MOONS[1])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--preset", choices=("paper", "default", SIGMA), default="paper")
    parser.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=list(SOLVERS))
    args = parser.parse_args(argv)
    if args.preset == SIGMA:
        args.solvers = [solver for solver in args.solvers if has_sigma(solver)]
    data = (MOONS[0], args.n, MOONS[2], MOONS[3])
    results = {solver: [] for solver in args.solvers}
    for _ in range(args.repeats):
        for solver in args.solvers:
            if results[solver] and results[solver][-1][0] == float("inf"):
                continue  # out of its budget once: not again
            results[solver].append(measure(data, solver, args.preset, args.budget))
    print(f"\n| solver (n = {args.n}) | Run -> frames, median s | CPU, median s | states "
          "| unlabeled error, % | form that ran |\n|---|---|---|---|---|---|")
    for solver, rows in results.items():
        seconds = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        _, _, states, error, form = rows[-1]
        shown = (f"> {args.budget:g} | –" if seconds == float("inf")
                 else f"{seconds:.2f} | {cpu:.2f}")
        print(f"| {solver} | {shown} | {states} | {100 * error:.1f} | {form} |")
    return results


if __name__ == "__main__":
    main()
