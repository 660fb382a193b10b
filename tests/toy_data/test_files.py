"""Reading CSV / TSV and svmlight files: round trips, and a sentence naming the line for each
bad file."""

import csv
import gzip
import io
import os
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

from toy_data import files
from toy_data.files import read_data


def csv_bytes(X, labels, header=None, delimiter=","):
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header:
        writer.writerow(header)
    for row, label in zip(X, labels, strict=True):
        writer.writerow([repr(float(v)) for v in row] + [label])
    return out.getvalue().encode()


@pytest.fixture
def points():
    X = np.random.default_rng(0).normal(size=(12, 3))
    names = np.array(["cat", "dog", "", "?", "cat", "-1", "bird", "", "dog", "cat", "", "bird"])
    return X, names


# -- round trips ------------------------------------------------------------------------------


def test_a_csv_file_with_a_header_and_word_classes_round_trips(points):
    X, names = points
    data = read_data(csv_bytes(X, names, header=["a", "b", "c", "label"]))
    np.testing.assert_array_equal(data.X, X)
    assert data.format == "csv" and data.feature_names == ("a", "b", "c")
    assert list(data.classes) == ["bird", "cat", "dog"]
    hidden = np.isin(names, ["", "?", "-1"])
    np.testing.assert_array_equal(data.y == -1, hidden)
    np.testing.assert_array_equal(data.classes[data.y[~hidden]], names[~hidden])
    assert list(data.labels()[:3]) == ["cat", "dog", -1]


def test_the_label_column_is_the_one_named_label_else_the_last(points):
    X, names = points
    text = csv_bytes(X, names, header=["a", "b", "c", "label"]).decode().splitlines()
    moved = "\n".join(",".join([row.split(",")[-1], *row.split(",")[:-1]]) for row in text)
    first = read_data(moved.encode())
    np.testing.assert_array_equal(first.X, X)
    assert first.feature_names == ("a", "b", "c")
    plain = read_data(csv_bytes(X, names))  # no header: the last column
    np.testing.assert_array_equal(plain.X, X)
    assert plain.feature_names is None
    np.testing.assert_array_equal(plain.y, first.y)


def test_tsv_and_numeric_classes_round_trip(points):
    X, _ = points
    labels = ["1", "2", "-1", "3", "", "2", "1", "?", "3", "1", "2", "3"]
    data = read_data(csv_bytes(X, labels, delimiter="\t"))
    assert data.format == "tsv"
    np.testing.assert_array_equal(data.X, X)
    assert data.classes.tolist() == [1, 2, 3]
    np.testing.assert_array_equal(data.labels(), [1, 2, -1, 3, -1, 2, 1, -1, 3, 1, 2, 3])


def test_svmlight_round_trips_with_label_zero_unlabeled():
    rng = np.random.default_rng(1)
    X = sp.random(20, 50, density=0.1, format="csr", random_state=2)
    y = rng.choice([-1, 0, 1], size=20)
    y[:2] = [-1, 1]
    buffer = io.BytesIO()
    dump_svmlight_file(X, y, buffer, zero_based=False)
    data = read_data(buffer.getvalue(), format="svmlight", n_features=50)
    assert data.format == "svmlight" and sp.issparse(data.X)
    np.testing.assert_allclose(data.X.toarray(), X.toarray(), rtol=1e-15)  # %.16g in the file
    assert data.classes.tolist() == [-1, 1]
    np.testing.assert_array_equal(data.labels(), np.where(y == 0, -1, y))


def test_svmlins_examples_and_labels_files():
    examples = b"1:0.5 3:1\n2:0.25\n# a comment\n1:1 2:2\n"
    data = read_data(examples, labels=b"1\n-1\n0\n")
    assert data.format == "svmlight"
    np.testing.assert_array_equal(data.X.toarray(), [[0.5, 0, 1], [0, 0.25, 0], [1, 2, 0]])
    np.testing.assert_array_equal(data.labels(), [1, -1, -1])


def test_a_path_bytes_and_an_open_file_read_the_same(tmp_path, points):
    X, names = points
    content = csv_bytes(X, names, header=["a", "b", "c", "label"])
    path = tmp_path / "points.csv"
    path.write_bytes(content)
    upload = io.BytesIO(content)
    upload.name = "points.csv"
    for source in (path, str(path), upload):
        data = read_data(source)
        np.testing.assert_array_equal(data.X, X)
        np.testing.assert_array_equal(data.y, read_data(content).y)


def test_points_to_predict_need_no_label_column(points):
    X, _ = points
    plain = "\n".join(",".join(repr(float(v)) for v in row) for row in X).encode()
    data = read_data(plain, n_features=3, min_classes=0)
    np.testing.assert_array_equal(data.X, X)
    assert (data.y == -1).all() and data.classes.size == 0


def test_the_extension_picks_the_format_over_the_content():
    upload = io.BytesIO(b"1 1:1\n-1 1:2\n")
    upload.name = "points.libsvm"
    assert read_data(upload).format == "svmlight"


# -- every bad file gets a sentence ---------------------------------------------------------


@pytest.mark.parametrize("content, message", [
    (b"x,y,label\n1,2,a\n3,4\n5,6,b\n", r"^Line 3 has 2 values, but line 1 has 3"),
    (b"x,y,label\n1,2,a\n3,abc,b\n", r"^Line 3, column 2 \('y'\), holds 'abc', which is not a "
                                     r"number"),
    (b"x,y,label\n1,nan,a\n3,4,b\n", r"^Line 2, column 2 \('y'\), holds 'nan', which is not a "
                                     r"finite number"),
    (b"1,2,a\n-inf,4,b\n", r"^Line 2, column 1, holds '-inf', which is not a finite"),
    (b"1,1e400,a\n3,4,b\n", r"^Line 1, column 2, holds '1e400', which is not a finite"),
    (b"x,y,label\n1,,a\n3,4,b\n", r"^Line 2, column 2 \('y'\), is empty"),
    (b"x,y,label\n1,2,a\n3,4,a\n5,6,\n", r"Only one class \('a'\) is labeled"),
    (b"x,y,label\n1,2,?\n3,4,\n", r"No point of the file is labeled"),
    (b"1,2,0.25\n3,4,1\n", r"^Line 1 has the label '0.25' in column 3, not a class"),
    (b"", r"^The file is empty"),
    (b" \n\n", r"^The file is empty"),
    (b"# notes only\n\n", r"holds no data"),
    (b"x,y,label\n", r"has a header row but no data rows"),
    (b"label,x,label\n1,2,3\n", r"^Line 1 names 2 columns 'label'"),
    (b"x,y\n1,2\n\x00\x00\x00", r"^The file is not a text file: line 3 holds binary data"),
    (b"x,y\n1,\xff\xfe\n", r"^The file is not a text file: line 2"),
    (gzip.compress(b"1,2,a\n"), r"compressed \(gzip\)"),
    (b"PK\x03\x04rest of a workbook", r"compressed \(zip \(an Excel workbook is one\)\)"),
    (b"1 1:0.5\n-1 2:abc\n", r"^Line 2 holds '2:abc' where an index:value pair belongs"),
    (b"1 3:0.5 1:1\n-1 2:1\n", r"^Line 1 lists feature 1 after feature 3"),
    (b"1 1:0.5\n-1 2:inf\n", r"^Line 2 holds a value that is not a finite number"),
    (b"1,3 1:0.5\n-1 2:1\n", r"^Line 1 starts with '1,3', which is not a label"),
    (b"1 1:0.5\n0.5 2:1\n", r"^Line 2 has the label '0.5' in its first value, not a class"),
    (b"1:0.5\n2:1\n", r"^Line 1 starts with '1:0.5', a feature, not a label: svmlin keeps"),
    (b"1 1:1\n1 2:1\n0 1:2\n", r"Only one class \(1\) is labeled.*label 0"),
])
def test_a_bad_file_gets_a_sentence_that_names_what_is_wrong(content, message):
    with pytest.raises(ValueError, match=message):
        read_data(content)


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.csv"
    with path.open("wb") as handle:
        handle.truncate(2**30)  # a sparse 1 GiB file: reading it would take seconds
    with pytest.raises(ValueError, match=r"is 1.0 GiB, more than the 100.0 MiB allowed"):
        read_data(path)

    class Upload:
        name, size = "big.csv", 2**30

        def read(self, *_):
            raise AssertionError("read before the size was checked")

    with pytest.raises(ValueError, match="more than the 100.0 MiB allowed"):
        read_data(Upload())


def test_bytes_over_the_size_limit_are_refused(monkeypatch):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 10)
    with pytest.raises(ValueError, match="MAX_FILE_BYTES"):
        read_data(b"1,2,a\n3,4,b\n")


def test_more_columns_rows_or_classes_than_allowed(monkeypatch):
    monkeypatch.setattr(files, "MAX_COLUMNS", 2)
    with pytest.raises(ValueError, match=r"^Line 1 has 4 columns; at most 2 features"):
        read_data(b"1,2,3,a\n4,5,6,b\n")
    monkeypatch.setattr(files, "MAX_POINTS", 3)
    with pytest.raises(ValueError, match=r"more than 3 data rows \(line 5 is one too many"):
        read_data(b"x,label\n1,a\n2,b\n3,a\n4,b\n")
    read_data(b"x,label\n1,a\n2,b\n3,a\n")  # a header row on top of three is fine
    with pytest.raises(ValueError, match=r"more than 3 data rows \(line 4 is one too many"):
        read_data(b"1 1:1\n-1 1:2\n1 1:3\n-1 1:4\n")
    monkeypatch.setattr(files, "MAX_CLASSES", 2)
    with pytest.raises(ValueError, match="has 3 classes, more than the 2 allowed"):
        read_data(b"1,1\n2,2\n3,3\n")
    monkeypatch.setattr(files, "MAX_FEATURES", 5)
    with pytest.raises(ValueError, match="^Line 1 has feature index 9, beyond the 5 features"):
        read_data(b"1 9:1\n-1 1:2\n")


def test_a_file_for_a_model_must_have_its_features():
    with pytest.raises(ValueError, match="^Line 1 has 4 values, but the model was trained on 2"):
        read_data(b"1,2,3,4\n", n_features=2, min_classes=0)
    with pytest.raises(ValueError, match="^Line 2 has feature 7, but the model was trained on 3"):
        read_data(b"1 1:1\n-1 7:1\n", n_features=3, min_classes=0)


def test_svmlins_labels_file_must_match_its_examples():
    with pytest.raises(ValueError, match="labels file has 2 labels, but the examples file has 3"):
        read_data(b"1:1\n2:1\n1:2\n", labels=b"1\n-1\n")
    with pytest.raises(ValueError, match="^Line 2 of the labels file holds 'b'"):
        read_data(b"1:1\n2:1\n", labels=b"1\nb\n")
    with pytest.raises(ValueError, match="separate labels file is for svmlin's examples"):
        read_data(b"1 1:1\n-1 2:1\n", labels=b"1\n-1\n")
    with pytest.raises(ValueError, match="goes with an svmlight examples file only"):
        read_data(b"1,a\n2,b\n", labels=b"1\n-1\n")


def test_a_missing_file_and_a_bad_format_name():
    with pytest.raises(FileNotFoundError):
        read_data("no/such/file.csv")
    with pytest.raises(ValueError, match="format must be one of auto, csv, tsv, svmlight"):
        read_data(b"1,a\n", format="xlsx")


def test_the_file_name_is_in_the_sentence(tmp_path):
    path = tmp_path / "points.csv"
    path.write_bytes(b"1,2,a\n3,b\n")
    with pytest.raises(ValueError, match=r"^Line 2 of .*points\.csv has 2 values"):
        read_data(path)


# -- true classes of unlabeled points (issue 33, item 1) ----------------------------------------


def test_a_truth_column_gives_the_true_class_of_unlabeled_rows():
    data = read_data(b"x,label,truth,y\n0,a,,1\n1,,b,2\n2,?,a,3\n3,,?,4\n4,b,b,5\n")
    assert data.feature_names == ("x", "y")  # the truth column is no feature
    np.testing.assert_array_equal(data.X, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]])
    assert list(data.classes) == ["a", "b"]
    np.testing.assert_array_equal(data.y, [0, -1, -1, -1, 1])
    np.testing.assert_array_equal(data.truth, [0, 1, 0, -1, 1])
    np.testing.assert_array_equal(data.scored, [False, True, True, False, False])


def test_without_true_classes_no_unlabeled_point_is_scored(points):
    X, names = points
    data = read_data(csv_bytes(X, names, header=["a", "b", "c", "label"]))
    np.testing.assert_array_equal(data.truth, data.y)
    assert not data.scored.any()


def test_a_file_of_true_classes_one_per_line():
    data = read_data(b"1 1:1\n-1 1:2\n0 1:3\n0 1:4\n", truth=b"1\n-1\n-1\n0\n")
    np.testing.assert_array_equal(data.truth, [1, 0, 0, -1])
    np.testing.assert_array_equal(data.scored, [False, False, True, False])
    with pytest.raises(ValueError, match="true classes are 3 lines, but the data have 4 points"):
        read_data(b"1 1:1\n-1 1:2\n0 1:3\n0 1:4\n", truth=b"1\n-1\n-1\n")


@pytest.mark.parametrize("content, message", [
    (b"x,label,truth\n0,a,b\n1,b,\n", r"^Line 2 gives the true class 'b' to a point labeled "
                                       r"'a': fix one of them"),
    (b"x,label,truth\n0,a,\n1,b,\n2,,c\n", r"^Line 4 gives the true class 'c', which no "
                                            r"labeled point has \(the classes are a, b\)"),
    (b"x,label,truth,truth\n0,a,,\n1,b,,\n", r"^Line 1 names 2 columns 'truth'"),
])
def test_true_classes_that_no_solver_could_be_scored_on_are_refused(content, message):
    with pytest.raises(ValueError, match=message):
        read_data(content)


# -- what issue 33 found in the readers (items 2, 9 to 12) ---------------------------------------


def test_one_feature_is_data_and_zero_features_are_refused_with_a_sentence():
    one = read_data(b"x,label\n0.5,a\n1.5,b\n2.5,\n")
    assert one.X.shape == (3, 1) and one.feature_names == ("x",)
    with pytest.raises(ValueError, match=r"^Line 1 is one column \('a'\), so the file has no "
                                         r"feature: separate the values with commas"):
        read_data(b"a\nb\n\n?\n")
    with pytest.raises(ValueError, match=r"has no feature column \(line 2, 'a,', holds only "
                                         r"the label and truth\)"):
        read_data(b"label,truth\na,\nb,\n,a\n")
    with pytest.raises(ValueError, match="No line of the svmlight file has a feature"):
        read_data(b"1\n-1\n0\n", format="svmlight")


@pytest.mark.parametrize("label, why", [
    ("inf", "is not a finite number"), ("-inf", "is not a finite number"),
    ("1e300", "is larger than 2\\*\\*53"), ("1e30", "is larger than 2\\*\\*53"),
    ("9007199254740993", "is larger than 2\\*\\*53"),
])
def test_labels_that_are_no_class_number_are_refused(label, why):
    for content in (f"1,2,1\n3,4,{label}\n", f"1 1:2\n{label} 1:4\n"):
        with pytest.raises(ValueError, match=f"^Line 2 has the label '{label}' in .*, which "
                                             f"{why}"):
            read_data(content.encode())


def test_the_largest_exact_class_numbers_stay_apart():
    data = read_data(b"1,9007199254740992\n2,9007199254740991\n")
    assert data.classes.tolist() == [9007199254740991, 9007199254740992]


@pytest.mark.parametrize("separator", [";", "|", "\t"])
def test_another_separator_is_found(separator):
    text = separator.join(["x", "y", "label"]) + "\n" + "\n".join(
        separator.join(["1.5", "2", "a"]) if i % 2 else separator.join(["3", "4.5", "b"])
        for i in range(4))
    upload = io.BytesIO(text.encode())
    upload.name = "points.csv"
    data = read_data(upload)
    assert data.X.shape == (4, 2) and list(data.classes) == ["a", "b"]


def test_a_semicolon_file_with_decimal_commas_is_read_with_its_decimals():
    """A spreadsheet where the comma is the decimal mark saves CSV with ';' between the values
    (issue 42, item 7): its numbers are read as they are meant, and its labels stay words."""
    data = read_data(b"x;y;label\n1,5;2,25;a\n-0,5;3;b\n,75;1e2;\n1,5e-1;4;a\n")
    np.testing.assert_allclose(data.X, [[1.5, 2.25], [-0.5, 3], [0.75, 100], [0.15, 4]])
    assert list(data.classes) == ["a", "b"] and data.y.tolist() == [0, 1, -1, 0]


@pytest.mark.parametrize(("content", "message"), [
    # comma-separated with decimal commas: the lines split into differing numbers of values
    (b"x,y,label\n1,5,2,3,a\n2,2,1,0,b\n", r"^Line 2 has 5 values, but line 1 has 3: every "
     r"line needs the same number of columns\. If the file writes decimal commas \(1,5 for "
     r"1\.5\), they may be the cause: save it with decimal points, or with ';' between"),
    # a ';' file whose header has a comma that is no decimal: read as comma-separated, said
    (b"weight, kg;height;label\n1,5;2,5;a\n", r"^Line 2 has 3 values, but line 1 has 2.*"
     r"decimal commas"),
    # a TSV file with decimal commas
    (b"x\ty\tlabel\n1,5\t2\ta\n3\t4\tb\n", r"^Line 2, column 1 \('x'\), holds '1,5', "
     r"which is not a number\. If the file writes decimal commas"),
    # one value: said in the singular
    (b"1,2,a\n3\n", r"^Line 2 has 1 value, but line 1 has 3"),
])
def test_decimal_commas_that_cannot_be_read_are_named_as_the_likely_cause(content, message):
    with pytest.raises(ValueError, match=message):
        read_data(content)


def test_a_number_with_a_comma_is_not_blamed_on_decimal_commas_unless_it_could_be_one():
    with pytest.raises(ValueError, match=r"holds 'abc', which is not a number\.$"):
        read_data(b"x\ty\tlabel\nabc\t2\ta\n3\t4\tb\n")
    with pytest.raises(ValueError, match=r"^Line 2 has 2 values, but line 1 has 3: every line "
                                         r"needs the same number of columns\.$"):
        read_data(b"1\t2\ta\n3\tb\n")


def test_svmlight_rows_saved_as_csv_are_read_as_svmlight():
    upload = io.BytesIO(b"1 1:0.5 2:1\n-1 2:0.25\n0 1:1\n")
    upload.name = "points.csv"
    data = read_data(upload)
    assert data.format == "svmlight" and data.X.shape == (3, 2)


def test_a_header_row_that_may_be_a_data_row_is_said():
    with pytest.warns(files.HeaderRowWarning, match=r"^Line 1 was taken as the header row \(its "
                                                    r"cell '2.o' is not a number\)"):
        data = read_data(b"1.0,2.o,a\n3,4,b\n5,6,a\n")
    assert data.X.shape == (2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_data(b"x,y,label\n3,4,b\n5,6,a\n")  # a header of words only is said nothing


def test_cr_line_ends_long_cells_and_huge_indices():
    data = read_data(b"x,y,label\r1,2,a\r3,4,b\r")
    assert data.X.shape == (2, 2)
    with pytest.raises(ValueError, match=r"^Line 2 has a value longer than 131,072 characters"):
        read_data(b"x,label\n" + b"1" * 200_000 + b",a\n2,b\n")
    with pytest.raises(ValueError, match=r"^Line 2 has feature index 2,147,483,648, beyond"):
        read_data(b"1 1:1\n-1 2147483648:1\n")


def test_zero_based_svmlight_files_read_as_scikit_learn_writes_them():
    X = np.array([[1.5, 0, 2], [0, 3, 0], [4, 0, 0]])
    buffer = io.BytesIO()
    dump_svmlight_file(X, [1, -1, 0], buffer, zero_based=True)
    data = read_data(buffer.getvalue(), format="svmlight")
    np.testing.assert_array_equal(data.X.toarray(), X)
    assert data.zero_based is True
    one_based = read_data(b"1 1:1.5 3:2\n-1 2:3\n")
    assert one_based.zero_based is False and one_based.X.shape == (2, 3)
    # points to predict are read as their model's training file was
    new = read_data(b"0 2:1\n", zero_based=True, n_features=3, min_classes=0)
    np.testing.assert_array_equal(new.X.toarray(), [[0, 0, 1]])


def test_devices_are_read_no_further_than_the_limit(monkeypatch):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 4096)
    for device in ("/dev/zero", "/dev/urandom"):
        with pytest.raises(ValueError, match=f"^The file {device} holds more than 0.0 MiB "
                                             r"\(reading stopped there\)"):
            read_data(device)


def test_a_fifo_without_writer_does_not_block(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            read_data(fifo)
        except ValueError as error:
            outcome.append(str(error))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert outcome == [f"The file {fifo} is empty."]


# -- the last hostile inputs (issue 40, item 9) ---------------------------------------------------


@pytest.mark.parametrize("content, message", [
    (b'x,label\n0,a\n1,"b\n2,a\n3,b\n', r"^Line 3 opens a quote \(\"\) that no quote closes"),
    # the rest of a long file after the quote: said as the quote, not as a value too long
    (b'x,label\n0,a\n1,"b\n' + b"2,a\n" * 40_000, r"^Line 3 opens a quote"),
    (b'x,label\n0,a\n1,"b"c\n', r"^Line 3 cannot be read as CSV: ',' expected after '\"'"),
    (b'x,label\n0,"a\nb"\n1,c\n2,"a\nb"\n', r"^Line 2 has the label 'a\\nb' in column 2 "
                                           r"\('label'\), which spans lines: a class name is "
                                           r"one line"),
    (b'x,label\n0,"a\rb"\n1,c\n', r"^Line 2 has the label 'a\\nb'"),  # \r: a line end too
    (b"x,label\n0,a\xe2\x80\xa8b\n1,c\n", r"^Line 2 has the label 'a\\u2028b'.*spans lines"),
    (b"x1,x2,truth\n0,0,a\n1,1,b\n", r"^Line 1 names a 'truth' column, the last one, but no "
                                    r"'label' column: name the label column 'label'"),
])
def test_quotes_line_breaks_in_class_names_and_a_truth_column_without_labels(content, message):
    with pytest.raises(ValueError, match=message):
        read_data(content)


def test_a_quoted_cell_over_lines_is_numbered_from_its_first_line():
    data = read_data(b'x,label\n0,a\n"1",b\n2,a\n"3\n",b\n')  # a feature cell of two lines
    np.testing.assert_array_equal(data.X.ravel(), [0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"^Line 5, column 1 \('x'\), holds 'x'"):
        read_data(b'x,label\n0,a\n1,b\n2,a\n"x\n",b\n6,a\n')


def test_a_truth_column_with_the_label_named_or_last_is_read():
    data = read_data(b"x,truth,y\n0,a,a\n1,b,\n2,,b\n")  # the last column is the label
    assert data.classes.tolist() == ["a", "b"] and data.feature_names == ("x",)
    np.testing.assert_array_equal(data.truth, [0, 1, 1])
    # points to predict: exactly the model's features and a truth column, no label
    data = read_data(b"x1,x2,truth\n0,0,?\n1,1,?\n", n_features=2, min_classes=0)
    assert data.X.shape == (2, 2) and not data.labeled.any()
    with pytest.raises(ValueError, match=r"^Line 2 gives the true class 'a', but no point is "
                                         r"labeled"):
        read_data(b"x1,x2,truth\n0,0,a\n1,1,b\n", n_features=2, min_classes=0)


@pytest.mark.parametrize("arguments, message", [
    ({"n_features": "2"}, r"^n_features must be a whole number of at least 1 .* not '2' \(str\)"),
    ({"n_features": True}, r"^n_features must be .* not True \(bool\)"),
    ({"n_features": 0}, r"^n_features must be a whole number of at least 1"),
    ({"n_features": 2.0}, r"^n_features must be .* not 2.0 \(float\)"),
    ({"min_classes": "2"}, r"^min_classes must be a whole number of at least 0"),
    ({"zero_based": "yes"}, r"^zero_based must be True, False or \"auto\", not 'yes'"),
])
def test_arguments_of_the_wrong_type_are_said(arguments, message):
    with pytest.raises(TypeError, match=message):
        read_data(b"1,2,a\n3,4,b\n", **arguments)
    assert read_data(b"1,2,a\n3,4,b\n", n_features=np.int64(2)).X.shape == (2, 2)


def test_text_where_a_path_belongs_and_a_text_mode_file_are_said(tmp_path):
    with pytest.raises(TypeError, match=r"^read_data was given text \('x,label\\n1,a.*'\) where "
                                        r"a path belongs: give the file's path, or its contents "
                                        r"as bytes"):
        read_data("x,label\n1,a\n2,b\n")
    path = tmp_path / "points.csv"
    path.write_bytes(b"1,2,a\n3,4,b\n")
    with open(path) as text_mode, pytest.raises(TypeError, match=r"points\.csv is open in text "
                                                                 r"mode: open it in binary mode"):
        read_data(text_mode)
    (tmp_path / "examples").write_bytes(b"1:1\n1:2\n")
    (tmp_path / "labels").write_bytes(b"1\n-1\n")
    with open(tmp_path / "labels") as labels, pytest.raises(TypeError, match="labels is open in "
                                                                             "text mode"):
        read_data(tmp_path / "examples", labels=labels)
    with open(path, "rb") as binary:
        assert read_data(binary).classes.tolist() == ["a", "b"]


def test_a_folder_where_a_file_belongs_is_named(tmp_path):
    (tmp_path / "examples").write_bytes(b"1:1\n1:2\n")
    folder = tmp_path / "labels"
    folder.mkdir()
    with pytest.raises(ValueError, match=r"labels is a folder, not a file"):
        read_data(tmp_path / "examples", labels=folder)
    with pytest.raises(ValueError, match=r"is a folder, not a file"):
        read_data(tmp_path)
