"""The Watch page in front of a class (issue 20), in Chromium: solvers run one after another,
each film opens on its result with that result's numbers, the numbers follow the film while
it plays, Play's speed and loop are kept, the film fills a projector's screen, and the app
never writes into its own folder (no "File change — Rerun" banner)."""

import json
import time
from urllib.parse import quote, unquote

import pytest
from browser_helpers import (
    PLAYER,
    choose_solver,
    film_player,
    open_watch,
    painted_agreement,
    screenshot,
)

from s3vm_explorer.engine.film import PLOTLY_JS
from s3vm_explorer.ui.player import FRONTEND

pytestmark = pytest.mark.e2e

MOONS = {"dataset": "two_moons", "n": 200, "noise": 0.1, "seed": 0, "labels": {"33": 0, "56": 1}}


def watch(page, server, **scenario):
    """The Watch page of the two moons with these settings, once its film is drawn."""
    return open_watch(page, server, {**MOONS, **scenario})


def wait_for_new_film(page, old_id):
    """The player of the next film (a slow run replaces the player by its preview first)."""
    page.wait_for_function(
        """([selector, old]) => { const frame = document.querySelector(selector);
            const film = frame && frame.contentWindow && frame.contentWindow.film;
            return !!film && film.films > 0 && film.id !== old; }""",
        arg=[PLAYER, old_id], timeout=120_000)
    return film_player(page)


def on_screen(player) -> dict:
    """The frame on screen, its state and the numbers the player shows under it, beside the
    numbers that belong to that frame."""
    return player.evaluate("""() => ({
        frame: film.frame, last: args.states.length - 1, state: args.states[film.frame],
        shown: [...document.querySelectorAll('#numbers .value')].map(v => v.textContent),
        expected: args.numbers.map(n => n.values[film.frame]) })""")


def wait_for_details_of(page, state_index):
    """The page's details (the slider and the caption below the film) show this state."""
    page.wait_for_function(
        """v => { const slider = document.querySelector('input[aria-label="state details"]');
            return !!slider && slider.getAttribute('aria-valuetext') === `state ${v}`
                && [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
                    .some(c => c.innerText.startsWith(`state ${v}:`)); }""",
        arg=state_index, timeout=30_000)


def test_solvers_run_in_a_row_each_open_on_their_result_and_play_to_its_end(server, page):
    """A lecturer runs solvers one after another, after looking at an early state of each:
    every new film opens on its final state with that state's numbers, and Play to the end
    leaves the numbers and the page's details on the last state."""
    player = watch(page, server, solver="ContinuationS3VM", params={})
    for solver in ("LapSVM", "GradientTSVM", "DeterministicAnnealingS3VM"):
        # an early state of the film before, as the details show it
        for _ in range(2):
            player.get_by_text("◀ Step", exact=True).click()
        now = on_screen(player)
        assert now["frame"] == now["last"] - 2
        wait_for_details_of(page, now["state"])

        old_id = player.evaluate("() => film.id")
        choose_solver(page, solver)
        player = wait_for_new_film(page, old_id)
        now = on_screen(player)
        assert now["frame"] == now["last"], solver
        assert now["shown"] == now["expected"] and now["shown"][0].endswith("· the answer"), now
        wait_for_details_of(page, now["state"])
    screenshot(page, "class-new-run-on-its-result")

    # Play from the start to the end: the numbers follow every frame on the way
    player.evaluate("""() => { window.seen = new Set(); window.mismatches = 0;
        const check = () => {
            const shown = [...document.querySelectorAll('#numbers .value')]
                .map(v => v.textContent);
            if (shown.join() !== args.numbers.map(n => n.values[film.frame]).join())
                window.mismatches++;
            window.seen.add(shown[0]);
            if (!window.stopChecking) requestAnimationFrame(check);
        };
        requestAnimationFrame(check); }""")
    player.select_option("#speed", "2")  # (DA's 18 temperatures last 45 s at 1x)
    player.get_by_text("▶ Play", exact=True).click()
    player.wait_for_function("() => !film.playing", timeout=60_000)
    seen, mismatches = player.evaluate(
        "() => { window.stopChecking = true; return [window.seen.size, window.mismatches]; }")
    now = on_screen(player)
    assert mismatches == 0
    assert seen > now["last"] // 2  # the step moved with the film
    assert now["frame"] == now["last"] and now["shown"] == now["expected"]
    wait_for_details_of(page, now["state"])  # DA's soft labels follow the film's end too
    assert "soft labels p at step" in page.locator(".js-plotly-plot").last.inner_text()
    screenshot(page, "class-played-to-the-end")


def share_link(page) -> dict:
    sidebar = page.locator('[data-testid="stSidebar"]')
    if not sidebar.locator('[data-testid="stCode"]').is_visible():
        sidebar.get_by_text("Share this scenario").click()
    text = sidebar.locator('[data-testid="stCode"]').inner_text().strip()
    return json.loads(unquote(text.split("?scenario=", 1)[1]))


def test_speed_and_loop_are_kept_in_the_link_and_a_loop_holds_the_result(server, page):
    player = watch(page, server, solver="QNS3VM", params={})
    player.select_option("#speed", "2")
    player.check("#loop")
    # the player reports them; the page keeps them and the share link carries them
    deadline = time.monotonic() + 20
    while (share_link(page)["speed"], share_link(page)["loop"]) != (2, True):
        assert time.monotonic() < deadline, share_link(page)
        time.sleep(0.3)
    # the page's rerun for the new speed, which still had the loop off, did not untick it
    assert player.evaluate("() => [film.speed, film.loop, loop.checked]") == [2, True, True]

    player.get_by_text("▶ Play", exact=True).click()
    player.wait_for_function("() => film.frame === args.states.length - 1", timeout=30_000)
    held = time.monotonic()
    # the result stays on screen for a while, then the film starts over by itself
    player.wait_for_function("() => film.playing && film.frame < 5", timeout=30_000)
    assert time.monotonic() - held > 1.0
    player.get_by_text("❚❚ Pause", exact=True).click()
    assert player.evaluate("() => film.playing") is False

    # a new session from the link plays at the same speed and loops
    other = page.context.new_page()
    try:
        other.goto(f"{server}/watch?scenario={quote(json.dumps(share_link(page)))}")
        settings = film_player(other).evaluate(
            "() => [film.speed, film.loop, document.getElementById('speed').value]")
        assert settings == [2, True, "2"]
    finally:
        other.close()


def layout_on_screen(page, player) -> dict:
    """Sizes in CSS pixels: the boundary plot and the charts, the data's scale on each axis of
    the boundary plot, the legend, the numbers' boxes and where the player ends."""
    sizes = player.evaluate("""() => {
        const l = document.getElementById('plot')._fullLayout;
        const at = document.getElementById('plot').getBoundingClientRect();
        const box = (el) => { const r = el.getBoundingClientRect();
            return [r.left, r.top, r.right, r.bottom]; };
        const numbers = [...document.querySelectorAll('#numbers .value, #numbers .note')]
            .filter(el => el.textContent !== '');
        return {
            boundary: [at.left + l.xaxis._offset, at.top + l.yaxis._offset, l.xaxis._length,
                       l.yaxis._length],
            charts: [[l.xaxis2._length, l.yaxis2._length], [l.xaxis3._length, l.yaxis3._length]],
            scale: [l.xaxis._length / (l.xaxis.range[1] - l.xaxis.range[0]),
                    l.yaxis._length / (l.yaxis.range[1] - l.yaxis.range[0])],
            legend: box(document.querySelector('#plot .legend')),
            width: document.body.clientWidth,
            clipped: numbers.filter(el => el.scrollWidth > el.clientWidth + 1
                || el.getBoundingClientRect().right > document.body.clientWidth)
                .map(el => el.textContent),
            bottom: document.body.scrollHeight,
        }; }""")
    frame_box = page.locator(PLAYER).bounding_box()
    sizes["player_bottom"] = frame_box["y"] + sizes["bottom"]
    return sizes


#: Screens a lecturer meets: an old projector, a laptop, a full-HD projector.
SCREENS = [(1024, 768), (1400, 900), (1920, 1080)]


def smallest_tick(player) -> float:
    """The smallest tick label of the film's figure, in CSS pixels."""
    return player.evaluate("""() => Math.min(...[...document.querySelectorAll(
        '#plot .xtick text, #plot .ytick text, #plot .x2tick text, #plot .y2tick text, '
        + '#plot .x3tick text, #plot .y3tick text')]
        .map(t => parseFloat(getComputedStyle(t).fontSize)))""")


def test_presentation_mode_fills_a_projector_with_the_boundary(server, page):
    """Presentation mode at each screen size, the window resized as when a projector is
    plugged in: no sidebar, header or toolbar, the boundary plot 60 % of the screen's width or
    more, ticks of 14 px or more, the film and its numbers on one screen."""
    page.set_viewport_size(dict(zip(("width", "height"), SCREENS[0], strict=True)))
    player = watch(page, server, solver="ContinuationS3VM", params={}, presentation=True)
    for test_id in ("stSidebar", "stHeader", "stToolbar"):
        assert not page.get_by_test_id(test_id).is_visible(), test_id
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        player.wait_for_function(
            """() => { const l = document.getElementById('plot')._fullLayout;
                return Math.abs(l.width - document.getElementById('stage').clientWidth) <= 1; }""",
            timeout=10_000)
        time.sleep(0.5)  # let the page take the player's new height
        sizes = layout_on_screen(page, player)
        path = screenshot(page, f"class-presentation-{width}x{height}")
        left, top, plot_width, plot_height = sizes["boundary"]
        # the boundary is the largest thing: most of the screen, several times each chart
        assert plot_width >= 0.6 * width, (width, sizes, path)
        for chart_width, chart_height in sizes["charts"]:
            assert plot_width * plot_height > 3 * chart_width * chart_height
        assert smallest_tick(player) >= 14
        # equal scales on its axes: the moons keep their shape
        assert sizes["scale"][0] == pytest.approx(sizes["scale"][1], rel=0.02)
        # the dashed line's legend stands over the boundary plot, not over the charts
        legend_left, _, legend_right, legend_bottom = sizes["legend"]
        assert left - 10 <= legend_left and legend_right <= left + plot_width, sizes
        assert legend_bottom <= top + 5, sizes
        # every number reads whole, and the film with its numbers fits on the screen
        assert sizes["clipped"] == []
        assert sizes["player_bottom"] <= height, (sizes, path)
        # the toggles above the film say their whole names ("pres…" at 1024 px before)
        for label in ("presentation", "supervised SVM"):
            cut = page.get_by_text(label, exact=True).evaluate(
                """el => { for (let at = el; at && at.tagName !== 'LABEL';
                                at = at.parentElement)
                               if (at.scrollWidth > at.clientWidth + 1) return true;
                           return false; }""")
            assert not cut, (label, width, path)
    # without presentation mode the page has its title and parameter form again
    page.get_by_text("presentation", exact=True).click()
    page.get_by_role("button", name="Run").wait_for(timeout=20_000)
    assert page.get_by_test_id("stSidebar").is_visible()
    screenshot(page, "class-form-1920x1080")


#: Where each of the numbers under the film stands in the player's frame: left, top, width
#: and height of each cell.
NUMBER_PLACES = """() => [...document.querySelectorAll('#numbers .cell')].map(cell => {
    const box = cell.getBoundingClientRect();
    return [box.left, box.top, box.width, box.height]; })"""


def test_the_numbers_under_the_film_keep_their_places_on_every_frame_and_with_save_open(
        server, page):
    """Issue 42, item 2: the numbers changed columns from frame to frame (a wider value moved
    the next one over, or to another row), and with the Save menu open they went below the
    first screen. DA's film: its last frame's step and note are the longest."""
    page.set_viewport_size({"width": 1024, "height": 768})
    player = watch(page, server, solver="DeterministicAnnealingS3VM", params={})
    frames = player.evaluate("() => args.states.length")
    places = set()
    for k in range(frames):
        player.evaluate("""(k) => { const scrub = document.getElementById('scrub');
            scrub.value = k; scrub.dispatchEvent(new Event('input')); }""", k)
        places.add(json.dumps(player.evaluate(NUMBER_PLACES)))
    assert len(places) == 1, places  # one place for each number, whatever the frame
    (shown,) = [json.loads(p) for p in places]
    assert len({top for _, top, _, _ in shown}) == 1  # one row at 1024 px
    player.locator("#exports").click()
    player.locator("#png").wait_for()
    assert player.evaluate(NUMBER_PLACES) == shown  # the Save row opens under them
    bottom = page.locator(PLAYER).bounding_box()["y"] + max(t + h for _, t, _, h in shown)
    path = screenshot(page, "class-numbers-save-open")
    assert bottom <= 768, (bottom, path)  # and they stay on the first screen


def test_the_film_follows_the_pages_dark_theme(server, page):
    """The app follows the browser's light or dark setting (and the choice in Streamlit's
    menu): on a dark page the film is dark too, the decision function fading into the page's
    background, and it follows a change of theme at once."""

    def colours():
        return player.evaluate("""() => {
            const { nx, ny, x, y } = args.grid, k = film.frame, step = args.fill_steps;
            const values = fill.subarray(k * nx * ny, (k + 1) * nx * ny);
            const l = document.getElementById('plot')._fullLayout, r = devicePixelRatio || 1;
            const data = under.getContext('2d').getImageData(0, 0, under.width, under.height)
                .data;
            // the fill where f is near 0 but away from the boundary line
            const near = [];
            for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
                const f = values[j * nx + i] / step;
                if (Math.abs(f) > 0.15 && Math.abs(f) < 0.3) {
                    const px = l.xaxis._offset + l.xaxis.l2p(x[0] + i * (x[1] - x[0]) / (nx - 1));
                    const py = l.yaxis._offset + l.yaxis.l2p(y[0] + j * (y[1] - y[0]) / (ny - 1));
                    const at = 4 * (Math.round(py * r) * under.width + Math.round(px * r));
                    near.push((data[at] + data[at + 1] + data[at + 2]) / 3);
                }
            }
            const grey = (css) => { const [r, g, b] = css.match(/[0-9.]+/g).map(Number);
                                    return (r + g + b) / 3; };
            return { dark: film.dark, near: near.reduce((a, b) => a + b, 0) / near.length,
                     page: grey(getComputedStyle(document.body).backgroundColor),
                     text: grey(getComputedStyle(document.getElementById('title')).color),
                     ticks: grey(document.querySelector('#plot .xtick text').style.fill) };
        }""")

    page.emulate_media(color_scheme="dark")
    player = watch(page, server, solver="ContinuationS3VM", params={})
    player.wait_for_function("() => film.dark", timeout=10_000)
    dark = colours()
    path = screenshot(page, "class-dark-theme")
    assert dark["page"] < 60 and dark["near"] < 80, (dark, path)
    assert dark["text"] > 180 and dark["ticks"] > 150, (dark, path)
    # blue where f > 0, vermillion where f < 0 (near f = 0 the fill is the page's background,
    # a dark grey whose red and blue are nearly equal)
    painted = painted_agreement(player)
    assert painted["agree"] > 0.95, painted
    page.emulate_media(color_scheme="light")
    player.wait_for_function("() => !film.dark", timeout=10_000)
    light = colours()
    assert light["page"] > 240 and light["near"] > 200 and light["text"] < 80, light


def test_a_fresh_server_shows_no_file_change_banner_on_the_first_watch_visit(
        fresh_server, page):
    """The player used to copy plotly.min.js into its own folder on the first visit to
    Watch; Streamlit's watcher saw the new file and offered "File change — Rerun"."""
    (FRONTEND / PLOTLY_JS.name).unlink(missing_ok=True)
    before = sorted(p.name for p in FRONTEND.iterdir())
    with fresh_server() as url:
        page.goto(url)
        page.wait_for_selector(".js-plotly-plot", timeout=60_000)
        page.get_by_role("link", name="Watch a solver").click()
        film_player(page)
        time.sleep(3.0)  # the watcher polls: give it time to report a change
        status = page.locator('[data-testid="stStatusWidget"]')
        banner = status.inner_text() if status.count() else ""
        screenshot(page, "class-first-watch-visit")
        assert "File change" not in banner and "Rerun" not in banner, banner
        assert page.get_by_role("button", name="Always rerun").count() == 0
    assert sorted(p.name for p in FRONTEND.iterdir()) == before
