"""S3VM Explorer: label a few points, pick a semi-supervised SVM and watch it optimize.

The router only: page configuration and the page list (both in ``ui.widgets``). Every page
starts with ``ui.widgets.start_page()``, which draws the shared sidebar: a page script must stand
on its own because Streamlit's AppTest reruns only the page script after the first run.
"""

from ui.widgets import route

route()
