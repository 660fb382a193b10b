"""Validated inputs of a semi-supervised binary problem.

The convention is scikit-learn's (``sklearn.semi_supervised``): ``y`` holds class labels and
``-1`` marks an unlabeled point. Exactly two classes must appear among the labeled points.
Internally ``classes_[0] -> -1``, ``classes_[1] -> +1`` and unlabeled points ``-> 0``.

Every message here is meant for a student: it says what is wrong and what to do.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets

from s3vm_core.memory import dense_memory_limit, size_text

UNLABELED = -1

#: Range of the largest absolute value of X. Kernels square the data (distances, inner
#: products) and raise them to small powers, and the solvers multiply them by costs: within
#: 1e-50 .. 1e50 all of that stays far inside float64's normal range (about 1e-308 .. 1e308);
#: outside it squared distances overflow to infinity or underflow to exactly 0.
DATA_SCALE = (1e-50, 1e50)

#: Largest dense matrices a fit may hold at once (bytes), when a program fixes it; ``None``
#: takes the environment variable or half of the memory available (``s3vm_core.memory``).
MAX_DENSE_BYTES: int | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """A checked semi-supervised binary problem, in the caller's order.

    Attributes
    ----------
    X : ndarray or sparse matrix of shape (n, d)
    y : ndarray of shape (n,)
        Signed labels: -1 or +1 for labeled points, 0 for unlabeled ones.
    classes : ndarray of shape (2,)
        ``classes[0]`` is mapped to -1, ``classes[1]`` to +1.
    """

    X: np.ndarray | sp.spmatrix
    y: np.ndarray
    classes: np.ndarray

    @property
    def labeled(self) -> np.ndarray:
        return self.y != 0

    @property
    def unlabeled(self) -> np.ndarray:
        return self.y == 0

    @property
    def n_labeled(self) -> int:
        return int(np.count_nonzero(self.y))

    @property
    def n_unlabeled(self) -> int:
        return self.y.size - self.n_labeled


def unlabeled_mask(y: np.ndarray) -> np.ndarray:
    """Boolean mask of the points marked unlabeled (the number ``-1``) in a label vector.

    In an object array (class names mixed with numbers, scikit-learn's convention for string
    classes) only the entries that are the number -1 count; the string ``'-1'`` never does.
    """
    y = np.asarray(y)
    if y.dtype.kind in "iuf":
        return y == UNLABELED
    if y.dtype.kind == "O":
        return np.array([_is_unlabeled_marker(v) for v in y.tolist()], dtype=bool)
    return np.zeros(y.shape, dtype=bool)


def _is_unlabeled_marker(value) -> bool:
    """Whether ``value`` is the number -1 (a bool or a string never is)."""
    return isinstance(value, Real) and not isinstance(value, bool | np.bool_) and value == UNLABELED


def _as_text(values) -> str:
    """Labels as the user wrote them: ``0, 1`` rather than numpy's ``np.int64(0), ...``."""
    return ", ".join(repr(v) for v in np.asarray(values).tolist())


#: Said whenever the string '-1' was read as a class name.
_STRING_MINUS_ONE = (
    "only the number -1 marks an unlabeled point, and the string '-1' is a class name. Convert "
    "the labels to integers, or use the number -1 for unlabeled points in an object array."
)


def _names_string_minus_one(classes) -> bool:
    return any(isinstance(c, str) and c.strip() == str(UNLABELED)
               for c in np.asarray(classes).tolist())


def check_label_kinds(labels, name: str = "y") -> None:
    """Refuse class labels that cannot be taken as classes (``labels`` are the labeled
    entries: the number -1 beside string classes is the convention for unlabeled points):
    numbers mixed with strings, which cannot be sorted or compared; booleans beside other
    labels (True is 1 to Python); numbers that are not whole, which read as measurements."""
    values = np.asarray(labels)
    if values.dtype.kind not in "Of":
        return
    if values.dtype.kind == "O":
        items = values.ravel().tolist()
        booleans = sorted({repr(bool(v)) for v in items if isinstance(v, bool | np.bool_)})
        if booleans:
            # a list of booleans and numbers (the -1 of unlabeled points at least): numpy
            # keeps it as objects, and True == 1, False == 0 would merge classes
            others = sorted({repr(v) for v in items if not isinstance(v, bool | np.bool_)})[:3]
            beside = f"other labels ({', '.join(others)})" if others else "the number -1"
            raise ValueError(
                f"The labels in {name} are booleans ({', '.join(booleans)}) beside {beside}; "
                "to Python True is 1 and False is 0, so booleans cannot stand for classes "
                "among numbers. Write the classes as 0 and 1, or as names (the number -1 "
                "marks an unlabeled point)."
            )
        strings = [v for v in items if isinstance(v, str)]
        numbers = [v for v in items if isinstance(v, Real)]
        if strings and numbers:
            examples = sorted(set(map(repr, numbers)))[:3] + sorted(set(map(repr, strings)))[:3]
            raise ValueError(
                f"The labels in {name} mix numbers and strings ({', '.join(examples)}), so "
                "their classes cannot be told apart or ordered. Write every class the same "
                "way, all as numbers or all as strings (the number -1 still marks an unlabeled "
                "point)."
            )
        numbers = np.array([v for v in numbers if isinstance(v, float)], dtype=float)
    else:
        numbers = values.ravel()
    numbers = numbers[np.isfinite(numbers)]
    fractional = np.unique(numbers[numbers != np.round(numbers)]).tolist()
    if fractional:
        shown = ", ".join(f"{v:g}" for v in fractional[:3])
        raise ValueError(
            "Unknown label type: continuous. "  # the words scikit-learn's checks look for
            f"The labels in {name} include {shown}{', ...' * (len(fractional) > 3)}, which are "
            "not whole numbers, so they read as measurements rather than classes. Give each "
            "class a whole number or a name (the number -1 marks an unlabeled point)."
        )


def check_known_labels(labels, classes, name: str = "y_val") -> None:
    """Refuse labels (of a validation set) that are not among the training ``classes``: the
    -1 of an unlabeled point among them, or a class the training points do not have."""
    labels = np.asarray(labels)
    check_label_kinds(labels, name)
    known = np.isin(labels, classes)
    if not known.all():
        raise ValueError(
            f"{name} contains labels {sorted(set(labels[~known].tolist()))!r} that are not "
            f"among the training classes {np.asarray(classes).tolist()!r}; every validation "
            "point must be labeled with one of them (no -1)."
        )


def encode_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """Map class labels to {-1, +1} and unlabeled points to 0.

    Returns ``(signed, classes)``. Raises ``ValueError`` unless exactly two classes appear
    among the labeled points.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(
            f"The labels must be a 1-D array with one entry per point; got shape {y.shape}."
        )
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(
            "The labels contain NaN or infinity. Use -1 for unlabeled points and a class "
            "label for labeled ones."
        )
    unlabeled = unlabeled_mask(y)
    check_label_kinds(y[~unlabeled])
    check_classification_targets(y[~unlabeled])
    classes = np.unique(y[~unlabeled])
    if _names_string_minus_one(classes):
        # a semi-supervised library reading '-1' as a class is almost surely a mistake
        raise ValueError(
            f"The labeled points include the string '-1' among their classes "
            f"({_as_text(classes)}): {_STRING_MINUS_ONE}"
        )
    if classes.size < 2:
        if classes.size == 0:
            raise ValueError(
                "No point is labeled. Label at least one point of each class (-1 marks an "
                "unlabeled point)."
            )
        raise ValueError(
            f"Only class {_as_text(classes)} has labeled points. Label at least one point of "
            "each class: a classifier needs an example of both classes."
        )
    if classes.size > 2:
        raise ValueError(
            "Only binary classification is supported. "  # the words scikit-learn checks
            f"The labeled points have {classes.size} classes ({_as_text(classes)}), and "
            "this solver separates exactly two. Keep two classes, or wrap the solver in "
            "s3vm_core.OneVsRestS3VM, which solves one binary problem per class: "
            "OneVsRestS3VM(LapSVM()), for example."
        )
    signed = np.where(unlabeled, 0, np.where(y == classes[1], 1, -1)).astype(np.int8)
    return signed, classes


@contextmanager
def numbers_only(name: str = "X"):
    """Turn numpy's "could not convert string to float" while ``name`` is read into a
    sentence: a word in the data (a header row read as data, a class name left in X)."""
    try:
        yield
    except ValueError as error:
        text = str(error)
        if not text.startswith("could not convert string to float"):
            raise
        word = text.partition(": ")[2] or "a word"
        raise ValueError(
            f"{name} must hold numbers only, but it holds the text {word[:60]}. Remove that "
            f"entry or its column (a header row, or class names, which belong in y), or "
            "convert it to a number."
        ) from None


def check_finite(X, name: str = "X") -> None:
    """Raise a clear ``ValueError`` when ``X`` holds NaN or infinity."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
        bad = int(np.count_nonzero(~np.isfinite(values)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s). Remove or impute those entries "
            "before fitting."
        )


def largest_value(X) -> float:
    """The largest absolute value in ``X`` (dense or scipy.sparse), 0 for an empty array."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    return float(np.max(np.abs(values), initial=0.0))


def check_scale(X, name: str = "X", *, training: bool = True) -> None:
    """Refuse data whose magnitude float64 cannot square (see ``DATA_SCALE``).

    New points (``training=False``) may be tiny: only overflow matters for them.
    """
    largest = largest_value(X)
    low, high = DATA_SCALE
    if largest > high:
        raise ValueError(
            f"{name} has values as large as {largest:.3g}: their squares overflow floating "
            f"point, so no distance or kernel can be computed. Rescale {name} (for example "
            f"standardize each feature) so that its values lie within {low:g} .. {high:g}."
        )
    if training and 0.0 < largest < low:
        raise ValueError(
            f"The largest absolute value in {name} is {largest:.3g}: the squared distances "
            "between such points underflow to 0, so they would all look like the same point. "
            f"Rescale {name} (for example standardize each feature) so that its values lie "
            f"within {low:g} .. {high:g}."
        )


def _rows_coincide(X) -> bool:
    """Whether every row of ``X`` (dense or scipy.sparse) is the same."""
    if sp.issparse(X):
        low, high = X.min(axis=0).toarray(), X.max(axis=0).toarray()
    else:
        low, high = X.min(axis=0), X.max(axis=0)
    return bool(np.array_equal(low, high))


def check_distinct(X) -> None:
    """Refuse training points that are all the same point: there is nothing to separate."""
    if _rows_coincide(X):
        raise ValueError(
            f"All {X.shape[0]} points coincide (every row of X is the same), so there is "
            "nothing to separate and no kernel width can be derived from their distances. "
            "Give distinct points."
        )


def check_labels_apart(X, signed: np.ndarray) -> None:
    """Refuse labeled points of both classes that all sit at one spot: the labels then say
    nothing about where either class lies, and every solver's model is a constant or a guess."""
    labeled = np.flatnonzero(signed)
    if labeled.size and _rows_coincide(X[labeled]):
        raise ValueError(
            f"All {labeled.size} labeled points, of both classes, sit at the same spot (their "
            "rows of X coincide), so the labels say nothing about where either class lies. "
            "Label points of each class where that class lies."
        )


_COUNT_WORDS = {2: "Two", 3: "Three", 4: "Four"}


def check_dense_memory(n_rows: int, n_cols: int, what: str = "kernel matrix",
                       advice: str | None = None, count: int = 1, itemsize: int = 8) -> None:
    """Refuse to allocate ``count`` dense ``n_rows x n_cols`` matrices (held at once), of
    ``itemsize`` bytes an entry (8: float64, 4: float32), beyond the limit of
    ``s3vm_core.memory.dense_memory_limit``.

    The estimate (rows x columns x itemsize each) is made before anything is allocated.
    ``advice`` replaces the general way out (fewer points, or an option that avoids the matrix).
    """
    needed = int(itemsize) * int(count) * int(n_rows) * int(n_cols)
    limit, origin = dense_memory_limit(MAX_DENSE_BYTES)
    if needed > limit:
        advice = advice or ("Use fewer points, or a solver option that avoids the full matrix "
                            "(n_landmarks, n_components, a linear kernel).")
        subject = (f"A {n_rows} x {n_cols} {what} needs" if count == 1 else
                   f"{_COUNT_WORDS.get(count, count)} {n_rows} x {n_cols} matrices ({what}) "
                   "need")
        raise ValueError(
            f"{subject} {size_text(needed)} of memory, more than the {size_text(limit)} "
            f"allowed ({origin}). {advice}"
        )


def make_problem(X, y) -> Problem:
    """Check an already shape-validated ``(X, y)`` pair and encode its labels."""
    check_finite(X)
    check_scale(X)
    signed, classes = encode_labels(y)
    if signed.shape[0] != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} points but y has {signed.shape[0]} labels; give one label "
            "(or -1 for unlabeled) per point."
        )
    check_distinct(X)
    check_labels_apart(X, signed)
    return Problem(X=X, y=signed, classes=classes)
