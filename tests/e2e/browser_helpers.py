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
