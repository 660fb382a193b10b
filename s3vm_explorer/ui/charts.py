"""Plotly charts as the pages draw them: in the page's theme, light or dark (the browser's
setting, or Streamlit's menu), without plotly's toolbar over their titles unless the chart is
a tool (the Data page's selection), with text readable from the back of a lecture hall
(``theme.readable``), and accessible (WCAG 1.1.1): each chart has a text
alternative, for screen readers, saying what it shows and its key numbers, and a "Show as a
table" view of its data (``engine.figures.text``)."""

from __future__ import annotations

import html

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

from s3vm_explorer.engine.figures import text
from s3vm_explorer.engine.figures.theme import for_dark_page, readable


def dark_page() -> bool:
    """Whether the page is drawn in a dark theme."""
    theme = getattr(st.context, "theme", None)
    return getattr(theme, "type", None) == "dark"


def _table_view(box, label: str):
    """The expander of a chart's table, drawn only while it is open (opening it reruns the
    page): the tables of a teaching page's charts held 10,000 cells, hidden, in the page.
    Keyed by its place on the page, so that it stays open as its chart changes. None for a
    chart drawn again in the same place in one run (the Watch page's preview of a running
    solver, redrawn as its states arrive): its first drawing has the table."""
    try:
        return box.expander(label, key=f"chart-table-{box._get_delta_path_str()}",
                            on_change="rerun")
    except StreamlitDuplicateElementKey:
        return None


def chart(figure, *, toolbar: bool = False, where=st, description: str = "", **options):
    """Draw ``figure`` in ``where`` (the page, a column, a placeholder) in the page's theme,
    with its text alternative and its data as a table.

    ``description`` is the page's sentence of the chart's key numbers (what a reader should
    take from it); the text alternative says it after the chart's title and before what the
    figure itself shows (axes, series, their sizes and ranges); the table's rows are the
    figure's data (``text.rows``). ``toolbar`` keeps
    plotly's toolbar (zoom, box and lasso selection), which otherwise covers the chart's titles
    whenever the pointer is over it. ``options`` go to ``st.plotly_chart``.
    """
    alternative = text.describe(figure, description)
    title = text.title_of(figure) or text.axes_of(figure)
    figure_shown = readable(for_dark_page(figure) if dark_page() else figure)
    config = {"displaylogo": False, "displayModeBar": toolbar}
    box = where.container()
    # Said before the chart (plotly's picture has no text of its own a screen reader reads)
    box.html(f'<p class="s3vm-sr-only">{html.escape(alternative)}</p>')
    shown = box.plotly_chart(figure_shown, width="stretch", config=config, **options)
    label = "Show as a table" + (f": {title[:60]}{'…' if len(title) > 60 else ''}"
                                 if title else "")
    table_view = _table_view(box, label)
    if table_view is None:
        return shown
    with table_view:
        if table_view.open:
            data = text.rows(figure)
            st.caption(f"The chart's data, {len(data)} row{'s' if len(data) != 1 else ''}"
                       + (f" (the first {text.MAX_ROWS})" if len(data) >= text.MAX_ROWS
                          else "") + ".")
            # an HTML table (a screen reader walks its rows and columns), not the data grid
            # drawn on a canvas
            st.table(data)
    return shown
