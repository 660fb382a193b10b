"""S3VM Explorer: label a few points, pick a semi-supervised SVM and watch it optimize.

The router only: page configuration, the shared sidebar and the page list.
"""

import streamlit as st

from ui import state
from ui.widgets import data_controls

st.set_page_config(page_title="S3VM Explorer", page_icon="◆", layout="wide")
state.init()

PAGES = [
    st.Page("pages/data.py", title="Data & labels", icon="✏️", default=True),
    st.Page("pages/watch.py", title="Watch a solver", icon="▶️"),
]

navigation = st.navigation(PAGES)
data_controls()
navigation.run()
