"""The app's library is laid out one way (DESIGN.md, "Layout"): no module of ui/ imports another
in a circle, the Streamlit-free modules stay free of it, and a solver's child process never
imports Streamlit."""

import ast
import subprocess
import sys
import types
from pathlib import Path

import pytest

from ui import jobs, runs

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "ui"
#: The modules a solver's process, the share link's parser and the tests use without a page.
STREAMLIT_FREE = ("params", "solvers", "presets", "scenario", "figures", "work", "comparison",
                  "lessons", "jobs", "docs")


def ui_imports(path: Path) -> set[str]:
    """The ui modules ``path`` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("ui.")}
        elif isinstance(node, ast.ImportFrom) and node.module == "ui":
            found |= {f"ui.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ui."):
            found.add(node.module)
    return found


def import_graph() -> dict[str, set[str]]:
    return {f"ui.{path.stem}": ui_imports(path) for path in UI.glob("*.py")
            if path.stem != "__init__"}


def test_no_module_of_ui_imports_another_in_a_circle():
    graph = import_graph()
    assert "ui.widgets" not in graph and "ui.caching" not in graph  # the hub is gone
    done, path = set(), []

    def visit(module):
        if module in path:
            raise AssertionError("import circle: " + " -> ".join(
                path[path.index(module):] + [module]))
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            visit(imported)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_the_streamlit_free_modules_import_neither_streamlit_nor_a_module_that_does():
    names = ", ".join(f"ui.{name}" for name in STREAMLIT_FREE)
    code = (f"import sys, {names}\n"
            "assert 'streamlit' not in sys.modules, sorted(m for m in sys.modules "
            "if m.startswith('ui.'))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def streamlit_main(monkeypatch):
    """``__main__`` as the Streamlit server has it while the app runs: a module whose file is
    app.py (Streamlit's script runner installs one), which multiprocessing re-imports in every
    child under the name ``__mp_main__``."""
    main = types.ModuleType("__main__")
    main.__file__ = str(ROOT / "app.py")
    monkeypatch.setitem(sys.modules, "__main__", main)


def test_a_solver_process_started_by_the_app_never_imports_streamlit(streamlit_main):
    job = runs.CallJob(eval, ("'streamlit' in __import__('sys').modules",), budget=60)
    while not job.done:
        job.wait(0.25)
    assert job.status == jobs.FINISHED, job.error
    assert job.result is False
