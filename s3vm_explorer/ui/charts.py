"""Plotly charts as the pages draw them: in the page's theme, light or dark (the browser's
setting, or Streamlit's menu), without plotly's toolbar over their titles unless the chart is
a tool (the Data page's selection)."""

from __future__ import annotations

import streamlit as st

from s3vm_explorer.engine.figures.theme import for_dark_page


def dark_page() -> bool:
    """Whether the page is drawn in a dark theme."""
    theme = getattr(st.context, "theme", None)
    return getattr(theme, "type", None) == "dark"


def chart(figure, *, toolbar: bool = False, where=st, **options):
    """Draw ``figure`` in ``where`` (the page, a column, a placeholder) in the page's theme;
    ``toolbar`` keeps plotly's toolbar (zoom, box and lasso selection), which otherwise
    covers the chart's titles whenever the pointer is over it. ``options`` go to
    ``st.plotly_chart``."""
    if dark_page():
        figure = for_dark_page(figure)
    config = {"displaylogo": False, "displayModeBar": toolbar}
    return where.plotly_chart(figure, width="stretch", config=config, **options)
