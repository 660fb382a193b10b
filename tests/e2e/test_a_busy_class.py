"""What a class does to one server that a quiet visitor does not (issue 26): Streamlit's own
Stop in the middle of a run, and fast clicking while runs finish."""

import re

import pytest
from browser_helpers import choose_solver, film_player, screenshot
from test_bounded_runs import long_run_link, running, solver_processes, wait_for

pytestmark = pytest.mark.e2e


def test_streamlits_own_stop_ends_the_run_and_the_next_rerun_plays_the_path_so_far(server,
                                                                                   page):
    page.goto(long_run_link(server, seed=11))
    running(page)
    wait_for(lambda: solver_processes(server), 30, "no solver process started")
    # the toolbar's Stop, top right (not the page's own): it stops the script, not the run
    toolbar = page.locator('[data-testid="stStatusWidget"]')
    toolbar.get_by_role("button", name="Stop").click(timeout=60_000)
    # the run ends as with the page's Stop: its process is gone (it went on before)
    wait_for(lambda: not solver_processes(server), 15, "the run goes on after Stop")
    screenshot(page, "busy-streamlit-stop")
    # the next rerun (any widget) shows the film of the path so far
    page.get_by_text("supervised SVM", exact=True).click()
    page.get_by_text("It was stopped").wait_for(timeout=60_000)
    film_player(page)
    assert page.get_by_role("button", name="Run again").count() == 1


def test_fast_switches_and_regenerate_clicks_while_runs_finish_leave_a_working_page(server,
                                                                                    page):
    # n = 1,500: each solver takes a moment, so switches land while runs finish
    page.goto(f"{server}/watch")
    film_player(page)
    n_box = page.get_by_role("textbox", name="n (points)")
    n_box.fill("1500")
    n_box.press("Enter")
    page.wait_for_timeout(1000)
    for name in ("QNS3VM", "LapSVM", "ContinuationS3VM", "SVMBaseline",
                 "DeterministicAnnealingS3VM"):
        choose_solver(page, name)
        page.wait_for_timeout(600)
    seed = shown_seed(page)
    regenerate = regenerate_button(page)
    for _ in range(10):
        regenerate.click()
        page.wait_for_timeout(150)
    try:
        player = film_player(page, timeout=120)
        wait_for(lambda: not page.locator('[data-testid="stStatusWidget"]')
                 .get_by_text(re.compile("Running|Stop")).count(), 120, "the page never settled")
    finally:
        screenshot(page, "busy-fast-clicks")
    # no traceback ("dictionary changed size during iteration" came from two script threads
    # of one session writing its state at once)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert player.evaluate("() => window.film.frame") >= 0
    # the clicks moved the seed on (while runs finish, a rerun can still carry the seed box's
    # text from before the last click's new seed reached the browser: at most a click or two
    # is lost then; at rest every click counts, below)
    assert seed < shown_seed(page) <= seed + 10


def test_ten_quick_regenerate_clicks_are_ten_new_seeds(server, page):
    # Streamlit's button merged the clicks that came while the page ran: 10 moved the seed 8-10
    page.goto(server)
    page.get_by_role("heading", name="Data & labels").wait_for(timeout=60_000)
    seed = shown_seed(page)
    regenerate = regenerate_button(page)
    for _ in range(10):
        regenerate.click()
        page.wait_for_timeout(150)
    wait_for(lambda: shown_seed(page) == seed + 10, 30, "ten clicks did not make ten new seeds")


def seed_box(page):
    return page.locator('[data-testid="stSidebar"]').get_by_role("textbox", name="seed")


def shown_seed(page) -> int:
    """The seed in the sidebar's box, once the box is drawn (a rerun redraws it empty first)."""
    texts = []
    wait_for(lambda: texts.append(seed_box(page).input_value()) or texts[-1].isdigit(), 30,
             "the seed box stays empty")
    return int(texts[-1])


def regenerate_button(page):
    """Regenerate counts its clicks in its own frame (ui.counter)."""
    counter = 'iframe[title="s3vm_explorer.ui.counter.counting_button"]'
    return page.frame_locator(counter).get_by_role("button", name="Regenerate")
