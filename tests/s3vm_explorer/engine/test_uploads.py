"""An uploaded data set, read within the app's limits (``engine.data``, issue 27)."""

import numpy as np
import pytest

from s3vm_explorer.engine import data as uploads
from s3vm_explorer.engine.data import read_upload


def test_a_csv_with_named_classes_and_unlabeled_cells_is_read():
    upload = read_upload("a.csv", b"x,y,label\n0,0,cat\n1,1,dog\n2,2,\n3,3,?\n4,4,bird\n")
    assert upload.X.shape == (5, 2) and upload.classes == ("bird", "cat", "dog")
    np.testing.assert_array_equal(upload.y, [1, 2, -1, -1, 0])
    # the same bytes are the same upload (runs are cached by it), and it names itself briefly
    assert upload == read_upload("b.csv", b"x,y,label\n0,0,cat\n1,1,dog\n2,2,\n3,3,?\n4,4,bird\n")
    assert repr(upload) == f"Upload('a.csv', {upload.digest})"


def test_svmlight_with_label_zero_unlabeled_is_read_dense():
    upload = read_upload("a.svm", b"1 1:0.5 3:1\n-1 2:1\n0 1:2\n")
    assert upload.X.tolist() == [[0.5, 0, 1], [0, 1, 0], [2, 0, 0]]
    assert upload.y.tolist() == [1, 0, -1]


@pytest.mark.parametrize(("name", "data", "sentence"), [
    ("r.csv", b"1,2,a\n1,b\n", "Line 2 of r.csv has 2 values"),
    ("e.csv", b"", "is empty"),
    ("b.csv", b"\x00\x01\x02", "not a text file"),
    ("one.csv", b"1,2,a\n3,4,a\n", "class"),
    ("big.csv", b"0" * (uploads.MAX_UPLOAD_MB * 2**20 + 1), "more than the 20 MB"),
    ("many.csv", b"".join(b"%d,1,%d\n" % (i, i % 2) for i in range(2001)), "at most 2,000"),
    ("wide.csv", b",".join([b"1"] * 1002) + b"\n" + b",".join([b"1"] * 1001) + b",0\n",
     "at most 1,000"),
    ("classes.csv", b"".join(b"%d,1,c%d\n" % (i, i) for i in range(9)), "tells at most 8 apart"),
])
def test_a_bad_file_gets_a_sentence_naming_what_is_wrong(name, data, sentence):
    with pytest.raises(ValueError, match=sentence):
        read_upload(name, data)


def test_the_limits_are_said_in_the_uploaders_help():
    assert "20 MB, 2,000 points, 1,000 features and 8 classes" in uploads.FORMATS_HELP


def test_a_semicolon_file_is_read_as_its_columns_not_as_one_column_of_classes():
    """The Data page said "61 classes… merge some" of a ';' file read as one column: its
    separator is found, and it has its features and two classes (issue 33, item 10)."""
    rows = [f"{i / 10:.1f};{(i % 7) / 10:.1f};{'a' if i < 30 else 'b'}" for i in range(61)]
    upload = read_upload("semi.csv", ("x1;x2;label\n" + "\n".join(rows) + "\n").encode())
    assert upload.X.shape == (61, 2) and upload.classes == ("a", "b")
