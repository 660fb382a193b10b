"""Looking at and clicking the app in Chromium."""

import os
import tempfile
import time
from pathlib import Path

SCREENSHOTS = Path(os.environ.get("S3VM_SCREENSHOTS", tempfile.gettempdir())) / "s3vm-e2e"


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=path)
    return path


def page_position(page, x: float, y: float, chart: int = 0) -> tuple[float, float]:
    """Page coordinates of the data point (x, y) in plotly chart ``chart``.

    Plotly's drag layer covers the points, so clicks go to coordinates computed from the axes.
    """
    return page.evaluate(
        """([x, y, chart]) => {
            const gd = document.querySelectorAll('.js-plotly-plot')[chart];
            const layout = gd._fullLayout, box = gd.getBoundingClientRect();
            return [box.left + layout._size.l + layout.xaxis.l2p(x),
                    box.top + layout._size.t + layout.yaxis.l2p(y)];
        }""",
        [x, y, chart],
    )


def point_position(page, index: int, chart: int = 0) -> tuple[float, float]:
    """Page coordinates of point ``index`` of the first trace of plotly chart ``chart``."""
    x, y = page.evaluate(
        "([i, chart]) => { const t = document.querySelectorAll('.js-plotly-plot')[chart]"
        "._fullData[0]; return [t.x[i], t.y[i]]; }", [index, chart])
    return page_position(page, x, y, chart)


def metric(page, label: str) -> str:
    return page.locator('[data-testid="stMetric"]', has_text=label).locator(
        '[data-testid="stMetricValue"]').inner_text()


PLAYER = 'iframe[title="s3vm_explorer.ui.player.film_player"]'


def choose_solver(page, name: str) -> None:
    """Pick a solver in the Watch form by its class name (the page runs it at once)."""
    from s3vm_explorer.engine.registry import SOLVERS

    box = page.get_by_role("combobox", name="solver").first  # not LapSVM's "solver"
    # On a page scrolled down to the film, the scroll a click makes to reach the box closes
    # the list that click opens: scroll first.
    box.scroll_into_view_if_needed()
    box.click()
    page.get_by_role("option", name=SOLVERS[name].title, exact=True).click()


def film_player(page, timeout: float = 60.0):
    """The frame of the Watch page's player, once it shows a film (``window.film`` in it is
    the player's state: the frame on screen, whether it plays, when it drew each frame)."""
    frame = page.wait_for_selector(PLAYER, timeout=timeout * 1000).content_frame()
    frame.wait_for_function(
        "() => window.film && document.getElementById('plot')._fullLayout "
        "&& document.getElementById('title').textContent !== ''", timeout=timeout * 1000)
    return frame


def open_watch(page, server: str, scenario: dict):
    """The Watch page of a scenario link, once its film is drawn. The app's root is opened
    first: a session whose first page is opened by its own address runs without the router
    once, and the player is drawn anew at the next rerun (its frame detached)."""
    import json
    from urllib.parse import quote

    page.goto(server)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    page.goto(f"{server}/watch?scenario={quote(json.dumps(scenario))}")
    return film_player(page)


def painted_agreement(player) -> dict:
    """Whether the player painted the decision function of the frame on screen where it
    belongs: at every grid node away from the level lines (|f| and |f -+ 1| above 0.2), is the
    pixel under it blue where f > 0 and vermillion where f < 0? Returns the share of nodes that
    agree and the number of dark pixels (the level lines) in the plot area."""
    return player.evaluate(
        """() => {
            const { nx, ny, x, y } = args.grid, k = film.frame, step = args.fill_steps;
            const values = fill.subarray(k * nx * ny, (k + 1) * nx * ny);
            const l = document.getElementById('plot')._fullLayout, r = devicePixelRatio || 1;
            const ctx = document.getElementById('under').getContext('2d');
            const area = ctx.getImageData(0, 0, under.width, under.height).data;
            const pixel = (px, py) => {
                const at = 4 * (Math.round(py * r) * under.width + Math.round(px * r));
                return [area[at], area[at + 1], area[at + 2]];
            };
            let agree = 0, checked = 0, dark = 0;
            for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
                const q = values[j * nx + i];
                if (Math.min(Math.abs(q), Math.abs(q - step), Math.abs(q + step)) < 0.2 * step)
                    continue;
                const [red, , blue] = pixel(
                    l.xaxis._offset + l.xaxis.l2p(x[0] + i * (x[1] - x[0]) / (nx - 1)),
                    l.yaxis._offset + l.yaxis.l2p(y[0] + j * (y[1] - y[0]) / (ny - 1)));
                checked++;
                if ((q > 0) === (blue > red)) agree++;
            }
            for (let py = l.yaxis._offset; py < l.yaxis._offset + l.yaxis._length; py++)
                for (let px = l.xaxis._offset; px < l.xaxis._offset + l.xaxis._length; px++) {
                    const [red, green, blue] = pixel(px, py);
                    if (red + green + blue < 300) dark++;
                }
            return { agree: agree / checked, checked, dark };
        }""")


def wait_for_metric(page, label: str, expected: str, timeout: float = 20.0) -> None:
    page.wait_for_function(
        """([label, expected]) => [...document.querySelectorAll('[data-testid="stMetric"]')]
            .some(m => m.innerText.includes(label) && m.querySelector(
                '[data-testid="stMetricValue"]').innerText.trim() === expected)""",
        arg=[label, expected], timeout=timeout * 1000,
    )


def wait_until_idle(page, timeout=180.0):
    """Until Streamlit's 'Running…' indicator has been gone for a moment."""
    deadline = time.monotonic() + timeout
    quiet_since = None
    while time.monotonic() < deadline:
        running = page.locator('[data-testid="stStatusWidget"]').count()
        if running:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 1.0:
            return
        time.sleep(0.2)
    raise AssertionError("the page was still running after the timeout")
