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


def wait_for_details(page, state_index):
    """The page's details slider shows this state (the player reported it)."""
    page.wait_for_function(
        "v => document.querySelector('input[aria-label=\"state details\"]')"
        "?.getAttribute('aria-valuetext') === `state ${v}`", arg=state_index, timeout=20_000)


def test_the_film_plays_pauses_and_shows_the_paused_state(server, page):
    player = open_watch(page, server, FILM)
    n_frames = player.evaluate("() => args.states.length")
    assert player.evaluate("() => film.frame") == n_frames - 1  # a new run shows its end
    assert player.locator("#title").text_content().startswith("γ = ")
    # what is painted is the decision function: blue where f > 0, with its level lines
    painted = painted_agreement(player)
    assert painted["agree"] > 0.98 and painted["checked"] > 1000, painted
    assert painted["dark"] > 100

    player.select_option("#speed", "4")  # (at 1x the film lasts half a minute)
    player.get_by_text("▶ Play", exact=True).click()  # from the start, since at the end
    player.wait_for_function("() => !film.playing", timeout=30_000)
    assert player.evaluate("() => film.drawn.length") == n_frames  # every frame was shown
    screenshot(page, "player-after-play")

    player.get_by_text("▶ Play", exact=True).click()
    time.sleep(1.0)  # past the start, which stays 0.6 s at 4x
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


def test_play_holds_each_outer_step_and_passes_the_inner_iterations(server, page):
    """At 1x the whole cS3VM film played in about 3 s (50 ms a frame): now the start and
    the end of each γ stay on screen long enough to say what they show (2.5 s), the L-BFGS
    iterations between them pass at 120 ms, and 4x plays the same pace four times faster."""
    player = open_watch(page, server, FILM)
    paced = player.evaluate("() => args.frame_ms")
    titles = player.evaluate("() => args.titles")
    held = [k for k, ms in enumerate(paced[:-1]) if ms > 120]
    # the start and each γ's last frame (the next frame is of another γ)
    assert held == [0, *(k for k in range(1, len(titles) - 1)
                         if titles[k].split(" · ")[0] != titles[k + 1].split(" · ")[0])]
    assert 20 <= sum(paced[:-1]) / 1000 <= 45  # seconds at 1x: a pace to talk over

    def played_for(seconds: float) -> list[float]:
        player.get_by_text("▶ Play", exact=True).click()  # from the start: the film is at its end
        time.sleep(seconds)
        player.get_by_text("❚❚ Pause", exact=True).click()
        stamps = player.evaluate("() => film.drawn")
        return np.diff(stamps).tolist()  # how long each frame stayed, from the first on

    shown = played_for(6.5)
    assert len(shown) >= 3, shown
    for k, ms in enumerate(shown):
        # on the clock within a screen refresh or two (a busy machine's frames come late)
        assert paced[k] - 20 <= ms <= paced[k] + 70, (k, ms, paced[k])
    player.evaluate("() => show(args.states.length - 1)")
    player.select_option("#speed", "4")
    shown = played_for(3.0)
    for k, ms in enumerate(shown[:3]):
        assert paced[k] / 4 - 20 <= ms <= paced[k] / 4 + 70, (k, ms, paced[k])
    screenshot(page, "player-paced")


def test_the_keyboard_drives_the_film_once_it_has_the_focus(server, page):
    """Space plays and pauses, the arrows step, Home and End go to the ends, once the film is
    clicked; the controls' tooltips say so."""
    player = open_watch(page, server, FILM)
    last = player.evaluate("() => args.states.length - 1")
    tips = {name: player.locator(name).get_attribute("title")
            for name in ("#controls", "#play", "#pause", "#back", "#forward", "#scrub")}
    assert all(key in tips["#controls"] for key in ("space", "←", "→", "Home", "End")), tips
    assert "(space)" in tips["#play"] and "(space)" in tips["#pause"]
    assert "(←)" in tips["#back"] and "(→)" in tips["#forward"]
    assert "Home" in tips["#scrub"] and "End" in tips["#scrub"]

    def frame_after(key, expected):
        page.keyboard.press(key)
        player.wait_for_function(f"() => film.frame === {expected}", timeout=5_000)

    player.locator("#title").click()  # the film takes the focus
    frame_after("Home", 0)
    frame_after("ArrowRight", 1)
    frame_after("ArrowRight", 2)
    frame_after("ArrowLeft", 1)
    wait_for_details(page, player.evaluate("() => args.states[1]"))  # reported to the page
    frame_after("End", last)
    frame_after("Home", 0)
    # the page echoes each quick step back to the player a rerun later: the film stays put
    time.sleep(1.5)
    assert player.evaluate("() => film.frame") == 0
    page.keyboard.press(" ")
    player.wait_for_function("() => film.playing && film.frame > 2", timeout=10_000)
    page.keyboard.press(" ")
    paused = player.evaluate("() => [film.playing, film.frame]")
    assert paused[0] is False and 0 < paused[1] < last
    # a focused button takes the space once: Play, then space, pauses (no second click)
    player.get_by_text("▶ Play", exact=True).click()
    page.keyboard.press(" ")
    time.sleep(0.3)
    assert player.evaluate("() => film.playing") is False
    # the speed box keeps its own keys
    frame = player.evaluate("() => film.frame")
    player.locator("#speed").focus()
    page.keyboard.press("ArrowRight")
    assert player.evaluate("() => [film.playing, film.frame]") == [False, frame]


def saved(page, player, selector: str, path):
    """Click ``selector`` in the player and keep the file it downloads at ``path``."""
    with page.expect_download(timeout=120_000) as download:
        player.locator(selector).click()
    download.value.save_as(path)
    return path


def drawn_share(image, rgb, tolerance=12) -> float:
    """The share of an image's pixels within ``tolerance`` of the colour ``rgb``."""
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    return float(np.mean(np.all(np.abs(pixels - rgb) <= tolerance, axis=-1)))


def test_the_film_is_saved_as_a_png_a_gif_and_a_page_that_plays_offline(
        server, page, browser, tmp_path):
    """The camera and the Save row: the frame with its decision function and boundary (plotly's
    camera saved the points and the dashed SVM only), the film as an animated GIF of every
    frame, and one HTML file that plays the film with the network off."""
    from PIL import Image

    from s3vm_explorer.engine.figures.palette import DECISION_FILL

    player = open_watch(page, server, FILM)
    n_frames = player.evaluate("() => args.states.length")
    blue, vermillion = ([int(c) for c in DECISION_FILL[end][1][4:-1].split(",")]
                        for end in (-1, 0))

    # no toolbar over the film (it covered the charts' titles): the Save row saves the frame,
    # with what it is of (the solver, its paper, the data) and a file name that says it
    player.locator("#plot").hover()
    assert player.locator(".modebar").count() == 0
    player.get_by_text("⤓ Save", exact=True).click()
    with page.expect_download() as download:
        player.locator("#png").click()
    name = download.value.suggested_filename
    assert name.startswith("cs3vm-two-moons-n200-2-labeled-frame-") and name.endswith(".png")
    download.value.save_as(tmp_path / "camera.png")
    frame = Image.open(tmp_path / "camera.png")
    assert frame.size[0] == 1920
    # the decision function fills the boundary plot: both saturated fill colours are there
    assert drawn_share(frame, blue) > 0.02 and drawn_share(frame, vermillion) > 0.02
    assert drawn_share(frame, (64, 64, 64), tolerance=40) > 0.002  # the level lines

    # the Save row says each file's size before it is saved
    png_text = player.locator("#png").text_content()
    gif_text = player.locator("#gif").text_content()
    assert png_text.startswith("PNG of this frame · 1920 × ") and png_text.endswith(" px")
    width, height = (int(v) for v in gif_text.split(" · ")[1].split(" px")[0].split(" × "))
    assert f"{n_frames} frames" in gif_text and width == 960 and 0.4 <= height / width <= 0.62
    player.locator("#html:not([hidden])").wait_for(timeout=30_000)
    page_text = player.locator("#html").text_content()
    assert page_text.startswith("Save the film as a page that plays offline · ")
    assert page_text.endswith(" MB")
    assert Image.open(saved(page, player, "#png", tmp_path / "frame.png")).size == frame.size

    # the GIF: made in the browser, its size said, then saved
    player.locator("#gif").click()
    player.locator("#gif-save:not([hidden])").wait_for(timeout=120_000)
    gif_size = player.locator("#gif-save").text_content()
    assert gif_size.startswith("Save the GIF · ") and gif_size.endswith(" MB")
    gif = Image.open(saved(page, player, "#gif-save", tmp_path / "film.gif"))
    assert gif.size == (width, height) and gif.n_frames == n_frames
    assert float(gif_size.split(" · ")[1][:-3]) == pytest.approx(
        (tmp_path / "film.gif").stat().st_size / 1e6, abs=0.06)
    durations = []
    for k in range(n_frames):
        gif.seek(k)
        durations.append(gif.info["duration"])
    # each frame for its time in Play at 1x; the result is held, then it loops
    paced = player.evaluate("() => args.frame_ms")
    assert durations[:-1] == [10 * round(ms / 10) for ms in paced[:-1]]
    assert durations[0] == 2500 and min(durations) == 120 and durations[-1] == 3000
    gif.seek(0)
    first = np.asarray(gif.convert("RGB"), dtype=int)
    gif.seek(n_frames - 1)
    final = gif.convert("RGB")
    assert np.mean(np.any(first != np.asarray(final, dtype=int), axis=-1)) > 0.05  # it moves
    assert drawn_share(final, blue) > 0.02 and drawn_share(final, vermillion) > 0.02

    # the page: plotly.js inside, it plays offline with the player's controls
    html = saved(page, player, "#html", tmp_path / "film.html")
    offline = browser.new_page()
    asked = []

    def refuse(route):
        asked.append(route.request.url)
        route.abort()

    try:
        offline.context.set_offline(True)
        offline.route(lambda url: not url.startswith("file:"), refuse)
        offline.goto(html.as_uri())
        offline.wait_for_function("() => window.film && film.films === 1", timeout=30_000)
        assert offline.evaluate("() => film.frame") == n_frames - 1
        offline.select_option("#speed", "4")
        offline.get_by_text("▶ Play", exact=True).click()
        offline.wait_for_function("() => !film.playing", timeout=30_000)
        assert offline.evaluate("() => film.drawn.length") == n_frames
        assert painted_agreement(offline)["agree"] > 0.98  # the last frame, as in the app
        screenshot(offline, "player-saved-page-offline")
        offline.keyboard.press("Home")
        assert offline.evaluate("() => film.frame") == 0
    finally:
        offline.context.set_offline(False)
        offline.close()
    assert asked == []


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
