"""S3VM Explorer, the app: label a few points, pick a semi-supervised SVM and watch it optimize.

``engine`` is the app's Streamlit-free engine (a run's process and life, the film, the figures,
the lessons), ``ui`` its Streamlit side (session state, forms, the player). The scripts that
Streamlit runs, ``app.py`` and ``pages/``, stand at the repository's root and are installed as
``s3vm_explorer.app``. The layers are docs/architecture.md's.
"""
