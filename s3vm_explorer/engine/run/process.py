"""A run on its own side, in a child process or on a Dask worker: the work a job starts
(``run_work`` wraps it), the Watch page's trace (``trace_work``: the solver's states as they
come, a preview of the latest boundary now and then, and at the end the frames, the supervised
SVM beside them and the film), and any other computation of a page (``call_work``).

The trace runs in a thread of its own so that a request to finish is heard even inside a long
C call; the states go to the app as they come (``StateReached``). The film is built here, where
the display grid's features are, because the server's interpreter must stay free to answer
every visitor: building the film's figure there held it for a tenth of a second per run, which
forty sessions finishing together turned into seconds without an answer.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import warnings
from collections.abc import Callable

import numpy as np

from s3vm_core import decision_on_grid, fair_svm, fair_svm_sentence
from s3vm_explorer.engine.data import Data
from s3vm_explorer.engine.figures.film import running_figure
from s3vm_explorer.engine.film import film_args, film_context
from s3vm_explorer.engine.protocol import (
    Baseline,
    Ended,
    Failed,
    Preview,
    Progress,
    Result,
    Run,
    RunFinished,
    RunRequest,
    StateReached,
)
from s3vm_explorer.engine.registry import make_estimator
from toy_data import UNLABELED, class_count

#: Most frames sent to the browser for client-side playback; together with the display grid's
#: size this keeps a film's payload small (about 0.25 MB).
MAX_FRAMES = 60
#: Seconds between two previews of a running solver on the Watch page...
PREVIEW_EVERY = 0.5
#: ... above this many points less often, in proportion to n (2 s at n = 2000): at n = 2000,
#: previews every 0.5 s kept a busy browser (software rendering, loaded cores) from loading a
#: new page.
PREVIEW_POINTS = 500
#: Warnings of these kinds speak to the project's developers, not to the page's reader.
DEVELOPERS_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


def pick_frames(states, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """Evenly spread frames over the trace, always keeping stage ends and the final state."""
    n = len(states)
    if n <= max_frames:
        return np.arange(n)
    milestones = [i for i, s in enumerate(states) if s.event in ("init", "stage_end", "final")]
    if len(milestones) >= max_frames:
        keep = np.linspace(0, len(milestones) - 1, max_frames).round().astype(int)
        return np.unique(np.asarray(milestones)[keep])
    spread = np.linspace(0, n - 1, max_frames - len(milestones)).round().astype(int)
    return np.unique(np.r_[milestones, spread])


def grid_decisions(grid, states) -> np.ndarray:
    """The decision of each state on the display grid (``Data.grid_features``), ``(n_states,
    ny, nx)`` float32; for one-vs-rest states the k problems' decisions, ``(n_states, k, ny,
    nx)``."""
    grid_x, grid_y, features = grid
    values = decision_on_grid(features, states).astype(np.float32)
    if values.ndim == 3:  # (n_states, n_grid, k)
        return np.ascontiguousarray(values.transpose(0, 2, 1)).reshape(
            len(values), values.shape[2], len(grid_y), len(grid_x))
    return values.reshape(len(values), len(grid_y), len(grid_x))


def sentences(caught) -> tuple[str, ...]:
    """The warnings a run raised, as the page says them: each message once, in order; the
    warnings meant for developers left out."""
    said = (str(w.message).strip() for w in caught
            if not issubclass(w.category, DEVELOPERS_WARNINGS))
    return tuple(dict.fromkeys(text for text in said if text))


def trace_run(data: Data, request: RunRequest, channel, preview=None,
              preview_every: float = np.inf) -> tuple[list, RunFinished] | None:
    """Trace ``request.solver`` on ``data`` (built from ``request.source``) with
    ``request.labels``, sending every state to ``channel`` as it comes; until the request to
    finish (``channel.finish_requested()``) or the trace's end.

    Every ``preview_every`` seconds ``preview(index, state, decision)`` gets the latest state
    and its decision on the display grid. Returns the states recorded and the run's end
    (``RunFinished``, without its film), or None when asked to finish before the first state.
    Bad input raises the solver's ``ValueError`` before any state.
    """
    labels = np.asarray(request.labels)
    n_classes = class_count(data.y_true)
    estimator = make_estimator(request.solver, dict(request.params), n_classes)
    states, failure, solved = [], [], threading.Event()
    # (the warnings filter is the process's: a run's process runs one run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        trace = estimator.trace(data.X, labels)  # bad input raises its ValueError here
        grid = data.grid_features(estimator)

        def solve():
            try:
                for state in trace:
                    states.append(state)
            except BaseException as error:  # noqa: BLE001 - raised in the run's thread below
                failure.append(error)
            finally:
                solved.set()

        threading.Thread(target=solve, daemon=True).start()
        sent, previewed, previewed_at = 0, 0, time.perf_counter()
        while not (solved.is_set() and sent == len(states)):
            if channel.finish_requested():
                break
            if sent == len(states):
                solved.wait(0.02)
            for state in states[sent:]:
                channel.send(StateReached(state))
                sent += 1
            if (preview is not None and sent > previewed
                    and time.perf_counter() - previewed_at >= preview_every):
                latest = states[sent - 1]
                preview(sent - 1, latest, grid_decisions(grid, [latest])[0])
                previewed, previewed_at = sent, time.perf_counter()
        seconds = time.perf_counter() - start
        if failure and solved.is_set():
            raise failure[0]
        recorded = states[:sent]
        if not recorded:
            return None  # asked to finish before the first state: nothing to hand over
    frames = pick_frames(recorded)
    shown = [recorded[i] for i in frames]
    baseline = supervised_baseline(data, labels, estimator)  # (its warnings are not the run's)
    return recorded, RunFinished(
        frames=frames, grid_x=grid[0], grid_y=grid[1], grid_decisions=grid_decisions(grid, shown),
        point_decisions=np.stack([s.train_decision for s in shown]).astype(np.float32),
        seconds=seconds, warnings=sentences(caught), baseline=baseline)


def supervised_baseline(data: Data, labels, estimator) -> Baseline:
    """The supervised SVM that is fair beside ``estimator`` (``s3vm_core.fair_svm``: its
    kernel, width and C, one-vs-rest where it is) on the labeled points: its final f on the
    display grid and on the points, and which SVM it is in a line."""
    model = fair_svm(estimator, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference beside the film, not the run: no word
        last = list(model.trace(data.X, labels))[-1]
    said = fair_svm_sentence(model, estimator, int(np.sum(np.asarray(labels) != UNLABELED)))
    return Baseline(grid_decisions(data.grid_features(model), [last])[0], last.train_decision,
                    said)


def trace_work(channel, request: RunRequest) -> None:
    """The Watch page's run (``engine.run.lifecycle.TraceJob``): the trace (``trace_run``), a
    preview figure of the latest boundary now and then, and at the end the run's frames with
    its film (``RunFinished.films``, without and with the supervised SVM's boundary)."""
    data = request.source.build()
    labels = np.asarray(request.labels)

    def preview(index, state, decision):
        figure = running_figure(state, index + 1, data.grid(), decision, data.X2, labels)
        channel.send(Preview(index, figure.to_json()))

    every = PREVIEW_EVERY * max(1.0, len(labels) / PREVIEW_POINTS)
    traced = trace_run(data, request, channel, preview, every)
    if traced is None:
        return
    states, finished = traced
    run = Run.assemble(states, finished)
    context = film_context(request, labels)
    films = {shows: film_args(run, data.X2, labels, data.y_true, shows,
                              axis_titles=data.view.titles, context=context)
             for shows in (False, True)}
    channel.send(dataclasses.replace(finished, films=films))


def run_work(channel, work: Callable, args: tuple) -> None:
    """``work(channel, *args)``, then ``Ended``; a failure becomes ``Failed`` with a sentence:
    the library's own for a ``ValueError`` or ``TypeError``, a short one otherwise."""
    try:
        work(channel, *args)
        channel.send(Ended())
    except (ValueError, TypeError) as error:
        channel.send(Failed(str(error)))
    except MemoryError:
        channel.send(Failed("The computation needs more memory than this server can give it; "
                            "try fewer points."))
    except Exception as error:  # noqa: BLE001 - any failure becomes a sentence on the page
        channel.send(Failed(f"The solver failed unexpectedly ({type(error).__name__}: "
                            f"{error})."))


def call_work(channel, function: Callable, args: tuple, with_progress: bool) -> None:
    """``function(*args)``, its value sent as ``Result``; with ``with_progress``, ``function``
    also gets ``progress=(done, total) -> None``, sent as ``Progress``."""
    if with_progress:
        value = function(*args, progress=lambda done, total: channel.send(
            Progress(done, total)))
    else:
        value = function(*args)
    channel.send(Result(value))
