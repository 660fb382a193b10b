"""A person labels a point by clicking it, then sees the boundary."""

import time

import numpy as np
import pytest
from browser_helpers import (
    film_player,
    metric,
    page_position,
    painted_agreement,
    point_position,
    screenshot,
    wait_for_metric,
)

from toy_data import pick_labeled, two_moons

pytestmark = pytest.mark.e2e


def test_clicking_a_point_labels_it_and_the_boundary_appears(server, page):
    page.goto(server)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    assert metric(page, "class 1 labeled") == "1"
    # The app's default data (two moons, seed 0) comes with one label per class.
    _, y = two_moons(200, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    target = int(np.flatnonzero((labels == -1) & (y == 1))[0])
    x, y_pos = point_position(page, target)
    page.mouse.click(x, y_pos)
    wait_for_metric(page, "class 1 labeled", "2")
    assert metric(page, "unlabeled") == "197"
    # The clicked point is now drawn as a labeled square (the chart may redraw after the counts).
    page.wait_for_function(
        "i => document.querySelector('.js-plotly-plot')?._fullData?.[0].marker.symbol[i] === "
        "'square'", arg=target, timeout=15_000)
    screenshot(page, "data-page-after-click")

    page.get_by_role("link", name="Watch a solver").click()
    painted = painted_agreement(film_player(page))
    screenshot(page, "watch-page")
    # the fill is the decision function (blue where f > 0) and its level lines are drawn
    assert painted["agree"] > 0.98 and painted["dark"] > 100, painted


def test_a_click_on_empty_space_adds_a_point_there(server, page):
    page.goto(server)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    page.get_by_role("combobox", name="A click on empty space adds").click()
    page.get_by_text("■ a labeled point of class 1", exact=True).click()
    page.wait_for_function(  # the chart now has the invisible places to click
        "() => document.querySelector('.js-plotly-plot')?._fullData?.length === 2",
        timeout=20_000)
    time.sleep(0.5)
    # (0.5, 1.3) is above the upper moon, far from any point of the default data
    target = np.array([0.5, 1.3])
    page.mouse.click(*page_position(page, *target))
    wait_for_metric(page, "class 1 labeled", "2")
    assert metric(page, "unlabeled") == "198"
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?._fullData?.[0].x.length === 201",
        timeout=15_000)
    added = page.evaluate("""() => { const t = document.querySelector('.js-plotly-plot')
        ._fullData[0]; return [t.x[200], t.y[200], t.marker.symbol[200]]; }""")
    # where the click was, to the spacing of the places (1/60 of the view)
    assert np.allclose(added[:2], target, atol=0.1) and added[2] == "square"
    screenshot(page, "data-page-added-point")
    page.get_by_role("button", name="Remove the 1 added point").click()
    wait_for_metric(page, "class 1 labeled", "1")
