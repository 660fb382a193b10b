"""How many bytes films take in a notebook: a notebook of two films run headless (nbclient),
as Jupyter runs it.

    python -m benchmarks.notebook_film_size [--n 150] [--save films.ipynb]

Two moons of ``--n`` points with one label per class, QN-S3VM then cS3VM (σ = 0.3; 57 and 55
frames at n = 150). Reports, for each film, its frames and the size of its cell's output: the
HTML, and the output as the saved .ipynb holds it (JSON, with its escapes); then the pieces of
the film's own payload (the film's arguments, by key, in its JSON) and the saved notebook's
file size. The player's scripts, where an output carries them, are counted apart.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path

CELLS = ("from s3vm_core import ContinuationS3VM, QNS3VM\n"
         "from s3vm_explorer.engine.notebook import film\n"
         "from toy_data import pick_labeled, two_moons\n"
         "X, y = two_moons({n}, noise=0.1, random_state=0)\n"
         "labels = pick_labeled(y, 1, random_state=0)",
         "film(QNS3VM(sigma=0.3), X, labels, y_true=y)",
         "film(ContinuationS3VM(sigma=0.3), X, labels, y_true=y)")
CARRIER = re.compile(r'<script type="text/plain" data-s3vm-player="\w+">[^<]*</script>')
FILM = re.compile(r'<script type="application/json" data-s3vm-film>(.*?)</script>', re.S)


def run_notebook(n: int, path: Path):
    import nbformat
    from nbclient import NotebookClient

    cells = [nbformat.v4.new_code_cell(CELLS[0].format(n=n)),
             *(nbformat.v4.new_code_cell(source) for source in CELLS[1:])]
    notebook = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    nbformat.write(notebook, path)
    return notebook


def megabytes(size: int) -> str:
    return f"{size / 1e6:.3f} MB"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=150, help="points (default 150)")
    parser.add_argument("--save", type=Path, help="keep the notebook run here")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = options.save or Path(folder) / "films.ipynb"
        notebook = run_notebook(options.n, path)
        print(f"n = {options.n}; the notebook: {megabytes(path.stat().st_size)}\n")
        print("| film | frames | output (HTML) | output in the .ipynb | of it, player's scripts |")
        print("|---|---|---|---|---|")
        payloads = []
        for name, cell in zip(("QN-S3VM", "cS3VM"), notebook.cells[1:], strict=True):
            (output,) = cell.outputs
            shown = output["data"]["text/html"]
            carried = sum(len(m.encode()) for m in CARRIER.findall(shown))
            film = FILM.search(shown)
            args = json.loads(film.group(1))["args"] if film else None
            frames = len(args["states"]) if args else "?"
            print(f"| {name} | {frames} | {megabytes(len(shown.encode()))} | "
                  f"{megabytes(len(json.dumps(shown)))} | {megabytes(carried)} |")
            payloads.append((name, args))
        for name, args in payloads:
            if args is None:
                continue
            sizes = sorted(((len(json.dumps(v, separators=(",", ":"))), k)
                            for k, v in args.items()), reverse=True)
            print(f"\n{name}'s film, {megabytes(sum(s for s, _ in sizes))} of JSON: " +
                  ", ".join(f"{k} {s / 1e3:.1f} kB" for s, k in sizes[:6]))


if __name__ == "__main__":
    main()
