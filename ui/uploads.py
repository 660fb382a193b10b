"""A data set uploaded on the Data page: read from the file's bytes, held to the app's limits.

Streamlit-free: the solvers' child processes receive an ``Upload`` inside the data
description (``ui.work.build_dataset``), so the upload reaches them by pickling, never through a
file. Nothing is written to disk; the upload lives in one browser session's state only.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from toy_data.files import read_data
from ui.figures import MAX_CLASSES
from ui.params import MAX_POINTS

#: Largest file the Data page reads (the server refuses larger ones first:
#: ``server.maxUploadSize`` in .streamlit/config.toml, in MB).
MAX_UPLOAD_MB = 20
#: Most features of an uploaded data set: the app keeps X dense, n x d floats, and a solver's
#: kernel costs n x d per row of it.
MAX_UPLOAD_FEATURES = 1000
#: The limits as the uploader's help says them, before they bite.
LIMITS = (f"At most {MAX_UPLOAD_MB} MB, {MAX_POINTS:,} points, {MAX_UPLOAD_FEATURES:,} features "
          f"and {MAX_CLASSES} classes.")
FORMATS_HELP = (
    "CSV or TSV: one point per row, a header row optional, the label in a column named "
    "`label` or the last column; an empty cell, `?` or `-1` marks an unlabeled point. "
    "svmlight / libsvm (as svmlin reads it): `label index:value ...`, label `0` = unlabeled. "
    f"{LIMITS} The file stays in this browser session: nothing is written to disk, and no other "
    "session sees it.")


@dataclass(frozen=True, eq=False)
class Upload:
    """An uploaded data set: ``X`` (n, d) dense, ``y`` the file's class of each point (0 .. k-1,
    ``-1`` where the file gives none), ``classes`` the file's names of the classes. Equal
    uploads are the same bytes (``digest``): runs and caches are keyed by it."""

    name: str
    digest: str
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    classes: tuple = ()

    def __eq__(self, other) -> bool:
        return isinstance(other, Upload) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:  # (in a run's cache key and a film's id: short)
        return f"Upload({self.name!r}, {self.digest})"

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def read_upload(name: str, data: bytes) -> Upload:
    """The data set of an uploaded file's ``data``, or a ``ValueError`` with a sentence that
    names the file, the line and what is wrong (``toy_data.files.read_data``) or the limit it
    passes."""
    if len(data) > MAX_UPLOAD_MB * 2**20:
        raise ValueError(f"The file {name} is {len(data) / 2**20:.1f} MB, more than the "
                         f"{MAX_UPLOAD_MB} MB the app reads. Upload a sample of its rows.")
    named = io.BytesIO(data)
    named.name = name  # the name's extension picks the format
    read = read_data(named)
    n, d = read.X.shape
    if n > MAX_POINTS:
        raise ValueError(f"The file {name} has {n:,} points; the app shows at most "
                         f"{MAX_POINTS:,}. Upload a sample of its rows.")
    if d > MAX_UPLOAD_FEATURES:
        raise ValueError(f"The file {name} has {d:,} features; the app takes at most "
                         f"{MAX_UPLOAD_FEATURES:,}. Select or reduce its features first.")
    if len(read.classes) > MAX_CLASSES:
        raise ValueError(f"The file {name} has {len(read.classes)} classes; the app tells at "
                         f"most {MAX_CLASSES} apart. Merge some classes first.")
    X = read.X.toarray() if sp.issparse(read.X) else np.asarray(read.X, dtype=float)
    return Upload(name=name, digest=hashlib.sha256(data).hexdigest()[:16], X=X,
                  y=np.asarray(read.y, dtype=int), classes=tuple(read.classes.tolist()))

