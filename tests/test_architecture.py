"""The shape of the code: layer rules (import-linter), lint and format (ruff), no import
cycles, folders that stay small, functions that stay readable, and no module borrowing
another's private names.

Size rules measure design, not formatting: `ruff format` alone decides how code is laid
out, a cohesive module may grow to MAX_MODULE_LINES formatted lines, and a function is
split where it passes MAX_FUNCTION_STATEMENTS statements."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import tomllib

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LAYERS = ("app", "widgets", "sim", "annotation", "store")
MAX_MODULES_PER_FOLDER = 25
# Set from the formatted tree (largest module 750 lines on 2026-12-04, 680 after the restructuring): a module this long
# is read as one idea or split where its ideas part, never to meet a count.
MAX_MODULE_LINES = 800
MAX_FUNCTION_STATEMENTS = 60
# Functions over the statement limit, each a known split to make (a Qt form built in one
# `__init__`, one checked decision table). The figure is a ceiling: a function here may
# shrink, never grow, and a new long function is not added to this list.
LONG_FUNCTIONS: dict[str, int] = {
    "annotation/model_output.py:_rebuild": 62,
    "app/demo/jrdb_synth.py:write_sequence": 61,
}


def _tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else shutil.which(name)


def _modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the five layers by dotted name (a package by its own name)."""
    found = {}
    for layer in LAYERS:
        for path in (root / layer).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def import_graph(root: Path = ROOT) -> nx.DiGraph:
    """Module -> module it imports, for every import anywhere in the file (functions and
    `if TYPE_CHECKING:` blocks included: a cycle there is still two modules that are one)."""
    modules = _modules(root)
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                # `from pkg import sub` imports the module pkg.sub; `from mod import name`, mod
                targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                if len(targets) < len(node.names):
                    targets.append(base)
            for target in targets:
                if target in modules and target != name:
                    graph.add_edge(name, target)
    return graph


def test_layer_contracts_hold():
    result = subprocess.run([_tool("lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower() or "0 broken" in result.stdout.lower()


def test_ruff_is_clean():
    result = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_import_cycles_between_modules():
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert not cycles, f"modules importing each other (make one smaller interface): {cycles}"


def test_the_cycle_check_sees_a_cycle(tmp_path):
    """The check itself: two modules of a package that import each other are a cycle,
    also when one import is inside a function or names the package-relative module."""
    pkg = tmp_path / "sim" / "feature"
    pkg.mkdir(parents=True)
    for layer in LAYERS:
        (tmp_path / layer).mkdir(exist_ok=True)
        (tmp_path / layer / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from sim.feature.b import thing\n")
    (pkg / "b.py").write_text("def thing():\n    from . import a\n    return a\n")
    (pkg / "c.py").write_text("import sim.feature.a\n")
    graph = import_graph(tmp_path)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [["sim.feature.a", "sim.feature.b"]]
    assert graph.has_edge("sim.feature.c", "sim.feature.a")


def test_no_folder_holds_more_than_25_modules():
    crowded = {}
    for layer in (*LAYERS, "tests"):
        for folder in [ROOT / layer, *(p for p in (ROOT / layer).rglob("*") if p.is_dir())]:
            if "__pycache__" in folder.parts or "data" in folder.relative_to(ROOT).parts:
                continue
            count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
            if count > MAX_MODULES_PER_FOLDER:
                crowded[str(folder.relative_to(ROOT))] = count
    assert not crowded, f"folders to split into feature packages: {crowded}"


def test_ruff_format_is_clean():
    """`ruff format` alone lays code out; `# fmt: skip` is for aligned data tables only."""
    result = subprocess.run(
        [_tool("ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_fmt_skip_marks_tables_only():
    """A marker on anything but a data literal (a call, a `def`, an expression) is formatting
    bent by hand; a few dozen in the tree at most."""
    marked = []
    for layer in (*LAYERS, "tests"):
        for path in (ROOT / layer).rglob("*.py"):
            marked += [
                f"{path.relative_to(ROOT)}:{n}"
                for n, line in enumerate(path.read_text().splitlines(), 1)
                if "fmt: skip" in line or "fmt: off" in line
            ]
    assert len(marked) <= 36, f"{len(marked)} markers: {marked}"


def statement_count(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Statements in a function's body, nested blocks included; a nested `def` or `class`
    counts as one (it is read, and limited, on its own)."""
    count = 0
    stack: list[ast.stmt] = list(function.body)
    while stack:
        statement = stack.pop()
        count += 1
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            stack += getattr(statement, field, None) or []
        for block in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
            stack += block.body
    return count


def long_functions(root: Path = ROOT) -> dict[str, int]:
    """`path:name` -> statement count, for every function over MAX_FUNCTION_STATEMENTS."""
    found = {}
    for path in _modules(root).values():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                count = statement_count(node)
                if count > MAX_FUNCTION_STATEMENTS:
                    found[f"{path.relative_to(root)}:{node.name}"] = count
    return found


def test_functions_stay_readable():
    grown = {
        where: count
        for where, count in long_functions().items()
        if count > LONG_FUNCTIONS.get(where, MAX_FUNCTION_STATEMENTS)
    }
    assert not grown, f"split these where their steps part: {grown}"


def test_the_statement_count_sees_nested_blocks(tmp_path):
    (tmp_path / "sim").mkdir()
    for layer in LAYERS:
        (tmp_path / layer).mkdir(exist_ok=True)
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_STATEMENTS))
    (tmp_path / "sim" / "long.py").write_text(
        f"def f(a):\n    if a:\n{body}    else:\n        pass\n"
        "    def inner():\n        return 1\n    return inner\n"
    )
    # the `if`, its body, the `else` body's `pass`, the nested def and the return
    assert long_functions(tmp_path) == {"sim/long.py:f": MAX_FUNCTION_STATEMENTS + 4}


def test_modules_stay_within_a_generous_formatted_size():
    big = {}
    for path in _modules().values():
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES:
            big[str(path.relative_to(ROOT))] = lines
    assert not big, f"split these where their ideas part: {big}"


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for layer in (*LAYERS, "tests"):
        for path in (ROOT / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] not in (*LAYERS, "tests"):
                    continue
                offenders += [
                    f"{path.relative_to(ROOT)}:{node.lineno} {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert not offenders, f"make these public where they are defined: {offenders}"


def test_no_test_module_imports_another():
    """Shared fixtures live in helper modules (tests/episode_fixtures.py, gestures.py, ...),
    so moving a test never breaks another."""
    offenders = []
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            offenders += [
                f"{path.relative_to(ROOT)}: {n}"
                for n in names
                if n.rpartition(".")[2].startswith("test_")
            ]
    assert not offenders, offenders


QT_MODULES = ("PySide6", "pyqtgraph", "OpenGL", "widgets")


def _imports_of(path: Path) -> set[str]:
    """What `path` imports absolutely: each module, and for `from m import x` also `m.x`
    (a submodule, when x is one)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _import_contracts() -> list[dict]:
    """The import-linter contracts in pyproject.toml."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def qt_free_app_packages(root: Path = ROOT) -> set[str]:
    """The packages directly under app/ none of whose modules imports Qt or a widget."""
    free = set()
    for folder in sorted(p for p in (root / "app").iterdir() if (p / "__init__.py").exists()):
        imports = set().union(*(_imports_of(m) for m in folder.rglob("*.py")))
        if not any(name.split(".")[0] in QT_MODULES for name in imports):
            free.add(f"app.{folder.name}")
    return free


def test_every_qt_free_app_package_is_under_a_no_qt_contract():
    """A new headless package (importers, jobs, ...) joins the contract that keeps it so;
    otherwise the first Qt import slips in unnoticed."""
    guarded = {
        module
        for contract in _import_contracts()
        if contract["type"] == "forbidden" and "PySide6" in contract["forbidden_modules"]
        for module in contract["source_modules"]
    }
    assert qt_free_app_packages() - guarded == set()


def test_the_qt_free_check_sees_a_new_headless_package(tmp_path):
    (tmp_path / "app" / "gui_part").mkdir(parents=True)
    (tmp_path / "app" / "headless").mkdir()
    for folder in ("gui_part", "headless"):
        (tmp_path / "app" / folder / "__init__.py").write_text("")
    (tmp_path / "app" / "gui_part" / "view.py").write_text("from PySide6.QtCore import Qt\n")
    (tmp_path / "app" / "headless" / "job.py").write_text("from store import open_project\n")
    assert qt_free_app_packages(tmp_path) == {"app.headless"}


# Only the window holds the modes' controllers; the screenshot and perf scripts drive the
# app the way tests do.
MODE_HOLDERS = ("app/main_window.py", "app/screenshots", "app/perf")


def reaches_into_modes(root: Path = ROOT) -> list[str]:
    """`x.controllers`, `x.mode(...)` or `x.mode_window(...)` outside the window: a part
    reaching into a mode through its host instead of being handed what it needs (or asking
    `switch_to`)."""
    found = []
    for path in sorted((root / "app").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where.startswith(MODE_HOLDERS):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            reach = isinstance(node, ast.Attribute) and node.attr == "controllers"
            reach |= (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("mode", "mode_window")
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "self")
            )
            if reach:
                found.append(f"{where}:{node.lineno}")
    return sorted(found)


def test_no_part_reaches_into_a_mode():
    assert reaches_into_modes() == []


def test_the_reach_check_sees_one(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "menu.py").write_text(
        "def show(window):\n"
        "    window.controllers['results'].tabs.setCurrentIndex(5)\n"
        "    window.mode('results').tabs.setCurrentIndex(5)\n"
        "    window.switch_to('results', 'team')\n"
        "    window.mode_window('results').docks['project'].hide()\n"
    )
    assert reaches_into_modes(tmp_path) == ["app/menu.py:2", "app/menu.py:3", "app/menu.py:5"]


def test_every_mode_folder_has_the_same_shape():
    """app/modes/<mode>/: `mode.py` (the controller) and `docks.py` (where its docks go)
    in each, `graph.py` in each mode with a Scene graph dock; every mode folder is under
    the "modes do not import each other" contract."""
    folders = {p.name: p for p in (ROOT / "app" / "modes").iterdir() if (p / "mode.py").exists()}
    shapeless = [p.name for p in (ROOT / "app" / "modes").iterdir() if p.is_dir()]
    shapeless = [n for n in shapeless if n != "__pycache__" and n not in folders]
    assert not shapeless, f"mode folders without mode.py: {shapeless}"
    for name, folder in folders.items():
        assert (folder / "docks.py").exists(), f"app/modes/{name}/docks.py"
        builds_graph_dock = any("(GraphDock)" in p.read_text() for p in folder.glob("*.py"))
        assert not builds_graph_dock or (folder / "graph.py").exists(), f"{name}: graph.py"
    (independent,) = [c for c in _import_contracts() if c["name"].startswith("Modes do not")]
    assert set(independent["modules"]) == {f"app.modes.{name}" for name in folders}


def modules_without_own_tests(root: Path = ROOT) -> list[str]:
    """Widget modules that no test outside tests/app/ imports: reached only through the whole
    window, so a failure does not say which module broke."""
    imported: set[str] = set()
    for path in (root / "tests").rglob("test_*.py"):
        if path.relative_to(root / "tests").parts[0] != "app":
            imported |= _imports_of(path)
    return sorted(
        name
        for name, path in _modules(root).items()
        if name.startswith("widgets.") and path.name != "__init__.py" and name not in imported
    )


def test_every_widget_module_has_tests_of_its_own():
    assert modules_without_own_tests() == []


def test_the_own_tests_check_sees_a_module_tested_only_through_the_window(tmp_path):
    for layer in LAYERS:
        (tmp_path / layer).mkdir()
    (tmp_path / "widgets" / "panel.py").write_text("")
    (tmp_path / "widgets" / "list.py").write_text("")
    (tmp_path / "tests" / "app").mkdir(parents=True)
    (tmp_path / "tests" / "app" / "test_window.py").write_text("import widgets.panel\n")
    (tmp_path / "tests" / "test_list.py").write_text("from widgets import list\n")
    assert modules_without_own_tests(tmp_path) == ["widgets.panel"]
