"""WCAG 2.1 AA in the browser (issue 44; docs/accessibility.md says what meets it and how it is
tested): a whole session by keyboard alone, labelling included; the film told frame by frame
and stepped by keyboard; reduced motion and the player at 320 px. axe-core on every page, light
and dark, and their reflow run in the tour of the pages (test_page_tour.py).
"""

import time

import numpy as np
import pytest
from axe_helpers import axe_source, summary, violations
from browser_helpers import (
    PLAYER,
    film_player,
    metric,
    open_watch,
    screenshot,
    wait_for_metric,
    wait_until_idle,
)
from page_checks import N_POINTS, SIDEWAYS
from playwright.sync_api import expect
from test_player import FILM  # cS3VM on the two moons: the player's tests' film

from s3vm_explorer.ui.navigation import PAGES

pytestmark = pytest.mark.e2e

KEYS_FRAME = 'iframe[title="s3vm_explorer.ui.keyboard.labelling_keys"]'


def active(page) -> dict:
    """The element with the keyboard's focus (in the page, or in a component's frame), its
    text and whether a focus ring is drawn on it or on the widget around it."""
    return page.evaluate("""() => {
        let e = document.activeElement;
        const frame = e && e.tagName === 'IFRAME' ? e : null;
        const inner = frame && frame.contentDocument ? frame.contentDocument.activeElement : null;
        const shown = inner || e;
        const ring = (el) => { for (let a = el; a; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) return true;
            if (a.getAttribute && a.getAttribute('data-baseweb')) break; }
            return false; };
        return {tag: shown ? shown.tagName : null, id: shown ? shown.id : null,
                frame: frame ? frame.title : null,
                text: shown ? (shown.innerText || shown.value || shown.getAttribute('aria-label')
                               || '').trim().slice(0, 80) : '',
                ring: shown ? ring(shown) : false};
    }""")


def tab_to(page, matches, most: int = 80, backwards: bool = False) -> dict:
    """Press Tab (or Shift+Tab) until the focused element ``matches``; its description."""
    for _ in range(most):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        focused = active(page)
        if matches(focused):
            return focused
    raise AssertionError(f"Tab never reached the element; the last focus: {focused}")


def said(page) -> str:
    """What the keyboard's box said last (its live region, refilled a moment after a key)."""
    line = page.frame_locator(KEYS_FRAME).locator("#said")
    for _ in range(50):
        if text := line.inner_text().strip():
            return text
        time.sleep(0.05)
    raise AssertionError("the keyboard's box said nothing")


def test_a_whole_session_by_keyboard_alone(server, page):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(server)
    page.get_by_role("heading", name=PAGES[0][1]).wait_for(timeout=60_000)
    page.wait_for_selector(KEYS_FRAME, timeout=30_000)
    wait_until_idle(page)
    # Generate: fewer points, then a new draw by the Regenerate button
    focused = tab_to(page, lambda f: f["text"] == "200" and f["tag"] == "INPUT")
    assert focused["ring"], focused
    page.keyboard.press("Control+A")
    page.keyboard.type(N_POINTS)
    page.keyboard.press("Enter")
    wait_for_metric(page, "unlabeled", str(int(N_POINTS) - 2), timeout=30)
    focused = tab_to(page, lambda f: f["text"] == "Regenerate")
    assert focused["ring"], focused
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('input[aria-label=\"seed\"]')?.value === '1'",
        timeout=20_000)
    wait_until_idle(page)
    labeled = [int(metric(page, f"class {c} labeled")) for c in (0, 1)]

    # Label four points: move with the arrows, give classes with number keys
    focused = tab_to(page, lambda f: f["id"] == "keys")
    assert focused["ring"] and focused["frame"].endswith("labelling_keys"), focused
    first = said(page)
    assert first.startswith("point ") and " at (" in first, first
    ring = page.locator('[data-testid="s3vm-focus-ring"]')
    ring.wait_for(state="visible", timeout=5_000)
    screenshot(page, "keyboard-labelling-focus")
    moves = ["ArrowRight", "ArrowUp", "ArrowLeft", "ArrowDown"]
    seen = set()
    for move, label in zip(moves, "1010", strict=True):
        for _ in range(6):  # to a point not labeled yet
            page.keyboard.press(move)
            text = said(page)
            point = int(text.split()[1].rstrip(","))
            if text.endswith("unlabeled") and point not in seen:
                break
        seen.add(point)
        page.keyboard.press(label)
        assert said(page) == f"point {point} labeled class {label}"
    wait_for_metric(page, "class 0 labeled", str(labeled[0] + 2), timeout=30)
    wait_for_metric(page, "class 1 labeled", str(labeled[1] + 2), timeout=30)
    screenshot(page, "keyboard-labelling-four")
    # undo and redo by key; the box keeps the focus through the page's reruns
    page.keyboard.press("z")
    wait_for_metric(page, "class 0 labeled", str(labeled[0] + 1), timeout=30)
    page.keyboard.press("y")
    wait_for_metric(page, "class 0 labeled", str(labeled[0] + 2), timeout=30)
    assert active(page)["id"] == "keys"

    # Run: to the Watch page by its link, then its Run button
    tab_to(page, lambda f: f["text"].endswith("Open the Watch page"))
    page.keyboard.press("Enter")
    film_player(page)
    wait_until_idle(page)
    focused = tab_to(page, lambda f: f["tag"] == "BUTTON" and f["text"] == "Run", most=120)
    assert focused["ring"], focused
    page.keyboard.press("Enter")
    wait_until_idle(page)
    assert page.locator(PLAYER).count() == 1
    screenshot(page, "keyboard-watch-run")

    # A teaching page from the sidebar's list, backwards through the page
    tab_to(page, lambda f: f["text"].endswith("LapSVM early stopping"), most=150,
           backwards=True)
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="LapSVM early stopping").first.wait_for(timeout=60_000)
    wait_until_idle(page)
    # its settings open from the keyboard, and a chart's data as a table
    tab_to(page, lambda f: "Settings:" in f["text"], most=60)
    page.keyboard.press("Enter")
    page.get_by_text("validation set |V| (points)").wait_for(timeout=10_000)
    focused = tab_to(page, lambda f: "Show as a table" in f["text"], most=60)
    assert focused["ring"], focused
    page.keyboard.press("Enter")
    table = page.locator('[data-testid="stTable"] table').first
    table.wait_for(timeout=30_000)
    # one row a point of each panel (PCG t = 1, 2, 5... and Newton's optimum)
    rows = table.locator("tbody tr").count()
    assert rows % int(N_POINTS) == 0 and rows >= 2 * int(N_POINTS), rows
    assert "shown as" in table.locator("thead").inner_text()
    screenshot(page, "keyboard-teaching-page")

    # its guided lesson: opened by its button, the answer shown and the next step by Page Down;
    # axe finds nothing with the lesson open
    focused = tab_to(page, lambda f: f["text"].endswith("Lesson"), most=80, backwards=True)
    assert focused["ring"], focused
    page.keyboard.press("Enter")
    step = page.get_by_text("Lesson · step 1 of", exact=False)
    step.wait_for(timeout=30_000)
    wait_until_idle(page)
    page.keyboard.press("PageDown")  # the answer
    page.get_by_role("button", name="Next step").wait_for(timeout=30_000)
    wait_until_idle(page)
    page.keyboard.press("PageDown")  # the next step
    page.get_by_text("Lesson · step 2 of", exact=False).wait_for(timeout=30_000)
    wait_until_idle(page)
    screenshot(page, "keyboard-lesson-step-2")
    found = violations(page, axe_source(), "LapSVM early stopping, its lesson open")
    assert not found, summary(found)


# -- the film's player (phase 2): the film in words, by keyboard, reduced motion, reflow -------

#: The sentence of the frame on screen; and with what the player's live region says now.
SENTENCE = "() => args.sentences[film.frame]"
SAID = "() => [document.getElementById('said').textContent, args.sentences[film.frame]]"


def says_the_frame(player, frame: int) -> str:
    """Wait until the player shows ``frame`` and its live region reads that frame's sentence
    (which is also the figure's description); the sentence."""
    player.wait_for_function(
        "k => film.frame === k && document.getElementById('said').textContent"
        " === args.sentences[k]", arg=frame, timeout=5_000)
    said, sentence = player.evaluate(SAID)
    assert said == sentence == player.locator("#sentence").text_content()
    # the sentence is what the film shows: its title and its numbers
    title = player.locator("#title").text_content()
    assert sentence.startswith(f"Frame {frame + 1} of ")
    assert f", {title.replace(' · ', ', ')}. " in sentence, (title, sentence)
    objective = player.locator(".cell", has_text="objective").locator(".value").text_content()
    assert f"Objective {objective}, " in sentence
    return sentence


def player_violations(page, source: str, where: str) -> list[dict]:
    """axe's findings inside the player's frame (the page around it is the other tests')."""
    return [v for v in violations(page, source, where) if "film_player" in v["frame"]]


def test_the_film_steps_by_keyboard_and_says_each_frame(server, page):
    """Every control of the player is reached with Tab and pressed with the keyboard alone,
    with a focus ring; Step, the scrubber's keys and Pause read the new frame's sentence out
    at once; while Play runs only the frames it holds (the start, each γ's end) are said, at
    most one every 1.5 s."""
    page.set_viewport_size({"width": 1400, "height": 900})
    player = open_watch(page, server, FILM)
    last = player.evaluate("() => args.states.length - 1")
    figure = player.get_by_role("img", name="The film of cS3VM")
    expect(figure).to_have_accessible_description(player.evaluate(SENTENCE))
    assert page.locator(PLAYER).get_attribute("aria-label") == "The solver's film and its controls"

    focused = tab_to(page, lambda f: f["id"] == "play")
    assert focused["ring"] and focused["frame"].endswith("film_player"), focused
    order = []
    for _ in range(7):
        page.keyboard.press("Tab")
        focused = active(page)
        assert focused["ring"], focused
        order.append(focused["id"])
    assert order == ["pause", "back", "forward", "scrub", "speed", "loop", "exports"]
    for _ in range(5):  # back to ◀ Step
        page.keyboard.press("Shift+Tab")
    assert active(page)["id"] == "back"
    page.keyboard.press("Enter")
    says_the_frame(player, last - 1)
    page.keyboard.press(" ")  # a focused button takes the space as a press, as Enter
    says_the_frame(player, last - 2)
    expect(figure).to_have_accessible_description(player.evaluate(SENTENCE))
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # Step ▶
    says_the_frame(player, last - 1)
    page.keyboard.press("Tab")  # the scrubber: the arrows, Home and End
    page.keyboard.press("ArrowLeft")
    says_the_frame(player, last - 2)
    page.keyboard.press("Home")
    first = says_the_frame(player, 0)
    assert first.endswith("The film starts here.")
    assert player.locator("#scrub").get_attribute("aria-valuetext") == f"frame 1 of {last + 1}"
    page.keyboard.press("ArrowRight")
    moved = says_the_frame(player, 1)
    assert "changed side since the previous frame." in moved
    page.keyboard.press("Tab")  # the speed, by its arrows
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert player.evaluate("() => [film.speed, film.frame, film.playing]") == [4, 1, False]
    page.keyboard.press("Tab")  # loop, by the space, which does not play
    page.keyboard.press(" ")
    assert player.evaluate("() => [film.loop, film.playing]") == [True, False]
    page.keyboard.press(" ")
    page.keyboard.press("Tab")  # Save opens its row; its first button is next
    page.keyboard.press("Enter")
    assert player.locator("#exports").get_attribute("aria-expanded") == "true"
    page.keyboard.press("Tab")
    focused = active(page)
    assert focused["id"] == "png" and focused["ring"], focused

    # Play at 4x from frame 1, by the space on ▶ Play; what the live region said, and when
    tab_to(page, lambda f: f["id"] == "play", most=12, backwards=True)
    player.evaluate("""() => { window.saidLog = [];
        new MutationObserver(() => saidLog.push([performance.now(),
            document.getElementById('said').textContent]))
        .observe(document.getElementById('said'), {childList: true, characterData: true,
                                                   subtree: true}); }""")
    page.keyboard.press(" ")
    player.wait_for_function("() => film.playing", timeout=5_000)
    time.sleep(4.0)
    page.keyboard.press(" ")
    stopped = player.evaluate("() => [film.playing, film.frame]")
    assert stopped[0] is False and stopped[1] > 10, stopped
    log, sentences, paced = player.evaluate("() => [saidLog, args.sentences, args.frame_ms]")
    assert log[-1][1] == sentences[stopped[1]]  # Pause says where the film stopped, at once
    while_playing = log[:-1]
    assert len(while_playing) >= 2, log
    held = min(paced)
    for _, text in while_playing:
        assert paced[sentences.index(text)] > held, text  # a frame the film holds
    gaps = np.diff([when for when, _ in while_playing])
    assert gaps.min() >= 1450, gaps  # never two sentences within 1.5 s
    screenshot(page, "player-by-keyboard")


def test_with_reduced_motion_nothing_plays_by_itself_and_at_320_px_the_charts_stack(server, page):
    """With the system's "reduce motion", Play shows the next frame at each press and never
    animates (the player says so, and the page); the loop is off. Beside the boundary plot at
    320 px the charts squeezed it and cut their titles ("T (outer parame"): under 600 px they
    stand below it, across the width, and nothing needs a sideways scroll (WCAG 1.4.10). axe
    finds nothing in the player at 1024 px (its Save row open) and at 320 px. One page for
    both: a page load is the costly part."""
    source = axe_source()
    page.set_viewport_size({"width": 1024, "height": 768})
    page.emulate_media(reduced_motion="reduce")
    player = open_watch(page, server, FILM)
    note = player.locator("#motion")
    expect(note).to_be_visible()
    assert note.text_content().startswith("Your system asks for reduced motion:")
    expect(page.get_by_text("Where your system asks for reduced motion, nothing plays by "
                            "itself")).to_have_count(1)
    assert player.locator("#loop").is_disabled()
    play = player.get_by_text("▶ Play", exact=True)
    play.click()  # at the end: the first frame
    says_the_frame(player, 0)
    play.click()
    says_the_frame(player, 1)
    page.keyboard.press(" ")  # the space on ▶ Play: one frame more
    says_the_frame(player, 2)
    time.sleep(2.0)  # Play at 1x would have moved on by now (and at the slowest speed too)
    assert player.evaluate("() => [film.frame, film.playing, film.drawn.length]") == [2, False, 0]
    layout = player.evaluate("""() => { const l = plot._fullLayout;
        return [l.xaxis.domain, l.xaxis2.domain, l.yaxis2.domain]; }""")
    assert layout[1][0] > layout[0][1] and layout[2][0] > 0.5, layout  # side by side
    player.locator("#exports").click()
    player.locator("#html:not([hidden])").wait_for(timeout=30_000)
    wait_until_idle(page)
    page.set_viewport_size({"width": 1024, "height": 1400})  # axe measures what is on screen
    page.wait_for_timeout(500)
    screenshot(page, "player-1024-reduced-motion")
    found = player_violations(page, source, "player at 1024 px, reduced motion, Save open")

    page.set_viewport_size({"width": 320, "height": 640})
    player.wait_for_function("() => plot._fullLayout.xaxis2.domain[0] === 0", timeout=10_000)
    page.wait_for_timeout(500)
    shape = player.evaluate("""() => {
        const l = plot._fullLayout, width = innerWidth;
        const titles = [...plot.querySelectorAll('.annotation')].filter(a =>
            ['objective', 'γ (outer parameter)'].includes(a.textContent)).map(a => {
                const box = a.getBoundingClientRect();
                return [a.textContent, box.left, box.right]; });
        // what a reader sees: the page's elements and plotly's text (its drawing layers
        // reach past the plot, unseen)
        const outside = [...document.body.querySelectorAll('*')].filter(e => {
            const box = e.getBoundingClientRect();
            return box.width && !e.closest('.unseen') && (!e.closest('svg') || e.tagName ===
                'text') && (box.right > width + 1 || box.left < -1);
        }).map(e => `${e.id || e.tagName} ${e.textContent.slice(0, 30)}`);
        return {width, scroll: document.documentElement.scrollWidth, titles, outside,
                boundary: l.xaxis._length, charts: [l.xaxis2._length, l.xaxis3._length],
                below: [l.yaxis2.domain[1] < l.yaxis.domain[0],
                        l.yaxis3.domain[1] < l.yaxis2.domain[0]]};
    }""")
    assert shape["below"] == [True, True], shape  # boundary, objective, stage: one column
    assert min(shape["charts"]) >= shape["boundary"] > 0.6 * shape["width"], shape
    assert len(shape["titles"]) == 2, shape
    for _, left, right in shape["titles"]:
        assert 0 <= left and right <= shape["width"], shape  # whole, not cut
    assert shape["scroll"] <= shape["width"] and not shape["outside"], shape
    assert page.evaluate(SIDEWAYS) is None
    screenshot(page, "player-320")
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 320, "height": min(height, 6000)})
    page.wait_for_timeout(500)
    screenshot(page, "player-320-whole")
    found += player_violations(page, source, "player at 320 px")
    assert not found, summary(found)

    # wider again: the charts beside the boundary; the setting followed as it changes
    page.set_viewport_size({"width": 1024, "height": 768})
    player.wait_for_function("() => plot._fullLayout.xaxis2.domain[0] > 0.5", timeout=10_000)
    page.emulate_media(reduced_motion="no-preference")
    expect(note).to_be_hidden()
    play.click()
    player.wait_for_function("() => film.playing && film.frame > 3", timeout=10_000)
    player.get_by_text("❚❚ Pause", exact=True).click()
