"""Your own data: CSV / TSV files and the svmlight (libsvm) format that svmlin reads.

``read_data(source)`` takes a path, the file's bytes or an open binary file (an upload), reads it
in memory (nothing is written to disk) and returns a ``DataFile``: ``X``, ``y`` with ``-1`` for
unlabeled points and class codes ``0 .. k-1`` for labeled ones, the class names as the file
writes them, and the feature names of a header row.

CSV / TSV (a tab in the first data line, or a ``.tsv`` name, makes it TSV)
    One point per line. The label column is the one named ``label`` in a header row, else the
    last column. A header row is recognized when one of its cells is ``label`` or one of its
    feature cells is not a number. An empty label cell, ``?`` or ``-1`` marks an unlabeled point;
    class names may be words. Blank lines and lines starting with ``#`` are skipped.
svmlight / libsvm (``label index:value index:value ...``, indices from 1)
    Label ``0`` marks an unlabeled point, as in svmlin; other labels are integer classes (svmlin's
    ``-1`` and ``+1``, or ``1 .. k``). svmlin's own split, an examples file of ``index:value``
    rows and a labels file with one label per line, is read with ``labels=``. Read by
    scikit-learn's ``load_svmlight_file``; X stays sparse (CSR).

Limits, checked before the work they bound: ``MAX_FILE_BYTES`` (the size is read before the
file), ``MAX_POINTS`` rows, ``MAX_COLUMNS`` columns of a CSV file (dense), ``MAX_FEATURES``
features of an svmlight file (sparse), ``MAX_CLASSES`` classes. A bad file raises a
``ValueError`` whose sentence names the line and what is wrong.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from toy_data.labels import UNLABELED

#: Largest file read (bytes): 100 MiB is a CSV of about 10 million numbers. Checked from the
#: file's size before anything is read.
MAX_FILE_BYTES = 100 * 2**20
#: Most data rows (points). The kernel solvers stop far earlier, at their memory limit
#: (``s3vm_core.problem.MAX_DENSE_BYTES``, about 16 000 points); the linear ones go this far.
MAX_POINTS = 100_000
#: Most columns of a CSV / TSV file: its X is dense, so MAX_POINTS rows of this many features
#: would be 8 GB; the file size limit stops such a file first.
MAX_COLUMNS = 10_000
#: Most features of an svmlight file, whose X stays sparse (the text data of the DA paper's
#: Table 3 have 7511 and 20707).
MAX_FEATURES = 1_000_000
#: Most classes: one-vs-rest solves one binary problem per class.
MAX_CLASSES = 100

#: Label cells of a CSV / TSV file that mark an unlabeled point (the number -1 too, as "-1.0").
UNLABELED_CELLS = ("", "?")
#: The svmlight label of an unlabeled point (svmlin's convention).
SVMLIGHT_UNLABELED = 0

FORMATS = ("auto", "csv", "tsv", "svmlight")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".svm": "svmlight",
               ".svmlight": "svmlight", ".libsvm": "svmlight", ".light": "svmlight"}
_FEATURE_TOKEN = re.compile(r"^\d+:")


@dataclass(frozen=True)
class DataFile:
    """A data set read from a file.

    Attributes
    ----------
    X : ndarray of shape (n, d), or scipy.sparse CSR matrix (svmlight)
    y : ndarray of int, shape (n,)
        ``-1`` for an unlabeled point, else the index of its class in ``classes``.
    classes : ndarray of shape (k,)
        The class names as the file writes them (numbers when every name is a number), sorted.
    feature_names : tuple of str or None
        The header's names of the feature columns (CSV / TSV with a header row).
    format : str
        ``"csv"``, ``"tsv"`` or ``"svmlight"``.
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    classes: np.ndarray
    feature_names: tuple[str, ...] | None
    format: str

    @property
    def labeled(self) -> np.ndarray:
        return self.y != UNLABELED

    def labels(self) -> np.ndarray:
        """The labels by class name, ``-1`` for unlabeled points (an object array):
        scikit-learn's semi-supervised convention."""
        out = np.full(self.y.shape, UNLABELED, dtype=object)
        out[self.labeled] = np.asarray(self.classes, dtype=object)[self.y[self.labeled]]
        return out


def read_data(source, *, format: str = "auto", labels=None, n_features: int | None = None,
              min_classes: int = 2) -> DataFile:
    """Read a data file (see the module docstring for the formats).

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file object
        A path, the file's contents, or an open file (an upload: its ``name`` picks the
        format, its ``size`` is checked first when it has one).
    format : {"auto", "csv", "tsv", "svmlight"}, default="auto"
        "auto" goes by the file name's extension, else by the first data line (``index:value``
        pairs mean svmlight, a tab TSV).
    labels : same kinds as ``source``, optional
        svmlin's labels file (one label per line, 0 = unlabeled) for an svmlight examples file
        without labels.
    n_features : int, optional
        The number of features expected (a model's): a CSV / TSV file with exactly that many
        columns then has no label column, and an svmlight file may not go beyond it.
    min_classes : int, default=2
        Fewest labeled classes accepted: 2 to fit a classifier, 0 to predict.

    Returns
    -------
    DataFile
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}.")
    name = _name_of(source)
    text = _text(_read_bytes(source, name), name)
    where = f" of {name}" if name else ""
    first = _first_data_line(text)
    if first is None:
        raise ValueError(f"The file{where} holds no data: it has only blank or comment lines.")
    if format == "auto":
        format = _EXTENSIONS.get(Path(name).suffix.lower() if name else "", None) or (
            "svmlight" if any(_FEATURE_TOKEN.match(t) for t in first.split())
            else "tsv" if "\t" in first else "csv")
    if format == "svmlight":
        labels_text = None
        if labels is not None:
            labels_name = _name_of(labels)
            labels_text = _text(_read_bytes(labels, labels_name), labels_name)
        data = _read_svmlight(text, where, labels_text, n_features)
    else:
        if labels is not None:
            raise ValueError("A separate labels file goes with an svmlight examples file only; "
                             "a CSV / TSV file keeps its labels in a column.")
        data = _read_table(text, where, "\t" if format == "tsv" else ",", n_features)
    X, y, classes, feature_names = data
    _check_classes(classes, min_classes, where, format)
    return DataFile(X=X, y=y, classes=classes, feature_names=feature_names, format=format)


# -- bytes and text -----------------------------------------------------------------------


def _name_of(source) -> str | None:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else None


def _read_bytes(source, name) -> bytes:
    """The file's bytes, its size checked against ``MAX_FILE_BYTES`` before it is read."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        size = len(data)
    elif isinstance(source, str | os.PathLike):
        size = os.stat(source).st_size
        _check_size(size, name)
        data = Path(source).read_bytes()
    elif hasattr(source, "read"):
        size = getattr(source, "size", None)
        if isinstance(size, int):
            _check_size(size, name)
        data = source.read(MAX_FILE_BYTES + 1)
        size = len(data)
    else:
        raise TypeError(f"Give a path, bytes or an open binary file, not {type(source).__name__}.")
    _check_size(size, name)
    return data


def _check_size(size: int, name) -> None:
    if size > MAX_FILE_BYTES:
        raise ValueError(
            f"The file{f' {name}' if name else ''} is {_megabytes(size)}, more than the "
            f"{_megabytes(MAX_FILE_BYTES)} allowed (MAX_FILE_BYTES). Use a sample of its rows."
        )


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB" if size < 2**30 else f"{size / 2**30:,.1f} GiB"


def _text(data: bytes, name) -> str:
    """Decode UTF-8 text; a compressed or binary file is refused with the line it breaks on."""
    what = f"The file {name}" if name else "The file"
    if not data.strip():
        raise ValueError(f"{what} is empty.")
    if data[:2] == b"\x1f\x8b" or data[:4] == b"PK\x03\x04":
        kind = "gzip" if data[:2] == b"\x1f\x8b" else "zip (an Excel workbook is one)"
        raise ValueError(f"{what} is compressed ({kind}), not text. Decompress it, or save the "
                         "sheet as CSV, first.")
    null = data.find(b"\x00")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad = error.start
    else:
        if null < 0:
            return text
        bad = null
    line = data[:bad].count(b"\n") + 1
    raise ValueError(
        f"{what} is not a text file: line {line} holds binary data (byte {bad} is not UTF-8 "
        "text). Give a CSV, TSV or svmlight text file."
    )


def _data_lines(text: str):
    """``(line number, line)`` of the lines that hold data (not blank, not a # comment)."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, line


def _first_data_line(text: str) -> str | None:
    return next((line for _, line in _data_lines(text)), None)


# -- CSV / TSV ------------------------------------------------------------------------------


def _read_table(text: str, where: str, delimiter: str, n_features: int | None):
    rows, numbers = [], []
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    for cells in reader:
        if not cells or (len(cells) == 1 and not cells[0].strip()) or (
                cells[0].lstrip().startswith("#")):
            continue
        cells = [cell.strip() for cell in cells]
        if not rows and len(cells) > MAX_COLUMNS + 1:
            raise ValueError(
                f"Line {reader.line_num}{where} has {len(cells):,} columns; at most "
                f"{MAX_COLUMNS:,} features and a label are allowed (MAX_COLUMNS)."
            )
        if rows and len(cells) != len(rows[0]):
            raise ValueError(
                f"Line {reader.line_num}{where} has {len(cells)} values, but line "
                f"{numbers[0]} has {len(rows[0])}: every line needs the same number of columns."
            )
        if len(rows) > MAX_POINTS:  # a header row and MAX_POINTS data rows at most
            raise ValueError(
                f"The file{where} has more than {MAX_POINTS:,} data rows (line "
                f"{reader.line_num} is one too many; MAX_POINTS). Use a sample of its rows."
            )
        rows.append(cells)
        numbers.append(reader.line_num)
    header = rows[0] if _is_header(rows[0]) else None
    if header is not None:
        header_line, rows, numbers = numbers[0], rows[1:], numbers[1:]
        if not rows:
            raise ValueError(f"The file{where} has a header row but no data rows.")
        if len(rows) > MAX_POINTS:
            raise ValueError(
                f"The file{where} has more than {MAX_POINTS:,} data rows (line "
                f"{numbers[MAX_POINTS]} is one too many; MAX_POINTS). Use a sample of its rows."
            )
    label = _label_column(header, header_line if header else None, len(rows[0]), n_features,
                          numbers[0], where)
    features = [j for j in range(len(rows[0])) if j != label]
    X = _numbers(rows, features, numbers, header, where)
    cells = [row[label] for row in rows] if label is not None else [""] * len(rows)
    unlabeled = [cell in UNLABELED_CELLS or (_is_number(cell) and float(cell) == -1)
                 for cell in cells]
    y, classes = _encode(cells, unlabeled, numbers, where, _column(label, header))
    names = tuple(header[j] for j in features) if header is not None else None
    return X, y, classes, names


def _is_header(cells) -> bool:
    return any(cell.lower() == "label" for cell in cells) or not all(
        _is_number(cell) for cell in cells[:-1])


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _label_column(header, header_line, width, n_features, first_line, where) -> int | None:
    named = [j for j, cell in enumerate(header or ()) if cell.lower() == "label"]
    if len(named) > 1:
        raise ValueError(f"Line {header_line}{where} names {len(named)} columns 'label'; name "
                         "one column 'label'.")
    if n_features is not None and width not in (n_features, n_features + 1) or (
            named and n_features is not None and width != n_features + 1):
        raise ValueError(
            f"Line {first_line}{where} has {width} values, but the model was trained on "
            f"{n_features} features: give {n_features} feature columns, and a label column if "
            "you have labels."
        )
    if named:
        return named[0]
    return None if width == n_features else width - 1  # n_features columns: nothing to learn


def _column(j, header) -> str:
    if j is None:
        return "no label column"
    return f"column {j + 1}" + (f" ('{header[j]}')" if header is not None else "")


def _numbers(rows, features, numbers, header, where) -> np.ndarray:
    """The feature cells as floats, or a sentence naming the first cell that is not a
    finite number."""
    cells = [[row[j] for j in features] for row in rows]
    try:
        X = np.array(cells, dtype=float).reshape(len(rows), len(features))
    except ValueError:
        X = None
    if X is not None and np.all(np.isfinite(X)):
        return X
    for i, row in enumerate(cells):
        for position, cell in enumerate(row):
            value = float(cell) if _is_number(cell) else None
            if value is not None and np.isfinite(value):
                continue
            at = f"Line {numbers[i]}{where}, {_column(features[position], header)},"
            if cell == "":
                raise ValueError(f"{at} is empty: every feature needs a value (only the label "
                                 "may be left empty, for an unlabeled point).")
            if value is None:
                raise ValueError(f"{at} holds {cell!r}, which is not a number.")
            raise ValueError(f"{at} holds {cell!r}, which is not a finite number: remove or "
                             "impute it.")
    raise AssertionError("unreachable: a cell failed to convert but every cell converts")


def _encode(cells, unlabeled, numbers, where, column):
    """Class codes (``-1`` where ``unlabeled``) and the sorted class names of label cells."""
    unlabeled = np.asarray(unlabeled, dtype=bool)
    names = [cell for cell, hidden in zip(cells, unlabeled, strict=True) if not hidden]
    if names and all(_is_number(name) for name in names):
        values = np.array([float(name) for name in names])
        fractional = np.flatnonzero(values != np.round(values))
        if fractional.size:
            i = np.flatnonzero(~unlabeled)[fractional[0]]
            raise ValueError(
                f"Line {numbers[i]}{where} has the label {cells[i]!r} in {column}, not a class. "
                "Labels are class names or whole numbers; if this file has no label column, "
                "name one 'label' in a header row."
            )
        names = values.astype(np.int64)
    names = np.asarray(names)
    classes, codes = np.unique(names, return_inverse=True) if names.size else (names, names)
    y = np.full(len(cells), UNLABELED, dtype=np.int64)
    y[~unlabeled] = codes
    return y, classes


def _check_classes(classes, min_classes, where, format) -> None:
    unlabeled = "label 0" if format == "svmlight" else "an empty label, '?' or -1"
    if classes.size > MAX_CLASSES:
        raise ValueError(
            f"The file{where} has {classes.size} classes, more than the {MAX_CLASSES} allowed "
            "(MAX_CLASSES): is the label column right? It is the column named 'label', else "
            "the last one."
        )
    if classes.size >= min_classes:
        return
    if classes.size == 0:
        raise ValueError(f"No point of the file{where} is labeled (every label is {unlabeled}); "
                         f"label points of at least {min_classes} classes.")
    raise ValueError(
        f"Only one class ({classes.tolist()[0]!r}) is labeled in the file{where}: label at "
        f"least one point of {min_classes} classes (unlabeled points have {unlabeled})."
    )


# -- svmlight -------------------------------------------------------------------------------


def _read_svmlight(text: str, where: str, labels_text: str | None, n_features: int | None):
    from sklearn.datasets import load_svmlight_file

    lines = list(_data_lines(text))
    if len(lines) > MAX_POINTS:
        raise ValueError(
            f"The file{where} has more than {MAX_POINTS:,} data rows (line {lines[MAX_POINTS][0]} "
            "is one too many; MAX_POINTS). Use a sample of its rows."
        )
    without_labels = bool(_FEATURE_TOKEN.match(lines[0][1].split()[0]))
    if without_labels != (labels_text is not None):
        if without_labels:
            raise ValueError(
                f"Line {lines[0][0]}{where} starts with {lines[0][1].split()[0]!r}, a feature, not "
                "a label: svmlin keeps the labels in a separate file, one per line. Give that "
                "labels file too."
            )
        raise ValueError(f"The file{where} has its labels at the start of each line; a separate "
                         "labels file is for svmlin's examples files without them.")
    body = "\n".join(("0 " if without_labels else "") + line for _, line in lines)
    try:
        X, y = load_svmlight_file(io.BytesIO(body.encode()), n_features=n_features,
                                  dtype=np.float64, zero_based=False)
    except ValueError as error:
        raise _svmlight_error(lines, where, without_labels, n_features) or ValueError(
            f"The svmlight file{where} could not be read: {error}") from None
    X = sp.csr_matrix(X)
    if X.shape[1] > MAX_FEATURES:
        raise ValueError(f"The file{where} has {X.shape[1]:,} features, more than the "
                         f"{MAX_FEATURES:,} allowed (MAX_FEATURES).")
    if not np.all(np.isfinite(X.data)):
        row = int(np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0], "right")) - 1
        raise ValueError(f"Line {lines[row][0]}{where} holds a value that is not a finite number "
                         "(nan or inf): remove or impute it.")
    if without_labels:
        y = _labels_file(labels_text, len(lines))
    codes, classes = _encode([f"{value:.17g}" for value in y], y == SVMLIGHT_UNLABELED,
                             [number for number, _ in lines], where, "its first value")
    return X, codes, classes, None


def _svmlight_error(lines, where, without_labels, n_features) -> ValueError | None:
    """The first line that breaks the format, as a sentence (``load_svmlight_file`` does not
    say which line)."""
    for number, line in lines:
        at = f"Line {number}{where}"
        tokens = line.split("#", 1)[0].split()
        if not without_labels:
            label, tokens = tokens[0], tokens[1:]
            if not _is_number(label):
                return ValueError(f"{at} starts with {label!r}, which is not a label (a number; "
                                  "files with several labels per point are not supported).")
        if tokens and tokens[0].startswith("qid:"):
            tokens = tokens[1:]
        previous = 0
        for token in tokens:
            index, _, value = token.partition(":")
            if not index.isdigit() or not _is_number(value):
                return ValueError(f"{at} holds {token!r} where an index:value pair belongs.")
            if int(index) == 0:
                return ValueError(f"{at} has feature index 0: the svmlight format numbers "
                                  "features from 1 (as svmlin and libsvm do).")
            if int(index) <= previous:
                return ValueError(f"{at} lists feature {index} after feature {previous}: the "
                                  "indices of a line must increase.")
            if n_features is not None and int(index) > n_features:
                return ValueError(f"{at} has feature {index}, but the model was trained on "
                                  f"{n_features} features.")
            previous = int(index)
    return None


def _labels_file(text: str, n_examples: int) -> np.ndarray:
    """svmlin's labels file: one number per line, 0 for an unlabeled point."""
    lines = list(_data_lines(text))
    for number, line in lines:
        if not _is_number(line.strip()):
            raise ValueError(f"Line {number} of the labels file holds {line.strip()!r}, which is "
                             "not a label (a number, 0 for an unlabeled point).")
    if len(lines) != n_examples:
        raise ValueError(f"The labels file has {len(lines)} labels, but the examples file has "
                         f"{n_examples} examples: give one label per example.")
    return np.array([float(line) for _, line in lines])
