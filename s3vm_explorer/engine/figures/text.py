"""Every figure in words and as a table: its text alternative (WCAG 1.1.1), said from the
figure itself — its title, axes and traces, their sizes and ranges — after the key numbers the
page gives, and the rows of its data for the "Show as a table" view (``ui.charts.chart``).

Works on a ``plotly.graph_objects.Figure`` however it was built (numpy arrays, lists, or the
typed arrays of a figure sent as JSON from a solver's process).
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter

import numpy as np

#: Series a description names one by one; more are counted ("and 4 more").
NAMED_SERIES = 8
#: Rows of a chart's table: the Data page's largest data set (2,000 points) whole.
MAX_ROWS = 2000
_TAGS = re.compile(r"<[^>]+>")
#: Trace types drawn as a colour over a grid (described, not tabled: a 60 x 60 grid is no
#: table to read).
_GRIDS = ("heatmap", "contour")


def plain(text) -> str:
    """Text of a title or label without plotly's HTML (``<br>``, ``<b>``) and spaces doubled."""
    return " ".join(_TAGS.sub(" ", str(text or "")).split())


def number(value: float) -> str:
    """A number as the figures write it: three significant digits, a true minus sign."""
    if value is None or not np.isfinite(value):
        return "unknown"
    return f"{value:.3g}".replace("-", "−")


def _values(data) -> np.ndarray | None:
    """A trace's array as numpy (plotly's typed-array JSON, ``{"dtype", "bdata"}``, decoded);
    None when absent."""
    if data is None:
        return None
    if isinstance(data, dict) and "bdata" in data:
        array = np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"])
        shape = data.get("shape")
        if isinstance(shape, str):
            shape = tuple(int(side) for side in shape.split(","))
        return array.reshape(shape) if shape else array
    if isinstance(data, dict):
        return None
    return np.asarray(data, dtype=object if _mixed(data) else None)


def _mixed(data) -> bool:
    return isinstance(data, list | tuple) and any(v is None for v in data)


def _numbers(data) -> np.ndarray:
    """The finite numbers of an array (None, strings and NaN left out)."""
    values = _values(data)
    if values is None:
        return np.empty(0)
    flat = values.ravel()
    if flat.dtype == object:
        flat = np.array([v for v in flat if isinstance(v, int | float | np.number)], dtype=float)
    if not np.issubdtype(flat.dtype, np.number):
        return np.empty(0)
    flat = flat.astype(float)
    return flat[np.isfinite(flat)]


def _span(values: np.ndarray) -> str:
    low, high = float(values.min()), float(values.max())
    return number(low) if math.isclose(low, high) else f"{number(low)} to {number(high)}"


def _spec(figure) -> dict:
    return figure.to_plotly_json() if hasattr(figure, "to_plotly_json") else figure


def title_of(figure) -> str:
    """The figure's title, or its panels' titles joined ("a · b"), or ""."""
    layout = _spec(figure).get("layout", {})
    title = layout.get("title")
    text = plain(title.get("text") if isinstance(title, dict) else title)
    if text:
        return text
    return " · ".join(plain(a.get("text")) for a in _panel_titles(layout))


def axes_of(figure) -> str:
    """The first axes' titles ("error against objective"), for a figure without a title; or
    ""."""
    layout = _spec(figure).get("layout", {})
    x, y = _axis_title(layout, "x"), _axis_title(layout, "y")
    return f"{y} against {x}" if x and y else x or y


def _panel_titles(layout: dict) -> list[dict]:
    """make_subplots' panel titles: its annotations above the panels (paper coordinates)."""
    return [a for a in layout.get("annotations", []) or []
            if a.get("xref") == "paper" and a.get("yref") == "paper" and a.get("text")
            and a.get("yanchor") == "bottom"]


def _axis(layout: dict, name: str) -> dict:
    """Axis ``"x"``, ``"y2"``... of the layout (``xaxis``, ``yaxis2``)."""
    return layout.get(f"{name[0]}axis{name[1:]}", {}) or {}


def _axis_title(layout: dict, name: str) -> str:
    title = _axis(layout, name).get("title")
    return plain(title.get("text") if isinstance(title, dict) else title)


def _panels(spec: dict) -> dict:
    """Each x axis's panel title (make_subplots orders its titles as its axes)."""
    layout = spec.get("layout", {})
    axes = sorted({t.get("xaxis", "x") or "x" for t in spec.get("data", [])},
                  key=lambda a: int(a[1:] or 1))
    titles = [plain(a["text"]) for a in _panel_titles(layout)]
    return dict(zip(axes, titles, strict=False)) if len(axes) > 1 else {}


def _shown(trace: dict) -> bool:
    """Whether a trace draws data a reader needs: not a legend's entry alone, not hidden."""
    if trace.get("visible") in (False, "legendonly"):
        return False
    if trace.get("type", "scatter") in _GRIDS:
        return True
    return _numbers(trace.get("x")).size > 0 or _numbers(trace.get("y")).size > 0


def _decoration(trace: dict) -> bool:
    """A trace that repeats what others show (lines joining two markers, invisible places to
    click): left out of the table."""
    return (trace.get("hoverinfo") in ("skip", "none") and not trace.get("name")) or (
        (trace.get("marker") or {}).get("opacity") == 0)


def _series_sentence(trace: dict, layout: dict) -> str:
    kind = trace.get("type", "scatter")
    name = plain(trace.get("name"))
    if kind in _GRIDS:
        name = name or "values"
        z = _values(trace.get("z"))
        shape = "" if z is None or z.ndim != 2 else f" on a {z.shape[1]} × {z.shape[0]} grid"
        if kind == "contour":
            contours = trace.get("contours") or {}
            start, end = contours.get("start"), contours.get("end")
            lines = (f"level lines of {name} from {number(start)} to {number(end)}"
                     if start is not None and end is not None and start != end else
                     f"the level line {name} = {number(start)}" if start is not None else
                     f"level lines of {name}")
            values = _numbers(trace.get("z"))
            return (f"{lines}{shape}" + (f" ({name} ranges from {_span(values)})"
                                         if values.size else ""))
        return f"a colour map of {name}{shape}"
    if kind == "bar":
        horizontal = trace.get("orientation") == "h"
        labels = _values(trace.get("y" if horizontal else "x"))
        sizes = _values(trace.get("x" if horizontal else "y"))
        if labels is None or sizes is None:
            return f"bars of {name}"
        pairs = [f"{plain(label)} {number(float(size))}" for label, size in zip(
            labels.ravel()[:12], sizes.ravel()[:12], strict=False)]
        return f"{len(sizes.ravel())} bars: " + ", ".join(pairs)
    x, y = _numbers(trace.get("x")), _numbers(trace.get("y"))
    mode = trace.get("mode") or "lines+markers"
    what = "points" if "lines" not in mode else "values on a line"
    parts = [f"{name + ': ' if name else ''}{max(x.size, y.size)} {what}"]
    if (points := point_rows(trace)) and "shown as" in points[0]:
        counts = Counter(point["shown as"] for point in points)
        shown = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
        parts[0] += f" ({shown})"
    if x.size:
        parts.append(f"x from {_span(x)}")
    if y.size and not _tick_names(_axis(layout, trace.get("yaxis", "y") or "y")):
        parts.append(f"y from {_span(y)}")
    return ", ".join(parts)


def describe(figure, key_numbers: str = "", what: str = "Chart") -> str:
    """The figure in words: ``what`` and its title, the key numbers the page gives (a
    sentence), then the axes and each series with its size and ranges (the first
    ``NAMED_SERIES``, the others counted)."""
    spec = _spec(figure)
    layout = spec.get("layout", {})
    title = title_of(spec)
    sentences = [f"{what}: {title}." if title else f"{what}."]
    if key_numbers:
        sentences.append(key_numbers.strip().rstrip(".") + ".")
    axes = []
    for name in ("x", "y"):
        if text := _axis_title(layout, name):
            scale = " (logarithmic)" if _axis(layout, name).get("type") == "log" else ""
            axes.append(f"{'horizontal' if name == 'x' else 'vertical'} axis {text}{scale}")
    if axes:
        said = "; ".join(axes)
        sentences.append(said[0].upper() + said[1:] + ".")
    traces = [t for t in spec.get("data", []) if _shown(t) and not _decoration(t)]
    panels = _panels(spec)
    said = []
    for trace in traces[:NAMED_SERIES]:
        sentence = _series_sentence(trace, layout)
        panel = panels.get(trace.get("xaxis", "x") or "x")
        said.append(f"{sentence} (panel {panel})" if panel else sentence)
    if said:
        sentences.append("It shows " + "; ".join(said)
                         + (f"; and {len(traces) - NAMED_SERIES} more series"
                            if len(traces) > NAMED_SERIES else "") + ".")
    return " ".join(sentences)


def _tick_names(axis: dict):
    """A function from a value of an axis labelled by ``tickvals``/``ticktext`` (the Compare
    page's bands of solvers) to the label of its nearest tick; None for other axes."""
    ticks, texts = _values(axis.get("tickvals")), axis.get("ticktext")
    if ticks is None or texts is None or len(texts) != len(ticks) or not len(ticks):
        return None
    ticks = ticks.astype(float)
    if len(ticks) > 1 and (all(float(t).is_integer() for t in ticks)
                           and np.array_equal(ticks, np.arange(ticks[0], ticks[0] + len(ticks)))):
        return lambda value: plain(texts[int(np.argmin(np.abs(ticks - float(value))))])
    return None


def _id_name(trace: dict) -> str | None:
    """What a trace's customdata counts, from its hover text ("point %{customdata}" ->
    "point", "draw %{customdata[0]}" -> "draw")."""
    found = re.search(r"(\w+) %\{customdata", str(trace.get("hovertemplate") or ""))
    return found.group(1) if found else None


def rows(figure) -> list[dict]:
    """The figure's data as rows of a table: one row per point of each series (grids and
    decorations left out), columns named by the axes' titles; the points of the app's point
    traces say their label or predicted class (````point_rows````). At most ``MAX_ROWS``."""
    spec = _spec(figure)
    layout = spec.get("layout", {})
    panels = _panels(spec)
    table: list[dict] = []
    for trace in spec.get("data", []):
        if not _shown(trace) or _decoration(trace) or trace.get("type", "scatter") in _GRIDS:
            continue
        xname, yname = trace.get("xaxis", "x") or "x", trace.get("yaxis", "y") or "y"
        ynames = _tick_names(_axis(layout, yname))
        xtitle = _axis_title(layout, xname) or "x"
        ytitle = _axis_title(layout, yname) or ("category" if ynames else "y")
        if ytitle == xtitle:
            xtitle, ytitle = f"{xtitle} (x)", f"{ytitle} (y)"
        x, y = _values(trace.get("x")), _values(trace.get("y"))
        n = max(len(x) if x is not None else 0, len(y) if y is not None else 0)
        ids = _values(trace.get("customdata"))
        id_name = _id_name(trace)
        described = point_rows(trace)
        for i in range(n):
            xi = x[i] if x is not None and i < len(x) else None
            yi = y[i] if y is not None and i < len(y) else None
            if xi is None or yi is None:
                continue
            row = {"series": plain(trace.get("name")) or "—"}
            if panel := panels.get(xname):
                row["panel"] = panel
            if id_name and ids is not None and i < len(ids):
                value = ids[i][0] if np.ndim(ids[i]) else ids[i]
                row[id_name] = int(value) if float(value).is_integer() else value
            row[xtitle] = _cell(xi)
            row[ytitle] = ynames(yi) if ynames and _is_number(yi) else _cell(yi)
            if described is not None:
                row.update(described[i])
            table.append(row)
            if len(table) >= MAX_ROWS:
                return _named(table)
    return _named(table)


def _named(table: list[dict]) -> list[dict]:
    """The rows without a "series" column where it would say nothing: one series, or none
    named."""
    if len({row["series"] for row in table}) == 1 or all(row["series"] == "—" for row in table):
        for row in table:
            del row["series"]
    return table


def point_rows(trace: dict) -> list[dict] | None:
    """What each point of the app's point trace (``traces.points_trace``) shows, the inverse of
    ``palette.point_style``: "labeled class 1", "unlabeled, predicted class 0" or "unlabeled";
    or, where its colour is a quantity with a colour bar (DA's soft labels p), that quantity.
    None for any other trace."""
    marker = trace.get("marker") or {}
    colors, symbols = _values(marker.get("color")), _values(marker.get("symbol"))
    if trace.get("name") != "points" or colors is None or symbols is None or not np.ndim(colors):
        return None
    labeled = [str(symbol) != "circle" for symbol in symbols.ravel()]
    if marker.get("showscale"):
        bar = marker.get("colorbar") or {}
        title = plain(bar.get("title", {}).get("text") if isinstance(bar.get("title"), dict)
                      else bar.get("title")) or "colour"
        return [{"labeled": "yes" if is_labeled else "no", title: _cell(float(color))}
                for is_labeled, color in zip(labeled, colors.ravel(), strict=False)]
    n_classes = 2 if float(marker.get("cmax", 1.0)) <= 1.0 else int(marker["cmax"])
    grey = 0.5 if n_classes == 2 else float(n_classes)
    said = []
    for is_labeled, color in zip(labeled, colors.ravel().astype(float), strict=False):
        known = not math.isclose(color, grey)
        said.append({"shown as": f"labeled class {int(color)}" if is_labeled else
                     f"unlabeled, predicted class {int(color)}" if known else
                     "unlabeled"})
    return said


def _is_number(value) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool)


def _cell(value):
    """A table's cell: numbers rounded to four significant digits, text as it is."""
    if _is_number(value):
        return float(f"{float(value):.4g}")
    return plain(value)
