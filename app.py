"""S3VM Explorer: label a few points, pick a semi-supervised SVM and watch it optimize.

The router only: page configuration and the page list. Every page starts with
``ui.widgets.start_page()``, which draws the shared sidebar: a page script must stand on its own
because Streamlit's AppTest reruns only the page script after the first run.
"""

import streamlit as st

st.set_page_config(page_title="S3VM Explorer", page_icon="◆", layout="wide")

PAGES = [
    st.Page(f"app_pages/{file}.py", title=title, icon=f":material/{icon}:", default=file == "data")
    for file, title, icon in [
        ("data", "Data & labels", "edit"),
        ("watch", "Watch a solver", "play_circle"),
        ("continuation", "Continuation (cS3VM)", "timeline"),
        ("annealing", "Deterministic annealing", "thermostat"),
        ("early_stopping", "LapSVM early stopping", "timer"),
        ("compare", "Compare solvers", "leaderboard"),
        ("about", "About the solvers", "menu_book"),
    ]
]

st.navigation(PAGES).run()
