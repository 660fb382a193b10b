"""The layers of docs/architecture.md, held as tests: each folder imports only the floors below.

    pages/  ->  s3vm_explorer/ui/ (Streamlit)  ->  s3vm_explorer/engine/ (Streamlit-free)
            ->  s3vm_core/, toy_data/
    s3vm_cli/ (the command line)  ->  s3vm_core/, toy_data/ (and engine.notebook for --film)

The engine runs in the solvers' child processes and the share link's parser, where Streamlit
must never be imported; the library knows nothing of the app or the command line; the command
line finds the app through package resources, never by importing its code; a page reads ui/
and the engine's public names, never an engine module's private ones, and nothing of the
library: it only draws. The library and the command line install without the app's extra.
"""

import ast
import re
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The project's own packages (the top-level names their modules are imported by).
PACKAGES = ("s3vm_core", "s3vm_cli", "toy_data", "s3vm_explorer", "pages", "benchmarks")
ENGINE, UI = "s3vm_explorer/engine", "s3vm_explorer/ui"
#: What only the app's extra installs (pyproject.toml's ``app``).
APP_EXTRA = ("streamlit", "plotly")


def python_files(folder: str) -> list[Path]:
    found = sorted((ROOT / folder).rglob("*.py"))
    assert found, f"no Python file in {folder}/"  # a moved folder must not empty a test
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function, as dotted names
    (``from a import b`` gives ``a`` and ``a.b``: b may be a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def top_packages(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imports_of(path)}


@pytest.mark.parametrize("path", python_files("s3vm_core"), ids=module_name)
def test_the_library_imports_nothing_of_the_app(path):
    banned = {"toy_data", "pages", "streamlit", "plotly", "benchmarks", "s3vm_cli",
              "s3vm_explorer"}
    assert not top_packages(path) & banned, f"{module_name(path)} imports " \
        f"{sorted(top_packages(path) & banned)}"


@pytest.mark.parametrize("path", python_files("s3vm_cli"), ids=module_name)
def test_the_command_line_imports_nothing_of_the_app_but_its_film(path):
    """(``--film`` writes the app's film: ``engine.notebook``, Streamlit-free; it checks the
    film's limit on classes, ``engine.data.MAX_CLASSES``, before the fit.)"""
    banned = {"pages", "streamlit", "plotly", "benchmarks"}
    app = {name for name in imports_of(path) if name.startswith("s3vm_explorer")}
    assert app <= {"s3vm_explorer.engine.notebook", "s3vm_explorer.engine.notebook.film",
                   "s3vm_explorer.engine.data", "s3vm_explorer.engine.data.MAX_CLASSES"}, app
    assert not top_packages(path) & banned, f"{module_name(path)} imports " \
        f"{sorted(top_packages(path) & banned)}"


@pytest.mark.parametrize("path", python_files(ENGINE), ids=module_name)
def test_the_engine_imports_no_streamlit_and_nothing_above_it(path):
    banned = {"streamlit", "pages"}
    above = {name for name in imports_of(path) if name.startswith("s3vm_explorer.ui")}
    assert not top_packages(path) & banned and not above, f"{module_name(path)} imports " \
        f"{sorted(top_packages(path) & banned | above)}"


@pytest.mark.parametrize("path", python_files("toy_data"), ids=module_name)
def test_the_data_sets_import_neither_the_library_nor_the_app(path):
    banned = {"s3vm_explorer", "pages", "streamlit", "plotly", "s3vm_core"}
    assert not top_packages(path) & banned


@pytest.mark.parametrize("path", python_files(UI), ids=module_name)
def test_ui_modules_use_streamlit_or_draw_for_it(path):
    """ui/ holds Streamlit code only: a module there imports streamlit (or a ui module that
    does); the Streamlit-free computation belongs in the engine, the solvers' in the library."""
    imported = imports_of(path)
    assert "streamlit" in top_packages(path) or any(
        name.startswith("s3vm_explorer.ui.") for name in imported), \
        f"{module_name(path)} needs no Streamlit"
    assert "s3vm_core" not in top_packages(path), f"{module_name(path)} computes: engine's work"


@pytest.mark.parametrize("path", python_files("pages"), ids=module_name)
def test_pages_only_draw(path):
    """A page reads what the engine computed and draws it: it imports nothing of the
    library."""
    assert "s3vm_core" not in top_packages(path), f"{module_name(path)} imports s3vm_core"


@pytest.mark.parametrize("path", python_files("pages"), ids=module_name)
def test_pages_take_no_private_name_of_the_engine(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("s3vm_explorer.engine")):
            private = [alias.name for alias in node.names if alias.name.startswith("_")]
            assert not private, f"{module_name(path)} imports {private} from {node.module}"


def import_graph(folders=(ENGINE, UI)) -> dict[str, set[str]]:
    modules = {module_name(p): p for folder in folders for p in python_files(folder)}
    return {name: {m for m in imports_of(path) if m in modules and m != name}
            for name, path in modules.items()}


def test_no_module_of_the_app_imports_another_in_a_circle():
    graph = import_graph()
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


def defined_names(path: Path) -> list[str]:
    """The names a module defines at its top level: functions, classes and assignments."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return names


@pytest.mark.parametrize("path", [p for folder in PACKAGES for p in python_files(folder)],
                         ids=module_name)
def test_no_module_defines_a_name_twice(path):
    twice = [name for name, count in Counter(defined_names(path)).items() if count > 1]
    assert not twice, f"{module_name(path)} defines {twice} more than once"


def test_the_engine_runs_without_streamlit():
    """Importing every engine module (as a solver's process does) loads no Streamlit."""
    names = ", ".join(sorted(module_name(p) for p in python_files(ENGINE)))
    code = (f"import sys, {names}\n"
            "assert 'streamlit' not in sys.modules, 'streamlit was imported'")
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
    from s3vm_explorer.engine import protocol
    from s3vm_explorer.engine.run import lifecycle

    job = lifecycle.CallJob(eval, ("'streamlit' in __import__('sys').modules",), budget=60)
    while not job.done:
        job.wait(0.25)
    assert job.status == protocol.FINISHED, job.error
    assert job.result is False


def test_the_library_and_the_command_line_run_without_the_app_extra():
    """``pip install .`` brings neither Streamlit nor plotly: with both unimportable, the
    library fits, the data sets load and the command line parses (its app and film refuse
    with a sentence, tests/s3vm_cli/test_app_command.py)."""
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in APP_EXTRA)
    code = ("import sys\n" + blocked +
            "import s3vm_core, toy_data\nfrom s3vm_cli.main import build_parser\n"
            "X, y = toy_data.two_moons(60, random_state=0)\n"
            "s3vm_core.QNS3VM().fit(X, toy_data.pick_labeled(y, 2, random_state=0))\n"
            "build_parser()\n"
            "assert not {'streamlit', 'plotly'} & {m.split('.')[0] for m, v in "
            "sys.modules.items() if v is not None}\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_pip_install_dot_is_the_library_and_the_app_is_an_extra():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {re.split(r"[<>=!~ \[]", requirement)[0] for requirement in project["dependencies"]}
    assert base == {"numpy", "scipy", "scikit-learn", "joblib"}
    app = {re.split(r"[<>=!~ \[]", r)[0] for r in project["optional-dependencies"]["app"]}
    assert set(APP_EXTRA) <= app


def test_the_session_state_module_stays_a_list_of_keys_and_accessors():
    lines = (ROOT / UI / "state.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"ui/state.py has {lines} lines: its behaviour belongs elsewhere"


def test_every_test_file_has_a_name_of_its_own():
    """pytest imports test files by their base name (the tests have no packages): two files of
    one name in two folders stop the whole run at collection."""
    names = Counter(path.name for path in (ROOT / "tests").rglob("test_*.py"))
    assert not [name for name, count in names.items() if count > 1]
