"""Every computation of a page is bounded: a run that reaches its time budget shows what it has
and says so, and "Run again" starts it over; the labels survive."""

import pytest
from page_helpers import film, shown, type_number

from s3vm_explorer.engine.run import lifecycle
from s3vm_explorer.ui import runs, state

WATCH = "pages/watch.py"
TEACHING = ["pages/continuation.py", "pages/annealing.py", "pages/early_stopping.py"]


@pytest.fixture(autouse=True)
def fresh_runs():
    runs._shelf.clear()
    yield
    runs._shelf.clear()


#: A Watch budget that the run's first states fit in even when the machine is busy (its process
#: starts, builds a 2,000-point kernel and takes its first step), far from DA's answer.
BUDGET = 15


def test_a_watch_run_that_reaches_its_budget_plays_the_path_so_far(app):
    at = app.run()
    at.session_state[state.N_SAMPLES] = 2000
    at.session_state[state.SOLVER] = "DeterministicAnnealingS3VM"
    # with the squared hinge DA needs minutes here (the hinge's active set only seconds)
    at.session_state[state.solver_param_key("DeterministicAnnealingS3VM", "loss")] = (
        "squared_hinge")
    labels = list(at.run().session_state[state.LABELS])
    at.session_state[state.RUN_BUDGET] = BUDGET
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (notice,) = at.warning
    assert f"It reached its time budget of {BUDGET} s" in notice.value
    assert "the path so far" in notice.value
    shown = film(at)
    assert len(shown["states"]) >= 1 and shown["frame"] == len(shown["states"]) - 1
    assert [b.label for b in at.button if b.label == "Run again"] == ["Run again"]
    assert at.session_state[state.LABELS] == labels


@pytest.mark.parametrize("page", TEACHING)
def test_a_teaching_page_out_of_time_says_so_and_runs_again(app, monkeypatch, page):
    monkeypatch.setattr(runs, "LESSON_BUDGET", 0.05)
    at = app.run()
    at.session_state[state.N_SAMPLES] = 100
    labels = list(at.run().session_state[state.LABELS])
    at.switch_page(page).run()
    assert not at.exception
    assert "reached its time budget of 0.05 s" in shown(at.error[0].value)
    (again,) = [b for b in at.button if b.label == "Run again"]
    monkeypatch.setattr(runs, "LESSON_BUDGET", 120.0)
    again.click().run()
    assert not at.exception and not at.error
    assert at.get("plotly_chart")
    assert at.session_state[state.LABELS] == labels


def test_teaching_computations_run_in_a_solver_process(app, monkeypatch):
    started = []
    original = lifecycle.Job.__init__

    def record(self, work, args, budget, *rest, **options):
        started.append(work.__name__)
        original(self, work, args, budget, *rest, **options)

    monkeypatch.setattr(lifecycle.Job, "__init__", record)
    at = app.run()
    at.session_state[state.N_SAMPLES] = 100
    at.switch_page("pages/annealing.py").run()
    assert not at.exception and not at.error
    # the annealing run, the fixed temperatures, the ten label draws of the DA paper's Table 2
    assert started == ["call_work"] * 3


def test_the_compare_page_runs_its_sweep_on_a_dask_cluster(app, monkeypatch):
    distributed = pytest.importorskip("distributed")
    # tcp, not the in-process transport: the sweep connects from a solver process
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        monkeypatch.setenv("S3VM_SCHEDULER", cluster.scheduler_address)
        at = app.run()
        at.session_state[state.N_SAMPLES] = 100
        at.switch_page("pages/compare.py").run()
        assert cluster.scheduler_address in shown(at.sidebar.caption[-1].value)
        at.multiselect(key=state.COMPARE_SOLVERS).set_value(["LapSVM"])
        type_number(at, state.COMPARE_DRAWS, 2)
        at.button[0].click().run()
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        on_cluster = at.session_state[state.COMPARE_RESULTS]["rows"]
        assert len(on_cluster) == 2 * 2
        # the tasks ran on the cluster's worker, not in the page's process
        (worker,) = cluster.workers.values()
        assert worker.state.executed_count >= len(on_cluster)
        at.sidebar.toggle(key=state.COMPARE_ON_CLUSTER).set_value(False).run()
        at.button[0].click().run()
        here = at.session_state[state.COMPARE_RESULTS]["rows"]
    errors = [(r["solver"], r["draw"], r["unlabeled_error"]) for r in on_cluster]
    assert errors == [(r["solver"], r["draw"], r["unlabeled_error"]) for r in here]
