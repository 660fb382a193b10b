"""The Watch page and the app's sessions, as a person uses them in Chromium."""

import json
import time
from urllib.parse import quote

import numpy as np
import pytest
from browser_helpers import (
    film_player,
    metric,
    open_watch,
    page_position,
    painted_agreement,
    screenshot,
    wait_for_metric,
)

from toy_data import pick_labeled, two_moons

pytestmark = pytest.mark.e2e


def open_app(page, url):
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)


def test_box_selection_labels_every_point_inside(server, page):
    open_app(page, server)
    X, y = two_moons(200, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    # A box around the left tip of the upper moon.
    low, high = np.array([-1.3, -0.1]), np.array([-0.6, 0.7])

    def labeled_after_box(pad):
        inside = np.all((X >= low - pad) & (X <= high + pad), axis=1)
        return int(np.sum(inside | (labels == 1)))

    # Pixel rounding may catch a point on the box's edge: allow those within 0.05.
    fewest, most = labeled_after_box(-0.05), labeled_after_box(0.05)
    page.locator('.modebar-btn[data-val="select"]').first.click()
    corners = [*page_position(page, low[0], high[1]), *page_position(page, high[0], low[1])]
    page.mouse.move(corners[0], corners[1])
    page.mouse.down()
    page.mouse.move((corners[0] + corners[2]) / 2, (corners[1] + corners[3]) / 2, steps=5)
    page.mouse.move(corners[2], corners[3], steps=5)
    page.mouse.up()
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stMetric"]')].some(m =>
            m.innerText.includes('class 1 labeled') && m.querySelector(
                '[data-testid="stMetricValue"]').innerText.trim() !== '1')""", timeout=20_000)
    assert fewest <= int(metric(page, "class 1 labeled")) <= most
    assert fewest > 15  # the box holds many points: this was a box, not a click
    screenshot(page, "box-selection")


#: cS3VM on the two moons with one label per class: the film of the tests below (one run,
#: cached by the server after the first).
FILM = {"dataset": "two_moons", "n": 200, "noise": 0.1, "seed": 0, "labels": {"33": 0, "56": 1},
        "solver": "ContinuationS3VM", "params": {"sigma": 0.3}}


def test_the_film_plays_pauses_and_shows_the_paused_state(server, page):
    player = open_watch(page, server, FILM)
    n_frames = player.evaluate("() => args.states.length")
    assert player.evaluate("() => film.frame") == n_frames - 1  # a new run shows its end
    assert player.locator("#title").text_content().startswith("γ = ")
    # what is painted is the decision function: blue where f > 0, with its level lines
    painted = painted_agreement(player)
    assert painted["agree"] > 0.98 and painted["checked"] > 1000, painted
    assert painted["dark"] > 100

    player.get_by_text("▶ Play", exact=True).click()  # from the start, since at the end
    player.wait_for_function("() => !film.playing", timeout=30_000)
    assert player.evaluate("() => film.drawn.length") == n_frames  # every frame was shown
    screenshot(page, "player-after-play")

    player.get_by_text("▶ Play", exact=True).click()
    time.sleep(0.5)
    player.get_by_text("❚❚ Pause", exact=True).click()
    paused = player.evaluate("() => [film.frame, args.states[film.frame]]")
    assert 0 < paused[0] < n_frames - 1
    # the page shows the paused state's details: its slider moves there
    details = page.get_by_role("slider", name="state details").element_handle()

    def wait_for_details_of(state_index):
        page.wait_for_function("([el, v]) => el.getAttribute('aria-valuetext') === `state ${v}`",
                               arg=[details, state_index], timeout=20_000)

    wait_for_details_of(paused[1])
    player.get_by_text("◀ Step", exact=True).click()
    assert player.evaluate("() => film.frame") == paused[0] - 1
    wait_for_details_of(player.evaluate("() => args.states[film.frame]"))
    page.wait_for_selector('[data-test-script-state="notRunning"]')
    screenshot(page, "player-paused")
    # and the other way round: the details slider moves the film
    details.focus()
    page.keyboard.press("Home")
    player.wait_for_function("() => film.frame === 0", timeout=20_000)
    assert player.locator("#where").text_content().startswith("state 0 ")
    # a state reported before, reported again after the slider moved: the details follow
    for _ in range(2):
        player.get_by_text("Step ▶", exact=True).click()
        wait_for_details_of(player.evaluate("() => args.states[1]"))
        details.focus()
        page.keyboard.press("Home")
        player.wait_for_function("() => film.frame === 0", timeout=20_000)


def test_a_slow_solver_shows_its_boundary_while_it_runs(server, page):
    """Deterministic annealing with the squared hinge (a Newton solve per step) takes a minute
    on 1500 points: its latest boundary is drawn while it runs (the film's place says
    "running…"), and when its time budget of 10 s is reached the player shows the path so far."""
    X, y = two_moons(1500, noise=0.1, random_state=4)
    labels = {str(int(np.flatnonzero(y == cls)[0])): cls for cls in (0, 1)}
    scenario = {"dataset": "two_moons", "n": 1500, "noise": 0.1, "seed": 4, "labels": labels,
                "solver": "DeterministicAnnealingS3VM", "params": {"loss": "squared_hinge"},
                "budget": 10}
    page.goto(f"{server}/watch?scenario={quote(json.dumps(scenario))}")
    # the running boundary is on screen only for a while: look for it and its lines at once
    page.wait_for_function(
        """() => [...document.querySelectorAll('.js-plotly-plot')].some(gd =>
            [...gd.querySelectorAll('.annotation-text')]
                .some(a => a.textContent.startsWith('running'))
            && gd.querySelectorAll('.contour').length >= 1)""", polling="raf",
        timeout=60_000)
    page.get_by_text("the film shows the path so far").wait_for(timeout=60_000)
    player = film_player(page)
    assert "T = " in player.locator("#title").text_content()


def test_one_class_labels_show_the_message_before_any_solver_runs(server, page):
    scenario = {"dataset": "two_moons", "n": 200, "noise": 0.1, "seed": 0, "labels": {"5": 1}}
    page.goto(f"{server}/watch?scenario={quote(json.dumps(scenario))}")
    page.wait_for_selector('[data-testid="stAlert"]', timeout=60_000)
    assert "Label at least one point of each class" in page.locator(
        '[data-testid="stAlert"]').first.inner_text()
    assert page.locator(".js-plotly-plot").count() == 0


def test_shared_link_reproduces_the_labels(server, page):
    scenario = {"dataset": "clock", "n": 150, "noise": 0.02, "seed": 3,
                "labels": {"0": 0, "1": 0, "2": 1}}
    open_app(page, f"{server}/?scenario={quote(json.dumps(scenario))}")
    assert metric(page, "class 0 labeled") == "2"
    assert metric(page, "class 1 labeled") == "1"
    assert metric(page, "unlabeled") == "147"
    assert page.get_by_label("seed").input_value() == "3"


def test_the_copied_link_opens_the_same_scenario_in_another_session(server, browser):
    first, second = browser.new_page(), browser.new_page()
    try:
        open_app(first, server)
        first.get_by_label("k labels per class").fill("3")
        first.get_by_role("button", name="Pick k random labels per class").click()
        wait_for_metric(first, "unlabeled", "194")
        first.get_by_role("link", name="Watch a solver").click()
        film = film_player(first).evaluate("() => args.figure")
        first.get_by_text("Share this scenario").click()
        link = first.locator('[data-testid="stSidebar"] [data-testid="stCode"]').inner_text()
        assert link.startswith(f"{server}/watch?scenario=")

        second.goto(link.strip())
        # the same solver on the same data and labels: the same film, point for point
        assert film_player(second).evaluate("() => args.figure") == film
        second.get_by_role("link", name="Data & labels").click()
        wait_for_metric(second, "unlabeled", "194")
        assert metric(second, "class 0 labeled") == metric(second, "class 1 labeled") == "3"
    finally:
        first.close()
        second.close()


def test_two_sessions_keep_their_own_labels(server, browser):
    first, second = browser.new_page(), browser.new_page()
    try:
        open_app(first, server)
        open_app(second, server)
        first.get_by_role("button", name="Clear all labels").click()
        wait_for_metric(first, "unlabeled", "200")
        second.get_by_label("k labels per class").fill("3")
        second.get_by_role("button", name="Pick k random labels per class").click()
        wait_for_metric(second, "unlabeled", "194")
        first.get_by_text("○ unlabel", exact=True).click()  # a rerun of the first session
        time.sleep(1.0)
        assert metric(first, "unlabeled") == "200"
        assert metric(second, "unlabeled") == "194"
    finally:
        first.close()
        second.close()
