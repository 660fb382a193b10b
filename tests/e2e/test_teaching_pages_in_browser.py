"""The teaching pages in a real browser: what only a browser shows (every page opening without an
error, at three screen sizes, light and dark, is tests/e2e/test_page_tour.py)."""

import pytest
from browser_helpers import screenshot, wait_until_idle

pytestmark = pytest.mark.e2e


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


def lesson_heading(page) -> str:
    return page.get_by_text("Lesson · step", exact=False).first.inner_text()


def test_a_lesson_walks_by_the_clicker_s_keys_and_moves_the_temperature(server, page):
    """Page Down shows the answer, then the next step; Page Up goes back (a presenter's
    clicker); the Annealing lesson's second step moves the temperature slider to its T."""
    page.goto(f"{server}/annealing")
    page.get_by_role("heading", name="Deterministic annealing").wait_for(timeout=60_000)
    wait_until_idle(page)
    page.get_by_role("button", name="Lesson").click()
    page.get_by_text("Lesson · step 1 of").wait_for(timeout=30_000)
    before = page.get_by_role("slider", name="temperature T").last.get_attribute(
        "aria-valuetext")
    page.keyboard.press("PageDown")
    page.get_by_role("button", name="Next step").wait_for(timeout=30_000)  # the answer shown
    assert page.get_by_text("Every p lies between").count() == 1
    page.keyboard.press("PageDown")
    page.get_by_text("Lesson · step 2 of").wait_for(timeout=30_000)
    wait_until_idle(page)
    after = page.get_by_role("slider", name="temperature T").last.get_attribute(
        "aria-valuetext")
    assert after != before  # the step stands on the temperature its answer speaks of
    screenshot(page, "annealing-lesson-step-2")
    page.keyboard.press("PageUp")
    page.get_by_text("Lesson · step 1 of").wait_for(timeout=30_000)
