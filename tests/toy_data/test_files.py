"""Reading CSV / TSV and svmlight files: round trips, and a sentence naming the line for each
bad file."""

import csv
import gzip
import io

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
    (b"1 1:0.5\n-1 0:1\n", r"^Line 2 has feature index 0: the svmlight format numbers"),
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
    with pytest.raises(ValueError, match="has 9 features, more than the 5 allowed"):
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
