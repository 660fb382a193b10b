"""``s3vm svmlin``: svmlin's flags and files on the solvers that minimize its objectives
(issue 36, item 9), checked against the mapping table of docs/benchmarks.md, against svmlin's
objectives themselves, and (slow, where g++ can build it) against svmlin's own weights."""

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from s3vm_cli import main
from s3vm_cli.svmlin import svmlin_estimator, with_bias
from s3vm_core import DeterministicAnnealingS3VM, LabelSwitchingTSVM
from toy_data import pick_labeled, two_moons

ROOT = Path(__file__).resolve().parents[2]
PEERS = next((folder / "shared" / "peers" / "svmlin" for folder in ROOT.parents
              if (folder / "shared" / "peers" / "svmlin").is_dir()), None)
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
            'C=1/(2 l W), C_star=U/(2 u W))`') in text
    assert re.search(r'`-W 0\.001 -U 1 -R r` \(r the labeled positive fraction\) is '
                     r'`DeterministicAnnealingS3VM\(lam=0\.001, lam_u=1, loss="squared_hinge", '
                     r'kernel="linear", r=r, T0=5 U, R=1\.5, eps=1e-6 u ln 2, max_stages=30\)`',
                     text)
    W, U, R, l, u = 0.01, 2.0, 0.3, 10, 190
    tsvm, bias = svmlin_estimator(2, W=W, U=U, R=R, n_labeled=l, n_unlabeled=u)
    assert isinstance(tsvm, LabelSwitchingTSVM) and not bias
    assert tsvm.get_params() | {"C": 1 / (2 * l * W), "C_star": U / (2 * u * W),
                                "kernel": "linear", "loss": "squared_hinge",
                                "switching": "multi"} == tsvm.get_params()
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
    assert code == 0 and err.count("\n") == 1 + (algorithm == 2), err  # -R: said unused by -A 2
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
    (["examples"], "Training needs the labels file"),
    (["-A", "2", "examples", "three"], "svmlin's labels are -1 and +1"),
    (["-f", "labels3", "examples"], "not a weights file of finite numbers"),
])
def test_bad_flags_and_files_are_one_line_and_exit_2(files, monkeypatch, capsys, args, words):
    (files / "three").write_text("".join(f"{c}\n" for c in np.where(LABELS == -1, 0, LABELS + 1)))
    (files / "labels3").write_text("1\n")
    code, _, err = svmlin(monkeypatch, capsys, files, *args)
    assert code == 2 and err.count("\n") == 1 and words in err, err


@pytest.mark.slow
@pytest.mark.skipif(PEERS is None or shutil.which("g++") is None,
                    reason="svmlin's sources or g++ are not here")
@pytest.mark.parametrize("algorithm", [0, 1, 3])
def test_the_weights_are_svmlins_own(files, monkeypatch, capsys, tmp_path_factory, algorithm):
    build = tmp_path_factory.mktemp("svmlin")
    for name in ("ssl.cpp", "ssl.h", "svmlin.cpp"):
        shutil.copy(PEERS / name, build / name)
    flags = ["g++", "-std=gnu++14", "-O2"]
    subprocess.run([*flags, "-c", "ssl.cpp"], cwd=build, check=True, capture_output=True)
    subprocess.run([*flags, "svmlin.cpp", "ssl.o", "-o", "svmlin", "-lm"], cwd=build,
                   check=True, capture_output=True)
    args = ["-A", str(algorithm), "-W", "0.001", "-U", "1", "examples", "labels"]
    subprocess.run([build / "svmlin", *args], cwd=files, check=True, capture_output=True)
    theirs = numbers(files / "examples.weights"), numbers(files / "examples.outputs")
    code, _, err = svmlin(monkeypatch, capsys, files, *args)
    assert code == 0, err
    np.testing.assert_allclose(numbers(files / "examples.weights"), theirs[0], rtol=2e-5)
    np.testing.assert_allclose(numbers(files / "examples.outputs"), theirs[1], rtol=2e-5,
                               atol=2e-5)
