"""A long run in a real browser: Stop ends it and shows the path so far, a closed tab frees its
CPU, and a second visitor with the same link follows the same run."""

import json
import os
import re
import time
from pathlib import Path
from urllib.parse import quote, urlparse

import numpy as np
import pytest
from browser_helpers import film_player, screenshot

from toy_data import two_moons

pytestmark = pytest.mark.e2e

#: Deterministic annealing with the squared hinge loss (a Newton solve per step) needs minutes
#: on 2000 points, within a budget of ten: every run below is stopped long before it ends.
N = 2000


def long_run_link(server: str, seed: int) -> str:
    _, y = two_moons(n_samples=N, noise=0.1, random_state=seed)
    labels = {str(int(np.flatnonzero(y == c)[0])): c for c in (0, 1)}
    scenario = {"dataset": "two_moons", "n": N, "noise": 0.1, "seed": seed, "labels": labels,
                "solver": "DeterministicAnnealingS3VM", "params": {"loss": "squared_hinge"},
                "budget": 600}
    return f"{server}/watch?scenario={quote(json.dumps(scenario))}"


def _server_pid(server: str) -> int:
    port = f"--server.port\0{urlparse(server).port}\0"
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if port in (entry / "cmdline").read_text():
                    return int(entry.name)
            except OSError:
                continue
    raise LookupError("the app's server process was not found")


def solver_processes(server: str) -> list[int]:
    """Niced descendants of the app's server that are not zombies: its solver processes."""
    parents, nice, state = {}, {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(entry.name)
            state[pid], parents[pid], nice[pid] = fields[0], int(fields[1]), int(fields[16])
    found, todo = [], [_server_pid(server)]
    while todo:
        parent = todo.pop()
        for pid, ppid in parents.items():
            if ppid == parent:
                todo.append(pid)
                if nice[pid] > 0 and state[pid] != "Z":
                    found.append(pid)
    return found


def wait_for(condition, timeout: float, message: str):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, message
        time.sleep(0.2)
    return value


def running(page):
    """Until the run has recorded a state (its status line counts them)."""
    page.get_by_text(re.compile(r"time budget · [1-9]\d* states? so far")).wait_for(
        timeout=90_000)


def stop_button(page):
    """The page's Stop (not the one in Streamlit's toolbar, which stops the script)."""
    return page.locator('[data-testid="stButton"]').get_by_role("button", name="Stop")


def test_stop_ends_the_run_and_shows_the_path_so_far(server, page):
    page.goto(long_run_link(server, seed=1))
    running(page)
    children = wait_for(lambda: solver_processes(server), 30, "no solver process started")
    assert all(os.getpriority(os.PRIO_PROCESS, pid) > 0 for pid in children)
    try:  # a browser on a loaded machine may take a while to draw a fresh page's widgets
        stop_button(page).click(timeout=60_000)
    except Exception:
        screenshot(page, "stop_not_clickable")
        raise
    page.get_by_text("It was stopped").wait_for(timeout=30_000)
    try:
        film_player(page)
    finally:
        screenshot(page, "stopped_run")
    wait_for(lambda: not solver_processes(server), 5, "the stopped run still computes")
    assert page.get_by_role("button", name="Run again").count() == 1


def test_a_closed_tab_frees_its_cpu(server, browser):
    page = browser.new_page()
    page.goto(long_run_link(server, seed=2))
    running(page)
    wait_for(lambda: solver_processes(server), 30, "no solver process started")
    page.close()
    wait_for(lambda: not solver_processes(server), 15, "the abandoned run still computes")


def test_a_second_visitor_with_the_same_link_follows_the_same_run(server, browser):
    link = long_run_link(server, seed=3)
    first, second = browser.new_page(), browser.new_page()
    try:
        first.goto(link)
        running(first)
        wait_for(lambda: solver_processes(server), 30, "no solver process started")
        second.goto(link)
        running(second)
        assert len(solver_processes(server)) == 1  # one run, followed by both
        stop_button(second).click(timeout=60_000)
        for page in (second, first):
            page.bring_to_front()  # a background tab may hold its drawing back
            page.get_by_text("the film shows the path so far").wait_for(timeout=30_000)
    finally:
        first.close()
        second.close()
