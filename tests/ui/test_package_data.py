"""The built wheel ships the components' pages, and building it warns of no ignored package."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRONTENDS = ("ui/player_frontend", "ui/counter_frontend")


@pytest.mark.slow
def test_the_wheel_holds_every_frontend_file_and_the_build_says_nothing_is_ignored(tmp_path):
    # A copy of what the build reads, so that the build leaves nothing in the working tree.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("s3vm_core", "toy_data", "ui"):
        shutil.copytree(ROOT / package, source / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "b.build_wheel(sys.argv[1]); b.build_editable(sys.argv[1])", str(tmp_path)],
        cwd=source, capture_output=True, text=True, check=True)
    # `make install` printed about 40 lines of "Package would be ignored" for the frontends
    assert "would be ignored" not in built.stdout + built.stderr
    (wheel,) = tmp_path.glob("s3vm_explorer-*-py3-none-any.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    expected = {str(path.relative_to(ROOT)) for folder in FRONTENDS
                for path in (ROOT / folder).iterdir() if path.is_file()}
    assert expected and expected <= shipped, expected - shipped
