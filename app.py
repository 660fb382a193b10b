"""S3VM Explorer: label a few points, pick a semi-supervised SVM and watch it optimize.

The router only: page configuration and the page list. Every page starts with
``ui.widgets.start_page()``, which draws the shared sidebar: a page script must stand on its own
because Streamlit's AppTest reruns only the page script after the first run.
"""

import streamlit as st

st.set_page_config(page_title="S3VM Explorer", page_icon="◆", layout="wide")

PAGES = [
    st.Page("pages/data.py", title="Data & labels", icon="✏️", default=True),
    st.Page("pages/watch.py", title="Watch a solver", icon="▶️"),
    st.Page("pages/continuation.py", title="Continuation (cS3VM)", icon="〰️"),
    st.Page("pages/annealing.py", title="Deterministic annealing", icon="🌡️"),
    st.Page("pages/early_stopping.py", title="LapSVM early stopping", icon="⏱️"),
    st.Page("pages/compare.py", title="Compare solvers", icon="📊"),
    st.Page("pages/about.py", title="About the solvers", icon="📖"),
]

st.navigation(PAGES).run()
