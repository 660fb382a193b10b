"""What the browser tests look for on a page: text cut by its box, chart text drawn over other
chart text, the film's legend over its titles, a page that scrolls sideways, a dark page that
is mostly white. Each is a script for ``page.evaluate`` (or a function of a screenshot)."""

import numpy as np
from browser_helpers import wait_for_metric
from PIL import Image

#: Points of the data set a tour's lessons run on: their label draws take seconds, not 30.
N_POINTS = "80"

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

#: Text of a plotly chart drawn over other text of it: pairs of panel titles, axis titles and
#: tick labels whose boxes intersect (by more than a pixel), named by their text, and text
#: reaching past the chart's sides ('cut').
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

#: In the film's frame: boxes of the legend's entries and of the charts' titles that meet.
LEGEND_OVER_TITLES = """(_) => {
  const gd = document.getElementById('plot');
  const box = (e) => e.getBoundingClientRect();
  const legend = [...gd.querySelectorAll('.legendtext')].map(box);
  const titles = [...gd.querySelectorAll('.annotation')].map(box).filter(b => b.width > 0);
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
      && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  return legend.some(a => titles.some(b => meet(a, b)));
}"""

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


def near_white(path) -> float:
    """The share of a screenshot's pixels that are near white."""
    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    return float(np.mean(np.all(pixels > 225, axis=2)))


def open_from_the_sidebar(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)


def fewer_points(page) -> None:
    """The Data page's n set to ``N_POINTS`` (by typing, as a user would)."""
    box = page.get_by_role("textbox", name="n (points)", exact=True)
    box.fill(N_POINTS)
    box.press("Enter")
    wait_for_metric(page, "unlabeled", str(int(N_POINTS) - 2), timeout=30)

#: The smallest text of a page's plotly charts, in CSS px: of all their text, and of their
#: titles (the chart's, its panels' and its axes') and legends (issue 42, item 2: read from
#: the back row at 13 px and 14 px), with the smallest texts named.
CHART_TEXT_SIZES = """(root) => {
    const sized = (selector) => [...root.querySelectorAll(selector)]
        .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
        .map(t => [parseFloat(getComputedStyle(t).fontSize), t.textContent.slice(0, 30)])
        .sort((a, b) => a[0] - b[0]);
    const text = sized('.js-plotly-plot svg text, #plot svg text');
    const headings = sized('.js-plotly-plot .gtitle, .js-plotly-plot .legendtext, '
        + '.js-plotly-plot .annotation-text, .js-plotly-plot [class$="title"] text, '
        + '#plot .legendtext, #plot .annotation-text');
    return {text: text.length ? text[0][0] : null, headings: headings.length ? headings[0][0]
            : null, smallest: text.slice(0, 3)};
}"""

#: Tables wider than their place: a data grid that scrolls sideways inside its box (its right
#: columns cut until scrolled), or any table reaching past the main area's right edge.
TABLES_CUT = """() => {
    const main = document.querySelector('[data-testid="stMain"]').getBoundingClientRect();
    const cut = [];
    for (const table of document.querySelectorAll(
            '[data-testid="stMain"] [data-testid="stDataFrame"], '
            + '[data-testid="stMain"] [data-testid="stTable"]')) {
        const box = table.getBoundingClientRect();
        if (!box.width) continue;  // (in a folded expander)
        const scrolls = [table, ...table.querySelectorAll('*')].some(e =>
            /(auto|scroll|hidden)/.test(getComputedStyle(e).overflowX)
            && e.scrollWidth > e.clientWidth + 1);
        if (scrolls || box.right > main.right + 1)
            cut.push((table.innerText || table.getAttribute('data-testid')).slice(0, 60));
    }
    return cut;
}"""
