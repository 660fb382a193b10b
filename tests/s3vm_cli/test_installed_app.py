"""The package as a user installs it: the wheel ships the app and the components' pages, and,
in a fresh virtual environment outside the checkout, serves the app (`s3vm app`) and fits
(`s3vm fit`) from another folder."""

import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import venv
import zipfile
from pathlib import Path

import numpy as np
import pytest

from s3vm_core import ContinuationS3VM
from toy_data import pick_labeled, two_moons

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parents[2]
FRONTENDS = ("s3vm_explorer/engine/film_player", "s3vm_explorer/ui/counter_frontend",
             "s3vm_explorer/ui/keyboard_frontend")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """The wheel and the editable wheel built, offline, from a copy of what the build reads
    (so that the build leaves nothing in the checkout), with the build's output."""
    folder = tmp_path_factory.mktemp("build")
    source = folder / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "app.py"):
        shutil.copy(CHECKOUT / name, source / name)
    for tree in ("s3vm_core", "s3vm_cli", "toy_data", "s3vm_explorer", "pages", "docs",
                 ".streamlit"):
        shutil.copytree(CHECKOUT / tree, source / tree,
                        ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "b.build_wheel(sys.argv[1]); b.build_editable(sys.argv[1])", str(folder)],
        cwd=source, capture_output=True, text=True, check=True)
    return next(folder.glob("s3vm_explorer-*-py3-none-any.whl")), built.stdout + built.stderr


@pytest.fixture(scope="module")
def wheel(build):
    return build[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """A fresh virtual environment holding the wheel; its dependencies are read from the test
    environment's site-packages (a path, not a site: the checkout's editable install stays out)."""
    root = tmp_path_factory.mktemp("venv")
    venv.create(root, with_pip=False)
    python = root / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], check=True, capture_output=True, text=True)
    site = Path(purelib.stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-index", "--quiet", str(wheel)], check=True, capture_output=True)
    return root / "bin"


def test_the_wheel_carries_the_app_and_the_build_says_nothing_is_ignored(build):
    wheel, output = build
    # `make install` printed about 40 lines of "Package would be ignored" for the frontends
    assert "would be ignored" not in output
    shipped = set(zipfile.ZipFile(wheel).namelist())
    frontends = {str(path.relative_to(CHECKOUT)) for folder in FRONTENDS
                 for path in (CHECKOUT / folder).iterdir() if path.is_file()}
    assert frontends and frontends <= shipped, frontends - shipped
    for name in ("s3vm_explorer/app/app.py", "s3vm_explorer/app/pages/watch.py",
                 "s3vm_explorer/app/.streamlit/config.toml",
                 "s3vm_explorer/app/docs/benchmarks.md", "s3vm_explorer/engine/run/process.py"):
        assert name in shipped, name
    for package in ("s3vm_core", "s3vm_cli", "toy_data", "s3vm_explorer"):  # every module
        modules = {str(path.relative_to(CHECKOUT)) for path in (CHECKOUT / package).rglob("*.py")
                   if "__pycache__" not in path.parts}
        assert modules <= shipped, modules - shipped
    # no generic top-level name: every module lives under one of the project's packages
    tops = {name.split("/")[0] for name in shipped if not name.endswith(".dist-info/RECORD")}
    assert {t for t in tops if not t.endswith(".dist-info")} == {
        "s3vm_core", "s3vm_cli", "toy_data", "s3vm_explorer"}


def test_the_wheel_requires_the_library_s_dependencies_and_offers_the_app_as_an_extra(wheel):
    archive = zipfile.ZipFile(wheel)
    metadata = archive.read(next(n for n in archive.namelist()
                                 if n.endswith(".dist-info/METADATA"))).decode()
    required = [line.split(": ", 1)[1] for line in metadata.splitlines()
                if line.startswith("Requires-Dist: ")]
    always = {r.split(">")[0].split("=")[0].strip() for r in required if "extra ==" not in r}
    assert always == {"numpy", "scipy", "scikit-learn", "joblib"}
    app = {r.split(">")[0].strip() for r in required if "extra == \"app\"" in r}
    assert app == {"streamlit", "plotly"}


def test_s3vm_fit_runs_from_another_folder(installed, tmp_path):
    X, y = two_moons(200, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    rows = [f"{a},{b},{'' if c < 0 else c}" for (a, b), c in zip(X, labels, strict=True)]
    (tmp_path / "moons.csv").write_text("x1,x2,label\n" + "\n".join(rows) + "\n")
    done = subprocess.run([installed / "s3vm", "fit", "moons.csv", "-s", "cs3vm", "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    predicted = np.loadtxt(tmp_path / "moons.csv.predictions")
    assert np.array_equal(predicted, ContinuationS3VM().fit(X, labels).predict(X))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_s3vm_app_serves_the_app_from_the_installed_package(installed, tmp_path):
    port = _free_port()
    server = subprocess.Popen([installed / "s3vm", "app", "--address", "127.0.0.1", "--port",
                               str(port), "--server.headless", "true"], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.stdout.read()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                            timeout=5) as answer:
                    assert answer.read() == b"ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "the app did not answer in 120 s"
                time.sleep(0.5)
        # it serves the installed package's app.py, not the checkout's
        folder = subprocess.run([installed / "python", "-c", "from s3vm_cli.commands import "
                                 "app_folder; print(app_folder())"], capture_output=True,
                                text=True, check=True, cwd=tmp_path).stdout.strip()
        assert Path(folder).is_relative_to(installed.parent)
        assert Path(folder, "docs", "deviations.md").is_file()  # the About page's documents
    finally:
        server.terminate()
        server.wait(timeout=30)
    # SIGTERM to the command stopped the Streamlit server it started: the port is free again
    deadline = time.monotonic() + 30
    while _answers(port):
        assert time.monotonic() < deadline, "the server still answers after s3vm app stopped"
        time.sleep(0.5)


def _answers(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0
