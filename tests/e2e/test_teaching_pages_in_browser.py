"""Each teaching page opens in a real browser, draws its figures and shows no error."""

import time

import pytest
from browser_helpers import screenshot, wait_until_idle

pytestmark = pytest.mark.e2e

#: URL path, title, number of plotly charts once the page has finished running (the last of
#: the Continuation and Annealing pages: their lesson over 10 label draws).
PAGES = [
    ("continuation", "Continuation (cS3VM)", 4),
    ("annealing", "Deterministic annealing", 5),
    ("early_stopping", "LapSVM early stopping", 2),
    ("compare", "Compare solvers", 0),
    ("about", "About the solvers", 0),
]
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


@pytest.mark.parametrize(("path", "title", "n_charts"), PAGES)
def test_teaching_page_opens_without_an_error(server, page, path, title, n_charts):
    page.goto(server)
    page.get_by_role("heading", name="Data & labels").wait_for(timeout=60_000)
    start = time.monotonic()
    page.get_by_role("link", name=title).click()  # the sidebar navigation, as a user would
    page.get_by_role("heading", name=title).wait_for(timeout=60_000)
    assert page.url.endswith(f"/{path}")
    if n_charts:
        page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot').length >= n", arg=n_charts,
            timeout=180_000)  # ten draws of DA, on a machine other tests may share
    wait_until_idle(page)
    seconds = time.monotonic() - start
    screenshot(page, f"teaching-{path}")
    assert page.locator(ERRORS).count() == 0, page.locator(ERRORS).first.inner_text()
    assert page.locator(".js-plotly-plot").count() == n_charts
    print(f"{path}: rendered in {seconds:.1f} s")


def chosen_t_lines(page, T: float) -> list[dict]:
    """The dotted "chosen T" line of each panel of the Annealing page's entropy and objective
    chart: where it is drawn (CSS pixels from the plot's left) and where ``T`` is on that
    panel's axis."""
    return page.evaluate("""(T) => {
        const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
            (g._fullLayout.annotations || []).some(a => a.text.startsWith('entropy')));
        const layout = gd._fullLayout;
        return [...gd.querySelectorAll('.shapelayer path')].map((path, i) => {
            const shape = layout.shapes[i], axis = layout[shape.xref.replace('x', 'xaxis')];
            const box = path.getBoundingClientRect(), plot = gd.getBoundingClientRect();
            return { drawn: box.left + box.width / 2 - plot.left,
                     chosen: axis._offset + axis.l2p(Math.log10(T)),
                     visible: box.height > 10 };
        });
    }""", T)


def test_the_chosen_temperature_line_sits_at_the_chosen_t_on_every_axis(server, page):
    page.goto(f"{server}/annealing")
    page.get_by_role("heading", name="Deterministic annealing").wait_for(timeout=60_000)
    wait_until_idle(page)
    for key in ("Home", "End"):  # T0 = 10 (it sat at T = 1), then the coldest (it vanished)
        slider = page.get_by_role("slider", name="temperature T").last
        slider.focus()
        slider.press(key)
        wait_until_idle(page)
        page.wait_for_timeout(500)  # the rerun's stale slider goes
        chosen = float(page.get_by_role("slider", name="temperature T").last
                       .get_attribute("aria-valuetext"))
        lines = chosen_t_lines(page, chosen)
        screenshot(page, f"annealing-chosen-T-{key}")
        assert len(lines) == 2, lines  # the entropy panel and the objective panel
        for line in lines:
            assert line["visible"] and abs(line["drawn"] - line["chosen"]) < 2, lines
