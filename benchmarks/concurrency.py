"""Does the server stay responsive, and its memory bounded, while a class works? (loopback only)

    python -m benchmarks.concurrency [--sessions 40] [--rounds 3] [--settle 20] [--root PATH]

Starts the app on a free loopback port. Then, ``--rounds`` times, ``--sessions`` visitors
open the Watch page at once, each on its own data (a different seed, so no run is shared) with
a solver that takes seconds, and wait for their film; when every film has come (or after
``--timeout`` seconds) they close their connections, and the server rests ``--settle``
seconds. Meanwhile two pollers, each in a process of its own so that neither waits for the
other, measure what a newcomer meets:

* the time ``/_stcore/health`` takes to answer, asked every 0.5 s;
* the time a new visitor's About page takes to run to its end, opened every 2 s.

Reported: median, 95th percentile and maximum of both over the rounds (with the idle server's
first), the time every visitor took to its film, the server's resident memory (RSS) before
the first round and after each, and whether every solver process has ended.

Visitors speak Streamlit's websocket protocol directly (no browser), so the machine's cores
go to the server and its solvers. ``--root`` measures another checkout of the app (e.g. an
older commit) with the same client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
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
#: The solver each visitor runs: deterministic annealing (hinge) on 400 two-moons points takes
#: a few seconds of one core.
LOAD = {"dataset": "two_moons", "n": 400, "noise": 0.1, "solver": "DeterministicAnnealingS3VM",
        "params": {}}
HEALTH_EVERY, ABOUT_EVERY = 0.5, 2.0


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


def scenario(seed: int) -> str:
    _, y = two_moons(n_samples=LOAD["n"], noise=LOAD["noise"], random_state=seed)
    labels = {str(int(np.flatnonzero(y == c)[0])): c for c in (0, 1)}
    return "scenario=" + quote(json.dumps({**LOAD, "seed": seed, "labels": labels}))


async def visit(port: int, page: str, query: str, hold: asyncio.Event | None = None,
                timeout: float = 120.0, arrived: asyncio.Event | None = None) -> float:
    """One visitor: open a session on ``page`` and wait for its script to finish (then set
    ``arrived``); with ``hold``, keep the connection open until it is set. Returns the seconds
    to the script's end (nan if it did not end within ``timeout``)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from tornado.websocket import websocket_connect

    start = time.perf_counter()
    took = float("nan")
    connection = await websocket_connect(f"ws://127.0.0.1:{port}/_stcore/stream",
                                         subprotocols=["streamlit"])
    try:
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = page
        await connection.write_message(message.SerializeToString(), binary=True)
        while (left := timeout - (time.perf_counter() - start)) > 0:
            try:
                raw = await asyncio.wait_for(connection.read_message(), left)
            except TimeoutError:
                break
            if raw is None:
                break
            forward = ForwardMsg()
            forward.ParseFromString(raw)
            if forward.WhichOneof("type") == "script_finished":
                took = time.perf_counter() - start
                break
        if arrived is not None:
            arrived.set()
        if hold is not None:
            await hold.wait()
    finally:
        connection.close()
    return took


def _poll_health(port: int, stop, results) -> None:
    """In a process of its own: the health answer's time every ``HEALTH_EVERY`` seconds."""
    times = []
    while not stop.is_set():
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                        timeout=120) as response:
                response.read()
        except OSError:
            pass
        times.append(time.perf_counter() - start)
        stop.wait(max(0.0, HEALTH_EVERY - times[-1]))
    results.put(times)


def _poll_about(port: int, stop, results) -> None:
    """In a process of its own: a new visitor's About page every ``ABOUT_EVERY`` seconds."""
    times = []
    while not stop.is_set():
        start = time.perf_counter()
        try:
            took = asyncio.run(visit(port, "about", ""))
        except Exception:  # noqa: BLE001 - no answer at all (a stalled server): counts as its wait
            took = time.perf_counter() - start
        times.append(took)
        stop.wait(max(0.0, ABOUT_EVERY - took))
    results.put(times)


class Pollers:
    """Both pollers for the time of a ``with`` block; ``times`` are theirs afterwards."""

    def __init__(self, port: int):
        context = multiprocessing.get_context("spawn")
        self._stop, self._results = context.Event(), context.Queue()
        self._processes = [context.Process(target=poll, args=(port, self._stop, self._results))
                           for poll in (_poll_health, _poll_about)]
        self.times: dict[str, list[float]] = {}

    def __enter__(self):
        for process in self._processes:
            process.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        found = [self._results.get(timeout=300) for _ in self._processes]
        for process in self._processes:
            process.join()
        # the health poller's list comes first unless the About poller ended before it
        health, about = sorted(found, key=len, reverse=True)
        self.times = {"health": health, "about": about}


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` (MB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


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


async def a_round(port: int, n_sessions: int, first_seed: int, timeout: float) -> list[float]:
    """``n_sessions`` visitors open the Watch page at once and wait for their films; they
    close together once all have come. Returns each one's seconds to its film."""
    hold = asyncio.Event()
    arrived = [asyncio.Event() for _ in range(n_sessions)]
    visitors = [asyncio.ensure_future(visit(port, "watch", scenario(first_seed + i), hold,
                                            timeout, arrived[i])) for i in range(n_sessions)]
    while not all(event.is_set() or visitor.done()
                  for event, visitor in zip(arrived, visitors, strict=True)):
        await asyncio.sleep(0.1)  # (a visitor that failed is done without its film)
    hold.set()
    return [t if isinstance(t, float) else float("nan")
            for t in await asyncio.gather(*visitors, return_exceptions=True)]


async def run(root: Path, n_sessions: int, rounds: int, settle: float, timeout: float) -> dict:
    port = free_port()
    server = start_server(root, port)
    result = {"rss": [], "films": [], "solvers left": []}
    try:
        await visit(port, "watch", scenario(100_000))  # warm: imports, solver processes
        await asyncio.sleep(2.0)
        with Pollers(port) as idle:
            await asyncio.sleep(10.0)
        result["idle"] = idle.times
        result["rss"].append(rss_mb(server.pid))
        with Pollers(port) as loaded:
            for index in range(rounds):
                films = await a_round(port, n_sessions, index * n_sessions, timeout)
                result["films"].append(films)
                await asyncio.sleep(settle)
                result["rss"].append(rss_mb(server.pid))
                result["solvers left"].append(solver_processes(server.pid))
                print(f"  round {index + 1}: films {summary(films)} s, server RSS "
                      f"{result['rss'][-1]:.0f} MB", file=sys.stderr)
        result["loaded"] = loaded.times
        return result
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def summary(values) -> str:
    """Median / 95th percentile / maximum; a visitor who got no answer counts as its wait."""
    values = sorted(v for v in values if v == v) or [float("nan")]
    p95 = values[min(len(values) - 1, int(np.ceil(0.95 * len(values))) - 1)]
    return f"{statistics.median(values):.3f} / {p95:.3f} / {values[-1]:.3f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=20.0,
                        help="seconds the server rests after each round (default 20)")
    parser.add_argument("--timeout", type=float, default=180.0,
                        help="seconds a visitor waits for its film (default 180)")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    n_sessions = max(1, min(args.sessions, 60))
    rounds = max(1, min(args.rounds, 20))
    result = asyncio.run(run(args.root.resolve(), n_sessions, rounds, args.settle,
                             args.timeout))
    films = [t for round_ in result["films"] for t in round_]
    missing = sum(t != t for t in films)
    print(f"{rounds} round(s) of {n_sessions} visitors opening the Watch page at once "
          f"({LOAD['solver']}, n = {LOAD['n']}), {args.settle:g} s of rest after each; "
          "median / 95th percentile / max seconds:\n")
    print("| measure | idle server | during the rounds |")
    print("|---|---|---|")
    for name, label in [("health", "/_stcore/health"),
                        ("about", "new visitor: About page to its end")]:
        print(f"| {label} | {summary(result['idle'][name])} | "
              f"{summary(result['loaded'][name])} |")
    print(f"| a visitor's film (Watch page to its end) | — | {summary(films)} |")
    print(f"\nVisitors without a film within {args.timeout:g} s: {missing} of {len(films)}.")
    idle, *after_rounds = (f"{mb:.0f}" for mb in result["rss"])
    print(f"Server RSS (MB): idle {idle}; after each round {', '.join(after_rounds)}.")
    print(f"Solver processes alive after each round's rest: {result['solvers left']}.")


if __name__ == "__main__":
    main()
