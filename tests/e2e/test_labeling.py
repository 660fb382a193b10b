"""A person labels a point by clicking it, then sees the boundary."""

import numpy as np
import pytest
from browser_helpers import film_player, metric, painted_share, point_position, screenshot

from toy_data import pick_labeled, two_moons

pytestmark = pytest.mark.e2e


def wait_for_metric(page, label, expected, timeout=15.0):
    page.wait_for_function(
        """([label, expected]) => [...document.querySelectorAll('[data-testid="stMetric"]')]
            .some(m => m.innerText.includes(label) && m.querySelector(
                '[data-testid="stMetricValue"]').innerText.trim() === expected)""",
        arg=[label, expected], timeout=timeout * 1000,
    )


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
    painted = painted_share(film_player(page))
    screenshot(page, "watch-page")
    # the fill is the decision function (blue where f > 0) and its level lines are drawn
    assert abs(painted["blue"] - painted["positive"]) < 0.05 and painted["dark"] > 100, painted
    screenshot(page, "watch-page")
