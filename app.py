"""S3VM Explorer: label a few points, pick a semi-supervised SVM and watch it optimize.

The router only: page configuration and the page list (both in ``ui.widgets``). Every page
starts with ``ui.widgets.start_page()``, which draws the shared sidebar: a page script must stand
on its own because Streamlit's AppTest reruns only the page script after the first run.
"""

from ui.widgets import route

# Streamlit runs this script as the module "__main__"; the solvers' processes (ui.jobs) import
# the parent's main module under another name and must not start the app again.
if __name__ == "__main__":
    route()
