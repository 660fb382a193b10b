"""Looking at and clicking the app in Chromium."""

import os
import tempfile
from pathlib import Path

SCREENSHOTS = Path(os.environ.get("S3VM_SCREENSHOTS", tempfile.gettempdir())) / "s3vm-e2e"


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=path)
    return path


def point_position(page, index: int, chart: int = 0) -> tuple[float, float]:
    """Page coordinates of point ``index`` of the first trace of plotly chart ``chart``.

    Plotly's drag layer covers the points, so clicks go to coordinates computed from the axes.
    """
    return page.evaluate(
        """([index, chart]) => {
            const gd = document.querySelectorAll('.js-plotly-plot')[chart];
            const layout = gd._fullLayout, trace = gd._fullData[0];
            const box = gd.getBoundingClientRect();
            return [box.left + layout._size.l + layout.xaxis.l2p(trace.x[index]),
                    box.top + layout._size.t + layout.yaxis.l2p(trace.y[index])];
        }""",
        [index, chart],
    )


def metric(page, label: str) -> str:
    return page.locator('[data-testid="stMetric"]', has_text=label).locator(
        '[data-testid="stMetricValue"]').inner_text()


PLAYER = 'iframe[title="ui.player.film_player"]'


def film_player(page, timeout: float = 60.0):
    """The frame of the Watch page's player, once it shows a film (``window.film`` in it is
    the player's state: the frame on screen, whether it plays, when it drew each frame)."""
    frame = page.wait_for_selector(PLAYER, timeout=timeout * 1000).content_frame()
    frame.wait_for_function(
        "() => window.film && document.getElementById('plot')._fullLayout "
        "&& document.getElementById('title').textContent !== ''", timeout=timeout * 1000)
    return frame


def painted_share(player) -> dict:
    """What the player painted beneath its plot for the frame on screen, against the decision
    values it was sent: the share of grid values f > 0, the share of blue among the blue and
    vermillion pixels of the plot area, and how many pixels are dark (the level lines)."""
    return player.evaluate(
        """() => {
            const { nx, ny } = args.grid, k = film.frame;
            const values = fill.subarray(k * nx * ny, (k + 1) * nx * ny);
            const positive = values.filter(v => v > 0).length / values.length;
            const l = document.getElementById('plot')._fullLayout, r = devicePixelRatio || 1;
            const data = document.getElementById('under').getContext('2d').getImageData(
                Math.ceil(l.xaxis._offset * r), Math.ceil(l.yaxis._offset * r),
                Math.floor(l.xaxis._length * r), Math.floor(l.yaxis._length * r)).data;
            let blue = 0, vermillion = 0, dark = 0;
            for (let i = 0; i < data.length; i += 4) {
                const [red, green, b] = [data[i], data[i + 1], data[i + 2]];
                if (red + green + b < 300) dark++;
                else if (b > red + 20) blue++;
                else if (red > b + 20) vermillion++;
            }
            return { positive, blue: blue / (blue + vermillion), dark };
        }""")
