"""The command line sits above the library: s3vm_core knows neither it nor the app, and the
command finds the app through package resources, never by importing the app's code."""

import ast
from pathlib import Path

import pytest

from s3vm_cli.commands import app_folder

ROOT = Path(__file__).resolve().parents[2]

#: What each package may never import (DESIGN.md, Layout).
FORBIDDEN = {
    "s3vm_core": {"ui", "services", "engine", "toy_data", "streamlit", "plotly", "s3vm_cli",
                  "s3vm_explorer"},
    "s3vm_cli": {"ui", "services", "engine", "streamlit", "plotly", "s3vm_explorer"},
}


def imported_packages(path: Path) -> set[str]:
    """The top-level names of every import in a file, those inside functions included."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_nothing_above_it(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    wrong = {str(path.relative_to(ROOT)): sorted(imported_packages(path) & FORBIDDEN[package])
             for path in files}
    assert not {path: names for path, names in wrong.items() if names}


def test_the_command_finds_the_app_it_serves():
    folder = app_folder()
    assert folder is not None and (folder / "app.py").is_file()
    assert (folder / "pages").is_dir() and (folder / ".streamlit" / "config.toml").is_file()
