"""Hostile and awkward input to the command line (issue 33, items 1, 2, 9-14; issue 36, item 9;
issue 40, item 9):
each case ends in exit 0 with what the user asked, or in one line on stderr with the exit code
of a bad input (2), never a traceback, a raw library message, a hang or an invented number.

Run in-process (``main(argv)``), a few milliseconds a case; test_commands.py drives the same
entry point in a subprocess."""

import json
import os
import threading
import zipfile

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from s3vm_cli import main
from s3vm_core import SVMBaseline
from toy_data import files, pick_labeled, two_moons

X, Y = two_moons(60, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 3, random_state=0)


def run(monkeypatch, capsys, folder, *args):
    """``s3vm ARGS`` in ``folder``: (exit code, stdout, stderr lines)."""
    monkeypatch.chdir(folder)
    try:
        code = main([str(a) for a in args])
    except SystemExit as exit:  # argparse's usage errors
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def moons_csv(label_of=lambda i, c: "" if c == -1 else str(c), truth=None, separator=","):
    header = ["x1", "x2", "label"] + (["truth"] if truth is not None else [])
    rows = [separator.join(header)]
    for i, ((a, b), c) in enumerate(zip(X.tolist(), LABELS.tolist(), strict=True)):
        cells = [repr(a), repr(b), label_of(i, c)] + ([truth(i)] if truth is not None else [])
        rows.append(separator.join(cells))
    return "\n".join(rows) + "\n"


def one_line(err, code, expected, words):
    assert len(err) == 1 and err[0].startswith("s3vm: "), err
    assert "Traceback" not in err[0] and len(err[0]) < 1100
    for word in words:
        assert word in err[0], err[0]
    return code == expected


# -- files that are refused: one line, exit 2 -----------------------------------------------

REFUSED = [
    ("inf.csv", "1,2,1\n3,4,inf\n5,6,2\n", ["Line 2", "'inf'", "not a finite number"]),
    ("big.csv", "1,2,1\n3,4,1e300\n5,6,2\n", ["Line 2", "'1e300'", "larger than 2**53"]),
    ("e30.csv", "1,2,1e30\n3,4,1e31\n5,6,2\n", ["Line 1", "'1e30'", "larger than 2**53"]),
    ("close.svm", "9007199254740993 1:1\n9007199254740992 1:2\n", ["'9007199254740993'"]),
    ("one_column.csv", "a\nb\n\n?\n", ["one column", "no feature", "commas"]),
    ("only_labels.csv", "label,truth\na,\nb,\n,a\n", ["no feature column"]),
    ("no_features.svm", "1\n-1\n0\n", ["has a feature (an index:value pair)"]),
    ("long_cell.csv", "x,label\n" + "1" * 200_000 + ",a\n2,b\n", ["Line 2",
                                                                  "longer than 131,072"]),
    ("huge_index.svm", "1 1:1\n-1 2147483648:1\n", ["Line 2", "index 2,147,483,648"]),
    ("contradiction.csv", "x,label,truth\n0,a,b\n1,b,\n", ["Line 2", "true class 'b'",
                                                          "labeled 'a'"]),
    ("unknown_class.csv", "x,label,truth\n0,a,\n1,b,\n2,,c\n", ["'c'", "no labeled point"]),
    # issue 40, item 9
    ("quote.csv", 'x1,x2,label\n0,0,a\n1,"1,b\n0,1,a\n1,0,b\n', [
        "Line 3 of quote.csv opens a quote", "no quote closes"]),
    ("newline.csv", 'x1,label\n0,"a\nb"\n1,c\n2,"a\nb"\n', [
        "Line 2 of newline.csv has the label 'a\\nb'", "spans lines"]),
    ("truth_no_label.csv", "x1,x2,truth\n0,0,a\n1,1,b\n0,1,a\n", [
        "names a 'truth' column, the last one, but no 'label' column"]),
]


@pytest.mark.parametrize("name, content, words", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_bad_file_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, name, content, words):
    (tmp_path / name).write_text(content)
    code, out, err = run(monkeypatch, capsys, tmp_path, "fit", name, "-s", "svm")
    assert one_line(err, code, 2, words) and out == ""


def test_a_100_kb_parameter_value_is_not_echoed(tmp_path, monkeypatch, capsys):
    (tmp_path / "moons.csv").write_text(moons_csv())
    for setting in ("sigma=" + "9" * 100_000, "s" * 100_000 + "=1", "x" * 100_000):
        code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "svm", "-p",
                           setting)
        assert one_line(err, code, 2, []) and len(err[0]) < 400, err[0][:100]


def test_devices_and_pipes_are_bounded(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 4096)
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "/dev/zero", "-s", "svm")
    assert one_line(err, code, 2, ["/dev/zero holds more than", "reading stopped"])
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    result = []
    worker = threading.Thread(target=lambda: result.append(main(["fit", str(fifo), "-s", "svm"])),
                              daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert result == [2] and "is empty" in capsys.readouterr().err


# -- awkward files that are read ------------------------------------------------------------


@pytest.mark.parametrize("name, content", [
    ("semicolons.csv", moons_csv(separator=";")),
    ("pipes.csv", moons_csv(separator="|")),
    ("cr_only.csv", moons_csv().replace("\n", "\r")),
])
def test_other_separators_and_line_ends_fit_as_the_comma_file(tmp_path, monkeypatch, capsys,
                                                              name, content):
    (tmp_path / name).write_text(content)
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", name, "-s", "svm", "-q")
    assert code == 0 and err == []
    expected = SVMBaseline().fit(X, LABELS).predict(X)
    assert (tmp_path / f"{name}.predictions").read_text().split() == [str(c) for c in expected]


def test_svmlight_rows_under_a_csv_name_and_zero_based_files_fit(tmp_path, monkeypatch,
                                                                 capsys):
    svm_labels = np.where(LABELS == -1, 0, 2 * LABELS - 1)
    dump_svmlight_file(X, svm_labels, str(tmp_path / "zero.csv"), zero_based=True)
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "zero.csv", "-s", "svm",
                       "--model", "zero.npz")
    assert code == 0, err
    expected = SVMBaseline().fit(X, LABELS).predict(X)
    assert (tmp_path / "zero.csv.predictions").read_text().split() == [
        str(2 * c - 1) for c in expected]
    # new points without any index 0 are still read zero-based, as the model's file was
    new = np.column_stack([np.zeros(5), X[:5, 1]])
    (tmp_path / "new.svm").write_text("".join(f"0 1:{b!r}\n" for b in X[:5, 1].tolist()))
    code, out, err = run(monkeypatch, capsys, tmp_path, "predict", "zero.npz", "new.svm",
                         "--predictions", "-", "-q")
    assert code == 0, err
    model = SVMBaseline().fit(X, LABELS)
    assert out.split() == [str(2 * c - 1) for c in model.predict(new)]


def test_a_header_row_with_a_typo_is_said_on_one_line(tmp_path, monkeypatch, capsys):
    rows = moons_csv().splitlines()[1:]
    rows[0] = rows[0].replace(".", "o", 1)  # the first data row, a typo in a number
    (tmp_path / "typo.csv").write_text("\n".join(rows) + "\n")
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "typo.csv", "-s", "svm")
    assert code == 0
    warned = [line for line in err if line.startswith("s3vm: warning: Line 1 of typo.csv was "
                                                      "taken as the header row")]
    assert len(warned) == 1
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "typo.csv", "-s", "svm", "-q")
    assert code == 0 and err == []  # -q: quiet, warnings too


# -- the error on the unlabeled points: measured, or said to be unknown ------------------------


def test_no_true_class_makes_the_error_unknown_never_zero(tmp_path, monkeypatch, capsys):
    (tmp_path / "moons.csv").write_text(moons_csv())
    (tmp_path / "unknown.txt").write_text("".join(
        "?\n" if c == -1 else f"{c}\n" for c in LABELS))
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "svm",
                       "--true-labels", "unknown.txt", "--trace", "trace.jsonl")
    assert code == 0 and len(err) == 1
    assert "unlabeled error unknown (no unlabeled point has a known true class" in err[0]
    assert "0.00 %" not in err[0]
    trace = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert trace and all(record["unlabeled_error"] is None for record in trace)
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "svm")
    assert "unlabeled error unknown" in err[0]  # no true class given at all


def test_a_truth_column_gives_the_error_without_a_trace(tmp_path, monkeypatch, capsys):
    truth = {i: str(Y[i]) for i in range(0, len(Y), 2)}  # half the points' classes known
    (tmp_path / "moons.csv").write_text(moons_csv(truth=lambda i: truth.get(i, "?")))
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "svm")
    assert code == 0, err
    predicted = SVMBaseline().fit(X, LABELS).predict(X)
    scored = (LABELS == -1) & (np.arange(len(Y)) % 2 == 0)
    error = np.mean(predicted[scored] != Y[scored])
    assert (f"unlabeled error {100 * error:.2f} % on the {scored.sum()} of "
            f"{(LABELS == -1).sum()} unlabeled points of known class") in err[0]


def test_true_labels_without_trace_give_the_error_in_the_summary(tmp_path, monkeypatch, capsys):
    (tmp_path / "moons.csv").write_text(moons_csv())
    (tmp_path / "truth.txt").write_text("".join(f"{c}\n" for c in Y))
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "svm",
                       "--true-labels", "truth.txt")
    assert code == 0
    predicted = SVMBaseline().fit(X, LABELS).predict(X)
    error = np.mean(predicted[LABELS == -1] != Y[LABELS == -1])
    assert f"unlabeled error {100 * error:.2f} % on the unlabeled points" in err[0]


def test_a_pipe_on_stdin_is_read_no_further_than_the_limit(tmp_path, monkeypatch, capsys):
    """``s3vm fit -`` with an endless writer on stdin stops at the byte limit (item 12)."""
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 4096)
    read_end, write_end = os.pipe()
    saved_stdin = os.dup(0)

    def endless_writer():
        try:
            while True:
                os.write(write_end, b"1.0,2.0,1\n" * 100)
        except OSError:  # the reader closed the pipe: the test is over
            pass
        finally:
            os.close(write_end)

    writer = threading.Thread(target=endless_writer, daemon=True)
    writer.start()
    os.dup2(read_end, 0)
    try:
        code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "-", "-s", "svm")
    finally:
        os.dup2(saved_stdin, 0)
        os.close(saved_stdin)
        os.close(read_end)
    writer.join(timeout=10)
    assert one_line(err, code, 2, ["holds more than", "reading stopped"])


def test_a_fit_that_ends_on_one_class_says_the_setting_and_exits_0(tmp_path, monkeypatch,
                                                                    capsys):
    """A degenerate fit is said on stderr with the setting to change, and its output is
    still written (item 5)."""
    (tmp_path / "moons.csv").write_text(moons_csv())
    code, out, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "tsvm",
                         "-p", "tol=10")
    assert code == 0
    said = [line for line in err if line.startswith("s3vm: warning:")]
    assert said and "tol" in said[0], err


# -- damaged models, and outputs that would overwrite (issue 40, item 9) ---------------------


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    """A model of the moons file, its arrays and tree, and new points to predict."""
    folder = tmp_path_factory.mktemp("model")
    (folder / "moons.csv").write_text(moons_csv())
    assert main(["fit", str(folder / "moons.csv"), "-s", "svm", "-q", "--model",
                 str(folder / "moons.npz"), "-o", str(folder / "o"), "--predictions",
                 str(folder / "p")]) == 0
    with np.load(folder / "moons.npz") as archive:
        arrays = {name: archive[name] for name in archive.files}
    tree = json.loads(arrays.pop("model.json").tobytes())
    return folder / "moons.npz", tree, arrays


def _state(tree) -> dict:
    return dict(tree["estimator"]["state"]["$dict"])


def _set(tree, part: str, key: str, value) -> None:
    pairs = tree["info"]["$dict"] if part == "info" else tree["estimator"]["state"]["$dict"]
    pairs[:] = [pair for pair in pairs if pair[0] != key] + [[key, value]]


def _nan_coef(tree, arrays):
    name = _state(tree)["coef_"]["$array"]
    arrays[name] = np.full_like(arrays[name], np.nan)


def _float_classes(tree, arrays):
    arrays[_state(tree)["classes_"]["$array"]] = np.array([0.0, 1.0])


DAMAGED = {
    "nested classes": (lambda t, a: _set(t, "info", "classes", {"$list": [
        {"$list": [0, 1]}, {"$list": [2]}]}), ["damaged model file: its classes are [[0, 1], "
                                               "[2]], not a list of two or more"]),
    "short classes": (lambda t, a: _set(t, "info", "classes", {"$list": [0]}),
                      ["damaged model file: its classes are [0]"]),
    "three classes": (lambda t, a: _set(t, "info", "classes", {"$list": [0, 1, 2]}),
                      ["its estimator's classes_ are [0, 1], not the class numbers 0 .. 2"]),
    "float classes_": (_float_classes, ["its estimator's classes_ are [0.0, 1.0]"]),
    "newline class": (lambda t, a: _set(t, "info", "classes", {"$list": ["a\nb", "c"]}),
                      ["has the class name 'a\\nb', which spans lines"]),
    "n_features": (lambda t, a: _set(t, "info", "n_features", 3),
                   ["its estimator was fitted on 2 features, but the model says 3"]),
    "n_features bool": (lambda t, a: _set(t, "info", "n_features", True),
                        ["its number of features is True"]),
    "zero_based": (lambda t, a: _set(t, "info", "zero_based", "yes"), ["its zero_based is 'yes'"]),
    "scalar 2**70": (lambda t, a: _set(t, "state", "n_iter_", {"$scalar": "<i8", "v": 2**70}),
                     ["estimator.n_iter_ is 1180591620717411303424, which is no int64 value"]),
    "nan weights": (_nan_coef, ["estimator.coef_", "not finite", "the file is damaged"]),
    "predict attribute": (lambda t, a: _set(t, "state", "predict", 1),
                          ["estimator sets predict, which is a method or a property"]),
}


@pytest.mark.parametrize("case", DAMAGED, ids=list(DAMAGED))
def test_a_damaged_model_is_said_to_be_one(tmp_path, monkeypatch, capsys, saved_model, case):
    _, tree, arrays = saved_model
    tree, arrays = json.loads(json.dumps(tree)), dict(arrays)
    edit, words = DAMAGED[case]
    edit(tree, arrays)
    np.savez(tmp_path / "bad.npz", **{"model.json": np.frombuffer(json.dumps(tree).encode(),
                                                                  dtype=np.uint8)}, **arrays)
    (tmp_path / "new.csv").write_text("".join(f"{a!r},{b!r}\n" for a, b in X.tolist()))
    code, out, err = run(monkeypatch, capsys, tmp_path, "predict", "bad.npz", "new.csv")
    assert one_line(err, code, 2, ["bad.npz", *words])
    assert not (tmp_path / "new.csv.predictions").exists()


def test_a_zip_bomb_beside_a_model_is_never_unpacked(tmp_path, monkeypatch, capsys,
                                                      saved_model):
    """An entry the model does not name (64 MiB of zeros, 64 kB deflated) is not read: the
    prediction is the model's (before, every entry was unpacked, twice)."""
    path, _, _ = saved_model
    (tmp_path / "bomb.npz").write_bytes(path.read_bytes())
    with zipfile.ZipFile(tmp_path / "bomb.npz", "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.npy", bytes(2**26))
    (tmp_path / "new.csv").write_text("".join(f"{a!r},{b!r}\n" for a, b in X.tolist()))
    code, out, err = run(monkeypatch, capsys, tmp_path, "predict", "bomb.npz", "new.csv",
                         "--predictions", "-", "-q")
    assert code == 0 and err == []
    assert out.split() == [str(c) for c in SVMBaseline().fit(X, LABELS).predict(X)]


@pytest.mark.parametrize("options, words", [
    (["--film", "same", "-o", "same"], ["-o/--outputs and --film both write same"]),
    (["--film", "moons.csv.predictions"], ["--predictions and --film both write "
                                           "moons.csv.predictions"]),
    (["--model", "m", "--trace", "./m"], ["--model and --trace both write m:"]),
    (["-o", "moons.csv"], ["-o/--outputs names moons.csv, which is the data file: writing "
                           "there would overwrite it"]),
    (["--film", "truth.txt", "--true-labels", "truth.txt"], [
        "--film names truth.txt, which is the file of true labels"]),
    (["--film", "."], ["--film . is a folder, not a file"]),
])
def test_outputs_that_would_overwrite_each_other_or_the_data_are_refused_before_the_fit(
        tmp_path, monkeypatch, capsys, options, words):
    (tmp_path / "moons.csv").write_text(moons_csv())
    (tmp_path / "truth.txt").write_text("".join(f"{c}\n" for c in Y))
    before = sorted(os.listdir(tmp_path))
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "moons.csv", "-s", "svm", *options)
    assert one_line(err, code, 2, words)
    assert sorted(os.listdir(tmp_path)) == before and (
        tmp_path / "moons.csv").read_text() == moons_csv()


def test_predict_refuses_outputs_over_its_model(tmp_path, monkeypatch, capsys, saved_model):
    path, _, _ = saved_model
    (tmp_path / "m.npz").write_bytes(path.read_bytes())
    (tmp_path / "new.csv").write_text("".join(f"{a!r},{b!r}\n" for a, b in X.tolist()))
    code, _, err = run(monkeypatch, capsys, tmp_path, "predict", "m.npz", "new.csv",
                       "--predictions", "m.npz")
    assert one_line(err, code, 2, ["--predictions names m.npz, which is the model"])
    assert (tmp_path / "m.npz").read_bytes() == path.read_bytes()


def test_a_film_of_more_classes_than_it_tells_apart_is_refused_before_the_fit(
        tmp_path, monkeypatch, capsys):
    from s3vm_explorer.engine.data import MAX_CLASSES

    rows = ["x1,x2,label"] + [f"{3 * k + i * 0.1},{i},{f'c{k}' if i < 2 else ''}"
                              for k in range(MAX_CLASSES + 1) for i in range(3)]
    (tmp_path / "many.csv").write_text("\n".join(rows) + "\n")
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "many.csv", "-s", "svm", "--film",
                       "film.html")
    assert one_line(err, code, 2, [f"--film tells at most {MAX_CLASSES} classes apart",
                                   f"the data have {MAX_CLASSES + 1}"])
    assert sorted(os.listdir(tmp_path)) == ["many.csv"]  # no output half-written


def test_a_labels_file_that_is_a_folder_or_missing_is_named(tmp_path, monkeypatch, capsys):
    (tmp_path / "examples").write_text("1:1\n1:2\n1:3\n")
    (tmp_path / "labels").mkdir()
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "examples", "labels", "-s", "svm")
    assert one_line(err, code, 2, ["labels is a folder, not a file"])
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "examples", "missing", "-s", "svm")
    assert one_line(err, code, 2, ["Cannot read missing: No such file"])
    (tmp_path / "labeled.svm").write_text("1 1:1\n-1 1:2\n0 1:3\n")
    code, _, err = run(monkeypatch, capsys, tmp_path, "fit", "labeled.svm", "-s", "svm",
                       "--true-labels", "labels")
    assert one_line(err, code, 2, ["labels is a folder, not a file"])
