"""The shape of the code: layer rules (import-linter), lint (ruff), no import cycles,
folders and modules that stay small, and no module borrowing another's private names."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LAYERS = ("app", "widgets", "sim", "annotation", "store")
MAX_MODULES_PER_FOLDER = 25
MAX_LINES = {"app": 420, "widgets": 420, "sim": 420, "annotation": 760, "store": 620}


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


def test_modules_stay_small():
    """Every module in every folder, recursively; a widget or app module under about 400
    lines (labelme's 3,000-line main window is the warning)."""
    big = {}
    for name, path in _modules().items():
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES[name.split(".")[0]]:
            big[str(path.relative_to(ROOT))] = lines
    assert not big, f"split these: {big}"


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
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names
                          if n.rpartition(".")[2].startswith("test_")]  # fmt: skip
    assert not offenders, offenders
