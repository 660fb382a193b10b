"""Issue 42, item 9: a guided lesson on the Watch page's film — a question before each answer,
the answer computed from the run on screen, the film at the step's frame."""

from page_helpers import film, new_session, shown

from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.guides import watch_guide
from s3vm_explorer.engine.protocol import RunRequest
from s3vm_explorer.engine.registry import SOLVERS, run_form
from s3vm_explorer.ui import state
from s3vm_explorer.ui.runs import dataset, run_solver

WATCH = "pages/watch.py"
SOLVER = "ContinuationS3VM"


def button(at, label):
    return next(b for b in at.button if b.label == label)


def texts(at) -> list[str]:
    return [shown(m.value) for m in at.markdown]


def the_guide_of_the_run_on_screen(at):
    """The run the page shows, from the app's shared cache (the same request), and its
    guide, made here independently of the page."""
    source = Generated(at.session_state[state.DATASET], int(at.session_state[state.N_SAMPLES]),
                       float(at.session_state[state.NOISE]), int(at.session_state[state.SEED]))
    labels = at.session_state[state.LABELS]
    params = {p.name: p.from_widget(at.session_state[state.solver_param_key(SOLVER, p.name)])
              for p in SOLVERS[SOLVER].params}
    solved, _ = run_form(SOLVER, len(labels), params)
    run = run_solver(RunRequest(source, tuple(labels), SOLVER, tuple(sorted(solved.items()))))
    return run, watch_guide(run, labels, dataset(source).y_true, SOLVERS[SOLVER].stage_label,
                            SOLVERS[SOLVER].title)


def test_the_watch_lesson_asks_then_answers_and_moves_the_film_to_each_step():
    at = new_session()
    at.run()
    at.session_state[state.SOLVER] = SOLVER
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error
    button(at, "Lesson").click().run()
    run, guide = the_guide_of_the_run_on_screen(at)
    first = guide.steps[0]
    asked = next(t for t in texts(at) if t.startswith("**Lesson · step 1 of "))
    assert first.question in asked
    assert not any(first.answer in t for t in texts(at))  # asked before it is told
    assert film(at)["frame"] == run.frame_of(first.frame)
    button(at, "Show the answer").click().run()
    assert any(first.answer in shown(s.value) for s in at.success)
    button(at, "Next step").click().run()
    second = guide.steps[1]
    assert any(t.startswith("**Lesson · step 2 of ") and second.question in t
               for t in texts(at))
    assert at.session_state[state.FRAME] == second.frame
    assert film(at)["frame"] == run.frame_of(second.frame)
    button(at, "Back").click().run()
    assert any(t.startswith("**Lesson · step 1 of ") for t in texts(at))


def test_each_teaching_page_opens_its_lesson_and_reveals_its_first_answer():
    """Continuation, Annealing and Local minima: the Lesson button opens step 1, its question
    first, then its answer (each computed: tests/s3vm_explorer/engine/test_guides.py)."""
    at = new_session()
    at.run()
    for page in ("pages/continuation.py", "pages/annealing.py", "pages/early_stopping.py",
                 "pages/local_minima.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error, page
        button(at, "Lesson").click().run()
        assert any(t.startswith("**Lesson · step 1 of ") for t in texts(at)), page
        before = len(at.success)
        button(at, "Show the answer").click().run()
        assert len(at.success) == before + 1, page
        button(at, "Close").click().run()


def test_a_share_link_opens_the_lesson_at_its_step_with_the_film_at_its_frame():
    import json
    from urllib.parse import unquote

    at = new_session()
    at.run()
    at.session_state[state.SOLVER] = SOLVER
    at.switch_page(WATCH).run()
    button(at, "Lesson").click().run()
    button(at, "Show the answer").click().run()
    button(at, "Next step").click().run()  # step 2
    (link,) = at.sidebar.code
    text = unquote(link.value.split("?scenario=", 1)[1])
    assert json.loads(text)["lesson"] == {"page": "watch", "step": 2}
    run, guide = the_guide_of_the_run_on_screen(at)

    other = new_session()
    other.query_params["scenario"] = text
    other.switch_page(WATCH).run()
    assert not other.exception and not other.error
    assert any(t.startswith("**Lesson · step 2 of ") and guide.steps[1].question in t
               for t in texts(other))
    assert other.session_state[state.FRAME] == guide.steps[1].frame
    assert film(other)["frame"] == run.frame_of(guide.steps[1].frame)
