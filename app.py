"""S3VM Explorer: label a few points, pick a semi-supervised SVM and watch it optimize.

The router only: page configuration and the page list (both in ``ui.navigation``). Every page
starts with ``ui.sidebar.start_page()``, which draws the shared sidebar: a page script must stand
on its own because Streamlit's AppTest reruns only the page script after the first run.
"""

# Streamlit runs this script as the module "__main__"; the solvers' processes (engine.jobs) import
# the parent's main module under another name and must neither start the app again nor import
# Streamlit (the router's module does).
if __name__ == "__main__":
    from s3vm_explorer.ui.navigation import route

    route()
