"""The command line: help everywhere, one-line errors with exit code 2, nothing changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[3]
INFO_KEYS = {
    "schema_version",
    "annotators",
    "scenes",
    "sequences",
    "frames",
    "entities",
    "boxes_2d",
    "boxes_3d",
    "hoi_labels",
    "questions",
    "verifications",
    "episodes",
    "steps",
    "format_error_steps",
}


def subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)


def run_cli(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommand_has_help_and_is_documented(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert len(capsys.readouterr().out) > 80
    readme = (ROOT / "README.md").read_text()
    cli_doc = (ROOT / "docs" / "cli.md").read_text()
    assert f"reasonscope {command}" in readme
    assert f"## reasonscope {command}" in cli_doc


def test_demo_then_info_json(tmp_path):
    db = tmp_path / "demo.reasonscope"
    result = run_cli("demo", "--db", str(db))
    assert result.returncode == 0, result.stderr
    info = run_cli("info", "--db", str(db), "--json")
    assert info.returncode == 0, info.stderr
    data = json.loads(info.stdout)
    assert INFO_KEYS <= set(data)
    assert data["annotators"] == 5  # three of the demo, two verifiers with work packages
    assert data["schema_version"] >= 1
    assert set(data["questions"]) == {"pending", "approved", "corrected", "excluded"}
    again = run_cli("demo", "--db", str(db), "--json")
    assert json.loads(again.stdout)["added_parts"] == []


def _one_line_error(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_info_on_missing_file_fails_without_creating_it(tmp_path):
    missing = tmp_path / "missing.reasonscope"
    _one_line_error(run_cli("info", "--db", str(missing)), str(missing), "no such project")
    assert not missing.exists()


@pytest.mark.parametrize("command", ["info", "demo"])
def test_bad_project_files_are_refused_unchanged(tmp_path, command):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("just some notes\n")
    before = text_file.read_bytes(), text_file.stat().st_mtime_ns
    _one_line_error(run_cli(command, "--db", str(text_file)), str(text_file), "not a SQLite")
    assert (text_file.read_bytes(), text_file.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_bad_arguments_are_one_line(tmp_path):
    _one_line_error(run_cli("info", "--no-such-flag"), "unrecognized arguments")
    _one_line_error(run_cli("bench", "--case", "no_such_case"), "no_such_case")
    _one_line_error(run_cli("no-such-command"), "invalid choice")


def test_gui_without_display_says_so_in_one_line(tmp_path):
    env = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "QT_QPA_PLATFORM": ""}
    result = run_cli(env_extra=env)
    _one_line_error(result, "xvfb-run make run", "make screenshots")


def test_new_creates_an_empty_project_and_refuses_an_existing_path(tmp_path, capsys):
    path = tmp_path / "study.reasonscope"
    assert main(["new", str(path)]) == 0
    assert "Created an empty project" in capsys.readouterr().out
    assert main(["info", "--db", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["scenes"] == 0 and info["annotators"] == 0
    assert main(["new", str(path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["new", str(tmp_path / "missing" / "x.reasonscope")]) == 2
    assert "does not exist" in capsys.readouterr().err
