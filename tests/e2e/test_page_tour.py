"""One tour of every page in the browser, light and dark, as a lecturer would check a room:

- at 1024 x 768 (a projector, the sidebar open as the app starts; issues 34 and 42): no
  error, each page's picture whole on its first screen (the Watch page's film also with its
  lesson open), no word cut by its box, no table cut on the right, every chart's text at
  least 13 px and its titles and legends 14 px, no chart text drawn over other text, plotly's
  toolbar only where it is a tool (the Data page's selection), the film's legend clear of its
  titles, and in the dark theme a dark page;
- at 1920 x 1080 and on the whole page at 1400 px wide: the same charts drawn clear, and the
  whole page as a screenshot;
- axe-core's WCAG 2.1 A and AA rules on the whole page, light and dark, after a run and with
  an uploaded file (issue 44; docs/accessibility.md); and in the light theme every page
  reflowed at 320 CSS px and at 200 % zoom of 1400 x 900 without a sideways scroll (WCAG
  1.4.10, 1.4.4).

One server, one tab, each page opened once a theme from the sidebar as a user would; the other
sizes are the same page resized (a page load is the costly part). The lessons run on 80
points, to be quick, and are shown again from the session in the dark theme. Every problem
found is collected, so one run names them all.
"""

import time

import pytest
from axe_helpers import axe_source, summary, violations
from browser_helpers import (
    PLAYER,
    SCREENSHOTS,
    film_player,
    screenshot,
    wait_until_idle,
)
from page_checks import (
    CHART_TEXT_SIZES,
    CUT_TEXT,
    LEGEND_OVER_TITLES,
    OVERLAPS,
    SIDEWAYS,
    TABLES_CUT,
    fewer_points,
    near_white,
    open_from_the_sidebar,
)
from test_upload_and_classes import GOOD, upload

from s3vm_explorer.ui.navigation import PAGES

pytestmark = pytest.mark.e2e

PROJECTOR = {"width": 1024, "height": 768}
LARGE = {"width": 1920, "height": 1080}
#: Window width of the whole-page screenshot and of axe's run (axe measures what is on screen).
WHOLE_WIDTH = 1400
#: Widths in CSS px at which nothing may need scrolling sideways: 320 px, and 1400 x 900 at
#: 200 % zoom.
REFLOW = [(320, 640), (700, 450)]
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
#: Pages without a picture on their first screen: the About and Compare pages open on text and
#: a form (``picture_bottom`` finds the others').
NO_PICTURE = {"about", "compare"}
#: Least size (CSS px) of a chart's text, and of its titles and legends (issue 42, item 2).
TEXT_PX, HEADING_PX = 13, 14
#: Plotly charts on a page once it has run: the teaching pages' lessons (the last of
#: Continuation and Annealing: over 10 label draws) and the comparison's three.
CHARTS = {"continuation": 4, "annealing": 5, "early_stopping": 2, "compare": 3, "hurt": 2,
          "about": 0}


def resize(page, size: dict) -> None:
    page.set_viewport_size(size)
    page.wait_for_timeout(500)  # plotly and the player fit the new size (no rerun)


def chart_overlaps(page) -> list:
    charts = page.locator(".js-plotly-plot")
    return [(chart, hits) for chart in range(charts.count())
            if (hits := charts.nth(chart).evaluate(OVERLAPS))]


def whole_page(page) -> None:
    """The window as tall as the page's content (the app scrolls inside its main area)."""
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    resize(page, {"width": WHOLE_WIDTH, "height": max(900, min(height, 12_000))})


def picture_bottom(page, file: str) -> float:
    """Where the page's first picture ends, in the window: the film's plot on the Watch page
    (in its frame), else the first chart."""
    if file == "watch":
        return _plot_bottom(page)
    box = page.locator(".js-plotly-plot").first.bounding_box()
    return box["y"] + box["height"]


def _plot_bottom(page) -> float:
    """The bottom of the film's plot in the window (the frame's locator gives page
    coordinates)."""
    box = page.frame_locator(PLAYER).locator("#plot").bounding_box()
    return box["y"] + box["height"]


def film_bottom_with_its_lesson(page) -> float:
    """The film's plot's bottom with the Watch page's lesson open (its box stands above the
    film), the lesson closed again after."""
    page.get_by_role("button", name="Lesson", exact=True).click()
    page.get_by_role("button", name="Close", exact=True).wait_for(timeout=30_000)
    wait_until_idle(page)
    film_player(page)
    page.wait_for_timeout(500)  # the player fits the room left to it
    bottom = _plot_bottom(page)
    page.get_by_role("button", name="Close", exact=True).click()
    wait_until_idle(page)
    film_player(page)
    return bottom


def on_the_projector(page, file: str, scheme: str) -> list:
    """What is wrong with the page at 1024 x 768 (see the module's docstring)."""
    name = f"tour-{file}-{scheme}"
    screenshot(page, f"{name}-1024x768")
    main = page.locator('[data-testid="stMain"]')
    main.screenshot(path=SCREENSHOTS / f"{name}-main.png")
    problems = []
    if page.locator(ERRORS).count():
        problems.append(("error shown", page.locator(ERRORS).first.inner_text()[:200]))
    if not (page.url.endswith(f"/{file}") or file == PAGES[0][0]):
        problems.append(("address", page.url))
    if cut := page.evaluate(CUT_TEXT):
        problems.append(("text cut", cut))
    if scheme == "dark" and (white := near_white(SCREENSHOTS / f"{name}-main.png")) > 0.03:
        problems.append(("white in the dark theme", round(white, 3)))
    if file not in NO_PICTURE and (bottom := picture_bottom(page, file)) > PROJECTOR["height"]:
        problems.append(("picture not whole on the first screen", bottom))
    if file == "watch" and (bottom := film_bottom_with_its_lesson(page)) > PROJECTOR["height"]:
        problems.append(("film not whole on the first screen with its lesson open", bottom))
    sizes = [page.locator("body").evaluate(CHART_TEXT_SIZES)]
    if file == "watch":
        sizes.append(page.frame_locator(PLAYER).locator("body").evaluate(CHART_TEXT_SIZES))
    for size in sizes:
        if (size["text"] or TEXT_PX) < TEXT_PX or (size["headings"] or HEADING_PX) < HEADING_PX:
            problems.append(("chart text too small", size))
    if cut := page.evaluate(TABLES_CUT):
        problems.append(("table cut", cut))
    if file != "data" and page.locator(".modebar").count():  # it covers titles under the
        problems.append(("plotly toolbar", page.locator(".modebar").count()))  # pointer
    if file == "watch":
        frame = page.frame_locator(PLAYER)
        if frame.locator("#plot").evaluate(LEGEND_OVER_TITLES):
            problems.append(("film legend over its titles", True))
        if frame.locator(".modebar").count():
            problems.append(("plotly toolbar in the film", True))
    if file in CHARTS and page.locator(".js-plotly-plot").count() != CHARTS[file]:
        problems.append(("charts", page.locator(".js-plotly-plot").count()))
    if hits := chart_overlaps(page):
        problems.append(("chart text over text at 1024 x 768", hits))
    return [(name, *problem) for problem in problems]


def test_every_page_light_and_dark_at_a_projector_a_large_screen_and_320_px(server, page):
    source = axe_source()
    page.set_viewport_size(PROJECTOR)
    page.goto(server)
    page.get_by_role("heading", name=PAGES[0][1]).wait_for(timeout=60_000)
    fewer_points(page)
    problems, found = [], []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for file, title, _ in PAGES:
            start = time.monotonic()
            page.set_viewport_size(PROJECTOR)
            open_from_the_sidebar(page, title)
            if file == "compare" and scheme == "light":
                # two label draws are enough for the layout: 18 panels of "both"
                page.get_by_role("textbox", name="k (label draws)", exact=True).fill("2")
                page.get_by_text("both, side by side").click()
                page.get_by_role("button", name="Run the comparison").click()
            if file == "watch":
                film_player(page)  # after a run: its film
            wait_until_idle(page, timeout=240)
            problems += on_the_projector(page, file, scheme)
            if scheme == "light":
                resize(page, LARGE)
                screenshot(page, f"tour-{file}-1920x1080")
                if hits := chart_overlaps(page):
                    problems.append((file, "chart text over text at 1920 x 1080", hits))
                for width, height in REFLOW:
                    resize(page, {"width": width, "height": height})
                    if wide := page.evaluate(SIDEWAYS):
                        problems.append((file, f"scrolls sideways at {width} px", wide))
                    screenshot(page, f"tour-{file}-{width}")
            whole_page(page)
            screenshot(page, f"tour-{file}-{scheme}-whole")
            found += violations(page, source, f"{file} ({scheme})")
            print(f"{file} ({scheme}): {time.monotonic() - start:.1f} s")
    # with an uploaded file, and its chart's data open as a table (dark)
    page.set_viewport_size({"width": WHOLE_WIDTH, "height": 900})
    open_from_the_sidebar(page, PAGES[0][1])
    upload(page, "mine.csv", GOOD)
    page.get_by_text("In use: mine.csv, 40 points").wait_for(timeout=30_000)
    page.get_by_text("Show as a table").first.click()
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=30_000)
    wait_until_idle(page)
    whole_page(page)
    screenshot(page, "tour-data-uploaded-dark")
    found += violations(page, source, "data, uploaded, its table open (dark)")
    report = [f"axe-core found WCAG 2.1 A / AA violations:\n{summary(found)}"] * bool(found)
    report += [repr(problem) for problem in problems]
    assert not report, "\n".join(report)
