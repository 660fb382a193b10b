"""The Watch page's film of a trace, in a notebook: ``film(model, X, y)`` plays inline in
Jupyter (``_repr_html_``) and saves as one page that plays offline (``Film.save``), the
same player and page as the app's "Save the film as a page".

    from s3vm_core import ContinuationS3VM
    from s3vm_explorer.engine.notebook import film

    model = ContinuationS3VM(sigma=0.3)
    film(model, X, y, y_true=y_true)       # the last line of a cell: the player
    film(model, X, y).save("cs3vm.html")   # a page that plays in any browser, offline

It draws data of any dimension as the app does (``engine.data.View``: the data's plane, the
line of 1-D data, or the plane of its first two principal components through the mean).

The player's scripts (plotly.js, the GIF writer and the player: 4.8 MB, 2 MB compressed) travel
once in a notebook: the first film a kernel shows carries them in its output, compressed in a
script element that no page runs. Every film's frame (the player's page in srcdoc, of the
notebook page's origin) reads them from the page and its film from its own output, beside the
frame, unescaped (``film_player/notebook.js``): a film of 150 points and 55 frames is 0.12 MB
of output instead of 5.7 (``python -m benchmarks.notebook_film_size``). Another run of the cell
that carried them carries them again, where the notebook says which cell runs (JupyterLab and
Notebook 7 do). Where that output is gone, a film says so and names the remedy,
``player_scripts()`` in a cell (the films waiting for them then start) or ``film(...,
scripts=True)``, the latter also where each output is a page of its own (as in Colab); a film
drawn again on a page that has had them plays from the page's memory, and says that a copy
saved now would not play. A saved notebook and its export to HTML (nbconvert) keep the
outputs, and so play as shown.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math
import zlib
from pathlib import Path

import numpy as np

from s3vm_core import OneVsRestS3VM
from s3vm_core.metrics import UNLABELED
from s3vm_explorer.engine.data import Data, View
from s3vm_explorer.engine.film import (
    PLAYER_FOLDER,
    film_args,
    film_page,
    player_digest,
    player_sources,
    saved_film,
    script,
)
from s3vm_explorer.engine.protocol import Baseline, Run, RunFinished
from s3vm_explorer.engine.registry import SOLVERS
from s3vm_explorer.engine.run.process import grid_decisions, pick_frames, supervised_baseline
from toy_data.files import counted

#: Height (px) of the player's frame in a notebook's output.
HEIGHT = 820
#: The script that starts the player in a film's frame in a notebook.
LOADER = PLAYER_FOLDER / "notebook.js"
#: What a film says where the player's scripts are not on the page.
MISSING = ("This film cannot play: the player's scripts (plotly.js and the player) are not on "
           "this page. They travel once in a notebook, in the output of the first film a "
           "kernel shows, and that output is gone (cleared, or saved without it). Run "
           "player_scripts() from s3vm_explorer.engine.notebook in a cell (or show a film with "
           "film(..., scripts=True)): this film then plays.")
#: What it says where it plays from scripts the page kept after their output went.
FROM_MEMORY = ("Playing from this page's memory: the output that carried the player's scripts "
               "(the first film's) is not on the page, so a copy of this notebook saved now "
               "will not play. player_scripts() in a cell carries them again.")
#: What it says where it cannot read the notebook's page (a frame of another origin).
UNREADABLE = ("This film cannot read its notebook's page (the notebook shows outputs in frames "
              "of another origin). Save it with film(...).save(\"film.html\") and open that "
              "page.")
#: The digests of the player's scripts this kernel has shown, with the run of a cell that
#: showed them last (``_running``).
_CARRIED: dict[str, tuple[str | None, str | None]] = {}


class Film:
    """A film: shown inline by Jupyter (``_repr_html_``), its page (``page``) saved by
    ``save``. ``args`` are the player's arguments (``engine.film.film_args``); with
    ``scripts`` its output carries the player's scripts whether or not another does."""

    def __init__(self, args: dict, title: str, scripts: bool = False):
        self.args, self.title, self.scripts = args, title, scripts

    @functools.cached_property
    def page(self) -> str:
        """The player and its film as one page that plays offline (``engine.film.film_page``),
        plotly.js inlined."""
        return film_page(self.args)

    def _repr_html_(self) -> str:
        # A frame of its own: the player's page keeps its ids, styles and scripts apart from
        # the notebook's (and from another film's in the same notebook). Its film stands
        # beside it, unescaped: inside srcdoc every quote would be six characters.
        carried = _carrier() if _carries_scripts(asked=self.scripts) else ""
        return (f'<div class="s3vm-film">{carried}'
                f'<script type="application/json" data-s3vm-film>{saved_film(self.args)}'
                f'</script><iframe srcdoc="{html.escape(_frame_page(), quote=True)}" '
                f'title="{html.escape(self.title)}" '
                f'style="width: 100%; height: {HEIGHT}px; border: none;"></iframe></div>')

    def save(self, path) -> Path:
        """Write the page (a file that plays offline, in any browser) to ``path``."""
        path = Path(path)
        path.write_text(self.page, encoding="utf-8")
        return path

    def __repr__(self) -> str:
        return f"Film({self.title!r})"


class PlayerScripts:
    """The player's scripts as a notebook output (``player_scripts``)."""

    def _repr_html_(self) -> str:
        _carries_scripts(asked=True)
        size = len(_packed_scripts()) / 1e6
        return (f"<div>The film player's scripts (plotly.js and the player, {size:.1f} MB): the "
                f"films on this page play with them.{_carrier()}</div>")

    def __repr__(self) -> str:
        return "PlayerScripts()"


def player_scripts() -> PlayerScripts:
    """The player's scripts as a cell's output, for the films of the page to play with: where
    the output that carried them (the first film's) was cleared, or in a notebook that shows
    films made elsewhere. The last line of a cell, as a film is."""
    return PlayerScripts()


def _running() -> tuple[str | None, str | None]:
    """The cell the kernel runs now and the request that runs it, where the notebook says
    (JupyterLab and Notebook 7 send the cell's id with each request to run it)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None, None
    kernel = getattr(get_ipython(), "kernel", None)
    request = (kernel.get_parent() if hasattr(kernel, "get_parent") else None) or {}
    return (request.get("metadata", {}).get("cellId"),
            request.get("header", {}).get("msg_id"))


def _carries_scripts(asked: bool = False) -> bool:
    """Whether the output shown now carries the player's scripts: always where ``asked``;
    otherwise the first film this kernel shows does, and the first that another run of the
    cell that carried them last shows (the run replaces the output that carried them)."""
    digest, (cell, run) = player_digest(), _running()
    if digest in _CARRIED and not asked:
        carrier_cell, carrier_run = _CARRIED[digest]
        if cell is None or cell != carrier_cell or run == carrier_run:
            return False
    _CARRIED[digest] = cell, run
    return True


@functools.cache
def _packed_scripts() -> str:
    """The player's scripts (``engine.film.player_sources``) as ``notebook.js`` reads them:
    base64 of the zlib-compressed JSON ``[[file name, text], ...]``."""
    packed = zlib.compress(json.dumps(player_sources()).encode(), 9)
    return base64.b64encode(packed).decode("ascii")


def _carrier() -> str:
    """The element that carries the player's scripts: of a type no page runs, its digest the
    one a film's frame looks for."""
    return (f'<script type="text/plain" data-s3vm-player="{player_digest()}">'
            f"{_packed_scripts()}</script>")


@functools.cache
def _frame_page() -> str:
    """The page in a film's frame: the player's page, whose scripts ``notebook.js`` runs
    once it has found them on the notebook's page."""
    page = (PLAYER_FOLDER / "index.html").read_text(encoding="utf-8")
    texts = {"player": player_digest(), "missing": MISSING, "memory": FROM_MEMORY,
             "unreadable": UNREADABLE}
    attributes = " ".join(f'data-{key}="{html.escape(value, quote=True)}"'
                          for key, value in texts.items())
    loader = script(LOADER.read_text(encoding="utf-8"))
    loader = loader.replace("<script>", f"<script {attributes}>", 1)
    head, _, rest = page.partition('<script src="plotly.min.js"></script>')
    _, _, tail = rest.partition('<script src="player.js"></script>')
    return head + loader + tail


def _codes(labels, classes) -> np.ndarray:
    """Labels in the caller's classes as indices 0 .. k-1 of ``classes``, -1 elsewhere."""
    labels = np.asarray(labels, dtype=object)
    codes = np.full(len(labels), UNLABELED)
    for code, name in enumerate(classes):
        codes[labels == name] = code
    return codes


def film(estimator, X, y, states=None, *, y_true=None, baseline: bool = True,
         title: str | None = None, scripts: bool = False) -> Film:
    """The film of ``estimator``'s trace on ``(X, y)`` (``y`` with -1 for unlabeled points).

    ``states`` is the trace already run (``list(estimator.trace(X, y))``), else it is run
    here; either way the estimator is fitted afterwards. ``y_true`` (the true classes, -1
    where unknown) adds the unlabeled error frame by frame; with ``baseline`` the supervised
    SVM's boundary is drawn dashed and its error is the reference. ``title`` names the film
    (by default the estimator and the data's size). With ``scripts`` its output carries the
    player's scripts (2 MB) even where an earlier film's does (see the module's docstring).
    """
    X = np.asarray(X, dtype=float)
    if states is None:
        states = list(estimator.trace(X, y))
    classes = estimator.classes_
    labels = _codes(y, classes)
    truth = None if y_true is None else np.where(np.asarray(y_true) == UNLABELED, UNLABELED,
                                                 _codes(y_true, classes))
    # the caller's own data, in its own units: drawn to fill the chart, as an upload is
    data = Data(X, labels if truth is None else truth, View.of(X, fill=True))
    grid = data.grid_features(estimator)
    frames = pick_frames(states)
    shown = [states[i] for i in frames]
    reference = _baseline(estimator, data, y) if baseline else None
    finished = RunFinished(
        frames=frames, grid_x=grid[0], grid_y=grid[1], grid_decisions=grid_decisions(grid, shown),
        point_decisions=np.stack([s.train_decision for s in shown]).astype(np.float32),
        seconds=math.nan, baseline=reference)
    run = Run.assemble(states, finished)
    solver = _solver_of(estimator)
    name = title or (solver.title if solver else type(estimator).__name__)
    n_labeled = int(np.sum(labels != UNLABELED))
    context = {"solver": name, "paper": solver.paper if solver else "",
               "data": f"n = {len(X)}, {n_labeled} labeled, {counted(X.shape[1], 'feature')}",
               "name": "-".join("".join(c if c.isalnum() else " " for c in name.lower())
                                .split()) or "s3vm-film"}
    args = film_args(run, data.X2, labels, truth, show_baseline=baseline,
                     axis_titles=data.view.titles, context=context)
    return Film({**args, "film": "notebook"}, name, scripts)


def _solver_of(estimator):
    """The app's entry of ``estimator``'s solver (its title and paper), if it has one."""
    inner = estimator.estimator if isinstance(estimator, OneVsRestS3VM) else estimator
    return next((s for s in SOLVERS.values() if s.estimator is type(inner)), None)


def _baseline(estimator, data: Data, y) -> Baseline:
    """The supervised SVM that is fair beside ``estimator``, as on the Watch page
    (``engine.run.process.supervised_baseline``)."""
    return supervised_baseline(data, y, estimator)
