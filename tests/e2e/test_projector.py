"""A projector at 1024 x 768, light and dark, the sidebar open as the app starts (issue 34):
each page's picture on its first screen, no word cut, every chart in the page's theme, and
the film's legend and toolbar clear of its titles."""

import numpy as np
import pytest
from browser_helpers import PLAYER, SCREENSHOTS, screenshot, wait_until_idle
from PIL import Image

from s3vm_explorer.ui.navigation import PAGES

pytestmark = pytest.mark.e2e

SIZE = {"width": 1024, "height": 768}
#: The first picture of each page: the player's frame on the Watch page, else the first chart.
PICTURE = {"watch": PLAYER}
#: Text cut by its box: an element that clips (ellipsis, hidden overflow) text wider than it;
#: text for screen readers only (``.s3vm-sr-only``, the charts' text alternatives) is clipped
#: on purpose.
CUT_TEXT = """() => {
  const main = document.querySelector('[data-testid="stMain"]'), cut = [];
  for (const e of main.querySelectorAll('*')) {
    if (e.closest('.js-plotly-plot, [data-testid="stDataFrame"], pre, iframe, .s3vm-sr-only'))
      continue;
    const text = (e.innerText || '').trim();
    if (!text || e.children.length > 3) continue;
    const style = getComputedStyle(e);
    const clips = style.textOverflow === 'ellipsis'
      || ['hidden', 'clip'].includes(style.overflowX);
    if (clips && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
      cut.push(text.slice(0, 60));
    }
  }
  return [...new Set(cut)];
}"""
#: In the film's frame: boxes of the legend's entries and of the charts' titles that meet.
LEGEND_OVER_TITLES = """() => {
  const gd = document.getElementById('plot');
  const box = (e) => e.getBoundingClientRect();
  const legend = [...gd.querySelectorAll('.legendtext')].map(box);
  const titles = [...gd.querySelectorAll('.annotation')].map(box).filter(b => b.width > 0);
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
      && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  return legend.some(a => titles.some(b => meet(a, b)));
}"""


def open_page(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
    wait_until_idle(page, timeout=240)


def near_white(path) -> float:
    """The share of the main area's pixels that are near white (the sidebar left out)."""
    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    return float(np.mean(np.all(pixels > 225, axis=2)))


def test_each_page_fits_a_projector_at_1024_by_768_in_light_and_dark(server, page):
    page.set_viewport_size(SIZE)
    page.goto(server)
    page.get_by_role("heading", name=PAGES[0][1]).wait_for(timeout=60_000)
    found = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.goto(server)  # (the theme is read as a page loads)
        page.get_by_role("heading", name=PAGES[0][1]).wait_for(timeout=60_000)
        for file, title, _ in PAGES:
            open_page(page, title)
            name = f"projector-{file}-{scheme}"
            screenshot(page, name)
            main = page.locator('[data-testid="stMain"]')
            main.screenshot(path=SCREENSHOTS / f"{name}-main.png")
            found[name] = {"cut": page.evaluate(CUT_TEXT),
                           "white": near_white(SCREENSHOTS / f"{name}-main.png")}
            if file != "about" and file != "compare":  # (their first screen is a form)
                picture = page.locator(PICTURE.get(file, ".js-plotly-plot")).first
                found[name]["picture_top"] = picture.bounding_box()["y"]
            if file == "watch":
                frame = page.frame_locator(PLAYER)
                found[name]["legend_over_titles"] = frame.locator("#plot").evaluate(
                    LEGEND_OVER_TITLES.replace("() =>", "(_) =>"))
                found[name]["toolbar"] = frame.locator(".modebar").count()
    for name, seen in found.items():
        assert not seen["cut"], (name, seen["cut"])
        if name.endswith("dark"):
            assert seen["white"] < 0.03, (name, seen["white"])  # at most a few per cent
        if "picture_top" in seen:
            assert seen["picture_top"] < SIZE["height"] - 200, (name, seen)  # on screen 1
        if "toolbar" in seen:
            assert not seen["legend_over_titles"] and seen["toolbar"] == 0, (name, seen)


def test_a_film_made_in_python_plays_offline_in_the_browser(browser, tmp_path):
    """``engine.notebook.film(...).save(...)``: the page plays with the network off, and says
    what it is of (issue 36, item 5; issue 34, item 7)."""
    from s3vm_core import ContinuationS3VM
    from s3vm_explorer.engine.notebook import film
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(80, noise=0.1, random_state=0)
    path = film(ContinuationS3VM(sigma=0.3), X, pick_labeled(y, 1, random_state=0),
                y_true=y).save(tmp_path / "film.html")
    page = browser.new_page()
    try:
        page.context.set_offline(True)
        page.goto(path.as_uri())
        page.wait_for_function("() => window.film && document.getElementById('plot')"
                               "._fullLayout && document.getElementById('title').textContent",
                               timeout=60_000)
        assert page.title().startswith("cS3VM (continuation) on n = 80")
        assert "Chapelle, Chi & Zien" in page.locator("#context").inner_text()
        before = page.evaluate("() => film.frame")
        page.get_by_text("◀ Step", exact=True).click()
        assert page.evaluate("() => film.frame") == before - 1  # it plays: a step back
    finally:
        page.context.set_offline(False)
        page.close()
