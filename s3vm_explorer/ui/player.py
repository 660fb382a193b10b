"""The Watch page's film: a solver run played in the browser by a small custom component.

plotly's own animation (frames and ``Plotly.animate``) redraws the whole figure for every frame,
which held Play at about 8 frames per second in a browser without a GPU. This player
(``engine/film_player/``) lets plotly.js draw ``engine.figures.film.player_figure`` once and then,
per frame, paints the decision function and its level lines on a canvas beneath the plot, sets
the points' colours on plotly's markers (a plotly restyle would redraw the figure), moves the
progress markers of the objective and stage-value charts and shows the frame's numbers. Its
arguments (``engine.film.film_args``) are built in the solver's process.

The player saves what it shows (``engine/film_player/player.js``, its "Save" row): the frame on
screen as a PNG and the film as an animated GIF, drawn in the browser by the same code that
draws the film (``gif.js`` writes the GIF), and itself with its film as one HTML file that
plays offline (plotly.js inlined). It follows Streamlit's theme (light or dark).

The page shows the details of the state the film stopped on (Pause, Step, the scrubber, the
end of Play): the component returns ``{"film": its id, "state": index into run.states or None,
"speed", "loop", "report": a count}``; ``state`` is None when only the speed or the loop
changed.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

from s3vm_explorer.engine.film import PLAYER_FILES, PLAYER_FOLDER, PLOTLY_JS
from s3vm_explorer.engine.params import FILM_SPEEDS
from s3vm_explorer.ui import state as keys

FRONTEND = PLAYER_FOLDER


def _served_folder() -> Path:
    """A new temporary folder holding the player's page, its script and the installed
    plotly.min.js, removed when the process ends: the folder Streamlit serves the player from.

    Streamlit serves a component's files from one folder and refuses links that lead out of it
    (symbolic links included), and the page needs plotly.js beside it. Copying plotly.js into
    ``FRONTEND`` would write into the app's own source tree while it runs: Streamlit's file
    watcher then offers to rerun ("File change"), and a read-only install cannot be written at
    all. (A change to ``engine/film_player/`` therefore shows after a restart of the server.)
    """
    folder = Path(tempfile.mkdtemp(prefix="s3vm-explorer-player-"))  # this process's own
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for source in (*(FRONTEND / name for name in PLAYER_FILES), PLOTLY_JS):
        shutil.copyfile(source, folder / source.name)
    return folder


_film_player = components.declare_component("film_player", path=str(_served_folder()))


def film(arguments: dict, identity: str, frame: int, jump: int = 0, speed: float = 1.0,
         loop: bool = False, key: str | None = None, on_change=None, args: tuple = ()):
    """Draw the player for a film (``arguments``: ``engine.film.film_args``' without its id)
    under the id ``identity`` (``engine.film.film_id``); it shows frame ``frame`` when the film
    is new or ``jump`` has changed since its last call (the page asks it to jump); the names
    of the files it saves are the film's (``engine.film.film_context``). ``on_change(*args)``
    hears of each report. Returns the player's last report (None before any): see the
    module's docstring."""
    # A component's call has no ``args`` for its callback (it would be one more argument of
    # the component's own): the callback takes them bound.
    callback = functools.partial(on_change, *args) if on_change is not None else None
    return _film_player(**{**arguments, "film": identity, "speed": float(speed),
                           "loop": bool(loop)},
                        frame=int(frame), jump=jump, key=key, on_change=callback,
                        default=None)


# The player's callbacks live here, not in the page: Streamlit keeps a widget's callback for
# the session, and a function defined in the page would keep the page's whole namespace.


def follow_film(frame_states: list[int]) -> None:
    """The Watch page's player stopped on a state (Pause, Step, the scrubber, the end of Play):
    its details are shown (one of ``frame_states``, the film's); or its speed or loop changed:
    they are kept (the share link carries them). A callback of the player."""
    state = st.session_state
    report = state[keys.FILM]
    if report is None or report.get("film") != state.get(keys.SHOWN_RUN):
        return  # a report of a film no longer shown
    if report.get("state") in frame_states:
        state[keys.FRAME] = report["state"]
    if report.get("speed") in FILM_SPEEDS:
        state[keys.FILM_SPEED] = float(report["speed"])
    state[keys.FILM_LOOP] = bool(report.get("loop"))


def show_film_state(index: int | None) -> None:
    """A lesson's step stands on state ``index`` of the film: the player jumps there and the
    page shows its details (a callback; None leaves the film where it is)."""
    if index is not None:
        st.session_state[keys.FRAME] = int(index)
        jump_film()


def jump_film() -> None:
    """The details slider moved: the player jumps to its state."""
    st.session_state[keys.FILM_JUMP] = st.session_state.get(keys.FILM_JUMP, 0) + 1
