"""Films in a notebook (``engine.notebook``), as a browser shows a notebook's outputs: a notebook
run headless, saved and read again, its outputs laid one after the other on a page as a
notebook's frontend or its HTML export (nbconvert) lays them, opened in Chromium from a file.
The player's scripts travel once, in the first film's output (issue 40, item 8)."""

import nbformat
import pytest
from browser_helpers import painted_agreement, screenshot
from nbclient import NotebookClient

pytestmark = pytest.mark.e2e

SETUP = """\
from s3vm_core import ContinuationS3VM, QNS3VM
from s3vm_explorer.engine.notebook import film
from toy_data import pick_labeled, two_moons
X, y = two_moons(150, noise=0.1, random_state=0)
labels = pick_labeled(y, 1, random_state=0)"""
FILMS = ("film(QNS3VM(sigma=0.3), X, labels, y_true=y)",
         "film(ContinuationS3VM(sigma=0.3), X, labels, y_true=y)")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """The HTML outputs of a notebook with two films, run headless, saved and read again."""
    cells = [nbformat.v4.new_code_cell(source) for source in (SETUP, *FILMS)]
    notebook = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(notebook, timeout=180, kernel_name="python3").execute()
    path = tmp_path_factory.mktemp("notebook") / "films.ipynb"
    nbformat.write(notebook, path)
    reopened = nbformat.read(path, as_version=4)
    return [output["data"]["text/html"] for cell in reopened.cells[1:]
            for output in cell.outputs if "text/html" in output.get("data", {})]


@pytest.fixture
def offline(page):
    """The page without a network: everything it plays must be in its files."""
    page.context.set_offline(True)
    page.route(lambda url: not url.startswith(("file:", "about:", "data:")),
               lambda route: route.abort())
    yield page
    page.context.set_offline(False)


def outputs_page(path, outputs) -> str:
    """A page of notebook outputs, each in a cell's output area, as a notebook's HTML export
    lays them; its file's address."""
    cells = "".join(f'<div class="output_area">{output}</div><p>the next cell</p>'
                    for output in outputs)
    path.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{cells}'
                    "</body></html>", encoding="utf-8")
    return path.as_uri()


def players(page, count):
    """The films' frames on the page, once each has drawn its film."""
    page.wait_for_function(f"() => document.querySelectorAll('iframe').length === {count}")
    frames = [element.content_frame() for element in page.query_selector_all("iframe")]
    for frame in frames:
        frame.wait_for_function("() => window.film && film.films === 1", timeout=60_000)
    return frames


def painted_pixels(frame) -> int:
    """The pixels the player painted on the canvas beneath the plot (the decision function)."""
    return frame.evaluate("""() => {
        const canvas = document.getElementById('under');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        return painted;
    }""")


def test_two_films_draw_and_step_with_one_copy_of_the_players_scripts(outputs, offline, tmp_path):
    first, second = outputs
    carrier = '<script type="text/plain" data-s3vm-player='
    assert first.count(carrier) == 1 and carrier not in second
    page = offline
    page.goto(outputs_page(tmp_path / "notebook.html", outputs))
    frames = players(page, 2)
    for frame in frames:
        assert painted_pixels(frame) > 10_000
        assert painted_agreement(frame)["agree"] > 0.98  # f > 0 blue, f < 0 vermillion
        assert frame.evaluate("() => document.getElementById('notice')") is None
    film = frames[1]
    where = film.locator("#where").text_content()
    film.get_by_text("◀ Step", exact=True).click()
    assert film.locator("#where").text_content() != where
    assert film.evaluate("() => film.frame") == film.evaluate("() => args.states.length") - 2
    film.select_option("#speed", "4")  # (at 1x the cS3VM film lasts half a minute)
    film.get_by_text("▶ Play", exact=True).click()
    film.wait_for_function("() => !film.playing", timeout=30_000)
    assert film.evaluate("() => film.drawn.length") >= 2
    screenshot(page, "notebook-two-films")


def test_a_film_without_the_scripts_says_so_and_plays_once_they_are_shown(
        outputs, offline, tmp_path):
    """The first film's output cleared: the second says what is missing and how to show the
    scripts again (player_scripts()); shown again, it plays."""
    first, second = outputs
    page = offline
    page.goto(outputs_page(tmp_path / "cleared.html", [second]))
    frame = page.query_selector("iframe").content_frame()
    notice = frame.locator("#notice")
    notice.filter(has_text="player_scripts()").wait_for(timeout=20_000)
    assert "cannot play" in notice.text_content()
    assert frame.locator("#controls").is_hidden()
    height = page.evaluate("() => document.querySelector('iframe').offsetHeight")
    assert height < 300  # the frame holds the sentence, not an empty player below it
    screenshot(page, "notebook-film-without-scripts")

    from s3vm_explorer.engine.notebook import player_scripts

    page.evaluate("html => document.body.insertAdjacentHTML('afterbegin', html)",
                  player_scripts()._repr_html_())
    frame.wait_for_function("() => window.film && film.films === 1", timeout=60_000)
    assert painted_pixels(frame) > 10_000
    assert frame.evaluate("() => document.getElementById('notice')") is None


def test_a_film_drawn_again_after_the_scripts_output_went_plays_from_the_pages_memory(
        outputs, offline, tmp_path):
    """The first film's cell cleared while the page lives, the second's drawn again: it plays
    from the scripts the page kept, and says that a copy saved now would not play."""
    page = offline
    page.goto(outputs_page(tmp_path / "notebook.html", outputs))
    players(page, 2)
    page.evaluate("""() => {
        const areas = document.querySelectorAll('.output_area');
        areas[0].remove();
        areas[1].innerHTML = areas[1].innerHTML;  // the second film drawn anew
    }""")
    (frame,) = players(page, 1)
    note = frame.locator("#notice").text_content()
    assert "memory" in note and "player_scripts()" in note
    assert painted_pixels(frame) > 10_000
    screenshot(page, "notebook-film-from-memory")


def test_the_saved_film_plays_alone_offline(offline, tmp_path):
    """``Film.save``: one page with everything inlined, that plays without the notebook."""
    from s3vm_core import ContinuationS3VM
    from s3vm_explorer.engine.notebook import film
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(150, noise=0.1, random_state=0)
    path = film(ContinuationS3VM(sigma=0.3), X, pick_labeled(y, 1, random_state=0),
                y_true=y).save(tmp_path / "film.html")
    page = offline
    page.goto(path.as_uri())
    page.wait_for_function("() => window.film && film.films === 1", timeout=30_000)
    assert painted_pixels(page) > 10_000 and painted_agreement(page)["agree"] > 0.98
    last = page.evaluate("() => film.frame")
    page.get_by_text("◀ Step", exact=True).click()
    assert page.evaluate("() => film.frame") == last - 1
    screenshot(page, "notebook-film-saved-alone")


def test_a_film_made_in_python_plays_offline_in_the_browser(browser, tmp_path):
    """``engine.notebook.film(...).save(...)``: the page plays with the network off, and says
    what it is of (issue 36, item 5; issue 34, item 7)."""
    from s3vm_core import ContinuationS3VM
    from s3vm_explorer.engine.notebook import film
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(80, noise=0.1, random_state=0)
    path = film(ContinuationS3VM(sigma=0.3), X, pick_labeled(y, 1, random_state=0),
                y_true=y).save(tmp_path / "film.html")
    page = browser.new_page()
    try:
        page.context.set_offline(True)
        page.goto(path.as_uri())
        page.wait_for_function("() => window.film && document.getElementById('plot')"
                               "._fullLayout && document.getElementById('title').textContent",
                               timeout=60_000)
        assert page.title().startswith("cS3VM (continuation) on n = 80")
        assert "Chapelle, Chi & Zien" in page.locator("#context").inner_text()
        before = page.evaluate("() => film.frame")
        page.get_by_text("◀ Step", exact=True).click()
        assert page.evaluate("() => film.frame") == before - 1  # it plays: a step back
    finally:
        page.context.set_offline(False)
        page.close()
