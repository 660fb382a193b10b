"""Reading what a page shows from an AppTest run."""

import base64
import json
import re
import zlib
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def new_session() -> AppTest:
    """A headless session of the app, not yet run."""
    return AppTest.from_file(APP, default_timeout=120)


def plotly_specs(at) -> list[dict]:
    """The figure JSON of every plotly chart on the page."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def values(array_spec) -> np.ndarray:
    """A figure JSON array as numpy: plotly writes numpy arrays as base64 typed arrays."""
    if isinstance(array_spec, dict) and "bdata" in array_spec:
        data = np.frombuffer(base64.b64decode(array_spec["bdata"]), dtype=array_spec["dtype"])
        return data.reshape(array_spec["shape"]) if "shape" in array_spec else data
    return np.asarray(array_spec)


def players(at) -> list:
    """The Watch page's film players on the page (the sidebar's Regenerate is a component
    too)."""
    return [element for element in at.get("component_instance")
            if element.proto.component_name.endswith("film_player")]


def film(at) -> dict:
    """The arguments of the Watch page's player (``engine.film.film_args``): the still figure as
    JSON, the per-frame bytes as numpy arrays."""
    (element,) = players(at)
    args = json.loads(element.proto.json_args)
    args["figure"] = json.loads(args["figure"])
    for special in element.proto.special_args:
        data = special.bytes
        if special.key in ("fill", "points") and data:  # the frames' bytes come zlib-compressed
            data = zlib.decompress(data)
        args[special.key] = np.frombuffer(data, dtype=np.uint8)
    n_frames = len(args["states"])
    args["points"] = args["points"].reshape(n_frames, -1)
    if args["grid"] is not None:
        # one-vs-rest: the k problems' f per frame
        k = (args["classes"],) if "classes" in args else ()
        args["fill"] = args["fill"].view(np.int8).reshape(
            n_frames, *k, args["grid"]["ny"], args["grid"]["nx"])
    return args


def shown_numbers(at) -> dict:
    """The numbers under the film (the player draws them) of the frame the player opens on."""
    played = film(at)
    return {n["label"]: n["values"][played["frame"]] for n in played["numbers"]}


def type_number(where, key: str, value):
    """Type ``value`` into the number box of the session's ``key`` (``ui.forms.number_box``,
    a text box) on the page or in its sidebar ``where``; returns the box (``.run()`` it)."""
    from s3vm_explorer.ui.state import typed_key

    return where.text_input(key=typed_key(key)).input(str(value))


def shown(text: str) -> str:
    """Markdown as a reader sees it: the backslash escapes of text that came from outside the
    app (``engine.markdown.literal``) taken away."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text.replace("\u2060", ""))


def press(at, label: str = "Run"):
    """The page's button labelled ``label`` (offers such as "Film that path" may stand before
    the form's Run); returns it (``.click().run()`` it)."""
    (button,) = [b for b in at.button if b.label == label]
    return button
