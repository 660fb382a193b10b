"""A run's one room: ``process`` (its own side, in a child process or on a Dask worker),
``lifecycle`` (its life as the app sees it, and the shelf of jobs every session shares) and
``backends`` (where it computes: local processes or a Dask cluster)."""
