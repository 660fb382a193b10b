"""An uploaded data set, read within the app's limits (``engine.data``, issue 27), and
standardized when its features' scales differ (issue 42)."""

import dataclasses
import warnings

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


# -- issue 42, item 1: your own data scaled ---------------------------------------------------

def wine_csv(pair=None) -> bytes:
    """scikit-learn's wine data (shipped with it, no download) as a CSV file as it comes:
    two labels a class (a fixed draw), the true class of every other point in a truth column;
    ``pair`` keeps two of its three classes."""
    from sklearn.datasets import load_wine

    from toy_data import pick_labeled

    wine = load_wine()
    X, y = wine.data, wine.target
    if pair is not None:
        keep = np.isin(y, pair)
        X, y = X[keep], y[keep]
    labels = pick_labeled(y, 2, random_state=0)
    rows = [",".join([*wine.feature_names, "label", "truth"])]
    rows += [",".join([*(f"{v:g}" for v in x), "" if c == -1 else f"c{c}", f"c{t}"])
             for x, c, t in zip(X, labels, y, strict=True)]
    return ("\n".join(rows) + "\n").encode()


def test_wine_as_it_comes_is_standardized_and_its_picture_fills_the_chart():
    upload = read_upload("wine.csv", wine_csv())
    assert upload.standardized and upload.scale_ratio > 2000
    data = upload.build()
    np.testing.assert_allclose(data.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(data.X.std(axis=0), 1, atol=1e-12)
    np.testing.assert_array_equal(data.y_true, upload.truth)  # the truth column untouched
    grid_x, grid_y = data.grid()
    assert np.ptp(grid_x) / np.ptp(grid_y) < 1.5 and data.view.stretched == ""
    # undone: the file's own values, their picture stretched to fill the chart (not a strip)
    raw = dataclasses.replace(upload, standardized=False)
    assert raw != upload and hash(raw) != hash(upload) and repr(raw) == f"Upload('wine.csv', " \
        f"{upload.digest})" and repr(upload).endswith(", standardized)")
    data = raw.build()
    np.testing.assert_array_equal(data.X, upload.X)
    grid_x, grid_y = data.grid()
    assert 1 <= np.ptp(grid_x) / np.ptp(grid_y) <= 2 and data.view.stretched == "PC 2 × 10"
    assert read_upload("wine.csv", wine_csv(), standardize=False) == raw


def test_a_file_on_like_scales_is_used_as_it_is():
    assert not read_upload("a.csv", b"x,y,label\n0,0,a\n1,3,b\n2,1,\n").standardized
    assert read_upload("a.csv", b"x,y,label\n0,0,a\n1,3,b\n2,1,\n", standardize=True).standardized


@pytest.mark.parametrize("solver", ["DeterministicAnnealingS3VM", "ContinuationS3VM"])
def test_standardizing_wine_cuts_the_solvers_error_on_the_unlabeled_points(solver):
    """Wine's classes 1 and 2 with two labels each (a fixed draw), the solver's defaults as the
    app runs them: as the file comes, a third of the unlabeled points are wrong; standardized,
    under a tenth (issue 42: DA 33.1 % raw, 12.4 % standardized by hand, on all three)."""
    from s3vm_explorer.engine.registry import SOLVERS, make_estimator

    errors = []
    for standardize in (False, True):
        upload = read_upload("wine.csv", wine_csv(pair=(1, 2)), standardize=standardize)
        data = upload.build()
        params = {p.name: p.default for p in SOLVERS[solver].params}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make_estimator(solver, params).fit(data.X, upload.y)
        unlabeled = upload.y == -1
        errors.append(np.mean(model.transduction_[unlabeled] != data.y_true[unlabeled]))
    assert errors[0] > 0.25 and errors[1] < 0.11, errors
