"""The ``s3vm`` console command: fit a solver on a data file, predict with a saved model, run
svmlin's command line on the mapped solver, serve the app.

A package of its own above the library (docs/architecture.md, Layout): it reads
``s3vm_core``'s estimator table and ``toy_data``'s file readers, and finds the installed app
through package resources; ``s3vm_core`` knows nothing of it. ``main`` is the console
script's entry point.
"""

from s3vm_cli.main import main

__all__ = ["main"]
