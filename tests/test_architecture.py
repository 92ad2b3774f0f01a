"""Layer rules (import-linter), lint (ruff), and module size limits."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else shutil.which(name)


def test_layer_contracts_hold():
    result = subprocess.run([_tool("lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower() or "0 broken" in result.stdout.lower()


def test_ruff_is_clean():
    result = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_widget_modules_stay_small():
    for folder in ("widgets", "app"):
        for path in (ROOT / folder).glob("*.py"):
            lines = len(path.read_text().splitlines())
            assert lines <= 420, f"{path} has {lines} lines; split it"
