"""A deep link opened first on a freshly started server goes through the app's router.

The pages live in ``pages/`` beside ``app.py``; until ``st.navigation`` has run once in the
server process, Streamlit would run such a folder's page alone under its automatic page list
(file names such as "app" and "early stopping"). This module has its own server, and its first
request is the deep link.
"""

import pytest
from browser_helpers import film_player, screenshot

pytestmark = pytest.mark.e2e

ROUTER_TITLES = ["Data & labels", "Watch a solver", "Continuation (cS3VM)",
                 "Deterministic annealing", "LapSVM early stopping", "Compare solvers",
                 "About the solvers"]


def test_deep_link_first_on_a_fresh_server_shows_the_router_and_its_page(server, page):
    page.goto(f"{server}/watch")
    page.wait_for_selector('[data-testid="stSidebarNav"]', timeout=60_000)
    page.get_by_role("heading", name="Watch a solver").wait_for(timeout=60_000)
    film_player(page)  # the page went on to run and draw its film
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    screenshot(page, "deep_link_watch")
    assert [title for title in ROUTER_TITLES if title in nav] == ROUTER_TITLES
    assert "early stopping\n" not in nav.lower().replace("lapsvm early stopping", "")
    assert "app" not in nav.split()
    assert page.url.endswith("/watch")
