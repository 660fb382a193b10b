"""Reading what a page shows from an AppTest run."""

import base64
import json

import numpy as np


def plotly_specs(at) -> list[dict]:
    """The figure JSON of every plotly chart on the page."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def values(array_spec) -> np.ndarray:
    """A figure JSON array as numpy: plotly writes numpy arrays as base64 typed arrays."""
    if isinstance(array_spec, dict) and "bdata" in array_spec:
        data = np.frombuffer(base64.b64decode(array_spec["bdata"]), dtype=array_spec["dtype"])
        return data.reshape(array_spec["shape"]) if "shape" in array_spec else data
    return np.asarray(array_spec)
