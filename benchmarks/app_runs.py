"""A Watch page run of every solver at the app's largest size, without the browser.

    python -m benchmarks.app_runs [--n 2000] [--repeats 3] [--budget 120] [--preset paper]

For each solver of the app (``engine.registry.SOLVERS``; the exact search only when named) with
the parameters a fresh form opens on (``--preset paper``: the preset as in the paper where the
data set has one, as the Watch page opens; ``--preset default``: the generic defaults;
``--preset sigma``: the generic defaults with the RBF width changed as a teacher would, to half
the median pairwise distance, the default width; the graph kernel, whose form offers the median
or ∞, gets ∞, and a solver without σ (LDS) is left out), on the app's default data (two moons,
noise 0.1, seed 0, one label per class, as ``ui.state.labels`` picks them), it times what the
Watch page's child process does between Run and the film: ``engine.run.process.trace_work`` —
data, the solver's whole trace, the display grid's features, the previews, the frames' decisions
and the film — in a process of its own (one BLAS thread, as the app's children compete for two
cores), ended at ``--budget`` seconds. The browser's share (drawing the film, 0.05–0.2 s at n =
300 in ``benchmarks.app_speed``) is not included.

Reported per solver: the median seconds over ``--repeats`` (interleaved: every solver once,
then again), the median CPU seconds of the child (all its threads: on a machine shared with
other work the wall-clock time grows with the load, the CPU time much less), the number of
states, the form that ran (``engine.registry.run_form``: the exact
method, or its scalable form and why) and the unlabeled error of the final state.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import time

#: The app's default data, its size set by ``--n``.
MOONS = ("two_moons", 2000, 0.1, 0)
#: The exact search, left out unless named: exponential in the points, it runs its whole time
#: limit above about 60 (``engine.registry.EXACT_PROVEN_UP_TO``; ``--n 60 --solvers
#: BranchAndBoundS3VM`` times it where it proves the minimum).
EXACT = "BranchAndBoundS3VM"
#: The changed-σ case of ``--preset``.
SIGMA = "sigma"


def has_sigma(solver: str) -> bool:
    from s3vm_explorer.engine.registry import SOLVERS

    return any(p.name == "sigma" for p in SOLVERS[solver].params)


def changed_sigma(solver: str, X) -> float:
    """Half the median pairwise distance (``kernels.default_sigma``, the default width); ∞
    where the form offers only the median and ∞ (the graph kernel)."""
    from s3vm_core.kernels import default_sigma
    from s3vm_explorer.engine.registry import SOLVERS

    spec = next(p for p in SOLVERS[solver].params if p.name == "sigma")
    return math.inf if spec.options else 0.5 * default_sigma(X)


class _Channel:
    """Stands for the app's end of the run's channel: keeps what the run sends, never asks it
    to finish."""

    def __init__(self):
        self.messages = []

    def send(self, message):
        self.messages.append(message)

    def finish_requested(self):
        return False


def _one_run(data, solver, preset, queue):
    from threadpoolctl import threadpool_limits

    from s3vm_core.metrics import unlabeled_error
    from s3vm_explorer.engine.data import Generated
    from s3vm_explorer.engine.presets import preset_params
    from s3vm_explorer.engine.protocol import RunRequest, StateReached
    from s3vm_explorer.engine.registry import SOLVERS, run_form
    from s3vm_explorer.engine.run.process import trace_work
    from toy_data import pick_labeled

    source = Generated(*data)
    built = source.build()
    labels = pick_labeled(built.y_true, 1, random_state=source.seed)
    params = {p.name: p.default for p in SOLVERS[solver].params}
    if preset == SIGMA:
        params["sigma"] = changed_sigma(solver, built.X)
    else:
        params.update(preset_params(source.dataset, solver, preset))
    run_params, note = run_form(solver, len(labels), params)
    channel = _Channel()
    request = RunRequest(source, tuple(labels.tolist()), solver,
                         tuple(sorted(run_params.items())))
    with threadpool_limits(1):
        start, cpu = time.perf_counter(), time.process_time()
        trace_work(channel, request)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    states = [m.state for m in channel.messages if isinstance(m, StateReached)]
    error = unlabeled_error(states[-1].train_decision, labels, built.y_true)
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
    from s3vm_explorer.engine.registry import SOLVERS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=MOONS[1])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--preset", choices=("paper", "default", SIGMA), default="paper")
    parser.add_argument("--solvers", nargs="+", choices=list(SOLVERS),
                        default=[name for name in SOLVERS if name != EXACT])
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
