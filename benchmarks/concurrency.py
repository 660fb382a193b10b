"""Does the server stay responsive while many sessions run solvers? (loopback only)

    python -m benchmarks.concurrency [--sessions 20] [--seconds 30] [--root PATH]

Starts the app on a free loopback port and measures, first with no session and then while
``--sessions`` sessions each open the Watch page on their own data (a different seed each, so
no run is shared) with a solver that takes seconds:

* the time ``/_stcore/health`` takes to answer (polled every 0.25 s);
* the time ``/`` (the page's HTML) takes to load;
* the time a new session takes to run the About page to its end (a page load as a visitor
  sees it, scripts included);
* how many solver processes are alive, and whether they are gone a few seconds after the
  sessions have closed their connections (abandoned runs are ended).

Sessions speak Streamlit's websocket protocol directly (no browser), so the machine's cores
go to the server and its solvers. Bounded: at most 40 sessions and 120 s of load. ``--root``
measures another checkout of the app (e.g. an older commit) with the same client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import numpy as np

from toy_data import two_moons

ROOT = Path(__file__).resolve().parents[1]
#: The solver each loading session runs: deterministic annealing (hinge) on 400 two-moons
#: points takes several seconds of one core.
LOAD = {"dataset": "two_moons", "n": 400, "noise": 0.1, "solver": "DeterministicAnnealingS3VM",
        "params": {}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(root: Path, port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port),
         "--browser.gatherUsageStats", "false"],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return process
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError("the app did not start within 60 s")


def timed_get(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
    return time.perf_counter() - start


def scenario(seed: int) -> str:
    _, y = two_moons(n_samples=LOAD["n"], noise=LOAD["noise"], random_state=seed)
    labels = {str(int(np.flatnonzero(y == c)[0])): c for c in (0, 1)}
    return "scenario=" + quote(json.dumps({**LOAD, "seed": seed, "labels": labels}))


async def session(port: int, page: str, query: str, finished: asyncio.Event | None = None,
                  hold: asyncio.Event | None = None) -> float:
    """One visitor: open a session on ``page``, wait for its script to finish (or for
    ``hold`` to be set); returns the seconds to the script's end (nan if held first)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from tornado.websocket import websocket_connect

    start = time.perf_counter()
    connection = await websocket_connect(f"ws://127.0.0.1:{port}/_stcore/stream",
                                         subprotocols=["streamlit"])
    message = BackMsg()
    message.rerun_script.query_string = query
    message.rerun_script.page_name = page
    await connection.write_message(message.SerializeToString(), binary=True)
    took = float("nan")
    try:
        while True:
            reading = asyncio.ensure_future(connection.read_message())
            waits = [reading] + ([asyncio.ensure_future(hold.wait())] if hold else [])
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if reading not in done:
                reading.cancel()
                break
            raw = reading.result()
            if raw is None:
                break
            forward = ForwardMsg()
            forward.ParseFromString(raw)
            if forward.WhichOneof("type") == "script_finished":
                took = time.perf_counter() - start
                if finished is not None:
                    finished.set()
                if hold is None:
                    break
    finally:
        connection.close()
    return took


def solver_processes(server_pid: int) -> int:
    """Solver children alive: the niced descendants of the server."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,ni"], capture_output=True, text=True).stdout
    rows = [tuple(map(int, line.split())) for line in out.splitlines()[1:]
            if line.split()[2].lstrip("-").isdigit()]
    children: dict[int, list] = {}
    for pid, ppid, nice in rows:
        children.setdefault(ppid, []).append((pid, nice))
    alive, todo = 0, [server_pid]
    while todo:
        for pid, nice in children.get(todo.pop(), []):
            alive += nice > 0
            todo.append(pid)
    return alive


async def measure(port: int, seconds: float, probe_every: float = 0.25) -> dict:
    """Health and HTML latencies and a new session's About page, for ``seconds``."""
    loop = asyncio.get_running_loop()
    health, html, about = [], [], []
    begin = time.monotonic()
    end = begin + seconds
    next_page = time.monotonic()
    while time.monotonic() < end:
        health.append(await loop.run_in_executor(
            None, timed_get, f"http://127.0.0.1:{port}/_stcore/health"))
        if health[-1] > 0.5:
            print(f"  slow health probe at {time.monotonic() - begin:.1f} s: {health[-1]:.2f} s",
                  file=sys.stderr)
        if time.monotonic() >= next_page:
            html.append(await loop.run_in_executor(None, timed_get, f"http://127.0.0.1:{port}/"))
            about.append(await session(port, "about", ""))
            if about[-1] > 1.0:
                print(f"  slow About page at {time.monotonic() - begin:.1f} s: {about[-1]:.2f} s",
                      file=sys.stderr)
            next_page = time.monotonic() + 2.0
        await asyncio.sleep(probe_every)
    return {"health": health, "html": html, "about": about}


def summary(values) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return f"{statistics.median(values):.3f} / {p95:.3f} / {values[-1]:.3f}"


async def run(root: Path, n_sessions: int, seconds: float) -> dict:
    port = free_port()
    server = start_server(root, port)
    try:
        await session(port, "watch", scenario(10_000))  # warm: imports, solver processes
        idle = await measure(port, min(10.0, seconds))
        hold = asyncio.Event()
        visitors = [asyncio.ensure_future(session(port, "watch", scenario(seed), None, hold))
                    for seed in range(n_sessions)]
        await asyncio.sleep(1.0)
        busy_alive = solver_processes(server.pid)
        loaded = await measure(port, seconds)
        busy_alive = max(busy_alive, solver_processes(server.pid))
        hold.set()
        await asyncio.gather(*visitors, return_exceptions=True)
        closed_at = time.monotonic()
        while solver_processes(server.pid) and time.monotonic() - closed_at < 15:
            await asyncio.sleep(0.25)
        freed_after = time.monotonic() - closed_at
        return {"idle": idle, "loaded": loaded, "solvers alive under load": busy_alive,
                "solvers freed after (s)": freed_after,
                "solvers left": solver_processes(server.pid)}
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    n_sessions = max(1, min(args.sessions, 40))
    seconds = max(5.0, min(args.seconds, 120.0))
    result = asyncio.run(run(args.root.resolve(), n_sessions, seconds))
    print(f"{n_sessions} sessions running the Watch page ({LOAD['solver']}, n = {LOAD['n']}), "
          f"{seconds:g} s of load; median / 95th percentile / max seconds:\n")
    print("| measure | idle server | under load |")
    print("|---|---|---|")
    for name, label in [("health", "/_stcore/health"), ("html", "GET / (the page's HTML)"),
                        ("about", "new session: About page run to its end")]:
        print(f"| {label} | {summary(result['idle'][name])} | "
              f"{summary(result['loaded'][name])} |")
    print(f"\nSolver processes alive under load: {result['solvers alive under load']}; "
          f"all ended {result['solvers freed after (s)']:.1f} s after the sessions closed "
          f"({result['solvers left']} left).")


if __name__ == "__main__":
    main()
