"""Labelling by keyboard (``keyboard_frontend/``), for the Data page: a box under its chart in
which the arrow keys move through the points, nearest first in the arrow's direction, a number
key gives the point on focus a class, U unlabels it, Z undoes and Y redoes (WCAG 2.1.1). The
point on focus is ringed on the chart and said in words in a live region ("point 17 at (0.41,
−0.22), unlabeled").

The box reports its actions as a queue, each with a serial number; the page applies those past
the last one it applied (``labelling.apply_keys``), so keys pressed while the page runs all
count.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st
import streamlit.components.v1 as components

#: The component's value (``{"serial", "actions"}``) in the session.
KEYBOARD = "label_keys"
#: The serial of the last keyboard action the session applied.
KEYBOARD_DONE = "label_keys_done"

_labelling_keys = components.declare_component(
    "labelling_keys", path=str(Path(__file__).with_name("keyboard_frontend")))


def labelling_keys(X2: np.ndarray, labels: np.ndarray, n_classes: int, on_change) -> None:
    """Draw the keyboard's box for the points ``X2`` (the chart's plane) and their ``labels``;
    ``on_change`` applies its actions (a callback: before the page runs)."""
    X2 = np.asarray(X2, dtype=float)
    _labelling_keys(x=np.round(X2[:, 0], 4).tolist(), y=np.round(X2[:, 1], 4).tolist(),
                    labels=np.asarray(labels).astype(int).tolist(), n_classes=int(n_classes),
                    done=int(st.session_state.get(KEYBOARD_DONE, 0)), key=KEYBOARD,
                    on_change=on_change, default=None)


def new_actions() -> list[dict]:
    """The keyboard's actions the session has not applied yet, in order (and from now on
    counted as applied): ``{"action": "label", "point", "label"}``, ``{"action": "undo"}`` or
    ``{"action": "redo"}``."""
    state = st.session_state
    report = state.get(KEYBOARD) or {}
    done = int(state.get(KEYBOARD_DONE, 0))
    actions = [a for a in report.get("actions", []) if int(a.get("serial", 0)) > done]
    if actions:
        state[KEYBOARD_DONE] = max(int(a["serial"]) for a in actions)
    return sorted(actions, key=lambda a: int(a["serial"]))
