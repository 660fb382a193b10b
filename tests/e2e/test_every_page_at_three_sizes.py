"""Every page of the app at the three screen sizes of a lecture room (1024 x 768, 1400 x 900,
1920 x 1080): a screenshot of the window at each size and of the whole page at one, no error on it,
and no text of a chart drawn over other text (the Compare page showing "both, side by side").

One server, one browser tab: the pages are opened from the sidebar as a user would, so the
lessons computed at the first size are shown again (from the session) at the next ones.
"""

import time

import pytest
from browser_helpers import PLAYER, SCREENSHOTS, screenshot, wait_until_idle

from s3vm_explorer.ui.navigation import PAGES

pytestmark = pytest.mark.e2e

SIZES = [(1024, 768), (1400, 900), (1920, 1080)]
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
#: The first picture of a page that must show on its first screen at every size (issue 34,
#: items 1 and 8): the player's frame on the Watch page, the chart to label on the Data page.
PICTURE = {"watch": PLAYER}
#: Plotly charts on a page once it has finished running: the teaching pages' lessons (the last
#: of Continuation and Annealing: over 10 label draws) and the comparison's three.
CHARTS = {"continuation": 4, "annealing": 5, "early_stopping": 2, "compare": 3, "hurt": 2,
          "about": 0}

#: Text of a plotly chart drawn over other text of it: pairs of panel titles, axis titles and
#: tick labels whose boxes intersect (by more than a pixel), named by their text.
OVERLAPS = """(gd) => {
    const texts = [...gd.querySelectorAll(
        '.annotation, g[class^="g-x"][class$="title"], g[class^="g-y"][class$="title"], '
        + 'g[class$="tick"] > text, .legendtext')]
        .map(e => ({text: e.textContent, box: e.getBoundingClientRect()}))
        .filter(t => t.text && t.box.width > 0);
    const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
        && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const plot = gd.getBoundingClientRect(), hits = [];
    texts.forEach((a, i) => {
        if (a.box.left < plot.left - 1 || a.box.right > plot.right + 1) hits.push([a.text, 'cut']);
        texts.slice(i + 1).forEach(b => { if (meet(a.box, b.box)) hits.push([a.text, b.text]); });
    });
    return hits;
}"""


def open_from_the_sidebar(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)


def whole_page(page, name: str) -> None:
    """A screenshot of the whole page: the window made as tall as the page's content (the app
    scrolls inside its main area, which a full-page screenshot of the window leaves out)."""
    size = page.viewport_size
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(height, size["height"])})
    page.wait_for_timeout(400)  # plotly redraws its charts at the new size (no rerun)
    screenshot(page, name)
    page.set_viewport_size(size)


def test_every_page_at_three_screen_sizes(server, page):
    page.set_viewport_size(dict(zip(("width", "height"), SIZES[0], strict=True)))
    page.goto(server)
    page.get_by_role("heading", name=PAGES[0][1]).wait_for(timeout=60_000)
    compared = False
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for file, title, _ in PAGES:
            start = time.monotonic()
            open_from_the_sidebar(page, title)
            if file == "compare" and not compared:
                # two label draws are enough for the layout: 18 panels of "both"
                draws = page.get_by_role("textbox", name="k (label draws)", exact=True)
                draws.fill("2")
                page.get_by_text("both, side by side").click()
                page.get_by_role("button", name="Run the comparison").click()
                compared = True
            wait_until_idle(page, timeout=240)
            name = f"page-{file}-{width}x{height}"
            screenshot(page, name)
            if (width, height) == SIZES[1]:  # the whole page once: below the window too
                whole_page(page, f"{name}-whole")  # before the checks: a failure has its picture
            print(f"{name}: {time.monotonic() - start:.1f} s")
            assert page.locator(ERRORS).count() == 0, (name, page.locator(ERRORS).first
                                                      .inner_text())
            assert page.url.endswith(f"/{file}") or file == PAGES[0][0]
            charts = page.locator(".js-plotly-plot")
            if file in ("data", "watch"):  # the chart to label, the film: on the first screen
                first = page.locator(PICTURE.get(file, ".js-plotly-plot")).first
                assert first.bounding_box()["y"] < height - 200, (name, first.bounding_box())
            if file != "data":  # plotly's toolbar (the Data page's selection tools) covers
                assert page.locator(".modebar").count() == 0, name  # titles under the pointer
            if file in CHARTS:
                assert charts.count() == CHARTS[file], name
            for chart in range(charts.count()):
                hits = charts.nth(chart).evaluate(OVERLAPS)
                assert not hits, (name, chart, hits)
    assert len(list(SCREENSHOTS.glob("page-*.png"))) >= (len(SIZES) + 1) * len(PAGES)
