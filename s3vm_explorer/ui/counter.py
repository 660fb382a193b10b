"""A button that counts its clicks in the browser (``counter_frontend/``): every click counts,
however many arrive while the page runs (Streamlit's button merges them into one)."""

from __future__ import annotations

from pathlib import Path

import streamlit.components.v1 as components

_counting_button = components.declare_component(
    "counting_button", path=str(Path(__file__).with_name("counter_frontend")))


def counting_button(container, label: str, key: str, clicks: int, help: str = "") -> int:
    """Draw a button under ``key`` whose value is the number of times it was clicked, counted
    from ``clicks`` (the count the page has already acted on, which the session keeps);
    returns the count. Each click reruns the page, which reads the count under ``key``
    before it draws anything that depends on it."""
    with container:
        return _counting_button(label=label, help=help, clicks=clicks, key=key, default=clicks)
