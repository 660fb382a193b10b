"""The data on screen: where it comes from (a generator or an uploaded file), the points it
holds, the plane it is drawn in and the display grid of that plane.

A ``DataSource`` is a few hashable values: the generator's settings with the points added by
clicking (``Generated``), or an uploaded file (``Upload``, equal to another upload of the same
bytes). ``source.build()`` makes the ``Data``: X, the true classes and the ``View`` that draws
it. Streamlit-free: a solver's child process receives the source by pickling (an upload's
arrays with it, never through a file) and builds the same data. Nothing is written to disk; an
upload lives in one browser session's state only.

The view is the data's own plane for 2-D data, the line of 1-D data (a strip of the plane, the
boundary a point on it), and for more features the plane of the first two principal components
through the data's mean (docs/architecture.md, Watch). Every view maps the plane back to input space
(``View.lift``), so a solver's decision function is drawn on the display grid for any d. An
uploaded file's picture fills its chart: where its points spread more than ``MAX_ASPECT`` times
further along one axis of the plane than along the other, the other is stretched (its title
says by how much), whatever the units of the file.

An uploaded file whose features differ in scale by more than ten times (``toy_data.scaling``:
the standard deviations, constant columns left out) is standardized to z-scores unless the user
says otherwise (``Upload.standardized``): the solvers, the film and every page then see the
standardized points; the labels and the true classes are the file's.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from s3vm_explorer.engine.params import MAX_POINTS
from toy_data import UNLABELED, make_dataset
from toy_data.files import read_data
from toy_data.scaling import Standardization, scale_ratio, scales_differ

#: Largest file the Data page reads (the server refuses larger ones first:
#: ``server.maxUploadSize`` in .streamlit/config.toml, in MB).
MAX_UPLOAD_MB = 20
#: Most features of an uploaded data set: the app keeps X dense, n x d floats, and a solver's
#: kernel costs n x d per row of it.
MAX_UPLOAD_FEATURES = 1000
#: Most classes the app tells apart: the palette has a colour and a marker shape for each
#: (``engine.figures.palette``).
MAX_CLASSES = 8
#: The limits as the uploader's help says them, before they bite.
LIMITS = (f"At most {MAX_UPLOAD_MB} MB, {MAX_POINTS:,} points, {MAX_UPLOAD_FEATURES:,} features "
          f"and {MAX_CLASSES} classes.")
FORMATS_HELP = (
    "CSV or TSV: one point per row, a header row optional, the label in a column named "
    "`label` or the last column; an empty cell, `?` or `-1` marks an unlabeled point. A column "
    "named `truth` may give the true class of unlabeled rows, for the error against the "
    "truth. "
    "svmlight / libsvm (as svmlin reads it): `label index:value ...`, label `0` = unlabeled. "
    f"{LIMITS} The file stays in this browser session: nothing is written to disk, and no other "
    "session sees it.")
#: Points on each side of the display grid: with the film's other arrays it keeps a film's
#: payload small (about 0.25 MB).
GRID_SIZE = 60
#: Height over width of the strip that draws 1-D data (the points lie on its middle line).
LINE_STRIP = 0.25
#: Widest (or tallest) an uploaded file's picture is drawn, the spread of its points along one
#: axis of the plane over their spread along the other: the film and the charts draw the
#: plane with equal scales, so that wine's raw principal components (1,400 by 86) were a strip
#: 30 px high; beyond this ratio the narrow axis is stretched.
MAX_ASPECT = 2.0


@dataclass(frozen=True, eq=False)
class View:
    """The plane the app draws the data in: ``project`` maps input space to it, ``lift`` maps
    its points back (the display grid's nodes, whose features the solver computes)."""

    origin: np.ndarray   # (d,): the input-space point at the plane's (0, 0)
    axes: np.ndarray     # (2, d): orthonormal rows, or a zero second row for 1-D data
    titles: tuple[str, str]  # of the drawing's axes: none for a generated data set's own plane
    #: (2,): the drawing's units per unit of input space along each axis (1 but where an
    #: uploaded file's picture is stretched to fill its chart)
    stretch: np.ndarray = field(default_factory=lambda: np.ones(2))

    @classmethod
    def of(cls, X: np.ndarray, names=(), fill: bool = False) -> View:
        """The view of the data ``X`` (n, d): itself for d = 2, its line for d = 1, else its
        first two principal components through the mean. ``names`` are the features' (the
        axes' titles for d <= 2, "x" for an unnamed line); with ``fill`` a plane whose points
        spread more than ``MAX_ASPECT`` times further along one axis is stretched along the
        other (an uploaded file, whose units are its own; a generated data set keeps its
        geometry, and a click adds a point where it lands)."""
        X = np.asarray(X, dtype=float)
        d = X.shape[1]
        names = tuple(names or ())
        if d == 2:
            view = cls(np.zeros(2), np.eye(2), names if len(names) == 2 else ("", ""))
        elif d == 1:
            return cls(np.zeros(1), np.array([[1.0], [0.0]]), (names[0] if names else "x", ""))
        else:
            mean = X.mean(axis=0)
            _, _, components = np.linalg.svd(X - mean, full_matrices=False)
            axes = np.zeros((2, d))
            axes[:len(components[:2])] = components[:2]
            # Fix each axis's sign so that a regenerated data set does not flip its picture.
            view = (X - mean) @ axes.T
            signs = np.sign(view[np.argmax(np.abs(view), axis=0), [0, 1]])
            view = cls(mean, axes * np.where(signs == 0, 1, signs)[:, None], ("PC 1", "PC 2"))
        return view.filling(X) if fill else view

    def filling(self, X: np.ndarray) -> View:
        """This view with its narrower axis stretched so that the points of ``X`` spread at
        most ``MAX_ASPECT`` times further along one axis than along the other (unchanged when
        they do, or when they lie on a line: no stretch would widen it). The stretch is a
        round number (1, 2 or 5 times a power of ten), named in the axis's title ("PC 2 × 10"),
        so that its ticks read as the title says: 400 on "PC 2 × 10" is PC 2 = 40."""
        spread = np.ptp(self.project(X), axis=0)
        narrow = int(np.argmin(spread))
        if spread[narrow] <= 0 or spread[1 - narrow] <= MAX_ASPECT * spread[narrow]:
            return self
        stretch = np.ones(2)
        stretch[narrow] = _round_up(spread[1 - narrow] / (MAX_ASPECT * spread[narrow]))
        titles = list(self.titles)
        titles[narrow] = f"{titles[narrow] or ('x', 'y')[narrow]} × {stretch[narrow]:,g}"
        return View(self.origin, self.axes, tuple(titles), stretch)

    @property
    def is_line(self) -> bool:
        return self.axes.shape[1] == 1

    @property
    def is_projection(self) -> bool:
        """Whether the plane is a projection (more than two features): points lie off it."""
        return self.axes.shape[1] > 2

    @property
    def stretched(self) -> str:
        """The stretched axis's title ("PC 2 × 10"), or "" when the plane is drawn to scale."""
        axes = np.flatnonzero(self.stretch != 1)
        return self.titles[axes[0]] if axes.size else ""

    def project(self, X: np.ndarray) -> np.ndarray:
        return ((np.asarray(X, dtype=float) - self.origin) @ self.axes.T) * self.stretch

    def lift(self, points: np.ndarray) -> np.ndarray:
        return self.origin + (np.asarray(points, dtype=float) / self.stretch) @ self.axes


def _round_up(factor: float) -> float:
    """The smallest of 1, 2, 5, 10, 20, 50 ... that is at least ``factor``."""
    power = 10.0 ** np.floor(np.log10(factor))
    return float(next(step * power for step in (1, 2, 5, 10) if step * power >= factor))


@dataclass(frozen=True, eq=False)
class Data:
    """A data set as the app holds it: ``X`` (n, d), ``y_true`` the true class of each point
    (0 .. k-1; ``-1`` where it is unknown: an uploaded file's rows without a class), the
    ``view`` it is drawn in and ``X2``, the points in that plane."""

    X: np.ndarray
    y_true: np.ndarray
    view: View

    @cached_property
    def X2(self) -> np.ndarray:
        return self.view.project(self.X)

    def grid(self, size: int = GRID_SIZE) -> tuple[np.ndarray, np.ndarray]:
        """Axes of a square grid over the view covering the points with a 10% margin (for a
        line, a strip ``LINE_STRIP`` as high as it is wide)."""
        low, high = self.X2.min(axis=0), self.X2.max(axis=0)
        pad = 0.1 * np.maximum(high - low, 1e-9)
        low, high = low - pad, high + pad
        if self.view.is_line:
            half = LINE_STRIP * (high[0] - low[0]) / 2
            low[1], high[1] = -half, half
        return np.linspace(low[0], high[0], size), np.linspace(low[1], high[1], size)

    def grid_features(self, estimator, size: int = GRID_SIZE):
        """``(grid_x, grid_y, features)``: the display grid and the solver's features of its
        nodes lifted to input space, computed once per fit; every state's decision on the grid
        is then one matrix-vector product (``s3vm_core.decision_on_grid``)."""
        grid_x, grid_y = self.grid(size)
        xx, yy = np.meshgrid(grid_x, grid_y)
        nodes = self.view.lift(np.column_stack([xx.ravel(), yy.ravel()]))
        return grid_x, grid_y, estimator.features(nodes)


@dataclass(frozen=True)
class Generated:
    """A generated data set: the registry's ``dataset`` (``toy_data.DATASETS``), its size,
    noise and seed, and the points added by clicking, ``(x, y, true class)`` each, after the
    generated ones (2-D data sets only: a click gives two coordinates)."""

    dataset: str
    n_samples: int
    noise: float
    seed: int
    added: tuple[tuple[float, float, int], ...] = ()

    def build(self) -> Data:
        X, y = make_dataset(self.dataset, self.n_samples, self.noise, random_state=self.seed)
        if self.added:
            if X.shape[1] != 2:
                raise ValueError(f"Points can be added to 2-D data sets only; {self.dataset} has "
                                 f"{X.shape[1]} dimensions.")
            extra = np.asarray(self.added, dtype=float).reshape(-1, 3)
            X = np.vstack([X, extra[:, :2]])
            y = np.concatenate([y, extra[:, 2].astype(y.dtype)])
        return Data(X, y, View.of(X))


@dataclass(frozen=True, eq=False)
class Upload:
    """An uploaded data set: ``X`` (n, d) dense, as the file writes it, ``y`` the file's label
    of each point (0 .. k-1, ``-1`` where the file gives none), ``truth`` the true class of each
    point where the file gives it (its label, or its ``truth`` cell; ``-1`` unknown),
    ``classes`` the file's names of the classes, ``feature_names`` its header's names of the
    features (none without a header row), ``notes`` what the reader warned of, and
    ``standardized`` whether the app uses its features as z-scores (``build``). Equal uploads
    are the same bytes (``digest``) used alike (``standardized``): runs and caches are keyed by
    them."""

    name: str
    digest: str
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    classes: tuple = ()
    notes: tuple[str, ...] = ()
    feature_names: tuple[str, ...] = ()
    standardized: bool = False
    #: An uploaded file's label draws (the teaching pages' validation points) start here.
    seed = 0

    @property
    def key(self) -> tuple[str, bool]:
        """What equal uploads share, and caches are keyed by: the bytes, used alike."""
        return self.digest, self.standardized

    def __eq__(self, other) -> bool:
        return isinstance(other, Upload) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:  # (in a run's cache key and a film's id: short)
        scaled = ", standardized" if self.standardized else ""
        return f"Upload({self.name!r}, {self.digest}{scaled})"

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @cached_property
    def scale_ratio(self) -> float:
        """The largest feature's standard deviation over the smallest's (``toy_data.scaling``)."""
        return scale_ratio(self.X)

    def build(self) -> Data:
        """The data the app uses: the file's points, as z-scores when ``standardized``."""
        X, names = self.X, self.feature_names
        if self.standardized:
            X = Standardization.of(X).apply(X)
            names = tuple(f"{name} (z-score)" for name in names)
        return Data(X, self.truth, View.of(X, names, fill=True))


#: Where the data on screen come from.
DataSource = Generated | Upload


def read_upload(name: str, data: bytes, standardize: bool | None = None) -> Upload:
    """The data set of an uploaded file's ``data``, or a ``ValueError`` with a sentence that
    names the file, the line and what is wrong (``toy_data.files.read_data``) or the limit it
    passes. ``standardize``: whether to use its features as z-scores; None (the default) when
    their scales differ by more than ten times (``toy_data.scaling.scales_differ``)."""
    if len(data) > MAX_UPLOAD_MB * 2**20:
        raise ValueError(f"The file {name} is {len(data) / 2**20:.1f} MB, more than the "
                         f"{MAX_UPLOAD_MB} MB the app reads. Upload a sample of its rows.")
    named = io.BytesIO(data)
    named.name = name  # the name's extension picks the format
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
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
                  y=np.asarray(read.y, dtype=int), truth=np.asarray(read.truth, dtype=int),
                  classes=tuple(read.classes.tolist()),
                  notes=tuple(dict.fromkeys(str(w.message) for w in caught)),
                  feature_names=tuple(read.feature_names or ()),
                  standardized=scales_differ(X) if standardize is None else bool(standardize))


def class_shares(labels, y_true) -> tuple[np.ndarray, np.ndarray] | None:
    """Each class's share among the labeled points and among all points, class by class, or
    None when the data's own shares are unknown (a point without a true class) or nothing is
    labeled."""
    labels, y_true = np.asarray(labels), np.asarray(y_true)
    labeled = labels != UNLABELED
    if not labeled.any() or np.any(y_true == UNLABELED):
        return None
    n_classes = int(y_true.max()) + 1
    return (np.bincount(labels[labeled], minlength=n_classes) / labeled.sum(),
            np.bincount(y_true, minlength=n_classes) / len(y_true))
