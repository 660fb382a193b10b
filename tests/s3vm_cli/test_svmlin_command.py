"""``s3vm svmlin``: svmlin's flags and files on the solvers that minimize its objectives
(issue 36, item 9; issue 40), checked against the mapping table of docs/benchmarks.md and
against svmlin's objectives themselves; test_svmlin_peer.py runs svmlin beside it."""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from s3vm_cli import main
from s3vm_cli.svmlin import MAX_WEIGHTS_BYTES, svmlin_estimator, with_bias
from s3vm_core import DeterministicAnnealingS3VM, LabelSwitchingTSVM
from toy_data import pick_labeled, two_moons
from toy_data.files import MAX_FEATURES

ROOT = Path(__file__).resolve().parents[2]
X, Y = two_moons(200, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 5, random_state=0)
SIGNED = np.where(LABELS == -1, 0, 2 * LABELS - 1)  # svmlin's labels: +1 / -1, 0 unlabeled


@pytest.fixture
def files(tmp_path):
    (tmp_path / "examples").write_text("".join(
        " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n" for row in X.tolist()))
    (tmp_path / "labels").write_text("".join(f"{c}\n" for c in SIGNED))
    (tmp_path / "truth").write_text("".join(f"{2 * c - 1}\n" for c in Y))
    return tmp_path


def svmlin(monkeypatch, capsys, folder, *args):
    monkeypatch.chdir(folder)
    try:
        code = main(["svmlin", *map(str, args)])
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def numbers(path):
    return np.array([float(v) for v in Path(path).read_text().split()])


# -- the mapping ---------------------------------------------------------------------------------


def test_the_mapping_is_the_table_of_docs_benchmarks():
    text = " ".join((ROOT / "docs" / "benchmarks.md").read_text().split())
    assert ('is `LabelSwitchingTSVM(kernel="linear", loss="squared_hinge", switching="multi", '
            'r=r, max_switches=10000, schedule="svmlin", intercept="regularized", C=1/(2 l W), '
            'C_star=U/(2 u W))`') in text
    assert re.search(r'`-W 0\.001 -U 1 -R r` \(r the labeled positive fraction\) is '
                     r'`DeterministicAnnealingS3VM\(lam=0\.001, lam_u=1, loss="squared_hinge", '
                     r'kernel="linear", r=r, T0=5 U, R=1\.5, eps=1e-6 u ln 2, max_stages=30\)`',
                     text)
    W, U, R, l, u = 0.01, 2.0, 0.3, 10, 190
    tsvm, bias = svmlin_estimator(2, W=W, U=U, R=R, n_labeled=l, n_unlabeled=u, S=7)
    assert isinstance(tsvm, LabelSwitchingTSVM) and not bias  # it appends the feature itself
    assert tsvm.get_params() | {"C": 1 / (2 * l * W), "C_star": U / (2 * u * W),
                                "kernel": "linear", "loss": "squared_hinge",
                                "switching": "multi", "r": R, "max_switches": 7,
                                "schedule": "svmlin",
                                "intercept": "regularized"} == tsvm.get_params()
    da, bias = svmlin_estimator(3, W=W, U=U, R=R, n_labeled=l, n_unlabeled=u)
    assert isinstance(da, DeterministicAnnealingS3VM) and bias
    expected = {"lam": W, "lam_u": U, "loss": "squared_hinge", "kernel": "linear", "r": R,
                "T0": 5 * U, "R": 1.5, "eps": 1e-6 * u * math.log(2), "max_stages": 30}
    assert da.get_params() | expected == da.get_params()
    for algorithm, loss in ((0, "squared"), (1, "squared_hinge")):
        supervised, bias = svmlin_estimator(algorithm, W=W, U=U, R=R, n_labeled=l,
                                            n_unlabeled=u, cost=2.0)
        assert bias and supervised.get_params()["lam"] == pytest.approx(W / (2.0 * l))
        assert supervised.get_params()["loss"] == loss


@pytest.mark.parametrize("algorithm", [0, 1])
def test_the_supervised_modes_minimize_svmlins_own_objective(files, monkeypatch, capsys,
                                                             algorithm):
    # svmlin's supervised objective (ssl.cpp, cost 1 a labeled point, its bias a feature):
    # W/2 ||w||^2 + 1/2 sum_L loss, minimized here by scipy, apart from any solver of ours
    W = 0.01
    code, _, err = svmlin(monkeypatch, capsys, files, "-A", algorithm, "-W", W, "examples",
                          "labels")
    assert code == 0, err
    labeled = SIGNED != 0
    Z, y = with_bias(X)[labeled], SIGNED[labeled]

    def objective(w):
        residual = (y - Z @ w) if algorithm == 0 else np.maximum(0, 1 - y * (Z @ w))
        return 0.5 * W * w @ w + 0.5 * residual @ residual

    best = minimize(objective, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(numbers(files / "examples.weights"), best, rtol=1e-5)
    # svmlin writes the outputs of the points it trained on: the labeled ones
    np.testing.assert_allclose(numbers(files / "examples.outputs"), Z @ best, rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("algorithm", [2, 3])
def test_the_semi_supervised_modes_run_the_mapped_solver(files, monkeypatch, capsys,
                                                         algorithm):
    code, _, err = svmlin(monkeypatch, capsys, files, "-A", algorithm, "-W", 0.001, "-U", 1,
                          "-R", 0.5, "examples", "labels")
    assert code == 0 and err.count("\n") == 1, err
    labeled = SIGNED != 0
    model, bias = svmlin_estimator(algorithm, W=0.001, U=1, R=0.5,
                                   n_labeled=int(labeled.sum()),
                                   n_unlabeled=int((~labeled).sum()))
    model.fit(with_bias(X) if bias else X, LABELS)
    weights = (model.coef_ if bias else np.append(model.coef_, model.intercept_))
    np.testing.assert_allclose(numbers(files / "examples.weights"), weights, rtol=1e-5)
    outputs = numbers(files / "examples.outputs")
    assert outputs.shape == (200,)
    np.testing.assert_allclose(outputs, X @ weights[:-1] + weights[-1], rtol=1e-5, atol=1e-5)
    assert np.mean((outputs > 0) != (Y == 1)) <= 0.15  # moons with a line: most points right


def test_test_mode_writes_outputs_from_weights_and_prints_svmlins_accuracy(files, monkeypatch,
                                                                            capsys):
    code, _, _ = svmlin(monkeypatch, capsys, files, "-A", 3, "-W", 0.001, "examples", "labels")
    assert code == 0
    trained = numbers(files / "examples.outputs")
    code, out, err = svmlin(monkeypatch, capsys, files, "-f", "examples.weights", "examples",
                            "truth")
    assert code == 0, err
    tested = numbers(files / "examples.outputs")
    np.testing.assert_allclose(tested, trained, rtol=1e-4, atol=1e-4)
    accuracy = 100 * np.mean(tested * (2 * Y - 1) > 0)
    assert out == f"Accuracy = {accuracy:g} %\n"


@pytest.mark.parametrize("args, words", [
    (["-A", "5", "examples", "labels"], "-A 5 is not one of svmlin's algorithms"),
    (["-Cp", "2", "-Cn", "1", "examples", "labels"], "must be one positive number"),
    (["-W", "0", "examples", "labels"], "-W must be a positive number"),
    (["-U", "nan", "examples", "labels"], "-U must be a positive number"),
    (["-A", "2", "-R", "1", "examples", "labels"], "-R must be in (0, 1)"),
    (["-A", "3", "-R", "0", "examples", "labels"], "-R must be in (0, 1)"),
    (["-A", "2", "-S", "-1", "examples", "labels"], "-S must be 0 or more"),
    (["examples"], "Training needs the labels file"),
    (["-A", "2", "examples", "three"], "svmlin's labels are -1 and +1"),
    (["-f", "labels3", "examples"], "not a weights file of finite numbers"),
    (["-f", "binary", "examples"], "not a weights file (one number a line)"),
    (["-A", "3", "examples", "folder"], "folder is a folder, not svmlin's labels file"),
    (["-A", "3", "folder", "labels"], "folder is a folder, not svmlin's examples file"),
    (["-f", "folder", "examples"], "folder is a folder, not svmlin's weights file"),
])
def test_bad_flags_and_files_are_one_line_and_exit_2(files, monkeypatch, capsys, args, words):
    (files / "three").write_text("".join(f"{c}\n" for c in np.where(LABELS == -1, 0, LABELS + 1)))
    (files / "labels3").write_text("1\n")
    (files / "binary").write_bytes(b"\x00\xff1\n")
    (files / "folder").mkdir()
    code, _, err = svmlin(monkeypatch, capsys, files, *args)
    assert code == 2 and err.count("\n") == 1 and words in err, err


# 10 labeled and 190 unlabeled points; the ranges are those of the mapped solvers' constraints
@pytest.mark.parametrize("args, words", [
    (["-A", "2", "-W", "1e-12"], "-W 1e-12 is out of range for -A 2 here: it must lie in "
                                 "[5e-12, 5e+08]"),
    (["-A", "2", "-W", "1", "-U", "1e13"], "-U 1e+13 is out of range for -A 2 here: it must lie "
                                           "in [3.8e-08, 3.8e+12]"),
    (["-A", "3", "-W", "1e5"], "-W 100000 is out of range for -A 3 here: it must lie in "
                               "[1e-08, 1e+04]"),
    (["-A", "3", "-U", "1e-9"], "-U 1e-09 is out of range for -A 3"),
    (["-A", "1", "-W", "1e-8"], "-W 1e-08 is out of range for -A 1 here: it must lie in "
                                "[1e-07, 1e+05]"),
    (["-A", "0", "-Cp", "2", "-W", "3e5"], "[2e-07, 2e+05]"),
])
def test_a_flag_out_of_the_mapped_solvers_range_is_refused_in_svmlins_terms(
        files, monkeypatch, capsys, args, words):
    code, _, err = svmlin(monkeypatch, capsys, files, *args, "examples", "labels")
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert "'lam'" not in err and "'C'" not in err and "parameter of" not in err


def test_a_weights_file_is_read_no_further_than_its_limit(files, monkeypatch, capsys):
    # /dev/zero has no end and claims no size: reading stops after MAX_WEIGHTS_BYTES
    code, _, err = svmlin(monkeypatch, capsys, files, "-f", "/dev/zero", "examples")
    assert code == 2 and err.count("\n") == 1, err
    assert "/dev/zero holds more than 30.5 MiB (reading stopped there)" in err
    assert MAX_WEIGHTS_BYTES == 32 * (MAX_FEATURES + 1)


@pytest.mark.parametrize("args, unused", [
    (["-A", "1", "-R", "0.3"], "-R is used by -A 2 and 3 only; -A 1 ignores it"),
    (["-A", "3", "-S", "5"], "-S is used by -A 2 only; -A 3 ignores it"),
    (["-A", "2", "-Cp", "2"], "-Cp and -Cn are used by -A 0 and 1 only; -A 2 ignores them"),
])
def test_a_flag_the_algorithm_ignores_is_said_unused(files, monkeypatch, capsys, args, unused):
    code, _, err = svmlin(monkeypatch, capsys, files, *args, "examples", "labels")
    assert code == 0 and unused in err and err.count("\n") == 2, err

