"""``s3vm svmlin`` beside svmlin itself (issue 40): svmlin is built from ../shared/peers at
test time into a temporary folder (GPL: run beside the project, never copied into it), both
programs run on the same examples and labels files (``benchmarks.peers``' lifted moons and
small text), and their answers are compared: the predictions, the weights, and the objective
under svmlin's formula (ssl.cpp's ``transductive_cost``). Skipped, with the reason, where the
sources or g++ are missing; the folder is ``S3VM_PEERS`` if that is set
(``benchmarks.peers.PEERS``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from benchmarks.peers import (
    build_svmlin,
    lifted_moons,
    small_text,
    transductive_cost,
    write_svmlin_files,
)
from s3vm_cli import main

W, U = 1e-3, 1.0


@pytest.fixture(scope="session")
def svmlin_program(tmp_path_factory):
    """svmlin, compiled once per test session."""
    program, why_not = build_svmlin(tmp_path_factory.mktemp("svmlin-build"))
    if program is None:
        pytest.skip(f"svmlin cannot be compared here: {why_not}.")
    return program


DATA = {"moons": lifted_moons, "text": small_text}


@pytest.fixture(scope="module")
def data_files(tmp_path_factory):
    """Each data set as svmlin's examples and labels files, and its labels as +1 / -1 / 0."""
    folder = tmp_path_factory.mktemp("svmlin-data")
    files = {}
    for name, make in DATA.items():
        X, labels = make()
        examples, label_file = write_svmlin_files(X, labels, folder, name)
        files[name] = examples, label_file, np.where(labels == -1, 0, 2 * labels - 1)
    return files


def numbers(path) -> np.ndarray:
    return np.array([float(v) for v in Path(path).read_text().split()])


def run_both(program, folder: Path, examples: Path, labels: Path, *flags):
    """The weights and outputs of svmlin and of ``s3vm svmlin`` with the same flags, each run
    in a folder of its own (both write ``<examples>.weights`` and ``.outputs`` there)."""
    answers = []
    for who in ("svmlin", "s3vm"):
        (folder / who).mkdir()
        arguments = [*map(str, flags), str(examples), str(labels)]
        if who == "svmlin":
            subprocess.run([program, *arguments], cwd=folder / who, check=True,
                           capture_output=True)
        else:
            with pytest.MonkeyPatch.context() as patch:
                patch.chdir(folder / who)
                assert main(["svmlin", *arguments]) == 0
        answers.append((numbers(folder / who / f"{examples.name}.weights"),
                        numbers(folder / who / f"{examples.name}.outputs")))
    return answers


@pytest.mark.parametrize("algorithm", [2, 3])
@pytest.mark.parametrize("name", list(DATA))
def test_the_semi_supervised_modes_answer_as_svmlin(svmlin_program, data_files, tmp_path,
                                                    name, algorithm):
    examples, labels, signed = data_files[name]
    (theirs, their_outputs), (ours, our_outputs) = run_both(
        svmlin_program, tmp_path, examples, labels, "-A", algorithm, "-W", W, "-U", U, "-R",
        0.5)
    assert our_outputs.shape == their_outputs.shape == signed.shape
    assert np.mean(np.sign(our_outputs) == np.sign(their_outputs)) >= 0.99
    # one objective, one constraint: the two programs end at the same minimum
    assert transductive_cost(ours, our_outputs, signed, W, U) == pytest.approx(
        transductive_cost(theirs, their_outputs, signed, W, U), rel=1e-4)
    assert np.sum(our_outputs[signed == 0] > 0) == pytest.approx(
        np.sum(their_outputs[signed == 0] > 0), abs=2)


def test_the_switch_limit_and_the_positive_fraction_are_svmlins(svmlin_program, data_files,
                                                                  tmp_path):
    # a fraction the labels do not give, and one switch a step: still svmlin's labels
    examples, labels, signed = data_files["moons"]
    (_, their_outputs), (_, our_outputs) = run_both(
        svmlin_program, tmp_path, examples, labels, "-A", 2, "-W", W, "-U", U, "-R", 0.3,
        "-S", 1)
    assert np.mean(np.sign(our_outputs) == np.sign(their_outputs)) >= 0.99
    assert np.sum(their_outputs[signed == 0] > 0) < 0.4 * np.sum(signed == 0)


@pytest.mark.parametrize("algorithm", [0, 1, 3])
def test_the_weights_are_svmlins_own(svmlin_program, data_files, tmp_path, algorithm):
    examples, labels, _ = data_files["moons"]
    (theirs, their_outputs), (ours, our_outputs) = run_both(
        svmlin_program, tmp_path, examples, labels, "-A", algorithm, "-W", W, "-U", U)
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(our_outputs, their_outputs, rtol=2e-5, atol=2e-5)

