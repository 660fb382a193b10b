"""The package as a researcher cites and installs it: one version everywhere, a licence, a
citation, and the command line without the app's extra saying what to install."""

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import s3vm_core
from s3vm_cli.main import main
from toy_data import pick_labeled, two_moons

ROOT = Path(__file__).resolve().parents[2]


def test_one_version_in_the_library_the_command_the_metadata_the_changelog_and_the_citation(
        capsys):
    version = s3vm_core.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert importlib.metadata.version("s3vm-explorer") == version
    with pytest.raises(SystemExit) as ended:
        main(["--version"])
    assert ended.value.code == 0 and capsys.readouterr().out.strip() == f"s3vm {version}"
    newest = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert newest is not None and newest[1] == version
    assert yaml.safe_load((ROOT / "CITATION.cff").read_text())["version"] == version


def test_the_licence_is_the_one_the_package_declares():
    assert "BSD 3-Clause License" in (ROOT / "LICENSE").read_text()
    assert importlib.metadata.metadata("s3vm-explorer")["License-Expression"] == "BSD-3-Clause"


def test_the_citation_names_every_paper_of_the_solver_table():
    cited = {ref["title"] for ref in yaml.safe_load(
        (ROOT / "CITATION.cff").read_text())["references"]}
    for title in ("A Continuation Method for Semi-Supervised SVMs",
                  "Semi-Supervised Classification by Low Density Separation",
                  "Sparse Quasi-Newton Optimization for Semi-Supervised Support Vector Machines",
                  "Deterministic Annealing for Semi-supervised Kernel Machines",
                  "Laplacian Support Vector Machines Trained in the Primal",
                  "Branch and Bound for Semi-Supervised Support Vector Machines"):
        assert title in cited


def without_the_app(tmp_path, *argv):
    """``s3vm ARGV`` in a process where Streamlit and plotly cannot be imported (as after
    ``pip install .``): its exit code and stderr."""
    code = ("import sys\nsys.modules['streamlit'] = sys.modules['plotly'] = None\n"
            "from s3vm_cli.main import main\nsys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stderr


def test_fit_with_a_film_says_which_extra_to_install_before_it_fits(tmp_path):
    X, y = two_moons(60, random_state=0)
    data = tmp_path / "moons.csv"
    np.savetxt(data, np.column_stack([X, pick_labeled(y, 2, random_state=0)]), fmt="%g",
               delimiter=",", header="x1,x2,label", comments="")
    code, said = without_the_app(tmp_path, "fit", str(data), "-s", "qn-s3vm", "--film", "f.html")
    assert code == 2
    assert said.count("\n") == 1 and 'pip install "s3vm-explorer[app]"' in said, said
    assert not list(tmp_path.glob("moons.csv.*")) and not (tmp_path / "f.html").exists()
    code, said = without_the_app(tmp_path, "fit", str(data), "-s", "qn-s3vm", "-q")
    assert code == 0, said  # the library alone fits and writes its outputs
    assert (tmp_path / "moons.csv.outputs").exists()


def test_the_app_command_says_which_extra_to_install(tmp_path):
    code, said = without_the_app(tmp_path, "app", "--port", "8599")
    assert code == 2 and said.count("\n") == 1
    assert "streamlit and plotly missing" in said and "[app]" in said
