"""Your own data: CSV / TSV files and the svmlight (libsvm) format that svmlin reads.

``read_data(source)`` takes a path, the file's bytes or an open binary file (an upload), reads it
in memory (nothing is written to disk) and returns a ``DataFile``: ``X``, ``y`` with ``-1`` for
unlabeled points and class codes ``0 .. k-1`` for labeled ones, the class names as the file
writes them, the feature names of a header row, and ``truth``: the true class of every point
where the file gives it (its label, or its ``truth`` cell), ``-1`` where it is unknown.

CSV / TSV (a tab in the first data line, or a ``.tsv`` name, makes it TSV)
    One point per line. The label column is the one named ``label`` in a header row, else the
    last column (a ``truth`` column is never the label: a file whose last column is ``truth``
    names its label column ``label``, unless it holds exactly a model's features). A class name
    is one line: a quoted label cell with a line break is refused, since the predictions file
    writes one class a line. A quote left open is refused (it would make the rest of the file
    one cell). A header row is recognized when one of its cells is ``label`` or ``truth`` or
    one of its feature cells is not a number (a header row whose cells are partly numbers is
    said, with a ``HeaderRowWarning``). An empty label cell, ``?`` or ``-1`` marks an unlabeled
    point; class names may be words. A column named ``truth`` in the header row holds the true
    class of unlabeled points (an empty cell, ``?`` or ``-1`` where it is unknown), so that an
    error on them can be measured; it is not a feature. Separators other than the comma (``;``,
    ``|``, a tab) are found from the first lines. A file separated by ``;`` may write decimal
    commas (``1,5;2,25;a``, as a spreadsheet saves CSV where the comma is the decimal mark):
    when every one of its first lines has as many ``;`` and every comma in them stands within
    a number, it is read so, unambiguously. A comma-separated file whose numbers have decimal
    commas cannot be told from one with more columns: its lines then have differing numbers of
    values, and the message says that decimal commas may be the cause and what to do; so does
    a cell such as ``1,5`` in a TSV file. Blank lines and lines starting with ``#`` are
    skipped; line ends may be ``\n``, ``\r\n`` or ``\r``.
svmlight / libsvm (``label index:value index:value ...``)
    Label ``0`` marks an unlabeled point, as in svmlin; other labels are integer classes (svmlin's
    ``-1`` and ``+1``, or ``1 .. k``). Indices count from 1 (svmlin, libsvm) or from 0
    (scikit-learn's ``dump_svmlight_file``): a file with an index 0 is read as zero-based, as
    ``load_svmlight_file(zero_based="auto")`` does. svmlin's own split, an examples file of
    ``index:value`` rows and a labels file with one label per line, is read with ``labels=``.
    Read by scikit-learn's ``load_svmlight_file``; X stays sparse (CSR).

Classes written as numbers must be whole numbers of at most 2**53 in size (beyond, two labels
could read as one float); ``inf`` or ``1e300`` are refused. A separate file of true classes
(one per line, ``?`` or the format's unlabeled label where unknown) is read with ``truth=``.

Limits, checked before the work they bound: ``MAX_FILE_BYTES`` (counted while reading, so that a
pipe or a device such as /dev/zero stops there too), ``MAX_POINTS`` rows, ``MAX_COLUMNS``
columns of a CSV file (dense), ``MAX_FEATURES`` features of an svmlight file (sparse),
``MAX_CLASSES`` classes, ``MAX_FIELD_CHARS`` characters in a cell. A bad file raises a
``ValueError`` whose sentence names the line and what is wrong; a file without any feature is
one (one feature is fine).
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from toy_data.labels import UNLABELED

#: Largest file read (bytes): 100 MiB is a CSV of about 10 million numbers. Checked from the
#: file's size before anything is read, and counted while reading (a pipe or a device has no
#: size).
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
#: Longest cell of a CSV / TSV file (characters): the csv module's own limit.
MAX_FIELD_CHARS = 131_072
#: Largest class number: every whole number up to 2**53 is exact in a float, beyond two labels
#: (9007199254740993 and 9007199254740992) would read as one class.
MAX_CLASS_NUMBER = 2**53

#: Label cells of a CSV / TSV file that mark an unlabeled point (the number -1 too, as "-1.0").
UNLABELED_CELLS = ("", "?")
#: The svmlight label of an unlabeled point (svmlin's convention).
SVMLIGHT_UNLABELED = 0
#: The header cells that name the label column and the true-class column.
LABEL_COLUMN, TRUTH_COLUMN = "label", "truth"

FORMATS = ("auto", "csv", "tsv", "svmlight")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".svm": "svmlight",
               ".svmlight": "svmlight", ".libsvm": "svmlight", ".light": "svmlight"}
_FEATURE_TOKEN = re.compile(r"^\d+:")
_ZERO_INDEX = re.compile(r"(^|\s)0+:")
#: Separators tried, in this order, when a CSV file's first line has no comma.
_SEPARATORS = (";", "\t", "|")
#: Characters of a file's line or cell shown in a message.
_SHOWN = 60
#: A comma within a number written with a decimal comma ("1,5", "-,5", ";,5"): a digit
#: after it, and before it a digit, a sign, a ';' or the line's start.
_DECIMAL_COMMA = re.compile(r"(?:(?<=[\d;+-])|^),(?=\d)")
#: A number written with a decimal comma: "1,5", "-0,25", ",5", "1,5e-3".
_DECIMAL = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
#: What a message adds where decimal commas may be the cause.
_DECIMAL_COMMAS = (" If the file writes decimal commas (1,5 for 1.5), they may be the cause: save "
                   "it with decimal points, or with ';' between the values (a file separated "
                   "by ';' is read with its decimal commas).")


class HeaderRowWarning(UserWarning):
    """A CSV / TSV file's first row was taken as its header, though some of its cells are
    numbers: a data row with a typo would be lost that way."""


@dataclass(frozen=True)
class DataFile:
    """A data set read from a file.

    Attributes
    ----------
    X : ndarray of shape (n, d), or scipy.sparse CSR matrix (svmlight)
        ``d >= 1``.
    y : ndarray of int, shape (n,)
        ``-1`` for an unlabeled point, else the index of its class in ``classes``.
    classes : ndarray of shape (k,)
        The class names as the file writes them (numbers when every name is a number), sorted.
    feature_names : tuple of str or None
        The header's names of the feature columns (CSV / TSV with a header row).
    format : str
        ``"csv"``, ``"tsv"`` or ``"svmlight"``.
    truth : ndarray of int, shape (n,)
        The true class of each point as an index in ``classes``, ``-1`` where it is unknown:
        a labeled point's label, an unlabeled point's ``truth`` cell (CSV / TSV) or line of the
        ``truth=`` file. Built from ``y`` when not given. ``scored`` marks the unlabeled points
        whose true class is known: the error on the unlabeled points is measured on them, and
        is unknown (never 0) when there is none.
    zero_based : bool or None
        Whether an svmlight file's feature indices count from 0 (None for CSV / TSV).
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    classes: np.ndarray
    feature_names: tuple[str, ...] | None
    format: str
    truth: np.ndarray | None = None
    zero_based: bool | None = None

    def __post_init__(self):
        if self.truth is None:
            object.__setattr__(self, "truth", np.asarray(self.y).copy())

    @property
    def labeled(self) -> np.ndarray:
        return self.y != UNLABELED

    @property
    def scored(self) -> np.ndarray:
        """The unlabeled points whose true class is known (a boolean mask)."""
        return ~self.labeled & (self.truth != UNLABELED)

    def labels(self) -> np.ndarray:
        """The labels by class name, ``-1`` for unlabeled points (an object array):
        scikit-learn's semi-supervised convention."""
        out = np.full(self.y.shape, UNLABELED, dtype=object)
        out[self.labeled] = np.asarray(self.classes, dtype=object)[self.y[self.labeled]]
        return out


def read_data(source, *, format: str = "auto", labels=None, n_features: int | None = None,
              min_classes: int = 2, truth=None, zero_based: bool | str = "auto") -> DataFile:
    """Read a data file (see the module docstring for the formats).

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file object
        A path, the file's contents, or an open file (an upload: its ``name`` picks the
        format, its ``size`` is checked first when it has one). Text in a ``str`` (it holds a
        line break), a folder or a file open in text mode is refused with a sentence.
    format : {"auto", "csv", "tsv", "svmlight"}, default="auto"
        "auto" goes by the file name's extension, else by the first data line (``index:value``
        pairs mean svmlight, a tab TSV); a ``.csv`` file whose lines are svmlight rows is read
        as svmlight.
    labels : same kinds as ``source``, optional
        svmlin's labels file (one label per line, 0 = unlabeled) for an svmlight examples file
        without labels.
    n_features : int, optional
        The number of features expected (a model's): a CSV / TSV file with exactly that many
        columns then has no label column, and an svmlight file may not go beyond it.
    min_classes : int, default=2
        Fewest labeled classes accepted: 2 to fit a classifier, 0 to predict.
    truth : same kinds as ``source``, optional
        The true class of every point, one per line in the data's order (as svmlin's labels
        files); ``?``, or the format's unlabeled label, where it is unknown.
    zero_based : bool or "auto", default="auto"
        Whether svmlight indices count from 0; "auto" as ``load_svmlight_file``: zero-based
        when an index 0 appears.

    Returns
    -------
    DataFile
    """
    if not isinstance(format, str) or format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}.")
    if n_features is not None and not (_is_whole(n_features) and n_features >= 1):
        raise TypeError(f"n_features must be a whole number of at least 1 (the model's number "
                        f"of features) or None, not {n_features!r} "
                        f"({type(n_features).__name__}).")
    if not (_is_whole(min_classes) and min_classes >= 0):
        raise TypeError(f"min_classes must be a whole number of at least 0, not "
                        f"{min_classes!r} ({type(min_classes).__name__}).")
    if not (isinstance(zero_based, bool) or zero_based == "auto"):
        raise TypeError(f"zero_based must be True, False or \"auto\", not {zero_based!r}.")
    name = _name_of(source)
    text = _text(_read_bytes(source, name), name)
    where = f" of {name}" if name else ""
    first = _first_data_line(text)
    if first is None:
        raise ValueError(f"The file{where} holds no data: it has only blank or comment lines.")
    looks_svmlight = any(_FEATURE_TOKEN.match(t) for t in first.split()[:2])
    if format == "auto":
        by_name = _EXTENSIONS.get(Path(name).suffix.lower() if name else "", None)
        if by_name in ("csv", "tsv") and looks_svmlight and "," not in first and (
                "\t" not in first):
            by_name = "svmlight"  # svmlight rows saved under a .csv name read as what they are
        format = by_name or ("svmlight" if looks_svmlight else "tsv" if "\t" in first
                             else "csv")
    if format == "svmlight":
        labels_text = None
        if labels is not None:
            labels_name = _name_of(labels)
            labels_text = _text(_read_bytes(labels, labels_name), labels_name)
        X, y, classes, feature_names, zero_based = _read_svmlight(
            text, where, labels_text, n_features, zero_based)
        truth_cells = None
    else:
        if labels is not None:
            raise ValueError("A separate labels file goes with an svmlight examples file only; "
                             "a CSV / TSV file keeps its labels in a column.")
        delimiter, decimal_comma = ("\t", False) if format == "tsv" else _separator(text)
        X, y, classes, feature_names, truth_cells = _read_table(text, where, delimiter,
                                                                n_features, decimal_comma)
        zero_based = None
    _check_classes(classes, min_classes, where, format)
    if truth is not None:
        truth_name = _name_of(truth)
        truth_cells = _truth_file(_text(_read_bytes(truth, truth_name), truth_name),
                                  truth_name, X.shape[0], format)
        where_truth = f" of {truth_name}" if truth_name else " of the true classes"
    else:
        where_truth = where
    codes = y if truth_cells is None else _truth_codes(truth_cells, y, classes, where_truth,
                                                       format)
    return DataFile(X=X, y=y, classes=classes, feature_names=feature_names, format=format,
                    truth=codes, zero_based=zero_based)


# -- bytes and text -----------------------------------------------------------------------


def _name_of(source) -> str | None:
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        raise TypeError(f"read_data was given text ({_shown(source)}) where a path belongs: "
                        "give the file's path, or its contents as bytes (text.encode()).")
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else None


def _read_bytes(source, name) -> bytes:
    """The file's bytes, at most ``MAX_FILE_BYTES``: a file's size is checked before it is
    read, and every source is read no further than one byte past the limit (a pipe, a device
    or an upload may say no size, or a wrong one)."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, str | os.PathLike):
        data = _read_path(source, name)
    elif hasattr(source, "read"):
        size = getattr(source, "size", None)
        if isinstance(size, int):
            _check_size(size, name)
        data = source.read(MAX_FILE_BYTES + 1)
        if not isinstance(data, bytes | bytearray):
            what = "is open in text mode" if isinstance(data, str) else (
                f"reads as {type(data).__name__}, not bytes")
            raise TypeError(f"The file{f' {name}' if name else ''} {what}: open it in binary "
                            "mode (open(path, 'rb')); the reader decodes the text itself.")
        data = bytes(data)
    else:
        raise TypeError(f"Give a path, bytes or an open binary file, not {type(source).__name__}.")
    _check_size(len(data), name, read=True)
    return data


def _read_path(path, name) -> bytes:
    """A path's bytes, bounded; a FIFO is opened without waiting for a writer (one that has
    none reads as empty instead of blocking)."""
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise ValueError(f"{name} is a folder, not a file: give the path of a data file.")
    if stat.S_ISREG(mode):
        _check_size(os.stat(path).st_size, name)
    flags = os.O_RDONLY | (os.O_NONBLOCK if stat.S_ISFIFO(mode) else 0)
    descriptor = os.open(path, flags)
    if flags & os.O_NONBLOCK:
        os.set_blocking(descriptor, True)  # opened without a writer; now wait for its data
    with os.fdopen(descriptor, "rb") as handle:
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = handle.read(min(2**20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    return b"".join(chunks)


def _check_size(size: int, name, read: bool = False) -> None:
    if size > MAX_FILE_BYTES:
        what = f"The file{f' {name}' if name else ''}"
        amount = (f"holds more than {_megabytes(MAX_FILE_BYTES)} (reading stopped there)" if read
                  else f"is {_megabytes(size)}, more than the {_megabytes(MAX_FILE_BYTES)} "
                  "allowed")
        raise ValueError(f"{what} {amount} (MAX_FILE_BYTES). Use a sample of its rows.")


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB" if size < 2**30 else f"{size / 2**30:,.1f} GiB"


def _text(data: bytes, name) -> str:
    """Decode UTF-8 text with its line ends made ``\\n``; a compressed or binary file is
    refused with the line it breaks on."""
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
            # an old Mac's CR-only line ends too: the csv module would see one long line
            return text.replace("\r\n", "\n").replace("\r", "\n")
        bad = null
    line = data[:bad].count(b"\n") + 1
    raise ValueError(
        f"{what} is not a text file: line {line} holds binary data (byte {bad} is not UTF-8 "
        "text). Give a CSV, TSV or svmlight text file."
    )


def _data_lines(text: str):
    """``(line number, line)`` of the lines that hold data (not blank, not a # comment)."""
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, line


def _first_data_line(text: str) -> str | None:
    return next((line for _, line in _data_lines(text)), None)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun`` as a sentence says them: "1 feature", "2 features", "3 classes"
    (``plural`` when it is not the noun and an s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def _shown(text: str) -> str:
    """A line or a cell as a message quotes it: cut to ``_SHOWN`` characters."""
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


# -- CSV / TSV ------------------------------------------------------------------------------


def _separator(text: str) -> tuple[str, bool]:
    """The separator of a CSV file's values, and whether its numbers write decimal commas:
    the comma, unless the first data lines split alike on another common separator (a
    spreadsheet's ``;`` in many languages, ``|``, a tab) and have no comma, or only decimal
    commas between the ``;`` of a semicolon file."""
    lines = [line for _, (_, line) in zip(range(20), _data_lines(text), strict=False)]
    if any("," in line for line in lines):
        semicolons = {line.count(";") for line in lines}
        if len(semicolons) == 1 and semicolons != {0} and all(
                line.count(",") == len(_DECIMAL_COMMA.findall(line)) for line in lines):
            return ";", True
        return ",", False
    for separator in _SEPARATORS:
        counts = {line.count(separator) for line in lines}
        if len(counts) == 1 and counts != {0}:
            return separator, False
    return ",", False


def _read_table(text: str, where: str, delimiter: str, n_features: int | None,
                decimal_comma: bool = False):
    rows, numbers = [], []
    # strict: an unclosed quote is an error, not the rest of the file read as one cell
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1  # the line a row starts on (a quoted cell may span lines)
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not cells or (len(cells) == 1 and not cells[0].strip()) or (
                    cells[0].lstrip().startswith("#")):
                continue
            cells = [cell.strip() for cell in cells]
            if not rows and len(cells) > MAX_COLUMNS + 1:
                raise ValueError(
                    f"Line {line}{where} has {len(cells):,} columns; at most "
                    f"{MAX_COLUMNS:,} features and a label are allowed (MAX_COLUMNS)."
                )
            if rows and len(cells) != len(rows[0]):
                raise ValueError(
                    f"Line {line}{where} has {counted(len(cells), 'value')}, but line "
                    f"{numbers[0]} has {len(rows[0])}: every line needs the same number of "
                    "columns." + (_DECIMAL_COMMAS if delimiter == "," else "")
                )
            if len(rows) > MAX_POINTS:  # a header row and MAX_POINTS data rows at most
                raise ValueError(
                    f"The file{where} has more than {MAX_POINTS:,} data rows (line "
                    f"{line} is one too many; MAX_POINTS). Use a sample of its rows."
                )
            rows.append(cells)
            numbers.append(line)
    except csv.Error as error:
        lines = text.split("\n")
        first = lines[start - 1] if start <= len(lines) else ""
        if "unexpected end of data" in str(error) or (
                "field larger than field limit" in str(error) and first.count('"') % 2):
            raise ValueError(f"Line {start}{where} opens a quote (\") that no quote closes, so "
                             "the rest of the file would be one value: close the quote, or "
                             "remove it.") from None
        if "field larger than field limit" in str(error):
            raise ValueError(f"Line {start}{where} has a value longer than "
                             f"{MAX_FIELD_CHARS:,} characters (MAX_FIELD_CHARS): is it a "
                             "text file of one point per line?") from None
        raise ValueError(f"Line {start}{where} cannot be read as CSV: {error} (a quoted value "
                         "ends at its closing quote).") from None
    header = rows[0] if _is_header(rows[0]) else None
    if header is not None:
        header_line, rows, numbers = numbers[0], rows[1:], numbers[1:]
        _say_a_doubtful_header(header, header_line, where)
        if not rows:
            raise ValueError(f"The file{where} has a header row but no data rows.")
        if len(rows) > MAX_POINTS:
            raise ValueError(
                f"The file{where} has more than {MAX_POINTS:,} data rows (line "
                f"{numbers[MAX_POINTS]} is one too many; MAX_POINTS). Use a sample of its rows."
            )
    truth = _named_column(header, header_line if header else None, TRUTH_COLUMN, where)
    columns = [j for j in range(len(rows[0])) if j != truth]  # features and the label
    label = _label_column(header, header_line if header else None, columns, n_features,
                          numbers[0], where, truth)
    features = [j for j in range(len(rows[0])) if j not in (label, truth)]
    if not features:
        raise ValueError(_no_feature(rows[0], numbers[0], where, delimiter, label, truth))
    for number, row in zip(numbers, rows, strict=True):
        if label is not None and not one_line(row[label]):
            raise ValueError(f"Line {number}{where} has the label {_shown(row[label])} in "
                             f"{_column(label, header)}, which spans lines: a class name is "
                             "one line (the predictions file writes one class a line). Rename "
                             "the class.")
    X = _numbers(rows, features, numbers, header, where, decimal_comma)
    cells = [row[label] for row in rows] if label is not None else [""] * len(rows)
    y, classes = _encode(cells, _unlabeled_cells(cells), numbers, where,
                         _column(label, header))
    names = tuple(header[j] for j in features) if header is not None else None
    truth_cells = None
    if truth is not None:
        truth_cells = [(numbers[i], row[truth]) for i, row in enumerate(rows)]
    return X, y, classes, names, truth_cells


def _unlabeled_cells(cells) -> list[bool]:
    return [cell in UNLABELED_CELLS or (_is_number(cell) and float(cell) == -1)
            for cell in cells]


def _is_header(cells) -> bool:
    return any(cell.lower() in (LABEL_COLUMN, TRUTH_COLUMN) for cell in cells) or not all(
        _is_number(cell) for cell in cells[:-1])


def _say_a_doubtful_header(header, line: int, where: str) -> None:
    """A header row whose cells are partly numbers may be a data row with a typo: say so."""
    numbers = [cell for cell in header if _is_number(cell)]
    if not numbers:
        return
    words = [cell for cell in header if not _is_number(cell)]
    warnings.warn(HeaderRowWarning(
        f"Line {line}{where} was taken as the header row (its cell {_shown(words[0])} is not a "
        f"number), though {len(numbers)} of its cells are numbers: if it is a data row, fix "
        "that cell, or the row is lost."), stacklevel=4)


def _is_whole(value) -> bool:
    """An int (a numpy one too), not a bool and not a string of digits."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


#: What ends a line, as ``str.splitlines`` knows it: no class name may hold one.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def one_line(name: str) -> bool:
    """Whether a class name is one line: the predictions file writes one class a line."""
    return not any(character in LINE_BREAKS for character in name)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _named_column(header, header_line, name, where) -> int | None:
    named = [j for j, cell in enumerate(header or ()) if cell.lower() == name]
    if len(named) > 1:
        raise ValueError(f"Line {header_line}{where} names {len(named)} columns '{name}'; name "
                         f"one column '{name}'.")
    return named[0] if named else None


def _label_column(header, header_line, columns, n_features, first_line, where,
                  truth) -> int | None:
    """The label column's index: the one named ``label``, else the last column, which may not
    be the ``truth`` column; None when ``columns`` (the file's columns but the truth column)
    are exactly a model's features."""
    named = _named_column(header, header_line, LABEL_COLUMN, where)
    width = len(columns)
    if named is None and truth is not None and truth > columns[-1] and width != n_features:
        raise ValueError(
            f"Line {header_line}{where} names a 'truth' column, the last one, but no 'label' "
            "column: name the label column 'label' in the header row (the truth column is "
            "never the label, nor a feature)."
        )
    if n_features is not None and width not in (n_features, n_features + 1) or (
            named is not None and n_features is not None and width != n_features + 1):
        raise ValueError(
            f"Line {first_line}{where} has {counted(width, 'value')}, but the model was trained "
            f"on {counted(n_features, 'feature')}: give {counted(n_features, 'feature column')}, "
            "and a label column if you have labels."
        )
    if named is not None:
        return named
    return None if width == n_features else columns[-1]


def _no_feature(cells, line, where, delimiter, label, truth) -> str:
    """Why a file has no feature column, and what to do."""
    kept = [name for name, j in (("label", label), ("truth", truth)) if j is not None]
    shown = _shown(delimiter.join(cells))
    if len(cells) == 1:
        return (f"Line {line}{where} is one column ({shown}), so the file has no feature: "
                "separate the values with commas (CSV), tabs (TSV), ';' or '|', or give an "
                "svmlight file (label index:value ...). At least one feature is needed.")
    return (f"The file{where} has no feature column (line {line}, {shown}, holds only the "
            f"{' and '.join(kept)}): give at least one feature column.")


def _column(j, header) -> str:
    if j is None:
        return "no label column"
    return f"column {j + 1}" + (f" ('{header[j]}')" if header is not None else "")


def _numbers(rows, features, numbers, header, where, decimal_comma=False) -> np.ndarray:
    """The feature cells as floats (``1,5`` as 1.5 with ``decimal_comma``), or a sentence
    naming the first cell that is not a finite number."""
    cells = [[row[j] for j in features] for row in rows]
    if decimal_comma:
        cells = [[cell.replace(",", ".") if _DECIMAL.fullmatch(cell) else cell for cell in row]
                 for row in cells]
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
                hint = (_DECIMAL_COMMAS if "," in cell and _is_number(cell.replace(",", "."))
                        else "")
                raise ValueError(f"{at} holds {_shown(cell)}, which is not a number.{hint}")
            raise ValueError(f"{at} holds {_shown(cell)}, which is not a finite number: remove "
                             "or impute it.")
    raise AssertionError("unreachable: a cell failed to convert but every cell converts")


def _class_number(cell: str, line: int, where: str, column: str) -> int:
    """A label written as a number, as the whole number it is, or a sentence: not finite, not
    whole, or too large for every class to stay apart."""
    try:
        value = int(cell)  # exact, where a float would round 2**53 + 1 to 2**53
    except ValueError:
        value = float(cell)
    if not np.isfinite(value) or abs(value) > MAX_CLASS_NUMBER:
        why = ("is not a finite number" if not np.isfinite(value) else
               f"is larger than 2**53 = {MAX_CLASS_NUMBER:,}, beyond which two classes could "
               "read as one")
        raise ValueError(f"Line {line}{where} has the label {_shown(cell)} in {column}, which "
                         f"{why}. Labels are class names or whole numbers; renumber the "
                         "classes.")
    if value != round(value):
        raise ValueError(
            f"Line {line}{where} has the label {_shown(cell)} in {column}, not a class. "
            "Labels are class names or whole numbers; if this file has no label column, "
            "name one 'label' in a header row."
        )
    return int(value)


def _encode(cells, unlabeled, numbers, where, column):
    """Class codes (``-1`` where ``unlabeled``) and the sorted class names of label cells."""
    unlabeled = np.asarray(unlabeled, dtype=bool)
    kept = [(cell, number) for cell, number, hidden in zip(cells, numbers, unlabeled,
                                                            strict=True) if not hidden]
    names = [cell for cell, _ in kept]
    if names and all(_is_number(name) for name in names):
        names = np.array([_class_number(cell, number, where, column) for cell, number in kept],
                         dtype=np.int64)
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


# -- true classes -----------------------------------------------------------------------------


def _truth_file(text: str, name, n_points: int, format: str):
    """A file of true classes, one per line: ``(line number, cell)`` pairs."""
    lines = [(number, line.strip()) for number, line in _data_lines(text)]
    if len(lines) != n_points:
        raise ValueError(f"The true classes{f' {name}' if name else ''} are "
                         f"{counted(len(lines), 'line')}, but the data have "
                         f"{counted(n_points, 'point')}: give one class per point "
                         "('?' where it is unknown).")
    return lines


def _truth_codes(cells, y, classes, where, format) -> np.ndarray:
    """The true classes as indices in ``classes`` (``-1`` unknown); a labeled point's is its
    label. A true class that contradicts a label, or that no labeled point has, is refused:
    the error measured against it would be no solver's."""
    truth = y.copy()
    numeric = classes.dtype.kind in "iu"
    index = {name: k for k, name in enumerate(classes.tolist())}
    for i, (number, cell) in enumerate(cells):
        if cell == "?" or (format == "svmlight" and _is_number(cell) and float(cell) == 0) or (
                format != "svmlight" and cell in UNLABELED_CELLS) or (
                format != "svmlight" and _is_number(cell) and float(cell) == -1):
            continue
        name = _class_number(cell, number, where, "the true classes") if (
            numeric and _is_number(cell)) else cell
        code = index.get(name)
        if code is None and not index:
            raise ValueError(f"Line {number}{where} gives the true class {_shown(cell)}, but no "
                             "point is labeled: a true class is one of the labeled points' "
                             "classes. Label points, or leave the true classes out.")
        if code is None:
            known = ", ".join(map(str, classes.tolist()))
            raise ValueError(f"Line {number}{where} gives the true class {_shown(cell)}, which no "
                             f"labeled point has (the classes are {known}): label a point of "
                             "it, or write '?' where the class is unknown.")
        if y[i] != UNLABELED and y[i] != code:
            raise ValueError(f"Line {number}{where} gives the true class {_shown(cell)} to a "
                             f"point labeled {classes.tolist()[y[i]]!r}: fix one of them.")
        truth[i] = code
    return truth


# -- svmlight -------------------------------------------------------------------------------


def _read_svmlight(text: str, where: str, labels_text: str | None, n_features: int | None,
                   zero_based):
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
                f"Line {lines[0][0]}{where} starts with {_shown(lines[0][1].split()[0])}, a "
                "feature, not a label: svmlin keeps the labels in a separate file, one per "
                "line. Give that labels file too."
            )
        raise ValueError(f"The file{where} has its labels at the start of each line; a separate "
                         "labels file is for svmlin's examples files without them.")
    if not any(":" in line.split("#", 1)[0] for _, line in lines):
        raise ValueError(f"No line of the svmlight file{where} has a feature (an index:value "
                         "pair): at least one feature is needed.")
    if zero_based == "auto":  # load_svmlight_file's rule: an index 0 makes it zero-based
        zero_based = any(_ZERO_INDEX.search(line.split("#", 1)[0]) for _, line in lines)
    # found before the loader: its float labels would merge 2**53 + 1 with 2**53, and an index
    # past MAX_FEATURES would be a matrix of that many columns
    problem = _svmlight_error(lines, where, without_labels, n_features, zero_based)
    if problem is not None:
        raise problem
    body = "\n".join(("0 " if without_labels else "") + line for _, line in lines)
    try:
        X, y = load_svmlight_file(io.BytesIO(body.encode()), n_features=n_features,
                                  dtype=np.float64, zero_based=zero_based)
    except (ValueError, OverflowError, IndexError) as error:
        raise ValueError(f"The svmlight file{where} could not be read: "
                         f"{' '.join(str(error).split())[:200]}.") from None
    X = sp.csr_matrix(X)
    if X.shape[1] > MAX_FEATURES:
        raise ValueError(f"The file{where} has {X.shape[1]:,} features, more than the "
                         f"{MAX_FEATURES:,} allowed (MAX_FEATURES).")
    if not np.all(np.isfinite(X.data)):
        row = int(np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0], "right")) - 1
        raise ValueError(f"Line {lines[row][0]}{where} holds a value that is not a finite number "
                         "(nan or inf): remove or impute it.")
    numbers = [number for number, _ in lines]
    if without_labels:
        cells, numbers = _labels_file(labels_text, len(lines))
        where, column = " of the labels file", "its line"
    else:
        cells, column = [line.split()[0] for _, line in lines], "its first value"
    unlabeled = [_is_number(cell) and float(cell) == SVMLIGHT_UNLABELED for cell in cells]
    codes, classes = _encode(cells, unlabeled, numbers, where, column)
    return X, codes, classes, None, bool(zero_based)


def _svmlight_error(lines, where, without_labels, n_features, zero_based) -> ValueError | None:
    """The first line that breaks the format, as a sentence (``load_svmlight_file`` does not
    say which line)."""
    lowest = 0 if zero_based else 1
    for number, line in lines:
        at = f"Line {number}{where}"
        tokens = line.split("#", 1)[0].split()
        if not without_labels:
            label, tokens = tokens[0], tokens[1:]
            if not _is_number(label):
                return ValueError(f"{at} starts with {_shown(label)}, which is not a label (a "
                                  "number; files with several labels per point are not "
                                  "supported).")
        if tokens and tokens[0].startswith("qid:"):
            tokens = tokens[1:]
        previous = -1
        for token in tokens:
            index, _, value = token.partition(":")
            if not index.isdigit() or not _is_number(value):
                return ValueError(f"{at} holds {_shown(token)} where an index:value pair "
                                  "belongs.")
            index = int(index)
            if index < lowest:
                return ValueError(f"{at} has feature index 0, but the file numbers its "
                                  "features from 1 (as the model's training file did).")
            if index > MAX_FEATURES:
                return ValueError(f"{at} has feature index {index:,}, beyond the "
                                  f"{MAX_FEATURES:,} features allowed (MAX_FEATURES).")
            if index <= previous:
                return ValueError(f"{at} lists feature {index} after feature {previous}: the "
                                  "indices of a line must increase.")
            if n_features is not None and index >= n_features + lowest:
                return ValueError(f"{at} has feature {index}, but the model was trained on "
                                  f"{counted(n_features, 'feature')}.")
            previous = index
    return None


def _labels_file(text: str, n_examples: int):
    """svmlin's labels file: one number per line, 0 for an unlabeled point; its cells and
    line numbers."""
    lines = list(_data_lines(text))
    for number, line in lines:
        if not _is_number(line.strip()):
            raise ValueError(f"Line {number} of the labels file holds {_shown(line.strip())}, "
                             "which is not a label (a number, 0 for an unlabeled point).")
    if len(lines) != n_examples:
        raise ValueError(f"The labels file has {counted(len(lines), 'label')}, but the examples "
                         f"file has {counted(n_examples, 'example')}: give one label per example.")
    return [line.strip() for _, line in lines], [number for number, _ in lines]
