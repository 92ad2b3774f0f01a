"""Episode import and export: tolerant of model output, strict about structure, all or nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.io.episodes import export_episodes, import_episodes
from store import ProjectError, open_project

ROOT = Path(__file__).resolve().parents[3]


def episode(uid="ep-1"):
    return {
        "format": "reasonscope-episode/1",
        "id": uid,
        "benchmark": "mgvqa",
        "model": "some-vlm",
        "agent": "openai",
        "mode": "manipulation",
        "task": "count",
        "outcome": "wrong",
        "success": False,
        "steps": [
            {
                "kind": "tool",
                "name": "perceive_scene",
                "arguments": {},
                "result": {"objects": 3},
                "ok": True,
                "raw_output": '{"tool": "perceive_scene"}',
                "state": {"time": 0.0},
            },
            {
                "kind": "tool",
                "raw_output": 'I will grasp it: ```json\n{"tool": "grasp", "arguments": {"mask_id": 2},}\n```',
            },
            {"kind": "tool", "raw_output": "I think the answer is three mugs."},
            {"kind": "answer", "name": "answer_question", "arguments": {"answer": 3}, "ok": True},
        ],
    }


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "e.reasonscope"
    open_project(path, create=True).close()
    return path


def test_import_reads_broken_replies_and_records_format_errors(project_path, tmp_path):
    src = tmp_path / "episodes.jsonl"
    src.write_text(json.dumps(episode()) + "\n")
    assert import_episodes(project_path, src) == (1, 1)
    with open_project(project_path) as project:
        (eid,) = project.episodes.ids()
        steps = project.episodes.steps(eid)
        assert [s.kind for s in steps] == ["tool", "tool", "format_error", "answer"]
        assert steps[1].name == "grasp" and steps[1].arguments == {"mask_id": 2}
        assert steps[2].ok is False and steps[2].raw_output.startswith("I think")
        assert "Format error" in steps[2].feedback
        assert project.summary.summary().format_error_steps == 1


def test_export_then_import_round_trips(project_path, tmp_path):
    src = tmp_path / "episodes.jsonl"
    src.write_text(json.dumps(episode("a")) + "\n" + json.dumps(episode("b")) + "\n")
    import_episodes(project_path, src)
    out = tmp_path / "out.jsonl"
    assert export_episodes(project_path, out) == 2
    copy = tmp_path / "copy.reasonscope"
    open_project(copy, create=True).close()
    import_episodes(copy, out)
    again = tmp_path / "again.jsonl"
    export_episodes(copy, again)
    assert out.read_text() == again.read_text()


def test_bad_structure_names_the_line_and_imports_nothing(project_path, tmp_path):
    bad = episode("b")
    bad["steps"][0]["kind"] = "teleport"
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(episode("a")) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ProjectError, match=r"bad\.jsonl:2: steps\[0\]\.kind 'teleport'"):
        import_episodes(project_path, src)
    with open_project(project_path) as project:
        assert project.episodes.ids() == []


def test_cli_import_and_export_episodes(project_path, tmp_path):
    src = tmp_path / "episodes.jsonl"
    src.write_text(json.dumps(episode()) + "\n")

    def run(*a):
        return subprocess.run(
            [sys.executable, "-m", "app.cli", *a],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    result = run(
        "import", "episodes", str(src), "--format", "reasonscope", "--db", str(project_path)
    )
    assert result.returncode == 0 and "1 format-error steps" in result.stdout
    result = run(
        "export", "episodes", "--db", str(project_path), "--out", str(tmp_path / "x.jsonl")
    )
    assert result.returncode == 0
    result = run("import", "episodes", str(src), "--db", str(project_path))
    assert result.returncode == 2 and "already in" in result.stderr
