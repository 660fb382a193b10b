"""What only a browser shows of issue 27: a file given to the Data page's uploader (AppTest
cannot upload), and the player painting a one-vs-rest film."""

import pytest
from browser_helpers import film_player, metric, open_watch, screenshot, wait_for_metric

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


def wine_csv() -> str:
    """scikit-learn's wine data as a CSV file as it comes, two labels a class (a fixed draw)."""
    from sklearn.datasets import load_wine

    from toy_data import pick_labeled

    wine = load_wine()
    labels = pick_labeled(wine.target, 2, random_state=0)
    rows = [",".join([*wine.feature_names, "label"])]
    rows += [",".join([*(f"{v:g}" for v in x), "" if c == -1 else f"c{c}"])
             for x, c in zip(wine.data, labels, strict=True)]
    return "\n".join(rows) + "\n"


def chart_height_over_width(page) -> float:
    """Height over width of the Data page's chart's data, in pixels on screen."""
    return page.evaluate("""() => {
        const l = document.querySelector('.js-plotly-plot')._fullLayout;
        const h = Math.abs(l.yaxis.r2p(l.yaxis.range[1]) - l.yaxis.r2p(l.yaxis.range[0]));
        const t = document.querySelector('.js-plotly-plot')._fullData[0];
        const span = (v, a) => a.l2p(Math.max(...v)) - a.l2p(Math.min(...v));
        return Math.abs(span(t.y, l.yaxis)) / Math.abs(span(t.x, l.xaxis));
    }""")


def test_wine_as_it_comes_is_standardized_fills_its_chart_and_the_film_says_it_works(server,
                                                                                     page):
    """Issue 42: the raw wine file's picture was a strip 30 px high, and the film stayed
    blank for seconds after an upload."""
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(server)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    upload(page, "wine.csv", wine_csv())
    page.get_by_text("In use: wine.csv, 178 points, 13 features, 3 classes").wait_for(
        timeout=60_000)
    page.get_by_text("Standardized to z-scores on every page").wait_for(timeout=20_000)
    assert chart_height_over_width(page) > 0.5
    screenshot(page, "wine-standardized")
    page.get_by_text("standardized", exact=True).click()  # one click: the file's own values
    page.get_by_text("As the file writes them").wait_for(timeout=30_000)
    page.get_by_text("drawn as PC 2 × 10, to fill the chart").wait_for(timeout=30_000)
    assert chart_height_over_width(page) > 0.5  # stretched, not a strip
    screenshot(page, "wine-raw")
    page.get_by_role("link", name="Watch a solver").first.click()
    # at once, where the film will stand: the run's start is said, not a blank place
    page.get_by_text("its boundary appears here as soon as its first state arrives").wait_for(
        timeout=5_000)
    player = film_player(page, timeout=120)
    assert player.evaluate("() => document.getElementById('plot')._fullLayout.yaxis.title"
                           ".text") == "PC 2 × 10"
    screenshot(page, "wine-raw-film")


def test_a_semicolon_file_with_decimal_commas_is_read(server, page):
    page.goto(server)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    rows = [f"{i},5;{i % 3},25;{'a' if i == 0 else 'b' if i == 9 else ''}" for i in range(10)]
    upload(page, "komma.csv", "x;y;label\n" + "\n".join(rows) + "\n")
    page.get_by_text("In use: komma.csv, 10 points, 2 features, 2 classes").wait_for(
        timeout=60_000)
