"""How fast the app feels, measured in a real browser (Debian's chromium).

    python -m benchmarks.app_speed [--repeats 5]

Starts the app on a free loopback port and reports, as markdown tables:

* click on a point -> page updated with the new label (median over clicks), for n = 200 and 500,
  and click on empty space -> point added;
* Run -> first boundary and Run -> film ready, for every solver on two moons with n = 300: a
  new seed in the sidebar (new data and labels, so nothing is cached) until the running
  solver's first preview is drawn (or the film, for a run that ends before its first
  preview), and until the player has drawn the film — the solver's full trace, the grid
  decisions, the player's arguments and the browser's drawing; and the player's payload in MB
  (with the supervised SVM's boundary, shown by default);
* frames per second of ▶ Play's pass over the film in the browser (``ui.player``), at 1x.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import numpy as np

from toy_data import two_moons

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Page coordinates of the data point (x, y) in the first plotly chart.
PIXEL = """([x, y]) => { const gd = document.querySelector('.js-plotly-plot');
    const l = gd._fullLayout, b = gd.getBoundingClientRect();
    return [b.left + l._size.l + l.xaxis.l2p(x), b.top + l._size.t + l.yaxis.l2p(y)]; }"""
MOONS_300 = ("two_moons", 300, 0.1, 0)


def one_label_per_class(y) -> dict[str, int]:
    """The first point of each class, as a scenario's labels."""
    return {str(int(np.flatnonzero(y == cls)[0])): cls for cls in (0, 1)}


LABELED = """() => [...document.querySelectorAll('[data-testid="stMetric"]')]
    .find(m => m.innerText.includes('class 1 labeled'))
    .querySelector('[data-testid="stMetricValue"]').innerText.trim()"""


def start_server(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return process
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError("the app did not start")


def scenario_url(base: str, page: str = "", **scenario) -> str:
    return f"{base}/{page}?scenario={quote(json.dumps(scenario))}"


def click_latency(page, base: str, n: int, clicks: int) -> tuple[float, int]:
    page.goto(scenario_url(base, dataset="two_moons", n=n, noise=0.1, seed=0,
                           labels={"0": 0, "1": 1}))
    page.wait_for_selector(".js-plotly-plot")
    time.sleep(1.0)
    X, _ = two_moons(n, noise=0.1, random_state=0)
    return median_click_time(page, [(PIXEL, X[i].tolist()) for i in range(2, 2 + clicks)],
                             LABELED)


#: A click the page has not answered within this time (ms) is counted as missed, not timed.
CLICK_TIMEOUT_MS = 10_000


def median_click_time(page, targets, count: str) -> tuple[float, int]:
    """Median time from a click to a change of the metric read by ``count`` (a JS function),
    and the number of clicks the page did not answer within ``CLICK_TIMEOUT_MS`` (left out of
    the median: on a loaded machine a click on the Data page's chart is now and then lost, in
    about one run of the benchmark in three); ``targets`` are ``(JS function, its argument)``
    giving each click's page coordinates."""
    from playwright.sync_api import TimeoutError as NoAnswer

    times, missed = [], 0
    for where, arg in targets:
        before = page.evaluate(count)
        x, y = page.evaluate(where, arg)
        start = time.perf_counter()
        page.mouse.click(x, y)
        try:
            page.wait_for_function(f"b => ({count})() !== b", arg=before,
                                   timeout=CLICK_TIMEOUT_MS)
        except NoAnswer:
            missed += 1
            continue
        times.append(time.perf_counter() - start)
        time.sleep(0.3)
    return (statistics.median(times) if times else float("nan")), missed


#: Empty corners of two moons (n = 200, seed 0), where a click adds a point.
EMPTY_PLACES = [(-1.0, -0.7), (-0.6, -0.75), (2.0, 1.1), (1.6, 1.2), (2.1, 0.9)]
UNLABELED = LABELED.replace("class 1 labeled", "unlabeled")


def add_latency(page, base: str) -> tuple[float, int]:
    """Median time from a click on empty space (add mode: an unlabeled point of class 1) to
    the page counting the new point, over ``EMPTY_PLACES``."""
    page.goto(scenario_url(base, dataset="two_moons", n=200, noise=0.1, seed=0,
                           labels={"0": 0, "1": 1}))
    page.wait_for_selector(".js-plotly-plot")
    page.get_by_role("combobox", name="A click on empty space adds").click()
    page.get_by_text("an unlabeled point of class 1", exact=True).click()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?._fullData?.length === 2")
    time.sleep(1.0)
    return median_click_time(page, [(PIXEL, list(place)) for place in EMPTY_PLACES], UNLABELED)


RUNNING = """() => [...document.querySelectorAll('.js-plotly-plot .annotation-text')]
    .some(a => a.textContent.startsWith('running'))"""
PLAYER = 'iframe[title="s3vm_explorer.ui.player.film_player"]'


def player(page):
    """The player's frame, once it shows a film."""
    frame = page.wait_for_selector(PLAYER, timeout=120_000).content_frame()
    frame.wait_for_function("() => window.film && window.film.films > 0", timeout=120_000)
    return frame


def first_frame(page, base: str, solver: str, repeats: int) -> tuple[float, float]:
    """Medians of the time from a new seed (new data, new labels: a cold run) to the first
    boundary drawn (the running solver's preview, or the film when the run ends first) and to
    the film ready to play."""
    name, n, noise, seed = MOONS_300
    _, y = two_moons(n, noise=noise, random_state=seed)
    page.goto(scenario_url(base, "watch", dataset=name, n=n, noise=noise, seed=seed,
                           labels=one_label_per_class(y), solver=solver, params={}))
    player(page)
    firsts, films = [], []
    for new_seed in range(seed + 1, seed + 1 + repeats):
        # A new film is a new player (after a preview) or one more film in the same player.
        drawn = page.evaluate(f"""() => {{ const frame = document.querySelector('{PLAYER}');
            frame.dataset.old = 'yes'; return frame.contentWindow.film.films; }}""")
        new_film = f"""() => {{ const frame = document.querySelector('{PLAYER}');
            const film = frame && frame.contentWindow.film;
            return !!film && (frame.dataset.old ? film.films > {drawn} : film.films > 0); }}"""
        seed_box = page.get_by_label("seed")
        seed_box.fill(str(new_seed))
        start = time.perf_counter()
        seed_box.press("Enter")
        try:
            page.wait_for_selector('[data-test-script-state="running"]', timeout=2_000)
        except Exception:  # noqa: BLE001 - a very fast run may finish before we look
            pass
        page.wait_for_function(f"() => ({RUNNING})() || ({new_film})()", polling="raf",
                               timeout=120_000)
        firsts.append(time.perf_counter() - start)
        page.wait_for_function(new_film, polling="raf", timeout=120_000)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                      "requestAnimationFrame(r)))")
        films.append(time.perf_counter() - start)
    return statistics.median(firsts), statistics.median(films)


def play_fps(page) -> tuple[float, int, float]:
    """How closely ▶ Play keeps the film's pace: the frames shown per second of the time the
    film asks for at 1x (``engine.film.frame_durations``: 1.0 when every frame is shown on
    time, below when the browser falls behind), over the pass from the first frame shown to
    the last; the number of frames; and the median script time of drawing one frame (ms),
    which says how far below the shortest frame time the player runs."""
    frame = player(page)
    frame.get_by_text("▶ Play", exact=True).click()
    frame.wait_for_function("() => !film.playing", timeout=180_000)
    stamps = frame.evaluate("() => film.drawn")
    n_frames = frame.evaluate("() => args.states.length")
    asked = frame.evaluate("() => args.frame_ms.slice(0, -1).reduce((a, b) => a + b, 0)")
    draw_ms = frame.evaluate("""() => { const times = [];
        for (let k = 0; k < args.states.length; k++) {
            const start = performance.now(); show(k); times.push(performance.now() - start); }
        times.sort((a, b) => a - b); return times[times.length >> 1]; }""")
    if len(stamps) < 2:
        return float("nan"), n_frames, draw_ms  # a trace of one state has nothing to play
    return asked / (stamps[-1] - stamps[0]), n_frames, draw_ms


def payload_mb(solver: str) -> float:
    """Size of the player's arguments as the Watch page sends them (the supervised SVM's
    boundary and error included): JSON and bytes."""
    from s3vm_explorer.engine.data import Generated
    from s3vm_explorer.engine.protocol import RunRequest
    from s3vm_explorer.ui.runs import dataset, run_solver

    source = Generated(*MOONS_300)
    y = dataset(source).y_true
    labels = np.full(len(y), -1)
    for index, cls in one_label_per_class(y).items():
        labels[int(index)] = cls
    run = run_solver(RunRequest(source, tuple(labels.tolist()), solver, ()))
    args = {**run.films[True], "film": "0" * 16}
    binary = {k: v for k, v in args.items() if isinstance(v, bytes)}
    text = json.dumps({k: v for k, v in args.items() if k not in binary})
    return (len(text) + sum(map(len, binary.values()))) / 1e6


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="clicks per data size")
    parser.add_argument("--solvers", nargs="+", help="only these solvers (default: all)")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from s3vm_explorer.engine.registry import SOLVERS

    with socket.socket() as free:  # a free port: other servers may be running here
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(
                profile, executable_path="/usr/bin/chromium", args=FLAGS, headless=True,
                viewport={"width": 1400, "height": 1000})
            page = browser.new_page()
            print("| n | click -> label shown (median s) | clicks missed |\n|---|---|---|")
            for n in (200, 500):
                median, missed = click_latency(page, base, n, args.repeats)
                print(f"| {n} | {median:.3f} | {missed} of {args.repeats} |")
            median, missed = add_latency(page, base)
            print(f"\nclick on empty space -> point added (median s, n = 200): {median:.3f} "
                  f"({missed} of {len(EMPTY_PLACES)} clicks missed)")
            print("\n| solver | Run -> first boundary (s) | Run -> film ready (s) | frames | "
                  "payload (MB) | Play (on time) | one frame's script (ms) |")
            print("|---|---|---|---|---|---|---|")
            for solver in args.solvers or SOLVERS:
                first, film = first_frame(page, base, solver, 3)
                fps, frames, draw_ms = play_fps(page)
                payload = payload_mb(solver)
                print(f"| {solver} | {first:.2f} | {film:.2f} | {frames} | {payload:.2f} | "
                      f"{fps:.2f} | {draw_ms:.1f} |")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
