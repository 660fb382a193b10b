"""What only a browser shows: an address that names no page, and what a number box does with a
value out of its range or in scientific notation (Streamlit's number input turned red and kept
sending its previous value, and read "2e3" as 2)."""

import json
from urllib.parse import quote

import pytest
from browser_helpers import film_player, screenshot

pytestmark = pytest.mark.e2e

ALERTS = '[data-testid="stAlert"]'


def alert_with(page, text: str, timeout: float = 60.0) -> str:
    """The text of the first alert on the page containing ``text``, once there is one."""
    alert = page.locator(ALERTS, has_text=text).first
    alert.wait_for(timeout=timeout * 1000)
    return alert.inner_text()


def test_an_address_that_names_no_page_says_so_on_the_first_page(server, page):
    page.goto(f"{server}/nosuchpage")
    page.get_by_role("heading", name="Data & labels").wait_for(timeout=60_000)
    said = alert_with(page, "no page")
    screenshot(page, "unknown-page")
    assert "This app has no page “/nosuchpage”: here is its first page, Data & labels." in said


def test_a_tampered_link_on_watch_is_said_there(server, page):
    scenario = {"dataset": "two_moons", "n": 60, "noise": 0.6, "seed": 0,
                "labels": {"0": 0, "1": 1}, "solver": "SVMBaseline"}
    page.goto(f"{server}/watch?scenario={quote(json.dumps(scenario))}")
    said = alert_with(page, "Parts of the shared link could not be used")
    assert "noise = 0.6 is outside the allowed range 0 to 0.5" in said
    film_player(page)  # the page went on with the rest of the link
    screenshot(page, "tampered-link-on-watch")


def type_into(page, label: str, value: str) -> None:
    box = page.get_by_role("textbox", name=label, exact=True)
    box.fill(value)
    box.press("Enter")


def test_a_parameter_out_of_range_is_said_and_no_film_stands_for_its_run(server, page):
    scenario = {"dataset": "two_moons", "n": 60, "noise": 0.1, "seed": 0,
                "labels": {"0": 0, "1": 1}, "solver": "SVMBaseline"}
    page.goto(f"{server}/watch?scenario={quote(json.dumps(scenario))}")
    film_player(page)
    type_into(page, "C", "-5")
    page.get_by_role("button", name="Run", exact=True).click()
    said = alert_with(page, "Nothing was run")
    screenshot(page, "parameter-out-of-range")
    assert "C = -5 is outside the allowed range 0.0001 to 1e6" in said
    assert page.locator('iframe[title="s3vm_explorer.ui.player.film_player"]').count() == 0
    type_into(page, "C", "5")
    page.get_by_role("button", name="Run", exact=True).click()
    film_player(page)
    assert page.locator(ALERTS, has_text="Nothing was run").count() == 0


def test_n_out_of_range_in_the_sidebar_is_said_on_the_page(server, page):
    page.goto(server)
    page.get_by_role("heading", name="Data & labels").wait_for(timeout=60_000)
    type_into(page, "n (points)", "99999")
    said = alert_with(page, "data settings in the sidebar are not valid")
    screenshot(page, "n-out-of-range")
    assert "n (points) = 99999 is outside the allowed range 10 to 2000" in said
    assert page.get_by_role("textbox", name="n (points)").input_value() == "99999"
    assert page.locator(".js-plotly-plot").count() == 0
    type_into(page, "n (points)", "200")
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)


def test_a_number_box_reads_scientific_notation_and_says_a_seed_out_of_range(server, page):
    # Streamlit's number input read "2e3" as 2; a seed of 20 digits only turned it red
    page.goto(server)
    page.get_by_role("heading", name="Data & labels").wait_for(timeout=60_000)
    type_into(page, "n (points)", "5e2")
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stMetric"]')].some(m =>
            m.innerText.includes('unlabeled') && m.innerText.includes('498'))""",
        timeout=60_000)  # 500 points, two of them labeled
    type_into(page, "seed", "99999999999999999999")
    said = alert_with(page, "data settings in the sidebar are not valid")
    screenshot(page, "seed-out-of-range")
    assert "seed = 99999999999999999999 is outside the allowed range 0 to 2147483647" in said
    assert page.get_by_role("textbox", name="seed").input_value() == "99999999999999999999"
