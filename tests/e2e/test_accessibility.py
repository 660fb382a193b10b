"""WCAG 2.1 AA in the browser (issue 44; docs/accessibility.md says what meets it and how it is
tested): axe-core's A and AA rules on every page, light and dark, after a run and with an
uploaded file; a whole session by keyboard alone, labelling included; and every page reflowed
at 320 CSS px and at 200 % zoom of 1400 x 900 without scrolling in two directions.

One server and few page loads: the pages are opened from the sidebar in one session, the
lessons computed once (on 80 points, to be quick) and shown again in the dark theme.
"""

import time

import pytest
from axe_helpers import axe_source, summary, violations
from browser_helpers import (
    PLAYER,
    film_player,
    metric,
    screenshot,
    wait_for_metric,
    wait_until_idle,
)
from test_upload_and_classes import GOOD, upload

from s3vm_explorer.ui.navigation import PAGES

pytestmark = pytest.mark.e2e

#: Points of the data set the lessons run on: their label draws take a few seconds, not 30.
N_POINTS = "80"
#: Widths in CSS px at which nothing may need scrolling sideways (WCAG 1.4.10): 320 px, and
#: 1400 x 900 at 200 % zoom (WCAG 1.4.4).
REFLOW = [(320, 640), (700, 450)]
KEYS_FRAME = 'iframe[title="s3vm_explorer.ui.keyboard.labelling_keys"]'

#: The widest element of a page wider than the window, if any: the page (the window's own
#: scroll) or the main area (the app scrolls inside it), and the element that sticks out most.
SIDEWAYS = """() => {
    const width = window.innerWidth, main = document.querySelector('[data-testid="stMain"]');
    const wide = document.documentElement.scrollWidth > width
        || (main && main.scrollWidth > main.clientWidth + 1);
    if (!wide) return null;
    let worst = null;
    for (const e of document.querySelectorAll('[data-testid="stMain"] *')) {
        const box = e.getBoundingClientRect();
        if (box.width && box.right > width + 1 && (!worst || box.right > worst.right)) {
            let scroller = e.parentElement;  // inside a box of its own that scrolls: allowed
            while (scroller && scroller !== main
                   && !/(auto|scroll)/.test(getComputedStyle(scroller).overflowX))
                scroller = scroller.parentElement;
            if (scroller === main || !scroller)
                worst = {right: box.right, what: (e.getAttribute('data-testid') || e.tagName)
                         + ' ' + (e.textContent || '').slice(0, 60)};
        }
    }
    return {page: document.documentElement.scrollWidth, main: main && main.scrollWidth,
            window: width, worst};
}"""


def open_from_the_sidebar(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)


def whole_page_in_view(page):
    """The window as tall as the page's content (the app scrolls inside its main area): axe
    measures the contrast of what is on screen."""
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": max(900, min(height, 12_000))})
    page.wait_for_timeout(300)


def fewer_points(page) -> None:
    box = page.get_by_role("textbox", name="n (points)", exact=True)
    box.fill(N_POINTS)
    box.press("Enter")
    wait_for_metric(page, "unlabeled", str(int(N_POINTS) - 2), timeout=30)


def test_axe_finds_no_wcag_violation_on_any_page_light_or_dark(server, page):
    source = axe_source()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(server)
    page.get_by_role("heading", name=PAGES[0][1]).wait_for(timeout=60_000)
    fewer_points(page)
    found, sideways = [], []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for file, title, _ in PAGES:
            start = time.monotonic()
            page.set_viewport_size({"width": 1400, "height": 900})
            open_from_the_sidebar(page, title)
            if file == "compare" and scheme == "light":
                page.get_by_role("textbox", name="k (label draws)", exact=True).fill("2")
                page.get_by_role("button", name="Run the comparison").click()
            if file == "watch":
                film_player(page)  # after a run: its film
            wait_until_idle(page, timeout=240)
            whole_page_in_view(page)
            screenshot(page, f"axe-{file}-{scheme}")
            found += violations(page, source, f"{file} ({scheme})")
            if scheme == "light":
                for width, height in REFLOW:
                    page.set_viewport_size({"width": width, "height": height})
                    page.wait_for_timeout(500)  # plotly and the player fit the new width
                    if wide := page.evaluate(SIDEWAYS):
                        sideways.append((file, width, wide))
                    screenshot(page, f"reflow-{file}-{width}")
            print(f"{file} ({scheme}): {time.monotonic() - start:.1f} s")
    # with an uploaded file, and its chart's data open as a table
    page.set_viewport_size({"width": 1400, "height": 900})
    open_from_the_sidebar(page, PAGES[0][1])
    upload(page, "mine.csv", GOOD)
    page.get_by_text("In use: mine.csv, 40 points").wait_for(timeout=30_000)
    page.get_by_text("Show as a table").first.click()
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=30_000)
    wait_until_idle(page)
    whole_page_in_view(page)
    screenshot(page, "axe-data-uploaded-dark")
    found += violations(page, source, "data, uploaded, its table open (dark)")
    problems = ([f"axe-core found WCAG 2.1 A / AA violations:\n{summary(found)}"] * bool(found)
                + [f"pages that scroll sideways: {sideways}"] * bool(sideways))
    assert not problems, "\n".join(problems)


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
