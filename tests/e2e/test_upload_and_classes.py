"""What only a browser shows of issue 27: a file given to the Data page's uploader (AppTest
cannot upload), and the player painting a one-vs-rest film."""

import pytest
from browser_helpers import metric, open_watch, screenshot, wait_for_metric

pytestmark = pytest.mark.e2e

GOOD = "x,y,label\n" + "\n".join(
    [f"{0.1 * i:.2f},{0.05 * i:.2f},{'a' if i < 3 else ''}" for i in range(20)]
    + [f"{3 + 0.1 * i:.2f},{3 - 0.05 * i:.2f},{'b' if i < 2 else '?'}" for i in range(20)])
RAGGED = "x,y,label\n1,2,a\n3,b\n"


def upload(page, name: str, text: str) -> None:
    page.get_by_text("Your own data: upload a file").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": text.encode()})


def test_an_uploaded_file_becomes_the_data_and_a_bad_one_leaves_it(server, page):
    page.goto(server)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    upload(page, "mine.csv", GOOD)
    wait_for_metric(page, "class 0 labeled", "3", timeout=60)
    assert metric(page, "class 1 labeled") == "2" and metric(page, "unlabeled") == "35"
    page.get_by_text("In use: mine.csv, 40 points").wait_for(timeout=20_000)
    screenshot(page, "uploaded-file")
    upload(page, "ragged.csv", RAGGED)
    alert = page.locator('[data-testid="stAlert"]', has_text="Line 3 of ragged.csv").first
    alert.wait_for(timeout=30_000)
    assert "Your data and labels are unchanged." in alert.inner_text()
    assert metric(page, "class 0 labeled") == "3" and metric(page, "unlabeled") == "35"
    screenshot(page, "uploaded-bad-file")


def test_the_player_paints_each_region_in_its_winning_class(server, page):
    player = open_watch(page, server, {
        "dataset": "blobs_3", "n": 150, "noise": 0.6, "seed": 0, "solver": "SVMBaseline",
        "labels": {"0": 0, "1": 1, "2": 2}})
    screenshot(page, "one-vs-rest-film")
    painted = player.evaluate(
        """() => {
            const { nx, ny, x, y } = args.grid, k = args.classes, size = nx * ny;
            const frame = fill.subarray(film.frame * k * size, (film.frame + 1) * k * size);
            const l = document.getElementById('plot')._fullLayout, r = devicePixelRatio || 1;
            const ctx = document.getElementById('under').getContext('2d');
            const area = ctx.getImageData(0, 0, under.width, under.height).data;
            let agree = 0, checked = 0;
            const winners = new Set();
            for (let j = 1; j < ny - 1; j++) for (let i = 1; i < nx - 1; i++) {
                const f = [...Array(k).keys()].map(c => frame[c * size + j * nx + i]);
                const sorted = [...f].sort((a, b) => b - a);
                if (sorted[0] - sorted[1] < 20) continue;  // near a boundary between regions
                const best = f.indexOf(sorted[0]);
                const px = l.xaxis._offset + l.xaxis.l2p(x[0] + i * (x[1] - x[0]) / (nx - 1));
                const py = l.yaxis._offset + l.yaxis.l2p(y[0] + j * (y[1] - y[0]) / (ny - 1));
                const at = 4 * (Math.round(py * r) * under.width + Math.round(px * r));
                const want = args.region_colors.slice(3 * best, 3 * best + 3);
                checked++;
                winners.add(best);
                if ([0, 1, 2].every(c => Math.abs(area[at + c] - want[c]) <= 12)) agree++;
            }
            return { agree: agree / checked, checked, winners: winners.size };
        }""")
    assert painted["checked"] > 500 and painted["winners"] == 3
    assert painted["agree"] > 0.95, painted
