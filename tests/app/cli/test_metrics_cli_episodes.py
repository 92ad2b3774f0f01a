"""`reasonscope metrics` reports episodes next to verification, as JSON and as a table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.jobs.metrics import project_metrics
from store import open_project

ROOT = Path(__file__).resolve().parents[3]


def tool(name: str, ok: bool = True) -> dict:
    return {"kind": "tool", "name": name, "arguments": {}, "result": {"replay": {}}, "ok": ok}


def answer(value) -> dict:
    return {"kind": "answer", "name": "answer_question", "arguments": {"answer": value}, "ok": True}


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "runs.reasonscope"
    with open_project(path, create=True) as project:
        base = {"benchmark": "mgvqa", "model": "vlm-a", "agent": "openai", "task": "count"}
        question = {"question": {"text": "How many?", "answer": 3}}
        project.episodes.add(
            {**base, **question, "mode": "manipulation", "success": True},
            [
                tool("perceive_scene"),
                tool("grasp", False),
                tool("find_object"),
                tool("push"),
                answer("3"),
            ],
        )
        project.episodes.add(
            {**base, **question, "mode": "manipulation", "success": False},
            [tool("grasp"), answer("1")],
        )
        project.episodes.add(
            {
                **base,
                **question,
                "model": "chance",
                "agent": "chance",
                "mode": "direct",
                "success": False,
            },
            [answer("0")],
        )
    return path


def test_metrics_json_has_an_episodes_key(db):
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "metrics", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"verification", "episodes", "hoi", "reasoning", "bimanual"}
    assert out["verification"]["n"] == 0
    e = out["episodes"]
    assert e["n"] == 3 and e["tasks"] == ["count", "find", "beneath", "compare"]
    assert all(r["average_pct"] is None and not r["complete"] for r in e["rows"])  # Count only
    chance, model = e["rows"]
    assert chance["baseline"] is True and chance["success"]["count"]["success_pct"] == 0.0
    assert model["success"]["count"] == {"n": 2, "successes": 1, "success_pct": 50.0}
    assert model["manipulation"]["mean_calls"] == 1.5
    assert model["manipulation"]["acted_episodes"] == 2
    assert model["count"]["exact"] == 1 and model["count"]["under"] == 1
    assert model["recovery"]["next"]["push"] == 1
    assert model["recovery"]["regrounding"]["seg_only"] == 1


def test_metrics_text_prints_an_episode_table(db, capsys):
    from app.cli import main

    assert main(["metrics", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "verification: 0 questions" in out
    assert "episodes: 3" in out
    lines = [line for line in out.splitlines() if "vlm-a / openai" in line or "baseline" in line]
    assert len(lines) == 2
    assert "chance / chance (baseline)" in lines[0] and "direct" in lines[0]
    assert "manipulation" in lines[1] and "50.0" in lines[1] and "1.5" in lines[1]


def test_project_metrics_without_episodes(tmp_path):
    path = tmp_path / "empty.reasonscope"
    open_project(path, create=True).close()
    assert project_metrics(path)["episodes"]["n"] == 0
