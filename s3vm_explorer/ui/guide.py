"""A page's guided lesson (``engine.guides``): a "Lesson" button opens it; each step asks its
question, then shows its computed answer; one key walks it, as a presenter's clicker does.

Page Down shows the answer, then the next step; Page Up goes back (a lecture hall's clicker
sends these two keys). The step on screen is in the session (``state.LESSON``) and in the
share link, so that a slide can link to step 3 of a page's lesson. A step that stands on a
frame of the film or a setting of the chart moves the page there (``on_step``).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from s3vm_explorer.engine.guides import Guide
from s3vm_explorer.engine.markdown import literal
from s3vm_explorer.ui import state as keys

#: The keys that walk a lesson: a presenter's clicker sends Page Down and Page Up.
FORWARD, BACK = "PageDown", "PageUp"


def _open(name: str, step: int = 0, guide: Guide | None = None,
          on_step: Callable[[int | None], None] | None = None) -> None:
    """Open page ``name``'s lesson at ``step`` (a callback), the page at its frame."""
    st.session_state[keys.LESSON] = {"page": name, "step": step, "revealed": False}
    if guide is not None and on_step is not None:
        on_step(guide.steps[step].frame)


def _close() -> None:
    st.session_state[keys.LESSON] = None


def _move(guide: Guide, by: int, on_step: Callable[[int | None], None] | None) -> None:
    """Reveal the answer or go ``by`` steps (a callback: it runs before the page)."""
    at = st.session_state[keys.LESSON]
    if by > 0 and not at["revealed"]:
        at["revealed"] = True
        return
    step = min(max(at["step"] + by, 0), len(guide.steps) - 1)
    st.session_state[keys.LESSON] = {"page": guide.name, "step": step, "revealed": False}
    if on_step is not None:
        on_step(guide.steps[step].frame)


def set_widget(key: str, frame: int | None) -> None:
    """A lesson's step stands on setting ``frame`` of the widget under ``key`` (the
    Annealing page's temperature): a callback, bound with ``functools.partial``."""
    if frame is not None:
        st.session_state[key] = frame


def current_step(name: str) -> int | None:
    """The step of page ``name``'s lesson on screen, or None when its lesson is closed."""
    at = st.session_state.get(keys.LESSON)
    return at["step"] if at and at.get("page") == name else None


def lesson(guide: Guide | None, button_place, box_place,
           on_step: Callable[[int | None], None] | None = None) -> None:
    """Draw ``guide``: its "Lesson" button in ``button_place`` while it is closed, else in
    ``box_place`` its step on screen (question, then answer), Back, Next and Close.
    ``on_step(frame)`` moves the page to a step's frame when the step changes. Nothing
    without a guide (a film too short to ask about)."""
    if guide is None:
        return
    step = current_step(guide.name)
    if step is None:
        button_place.button(
            "Lesson", icon=":material/school:", on_click=_open, args=(guide.name, 0, guide,
                                                                      on_step),
            key=f"lesson:{guide.name}", width="stretch",
            help=f"{guide.title}: {len(guide.steps)} steps, each a question before its answer. "
                 f"{FORWARD} shows the answer, then the next step; {BACK} goes back.")
        return
    step = min(step, len(guide.steps) - 1)
    shown = guide.steps[step]
    if st.session_state[keys.LESSON].pop("jump", False) and on_step is not None:
        # opened by a link: the page moves to the step's frame, and draws itself there anew
        # (a widget the page has drawn already cannot be set in this run)
        on_step(shown.frame)
        st.rerun()
    revealed = st.session_state[keys.LESSON]["revealed"]
    box = box_place.container(border=True)
    box.markdown(f"**Lesson · step {step + 1} of {len(guide.steps)} · "
                 f"{literal(shown.title)}** — *{literal(shown.question)}*")
    # (room for each button's key beside its label: Streamlit writes the shortcut in it; at
    # 1024 x 768 with the sidebar open narrower columns cut "Back" and "Show the answer")
    back, forward, close, _ = box.columns([1.6, 2.9, 1, 0.5], vertical_alignment="center")
    back.button("Back", icon=":material/arrow_back:", disabled=step == 0,
                on_click=_move, args=(guide, -1, on_step), key=f"lesson-back:{guide.name}",
                shortcut=BACK, width="stretch")
    last = step == len(guide.steps) - 1
    forward.button("Show the answer" if not revealed else "Next step",
                   icon=":material/visibility:" if not revealed
                   else ":material/arrow_forward:", type="primary",
                   disabled=revealed and last, on_click=_move, args=(guide, 1, on_step),
                   key=f"lesson-forward:{guide.name}", shortcut=FORWARD, width="stretch")
    close.button("Close", on_click=_close, key=f"lesson-close:{guide.name}", width="stretch")
    if revealed:
        box.success(literal(shown.answer), icon=":material/lightbulb:")
