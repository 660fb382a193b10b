"""What the ``s3vm`` command costs beyond the library call on the same fit.

    python -m benchmarks.cli_overhead [--repeats 7] [--n 200 1000]

On two moons (2 labels per class) written to a CSV file in a temporary folder, for LapSVM and
∇TSVM at n points, interleaved ``--repeats`` times, whole processes timed from the outside:

* ``s3vm fit`` -- ``python -m s3vm_cli fit data.csv -s SOLVER -q`` (process start, imports,
  reading the file, the fit, writing ``.outputs`` and ``.predictions``);
* the library call in a process of its own -- ``python -c`` that builds the same arrays in
  memory and calls ``fit`` -- and the fit alone, timed inside it;
* the pieces: ``python -c pass`` (interpreter start), ``python -c "import s3vm_cli.commands,
  s3vm_core, toy_data.files"`` (imports), reading the file (``toy_data.files.read_data``, timed
  in-process).

Reports medians of wall time and of CPU time (user + system of the child process, which a
busy machine inflates far less than wall time); the overhead is ``s3vm fit`` minus the fit
alone, and minus the library's own process.
"""

from __future__ import annotations

import argparse
import csv
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.sweep import markdown_table
from toy_data import pick_labeled, two_moons

ROOT = Path(__file__).resolve().parents[1]
SOLVERS = {"lapsvm": "LapSVM", "tsvm": "GradientTSVM"}

LIBRARY = """
import time, numpy as np
from s3vm_core import {cls}
from toy_data import two_moons, pick_labeled
X, y = two_moons({n}, noise=0.1, random_state=0)
labels = pick_labeled(y, 2, random_state=0)
start, cpu = time.perf_counter(), time.process_time()
{cls}().fit(X, labels)
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def write_data(folder: Path, n: int) -> Path:
    X, y = two_moons(n, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    path = folder / f"moons_{n}.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["x1", "x2", "label"])
        for (a, b), label in zip(X.tolist(), labels.tolist(), strict=True):
            writer.writerow([repr(a), repr(b), "" if label == -1 else label])
    return path


def whole(command: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of a whole child process, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout


def measure(n: int, solver: str, repeats: int, folder: Path) -> dict[str, tuple[float, float]]:
    """``{what: (median wall seconds, median CPU seconds)}``."""
    from toy_data.files import read_data

    path = write_data(folder, n)
    py = sys.executable
    commands = {
        "cli": [py, "-m", "s3vm_cli", "fit", path.name, "-s", solver, "-q"],
        "library": [py, "-c", LIBRARY.format(cls=SOLVERS[solver], n=n)],
        "start": [py, "-c", "pass"],
        "imports": [py, "-c", "import s3vm_cli.commands, s3vm_core, toy_data.files"],
    }
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in (*commands, "fit", "read")}
    for _ in range(repeats):  # interleaved: a load change hits every column alike
        for name, command in commands.items():
            wall, cpu, printed = whole(command, folder)
            runs[name].append((wall, cpu))
            if name == "library":
                runs["fit"].append(tuple(map(float, printed.split())))
        start, cpu = time.perf_counter(), time.process_time()
        read_data(path)
        runs["read"].append((time.perf_counter() - start, time.process_time() - cpu))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
            for k, v in runs.items()}


def main(argv=None) -> list[list]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--n", type=int, nargs="+", default=[200, 1000])
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in args.n:
            for solver in SOLVERS:
                m = measure(n, solver, args.repeats, Path(folder))
                for column, kind in ((0, "wall"), (1, "CPU")):
                    v = {k: pair[column] for k, pair in m.items()}
                    rows.append([SOLVERS[solver], n, kind, f"{v['cli']:.2f}",
                                 f"{v['library']:.2f}", f"{v['fit']:.3f}",
                                 f"{v['cli'] - v['fit']:.2f}", f"{v['cli'] - v['library']:+.2f}",
                                 f"{v['start']:.2f}", f"{v['imports']:.2f}",
                                 f"{1000 * v['read']:.1f}"])
    header = ["solver", "n", "time", "s3vm fit (s)", "library, own process (s)",
              "fit alone (s)", "overhead vs fit (s)", "s3vm vs library process (s)",
              "python start (s)", "python + imports (s)", "read file (ms)"]
    print(f"\n### The command line's overhead (medians of {args.repeats})\n")
    print(markdown_table(header, rows))
    return rows


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
