"""The ``s3vm`` command, driven in a subprocess on files written to a temporary folder."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_blobs

from s3vm_cli import main
from s3vm_core import LapSVM, OneVsRestS3VM
from toy_data import pick_labeled, two_moons

ROOT = Path(__file__).resolve().parents[2]


def s3vm(*args, cwd):
    """Run ``s3vm ARGS`` as a user would (this checkout's code); returns the finished process."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "s3vm_cli", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


def write_csv(path, X, labels, header=True):
    rows = ["x1,x2,label"] if header else []
    rows += [f"{a!r},{b!r},{'' if label == -1 else label}"
             for (a, b), label in zip(X.tolist(), labels.tolist(), strict=True)]
    path.write_text("\n".join(rows) + "\n")


def lines(path):
    return Path(path).read_text().splitlines()


@pytest.fixture
def moons(tmp_path):
    X, y = two_moons(150, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    names = np.array(["up", "down"], dtype=object)
    given = np.where(labels == -1, -1, names[np.maximum(labels, 0)])
    write_csv(tmp_path / "moons.csv", X, given)
    (tmp_path / "truth.txt").write_text("\n".join(names[y]) + "\n")
    return X, y, labels, names


def test_fit_writes_the_librarys_predictions_and_decision_values(tmp_path, moons):
    X, y, labels, names = moons
    done = s3vm("fit", "moons.csv", "-s", "lapsvm", "-p", "gamma_I=1", "-p", "sigma=0.4",
                "--trace", "trace.jsonl", "--true-labels", "truth.txt", "--model", "moons.npz",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # the same fit in the library: classes sorted by name ("down", "up"), so "up" is +1
    codes = np.where(labels == -1, -1, 1 - labels)
    model = LapSVM(gamma_I=1, sigma=0.4).fit(X, codes)
    expected = np.array(["down", "up"])[model.transduction_]
    assert lines(tmp_path / "moons.csv.predictions") == expected.tolist()
    outputs = np.loadtxt(tmp_path / "moons.csv.outputs")
    np.testing.assert_allclose(outputs, model.decision_function(X), rtol=1e-9, atol=1e-10)
    unlabeled = labels == -1
    assert np.mean(expected[unlabeled] != names[y][unlabeled]) <= 0.05

    trace = [json.loads(line) for line in lines(tmp_path / "trace.jsonl")]
    assert [r["step"] for r in trace] == list(range(len(trace)))
    assert trace[-1]["event"] == "final" and trace[-1]["stage"] == "newton"
    assert set(trace[0]) >= {"stage", "value", "objective", "grad_norm", "unlabeled_error"}
    assert trace[-1]["unlabeled_error"] == pytest.approx(np.mean(
        expected[unlabeled] != names[y][unlabeled]))

    # predict with the saved model on new points (no label column)
    X_new, _ = two_moons(40, noise=0.1, random_state=1)
    (tmp_path / "new.csv").write_text("\n".join(f"{a!r},{b!r}" for a, b in X_new.tolist()))
    done = s3vm("predict", "moons.npz", "new.csv", "--predictions", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == np.array(["down", "up"])[model.predict(X_new)].tolist()
    np.testing.assert_allclose(np.loadtxt(tmp_path / "new.csv.outputs"),
                               model.decision_function(X_new), rtol=1e-9, atol=1e-10)


def test_more_than_two_classes_in_svmlight_go_one_vs_rest(tmp_path):
    X, y = make_blobs(120, centers=[[0, 0], [4, 0], [2, 3.5]], cluster_std=0.8, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    dump_svmlight_file(X, np.where(labels == -1, 0, labels + 1), str(tmp_path / "blobs.svm"),
                       zero_based=False)
    (tmp_path / "truth").write_text("\n".join(str(c + 1) for c in y) + "\n")
    done = s3vm("fit", "blobs.svm", "-s", "LapSVM", "--trace", "trace.jsonl", "--true-labels",
                "truth", "--n-jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    model = OneVsRestS3VM(LapSVM()).fit(X, labels)  # the command densifies for the RBF kernel
    assert lines(tmp_path / "blobs.svm.predictions") == [str(c + 1) for c in model.transduction_]
    outputs = np.loadtxt(tmp_path / "blobs.svm.outputs")
    assert outputs.shape == (120, 3)  # one column per class, in the order 1, 2, 3
    # the file holds 16 digits of X (dump_svmlight_file's %.16g): outputs agree to about 1e-8
    np.testing.assert_allclose(outputs, model.features(X) @ model.coef_ + model.intercept_,
                               atol=1e-6)
    last = json.loads(lines(tmp_path / "trace.jsonl")[-1])
    assert [p["class"] for p in last["problems"]] == [1, 2, 3]
    assert last["unlabeled_error"] <= 0.05


def test_svmlins_examples_and_labels_files(tmp_path, moons):
    X, _, labels, _ = moons
    (tmp_path / "examples").write_text("".join(f"1:{a!r} 2:{b!r}\n" for a, b in X.tolist()))
    (tmp_path / "labels").write_text("".join(f"{0 if c == -1 else 2 * c - 1}\n" for c in labels))
    done = s3vm("fit", "examples", "labels", "-s", "svm", "-o", "-", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(X) and done.stderr == ""
    assert set(lines(tmp_path / "examples.predictions")) == {"-1", "1"}


def test_each_command_explains_itself_with_an_example(tmp_path):
    for command in ("fit", "predict"):
        done = s3vm(command, "--help", cwd=tmp_path)
        assert done.returncode == 0 and "example:\n  s3vm " + command in done.stdout
    assert "lapsvm" in s3vm("fit", "--help", cwd=tmp_path).stdout


BAD_INPUT = [
    (["fit", "moons.csv"], 2, "s3vm fit: the following arguments are required: -s/--solver "
                              "(see `s3vm fit --help`)."),
    (["fit", "moons.csv", "-s", "svmm"], 2, "There is no solver 'svmm'; choose one of svm, tsvm"),
    (["fit", "moons.csv", "-s", "lapsvm", "-p", "sigmaa=1"], 2,
     "LapSVM has no parameter 'sigmaa'; its parameters are"),
    (["fit", "moons.csv", "-s", "lapsvm", "-p", "sigma=-1"], 2,
     "The 'sigma' parameter of LapSVM must be a float in the range (0.0, inf) or None"),
    (["fit", "moons.csv", "-s", "lapsvm", "-p", "sigma"], 2, "given as NAME=VALUE"),
    (["fit", "moons.csv", "-s", "lapsvm", "-p", "n_neighbors=1000"], 2, "n_neighbors"),
    (["fit", "missing.csv", "-s", "svm"], 2, "Cannot read missing.csv: No such file"),
    (["fit", "ragged.csv", "-s", "svm"], 2, "Line 3 of ragged.csv has 2 values, but line 1 "
                                           "has 3"),
    (["fit", "binary.csv", "-s", "svm"], 2, "is not a text file: line 2 holds binary data"),
    (["fit", "one_class.csv", "-s", "svm"], 2, "Only one class ('a') is labeled"),
    (["fit", "moons.csv", "-s", "svm", "-o", "/dev/full"], 1,
     "Cannot write /dev/full: No space left on device"),
    (["predict", "moons.csv", "moons.csv"], 2, "moons.csv is not a model in s3vm's format"),
    # refused before the fit, as every output path that cannot be written
    (["fit", "moons.csv", "-s", "svm", "-o", "no/such/folder/out"], 2,
     "-o/--outputs no/such/folder/out is in the folder no/such/folder, which does not exist"),
]


@pytest.fixture
def bad_files(tmp_path, moons):
    (tmp_path / "ragged.csv").write_text("x,y,label\n1,2,a\n3,b\n")
    (tmp_path / "binary.csv").write_bytes(b"x,y,label\n\x00\x01\x02\x03\n")
    (tmp_path / "one_class.csv").write_text("1,2,a\n3,4,\n5,6,a\n")
    return tmp_path


@pytest.mark.parametrize("args, code, message", [BAD_INPUT[i] for i in (0, 3, 7, 10)])
def test_bad_input_is_one_line_on_stderr_with_the_unix_exit_code(bad_files, args, code,
                                                                 message):
    done = s3vm(*args, cwd=bad_files)
    assert done.returncode == code
    assert message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, code, message", BAD_INPUT)
def test_every_bad_input_message_in_process(bad_files, monkeypatch, capsys, args, code,
                                            message):
    # the same entry point as the subprocess runs, without a new interpreter per case
    monkeypatch.chdir(bad_files)
    try:
        returned = main(args)
    except SystemExit as exit:  # argparse's own usage errors
        returned = exit.code
    assert returned == code
    assert message in capsys.readouterr().err


def test_fit_writes_the_film_of_its_trace_as_a_page_that_plays_offline(tmp_path, moons):
    done = s3vm("fit", "moons.csv", "-s", "cs3vm", "-p", "sigma=0.4", "--true-labels",
                "truth.txt", "--film", "moons.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "moons.html").read_text(encoding="utf-8")
    saved = json.loads(page.split("window.standaloneFilm = ", 1)[1].split(";</script>", 1)[0])
    assert saved["args"]["context"]["solver"] == "cS3VM (continuation)"
    errors = {n["label"]: n for n in saved["args"]["numbers"]}["unlabeled error"]["values"]
    assert errors[-1].endswith(" %")  # the truth file's classes score the film


def test_the_summary_stands_the_fit_beside_the_svm_of_its_own_kernel_and_c(tmp_path, moons,
                                                                             monkeypatch,
                                                                             capsys):
    """Did the unlabeled points help? The summary says the error of the supervised SVM with
    the solver's own kernel, width and C on the same labels (issue 41, item 1)."""
    from s3vm_core import SVMBaseline
    from s3vm_core.metrics import unlabeled_error

    X, y, labels, _ = moons
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "moons.csv", "-s", "cs3vm", "-p", "sigma=0.3", "-p", "C=10",
                 "--true-labels", "truth.txt"]) == 0
    said = capsys.readouterr().err
    svm = SVMBaseline(sigma=0.3, C=10.0).fit(X, labels)
    error = unlabeled_error(svm.decision_function(X), labels, y)
    assert (f"(the supervised SVM, same kernel σ = 0.3 and C = 10 (its cost of the labeled "
            f"points), on the 4 labeled points: {100 * error:.2f} %)") in said
